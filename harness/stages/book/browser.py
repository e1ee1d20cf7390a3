# SPDX-License-Identifier: GPL-2.0-only
"""Headless Chromium for the book check.

Screenshots of the top of a page come from Chromium's own command line
(--screenshot), one process per picture.  What the command line cannot
do -- the console errors, uncaught exceptions and failed loads of a page,
questions asked of its live DOM, and a picture after scrolling to an
element -- comes from a small client of the DevTools protocol over a pipe: Chromium started with --remote-debugging-pipe reads
commands on its fd 3 and writes replies and events on its fd 4, each a
JSON text ended by a NUL byte.  Nothing beyond the standard library.
"""

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--mute-audio", "--disable-extensions", "--remote-debugging-pipe"]


class CDPError(Exception):
    pass


def screenshot(url, path, width, height, scale=1, timeout=60):
    """A PNG of url at width x height CSS pixels (device scale factor
    scale), from chromium --headless --screenshot."""
    userdir = tempfile.mkdtemp(prefix="book-chromium-")
    try:
        r = subprocess.run([CHROMIUM] + FLAGS[:-1] + [
            f"--user-data-dir={userdir}", f"--window-size={width},{height}",
            f"--force-device-scale-factor={scale}", f"--screenshot={path}", url],
            capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CDPError(f"chromium --screenshot of {url} took over {timeout} s")
    finally:
        shutil.rmtree(userdir, ignore_errors=True)
    if r.returncode != 0 or not os.path.exists(path):
        raise CDPError(f"chromium --screenshot failed ({r.returncode}): "
                       f"{(r.stderr.strip().splitlines() or ['?'])[-1][:200]}")
    return path


class Browser:
    def __init__(self, binary=CHROMIUM, timeout=30):
        self.timeout = timeout
        self.userdir = tempfile.mkdtemp(prefix="book-chromium-")
        r_cmd, w_cmd = os.pipe()
        r_res, w_res = os.pipe()

        def child_fds():
            hi_r = fcntl.fcntl(r_cmd, fcntl.F_DUPFD, 10)
            hi_w = fcntl.fcntl(w_res, fcntl.F_DUPFD, 10)
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [binary] + FLAGS + [f"--user-data-dir={self.userdir}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.stderr,
            close_fds=False, preexec_fn=child_fds)
        os.close(r_cmd)
        os.close(w_res)
        self.w = w_cmd
        self.r = r_res
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    # -- the wire -------------------------------------------------------------

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                raise CDPError("timed out waiting for Chromium")
            ready, _, _ = select.select([self.r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.r, 1 << 16)
            if not chunk:
                raise CDPError("Chromium closed the pipe (exited?)")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg.decode("utf-8"))

    def call(self, method, params=None, session=True, timeout=None):
        self.next_id += 1
        mid = self.next_id
        msg = {"id": mid, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + (timeout or self.timeout)
        while True:
            m = self._read_message(deadline)
            if m.get("id") == mid:
                if "error" in m:
                    raise CDPError(f"{method}: {m['error'].get('message')}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method, timeout=None):
        deadline = time.time() + (timeout or self.timeout)
        for i, e in enumerate(self.events):
            if e["method"] == method:
                return self.events.pop(i)
        while True:
            m = self._read_message(deadline)
            if "method" in m:
                if m["method"] == method:
                    return m
                self.events.append(m)

    def drain(self, seconds):
        """Collect events for a while (late console messages, loads)."""
        deadline = time.time() + seconds
        try:
            while True:
                m = self._read_message(deadline)
                if "method" in m:
                    self.events.append(m)
        except CDPError:
            pass

    # -- pages --------------------------------------------------------------

    def open_page(self):
        t = self.call("Target.createTarget", {"url": "about:blank"}, session=False)
        s = self.call("Target.attachToTarget", {"targetId": t["targetId"],
                                                "flatten": True}, session=False)
        self.session = s["sessionId"]
        for dom in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.call(dom)

    def viewport(self, width, height):
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1,
                   "mobile": False})

    def screenshot(self, path):
        """A PNG of the viewport as it is now (after scrolling, which the
        command line's --screenshot cannot do reliably on a long page)."""
        r = self.call("Page.captureScreenshot", {"format": "png"})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))
        return path

    def navigate(self, url):
        self.events = [e for e in self.events if e["method"] != "Page.loadEventFired"]
        r = self.call("Page.navigate", {"url": url})
        if r.get("errorText"):
            raise CDPError(f"navigation failed: {r['errorText']}")
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise CDPError(f"evaluate: {r['exceptionDetails'].get('text')}")
        return r.get("result", {}).get("value")

    def problems(self):
        """Console errors, uncaught exceptions and failed loads seen so far."""
        out = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: " + (d.get("exception", {}).get("description")
                                            or d.get("text", "?")))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.error: " + " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                en = p["entry"]
                out.append(f"{en.get('source', 'log')}: {en.get('text', '')} "
                           f"{en.get('url', '')}".strip())
        return out

    def close(self):
        try:
            self.call("Browser.close", session=False, timeout=5)
        except (CDPError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.w, self.r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.stderr.close()
        shutil.rmtree(self.userdir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()
