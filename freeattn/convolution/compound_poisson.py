"""Compound free Poisson laws π(μ, t) of any jump law."""
from __future__ import annotations

from ..algebraic.eliminations import (compound_free_poisson_polynomial,
                                      compound_free_poisson_r_polynomial)
from ..laws._params import fresh
from ..laws.algebraic import AlgebraicLaw, AtomAtZero
from ._dispatch import (choose_method, fmt, hull, is_positive_by_construction, mark_positive,
                        mean_of)
from .multiplicative import _fresh_copy
from .subordination import CompoundFreePoisson

__all__ = ["compound_free_poisson"]


def compound_free_poisson(mu, rate, method=None):
    """Compound free Poisson law π(μ, t) with jump law μ and rate t > 0.

    Free cumulants κ_q = t m_q(μ), i.e. R(g) = t ∫ x/(1 − x g) dμ(x); the limit of the
    eigenvalue law of Z D Zᵀ/n for Z (n × p) i.i.d. N(0, 1), p/n → t and the spectrum of D
    → μ (Hayase & Karakida 2026, Lemma C.1; Nica & Speicher 2006, Prop. 12.11).  Theorem 3.1
    of the multi-head paper: the output spectrum of MHA is π(μ_VO, γ_O).

    Parameters
    ----------
    mu : Law
        Jump law (algebraic, numeric, empirical eigenvalues, …), anywhere on the real line.
    rate : float > 0
        t (exact values such as ``sympy.Rational(1, 10)`` are kept exact on the algebraic
        route).
    method : {None, "algebraic", "subordination"}
        ``"algebraic"`` (default for an :class:`AlgebraicLaw`): exact polynomial from
        S_{π(μ,t)}(w) = S_μ(w/t)/(t + w) (Hayase & Karakida 2026, eq. (C.4)) for μ on
        [0, ∞), from the R-transform above otherwise.  ``"subordination"`` (default
        otherwise): with ω = 1/G, ω(1 − t) + t ω² G_μ(ω) = z, solved by a fixed point in the
        upper half-plane then Newton; densities are on-axis limits.

    Returns
    -------
    Law
        Mass 1; atom max(0, 1 − t(1 − μ({0}))) at 0.

    Raises
    ------
    ParameterError
        If ``rate`` is not a finite number > 0 (``.param == "rate"``), or for a bad ``method``.
    ParameterTypeError
        If ``mu`` is not a :class:`~freeattn.laws.Law` (``.param == "mu"``; also a TypeError).

    Examples
    --------
    >>> from freeattn import PointMass, compound_free_poisson
    >>> law = compound_free_poisson(PointMass(1.0), 0.5)   # free Poisson π_{1/2}
    >>> round(law.atoms()[0][1], 12)
    0.5
    """
    mu_p, rate_p = CompoundFreePoisson.parameters
    mu_p.validate(mu)
    rate_exact = rate_p.exact(rate)
    method = choose_method(method, (mu,))
    name = f"π({mu.name}, {fmt(rate)})"
    if method == "algebraic":
        P1, v1 = _fresh_copy(mu)
        t = fresh("rate")
        positive_law = is_positive_by_construction(mu) or (hull(mu)[0] >= 0 and mean_of(mu) > 0)
        if positive_law:
            P = compound_free_poisson_polynomial(P1, t)
        else:
            P = compound_free_poisson_r_polynomial(P1, t)
        law = AlgebraicLaw(P, {**v1, t: rate_exact}, name=name)
        if positive_law:  # jumps on [0, ∞): π(μ, t) is on [0, ∞) with m₁ = t m₁(μ) > 0,
            # and π(μ, t)({0}) = max(0, 1 − t(1 − μ({0})))
            mark_positive(law, "compound free Poisson of a jump law on [0, ∞)")
            law.atom_at_zero = AtomAtZero("compound", (mu,), rate_exact)
        return law
    return CompoundFreePoisson(mu, rate_exact, name=name)
