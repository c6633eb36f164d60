"""Closed forms at the extremes of float64 (issue 21, items 7 and 8's second half)."""
import math

import mpmath
import pytest

from freeattn import FreePoisson, MarchenkoPastur


@pytest.mark.parametrize("x", [5e-324, 2e-323, 1e-310])
def test_marchenko_pastur_one_pdf_at_subnormal_points(x):
    """ρ(x) = sqrt(4 − x)/(2π sqrt(x)) → 1/(π sqrt x); at x = 5e-324 the product (b − x)(x − a)
    and 2πx were subnormal (1.4996e161 instead of 1.4320e161).  Second instances: 2e-323 and
    1e-310, and the free Poisson law of rate 1 (the same law, through its dilation)."""
    with mpmath.workdps(30):
        right = float(mpmath.sqrt(4 - mpmath.mpf(x)) / (2 * mpmath.pi * mpmath.sqrt(mpmath.mpf(x))))
    assert MarchenkoPastur(1).pdf(x) == pytest.approx(right, rel=4e-16)
    assert FreePoisson(1).pdf(x) == pytest.approx(right, rel=4e-16)


def test_marchenko_pastur_g_next_to_zero_without_cancellation():
    """G(z) = (z + y − 1 − sqrt(z − a)sqrt(z − b))/(2yz): z + y − 1 was formed as (z + y) − 1,
    G(−1e-16) = −99999999.44488849 for y = 1 (right −99999999.5, from the 30-digit route)."""
    law = MarchenkoPastur(1)
    g = law.cauchy_transform(-1e-16)
    right = complex(law.cauchy_transform(-1e-16, dps=30))
    assert g.real == pytest.approx(right.real, rel=4e-16) and g.imag == 0
    assert right.real == pytest.approx(-99999999.5, rel=1e-15)
    # second instance: y = 1/2, where G(0−) = 1/(y − 1) = −2
    half = MarchenkoPastur(0.5).cauchy_transform(-1e-16)
    assert half.real == pytest.approx(complex(MarchenkoPastur(0.5).cauchy_transform(-1e-16, dps=30)).real,
                                      rel=4e-16)
    assert math.isclose(half.real, -2.0, rel_tol=1e-15)
