"""Sympy views of the R- and S-transforms of an algebraic law.

The transforms of an algebraic law solve polynomial relations (see
:func:`freeattn.algebraic.polynomial.s_relation` / ``r_relation``).  When the relation is of
degree ≤ 2 in the transform, the branch through R(0) = m₁ (S(0) = 1/m₁) is returned as an
explicit expression; otherwise the relation itself is returned as ``sympy.Eq(F, 0)``.
"""
from __future__ import annotations

import sympy as sp

from ..algebraic.polynomial import S, r_relation, s_relation, w

#: a root of the relation matches the numeric value to this (relative)
_MATCH_RTOL = 1e-6

__all__ = ["s_transform_expr", "r_transform_expr"]


def _explicit_branch(rel, value_at_zero, values):
    """Solve rel(w, S) = 0 for S and keep the solution whose value at w → 0 is
    ``value_at_zero``; None when the degree in S exceeds 2 or no solution matches."""
    poly = sp.Poly(rel, S)
    if poly.degree() > 2:
        return None
    target = complex(sp.N(value_at_zero.xreplace(values), 30))
    for sol in sp.solve(rel, S):
        num = sol.xreplace(values)
        try:
            v = complex(sp.N(num.subs(w, sp.Rational(1, 10**8)), 30))
        except (TypeError, ValueError):
            continue
        if abs(v - target) <= _MATCH_RTOL * (1 + abs(target)):
            return sp.simplify(sol)
    return None


def s_transform_expr(law, substitute=True):
    """S_μ(w) as a sympy expression in ``w`` (or the relation ``Eq(Σ(w, S), 0)``).

    Parameters
    ----------
    law : AlgebraicLaw
    substitute : bool, default True
        Substitute the parameter values (exact); False keeps the parameter symbols.

    Examples
    --------
    >>> from freeattn import MarchenkoPastur
    >>> s_transform_expr(MarchenkoPastur(0.5))
    1/(w/2 + 1)
    """
    P = law._factor
    rel = sp.expand(s_relation(P))
    m1 = law.exact_moments(1)[0]
    sol = _explicit_branch(rel, 1 / m1, law.values)
    out = sp.Eq(rel, 0) if sol is None else sol
    return out.xreplace(law.values) if substitute else out


def r_transform_expr(law, substitute=True):
    """R_μ(w) as a sympy expression in ``w`` (or the relation ``Eq(C(w, R), 0)`` with ``S``
    standing for R).

    Examples
    --------
    >>> from freeattn import MarchenkoPastur
    >>> r_transform_expr(MarchenkoPastur(0.5))
    -1/(w/2 - 1)
    """
    P = law._factor
    rel = sp.expand(r_relation(P))
    m1 = law.exact_moments(1)[0]
    sol = _explicit_branch(rel, m1, law.values)
    out = sp.Eq(rel, 0) if sol is None else sol
    return out.xreplace(law.values) if substitute else out
