# SPDX-License-Identifier: GPL-2.0-only
"""The check book.browser: headless Chromium, driven through WebDriver
(browser.py), loads book.html on a laptop (1280 px) and on a phone (390 px)
without a console error, exception or failed load, the page never scrolls
sideways at either width (a table may, inside its own box), and screenshots
are written to build/book/: the first page (laptop, phone), one chunk with
its cross-references, and the sections a reader checks for layout (the
Jitter RNG's parity table, the traceability matrix, the worked example) at
both widths.
"""

import os
import time
import urllib.parse

from ...base import config
from ...base.checks import Check
from . import browser

DOM_QUERY = """(() => {
    const ids = new Set([...document.querySelectorAll('[id]')].map(e => e.id));
    const links = [...document.querySelectorAll('a[href^="#"]')];
    const bad = links.filter(a => !ids.has(decodeURIComponent(
        a.getAttribute('href').slice(1)))).map(a => a.getAttribute('href'));
    const imgs = [...document.images].filter(i => !i.complete ||
        i.naturalWidth === 0).map(i => i.getAttribute('src'));
    const chunks = [...document.querySelectorAll('div.chunk')];
    const pick = chunks.find(c => c.querySelector('.chunk-xref') &&
        /Used in/.test(c.textContent) && /Defines/.test(c.textContent) &&
        /Tangles to/.test(c.textContent) && /Meets/.test(c.textContent) &&
        c.querySelector('a.chunk-use')) || chunks[0];
    return {links: links.length, bad: bad.slice(0, 20), nbad: bad.length,
            images: document.images.length, badimg: imgs,
            chunks: chunks.length, pick: pick ? pick.id : null,
            css: getComputedStyle(document.querySelector('div.chunk') ||
                 document.body).borderLeftStyle,
            title: document.title};
})()"""
TITLE = "headless Chromium loads the book without errors"


SECTIONS = ("jitter-parity", "traceability", "worked-trace", "document-control")
OVERFLOW = """(() => ({width: window.innerWidth,
    scroll: document.documentElement.scrollWidth,
    wide: [...document.querySelectorAll('main#content > *, section')]
        .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
        .slice(0, 5).map(e => (e.id || e.tagName))}))()"""


def check(status, reason=None, counts=None):
    kw = dict(origin="book", counts=counts or {})
    if status == "pass":
        return Check.passed("book.browser", TITLE, **kw)
    if status == "skip":
        return Check.skipped("book.browser", TITLE, reason, **kw)
    return Check.failed("book.browser", TITLE, reason, **kw)


def scroll_shot(b, anchor, path):
    b.scroll_to(anchor)
    return b.screenshot(path)


def at_width(b, width, height, outdir, tag, shots, problems):
    """The page at one width: no sideways scroll; screenshots of SECTIONS."""
    b.viewport(width, height)
    o = b.evaluate(OVERFLOW)
    if o.get("scroll", 0) > o.get("width", 0) + 1:
        problems.append(f"at {width} px the page scrolls sideways ({o['scroll']} px "
                        f"wide): {', '.join(o.get('wide', []))}")
    for anchor in SECTIONS:
        shots[f"{tag}-{anchor}"] = scroll_shot(
            b, anchor, os.path.join(outdir, f"screenshot-{tag}-{anchor}.png"))


def live_page(url, outdir):
    """(problems, DOM facts, {name: screenshot}) of the page loaded in
    headless Chromium: its first page, one chunk with its cross-references
    after scrolling to it, and SECTIONS at a laptop's and a phone's width."""
    shots, extra = {}, []
    with browser.Browser() as b:
        b.viewport(1280, 900)
        b.navigate(url)
        shots["first-page"] = b.screenshot(os.path.join(outdir, "screenshot-first-page.png"))
        info = b.evaluate(DOM_QUERY)
        if info.get("pick"):
            shots["chunk"] = scroll_shot(b, info["pick"],
                                         os.path.join(outdir, "screenshot-chunk.png"))
        at_width(b, 1280, 900, outdir, "laptop", shots, extra)
        at_width(b, 390, 844, outdir, "phone", shots, extra)
        return b.problems() + extra, info, shots


def phone_shot(url, outdir):
    """The first page on a phone, drawn at a phone's two device pixels to
    the CSS pixel (a browser of its own: the factor is set at its start)."""
    with browser.Browser(scale=2) as b:
        b.viewport(390, 844)
        b.navigate(url)
        return {"phone": b.screenshot(os.path.join(outdir, "screenshot-phone.png"))}


def browser_check(outdir):
    why = browser.missing()
    if why:
        return check("skip", why)
    url = "file://" + urllib.parse.quote(os.path.abspath(os.path.join(outdir, "book.html")))
    t0 = time.time()
    try:
        problems, info, shots = live_page(url, outdir)
        shots.update(phone_shot(url, outdir))
    except Exception as e:
        return check("fail", f"Chromium through WebDriver: {browser.one_line(e)}")
    if info.get("badimg"):
        problems.append(f"images that did not load: {', '.join(info['badimg'][:5])}")
    if info.get("css") in (None, "", "none"):
        problems.append("book.css did not apply (div.chunk has no border)")
    # Unresolved in-page links are book.links.html's to report; counted here.
    counts = {"console_errors": len([p for p in problems
                                     if not p.startswith(("images", "book.css", "at "))]),
              "sideways_scroll": len([p for p in problems if p.startswith("at ")]),
              "links_checked_in_dom": info.get("links", 0),
              "links_unresolved": info.get("nbad", 0),
              "images": info.get("images", 0), "chunks_in_dom": info.get("chunks", 0),
              "screenshots": len(shots), "seconds": round(time.time() - t0, 1)}
    c = check("fail" if problems else "pass", "; ".join(problems)[:1500] or None, counts)
    c.extra = {"screenshots": {k: config.display(v) for k, v in shots.items()},
               "screenshot_chunk": info.get("pick")}
    return c
