"""One argument filter for every public method (issue 21 item 20).

Formerly ``attention_law(1, 1).moment(2, dps=0)`` returned 7.0 (right 6.904985: AlgebraicLaw's
moment override skipped the dps check that ``pdf(dps=-1)`` made), ``pdf/cdf/ppf(dps=1e300)`` and
``moment(k=1e300)`` hung.  The filter sits on every public method with a ``dps`` argument and on
``moment`` (freeattn/laws/base.py ``_filter_arguments``, installed on each subclass), so an
override cannot skip it: dps is None or an integer in [5, MAX_DPS], an order is an integer in
[0, MAX_MOMENT_ORDER].
"""
from __future__ import annotations

import inspect
import math
import time

import numpy as np
import pytest

from freeattn import (Discrete, Empirical, MarchenkoPastur, Mixture, NumericalLaw, PointMass,
                      Semicircle, attention_law, free_additive_convolution, mha_output_law)
from freeattn._validation import MAX_DPS, MAX_MOMENT_ORDER, ParameterError, ParameterTypeError


def _arcsine(zz):
    return 1 / (np.sqrt(zz - 2) * np.sqrt(zz + 2))


LAWS = {
    "attention": lambda: attention_law(1, 1),
    "layer": lambda: mha_output_law(1, 2, 1, 1, 1.5),
    "semicircle": lambda: Semicircle(1),
    "marchenko_pastur": lambda: MarchenkoPastur(0.5),
    "point_mass": lambda: PointMass(1),
    "discrete": lambda: Discrete([0, 1]),
    "empirical": lambda: Empirical([1.0, 2.0]),
    "mixture": lambda: Mixture([Semicircle(1), PointMass(3)]),
    "numerical": lambda: NumericalLaw(_arcsine, support=[(-2, 2)], atoms=[]),
    "transformed": lambda: Discrete([0, 1]).affine(1, 2),
    "subordination": lambda: free_additive_convolution(Discrete([0, 1]), Semicircle(1),
                                                       method="subordination"),
}


@pytest.fixture(scope="module", params=sorted(LAWS))
def law(request):
    return LAWS[request.param]()


def _dps_methods(law):
    return sorted(name for name in dir(law) if not name.startswith("_")
                  and callable(getattr(law, name))
                  and "dps" in inspect.signature(getattr(law, name)).parameters)


@pytest.mark.parametrize("dps", [0, -1, 2.5, 4, 1e300, MAX_DPS + 1, math.nan])
def test_every_method_with_dps_refuses_a_bad_dps(law, dps):
    names = _dps_methods(law)
    assert {"pdf", "cdf", "ppf", "moment", "expect", "entropy", "support", "stats"} <= set(names)
    for name in names:
        args = (2,) if name == "moment" else ()
        t0 = time.perf_counter()
        with pytest.raises(ParameterError, match="dps") as info:
            getattr(law, name)(*args, dps=dps)
        assert info.value.param == "dps", name
        assert time.perf_counter() - t0 < 1.0, name   # refused before any work (never a hang)


@pytest.mark.parametrize("dps", ["30", True, None.__class__])
def test_dps_of_the_wrong_type_is_a_type_error(dps):
    with pytest.raises(ParameterTypeError) as info:
        attention_law(1, 1).moment(2, dps=dps)
    assert info.value.param == "dps"


def test_the_issue_instance_and_its_right_value():
    law = attention_law(1, 1)
    for dps in (0, -1, 2.5):
        with pytest.raises(ParameterError, match="dps"):
            law.moment(2, dps=dps)
    assert law.moment(2) == pytest.approx(6.90498488402512, rel=1e-14)
    assert float(law.moment(2, dps=5)) == pytest.approx(6.90498488402512, rel=1e-5)
    # positional dps goes through the same filter
    with pytest.raises(ParameterError, match="dps"):
        law.moment(2, 0)
    with pytest.raises(ParameterError, match="dps"):
        law.pdf(1.0, -1)


@pytest.mark.parametrize("k", [1e300, MAX_MOMENT_ORDER + 1, -1, 2.5, math.inf])
def test_moment_order_is_bounded(law, k):
    for call in (lambda: law.moment(k), lambda: law.moment(k=k), lambda: law.moment(order=k)):
        t0 = time.perf_counter()
        with pytest.raises(ParameterError) as info:
            call()
        assert info.value.param in ("k", "order")
        assert time.perf_counter() - t0 < 1.0


def test_moment_order_keywords():
    law = MarchenkoPastur(0.5)
    assert law.moment(order=3) == law.moment(k=3) == law.moment(3) == pytest.approx(2.75)
    with pytest.raises(TypeError, match="twice"):
        law.moment(3, order=3)
    with pytest.raises(TypeError, match="order"):
        law.moment()
    with pytest.raises(ParameterError) as info:
        law.moment(order=-1)
    assert info.value.param == "order"


def test_a_subclass_override_is_filtered_too():
    class Loose(Discrete):
        def moment(self, k, dps=None, method=None):  # no checks of its own
            return float(k) if dps is None else dps

        def tail(self, x, dps=None):
            return dps

    law = Loose([0, 1])
    with pytest.raises(ParameterError):
        law.moment(2, dps=0)
    with pytest.raises(ParameterError):
        law.moment(1e300)
    with pytest.raises(ParameterError):
        law.tail(1.0, dps=3)
    assert law.tail(1.0, dps=np.int64(7)) == 7 and type(law.tail(1.0, dps=np.int64(7))) is int
