"""Turn sweep records (``sweep.py`` JSON lines) into ``known_failures.py``: each failing
(point, check) gets a reason naming its kind and its measured error.

    python tests/properties/classify.py a.jsonl b.jsonl ... > tests/properties/known_failures.py
    python tests/properties/classify.py --page > docs/known-failures.md   (the site's list)

Later files override earlier ones for the same (point, check); the current file's entries for
points that no record covers (e.g. the always-on points, when the records are a slow sweep)
are kept with their reasons.  The kinds are issue 21's
items where they match, else new kinds (numbered N1, N2, …, described in docs/reliability.md).
"""
import json
import re
import sys
from pathlib import Path

KINDS = {
    "item 1": "upper tail from 1 − cdf (sf/isf lose relative accuracy in the right tail)",
    "item 2": "sf/isf/logsf raise StopIteration (tail tables keyed by the support ends)",
    "item 5": "cdf/sf beyond the support not exactly 0/1",
    "item 6": "cdf not monotone to the ulp",
    "item 7/16": "float64 cdf is 0 at tiny x next to a hard edge (subnormal or < 1e-157)",
    "item 13": "near-degenerate parameter: mass check refuses or drifts",
    "item 14": "extreme scale: affine/dilate refuses (mass 0, bare rational) or fails continuation",
    "item 18": "layer law corner: branch continuation fails, mass off, or slow",
    "item 19": "subordination loses mass or misses a component",
    "N1": "sf left of an atom omits the atom",
    "N2": "density not integrable by quadrature (noisy or wrong pdf)",
    "N3": "RecursionError building an algebraic ⊠-power",
    "N4": "mass off (atoms + density ≠ 1 beyond 1e-10)",
    "N5": "moments of the law disagree with quadrature or the closed form",
    "N6": "G: conj symmetry / Im G < 0 / finite fails",
    "N7": "the two convolution routes disagree",
    "N8": "affine image disagrees with the base law up to the map",
    "N9": "raw exception or timeout",
    "N10": "ppf not the quantile (cdf(ppf(q)) ≠ q) away from the far tail",
    "N11": "sf + cdf ≠ 1",
    "N12": "pdf negative, NaN, or non-zero outside the support",
    "N13": "exact push-forward by a cubic or with float coefficients does not return (FLINT resultant)",
    "N14": "RuntimeWarning from the library (overflow in numeric roots 1/r), an error under the suite's filter",
    "N15": "a call exceeds its time bound (30 s per check, 60 s per construction)",
    "N16": "a support end known only as a double while |end| >> width: the distance to it at 1e-8 of the width rounds (affine/dilate images, subordination edges)",
}


#: families whose ends are doubles mapped or solved without a sub-ulp correction (N16)
_END_ROUNDING_FAMILIES = ("affine", "dilate", "boxplus_num", "boxtimes_num", "cfp_num",
                          "powers_num", "boxtimes_power_alg", "boxplus_power_alg", "mha_rho")


def clean(d):
    d = re.sub(r"np\.float64\(([^)]*)\)", r"\1", d)
    return re.sub(r"np\.complex128\(([^)]*)\)", r"\1", d)


def kind(r):
    d, ch, fam = clean(r["detail"]), r["check"], r["id"].rsplit("-", 1)[0]
    built = not d.startswith("construction failed")
    if "StopIteration" in d:
        return "item 2"
    if fam in ("dilate", "affine") and not built:
        return "item 14"
    if fam == "mp_near1" and ("mass" in d or ch == "mass"):
        return "item 13"
    if "RecursionError" in d:
        return "N3"
    if "support scan missed" in d or "did not converge" in d and "subordination" in r["call"]:
        return "item 19"
    if "CallTimeout" in d:
        return "N15"
    if "RuntimeWarning" in d:
        return "N14"
    if fam in ("mha", "mha_rho", "values", "preset") and ("branch continuation" in d or "carry mass" in d):
        return "item 18"
    if not built or r["err"] is None:
        # the check's own reference not accurate enough (its error estimate above a tenth of
        # the tolerance) is N2, not a raw exception of the library
        return "N2" if ("needs more than" in d or "N2: the reference quadrature" in d) else "N9"
    if ch == "cdf_monotone":
        return "item 6"
    if ch == "outside":
        return "item 5" if r["err"] < 1e-6 else "N1"
    if ch == "quantiles":
        if "isf(" in d:
            return "item 1"
        m = re.search(r"ppf\([^)]*\) = ([0-9.e+-]+)", d)
        if "cdf there 0.0" in d or (m and abs(float(m.group(1).rstrip(":"))) < 1e-150):
            return "item 7/16"
        return "N10"
    if ch == "tails":
        if fam in _END_ROUNDING_FAMILIES and r["err"] < 1e-5:
            return "N16"
        return "item 1" if d.startswith("sf(") else "N10"
    if ch == "mass":
        return "N4"
    if ch == "moments":
        return "N5"
    if ch == "cauchy" or ch == "stieltjes":
        return "N6"
    if ch == "routes":
        return "N7"
    if ch == "scaling":
        return "N8"
    if ch == "sf_plus_cdf":
        return "N11"
    if ch == "pdf_nonnegative":
        return "N12"
    return "N9"


def reason(r):
    k = kind(r)
    err = r["err"]
    measured = (f"measured error {float(err):.3g} (tol {r['tol']:g})" if isinstance(err, (int, float))
                else f"measured error {err}" if err is not None else "raises")
    d = clean(r["detail"])
    return f"{k}: {measured}; {d[:160]}"


def main(files):
    recs = {}
    for f in files:
        for line in open(f):
            r = json.loads(line)
            recs[(r["id"], r["check"])] = r
    # the current file's entries for points no record covers (the always-on points when the
    # records are a slow sweep) are kept with their reasons
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from known_failures import KNOWN
    covered = {pid for pid, _ in recs}
    kept = {k: v for k, v in KNOWN.items() if k[0] not in covered}
    print('"""Points of the property suite that fail on today\'s code, by (point id, check): each reason')
    print("names the kind (issue 21's item numbers where it is one of them, N… for new kinds, see")
    print("docs/reliability.md) and the measured error.  Generated by ``classify.py`` from ``sweep.py``")
    print("records (entries of points the records do not cover are kept); the tests turn each")
    print("entry into ``xfail(strict=True)``: when a fix makes the point pass, the XPASS fails the")
    print('suite and the entry must go."""')
    print("KINDS = {")
    for k, v in KINDS.items():
        print(f"    {k!r}: {v!r},")
    print("}\n")
    print("KNOWN = {")
    for (pid, ch), why in kept.items():
        print(f"    ({pid!r}, {ch!r}):\n        {why!r},")
    for (pid, ch), r in sorted(recs.items(), key=lambda t: (t[0][0].rsplit("-", 1)[0], int(t[0][0].rsplit("-", 1)[1]), t[0][1])):
        if not r["ok"]:
            print(f"    ({pid!r}, {ch!r}):\n        {reason(r)!r},")
    print("}")


def page():
    """docs/known-failures.md: every entry of known_failures.KNOWN (point, check, kind,
    measured error) grouped by family, for the documentation site."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from known_failures import KINDS, KNOWN
    print("# Known failures of the property suite\n")
    print("Generated from `tests/properties/known_failures.py` by `python tests/properties/"
          "classify.py --page`; each (point, check) runs as `xfail(strict=True)` "
          "([Reliability](reliability.md) describes the kinds and the fixes).  Rebuild a "
          "point with `families.point(id).build()`.\n")
    print("| kind | what | pairs |\n|---|---|---|")
    counts = {}
    for why in KNOWN.values():
        k = why.split(":", 1)[0]
        counts[k] = counts.get(k, 0) + 1
    for k, n in sorted(counts.items(), key=lambda t: -t[1]):
        print(f"| {k} | {KINDS.get(k, '').replace('|', chr(92) + '|')} | {n} |")
    by_family = {}
    for (pid, ch), why in KNOWN.items():
        by_family.setdefault(pid.rsplit("-", 1)[0], []).append((pid, ch, why))
    for fam, rows in by_family.items():
        print(f"\n## {fam} ({len(rows)})\n\n| point | check | kind and measured error |\n|---|---|---|")
        for pid, ch, why in rows:
            cell = why.replace("|", "\\|").replace("\n", " ")
            print(f"| `{pid}` | {ch} | {cell} |")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--page"]:
        page()
    else:
        main(sys.argv[1:])
