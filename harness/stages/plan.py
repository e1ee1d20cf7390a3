# SPDX-License-Identifier: GPL-2.0-only
"""The boot plan of make conform: which guests boot, with what, and how
each must end.  conform.py runs it; `BOOTS=name,...` picks boots by name.
"""

# The kernel command line every boot starts from.  panic=-1 makes a panic
# end QEMU at once (it runs with -no-reboot); oops=panic turns any oops
# into one, so that it cannot go unnoticed.  The random.* options keep the
# CRNG from being declared ready by the CPU or the boot loader, so that a
# boot starts with the CRNG not ready (see the blocking API chapter).
BASE_APPEND = ("console=ttyS0 panic=-1 oops=panic random.trust_cpu=off "
               "random.trust_bootloader=off")

# What a boot must report ("produces"): the checks of its guest mode
# (conformance/guest/checks.c), the host's checks of what the guest sent,
# the KUnit suites it runs; an id stands for itself and for the ids under
# it (a parameterised case, a check per DRBG instance).  One not reported
# fails the boot (boot.<name>.produced): a guest that wrote only its begin
# and end markers, or a boot without its console log, does not pass.
JITTER = ["guest.jitter.startup", "guest.jitter.output", "guest.jitter.reads_differ",
          "guest.jitter.instances_differ"]
RECORD = ["guest.jitter.record-limits", "guest.jitter.record-faults",
          "guest.jitter.record"]
CHECKS = (["guest.proc_crypto.drbg", "guest.proc_crypto.jitterentropy"] + JITTER
          + ["guest.blocking.isolation", "guest.hostile.debugfs-run",
             "guest.hostile.debugfs-trace", "guest.hostile.blocking-isolation",
             "guest.hostile.af-alg", "guest.hostile.fuzz-run",
             "guest.faults.alloc-every-point"])
TRACE = ["guest.drbg.trace", "drbg.trace"]
BLOCKING = ["kunit.random_blocking_unseeded", "kunit.random_blocking"]
SEEDING = ["kunit.drbg_unseeded", "kunit.drbg_seed", "kunit.drbg_race"]
# The 22 DRBG instances of Linux 6.1 (drbg_cores[] x {pr, nopr}) and the
# Jitter RNG, each generating through libkcapi in the cavs boot.
DRBG_CORES = ("ctr_aes128", "ctr_aes192", "ctr_aes256", "sha1", "sha256", "sha384",
              "sha512", "hmac_sha1", "hmac_sha256", "hmac_sha384", "hmac_sha512")
KCAPI_INSTANCE_CHECKS = ([f"guest.kcapi.drbg_{pr}_{core}" for pr in ("pr", "nopr")
                          for core in DRBG_CORES] + ["guest.kcapi.jitterentropy_rng",
                                                     "cavs.kcapi"])
MODULES = ["guest.modules.load", "guest.modules.rmmod_loop",
           "guest.modules.jitter-record"]

# The boot plan.  Each boot: a name, the guest mode (conform.mode=), extra
# kernel parameters, a timeout in seconds, and what ends it ("end": the
# guest's own end marker; "panic": an expected panic).  "requires": KUnit
# cases (suite.case) the boot exists to run: skipped or absent, they fail.
# "produces": the checks it must report (above); a boot that panics, or
# hangs, reports none of its guest's.
BOOTS = [
    # "solo": the main boot records the Jitter RNG's time stamps for the
    # book's figures and the isolation latencies: no other guest beside it.
    {"name": "main", "mode": "checks", "timeout": 900, "expect": "end", "solo": True,
     "append": "kunit.filter_glob=random_blocking*",
     "console_re": [r"jitterentropy: SHA3-256 known-answer test passed "
                    r"\(sha3-256-generic\)"],
     "requires": ["random_blocking_unseeded.seed_module_scenario"],
     "produces": CHECKS + RECORD + BLOCKING,
     "title": "blocking API KUnit suites (CRNG not ready at first), guest checks"},
    {"name": "drbg", "mode": "drbg", "timeout": 900, "expect": "end",
     "append": "kunit.filter_glob=drbg*",
     "requires": ["drbg_unseeded.partial_then_async_full"],
     "produces": TRACE + SEEDING,
     "title": "DRBG seeding KUnit suites (CRNG not ready at first), guest checks"},
    # FIPS mode (fips=1): the DRBG suites again, where the Jitter RNG's
    # absence or failure at instantiation must be fatal.  Ids: "fips.".
    {"name": "fips-drbg", "prefix": "fips", "mode": "drbg", "timeout": 900,
     "expect": "end", "append": "fips=1 kunit.filter_glob=drbg_seed",
     "produces": TRACE + ["kunit.drbg_seed"],
     "title": "FIPS mode: DRBG seeding suite with fips=1"},
    # A thousand AF_ALG DRBG sockets instantiated before the CRNG is ready
    # (KUnit off, so that nothing makes it ready first): system_long_wq must
    # still run other work items (the DRBG chapter's shared waiter).
    {"name": "drbg-sockets", "mode": "sockets", "timeout": 900, "expect": "end",
     "append": "kunit.enable=0", "kunit": False,
     "produces": ["guest.drbg.partial_sockets"],
     "title": "1000 AF_ALG DRBG instances before the CRNG is ready; system_long_wq "
              "still runs"},
    # A self-test of the harness: a guest that never ends must be killed at
    # its timeout and reported as hung, with the tail of its console.  Its
    # guest idles once /init sleeps, so it runs in the background beside
    # the boots that follow (it does not share their timing checks: the
    # bench's boots, which time things, never run beside another guest).
    # Its timeout leaves a TCG guest on a busy host time to reach /init (12 s
    # did not, with other builds on the two CPUs); the run does not wait for
    # it, since the boots beside it take longer.
    {"name": "harness-hang", "mode": "hang", "append": "kunit.enable=0", "timeout": 90,
     "expect": "hung", "background": True,
     "title": "harness self-test: a guest that hangs is killed"},
    # CAVS known answers (issue 6): the host packs every record of the .rsp
    # files under $VECTORS (colon-separated dirs; default vectors/cavs and
    # vectors/extra) into data/cavs.pack; cavs_pack.checks() reads the
    # results.  KUnit is off in this boot: the main boot runs the suites.
    # conform.kcapi=1 (issue 40): every record the AF_ALG CAVP interface
    # can carry is answered a second time through libkcapi, and every
    # DRBG instance and the Jitter RNG generate through it
    # (conformance/guest/kcapi_drbg.c); cavs_judge.kcapi_checks() judges it.
    {"name": "cavs", "mode": "cavs", "append": "kunit.enable=0 conform.kcapi=1",
     "timeout": 600, "expect": "end", "kunit": False, "cavs": True,
     "produces": ["cavs.interface"] + KCAPI_INSTANCE_CHECKS,
     "title": "CAVS known answers through the DRBG test interface and libkcapi"},
    # The Jitter RNG's KUnit suite, in a boot of its own: its test hooks
    # stop the clock the core reads, which must not meet other suites.
    # The suite's induced failures must be logged, as jent_kcapi_random()
    # says they are (once each at least: the messages are rate-limited).
    {"name": "jitter", "mode": "idle", "timeout": 900, "expect": "end",
     "append": "kunit.filter_glob=jitterentropy*",
     "console_re": [r"jitterentropy: intermittent health test failure, collector reset",
                    r"jitterentropy: permanent health test failure"],
     "produces": ["kunit.jitterentropy"],
     "title": "Jitter RNG KUnit suite, its induced failures logged"},
    # The Jitter RNG's failure classes, induced with its test hooks
    # (CONFIG_CRYPTO_JITTERENTROPY_TESTHOOKS; chapter "The CPU Jitter RNG in
    # the kernel").  KUnit is filtered out: its reads would consume a hook
    # armed at load, and its suites run in the main boot.
    {"name": "jitter-absent", "mode": "jitter-absent", "timeout": 300,
     "append": "jitterentropy_rng.testhook_startup_fail=1 kunit.filter_glob=none",
     "expect": "end", "kunit": False, "prefix": "nojent", "jent": False,
     "console_re": [r"DRBG: Continuing without Jitter RNG"],
     "produces": ["guest.jitter.absent"] + TRACE,
     "title": "Jitter RNG start-up test made to fail, no FIPS: the RNG is absent, "
              "the DRBG seeds from get_random_bytes() alone and says so"},
    {"name": "jitter-startup-fips", "mode": "idle", "timeout": 300,
     "append": "fips=1 jitterentropy_rng.testhook_startup_fail=1 kunit.filter_glob=none",
     "expect": "panic", "panic_re": r"jitterentropy: start-up test failed with error 2",
     "produces": [],
     "title": "Jitter RNG start-up test made to fail with fips=1: panic"},
    {"name": "jitter-kat-fips", "mode": "idle", "timeout": 300,
     "append": "fips=1 jitterentropy_rng.testhook_kat_fail=1 kunit.filter_glob=none",
     "expect": "panic", "panic_re": r"jitterentropy: SHA3-256 known-answer test failed",
     "produces": [],
     "title": "the Jitter RNG's hash answers wrongly with fips=1: panic"},
    {"name": "jitter-intermittent-fips", "mode": "jitter-hooked-read", "timeout": 300,
     "append": "fips=1 jitterentropy_rng.testhook_next_read=1 kunit.filter_glob=none",
     "expect": "end", "kunit": False,
     "produces": ["guest.jitter.hooked_read"],
     "title": "Jitter RNG intermittent failure with fips=1: -EAGAIN, no panic"},
    {"name": "jitter-permanent-fips", "mode": "jitter-hooked-read", "timeout": 300,
     "append": "fips=1 jitterentropy_rng.testhook_next_read=2 kunit.filter_glob=none",
     "expect": "panic", "panic_re": r"jitterentropy: permanent health test failure",
     "produces": [],
     "title": "Jitter RNG permanent failure with fips=1: panic"},
    # For make teeth only (harness/stages/teeth.py): the seeding suite and the trace
    # check on a deliberately broken build.
    {"name": "teeth", "optional": True, "mode": "drbg", "timeout": 900,
     "expect": "end", "append": "kunit.filter_glob=drbg_seed",
     "produces": TRACE + ["kunit.drbg_seed"],
     "title": "teeth: seeding suite and trace check on a mutant"},
    {"name": "teeth-fips", "optional": True, "prefix": "fips", "mode": "idle",
     "timeout": 900, "expect": "end", "append": "fips=1 kunit.filter_glob=drbg_seed",
     "produces": ["kunit.drbg_seed"],
     "title": "teeth: seeding suite with fips=1 on a mutant"},
    {"name": "teeth-stress", "optional": True, "mode": "stress", "timeout": 900,
     "expect": "end", "kunit": False,
     "append": "kunit.enable=0 conform.stress_calls=40000 conform.stress_seed=20 "
               "conform.stress_seconds=600",
     "produces": ["guest.stress.memory"],
     "title": "teeth: make stress's seeded calls and its memory check on a mutant"},
    # The debug kernel (KASAN, UBSAN, lockdep, work-object debugging,
    # kmemleak, hang detectors: watchdog_thresh, see debug.config): the same
    # suites and checks; any report fails the boot.
    # Its check ids carry the prefix "debug.".
    {"name": "debug-main", "variant": "debug", "mode": "checks", "timeout": 1800,
     "expect": "end",
     "append": "kunit.filter_glob=random_blocking* conform.kmemleak=1 watchdog_thresh=60 "
               "conform.record=0",
     "requires": ["random_blocking_unseeded.seed_module_scenario"],
     "produces": CHECKS + BLOCKING,
     "title": "debug kernel: blocking API suites and guest checks, kmemleak scan"},
    {"name": "debug-drbg", "variant": "debug", "mode": "drbg", "timeout": 3600,
     "expect": "end",
     "append": "kunit.filter_glob=drbg* conform.kmemleak=1 watchdog_thresh=60",
     "requires": ["drbg_unseeded.partial_then_async_full"],
     "produces": TRACE + SEEDING,
     "title": "debug kernel: DRBG seeding suites and the race, kmemleak scan"},
    # The modules variant (make modules-check only): the Jitter RNG, the DRBG
    # and the Jitter RNG's KUnit suite as modules, loaded by /init.
    {"name": "modules", "variant": "modules", "mode": "modules", "timeout": 1800,
     "expect": "end", "modules": True,
     "append": "kunit.filter_glob=jitterentropy* conform.modules_jitter=1 conform.kmemleak=1",
     "produces": MODULES,
     "title": "modules kernel (debug options): the Jitter RNG and the DRBG loaded "
              "as modules; both removed and loaded again with the DRBG's reseeds in flight, "
              "the record file before and after, kmemleak scan"},
    {"name": "debug-jitter", "variant": "debug", "mode": "jitter-record", "timeout": 1800,
     "expect": "end",
     "append": "kunit.filter_glob=jitterentropy* conform.kmemleak=1 watchdog_thresh=60",
     "produces": RECORD + ["kunit.jitterentropy"],
     "title": "debug kernel: Jitter RNG KUnit suite, the record file's checks, "
              "kmemleak scan"},
    {"name": "debug-cavs", "variant": "debug", "mode": "cavs", "timeout": 1800,
     "expect": "end", "kunit": False, "cavs": True,
     "append": "kunit.enable=0 conform.kmemleak=1 watchdog_thresh=60",
     "produces": ["cavs.interface"],
     "title": "debug kernel: CAVS known answers, kmemleak scan"},
]

# ACVP (issue 17): not a boot of make conform but of the verb acvp (make
# acvp, and make check's acvp step), which packs the test cases that the
# registration claims into data/acvp.pack (harness/judges/acvp_work.py)
# and judges the answers (acvp_judge.py).  The timeout grows with the
# large-data tests' bytes (stages/acvp.py).
ACVP_BOOT = {"name": "acvp", "mode": "acvp", "append": "kunit.enable=0 conform.kcapi=1",
             "timeout": 600, "expect": "end", "kunit": False,
             "title": "ACVP: the DRBGs through their test interface and libkcapi, "
                      "SHA3-256 through AF_ALG"}

# make stress (harness/stages/stress.py; not part of make check): the debug
# kernel at large figures, each a parameter of the verb and so of the boot's
# kernel command line ({calls}, {seed}, {seconds}, {race_rounds},
# {module_rounds}).  The
# calls boot starts with KUnit off, so that its /init finds the CRNG not
# ready (guest.stress.unready); the race boot runs the lifecycle race alone
# with drbg_kunit.race_rounds=; the modules boot (the modules kernel,
# a debug kernel too) removes and loads the modules {module_rounds} times;
# the FIPS and Jitter RNG failure boots of
# the test kernel's plan run again on the debug kernel (STRESS_AGAIN).  A
# timeout grows with its figure: timeout_per (figure, seconds per unit).
STRESS_DEBUG = "conform.kmemleak=1 watchdog_thresh=60"
STRESS_BOOTS = [
    {"name": "stress-calls", "variant": "debug", "mode": "stress", "expect": "end",
     "kunit": False, "timeout": 1800, "timeout_per": ("seconds", 1),
     "append": "kunit.enable=0 conform.stress_calls={calls} conform.stress_seed={seed} "
               "conform.stress_seconds={seconds} " + STRESS_DEBUG,
     "title": "seeded hostile calls through every interface the series adds, "
              "the blocking API while the CRNG becomes ready"},
    {"name": "stress-race", "variant": "debug", "mode": "idle", "expect": "end",
     "timeout": 1800, "timeout_per": ("race_rounds", 0.1),
     "append": "kunit.filter_glob=drbg_race.async_vs_lifecycle "
               "drbg_kunit.race_rounds={race_rounds} " + STRESS_DEBUG,
     "requires": ["drbg_race.async_vs_lifecycle"],
     "title": "DRBG life cycles on two CPUs racing the asynchronous reseed, PR and "
              "non-PR instances of each core type"},
    {"name": "stress-modules", "variant": "modules", "mode": "modules", "expect": "end",
     "modules": True, "kunit": False, "timeout": 1800, "timeout_per": ("seconds", 1),
     "append": "kunit.filter_glob=none conform.modules_rounds={module_rounds} "
               "conform.modules_jitter=1 conform.modules_seconds={seconds} " + STRESS_DEBUG,
     "title": "the DRBG and the Jitter RNG modules removed and loaded again with the "
              "DRBG's asynchronous reseed in flight (modules kernel: debug options)"},
]
STRESS_AGAIN = ["fips-drbg", "jitter-absent", "jitter-startup-fips",
                "jitter-intermittent-fips", "jitter-permanent-fips"]
