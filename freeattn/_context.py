"""Precision handling: float64 (numpy, vectorised) or mpmath at a scoped precision.

Convention used by every numeric method in freeattn: ``dps=None`` selects vectorised
float64; an integer selects mpmath with that many significant decimal digits, evaluated
with ``GUARD_DPS`` extra guard digits and rounded back to ``dps`` digits on return.  The
global mpmath precision is never changed: every change is scoped by ``mpmath.workdps``.

This is mpmath's own pattern (``extraprec``/``workdps`` and the ``_wrap_specfun`` round-back),
written once here:

* :func:`workdps` — context manager: ``dps`` plus guard digits;
* :func:`round_back` — round a result (number, tuple/list of numbers, or pairs) to ``dps``;
* :func:`mp_route` — decorator for a method ``f(self, x, dps)``: runs the body inside
  :func:`workdps`, converts ``x`` to mpmath, rounds the result back;
* :func:`tolerance` — the absolute/relative tolerance that goes with a working precision
  (float64 when ``dps`` is ``None``), so that no tolerance literal is needed elsewhere.
"""
from __future__ import annotations

import functools

import mpmath
import numpy as np

__all__ = ["GUARD_DPS", "FLOAT_REFERENCE_DPS", "FLOAT_EPS", "workdps", "to_mp", "round_back",
           "mp_route", "tolerance"]

GUARD_DPS = 10
#: precision at which float64 results' reference data (edges, atoms, parameters) are computed
FLOAT_REFERENCE_DPS = 30
#: unit roundoff of float64
FLOAT_EPS = float(np.finfo(float).eps)


def workdps(dps):
    """Context manager: mpmath precision ``dps`` plus guard digits."""
    return mpmath.workdps(int(dps) + GUARD_DPS)


def to_mp(value):
    """Convert a sympy number or a Python number to an mpmath number at current precision."""
    if hasattr(value, "evalf"):
        value = value.evalf(mpmath.mp.dps + 5)
        if value.is_real:
            return mpmath.mpf(str(value))
        re, im = value.as_real_imag()
        return mpmath.mpc(str(re), str(im))
    if isinstance(value, (complex, np.complexfloating)):
        return mpmath.mpc(complex(value))
    if isinstance(value, (mpmath.mpf, mpmath.mpc)):
        return +value
    return mpmath.mpmathify(value)


def round_back(value, dps):
    """Round ``value`` (an mpmath number, or a tuple/list of them, nested) to ``dps`` digits.

    Non-mpmath entries (floats, ints, None) are returned unchanged."""
    with mpmath.workdps(int(dps)):
        return _round(value)


def _round(value):
    if isinstance(value, (mpmath.mpf, mpmath.mpc)):
        return +value
    if isinstance(value, tuple):
        return tuple(_round(v) for v in value)
    if isinstance(value, list):
        return [_round(v) for v in value]
    return value


def mp_route(method):
    """Decorator for an mpmath route ``method(self, x, dps)``.

    The body runs at ``dps + GUARD_DPS`` digits with ``x`` converted to an mpmath number; the
    result is rounded back to ``dps`` digits.  Nested routes add no further guard digits if
    called with the already-raised precision (they simply take ``dps`` from the caller)."""

    @functools.wraps(method)
    def wrapper(self, x, dps, *args, **kwargs):
        with workdps(dps):
            value = method(self, to_mp(x), dps, *args, **kwargs)
        return round_back(value, dps)

    return wrapper


def tolerance(dps=None, factor=1.0):
    """Relative tolerance that goes with a working precision.

    ``dps=None`` → ``factor`` × float64 unit roundoff (a Python float); an integer → ``factor`` ×
    10^(−dps) as an mpf (the guard digits absorb the rounding of the arithmetic itself)."""
    if dps is None:
        return factor * FLOAT_EPS
    return mpmath.mpf(factor) * mpmath.mpf(10) ** (-int(dps))
