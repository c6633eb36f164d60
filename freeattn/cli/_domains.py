"""CLI flags, --help texts and number parsing, derived from the declared parameters.

One source: the :class:`~freeattn._validation.Param` declarations of
:mod:`freeattn.attention.domains` (the same objects the laws validate with).  A flag is the
parameter's Python name spelled ``--gamma-k``; its help text states the declared domain
(``"β in [0.01, 4]"``), so a help text cannot state a range the laws do not enforce; and
:func:`freeattn.cli._errors.usage_error` maps a :class:`~freeattn._validation.ParameterError`
back to the flag by the same rule (or by the click option of that Python name).
"""
from __future__ import annotations

import decimal
import fractions
import math

import click

from ..attention.domains import BETA, GAMMA_RANGE, HEADS

__all__ = ["BETA_HELP", "GAMMA_HELP", "HEADS_HELP", "gamma_help", "DPS", "MAX_DPS", "REAL",
           "Real", "ExactReal", "exact", "flag_of", "param_help", "param_option"]

def flag_of(name):
    """The flag of a Python parameter name: ``gamma_k`` → ``--gamma-k``."""
    return "--" + name.replace("_", "-")


def _interval(lo, hi):
    return f"[{lo:g}, {hi:g}]"


def param_help(param, default=None, extra=""):
    """The --help text of a declared parameter: its description and domain.

    ``"Inverse temperature β in [0.01, 4]."``, ``"γ_K = h d_K / n, in [0.001, 1000]."``,
    ``"Number of heads h, an integer with 1 ≤ h ≤ 10000."``; ``default`` (a phrase such as
    ``"1, or the preset's"``) is appended as ``(default …)``, then ``extra``.
    """
    doc = param.doc[:1].upper() + param.doc[1:]
    if isinstance(param.domain, tuple):
        sep = " " if doc.endswith(param.symbol) else ", "
        text = f"{doc}{sep}in {_interval(*param.domain[1:])}"
    else:
        text = doc
    if default is not None:
        text += f" (default {default})"
    return text + "." + (f" {extra}" if extra else "")


class ExactReal(float):
    """A flag's float value that keeps the exact rational written (``.exact``).

    ``--beta 0.1`` is the float 0.1000000000000000055…; a command that computes at ``--dps``
    digits takes :func:`exact` of it, the rational 1/10, so that 40 digits asked are 40
    digits of the law at β = 1/10 (the float gave 17).  Everywhere else it is the float.
    """

    def __new__(cls, value, exact_value):
        self = super().__new__(cls, value)
        self.exact = exact_value
        return self

    def __reduce__(self):  # pickles (worker processes) as itself
        return (ExactReal, (float(self), self.exact))


def exact(x):
    """The exact rational a flag's number was written as (an int if integral), else ``x``."""
    q = getattr(x, "exact", None)
    if q is None:
        return x
    return int(q) if q.denominator == 1 else q


class Real(click.ParamType):
    """A finite real number, parsed without silent rounding to 0 or ∞.

    ``float("1e-400")`` is 0.0 and ``float("1e400")`` is inf: a flag given such a number is
    refused (naming the flag) rather than passed on as 0 or ∞; NaN and ±inf are refused too.
    Subnormal values (down to 5e-324) are accepted: they are the numbers written.  A fraction
    ``p/q`` (``1/10``) is accepted; the value is an :class:`ExactReal` that keeps the exact
    rational written (``0.1`` → 1/10) for the commands that compute at ``--dps`` digits.
    """

    name = "number"

    def convert(self, value, param, ctx):
        if isinstance(value, float):
            x = value
        else:
            text = str(value).strip()
            try:
                x = float(text)
            except ValueError:
                x = self._fraction(text, param, ctx)
            if x == 0 and math.isfinite(x):
                try:
                    if decimal.Decimal(text) != 0:
                        self.fail(f"{text} underflows to 0 in float64 (the smallest positive "
                                  f"value is 5e-324); give 0 or a representable value",
                                  param, ctx)
                except decimal.InvalidOperation:
                    pass
            elif math.isinf(x) and text.lstrip("+-").lower() not in ("inf", "infinity"):
                self.fail(f"{text} overflows float64 (the largest value is 1.8e308)", param,
                          ctx)
        if not math.isfinite(x):
            self.fail(f"must be a finite number, got {value}", param, ctx)
        if isinstance(value, float):
            return x
        text = str(value).strip()
        try:  # Decimal first: Fraction("0e999999999") would compute 10**999999999
            q = (fractions.Fraction(text) if "/" in text
                 else fractions.Fraction(*decimal.Decimal(text).as_integer_ratio()))
        except (ValueError, ZeroDivisionError, decimal.InvalidOperation):
            return x
        return ExactReal(x, q)

    def _fraction(self, text, param, ctx):
        """The float of ``p/q``, refused with the reason when it is not one."""
        if "/" not in text:
            self.fail(f"{text!r} is not a real number", param, ctx)
        try:
            q = fractions.Fraction(text)
        except ZeroDivisionError:
            self.fail(f"{text} divides by zero", param, ctx)
        except ValueError:
            self.fail(f"{text!r} is not a real number (nor a fraction p/q)", param, ctx)
        try:
            x = float(q)
        except OverflowError:
            self.fail(f"{text} overflows float64 (the largest value is 1.8e308)", param, ctx)
        if x == 0 and q != 0:
            self.fail(f"{text} underflows to 0 in float64 (the smallest positive value is "
                      f"5e-324); give 0 or a representable value", param, ctx)
        return x


#: the click type of every real-valued flag
REAL = Real()


def param_option(param, *, flag=None, required=False, default=None, show_default=False,
                 default_help=None, extra="", **kwargs):
    """A click option for a declared parameter: flag, type and help derived from it.

    ``flag`` overrides the flag derived from the name (the Python name stays ``param.name``,
    so that a ParameterError naming it is reported with this flag).
    """
    if isinstance(param.domain, tuple) or param.domain in ("positive", "nonnegative", "real",
                                                             "at_least_one"):
        kind = REAL
    else:  # integers and choices: the declared validator checks the range, click the type
        kind = kwargs.pop("type", int)
    kwargs.setdefault("type", kind)
    if default is not None:  # click >= 8.2 takes an explicit default=None as a value given,
        kwargs["default"] = default  # so a required flag left out was never reported missing
    return click.option(flag or flag_of(param.name), param.name, required=required,
                        show_default=show_default,
                        help=param_help(param, default_help, extra), **kwargs)


#: "Inverse temperature β in [0.01, 4]."
BETA_HELP = param_help(BETA)
#: "in [0.001, 1000]"
GAMMA_HELP = f"in {_interval(*GAMMA_RANGE)}"
#: "Number of heads h, an integer with 1 ≤ h ≤ 10000."
HEADS_HELP = param_help(HEADS)


def gamma_help(symbol, definition):
    """E.g. ``gamma_help("γ_K", "h d_K / n")`` → "γ_K = h d_K / n, in [0.001, 1000]."."""
    return f"{symbol} = {definition}, {GAMMA_HELP}."


#: Largest --dps the commands accept.  Conversions to mpmath are exact (no decimal-string
#: limit since ``_context.to_mp`` converts rationals directly), so the cap is one of cost:
#: the support of attention_law(1, 1, 2) took 16 s at 2000 digits and 67 s at 5000 on the
#: 2-core development machine.
MAX_DPS = 2000
#: click type of every --dps option: an integer in [5, MAX_DPS]
DPS = click.IntRange(5, MAX_DPS)
