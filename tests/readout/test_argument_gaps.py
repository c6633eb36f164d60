"""Readout arguments (issue 21 item 20): a law that is None or a string is a clear TypeError
naming ``law`` (formerly AttributeError deep inside), ``tied`` is a bool (formerly any truthy
value, "no" included, gave the tied normalisation), ``arrival_time(tol=nan)`` names ``tol``
(formerly ``t``)."""
from __future__ import annotations

import math

import pytest

from freeattn import MarchenkoPastur
from freeattn._validation import ParameterError, ParameterTypeError
from freeattn.readout import (arrival_time, dof, dof_derivative, expect, readout_normalisation,
                              ridge_error, training_loss)

CALLS = {
    "dof": lambda law: dof(law, 0.5),
    "dof_derivative": lambda law: dof_derivative(law, 0.5),
    "ridge_error": lambda law: ridge_error(law, 0.5, 0.1, 1.0),
    "training_loss": lambda law: training_loss(law, 1.0),
    "arrival_time": lambda law: arrival_time(law),
    "expect": lambda law: expect(law, lambda x: x),
}


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("bad", [None, "mp", "MarchenkoPastur(0.5)", 1.0, [1.0]])
def test_a_non_law_is_a_type_error_naming_law(name, bad):
    with pytest.raises(ParameterTypeError, match="law must be a freeattn Law") as info:
        CALLS[name](bad)
    assert info.value.param == "law"
    assert isinstance(info.value, TypeError)


def test_the_readout_functions_still_answer_for_a_law():
    law = MarchenkoPastur(0.5)
    # w(λ) = 1 + λ G(−λ) for MP(1/2) at λ = 1/2: G(−1/2) = −2(√2 − 1), w = 2 − √2
    assert dof(law, 0.5) == pytest.approx(2 - 2 ** 0.5, rel=1e-13)


@pytest.mark.parametrize("tied", ["no", "False", 0, 1, None, 1.0])
def test_tied_must_be_a_bool(tied):
    with pytest.raises(ParameterTypeError, match="tied must be True or False") as info:
        readout_normalisation(1.0, 0.5, 4, 1.0, tied=tied)
    assert info.value.param == "tied"


def test_tied_values():
    # γ_O θ₁ untied, γ_O (θ₁ + h θ₂/γ_K) tied (Hayase & Karakida 2026, App. D.1)
    t1 = math.e - 1
    assert readout_normalisation(1.0, 0.5, 4, 1.0, tied=False) == pytest.approx(t1, rel=1e-14)
    assert readout_normalisation(1.0, 0.5, 4, 1.0, tied=True) == pytest.approx(t1 + 8, rel=1e-14)


@pytest.mark.parametrize("tol", [math.nan, -1e-10, 0.0, math.inf])
def test_arrival_time_names_tol(tol):
    with pytest.raises(ParameterError, match="tol") as info:
        arrival_time(MarchenkoPastur(0.5), tol=tol)
    assert info.value.param == "tol"


@pytest.mark.parametrize("dps", [0, -1, 2.5, 1e300])
def test_readout_dps_goes_through_the_filter(dps):
    with pytest.raises(ParameterError) as info:
        dof(MarchenkoPastur(0.5), 0.5, dps=dps)
    assert info.value.param == "dps"
