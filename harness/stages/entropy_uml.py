# SPDX-License-Identifier: GPL-2.0-only
"""The User-Mode Linux sources of make entropy: the kernel's own Jitter RNG
object, as kbuild compiles it (ARCH=um), timed on the real CPU.

  ours-uml       random_get_entropy() has no cycle counter under UML and
                 falls back to UML's clocksource, os_nsecs() / 256
                 (arch/um/kernel/time.c, TIMER_MULTIPLIER): a 256 ns tick,
                 a coarse-timer operating environment of its own
  ours-uml-tsc   the same kernel with get_cycles() reading the CPU's time
                 stamp counter (rdtsc), as x86-64's get_cycles() does
                 (conformance/uml/tsc.h): a model of x86-64's timing path

One boot records the consecutive samples (conform.entropy_samples, SP
800-90B 3.1.1); then R more boots record one restart of L samples each:
the restarts of SP 800-90B 3.1.4 are reboots, each a new kernel process
whose Jitter RNG starts at boot.  In each boot /init writes L to the raw
noise test interface, which runs the start-up test again and records the
first L samples of a new instance.  The boots run one at a time, with
nothing else of the harness running, and every boot's logs are kept
under build/entropy/<source>/boots/.  The start-up line each boot's
Jitter RNG printed when it loaded is read back and counted.

The source of the time stamp counter as shipped (ours-uml-tsc, not its
-fixed twin) makes one boot more, between the two (cond_boot): the
conditioning's output as the kernel produces it (BLOCKS output blocks,
SP 800-90B 3.1.5, assessed for insight), and the two-sample test of the
recording's cost: STRIDE_ROWS rows of STRIDE_LEN raw samples, recorded
alternately with a store after every sample and with every STRIDE-th
sample kept.
"""

import os
import re
import statistics
import time

from ..base import config, files, guest, initramfs, kbuild, kcache, proc, uml
from ..judges import entropy_collect as ec
VARIANT = {"ours-uml": "um", "ours-uml-tsc": "um-tsc"}
CLOCK = {"ours-uml": "random_get_entropy() -> random_get_entropy_fallback(): "
                     "UML's clocksource, os_nsecs() / 256 (a 256 ns tick)",
         "ours-uml-tsc": "random_get_entropy() -> get_cycles(): rdtsc "
                         "(conformance/uml/tsc.h, a model of x86-64)"}
APPEND = ("panic=-1 random.trust_cpu=off random.trust_bootloader=off "
          "conform.mode=entropy conform.end=poweroff")
BOOT_TIMEOUT = 60           # a boot that records one restart
SEQ_TIMEOUT = 3600          # the boot that records the consecutive samples
BLOCKS = 1000               # output blocks: 256,000 bits
STRIDE_ROWS, STRIDE_LEN, STRIDE = 40, 25000, 3
PARTS = ("seq", "restart", "blocks", "strides")   # the guest's order
REFUSED = "the kernel refused the recording"   # the guest's words (entropy.c)
STARTUP = re.compile(r"jitterentropy: start-up test (passed|failed) \((-?\d+)\)")


def say(msg):
    config.say("entropy", msg)


def startup_of(console_path):
    """The start-up line the Jitter RNG printed when it loaded: (passed,
    code), or None when there is none."""
    try:
        with open(console_path, errors="replace") as f:
            m = STARTUP.search(f.read())
    except OSError:
        return None
    return (m.group(1) == "passed", int(m.group(2))) if m else None


def one_boot(linux, rd, bdir, append, timeout):
    """One boot; (its "entropy-part" records by name, the data of each
    part by name, the start-up result, the seconds it took).  A boot that did not end, or whose guest check
    failed, or whose data does not match its hash, raises CollectError
    naming the boot's directory."""
    from .entropy import boot_parts
    os.makedirs(bdir, exist_ok=True)
    data = os.path.join(bdir, "data.bin")
    if os.path.exists(data):
        os.unlink(data)
    b = uml.boot(os.path.basename(bdir), linux, rd, f"{append} conform.hostfs={bdir}",
                 bdir, timeout)
    start = startup_of(b.console)
    if start and not start[0]:
        raise ec.CollectError(f"{bdir}: the Jitter RNG's start-up test failed at boot "
                              f"with error {start[1]}; the noise source did not start")
    _, parts, pieces = boot_parts(b, bdir, data, refused=REFUSED)
    return parts, pieces, start, b.seconds


def image(name):
    """Build (or reuse) the UML kernel of the source; (linux, release)."""
    variant = VARIANT[ec.base_of(name)]
    b = kbuild.build(variant)
    with open(os.path.join(b, "include/config/kernel.release")) as f:
        return kbuild.image_of(b, variant), f.read().strip()


def collect(name, args, sdir, samples=None):
    """Collect one UML source into sdir (deltas.bin: samples consecutive
    ones, args.samples by default; restart-deltas.bin); its collect.json.
    A kernel that refuses the recording (its start-up test or a health
    test failed) raises SourceRefused."""
    samples = samples or args.samples
    linux, release = image(name)
    fixed = name.endswith(ec.FIXED)
    shuffle = f" conform.entropy_shuffle={0 if fixed else 1}"
    _, src = kcache.ensure_pristine()
    rd = initramfs.write(os.path.join(sdir, "initramfs.cpio"), guest.build(), src=src)
    bdir = os.path.join(sdir, "boots")
    say(f"{name}: UML {release}, one boot for {samples:,} consecutive samples")
    parts, data, start, secs = one_boot(
        linux, rd, os.path.join(bdir, "seq"),
        f"{APPEND}{shuffle} conform.entropy_samples={samples} "
        "conform.entropy_restarts=0",
        SEQ_TIMEOUT)
    files.write_bytes(os.path.join(sdir, "deltas.bin"), data["seq"])
    seq = parts["seq"]
    startups = [start]
    cond = (cond_boot(name, linux, rd, bdir, shuffle, sdir)
            if ec.base_of(name) == "ours-uml-tsc" and not fixed else None)
    if cond:
        startups.append(cond.pop("startup"))
    p = ec.priming_of(name)
    say(f"{name}: {args.restarts} reboots x {p} + {args.len} samples (SP 800-90B 3.1.4)")
    t0, rows, boot_s, blocks, inter = time.time(), [], [], 0, 0
    append = (f"{APPEND}{shuffle} conform.entropy_samples=0 conform.entropy_restarts=1 "
              f"conform.entropy_len={args.len + p}")
    for i in range(args.restarts):
        parts, data, start, secs = one_boot(linux, rd, os.path.join(bdir, f"r{i:04d}"),
                                            append, BOOT_TIMEOUT)
        rows.append(data["restart"])
        boot_s.append(secs)
        startups.append(start)
        blocks += parts["restart"]["blocks"]
        inter += parts["restart"]["intermittent"]
        if (i + 1) % 100 == 0 or i + 1 == args.restarts:
            say(f"{name}: {i + 1} of {args.restarts} reboots ({time.time() - t0:.0f} s)")
    files.write_bytes(os.path.join(sdir, "restart-deltas.bin"), b"".join(rows))
    passed = sum(1 for s in startups if s and s[0])
    return {"source": name, "clock": CLOCK[ec.base_of(name)], "design": "ours",
            "fixed_loops": fixed,
            "where": f"the kernel {release} as User-Mode Linux (ARCH=um) on the real CPU",
            "emulated": False, "kernel": release, "uml": linux,
            "seq": {"samples": seq["len"], "blocks": seq["blocks"],
                    "intermittent": seq["intermittent"], "kernel_s": seq["us"] / 1e6},
            "restart": {"restarts": args.restarts, "len": args.len + p, "priming": p,
                        "blocks": blocks,
                        "intermittent": inter, "wall_s": round(time.time() - t0, 1),
                        "by": "reboot", "boot_s_median": statistics.median(boot_s)
                        if boot_s else None},
            "conditioning": cond,
            "startup_at_boot": {"boots": len(startups), "passed": passed,
                                "without_line": sum(1 for s in startups if s is None)},
            "cpu_model": proc.cpu_model()}


def cond_boot(name, linux, rd, bdir, shuffle, sdir):
    """The boot that records the conditioning's output (blocks.bin: 64-bit
    items, four a block) and the two-sample rows of the recording's cost
    (strides.bin); what it recorded, and its start-up line."""
    say(f"{name}: one boot for {BLOCKS:,} output blocks and {STRIDE_ROWS} rows of "
        f"{STRIDE_LEN:,} raw samples at strides 1 and {STRIDE}")
    parts, data, start, _ = one_boot(
        linux, rd, os.path.join(bdir, "cond"),
        f"{APPEND}{shuffle} conform.entropy_samples=0 conform.entropy_restarts=0 "
        f"conform.entropy_blocks={4 * BLOCKS} "
        f"conform.entropy_strides={STRIDE_ROWS} conform.entropy_stride_len={STRIDE_LEN} "
        f"conform.entropy_stride={STRIDE}", SEQ_TIMEOUT)
    for part in ("blocks", "strides"):
        if part in data and data[part]:
            files.write_bytes(os.path.join(sdir, f"{part}.bin"), data[part])
    return {"startup": start, "blocks": BLOCKS,
            "strides": {"rows": STRIDE_ROWS, "len": STRIDE_LEN, "stride": STRIDE}}
