"""freeattn._context.to_mp: exact conversion at any precision (no decimal strings)."""
import decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

from freeattn import MarchenkoPastur
from freeattn._context import to_mp

#: beyond Python's 4300-digit limit on int <-> str conversion (sys.int_info)
HIGH = 5000


@pytest.mark.parametrize("value, check", [
    (sp.Rational(1, 3), lambda v: 3 * v - 1),
    (Fraction(2, 3), lambda v: 3 * v - 2),
    (decimal.Decimal("0.1"), lambda v: 10 * v - 1),
    (sp.sqrt(2), lambda v: v ** 2 - 2),
    (sp.Integer(10) ** 4500 + 1, lambda v: (v - 1) / mpmath.mpf(10) ** 4500 - 1),
])
def test_exact_values_beyond_4300_digits(value, check):
    # the former route str(value.evalf()) -> mpf(str) raised "Exceeds the limit (4300 digits)"
    with mpmath.workdps(HIGH):
        v = to_mp(value)
        assert isinstance(v, mpmath.mpf)
        assert abs(check(v)) < mpmath.mpf(10) ** (-HIGH + 5)


def test_complex_sympy_number_at_high_precision():
    with mpmath.workdps(HIGH):
        v = to_mp(sp.Rational(1, 3) + sp.sqrt(2) * sp.I)
        assert isinstance(v, mpmath.mpc)
        assert abs(3 * v.real - 1) < mpmath.mpf(10) ** (-HIGH + 5)
        assert abs(v.imag ** 2 - 2) < mpmath.mpf(10) ** (-HIGH + 5)


def test_rational_is_correctly_rounded():
    # 1/3 rounded once to 53 bits is the float 1/3
    with mpmath.workprec(53):
        assert to_mp(Fraction(1, 3)) == mpmath.mpf(1.0 / 3.0)
        assert to_mp(sp.Rational(-2, 7)) == mpmath.mpf(-2.0 / 7.0)


def test_sympy_float_keeps_its_binary_value():
    x = sp.Float("0.1", 30)
    with mpmath.workdps(60):
        assert to_mp(x) == mpmath.mpf(x._mpf_)
        assert to_mp(x) != mpmath.mpf(1) / 10  # a 30-digit Float is not 1/10 at 60 digits


def test_special_values_and_plain_numbers():
    with mpmath.workdps(30):
        assert to_mp(sp.oo) == mpmath.inf and to_mp(-sp.oo) == -mpmath.inf
        assert mpmath.isnan(to_mp(sp.nan)) and mpmath.isnan(to_mp(decimal.Decimal("nan")))
        assert to_mp(decimal.Decimal("-inf")) == -mpmath.inf
        assert to_mp(0.1) == mpmath.mpf(0.1) and to_mp(np.float64(0.25)) == mpmath.mpf("0.25")
        assert to_mp(np.int64(7)) == 7 and to_mp(1 + 2j) == mpmath.mpc(1, 2)
        with pytest.raises(TypeError, match="not a number"):
            to_mp(sp.Symbol("x"))


def test_marchenko_pastur_edge_and_density_at_2500_digits():
    # edges/densities failed above ~2150 digits (twice the digits go through a string)
    dps = 2500
    law = MarchenkoPastur(Fraction(1, 2))
    (a, b), = law.support(dps=dps)
    d = law.pdf(Fraction(1), dps=dps)
    with mpmath.workdps(dps):
        y = mpmath.mpf(1) / 2
        lo, hi = (1 - mpmath.sqrt(y)) ** 2, (1 + mpmath.sqrt(y)) ** 2
        tol = mpmath.mpf(10) ** (-dps + 3)
        assert abs(a - lo) < tol and abs(b - hi) < tol
        assert abs(d - mpmath.sqrt((hi - 1) * (1 - lo)) / (2 * mpmath.pi * y)) < tol
