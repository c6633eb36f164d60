"""Exact eliminations behind the algebraic route of ⊞ and of the free powers.

The polynomial method (Rao & Edelman 2008): an algebraic law carries P(G, z) = 0; its
R-transform solves C(g, R) = numerator of P(g, R + 1/g) (``r_relation``) and its S-transform
Σ(w, S) = 0 (``s_relation``).  Free additive convolution adds R-transforms (Voiculescu), so

    C_{μ⊞ν}(g, R) = Res_{R₁}( C_μ(g, R₁), C_ν(g, R − R₁) ),

and back P(G, z) = numerator of C(G, z − 1/G); the irreducible factor with G ~ 1/z whose first
moments are those of μ ⊞ ν is selected (``stieltjes_factor``), exactly as for ⊠.  The free
powers are R_{μ^{⊞t}} = t R_μ and, for an integer p, S_{μ^{⊠p}} = S_μ^p, i.e.
Res_{S₁}(Σ(w, S₁), S − S₁^p).  (A non-integer ⊠-power is not done here: S^q = S₁^p also carries
the sheets S = e^{2πik/q} S₁^{p/q}, which meet the Stieltjes branch at z = ∞, so G ~ 1/z is no
longer a simple root there; the subordination route handles it.)

Only the primitives of :mod:`freeattn.algebraic.polynomial` are used (canonical forms, the
R- and S-relations, factor selection), so every elimination is cached on the canonical form of
its inputs: all laws of one structure share one elimination whatever their parameter values.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from ..algebraic.polynomial import (G, S, canonicalize, from_s_relation, r_relation,
                                    s_relation, series_moments, stieltjes_factor, w, z)

__all__ = ["boxplus_polynomial", "boxplus_power_polynomial", "boxtimes_power_polynomial",
           "compound_free_poisson_r_polynomial"]

_R1 = sp.Symbol("R_1")


def _numer(expr):
    return sp.expand(sp.numer(sp.together(expr)))


def _from_r_relation(C, expected_moments):
    """P(G, z) from the R-relation C(g, R) (symbols w, S), Stieltjes factor selected."""
    P = _numer(C.subs({w: G, S: z - 1 / G}, simultaneous=True))
    return stieltjes_factor(P, expected_moments)


@lru_cache(maxsize=None)
def _boxplus_cached(P1, P2):
    c1 = r_relation(P1).subs(S, _R1)
    c2 = _numer(r_relation(P2).subs(S, S - _R1))
    res = sp.resultant(c1, c2, _R1)
    # free cumulants add: m1 = a1 + b1, m2 = κ2 + κ1² = a2 + b2 + 2 a1 b1
    a1, a2 = series_moments(P1, 2)
    b1, b2 = series_moments(P2, 2)
    return _from_r_relation(sp.expand(res), (a1 + b1, a2 + b2 + 2 * a1 * b1))


def boxplus_polynomial(P1, P2):
    """Polynomial of μ ⊞ ν from those of μ and ν: R_{μ⊞ν} = R_μ + R_ν, eliminated by a
    resultant (Rao & Edelman 2008, Table 7; Voiculescu's R-transform additivity).

    Parameters
    ----------
    P1, P2 : sympy expressions in ``G``, ``z`` and parameter symbols (the symbols of P1 and P2
        must be distinct).

    Returns
    -------
    sympy expression
        The irreducible factor of the eliminant carrying the Stieltjes branch of μ ⊞ ν.
    """
    c1, p1 = canonicalize(P1, "a")
    c2, p2 = canonicalize(P2, "b")
    res = _boxplus_cached(c1, c2)
    back = {sp.Symbol(f"a{i}"): s for i, s in enumerate(p1)}
    back.update({sp.Symbol(f"b{i}"): s for i, s in enumerate(p2)})
    return res.xreplace(back)


@lru_cache(maxsize=None)
def _boxplus_power_cached(P, t):
    C = _numer(r_relation(P).subs(S, S / t))
    a1, a2 = series_moments(P, 2)
    # κ_q(μ^{⊞t}) = t κ_q(μ): m1 = t a1, m2 = t (a2 − a1²) + t² a1²
    return _from_r_relation(C, (t * a1, t * (a2 - a1**2) + t**2 * a1**2))


def boxplus_power_polynomial(P, t):
    """Polynomial of the free additive power μ^{⊞t} (R_{μ^{⊞t}} = t R_μ, t ≥ 1).

    ``t`` may be a parameter symbol (its value kept beside the polynomial) or an exact number.
    Source: Nica & Speicher 2006, Lecture 14 (free convolution powers).
    """
    tt = sp.Symbol("t_pow_")
    c, p = canonicalize(P, "a")
    res = _boxplus_power_cached(c, tt)
    back = {sp.Symbol(f"a{i}"): s for i, s in enumerate(p)}
    back[tt] = t
    return res.xreplace(back)


@lru_cache(maxsize=None)
def _boxtimes_power_cached(P, p):
    sigma = s_relation(P).subs(S, _R1)
    res = sp.resultant(sp.expand(sigma), S - _R1**p, _R1)
    a1, a2 = series_moments(P, 2)
    # S(w) = 1/m1 − (m2 − m1²)/m1³ w + O(w²); S^p ⇒ m1' = m1^p, var'/m1'² = p var/m1²
    m1 = a1**p
    m2 = m1**2 * (1 + p * (a2 - a1**2) / a1**2)
    return from_s_relation(sp.expand(res), (m1, m2))


def boxtimes_power_polynomial(P, p):
    """Polynomial of the free multiplicative power μ^{⊠p} for an integer p ≥ 1:
    S_{μ^{⊠p}} = S_μ^p, eliminated as Res_{S₁}(Σ_μ(w, S₁), S − S₁^p) (Voiculescu's
    S-multiplicativity; Rao & Edelman 2008).

    Parameters
    ----------
    P : sympy expression in ``G``, ``z`` and parameter symbols.
    p : int ≥ 1 (it enters the elimination as an exponent).
    """
    c, params = canonicalize(P, "a")
    res = _boxtimes_power_cached(c, int(p))
    back = {sp.Symbol(f"a{i}"): s for i, s in enumerate(params)}
    return res.xreplace(back)


@lru_cache(maxsize=None)
def _cfp_r_cached(P, t):
    # R(g) = t ∫ x/(1 − xg) dμ = (t/g)((1/g) G_μ(1/g) − 1)  ⇔  G_μ(1/g) = g (1 + g R/t)
    C = _numer(P.subs({G: w * (1 + w * S / t), z: 1 / w}, simultaneous=True))
    a1, a2 = series_moments(P, 2)
    # κ_q = t m_q(μ): m1 = t a1, m2 = t a2 + t² a1²
    return _from_r_relation(C, (t * a1, t * a2 + t**2 * a1**2))


def compound_free_poisson_r_polynomial(P, rate):
    """Polynomial of π(μ, t) for a jump law μ on the whole real line, from its R-transform
    R(g) = t ∫ x/(1 − xg) dμ(x) = (t/g)((1/g) G_μ(1/g) − 1) (Nica & Speicher 2006, Prop. 12.11).

    Unlike the S-transform route it needs no positivity of μ.  ``rate`` may be a parameter
    symbol or an exact number.
    """
    tt = sp.Symbol("rate_r_")
    c, p = canonicalize(P, "a")
    res = _cfp_r_cached(c, tt)
    back = {sp.Symbol(f"a{i}"): s for i, s in enumerate(p)}
    back[tt] = rate
    return res.xreplace(back)
