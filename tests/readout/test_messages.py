"""Readout error messages show the user's number (-1.0), not its numpy repr (np.float64(-1.0))."""
import mpmath
import numpy as np
import pytest

from freeattn import MarchenkoPastur
from freeattn._validation import ParameterError, ParameterTypeError
from freeattn.readout import dof
from freeattn._messages import shown
from freeattn.readout.finite import (feature_spectrum, finite_ridge_error, finite_training_loss,
                                     mha_features)
from freeattn.readout.scalar import readout_normalisation
from freeattn.readout.training import training_loss

LAW = MarchenkoPastur(0.5)


def test_shown():
    assert shown(np.float64(-1.0)) == "-1.0"
    assert shown(np.int64(3)) == "3"
    assert shown(np.array([1.0, -2.0])) == "[1.0, -2.0]"
    assert shown(np.array(2.5)) == "2.5"
    assert shown([np.float32(0.5), "a", None]) == "[0.5, 'a', None]"
    assert shown((np.float64(1.0),)) == "(1.0,)"
    assert shown(np.zeros(20)) == "an array of shape (20,) and dtype float64"
    assert shown(mpmath.mpf(-1)) == "-1.0"
    assert shown("0.1") == "'0.1'"


@pytest.mark.parametrize("call, text", [
    (lambda: dof(LAW, np.float64(-1.0)), "got -1.0"),
    (lambda: dof(LAW, np.array([1.0, -1.0])), "got -1.0"),
    (lambda: dof(LAW, mpmath.mpf(-1)), "got -1.0"),
    (lambda: training_loss(LAW, np.float64(-1.0)), "t must be finite and >= 0, got -1.0"),
    (lambda: training_loss(LAW, np.array([1.0, -2.0])), "got [1.0, -2.0]"),
    (lambda: readout_normalisation(1.0, 1.0, np.float64(20000.0), 1.0), "got 20000.0"),
])
def test_numpy_scalars_are_shown_as_numbers(call, text):
    with pytest.raises(ParameterError) as err:
        call()
    assert text in str(err.value)
    assert "np." not in str(err.value) and "array(" not in str(err.value)
    assert "mpf(" not in str(err.value)


def test_finite_readout_messages():
    spec = feature_spectrum(np.eye(3)[:, :2] + 0.1)
    with pytest.raises(ParameterError, match=r"lam must be finite and > 0, got -1\.0$"):
        finite_ridge_error(spec, np.float64(-1.0), 0.1)
    with pytest.raises(ParameterError, match=r"got \[1\.0, -1\.0\]$"):
        finite_training_loss(spec, np.ones(3), np.array([1.0, -1.0]))


def test_mha_features_refuses_a_non_model_naming_it():
    # formerly a bare TypeError without .param
    with pytest.raises(ParameterTypeError, match="model must be an AttentionModel, got str") as e:
        mha_features("mha", seed=0)
    assert e.value.param == "model"
