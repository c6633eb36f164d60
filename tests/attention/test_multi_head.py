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
from freeattn.montecarlo import AttentionModel
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


H, GK, GV, GO = 4, sp.Rational(3, 2), sp.Integer(2), sp.Integer(2)


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


def test_mha_output_mass_one(full_layer):
    from scipy import integrate

    assert full_layer.atoms() == []  # γ_V, γ_O > 1 and ν_{∞,h} has no atom at 0
    mass = sum(integrate.quad(full_layer.pdf, a, b, limit=400, epsabs=1e-13)[0]
               for a, b in full_layer.support())
    assert mass == pytest.approx(1.0, abs=1e-9)


def test_mha_output_atom_at_zero():
    # ν_{∞,h} and MP_{1/γ_V} (γ_V > 1) have no atom at 0, π_{γ_O} has 1 − γ_O: the max
    # of the masses (Belinschi 2003) is 1 − min{1, γ_V, γ_O}
    law = mha_output_law(1.0, H, float(GK), float(GV), 0.75)
    atoms = dict(law.atoms())
    assert atoms[0.0] == pytest.approx(0.25, abs=1e-12)


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
    args = dict(beta=1.0, heads=H, gamma_k=1.5, gamma_v=2.0, gamma_o=2.0)
    args.update(kwargs)
    with pytest.raises(ParameterError) as exc:
        mha_output_law(**args)
    assert exc.value.param == param


def test_mha_output_law_matches_monte_carlo(full_layer):
    """n = 320: d_K = γ_K n/h = 120, d_V = 160, d_O = 640; softmax and Gaussian vs the law."""
    from freeattn.montecarlo import check

    cfg = MHAConfig.from_ratios(320, heads=H, gamma_k=1.5, gamma_v=2, gamma_o=2)
    assert cfg.law() is cfg.law()
    res = check(full_layer, AttentionModel.from_config(cfg), draws=2, seed=3, workers=1,
                ks_tol=0.03, rel_w1_tol=0.05)
    assert res.passed, res.summary()
    for kind in ("gqa", "mqa"):
        kv = 2 if kind == "gqa" else None
        model = AttentionModel.from_config(MHAConfig.from_ratios(
            320, heads=H, gamma_k=1.5, gamma_v=2, gamma_o=2, sharing=kind, kv_heads=kv))
        assert check(full_layer, model, draws=1, seed=4, workers=1, ks_tol=0.03).passed


# ---------------------------------------------------------------- tied K = V (C.17)–(C.21)
def kv_jump_moments(h, gk, order=ORDER):
    """m_q(μ_KV) = ∫ φ_KV^q dπ_t, t = γ_K/h, φ_KV(x) = (θ₁ − θ₂)x + (hθ₂/γ_K)x² (C.18), by
    expanding φ^q with the moments of π_t (free cumulants all t)."""
    t = gk / h
    pm = moments_from_free_cumulants(poisson_cumulants(t, 2 * order))
    x = sp.Symbol("x")
    out = []
    for q in range(1, order + 1):
        poly = sp.Poly(sp.expand(((T1 - T2) * x + h * T2 / gk * x**2) ** q), x)
        out.append(sp.expand(sum(c * pm[k - 1] for (k,), c in poly.terms())))
    return out


def tied_values_cumulants(h, gk):
    return [h * m for m in kv_jump_moments(h, gk)]  # π(μ_KV, h): κ_q = h m_q(μ_KV)


@pytest.mark.parametrize("beta,h,gk", [(1.0, 4, sp.Integer(4)), (0.5, 4, sp.Rational(3, 2))])
def test_tied_values_law_moments(beta, h, gk):
    from freeattn.attention.tied import kv_values_law

    law = kv_values_law(beta, h, float(gk))
    assert_moments_equal(law, tied_values_cumulants(h, gk), beta)
    b2 = sp.nsimplify(beta) ** 2
    # (C.20): ‖Z_KV‖_F²/n → γ_K θ₁ + h θ₂
    assert sp.expand(law.exact_moments(1)[0] - (gk * (sp.exp(b2) - 1) + h * b2)) == 0


@pytest.mark.parametrize("h", [1, 4])
def test_tied_value_moments_at_beta_one_full_width(h):
    """App. C.4: β = 1, d_V = d_K = n (γ_K = h): m₁ = h e, m̄₂ = 1 + (2 + 2/e + 2/e²)/h."""
    from freeattn.attention.tied import kv_values_law

    m1, m2 = kv_values_law(1.0, h, h).exact_moments(2)
    e = sp.E
    assert sp.simplify(m1 - h * e) == 0
    assert sp.simplify(m2 / m1**2 - (1 + (2 + 2 / e + 2 / e**2) / h)) == 0


@pytest.fixture(scope="module")
def tied_layer():
    return mha_output_law(1.0, H, float(GK), float(GK), float(GO), sharing="tied_kv")


def test_tied_output_law_moments(tied_layer):
    kappa = boxtimes_free_cumulants(tied_values_cumulants(H, GK), poisson_cumulants(GO))
    assert_moments_equal(tied_layer, dilate_cumulants(kappa, 1 / GK), 1.0)
    m1 = float(tied_layer.mean())
    assert m1 == pytest.approx(float(GO) * (np.e - 1 + H / float(GK)), rel=1e-14)  # App. D.1


def test_tied_differs_from_independent(tied_layer):
    none = mha_output_law(1.0, H, float(GK), float(GK), float(GO))
    assert tied_layer.mean() > none.mean()
    assert tied_layer.support()[0][1] > none.support()[0][1]


def test_tied_output_law_matches_monte_carlo(tied_layer):
    from freeattn.montecarlo import check

    cfg = MHAConfig.from_ratios(320, heads=H, gamma_k=1.5, gamma_o=2, sharing="tied_kv")
    res = check(tied_layer, AttentionModel.from_config(cfg), draws=2, seed=5, workers=1,
                ks_tol=0.03, rel_w1_tol=0.05)
    assert res.passed, res.summary()


# ------------------------------------------------------- Theorem 3.1 from given weights
def _layer(n, h, dk, dv, do, beta, seed):
    """One draw of keys, values, queries, output weights and the softmax MHA^⊥ spectrum."""
    from freeattn.montecarlo import softmax_rows

    rng = np.random.default_rng(seed)
    q = [rng.standard_normal((n, dk)) for _ in range(h)]
    k = [rng.standard_normal((n, dk)) for _ in range(h)]
    v = [rng.standard_normal((n, dv)) for _ in range(h)]
    w_o = rng.standard_normal((h * dv, do)) / np.sqrt(h * dv)
    cols = []
    for r in range(h):
        a = softmax_rows(q[r] @ k[r].T, scale=beta / np.sqrt(dk))
        cols.append((a - 1.0 / n) @ v[r])
    out = np.concatenate(cols, axis=1) @ w_o
    eig = np.linalg.eigvalsh(out @ out.T)
    eig[np.abs(eig) <= 10 * n * np.finfo(float).eps * eig[-1]] = 0.0  # rank h d_V < n
    return k, v, w_o, eig


def test_output_law_from_weights_matches_the_softmax_layer_of_the_same_draw():
    from freeattn.attention import output_law_from_weights, sigma_vo
    from freeattn.montecarlo import ks_distance

    n, h, dk, dv, do = 300, 2, 75, 75, 450
    k, v, w_o, eig = _layer(n, h, dk, dv, do, 1.0, 7)
    s = sigma_vo(k, v, w_o, 1.0)
    law = output_law_from_weights(np.linalg.eigvalsh(s), do / n)
    # mean γ_O m₁(μ_VO) = tr Σ_VO / n, and the softmax spectrum of the same weights
    # (by quadrature: Empirical has no exact_moments, which compound_free_poisson's
    # subordination law asks for)
    assert float(law.moment(1, method="quad")) == pytest.approx(np.trace(s) / n, rel=1e-6)
    assert ks_distance(eig, law) < 0.05
    # near the limit mean γ_O θ₁ of (C.15) at the same ratios (μ_VO is near its limit)
    assert np.trace(s) / n == pytest.approx(do / n * (np.e - 1), rel=0.05)
    with pytest.raises(ParameterError):
        output_law_from_weights([-1.0, 2.0], 1.0)


def test_output_outlier_eq_3_7():
    """s₁(MHA(X))/sqrt(d_O) = ‖1ᵀ[V]W^O‖/sqrt(n d_O) + o(1) → 1 for Gaussian weights."""
    from freeattn.attention import output_outlier
    from freeattn.montecarlo import softmax_rows

    n, h, dk, dv, do = 400, 2, 100, 100, 400
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((h, n, dk)) for _ in range(3))
    w_o = rng.standard_normal((h * dv, do)) / np.sqrt(h * dv)
    a = [softmax_rows(q[r] @ k[r].T, scale=1 / np.sqrt(dk)) for r in range(h)]
    full = np.concatenate([a[r] @ v[r] for r in range(h)], axis=1) @ w_o  # uncentred
    s1 = np.linalg.svd(full, compute_uv=False)[0] / np.sqrt(do)
    pred = output_outlier(np.concatenate(list(v), axis=1), w_o)
    assert s1 == pytest.approx(pred, rel=0.05)
    assert pred == pytest.approx(output_outlier(), rel=0.15)
    with pytest.raises(ValueError):
        output_outlier(np.ones((4, 3)), None)
