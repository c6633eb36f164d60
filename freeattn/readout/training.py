"""Gradient-flow training loss ∫ e^{−2tx} dν(x) of a linear readout, and arrival times.

Route 1 (any law, or a scalar readout law): numerical inversion of the time-Laplace transform
(Hayase & Karakida 2026, eq. (C.31))

    ∫₀^∞ e^{−st} L(t) dt = ∫ dν(x)/(s + 2x) = (1 − w_ν(s/2))/s,   s > 0,

with ``mpmath.invertlaplace`` at raised working precision (Gaver–Stehfest: Stehfest 1970;
fixed Talbot; de Hoog).  Route 2 (laws with a density): Gauss–Legendre quadrature of
e^{−2tx} against the density plus the atoms.
"""
from __future__ import annotations

import mpmath
import numpy as np
from mpmath.calculus.inverselaplace import Stehfest
from scipy.optimize import brentq

from .._validation import (ParameterError, dps_or_none, in_open_interval, positive,
                           positive_integer)
from .._context import inner_dps, workdps
from .dof import _general_w
from .quadrature import expect
from .._messages import shown
from .scalar import ScalarReadoutLaw, readout_law

__all__ = ["training_loss", "arrival_time", "loss_laplace_transform", "METHODS"]

METHODS = ("stehfest", "talbot", "dehoog", "quadrature")
#: default number of Gaver–Stehfest terms (the paper's comparison calculation, §D; mpmath then
#: works at int(1.38·48) = 66 digits).  32 terms (the paper's main choice) leave errors up to
#: ~1e-10 for laws whose loss decays fast; 48 terms agree with Talbot to ~1e-14.
STEHFEST_TERMS = 48


class _CachedStehfest(Stehfest):
    """mpmath's Gaver–Stehfest rule with its Salzer weights V_k cached per (degree, precision).

    mpmath recomputes the M weights (sums of factorial ratios) on every call; they depend only
    on M and the working precision, so a curve of many t reuses them.  Passed to
    ``mpmath.invertlaplace`` as ``method=`` (a rule class, mpmath's extension point).
    """

    _weights = {}

    def _coeff(self):
        key = (self.degree, self.ctx.prec)
        if key not in self._weights:
            self._weights[key] = super()._coeff()
        return self._weights[key]


def loss_laplace_transform(law, s, dps=30):
    """(1 − w_ν(s/2))/s, the Laplace transform in t of ∫ e^{−2tx} dν (eq. (C.31)).

    ``s`` is a real s > 0 or a complex number off (−∞, 0]; evaluated in mpmath at ``dps``.
    """
    law = readout_law(law)
    lam = s / 2
    if isinstance(law, ScalarReadoutLaw):
        w = law.w(lam, dps)
    else:
        w = _general_w(law, lam, dps)
    return (1 - w) / s


def _shifted_transform(law, p, a, dps):
    """∫ dν(x)/(p + 2(x − a)) = −G_ν(a − p/2)/2: the Laplace transform in t of
    e^{2ta} ∫ e^{−2tx} dν, i.e. of the loss of ν shifted to start at 0 (ν on [a, ∞))."""
    with workdps(dps):
        z = mpmath.mpf(a) - p / 2
        g = law.cauchy_transform(z, dps=inner_dps(dps))
        val = -g / 2
    with mpmath.workdps(dps):
        return +val


def lower_end(law):
    """a = min(support ∪ atoms) of a Law (float), 0.0 for a scalar readout law (ν on [0, ∞)).

    Raises
    ------
    ParameterError
        For a law whose support is unbounded below or unknown (the loss ∫ e^{−2tx} dν then
        need not be finite).
    """
    if isinstance(law, ScalarReadoutLaw):
        return 0.0
    ends = [float(a) for a, _ in law.support()] + [float(x) for x, _ in law.atoms()]
    if not ends or not all(np.isfinite(ends)):
        raise ParameterError("law", f"training_loss needs a law with support bounded below; "
                                    f"{getattr(law, 'name', law)!r} has support "
                                    f"{shown(law.support())} and atoms {shown(law.atoms())}")
    return min(ends)


def _check_times(t):
    arr = np.asarray(t)
    if arr.dtype.kind not in "biuf":
        raise ParameterError("t", f"t must be a real number >= 0 (or an array of them), got {shown(t)}")
    arr = arr.astype(float)
    if np.any(~(np.isfinite(arr) & (arr >= 0))):
        raise ParameterError("t", f"t must be finite and >= 0, got {shown(t)}")
    return arr


def _invert_one(law, t, method, dps, degree):
    if t == 0:
        return mpmath.mpf(1)
    if method in ("talbot", "dehoog") and not getattr(law, "supports_complex", True):
        raise ParameterError("method", f"{law.name} is evaluated for real λ only; use "
                             "method='stehfest'")
    kw = {"method": _CachedStehfest if method == "stehfest" else method}
    if degree is not None:
        kw["degree"] = degree
    elif method == "stehfest":
        kw["degree"] = STEHFEST_TERMS
    # Gaver–Stehfest needs a completely monotone loss (ν on [0, ∞)), and every method needs
    # the singularities of the transform at s = −2x left of the origin.  A law starting at
    # a ≠ 0 (e.g. a semicircle on [−2, 2], or a bulk far from 0) is inverted shifted to start
    # at 0: ∫ e^{−2tx} dν = e^{−2ta} L⁻¹[p ↦ ∫ dν/(p + 2(x − a))](t).
    a = lower_end(law)
    with mpmath.workdps(dps):
        # invertlaplace raises ctx.dps to its own goal while it runs and restores it
        if a == 0.0:
            def fp(p):
                return loss_laplace_transform(law, p, mpmath.mp.dps)
        else:
            def fp(p):
                return _shifted_transform(law, p, a, mpmath.mp.dps)

        val = mpmath.invertlaplace(fp, mpmath.mpf(t), **kw)
        if a != 0.0:
            val = val * mpmath.exp(-2 * mpmath.mpf(t) * mpmath.mpf(a))
        return +mpmath.re(val)


def training_loss(law, t, method="stehfest", dps=None, degree=None, check=None):
    """Limiting mean relative training loss L(t) = ∫ e^{−2tx} dν(x) of gradient flow (5.3).

    Unregularised gradient flow from ϑ(0) = 0 on ½‖F ϑ − y‖² with a fixed centred target y:
    lim E ‖F ϑ(t) − y‖²/‖y‖² = ∫ e^{−2tx} dν (Hayase & Karakida 2026, eq. (5.3), §C.5.1).

    Parameters
    ----------
    law : Law or ScalarReadoutLaw
        The limiting law ν of F Fᵀ (a law on [0, ∞)); any law with support bounded below is
        accepted (e.g. a semicircle): a law starting at a ≠ 0 is inverted shifted to start at
        0, ∫ e^{−2tx} dν = e^{−2ta} ∫ e^{−2t(x−a)} dν, so that Gaver–Stehfest sees a
        completely monotone function.
    t : float or array_like of float, any shape
        Times t ≥ 0.
    method : {'stehfest', 'talbot', 'dehoog', 'quadrature'}
        Laplace inversion of (1 − w_ν(s/2))/s with ``mpmath.invertlaplace`` (default
        Gaver–Stehfest with 48 terms, the paper's check setting), or 'quadrature': e^{−2tx}
        integrated against the law's density and atoms (Laws with a density; float64).
    dps : int, optional
        Digits of the result for the inversion methods: None returns float64 computed with a
        working precision of 20 digits goal (mpmath raises it further per method); an integer
        returns mpf.
    degree : int, optional
        Number of terms of the inversion method (mpmath's ``degree``).
    check : float, optional
        Also invert with a second method (Talbot, or Stehfest when ``method`` is not
        Stehfest; 'quadrature' is checked against Stehfest) and raise if the two differ by
        more than ``check`` anywhere.

    Returns
    -------
    float or ndarray (or mpf / object ndarray with ``dps``)
        L(t) ∈ [ν({0}), 1] for ν on [0, ∞) (> 1 possible with mass below 0), same shape as
        ``t``; L(0) = 1.

    Raises
    ------
    ParameterError
        For t < 0 or NaN, an unknown method, 'talbot'/'dehoog' on a real-only scalar law, or
        a law whose support is not bounded below (``.param == 'law'``).
    QuadratureError
        For 'quadrature' when the density and atoms do not resolve the law.
    ArithmeticError
        With ``check``: when the two methods disagree by more than ``check``.

    Examples
    --------
    >>> from freeattn.readout import IndependentKV
    >>> nu = IndependentKV(beta=1.0, gamma_k=1.0, heads=64, gamma_v=1.0, gamma_o=2.0)
    >>> print(f"{training_loss(nu, 10.0):.10f}")
    0.1923342536
    """
    law = readout_law(law)
    dps_out = dps_or_none(dps)
    arr = _check_times(t)
    if check is not None:
        check = float(in_open_interval("check", check, 0.0, 1.0))
        first = training_loss(law, arr, method=method, dps=dps, degree=degree)
        other = "talbot" if method == "stehfest" else "stehfest"
        second = training_loss(law, arr, method=other, dps=dps)
        diff = float(np.max(np.abs(np.asarray(first, dtype=float)
                                   - np.asarray(second, dtype=float))))
        if diff > check:
            raise ArithmeticError(f"training loss: {method} and {other} differ by {diff:.3g} "
                                  f"> check = {check:g}")
        return first
    if method not in METHODS:
        raise ParameterError("method", f"method must be one of {METHODS}, got {method!r}")
    if degree is not None:
        degree = positive_integer("degree", degree)
    if method == "quadrature":
        if isinstance(law, ScalarReadoutLaw) or dps_out is not None:
            raise ParameterError("method", "method='quadrature' needs a Law with a density "
                                 "and dps=None")
        flat = arr.reshape(-1)
        out = expect(law, lambda x: np.exp(-2.0 * np.multiply.outer(x, flat)))
        out = np.asarray(out).reshape(arr.shape)
        return out[()] if out.ndim == 0 else out
    work = 20 if dps_out is None else dps_out
    flat = [_invert_one(law, float(x), method, work, degree) for x in arr.reshape(-1)]
    if dps_out is None:
        out = np.array([float(v) for v in flat]).reshape(arr.shape)
        return out[()] if out.ndim == 0 else out
    if arr.ndim == 0:
        return flat[0]
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(arr.shape)


def _zero_mass(law):
    if isinstance(law, ScalarReadoutLaw):
        return law.zero_mass
    return sum(float(m) for a, m in law.atoms() if float(a) == 0.0)


def arrival_time(law, level=0.1, method="stehfest", degree=None, tol=1e-10):
    """First time t at which the limiting training loss ∫ e^{−2tx} dν reaches ``level``.

    Parameters
    ----------
    law : Law or ScalarReadoutLaw
    level : float
        Loss level in (ν({0}), 1) (the paper uses 0.1).
    method, degree
        As in :func:`training_loss`.
    tol : float > 0
        Absolute and relative tolerance of Brent's method in t (the paper's 1e-10).

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        If ``level`` is not in (ν({0}), 1): the loss never reaches it; ``tol`` not > 0.
    ParameterTypeError
        If ``law`` is not a Law or a ScalarReadoutLaw.

    Notes
    -----
    L is strictly decreasing from 1 to ν({0}); Brent's method on a doubling bracket
    (Hayase & Karakida 2026, §C.6.2, §D.5).

    Examples
    --------
    >>> from freeattn.readout import IndependentKV
    >>> print(f"{arrival_time(IndependentKV(1.0, 1.0, 64, 1.0, 2.0), 0.1):.4f}")
    41.2236
    """
    law = readout_law(law)
    tol = positive("tol", tol)
    if lower_end(law) < 0:
        raise ParameterError("law", "arrival_time needs a law on [0, ∞): with mass below 0 the "
                                    "loss ∫ e^{−2tx} dν grows without bound")
    z = _zero_mass(law)
    level = float(in_open_interval("level", level, z, 1.0))

    def g(t):
        return float(training_loss(law, t, method=method, degree=degree)) - level

    lo, hi = 0.0, 1.0
    while g(hi) > 0:
        lo, hi = hi, 2 * hi
        if hi > 1e12:
            raise ArithmeticError(f"loss did not reach {level} by t = 1e12")
    return brentq(g, lo, hi, xtol=tol, rtol=max(tol, 4 * np.finfo(float).eps))

