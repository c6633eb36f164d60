"""Classic laws against closed forms, quadrature and the generic polynomial machinery."""
import math
import warnings

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy import integrate

from freeattn import AlgebraicLaw, FreePoisson, MarchenkoPastur, PointMass, Semicircle
from freeattn.algebraic.polynomial import G, z


def narayana_moment(n, y):
    """m_n of MP_y = Σ_k N(n, k) y^{k-1}, N(n,k) = C(n,k)C(n,k-1)/n (exact)."""
    return sum(sp.binomial(n, k) * sp.binomial(n, k - 1) / n * y ** (k - 1) for k in range(1, n + 1))


def quad_over_support(law, f):
    total = 0.0
    for a, b in law.support():
        val, _ = integrate.quad(lambda x: f(x) * law.pdf(x), a, b, limit=200, epsabs=1e-13, epsrel=1e-13)
        total += val
    return total + sum(m * f(loc) for loc, m in law.atoms())


@pytest.mark.parametrize("ratio", [0.3, 1.0, 2.5])
def test_marchenko_pastur_mass_moments_edges(ratio):
    law = MarchenkoPastur(ratio)
    a, b = law.support()[0]
    assert a == pytest.approx((1 - math.sqrt(ratio)) ** 2, abs=1e-15)
    assert b == pytest.approx((1 + math.sqrt(ratio)) ** 2, rel=1e-15)
    atom = sum(m for _, m in law.atoms())
    assert atom == pytest.approx(max(0.0, 1 - 1 / ratio), abs=1e-15)
    assert quad_over_support(law, lambda x: 1.0) == pytest.approx(1.0, abs=1e-10)
    assert law.cdf(b + 1) == pytest.approx(1.0, abs=1e-12)
    y = sp.Rational(ratio)
    for k in range(1, 6):
        exact = float(narayana_moment(k, y))
        assert float(law.exact_moments(k)[-1]) == pytest.approx(exact, rel=1e-14)
        assert quad_over_support(law, lambda x: x**k) == pytest.approx(exact, rel=1e-9)


def mp_closed_form_mp_pdf(x, ratio):
    """Closed-form MP density evaluated in mpmath at 50 digits (reference)."""
    with mpmath.workdps(50):
        y = mpmath.mpf(ratio)
        a, b = (1 - mpmath.sqrt(y)) ** 2, (1 + mpmath.sqrt(y)) ** 2
        X = mpmath.mpf(x)
        if not a < X < b:
            return 0.0
        return float(mpmath.sqrt((b - X) * (X - a)) / (2 * mpmath.pi * y * X))


@pytest.mark.parametrize("ratio", [0.3, 1.0, 2.5])
def test_generic_polynomial_route_matches_closed_form(ratio):
    """AlgebraicLaw built from the bare polynomial reproduces the closed-form MP density to
    1e-12 relative, also 1e-9 and 1e-12 away from the edges (local edge expansion)."""
    y = sp.Rational(ratio)
    generic = AlgebraicLaw(y * z * G**2 + (1 - y - z) * G + 1)
    closed = MarchenkoPastur(ratio)
    a, b = closed.support()[0]
    x = np.concatenate([np.linspace(a, b, 201)[1:-1],
                        [a + 1e-9, b - 1e-9, b - 1e-12 * b, b + 0.1, -0.5]])
    if a > 0:
        x = np.append(x, a + 1e-12 * a)
    ref = np.array([mp_closed_form_mp_pdf(v, ratio) for v in x])
    np.testing.assert_allclose(generic.pdf(x), ref, rtol=1e-12, atol=0)
    np.testing.assert_allclose(closed.pdf(x), ref, rtol=1e-12, atol=0)
    np.testing.assert_allclose(generic.support(), closed.support(), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(generic.atoms(), closed.atoms(), rtol=1e-12, atol=1e-14)
    assert generic.cdf(b + 1) == pytest.approx(1.0, abs=1e-10)


def test_free_poisson_and_semicircle():
    fp = FreePoisson(0.4)
    assert fp.atoms()[0][0] == 0.0 and fp.atoms()[0][1] == pytest.approx(0.6, abs=1e-14)
    assert fp.mean() == pytest.approx(0.4)
    a, b = fp.support()[0]
    assert (a, b) == pytest.approx(((1 - math.sqrt(0.4)) ** 2, (1 + math.sqrt(0.4)) ** 2), rel=1e-14)
    assert quad_over_support(fp, lambda x: 1.0) == pytest.approx(1.0, abs=1e-10)
    sc = Semicircle(2.0)
    assert sc.support() == [pytest.approx((-2 * math.sqrt(2), 2 * math.sqrt(2)), rel=1e-15)]
    catalan = [1, 2, 5, 14]
    for k, c in enumerate(catalan, start=1):
        assert sc.moment(2 * k) == pytest.approx(c * 2.0**k, rel=1e-14)
        assert sc.moment(2 * k - 1) == 0
    # generic route for the semicircle
    generic = AlgebraicLaw(2 * G**2 - z * G + 1)
    x = np.linspace(-3, 3, 61)
    np.testing.assert_allclose(generic.pdf(x), sc.pdf(x), rtol=1e-10, atol=1e-14)


def test_cauchy_transform_identities():
    law = MarchenkoPastur(0.5)
    zs = np.array([1 + 1j, 3 - 0.5j, -2 + 0.01j, 0.5 + 1e-6j])
    g = law.cauchy_transform(zs)
    # reference: G(z) = ∫ ρ(x)/(z − x) dx by mpmath quadrature of the closed-form density
    with mpmath.workdps(30):
        y = mpmath.mpf(0.5)
        a, b = (1 - mpmath.sqrt(y)) ** 2, (1 + mpmath.sqrt(y)) ** 2
        rho = lambda x: mpmath.sqrt((b - x) * (x - a)) / (2 * mpmath.pi * y * x)  # noqa: E731
        ref = np.array([complex(mpmath.quad(lambda x: rho(x) / (mpmath.mpc(v) - x), [a, 1, b]))
                        for v in zs[:3]])
    np.testing.assert_allclose(g[:3], ref, rtol=1e-11)
    assert np.all(g[zs.imag > 0].imag < 0)
    np.testing.assert_allclose(law.cauchy_transform(zs.conj()), g.conj(), rtol=1e-14)
    # density as the boundary value
    x = 1.3
    assert -law.cauchy_transform(x).imag / math.pi == pytest.approx(law.pdf(x), rel=1e-12)


def test_point_mass():
    d = PointMass(2.0)
    assert d.atoms() == [(2.0, 1.0)]
    assert d.cauchy_transform(3.0 + 0j) == pytest.approx(1.0)


def test_pdf_outside_support_is_exactly_zero_without_warnings():
    law = MarchenkoPastur(2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vals = law.pdf(np.array([-5.0, 0.0, 0.1, 100.0, 1e300]))
    assert np.all(vals == 0.0)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf")])
def test_bad_parameters_raise(bad):
    with pytest.raises(ValueError, match="ratio"):
        MarchenkoPastur(bad)
    with pytest.raises(ValueError, match="rate"):
        FreePoisson(bad)
    with pytest.raises(ValueError, match="variance"):
        Semicircle(bad)


def test_ppf_inverts_cdf_and_respects_atoms():
    law = MarchenkoPastur(2.0)
    q = np.array([0.0, 0.2, 0.5, 0.5000001, 0.7, 0.99, 1.0])
    x = law.ppf(q)
    assert np.all(x[:3] == 0.0)
    inner = (q > 0.5) & (q < 1)
    np.testing.assert_allclose(law.cdf(x[inner]), q[inner], atol=1e-12)
    with pytest.raises(ValueError, match="q"):
        law.ppf([1.5])


def test_free_cumulants_of_laws_are_exact():
    """κ_q(MP_y) = y^{q−1} (Nica & Speicher 2006, Lecture 12); semicircle: only κ₂ = σ²."""
    assert MarchenkoPastur(0.5).free_cumulants(5) == [sp.Rational(1, 2) ** (q - 1) for q in range(1, 6)]
    assert FreePoisson(3.0).free_cumulants(4) == [3, 3, 3, 3]
    assert Semicircle(2.0).free_cumulants(4) == [0, 2, 0, 0]


@pytest.mark.parametrize("ratio", [0.3, 1.0, 2.5, 1e-4, 1e4])
def test_closed_form_fast_paths_match_the_algebraic_route(ratio):
    """MarchenkoPastur / FreePoisson pdf, cdf and G by closed forms against the bare
    polynomial (general algebraic route), vectorised, incl. points next to the edges."""
    y = sp.Rational(ratio)
    generic = AlgebraicLaw(y * z * G**2 + (1 - y - z) * G + 1)
    closed = MarchenkoPastur(ratio)
    a, b = closed.support()[0]
    x = np.concatenate([np.linspace(a, b, 301)[1:-1], [a + 1e-9 * b, b - 1e-9 * b, b * 1.5, -1.0]])
    # the general route's own accuracy degrades like the spread of P's coefficients
    rtol = 1e-11 if 1e-2 <= ratio <= 1e2 else 1e-9
    np.testing.assert_allclose(closed.pdf(x), generic.pdf(x), rtol=rtol, atol=0)
    np.testing.assert_allclose(closed.cdf(x), generic.cdf(x), rtol=rtol, atol=1e-15)
    zz = np.concatenate([x + 0.3j * b, x[:50] + 1e-9j, x[:50] + 0j, (x - 3j)[:20]])
    np.testing.assert_allclose(closed.cauchy_transform(zz), generic.cauchy_transform(zz), rtol=10 * rtol)
    t = 1 / y
    fp, fp_generic = FreePoisson(t), AlgebraicLaw(z * G**2 + (t - 1 - z) * G + 1)
    xf = x[:-4] / ratio
    np.testing.assert_allclose(fp.pdf(xf), fp_generic.pdf(xf), rtol=rtol)
    np.testing.assert_allclose(fp.cdf(xf), fp_generic.cdf(xf), rtol=rtol, atol=1e-15)


@pytest.mark.parametrize("v", [1.0, 0.37])
def test_semicircle_closed_forms_match_the_algebraic_route(v):
    generic = AlgebraicLaw(sp.Rational(v) * G**2 - z * G + 1)
    closed = Semicircle(v)
    r = 2 * math.sqrt(v)
    x = np.concatenate([np.linspace(-r, r, 301)[1:-1], [-r * (1 - 1e-10), r * (1 - 1e-10), 3 * r]])
    np.testing.assert_allclose(closed.pdf(x), generic.pdf(x), rtol=1e-11, atol=0)
    np.testing.assert_allclose(closed.cdf(x), generic.cdf(x), rtol=1e-12, atol=1e-15)
    zz = np.concatenate([x + 0.5j, x + 0j, x - 1e-8j])
    np.testing.assert_allclose(closed.cauchy_transform(zz), generic.cauchy_transform(zz), rtol=1e-10)
    with mpmath.workdps(30):
        assert abs(closed.pdf(0.5, dps=30) - generic.pdf(0.5, dps=30)) < mpmath.mpf(10) ** -29
        assert abs(closed.cauchy_transform(0.5 + 0.1j, dps=30)
                   - generic.cauchy_transform(0.5 + 0.1j, dps=30)) < mpmath.mpf(10) ** -29
