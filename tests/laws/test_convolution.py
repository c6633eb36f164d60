"""⊠ and compound free Poisson against exact moment formulas and second algorithms."""

import numpy as np
import pytest
import sympy as sp

from freeattn import (FreePoisson, MarchenkoPastur, PointMass, Semicircle,
                      compound_free_poisson, free_multiplicative_convolution)
from freeattn.transforms.cumulants import boxtimes_free_cumulants, moments_from_free_cumulants


def test_fuss_catalan():
    law = free_multiplicative_convolution(MarchenkoPastur(1), MarchenkoPastur(1))
    assert law.exact_moments(5) == [1, 3, 12, 55, 273]
    # the second algorithm: free cumulants of a product through non-crossing partitions
    ones = [sp.Integer(1)] * 5
    assert list(moments_from_free_cumulants(boxtimes_free_cumulants(ones, ones))) == [1, 3, 12, 55, 273]
    a, b = law.support()[0]
    assert a == 0.0 and b == pytest.approx(27 / 4, rel=1e-14)  # Fuss–Catalan edge (s+1)^{s+1}/s^s, s = 2
    assert law.cdf(b + 1) == pytest.approx(1.0, abs=1e-10)


def test_boxtimes_moments_match_cumulant_route():
    mu, nu = MarchenkoPastur(0.5), MarchenkoPastur(sp.Rational(1, 3))
    law = free_multiplicative_convolution(mu, nu)
    km = [sp.Rational(1, 2) ** (q - 1) for q in range(1, 6)]
    kn = [sp.Rational(1, 3) ** (q - 1) for q in range(1, 6)]
    ref = moments_from_free_cumulants(boxtimes_free_cumulants(km, kn))
    assert [sp.nsimplify(m) for m in law.exact_moments(5)] == list(ref)
    # numerical moments by quadrature of the density
    from scipy import integrate
    a, b = law.support()[0]
    for k in (1, 2, 3):
        val, _ = integrate.quad(lambda x: x**k * law.pdf(x), a, b, limit=200, epsrel=1e-12)
        assert val == pytest.approx(float(ref[k - 1]), rel=1e-9)


def test_compound_free_poisson_of_point_mass_is_free_poisson():
    t = 0.7
    law = compound_free_poisson(PointMass(1.0), t)
    ref = FreePoisson(t)
    x = np.linspace(0, 3.5, 71)
    np.testing.assert_allclose(law.pdf(x), ref.pdf(x), rtol=1e-10, atol=1e-13)
    assert law.atoms()[0][1] == pytest.approx(1 - t, abs=1e-12)
    assert law.moment(2) == pytest.approx(t + t**2)   # t m2(δ1) + t² m1(δ1)²


def test_compound_free_poisson_moments():
    mu = MarchenkoPastur(0.5)
    t = 2.0
    law = compound_free_poisson(mu, t)
    assert law.moment(1) == pytest.approx(t * 1.0)
    assert law.moment(2) == pytest.approx(t * 1.5 + t**2 * 1.0)


def test_boxtimes_rejects_signed_laws():
    with pytest.raises(ValueError, match="mu"):
        free_multiplicative_convolution(Semicircle(1.0), MarchenkoPastur(1.0))
    with pytest.raises(ValueError, match="rate"):
        compound_free_poisson(MarchenkoPastur(1.0), -1)
