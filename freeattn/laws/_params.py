"""Fresh parameter symbols and exact parameter values for law constructors."""
from __future__ import annotations

import decimal
import fractions
import itertools
import numbers

import mpmath
import sympy as sp

from .._validation import ParameterError, ParameterTypeError, refuse_text

_counter = itertools.count()


def fresh(name):
    """A parameter symbol unique to one law instance (names never clash when laws combine)."""
    return sp.Symbol(f"{name}_{next(_counter)}")


def exact(value, name="value"):
    """Exact sympy value of a user parameter.

    Exact input stays exact: ``int`` (and numpy integers), ``fractions.Fraction``,
    ``decimal.Decimal`` (``Decimal("0.1")`` = 1/10), sympy numbers and expressions, and
    ``mpmath.mpf`` at its own precision (its binary value, all of its bits). A ``float`` (or
    numpy float) means its binary value (0.1 → 3602879701896397/2**55).  Strings are refused
    like everywhere else (numbers only, :func:`freeattn._validation.refuse_text`).

    Raises
    ------
    ParameterError
        For a non-finite value.
    ParameterTypeError
        For anything that is not a real number, strings and booleans included (also a
        ``TypeError``).
    """
    if isinstance(value, sp.Basic):
        return value
    refuse_text(name, value)
    if isinstance(value, numbers.Integral):
        return sp.Integer(int(value))
    if isinstance(value, fractions.Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise ParameterError(name, f"{name} must be finite, got {value!r}")
        num, den = value.as_integer_ratio()
        return sp.Rational(num, den)
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise ParameterError(name, f"{name} must be finite, got {value!r}")
        man, exp = value.man_exp  # all of its bits, whatever the current precision
        return sp.Integer(man) * sp.Integer(2) ** exp
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise ParameterTypeError(name, f"{name} must be a real number, got {value!r}") from None
    if f != f or f in (float("inf"), float("-inf")):
        raise ParameterError(name, f"{name} must be finite, got {value!r}")
    return sp.Rational(f)
