"""Exact parameters stay exact through every attention builder (issue 21, item 4).

``attention_law(sympy.Rational(1, 10), 1).support(dps=40)`` gave 0.0676505571453436400394…,
the edge for the binary double 0.1 (the builders cast β and γ to float); the edge at β = 1/10
is 0.06765055714534363251191871130495514553984.  The right values here are computed
independently of the law machinery: the edge as the critical value of the rational
uniformisation z(ζ) (derivations/attention_uniformization.py) at 50 digits, the edges of a
push-forward of a free Poisson law in closed form, and the closed-form means of Hayase &
Karakida 2026, App. C.
"""
from decimal import Decimal
from fractions import Fraction as F

import mpmath
import pytest
import sympy as sp

from freeattn.attention import (MHAConfig, attention_law, head_average_law, kv_law,
                                kv_values_law, mha_output_law, partial_kv_output_law,
                                partial_kv_values_law, values_law)

with mpmath.workdps(60):
    EDGE_BETA_TENTH = mpmath.mpf("0.06765055714534363251191871130495514553984")
    FLOAT_EDGE = mpmath.mpf("0.06765055714534364003941656185484880591671")


def _err(got, want, relative=False):
    """|got − want| (relative: / |want|) at 60 digits (the default context has 15)."""
    with mpmath.workdps(60):
        d = abs(mpmath.mpf(got) - mpmath.mpf(want))
        return d / abs(mpmath.mpf(want)) if relative else d


def _uniformisation_edge(beta2, gamma_k, heads, dps=50):
    """Right edge of ν_{∞,h} as the critical value of z(ζ) = (1 + ζR)(1 + ζR/h)/ζ,
    R(ζ) = θ₁ − θ₂ + θ₂/(1 − θ₂ζ/γ_K) (eq. (C.10)); the Stieltjes branch is ζ → 0+, and z
    decreases from +∞ to the right edge at the first critical point ζ* > 0."""
    with mpmath.workdps(dps):
        th2, t, h = (mpmath.mpf(F(v).numerator) / F(v).denominator
                     for v in (beta2, gamma_k, heads))
        th1 = mpmath.expm1(th2)

        def zeta_to_z(q):
            w = q * (th1 - th2 + th2 / (1 - th2 * q / t))
            return (1 + w) * (1 + w / h) / q

        def slope(q):
            return mpmath.diff(zeta_to_z, q)

        pole = t / th2  # R has a pole there: the first critical point lies in (0, pole)
        grid = [pole * k / 4000 for k in range(1, 4000)]
        q0 = next(q for q, r in zip(grid, grid[1:]) if slope(q) < 0 <= slope(r))
        return +zeta_to_z(mpmath.findroot(slope, q0))


def test_the_reference_edge_is_the_critical_value_of_the_uniformisation():
    edge = _uniformisation_edge(F(1, 100), 1, 1)
    assert _err(edge, EDGE_BETA_TENTH) < 1e-40


@pytest.mark.parametrize("beta", [sp.Rational(1, 10), F(1, 10), Decimal("0.1"),
                                  sp.Float("0.1", 60)])
def test_attention_law_at_exact_beta_tenth(beta):
    right = attention_law(beta, 1).support(dps=40)[-1][1]
    assert _err(right, EDGE_BETA_TENTH) < 1e-38


def test_the_double_nearest_to_a_tenth_is_its_own_law():
    """A float is its binary value (0.1 = 3602879701896397/2**55): not rounded to 1/10."""
    right = attention_law(0.1, 1).support(dps=40)[-1][1]
    assert _err(right, FLOAT_EDGE) < 1e-38
    assert _err(right, EDGE_BETA_TENTH) > 1e-18


def test_concatenated_heads_and_an_exact_ratio():
    """Second instance of the kind: h = 3 and γ_K = 1/3 (a ratio no float represents)."""
    want = _uniformisation_edge(F(9, 100), F(1, 3), 3)
    right = attention_law(F(3, 10), F(1, 3), 3).support(dps=40)[-1][1]
    assert _err(right, want, relative=True) < 1e-37
    # γ_K = h d_K / n = 3·3/30 = 3/10: the configuration hands the law the exact ratio
    cfg = MHAConfig(n=30, heads=3, d_k=3, beta=F(3, 10))
    want_cfg = _uniformisation_edge(F(9, 100), F(3, 10), 3)
    right_cfg = cfg.law("attention").support(dps=40)[-1][1]
    assert _err(right_cfg, want_cfg, relative=True) < 1e-37


def test_kv_law_edges_in_closed_form():
    """μ_KV = φ_KV# π_{γ_K/h}, φ_KV(x) = (θ₁ − θ₂)x + (hθ₂/γ_K)x² increasing on [0, ∞): its
    edges are φ((1 ± sqrt(s))²), s = γ_K/h (eq. (C.18)); β = 1/10, h = 1, γ_K = 1/2."""
    with mpmath.workdps(50):
        th2 = mpmath.mpf(1) / 100
        c1, c2 = mpmath.expm1(th2) - th2, th2 / mpmath.mpf("0.5")
        s = mpmath.mpf("0.5")
        phi = lambda x: c1 * x + c2 * x * x  # noqa: E731
        want = [phi((1 - mpmath.sqrt(s)) ** 2), phi((1 + mpmath.sqrt(s)) ** 2)]
    (a, b), = kv_law(F(1, 10), 1, F(1, 2)).support(dps=40)
    assert _err(a, want[0], relative=True) < 1e-38 and _err(b, want[1], relative=True) < 1e-38
    (fa, fb), = kv_law(0.1, 1, 0.5).support(dps=40)
    assert _err(fb, want[1], relative=True) > 1e-20  # the double 0.1 is another law


with mpmath.workdps(60):
    _TH2 = mpmath.mpf(1) / 100
    _TH1 = mpmath.expm1(_TH2)


#: builder at β = 1/10 (exact) → closed-form mean at β = 1/10 (Hayase & Karakida 2026, App. C;
#: derivations/partial_kv.py for ρ)
with mpmath.workdps(60):  # the means at 60 digits (Fraction × mpf rounds to the context)
    MEANS = {
        "attention_law": (lambda b: attention_law(b, F(1, 2), 3), _TH1),
        "head_average_law": (lambda b: head_average_law(b, F(1, 2), 4, kv_heads=2), _TH1),
        "values_law": (lambda b: values_law(b, 2, F(3, 2), F(1, 3)), _TH1 / 3),
        "mha_output_law": (lambda b: mha_output_law(b, 2, F(3, 2), F(1, 3), F(5, 4)),
                           F(5, 4) * _TH1),
        "mha_output_law tied_kv": (lambda b: mha_output_law(b, 2, F(3, 2), F(3, 2), F(5, 4),
                                                            sharing="tied_kv"),
                                   F(5, 4) * (_TH1 + 2 * _TH2 / F(3, 2))),
        "kv_values_law": (lambda b: kv_values_law(b, 2, F(3, 2)), F(3, 2) * _TH1 + 2 * _TH2),
        "partial_kv_values_law": (lambda b: partial_kv_values_law(b, 2, F(3, 2), F(3, 5)),
                                  F(3, 2) * _TH1 + F(9, 25) * 2 * _TH2),
        "partial_kv_output_law": (lambda b: partial_kv_output_law(b, 2, F(3, 2), F(5, 4),
                                                                  F(3, 5)),
                                  F(5, 4) * (_TH1 + F(9, 25) * 2 * _TH2 / F(3, 2))),
        "MHAConfig.law": (lambda b: MHAConfig(n=8, heads=2, d_k=6, d_o=10, beta=b).law(),
                          F(10, 8) * _TH1),
        "MHAConfig.law rho": (lambda b: MHAConfig(n=8, heads=2, d_k=6, d_o=10, beta=b,
                                                  rho=Decimal("0.6")).law(),
                              F(10, 8) * (_TH1 + F(9, 25) * 2 * _TH2 / F(3, 2))),
    }


@pytest.mark.parametrize("name", list(MEANS))
def test_every_builder_keeps_exact_input_exact(name):
    build, mean = MEANS[name]
    got = build(F(1, 10)).moment(1, dps=40)
    assert _err(got, mean, relative=True) < 1e-38
    # the double 0.1 (θ₂ = 0.01000000000000000055…) is off by ~1e-18 relative: a float cast of
    # an exact input would fail the line above
    assert _err(build(0.1).moment(1, dps=40), mean, relative=True) > 1e-20


def test_mhaconfig_keeps_the_exact_values_for_the_law_and_floats_for_the_model():
    from freeattn.montecarlo import AttentionModel

    cfg = MHAConfig(n=8, heads=2, d_k=6, beta=F(1, 10), rho=F(3, 5))
    assert cfg.beta == 0.1 and cfg.rho == 0.6 and isinstance(cfg.beta, float)
    assert cfg.to_dict()["beta"] == 0.1
    model = AttentionModel.from_config(cfg)
    assert isinstance(model.beta, float) and model.config is cfg
    assert model.law() is cfg.law()
    # the float configuration is another law (and another cache entry)
    other = MHAConfig(n=8, heads=2, d_k=6, beta=0.1, rho=0.6)
    assert other.law() is not cfg.law()
    assert other.law().moment(1, dps=40) != cfg.law().moment(1, dps=40)
