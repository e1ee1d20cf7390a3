# SPDX-License-Identifier: GPL-2.0-only
"""The guest's ACVP answers as responses, validations and checks.

judge(meta, recs) takes Work.meta (acvp_work.py) and the guest's result
lines, and returns (checks, documents):

- documents[set name]["response"]: the response.json of the set, in
  ACVP's format, made of the kernel's answers (None when the kernel did
  not answer every claimed test case: a response is written whole or not
  at all); ["validation"]: where the set has expectedResults.json, the
  validation.json the server would write (disposition, a result per
  answered tcId);
- acvp.<set>.tg<N>: every claimed test case of the group answered by the
  kernel, equal to the host model's answer (and to the expected result,
  where there is one); a group the registration does not claim at all is
  skipped with the reason; test cases it does not claim are counted and
  listed with the reason in the check's details;
- acvp.<set>.validation: the disposition is "passed", and agrees with the
  server's own validation.json where the set has one (its disposition, the
  same result for every answered tcId, and every other tcId of the
  server's listed as not applicable);
- acvp.registration.<instance>, acvp.registration.request,
  acvp.registration.<hash>: the probes (acvp_work.py);
- acvp.total.
"""

from ..base.checks import Check

SHOWN = 5


def results(recs):
    return {r["i"]: r for r in recs if r.get("type") == "acvp" and isinstance(r.get("i"), int)}


def kernel_answer(info, res):
    """(answer as in the model's format, None) or (None, why not)."""
    if res is None:
        return None, "no answer from the guest"
    if res.get("stage"):
        return None, f"{res['stage']} failed: error {res.get('err')}"
    if res.get("err"):
        return None, f"the kernel refused it: error {res['err']} at step {res.get('step')}"
    if info["kind"] == "drbg":
        return res.get("out"), None
    if info["kind"] == "hash-mct":
        mds = res.get("mds", "")
        n = len(info["model"][0]) if info["model"] else 64
        return [mds[i:i + n] for i in range(0, len(mds), n)], None
    return res.get("md"), None


def response_case(family, test_type, tc, answer):
    if family == "drbg":
        return {"tcId": tc, "returnedBits": answer.upper()}
    if test_type == "MCT":
        return {"tcId": tc, "resultsArray": [{"md": a.upper()} for a in answer]}
    return {"tcId": tc, "md": answer.upper()}


def group_check(s, g, meta, res, doc, verdicts):
    cid = f"acvp.{s['slug']}.tg{g['tgId']}"
    na = {reason: len(tcs) for reason, tcs in g["na"].items()}
    counts = {"test_cases": len(g["tests"]) + sum(na.values()),
              "answered": 0, "not_applicable": sum(na.values())}
    details = {"not_applicable": [{"reason": r, "test_cases": n,
                                   "tcIds": g["na"][r][:20]} for r, n in na.items()]}
    if not g["tests"]:
        return Check.skipped(cid, g["title"], "not applicable: " + "; ".join(na),
                             origin="host", counts=counts, details=details)
    problems, cases, agree = [], [], 0
    for ei in g["tests"]:
        info = meta["entries"][ei]
        got, why = kernel_answer(info, res.get(ei))
        tc = info["tcId"]
        if got is None:
            problems.append(f"tcId {tc}: {why}")
            verdicts[tc] = "failed"
            continue
        counts["answered"] += 1
        cases.append(response_case(s["family"], g["testType"], tc, got))
        if got == info["model"]:
            agree += 1
        else:
            problems.append(f"tcId {tc}: the kernel's answer differs from the host model's")
        if info["expected"] is not None:
            verdicts[tc] = "passed" if got == info["expected"] else "failed"
            if got != info["expected"]:
                problems.append(f"tcId {tc}: the kernel's answer differs from the "
                                "expected result")
    doc["testGroups"].append({"tgId": g["tgId"], "tests": cases})
    counts["model_agrees"] = agree
    if counts["answered"] != len(g["tests"]):
        doc["complete"] = False
    return Check.judge(cid, g["title"], problems, shown=SHOWN, origin="guest",
                       counts=counts, details=details)


def validation(s, verdicts):
    """The server's validation document for the answered test cases."""
    tests = [{"tcId": tc, "result": verdicts[tc]} for tc in sorted(verdicts)]
    ok = bool(tests) and all(t["result"] == "passed" for t in tests)
    return {"vsId": s["vsId"], "disposition": "passed" if ok else "failed",
            "tests": tests}


def validation_check(s, val):
    cid = f"acvp.{s['slug']}.validation"
    title = f"{s['name']}: the validation of the kernel's response is \"passed\""
    problems = []
    if val["disposition"] != "passed":
        bad = [t["tcId"] for t in val["tests"] if t["result"] != "passed"]
        problems.append(f"disposition {val['disposition']}: {len(bad)} of "
                        f"{len(val['tests'])} test cases failed (tcId "
                        f"{', '.join(map(str, bad[:SHOWN]))})")
    server = s.get("server")
    agree = None
    if server:
        title += " and agrees with the server's validation.json"
        theirs = {int(k): v for k, v in server["tests"].items()}
        differ = [t["tcId"] for t in val["tests"] if theirs.get(t["tcId"]) != t["result"]]
        na = {tc for g in s["groups"] for tcs in g["na"].values() for tc in tcs}
        unknown = sorted(set(theirs) - {t["tcId"] for t in val["tests"]} - na)
        if server["disposition"] != val["disposition"]:
            problems.append(f"the server's disposition is {server['disposition']}, "
                            f"ours {val['disposition']}")
        if differ:
            problems.append(f"{len(differ)} test case(s) judged otherwise by the server "
                            f"(tcId {', '.join(map(str, differ[:SHOWN]))})")
        if unknown:
            problems.append(f"{len(unknown)} test case(s) of the server's validation "
                            "neither answered nor listed as not applicable (tcId "
                            f"{', '.join(map(str, unknown[:SHOWN]))})")
        agree = not problems
    return Check.judge(cid, title, problems, origin="host",
                       counts={"test_cases": len(val["tests"]),
                               "passed": sum(t["result"] == "passed" for t in val["tests"]),
                               "server_test_cases": len(server["tests"]) if server else 0},
                       details={"disposition": val["disposition"],
                                "agrees_with_server": agree}), agree


def set_checks(s, meta, res):
    doc = {"acvVersion": "1.0", "vsId": s["vsId"], "algorithm": s["algorithm"],
           "revision": s["revision"], "isSample": s["isSample"], "testGroups": [],
           "complete": True}
    verdicts, checks = {}, []
    for g in s["groups"]:
        checks.append(group_check(s, g, meta, res, doc, verdicts))
    doc["testGroups"] = [g for g in doc["testGroups"] if g["tests"]]
    complete = doc.pop("complete")
    out = {"response": doc if complete else None, "validation": None, "agrees": None}
    if s["expected"]:
        out["validation"] = validation(s, verdicts)
        c, out["agrees"] = validation_check(s, out["validation"])
        checks.append(c)
    return checks, out


def probe_problem(p, info, res):
    """Why a probe did not go as the registration says, or None."""
    if res is None:
        return "no answer from the guest"
    if res.get("stage") and res["stage"] != "write":
        return f"{res['stage']} failed: error {res.get('err')}"
    exp = p["expect"]
    if isinstance(exp, int):
        if res.get("stage") == "write" and res.get("err") == exp:
            return None
        return f"expected write() to fail with {exp}, got {res}"
    if res.get("stage") or res.get("err"):
        return f"refused: {res}"
    if exp == "model":
        got = res.get("md") or res.get("out")
        return None if got == info["model"] else "the answer differs from the host model's"
    return None


def probe_checks(meta, res):
    groups = {}
    for p in meta["probes"]:
        key = p["id"].rsplit(".", 1)[0]
        groups.setdefault(key, []).append(p)
    out = []
    for key, ps in groups.items():
        problems = []
        for p in ps:
            why = probe_problem(p, meta["entries"][p["entry"]], res.get(p["entry"]))
            if why:
                problems.append(f"{p['id'].rsplit('.', 1)[1]} ({p['title']}): {why}")
        if key == "request":
            title = ("the test interface takes a request of its largest size, not one "
                     "byte more")
        elif key.startswith("drbg_"):
            title = (f"{key}: the lengths the registration claims are taken (and a byte "
                     "more, where ACVP sets the maximum), one past the interface's "
                     "limits refused")
        else:
            title = (f"{key}: the shortest and the longest registered message hash as "
                     "the host model says")
        out.append(Check.judge(f"acvp.registration.{key}", title, problems, origin="guest",
                               counts={"probes": len(ps), "failed": len(problems)},
                               details={"probes": [f"{p['id']}: {p['title']}, expect "
                                                   f"{p['expect']}" for p in ps]}))
    return out


def judge(meta, recs):
    """(checks, {set name: documents}); see the module's docstring."""
    res = results(recs)
    checks, docs = [], {}
    for s in meta["sets"]:
        cs, docs[s["name"]] = set_checks(s, meta, res)
        checks += cs
    checks += probe_checks(meta, res)
    return checks, docs
