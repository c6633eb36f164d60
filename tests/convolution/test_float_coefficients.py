"""A user's polynomial with floating-point coefficients through the eliminations (issue 21,
item 12): its floats are their binary values, exact rationals, as every float parameter is;
sympy's resultant over RR raised PolynomialDivisionFailed.

0.1 z G² + (0.9 − z) G + 1 = 0 is the Marchenko–Pastur law of ratio 0.1 (its binary value)."""
from fractions import Fraction

import numpy as np
import pytest

from freeattn import (AlgebraicLaw, MarchenkoPastur, Semicircle, compound_free_poisson,
                      free_additive_convolution, free_multiplicative_convolution)
from freeattn.algebraic.polynomial import G, z


@pytest.fixture(scope="module")
def float_mp():
    return AlgebraicLaw(0.1 * z * G**2 + (1 - 0.1 - z) * G + 1)


def test_boxplus_semicircle(float_mp):
    law = free_additive_convolution(float_mp, Semicircle(1))
    (a, b), = law.support()
    assert a == pytest.approx(-1.0892571689269817, rel=1e-15)
    assert b == pytest.approx(3.1075623057239863, rel=1e-15)
    # m2 = m2(MP_y) + σ² = (1 + y) + 1, y = the binary 0.1
    assert float(law.moment(2)) == pytest.approx(2.1, rel=1e-15)
    # the same law from the exact ratio (binary value of 0.1): same edges
    exact = free_additive_convolution(MarchenkoPastur(Fraction(0.1)), Semicircle(1))
    np.testing.assert_allclose(np.ravel(law.support()), np.ravel(exact.support()), rtol=1e-15)


def test_boxtimes_and_compound_poisson(float_mp):
    """Second instance: the ⊠ and compound-Poisson eliminations of the same polynomial."""
    prod = free_multiplicative_convolution(float_mp, MarchenkoPastur(0.5))
    # ⊠ of MP laws: m1 = 1, m2 = 1 + y1 + y2
    assert float(prod.moment(1)) == pytest.approx(1.0, rel=1e-14)
    assert float(prod.moment(2)) == pytest.approx(1.6, rel=1e-14)
    ref = free_multiplicative_convolution(MarchenkoPastur(Fraction(0.1)), MarchenkoPastur(0.5))
    np.testing.assert_allclose(np.ravel(prod.support()), np.ravel(ref.support()), rtol=1e-14)
    cfp = compound_free_poisson(float_mp, 0.5)
    # κ_q = t m_q(μ): m2 = t m2(μ) + t² m1(μ)² = 0.5·1.1 + 0.25; atom 1 − t at 0
    assert float(cfp.moment(2)) == pytest.approx(0.8, rel=1e-14)
    assert cfp.atoms()[0][0] == 0 and cfp.atoms()[0][1] == pytest.approx(0.5, abs=1e-15)
