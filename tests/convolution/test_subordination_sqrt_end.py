"""Subordination laws next to a square-root edge (issue 21 item 19's kind; the slow property
suite's ``tails`` check): the on-axis system is ill-conditioned there (its Jacobian is singular
at the edge, so rounding in the density grows like eps·ℓ/δ), and the density below a distance
δ_r/8 comes from the end fit ρ = √δ·exp(c₀ + c₁δ + c₂δ² + c₃δ³) taken at δ_r/8 … δ_r where the
solve is accurate (``SubordinationLaw._end_fit``).

Before: the free cube of an affine semicircle had sf 1e-8 of the width from its right edge
3.8e-6 off (the 30-digit route and the suite's quadrature agree), SC(2.25) ⊞ SC(4) had pdf
8e-5 off at 1e-13 of the width from the edge, FreePoisson(2) ⊞ SC(1) had sf 4e-4 off at 1e-10.
"""
import mpmath
import numpy as np
import pytest

from freeattn import (FreePoisson, Semicircle, free_additive_convolution,
                      free_multiplicative_power)


@pytest.fixture(scope="module")
def sc_sum():
    # variances add: SC(6.25), support [−5, 5] (edges exact doubles)
    return free_additive_convolution(Semicircle(2.25), Semicircle(4.0), method="subordination")


def _sc_density(x):
    x = mpmath.mpf(x)
    return 2 / (25 * mpmath.pi) * mpmath.sqrt(25 - x * x)


@pytest.mark.parametrize("d", [1e-5, 1e-7, 1e-9, 1e-11, 1e-13])
def test_semicircle_sum_density_next_to_the_edge(sc_sum, d):
    assert sc_sum.support() == [(-5.0, 5.0)]
    with mpmath.workdps(40):
        for x in (5.0 - 10 * d, -5.0 + 10 * d):
            right = float(_sc_density(x))
            assert float(sc_sum.pdf(x)) == pytest.approx(right, rel=1e-11, abs=0)


def test_semicircle_sum_tail_masses(sc_sum):
    with mpmath.workdps(40):
        for d in (1e-5, 1e-7):
            x = 5.0 - 10 * d
            right = float(mpmath.quad(_sc_density, [x, 5]))
            assert float(sc_sum.sf(x)) == pytest.approx(right, rel=1e-9, abs=0)
            assert float(sc_sum.cdf(-x)) == pytest.approx(right, rel=1e-9, abs=0)


def test_free_poisson_plus_semicircle_against_the_algebraic_route():
    sub = free_additive_convolution(FreePoisson(2.0), Semicircle(1.0), method="subordination")
    alg = free_additive_convolution(FreePoisson(2.0), Semicircle(1.0), method="algebraic")
    (a, b), = alg.support()
    assert sub.support() == alg.support()  # the same doubles: only sub-ulp rounding differs
    w = b - a
    for d, rtol in ((1e-6, 1e-10), (1e-8, 1e-9)):
        x = b - d * w
        assert float(sub.pdf(x)) == pytest.approx(float(alg.pdf(x)), rel=rtol, abs=0)
        assert float(sub.sf(x)) == pytest.approx(float(alg.sf(x)), rel=rtol, abs=0)


def test_free_power_of_a_shifted_semicircle_deep_tail():
    # the slow property point boxtimes_power_alg-2 (its subordination route)
    law = free_multiplicative_power(Semicircle(1.125).affine(4.0, 1), 3, method="subordination")
    (a, b), = law.support()
    x = b - 1e-5 * (b - a)
    right = law.sf(x, dps=30)
    assert float(law.sf(x)) == pytest.approx(float(right), rel=1e-10, abs=0)
    # 1e-8 of the width from the edge the float64 edge's own rounding (≤ 1 ulp of b, relative
    # 2.4e-8 of the distance there) bounds the relative accuracy of sf (1.5 × that): was 3.8e-6
    x = b - 1e-8 * (b - a)
    right = float(law.sf(x, dps=30))
    assert abs(float(law.sf(x)) / right - 1) < 1.5 * 4 * np.spacing(b) / (b - x)
