"""Affine images at any scale float64 represents (issue 21, item 14): a law and its image
x ↦ a + s x agree exactly up to the map, pinned against the base law at mapped arguments and
against closed forms (semicircle, Marchenko–Pastur, discrete laws)."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from freeattn import free_additive_convolution
from freeattn._validation import ParameterError, ParameterTypeError
from freeattn.attention import attention_law
from freeattn.laws import AlgebraicLaw, Discrete, MarchenkoPastur, Semicircle
from freeattn.laws.affine import AffineImage


def semicircle_pdf(x, v):
    return np.sqrt(np.maximum(4 * v - x**2, 0)) / (2 * np.pi * v)


def semicircle_cdf(x, v):
    r = 2 * np.sqrt(v)
    u = x / r
    return 0.5 + (u * np.sqrt(1 - u**2) + np.arcsin(u)) / np.pi


def semicircle_g(zz, v):
    """(z − √(z² − 4v))/(2v) on the branch G ~ 1/z (Im z > 0)."""
    return (zz - np.sqrt(zz - 2 * np.sqrt(v)) * np.sqrt(zz + 2 * np.sqrt(v))) / (2 * v)


# ------------------------------------------------------------------ the instances
@pytest.mark.parametrize("t", [1e-50, 1e100, 1e-300, 1e300])
def test_marchenko_pastur_dilation_support_at_extreme_scales(t):
    # issue: dilate(1e-50).support() raised a bare rational, dilate(1e100) "branch
    # continuation did not reach the real axis"
    (a, b), = MarchenkoPastur(0.5).dilate(t).support()
    assert a == pytest.approx(t * (1 - math.sqrt(0.5)) ** 2, rel=1e-15)
    assert b == pytest.approx(t * (1 + math.sqrt(0.5)) ** 2, rel=1e-15)
    (a30, b30), = MarchenkoPastur(sp.Rational(1, 2)).dilate(t).support(dps=30)
    with mpmath.workdps(40):
        tt = mpmath.mpf(t)  # the float's binary value, exactly
        assert abs(a30 / (tt * (1 - mpmath.sqrt(0.5)) ** 2) - 1) < mpmath.mpf(10) ** -29
        assert abs(b30 / (tt * (1 + mpmath.sqrt(0.5)) ** 2) - 1) < mpmath.mpf(10) ** -29


def test_attention_law_dilation_cauchy_transform():
    # issue: 0.18479267−0.38354509j (wrong from 1e-5 on); right 0.18479574−0.38354112j
    law = attention_law(1, 1)
    g = law.dilate(1e-100).cauchy_transform((2 + 1j) * 1e-100) * 1e-100
    assert abs(g - (0.18479574 - 0.38354112j)) < 1e-8
    ref = law.cauchy_transform(((2 + 1j) * 1e-100) / 1e-100)
    assert abs(g - ref) <= 1e-14 * abs(ref)
    # a huge scale, the other way
    g = law.dilate(1e200).cauchy_transform((2 + 1j) * 1e200) * 1e200
    assert abs(g - law.cauchy_transform(((2 + 1j) * 1e200) / 1e200)) <= 1e-14 * abs(ref)


# ------------------------------------------------------------------ second instances
@pytest.mark.parametrize("shift, scale", [(3e-200, -1e-200), (5e150, 1e150), (0.0, 1e-300),
                                          (-2.0, -1e250)])
def test_semicircle_image_against_closed_forms(shift, scale):
    v = 2.0
    law = Semicircle(v).affine(shift, scale)
    x = np.linspace(-2.7, 2.7, 13)          # base points inside (−2√2, 2√2)
    y = shift + scale * x
    w = (y - shift) / scale                 # what the image maps y back to
    np.testing.assert_allclose(law.pdf(y) * abs(scale), semicircle_pdf(w, v), rtol=1e-13)
    F = semicircle_cdf(w, v)
    np.testing.assert_allclose(law.cdf(y), F if scale > 0 else 1 - F, rtol=1e-13)
    np.testing.assert_allclose(law.sf(y), 1 - F if scale > 0 else F, rtol=1e-13)
    # the base law at the mapped arguments, exactly the same functions
    base = Semicircle(v)
    np.testing.assert_array_equal(law.pdf(y), base.pdf(w) / abs(scale))
    q = np.array([1e-12, 0.1, 0.3, 0.9])
    # the exact image of the base law's 30-digit quantile (shift + scale·inv in float64 carries
    # the base quantile's rounding: 2.8e-15 of ppf(1e-12) at (3e-200, −1e-200), where the end
    # 1.7e-201 is 17 times smaller than scale·2√2)
    with mpmath.workdps(40):
        inv = [base.ppf(v, dps=30) if scale > 0 else base.isf(v, dps=30) for v in q.tolist()]
        exact_q = [float(mpmath.mpf(shift) + mpmath.mpf(scale) * v) for v in inv]
    np.testing.assert_allclose(law.ppf(q), exact_q, rtol=1e-15)
    zb = np.array([0.3 + 0.5j, -1.0 + 1e-3j, 4.0 + 2.0j])
    zz = shift + scale * (zb if scale > 0 else np.conj(zb))
    ref = semicircle_g(zb, v) / scale
    ref = ref if scale > 0 else np.conj(ref)
    np.testing.assert_allclose(law.cauchy_transform(zz), ref, rtol=1e-12)
    (a, b), = law.support()
    ends = sorted((shift - scale * 2 * math.sqrt(v), shift + scale * 2 * math.sqrt(v)))
    assert a == pytest.approx(ends[0], rel=1e-15) and b == pytest.approx(ends[1], rel=1e-15)
    # beyond the support: exactly 0 and 1
    out = np.array([np.nextafter(a, -np.inf), np.nextafter(b, np.inf)])
    np.testing.assert_array_equal(law.pdf(out), [0.0, 0.0])
    np.testing.assert_array_equal(law.cdf(out), [0.0, 1.0])
    np.testing.assert_array_equal(law.sf(out), [1.0, 0.0])


def test_atom_of_a_reflected_tiny_marchenko_pastur():
    # MP(2): atom 1/2 at 0, density on [(1 − √2)², (1 + √2)²]; x ↦ 1e80 − 1e80·x puts the
    # atom at the right end 1e80
    law = MarchenkoPastur(2).affine(1e80, -1e80)
    assert law.atoms() == [(1e80, 0.5)]
    below = np.nextafter(1e80, 0)
    assert law.cdf(1e80) == 1.0 and law.sf(1e80) == 0.0
    assert law.cdf(below) == pytest.approx(0.5, abs=1e-15)
    assert law.sf(below) == pytest.approx(0.5, abs=1e-15)
    assert law.ppf(0.75) == 1e80 and law.isf(0.25) == 1e80
    (a, b), = law.support()
    assert a == pytest.approx(1e80 * (1 - (1 + math.sqrt(2)) ** 2), rel=1e-15)
    assert b == pytest.approx(1e80 * (1 - (1 - math.sqrt(2)) ** 2), rel=1e-15)


def test_discrete_law_at_a_tiny_negative_scale():
    law = Discrete([1, 2, 3]).affine(0, -1e-200)
    assert [a for a, _ in law.atoms()] == [-3e-200, -2e-200, -1e-200]
    assert law.cdf(-2e-200) == pytest.approx(2 / 3, rel=1e-15)      # P(X ≥ 2)
    assert law.cdf(np.nextafter(-2e-200, -1)) == pytest.approx(1 / 3, rel=1e-15)
    assert law.sf(-2e-200) == pytest.approx(1 / 3, rel=1e-15)       # P(X < 2)
    assert law.mean() == pytest.approx(-2e-200, rel=1e-15)


def test_exact_moments_by_the_binomial_formula():
    s = sp.Rational(1, 10**100)
    law = MarchenkoPastur(sp.Rational(1, 2)).affine(3, s)
    m1, m2 = law.exact_moments(2)   # MP(1/2): m₁ = 1, m₂ = 3/2
    assert m1 == 3 + s and m2 == 9 + 6 * s + sp.Rational(3, 2) * s**2
    assert law.moment(2, dps=250) == pytest.approx(float(m2), rel=1e-15)
    with mpmath.workdps(260):
        assert abs(law.moment(2, dps=250) - mpmath.mpf(m2.p) / m2.q) < mpmath.mpf(10) ** -248


def test_variance_and_entropy_keep_the_scale():
    law = Semicircle(1).affine(1e10, 1e-5)
    assert law.var() == pytest.approx(1e-10, rel=1e-13)
    assert law.mean() == pytest.approx(1e10, rel=1e-15)
    # semicircle of radius 2: h = log(2π) − 1/2
    tiny = Semicircle(1).dilate(1e-300)
    assert tiny.entropy() == pytest.approx(math.log(2 * math.pi) - 0.5 + math.log(1e-300),
                                           rel=1e-12)


def test_cdf_at_30_digits_of_a_dilation_by_an_exact_power_of_ten():
    t = sp.Rational(1, 10**100)
    law = Semicircle(1).dilate(t)
    with mpmath.workdps(50):
        x = mpmath.mpf(3) / 10 * mpmath.mpf(10) ** -100
        u = mpmath.mpf(3) / 20
        ref = mpmath.mpf(1) / 2 + (u * mpmath.sqrt(1 - u**2) + mpmath.asin(u)) / mpmath.pi
        got = law.cdf(x, dps=30)
        assert abs(got - ref) < mpmath.mpf(10) ** -29
        pdf = law.pdf(x, dps=30)
        assert abs(pdf / (mpmath.sqrt(4 - mpmath.mpf(9) / 100) / (2 * mpmath.pi) * 10**100) - 1) \
            < mpmath.mpf(10) ** -28


def test_far_field_beyond_the_float_range_of_the_base_law():
    law = Semicircle(1).dilate(1e-300)
    assert law.cauchy_transform(1e10) == pytest.approx(1e-10, rel=1e-15)
    assert law.cauchy_transform_derivative(1e10) == pytest.approx(-1e-20, rel=1e-15)


# ------------------------------------------------------------------ structure
def test_composition_collapses_and_equality_is_by_value():
    law = Semicircle(1).affine(1, 2).affine(3, 4)
    assert isinstance(law, AffineImage) and isinstance(law, AlgebraicLaw)
    assert law.base == Semicircle(1) and law.shift == 7 and law.scale == 8
    assert law == Semicircle(1).affine(7.0, 8.0) and hash(law) == hash(Semicircle(1).affine(7, 8))
    assert law.dilate(2) == Semicircle(1).affine(14, 16)
    assert Discrete([0, 1]).dilate(2).dilate(3) == Discrete([0, 1]).affine(0, 6)
    assert Semicircle(1).affine(1, 2) != Semicircle(1).affine(1, 3)


@pytest.mark.parametrize("method", ["algebraic", "subordination"])
def test_convolution_of_an_image_by_both_routes(method):
    # (1 + 2·S₁) ⊞ S₁ = 1 + S₅ (variances add)
    law = free_additive_convolution(Semicircle(1).affine(1, 2), Semicircle(1), method=method)
    x = np.linspace(1 - 4.4, 1 + 4.4, 9)
    np.testing.assert_allclose(law.pdf(x), semicircle_pdf(x - 1, 5.0), rtol=1e-9, atol=1e-12)


def test_polynomial_is_the_substituted_one():
    law = MarchenkoPastur(sp.Rational(1, 2)).affine(1, -2)
    P = law.polynomial
    zz = 0.3 + 0.7j
    g = complex(law.cauchy_transform(zz))
    assert abs(complex(P.subs({sp.Symbol("G"): g, sp.Symbol("z"): zz}).evalf())) < 1e-12


@pytest.mark.parametrize("shift, scale, param, kind", [
    (sp.Symbol("x"), 1, "shift", ParameterError), (0, sp.I, "scale", ParameterError),
    (0, 0.0, "scale", ParameterError), ("1", 1, "shift", ParameterTypeError)])
def test_bad_maps_name_the_parameter(shift, scale, param, kind):
    for law in (Semicircle(1), Discrete([0, 1])):
        with pytest.raises(kind) as err:
            law.affine(shift, scale)
        assert err.value.param == param
