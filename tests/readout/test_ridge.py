"""Ridge coefficient error E_λ: (5.2) through the scalar equation vs (5.1) by quadrature."""
import numpy as np
import pytest

from freeattn import MarchenkoPastur
from freeattn._validation import ParameterError
from freeattn.readout import IndependentKV, TiedKV, dof, ridge_error

LAMS = np.array([1e-4, 1e-2, 0.3, 5.0])


def test_scalar_54_vs_quadrature_51(attention_mean_one):
    s = IndependentKV(1.0, 0.5, 32)
    a = ridge_error(s, LAMS, 0.1, 1.5)
    b = ridge_error(attention_mean_one, LAMS, 0.1, 1.5, method="quadrature")
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-10)


def test_general_transform_route_vs_scalar(attention_mean_one):
    """General route (G and G′ of the law) vs (5.4); needs Law.cauchy_transform_derivative."""
    if not hasattr(attention_mean_one, "cauchy_transform_derivative"):
        pytest.skip("Law.cauchy_transform_derivative not merged yet")
    s = IndependentKV(1.0, 0.5, 32)
    np.testing.assert_allclose(ridge_error(attention_mean_one, LAMS, 0.1, 1.5),
                               ridge_error(s, LAMS, 0.1, 1.5), rtol=0, atol=1e-10)


def test_mp_closed_form_marchenko_pastur():
    """MP_y, y = 1/γ (isotropic features, p = n/y): E_λ from (5.1) by quadrature against the
    closed-form w of MP through the general route's w and the analytic w′ = −∫x/(x+λ)²."""
    law = MarchenkoPastur(0.5)
    e = ridge_error(law, LAMS, 0.2, 2.0, method="quadrature")
    assert np.all(e > 0) and np.all(np.isfinite(e))
    # λ → ∞: ϑ_* → 0, error → E‖ϑ‖² = 1
    assert ridge_error(law, 1e8, 0.2, 2.0, method="quadrature") == pytest.approx(1, abs=1e-7)


def test_tied_vs_independent_orders_paper_fig3b():
    """At h = 8 tying beats GQA; at h = 4 GQA wins (Hayase & Karakida 2026, Fig. 3(b))."""
    def pair(h):
        gqa = ridge_error(IndependentKV(1.0, 0.5, h, 0.5, 0.5), 1e-4, 0.1, 0.5)
        tied = ridge_error(TiedKV(1.0, 0.5, h, 0.5), 1e-4, 0.1, 0.5)
        return float(gqa), float(tied)
    g4, t4 = pair(4)
    g8, t8 = pair(8)
    assert t4 > g4 and t8 < g8


def test_bad_input():
    s = IndependentKV(1.0, 1.0, 2)
    with pytest.raises(ParameterError) as exc:
        ridge_error(s, 0.1, -1.0, 1.0)
    assert exc.value.param == "sigma2"
    with pytest.raises(ParameterError) as exc:
        ridge_error(s, 0.1, 0.1, 0.0)
    assert exc.value.param == "gamma_o"
    with pytest.raises(ParameterError) as exc:
        ridge_error(s, 0.1, 0.1, 1.0, method="quadrature")
    assert exc.value.param == "method"


@pytest.mark.slow
def test_full_layer_C15_general_route_vs_54():
    """The full layer law (C.15) of mha_output_law, normalised by m = γ_O θ₁, through its G
    and G′ against the scalar equation (5.4) (building the law takes ~20 s)."""
    import sympy as sp

    from freeattn.attention import mha_output_law
    from freeattn.readout import mean_one

    law = mean_one(mha_output_law(1.0, 8, 1.0, 1.5, 2.0), 2 * (sp.E - 1))
    s = IndependentKV(1.0, 1.0, 8, 1.5, 2.0)
    lams = np.array([1e-3, 1e-2, 0.3, 5.0])
    np.testing.assert_allclose(ridge_error(law, lams, 0.1, 2.0), ridge_error(s, lams, 0.1, 2.0),
                               rtol=0, atol=1e-10)


# ------------------------------------------------------------ extreme λ (review item 3)
def test_extreme_lambda_limits_scalar_law():
    """λ = 1e300 used to raise "function value at x=0.0 is NaN", λ = 1e-300 a
    ZeroDivisionError.  λ → ∞: w ~ m₁/λ = 1/λ, E → 1; λ → 0: w → 1 − ν({0}) = 1 and (for
    this law, γ_V = 1 = w_max twice: hard edge) E grows like σ² c/sqrt(λ): checked against
    the 30-digit route."""
    nu = IndependentKV(1.0, 1.0, 64, 1.0, 2.0)
    assert ridge_error(nu, 1e300, 0.1, 2.0) == 1.0
    assert dof(nu, 1e300) == pytest.approx(1e-300, rel=1e-15)
    assert dof(nu, 1e30) == pytest.approx(1e-30, rel=1e-15)
    for lam in (1e-30, 1e-160, 1e-300):
        assert dof(nu, lam) == pytest.approx(1.0, abs=1e-14)
        e = ridge_error(nu, lam, 0.1, 2.0)
        assert e == pytest.approx(float(ridge_error(nu, lam, 0.1, 2.0, dps=30)), rel=1e-12)
    e1, e2 = ridge_error(nu, 1e-160, 0.1, 2.0), ridge_error(nu, 1e-300, 0.1, 2.0)
    assert e2 / e1 == pytest.approx(1e70, rel=1e-6)  # E ∝ λ^{-1/2}


def test_tiny_lambda_plateau_independent_kv():
    """γ_V = γ_O = 1.5 > 1 = w_max (simple): E_λ → 1 − 1/γ − σ² w′(0) = 1.45364869307…; the
    float64 solver used to round w to 1 and return 3.3054 for λ ≤ 1e-17 (1.2564 at 1e-16).
    Now solved in the gap ε = 1 − w/w_max (reference: 30 digits)."""
    nu = IndependentKV(1.0, 1.5, 96, gamma_v=1.5, gamma_o=1.5)
    ref = float(ridge_error(nu, 1e-20, 0.1, 1.5, dps=30))
    assert ref == pytest.approx(1.4536486930700607, rel=1e-12)
    for lam in (1e-12, 1e-16, 1e-17, 1e-20, 1e-100, 1e-300):
        assert ridge_error(nu, lam, 0.1, 1.5) == pytest.approx(ref, rel=1e-9)


def test_tied_tiny_lambda_refused_and_general_law_large_lambda():
    """TiedKV: below lam_min = 1e-6 float64 cannot resolve w = w_max − O(λ) → ParameterError
    'lam' (it returned 8.10 at 1e-17, ZeroDivisionError at 1e-100).  General Law: 1 + λG(−λ)
    cancels at large λ; the moment series gives E → 1 (MP_{1/2} returned 0.5 at 1e300)."""
    from freeattn import MarchenkoPastur
    from freeattn._validation import ParameterError

    t = TiedKV(1.0, 1.5, 96, 1.5)
    with pytest.raises(ParameterError) as exc:
        ridge_error(t, 1e-17, 0.1, 1.5)
    assert exc.value.param == "lam"
    assert ridge_error(t, 1e-6, 0.1, 1.5) == pytest.approx(
        float(ridge_error(t, 1e-6, 0.1, 1.5, dps=20)), rel=1e-11)
    assert ridge_error(t, 1e300, 0.1, 1.5) == 1.0
    m = MarchenkoPastur(0.5)
    assert ridge_error(m, 1e300, 0.1, 2.0) == 1.0
    for lam in (1e8, 1e30):
        assert dof(m, lam) == pytest.approx(float(dof(m, lam, dps=30)), rel=1e-14)
        assert dof(m, lam) == pytest.approx(1 / lam - 1.5 / lam ** 2, rel=1e-14)  # m₂ = 1.5


def test_tiny_lambda_engine_route_matches_scalar_route():
    """The same plateau through the engine's algebraic law D_{1/m}(ν ⊠ MP ⊠ π) and G(−λ),
    G′(−λ) at tiny |z| (two independent routes: scalar equation in the gap vs Cauchy transform)."""
    from freeattn.attention import mha_output_law
    from freeattn.readout import mean_one

    law = mean_one(mha_output_law(1.0, 96, 1.5, 1.5, 1.5))
    for lam in (1e-12, 1e-16, 1e-17, 1e-20):
        assert ridge_error(law, lam, 0.1, 1.5) == pytest.approx(1.4536486930700607, rel=1e-9)
