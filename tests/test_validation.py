"""ParameterError: the declared-domain error carries the parameter's name."""
import click
import numpy as np
import pytest

from freeattn._validation import ParameterError, in_closed_interval, positive, positive_integer
from freeattn.cli._errors import usage_error


@pytest.mark.parametrize("call, name", [
    (lambda: positive("gamma_k", -1.0), "gamma_k"),
    (lambda: positive("rate", float("nan")), "rate"),
    (lambda: in_closed_interval("beta", 7.0, 0.01, 4.0), "beta"),
    (lambda: positive_integer("heads", 0), "heads"),
])
def test_parameter_error_names_the_parameter(call, name):
    with pytest.raises(ParameterError) as info:
        call()
    assert info.value.param == name
    assert isinstance(info.value, ValueError)
    assert str(info.value).startswith(name)


def test_cli_maps_the_parameter_to_its_flag_without_parsing():
    err = usage_error(ParameterError("gamma_k", "value must be > 0, got -1"))
    assert isinstance(err, click.UsageError)
    assert err.message == "--gamma-k: value must be > 0, got -1"
    err = usage_error(ParameterError("beta", "beta must lie in [0.01, 4], got 9"))
    assert err.message == "--beta must lie in [0.01, 4], got 9"


# ---------------------------------------------------------------- declared parameters
from freeattn._validation import (Param, check_method, declare, probability_vector,  # noqa: E402
                                  real_vector)


def test_declared_parameters_validate_once_and_name_themselves():
    params = (Param("rate", "positive", "t"), Param("beta", ("closed", 0.01, 4.0), "β"),
              Param("heads", "positive_integer", "h"))
    assert declare(params, rate=2.0, beta=1.0, heads=3) == {"rate": 2.0, "beta": 1.0, "heads": 3}
    with pytest.raises(ParameterError) as info:
        declare(params, rate=2.0, beta=9.0, heads=3)
    assert info.value.param == "beta" and "[0.01, 4]" in str(info.value)
    with pytest.raises(TypeError):
        declare(params, rate=2.0, beta=1.0)
    assert params[1].describe() == "beta β: in [0.01, 4]"
    with pytest.raises(ValueError):
        Param("x", "bogus")


def test_method_check_lists_the_choices():
    assert check_method(None, ("a", "b")) is None and check_method("b", ("a", "b")) == "b"
    with pytest.raises(ParameterError) as info:
        check_method("c", ("a", "b"))
    assert info.value.param == "method" and "'a', 'b'" in str(info.value)


def test_vectors():
    np.testing.assert_array_equal(real_vector("points", [1, 2]), [1.0, 2.0])
    for bad in ([], [[1.0]], [np.inf], "ab"):
        with pytest.raises(ParameterError) as info:
            real_vector("points", bad)
        assert info.value.param == "points"
    assert probability_vector("weights", [0.25, 0.75], 2).sum() == 1.0
    with pytest.raises(ParameterError, match="sum to 1"):
        probability_vector("weights", [1, 3], 2)  # counts are not renormalised silently


# --- one rule for strings: numbers only (issue: MarchenkoPastur('2') was accepted while
# attention_law(beta='1') was refused) ---------------------------------------------------
def _string_calls():
    from freeattn import FreePoisson, MarchenkoPastur, PointMass, Semicircle
    from freeattn.attention import attention_law, mha_output_law

    return [
        (lambda: MarchenkoPastur("2"), "ratio"),
        (lambda: MarchenkoPastur("abc"), "ratio"),
        (lambda: Semicircle("0.5"), "variance"),
        (lambda: FreePoisson("0.25"), "rate"),
        (lambda: PointMass("1"), "location"),
        (lambda: attention_law(beta="1", gamma_k=1), "beta"),
        (lambda: attention_law(1, "0.5"), "gamma_k"),
        (lambda: attention_law(1, 1, heads="2"), "heads"),
        (lambda: mha_output_law(1, 4, 1.5, 2, "0.5"), "gamma_o"),
        (lambda: positive("n", "2"), "n"),
        (lambda: positive_integer("heads", b"2"), "heads"),
    ]


@pytest.mark.parametrize("index", range(11))
def test_strings_are_refused_everywhere_with_the_parameter_named(index):
    from freeattn._validation import ParameterTypeError

    call, name = _string_calls()[index]
    with pytest.raises(ParameterTypeError) as info:
        call()
    assert info.value.param == name
    assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)
    msg = str(info.value)
    assert msg.startswith(name) and "string" in msg and "Decimal" in msg


def test_exact_numbers_are_the_exact_route():
    from decimal import Decimal
    from fractions import Fraction

    import sympy as sp

    from freeattn import MarchenkoPastur
    from freeattn.attention import attention_law

    assert list(MarchenkoPastur(Decimal("0.1")).values.values()) == [sp.Rational(1, 10)]
    assert list(MarchenkoPastur(Fraction(1, 10)).values.values()) == [sp.Rational(1, 10)]
    # the same law as from floats where the float is exact (beta = 1, gamma_K = 1/2)
    assert attention_law(Decimal("1"), Decimal("0.5")).mean() == \
        pytest.approx(attention_law(1.0, 0.5).mean(), rel=1e-15)


def test_cli_parses_its_own_strings():
    from click.testing import CliRunner

    from freeattn.cli import main

    res = CliRunner().invoke(main, ["density", "attention", "--beta", "1", "--gamma-k", "0.5",
                                    "--points", "3"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["density", "attention", "--beta", "one", "--gamma-k", "1"])
    assert res.exit_code == 2 and "--beta" in res.output
