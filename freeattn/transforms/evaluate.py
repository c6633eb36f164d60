"""Numeric R-, S-, ψ- and χ-transforms of algebraic laws, in float64 or at any precision.

Conventions (Hayase & Karakida 2026, eqs. (C.1)–(C.6); Mingo & Speicher 2017, §2–3):

* G(z) = ∫ dμ(x)/(z − x);  R(g) is defined near g = 0 by G(R(g) + 1/g) = g, R(0) = m₁;
* ψ(u) = Σ_{q≥1} m_q u^q = (1/u) G(1/u) − 1;  χ = ψ^{-1};
* S(w) = (1 + w)/w · χ(w), S(0) = 1/m₁ (laws on [0, ∞) with m₁ > 0).

Two routes, chosen by ``method=``:

* ``"relation"`` (default for an :class:`~freeattn.laws.AlgebraicLaw`): R and S solve the
  polynomial relations ``law.r_relation()`` and ``law.s_relation()``; the branch is the one
  through R(0) = m₁ (S(0) = 1/m₁), followed by continuation along the segment from 0 to the
  argument;
* ``"inverse"`` (default for any other law): invert G numerically.  Real arguments: G is real
  and monotone off the support, so K(g) = G^{-1}(g) and ψ^{-1}(w) are bracketed and found by
  ``scipy.optimize.brentq`` (``mpmath.findroot`` at ``dps``); complex arguments: Newton's
  method with G′ (:meth:`Law.cauchy_transform_derivative`), continued from 0 along the segment.
"""
from __future__ import annotations

from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp

from .._messages import shown
from .._context import FLOAT_EPS, GUARD_DPS, TINY, inner_dps, mp_route, to_mp, tolerance
from ..algebraic.roots import polyroots
from .._validation import ParameterError, check_method, check_points, dps_or_none, law_instance
from ..algebraic.polynomial import S, r_relation, s_relation, w

__all__ = ["cauchy_transform", "r_transform", "s_transform", "psi_transform", "chi_transform",
           "free_cumulants"]

_STEPS = 200
#: first continuation step of the inverse route (fraction of the target)
_FIRST_STEP = 1e-6
#: a value is real when |Im| ≤ this × |value|; the real-axis end of a search (fraction of width)
_REAL_RTOL = 1e-12
#: a point just off a support end (fraction of the width)
_EDGE_OFFSET = 1e-14
#: the continuation path from a far point starts at this fraction of the way
_PATH_START = 1e-2
#: secant start of the inverse (relative step)
_SECANT_STEP = 1e-7


def _points(arg, name):
    """The arguments of a transform: (float64/complex128 approximations, the exact originals,
    shape), after the one argument filter of the Law methods (:func:`freeattn._validation.check_points`:
    None, strings, booleans, non-numbers raise :class:`ParameterTypeError` naming ``name``).

    The approximations start the float64 routes; the originals (ints, Fractions, Decimals,
    sympy numbers, mpf/mpc) are what an mpmath route converts, exactly, at its own precision.
    NaN or ±∞ raise :class:`ParameterError` naming ``name``."""
    check_points(arg, name, real=False)
    exact = np.asarray(arg, dtype=object)
    shape = exact.shape
    exact = list(exact.reshape(-1))
    kind = np.asarray(arg).dtype.kind
    if kind == "O":
        cplx = any(_is_complex(v) for v in exact)
        approx = np.array([complex(v) if cplx else float(v) for v in exact],
                          dtype=complex if cplx else float)
    else:
        approx = np.asarray(arg, dtype=complex if kind == "c" else float).reshape(-1)
    if np.any(~np.isfinite(approx)):
        raise ParameterError(name, f"{name} must be finite (no NaN or inf), got {shown(arg)}")
    return approx, exact, shape


def _is_complex(v):
    if isinstance(v, (complex, np.complexfloating, mpmath.mpc)):
        return True
    return getattr(v, "is_extended_real", True) is False  # a sympy number off the real axis


def cauchy_transform(law, z, dps=None):
    """G(z) = ∫ dμ(x)/(z − x); see :meth:`freeattn.laws.Law.cauchy_transform`."""
    return law_instance("law", law).cauchy_transform(z, dps=dps)


def free_cumulants(law, order):
    """κ₁..κ_order of ``law`` as exact sympy expressions; see :meth:`Law.free_cumulants`."""
    return law_instance("law", law).free_cumulants(order)


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
        wk = target * (k / _STEPS) if k > 1 else target * _FIRST_STEP
        coeffs = np.array([complex(f(*vals, wk)) for f in fns])
        nz = np.flatnonzero(np.abs(coeffs) > TINY)
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
    roots = polyroots(coeffs)
    return min(roots, key=lambda r: abs(r - guess))


def _evaluate(law, kind, arg, dps, start):
    dps = dps_or_none(dps)
    flat, exact, shape = _points(arg, "w" if kind == "S" else "g")
    real = not np.iscomplexobj(flat)
    out = []
    for a, a_exact in zip(flat, exact):
        if a == 0:
            val = complex(start)
        else:
            val = _continue(law, kind, complex(a), start)
        if dps is not None:
            out.append(_polish_value(law, kind, a_exact, dps, val, real))
        else:
            out.append(val.real if real and abs(val.imag) < _REAL_RTOL * abs(val) else val)
    return _shaped(out, shape, dps)


def _shaped(values, shape, dps):
    """The per-point results as a scalar or an array of ``shape`` (dtype object at ``dps``)."""
    if dps is None:
        res = np.array(values)
    else:
        res = np.empty(len(values), dtype=object)
        res[:] = values
    res = res.reshape(shape)
    return res[()] if res.ndim == 0 else res


@mp_route
def _polish_value(law, kind, a, dps, guess, real):
    """The relation route's value at ``a`` polished at ``dps`` from the float64 ``guess``."""
    if a == 0:  # R(0) = m₁, S(0) = 1/m₁
        m1 = law.moment(1, dps=inner_dps(dps))
        return m1 if kind == "R" else 1 / m1
    v = _polish_mp(law, kind, a, mpmath.mpc(guess))
    if real and (mpmath.im(v) == 0 or abs(mpmath.im(v)) < tolerance(inner_dps(dps)) * abs(v)):
        v = mpmath.re(v)
    return v


_METHODS = ("relation", "inverse")


def _route(law, method):
    method = check_method(method, _METHODS)
    if method is None:
        method = "relation" if hasattr(law, "r_relation") and hasattr(law, "_factor") else "inverse"
    if method == "relation" and not hasattr(law, "_factor"):
        raise ParameterError("method", f"method='relation' needs an AlgebraicLaw, got "
                                       f"{type(law).__name__}; use method='inverse'")
    return method


def r_transform(law, g, dps=None, method=None):
    """R-transform R(g), with G(R(g) + 1/g) = g and R(0) = m₁ (R(g) = Σ κ_{q+1} g^q).

    Parameters
    ----------
    law : Law
    g : float, complex or array_like
        Arguments (near 0: the branch is continued along the segment [0, g]).  With
        ``method="inverse"`` a real g must lie in the range of G on the real line off the
        law's hull: (G(a−), 0) ∪ (0, G(b+)) for the hull [a, b].
    dps : int, optional
        None: float64; an integer: mpmath at that precision.
    method : {None, "relation", "inverse"}
        See the module docstring; None picks "relation" for algebraic laws.

    Returns
    -------
    float, complex or ndarray, shape of ``g``

    Raises
    ------
    ParameterError
        For non-finite arguments, a real g outside the range of G, or an unknown method.
    ValueError
        If the relation degenerates on the path.
    """
    law_instance("law", law)
    if _route(law, method) == "inverse":
        return _inverse_evaluate(law, "R", g, dps)
    return _evaluate(law, "R", g, dps, float(law.moment(1)))


def s_transform(law, w_arg, dps=None, method=None):
    """S-transform S(w) = (1 + w)/w · ψ^{-1}(w), S(0) = 1/m₁, for a law on [0, ∞).

    Parameters
    ----------
    law : Law
        A law on [0, ∞) with positive mean.
    w_arg : float, complex or array_like
        Real arguments must lie in (−1 + μ({0}), 0], the range of ψ on (−∞, 0).
    dps : int, optional
    method : {None, "relation", "inverse"}
        See the module docstring; None picks "relation" for algebraic laws.

    Raises
    ------
    ParameterError
        ``.param == "law"`` if the law has non-positive mean or mass below 0; ``"w"`` if a
        real argument is outside (−1 + μ({0}), 0]; ``"method"``, ``"dps"`` likewise.

    Notes
    -----
    S_{μ⊠ν} = S_μ S_ν; S_{π(μ,t)}(w) = S_μ(w/t)/(t + w) (Hayase & Karakida 2026, (C.3)–(C.4)).
    """
    law_instance("law", law)
    arr, _, _ = _points(w_arg, "w")
    m1 = float(law.moment(1))
    if not m1 > 0:
        raise ParameterError("law", f"law must have a positive mean for the S-transform, got {m1}")
    if not np.iscomplexobj(arr):
        atom0 = sum(m for a, m in law.atoms() if a == 0)
        lo = -1 + atom0
        if np.any((arr <= lo) | (arr > 0)):
            raise ParameterError("w", f"w must lie in ({lo:g}, 0] for real arguments (the range "
                                      f"of ψ on (−∞, 0)), got {shown(w_arg)}")
    if _route(law, method) == "inverse":
        if law.support() and law.support()[0][0] < 0 or any(a < 0 for a, _ in law.atoms()):
            raise ParameterError("law", f"the S-transform needs a law on [0, ∞); {law.name} has "
                                        "mass below 0")
        return _inverse_evaluate(law, "S", w_arg, dps)
    return _evaluate(law, "S", w_arg, dps, 1.0 / m1)


def psi_transform(law, u, dps=None):
    """ψ(u) = Σ_{q≥1} m_q u^q = (1/u) G(1/u) − 1 (moment generating function).

    Parameters
    ----------
    law : Law
    u : complex or array_like of complex, any shape; finite and non-zero
    dps : int, optional
        None: float64 (complex ndarray); an integer: mpmath at that precision (mpc values).

    Returns
    -------
    complex or ndarray, shape of ``u``

    Raises
    ------
    ParameterError
        ``.param == "u"`` for a zero, NaN or infinite argument (ψ(0) = 0 by definition);
        ``"law"`` for a non-law; ``"dps"`` for a bad precision.
    """
    law_instance("law", law)
    dps = dps_or_none(dps)
    flat, exact, shape = _points(u, "u")
    flat = flat.astype(complex)
    if np.any(flat == 0):
        raise ParameterError("u", f"u must be finite and non-zero (ψ(0) = 0 by definition), got {shown(u)}")
    if dps is None:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = flat ** -1 * law.cauchy_transform(1 / flat) - 1
        return _shaped(list(out), shape, None)
    return _shaped([_psi_mp(law, v, dps) for v in exact], shape, dps)


@mp_route
def _psi_mp(law, u, dps):
    u = mpmath.mpc(u)
    return law.cauchy_transform(1 / u, dps=inner_dps(dps)) / u - 1


def chi_transform(law, w_arg, dps=None, method=None):
    """χ(w) = ψ^{-1}(w) = w S(w)/(1 + w); arguments, ``dps``, ``method`` and errors as in
    :func:`s_transform`."""
    dps = dps_or_none(dps)
    s = s_transform(law, w_arg, None if dps is None else inner_dps(dps), method=method)
    flat, exact, shape = _points(w_arg, "w")
    if dps is None:
        return _shaped(list(flat * np.reshape(s, -1) / (1 + flat)), shape, None)
    s_flat = np.asarray(s, dtype=object).reshape(-1)
    return _shaped([_chi_mp(law, v, dps, sv) for v, sv in zip(exact, s_flat)], shape, dps)


@mp_route
def _chi_mp(law, w_arg, dps, s_value):
    return w_arg * s_value / (1 + w_arg)




# ------------------------------------------------------------------ generic route: invert G
def _hull_ends(law):
    pts = [e for ab in law.support() for e in ab] + [a for a, _ in law.atoms()]
    return min(pts), max(pts)


def _G_real(law, z):
    with np.errstate(all="ignore"):
        return float(law._G(np.array([complex(z)]))[0].real)


def _real_root(f, lo, hi, grow):
    """brentq on a monotone f with f(lo) and f(hi) of opposite signs, ``hi`` grown by ``grow``
    until they are (raises if never)."""

    flo = f(lo)
    for _ in range(200):
        fhi = f(hi)
        if np.sign(fhi) != np.sign(flo):
            break
        hi = grow(hi)
    else:
        raise ArithmeticError("no bracket for the inverse of G")
    from scipy.optimize import brentq  # scipy.optimize: ~0.7 s, kept out of `import freeattn`

    a, b = min(lo, hi), max(lo, hi)
    return brentq(f, a, b, xtol=TINY, rtol=4 * FLOAT_EPS, maxiter=500)


def _inverse_real(law, kind, v):
    """Float route, real argument: K(g) − 1/g (R) or (1 + w)/w · 1/z with zG(z) = 1 + w (S)."""
    lo, hi = _hull_ends(law)
    width = max(hi - lo, abs(lo), abs(hi), TINY)
    if kind == "R":
        if v == 0:
            return float(law.moment(1))
        side = hi if v > 0 else lo
        sgn = 1.0 if v > 0 else -1.0
        near = side + sgn * _EDGE_OFFSET * width
        if not (abs(_G_real(law, near)) >= abs(v)):
            raise ParameterError("g", f"g = {shown(v)} is outside the range of G on the real line "
                                      f"beyond the support (|g| < {abs(_G_real(law, near)):.6g})")
        far = side + sgn * (1.0 / abs(v) + width)
        z = _real_root(lambda t: _G_real(law, t) - v, near, far, lambda t: side + 2 * (t - side))
        return z - 1.0 / v
    if v == 0:
        return 1.0 / float(law.moment(1))
    # S: z in (−∞, 0) with z G(z) = 1 + w; w ∈ (−1 + μ({0}), 0)
    f = lambda t: t * _G_real(law, t) - 1 - v  # noqa: E731
    z_hi = -_REAL_RTOL * width
    if not f(z_hi) < 0:
        raise ParameterError("w", f"w = {shown(v)} is outside the range of ψ on (−∞, 0)")
    z = _real_root(f, z_hi, -width * (1 + 1 / abs(v)), lambda t: 2 * t)
    return (1 + v) / v / z


def _inverse_complex(law, kind, v):
    """Float route, complex argument: secant iterations continued along t·v, t: 0 → 1 (from
    the expansion K(g) ≈ 1/g + m₁, resp. z ≈ m₁/w, at small t)."""
    m1 = float(law.moment(1))
    if v == 0:
        return complex(m1 if kind == "R" else 1 / m1)

    def F(z, target):
        g = complex(law._G(np.array([z]))[0])
        return g - target if kind == "R" else z * g - 1 - target

    eps = 4 * np.finfo(float).eps
    z = None
    for t in np.geomspace(_PATH_START, 1, 12):
        target = t * v
        z_new = (1 / target + m1) if kind == "R" else m1 / target
        z0 = z_new if z is None else z
        z1 = z0 * (1 + _SECANT_STEP) + _SECANT_STEP * (1 + abs(m1))
        f0, f1 = F(z0, target), F(z1, target)
        for _ in range(60):
            if f1 == f0:
                break
            z2 = z1 - f1 * (z1 - z0) / (f1 - f0)
            z0, f0 = z1, f1
            z1, f1 = z2, F(z2, target)
            if abs(z1 - z0) <= eps * abs(z1):
                break
        z = z1
    if kind == "R":
        return z - 1 / v
    return (1 + v) / v / z


@mp_route
def _inverse_mp(law, kind, v, dps, guess):
    inner = inner_dps(dps)
    if v == 0:
        return law.moment(1, dps=inner) if kind == "R" else 1 / law.moment(1, dps=inner)
    if kind == "R":
        z0 = mpmath.mpmathify(guess) + 1 / v
        f = lambda z: law._cauchy_mp(z, inner) - v  # noqa: E731
    else:
        z0 = (1 + v) / v / mpmath.mpmathify(guess)
        f = lambda z: z * law._cauchy_mp(z, inner) - 1 - v  # noqa: E731
    # findroot compares |f|² with tol: 10^-(2 dps) with the guard digits' margin
    z = mpmath.findroot(f, z0, tol=tolerance(2 * dps + GUARD_DPS))
    if mpmath.im(v) == 0:
        z = mpmath.re(z)
    return z - 1 / v if kind == "R" else (1 + v) / v / z


def _inverse_evaluate(law, kind, arg, dps):
    dps = dps_or_none(dps)
    flat, exact, shape = _points(arg, "w" if kind == "S" else "g")
    cplx = np.iscomplexobj(flat)
    out = []
    for a, a_exact in zip(flat, exact):
        val = _inverse_complex(law, kind, complex(a)) if cplx else _inverse_real(law, kind, float(a))
        if dps is not None:
            val = _inverse_mp(law, kind, a_exact, dps, val)
        out.append(val)
    return _shaped(out, shape, dps)
