"""Benchmarks of the law core, each reported as a ratio against a baseline in the same run.

    python benchmarks/run.py            (or: make bench)

1. pdf of attention_law(1, 1) on a 2000-point grid in float64 (warm law): points/s, and the
   ratio against rooting P(G, x) point by point with numpy.roots (baseline, same branch rule).
2. a 30-digit right edge of attention_law(1, 1): time from a fresh law (sympy elimination +
   discriminant + mpmath roots), and from a law whose polynomial is already derived.
"""
from __future__ import annotations

import time

import mpmath
import numpy as np
from _timing import best_of  # benchmarks/ is on sys.path when run as a script


def main():
    from freeattn import attention_law

    t0 = time.perf_counter()
    law = attention_law(1.0, 1.0)  # cold: the sympy elimination of the structure runs here
    cold_edge = law.support(dps=30)[-1][1]
    t_cold = time.perf_counter() - t0
    a, b = law.support()[0]
    x = np.linspace(a, b, 2002)[1:-1]
    law.pdf(x)  # warm: branch tables
    t_ours = best_of(lambda: law.pdf(x), 7)

    cf = law._num.cf

    def baseline():
        out = np.empty(x.size)
        for i, xi in enumerate(x):
            r = np.roots([np.polyval(row, xi) for row in cf])
            out[i] = max(-r.imag.min() / np.pi, 0.0)
        return out

    t_base = best_of(baseline, repeat=3)
    np.testing.assert_allclose(baseline(), law.pdf(x), rtol=1e-8, atol=1e-12)
    print(f"pdf, 2000 points, float64 : {t_ours * 1e3:8.3f} ms  = {x.size / t_ours:,.0f} points/s"
          f"  (target >= 1e5, aim 1e6)")
    print(f"numpy.roots point by point: {t_base * 1e3:8.3f} ms  = {x.size / t_base:,.0f} points/s")
    print(f"speed-up vs numpy.roots   : {t_base / t_ours:8.1f} x  (target >= 20 x)")

    t0 = time.perf_counter()
    fresh = attention_law(1.0, 1.0 + 2**-30)  # new parameters: nothing numeric cached
    edge = fresh.support(dps=30)[-1][1]
    t_fresh = time.perf_counter() - t0
    t0 = time.perf_counter()
    edge50 = fresh.support(dps=50)[-1][1]
    t_edge = time.perf_counter() - t0
    print(f"30-digit right edge, cold start (elimination + edges): {t_cold:6.3f} s: "
          f"{mpmath.nstr(cold_edge, 30)}")
    print(f"30-digit right edge, fresh law: {t_fresh:6.3f} s (target < 1 s): {mpmath.nstr(edge, 30)}")
    print(f"50-digit right edge, law built: {t_edge:6.3f} s: {mpmath.nstr(edge50, 50)}")


if __name__ == "__main__":
    main()
