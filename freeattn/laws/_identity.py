"""Equality and hashing of laws by value: the canonical key of a law's defining values.

One mechanism for every law family (docs/architecture.md, "equality"): ``Law.__new__``
(:class:`ValueIdentity`) records the constructor's arguments before ``__init__`` casts anything,
:func:`_canonical` turns each into an exact hashable form (1.0 == 1, a float is its binary
value, a polynomial's fresh symbols substituted by their values), and ``_key`` /
``__eq__`` / ``__hash__`` compare those.  The key is also what the structure and value caches
of the engine are keyed on.  A law is recognised by :class:`freeattn._validation.LawType`
(``Law`` registers with it), so this module needs nothing of :mod:`freeattn.laws.base`.
"""
from __future__ import annotations

import decimal
import fractions
import functools
import inspect
import math
import numbers

import mpmath
import numpy as np
import sympy as sp

from .._validation import LawType

__all__ = ["ValueIdentity"]


class _Unkeyable(TypeError):
    """A value with no canonical form (the law then compares by identity)."""


def _exact_real(v):
    """The exact value of a real number as int or Fraction (1.0 and 1 the same, a float its
    binary value: 0.1 is not 1/10), or a tagged non-finite value."""
    if isinstance(v, (bool, np.bool_)):
        return ("bool", bool(v))
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, fractions.Fraction):
        return v
    if isinstance(v, decimal.Decimal):
        return fractions.Fraction(v) if v.is_finite() else ("nonfinite", str(v))
    if isinstance(v, mpmath.mpf):
        if not mpmath.isfinite(v):
            return ("nonfinite", str(v))
        man, exp = v.man_exp
        return fractions.Fraction(man) * fractions.Fraction(2) ** exp if man else 0
    f = float(v)
    if not math.isfinite(f):
        return ("nonfinite", repr(f))
    return fractions.Fraction(f)


def _canonical(v, subs=None):
    """A hashable canonical form of a law's defining value (:meth:`Law._key`).

    Numbers by their exact values (1.0 == 1, −0.0 == 0, a float is its binary value, so that
    ``0.1`` and ``sympy.Rational(1, 10)`` differ); sympy numbers likewise and other sympy
    expressions structurally, with ``subs`` (parameter symbol → exact value) substituted;
    real arrays by their float64 bytes (−0 as 0), sequences (list or tuple alike) and dicts
    entry by entry; laws as themselves (compared by their own keys); a callable or any other
    object with identity equality as itself.  Raises :class:`_Unkeyable` for an unhashable
    value without a canonical form."""
    if v is None or isinstance(v, (str, bytes, LawType)):
        return v
    if isinstance(v, (bool, np.bool_)):
        return ("bool", bool(v))
    if isinstance(v, sp.Basic):
        if subs:
            v = v.xreplace(subs)
        if v.is_Rational:
            return fractions.Fraction(int(v.p), int(v.q))
        if v.is_Float:
            return _exact_real(mpmath.mpf(v._mpf_))
        return v
    if isinstance(v, (numbers.Real, decimal.Decimal, mpmath.mpf)):
        return _exact_real(v)
    if isinstance(v, (numbers.Complex, mpmath.mpc)):
        c = complex(v) if not isinstance(v, mpmath.mpc) else v
        return ("complex", _exact_real(c.real), _exact_real(c.imag))
    if isinstance(v, np.polynomial.Polynomial):
        v = v.coef
    if isinstance(v, np.ndarray):
        if v.dtype.kind in "biuf":
            arr = np.ascontiguousarray(v, dtype=float) + 0.0  # −0.0 + 0.0 = 0.0
            return ("array", arr.shape, arr.tobytes())
        if v.dtype.kind == "c":
            arr = np.ascontiguousarray(v, dtype=complex) + 0.0
            return ("carray", arr.shape, arr.tobytes())
        return ("oarray", v.shape, tuple(_canonical(u, subs) for u in v.reshape(-1)))
    if isinstance(v, (list, tuple)):
        return ("seq", tuple(_canonical(u, subs) for u in v))
    if isinstance(v, dict):
        return ("dict", frozenset((_canonical(k, subs), _canonical(u, subs))
                                  for k, u in v.items()))
    try:
        hash(v)
    except TypeError:
        raise _Unkeyable(type(v).__name__) from None
    return v  # a callable (or another hashable object): equal to itself only


def _snapshot(v):
    """A constructor argument as recorded for the key: containers copied (a caller's list or
    array mutated later does not change the law's key)."""
    if isinstance(v, np.ndarray):
        return v.copy()
    if isinstance(v, (list, tuple)):
        return tuple(_snapshot(u) for u in v)
    if isinstance(v, dict):
        return {k: _snapshot(u) for k, u in v.items()}
    return v


#: constructor arguments that only name a law for display (never part of its key)
_DISPLAY_ARGUMENTS = frozenset({"name"})
#: attributes a builder sets after construction that say what a law describes (the matrix
#: kind of freeattn.montecarlo and its parameters): part of the key where present
_DESCRIPTION_ATTRIBUTES = ("describes", "params")


@functools.lru_cache(maxsize=None)
def _init_signature(cls):
    try:
        return inspect.signature(cls.__init__)
    except (TypeError, ValueError):
        return None


def _bound_arguments(cls, args, kwargs):
    """The constructor's arguments by name, defaults applied (``Semicircle(1)`` and
    ``Semicircle(variance=1.0)`` alike), less the display-only ones; None if they do not
    bind."""
    sig = _init_signature(cls)
    if sig is None:
        return None
    try:
        bound = sig.bind(None, *args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    items = list(bound.arguments.items())[1:]  # less self
    out = {}
    for name, value in items:
        kind = sig.parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            out.update({k: u for k, u in value.items() if k not in _DISPLAY_ARGUMENTS})
        elif name not in _DISPLAY_ARGUMENTS:
            out[name] = value
    return out


def _canonical_arguments(arguments):
    """The canonical key of bound constructor arguments: a dict argument mapping sympy
    symbols to values (AlgebraicLaw's ``values``) is substituted into the sympy expressions
    among the others, whose parameter symbols are fresh per instance (two builds of the same
    law carry different symbol names); it stays in the key only when a text argument might
    refer to it by name."""
    subs, maps = {}, []
    for name, v in arguments.items():
        if isinstance(v, dict) and v and all(isinstance(k, sp.Symbol) for k in v):
            subs.update(v)
            maps.append(name)
    keep_maps = any(isinstance(v, str) for v in arguments.values())
    return tuple((name, _canonical(v, subs)) for name, v in sorted(arguments.items())
                 if keep_maps or name not in maps)


class ValueIdentity:
    """Mixin of :class:`~freeattn.laws.base.Law`: equality and hashing by the canonical key of
    the defining values (the constructor's arguments, recorded by ``__new__``).  Relies on the
    law's ``_cache()`` dict for the memoised key."""

    def __new__(cls, *args, **kwargs):
        # equality by value: the constructor's arguments are recorded here, before __init__
        # casts or renames anything (an exact 1/10 stays 1/10, a polynomial's fresh symbols
        # are substituted by their values in the key); a class with its own _key needs none
        self = super().__new__(cls)
        if cls._key is ValueIdentity._key:
            self.__dict__["_law_arguments"] = (tuple(_snapshot(a) for a in args),
                                               {k: _snapshot(v) for k, v in kwargs.items()})
        return self

    #: attributes that restate the parameters (AlgebraicLaw's polynomial with fresh symbols)
    _KEY_EXCLUDED = frozenset({"name", "values", "symbolic_polynomial"})

    def _key(self):
        """(class, canonical defining values) for equality and hashing, or None (identity).

        The one mechanism of every law family (docs/architecture.md, "equality"):

        * the constructor's arguments, recorded by ``Law.__new__`` before ``__init__`` runs and
          bound to the signature (positional or keyword, defaults applied; ``name`` is
          display only), each in the exact canonical form of :func:`_canonical`: 1.0 and 1
          are the same, a float is its binary value (``0.1`` ≠ ``sympy.Rational(1, 10)``), an
          AlgebraicLaw's polynomial is taken with its parameter values substituted (its fresh
          symbol names differ from build to build);
        * plus what a builder records after construction (``describes``, ``params``: the
          matrix kind and its parameters), where present.

        So ``mha_output_law(1.0, 4, 1.5, 2.0, 2.0) == mha_output_law(1, 4, 1.5, 2, 2)``, laws
        built from laws compare through them, and a pickled or deep-copied law equals (and
        hashes as) the original.  Equality is structural: the same measure built by two
        different routes (``MarchenkoPastur(1)`` and ``FreePoisson(1)``) compares unequal.
        A class that normalises its input (Discrete sorts and merges its atoms) overrides
        ``_key`` with its normalised attributes.  A law whose defining values have no
        canonical form (an unhashable object) compares by identity."""
        recorded = self.__dict__.get("_law_arguments")
        cache = self._cache()
        base = cache.get("key")
        if base is None:
            try:
                base = self._key_from_arguments(recorded) if recorded is not None else None
                if base is None:
                    base = self._key_from_attributes()
            except _Unkeyable:
                base = False
            cache["key"] = base
        if base is False:
            return None
        try:
            extra = tuple((k, _canonical(self.__dict__[k])) for k in _DESCRIPTION_ATTRIBUTES
                          if k in self.__dict__)
        except _Unkeyable:
            return None
        return base + extra

    def _key_from_arguments(self, recorded):
        args, kwargs = recorded
        bound = _bound_arguments(type(self), args, kwargs)
        if bound is None:
            return None
        return (type(self), _canonical_arguments(bound))

    def _key_from_attributes(self):
        """The key of a law without recorded arguments (built by ``object.__new__``): its
        declared ``parameters`` if any, else its public attributes (less
        :attr:`_KEY_EXCLUDED`) when one of them is a number, a law or a dict."""
        if self.parameters:
            items = [(p.name, getattr(self, p.name)) for p in self.parameters]
        else:
            items = sorted((k, v) for k, v in vars(self).items()
                           if not k.startswith("_") and k not in self._KEY_EXCLUDED
                           and k not in _DESCRIPTION_ATTRIBUTES)
            if not any(isinstance(v, (numbers.Number, LawType, dict)) and not isinstance(v, bool)
                       for _, v in items):
                raise _Unkeyable(type(self).__name__)
        return (type(self), tuple((k, _canonical(v)) for k, v in items))

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, LawType):
            return NotImplemented
        k1, k2 = self._key(), other._key()
        return k1 is not None and k1 == k2

    def __hash__(self):
        k = self._key()
        return id(self) if k is None else hash(k)
