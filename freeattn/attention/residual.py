r"""The residual stream R = X + α·√n·MHA(X): its singular-value law and its outlier.

Normalisation.  X is n × d with X Xᵀ = d I_n (orthogonal inputs, rows of norm √d); MHA(X) is
the layer output with d_O = d (so that it can be added to X), Gaussian W^O (Hayase & Karakida
2026, §2).  √n·MHA(X) is the scale of the paper's Gaussian model MHA^G(X) (eq. (3.3): the
softmax head A_r^⊥ ↔ Y_r^G/√n), whose entries are of order one like those of X, so

    R = X + α √n MHA(X),     ν_R = law of the squared singular values of R/√d,

i.e. the n eigenvalues of R Rᵀ/d, zeros included, with λ = n/d = 1/γ_O ∈ (0, 1].  (The
literal X + a·MHA(X) is ``alpha = a/√n``.)  X/√d has all squared singular values 1, and
√n MHA^⊥(X)/√d has the law D_λ ν_MHA (ν_MHA: eq. (C.15), or (C.21) for tied K = V, or
derivations/partial_kv.py for ρ); MHA(X) W-rotated on the right by the Gaussian W^O is
right-orthogonally invariant given everything else, and a left rotation of X is a right
rotation of X, so the two summands are asymptotically free in the rectangular sense and

    ν_R = δ₁ ⊞_λ D_{α²λ} ν_MHA          (Benaych-Georges 2009, PTRF 144).

The centring P = 11ᵀ/n removed by MHA^⊥ is a rank-one term α√n P[V]W^O/√d = θ u vᵀ with
u = 1/√n, |v| = 1 and θ = α√n‖1ᵀ[V]W^O‖/√(nd) → α√n (eq. (3.7)): it leaves the bulk law and
creates one outlier, at the singular value ρ with D(ρ²) = 1/θ², D(y) = G(y)(λyG(y) + 1 − λ) of
the bulk (Benaych-Georges & Nadakuditi 2012, J. Multivariate Anal. 111, Thm 2.8), when
θ² > 1/D(b⁺) (b the right edge); for large θ, ρ² = θ² + (1 + λ) m₁(ν_R) + O(1/θ²).  For true
softmax attention the columns of A_r do not sum to 1 (they sum to c(‖k_j‖), a function of the
key norms), so its common mode is n⁻¹1 cᵀV_r and θ² → α² n F with F > 1 of
:func:`common_mode_factor`; the Gaussian model's is P V_r (θ → α√n).
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

from .._validation import ParameterError, finite_real, integer_at_least, positive
from ..convolution.rectangular import rectangular_free_convolution
from ..laws import PointMass
from ..laws._params import exact
from .config import MHAConfig
from .multi_head import mha_output_law

__all__ = ["residual_law", "residual_outlier", "residual_ratio", "bulk_outlier",
           "common_mode_factor"]

_PARAM_KEYS = ("beta", "heads", "gamma_k", "gamma_v", "gamma_o", "sharing", "kv_heads", "rho")


def _alpha(alpha):
    a = finite_real("alpha", alpha)
    if not a > 0:
        raise ParameterError("alpha", f"alpha must be a finite number > 0 (the weight of the "
                                      f"attention branch), got {alpha!r}")
    return a


def common_mode_factor(beta, d_k, rho=0.0):
    r"""F with θ² = α² n F: the strength of the common mode of true softmax attention.

    The column sums of A_r = softmax(β Q_r K_rᵀ/√d_K) are not 1: as n → ∞ the column of
    token j sums to c(k_j) = (1 + β²/d_K)^{−d_K/2} exp(β²‖k_j‖²/(2(d_K + β²))) (the mean
    over Gaussian queries of the unnormalised weight; E c = 1), so that A_r = n⁻¹ 1 cᵀ + (a
    bulk), and the rank-one common mode of the uncentred residual is α√n n⁻¹ 1 Σ_r cᵀV_rW^O_r,
    of squared norm θ² = α² n E[c(k)² v_ℓ²], v = ρ k + √(1 − ρ²) ξ:

        F = (1 − β⁴/d_K²)^{−d_K/2} (1 + ρ² · 2β²/(d_K − β²))

    (ρ = 1 for tied K = V, 0 for independent K/V; ≈ 1 + β⁴/(2 d_K) for ρ = 0).  The
    Gaussian model's common mode is P V exactly: F = 1 there.  Derived here (Gaussian
    integrals E e^{t‖k‖²} = (1 − 2t)^{−d_K/2}), checked by Monte Carlo in
    tests/residual/test_residual_law.py; it is what the free spiked model at θ = α√n left
    out (its prediction was 0.45 % low at BERT-base, 0.35 % at DINOv3-L/16).

    Parameters
    ----------
    beta : float > 0
    d_k : float > β²
    rho : float in [0, 1]
    """
    b2 = positive("beta", beta) ** 2
    dk = positive("d_k", d_k)
    if not dk > b2:
        raise ParameterError("d_k", f"d_k must exceed beta² = {b2:g} (the column sums' second "
                                    f"moment is infinite otherwise), got {d_k!r}")
    r = finite_real("rho", rho)
    if not 0 <= abs(r) <= 1:
        raise ParameterError("rho", f"rho must lie in [-1, 1], got {rho!r}")
    return (1 - b2 * b2 / dk ** 2) ** (-dk / 2) * (1 + r * r * 2 * b2 / (dk - b2))


def _common_mode(cfg_or_parameters):
    """F of :func:`common_mode_factor` for a configuration or a parameter dict (with n)."""
    if isinstance(cfg_or_parameters, MHAConfig):
        cfg = cfg_or_parameters
        rho = 1.0 if cfg.tied else (cfg.rho or 0.0)
        return common_mode_factor(cfg.beta, cfg.d_k, rho)
    p = cfg_or_parameters
    d_k = float(p["gamma_k"]) * int(p["n"]) / int(p["heads"])
    rho = 1.0 if p.get("sharing") == "tied_kv" else float(p.get("rho") or 0.0)
    return common_mode_factor(float(p["beta"]), d_k, rho)


def _parameters(cfg_or_parameters):
    """(mha law, λ, n or None, description) of a configuration or a parameter dict."""
    if isinstance(cfg_or_parameters, MHAConfig):
        cfg = cfg_or_parameters
        if cfg.d_o != cfg.d:
            raise ParameterError("d_o", f"the residual X + α√n MHA(X) needs d_o == d = {cfg.d}, "
                                        f"got d_o = {cfg.d_o}")
        return cfg.law("mha"), sp.Rational(cfg.n, cfg.d), cfg.n, cfg.to_dict()
    if not isinstance(cfg_or_parameters, dict):
        raise TypeError(f"cfg_or_parameters must be an MHAConfig or a dict of the parameters "
                        f"of mha_output_law, got {type(cfg_or_parameters).__name__}")
    params = dict(cfg_or_parameters)
    extra = set(params) - set(_PARAM_KEYS) - {"n"}
    if extra:
        raise ParameterError(sorted(extra)[0], f"unknown parameter(s) {sorted(extra)}; allowed: "
                                               f"{_PARAM_KEYS + ('n',)}")
    n = params.pop("n", None)
    n = None if n is None else integer_at_least("n", n, 2)
    for key in ("beta", "heads", "gamma_k", "gamma_o"):
        if key not in params:
            raise ParameterError(key, f"missing parameter {key!r} of the layer")
    params.setdefault("gamma_v", params["gamma_k"])
    gamma_o = exact(positive("gamma_o", params["gamma_o"]), "gamma_o")
    if gamma_o < 1:
        raise ParameterError("gamma_o", f"the residual needs d_O = d >= n, i.e. gamma_o >= 1 "
                                        f"(λ = n/d = 1/gamma_o in (0, 1]), got {params['gamma_o']!r}")
    law = mha_output_law(**params)
    return law, 1 / gamma_o, n, params


def residual_ratio(cfg_or_parameters):
    """λ = n/d of the residual stream (= 1/γ_O with d_O = d), exact."""
    return _parameters(cfg_or_parameters)[1]


def residual_law(cfg_or_parameters, alpha, method=None):
    """Law of the squared singular values of R/√d, R = X + α √n MHA(X) (bulk, n → ∞).

    Parameters
    ----------
    cfg_or_parameters : MHAConfig or dict
        A layer with d_O = d (e.g. ``MHAConfig.preset("bert-base")``), or the parameters of
        :func:`~freeattn.attention.mha_output_law` (``beta``, ``heads``, ``gamma_k``,
        ``gamma_v``, ``gamma_o`` ≥ 1, ``sharing``, ``kv_heads``, ``rho``); λ = 1/γ_O.  Every
        sharing kind ('none', 'gqa', 'mqa', 'tied_kv', and ρ) goes through its own MHA law.
    alpha : float > 0
        Weight of the attention branch at the scale of the Gaussian model (√n MHA(X) ≈
        MHA^G(X), eq. (3.3)); the literal X + a·MHA(X) is ``alpha = a/√n``.
    method : {None, "subordination", "algebraic"}
        Route of :func:`~freeattn.convolution.rectangular.rectangular_free_convolution`
        (default "subordination": the exact eliminant of the full layer is too large for a
        fast law).

    Returns
    -------
    Law
        δ₁ ⊞_λ D_{α²λ} ν_MHA on [0, ∞), λ = n/d, mass 1; mean 1 + α² λ m₁(ν_MHA)
        (= 1 + α² θ₁ for independent K/V).  The eigenvalues of R Rᵀ/d, all n counted, the
        one outlier of the uncentred R excepted (see :func:`residual_outlier`).
        ``law.describes == "residual"``, ``law.params`` holds the layer and α.

    Raises
    ------
    ParameterError
        For α ≤ 0, d_O ≠ d (γ_O < 1), or a layer parameter outside its domain.

    Notes
    -----
    Benaych-Georges 2009 (rectangular R-transform, ⊞_λ); Hayase & Karakida 2026,
    arXiv 2610.10033, eqs. (3.3), (C.15), (C.21) for ν_MHA.  Module docstring: the derivation.
    """
    a = _alpha(alpha)
    mha, lam, n, desc = _parameters(cfg_or_parameters)
    scale = exact(a, "alpha") ** 2 * lam
    nu = mha.dilate(scale)
    law = rectangular_free_convolution(PointMass(1), nu, lam,
                                       method=method or "subordination")
    law.name = f"residual_law(alpha={float(a):g}, λ={float(lam):.6g}; {mha.name})"
    law.describes = "residual"
    law.params = dict(desc, alpha=float(a), ratio=float(lam))
    return law


def bulk_outlier(law, ratio, spike):
    """Outlier of the squared singular values of B + θ u vᵀ for a bulk law (rank-one spike).

    Parameters
    ----------
    law : Law on [0, ∞)
        Law of the squared singular values of the n × p bulk B (n/p = λ).
    ratio : float in (0, 1]
        λ.
    spike : float > 0
        θ, the singular value of the rank-one perturbation (u, v unit vectors in general
        position).

    Returns
    -------
    float
        ρ², the squared singular value with D(ρ²) = 1/θ², D(y) = G(y)(λ y G(y) + 1 − λ)
        (Benaych-Georges & Nadakuditi 2012, Thm 2.8), or the right edge b when
        θ² ≤ 1/D(b⁺) (no outlier).
    """
    from scipy.optimize import brentq

    lam = float(ratio)
    theta = positive("spike", spike)
    b = max(e for _, e in law.support()) if law.support() else 0.0
    b = max([b] + [float(x) for x, _ in law.atoms()])

    def D(y):
        g = complex(law.cauchy_transform(complex(y)))
        return (g * (lam * y * g + 1 - lam)).real

    target = 1 / theta ** 2
    lo = b * (1 + 1e-9) + 1e-12
    if D(lo) <= target:
        return b
    m1 = float(law.mean())
    hi = theta ** 2 + (1 + lam) * m1 + 2 * b + 1
    while D(hi) > target:
        hi *= 2
    return brentq(lambda y: D(y) - target, lo, hi, xtol=1e-14 * hi, rtol=1e-15)


def residual_outlier(cfg_or_parameters, alpha, spike=None, law=None, model="softmax"):
    """Location of the top singular value of R/√d for the **uncentred** residual stream.

    Parameters
    ----------
    cfg_or_parameters : MHAConfig or dict (with ``n`` when a dict)
    alpha : float > 0
    spike : float, optional
        θ, the singular value of the rank-one common mode of one draw; default its limit
        α √(n F) (``model="softmax"``, F of :func:`common_mode_factor`: the column sums of
        softmax attention) or α √n (``model="gaussian"``: the common mode P V of eq. (3.7) of
        Hayase & Karakida 2026).
    law : Law, optional
        The bulk law (default :func:`residual_law`).
    model : {"softmax", "gaussian"}
        Which model's common mode sets the default spike.

    Returns
    -------
    float
        ρ = s₁(R/√d) in the limit, from the rectangular spiked model (Benaych-Georges &
        Nadakuditi 2012, Thm 2.8): D(ρ²) = 1/θ², D(y) = G(y)(λyG(y) + 1 − λ) of the bulk
        law ν_R (their D_μ(x) = φ(x)(λφ(x) + (1 − λ)/x), φ(x) = x G(x²), at x = ρ).

    Raises
    ------
    ParameterError
        For α ≤ 0, or a dict without ``n`` and no ``spike``.
    """
    a = _alpha(alpha)
    if model not in ("softmax", "gaussian"):
        raise ParameterError("model", f"model must be 'softmax' or 'gaussian', got {model!r}")
    _, lam, n, _ = _parameters(cfg_or_parameters)
    if spike is None:
        if n is None:
            raise ParameterError("n", "the outlier needs the context length n (give an MHAConfig, "
                                      "n in the dict, or spike=)")
        factor = _common_mode(cfg_or_parameters) if model == "softmax" else 1.0
        spike = a * math.sqrt(n * factor)
    law = law if law is not None else residual_law(cfg_or_parameters, a)
    return math.sqrt(bulk_outlier(law, lam, spike))
