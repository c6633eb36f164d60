"""Partial key–value correlation W^V_r = ρ W^K_r + sqrt(1 − ρ²) W̃_r (beyond Hayase & Karakida 2026).

With d_V = d_K and W̃_r an independent copy of W^K_r (i.i.d. N(0, 1/d) entries), ρ ∈ [0, 1]
interpolates between independent values (ρ = 0, eq. (C.15)) and tied values W^V_r = W^K_r
(ρ = 1, eq. (C.21)).  Derived in ``derivations/partial_kv.py``; the notation is that of
Hayase & Karakida 2026 (arXiv 2610.10033): θ₁ = e^{β²} − 1, θ₂ = β², γ_K = h d_K/n = γ_V,
γ_O = d_O/n, and t = γ_K/h = d_K/n.

The jump law.  By Theorem 3.1 (and its values-stage form, Prop. C.5 / Cor. C.7) only the
per-head covariance Σ_{V,r} = V_rᵀ Σ_{G,r} V_r / n (d_K × d_K, Σ_{G,r} = θ₂ K_r K_rᵀ/d_K +
(θ₁ − θ₂) I_n) matters; its eigenvalue law μ_ρ is the jump law.  With V = ρK + sK̃
(s = sqrt(1 − ρ²)) and conditioning on K, V is a signal ρK plus an independent Gaussian noise
sK̃ seen through Σ_G — an information-plus-noise matrix with a variance profile that commutes
with the signal (Hachem, Loubaton & Najim 2007).  Its Cauchy transform is G_{μ_ρ}(z) = −δ̃
where, with f(λ) = θ₁ − θ₂ + (θ₂/t) λ, L = MP_t (the law of KᵀK/n, mean 1) and π_t (that of
KKᵀ/n),

    δ̃ = ∫ dL(λ) / [ −z(1 + δ) + ρ² λ f(λ) / (1 + s² t δ̃ f(λ)) ],
    δ = s² ∫ dπ_t(λ) f(λ) / [ −z(1 + s² t δ̃ f(λ)) + ρ² λ f(λ) / (1 + δ) ].

Eliminating δ (the integrals of rational functions against MP_t are rational in G_{MP_t} at
the two roots of a quadratic) leaves one irreducible polynomial (degree 7 in G, 4 in z) for
the dilated law μ̂ = D_{1/(θ₁−θ₂)} μ_ρ, whose coefficients involve only

    κ = θ₂ / (t (θ₁ − θ₂)),   t = γ_K / h,   r = ρ²

(:data:`JUMP_POLYNOMIAL`).  The layer laws then follow as in Prop. C.5 and (C.21):

    Z_V = [A_1^⊥ V_1, …, A_h^⊥ V_h]   →  π(μ_ρ, γ_K),                 mean γ_K θ₁ + ρ² h θ₂
    MHA^⊥(X), W^O = G_O/sqrt(h d_K)  →  D_{1/γ_K}(π(μ_ρ, γ_K) ⊠ π_{γ_O}), mean γ_O(θ₁ + ρ² h θ₂/γ_K)

atom at 0 of the layer law: 1 − min{1, γ_K, γ_O} for every ρ.  The first moment (and the
readout normalisation m = lim ‖MHA^⊥‖_F²/n) is linear in ρ², but the law is *not* a mixture
of the independent and tied laws: m₂(μ_ρ) has a ρ⁴ term (derivations/partial_kv.py).
"""
from __future__ import annotations

import sympy as sp

from ..laws._params import exact
from . import _jump_law as J
from ._jump_law import JUMP_POLYNOMIAL, KAPPA, R, T, jump_polynomial  # noqa: F401  (public here)
from .domains import (BETA, GAMMA_K, GAMMA_O, RHO_RANGE, check_heads, check_rho,
                      check_rho_layer, exact_value)

__all__ = ["JUMP_POLYNOMIAL", "RHO_RANGE", "jump_polynomial", "check_rho", "check_rho_layer",
           "partial_kv_jump_law",
           "partial_kv_values_law", "partial_kv_output_law", "partial_kv_mean"]


def _args(beta, heads, gamma_k, rho):
    """(β, h, γ_K, ρ) validated once; β, γ_K, ρ exact."""
    return (exact_value(BETA, beta), check_heads(heads), exact_value(GAMMA_K, gamma_k),
            check_rho(rho))


def _name(function, beta, heads, gamma_k, rho, gamma_o=None):
    go = "" if gamma_o is None else f"gamma_o={float(gamma_o):g}, "
    return (f"{function}(beta={float(beta):g}, heads={heads}, gamma_k={float(gamma_k):g}, "
            f"{go}rho={float(rho):g})")


def _with_free_poisson(beta, heads, gamma_k, rho, gamma_o):
    """The layer elimination of :mod:`._jump_law` at the exact values of the given numbers
    (P, values, θ₁ − θ₂), unvalidated (tests compare its FLINT and sympy routes)."""
    return J._with_free_poisson(exact(beta), heads, exact(gamma_k), exact(rho),
                                None if gamma_o is None else exact(gamma_o))


def partial_kv_mean(beta, heads, gamma_k, gamma_o, rho):
    """Exact mean γ_O(θ₁ + ρ² h θ₂/γ_K) of the layer law: the readout normalisation
    m = lim ‖MHA^⊥(X)‖_F²/n (Hayase & Karakida 2026, eq. (C.24)) at correlation ρ.

    Raises
    ------
    ParameterError
        For a parameter outside its domain.
    """
    beta, heads, gamma_k, rho = _args(beta, heads, gamma_k, rho)
    gamma_o = exact_value(GAMMA_O, gamma_o)
    b2 = beta ** 2
    return gamma_o * (sp.exp(b2) - 1 + rho ** 2 * heads * b2 / gamma_k)


def partial_kv_jump_law(beta, heads, gamma_k, rho, *, _generic=False):
    """The jump law μ_ρ: eigenvalue law of Σ_{V,r} = V_rᵀ Σ_{G,r} V_r / n with partially tied
    values V_r = ρ K_r + sqrt(1 − ρ²) K̃_r.

    Parameters
    ----------
    beta : float in [0.01, 4]
    heads : int in [1, 10000]
    gamma_k : float in [1e-3, 1e3]
        γ_K = h d_K / n (= γ_V: d_V = d_K).
    rho : float in [0, 1]
        Key–value correlation ρ of W^V_r = ρ W^K_r + sqrt(1 − ρ²) W̃_r.

    Returns
    -------
    AlgebraicLaw
        μ_ρ (d_K × d_K eigenvalues, mass 1, atom max{0, 1 − h/γ_K} at 0); mean
        θ₁ + ρ² h θ₂/γ_K.  ρ = 0: D_t π(ρ_t, 1/t) (Hayase & Karakida 2026, proof of Prop. C.5);
        ρ = 1: (λ ↦ (θ₁ − θ₂)λ + (θ₂/t)λ²)_# MP_t (the d_K × d_K form of μ_KV, (C.18)).

    Raises
    ------
    ParameterError
        For a parameter outside its domain (``rho`` outside [0, 1] included).

    Notes
    -----
    0 < ρ < 1: the polynomial :data:`JUMP_POLYNOMIAL` (derived in derivations/partial_kv.py,
    beyond the paper), dilated by θ₁ − θ₂.  At ρ = 1 its leading coefficient vanishes, so the
    end points use the constructions of the paper.
    """
    beta, heads, gamma_k, rho = _args(beta, heads, gamma_k, rho)
    law = J.jump_law(beta, heads, gamma_k, rho, generic=_generic)
    law.name = _name("partial_kv_jump_law", beta, heads, gamma_k, rho)
    return law


def partial_kv_values_law(beta, heads, gamma_k, rho, *, _generic=False):
    """Limit law of the squared singular values of Z_V = [A_1^⊥ V_1, …, A_h^⊥ V_h] with
    V_r = X W^V_r, W^V_r = ρ W^K_r + sqrt(1 − ρ²) W̃_r.

    Parameters
    ----------
    beta : float in [0.01, 4]
    heads : int in [1, 10000]
    gamma_k : float in [1e-3, 1e3]
        γ_K = h d_K / n = γ_V.
    rho : float in [0, 1]

    Returns
    -------
    Law
        π(μ_ρ, γ_K) (mass 1, atom max{0, 1 − γ_K} at 0), mean γ_K θ₁ + ρ² h θ₂;
        ρ = 0 is :func:`values_law` (Prop. C.5), ρ = 1 :func:`kv_values_law` (eq. (C.19)).

    Raises
    ------
    ParameterError
        For a parameter outside its domain.

    Notes
    -----
    Beyond Hayase & Karakida 2026; derived in derivations/partial_kv.py.
    """
    beta, heads, gamma_k, rho = _args(beta, heads, gamma_k, rho)
    law = J.values(beta, heads, gamma_k, rho, generic=_generic)
    b, g = float(beta), float(gamma_k)
    law.name = _name("partial_kv_values_law", beta, heads, gamma_k, rho)
    law.params = {"beta": b, "heads": heads, "gamma_k": g, "gamma_v": g, "tied": False,
                  "rho": float(rho)}
    law.describes = "values"
    return law


def partial_kv_output_law(beta, heads, gamma_k, gamma_o, rho, *, _generic=False):
    """Limit law of the squared singular values of MHA^⊥(X) with partially tied values.

    Parameters
    ----------
    beta : float in [0.01, 4]
        Inverse temperature.
    heads : int in [1, 10000]
        Number of heads h.
    gamma_k, gamma_o : float in [1e-3, 1e3]
        γ_K = h d_K / n (= γ_V, d_V = d_K) and γ_O = d_O / n.
    rho : float in [0, 1]
        Correlation of W^V_r = ρ W^K_r + sqrt(1 − ρ²) W̃_r (W̃_r an independent copy).

    Returns
    -------
    Law
        D_{1/γ_K}(π(μ_ρ, γ_K) ⊠ π_{γ_O}) with Gaussian W^O = G_O/sqrt(h d_K): mass 1, atom
        1 − min{1, γ_K, γ_O} at 0, mean γ_O(θ₁ + ρ² h θ₂/γ_K) (the readout normalisation m).
        ρ = 0 is (C.15) with γ_V = γ_K, ρ = 1 is (C.21).

    Raises
    ------
    ParameterError
        For a parameter outside its domain (``rho`` outside [0, 1] included).

    Notes
    -----
    Beyond Hayase & Karakida 2026; derived in derivations/partial_kv.py (Gaussian-equivalent
    model of their Theorem 3.1; jump law from a Hachem–Loubaton–Najim (2007) deterministic
    equivalent, eliminated to :data:`JUMP_POLYNOMIAL`; first three moments checked against a
    Wick expansion of the Gaussian model).  Normalised variance and everything else follow
    from the law object.

    Examples
    --------
    >>> law = partial_kv_output_law(1.0, 4, 1.5, 2.0, 0.6)
    >>> round(float(law.mean()), 10)   # γ_O (θ₁ + ρ² h θ₂/γ_K) = 2 (e − 1 + 0.96)
    5.3565636569
    """
    beta, heads, gamma_k, rho = _args(beta, heads, gamma_k, rho)
    gamma_o = exact_value(GAMMA_O, gamma_o)
    law = J.output(beta, heads, gamma_k, gamma_o, rho, generic=_generic)
    law.name = _name("partial_kv_output_law", beta, heads, gamma_k, rho, gamma_o)
    return law
