"""The θ-integrand of the cdf next to a hard end at 0 where δ = (b − a)·sin²(θ/2) is
subnormal or underflows to 0 (θ ≲ 1e-154; kind N14, issue 21).

At a hard edge ρ(x) ~ |C|/π · x^{-1/2}, so f(θ) = ρ·(b − a)/2·sin θ tends to the constant
|C|·√(b − a)/π as θ → 0.  References independent of the real-axis table route:
- MarchenkoPastur(1): the closed form ρ = √((4 − x)x)/(2πx), f(0+) = 2/π;
- attention_law(0.05, 1, 1): C = lim G(z)·√z on the upper imaginary axis (the float route
  off the axis, z = i·1e-20, where the next Puiseux term is ~1e-8 relative).
The attention law has no Puiseux data at 0 (its match points i·1e-4, i·1e-5 lie outside
the zone where G·√z has settled: G·√z = 9.7 − 29i at i·1e-4, −105.40i at i·1e-14), so
points with subnormal δ take the general float route: f(1e-160) = 4.2478 (δ keeps few
bits), f(1e-170) = 0 via the end b's expansion (δ = 0 reads as "next to b"), and the
RuntimeWarning of test_properties_large[attention(0.05, 1.0, 1)].  Strict xfail until the
Puiseux data exists there.
"""
import math
import warnings

import numpy as np
import pytest

from freeattn import MarchenkoPastur, attention_law

THETAS = np.array([1e-170, 1e-160, 1e-150, 1e-100])


def _hard_end_table(law):
    law.cdf(1e-3)
    return next(t for t in law._tables if t["a"] == 0)


def test_mp1_integrand_limit_at_subnormal_delta():
    law = MarchenkoPastur(1)
    t = _hard_end_table(law)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = law._theta_integrand(t, THETAS)
    assert f == pytest.approx(np.full(THETAS.size, 2 / math.pi), rel=1e-12)


@pytest.mark.xfail(strict=True, reason="N14: no Puiseux data at 0 for this law; subnormal δ "
                   "takes the float route (0 at θ=1e-170, 4.2478 at 1e-160, a log(0) warning)")
def test_attention_integrand_limit_at_subnormal_delta():
    law = attention_law(0.05, 1.0, 1)
    t = _hard_end_table(law)
    z = 1j * 1e-20
    c = law._cauchy_upper(np.array([z]))[0] * np.sqrt(z)
    limit = abs(c) * math.sqrt(t["b"] - t["a"]) / math.pi
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = law._theta_integrand(t, THETAS)
    assert f == pytest.approx(np.full(THETAS.size, limit), rel=1e-6)
