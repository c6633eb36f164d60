"""The attention law ν_{∞,h} of softmax attention (single head and head concatenation)."""
from __future__ import annotations

import math

import sympy as sp

from .._validation import ParameterError, in_closed_interval, integer_at_least, positive
from ..algebraic.polynomial import rename_symbols
from ..convolution import free_multiplicative_convolution
from ..convolution._dispatch import mark_positive
from ..laws import MarchenkoPastur
from ..laws._params import exact, fresh
from ..laws.algebraic import AlgebraicLaw

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


#: per number of heads: (P, symbols) of ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h} from one exact build,
#: the symbols in the order (1/γ_K, θ₁ − θ₂, θ₂, 1/h) of the parameters they stand for
_STRUCTURES = {}
#: the point at which a structure is built once: its four parameter values are distinct
#: (2/5, e^{9/4} − 13/4, 9/4, 1/h), so that each symbol is identified by its value
_TEMPLATE_POINT = (1.5, 2.5)


def _parameter_values(beta, gamma_k, heads):
    """The exact values (1/γ_K, θ₁ − θ₂, θ₂, 1/h) that :func:`rho_law` and
    MP_{1/h} give their parameter symbols (the same sympy expressions)."""
    th1, th2 = _exact_thetas(beta)
    return (1 / sp.Rational(gamma_k), th1 - th2, th2, sp.Rational(1, heads))


def _exact_build(beta, gamma_k, heads):
    """ν_{∞,h} by the exact route: ρ_{γ_K} (affine map of MP), then ⊠ MP_{1/h} (resultant)."""
    rho = rho_law(beta, gamma_k)
    return free_multiplicative_convolution(rho, MarchenkoPastur(sp.Rational(1, heads)))


def _from_structure(beta, gamma_k, heads):
    """ν_{∞,h} at a new (β, γ_K): the polynomial of the structure (built once per h by
    :func:`_exact_build` at ``_TEMPLATE_POINT``) with its parameter symbols renamed apart and
    the new point's exact values, so that a β or γ_K scan redoes no resultant, affine map or
    positivity check (ρ_{γ_K} is on [0, ∞) with mean θ₁ > 0 for every β, γ_K > 0).  The law
    is the one :func:`_exact_build` gives at that point (same polynomial up to the names of
    the symbols, same exact values)."""
    if heads not in _STRUCTURES:
        template = _exact_build(*_TEMPLATE_POINT, heads)
        values = _parameter_values(*_TEMPLATE_POINT, heads)
        order = [[s for s, v in template.values.items() if v == want] for want in values]
        if sorted(len(o) for o in order) != [1, 1, 1, 1]:  # the structure changed: no template
            return _exact_build(beta, gamma_k, heads)
        _STRUCTURES[heads] = (template.symbolic_polynomial, [o[0] for o in order])
    P, symbols = _STRUCTURES[heads]
    ren = {s: fresh(s.name.rsplit("_", 1)[0]) for s in symbols}
    values = dict(zip((ren[s] for s in symbols), _parameter_values(beta, gamma_k, heads)))
    # ρ_{γ_K} ⊠ MP_{1/h} with ρ_{γ_K} = (x ↦ θ₁ − θ₂ + θ₂ x)_# MP_{1/γ_K} on [0, ∞)
    # (θ₁ − θ₂ = e^{β²} − 1 − β² > 0, θ₂ > 0): on [0, ∞) with mean θ₁ > 0, as the template
    return mark_positive(AlgebraicLaw(rename_symbols(P, ren), values),
                         "ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h} of laws on [0, ∞)")


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
    law = _from_structure(beta, gamma_k, heads)
    law.name = f"attention_law(beta={beta:g}, gamma_k={gamma_k:g}, heads={heads})"
    law.params = {"beta": beta, "gamma_k": gamma_k, "heads": heads}
    law.describes = "attention"  # the matrix kind (freeattn.montecarlo.check refuses others)
    return law
