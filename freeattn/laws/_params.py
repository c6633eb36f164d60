"""Fresh parameter symbols and exact parameter values for law constructors."""
from __future__ import annotations

import itertools

import sympy as sp

from .._validation import exact  # noqa: F401  (its home is _validation; importable here too)

__all__ = ["fresh", "exact"]

_counter = itertools.count()


def fresh(name):
    """A parameter symbol unique to one law instance (names never clash when laws combine)."""
    return sp.Symbol(f"{name}_{next(_counter)}")
