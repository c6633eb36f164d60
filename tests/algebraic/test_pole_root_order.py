"""An atom touching the support where u = (z − a)G − mass ~ δ^{1/k}, k > 2 (MP(y)^⊠t
with y > 1: the atom 1 − 1/y at 0, the density ~ δ^{-(t−1)/t}: δ^{-2/3}, δ^{-3/4},
δ^{-4/5}).  Issue 21's slow sweep, kind N3: a RecursionError in the pole expansion's
power-law continuation (its probes recursed), then a quadratic Newton seed with no root (no
u² term) and the wrong one of k roots.  References: the subordination route (an independent
solver), the closed-form moments m₂ = 1 + t·y, the exact atom, the dps=40 route."""
import math

import numpy as np
import pytest

from freeattn import MarchenkoPastur, free_multiplicative_power

CASES = [(3.875, 3), (1.5, 4), (6.0, 5)]


@pytest.mark.parametrize("y, t", CASES)
def test_builds_with_the_exact_atom_and_moments(y, t):
    law = free_multiplicative_power(MarchenkoPastur(y), t, method="algebraic")
    (a, b), = law.support()
    assert a == 0.0
    (loc, mass), = law.atoms()
    assert loc == 0.0 and mass == pytest.approx(1 - 1 / y, rel=1e-15)
    assert law.moment(1) == pytest.approx(1.0, rel=1e-12)
    assert law.moment(2) == pytest.approx(1 + t * y, rel=1e-12)


@pytest.mark.parametrize("y, t", CASES)
def test_density_against_subordination(y, t):
    law = free_multiplicative_power(MarchenkoPastur(y), t, method="algebraic")
    ref = free_multiplicative_power(MarchenkoPastur(y), t, method="subordination")
    x = np.array([1e-12, 1e-8, 1e-4, 0.1, 1.0, 3.0])
    assert np.max(np.abs(law.pdf(x) / ref.pdf(x) - 1)) < 1e-9
    # the cdf against the 30-digit route (subordination is ~5e-12 off next to the δ^{-4/5}
    # end of MP(6)^⊠5, within its route tolerance)
    for x in (1e-6, 1.0):
        assert law.cdf(x) == pytest.approx(float(law.cdf(x, dps=30)), abs=3e-13)
        assert law.cdf(x) == pytest.approx(ref.cdf(x), abs=1e-10)


def test_power_law_down_to_1e_300():
    # ρ(δ)·δ^{2/3} tends to a constant (u ∝ δ^{1/3}); the float64 rows' δ⁴ underflowed below
    # δ ~ 1e-77 (density 0 at 1e-100); each value also against dps=40
    law = free_multiplicative_power(MarchenkoPastur(3.875), 3, method="algebraic")
    c = [law.pdf(d) * d ** (2 / 3) for d in (1e-60, 1e-100, 1e-200, 1e-300)]
    assert np.ptp(c) / c[0] < 1e-12
    for d in (1e-8, 1e-30, 1e-300):
        assert law.pdf(d) == pytest.approx(float(law.pdf(d, dps=40)), rel=1e-14)


def test_dps_cdf_next_to_the_atom():
    # the 25-digit cdf lost 2.6e-14 in the nodes next to the atom (Newton on P itself there)
    law = free_multiplicative_power(MarchenkoPastur(3.875), 3, method="algebraic")
    import mpmath
    c25, c40 = law.cdf(0.5, dps=25), law.cdf(0.5, dps=40)
    assert abs(c25 - c40) < mpmath.mpf(10) ** -24
    # cdf(δ) − atom = ∫₀^δ ρ ≈ 3·ρ(δ)·δ for ρ ∝ δ^{-2/3}
    d = mpmath.mpf("1e-30")
    rest = law.cdf(d, dps=30) - mpmath.mpf(23) / 31
    assert float(rest) == pytest.approx(3 * law.pdf(1e-30) * 1e-30, rel=1e-9)
    assert math.isfinite(float(rest))


def test_repeated_segment_root_at_zero():
    # MP(1/4)^⊠3: a Newton-polygon segment at z = 0 with a repeated root that no root finder
    # isolates (mpmath's NoConvergence escaped from the Puiseux levels, boxtimes_power_alg-36);
    # now the law builds (no nested data there) and G near the left edge agrees with the
    # subordination route
    law = free_multiplicative_power(MarchenkoPastur(0.25), 3, method="algebraic")
    ref = free_multiplicative_power(MarchenkoPastur(0.25), 3, method="subordination")
    (a, b), = law.support()
    assert law.atoms() == []
    assert law.moment(2) == pytest.approx(1.75, rel=1e-12)
    zq = 1e-3 + 1e-9j
    assert abs(law.cauchy_transform(zq) - ref.cauchy_transform(zq)) <= 1e-12 * abs(ref.cauchy_transform(zq))
    x = np.linspace(a, b, 9)[1:-1]
    assert np.max(np.abs(law.pdf(x) / ref.pdf(x) - 1)) < 1e-9
