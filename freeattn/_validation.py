"""Parameter domains: the one place that raises for bad input.

Every public constructor and function validates through these helpers so that the
error always names the parameter and the allowed range, and NaN never slips through.
"""
from __future__ import annotations

import abc
import decimal
import fractions
import math
import numbers

import mpmath
import numpy as np
import sympy as sp

from ._context import to_mp
from ._messages import shown

__all__ = [
    "ParameterError",
    "ParameterTypeError",
    "refuse_text",
    "positive",
    "nonnegative",
    "positive_integer",
    "integer_at_least",
    "in_open_interval",
    "in_closed_interval",
    "dps_or_none",
    "MAX_DPS",
    "MAX_MOMENT_ORDER",
    "moment_order",
    "check_method",
    "finite_real",
    "Param",
    "declare",
    "declared",
    "real_vector",
    "probability_vector",
    "law_instance",
    "LawType",
    "exact",
    "check_points",
    "check_probabilities",
]

#: weights must sum to 1 to this (nothing is renormalised silently)
PROBABILITY_RTOL = 1e-9


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


def refuse_text(name, value, statement="a real number"):
    """Raise :class:`ParameterTypeError` for a string, bytes or bool given as a number.

    The one rule for every numeric parameter: numbers only.  A string is refused, numeric or
    not (``'2'`` as a width or ``'1'`` as β is a bug, and a law constructor and a function
    must not differ on it); exact decimal input is ``decimal.Decimal('0.1')`` or
    ``fractions.Fraction(1, 10)``.  The CLI parses its own flags into numbers first.
    """
    if isinstance(value, (str, bytes)):
        hint = ""
        try:
            text = (value.decode() if isinstance(value, bytes) else str(value)).strip()
            if text.lstrip("+-").isdigit():
                hint = f" (numbers only: pass {int(text)} itself)"
            elif math.isfinite(float(text)):
                hint = (f" (numbers only: pass {text} itself, or decimal.Decimal({text!r}) "
                        f"for an exact decimal)")
        except (ValueError, UnicodeDecodeError):
            pass
        raise ParameterTypeError(name, f"{name} must be {statement}, not a string: got "
                                       f"{shown(value)}{hint}")
    if isinstance(value, (bool, np.bool_)):
        raise ParameterTypeError(name, f"{name} must be {statement}, got {shown(value)}")


def _real(name, value):
    # strings and booleans are refused rather than coerced: '2' or True as a width is a bug
    refuse_text(name, value)
    if not isinstance(value, numbers.Real):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ParameterTypeError(name, f"{name} must be a real number, got {shown(value)}") from None
    if isinstance(value, float) and math.isnan(value) or value != value:
        raise ParameterError(name, f"{name} must be a real number, got NaN")
    return value


def positive(name, value):
    """Return ``value`` if it is a finite real number > 0, else raise ValueError."""
    value = _real(name, value)
    if not (0 < value < math.inf):
        raise ParameterError(name, f"{name} must be a finite number > 0, got {shown(value)}")
    return value


def nonnegative(name, value):
    """Return ``value`` if it is a finite real number >= 0, else raise ValueError."""
    value = _real(name, value)
    if not (0 <= value < math.inf):
        raise ParameterError(name, f"{name} must be a finite number >= 0, got {shown(value)}")
    return value


def in_open_interval(name, value, lo, hi):
    """Return ``value`` if lo < value < hi, else raise ValueError."""
    value = _real(name, value)
    if not (lo < value < hi):
        raise ParameterError(name, f"{name} must lie in the open interval ({lo}, {hi}), got {shown(value)}")
    return value


def in_closed_interval(name, value, lo, hi):
    """Return ``value`` if lo <= value <= hi, else raise ValueError naming the range."""
    value = _real(name, value)
    if not (lo <= value <= hi):
        raise ParameterError(name, f"{name} must lie in the closed interval [{lo:g}, {hi:g}], got {shown(value)}")
    return value


def integer_at_least(name, value, lo):
    """Return ``int(value)`` if it is an integer >= lo, else raise ValueError."""
    if type(value) is not int:  # a plain int (the common case) needs none of _real's checks
        value = _real(name, value)
    if isinstance(value, numbers.Integral):
        value = int(value)  # exact: numpy's uint64 would round through float below
    elif value != math.floor(value) if math.isfinite(value) else True:
        raise ParameterError(name, f"{name} must be an integer >= {lo}, got {shown(value)}")
    value = int(value)
    if value < lo:
        raise ParameterError(name, f"{name} must be an integer >= {lo}, got {shown(value)}")
    return value


def positive_integer(name, value):
    """Return ``int(value)`` if it is an integer >= 1, else raise ValueError."""
    return integer_at_least(name, value, 1)


#: the largest working precision any function accepts (decimal digits).  A cap of cost, not
#: of correctness: the conversions to mpmath are exact at any precision, but a quadrature at
#: 10⁴ digits already takes minutes, and ``dps=1e300`` used to hang instead of failing (the
#: CLI caps ``--dps`` lower, at :data:`freeattn.cli._domains.MAX_DPS`).
MAX_DPS = 10_000
#: the highest moment order ``Law.moment`` computes: a single-head law's m₁₀₀₀ takes ~20 s
#: (the series recursion is quadratic in the order) and float64 moments overflow from
#: m ~ 300 on; ``moment(k=1e300)`` used to hang
MAX_MOMENT_ORDER = 1000


def dps_or_none(dps):
    """Validate the working precision argument used by every numeric method.

    ``None`` selects vectorised float64; an integer in [5, :data:`MAX_DPS`] selects mpmath at
    that many decimal digits.

    Raises
    ------
    ParameterError
        Naming ``dps`` for anything else: 0, −1, 2.5, NaN, 1e300 (ParameterTypeError for a
        string or a bool).
    """
    if dps is None:
        return None
    statement = f"dps must be None (float64) or an integer >= 5 and <= {MAX_DPS} (decimal digits)"
    try:
        value = integer_at_least("dps", dps, 5)
    except ParameterTypeError:
        raise
    except ParameterError:
        raise ParameterError("dps", f"{statement}, got {shown(dps)}") from None
    if value > MAX_DPS:
        raise ParameterError("dps", f"{statement}, got {shown(dps)}")
    return value


def moment_order(name, k):
    """A moment order: an integer in [0, :data:`MAX_MOMENT_ORDER`] (ParameterError naming
    ``name`` otherwise)."""
    value = integer_at_least(name, k, 0)
    if value > MAX_MOMENT_ORDER:
        raise ParameterError(name, f"{name} must be an integer in [0, {MAX_MOMENT_ORDER}] (the "
                                   f"largest moment order computed), got {shown(k)}")
    return value


def finite_real(name, value):
    """Return ``value`` if it is a finite real number, else raise ParameterError."""
    value = _real(name, value)
    if not (-math.inf < value < math.inf):
        raise ParameterError(name, f"{name} must be a finite real number, got {shown(value)}")
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
def _at_least_one(name, value):
    value = _real(name, value)
    if not (1 <= value < math.inf):
        raise ParameterError(name, f"{name} must be a finite number >= 1, got {shown(value)}")
    return value


#: domain name → (validator(name, value), statement of the domain, test on an exact value)
_DOMAINS = {
    "real": (finite_real, "a finite real number", lambda v: True),
    "positive": (positive, "a finite number > 0", lambda v: v > 0),
    "nonnegative": (nonnegative, "a finite number >= 0", lambda v: v >= 0),
    "at_least_one": (_at_least_one, "a finite number >= 1", lambda v: v >= 1),
    "positive_integer": (positive_integer, "an integer >= 1", lambda v: v.is_integer and v >= 1),
    "law": (lambda name, value: law_instance(name, value), "a freeattn Law", None),
    "real_vector": (lambda name, value: real_vector(name, value), "a 1-D array of finite reals",
                    None),
    "probability_vector": (lambda name, value, size: probability_vector(name, value, size),
                           "non-negative weights summing to 1, one per entry", None),
    "callable": (lambda name, value: _callable(name, value), "a callable", None),
}


def _callable(name, value):
    if not callable(value):
        raise ParameterTypeError(name, f"{name} must be callable, got {type(value).__name__}")
    return value


class Param:
    """Declaration of one parameter: its Python name, domain and mathematical symbol.

    A law class lists its parameters once (``parameters = (Param(...), ...)``); a public
    function keeps a module-level tuple and validates through :func:`declare`.  The error for
    a value outside the domain is a :class:`ParameterError` whose ``.param`` is ``name`` and
    whose message states the domain.

    Parameters
    ----------
    name : str
        The Python argument name (also ``ParameterError.param`` and, in the CLI, the flag).
    domain : str, tuple or callable
        ``"real"``, ``"positive"``, ``"nonnegative"``, ``"at_least_one"``,
        ``"positive_integer"``, ``"law"``, ``"real_vector"``, ``"probability_vector"``
        (validated with the keyword ``size``), ``"callable"``, ``("closed", lo, hi)`` or
        ``("open", lo, hi)`` (interval values are finite); or a function
        ``check(name, value) -> value`` raising :class:`ParameterError` (structured values:
        a list of intervals, a polynomial), described by ``doc``.
    symbol : str, optional
        The symbol used in the papers and in displays (e.g. ``"γ_K"``).
    doc : str, optional
        One line for docstrings and displays.
    optional : bool, default False
        Whether ``None`` is accepted (and passed through) for "use the default".

    Examples
    --------
    >>> rate = Param("rate", "positive", "t")
    >>> rate.validate(2.0)
    2.0
    >>> rate.validate(-1)
    Traceback (most recent call last):
    ...
    freeattn._validation.ParameterError: rate must be a finite number > 0, got -1
    >>> from decimal import Decimal
    >>> rate.exact(Decimal("0.1"))   # exact input stays exact
    1/10
    """

    __slots__ = ("name", "domain", "symbol", "doc", "optional")

    def __init__(self, name, domain, symbol=None, doc="", optional=False):
        if not (isinstance(domain, str) and domain in _DOMAINS or callable(domain)
                or isinstance(domain, tuple) and len(domain) == 3 and domain[0] in ("closed", "open")):
            raise ValueError(f"unknown parameter domain {domain!r} for {name!r}")
        self.name, self.domain, self.symbol, self.doc = name, domain, symbol or name, doc
        self.optional = bool(optional)

    def validate(self, value, **context):
        """Return the validated value or raise :class:`ParameterError` naming the parameter
        (``context``: e.g. ``size=`` of a probability vector)."""
        if value is None and self.optional:
            return None
        if isinstance(self.domain, tuple):
            kind, lo, hi = self.domain
            check = in_closed_interval if kind == "closed" else in_open_interval
            return check(self.name, finite_real(self.name, value), lo, hi)
        if callable(self.domain):
            return self.domain(self.name, value)
        return _DOMAINS[self.domain][0](self.name, value, **context)

    def exact(self, value):
        """The exact (sympy) value of ``value``, checked against the domain.

        Exact input stays exact (int, Fraction, Decimal, sympy number, mpf at all of its
        bits; a float is its binary value; see :func:`exact`), and the
        domain is checked on the exact value (so ``Decimal("1e-400")`` is a valid positive
        number).  Strings are refused, as by every validator (:func:`refuse_text`).

        Raises
        ------
        ParameterError
            For a value outside the domain, NaN or ±∞.
        ParameterTypeError
            For a value that is not a real number (a string, a bool, …); the message states
            the domain.
        """
        if value is None and self.optional:
            return None
        refuse_text(self.name, value, self._statement())
        try:
            v = exact(value, self.name)
        except ParameterTypeError:
            raise
        except ParameterError:  # NaN, ±∞: state the domain
            raise ParameterError(self.name, f"{self.name} must be {self._statement()}, "
                                            f"got {shown(value)}") from None
        if isinstance(self.domain, tuple):
            kind, lo, hi = self.domain
            test = (lambda u: lo <= u <= hi) if kind == "closed" else (lambda u: lo < u < hi)
        else:
            test = None if callable(self.domain) else _DOMAINS[self.domain][2]
            if test is None:
                raise TypeError(f"{self.name}: a {self.domain!r} parameter has no exact value")
        if not (v.is_real and v.is_finite and bool(test(v))):
            raise ParameterError(self.name, f"{self.name} must be {self._statement()}, got {shown(value)}")
        return v

    def _statement(self):
        if callable(self.domain):
            return self.doc
        if isinstance(self.domain, tuple):
            kind, lo, hi = self.domain
            return (f"in the closed interval [{lo:g}, {hi:g}]" if kind == "closed"
                    else f"in the open interval ({lo:g}, {hi:g})")
        return _DOMAINS[self.domain][1]

    def describe(self):
        """A human-readable statement of the domain, e.g. ``'rate t: a finite number > 0'``."""
        if isinstance(self.domain, tuple):
            kind, lo, hi = self.domain
            text = f"in [{lo:g}, {hi:g}]" if kind == "closed" else f"in ({lo:g}, {hi:g})"
        else:
            text = self._statement()
        if self.optional:
            text += ", or None"
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


def declared(params, name):
    """The :class:`Param` called ``name`` in a declaration tuple."""
    for p in params:
        if p.name == name:
            return p
    raise KeyError(name)


def real_vector(name, values, min_size=1):
    """Return ``values`` as a 1-D float ndarray of finite reals with at least ``min_size``
    entries, else raise ParameterError naming ``name`` (ParameterTypeError for strings and
    booleans: numbers only, as :func:`refuse_text`)."""
    try:
        raw = np.asarray(values)
        if raw.dtype.kind in "USb" or raw.dtype.kind == "O" and any(
                isinstance(v, (str, bytes, bool, np.bool_)) for v in raw.reshape(-1)):
            raise ParameterTypeError(name, f"{name} must be an array of real numbers, not "
                                           f"strings or booleans; got {values!r}"[:300])
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ParameterError):
            raise
        raise ParameterError(name, f"{name} must be an array of real numbers") from None
    if arr.ndim != 1:
        raise ParameterError(name, f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size < min_size:
        raise ParameterError(name, f"{name} must have at least {min_size} entries, got {arr.size}")
    if not np.all(np.isfinite(arr)):
        raise ParameterError(name, f"{name} must be finite (no NaN or inf)")
    return arr


def probability_vector(name, weights, size, rtol=PROBABILITY_RTOL):
    """Return ``weights`` as a float ndarray of ``size`` non-negative numbers summing to 1
    (to ``rtol``), else raise ParameterError.  Nothing is renormalised silently: pass
    ``w / w.sum()`` for counts."""
    arr = real_vector(name, weights)
    if arr.size != size:
        raise ParameterError(name, f"{name} must have {size} entries (one per point/law), got {arr.size}")
    if np.any(arr < 0):
        raise ParameterError(name, f"{name} must be >= 0, got {shown(arr.min())}")
    total = math.fsum(arr)
    if abs(total - 1) > rtol:
        raise ParameterError(name, f"{name} must sum to 1 (got {shown(total)}); normalise counts as "
                                   f"w / w.sum()")
    return arr


class LawType(abc.ABC):
    """The type every law registers with (``LawType.register(Law)`` in
    :mod:`freeattn.laws.base`), so that the argument filter can recognise a law without
    importing the floor above it."""


def law_instance(name, value):
    """Return ``value`` if it is a :class:`freeattn.laws.Law`, else raise
    :class:`ParameterTypeError` naming ``name``."""
    if not isinstance(value, LawType):
        raise ParameterTypeError(name, f"{name} must be a freeattn Law, got {type(value).__name__}")
    return value


# ----------------------------------------------------------- exact parameter values
def exact(value, name="value"):
    """Exact sympy value of a user parameter.

    Exact input stays exact: ``int`` (and numpy integers), ``fractions.Fraction``,
    ``decimal.Decimal`` (``Decimal("0.1")`` = 1/10), sympy numbers and expressions, and
    ``mpmath.mpf`` at its own precision (its binary value, all of its bits). A ``float`` (or
    numpy float) means its binary value (0.1 → 3602879701896397/2**55).  Strings are refused
    like everywhere else (numbers only, :func:`refuse_text`).

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


# ----------------------------------------------------------- points and probabilities
def check_points(x, name, real=True, method="this method", domain="the real axis"):
    """The type filter of every pointwise method, before any conversion.

    Accepts a number (int, float, numpy number, mpf/mpc, Fraction, Decimal, a sympy
    number) or an array_like of them; refuses with :class:`ParameterTypeError` naming
    ``name``: None, strings (numbers only, as for parameters), booleans, non-numeric
    objects, ragged sequences, and — where ``real`` — complex values (``method`` is
    defined on the real axis; complex z goes to ``cauchy_transform``)."""
    word = "real" if real else "complex"

    def refuse(detail):
        raise ParameterTypeError(name, f"{name} must be a {word} number or an array_like "
                                       f"of {word} numbers, {detail}")

    def complex_refused(value):
        hint = "; for complex z use law.cauchy_transform(z)" if name == "x" else ""
        raise ParameterTypeError(
            name, f"{name} must be real: {method} is defined on {domain}, got "
                  f"{value!r}{hint}")

    def scalar(v):
        if v is None:
            refuse("got None")
        if isinstance(v, (str, bytes, np.str_, np.bytes_)):
            refuse(f"not a string: got {v!r}")
        if isinstance(v, (bool, np.bool_)):
            refuse(f"got the boolean {v!r}")
        if isinstance(v, (mpmath.mpc, complex, np.complexfloating)):
            if real:
                complex_refused(v)
            return
        if isinstance(v, (numbers.Number, mpmath.mpf)):
            return
        if hasattr(v, "is_number") and hasattr(v, "evalf"):  # a sympy expression
            if not v.is_number:
                refuse(f"got the symbolic expression {v!r}")
            if real and v.is_real is False:
                complex_refused(v)
            return
        refuse(f"got {type(v).__name__} {v!r}"[:200])

    if x is None or isinstance(x, (numbers.Number, mpmath.mpf, mpmath.mpc, str, bytes,
                                   np.generic)) or hasattr(x, "evalf"):
        scalar(x)
        return
    # any array_like (ndarray, list, tuple, pandas Series, ...)
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError):
        refuse("got a ragged or malformed sequence")
    if arr.ndim == 0 and arr.dtype.kind == "O":
        scalar(arr.item())
        return
    kind = arr.dtype.kind
    if kind in "fiu":
        return
    if kind == "c":
        if real:
            complex_refused(x if arr.size <= 4 else f"an array of dtype {arr.dtype}")
        return
    if kind == "O":
        for v in arr.reshape(-1):
            scalar(v)
        return
    if kind in "US":
        refuse(f"not strings: got an array of dtype {arr.dtype}")
    refuse(f"got an array of dtype {arr.dtype}")


def check_probabilities(q, name, method="ppf"):
    """Probabilities: real numbers in [0, 1] (NaN refused), numeric arrays checked
    vectorised; the types of :func:`check_points`."""
    check_points(q, name, method=method, domain="probabilities in [0, 1]")
    arr = np.asarray(q)
    if arr.dtype.kind in "fiu":
        flat = arr.reshape(-1)
        bad = ~((flat >= 0) & (flat <= 1))  # NaN fails both comparisons
        if bad.any():
            raise ParameterError(name, f"{name} must lie in the closed interval [0, 1], "
                                       f"got {shown(flat[bad][0])}")
        return
    for v in np.asarray(q, dtype=object).reshape(-1):
        m = to_mp(v)
        if not isinstance(m, mpmath.mpf) or mpmath.isnan(m) or not (0 <= m <= 1):
            raise ParameterError(name, f"{name} must lie in the closed interval [0, 1], got {shown(v)}")
