"""Moments by the numeric series recursion on P(G, z) (freeattn.algebraic.series)."""
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from freeattn import MarchenkoPastur, Semicircle, attention_law, theta1, theta2
from freeattn.algebraic.series import series_moments_numeric
from freeattn.transforms.cumulants import boxtimes_free_cumulants, moments_from_free_cumulants


def narayana(n, y):
    return sum(Fraction(sp.binomial(n, k) * sp.binomial(n, k - 1), n) * y ** (k - 1) for k in range(1, n + 1))


@pytest.mark.parametrize("y", [Fraction(1, 2), Fraction(7, 3)])
def test_exact_in_fractions_mp(y):
    # y z G² + (1 − y − z) G + 1: c[k][j] of G^k z^j
    c = [[Fraction(1), Fraction(0)], [1 - y, Fraction(-1)], [Fraction(0), y]]
    ms = series_moments_numeric(c, 30)
    assert ms == [narayana(n, y) for n in range(1, 31)]


def test_semicircle_catalan_to_50():
    v = Fraction(3, 2)
    c = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(-1)], [v, Fraction(0)]]
    ms = series_moments_numeric(c, 50)
    for k in range(1, 51):
        ref = 0 if k % 2 else sp.catalan(k // 2) * v ** (k // 2)
        assert ms[k - 1] == ref
    assert Semicircle(1.5).moment(40) == pytest.approx(float(sp.catalan(20) * sp.Rational(3, 2) ** 20), rel=1e-15)


def test_law_moments_float_and_dps():
    law = MarchenkoPastur(0.5)
    for k in (1, 7, 40):
        ref = narayana(k, Fraction(1, 2))
        assert law.moment(k) == pytest.approx(float(ref), rel=1e-15)
        with mpmath.workdps(40):
            assert abs(law.moment(k, dps=35) / (mpmath.mpf(ref.numerator) / ref.denominator) - 1) < 1e-34


@pytest.mark.parametrize("beta,gamma_k,h", [(1.0, 1.0, 1), (0.7, 3.0, 4)])
def test_attention_moments_against_free_cumulants(beta, gamma_k, h):
    """ν = ρ_γ ⊠ MP_{1/h}: κ_1(ρ) = θ₁, κ_q(ρ) = θ₂^q/γ_K^{q−1} (R = θ₁ − θ₂ + θ₂/(1 − θ₂z/γ_K)),
    κ_q(MP_{1/h}) = h^{1−q}; moments through non-crossing partitions (second algorithm)."""
    n = 10
    th1, th2 = sp.Float(theta1(beta), 30), sp.Float(theta2(beta), 30)
    g = sp.Rational(gamma_k)
    k_rho = [th1] + [th2**q / g ** (q - 1) for q in range(2, n + 1)]
    k_mp = [sp.Rational(1, h) ** (q - 1) for q in range(1, n + 1)]
    ref = moments_from_free_cumulants(boxtimes_free_cumulants(k_rho, k_mp))
    law = attention_law(beta, gamma_k, h)
    for k in range(1, n + 1):
        assert law.moment(k) == pytest.approx(float(ref[k - 1]), rel=1e-12)


def test_not_a_law_raises():
    with pytest.raises(ValueError, match="simple root"):
        series_moments_numeric([[1.0, 0.0], [0.0, 1.0]], 3)  # G z + 1: G ~ −1/z
