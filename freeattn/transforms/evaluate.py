"""Numeric R-, S-, ψ- and χ-transforms of algebraic laws, in float64 or at any precision.

Conventions (Hayase & Karakida 2026, eqs. (C.1)–(C.6); Mingo & Speicher 2017, §2–3):

* G(z) = ∫ dμ(x)/(z − x);  R(g) is defined near g = 0 by G(R(g) + 1/g) = g, R(0) = m₁;
* ψ(u) = Σ_{q≥1} m_q u^q = (1/u) G(1/u) − 1;  χ = ψ^{-1};
* S(w) = (1 + w)/w · χ(w), S(0) = 1/m₁ (laws on [0, ∞) with m₁ > 0).

R and S are algebraic: they solve the polynomial relations ``law.r_relation()`` and
``law.s_relation()``; the branch is the one through R(0) = m₁ (S(0) = 1/m₁), followed by
continuation along the segment from 0 to the argument.
"""
from __future__ import annotations

from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp

from .._context import to_mp, workdps
from .._validation import dps_or_none
from ..algebraic.polynomial import S, r_relation, s_relation, w

__all__ = ["cauchy_transform", "r_transform", "s_transform", "psi_transform", "chi_transform",
           "free_cumulants"]

_STEPS = 200


def cauchy_transform(law, z, dps=None):
    """G(z) = ∫ dμ(x)/(z − x); see :meth:`freeattn.laws.Law.cauchy_transform`."""
    return law.cauchy_transform(z, dps=dps)


def free_cumulants(law, order):
    """κ₁..κ_order of ``law`` as exact sympy expressions; see :meth:`Law.free_cumulants`."""
    return law.free_cumulants(order)


@lru_cache(maxsize=None)
def _relation_coefficients(expr, params):
    """Coefficients (highest power of S first) of a relation F(w, S), as callables of
    (params..., w) for numpy and mpmath."""
    poly = sp.Poly(expr, S)
    coeffs = poly.all_coeffs()
    args = list(params) + [w]
    return ([sp.lambdify(args, c, "numpy") for c in coeffs],
            [sp.lambdify(args, c, "mpmath") for c in coeffs])


def _relation(law, kind):
    P = law._factor
    rel = s_relation(P) if kind == "S" else r_relation(P)
    params = tuple(sorted(law.values, key=lambda s_: s_.name))
    return _relation_coefficients(sp.expand(rel), params), params


def _continue(law, kind, target, start):
    """Follow the root of F(w, ·) with value ``start`` at w → 0 along [0, target] (float)."""
    (fns, _), params = _relation(law, kind)
    vals = [float(to_mp(law.values[p])) for p in params]
    v = complex(start)
    for k in range(1, _STEPS + 1):
        wk = target * (k / _STEPS) if k > 1 else target * 1e-6
        coeffs = np.array([complex(f(*vals, wk)) for f in fns])
        nz = np.flatnonzero(np.abs(coeffs) > 1e-300)
        r = np.roots(coeffs[nz[0]:]) if nz.size else np.array([])
        if r.size == 0:
            raise ValueError(f"the {kind}-transform relation degenerates at w = {wk}")
        v = r[np.argmin(np.abs(r - v))]
    return v


def _polish_mp(law, kind, target, guess):
    (_, fns), params = _relation(law, kind)
    vals = [to_mp(law.values[p]) for p in params]
    coeffs = [mpmath.mpmathify(f(*vals, target)) for f in fns]
    while len(coeffs) > 1 and coeffs[0] == 0:
        coeffs.pop(0)
    roots = mpmath.polyroots(coeffs, maxsteps=200, extraprec=60)
    return min(roots, key=lambda r: abs(r - guess))


def _evaluate(law, kind, arg, dps, start):
    dps = dps_or_none(dps)
    arr = np.asarray(arg, dtype=complex if np.iscomplexobj(arg) else float)
    flat = arr.reshape(-1)
    if np.any(~np.isfinite(flat)):
        raise ValueError("the argument must be finite (no NaN or inf)")
    out = []
    for a in flat:
        if a == 0:
            val = complex(start)
        else:
            val = _continue(law, kind, complex(a), start)
        if dps is not None:
            with workdps(dps):
                v = mpmath.mpc(val) if a == 0 else _polish_mp(law, kind, mpmath.mpmathify(a), mpmath.mpc(val))
                if mpmath.im(v) == 0 or abs(mpmath.im(v)) < mpmath.mpf(10) ** (-dps - 5) * abs(v):
                    v = mpmath.re(v) if np.isrealobj(arr) else v
            with mpmath.workdps(dps):
                out.append(+v)
        else:
            out.append(val.real if np.isrealobj(arr) and abs(val.imag) < 1e-12 * abs(val) else val)
    if dps is not None:
        res = np.empty(len(out), dtype=object)
        res[:] = out
        res = res.reshape(arr.shape)
        return res[()] if res.ndim == 0 else res
    res = np.array(out).reshape(arr.shape)
    return res[()] if res.ndim == 0 else res


def r_transform(law, g, dps=None):
    """R-transform R(g), with G(R(g) + 1/g) = g and R(0) = m₁ (R(g) = Σ κ_{q+1} g^q).

    Parameters
    ----------
    law : AlgebraicLaw
    g : float, complex or array_like
        Arguments (near 0: the branch is continued along the segment [0, g]).
    dps : int, optional
        None: float64; an integer: mpmath at that precision.

    Returns
    -------
    float, complex or ndarray, shape of ``g``

    Raises
    ------
    ValueError
        For non-finite arguments or if the relation degenerates on the path.
    """
    return _evaluate(law, "R", g, dps, float(law.moment(1)))


def s_transform(law, w_arg, dps=None):
    """S-transform S(w) = (1 + w)/w · ψ^{-1}(w), S(0) = 1/m₁, for a law on [0, ∞).

    Parameters
    ----------
    law : AlgebraicLaw
        A law on [0, ∞) with positive mean.
    w_arg : float, complex or array_like
        Real arguments must lie in (−1 + μ({0}), 0], the range of ψ on (−∞, 0).
    dps : int, optional

    Raises
    ------
    ValueError
        If the law has non-positive mean or a real argument is outside (−1 + μ({0}), 0].

    Notes
    -----
    S_{μ⊠ν} = S_μ S_ν; S_{π(μ,t)}(w) = S_μ(w/t)/(t + w) (Hayase & Karakida 2026, (C.3)–(C.4)).
    """
    m1 = float(law.moment(1))
    if not m1 > 0:
        raise ValueError(f"law must have a positive mean for the S-transform, got {m1}")
    arr = np.asarray(w_arg)
    if not np.iscomplexobj(arr):
        atom0 = sum(m for a, m in law.atoms() if a == 0)
        lo = -1 + atom0
        if np.any((arr <= lo) | (arr > 0)):
            raise ValueError(f"w must lie in ({lo:g}, 0] for real arguments (the range of ψ "
                             f"on (−∞, 0)), got {w_arg!r}")
    return _evaluate(law, "S", w_arg, dps, 1.0 / m1)


def psi_transform(law, u, dps=None):
    """ψ(u) = Σ_{q≥1} m_q u^q = (1/u) G(1/u) − 1 (moment generating function); ψ(0) = 0."""
    arr = np.asarray(u, dtype=complex)
    if np.any(arr == 0):
        raise ValueError("u must be non-zero (ψ(0) = 0 by definition)")
    g = law.cauchy_transform(1 / arr if dps is None else [1 / mpmath.mpmathify(v) for v in arr.reshape(-1)], dps=dps)
    if dps is None:
        return arr ** -1 * g - 1
    with workdps(dps):
        out = [(1 / mpmath.mpmathify(v)) * gv - 1 for v, gv in zip(arr.reshape(-1), np.asarray(g).reshape(-1))]
    res = np.empty(len(out), dtype=object)
    res[:] = out
    return res.reshape(arr.shape)


def chi_transform(law, w_arg, dps=None):
    """χ(w) = ψ^{-1}(w) = w S(w)/(1 + w)."""
    s = s_transform(law, w_arg, dps)
    if dps is None:
        wa = np.asarray(w_arg)
        return wa * s / (1 + wa)
    with workdps(dps):
        return mpmath.mpmathify(w_arg) * s / (1 + mpmath.mpmathify(w_arg))


