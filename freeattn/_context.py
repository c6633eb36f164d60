"""Precision handling: float64 (numpy, vectorised) or mpmath at a scoped precision.

Convention used by every numeric method in freeattn: ``dps=None`` selects vectorised
float64; an integer selects mpmath with that many significant decimal digits, evaluated
with ``GUARD_DPS`` extra guard digits and rounded back to ``dps`` digits on return.  The
global mpmath precision is never changed: every change is scoped by ``mpmath.workdps``.

This is mpmath's own pattern (``extraprec``/``workdps`` and the ``_wrap_specfun`` round-back),
written once here:

* :func:`workdps` — context manager: ``dps`` plus guard digits;
* :func:`round_back` — round a result (number, tuple/list of numbers, or pairs) to ``dps``;
* :func:`mp_route` — decorator for a method ``f(self, x, dps)`` or ``f(self, dps)``:
  ``dps=None`` passes through (float64); otherwise runs the body inside :func:`workdps`,
  converts ``x`` to mpmath, rounds the result back;
* :func:`inner_dps` — the precision at which a route calls another route (no literal
  ``dps + 5`` anywhere);
* :func:`tolerance` — the absolute/relative tolerance that goes with a working precision
  (float64 when ``dps`` is ``None``), so that no tolerance literal is needed elsewhere;
* :data:`FLOAT64`, :data:`MPMATH`, :func:`context` — the small arithmetic context (``sqrt``,
  ``log``, ``pi``, ``where``, ``guard``, ``isnan``, ``inf``) a closed form is written against once: numpy
  arrays in float64, mpmath numbers at the working precision (mpmath's own model of functions
  written against ``ctx``).
"""
from __future__ import annotations

import decimal
import inspect
import math
import fractions
import functools
import numbers

import mpmath
import numpy as np

__all__ = ["GUARD_DPS", "FLOAT_REFERENCE_DPS", "FLOAT_EPS", "TINY", "MASS_TOL", "workdps",
           "to_mp", "round_back", "Digits", "mp_route", "inner_dps", "tolerance", "FLOAT64", "MPMATH",
           "context"]

GUARD_DPS = 10
#: precision at which float64 results' reference data (edges, atoms, parameters) are computed
FLOAT_REFERENCE_DPS = 30
#: unit roundoff of float64
FLOAT_EPS = float(np.finfo(float).eps)
#: a positive floor far below any scale of interest (keeps a step, a width or a tolerance
#: from being 0), well above the smallest normal float64
TINY = 1e-300
#: the total mass of a law's atoms and support intervals (float64 routes) must be 1 to this;
#: the one mass tolerance of the engine (algebraic laws, subordination).  The generic scan of a
#: law known by G alone, whose edges are known to one ulp only, states its own wider floor
#: (:data:`freeattn.laws.generic.SCAN_MASS_TOL`)
MASS_TOL = 1e-9


def workdps(dps):
    """Context manager: mpmath precision ``dps`` plus guard digits."""
    return mpmath.workdps(int(dps) + GUARD_DPS)


def to_mp(value):
    """Convert a number to an mpmath number at the current working precision, exactly.

    mpf/mpc, ints, floats and complex (Python or numpy) are taken losslessly (mpmath's own
    conversion); exact rationals — ``fractions.Fraction``, ``decimal.Decimal``, sympy
    ``Integer``/``Rational`` — are rounded once, correctly, to the working precision
    (mpmath's ``from_rational``); a sympy ``Float`` is taken through its binary value
    (``Float._mpf_``, as mpmath itself does); any other sympy number (``sqrt(2)``, ``pi``,
    a ``CRootOf``) is evaluated by sympy at the working precision plus 5 digits and taken
    the same way.  No decimal string is formed on the way, so the conversion works at any
    precision (Python refuses int↔str conversions beyond 4300 digits).

    Raises ``TypeError`` for a value that is not a number (a symbolic expression with free
    symbols, an object mpmath cannot convert)."""
    if isinstance(value, (mpmath.mpf, mpmath.mpc)):
        return +value
    if isinstance(value, decimal.Decimal):
        if value.is_nan():
            return mpmath.mpf("nan")
        if value.is_infinite():
            return mpmath.mpf("-inf") if value.is_signed() else mpmath.mpf("inf")
        return _rational(*value.as_integer_ratio())
    if hasattr(value, "evalf"):
        return _sympy_to_mp(value)
    if isinstance(value, numbers.Rational) and not isinstance(value, numbers.Integral):
        return _rational(int(value.numerator), int(value.denominator))
    if isinstance(value, (complex, np.complexfloating)):
        return mpmath.mpc(complex(value))
    return +mpmath.mpmathify(value, strings=False)


def _rational(p, q):
    """p/q correctly rounded to the working precision (no string on the way)."""
    return mpmath.mpmathify(fractions.Fraction(p, q))


def _sympy_real_to_mp(part, value):
    if part.is_Rational:
        return _rational(int(part.p), int(part.q))
    if part.is_Float:
        return +mpmath.mpf(part._mpf_)
    if part.is_infinite and part.is_extended_real:
        return mpmath.mpf("inf") if part.is_extended_positive else mpmath.mpf("-inf")
    raise TypeError(f"cannot convert {value!r} to an mpmath number")


def _sympy_to_mp(value):
    if type(value).__name__ == "NaN":  # sympy.nan (a singleton class; sympy is not imported here)
        return mpmath.mpf("nan")
    if getattr(value, "is_Rational", False) or getattr(value, "is_Float", False):
        return _sympy_real_to_mp(value, value)
    if not getattr(value, "is_number", False):
        raise TypeError(f"cannot convert {value!r} to an mpmath number (not a number)")
    evaluated = value.evalf(inner_dps(mpmath.mp.dps))
    re, im = evaluated.as_real_imag()
    re = _sympy_real_to_mp(re, value)
    if im == 0:
        return re
    return mpmath.mpc(re, _sympy_real_to_mp(im, value))


class Digits(mpmath.mpf):
    """An mpf rounded to ``dps`` digits that prints them.

    mpmath prints every mpf at the global ``mp.dps`` (15 digits, 17 in a repr) whatever
    precision it carries, so ``law.support(dps=30)`` showed 17 digits in a REPL.  This is an
    ``mpf`` in every other way (``isinstance(x, mpmath.mpf)``, equal and hashing as its value;
    arithmetic gives plain mpf at the context precision); only ``repr``/``str`` print ``dps``
    significant digits.
    """

    __slots__ = ("dps",)

    def __repr__(self):
        return f"mpf('{mpmath.libmp.to_str(self._mpf_, self.dps)}')"

    def __str__(self):
        return mpmath.libmp.to_str(self._mpf_, self.dps)

    def __reduce__(self):
        return (_digits, (self._mpf_, self.dps))


def _digits(mpf_value, dps):
    """The :class:`Digits` of mpmath's internal value tuple (also what a pickle stores)."""
    out = object.__new__(Digits)
    out._mpf_ = mpf_value
    out.dps = dps
    return out


def round_back(value, dps):
    """Round ``value`` (an mpmath number, or a tuple/list of them, nested) to ``dps`` digits.

    A real result is a :class:`Digits` (an mpf that prints its ``dps`` digits).  Non-mpmath
    entries (floats, ints, None) are returned unchanged."""
    with mpmath.workdps(int(dps)):
        return _round(value, int(dps))


def _round(value, dps):
    if isinstance(value, mpmath.mpf):
        return _digits((+value)._mpf_, dps)
    if isinstance(value, mpmath.mpc):
        return +value
    if isinstance(value, tuple):
        return tuple(_round(v, dps) for v in value)
    if isinstance(value, list):
        return [_round(v, dps) for v in value]
    return value


def mp_route(method):
    """Decorator: the one precision mechanism of every mpmath route.

    For a method whose parameters include ``dps`` — a pointwise hook ``f(self, x, dps)`` or
    a structural one ``f(self, dps)`` (support, atoms); likewise a function whose first
    argument is the law, ``f(law, …, x, dps, …)`` — the wrapper

    * passes ``dps=None`` straight through (the float64 route, no mpmath involved);
    * otherwise runs the body at ``dps + GUARD_DPS`` digits (:func:`workdps`), with the point
      ``x`` (the argument before ``dps``, if any) converted by :func:`to_mp`,
    * and rounds the result — a number, or nested tuples/lists of numbers — back to ``dps``
      digits (:func:`round_back`), as mpmath's ``_wrap_specfun`` does.

    The global mpmath precision is never changed.  A route that calls another route inside its
    body passes :func:`inner_dps` (its own working precision) so that the callee's rounded
    result still carries the caller's guard digits."""


    names = list(inspect.signature(method).parameters)
    if "dps" not in names:
        raise TypeError(f"mp_route: {method.__qualname__} has no 'dps' parameter")
    k = names.index("dps") - 1  # position of dps in *args (self excluded)
    point = k - 1 if k >= 1 else None  # the point converted to mpmath (its index in *args)

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if "dps" in kwargs:
            dps = kwargs["dps"]
        elif len(args) > k:
            dps = args[k]
        else:
            dps = None
        if dps is None:
            return method(self, *args, **kwargs)
        with workdps(dps):
            if point is not None and len(args) > point:
                args = list(args)
                args[point] = to_mp(args[point])
            value = method(self, *args, **kwargs)
        return round_back(value, dps)

    wrapper.mp_route = True
    return wrapper


def inner_dps(dps, levels=1):
    """Precision at which a route running at ``dps`` calls another route (a component law's
    hook, a transform): the caller's working precision ``dps + GUARD_DPS``, so the callee's
    own guard digits come on top and its rounded-back result loses nothing the caller keeps.
    ``levels`` > 1: that many guard layers (a cancellation-prone computation, e.g. a series
    whose coefficients are converted once and then combined)."""
    return int(dps) + int(levels) * GUARD_DPS


def tolerance(dps=None, factor=1.0):
    """Relative tolerance that goes with a working precision.

    ``dps=None`` → ``factor`` × float64 unit roundoff (a Python float); an integer → ``factor`` ×
    10^(−dps) as an mpf (the guard digits absorb the rounding of the arithmetic itself)."""
    if dps is None:
        return factor * FLOAT_EPS
    return mpmath.mpf(factor) * mpmath.mpf(10) ** (-int(dps))


class _Float64Context:
    """numpy, vectorised over float64/complex128 arrays (elementwise ``where``)."""

    sqrt = staticmethod(np.sqrt)
    log = staticmethod(np.log)
    where = staticmethod(np.where)
    isnan = staticmethod(np.isnan)
    pi = math.pi
    inf = math.inf
    nan = math.nan
    mp = False

    @staticmethod
    def guard(cond, value, fallback):
        """``value`` itself: numpy evaluates the branch not taken harmlessly (under errstate),
        and a later ``where`` discards it."""
        return value

    @staticmethod
    def number(value):
        return float(value)


class _MpContext:
    """mpmath scalars at the current working precision (``where`` picks one branch)."""

    sqrt = staticmethod(mpmath.sqrt)
    log = staticmethod(mpmath.log)
    isnan = staticmethod(mpmath.isnan)
    mp = True

    @staticmethod
    def where(cond, a, b):
        return a if cond else b

    @staticmethod
    def guard(cond, value, fallback):
        """``value`` where ``cond``, else ``fallback``: keeps a square root real or a
        denominator non-zero on the branch a later ``where`` does not take."""
        return value if cond else fallback

    @property
    def pi(self):
        return +mpmath.pi

    @property
    def inf(self):
        return mpmath.inf

    @property
    def nan(self):
        return mpmath.nan

    @staticmethod
    def number(value):
        return to_mp(value)


#: the float64 context of a closed form written once (see :func:`context`)
FLOAT64 = _Float64Context()
#: the mpmath context of a closed form written once
MPMATH = _MpContext()


def context(dps):
    """The arithmetic context of a precision: :data:`FLOAT64` for ``dps=None``, else
    :data:`MPMATH` (whose numbers are at the working precision set by :func:`workdps` or
    :func:`mp_route`)."""
    return FLOAT64 if dps is None else MPMATH
