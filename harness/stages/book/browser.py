# SPDX-License-Identifier: GPL-2.0-only
"""Headless Chromium for the book check, driven through WebDriver.

Debian's chromium-driver (/usr/bin/chromedriver) starts and drives
/usr/bin/chromium; python3-selenium speaks WebDriver to it.  What the check
asks of a page: its console errors, uncaught exceptions and failed loads
(Chromium's browser log, kept when the session asks for it with the
capability goog:loggingPrefs), answers from its live DOM (a script run in
the page), and PNGs of the viewport at a size in CSS pixels and a device
scale factor, after scrolling to an element.
"""

import importlib.util
import json
import os
import time

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--mute-audio", "--disable-extensions"]
# The browser log's sources, under the names the check's failures give them.
SOURCES = {"javascript": "exception", "console-api": "console.error",
           "network": "failed load"}


def missing():
    """Why the browser cannot be driven on this machine (one line), or None."""
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.path.exists(path):
            return f"{path} is not installed (package {package}: make deps-book)"
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed (package python3-selenium: make deps-book)"
    return None


def one_line(e):
    """An exception in one line: WebDriver's messages end in a stack trace."""
    text = (getattr(e, "msg", None) or str(e)).strip()
    return f"{type(e).__name__}: {(text.splitlines() or ['?'])[0][:300]}"


class Browser:
    """One headless Chromium behind chromedriver; quit on leaving a with."""

    def __init__(self, scale=1, timeout=30):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        opts = webdriver.ChromeOptions()
        opts.binary_location = CHROMIUM
        for flag in FLAGS + [f"--force-device-scale-factor={scale}"]:
            opts.add_argument(flag)
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
        try:
            self.driver.set_page_load_timeout(timeout)
            self.driver.set_script_timeout(timeout)
        except Exception:
            self.driver.quit()      # no browser left behind
            raise
        self.log = []

    def viewport(self, width, height):
        """A viewport of width x height CSS pixels: WebDriver sizes the
        window, frame included, so the window grows by what the frame takes."""
        self.driver.set_window_size(width, height)
        w, h = self.evaluate("[innerWidth, innerHeight]")
        if (w, h) != (width, height):
            self.driver.set_window_size(2 * width - w, 2 * height - h)

    def navigate(self, url):
        """Load url; WebDriver returns once the page has loaded."""
        self.driver.get(url)

    def evaluate(self, expr):
        return self.driver.execute_script("return " + expr)

    def scroll_to(self, anchor):
        """Scroll the element with id anchor to the top; False if none."""
        return self.evaluate(f"(e => {{ if (e) e.scrollIntoView({{block: 'start'}});"
                             f" return !!e; }})(document.getElementById({json.dumps(anchor)}))")

    def screenshot(self, path):
        """A PNG of the viewport as it is now."""
        if not self.driver.save_screenshot(path):
            raise OSError(f"the screenshot {path} was not written")
        return path

    def problems(self, settle=0.3):
        """Console errors, uncaught exceptions and failed loads seen so far,
        one line each (after settle seconds for late ones)."""
        time.sleep(settle)
        for e in self.driver.get_log("browser"):     # each entry once
            if e.get("level") == "SEVERE":
                source = SOURCES.get(e.get("source"), e.get("source") or "log")
                self.log.append(f"{source}: {' '.join(str(e.get('message')).split())}")
        return list(self.log)

    def close(self):
        self.driver.quit()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()
