"""Support edges as critical values — a route independent of the discriminant.

The polynomial method finds edges as real roots of disc_G P(G, z) (``law.support``).  Here
they are found as critical values of the inverse z(G) of the Cauchy transform instead:

* attention laws (:func:`freeattn.attention_law`): the rational uniformisation
  z(ζ) = (1 + ζR)(1 + ζR/h)/ζ, R(ζ) = θ₁ − θ₂ + θ₂/(1 − θ₂ζ/γ_K), G(ζ) = ζ/(1 + ζR/h)
  (S-transform product of (C.9)–(C.12) in Hayase & Karakida 2026); the edges solve the
  stationary equation z′(ζ) = 0, a degree-5 polynomial in ζ solved by ``mpmath.polyroots``
  and polished by ``mpmath.findroot`` at the working precision;
* any other algebraic law: the 2×2 system P(G, z) = 0, ∂_G P(G, z) = 0 solved by
  ``mpmath.findroot`` (Newton) from the float edges.

Which critical values are edges of the physical sheet is decided by the law's float64
Cauchy transform (G at the candidate must match G(ζ) there); the digits come from the
critical-point equations only.
"""
from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from .._context import inner_dps
from .._validation import ParameterError, dps_or_none
from ..algebraic.polynomial import G as _G, z as _z
from . import symbols as S
from .equations import algebraic_equation, algebraic_law, family

#: a point just inside a support end (relative); a pole within this of an edge is at the edge
_INSIDE = 1e-9
#: a critical point matches a numeric edge to this (relative)
_EDGE_MATCH = 1e-6
#: the branch's G matches the law's to this (relative)
_G_MATCH = 1e-3

__all__ = ["critical_point_edges", "stationary_equation"]

_zeta = sp.Symbol("zeta")


def stationary_equation():
    """The attention law's stationary equation z′(ζ) = 0 as a polynomial in ζ (sympy), with
    z(ζ) and G(ζ) of the uniformisation: returns ``(poly, z_of_zeta, G_of_zeta, zeta)``.

    Source: Hayase & Karakida 2026, (C.9)–(C.12) (see ``derivations/attention_polynomial.py``).
    """
    R = S.theta_1 - S.theta_2 + S.theta_2 / (1 - S.theta_2 * _zeta / S.gamma_K)
    z_of = sp.together((1 + _zeta * R) * (1 + _zeta * R / S.h) / _zeta)
    g_of = sp.together(_zeta / (1 + _zeta * R / S.h))
    stat = sp.expand(sp.numer(sp.together(sp.diff(z_of, _zeta))))
    return stat, z_of, g_of, _zeta


def _attention_candidates(law, dps):
    stat, z_of, g_of, zeta = stationary_equation()
    p = law.params
    b2 = mpmath.mpf(p["beta"]) ** 2
    vals = [mpmath.expm1(b2), b2, mpmath.mpf(p["gamma_k"]), mpmath.mpf(int(p["heads"]))]
    syms = [S.theta_1, S.theta_2, S.gamma_K, S.h]
    coeffs = [sp.lambdify(syms, c, "mpmath")(*vals) for c in sp.Poly(stat, zeta).all_coeffs()]
    dstat = sp.lambdify([zeta] + syms, sp.diff(stat, zeta), "mpmath")
    fstat = sp.lambdify([zeta] + syms, stat, "mpmath")
    zf = sp.lambdify([zeta] + syms, z_of, "mpmath")
    gf = sp.lambdify([zeta] + syms, g_of, "mpmath")
    roots = mpmath.polyroots(coeffs, maxsteps=400, extraprec=4 * mpmath.mp.prec)
    out = []
    tol = mpmath.mpf(10) ** (-(dps // 2))
    for r in roots:
        if abs(mpmath.im(r)) > tol * (1 + abs(r)):
            continue
        r = mpmath.findroot(lambda q: fstat(q, *vals), mpmath.re(r),
                            df=lambda q: dstat(q, *vals))
        try:
            out.append((zf(r, *vals), gf(r, *vals)))
        except ZeroDivisionError:  # ζ at a pole of z or G: not a finite critical value
            continue
    return out


def _generic_candidates(law, dps):
    P = algebraic_equation(law)
    dP = sp.diff(P, _G)
    f = sp.lambdify([_G, _z], P, "mpmath")
    df = sp.lambdify([_G, _z], dP, "mpmath")
    out = []
    for a, b in law.support():
        for e in (a, b):
            g0 = complex(law.cauchy_transform(e + (_INSIDE if e == a else -_INSIDE) * (1 + abs(e))))
            sol = mpmath.findroot(lambda g, x: (f(g, x), df(g, x)), (mpmath.mpf(g0.real), mpmath.mpf(e)))
            out.append((sol[1], sol[0]))
    return out


def _poles(law):
    """Real roots of the leading coefficient of P in G (candidate hard edges and atoms),
    at the working precision."""
    lc = sp.Poly(algebraic_equation(law), _G).LC()
    if not lc.has(_z):
        return []
    coeffs = [mpmath.mpf(sp.N(c, inner_dps(mpmath.mp.dps))) for c in sp.Poly(lc, _z).all_coeffs()]
    while len(coeffs) > 1 and coeffs[-1] == 0:  # factor z^k: the root 0, exactly
        coeffs.pop()
    out = [mpmath.mpf(0)] if len(coeffs) < len(sp.Poly(lc, _z).all_coeffs()) else []
    if len(coeffs) > 1:
        out += [mpmath.re(r) for r in mpmath.polyroots(coeffs, maxsteps=200, extraprec=200)
                if abs(mpmath.im(r)) < mpmath.mpf(10) ** (-mpmath.mp.dps // 2)]
    return out


def critical_point_edges(law, dps=30):
    """Edges of the support of an algebraic law, as critical values of z(G) (see module).

    Parameters
    ----------
    law : AlgebraicLaw
    dps : int, default 30
        Digits of the result (mpmath, with guard digits).

    Returns
    -------
    list of (mpf, mpf)
        Support intervals (a, b) like ``law.support(dps)``; an edge that is not a critical
        value (a hard edge at a root of the leading coefficient of P in G, e.g. 0 for h = 1)
        is that root, computed at the working precision.

    Raises
    ------
    ValueError
        If a float edge has no matching critical value (the two routes disagree).

    Examples
    --------
    >>> from freeattn import attention_law
    >>> import mpmath
    >>> mpmath.nstr(critical_point_edges(attention_law(1.0, 1.0), 30)[0][1], 30)
    '9.00954255037531161479809977278'
    """
    algebraic_law(law)
    dps = dps_or_none(dps)
    if dps is None:
        raise ParameterError("dps", "dps must be an integer >= 5 (the digits of the edges), "
                                    "got None")
    work = inner_dps(dps, 2)
    with mpmath.workdps(work):
        if family(law) == "attention":
            cands = _attention_candidates(law, work)
        else:
            cands = _generic_candidates(law, work)
        poles = _poles(law)
        intervals = []
        for a, b in law.support():
            pair = []
            for e in (a, b):
                best = None
                for x, g in cands:
                    if abs(mpmath.im(x)) > mpmath.mpf(10) ** (-work // 2):
                        continue
                    x = mpmath.re(x)
                    if abs(x - e) > _EDGE_MATCH * (1 + abs(e)):
                        continue
                    gl = complex(law.cauchy_transform(float(x)))
                    if np.isfinite(gl) and abs(gl - complex(g)) <= _G_MATCH * (1 + abs(gl)):
                        if best is None or abs(x - e) < abs(best - e):
                            best = x
                if best is None:  # a hard edge: a root of the leading coefficient of P in G
                    best = next((p for p in poles if abs(p - e) <= _INSIDE * (1 + abs(e))), None)
                    if best is None:
                        raise ValueError(f"no critical value matches the edge {e!r}")
                if abs(best) < mpmath.mpf(10) ** (-(work - 10)) * (1 + abs(e)):
                    best = mpmath.mpf(0)  # a critical value at the hard edge 0 (h = 1)
                pair.append(best)
            intervals.append(tuple(pair))
    with mpmath.workdps(dps):
        return [(+a, +b) for a, b in intervals]
