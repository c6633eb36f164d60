"""w_ν(λ), w′_ν(λ): scalar equations (5.4)/(5.5) against the general route and closed forms."""
import math

import mpmath
import numpy as np
import pytest

from freeattn import MarchenkoPastur
from freeattn._validation import ParameterError
from freeattn.readout import IndependentKV, TiedKV, dof, dof_derivative, expect
from freeattn.readout.scalar import readout_normalisation

LAMS = [1e-3, 0.05, 0.7, 3.0, 40.0]


def test_attention_scalar_equals_cauchy_route(attention_mean_one):
    s = IndependentKV(1.0, 0.5, 32)
    np.testing.assert_allclose(dof(s, LAMS), dof(attention_mean_one, LAMS), rtol=0, atol=1e-12)


@pytest.mark.slow
def test_values_scalar_equals_cauchy_route(values_mean_one):
    s = IndependentKV(1.0, 0.5, 32, gamma_v=0.5)
    lams = [1e-3, 0.1, 1.0, 10.0]
    np.testing.assert_allclose(dof(s, lams), dof(values_mean_one, lams), rtol=0, atol=1e-12)
    assert s.zero_mass == 0.5


def test_complex_lambda_continuation_matches_cauchy_route(attention_mean_one):
    s = IndependentKV(1.0, 0.5, 32)
    for lam in (0.3 + 0.2j, -3 + 0.01j, -0.5 - 2j, 40 + 300j):
        assert abs(dof(s, lam) - dof(attention_mean_one, lam)) < 1e-12
        w = dof(s, lam)
        # Nevanlinna signs of ∫ x/(x+λ) dν: Im w and Im λ opposite, Im(λw) same sign as Im λ
        assert np.sign(w.imag) == -np.sign(lam.imag)
        assert np.sign((lam * w).imag) == np.sign(lam.imag)


def test_mp_route_agrees_with_cauchy_route(attention_mean_one):
    s = IndependentKV(1.0, 0.5, 32)
    a = dof(s, 0.5, dps=40)
    b = dof(attention_mean_one, 0.5, dps=40)
    assert isinstance(a, mpmath.mpf)
    with mpmath.workdps(40):
        assert abs(a - b) < mpmath.mpf(10) ** -35


def test_derivative_implicit_vs_quadrature(attention_mean_one):
    """w′ from implicit differentiation of (5.4) equals −∫ x/(x + λ)² dν (quadrature)."""
    s = IndependentKV(1.0, 0.5, 32)
    lams = np.array(LAMS)
    ref = -expect(attention_mean_one, lambda x: x[:, None] / (x[:, None] + lams) ** 2,
                  nodes=240)
    np.testing.assert_allclose(dof_derivative(s, lams), ref, rtol=1e-10, atol=1e-12)
    # and the value itself
    ref_w = expect(attention_mean_one, lambda x: x[:, None] / (x[:, None] + lams), nodes=240)
    np.testing.assert_allclose(dof(s, lams), ref_w, rtol=0, atol=1e-11)


def test_mp_derivative_matches_float():
    s = IndependentKV(0.8, 1.3, 8, 2.0, 0.7)
    d = dof_derivative(s, 0.2, dps=50)
    assert abs(float(d) - dof_derivative(s, 0.2)) < 1e-13


def test_root_satisfies_paper_sqrt_form_of_54():
    """λ w = Π(−w)/S_ρ(−w) with the paper's closed form of S_{ρ_{β,γ_K}} (§5.1)."""
    s = IndependentKV(1.0, 1.5, 96, 2.25, 1.5)
    for lam in (1e-4, 0.1, 2.0):
        w = dof(s, lam)
        p = (1 - w) * (1 - w / 96) * (1 - w / 2.25) * (1 - w / 1.5)
        assert lam * w == pytest.approx(p / s.s_rho(-w), rel=1e-12)
        assert 0 < w < min(1, 2.25, 1.5)


def test_large_lambda_moments_C16():
    """w = 1/λ − m₂/λ² + O(λ^{-3}) with m₂ − 1 = 1/h + 1/γ_V + 1/γ_O + c_β²/γ_K (C.16)."""
    s = IndependentKV(1.0, 0.75, 96, 2.25, 1.5)
    lam = mpmath.mpf(10) ** 8
    w = dof(s, lam, dps=40)
    with mpmath.workdps(40):
        est = float(-(w - 1 / lam) * lam ** 2)
    assert est == pytest.approx(s.second_moment(), rel=1e-7)
    c = 1 / (math.e - 1)
    assert s.second_moment() == pytest.approx(1 + 1 / 96 + 1 / 2.25 + 1 / 1.5 + c * c / 0.75)


def _tied_m2(beta, gk, h, go):
    """m₂ of the mean-one tied law from free cumulants of π(μ_KV, h) ⊠ π_{γ_O} (§C.2.1)."""
    th1, th2 = math.expm1(beta * beta), beta * beta
    t = gk / h
    al, be = th1 - th2, h * th2 / gk
    mom = [1, t, t + t * t, t + 3 * t * t + t ** 3, t + 6 * t * t + 6 * t ** 3 + t ** 4]
    m1mu = al * mom[1] + be * mom[2]
    m2mu = al * al * mom[2] + 2 * al * be * mom[3] + be * be * mom[4]
    return 1 + m2mu / (h * m1mu ** 2) + 1 / go, h * m1mu


def test_tied_mean_and_second_moment():
    beta, gk, h, go = 1.0, 0.5, 8, 0.5
    s = TiedKV(beta, gk, h, go)
    m2, hm1 = _tied_m2(beta, gk, h, go)
    # normalisation: h m₁(μ_KV) = γ_K θ₁ + h θ₂ = γ_K m/γ_O (C.20)
    assert hm1 == pytest.approx(gk * readout_normalisation(beta, gk, h, go, tied=True) / go)
    assert s.mu_kv_mean() == pytest.approx(hm1 / h, rel=1e-13)
    lam = mpmath.mpf(10) ** 8
    w = dof(s, lam, dps=30)
    with mpmath.workdps(30):
        est = float(-(w - 1 / lam) * lam ** 2)
    assert est == pytest.approx(m2, rel=1e-6)
    assert abs(float(dof(s, 0.3, dps=30)) - dof(s, 0.3)) < 1e-13


@pytest.mark.slow
def test_tied_derivative_implicit_vs_mp_slope():
    """Implicit w′ of (5.5) against the slope of high-precision w (an independent check)."""
    s = TiedKV(1.0, 0.5, 4, 0.5)
    lam = 0.01
    with mpmath.workdps(40):
        h = mpmath.mpf(10) ** -12
        slope = (dof(s, lam + h, dps=40) - dof(s, lam - h, dps=40)) / (2 * h)
    assert dof_derivative(s, lam) == pytest.approx(float(slope), rel=1e-9)


def test_mp_law_with_atom_general_route():
    """MP_2 (atom 1/2 at 0): w = 1 + λ G(−λ) → 1/2 as λ → 0, from the closed-form G."""
    law = MarchenkoPastur(2.0)
    lam = 0.37
    g = -((-lam) - (1 - 2.0) - math.sqrt((-lam - 1 - 2.0) ** 2 - 4 * 2.0)) / (2 * 2.0 * -lam)
    # root of y z G² + (1 − y − z) G + 1 = 0 with G ~ 1/z
    roots = np.roots([2.0 * -lam, 1 - 2.0 + lam, 1])
    g = roots[np.argmin(np.abs(roots - 1 / -lam))]
    assert dof(law, lam) == pytest.approx(1 + lam * g.real, abs=1e-13)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf"), "1"])
def test_bad_lambda(bad):
    with pytest.raises(ParameterError) as exc:
        dof(IndependentKV(1.0, 1.0, 2), bad)
    assert exc.value.param == "lam"


def test_bad_parameters():
    with pytest.raises(ParameterError) as exc:
        IndependentKV(1.0, -1.0, 2)
    assert exc.value.param == "gamma_k"
    with pytest.raises(ParameterError) as exc:
        IndependentKV(1.0, 1.0, 2, gamma_o=1.0)
    assert exc.value.param == "gamma_v"
    with pytest.raises(ParameterError) as exc:
        TiedKV(1.0, 1.0, 0, 1.0)
    assert exc.value.param == "heads"


@pytest.mark.parametrize("beta", [10.0, 27.0, 50.0, 0.001])
def test_beta_outside_the_laws_domain(beta):
    """β outside BETA_LAW_RANGE = [0.01, 4] (the attention laws' declared domain) is refused
    by name with the range (β = 27, 50 used to end in an OverflowError in θ₁; β = 10 was
    accepted although the laws refuse β > 4)."""
    from freeattn.attention.config import BETA_LAW_RANGE

    for make in (lambda: IndependentKV(beta, 1.0, 64, 1.0, 2.0),
                 lambda: TiedKV(beta, 1.0, 64, 2.0)):
        with pytest.raises(ParameterError) as exc:
            make()
        assert exc.value.param == "beta"
        assert f"[{BETA_LAW_RANGE[0]:g}, {BETA_LAW_RANGE[1]:g}]" in str(exc.value)
    IndependentKV(BETA_LAW_RANGE[1], 1.0, 64, 1.0, 2.0)  # the end point itself is allowed


def test_heads_and_gammas_use_the_declared_domains():
    from freeattn.attention.config import GAMMA_RANGE, MAX_HEADS

    with pytest.raises(ParameterError) as exc:
        IndependentKV(1.0, 1.0, MAX_HEADS + 1)
    assert exc.value.param == "heads"
    with pytest.raises(ParameterError) as exc:
        IndependentKV(1.0, 1.0, 4, GAMMA_RANGE[1] * 2, 1.0)
    assert exc.value.param == "gamma_v"


def test_mean_one_normalisation():
    from freeattn.readout import mean_one

    law = mean_one(MarchenkoPastur(0.5).dilate(3.0))
    assert float(law.mean()) == pytest.approx(1.0, rel=1e-14)
    with pytest.raises(ParameterError):
        mean_one(MarchenkoPastur(0.5), m=-1.0)
    assert readout_normalisation(1.0, 0.5, 8, 0.5, tied=True) == pytest.approx(
        0.5 * (math.e - 1 + 8 / 0.5))


@pytest.mark.slow
def test_tied_55_vs_general_route_of_C21_law():
    """(5.5) against the tied layer law (C.21) of mha_output_law through its G and G′ (an
    independent route: polynomial push-forward, compound free Poisson and ⊠), normalised by
    m = γ_O(θ₁ + hθ₂/γ_K) exactly.  Slow: building and first evaluation of the algebraic law
    take 15-35 s; measured agreement 2e-15 in w, 9e-15 in E_λ."""
    import sympy as sp

    from freeattn.attention import mha_output_law
    from freeattn.readout import mean_one, ridge_error

    beta, h, gk, go = 1.0, 2, 4.0, 1.5
    law = mean_one(mha_output_law(beta, h, gk, gk, go, sharing="tied_kv"),
                   sp.Rational(3, 2) * (sp.E - 1 + sp.Rational(h, 4)))
    s = TiedKV(beta, gk, h, go)
    lams = [1e-2, 0.1, 1.0]
    np.testing.assert_allclose(dof(law, lams), dof(s, lams), rtol=0, atol=1e-12)
    np.testing.assert_allclose(ridge_error(law, lams, 0.1, go), ridge_error(s, lams, 0.1, go),
                               rtol=0, atol=1e-10)
