"""ParameterError: the declared-domain error carries the parameter's name."""
import click
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
