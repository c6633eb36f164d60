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


def test_dof_exact_lambda_at_2500_digits():
    # w(λ) = 1 + λ G(−λ); MP(1/2), λ = 1/2: G(−1/2) = −2(√2 − 1), so w = 2 − √2.
    # Formerly lam went through mpmathify and G's point through decimal strings (nstr):
    # exact λ was refused, and the string route fails beyond 4300 digits.
    from fractions import Fraction

    law = MarchenkoPastur(Fraction(1, 2))
    value = dof(law, Fraction(1, 2), dps=2500)
    with mpmath.workdps(2500):
        assert abs(value - (2 - mpmath.sqrt(2))) < mpmath.mpf(10) ** -2497
    assert dof(law, Fraction(1, 2)) == pytest.approx(2 - 2 ** 0.5, rel=1e-14)


def test_dof_complex_mpmath_lambda_matches_float_route():
    value = dof(LAW, mpmath.mpc(0.5, 0.25), dps=30)
    assert complex(value) == pytest.approx(complex(dof(LAW, 0.5 + 0.25j)), rel=1e-13)


@pytest.mark.parametrize("lam, text", [
    ("0.5", "not a string"), (True, "got True"), (np.array([True]), "got [True]"),
    (np.array(["1"]), "got ['1']"), ([0.5, None], "got None"),
])
def test_dof_refuses_non_numbers(lam, text):
    with pytest.raises(ParameterTypeError) as e:
        dof(LAW, lam)
    assert e.value.param == "lam" and text in str(e.value)
