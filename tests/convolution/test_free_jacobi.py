"""Free Jacobi laws: products of free projections by subordination (issue 21, item 11).

p ⊠ q for free projections of traces α, β (the law of pqp): atoms max(1 − α, 1 − β) at 0 and
max(0, α + β − 1) at 1, density sqrt((x − λ₋)(λ₊ − x))/(2π x(1 − x)) on [λ₋, λ₊],
λ± = α + β − 2αβ ± 2 sqrt(αβ(1 − α)(1 − β)) (Voiculescu; Nica & Speicher 2006, Example
14.5).  α = β = 1/2: atom 1/2 at 0 and the arcsine density 1/(2π sqrt(x(1 − x))) on (0, 1),
whose hard edge at 0 sits under the atom (the float64 system lost the density below x ~ 1e-30,
where the cdf's graded panels evaluate it: "did not converge").
"""
import math

import mpmath
import numpy as np
import pytest

from freeattn import Discrete, free_multiplicative_convolution


@pytest.fixture(scope="module")
def half():
    return free_multiplicative_convolution(Discrete([0, 1]), Discrete([0, 1]))


def test_product_of_two_half_projections(half):
    assert half.atoms() == [(0.0, 0.5)]
    assert half.support() == [(0.0, 1.0)]
    x = np.array([1e-40, 1e-30, 1e-20, 1e-9, 1e-3, 0.25, 0.5, 0.9, 1 - 1e-5])
    exact = 1 / (2 * np.pi * np.sqrt(x * (1 - x)))
    np.testing.assert_allclose(half.pdf(x), exact, rtol=2e-12)
    # cdf = 1/2 + arcsin(√x)/π, sf = arcsin(√(1 − x))/π (1 − x exact for these x)
    np.testing.assert_allclose(half.cdf(x), 0.5 + np.arcsin(np.sqrt(x)) / np.pi,
                               rtol=0, atol=1e-10)
    bulk = x <= 0.9  # next to the hard edge at 1 (μ{1} + ν{1} = 1) the on-axis density is
    # ill-conditioned (7e-3 off at 5e-15 from it, issue 21 item 19): sf there to 1e-9 absolute
    np.testing.assert_allclose(half.sf(x[bulk]), np.arcsin(np.sqrt(1 - x[bulk])) / np.pi,
                               rtol=1e-10)
    np.testing.assert_allclose(half.sf(x), np.arcsin(np.sqrt(1 - x)) / np.pi, rtol=0, atol=1e-10)
    q = np.array([0.3, 0.49, 0.6, 0.75, 0.9, 0.999])
    # ppf: the atom for q ≤ 1/2, else sin²(π(q − 1/2))
    expect = np.where(q <= 0.5, 0.0, np.sin(np.pi * (q - 0.5)) ** 2)
    np.testing.assert_allclose(half.ppf(q), expect, rtol=1e-9)


def test_cdf_at_30_digits(half):
    """cdf(1/4) = 1/2 + arcsin(1/2)/π = 2/3."""
    v = half.cdf(mpmath.mpf(1) / 4, dps=30)
    with mpmath.workdps(40):
        assert abs(v - mpmath.mpf(2) / 3) < mpmath.mpf(10) ** -29


def test_product_of_projections_of_traces_half_and_quarter():
    """Second instance: α = 1/2, β = 1/4: atom 3/4 at 0, density on [λ₋, λ₊] (no hard edge)."""
    law = free_multiplicative_convolution(Discrete([0, 1], [0.5, 0.5]),
                                          Discrete([0, 1], [0.75, 0.25]))
    r = 2 * math.sqrt(0.5 * 0.25 * 0.5 * 0.75)
    lm, lp = 0.5 - r, 0.5 + r
    assert law.atoms() == [(0.0, 0.75)]
    (a, b), = law.support()
    assert abs(a - lm) < 1e-15 and abs(b - lp) < 1e-15
    x = np.linspace(lm, lp, 9)[1:-1]
    np.testing.assert_allclose(law.pdf(x), np.sqrt((x - lm) * (lp - x)) / (2 * np.pi * x * (1 - x)),
                               rtol=1e-12)

    def rho(t):
        return mpmath.sqrt((t - lm) * (lp - t)) / (2 * mpmath.pi * t * (1 - t))

    ref = [0.75 + float(mpmath.quad(rho, [lm, v])) for v in x]
    np.testing.assert_allclose(law.cdf(x), ref, rtol=0, atol=1e-13)
