"""Parameter domains: the one place that raises for bad input.

Every public constructor and function validates through these helpers so that the
error always names the parameter and the allowed range, and NaN never slips through.
"""
from __future__ import annotations

import math
import numbers

__all__ = [
    "ParameterError",
    "positive",
    "nonnegative",
    "positive_integer",
    "integer_at_least",
    "in_open_interval",
    "in_closed_interval",
    "dps_or_none",
]


class ParameterError(ValueError):
    """A parameter outside its declared domain.

    A ``ValueError`` (so existing ``except ValueError`` code keeps working) that carries the
    parameter's Python name in ``.param``, so that a front end (the CLI) can name its own flag
    without reading the message.
    """

    def __init__(self, param, message):
        super().__init__(message)
        self.param = param


def _real(name, value):
    # strings and booleans are refused rather than coerced: '2' or True as a width is a bug
    if isinstance(value, (bool, str, bytes)):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    if not isinstance(value, numbers.Real):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be a real number, got {value!r}") from None
    if isinstance(value, float) and math.isnan(value) or value != value:
        raise ParameterError(name, f"{name} must be a real number, got NaN")
    return value


def positive(name, value):
    """Return ``value`` if it is a finite real number > 0, else raise ValueError."""
    value = _real(name, value)
    if not (0 < value < math.inf):
        raise ParameterError(name, f"{name} must be a finite number > 0, got {value!r}")
    return value


def nonnegative(name, value):
    """Return ``value`` if it is a finite real number >= 0, else raise ValueError."""
    value = _real(name, value)
    if not (0 <= value < math.inf):
        raise ParameterError(name, f"{name} must be a finite number >= 0, got {value!r}")
    return value


def in_open_interval(name, value, lo, hi):
    """Return ``value`` if lo < value < hi, else raise ValueError."""
    value = _real(name, value)
    if not (lo < value < hi):
        raise ParameterError(name, f"{name} must lie in the open interval ({lo}, {hi}), got {value!r}")
    return value


def in_closed_interval(name, value, lo, hi):
    """Return ``value`` if lo <= value <= hi, else raise ValueError naming the range."""
    value = _real(name, value)
    if not (lo <= value <= hi):
        raise ParameterError(name, f"{name} must lie in the closed interval [{lo:g}, {hi:g}], got {value!r}")
    return value


def integer_at_least(name, value, lo):
    """Return ``int(value)`` if it is an integer >= lo, else raise ValueError."""
    value = _real(name, value)
    if isinstance(value, numbers.Integral):
        value = int(value)  # exact: numpy's uint64 would round through float below
    elif value != math.floor(value) if math.isfinite(value) else True:
        raise ParameterError(name, f"{name} must be an integer >= {lo}, got {value!r}")
    value = int(value)
    if value < lo:
        raise ParameterError(name, f"{name} must be an integer >= {lo}, got {value!r}")
    return value


def positive_integer(name, value):
    """Return ``int(value)`` if it is an integer >= 1, else raise ValueError."""
    return integer_at_least(name, value, 1)


def dps_or_none(dps):
    """Validate the working precision argument used by every numeric method.

    ``None`` selects vectorised float64; an integer >= 5 selects mpmath at that many
    decimal digits.
    """
    if dps is None:
        return None
    return integer_at_least("dps", dps, 5)
