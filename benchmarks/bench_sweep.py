"""Issue 22's table in one run: each row as its time, its floor or baseline, and its target.

    python benchmarks/bench_sweep.py [--quick] [--points N] [--rows 1,2,7] [--map-points N]

Rows (ratios measured in this run, so that a busy machine moves both sides alike):

1. a new (β, γ_K) single head: attention_law + support + one pdf value (median over random
   points, and along a β line where each point carries its neighbour's classification over),
   against the numeric floor: the structure's cached symbolic discriminant tables evaluated
   in float64 at the point plus numpy.roots of each factor;  target ≤ 2 ms;
2. a new full-layer point (bert-base widths, new β): MHAConfig.preset(...).law() + support +
   atoms + one pdf value, against the same floor for its substituted polynomial;  target ≤ 5 ms;
3. ``import freeattn`` in a fresh interpreter against a bare interpreter;  target ≤ 0.15 s
   (and, for information, the first float64 pdf of a law in a fresh interpreter);
4. ``moment(50, method="exact")`` of attention_law(1, 1) and of the bert-base layer (the
   FLINT recursion with the values substituted, algebraic.series.series_moments_at), against
   the symbolic expansion (polynomial.series_moments, every parameter symbolic, then
   substituted) at k = 8 and 12;  target ≤ 1 s;
5. compound_free_poisson(Empirical(1000 samples), 2) build (support + atoms) against the same
   build with the previous G and G′ of Discrete (two separate direct complex sums, copied
   below), and Empirical(10⁵ samples);  targets ≤ 0.3 s and ≤ 3 s (issue's machine: the old
   route took 5.2 s there, so read the ratio);
6. a 30-digit cdf and ppf of attention_law(1, 1) against float64;  target ≤ 30 ms;
7. the grids, measured on a reduced grid through freeattn.sweep (route="batch", workers=1 and 2,
   against the points route per point) and extrapolated
   linearly to the full grid (said so in the output): 10⁴ single-head points (edges,
   m₁…m₄, pdf at 100 x), target ≤ 20 s; a 100 × 100 (β, h) map of the full layer at bert-base
   widths (right edge, atoms, m₂, pdf at 50 x), target ≤ 60 s.

``--quick`` skips the two slow baselines of rows 4 and 5 (old routes) and the 10⁵-sample build.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np
from _timing import best_of  # benchmarks/ is on sys.path when run as a script

ROWS = []


def row(name, t, floor=None, floor_name="", target=None, note=""):
    ROWS.append((name, t, floor, floor_name, target, note))
    ratio = f"{t / floor:9.1f} x {floor_name}" if floor else ""
    tgt = f"target {target * 1e3:.4g} ms ({'met' if t <= target else 'missed'})" if target else ""
    print(f"{name:58s} {t * 1e3:11.3f} ms  {ratio:32s} {tgt}  {note}", flush=True)


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def _cpu():
    """CPU seconds of this process and its waited-for children (user + system): on a
    loaded machine the wall time of a sweep over workers also counts others' work."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


# ------------------------------------------------------------------ rows 1–2
def _floor(law, P):
    """Discriminant tables of P (cached symbolic, float64 at the point) + numpy.roots."""
    from freeattn._context import to_mp
    from freeattn.algebraic.discriminant import discriminant_tables

    tables = discriminant_tables(P)  # cached per structure

    def run():
        for table, _kind in tables:
            cf = table.evaluate([float(to_mp(law.values[s])) for s in table.symbols], 1.0)
            np.roots(cf[::-1])

    run()
    return best_of(run, 5)


def single_head(points):
    from freeattn import attention_law

    rng = np.random.default_rng(22)
    attention_law(1.0, 1.0).support()  # the structure, once
    times, floors = [], []
    for _ in range(points):
        beta = float(np.exp(rng.uniform(np.log(0.3), np.log(2.0))))
        gk = float(np.exp(rng.uniform(np.log(0.2), np.log(5.0))))
        t, law = _timed(lambda: _single(attention_law, beta, gk))
        times.append(t)
        floors.append(_floor(law, law._factor))
    row("new (β, γ_K) single head: law + support + pdf (median)", statistics.median(times),
        statistics.median(floors), "the floor", 2e-3)
    # a grid line (a sweep's neighbours): the classification carried over point to point
    line = []
    for beta in np.linspace(0.5, 1.5, points):
        t, law = _timed(lambda: _single(attention_law, float(beta), 1.0))
        line.append(t)
    row("  the same along a β line at γ_K = 1 (sweep neighbours)", statistics.median(line),
        statistics.median(floors), "the floor", 2e-3)


def _single(attention_law, beta, gk):
    law = attention_law(beta, gk)
    (a, b), *_ = law.support()
    law.pdf(np.array([0.5 * (a + b)]))
    return law


def full_layer(points):
    from freeattn import MHAConfig

    MHAConfig.preset("bert-base").law().support()
    rng = np.random.default_rng(23)
    times, floors = [], []
    for _ in range(points):
        beta = float(rng.uniform(0.5, 1.5))

        def build():
            law = MHAConfig.preset("bert-base", beta=beta).law()
            (a, b), *_ = law.support()
            law.atoms()
            law.pdf(np.array([0.5 * (a + b)]))
            return law

        t, law = _timed(build)
        times.append(t)
        floors.append(_floor(law, law._reduced))
    row("new full-layer point (bert-base, new β) (median)", statistics.median(times),
        statistics.median(floors), "the floor", 5e-3)


# ------------------------------------------------------------------ row 3
def imports():
    def child(code):
        return lambda: subprocess.run([sys.executable, "-c", code], check=True)

    bare = best_of(child("pass"), 5)
    ours = best_of(child("import freeattn"), 5)
    mods = subprocess.run([sys.executable, "-c",
                           "import sys, freeattn; print(' '.join(m for m in ('sympy', 'matplotlib',"
                           " 'scipy.optimize', 'mpmath', 'flint') if m in sys.modules))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    row("import freeattn (fresh interpreter)", ours, bare, "a bare interpreter", 0.15,
        f"loaded: {mods or 'nothing heavy'}")
    first = best_of(child("from freeattn import attention_law; attention_law(1.0, 1.0).pdf(1.0)"), 3)
    row("  first float64 pdf of attention_law(1, 1) (fresh interpreter)", first, bare,
        "a bare interpreter", None, "loads sympy, scipy, mpmath, flint (AlgebraicLaw is sympy-built)")


# ------------------------------------------------------------------ row 4
def exact_moments(quick):
    import sympy as sp

    from freeattn import MHAConfig, attention_law
    from freeattn.algebraic import polynomial, series

    law = attention_law(1.0, 1.0)
    law.exact_moments(2)  # conversions warm
    series._CACHE.clear()
    fresh = attention_law(1.0, 1.0)
    t_new, m50 = _timed(lambda: fresh.moment(50, method="exact"))
    layer = MHAConfig.preset("bert-base").law()
    t_layer, _ = _timed(lambda: layer.moment(50, method="exact"))
    olds = {}
    if not quick:
        for k in (8, 12):
            polynomial._series_moments_cached.cache_clear()
            polynomial._FLINT_CACHE.clear()
            olds[k], _ = _timed(lambda: [sp.expand(m.xreplace(law.values))
                                        for m in polynomial.series_moments(law._factor, k)])
    note = ", ".join(f"old route m1..m{k}: {v:.2f} s" for k, v in olds.items())
    row('moment(50, method="exact"), attention_law(1, 1)', t_new,
        olds.get(12), "old route at k = 12", 1.0, note)
    row('moment(50, method="exact"), bert-base layer', t_layer, olds.get(12),
        "old route at k = 12 (single head)", 1.0)
    assert abs(m50 / law.moment(50) - 1) < 1e-13


# ------------------------------------------------------------------ row 5
def _old_cauchy(self, z):
    z = np.asarray(z, dtype=complex)
    out = np.empty(z.shape, dtype=complex)
    step = max(1, (1 << 20) // self.points.size)
    for i in range(0, z.size, step):
        diff = z[i:i + step, None] - self.points[None, :]
        hit = np.any(diff == 0, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[i:i + step] = (self.weights[None, :] / diff).sum(axis=1)
        out[i:i + step][hit] = complex(np.inf, 0)
    return out


def _old_cauchy_derivative(self, z):
    z = np.asarray(z, dtype=complex)
    out = np.empty(z.shape, dtype=complex)
    step = max(1, (1 << 20) // self.points.size)
    for i in range(0, z.size, step):
        diff = z[i:i + step, None] - self.points[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            out[i:i + step] = -(self.weights[None, :] / diff**2).sum(axis=1)
    return out


def empirical(quick):
    from freeattn import Empirical, compound_free_poisson
    from freeattn.laws.discrete import Discrete

    rng = np.random.default_rng(0)
    x = rng.standard_normal(1000) ** 2

    def build(samples):
        law = compound_free_poisson(Empirical(samples), 2)
        law.support()
        law.atoms()
        return law

    t_new, law = _timed(lambda: build(x))
    t_old = None
    if not quick:
        new_c, new_d = Discrete._cauchy_float, Discrete._cauchy_derivative_float
        Discrete._cauchy_float, Discrete._cauchy_derivative_float = _old_cauchy, _old_cauchy_derivative
        try:
            t_old, old = _timed(lambda: build(x))
        finally:
            Discrete._cauchy_float, Discrete._cauchy_derivative_float = new_c, new_d
        assert np.allclose(np.ravel(law.support()), np.ravel(old.support()), rtol=1e-10)
    row("compound_free_poisson(Empirical(1000), 2) build", t_new, t_old, "the old G, G′", 0.3)
    if not quick:
        big = rng.standard_normal(100_000) ** 2
        t_big, _ = _timed(lambda: build(big))
        row("compound_free_poisson(Empirical(1e5), 2) build", t_big, t_old,
            "the old 1000-sample build", 3.0)


# ------------------------------------------------------------------ row 6
def precision():
    from freeattn import attention_law

    law = attention_law(1.0, 1.0)
    law.cdf(3.0), law.ppf(0.3)
    t_f = best_of(lambda: (law.cdf(3.0), law.ppf(0.3)), 5) / 2
    t_c, _ = _timed(lambda: law.cdf(3.0, dps=30))
    t_p, _ = _timed(lambda: law.ppf(0.3, dps=30))
    row("30-digit cdf(3.0), attention_law(1, 1)", t_c, t_f, "float64", 0.03)
    row("30-digit ppf(0.3), attention_law(1, 1)", t_p, t_f, "float64", 0.03)


# ------------------------------------------------------------------ row 7
def bert_layer(beta, heads):
    """bert-base widths (n = 512, d = d_O = 768, d_K = d_V = 64), h heads, K/V heads = h."""
    from freeattn import MHAConfig

    return MHAConfig.preset("bert-base", beta=beta, heads=heads, kv_heads=heads).law()


def grids(n_single, n_bert):
    """Row 7 on the batch route (sweep(route="batch")): a reduced grid, extrapolated
    linearly to 10^4 points, in one process and over workers=2 (the batch split into two
    chunks of the grid order), with the number of points that fell back to their own law
    and the per-point time against the points route (route="points", workers=1) on a few
    points of the same grid, measured in this run."""
    from freeattn import attention_law, sweep

    attention_law(1.0, 1.0).support()
    side = int(round(n_single ** 0.5))
    betas = np.linspace(0.3, 2.0, side)
    gks = np.exp(np.linspace(np.log(0.2), np.log(5.0), side))
    kw = dict(moments=4, x=np.linspace(0.01, 10, 100), progress=False)
    t_pts, _ = _timed(lambda: sweep(attention_law, beta=betas[::max(1, side // 4)][:4],
                                    gamma_k=gks[::max(1, side // 4)][:4], route="points", **kw))
    per_pts = t_pts / 16
    npts = side * side
    for workers in (1, 2):
        c0 = _cpu()
        t, res = _timed(lambda: sweep(attention_law, beta=betas, gamma_k=gks, route="batch",
                                      workers=workers, **kw))
        cpu = _cpu() - c0
        row(f"10^4 single-head points (batch, workers={workers}, measured {npts}, extrapolated)",
            t * 1e4 / npts, None, "", 20.0,
            f"measured {t:.2f} s for {npts} points ({t / npts * 1e3:.2f} ms a point, "
            f"{per_pts / (t / npts):.1f} x faster than the points route's "
            f"{per_pts * 1e3:.1f} ms), CPU {cpu:.2f} s, {int(res.fallback.sum())} fell back")
    bert_layer(1.0, 12).support()
    nb = max(1, int(round(n_bert ** 0.5)))
    bb = np.linspace(0.5, 1.5, nb)
    hh = np.unique(np.linspace(1, 100, nb).astype(int)).tolist()
    kw = dict(moments=2, x=np.linspace(0.01, 20, 50), progress=False)
    t_pts, _ = _timed(lambda: sweep(bert_layer, beta=bb[::max(1, nb // 2)][:2],
                                    heads=hh[::max(1, len(hh) // 2)][:2], route="points", **kw))
    per_pts = t_pts / 4
    for workers in (1, 2):
        c0 = _cpu()
        t, res = _timed(lambda: sweep(bert_layer, beta=bb, heads=hh, route="batch",
                                      workers=workers, **kw))
        cpu = _cpu() - c0
        npts = int(np.prod(res.shape))
        reasons = sorted({r.split(" np.")[0].split(":")[0] for r in res.fallback_reason.values()})
        row(f"100 x 100 (β, h) bert-base map (batch, workers={workers}, measured {npts}, "
            "extrapolated)", t * 1e4 / npts, None, "", 60.0,
            f"measured {t:.2f} s for {npts} points ({t / npts * 1e3:.1f} ms a point, "
            f"{per_pts / (t / npts):.1f} x faster than the points route's "
            f"{per_pts * 1e3:.0f} ms), CPU {cpu:.2f} s, pencil: {bool(res.pencil.all())}, "
            f"{int(res.fallback.sum())} fell back ({'; '.join(reasons)})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip the slow old-route baselines")
    ap.add_argument("--points", type=int, default=15, help="random points of rows 1 and 2")
    ap.add_argument("--map-points", type=int, default=None,
                    help="points of row 7's reduced bert-base map (default 100, --quick 36)")
    ap.add_argument("--rows", default="1,2,3,4,5,6,7",
                    help="comma-separated rows to run (e.g. 1,2,7)")
    args = ap.parse_args()
    rows = {int(r) for r in args.rows.split(",") if r.strip()}
    print(f"{'row':58s} {'time':>14s}  {'ratio to floor / baseline':32s} target")
    runs = {1: lambda: single_head(args.points),
            2: lambda: full_layer(max(3, args.points // 3)),
            3: imports,
            4: lambda: exact_moments(args.quick),
            5: lambda: empirical(args.quick),
            6: precision,
            7: lambda: grids(900 if args.quick else 2500,
                             args.map_points or (36 if args.quick else 100))}
    for k in sorted(rows):
        runs[k]()


if __name__ == "__main__":
    main()
