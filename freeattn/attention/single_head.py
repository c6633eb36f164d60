"""The attention law ν_{∞,h} of softmax attention (single head and head concatenation)."""
from __future__ import annotations

import math

import sympy as sp

from .._validation import ParameterError, in_closed_interval, integer_at_least, positive
from ..convolution import free_multiplicative_convolution
from ..laws import MarchenkoPastur
from ..laws._params import exact

# The laws' parameter domain (β in [0.01, 4], γ in [1e-3, 1e3], h <= 10 000) is declared once
# in config.py, beside the finite models' β range, with the reason for each bound.
from .config import BETA_LAW_RANGE, GAMMA_RANGE, MAX_HEADS

__all__ = ["theta1", "theta2", "c_beta", "rho_law", "attention_law"]


def theta1(beta):
    """θ₁ = e^{β²} − 1, the variance of the feature f(χ) = e^{βχ − β²/2} − 1, χ ~ N(0, 1).

    Raises ValueError if beta is not a finite number > 0.  Source: Hayase, Collins & Karakida (AISTATS 2026); Hayase & Karakida 2026, eq. (3.2).
    """
    beta = positive("beta", beta)
    return math.expm1(beta * beta)


def theta2(beta):
    """θ₂ = β² = (E f'(χ))², the linear (first Hermite) coefficient squared."""
    beta = positive("beta", beta)
    return beta * beta


def c_beta(beta):
    """c_β = θ₂/θ₁ ∈ (0, 1)."""
    return theta2(beta) / theta1(beta)


def _exact_thetas(beta):
    b2 = exact(beta) ** 2
    return sp.exp(b2) - 1, b2


def rho_law(beta, t):
    """ρ_t = (x ↦ θ₁ − θ₂ + θ₂ x)_# MP_{1/t} (Hayase & Karakida 2026, eq. (C.8)).

    Parameters
    ----------
    beta : float > 0
        Inverse temperature.
    t : float > 0
        Width ratio (γ_K for a head concatenation).

    Returns
    -------
    AlgebraicLaw
        Mean θ₁; R-transform R(z) = θ₁ − θ₂ + θ₂/(1 − θ₂ z/t).
    """
    positive("beta", beta)
    positive("t", t)
    th1, th2 = _exact_thetas(beta)
    law = MarchenkoPastur(1 / sp.Rational(t) if not isinstance(t, sp.Basic) else 1 / t)
    return law.affine(th1 - th2, th2)


def attention_law(beta, gamma_k, heads=1):
    """Limiting law ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h} of the squared singular values of
    sqrt(n/h)·[A_1 − P, …, A_h − P] (h = 1: of sqrt(n)(A − 11ᵀ/n)).

    Parameters
    ----------
    beta : float > 0
        Inverse temperature β of A = softmax(β S), S = Q Kᵀ/sqrt(d_K).
    gamma_k : float > 0
        γ_K = h d_K / n.
    heads : int ≥ 1
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
        declared in :mod:`freeattn.attention.config`).
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
    beta = float(in_closed_interval("beta", beta, *BETA_LAW_RANGE))
    gamma_k = float(in_closed_interval("gamma_k", gamma_k, *GAMMA_RANGE))
    heads = integer_at_least("heads", heads, 1)
    if heads > MAX_HEADS:
        raise ParameterError("heads", f"heads must be an integer in [1, {MAX_HEADS}], got {heads}")
    rho = rho_law(beta, gamma_k)
    law = free_multiplicative_convolution(rho, MarchenkoPastur(sp.Rational(1, heads)))
    law.name = f"attention_law(beta={beta:g}, gamma_k={gamma_k:g}, heads={heads})"
    law.params = {"beta": beta, "gamma_k": gamma_k, "heads": heads}
    law.describes = "attention"  # the matrix kind (freeattn.montecarlo.check refuses others)
    return law
