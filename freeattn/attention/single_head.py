"""The attention law ν_{∞,h} of softmax attention (single head and head concatenation)."""
from __future__ import annotations

from . import _constructions as C
from ._constructions import c_beta, theta1, theta2  # noqa: F401  (public here)
from ._constructions import exact_build as _exact_build  # noqa: F401  (tests compare with it)
from .domains import BETA, BETA_POSITIVE, GAMMA_K, T, check_heads, exact_value

__all__ = ["theta1", "theta2", "c_beta", "rho_law", "attention_law"]


def rho_law(beta, t):
    """ρ_t = (x ↦ θ₁ − θ₂ + θ₂ x)_# MP_{1/t} (Hayase & Karakida 2026, eq. (C.8)).

    Parameters
    ----------
    beta : real number > 0
        Inverse temperature (exact input stays exact).
    t : real number > 0
        Width ratio (γ_K for a head concatenation).

    Raises
    ------
    ParameterError
        ('beta', 't') for a value that is not a finite number > 0.

    Returns
    -------
    AlgebraicLaw
        Mean θ₁; R-transform R(z) = θ₁ − θ₂ + θ₂/(1 − θ₂ z/t).
    """
    return C.rho_law(exact_value(BETA_POSITIVE, beta), exact_value(T, t))


def attention_law(beta, gamma_k, heads=1):
    """Limiting law ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h} of the squared singular values of
    sqrt(n/h)·[A_1 − P, …, A_h − P] (h = 1: of sqrt(n)(A − 11ᵀ/n)).

    Parameters
    ----------
    beta : real number in [0.01, 4]
        Inverse temperature β of A = softmax(β S), S = Q Kᵀ/sqrt(d_K).  Exact input (int,
        Fraction, Decimal, sympy, mpmath) stays exact; a float is its binary value.
    gamma_k : real number in [1e-3, 1e3]
        γ_K = h d_K / n (exact input stays exact).
    heads : int in [1, 10000]
        Number of heads h.

    Returns
    -------
    AlgebraicLaw
        Mean θ₁ = e^{β²} − 1, second moment (1 + 1/h)θ₁² + θ₂²/γ_K.

    Raises
    ------
    ParameterError
        If beta is outside [0.01, 4], gamma_k outside [1e-3, 1e3], heads not an integer in
        [1, 10000], or any is NaN (the domain in which float64 edges and atoms are verified,
        declared in :mod:`freeattn.attention.domains`).
    TypeError
        If a parameter is not a real number (strings and booleans are refused).

    Notes
    -----
    Hayase & Karakida 2026, eqs. (C.8)–(C.11); for h = 1 the single-head law of Hayase,
    Collins & Karakida (AISTATS 2026).  Not Marchenko–Pastur: the right edge exceeds 4θ₁.

    Examples
    --------
    >>> law = attention_law(1.0, 1.0)
    >>> round(law.support()[0][1], 10)
    9.0095425504
    """
    beta, gamma_k = exact_value(BETA, beta), exact_value(GAMMA_K, gamma_k)
    heads = check_heads(heads)
    b, g = float(beta), float(gamma_k)
    return C.named(C.nu(beta, gamma_k, heads),
                   f"attention_law(beta={b:g}, gamma_k={g:g}, heads={heads})",
                   "attention", beta=b, gamma_k=g, heads=heads)
