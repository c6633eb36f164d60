"""AlgebraicLaw.pushforward: the argument filter of Transformed, values kept exact."""
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from freeattn import Discrete, MarchenkoPastur
from freeattn._validation import ParameterError

MP = MarchenkoPastur(Fraction(1, 2))
GENERIC = Discrete([0.0, 1.0], [0.5, 0.5])  # a Law without the exact route: Transformed


@pytest.mark.parametrize("coefficients, words", [
    (None, "must be a sequence of real numbers, got None"),
    ("12", "must be a sequence of real numbers, got '12'"),
    (3.0, "must be a sequence of real numbers, got 3.0"),
    ([0, 1 + 2j], r"must be a sequence of real numbers, got \[0, \(1\+2j\)\]"),
    ([0, "1"], "must be a sequence of real numbers"),
    ([0, None], "must be a sequence of real numbers"),
    ([0, sp.I], "must be a sequence of real numbers"),
    ([0, sp.Symbol("a")], "must be a sequence of real numbers"),
    ([0, float("inf")], "must be a finite real number, got inf"),
    ([0, float("nan")], "NaN"),
    ([1.0], r"non-constant polynomial \(degree ≥ 1\)"),
])
def test_bad_coefficients_give_the_error_of_transformed(coefficients, words):
    # formerly None/'12'/1+2j raised raw TypeErrors (float(None), float('1')...) from here
    with pytest.raises(ParameterError, match=words) as exact_route:
        MP.pushforward(coefficients)
    assert exact_route.value.param == "coefficients"
    with pytest.raises(ParameterError) as generic_route:
        GENERIC.pushforward(coefficients)
    assert str(exact_route.value) == str(generic_route.value)


def test_zero_leading_coefficient_is_refused():
    with pytest.raises(ParameterError, match="leading coefficient c_d must be non-zero") as e:
        MP.pushforward([0, 1, 0])
    assert e.value.param == "coefficients"


def test_exact_coefficients_stay_exact():
    # m_1 of c1·X for MP(1/2) (mean 1): c1; m_2: c1²·(1 + y) with y = 1/2
    law = MP.pushforward(np.polynomial.Polynomial([0, Fraction(1, 2)]))
    assert law.exact_moments(2) == [sp.Rational(1, 2), sp.Rational(3, 8)]
    law = MP.pushforward((c for c in (1, sp.E - 1)))  # a generator, a sympy expression
    assert sp.simplify(law.exact_moments(1)[0] - sp.E) == 0


def test_message_shows_numbers_not_numpy_reprs():
    with pytest.raises(ParameterError, match=r"got \[0\.0, 1\.0, 0\.0\]$"):
        MP.pushforward(np.array([0.0, 1.0, 0.0]))
