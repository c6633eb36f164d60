"""Multi-head laws (Hayase & Karakida 2026, App. C) against independent references.

References: exact moments from free cumulants (freeattn.transforms.cumulants, Nica & Speicher
2006) with θ₁, θ₂ as sympy symbols, then θ₁ = e^{β²} − 1, θ₂ = β² substituted; the closed
forms (C.11) and (C.16); atom masses from Belinschi's rule; Monte Carlo of the finite softmax
and Gaussian models at small n.
"""
import numpy as np
import pytest
import sympy as sp

from freeattn import MHAConfig, head_average_law, mha_output_law, values_law
from freeattn._validation import ParameterError
from freeattn.attention import attention_law
from freeattn.transforms.cumulants import (boxtimes_free_cumulants, dilate_cumulants,
                                           moments_from_free_cumulants)

T1, T2 = sp.symbols("theta1 theta2", positive=True)
ORDER = 4


def rho_cumulants(t, order=ORDER):
    """ρ_t: R(z) = θ₁ − θ₂ + θ₂/(1 − θ₂ z/t), so κ₁ = θ₁, κ_{q} = θ₂^q / t^{q−1} (q ≥ 2)."""
    return [T1] + [T2**q / t ** (q - 1) for q in range(2, order + 1)]


def mp_cumulants(y, order=ORDER):
    """MP_y (mean one, ratio y): κ_q = y^{q−1}."""
    return [y ** (q - 1) for q in range(1, order + 1)]


def poisson_cumulants(t, order=ORDER):
    """π_t: κ_q = t."""
    return [t] * order


def attention_cumulants(h, gk):
    return boxtimes_free_cumulants(rho_cumulants(gk), mp_cumulants(sp.Rational(1, h)))


def assert_moments_equal(law, kappa, beta):
    ref = moments_from_free_cumulants(kappa)
    b2 = sp.nsimplify(beta) ** 2
    got = law.exact_moments(ORDER)
    for k, (g, r) in enumerate(zip(got, ref), start=1):
        r = sp.expand(r.subs({T1: sp.exp(b2) - 1, T2: b2}))
        assert sp.expand(g - r) == 0, (k, g, r)


H, GK, GV, GO = 4, sp.Rational(3, 2), sp.Rational(5, 4), sp.Rational(3, 4)


def test_attention_law_moments_c11_exact():
    law = attention_law(1.0, float(GK), H)
    m1, m2 = moments_from_free_cumulants(attention_cumulants(H, GK))[:2]
    assert sp.expand(m1 - T1) == 0
    assert sp.expand(m2 - ((1 + sp.Rational(1, H)) * T1**2 + T2**2 / GK)) == 0  # (C.11)
    assert_moments_equal(law, attention_cumulants(H, GK), 1.0)


@pytest.mark.parametrize("kv", [H, 2, 1])
def test_head_average_moments(kv):
    law = head_average_law(1.0, float(GK), H, kv_heads=kv)
    kappa = boxtimes_free_cumulants(rho_cumulants(GK * sp.Rational(kv, H)), poisson_cumulants(1))
    assert_moments_equal(law, kappa, 1.0)
    if kv == 1:
        shared = head_average_law(1.0, float(GK), H, shared_key=True)
        assert shared.exact_moments(3) == law.exact_moments(3)


def test_values_law_moments():
    law = values_law(0.5, H, float(GK), float(GV))
    kappa = boxtimes_free_cumulants(attention_cumulants(H, GK), poisson_cumulants(GV))
    assert_moments_equal(law, kappa, 0.5)
    assert law.mean() == pytest.approx(float(GV) * (np.exp(0.25) - 1), rel=1e-14)


@pytest.fixture(scope="module")
def full_layer():
    return mha_output_law(1.0, H, float(GK), float(GV), float(GO))


def test_mha_output_moments_and_c16(full_layer):
    kappa = boxtimes_free_cumulants(
        boxtimes_free_cumulants(attention_cumulants(H, GK), mp_cumulants(1 / GV)),
        poisson_cumulants(GO))
    assert_moments_equal(full_layer, kappa, 1.0)
    m1, m2 = moments_from_free_cumulants(kappa)[:2]
    c16 = 1 / sp.Integer(H) + 1 / GV + 1 / GO + T2**2 / (GK * T1**2)
    assert sp.simplify(m2 / m1**2 - 1 - c16) == 0  # (C.16), exact in θ₁, θ₂


def test_mha_output_atom_at_zero(full_layer):
    # ν_{∞,h} and MP_{1/γ_V} (γ_V > 1) have no atom at 0, π_{γ_O} has 1 − γ_O: the max
    # of the masses (Belinschi 2003) is 1 − min{1, γ_V, γ_O}
    atoms = dict(full_layer.atoms())
    assert atoms[0.0] == pytest.approx(1 - min(1, float(GV), float(GO)), abs=1e-12)
    mass = sum(atoms.values())
    from scipy import integrate
    for a, b in full_layer.support():
        mass += integrate.quad(full_layer.pdf, a, b, limit=400, epsabs=1e-13)[0]
    assert mass == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("sharing,kv", [("mqa", None), ("gqa", 2)])
def test_across_head_sharing_leaves_the_law_unchanged(full_layer, sharing, kv):
    law = mha_output_law(1.0, H, float(GK), float(GV), float(GO), sharing=sharing, kv_heads=kv)
    a, b = full_layer.support()[0]
    x = np.linspace(a, b, 201)
    np.testing.assert_allclose(law.pdf(x), full_layer.pdf(x), rtol=0, atol=1e-12)
    assert law.support() == full_layer.support()
    assert law.atoms() == full_layer.atoms()


@pytest.mark.parametrize("kwargs,param", [
    (dict(sharing="mqq"), "sharing"),
    (dict(sharing="gqa"), "kv_heads"),
    (dict(sharing="gqa", kv_heads=3), "kv_heads"),
    (dict(sharing="mqa", kv_heads=2), "kv_heads"),
    (dict(sharing="none", kv_heads=2), "kv_heads"),
    (dict(sharing="tied_kv"), "gamma_v"),
    (dict(beta=5.0), "beta"),
    (dict(gamma_o=0.0), "gamma_o"),
])
def test_mha_output_law_refuses(kwargs, param):
    args = dict(beta=1.0, heads=H, gamma_k=1.5, gamma_v=1.25, gamma_o=0.75)
    args.update(kwargs)
    with pytest.raises(ParameterError) as exc:
        mha_output_law(**args)
    assert exc.value.param == param


def test_mha_output_law_matches_monte_carlo(full_layer):
    """n = 320: d_K = γ_K n/h = 120, d_V = 100, d_O = 240; softmax and Gaussian vs the law."""
    from freeattn.montecarlo import check

    cfg = MHAConfig.from_ratios(320, heads=H, gamma_k=1.5, gamma_v=1.25, gamma_o=0.75)
    assert cfg.law() is cfg.law()
    res = check(full_layer, cfg.model(), draws=2, seed=3, workers=1, ks_tol=0.03,
                rel_w1_tol=0.05)
    assert res.passed, res.summary()
    for kind in ("gqa", "mqa"):
        kv = 2 if kind == "gqa" else None
        model = MHAConfig.from_ratios(320, heads=H, gamma_k=1.5, gamma_v=1.25, gamma_o=0.75,
                                      sharing=kind, kv_heads=kv).model()
        assert check(full_layer, model, draws=1, seed=4, workers=1, ks_tol=0.03).passed
