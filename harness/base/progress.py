# SPDX-License-Identifier: GPL-2.0-only
"""Progress that says how far along a long step is.

    p = Progress("build test", total=717, unit="steps")
    p.update(n)        # as work is done
    p.done("built")    # the closing line

With a total, each report reads "build test: 381/717 steps (53%), 140 s,
about 2 min left"; the time left is the elapsed time scaled by the work
left, which is honest for a build whose steps cost about the same.
Without a total it reads "build test: 381 steps, 140 s".  On a terminal
the report is one line rewritten in place (every half second at most);
elsewhere (CI logs, pipes) it is a plain line every `every` seconds.
"""

import sys
import time


def _dur(s):
    s = max(0, int(round(s)))
    if s < 90:
        return f"{s} s"
    return f"{s // 60} min {s % 60:02d} s" if s < 3600 else f"{s // 3600} h {s % 3600 // 60:02d} min"


class Progress:
    def __init__(self, label, total=None, unit="steps", every=15.0, stream=None,
                 clock=time.monotonic):
        self.label, self.total, self.unit = label, total, unit
        self.every = every
        self.stream = stream or sys.stdout
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.clock = clock
        self.t0 = clock()
        self.last = self.t0
        self.n = 0
        self._drawn = False

    def line(self, n=None):
        n = self.n if n is None else n
        el = self.clock() - self.t0
        if self.total:
            frac = min(n / self.total, 1.0)
            text = f"{self.label}: {n}/{self.total} {self.unit} ({frac:.0%}), {_dur(el)}"
            if 0 < n < self.total and el > 5:
                text += f", about {_dur(el * (self.total - n) / n)} left"
            return text
        return f"{self.label}: {n} {self.unit}, {_dur(el)}"

    def update(self, n):
        self.n = n
        now = self.clock()
        if self.tty:
            if now - self.last >= 0.5:
                self.last = now
                self.stream.write("\r" + self.line().ljust(78))
                self.stream.flush()
                self._drawn = True
        elif now - self.last >= self.every:
            self.last = now
            print(self.line(), file=self.stream, flush=True)

    def done(self, text=None):
        if self._drawn:
            self.stream.write("\r" + " " * 78 + "\r")
        if text:
            print(f"{self.label}: {text}", file=self.stream, flush=True)
