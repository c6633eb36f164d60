"""Compound free Poisson π(μ, t): subordination vs the algebraic equation, atoms, any μ."""
import numpy as np
import pytest
import sympy as sp

from freeattn import (AlgebraicLaw, FreePoisson, PointMass, Semicircle, compound_free_poisson)
from freeattn.algebraic.polynomial import G, z
from freeattn.convolution.subordination import CompoundFreePoisson

R = sp.Rational


def _two_point():
    """(3/4) δ₂ + (1/4) δ_{11/2} (issue 7 item 2)."""
    return AlgebraicLaw((z - 2) * (z - R(11, 2)) * G - R(3, 4) * (z - R(11, 2)) - R(1, 4) * (z - 2),
                        name="two-point")


@pytest.fixture(scope="module")
def two_point_pair():
    J = _two_point()
    return (compound_free_poisson(J, 0.7, method="subordination"),
            compound_free_poisson(J, 0.7, method="algebraic"))


def test_two_point_jump_law_subordination_equals_algebraic(two_point_pair):
    sub, alg = two_point_pair
    assert isinstance(sub, CompoundFreePoisson)
    s1, s2 = sub.support(), alg.support()
    assert len(s1) == len(s2)
    for (a, b), (a2, b2) in zip(s1, s2):
        assert abs(a - a2) <= 1e-10 and abs(b - b2) <= 1e-10
    x = np.concatenate([np.linspace(a2 - 1, b2 + 1, 81)] +
                       [np.array([a + 1e-7, a + 1e-4, b - 1e-4, b - 1e-7]) for a, b in s2])
    ps = sub.pdf(x)
    np.testing.assert_allclose(ps, alg.pdf(x), rtol=0, atol=1e-10)
    assert np.all(ps >= 0)
    # the algebraic equation itself: P(G(z), z) = 0 at the subordination G
    Pf = sp.lambdify((G, z), alg.polynomial, "numpy")
    zz = np.array([1 + 0.5j, 5 + 1e-3j, 12 + 2j, -1 + 0.1j])
    g = sub.cauchy_transform(zz)
    assert np.all(np.abs(Pf(g, zz)) <= 1e-11 * np.abs(Pf(np.abs(g), np.abs(zz)) + 1))
    # exact moments: κ_q = t m_q(μ)
    m = [float(v) for v in sub.exact_moments(3)]
    np.testing.assert_allclose(m, [float(v) for v in alg.exact_moments(3)], rtol=1e-15)


def test_two_point_jump_law_atom_and_mass(two_point_pair):
    """Rate t < 1 with μ({0}) = 0: atom 1 − t at 0; mass 1 with the density."""
    sub, _ = two_point_pair
    ((loc, mass),) = sub.atoms()
    assert loc == 0 and abs(mass - 0.3) <= 1e-15
    assert abs(sub.cdf(100.0) - 1) <= 1e-10
    assert abs(sub.cdf(0.0) - 0.3) <= 1e-12


def test_free_poisson_is_compound_poisson_of_a_point_mass():
    law = compound_free_poisson(PointMass(1.0), 2.0, method="subordination")
    ref = FreePoisson(2.0)
    ((a, b),) = law.support()
    assert abs(a - (1 - 2**0.5) ** 2) <= 1e-10 and abs(b - (1 + 2**0.5) ** 2) <= 1e-10
    x = np.linspace(a, b, 41)[1:-1]
    np.testing.assert_allclose(law.pdf(x), ref.pdf(x), atol=1e-10)
    assert law.atoms() == []


def test_jump_law_with_negative_part():
    """π(semicircle, t) — μ not positive: the algebraic route uses the R-transform
    R(g) = t ∫ x/(1 − xg) dμ; subordination agrees."""
    alg = compound_free_poisson(Semicircle(1), 1.5)
    sub = compound_free_poisson(Semicircle(1), 1.5, method="subordination")
    ((a, b),), ((a2, b2),) = sub.support(), alg.support()
    assert abs(a - a2) <= 1e-10 and abs(b - b2) <= 1e-10
    x = np.linspace(a2, b2, 30)[1:-1]  # even count: 0 is not a node
    np.testing.assert_allclose(sub.pdf(x), alg.pdf(x), atol=1e-10)
    # at 0 the leading coefficient G⁴z² of P vanishes, but the Stieltjes branch stays finite:
    # P(G, 0) = G²/4 + 3/2 ⇒ G(0) = −i√6, density √6/π (AlgebraicLaw reports a hard edge there)
    assert abs(sub.pdf(0.0) - 6**0.5 / np.pi) <= 1e-12
    # free cumulants κ₂ = t m₂(μ) = 1.5, κ₄ = t m₄(μ) = 3
    k = alg.free_cumulants(4)
    assert [float(v) for v in k] == [0.0, 1.5, 0.0, 3.0]


def test_exact_rate_is_accepted():
    """Issue 7 item 10: an exact sympy rate neither raises in the name nor is rounded."""
    law = compound_free_poisson(PointMass(1.0), sp.Rational(1, 10))
    assert law.values[[s for s in law.values if s.name.startswith("rate")][0]] == sp.Rational(1, 10)
    assert "0.1" in law.name
