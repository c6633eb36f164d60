"""Multi-head laws: head average, values, full layer (C.15), sharing and within-head tying.

Every law here is assembled from the core's law objects and operations (ρ_t, MP_y, π_t,
⊠, compound free Poisson, dilation); nothing is re-derived by hand.  Notation of
Hayase & Karakida 2026 (arXiv 2610.10033), Theorem 3.1 and App. C: θ₁ = e^{β²} − 1, θ₂ = β²,
γ_K = h d_K / n, γ_V = h d_V / n, γ_O = d_O / n, ρ_t = (x ↦ θ₁ − θ₂ + θ₂ x)_# MP_{1/t},
ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h}.

=====================================  =====================================  ===========
matrix (n rows)                         limit law                              source
=====================================  =====================================  ===========
sqrt(n h)(Ā − P), independent keys     ρ_{γ_K} ⊠ π₁                           Prop. C.6
sqrt(n h)(Ā − P), one shared key       ρ_{γ_K/h} ⊠ π₁                         App. C.1.5
Z_V = [A_1^⊥ V_1, …, A_h^⊥ V_h]         ν_{∞,h} ⊠ π_{γ_V}                      Prop. C.5
MHA^⊥(X), independent/MQA/GQA K,V      ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O}         (C.15)
Z_KV = [A_1^⊥ K_1, …, A_h^⊥ K_h]        π(μ_KV, h)                             (C.19)
MHA^⊥(X), W^V_r = W^K_r                 D_{1/γ_K}(π(μ_KV, h) ⊠ π_{γ_O})         (C.21)
MHA^⊥(X), any weights                   π(μ_VO, γ_O)                           Thm 3.1
=====================================  =====================================  ===========
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

from .._validation import ParameterError, positive
from ..convolution import compound_free_poisson, free_multiplicative_convolution
from ..laws.empirical import Empirical
from ..laws.marchenko_pastur import FreePoisson
from . import _constructions as C
from . import _jump_law as J
from .domains import (BETA, GAMMA_K, GAMMA_O, GAMMA_V, KV_HEADS, SHARINGS, check_flag,
                      check_heads,
                      check_rho_layer, check_sharing, exact_value, same_ratio)
from ._constructions import theta1, theta2

__all__ = ["SHARINGS", "head_average_law", "values_law", "mha_output_law",
           "output_outlier", "check_sharing", "sigma_vo", "output_law_from_weights"]

#: a layer law's two Poisson ratios (γ_V or γ_K against γ_O, the smaller below 1) closer than
#: this, relative, but not equal, are refused (issue 21 item 18).  Their atoms at 0 have
#: masses 1 − γ that nearly coincide: the layer law's continuous part then starts at a hard
#: edge ε ≈ c·(γ − γ_O)² next to the atom at 0 (c ≈ 0.57 at β = 1, h = 2, γ_K = 1.5; ε = 1.4e-7
#: for 0.5005 against 0.5, 2e-5 of the next interval), where |G| ~ 1/ε and the roots of P(·, x)
#: that the branch is told from are ~1e-4 apart relative: companion eigenvalues (double
#: precision) no longer separate them, the continuation toward the edge stops short of the edge
#: expansion's radius, and the float64 mass check refined its panels for > 100 s (the 30-digit
#: pdf took another sheet there too, 5.9e-68 for 121 at 7.8e-10 from the edge).  Measured:
#: relative 3e-3 builds in 1.5 s, 2e-3 and 1e-3 (and h = 8, γ_V < γ_O, the ρ and tied laws at
#: 1e-3) did not finish in 30 s; at 1e-2 some points (β = 0.3, h = 1) already fail the mass
#: check (a clear error).  Equal ratios (no gap: the density blows up at 0) build normally.
NEAR_EQUAL_RATIO_RTOL = 1e-2


def _check_ratio_gap(name, gamma, gamma_o):
    """ParameterError ``name`` where γ (γ_V, or γ_K for the tied and ρ laws) and γ_O differ
    by less than :data:`NEAR_EQUAL_RATIO_RTOL` relative but are not equal, the smaller < 1."""
    lo = min(float(gamma), float(gamma_o))
    if lo >= 1 or same_ratio(gamma, gamma_o):
        return
    rel = abs(float(gamma) - float(gamma_o)) / lo
    if rel < NEAR_EQUAL_RATIO_RTOL:
        raise ParameterError(name, (
            f"{name} = {float(gamma):g} and gamma_o = {float(gamma_o):g} differ by {rel:.3g} "
            f"relative (below {NEAR_EQUAL_RATIO_RTOL:g}, not equal): the atoms at 0 of masses "
            f"1 - {name} and 1 - gamma_o nearly coincide and the gap they open at 0, of width "
            f"~({name} - gamma_o)^2, is not resolved in float64; use {name} == gamma_o or a "
            f"relative difference of at least {NEAR_EQUAL_RATIO_RTOL:g}"))


def head_average_law(beta, gamma_k, heads, shared_key=False, kv_heads=None):
    """Limit law of the squared singular values of sqrt(n h)(Ā − P), Ā = (1/h) Σ_r A_r.

    Parameters
    ----------
    beta : float in [0.01, 4]
        Inverse temperature.
    gamma_k : float in [1e-3, 1e3]
        γ_K = h d_K / n.
    heads : int in [1, 10000]
        Number of query heads h.
    shared_key : bool, default False
        All heads use one key matrix (h_KV = 1).
    kv_heads : int, optional
        Number h_KV of distinct key matrices (dividing h), each shared by h/h_KV heads; the
        general case of which ``shared_key`` is h_KV = 1 (default h, or 1 if ``shared_key``).

    Returns
    -------
    AlgebraicLaw
        ρ_{γ_K h_KV / h} ⊠ π₁: ρ_{γ_K} ⊠ π₁ for independent keys (Prop. C.6), ρ_{γ_K/h} ⊠ π₁ for
        one shared key (Hayase & Karakida 2026, App. C.1.5); mean θ₁.

    Raises
    ------
    ParameterError
        For a parameter outside its domain (named in ``.param``).

    Notes
    -----
    Theorem 3.1 with Σ_VO = h^{-1} Σ_r Σ_{G,r}: the key average (1/h) Σ_r K_r K_rᵀ/d_K is a
    Gaussian Gram of aspect ratio h_KV d_K / n = γ_K h_KV / h, and π(ρ, 1) = ρ ⊠ π₁.
    """
    beta, gamma_k = exact_value(BETA, beta), exact_value(GAMMA_K, gamma_k)
    heads = check_heads(heads)
    shared_key = check_flag("shared_key", shared_key)
    if kv_heads is None:
        kv_heads = 1 if shared_key else heads
    else:
        kv_heads = KV_HEADS.validate(kv_heads)
        if heads % kv_heads or (shared_key and kv_heads != 1):
            raise ParameterError("kv_heads", f"kv_heads must divide heads={heads} (and be 1 "
                                             f"with shared_key=True), got {kv_heads}")
    t = gamma_k * sp.Rational(kv_heads, heads)
    law = free_multiplicative_convolution(C.rho_law(beta, t), FreePoisson(1))
    b, g = float(beta), float(gamma_k)
    return C.named(law, f"head_average_law(beta={b:g}, gamma_k={g:g}, heads={heads}, "
                        f"kv_heads={kv_heads})", "head_average",
                   beta=b, gamma_k=g, heads=heads, kv_heads=kv_heads)


def values_law(beta, heads, gamma_k, gamma_v):
    """Limit law of the squared singular values of Z_V = [A_1^⊥ V_1, …, A_h^⊥ V_h].

    Parameters
    ----------
    beta : float in [0.01, 4]
    heads : int in [1, 10000]
    gamma_k, gamma_v : float in [1e-3, 1e3]
        γ_K = h d_K / n and γ_V = h d_V / n.

    Returns
    -------
    AlgebraicLaw
        ν_{∞,h} ⊠ π_{γ_V}, mean γ_V θ₁ (Hayase & Karakida 2026, Prop. C.5).  Independent
        Gaussian values; sharing values or keys across heads (MQA/GQA) leaves it unchanged.

    Raises
    ------
    ParameterError
        For a parameter outside its domain.
    """
    beta, heads = exact_value(BETA, beta), check_heads(heads)
    gamma_k, gamma_v = exact_value(GAMMA_K, gamma_k), exact_value(GAMMA_V, gamma_v)
    law = C.independent_values(beta, heads, gamma_k, gamma_v)
    b, g, gv = float(beta), float(gamma_k), float(gamma_v)
    return C.named(law, f"values_law(beta={b:g}, heads={heads}, gamma_k={g:g}, "
                        f"gamma_v={gv:g})", "values",
                   beta=b, heads=heads, gamma_k=g, gamma_v=gv, tied=False)


def mha_output_law(beta, heads, gamma_k, gamma_v, gamma_o, sharing="none", kv_heads=None,
                   rho=None):
    """Limit law of the squared singular values of the centred layer output MHA^⊥(X).

    Parameters
    ----------
    beta : float in [0.01, 4]
        Inverse temperature.
    heads : int in [1, 10000]
        Number of query heads h.
    gamma_k, gamma_v, gamma_o : float in [1e-3, 1e3]
        γ_K = h d_K / n, γ_V = h d_V / n, γ_O = d_O / n.  ``sharing='tied_kv'`` needs
        γ_V = γ_K (d_V = d_K).
    sharing : {'none', 'gqa', 'mqa', 'tied_kv'}, default 'none'
        See :func:`check_sharing`.
    kv_heads : int, optional
        Number of K/V heads (required for 'gqa').
    rho : float in [0, 1], optional
        Within-head key–value correlation W^V_r = ρ W^K_r + sqrt(1 − ρ²) W̃_r (needs
        γ_V = γ_K); composes with 'none', 'gqa', 'mqa' (across-head sharing leaves the law
        unchanged).  ρ = 0 is the independent law, ρ = 1 the tied law (with 'tied_kv', ``rho``
        must be None or 1).  Beyond the paper: see
        :func:`freeattn.attention.partial_kv.partial_kv_output_law`.

    Returns
    -------
    Law
        'none', 'gqa', 'mqa': ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O} (Hayase & Karakida 2026, eq. (C.15)),
        mean γ_O θ₁; across-head sharing leaves the limit unchanged at fixed h and widths.
        Atom at 0 of mass 1 − min{1, γ_V, γ_O} (ν_{∞,h} has none; (μ ⊠ η)({0}) =
        max{μ({0}), η({0})}, Belinschi 2003).
        'tied_kv': D_{1/γ_K}(π(μ_KV, h) ⊠ π_{γ_O}) (eq. (C.21)), mean γ_O(θ₁ + hθ₂/γ_K), atom
        1 − min{1, γ_K, γ_O} at 0.
        ``rho`` given: D_{1/γ_K}(π(μ_ρ, γ_K) ⊠ π_{γ_O}) (derivations/partial_kv.py), mean
        γ_O(θ₁ + ρ² hθ₂/γ_K), atom 1 − min{1, γ_K, γ_O} at 0.

    Raises
    ------
    ParameterError
        For a parameter outside its domain, an unknown ``sharing``, a ``kv_heads`` that does
        not fit it, γ_V ≠ γ_K with 'tied_kv' or ``rho``, ``rho`` outside [0, 1], or ρ ≠ 1
        with 'tied_kv'.

    Notes
    -----
    Gaussian value weights W^V_r (N(0, 1/d)) and output weights W^O = G_O/sqrt(h d_V).  The
    normalised variance of the result is m₂/m₁² − 1 = 1/h + 1/γ_V + 1/γ_O + θ₂²/(γ_K θ₁²)
    (eq. (C.16)) for 'none'/'gqa'/'mqa'.
    """
    beta, heads = exact_value(BETA, beta), check_heads(heads)
    gamma_k, gamma_v = exact_value(GAMMA_K, gamma_k), exact_value(GAMMA_V, gamma_v)
    gamma_o = exact_value(GAMMA_O, gamma_o)
    kv = check_sharing(sharing, heads, kv_heads)
    b, g, gv, go = float(beta), float(gamma_k), float(gamma_v), float(gamma_o)
    params = dict(beta=b, heads=heads, gamma_k=g, gamma_v=gv, gamma_o=go, sharing=sharing,
                  kv_heads=kv)
    name = (f"mha_output_law(beta={b:g}, heads={heads}, gamma_k={g:g}, gamma_v={gv:g}, "
            f"gamma_o={go:g}, sharing={sharing!r})")
    if rho is not None:
        rho = check_rho_layer(rho, sharing, gamma_k, gamma_v)
        _check_ratio_gap("gamma_k", gamma_k, gamma_o)
        params["rho"] = float(rho)
        law = J.output(beta, heads, gamma_k, gamma_o, rho)
        return C.named(law, name[:-1] + f", rho={float(rho):g})", "mha", **params)
    if sharing == "tied_kv":
        if not same_ratio(gamma_k, gamma_v):
            raise ParameterError("gamma_v", f"sharing='tied_kv' (W^V = W^K) needs gamma_v == "
                                            f"gamma_k = {g:g}, got {gv:g}")
        _check_ratio_gap("gamma_k", gamma_k, gamma_o)
        law = C.tied_output(beta, heads, gamma_k, gamma_o)
    else:
        _check_ratio_gap("gamma_v", gamma_v, gamma_o)
        law = C.independent_output(beta, heads, gamma_k, gamma_v, gamma_o)
    return C.named(law, name, "mha", **params)


def output_outlier(values=None, w_o=None):
    """Leading singular value of the uncentred output, divided by sqrt(d_O) (eq. (3.7)).

    s₁(MHA(X))/sqrt(d_O) = ‖1ᵀ[V_1, …, V_h] W^O‖₂ / sqrt(n d_O) + o(1)
    (Hayase & Karakida 2026, Theorem 3.1, proved in their App. B.10).

    Parameters
    ----------
    values : ndarray of shape (n, h d_V), optional
        The concatenated values [V_1, …, V_h] (repeated blocks for shared K/V heads).
    w_o : ndarray of shape (h d_V, d_O), optional
        Output weight W^O.

    Returns
    -------
    float
        With both arrays: ‖1ᵀ[V] W^O‖/sqrt(n d_O).  Without them: 1.0, the almost-sure limit
        for Gaussian weights (V_r with N(0, 1) entries, W^O = G_O/sqrt(h d_V); with sharing or
        tying too), since 1ᵀV_r/sqrt(n) has N(0, 1) entries and ‖u G_O‖²/(d_O ‖u‖²) → 1.

    Raises
    ------
    ValueError
        If only one array is given, or their shapes do not chain.
    """
    if values is None and w_o is None:
        return 1.0
    if values is None or w_o is None:
        raise ValueError("give both values and w_o, or neither (the Gaussian-weight limit)")
    values, w_o = np.asarray(values, dtype=float), np.asarray(w_o, dtype=float)
    if values.ndim != 2 or w_o.ndim != 2 or values.shape[1] != w_o.shape[0]:
        raise ValueError(f"values (n, h d_V) and w_o (h d_V, d_O) must chain, got shapes "
                         f"{values.shape} and {w_o.shape}")
    n, d_o = values.shape[0], w_o.shape[1]
    return float(np.linalg.norm(values.sum(axis=0) @ w_o) / math.sqrt(n * d_o))


def sigma_vo(keys, values, w_o, beta):
    """The conditional row covariance Σ_VO of the Gaussian layer (Hayase & Karakida 2026, (3.5)).

    Σ_VO = (1/n) W^Oᵀ V_⊕ᵀ Σ_G V_⊕ W^O with Σ_G = ⊕_r (θ₂ K_r K_rᵀ/d_K + (θ₁ − θ₂) I_n).

    Parameters
    ----------
    keys : sequence of h arrays of shape (n, d_K)
        K_r = X W^K_r per query head (repeat a shared key matrix for MQA/GQA).
    values : sequence of h arrays of shape (n, d_V)
        V_r = X W^V_r per query head.
    w_o : array of shape (h d_V, d_O)
        Output weight W^O.
    beta : float > 0

    Returns
    -------
    ndarray of shape (d_O, d_O), symmetric positive semi-definite.

    Raises
    ------
    ValueError
        If the numbers of heads or the shapes do not chain.
    """
    t1, t2 = theta1(beta), theta2(beta)
    keys = [np.asarray(k, dtype=float) for k in keys]
    values = [np.asarray(val, dtype=float) for val in values]
    w_o = np.asarray(w_o, dtype=float)
    if len(keys) != len(values) or not keys:
        raise ValueError(f"keys and values must list the same h >= 1 heads, got {len(keys)} "
                         f"and {len(values)}")
    n = keys[0].shape[0]
    if any(k.ndim != 2 or k.shape[0] != n for k in keys + values):
        raise ValueError("every K_r and V_r must be a 2-d array with n rows")
    dv = values[0].shape[1]
    if any(val.shape[1] != dv for val in values) or w_o.ndim != 2 \
            or w_o.shape[0] != len(values) * dv:
        raise ValueError(f"w_o must have shape (h d_V, d_O) = ({len(values) * dv}, d_O), got "
                         f"{w_o.shape}")
    out = np.zeros((w_o.shape[1], w_o.shape[1]))
    for r, (k, val) in enumerate(zip(keys, values)):
        vw = val @ w_o[r * dv:(r + 1) * dv]  # V_r W^O_r, (n, d_O)
        kv = k.T @ vw  # K_rᵀ V_r W^O_r
        out += (t2 / k.shape[1]) * (kv.T @ kv) + (t1 - t2) * (vw.T @ vw)
    out /= n
    return (out + out.T) / 2


def output_law_from_weights(sigma_vo_eigenvalues, gamma_o, method=None):
    """Output law π(μ_VO, γ_O) of Theorem 3.1 from the eigenvalues of a given Σ_VO.

    Parameters
    ----------
    sigma_vo_eigenvalues : array_like of float >= 0, shape (d_O,)
        Eigenvalues of Σ_VO (eq. (3.5); e.g. from :func:`sigma_vo` with trained weights);
        values below 10 d_O ε max|λ| (round-off of a rank-deficient Σ_VO) count as 0.
    gamma_o : float > 0
        γ_O = d_O / n.
    method : {None, 'subordination'}
        Passed to :func:`freeattn.convolution.compound_free_poisson`.

    Returns
    -------
    Law
        The compound free Poisson law of the empirical law of the eigenvalues: the limit of
        ν_{MHA^⊥(X)} and of ν_{n^{-1/2} MHA^G(X)} when μ_{Σ_VO} → μ_VO (Hayase & Karakida 2026,
        Theorem 3.1, eq. (3.6)); mean γ_O m₁(μ_VO).

    Raises
    ------
    ParameterError
        For empty, non-finite or negative eigenvalues, or a bad ``gamma_o``.
    """
    eig = np.asarray(sigma_vo_eigenvalues, dtype=float).ravel()
    if eig.size and np.all(np.isfinite(eig)) and eig.min() < -1e-12 * max(1.0, abs(eig).max()):
        raise ParameterError("sigma_vo_eigenvalues", f"sigma_vo_eigenvalues must be >= 0 "
                                                     f"(Σ_VO is a covariance), got min {eig.min():g}")
    gamma_o = positive("gamma_o", gamma_o)
    if eig.size and np.all(np.isfinite(eig)):
        # numerical zeros (rank-deficient Σ_VO: h d_V < d_O) are exact zeros, so that the
        # atom of π(μ_VO, γ_O) at 0, max(0, 1 − γ_O(1 − μ_VO({0}))), is seen
        eig = np.where(eig <= 10 * eig.size * np.finfo(float).eps * np.abs(eig).max(), 0.0, eig)
    return compound_free_poisson(Empirical(eig), gamma_o, method=method)
