"""Edges of attention_law: discriminant route (law.support) vs critical-point route, 30 digits.

The critical-point route solves the stationary equation z′(ζ) = 0 of the uniformisation
z(ζ) = (1 + ζR)(1 + ζR/h)/ζ (freeattn.symbolic.edges), independent of the discriminant.
"""
import mpmath
import pytest

from freeattn import MarchenkoPastur, attention_law, boxtimes
from freeattn.symbolic import critical_point_edges


def _agree(law, digits=30):
    disc = law.support(dps=digits + 5)
    crit = critical_point_edges(law, dps=digits + 5)
    assert len(disc) == len(crit)
    tol = mpmath.mpf(10) ** -digits
    for (a, b), (c, d) in zip(disc, crit):
        for x, y in ((a, c), (b, d)):
            assert abs(x - y) <= tol * max(abs(x), 1), (x, y)
    return crit


def test_two_interval_law_at_gamma_k_0_1():
    crit = _agree(attention_law(1.0, 0.1, 1))
    assert len(crit) == 2 and crit[0][0] == 0  # hard edge at 0, then a gap


def test_multi_head():
    _agree(attention_law(2.0, 0.3, 2))


@pytest.mark.slow
@pytest.mark.parametrize("args", [(1.0, 1.0, 1), (0.5, 2.0, 4), (0.3, 5.0, 8), (3.0, 0.05, 3)])
def test_more_parameters(args):
    _agree(attention_law(*args))


def test_generic_route_on_a_product_of_mp_laws():
    _agree(boxtimes(MarchenkoPastur(0.5), MarchenkoPastur(0.3)))


def test_dps_required():
    with pytest.raises(ValueError):
        critical_point_edges(attention_law(1.0, 1.0), dps=None)
