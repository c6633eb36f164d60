"""Residual-stream law: cold build time and density throughput, against floors in the same run.

    python benchmarks/bench_residual.py [--preset bert-base] [--alpha 1] [--points 100000]

Targets (issue 17): the residual law of a preset built in ≤ 1 s cold (``residual_law`` plus
its support: the MHA law, the subordination scan and the edges), its pdf ≥ 1e5 points/s.
Baselines measured in the same run: the MHA law of the same preset built cold (the floor of
any law built on it), and its own pdf throughput (the algebraic law the residual law calls).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from _timing import best_of  # benchmarks/ is on sys.path when run as a script


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="bert-base")
    ap.add_argument("--alpha", type=float, default=1.0)
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    from freeattn import MHAConfig
    from freeattn.attention.residual import residual_law

    t0 = time.perf_counter()
    cfg = MHAConfig.preset(args.preset)
    mha = cfg.law("mha")
    mha.support()
    t_mha = time.perf_counter() - t0

    t0 = time.perf_counter()
    law = residual_law(cfg, args.alpha)
    (a, b), = law.support()
    law.pdf(np.array([(a + b) / 2]))  # on-axis warm-start tables
    t_cold = time.perf_counter() - t0

    x = np.linspace(a, b, args.points + 2)[1:-1]
    t_pdf = best_of(lambda: law.pdf(x), args.repeat)
    (ma, mb), = mha.support()
    xm = np.linspace(ma, mb, args.points + 2)[1:-1]
    t_mha_pdf = best_of(lambda: mha.pdf(xm), args.repeat)
    rate, mha_rate = x.size / t_pdf, xm.size / t_mha_pdf
    print(f"law: {law.name}")
    print(f"support [{a:.12g}, {b:.12g}], mass {law.total_mass():.15f}")
    print(f"cold build (law + support + tables): {t_cold:.3f} s   (target <= 1 s: "
          f"{'met' if t_cold <= 1 else 'NOT met'}; baseline MHA law cold {t_mha:.3f} s, "
          f"ratio {t_cold / t_mha:.1f})")
    print(f"pdf on {x.size} points: {rate:,.0f} points/s   (target >= 1e5: "
          f"{'met' if rate >= 1e5 else 'NOT met'}; baseline MHA law pdf {mha_rate:,.0f} "
          f"points/s, ratio {rate / mha_rate:.2f})")


if __name__ == "__main__":
    main()
