"""High-precision and closed-form speed of the algebraic engine, with baselines in the same run.

    python benchmarks/bench_precision.py

Rows (targets from issues 7 and 11):
1. first 50 moments (float64 and dps=30) by the numeric series recursion on P(G, z), against
   the exact expansion (``exact_moments``, FLINT when available) of the first 8 (baseline,
   cache cleared);
2. a 50-digit pdf value (warm law) against mpmath.polyroots of P(·, x) (baseline);
3. a 30-digit cdf value and a 30-digit quantile of attention_law(1, 1) (target < 1 s);
4. a 30-digit right edge of a new attention law whose structure is already eliminated;
5. closed-form float64 pdf / G / cdf of MarchenkoPastur(0.5) against the general algebraic
   route on the same law (points/s and ratio).
"""
from __future__ import annotations

import time

import mpmath
import numpy as np
from _timing import best_of  # benchmarks/ is on sys.path when run as a script


def _t(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main():
    import sympy as sp

    from freeattn import AlgebraicLaw, MarchenkoPastur, attention_law
    from freeattn.algebraic import polynomial
    from freeattn.algebraic.polynomial import G, z

    law = attention_law(1.0, 1.0)
    law.support()
    rows = []

    # 1. moments
    for name, make in (("MarchenkoPastur(0.5)", lambda: MarchenkoPastur(0.5)),
                       ("attention_law(1, 1)", lambda: attention_law(1.0, 1.0))):
        lw = make()
        t_f, _ = _t(lambda: [lw.moment(k) for k in range(1, 51)])
        t_m, _ = _t(lambda: [lw.moment(k, dps=30) for k in range(1, 51)])
        polynomial._series_moments_cached.cache_clear()
        lw2 = make()
        t_base, _ = _t(lambda: lw2.exact_moments(8))
        rows.append((f"{name}: first 50 moments float64", t_f, f"target < 1 s; exact m1..m8: {t_base:.2f} s"))
        rows.append((f"{name}: first 50 moments dps=30", t_m, ""))

    # 2. 50-digit pdf
    a, b = law.support()[0]
    xs = [a + (b - a) * f for f in (0.13, 0.37, 0.61, 0.89)]
    law.pdf(xs[0], dps=50)  # warm: 50-digit breakpoints
    t_ours = best_of(lambda: [law.pdf(x, dps=50) for x in xs], 3) / len(xs)

    def baseline():
        with mpmath.workdps(60):
            for x in xs:
                coeffs = law._num.coeffs_at_mp(mpmath.mpf(x))
                r = mpmath.polyroots(coeffs, maxsteps=200, extraprec=20)
                -min(mpmath.im(v) for v in r) / mpmath.pi

    t_base = best_of(baseline, 3) / len(xs)
    rows.append(("attention_law(1, 1): pdf at dps=50 (warm)", t_ours,
                 f"target < 0.2 s; polyroots baseline {t_base:.4f} s, ratio {t_base / t_ours:.1f}x"))

    # 3. 30-digit cdf and ppf
    t_c, _ = _t(lambda: law.cdf(3.0, dps=30))
    rows.append(("attention_law(1, 1): cdf(3.0, dps=30)", t_c, "target < 1 s"))
    t_c2, _ = _t(lambda: law.cdf(7.5, dps=30))
    rows.append(("attention_law(1, 1): cdf(7.5, dps=30)", t_c2, "target < 1 s"))
    t_p, _ = _t(lambda: law._ppf_mp(0.3, 30))
    rows.append(("attention_law(1, 1): ppf(0.3, dps=30)", t_p, ""))

    # 4. 30-digit edge of a new law of an eliminated structure
    t_e, _ = _t(lambda: attention_law(1.3, 0.7).support(dps=30))
    rows.append(("attention_law(1.3, 0.7): support(dps=30), new law", t_e, "target < 1 s"))

    # 5. closed forms vs the algebraic route
    mp_closed = MarchenkoPastur(0.5)
    y = sp.Rational(1, 2)
    mp_alg = AlgebraicLaw(y * z * G**2 + (1 - y - z) * G + 1)
    a, b = mp_closed.support()[0]
    x = np.linspace(a - 0.1, b + 0.1, 200_000)
    zc = x + 0.3j
    for what, f_c, f_a in (("pdf", lambda: mp_closed.pdf(x), lambda: mp_alg.pdf(x)),
                           ("G on x + 0.3i", lambda: mp_closed.cauchy_transform(zc),
                            lambda: mp_alg.cauchy_transform(zc)),
                           ("cdf", lambda: mp_closed.cdf(x), lambda: mp_alg.cdf(x))):
        f_c()
        f_a()
        tc = best_of(f_c, 3)
        ta = best_of(f_a, 3)
        rows.append((f"MarchenkoPastur(0.5) {what}: closed form", tc,
                     f"{x.size / tc:.3g} points/s; algebraic route {x.size / ta:.3g} points/s, "
                     f"ratio {ta / tc:.1f}x"))

    width = max(len(r[0]) for r in rows)
    for label, t, note in rows:
        print(f"{label:<{width}}  {t:8.3f} s  {note}")


if __name__ == "__main__":
    main()
