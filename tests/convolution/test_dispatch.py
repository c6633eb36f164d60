"""method= dispatch and parameter errors of the convolution engine."""
import pytest

from freeattn import (MarchenkoPastur, Semicircle, boxplus, boxtimes, compound_free_poisson,
                      free_additive_convolution, free_additive_power, free_multiplicative_power)
from freeattn._validation import ParameterError
from freeattn.convolution.subordination import AdditiveConvolution, MultiplicativePower
from freeattn.laws import AlgebraicLaw


@pytest.mark.parametrize("fn, args", [
    (free_additive_convolution, (Semicircle(1), Semicircle(1))),
    (boxtimes, (MarchenkoPastur(0.5), MarchenkoPastur(0.5))),
    (compound_free_poisson, (MarchenkoPastur(0.5), 0.5)),
    (free_additive_power, (Semicircle(1), 2.0)),
    (free_multiplicative_power, (MarchenkoPastur(0.5), 2)),
])
def test_unknown_method_names_the_parameter_and_the_choices(fn, args):
    with pytest.raises(ParameterError) as e:
        fn(*args, method="newton")
    assert e.value.param == "method"
    assert "'algebraic'" in str(e.value) and "'subordination'" in str(e.value)


def test_default_routes():
    assert isinstance(boxplus(Semicircle(1), Semicircle(1)), AlgebraicLaw)
    assert isinstance(boxplus(Semicircle(1), Semicircle(1), method="subordination"),
                      AdditiveConvolution)
    # a non-integer ⊠-power has no exact route here
    assert isinstance(free_multiplicative_power(MarchenkoPastur(0.5), 1.5), MultiplicativePower)
    with pytest.raises(ParameterError) as e:
        free_multiplicative_power(MarchenkoPastur(0.5), 1.5, method="algebraic")
    assert e.value.param == "method"


def test_algebraic_route_needs_algebraic_inputs():
    sub = boxplus(Semicircle(1), Semicircle(1), method="subordination")
    with pytest.raises(ParameterError) as e:
        boxplus(sub, Semicircle(1), method="algebraic")
    assert e.value.param == "method"


def test_non_laws_are_refused():
    with pytest.raises(TypeError, match="nu"):
        boxplus(Semicircle(1), 3.0)


@pytest.mark.parametrize("t", [0.5, -1, float("nan"), float("inf")])
def test_power_exponent_domain(t):
    with pytest.raises(ParameterError) as e:
        free_additive_power(Semicircle(1), t)
    assert e.value.param == "t"


@pytest.mark.parametrize("rate", [0, -0.5, float("nan")])
def test_rate_domain(rate):
    with pytest.raises(ParameterError) as e:
        compound_free_poisson(MarchenkoPastur(0.5), rate)
    assert e.value.param == "rate"
