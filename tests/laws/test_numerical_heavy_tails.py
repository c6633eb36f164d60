"""Issue 21 item 15: laws with unbounded support (heavy tails) known by G alone.

References: the Cauchy law C(c, s), G(z) = 1/(z − c + is) (Im z > 0), cdf = 1/2 +
arctan((x − c)/s)/π, written here with arctan2 so that each tail keeps its relative accuracy,
quantile c − s/tan(πq) (q ≤ 1/2); a mixture of two Cauchy laws as a second instance."""
import math

import mpmath
import numpy as np
import pytest

from freeattn._validation import ParameterError
from freeattn.laws.numerical import NumericalLaw


def cauchy_G(c=0.0, s=1.0):
    return lambda z: 1 / (z - c + 1j * s * np.where(z.imag < 0, -1, 1))


def cauchy_cdf(x, c=0.0, s=1.0):
    return np.arctan2(s, -(np.asarray(x, float) - c)) / math.pi


def cauchy_sf(x, c=0.0, s=1.0):
    return np.arctan2(s, np.asarray(x, float) - c) / math.pi


def test_cauchy_found_from_G_alone():
    law = NumericalLaw(cauchy_G())
    assert law.support() == [(-math.inf, math.inf)]
    assert law.atoms() == []
    assert law.cdf(0.0) == pytest.approx(0.5, rel=1e-15)
    assert law.cdf(1.0) == pytest.approx(0.75, rel=1e-15)
    assert law.ppf(0.9) == pytest.approx(math.tan(0.4 * math.pi), rel=1e-14)
    assert law.pdf(0.0) == pytest.approx(1 / math.pi, rel=1e-15)
    assert law.cauchy_transform(0.5) == pytest.approx(1 / (0.5 + 1j), rel=1e-15)


def test_cauchy_tails_relative_accuracy():
    law = NumericalLaw(cauchy_G(), support=[(-math.inf, math.inf)])
    x = np.array([-1e100, -1e20, -1e8, -5.0, -1e-3, 0.0, 2.0, 7.0, 1e6, 1e20, 1e100])
    np.testing.assert_allclose(law.cdf(x), cauchy_cdf(x), rtol=1e-14)
    np.testing.assert_allclose(law.sf(x), cauchy_sf(x), rtol=1e-14)
    q = np.array([1e-100, 1e-20, 1e-10, 1e-3, 0.1, 0.3])
    np.testing.assert_allclose(law.ppf(q), -1 / np.tan(math.pi * q), rtol=1e-13)
    np.testing.assert_allclose(law.isf(q), 1 / np.tan(math.pi * q), rtol=1e-13)
    # next to the centre x = c − s·cot(d), d ≈ π/2: absolute accuracy, a few ulps of s
    assert law.ppf(0.5 - 1e-9) == pytest.approx(-math.pi * 1e-9, abs=4e-16)
    assert law.ppf(0.0) == -math.inf and law.ppf(1.0) == math.inf
    assert law.cdf(-math.inf) == 0.0 and law.cdf(math.inf) == 1.0


def test_shifted_scaled_cauchy():
    c, s = 3.0, 0.01
    law = NumericalLaw(cauchy_G(c, s), support=[(-math.inf, math.inf)])
    x = np.array([-1e50, -2.0, 0.0, 2.99, 3.0, 3.005, 4.0, 1e8])
    np.testing.assert_allclose(law.cdf(x), cauchy_cdf(x, c, s), rtol=1e-13)
    np.testing.assert_allclose(law.sf(x), cauchy_sf(x, c, s), rtol=1e-13)
    q = np.array([1e-30, 1e-6, 0.2, 0.45])
    np.testing.assert_allclose(law.ppf(q), c - s / np.tan(math.pi * q), rtol=1e-13)
    np.testing.assert_allclose(law.pdf(x), s / math.pi / ((x - c) ** 2 + s * s), rtol=1e-13)


def test_cauchy_mixture_found_from_G_alone():
    w, comps = (0.3, 0.7), ((-2.0, 0.5), (4.0, 3.0))

    def G(z):
        return sum(wk * cauchy_G(c, s)(z) for wk, (c, s) in zip(w, comps))

    law = NumericalLaw(G)
    assert law.support() == [(-math.inf, math.inf)]
    x = np.array([-1e30, -40.0, -2.0, 0.0, 1.0, 4.0, 30.0, 1e12])
    ref_cdf = sum(wk * cauchy_cdf(x, c, s) for wk, (c, s) in zip(w, comps))
    ref_sf = sum(wk * cauchy_sf(x, c, s) for wk, (c, s) in zip(w, comps))
    np.testing.assert_allclose(law.cdf(x), ref_cdf, rtol=1e-13)
    np.testing.assert_allclose(law.sf(x), ref_sf, rtol=1e-13)
    q = np.array([1e-12, 0.05, 0.3, 0.7, 0.99])
    np.testing.assert_allclose(law.cdf(law.ppf(q)), q, rtol=1e-13)


@pytest.mark.parametrize("call", [lambda L: L.mean(), lambda L: L.var(),
                                  lambda L: L.moment(2), lambda L: L.expect(np.cos)])
def test_moments_refuse_clearly(call):
    law = NumericalLaw(cauchy_G())
    with pytest.raises(ArithmeticError, match="unbounded support"):
        call(law)


def test_too_wide_declared_support_refused():
    law = NumericalLaw(cauchy_G(), support=[(-1e300, 1e300)], atoms=[])
    with np.errstate(all="raise"):  # no overflow on the way to the refusal
        with pytest.raises(ParameterError, match="support"):
            law.cdf(0.0)


def test_bad_infinite_support_refused():
    for bad in ([(math.inf, math.inf)], [(-math.inf, -math.inf)], [(1.0, -math.inf)],
                [(math.nan, 1.0)]):
        with pytest.raises(ParameterError, match="support"):
            NumericalLaw(cauchy_G(), support=bad)


def half_cauchy_G(a=1.0, s=2.0):
    """|C(0, s)| shifted to a: density 2s/(π(s² + (x − a)²)) on (a, ∞),
    G(z) = (2/π)(log w + πw/2 − iπ)/(1 + w²)/s, w = (z − a)/s (Im z > 0; partial fractions
    of ∫_0^∞ dx/((1 + x²)(w − x)))."""
    def upper(w):
        return (2 / math.pi) * (np.log(w) + w * math.pi / 2 - 1j * math.pi) / (1 + w * w)

    def G(z):
        w = (np.asarray(z, complex) - a) / s
        return np.where(w.imag < 0, np.conj(upper(np.conj(w))), upper(w)) / s
    return G


def test_half_line_heavy_tail_found_from_G_alone():
    a, s = 1.0, 2.0
    law = NumericalLaw(half_cauchy_G(a, s))
    assert law.support() == [(a, math.inf)] and law.atoms() == []
    x = np.array([1 + 1e-15, 1 + 1e-10, 1.5, 2.0, 3.0, 1e8, 1e100])
    np.testing.assert_allclose(law.cdf(x), (2 / math.pi) * np.arctan2(x - a, s), rtol=1e-14)
    np.testing.assert_allclose(law.sf(x), (2 / math.pi) * np.arctan2(s, x - a), rtol=1e-14)
    assert law.cdf(a) == 0.0 and law.cdf(0.0) == 0.0
    q = np.array([1e-200, 1e-5, 0.3, 0.5, 0.9])
    np.testing.assert_allclose(law.ppf(q), a + s * np.tan(math.pi * q / 2), rtol=1e-14)
    q = np.array([1e-20, 1e-5, 0.1])
    np.testing.assert_allclose(law.isf(q), a + s / np.tan(math.pi * q / 2), rtol=1e-14)


def test_half_line_heavy_tail_with_an_atom_outside():
    # 1/4 δ_{−1} + 3/4 |C(0, 2)| shifted to 1: the atom found on the compactified scan
    G = half_cauchy_G()
    law = NumericalLaw(lambda z: 0.75 * G(z) + 0.25 / (z + 1))
    assert law.support() == [(1.0, math.inf)]
    (loc, mass), = law.atoms()
    assert loc == -1.0 and mass == pytest.approx(0.25, rel=1e-14)
    x = np.array([-2.0, -1.0, 0.0, 3.0, 1e20])
    ref = np.where(x >= -1, 0.25, 0.0) + 0.75 * (2 / math.pi) * np.arctan2(np.maximum(x - 1, 0), 2)
    np.testing.assert_allclose(law.cdf(x), ref, rtol=1e-14)
    assert law.ppf(0.1) == -1.0


@pytest.mark.parametrize("kw", [{}, dict(support=[(-math.inf, math.inf)], on_axis=False)])
def test_cauchy_derivative_and_limit_density_on_the_bulk_scale(kw):
    # the ε → 0 limits start from the tail map's scale s, not from the (infinite or 1e11-wide)
    # hull: G′(0.5) was 1.4e-16, right −1/(0.5 + i)² = 0.48 + 0.64i
    c, s = 1.0, 2.0
    law = NumericalLaw(cauchy_G(c, s), **kw)
    z = np.array([0.5, 0.5 + 1j])
    np.testing.assert_allclose(law.cauchy_transform_derivative(z), -1 / (z - c + 2j) ** 2,
                               rtol=1e-11)
    x = np.array([-30.0, 0.0, 1.0, 4.0])
    np.testing.assert_allclose(law.pdf(x), s / math.pi / ((x - c) ** 2 + s * s), rtol=1e-12)
    assert law.cdf(3.0) == pytest.approx(0.75, rel=1e-14)


def test_cauchy_at_dps():
    # pdf and the support at 30 digits (G at dps from cauchy_mp); cdf at dps refuses clearly
    def G_mp(z, dps):
        return 1 / (z + 1j * (1 if mpmath.im(z) >= 0 else -1))

    for kw in ({}, dict(support=[(-math.inf, math.inf)])):
        law = NumericalLaw(cauchy_G(), cauchy_mp=G_mp, **kw)
        with mpmath.workdps(30):
            assert abs(law.pdf(0.0, dps=30) - 1 / mpmath.pi) < mpmath.mpf(10) ** -29
        assert law.support(dps=30) == [(-mpmath.inf, mpmath.inf)]
        with pytest.raises(NotImplementedError, match="unbounded support"):
            law.cdf(0.0, dps=30)
