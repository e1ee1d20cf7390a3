# SPDX-License-Identifier: GPL-2.0-only
"""The verb teeth (make teeth): do the seeding checks bite?

Builds the test kernel once more per mutant, each with one deliberate
defect in the patched crypto/drbg.c, boots the DRBG seeding suite and the
trace check (and the seeding suite again with fips=1), and records which
checks failed.  A mutant that no check catches
is a hole in the tests, and makes this target fail.

  python3 -m harness teeth [--only NAME,...]

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

MUTANTS = [
    ("sources-swapped",
     "the Jitter RNG's part first, get_random_bytes() second",
     [(r"ret = drbg_get_random_bytes\(drbg, drbg->seed_buf, part\);",
       "ret = drbg_get_random_bytes(drbg, drbg->seed_buf + part, part);"),
      (r"ret = drbg_seed_jent\(drbg, drbg->seed_buf \+ part, part, reseed\);",
       "ret = drbg_seed_jent(drbg, drbg->seed_buf, part, reseed);")]),
    ("nonce-dropped",
     "instantiation takes the security strength from each source, no nonce part",
     [(r"return reseed \? strength : strength \+ strength / 2;",
       "return strength;")]),
    ("seed-buf-not-cleared",
     "drbg_seed() does not clear seed_buf afterwards",
     [(r"(ret = __drbg_seed\(drbg, &seedlist, reseed, new_seed_state, credited\);"
       r"(?:\n.*?)*?\nout:\n)"
       r"\tmemzero_explicit\(drbg->seed_buf, drbg_seed_buf_len\(drbg\)\);",
       r"\1\t;")]),
    ("pr-entropy-reused",
     "a reseed of a prediction-resistant DRBG reads neither source again",
     [(r"ret = drbg_get_random_bytes\(drbg, drbg->seed_buf, part\);",
       "ret = (reseed && drbg->pr) ? 0 :\n\t\t\tdrbg_get_random_bytes(drbg, drbg->seed_buf, part);"),
      (r"ret = drbg_seed_jent\(drbg, drbg->seed_buf \+ part, part, reseed\);",
       "ret = (reseed && drbg->pr) ? (int)part :\n\t\t\tdrbg_seed_jent(drbg, drbg->seed_buf + part, part, reseed);")]),
    # Issue 16: each fix of the seeding, undone.
    ("partial-served-stale",
     "a PARTIAL instance is not reseeded at its first request after the CRNG "
     "is ready (the asynchronous reseed alone)",
     [(r"\(drbg->seeded == DRBG_SEED_STATE_PARTIAL \|\|\n\t\t    "
       r"(drbg_nopr_reseed_interval_elapsed\(drbg\))\)\)",
       r"\1)")]),
    ("counter-always-reset",
     "every reseed resets the reseed counter, also without the Jitter RNG",
     [(r"if \(!reseed \|\| credited\)\n\t\tdrbg->reseed_ctr = 1;",
       "drbg->reseed_ctr = 1;")]),
    ("pr-without-jent",
     "a prediction-resistant reseed goes on without the Jitter RNG",
     [(r"if \(\(reseed && drbg->pr\) \|\|\n\t    \(fips_enabled",
       "if ((0) ||\n\t    (fips_enabled")]),
    ("grb-untested",
     "get_random_bytes()-only reseeds skip the FIPS continuous test",
     [(r"ret = drbg_get_random_bytes\(drbg, drbg->seed_buf, len\);",
       "get_random_bytes(drbg->seed_buf, len);\n\tret = 0;")]),
]


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


def run(args):
    only = args.only.split(",") if args.only else None
    outdir = config.build("teeth")
    os.makedirs(outdir, exist_ok=True)
    src = kcache.apply_series(config.top("tangled/patches"))
    drbg_c = os.path.join(src, "crypto/drbg.c")
    results = []
    try:
        for name, what, subs in MUTANTS:
            if only and name not in only:
                continue
            t0 = time.time()
            kcache.say(f"teeth: mutant {name}: {what}")
            subprocess.run(["git", "-C", src, "checkout", "-q", "--", "crypto/drbg.c"],
                           check=True)
            mutate(drbg_c, subs)
            kbuild.build("test")
            out = os.path.join(outdir, name)
            subprocess.run([config.PY, "-m", "harness", "conform", "--only",
                            "teeth,teeth-fips", "--out", out], capture_output=True,
                           text=True, cwd=config.TOP)
            rep = files.read_json(os.path.join(out, "report.json")) or {"checks": []}
            failed = [c["id"] for c in rep["checks"] if c["status"] == "fail"]
            results.append({"mutant": name, "defect": what, "caught": bool(failed),
                            "failed_checks": len(failed), "examples": failed[:8],
                            "seconds": round(time.time() - t0)})
            kcache.say(f"teeth: mutant {name}: {len(failed)} check(s) failed "
                       f"({'caught' if failed else 'NOT CAUGHT'})")
    finally:
        subprocess.run(["git", "-C", src, "checkout", "-q", "--", "crypto/drbg.c"])
        kcache.say("teeth: restoring the series and the test kernel")
        kcache.apply_series(config.top("tangled/patches"))
        kbuild.build("test")
    files.write_json(os.path.join(outdir, "teeth.json"), results)
    lines = ["# Teeth: deliberately broken builds of the series", "",
             "| mutant | defect | caught | failed checks | examples |", "|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['mutant']} | {r['defect']} | {'yes' if r['caught'] else '**no**'} "
                     f"| {r['failed_checks']} | {', '.join(r['examples'][:4])} |")
    files.write_text(os.path.join(outdir, "teeth.md"), "\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if results and all(r["caught"] for r in results) else 1


def register(sub):
    p = sub.add_parser("teeth", help="deliberately broken builds: each must fail a check")
    p.add_argument("--only", help="comma-separated mutant names")
    p.set_defaults(func=run)
