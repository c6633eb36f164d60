"""Benchmarks of the readout predictions (issue 10), each with a baseline in the same run.

    python benchmarks/bench_readout.py

1. a 100-point training-loss curve L(t) = ∫ e^{−2tx} dν, t log-spaced on [0.1, 100], for the
   Fig. 3(a) law (h = 64, γ_K = γ_V = 1, γ_O = 2) through the scalar equation (5.4) and
   Gaver–Stehfest inversion of (C.31) (48 terms; target < 2 s); baseline: the same curve by
   fixed Talbot inversion (the second method the issue asks to agree).
2. a 200-point ridge-error curve E_λ, λ log-spaced on [1e-4, 10], for the Fig. 2(d) law
   (h = 96, γ_K = γ_V = γ_O = 1.5) through (5.4) + (5.2) (target < 0.5 s); baseline: the
   same curve for the attention law by quadrature of (5.1) against its density (warm law).
"""
from __future__ import annotations

import sys
import time

import numpy as np
from _timing import best_of  # benchmarks/ is on sys.path when run as a script


def main():
    import sympy as sp

    from freeattn import attention_law
    from freeattn.readout import IndependentKV, ridge_error, training_loss

    law = IndependentKV(1.0, 1.0, 64, 1.0, 2.0)
    t = np.geomspace(0.1, 100, 100)
    t_st = best_of(lambda: training_loss(law, t, method="stehfest"), 3)
    t_ta = best_of(lambda: training_loss(law, t, method="talbot"), 1)
    diff = np.max(np.abs(training_loss(law, t) - training_loss(law, t, method="talbot")))
    print(f"1. 100-point training-loss curve, (5.4) + Stehfest 48: {t_st:.3f} s "
          f"(target < 2 s: {'met' if t_st < 2 else 'NOT met'})")
    print(f"   baseline Talbot: {t_ta:.3f} s; Talbot/Stehfest = {t_ta / t_st:.2f}; "
          f"max |difference| = {diff:.1e}")

    ridge = IndependentKV(1.0, 1.5, 96, 1.5, 1.5)
    lam = np.geomspace(1e-4, 10, 200)
    t_r = best_of(lambda: ridge_error(ridge, lam, 0.1, 1.5), 5)
    t0 = time.perf_counter()
    att = attention_law(1.0, 0.5, 32).dilate(1 / (sp.E - 1))
    att_s = IndependentKV(1.0, 0.5, 32)
    ridge_error(att, lam, 0.1, 1.5, method="quadrature")  # warm: support, pdf tables
    t_build = time.perf_counter() - t0
    t_q = best_of(lambda: ridge_error(att, lam, 0.1, 1.5, method="quadrature"), 3)
    t_s = best_of(lambda: ridge_error(att_s, lam, 0.1, 1.5), 5)
    d = np.max(np.abs(ridge_error(att, lam, 0.1, 1.5, method="quadrature")
                      - ridge_error(att_s, lam, 0.1, 1.5)))
    print(f"2. 200-point ridge-error curve, (5.4) + (5.2), full layer: {t_r:.4f} s "
          f"(target < 0.5 s: {'met' if t_r < 0.5 else 'NOT met'})")
    print(f"   baseline, attention law: (5.4) {t_s:.4f} s vs quadrature of (5.1) on the "
          f"warm law {t_q:.4f} s (quadrature/scalar = {t_q / t_s:.2f}; the law's build and density "
          f"tables took {t_build:.1f} s first); max |difference| = {d:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
