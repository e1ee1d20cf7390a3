# SPDX-License-Identifier: GPL-2.0-only
"""An independent model of the Jitter RNG core, written from the book.

It follows the prose of the chapters "The CPU Jitter RNG" (noise source,
counted samples, conditioning, health tests, start-up test), not the C.
Everything is plain Python integers; 64-bit arithmetic is made explicit
with M64.  The scripted timer has the same segments as the C test shim
(conformance/jitter/shim.c), so that both consume the same time stamps.
"""

import hashlib

M64 = (1 << 64) - 1

# The numbers the book states.
MEM_BLOCKS, MEM_BLOCKSIZE, MEM_ACCESSLOOPS = 64, 32, 128
MEM_SIZE = MEM_BLOCKS * MEM_BLOCKSIZE
ACC_BITS, FOLD_BITS = 7, 4
BLOCK_BYTES = 32            # one SHA3-256 output, the chaining block
BLOCK_SAMPLES = 320         # counted deltas per conditioning: (256 + 64) / H, H = 1
IN_BYTES = BLOCK_BYTES + 8 * BLOCK_SAMPLES   # the hash input: 2592 bytes
FIRST_PRIMING = 64          # samples of a new collector before the first counted one
RCT_CUT, RCT_CUT_PERM = 31, 61
APT_WINDOW, APT_CUT, APT_CUT_PERM = 512, 325, 355
STUCK_CUT, STUCK_CUT_PERM = 156, 312   # stuck samples in a row
LAG_HISTORY, LAG_WINDOW = 8, 131072
LAG_RUN_CUT, LAG_RUN_CUT_PERM = 47, 77
LAG_COUNT_CUT, LAG_COUNT_CUT_PERM = 66621, 67121
WARMUP, SAMPLES = 100, 1024
MAX_OSR = 16
DISABLE_MEMORY_ACCESS = 1 << 2

OK, INTERMITTENT, PERMANENT, HASH_FAILURE = 0, 1, 2, 3
ENOTIME, ECOARSETIME, ENOMONOTONIC, EMINVARIATION = 1, 2, 3, 4
EVARVAR, EMINVARVAR, ESTUCK, EHEALTH, ENOMEM = 5, 6, 8, 9, 10


class TimerExhausted(Exception):
    pass


class Timer:
    """t0, then segments: ("inc", d), ("set", v), ("rand", seed, base,
    spread, count), ("const", count); a count of 0 means for ever.  A
    "rand" read adds base + x % spread, x from xorshift64 (13, 7, 17)."""

    def __init__(self, t0, segments):
        self.t = t0 & M64
        self.segs = [list(s) for s in segments]
        self.used = 0
        self.reads = 0

    def __call__(self):
        self.reads += 1
        while self.segs:
            s = self.segs[0]
            count = 1 if s[0] in ("inc", "set") else s[-1]
            if count and self.used >= count:
                self.segs.pop(0)
                self.used = 0
                continue
            self.used += 1
            if s[0] == "inc":
                self.t = (self.t + s[1]) & M64
            elif s[0] == "set":
                self.t = s[1] & M64
            elif s[0] == "rand":
                x = s[1]
                x ^= (x << 13) & M64
                x ^= x >> 7
                x ^= (x << 17) & M64
                s[1] = x
                self.t = (self.t + s[2] + x % s[3]) & M64
            return self.t
        raise TimerExhausted(self.reads - 1)


def shuffle(t, bits, minbit=0):
    """A loop count from one time stamp: the XOR of all its bits-wide
    pieces (the top piece may be narrower), plus 2**minbit."""
    s, mask = 0, (1 << bits) - 1
    for i in range(0, 64, bits):
        s ^= (t >> i) & mask
    return s + (1 << minbit)


def fold(x, loops=1):
    """The fold: the parity of the 64-bit delta (for any loop count of at
    least one; zero loops give 0).  The core runs it for the time it takes
    and uses its result for nothing."""
    return bin(x & M64).count("1") & 1 if loops else 0


def level(count, cut, cut_perm):
    return PERMANENT if count >= cut_perm else INTERMITTENT if count >= cut else OK


class Health:
    def __init__(self):
        self.rct_last = self.rct_run = 0
        self.apt_base = self.apt_count = self.apt_seen = 0
        self.stuck_run = 0          # stuck samples in a row (counted_sample)
        self.lag_hist = [0] * LAG_HISTORY
        self.lag_reset()

    def lag_reset(self):
        self.lag_score = [0] * LAG_HISTORY
        self.lag_best = self.lag_run = self.lag_count = self.lag_seen = 0

    def lag(self, delta):
        """The lag predictor test: once LAG_HISTORY deltas are known, guess
        that this delta equals the one lag_best + 1 back; count right guesses
        in a row and in the window; then score every lag 1..8 on this delta
        (a lag takes the lead only with strictly more right guesses)."""
        lv = OK
        if self.lag_seen >= LAG_HISTORY:
            past = [self.lag_hist[(self.lag_seen - k) % LAG_HISTORY]
                    for k in range(1, LAG_HISTORY + 1)]
            if past[self.lag_best] == delta:
                self.lag_run += 1
                self.lag_count += 1
            else:
                self.lag_run = 0
            lv = max(level(self.lag_run, LAG_RUN_CUT, LAG_RUN_CUT_PERM),
                     level(self.lag_count, LAG_COUNT_CUT, LAG_COUNT_CUT_PERM))
            for i, v in enumerate(past):
                if v == delta:
                    self.lag_score[i] += 1
                    if self.lag_score[i] > self.lag_score[self.lag_best]:
                        self.lag_best = i
        self.lag_hist[self.lag_seen % LAG_HISTORY] = delta
        self.lag_seen += 1
        if self.lag_seen == LAG_WINDOW:
            self.lag_reset()
        return lv

    def insert(self, delta):
        if self.rct_run and delta == self.rct_last:
            self.rct_run += 1
        else:
            self.rct_last, self.rct_run = delta, 1
        rct = level(self.rct_run, RCT_CUT, RCT_CUT_PERM)
        if self.apt_seen == 0:
            self.apt_base, self.apt_count = delta, 1
        elif delta == self.apt_base:
            self.apt_count += 1
        self.apt_seen += 1
        apt = level(self.apt_count, APT_CUT, APT_CUT_PERM)
        if self.apt_seen == APT_WINDOW:
            self.apt_seen = 0
        return max(rct, apt, self.lag(delta))


class Collector:
    def __init__(self, timer, osr=1, flags=0):
        self.timer = timer
        self.mem = None if flags & DISABLE_MEMORY_ACCESS else bytearray(MEM_SIZE)
        self.loc = 0
        self.osr = osr or 1
        self.block = bytes(BLOCK_BYTES)
        self.inp = bytearray(IN_BYTES)      # the hash input, wiped after use
        self.prev = self.ld = self.ld2 = 0
        self.failed = False
        self.hash_fails = False             # the host's SHA3-256 fails (a test's doing)
        self.health = Health()
        self.trace = []
        self.priming = FIRST_PRIMING        # priming samples still to come
        self.spanned = 0                    # samples whose stuck test spans a gap

    # -- one measurement --
    def measure(self):
        """Memory accesses, the time stamp and its delta, then the fold,
        which only takes time (its parity goes nowhere).  The delta."""
        ml = shuffle(self.timer(), ACC_BITS)
        if self.mem is not None:
            for _ in range(MEM_ACCESSLOOPS + ml):
                self.mem[self.loc] = (self.mem[self.loc] + 1) & 0xFF
                self.loc = (self.loc + MEM_BLOCKSIZE - 1) % MEM_SIZE
        t = self.timer()
        delta = (t - self.prev) & M64
        self.prev = t
        fl = shuffle(self.timer(), FOLD_BITS)
        self.trace.append((t, delta, ml, fl))
        return delta

    def stuck(self, delta):
        d2 = (self.ld - delta) & M64
        d3 = (d2 - self.ld2) & M64
        self.ld, self.ld2 = delta, d2
        return delta == 0 or d2 == 0 or d3 == 0

    def sample(self):
        """A measurement, its stuck test and the health tests' verdict on
        it: (level, delta, stuck)."""
        delta = self.measure()
        st = self.stuck(delta)
        return self.health.insert(delta), delta, st

    def counted_sample(self):
        """Samples until one counts (not stuck, the collector's priming
        over): (OK, its delta), or (level, None) at the first health
        failure: the sample's own verdict, or the count of stuck samples
        in a row at a cutoff.  A sample that is not stuck sets the count
        back, unless its stuck test spans the block's priming measurement
        (the first two samples of a block)."""
        h = self.health
        while True:
            lv, delta, st = self.sample()
            if lv:
                return lv, None
            if st:
                h.stuck_run += 1
                lv = level(h.stuck_run, STUCK_CUT, STUCK_CUT_PERM)
            elif not self.spanned:
                h.stuck_run = 0
            if self.spanned:
                self.spanned -= 1
            counted = not st and not self.priming
            if self.priming:
                self.priming -= 1
            if lv:
                return lv, None
            if counted:
                return OK, delta

    def gen_block(self):
        """One priming measurement (nothing sees its delta), then osr
        rounds: the hash input is the chaining block and BLOCK_SAMPLES
        counted deltas, 8 bytes each, least significant first; its
        SHA3-256 is the new block.  The input is wiped whatever happens."""
        self.measure()
        self.spanned = 2
        lv = OK
        try:
            for _ in range(self.osr):
                self.inp[:BLOCK_BYTES] = self.block
                for n in range(BLOCK_SAMPLES):
                    lv, delta = self.counted_sample()
                    if lv:
                        return lv
                    at = BLOCK_BYTES + 8 * n
                    self.inp[at:at + 8] = delta.to_bytes(8, "little")
                if self.hash_fails:
                    return HASH_FAILURE
                self.block = hashlib.sha3_256(bytes(self.inp)).digest()
            return OK
        finally:
            self.inp[:] = bytes(IN_BYTES)

    def reset(self):
        """After a failure: the chaining block is cleared; the health
        counters and the stuck test's history go on."""
        self.block = bytes(BLOCK_BYTES)

    def read(self, n):
        """(return code, bytes): 0 and n bytes, or -1 (the hash failed),
        -2 or -3 (a health failure) and n zero bytes."""
        if self.failed:
            return -3, bytes(n)
        out = b""
        while len(out) < n:
            lv = self.gen_block()
            if lv:
                self.reset()
                if lv == PERMANENT:
                    self.failed = True
                    return -3, bytes(n)
                return (-2 if lv == INTERMITTENT else -1), bytes(n)
            out += self.block[:n - len(out)]
        return 0, out

    def state(self):
        h = self.health
        return {"block": self.block.hex(), "prev": self.prev,
                "ld": self.ld, "ld2": self.ld2, "loc": self.loc, "osr": self.osr,
                "rct_last": h.rct_last, "rct_run": h.rct_run,
                "apt_base": h.apt_base, "apt_count": h.apt_count,
                "apt_seen": h.apt_seen, "stuck_run": h.stuck_run,
                "priming": self.priming, "spanned": self.spanned,
                "lag": ",".join(str(x) for x in h.lag_hist + h.lag_score +
                                [h.lag_best, h.lag_run, h.lag_count, h.lag_seen]),
                "failed": int(self.failed),
                "reads": self.timer.reads,
                "in": self.inp.hex(),
                "mem": self.mem.hex() if self.mem is not None else "none"}


def startup(timer):
    """The start-up test: (code, stats, trace)."""
    ec = Collector(timer)
    ec.measure()
    zero_time = ec.prev == 0
    zero_delta = health_failed = False
    s = dict(samples=0, stuck=0, varied=0, mod100=0, backwards=0, rct_max=0,
             apt_max=0, dmin=M64, dmax=0, dsum=0)
    old = 0
    for i in range(WARMUP + SAMPLES):
        prev = ec.prev
        delta = ec.measure()
        st = ec.stuck(delta)
        zero_time |= ec.prev == 0
        zero_delta |= delta == 0
        if i < WARMUP:
            continue
        if ec.health.insert(delta):
            health_failed = True
        s["samples"] += 1
        s["stuck"] += st
        s["backwards"] += not ec.prev > prev
        s["mod100"] += (delta & 0xFFFFFFFF) % 100 == 0
        if i > WARMUP:
            s["varied"] += delta != old
            s["dsum"] = min(M64, s["dsum"] + abs(delta - old))
        old = delta
        s["dmin"], s["dmax"] = min(s["dmin"], delta), max(s["dmax"], delta)
        s["rct_max"] = max(s["rct_max"], ec.health.rct_run)
        s["apt_max"] = max(s["apt_max"], ec.health.apt_count)
    nine_tenths = SAMPLES // 10 * 9
    if zero_time:
        code = ENOTIME
    elif zero_delta or s["mod100"] > nine_tenths:
        code = ECOARSETIME
    elif s["backwards"] > 3:
        code = ENOMONOTONIC
    elif s["dsum"] == 0:
        code = EVARVAR
    elif s["dsum"] <= 1:
        code = EMINVARVAR
    elif s["varied"] < SAMPLES // 10:
        code = EMINVARIATION
    elif s["stuck"] > nine_tenths:
        code = ESTUCK
    elif health_failed:
        code = EHEALTH
    else:
        code = 0
    s["reads"] = timer.reads
    return code, s, ec.trace
