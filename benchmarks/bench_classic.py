"""Float64 speed of the classic laws' cdf / sf / ppf (issue 21 items 1, 2, 6), against a
floor measured in the same run.

    python benchmarks/bench_classic.py [points]       (default 1e6; make bench)

cdf and sf on ``points`` points, ppf on a tenth of them (the floor: the closed-form cdf on all).

The laws' cdf and sf are computed from the nearer end of the support in long double and
rounded once (monotone to the ulp, full relative accuracy in both tails: freeattn/laws/_closed.py);
ppf inverts that cdf exactly on the doubles.  The floor is the plain float64 closed form of the
same cdf on the same array (no monotone guarantee, relative accuracy lost next to the upper
end): Semicircle F = (ψ − sin ψ)/(2π), ψ = 4 asin √w; Marchenko–Pastur / free Poisson
F = [(1 + y)θ + 2√y sin θ − 2|1 − y| atan(√(b/a) tan(θ/2))]/(2πy), θ = 2 asin √w, with
w = (x − a)/(b − a).  Each row prints the time of the warm law call, the floor's, and their
ratio (calls interleaved: the same drift of a shared machine for both).
"""
from __future__ import annotations

import sys

import numpy as np
from _timing import best_of_interleaved  # benchmarks/ is on sys.path when run as a script


def _floor_semicircle(r):
    def cdf(x):
        w = np.clip((x + r) / (2 * r), 0.0, 1.0)
        psi = 4 * np.arcsin(np.sqrt(w))
        return (psi - np.sin(psi)) / (2 * np.pi)
    return cdf


def _floor_mp(y, s):
    ry = np.sqrt(y)
    a, b = s * (1 - ry) ** 2, s * (1 + ry) ** 2
    atom = max(1 - 1 / y, 0.0)

    def cdf(x):
        w = np.clip((x - a) / (b - a), 0.0, 1.0)
        th = 2 * np.arcsin(np.sqrt(w))
        val = (1 + y) * th + 2 * ry * np.sin(th) - 2 * abs(1 - y) * np.arctan(np.sqrt(b / a) * np.tan(th / 2))
        return atom + val / (2 * np.pi * y)
    return cdf


def main(n=1_000_000):
    from freeattn import FreePoisson, MarchenkoPastur, Semicircle

    cases = (("MarchenkoPastur(0.5)", MarchenkoPastur(0.5), _floor_mp(0.5, 1.0)),
             ("Semicircle(1)", Semicircle(1.0), _floor_semicircle(2.0)),
             ("FreePoisson(3)", FreePoisson(3.0), _floor_mp(1 / 3, 3.0)))
    rows = []
    rng = np.random.default_rng(0)
    for name, law, floor in cases:
        (a, b), = law.support()
        x = rng.uniform(a, b, n)
        q = rng.uniform(0.0, 1.0, n)
        # the floor is the closed form it claims to be (a check that can fail)
        np.testing.assert_allclose(floor(x), law.cdf(x), rtol=0, atol=1e-12)
        m = max(n // 10, 1)
        for what, k, fn in (("cdf", n, lambda: law.cdf(x)), ("sf", n, lambda: law.sf(x)),
                            ("ppf", m, lambda: law.ppf(q[:m]))):
            fn()  # warm
            t, t_floor = best_of_interleaved([fn, lambda: floor(x)], 3)
            rows.append((f"{name} {what}, {k:g} points", t, t_floor))
    width = max(len(r[0]) for r in rows)
    for label, t, t_floor in rows:
        print(f"{label:<{width}}  {t:8.3f} s  float64 closed-form cdf floor {t_floor:7.3f} s  "
              f"ratio {t / t_floor:6.1f}x")


if __name__ == "__main__":
    main(int(float(sys.argv[1])) if len(sys.argv) > 1 else 1_000_000)
