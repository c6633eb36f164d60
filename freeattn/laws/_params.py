"""Fresh parameter symbols and exact parameter values for law constructors."""
from __future__ import annotations

import itertools

import sympy as sp

_counter = itertools.count()


def fresh(name):
    """A parameter symbol unique to one law instance (names never clash when laws combine)."""
    return sp.Symbol(f"{name}_{next(_counter)}")


def exact(value):
    """Exact sympy value of a user parameter: floats are taken at their exact binary value."""
    if isinstance(value, sp.Basic):
        return value
    if isinstance(value, int):
        return sp.Integer(value)
    return sp.Rational(float(value))
