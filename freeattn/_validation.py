"""Parameter domains: the one place that raises for bad input.

Every public constructor and function validates through these helpers so that the
error always names the parameter and the allowed range, and NaN never slips through.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "ParameterError",
    "ParameterTypeError",
    "positive",
    "nonnegative",
    "positive_integer",
    "integer_at_least",
    "in_open_interval",
    "in_closed_interval",
    "dps_or_none",
    "check_method",
    "finite_real",
    "Param",
    "declare",
    "real_vector",
    "probability_vector",
    "law_instance",
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

    def __reduce__(self):
        return type(self), (self.param, str(self))


class ParameterTypeError(ParameterError, TypeError):
    """A parameter of the wrong type (a string, a boolean, a non-law, …).

    Both a :class:`ParameterError` (it carries ``.param``, so the CLI names the flag) and a
    ``TypeError`` (Python's convention for a wrong type, so ``except TypeError`` still works).
    """


def _real(name, value):
    # strings and booleans are refused rather than coerced: '2' or True as a width is a bug
    if isinstance(value, (bool, str, bytes)):
        raise ParameterTypeError(name, f"{name} must be a real number, got {value!r}")
    if not isinstance(value, numbers.Real):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ParameterTypeError(name, f"{name} must be a real number, got {value!r}") from None
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


def finite_real(name, value):
    """Return ``value`` if it is a finite real number, else raise ParameterError."""
    value = _real(name, value)
    if not (-math.inf < value < math.inf):
        raise ParameterError(name, f"{name} must be a finite real number, got {value!r}")
    return value


def check_method(method, allowed, name="method"):
    """Validate a ``method=`` argument against the names of the available routes.

    ``None`` is returned unchanged (the caller's default route); any other value must be one
    of ``allowed``.

    Raises
    ------
    ParameterError
        Naming ``method`` (``.param == "method"``) and every allowed name.
    """
    if method is None or (isinstance(method, str) and method in allowed):
        return method
    names = ", ".join(repr(a) for a in allowed)
    raise ParameterError(name, f"{name} must be one of {names} (or None for the default), "
                               f"got {method!r}")


# ----------------------------------------------------------- declared parameters
_DOMAINS = {
    "real": (finite_real, "a finite real number"),
    "positive": (positive, "a finite number > 0"),
    "nonnegative": (nonnegative, "a finite number >= 0"),
    "positive_integer": (positive_integer, "an integer >= 1"),
}


class Param:
    """Declaration of one parameter: its Python name, domain and mathematical symbol.

    Parameters
    ----------
    name : str
        The Python argument name (also ``ParameterError.param`` and, in the CLI, the flag).
    domain : str or tuple
        ``"real"``, ``"positive"``, ``"nonnegative"``, ``"positive_integer"``,
        ``("closed", lo, hi)`` or ``("open", lo, hi)``.
    symbol : str, optional
        The symbol used in the papers and in displays (e.g. ``"γ_K"``).
    doc : str, optional
        One line for docstrings and displays.

    Examples
    --------
    >>> rate = Param("rate", "positive", "t")
    >>> rate.validate(2.0)
    2.0
    >>> rate.validate(-1)
    Traceback (most recent call last):
    ...
    freeattn._validation.ParameterError: rate must be a finite number > 0, got -1
    """

    __slots__ = ("name", "domain", "symbol", "doc")

    def __init__(self, name, domain, symbol=None, doc=""):
        if not (isinstance(domain, str) and domain in _DOMAINS
                or isinstance(domain, tuple) and len(domain) == 3 and domain[0] in ("closed", "open")):
            raise ValueError(f"unknown parameter domain {domain!r} for {name!r}")
        self.name, self.domain, self.symbol, self.doc = name, domain, symbol or name, doc

    def validate(self, value):
        """Return the validated value or raise :class:`ParameterError` naming the parameter."""
        if isinstance(self.domain, tuple):
            kind, lo, hi = self.domain
            check = in_closed_interval if kind == "closed" else in_open_interval
            return check(self.name, value, lo, hi)
        return _DOMAINS[self.domain][0](self.name, value)

    def describe(self):
        """A human-readable statement of the domain, e.g. ``'rate t: a finite number > 0'``."""
        if isinstance(self.domain, tuple):
            kind, lo, hi = self.domain
            text = f"in [{lo:g}, {hi:g}]" if kind == "closed" else f"in ({lo:g}, {hi:g})"
        else:
            text = _DOMAINS[self.domain][1]
        return f"{self.name} {self.symbol}: {text}"

    def __repr__(self):
        return f"Param({self.name!r}, {self.domain!r}, {self.symbol!r})"


def declare(params, **values):
    """Validate keyword values against a tuple of :class:`Param` declarations.

    Returns a dict name → validated value, in declaration order.

    Raises
    ------
    ParameterError
        For the first value outside its declared domain (``.param`` is its name).
    TypeError
        For a missing or an undeclared name.
    """
    names = [p.name for p in params]
    extra = set(values) - set(names)
    if extra:
        raise TypeError(f"undeclared parameter(s): {sorted(extra)}")
    missing = [n for n in names if n not in values]
    if missing:
        raise TypeError(f"missing parameter(s): {missing}")
    return {p.name: p.validate(values[p.name]) for p in params}


def real_vector(name, values, min_size=1):
    """Return ``values`` as a 1-D float ndarray of finite reals with at least ``min_size``
    entries, else raise ParameterError naming ``name``."""
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(name, f"{name} must be an array of real numbers") from None
    if arr.ndim != 1:
        raise ParameterError(name, f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size < min_size:
        raise ParameterError(name, f"{name} must have at least {min_size} entries, got {arr.size}")
    if not np.all(np.isfinite(arr)):
        raise ParameterError(name, f"{name} must be finite (no NaN or inf)")
    return arr


def probability_vector(name, weights, size, rtol=1e-9):
    """Return ``weights`` as a float ndarray of ``size`` non-negative numbers summing to 1
    (to ``rtol``), else raise ParameterError.  Nothing is renormalised silently: pass
    ``w / w.sum()`` for counts."""
    arr = real_vector(name, weights)
    if arr.size != size:
        raise ParameterError(name, f"{name} must have {size} entries (one per point/law), got {arr.size}")
    if np.any(arr < 0):
        raise ParameterError(name, f"{name} must be >= 0, got {arr.min()!r}")
    total = math.fsum(arr)
    if abs(total - 1) > rtol:
        raise ParameterError(name, f"{name} must sum to 1 (got {total!r}); normalise counts as "
                                   f"w / w.sum()")
    return arr


def law_instance(name, value):
    """Return ``value`` if it is a :class:`freeattn.laws.Law`, else raise
    :class:`ParameterTypeError` naming ``name``."""
    from .laws.base import Law

    if not isinstance(value, Law):
        raise ParameterTypeError(name, f"{name} must be a freeattn Law, got {type(value).__name__}")
    return value
