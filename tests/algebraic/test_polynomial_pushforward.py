"""Exact push-forward φ#μ by a polynomial map (pushforward_polynomial, AlgebraicLaw.pushforward)."""
import math

import numpy as np
import pytest
import sympy as sp

from freeattn._validation import ParameterError
from freeattn.algebraic import eliminations as el
from freeattn.algebraic import polynomial as pm
from freeattn.algebraic.polynomial import G, z
from freeattn.laws import FreePoisson, MarchenkoPastur, Semicircle
from freeattn.transforms.cumulants import moments_from_free_cumulants

y, s2, a, b = sp.symbols("y s2 a b")
MP = y * z * G**2 + (1 - y - z) * G + 1
SC = s2 * G**2 - z * G + 1


def test_square_of_semicircle_is_free_poisson():
    # X² for X semicircular of variance s2 is s2·π₁: z G² + (s2 − z) G·… ; check the
    # polynomial against the dilated free Poisson one and the pdf against MP(1)
    P = el.pushforward_polynomial(SC, [0, 0, 1])
    ref = pm.affine_polynomial(z * G**2 + (1 - 1 - z) * G + 1, 0, s2)
    assert sp.simplify(P / sp.expand(ref)).is_number
    law = Semicircle(1).pushforward([0, 0, 1])
    (lo, hi), = law.support()
    assert (lo, hi) == pytest.approx((0.0, 4.0), abs=1e-12)
    x = np.linspace(0.05, 3.95, 9)
    np.testing.assert_allclose(law.pdf(x), MarchenkoPastur(1).pdf(x), rtol=1e-10)


def test_square_of_marchenko_pastur_moments_and_density():
    P = el.pushforward_polynomial(MP, [0, 0, 1])
    ms = pm.series_moments(P, 3)
    # m_k(X²) = m_{2k}(MP_y), Narayana polynomials (free cumulants κ_q = y^{q−1})
    mp_moments = moments_from_free_cumulants([y**q for q in range(6)])
    for k in range(3):
        assert sp.simplify(ms[k] - mp_moments[2 * k + 1]) == 0
    mp = MarchenkoPastur(0.5)
    law = mp.pushforward([0, 0, 1])
    (lo, hi), = mp.support()
    assert law.support()[0] == pytest.approx((lo**2, hi**2), rel=1e-12)
    x = np.linspace(lo**2, hi**2, 9)[1:-1]
    # change of variables: f_{X²}(x) = f_X(√x)/(2√x) (X ≥ 0)
    np.testing.assert_allclose(law.pdf(x), mp.pdf(np.sqrt(x)) / (2 * np.sqrt(x)), rtol=1e-10)


def test_affine_map_matches_affine():
    P = el.pushforward_polynomial(MP, [a, b])
    assert sp.expand(P - pm.affine_polynomial(MP, a, b)) == 0
    law = MarchenkoPastur(0.5).pushforward([1.0, -2.0])
    ref = MarchenkoPastur(0.5).affine(1.0, -2.0)
    x = np.linspace(-4.5, -0.2, 7)
    np.testing.assert_allclose(law.pdf(x), ref.pdf(x), rtol=1e-12, atol=1e-14)


def test_generic_quadratic_moments():
    c0, c1, c2 = sp.Rational(1, 3), sp.Rational(-2, 5), sp.Rational(7, 4)
    P = el.pushforward_polynomial(MP, [c0, c1, c2])
    mu = [1] + moments_from_free_cumulants([y**q for q in range(8)])
    phi = sp.Poly(c0 + c1 * sp.Symbol("x") + c2 * sp.Symbol("x") ** 2, sp.Symbol("x"))
    for k, mk in enumerate(pm.series_moments(P, 3), start=1):
        coeffs = (phi**k).all_coeffs()[::-1]  # ∫ φ(x)^k dμ = Σ_j [x^j]φ^k m_j(μ)
        ref = sum(c * mu[j] for j, c in enumerate(coeffs))
        assert sp.simplify(mk - ref) == 0


def _both_routes(monkeypatch, P, ks):
    Pc, _ = pm.canonicalize(P)
    monkeypatch.setenv("FREEATTN_FLINT", "1")
    fl = el._pushforward_cached.__wrapped__(Pc, ks)
    monkeypatch.setenv("FREEATTN_FLINT", "0")
    sy = el._pushforward_cached.__wrapped__(Pc, ks)
    assert sp.expand(fl - sy) == 0 or sp.expand(fl + sy) == 0


def test_flint_and_sympy_routes_agree(monkeypatch):
    _both_routes(monkeypatch, SC, (sp.Integer(0), sp.Integer(0), sp.Symbol("k2")))
    _both_routes(monkeypatch, MP, (sp.Integer(0), sp.Integer(0), sp.Symbol("k2")))


@pytest.mark.slow
def test_flint_and_sympy_routes_agree_generic_quadratic(monkeypatch):
    _both_routes(monkeypatch, MP, (sp.Integer(0), sp.Symbol("k1"), sp.Symbol("k2")))


def _mu_kv(h, gk, beta=1):
    """μ_KV = φ_KV#π_{γ_K/h}, φ_KV(x) = (θ₁ − θ₂) x + (h θ₂/γ_K) x² (Hayase & Karakida 2026,
    eq. (C.17)), with its coefficients and rate."""
    th1, th2 = sp.exp(sp.Integer(beta) ** 2) - 1, sp.Integer(beta) ** 2
    c1, c2 = th1 - th2, h * th2 / gk
    t = gk / h
    return FreePoisson(float(t)).pushforward([0, c1, c2]), c1, c2, t


@pytest.mark.parametrize("h, gk", [(12, sp.Rational(3, 2)), (1, sp.Rational(3, 2))])
def test_tied_kv_law_mu_kv_moments(h, gk):
    """Exact moments of μ_KV against ∫ φ_KV^k dπ_t from the free Poisson moments (κ_q = t);
    h = 12, γ_K = 1.5 is BERT-base (atom 1 − γ_K/h at 0), h = 1 has no atom."""
    law, c1, c2, t = _mu_kv(h, gk)
    pi_m = [1] + moments_from_free_cumulants([t] * 7)
    for k, mk in enumerate(law.exact_moments(3), start=1):
        ref = sum(sp.binomial(k, j) * c1**j * c2 ** (k - j) * pi_m[2 * k - j] for j in range(k + 1))
        assert float(mk) == pytest.approx(float(ref), rel=1e-13)
    # m₁(μ_KV) = (θ₁ − θ₂) t + (hθ₂/γ_K)(t + t²)
    assert float(law.exact_moments(1)[0]) == pytest.approx(
        float(c1 * t + c2 * (t + t**2)), rel=1e-14)


def _check_kv_density(law, c1, c2, t):
    a_, b_ = (1 - math.sqrt(float(t))) ** 2, (1 + math.sqrt(float(t))) ** 2
    fc1, fc2 = float(c1), float(c2)
    phi = lambda x: fc1 * x + fc2 * x * x  # noqa: E731
    (lo, hi), = law.support()
    assert (lo, hi) == pytest.approx((phi(a_), phi(b_)), rel=1e-12)
    yv = np.linspace(lo, hi, 9)[1:-1]
    x = (-fc1 + np.sqrt(fc1**2 + 4 * fc2 * yv)) / (2 * fc2)  # the preimage in [a, b]
    f_pi = np.sqrt((b_ - x) * (x - a_)) / (2 * np.pi * x)
    np.testing.assert_allclose(law.pdf(yv), f_pi / (fc1 + 2 * fc2 * x), rtol=1e-10)


def test_tied_kv_law_density_without_atom():
    """h = 1, γ_K = 1.5 (π_{1.5}: no atom): support = φ_KV(support) and the density is the
    change of variables of the free Poisson density."""
    _check_kv_density(*_mu_kv(1, sp.Rational(3, 2)))


def test_tied_kv_law_density_with_atom():
    """BERT-base h = 12, γ_K = 1.5: μ_KV has the atom 1 − γ_K/h = 0.875 at 0 (φ_KV(0) = 0),
    next to the pole −(θ₁−θ₂)²γ_K/(4hθ₂) of another sheet; mass 1 with the atom."""
    law, c1, c2, t = _mu_kv(12, sp.Rational(3, 2))
    (loc, mass), = law.atoms()
    assert (loc, mass) == pytest.approx((0.0, 1 - float(t)), abs=1e-12)
    _check_kv_density(law, c1, c2, t)
    (lo, hi), = law.support()
    assert float(law.cdf(hi)) == pytest.approx(1.0, abs=1e-10)


def test_pushforward_refuses_bad_coefficients():
    mp = MarchenkoPastur(0.5)
    with pytest.raises(ParameterError) as e:
        mp.pushforward([1.0])
    assert e.value.param == "coefficients"
    with pytest.raises(ParameterError):
        mp.pushforward([0, 1, 0])
    with pytest.raises(ParameterError):
        mp.pushforward([0, float("nan")])
    with pytest.raises(ValueError):
        el.pushforward_polynomial(MP, [1, 0])
