"""Cold start of the papers' laws, each in a fresh process, FLINT route beside sympy's.

    python benchmarks/bench_coldstart.py [--laws single,concat,values,full,tied]
                                         [--no-sympy] [--points 20] [--against PATH]
    python benchmarks/bench_coldstart.py --presets [all|NAME[:rho=R],...] [--repeat 3]
                                         [--against PATH]

``--presets``: the layer presets of :class:`freeattn.attention.MHAConfig` (issue 9: "building
``mha_output_law`` for any preset takes < 1 s in a fresh process").  Each runs ``--repeat``
times in a fresh interpreter:

    t0; from freeattn.attention import MHAConfig; t1
    law = MHAConfig.preset(p).law(); law.support(); law.atoms(); t2

and the table gives import = t1 − t0, build = t2 − t1 (min over the repeats, the median in
brackets) and the whole process's wall time (interpreter start included), for this tree and,
with ``--against PATH``, for another checkout in the same run, interleaved run by run so that
both see the same load, with the build ratio.  ``NAME:rho=0.6`` builds the preset with the
partial key–value correlation ρ (``mha_output_law(..., rho=...)``); ``all`` is every preset
plus ``bert-base:rho=0.5`` and ``bert-base:rho=0.6``.  The load average is printed beside.
Children run with PYTHONDONTWRITEBYTECODE=1 (no bytecode written into either checkout), so
"import" includes compiling freeattn's own sources (~0.1–0.2 s here; an installed package
with cached bytecode imports that much faster; sympy's own import is ~0.26 s of it).

For each law of Hayase, Collins & Karakida (single head) and Hayase & Karakida 2026
(multi-head) a fresh interpreter imports freeattn and *builds* the law: constructs the law
object (the exact eliminations: ⊠, compound free Poisson, push-forward, Stieltjes factor)
and computes its support and atoms (discriminant, edges at float64 reference precision).
The time is split into

    exact     the polynomial algebra of freeattn.algebraic.{polynomial,eliminations,discriminant}
              (FLINT or sympy),
    numeric   breakpoints, branch classification, atoms (freeattn.algebraic.numeric),
    other     everything else (sympy glue: expand/xreplace/lambdify, validation),

each timed exclusively (an exact discriminant inside the numeric edge search counts as
exact).  Each law runs with FREEATTN_FLINT=1 (FLINT) and FREEATTN_FLINT=0 (today's
sympy-only route), and the ratio is printed.  ``--against PATH`` runs the same children
with the freeattn of another checkout (e.g. the main branch before a change) and prints this
tree's speed-up over it, in the same run.

Laws (BERT-base ratios n = 512, d = 768, d_K = d_V = 64, h = 12: γ_K = γ_V = 1.5,
γ_O = 1.5; β = 1):

    single  attention_law(1, 1)                                  (h = 1)
    concat  attention_law(1, 0.5, 12)                            (head concatenation)
    values  ν_{∞,h} ⊠ MP_{1/γ_V}                                 (Prop. C.5)
    full    ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O}                       (eq. (C.15))
    tied    D_{1/γ_K}(π(μ_KV, h) ⊠ π_{γ_O}), μ_KV = φ_KV#π_{γ_K/h} (eqs. (C.17)–(C.21))

Then, in one process, a new (β, γ_K) of an already-built structure: attention_law(β, γ_K)
for random β, γ_K (log-uniform), law + edges + first pdf value; median against the 50 ms
target, with the same exact/numeric/other split, and the cost of the exact side a new point
needs once the numeric side evaluates the structure's cached symbolic discriminant
(discriminant.discriminant_tables) instead of re-deriving it: evaluating its coefficients at 50
digits, including the conversion of the parameter values (θ₁ = e^{β²} − 1, …) to mpmath.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

LAWS = ("single", "concat", "values", "full", "tied")


# ---------------------------------------------------------------- child process
def _install_timers():
    """Wrap the exact and numeric entry points with timers (exclusive: time inside a nested
    timed call counts for the nested call's category)."""
    import freeattn.attention  # noqa: F401  (load every consumer before patching)
    import freeattn.convolution  # noqa: F401
    from freeattn.algebraic import numeric, polynomial  # noqa: F401  (loads its siblings)

    totals = {"exact": 0.0, "numeric": 0.0}
    stack = []  # [category, start, time spent in nested timed calls]

    def wrap(owner, name, cat):
        fn = getattr(owner, name)

        def timed(*args, **kwargs):
            stack.append([cat, time.perf_counter(), 0.0])
            try:
                return fn(*args, **kwargs)
            finally:
                cat_, start, inner = stack.pop()
                elapsed = time.perf_counter() - start
                totals[cat_] += elapsed - inner
                if stack:
                    stack[-1][2] += elapsed

        setattr(owner, name, timed)

    # the exact algebra's public entry points, wherever freeattn modules imported them
    for name in ("stieltjes_factor", "boxtimes_polynomial", "compound_free_poisson_polynomial",
                 "affine_polynomial", "series_moments", "discriminant_factors",
                 "discriminant_tables", "pushforward_polynomial"):
        homes = [sys.modules.get(f"freeattn.algebraic.{m}")
                 for m in ("polynomial", "eliminations", "discriminant")]  # older trees: one
        original = next((getattr(h, name) for h in homes if h and hasattr(h, name)), None)
        if original is None:
            continue
        for mod in [m for k, m in sys.modules.items() if k.startswith("freeattn") and m]:
            if getattr(mod, name, None) is original:
                wrap(mod, name, "exact")
    wrap(numeric.BranchData, "__init__", "numeric")
    wrap(numeric.NumericPolynomial, "__init__", "numeric")
    from freeattn.laws import algebraic

    wrap(algebraic.AlgebraicLaw, "_atoms_raw", "numeric")
    return totals


def build(which, beta=1.0, gamma_k=None):
    """The law ``which`` (see module docstring), constructed and with support and atoms."""
    import sympy as sp

    from freeattn import attention_law
    from freeattn.convolution import compound_free_poisson
    from freeattn.convolution import free_multiplicative_convolution as boxtimes
    from freeattn.laws import FreePoisson, MarchenkoPastur

    h, g_v, g_o = 12, 1.5, 1.5
    g_k = 1.5 if gamma_k is None else gamma_k
    if which == "single":
        law = attention_law(beta, 1.0 if gamma_k is None else gamma_k)
    elif which == "concat":
        law = attention_law(beta, 0.5 if gamma_k is None else gamma_k, h)
    elif which == "values":
        law = boxtimes(attention_law(beta, g_k, h), MarchenkoPastur(1 / g_v))
    elif which == "full":
        law = boxtimes(boxtimes(attention_law(beta, g_k, h), MarchenkoPastur(1 / g_v)),
                       FreePoisson(g_o))
    elif which == "tied":
        b2 = sp.Rational(beta) ** 2
        th1, th2 = sp.exp(b2) - 1, b2
        gk = sp.Rational(g_k)
        mu_kv = FreePoisson(g_k / h).pushforward([0, th1 - th2, h * th2 / gk])
        law = boxtimes(compound_free_poisson(mu_kv, h), FreePoisson(g_o)).dilate(1 / g_k)
    else:
        raise ValueError(f"unknown law {which!r}")
    law.support()
    law.atoms()
    return law


def child(which):
    t0 = time.perf_counter()
    import freeattn  # noqa: F401

    t_import = time.perf_counter() - t0
    totals = _install_timers()
    t0 = time.perf_counter()
    try:
        law = build(which)
    except Exception as exc:  # report, e.g., a numeric failure of the law, and go on
        print(json.dumps({"import": t_import, "build": time.perf_counter() - t0, **totals,
                          "error": f"{type(exc).__name__}: {exc}"}))
        return
    t_build = time.perf_counter() - t0
    print(json.dumps({"import": t_import, "build": t_build, **totals,
                      "support": law.support(), "atoms": law.atoms()}))


def child_new_point(points, seed=0):
    import numpy as np

    totals = _install_timers()
    from freeattn import attention_law

    law = attention_law(1.0, 1.0)
    law.support()
    law.pdf(np.array([1.0]))
    rng = np.random.default_rng(seed)
    times, splits = [], []
    for _ in range(points):
        beta = float(np.exp(rng.uniform(np.log(0.1), np.log(2.0))))
        gamma_k = float(np.exp(rng.uniform(np.log(0.1), np.log(10.0))))
        before = dict(totals)
        t0 = time.perf_counter()
        law = attention_law(beta, gamma_k)
        (a, b), *_ = law.support()
        law.pdf(np.array([0.5 * (a + b)]))
        dt = time.perf_counter() - t0
        times.append(dt)
        splits.append({k: totals[k] - before[k] for k in totals})
    # the exact side a new point needs with the canonical symbolic discriminant
    # (discriminant.discriminant_tables, cached per structure): evaluate its coefficients
    import mpmath

    from freeattn._context import to_mp
    try:
        from freeattn.algebraic.discriminant import discriminant_tables
    except ImportError:  # a tree from before the split of algebraic/polynomial.py
        from freeattn.algebraic.polynomial import discriminant_tables

    discriminant_tables(law._factor)  # once per structure
    t_tab = []
    for _ in range(points):
        t0 = time.perf_counter()
        with mpmath.workdps(50):
            for table, _kind in discriminant_tables(law._factor):
                table.evaluate([to_mp(law.values[s]) for s in table.symbols], mpmath.mpf(1))
        t_tab.append(time.perf_counter() - t0)
    # where a new point's time goes (same points, fresh laws, stage by stage; a tree whose
    # AlgebraicLaw has no separate mass-check quadrature reports no split)
    from freeattn.laws.algebraic import AlgebraicLaw

    stages = {}
    if hasattr(AlgebraicLaw, "_interval_masses"):
        rng = np.random.default_rng(seed)
        split = {k: [] for k in ("construct", "numeric polynomial", "breakpoints + atoms",
                                 "edge tables", "mass check", "first pdf")}
        for _ in range(points):
            beta = float(np.exp(rng.uniform(np.log(0.1), np.log(2.0))))
            gamma_k = float(np.exp(rng.uniform(np.log(0.1), np.log(10.0))))
            marks = [time.perf_counter()]
            law = attention_law(beta, gamma_k)
            marks.append(time.perf_counter())
            law._num, law._num_full  # noqa: B018  (NumericPolynomial of both routes)
            marks.append(time.perf_counter())
            law._branch(None), law._atoms_raw(None)
            marks.append(time.perf_counter())
            law._tables  # noqa: B018
            marks.append(time.perf_counter())
            (a, b), *_ = law.support()
            marks.append(time.perf_counter())
            law.pdf(np.array([0.5 * (a + b)]))
            marks.append(time.perf_counter())
            for k, t0, t1 in zip(split, marks, marks[1:]):
                split[k].append(t1 - t0)
        stages = {k: statistics.median(v) for k, v in split.items()}
    med = statistics.median(times)
    print(json.dumps({"median": med, "min": min(times), "max": max(times), "stages": stages,
                      "tables": statistics.median(t_tab),
                      "exact": statistics.median(s["exact"] for s in splits),
                      "numeric": statistics.median(s["numeric"] for s in splits)}))


_PRESET_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from freeattn.attention import MHAConfig
t1 = time.perf_counter()
name, _, extra = sys.argv[1].partition(":")
over = {k: float(v) for k, v in (kv.split("=") for kv in extra.split(",") if kv)}
law = MHAConfig.preset(name, **over).law()
law.support()
law.atoms()
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "build": t2 - t1}))
"""


def _preset_run(entry, root, timeout):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(root), PYTHONDONTWRITEBYTECODE="1")
    t0 = time.perf_counter()
    try:
        out = subprocess.run([sys.executable, "-c", _PRESET_CHILD, entry], env=env,
                             cwd=os.path.abspath(root), capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    wall = time.perf_counter() - t0
    if out.returncode:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"}
    r = json.loads(out.stdout.strip().splitlines()[-1])
    r["wall"] = wall
    return r


def _summary(runs):
    ok = [r for r in runs if r and "error" not in r]
    if not ok:
        bad = [r for r in runs if r]
        return None, (bad[0]["error"] if bad else "timed out")
    out = {}
    for k in ("import", "build", "wall"):
        v = sorted(r[k] for r in ok)
        out[k] = (v[0], statistics.median(v))
    return out, None


def presets_table(entries, repeat, against, timeout):
    """The --presets table (see the module docstring)."""
    roots = [("this", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))]
    if against:
        roots.append(("against", against))
    print(f"cold build of the presets, fresh process each, min [median] of {repeat}; "
          f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"  {'preset':24s} {'tree':8s} {'import s':>15s} {'build s':>15s} {'process s':>15s}")
    worst = {}
    for entry in entries:
        runs = {label: [] for label, _ in roots}
        for _ in range(repeat):
            for label, root in roots:
                runs[label].append(_preset_run(entry, root, timeout))
        res = {}
        for label, _ in roots:
            summ, err = _summary(runs[label])
            res[label] = summ
            if summ is None:
                print(f"  {entry:24s} {label:8s} {err}")
                continue
            cells = " ".join(f"{summ[k][0]:6.3f} [{summ[k][1]:6.3f}]" for k in
                             ("import", "build", "wall"))
            extra = ""
            if label == "against" and res.get("this"):
                extra = f"  build {summ['build'][0] / res['this']['build'][0]:5.1f} x faster here"
            print(f"  {entry:24s} {label:8s} {cells}{extra}")
            worst[label] = max(worst.get(label, 0.0), summ["build"][0])
    for label, v in worst.items():
        print(f"  slowest build ({label}): {v:.3f} s")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


# ---------------------------------------------------------------- parent
def _run(args, flint, timeout, root=None):
    env = dict(os.environ, FREEATTN_FLINT="1" if flint else "0")
    if root:
        env["FREEATTN_BENCH_ROOT"] = os.path.abspath(root)
        env["PYTHONDONTWRITEBYTECODE"] = "1"  # leave the other checkout untouched
    cmd = [sys.executable, os.path.abspath(__file__)] + args
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                             check=True)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def _fmt(r):
    if r is None:
        return "   (timed out)"
    other = r["build"] - r["exact"] - r["numeric"]
    return (f"{r['build']:7.2f} s  [exact {r['exact']:6.2f}, numeric {r['numeric']:5.2f}, "
            f"other {other:5.2f}]  import {r['import']:4.2f} s")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--laws", default=",".join(LAWS))
    ap.add_argument("--no-sympy", action="store_true", help="skip the sympy-only route")
    ap.add_argument("--points", type=int, default=20, help="new (β, γ_K) points")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per child")
    ap.add_argument("--against", metavar="PATH",
                    help="also run every child with the freeattn of another checkout (e.g. "
                         "the main branch) and print this tree's speed-up over it")
    ap.add_argument("--presets", nargs="?", const="all", metavar="LIST",
                    help="only the preset table: 'all' or NAME[:rho=R],... (see the docstring)")
    ap.add_argument("--repeat", type=int, default=3, help="fresh processes per preset")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--child-new-point", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(args.child)
    if args.child_new_point:
        return child_new_point(args.child_new_point)
    if args.presets:
        if args.presets == "all":
            from freeattn.attention.config import PRESETS

            entries = list(PRESETS) + ["bert-base:rho=0.5", "bert-base:rho=0.6"]
        else:
            entries = [e for e in args.presets.split(",") if e]
        return presets_table(entries, args.repeat, args.against, args.timeout)
    print("cold build (fresh process): construct law + support + atoms; target < 1 s")
    for which in [w for w in args.laws.split(",") if w]:
        fl = _run(["--child", which], True, args.timeout)
        print(f"  {which:7s} FLINT: {_fmt(fl)}")
        if args.against:
            bs = _run(["--child", which], True, args.timeout, root=args.against)
            ok = bs and fl and "error" not in bs and "error" not in fl
            ratio = f"{bs['build'] / fl['build']:6.1f} x faster" if ok else ""
            print(f"  {'':7s} {'against':6s} {_fmt(bs)}  {ratio}  ({args.against})")
        if not args.no_sympy:
            sy = _run(["--child", which], False, args.timeout)
            ok = sy and fl and "error" not in sy and "error" not in fl
            ratio = f"{sy['build'] / fl['build']:6.1f} x faster" if ok else ""
            print(f"  {'':7s} sympy: {_fmt(sy)}  {ratio}")
        if fl and "error" in fl:
            print(f"  {'':7s} FAILED after the time above: {fl['error']}")
        elif fl:
            print(f"  {'':7s} support {fl['support']}, atoms {fl['atoms']}")
    r = _run(["--child-new-point", str(args.points)], True, args.timeout)
    print(f"new (β, γ_K) of a built structure, attention_law: law + edges + first pdf, "
          f"{args.points} points:")
    print(f"  median {r['median'] * 1e3:7.1f} ms (target < 50 ms), min {r['min'] * 1e3:.1f}, "
          f"max {r['max'] * 1e3:.1f}; median exact {r['exact'] * 1e3:.1f} ms, "
          f"numeric {r['numeric'] * 1e3:.1f} ms")
    if r.get("stages"):
        print("  median by stage: " + ", ".join(f"{k} {v * 1e3:.1f} ms"
                                                for k, v in r["stages"].items()))
    print(f"  exact side via discriminant_tables (evaluate the cached symbolic discriminant at "
          f"50 digits): {r['tables'] * 1e3:.2f} ms per point")
    if args.against:
        b = _run(["--child-new-point", str(args.points)], True, args.timeout, root=args.against)
        print(f"  against {args.against}: median {b['median'] * 1e3:7.1f} ms, min "
              f"{b['min'] * 1e3:.1f}, max {b['max'] * 1e3:.1f}; this tree "
              f"{b['median'] / r['median']:.1f} x faster (median)")


if __name__ == "__main__":
    sys.path.insert(0, os.environ.get("FREEATTN_BENCH_ROOT")
                    or os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    main()
