"""Precision handling: float64 (numpy, vectorised) or mpmath at a scoped precision.

Convention used by every numeric method in freeattn: ``dps=None`` selects vectorised
float64; an integer selects mpmath with that many significant decimal digits, evaluated
with ``GUARD_DPS`` extra guard digits.  The global mpmath precision is never changed
outside a ``with workdps(...)`` block.
"""
from __future__ import annotations

import mpmath

GUARD_DPS = 10
#: precision at which float64 results' reference data (edges, atoms, parameters) are computed
FLOAT_REFERENCE_DPS = 30


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
    if isinstance(value, complex):
        return mpmath.mpc(value)
    return mpmath.mpf(value)
