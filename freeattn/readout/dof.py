"""Effective degrees of freedom per token w_ν(λ) = ∫ x/(x + λ) dν = 1 + λ G_ν(−λ).

Two routes, chosen by the type of ``law``:

* any :class:`freeattn.Law` (general route): w = 1 + λ G(−λ) from the law's Cauchy transform and
  w′ = G(−λ) − λ G′(−λ) from ``law.cauchy_transform_derivative`` (exact for algebraic laws);
* a :class:`~freeattn.readout.scalar.ScalarReadoutLaw` (fast route): the paper's scalar
  equation (5.4) or (5.5) and its implicit derivative (C.30).

Source: Hayase & Karakida 2026, §5.1 and §C.4 (w_ν = −ψ_ν(−1/λ) = 1 + λ G_ν(−λ)).
"""
from __future__ import annotations

import mpmath
import numpy as np

from .._context import inner_dps, to_mp, workdps
from .._validation import ParameterError, ParameterTypeError, dps_or_none, refuse_text
from .scalar import ScalarReadoutLaw, readout_law
from .._messages import shown

__all__ = ["dof", "dof_derivative", "check_lam"]


def check_lam(lam, name="lam", allow_complex=False):
    """Validate λ: real and > 0 (or, with ``allow_complex``, complex off (−∞, 0])."""
    refuse_text(name, lam, "a real number > 0 (or an array of them)")
    arr = np.asarray(lam)
    if arr.dtype == object:
        # exact or mpmath numbers (Fraction, Decimal, sympy, mpf/mpc): same domain, checked
        # on their exact value (to_mp keeps the sign and never rounds a non-zero to zero)
        for v in arr.reshape(-1):
            refuse_text(name, v, "a real number > 0 (or an array of them)")
            try:
                v_mp = to_mp(v)
            except (TypeError, ValueError):
                raise ParameterTypeError(name, f"{name} must be a real number > 0 (or an array of "
                                               f"them), got {shown(v)}") from None
            cplx = isinstance(v_mp, mpmath.mpc)
            bad = (mpmath.isnan(v_mp) or mpmath.isinf(v_mp)
                   or (cplx and (not allow_complex or (v_mp.imag == 0 and v_mp.real <= 0)))
                   or (not cplx and v_mp <= 0))
            if bad:
                raise ParameterError(name, f"{name} must be > 0 and finite, got {shown(v)}")
        return arr
    if arr.dtype.kind not in "iufc" or (arr.dtype.kind == "c" and not allow_complex):
        raise ParameterTypeError(name, f"{name} must be a real number > 0 (or an array of them), "
                                       f"got {shown(lam)}")
    if np.any(np.isnan(arr)):
        raise ParameterError(name, f"{name} must not be NaN")
    if arr.dtype.kind == "c":
        bad = (arr.imag == 0) & (arr.real <= 0)
    else:
        bad = ~((arr > 0) & np.isfinite(arr))
    if np.any(bad):
        raise ParameterError(name, f"{name} must be > 0 and finite"
                             + (" (complex values off (-inf, 0])" if allow_complex else "")
                             + f", got {shown(arr[bad].reshape(-1)[0])}")
    return arr


def _map(fn, lam, dps):
    """Evaluate ``fn`` pointwise; float64 ndarray (or scalar) out, or mpf objects with dps."""
    arr = np.asarray(lam)
    flat = arr.reshape(-1)
    vals = [fn(x.item() if hasattr(x, "item") else x) for x in flat]
    if dps is None:
        kind = complex if any(isinstance(v, complex) and v.imag != 0 for v in vals) else float
        out = np.array([kind(v) if kind is complex else float(np.real(v)) for v in vals],
                       dtype=kind).reshape(arr.shape)
        return out[()] if out.ndim == 0 else out
    if arr.ndim == 0:
        return vals[0]
    out = np.empty(len(vals), dtype=object)
    out[:] = vals
    return out.reshape(arr.shape)


#: 1 + λ G(−λ) cancels ~log10(λ/R) digits (R the right end of the law): from λ ≥ 1e6 R on,
#: w and w′ come from the moment series w = Σ_k (−1)^{k−1} m_k/λ^k (three terms: relative
#: error ≤ (R/λ)³ ≤ 1e-18)
_SERIES_RATIO = 1e6


def _right_end(law):
    ends = [abs(float(b)) for a, b in law.support()] + [abs(float(a)) for a, b in law.support()]
    ends += [abs(float(x)) for x, _ in law.atoms()]
    return max(ends) if ends else 0.0


def _series(law, lam, dps, derivative):
    """w (or w′) from the first three moments when λ ≥ 1e6 R (real λ), else None."""
    if isinstance(lam, complex) or isinstance(lam, mpmath.mpc):
        return None
    try:
        r = _right_end(law)
    except Exception:  # a law without support()/atoms(): no series route
        return None
    if not (float(lam) >= _SERIES_RATIO * max(r, 1e-300)):
        return None
    if dps is None:
        m = [float(law.moment(k)) for k in (1, 2, 3)]
        x = 1.0 / float(lam)  # Horner in 1/λ: nothing overflows
        if derivative:
            return -x * (x * (m[0] - x * (2 * m[1] - 3 * x * m[2])))
        return x * (m[0] - x * (m[1] - x * m[2]))
    # mpmath: enough terms for dps digits ((R/λ)^K ≤ 10^{−dps−3})
    with workdps(dps):
        lm = mpmath.mpf(lam)
        kmax = max(3, int(mpmath.ceil((dps + 3) / mpmath.log10(lm / max(r, 1e-300)))) + 1)
        tot = mpmath.mpf(0)
        for k in range(1, kmax + 1):
            mk = mpmath.mpf(law.moment(k, dps=inner_dps(dps)))
            tot += (-1) ** (k - 1) * (k * (-1) * mk / lm ** (k + 1) if derivative
                                      else mk / lm ** k)
    with mpmath.workdps(dps):
        return +tot


def _general_w(law, lam, dps):
    ser = _series(law, lam, dps, derivative=False)
    if ser is not None:
        return ser
    if dps is None:
        z = -complex(lam)
        g = complex(law.cauchy_transform(z))
        w = 1 + complex(lam) * g
        return w.real if np.imag(lam) == 0 else w
    with workdps(dps):
        lm = to_mp(lam)
        g = law.cauchy_transform(-lm, dps=inner_dps(dps))
        w = 1 + lm * g
        if not isinstance(lm, mpmath.mpc) or lm.imag == 0:
            w = mpmath.re(w)
    with mpmath.workdps(dps):
        return +w


def _general_dw(law, lam, dps):
    if not hasattr(law, "cauchy_transform_derivative"):
        raise NotImplementedError(
            f"{type(law).__name__} has no cauchy_transform_derivative (G'); use a scalar "
            "readout law (IndependentKV, TiedKV) or method='quadrature'")
    ser = _series(law, lam, dps, derivative=True)
    if ser is not None:
        return ser
    if dps is None:
        z = -complex(lam)
        g = complex(law.cauchy_transform(z))
        gp = complex(law.cauchy_transform_derivative(z))
        d = g - complex(lam) * gp
        return d.real if np.imag(lam) == 0 else d
    with workdps(dps):
        lm = to_mp(lam)
        g = law.cauchy_transform(-lm, dps=inner_dps(dps))
        gp = law.cauchy_transform_derivative(-lm, dps=inner_dps(dps))
        d = g - lm * gp
        if not isinstance(lm, mpmath.mpc) or lm.imag == 0:
            d = mpmath.re(d)
    with mpmath.workdps(dps):
        return +d


def dof(law, lam, dps=None):
    """Effective degrees of freedom per token w_ν(λ) = ∫ x/(x + λ) dν(x) = 1 + λ G_ν(−λ).

    Parameters
    ----------
    law : Law or ScalarReadoutLaw
        A law ν on [0, ∞) (general route through its Cauchy transform), or a scalar readout
        law (:class:`IndependentKV`, :class:`TiedKV`: eq. (5.4)/(5.5), fast).
    lam : float or array_like of float, any shape
        Ridge penalty λ > 0.  Complex λ off (−∞, 0] is accepted as well (analytic
        continuation; used by Laplace inversion).
    dps : int, optional
        None: float64.  An integer: mpmath at that many digits (mpf out).

    Returns
    -------
    float or ndarray
        w_ν(λ) ∈ (0, 1 − ν({0})), same shape as ``lam``; decreasing in λ, ~ m₁/λ at ∞.

    Raises
    ------
    ParameterError
        If some λ is not > 0 (or is on (−∞, 0] when complex).

    Notes
    -----
    Hayase & Karakida 2026, §C.4: w_ν(λ) = −ψ_ν(−1/λ) = 1 + λ G_ν(−λ); λ w = (1 − w)/S_ν(−w).

    Examples
    --------
    >>> from freeattn.readout import IndependentKV
    >>> print(f"{dof(IndependentKV(beta=1.0, gamma_k=0.5, heads=32), 1.0):.12f}")
    0.431758298075
    """
    law = readout_law(law)
    dps = dps_or_none(dps)
    check_lam(lam, allow_complex=True)
    if isinstance(law, ScalarReadoutLaw):
        return _map(lambda x: law.w(x, dps), lam, dps)
    return _map(lambda x: _general_w(law, x, dps), lam, dps)


def dof_derivative(law, lam, dps=None):
    """λ-derivative w′_ν(λ) = −∫ x/(x + λ)² dν(x) (≤ 0).

    General laws: w′ = G(−λ) − λ G′(−λ) with G′ from ``law.cauchy_transform_derivative``.
    Scalar readout laws: implicit differentiation of (5.4)/(5.5) (eq. (C.30)).  Never a
    finite difference.  Parameters, shapes and Raises as in :func:`dof`.
    """
    law = readout_law(law)
    dps = dps_or_none(dps)
    check_lam(lam, allow_complex=True)
    if isinstance(law, ScalarReadoutLaw):
        return _map(lambda x: law.w_derivative(x, dps=dps), lam, dps)
    return _map(lambda x: _general_dw(law, x, dps), lam, dps)
