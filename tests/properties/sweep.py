"""Run the property checks over points outside pytest and print one JSON line per
(point, check) with the measured error and the time (used to fill known_failures.py):

    python tests/properties/sweep.py quick [family ...] > out.jsonl
    python tests/properties/sweep.py slow attention:100 > out.jsonl   (first 100 slow points)
    python tests/properties/sweep.py slow every:10 > out.jsonl        (every 10th slow point of every family)
    python tests/properties/sweep.py recheck out.jsonl > again.jsonl  (the failing pairs again)
    SWEEP_CHECKS=cdf_monotone,outside python tests/properties/sweep.py quick   (those checks only)
"""
import json
import os
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.simplefilter("error", RuntimeWarning)

from checks import BUILD_S, CHECK_S, CHECKS, applicable, bounded, prepare  # noqa: E402
from families import FAMILIES, point, quick_ids, slow_ids  # noqa: E402

#: SWEEP_CHECKS=cdf_monotone,outside restricts a sweep to those checks
ONLY_CHECKS = set(filter(None, os.environ.get("SWEEP_CHECKS", "").split(",")))


def main(argv):
    which, fams = argv[0], argv[1:] or list(FAMILIES)
    only = None
    if which == "recheck":  # re-run the failing (point, check) pairs of earlier sweeps
        only = {}
        for f in fams:
            for line in open(f):
                r = json.loads(line)
                if not r["ok"]:
                    only.setdefault(r["id"], set()).add(r["check"])
        groups = [list(only)]
    else:
        groups = []
        if fams and fams[0].startswith("every:"):  # every:K or every:K:OFFSET over all families
            k, *off = map(int, fams[0].split(":")[1:])
            fams = [f"{f}:{off[0] if off else 0}:{10**9}:{k}" for f in FAMILIES]
        for spec in fams:
            fam, *rng = spec.split(":")  # fam, fam:count, fam:start:stop or fam:start:stop:step
            ids = quick_ids(fam) if which == "quick" else slow_ids(fam)
            rng = [int(r) for r in rng]
            groups.append(ids[rng[0]:rng[1]:rng[2]] if len(rng) == 3 else
                          ids[rng[0]:rng[1]] if len(rng) == 2 else
                          ids[:rng[0]] if rng else ids)
    for ids in groups:
        for pid in ids:
            pt = point(pid)
            t0 = time.perf_counter()
            try:
                with bounded(BUILD_S, "build"):
                    law = pt.build()
                    law.support()
                    law.atoms()
                build_err = None
            except BaseException as exc:  # noqa: BLE001
                build_err = f"{type(exc).__name__}: {str(exc)[:300]}"
            tb = time.perf_counter() - t0
            for name, (fn, tol, always) in CHECKS.items():
                if (which == "quick" and not always) or not applicable(name, pt):
                    continue
                if ONLY_CHECKS and name not in ONLY_CHECKS:
                    continue
                if only is not None and name not in only[pid]:
                    continue
                t1 = time.perf_counter()
                if build_err:
                    rec = dict(err=None, detail="construction failed: " + build_err)
                else:
                    try:
                        prepare(law, name, pt)  # the shared reference (once per point, own bound)
                        with bounded(CHECK_S, name):
                            err, detail = fn(law, pt)
                        rec = dict(err=err, detail=detail)
                    except BaseException as exc:  # noqa: BLE001
                        rec = dict(err=None, detail=f"{type(exc).__name__}: {str(exc)[:300]}")
                ok = bool(rec["err"] is not None and rec["err"] <= tol)
                if rec["err"] is not None:
                    rec["err"] = float(rec["err"])
                print(json.dumps(dict(id=pid, check=name, call=pt.call, ok=ok, tol=tol,
                                      build_s=round(tb, 3), check_s=round(time.perf_counter() - t1, 3),
                                      **{k: (v if not isinstance(v, float) or v == v and abs(v) != float("inf") else str(v))
                                         for k, v in rec.items()})), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
