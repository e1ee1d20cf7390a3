# SPDX-License-Identifier: GPL-2.0-only
"""The verb teeth (make teeth; not a step of make check, for its cost): do
the seeding checks bite?

Builds the test kernel once more per mutant, each with one deliberate
defect in the patched crypto/drbg.c, boots the DRBG seeding suite and the
trace check (and the seeding suite again with fips=1), and records which
checks failed.  Each mutant names its oracle:
the checks that must fail on it (not "some check failed"); a mutant whose
oracle does not fail is a hole in the tests, and makes this target fail.

  python3 -m harness teeth [--only NAME,...] [--json OUT]

The mutations are text substitutions on the patched file, each of which
must match exactly once.  Afterwards the series is applied again and the
test kernel rebuilt, so nothing of a mutant survives in the cache.
Results: build/teeth/teeth.json and teeth.md.
"""

import os
import re
import subprocess
import time

from ..base import config, files, kbuild, kcache
from ..base.checks import Check
from ..base.report import as_dicts

# (name, defect, substitutions, oracle: the check ids that must fail[, boots])
MUTANTS = [
    ("sources-swapped",
     "the Jitter RNG's part first, get_random_bytes() second",
     [(r"ret = drbg_get_random_bytes\(drbg, drbg->seed_buf, part\);",
       "ret = drbg_get_random_bytes(drbg, drbg->seed_buf + part, part);"),
      (r"ret = drbg_seed_jent\(drbg, drbg->seed_buf \+ part, part, reseed\);",
       "ret = drbg_seed_jent(drbg, drbg->seed_buf, part, reseed);")],
     ["kunit.drbg_seed.instantiate_layout", "drbg.trace"]),
    ("nonce-dropped",
     "instantiation takes the security strength from each source, no nonce part",
     [(r"return reseed \? strength : strength \+ strength / 2;",
       "return strength;")],
     ["kunit.drbg_seed.instantiate_layout", "drbg.trace"]),
    ("seed-buf-not-cleared",
     "drbg_seed() does not clear seed_buf afterwards",
     [(r"(ret = __drbg_seed\(drbg, &seedlist, reseed, new_seed_state, credited\);"
       r"(?:\n.*?)*?\nout:\n)"
       r"\tmemzero_explicit\(drbg->seed_buf, drbg_seed_buf_len\(drbg\)\);",
       r"\1\t;")],
     ["kunit.drbg_seed.seed_buf_zero_on_error"]),
    ("pr-entropy-reused",
     "a reseed of a prediction-resistant DRBG reads neither source again",
     [(r"ret = drbg_get_random_bytes\(drbg, drbg->seed_buf, part\);",
       "ret = (reseed && drbg->pr) ? 0 :\n\t\t\tdrbg_get_random_bytes(drbg, drbg->seed_buf, part);"),
      (r"ret = drbg_seed_jent\(drbg, drbg->seed_buf \+ part, part, reseed\);",
       "ret = (reseed && drbg->pr) ? (int)part :\n\t\t\tdrbg_seed_jent(drbg, drbg->seed_buf + part, part, reseed);")],
     ["kunit.drbg_seed.reseed_pr_layout", "drbg.trace"]),
    # Issue 16: each fix of the seeding, undone.
    ("partial-served-stale",
     "a PARTIAL instance is not reseeded at its first request after the CRNG "
     "is ready (the asynchronous reseed alone)",
     [(r"\(drbg->seeded == DRBG_SEED_STATE_PARTIAL \|\|\n\t\t    "
       r"(drbg_nopr_reseed_interval_elapsed\(drbg\))\)\)",
       r"\1)")],
     ["kunit.drbg_seed.partial_reseeded_before_output",
      "fips.kunit.drbg_seed.partial_reseeded_before_output"]),
    ("counter-always-reset",
     "every reseed resets the reseed counter, also without the Jitter RNG",
     [(r"if \(!reseed \|\| credited\)\n\t\tdrbg->reseed_ctr = 1;",
       "drbg->reseed_ctr = 1;")],
     ["kunit.drbg_seed.jent_read_at_reseed_bound",
      "fips.kunit.drbg_seed.jent_read_at_reseed_bound"]),
    ("pr-without-jent",
     "a prediction-resistant reseed goes on without the Jitter RNG",
     [(r"if \(\(reseed && drbg->pr\) \|\|\n\t    \(fips_enabled",
       "if ((0) ||\n\t    (fips_enabled")],
     ["kunit.drbg_seed.pr_fails_without_jent",
      "fips.kunit.drbg_seed.pr_fails_without_jent"]),
    ("grb-untested",
     "get_random_bytes()-only reseeds skip the FIPS continuous test",
     [(r"ret = drbg_get_random_bytes\(drbg, drbg->seed_buf, len\);",
       "get_random_bytes(drbg->seed_buf, len);\n\tret = 0;")],
     ["fips.kunit.drbg_seed.async_fips_continuous_test"]),
    # Issue 38: a leak the memory check of make stress must see (on the test
    # kernel, which has no kmemleak: that check alone stands between it and
    # a pass).
    ("jent-handle-leaked",
     "uninstantiation forgets the DRBG's Jitter RNG handle instead of freeing it",
     [(r"\tif \(!IS_ERR_OR_NULL\(drbg->jent\)\)\n\t\tcrypto_free_rng\(drbg->jent\);\n"
       r"\tdrbg->jent = NULL;\n\n\tif \(drbg->d_ops\)",
       "\tdrbg->jent = NULL;\n\n\tif (drbg->d_ops)")],
     ["guest.stress.memory"], "teeth-stress"),
]
# The boots of a mutant, unless it names its own: the seeding suite and the
# trace check, and the suite again with fips=1.
BOOTS = "teeth,teeth-fips"


def mutate(path, subs):
    with open(path) as f:
        text = f.read()
    for rx, rep in subs:
        new, n = re.subn(rx, rep, text, flags=re.S)
        if n != 1:
            config.die("teeth", f"mutation /{rx[:60]}/ matched {n} times in {path} "
                       "(expected 1): the book's code moved; update harness/stages/teeth.py")
        text = new
    with open(path, "w") as f:
        f.write(text)


def caught_by(oracle, checks):
    """Which entries of oracle failed: an entry names a check id, or the
    prefix of several (a parameterised KUnit case, drbg.trace.<driver>);
    it is met when one of them failed."""
    failed = [c["id"] for c in checks if c["status"] == "fail"]
    return {o: [i for i in failed if i == o or i.startswith(o + ".")][:4] for o in oracle}


def run_mutant(src, drbg_c, outdir, name, what, subs, oracle, boots=BOOTS):
    t0 = time.time()
    kcache.say(f"teeth: mutant {name}: {what}")
    subprocess.run(["git", "-C", src, "checkout", "-q", "--", "crypto/drbg.c"], check=True)
    mutate(drbg_c, subs)
    kbuild.build("test")
    out = os.path.join(outdir, name)
    subprocess.run([config.PY, "-m", "harness", "conform", "--only", boots,
                    "--out", out], capture_output=True, text=True, cwd=config.TOP)
    rep = files.read_json(os.path.join(out, "report.json")) or {}
    checks = rep.get("checks") if isinstance(rep.get("checks"), list) else []
    hits = caught_by(oracle, checks)
    failed = [c["id"] for c in checks if c["status"] == "fail"]
    caught = bool(checks) and all(hits.values())
    kcache.say(f"teeth: mutant {name}: {len(failed)} check(s) failed; oracle "
               + ", ".join(f"{o} {'failed' if h else 'DID NOT FAIL'}" for o, h in
                           hits.items()) + f" ({'caught' if caught else 'NOT CAUGHT'})")
    return {"mutant": name, "defect": what, "oracle": oracle, "caught": caught,
            "oracle_failed": hits, "failed_checks": len(failed), "examples": failed[:8],
            "report": bool(checks), "seconds": round(time.time() - t0)}


def as_checks(results):
    return [Check.judge(f"teeth.{r['mutant']}", f"the mutant {r['mutant']} ({r['defect']}) "
                        f"fails its oracle: {', '.join(r['oracle'])}",
                        [] if r["caught"] else
                        ["the boot wrote no report"] if not r["report"] else
                        [f"{o} did not fail" for o, h in r["oracle_failed"].items() if not h],
                        origin="host", counts={"failed_checks": r["failed_checks"],
                                               "seconds": r["seconds"]},
                        details={"oracle_failed": r["oracle_failed"],
                                 "examples": r["examples"]})
            for r in results]


def write(outdir, results):
    files.write_json(os.path.join(outdir, "teeth.json"), results)
    lines = ["# Teeth: deliberately broken builds of the series", "",
             "| mutant | defect | oracle | caught | failed checks | examples |",
             "|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['mutant']} | {r['defect']} | {', '.join(r['oracle'])} | "
                     f"{'yes' if r['caught'] else '**no**'} | {r['failed_checks']} | "
                     f"{', '.join(r['examples'][:4])} |")
    files.write_text(os.path.join(outdir, "teeth.md"), "\n".join(lines) + "\n")
    print("\n".join(lines))


def run(args):
    only = args.only.split(",") if args.only else None
    unknown = set(only or []) - {m[0] for m in MUTANTS}
    if unknown:
        config.die("teeth", f"no mutant {', '.join(sorted(unknown))} (known: "
                   f"{', '.join(m[0] for m in MUTANTS)})")
    outdir = config.build("teeth")
    os.makedirs(outdir, exist_ok=True)
    src = kcache.apply_series(config.top("tangled/patches"))
    drbg_c = os.path.join(src, "crypto/drbg.c")
    results = []
    try:
        for mutant in MUTANTS:
            if not only or mutant[0] in only:
                results.append(run_mutant(src, drbg_c, outdir, *mutant))
    finally:
        subprocess.run(["git", "-C", src, "checkout", "-q", "--", "crypto/drbg.c"])
        kcache.say("teeth: restoring the series and the test kernel")
        kcache.apply_series(config.top("tangled/patches"))
        kbuild.build("test")
    write(outdir, results)
    if args.json:
        files.write_json(args.json, as_dicts(as_checks(results)))
    return 0 if results and all(r["caught"] for r in results) else 1


def register(sub):
    p = sub.add_parser("teeth", help="deliberately broken builds: each must fail its oracle")
    p.add_argument("--only", help="comma-separated mutant names")
    p.add_argument("--json", metavar="OUT", help="write one check per mutant to OUT")
    p.set_defaults(func=run)
