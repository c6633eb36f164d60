"""Exact moments and free cumulants of algebraic laws (sympy), symbolic in the papers'
parameters where asked.

Moments come from the series of the Stieltjes branch G ~ 1/z of P(G, z) = 0 at infinity,
order by order (exact rational/symbolic arithmetic); free cumulants from the moments by the
moment–cumulant recursion over non-crossing partitions (Nica & Speicher 2006, Lecture 11).
"""
from __future__ import annotations

import sympy as sp

from .._validation import integer_at_least
from ..algebraic.polynomial import series_moments
from ..transforms.cumulants import free_cumulants_from_moments
from .equations import algebraic_equation, algebraic_law, family

__all__ = ["moments", "free_cumulants"]


def _tidy(expr, symbolic):
    if symbolic:
        return sp.factor(sp.expand(expr))
    return sp.expand(expr)


def moments(law, k, symbolic=False, in_beta=False):
    """Exact moments m₁, …, m_k of a law, as sympy expressions.

    Parameters
    ----------
    law : AlgebraicLaw
    k : int ≥ 1
        Number of moments.
    symbolic : bool, default False
        Keep the parameters as symbols named as in the papers (see
        :func:`freeattn.symbolic.algebraic_equation`); False substitutes the exact values.
    in_beta : bool, default False
        Attention laws: write θ₁ = e^{β²} − 1 and θ₂ = β² in terms of β.

    Returns
    -------
    list of sympy.Expr, length k
        ``[m_1, ..., m_k]`` with m_q = ∫ x^q dμ (atoms included).

    Raises
    ------
    ValueError
        If k is not an integer ≥ 1.

    Notes
    -----
    For ν_{∞,h}: m₁ = θ₁, m₂ = (1 + 1/h)θ₁² + θ₂²/γ_K (Hayase & Karakida 2026, (C.11)).

    Examples
    --------
    >>> from freeattn import attention_law
    >>> moments(attention_law(1.0, 1.0, 2), 2, symbolic=True)
    [theta_1, (gamma_K*h*theta_1**2 + gamma_K*theta_1**2 + h*theta_2**2)/(gamma_K*h)]
    """
    algebraic_law(law)
    k = integer_at_least("k", k, 1)
    if not symbolic and family(law) is None:
        return [sp.expand(m) for m in law.exact_moments(k)]
    P = algebraic_equation(law, symbolic=symbolic, in_beta=in_beta)
    return [_tidy(m, symbolic) for m in series_moments(P, k)]


def free_cumulants(law, k, symbolic=False, in_beta=False):
    """Exact free cumulants κ₁, …, κ_k of a law (R(w) = Σ κ_{q+1} w^q), as sympy expressions.

    Parameters and returns as in :func:`moments`.

    Notes
    -----
    For ν_{∞,h}: κ₁ = θ₁, κ₂ = θ₁²/h + θ₂²/γ_K (Hayase & Karakida 2026, §C.1.2).

    Examples
    --------
    >>> from freeattn import MarchenkoPastur
    >>> free_cumulants(MarchenkoPastur(0.5), 4)
    [1, 1/2, 1/4, 1/8]
    """
    ms = moments(law, k, symbolic=symbolic, in_beta=in_beta)
    return [_tidy(c, symbolic) for c in free_cumulants_from_moments(ms)]
