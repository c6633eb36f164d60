"""§C.4: effective degrees of freedom at strong regularisation, (C.22) and (C.23).

Hayase & Karakida 2026 (arXiv 2610.10033), Section C.4.  For a mean-one law ν̄ with moments
m̄₂, m̄₃, the identity x/(x + λ) = x/λ − x²/λ² + x³/(λ²(x + λ)) gives (C.22)

    w_ν̄(λ) = 1/λ − m̄₂/λ² + R(λ),    0 ≤ R(λ) ≤ m̄₃/λ³,

and, for independent Gaussian K/V (ν = ν_{∞,h} ⊠ π_{γ_V}, optionally ⊠ π_{γ_O}),
m̄₂ = 1 + 1/h + 1/γ_V (+ 1/γ_O) + c_β²/γ_K, so two head counts h₂ > h₁ differ by (C.23)

    w_{ν̄_{h₂}}(λ) − w_{ν̄_{h₁}}(λ) = (1/h₁ − 1/h₂)/λ² + O(λ⁻³) > 0.

The section's comparison at β = 1, d_V = d_K = n (γ_V = γ_K = h), without output projection:
independent values m₁ = h(e − 1), m̄₂ = 1 + (2 + (e − 1)⁻²)/h; tied values (μ_KV = φ_KV# π₁,
φ_KV(x) = (e − 2)x + x²) m₁ = h e, m̄₂ = 1 + (2 + 2e⁻¹ + 2e⁻²)/h.
"""
from __future__ import annotations

import math

from .. import _validation as v
from ..attention import c_beta, theta1, theta2
from ..transforms.cumulants import moments_from_s_transform_series, s_transform_series
from ..readout import IndependentKV, dof

__all__ = ["normalised_moments", "dof_expansion", "head_count_gap", "tied_versus_independent",
           "PUBLISHED", "compute", "summary"]

#: the section's closed forms at β = 1 (quoted for comparison; recomputed below)
PUBLISHED = {"m1_ind": "h(e - 1)", "mbar2_ind": "1 + (2 + (e - 1)^-2)/h", "m1_tied": "h e",
             "mbar2_tied": "1 + (2 + 2/e + 2/e^2)/h", "m1_mu_kv": "e",
             "m2_mu_kv": "2e^2 + 2e + 2"}


def _series_product(a, b):
    return [sum(a[i] * b[k - i] for i in range(k + 1)) for k in range(len(a))]


def _mp_factor(t, order):
    """S-transform series of the mean-one MP law of ratio 1/t: S(w) = 1/(1 + w/t)."""
    return [(-1.0 / t) ** k for k in range(order)]


def normalised_moments(beta, gamma_k, heads, gamma_v=None, gamma_o=None, order=3):
    """Moments m̄₁ = 1, m̄₂, …, m̄_order of the mean-one readout law of independent K/V.

    ν̄ = D_{1/m₁}(ν_{∞,h} [⊠ π_{γ_V} [⊠ π_{γ_O}]]): attention alone, values, or the layer.

    Parameters
    ----------
    beta : float > 0
    gamma_k, heads : float > 0
        γ_K and h (a real h interpolates the formula).
    gamma_v, gamma_o : float > 0 or None
        None drops the factor (γ_O needs γ_V).
    order : {1, 2, 3}

    Returns
    -------
    list of float
        ``[1, m̄₂, m̄₃][:order]``; m̄₂ = 1 + 1/h + c_β²/γ_K (+ 1/γ_V)(+ 1/γ_O) (§C.4, (C.16)).

    Notes
    -----
    The attention factor's mean-one moments m̄₂ = 1 + 1/h + c²/γ_K and
    m̄₃ = 1 + 3(1/h + c²/γ_K) + 1/h² + 3c²/(γ_K h) + c³/γ_K² (§C.6.1); the factors multiply as
    S-transforms, S_{MP_{1/t}}(w) = 1/(1 + w/t) (:mod:`freeattn.transforms.cumulants`).
    """
    beta = v.positive("beta", beta)
    gk = v.positive("gamma_k", gamma_k)
    h = v.positive("heads", heads)
    if gamma_o is not None and gamma_v is None:
        raise v.ParameterError("gamma_v", "gamma_v is required when gamma_o is given")
    order = v.positive_integer("order", order)
    if order > 3:
        raise v.ParameterError("order", f"order must be at most 3, got {order}")
    c = c_beta(beta)
    a = 1 / h + c * c / gk
    att = [1.0, 1 + a, 1 + 3 * a + 1 / h ** 2 + 3 * c * c / (gk * h) + c ** 3 / gk ** 2]
    s = s_transform_series(att)
    for t in (gamma_v, gamma_o):
        if t is not None:
            s = _series_product(s, _mp_factor(v.positive("gamma", t), 3))
    return [float(x) for x in moments_from_s_transform_series(s)][:order]


def dof_expansion(lam, mbar2, mbar3=None):
    """(C.22): the two-term expansion 1/λ − m̄₂/λ² of w_ν̄(λ) and the remainder's bounds.

    Parameters
    ----------
    lam : float > 0
    mbar2 : float >= 1
        Second moment of the mean-one law.
    mbar3 : float, optional
        Its third moment; then the bounds [0, m̄₃/λ³] of the remainder.

    Returns
    -------
    dict
        ``two_term`` = 1/λ − m̄₂/λ²; with ``mbar3`` also ``low`` = two_term and
        ``high`` = two_term + m̄₃/λ³ (w_ν̄(λ) lies in [low, high] for every λ > 0).
    """
    lam = v.positive("lam", lam)
    mbar2 = v.positive("mbar2", mbar2)
    out = {"two_term": 1 / lam - mbar2 / lam ** 2}
    if mbar3 is not None:
        out.update(low=out["two_term"], high=out["two_term"] + v.positive("mbar3", mbar3)
                   / lam ** 3)
    return out


def head_count_gap(lam, h1, h2):
    """(C.23): the leading term (1/h₁ − 1/h₂)/λ² of w_{ν̄_{h₂}}(λ) − w_{ν̄_{h₁}}(λ).

    All other parameters fixed; positive for h₂ > h₁ (more heads: more effective degrees of
    freedom per token at strong regularisation).
    """
    lam = v.positive("lam", lam)
    h1, h2 = v.positive("h1", h1), v.positive("h2", h2)
    return (1 / h1 - 1 / h2) / lam ** 2


def _free_poisson_moments(t, order=4):
    """Moments of π_t (rate t, jump 1): Σ_k N(q, k) t^k, N the Narayana numbers."""
    out = []
    for q in range(1, order + 1):
        out.append(sum(math.comb(q, k) * math.comb(q, k - 1) / q * t ** k
                       for k in range(1, q + 1)))
    return out


def tied_versus_independent(beta, gamma_k, heads):
    """First moment and normalised second moment of Z_V: independent values vs V_r = K_r.

    γ_V = γ_K (d_V = d_K), no output projection.  Independent: ν_{∞,h} ⊠ π_{γ_V},
    m₁ = γ_K θ₁, m̄₂ from :func:`normalised_moments`.  Tied: π(μ_KV, h), μ_KV = φ_KV# π_{γ_K/h},
    φ_KV(x) = (θ₁ − θ₂) x + (h θ₂/γ_K) x² (C.18), m₁ = h m₁(μ_KV) = γ_K θ₁ + h θ₂ (C.20),
    m̄₂ = 1 + m₂(μ_KV)/(h m₁(μ_KV)²) by (C.5).

    Returns
    -------
    dict with ``m1_ind``, ``mbar2_ind``, ``m1_tied``, ``mbar2_tied``, ``m1_mu_kv``,
    ``m2_mu_kv``.
    """
    beta = v.positive("beta", beta)
    gk = v.positive("gamma_k", gamma_k)
    h = v.positive("heads", heads)
    th1, th2 = theta1(beta), theta2(beta)
    p1, p2, p3, p4 = _free_poisson_moments(gk / h)
    a, b = th1 - th2, h * th2 / gk
    m1_mu = a * p1 + b * p2
    m2_mu = a * a * p2 + 2 * a * b * p3 + b * b * p4
    return {"m1_ind": gk * th1, "mbar2_ind": normalised_moments(beta, gk, h, gk, order=2)[1],
            "m1_tied": h * m1_mu, "mbar2_tied": 1 + m2_mu / (h * m1_mu ** 2),
            "m1_mu_kv": m1_mu, "m2_mu_kv": m2_mu}


LAMBDAS = (10.0, 30.0, 100.0, 300.0, 1000.0)


def compute(beta=1.0, gamma_k=1.0, heads=(4, 16), gamma_v=1.0, gamma_o=None,
            lambdas=LAMBDAS):
    """(C.22) against the exact w_ν̄(λ) of the scalar equation (5.4), (C.23) for two head
    counts, and the β = 1 tied/independent comparison of §C.4 at h = heads[0]."""
    h1, h2 = heads
    rows = {}
    for h in heads:
        m = normalised_moments(beta, gamma_k, h, gamma_v, gamma_o)
        law = IndependentKV(beta, gamma_k, h, gamma_v, gamma_o)
        rows[str(h)] = {"mbar2": m[1], "mbar3": m[2], "points": [
            dict(lam=lam, w=float(dof(law, lam)), **dof_expansion(lam, m[1], m[2]))
            for lam in lambdas]}
    gaps = []
    for i, lam in enumerate(lambdas):
        exact = rows[str(h2)]["points"][i]["w"] - rows[str(h1)]["points"][i]["w"]
        gaps.append({"lam": lam, "difference": exact, "leading": head_count_gap(lam, h1, h2)})
    tied = {str(h): tied_versus_independent(1.0, h, h) for h in heads}
    closed = {str(h): {"mbar2_ind": 1 + (2 + (math.e - 1) ** -2) / h,
                       "mbar2_tied": 1 + (2 + 2 / math.e + 2 / math.e ** 2) / h,
                       "m1_ind": h * (math.e - 1), "m1_tied": h * math.e} for h in heads}
    return {"section": "C.4", "beta": beta, "gamma_k": gamma_k, "gamma_v": gamma_v,
            "gamma_o": gamma_o, "heads": list(heads), "expansion": rows, "gap": gaps,
            "tied_vs_independent_beta1": tied, "closed_forms_beta1": closed,
            "published": PUBLISHED}


def summary(res):
    h1, h2 = res["heads"]
    lines = [f"Section C.4 (Hayase & Karakida 2026): beta = {res['beta']:g}, gamma_K = "
             f"{res['gamma_k']:g}, gamma_V = {res['gamma_v']}, gamma_O = {res['gamma_o']}"]
    for h, row in res["expansion"].items():
        lines.append(f" h = {h}: mbar2 = {row['mbar2']:.10g}, mbar3 = {row['mbar3']:.10g}")
        lines.append("   lambda   w exact (5.4)     (C.22) 1/l - mbar2/l^2   bound + mbar3/l^3")
        for p in row["points"]:
            ok = p["low"] <= p["w"] <= p["high"]
            lines.append(f"   {p['lam']:6g}  {p['w']:.12e}  {p['two_term']:.12e}  "
                         f"{p['high']:.12e}  {'in' if ok else 'OUT OF'} bounds")
    lines.append(f" (C.23) w_h{h2} - w_h{h1} against (1/{h1} - 1/{h2})/lambda^2:")
    for g in res["gap"]:
        lines.append(f"   {g['lam']:6g}  {g['difference']:.6e}  {g['leading']:.6e}  ratio "
                     f"{g['difference'] / g['leading']:.6f}")
    lines.append(" beta = 1, d_V = d_K = n (gamma_V = gamma_K = h), values without W^O:")
    for h, t in res["tied_vs_independent_beta1"].items():
        c = res["closed_forms_beta1"][h]
        lines.append(f"   h = {h}: m1 ind {t['m1_ind']:.10g} (h(e-1) = {c['m1_ind']:.10g}), "
                     f"tied {t['m1_tied']:.10g} (he = {c['m1_tied']:.10g})")
        lines.append(f"          mbar2 ind {t['mbar2_ind']:.10g} (paper "
                     f"{c['mbar2_ind']:.10g}), tied {t['mbar2_tied']:.10g} (paper "
                     f"{c['mbar2_tied']:.10g})")
    t = next(iter(res["tied_vs_independent_beta1"].values()))
    lines.append(f"   m1(mu_KV) = {t['m1_mu_kv']:.10g} (e = {math.e:.10g}), m2(mu_KV) = "
                 f"{t['m2_mu_kv']:.10g} (2e^2 + 2e + 2 = {2 * math.e ** 2 + 2 * math.e + 2:.10g})")
    return lines
