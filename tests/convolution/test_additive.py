"""⊞ by both routes: closed-form identities (Done-when of issue 8, item 3)."""
import math

import mpmath
import numpy as np
import pytest

from freeattn import AlgebraicLaw, Semicircle, boxplus, free_additive_convolution
from freeattn.algebraic.polynomial import G, z
from freeattn.convolution.subordination import AdditiveConvolution


def _bernoulli():
    """Symmetric Bernoulli (δ₋₁ + δ₁)/2: G = z/(z² − 1)."""
    return AlgebraicLaw((z**2 - 1) * G - z, name="Bernoulli")


def _near_edges(a, b, n=41):
    """Points inside [a, b], down to 1e-8 (relative) from both edges."""
    d = (b - a) * np.array([1e-8, 1e-6, 1e-4, 1e-2])
    return np.concatenate([a + d, np.linspace(a, b, n)[1:-1], b - d])


@pytest.mark.parametrize("method", ["algebraic", "subordination"])
def test_semicircle_plus_semicircle_is_semicircle_2(method):
    law = boxplus(Semicircle(1), Semicircle(1), method=method)
    ref = Semicircle(2)
    ((a, b),) = law.support()
    assert abs(a + 2 * math.sqrt(2)) <= 1e-10 and abs(b - 2 * math.sqrt(2)) <= 1e-10
    x = _near_edges(a, b)
    # closed form sqrt(8 − x²)/(4π)
    np.testing.assert_allclose(law.pdf(x), np.sqrt(8 - x**2) / (4 * math.pi), rtol=0, atol=1e-10)
    np.testing.assert_allclose(law.pdf(x), ref.pdf(x), rtol=0, atol=1e-10)
    assert np.all(law.pdf(np.linspace(-4, 4, 401)) >= 0)
    assert law.pdf(3.0) == 0 and law.pdf(-3.0) == 0
    assert law.atoms() == []
    assert abs(law.cdf(3.0) - 1) <= 1e-10 and law.cdf(-3.0) == 0
    assert abs(law.cdf(0.0) - 0.5) <= 1e-10


def test_semicircle_subordination_off_axis_and_at_dps():
    law = boxplus(Semicircle(1), Semicircle(1), method="subordination")
    zz = np.array([0.3 + 0.2j, -1 + 1e-6j, 4 - 2j, 0.5, 5.0])
    np.testing.assert_allclose(law.cauchy_transform(zz), Semicircle(2).cauchy_transform(zz),
                               rtol=1e-12, atol=0)
    # 30 digits: G and the edge against the closed forms
    g = law.cauchy_transform(mpmath.mpc(0.5, 0.25), dps=30)
    with mpmath.workdps(40):
        s = mpmath.mpc(0.5, 0.25)
        ref = (s - mpmath.sqrt(s - mpmath.sqrt(8)) * mpmath.sqrt(s + mpmath.sqrt(8))) / 4
        assert abs(g - ref) < mpmath.mpf(10) ** -28
        ((a, b),) = law.support(dps=30)
        assert abs(b - mpmath.sqrt(8)) < mpmath.mpf(10) ** -25
        assert abs(law.pdf(1, dps=30) - mpmath.sqrt(7) / (4 * mpmath.pi)) < mpmath.mpf(10) ** -28


def test_bernoulli_plus_bernoulli_is_arcsine_subordination():
    B = _bernoulli()
    law = boxplus(B, B, method="subordination")
    assert isinstance(law, AdditiveConvolution)
    ((a, b),) = law.support()
    assert abs(a + 2) <= 1e-10 and abs(b - 2) <= 1e-10
    x = np.linspace(-2, 2, 81)[1:-1]
    x = np.concatenate([x, [-2 + 1e-6, 2 - 1e-6]])
    ref = 1 / (math.pi * np.sqrt(4 - x**2))
    np.testing.assert_allclose(law.pdf(x), ref, rtol=1e-9, atol=1e-10)
    assert law.atoms() == []
    # arcsine cdf: 1/2 + asin(x/2)/π; mass 1
    xc = np.array([-1.5, -0.3, 0.0, 1.2, 1.99])
    np.testing.assert_allclose(law.cdf(xc), 0.5 + np.arcsin(xc / 2) / math.pi, atol=1e-10)
    assert abs(law.cdf(2.5) - 1) <= 1e-10


@pytest.mark.slow
def test_bernoulli_plus_bernoulli_is_arcsine_algebraic():
    B = _bernoulli()
    law = boxplus(B, B, method="algebraic")
    ((a, b),) = law.support()
    assert abs(a + 2) <= 1e-10 and abs(b - 2) <= 1e-10
    x = np.linspace(-2, 2, 41)[1:-1]
    np.testing.assert_allclose(law.pdf(x), 1 / (math.pi * np.sqrt(4 - x**2)), rtol=1e-10)


def test_bernoulli_algebraic_polynomial_is_arcsine():
    """The eliminated polynomial is the arcsine law's: (z² − 4) G² − 1 (up to a constant)."""
    B = _bernoulli()
    P = boxplus(B, B, method="algebraic").polynomial
    import sympy as sp

    assert sp.simplify(P / ((z**2 - 4) * G**2 - 1)).is_constant()


def test_semicircle_plus_mp_subordination_equals_algebraic(sc_mp_pair):
    sub, alg = sc_mp_pair
    ((a, b),) = sub.support()
    ((a2, b2),) = alg.support()
    assert abs(a - a2) <= 1e-10 and abs(b - b2) <= 1e-10
    x = np.concatenate([_near_edges(a2, b2), [-3, a2 - 1e-3, b2 + 1e-3, 5]])
    pa, pb = sub.pdf(x), alg.pdf(x)
    np.testing.assert_allclose(pa, pb, rtol=0, atol=1e-10)
    assert np.all(pa >= 0)
    assert abs(sub.cdf(10.0) - 1) <= 1e-10
    xc = np.linspace(a, b, 7)
    np.testing.assert_allclose(sub.cdf(xc), alg.cdf(xc), atol=1e-10)
    zz = np.array([0.3 + 0.5j, 2 - 1e-3j, -4 + 0j])
    np.testing.assert_allclose(sub.cauchy_transform(zz), alg.cauchy_transform(zz), rtol=1e-11)


def test_subordination_moments_are_exact(sc_mp_pair):
    sub, alg = sc_mp_pair
    assert sub.exact_moments(4) == alg.exact_moments(4)


def test_atoms_bercovici_voiculescu():
    """(μ ⊞ ν)({a}) = max(0, μ({b}) + ν({a − b}) − 1): (3/4 δ₀ + 1/4 δ₁) ⊞ (3/4 δ₀ + 1/4 δ₂)
    has an atom 1/2 at 0 and none elsewhere; mass 1 with the density."""
    import sympy as sp

    R = sp.Rational
    mu = AlgebraicLaw(z * (z - 1) * G - R(3, 4) * (z - 1) - R(1, 4) * z)
    nu = AlgebraicLaw(z * (z - 2) * G - R(3, 4) * (z - 2) - R(1, 4) * z)
    law = free_additive_convolution(mu, nu, method="subordination")
    atoms = law.atoms()
    assert len(atoms) == 1 and atoms[0][0] == 0 and abs(atoms[0][1] - 0.5) <= 1e-15
    x = np.linspace(-1, 4, 201)
    assert np.all(law.pdf(x) >= 0)


def test_atoms_bercovici_voiculescu_mass():
    """μ({0}) + ν({2}) = 1 exactly: no atom at 2 but a hard edge there (density ~ 1/√(x − 2));
    the edge is that point exactly (it came out 5.5e-11 low, costing ~6e-7 of mass)."""
    import sympy as sp

    R = sp.Rational
    mu = AlgebraicLaw(z * (z - 1) * G - R(3, 4) * (z - 1) - R(1, 4) * z)
    nu = AlgebraicLaw(z * (z - 2) * G - R(3, 4) * (z - 2) - R(1, 4) * z)
    law = free_additive_convolution(mu, nu, method="subordination")
    assert law.support()[1][0] == 2.0
    assert abs(law.cdf(10.0) - 1) <= 1e-10
    # the exact algebraic route (a second algorithm) on both sides of the hard edge
    x = np.array([0.5, 1.0, 2.0 + 1e-6, 2.5, 2.8])
    exact = free_additive_convolution(mu, nu, method="algebraic")
    np.testing.assert_allclose(law.cdf(x), exact.cdf(x), rtol=0, atol=1e-9)
