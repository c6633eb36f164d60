"""Compound free Poisson laws at rates within 1e-12 of 1 (issue 21, item 13), subordination
route: at t < 1 an atom 1 − t at 0 (1e-12), at t > 1 none, the support starting (1 − √t)² ~
2.5e-25 from 0; the route raised "did not converge" at t = 1 + 1e-12."""
import mpmath
import numpy as np
import pytest

from freeattn import Discrete, compound_free_poisson


def _free_poisson_cdf(t, x):
    """π_t((−∞, x]) from the closed-form density, 30-digit quadrature (independent)."""
    with mpmath.workdps(30):
        tt = mpmath.mpf(t)
        a, b = (1 - mpmath.sqrt(tt)) ** 2, (1 + mpmath.sqrt(tt)) ** 2

        def rho(u):
            return mpmath.sqrt((b - u) * (u - a)) / (2 * mpmath.pi * u)

        pts = [a] + [p for p in (10 * a, 1e-20, 1e-12, 1e-8, 1e-4) if a < p < x] + [x]
        return float(max(1 - tt, 0) + mpmath.quad(rho, pts))


@pytest.mark.parametrize("t", [1 - 1e-12, 1 + 1e-12])
def test_rate_next_to_one(t):
    law = compound_free_poisson(Discrete([1.0]), t)
    atoms = law.atoms()
    if t < 1:
        assert len(atoms) == 1 and atoms[0][0] == 0
        assert atoms[0][1] == pytest.approx(1 - t, rel=1e-12)  # 9.9998e-13
    else:
        assert atoms == []
    assert law.cdf(1.0) == pytest.approx(_free_poisson_cdf(t, 1.0), rel=0, abs=2e-15)
    if t < 1:
        assert law.cdf(1.0) == pytest.approx(0.60899778104456268, rel=0, abs=2e-15)
    for x in (1e-6, 0.5, 3.9):
        assert law.cdf(x) == pytest.approx(_free_poisson_cdf(t, x), rel=2e-11, abs=1e-15)


def test_two_point_jumps_continuous_in_the_rate():
    """Second instance: jumps {2, 3}; the laws at t = 1 − 1e-12, 1, 1 + 1e-12 agree to O(1e-12)
    (mass 1 each, the atom 1 − t only below 1)."""
    mu = Discrete([2.0, 3.0], [0.5, 0.5])
    x = np.array([0.5, 2.0, 5.0, 9.0])
    laws = [compound_free_poisson(mu, t) for t in (1 - 1e-12, 1.0, 1 + 1e-12)]
    assert [len(law.atoms()) for law in laws] == [1, 0, 0]
    ref = laws[1].cdf(x)
    for law in (laws[0], laws[2]):
        np.testing.assert_allclose(law.cdf(x), ref, rtol=0, atol=1e-10)
        assert law.cdf(20.0) == 1.0
