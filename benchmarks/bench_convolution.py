"""Subordination density throughput and accuracy, against the algebraic route in the same run.

    python benchmarks/bench_convolution.py [--points 10000] [--repeat 5]

Law: Semicircle(1) ⊞ MarchenkoPastur(0.5) (issue 8 target: subordination density
≥ 1e4 points/s at ≤ 1e-10 error).  Both laws are built and warmed first (support, on-axis
warm-start tables); the timed call is ``law.pdf(x)`` on a float64 grid of ``--points`` points
spread over the support (uniform plus graded toward both edges, down to 1e-10 relative).
The error is max |pdf_subordination − pdf_algebraic| over the grid (the algebraic route is
exact to ~1e-15 there); a 30-digit spot check of both is printed too.
"""
from __future__ import annotations

import argparse
import time

import mpmath
import numpy as np
from _timing import best_of_interleaved  # benchmarks/ is on sys.path when run as a script


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    from freeattn import MarchenkoPastur, Semicircle, boxplus

    mu, nu = Semicircle(1), MarchenkoPastur(0.5)
    t0 = time.perf_counter()
    sub = boxplus(mu, nu, method="subordination")
    (a, b), = sub.support()
    sub.pdf(np.array([(a + b) / 2]))  # on-axis warm-start table
    t_sub_cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    alg = boxplus(mu, nu, method="algebraic")
    (a2, b2), = alg.support()
    alg.pdf(np.array([(a2 + b2) / 2]))  # branch tables
    t_alg_cold = time.perf_counter() - t0

    n = args.points
    th = np.linspace(0, np.pi, n // 2 + 2)[1:-1]
    edge = (b - a) * np.geomspace(1e-10, 1e-3, 20)
    x = np.sort(np.concatenate([np.linspace(a, b, n - th.size - 40 + 2)[1:-1],
                                a + (b - a) * np.sin(th / 2) ** 2, a + edge, b - edge]))
    p_sub, p_alg = sub.pdf(x), alg.pdf(x)
    err = float(np.max(np.abs(p_sub - p_alg)))

    def sub_pdf():  # the solves, not the law's memo of densities already asked for
        sub.__dict__.pop("_pdf_memo", None)
        return sub.pdf(x)

    t_sub, t_alg = best_of_interleaved([sub_pdf, lambda: alg.pdf(x)], args.repeat)

    xm = mpmath.mpf(1) / 3
    d30 = abs(sub.pdf(xm, dps=30) - alg.pdf(xm, dps=30))

    print(f"law: {sub.name}, support [{a:.16g}, {b:.16g}]")
    print(f"edges: |subordination − algebraic| = {abs(a - a2):.1e}, {abs(b - b2):.1e}")
    print(f"cold build + warm tables: subordination {t_sub_cold:.2f} s, algebraic {t_alg_cold:.2f} s")
    print(f"pdf on {x.size} points (best of {args.repeat}):")
    print(f"  subordination {x.size / t_sub:12.0f} points/s   max error {err:.1e}"
          f"   (target >= 1e4 points/s at <= 1e-10: "
          f"{'met' if x.size / t_sub >= 1e4 and err <= 1e-10 else 'NOT met'})")
    print(f"  algebraic     {x.size / t_alg:12.0f} points/s")
    print(f"  ratio subordination/algebraic speed: {t_alg / t_sub:.2f}")
    print(f"30-digit pdf at x = 1/3: |subordination − algebraic| = {mpmath.nstr(d30, 3)}")


if __name__ == "__main__":
    main()
