"""G on the real axis inside a gap of a law built by subordination (issue 21, item 3).

At a real zero of G inside a gap, F = 1/G is infinite and so are the subordination functions:
the system is singular there, and near it it has non-real solutions on a wrong sheet.  G is
real and analytic on the gap; the route takes it by the mean value over a circle inside the gap
(:meth:`SubordinationLaw._gap_mean`) and drops a scanned "interval" without mass.
"""
import mpmath
import numpy as np
import pytest
import sympy as sp

from freeattn import AlgebraicLaw, Discrete, Semicircle, free_additive_convolution
from freeattn.algebraic.polynomial import G, z


@pytest.fixture(scope="module")
def issue_law():
    return free_additive_convolution(Discrete([0, 1], [.5, .5]), Discrete([0, 2], [.25, .75]))


def test_g_at_the_zero_in_the_gap_is_real_and_finite(issue_law):
    # the law's polynomial (algebraic route, below) at z = 1 reads G = 0: G(1) = 0 exactly
    (a0, b0), (a1, b1) = issue_law.support()
    assert b0 < 1.0 < a1
    g = issue_law.cauchy_transform(1.0)
    assert np.isfinite(g) and g.imag == 0 and abs(g) < 1e-15
    arr = issue_law.cauchy_transform(np.array([0.9, 1.0, 1.1, 1.5]))
    assert np.all(arr.imag == 0)
    g20 = issue_law.cauchy_transform(1.0, dps=20)
    assert mpmath.im(g20) == 0 and abs(g20) < mpmath.mpf(10) ** -19


def test_gap_values_match_the_algebraic_route(issue_law):
    """Same law through exact polynomials: μ: z(z − 1)G = z − 1/2, ν: z(z − 2)G = z − 1/2."""
    half = sp.Rational(1, 2)
    alg = free_additive_convolution(AlgebraicLaw(z * (z - 1) * G - (z - half)),
                                    AlgebraicLaw(z * (z - 2) * G - (z - half)))
    # P(G, 1) = G (the G² coefficient vanishes at z = 1): the exact value
    assert sp.expand(alg.polynomial.subs(z, 1)) == G
    x = np.array([0.9, 1.1, 1.5, 2.05])
    assert np.allclose(issue_law.cauchy_transform(x), alg.cauchy_transform(x).real,
                       rtol=1e-12, atol=1e-14)
    assert abs(issue_law.cauchy_transform(mpmath.mpf("1.1"), dps=25)
               - alg.cauchy_transform(mpmath.mpf("1.1"), dps=25)) < mpmath.mpf(10) ** -23


def test_symmetric_gap_has_no_spurious_component():
    """Second instance: ½δ₋₂ + ½δ₂ ⊞ semicircle of variance 0.1 is symmetric, so G(0) = 0 on
    the gap; the scan used to report a component (−4.9e-5, 8.3e-6) there with pdf 2.7e-8."""
    law = free_additive_convolution(Discrete([-2, 2]), Semicircle(0.1))
    two = AlgebraicLaw((z**2 - 4) * G - z)
    alg = free_additive_convolution(two, Semicircle(sp.Rational(1, 10)))
    assert len(law.support()) == 2
    assert np.allclose(np.ravel(law.support()), np.ravel(alg.support()), rtol=1e-12)
    assert law.pdf(0.0) == 0.0 and law.cdf(0.0) == pytest.approx(0.5, abs=1e-14)
    g = law.cauchy_transform(np.array([0.0, 0.5, 1.0]))
    # real on the gap; 0 to rounding (the input's G is a compressed sum since the Discrete
    # rewrite, so the two atoms' terms no longer cancel bit for bit)
    assert abs(g[0]) <= 1e-16 and np.all(g.imag == 0)
    assert np.allclose(g[1:], alg.cauchy_transform(np.array([0.5, 1.0])).real, rtol=1e-12)
    g0 = law.cauchy_transform(0.0, dps=20)
    assert mpmath.im(g0) == 0 and abs(g0) < mpmath.mpf(10) ** -19
