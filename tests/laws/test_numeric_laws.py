"""Laws from numbers: Discrete, Empirical, NumericalLaw, Mixture, Transformed (push-forward).

References: exact sums for discrete laws, closed forms of the semicircle law (density
sqrt(4 − x²)/(2π), m_{2k} = Catalan(k)), its push-forward by x² (density sqrt((4 − y)/y)/(2π) on
[0, 4], the free Poisson law of rate 1) and mpmath at 30 digits.
"""
import math

import mpmath
import numpy as np
import pytest
import scipy.stats

from freeattn import FreePoisson, MarchenkoPastur, Semicircle
from freeattn._validation import ParameterError
from freeattn.laws import Discrete, Empirical, Law, Mixture, NumericalLaw, Transformed


def semicircle_g(z):
    return (z - np.sqrt(z - 2) * np.sqrt(z + 2)) / 2


# ------------------------------------------------------------------ Discrete
def test_discrete_exact_transform_cdf_quantiles_moments():
    law = Discrete([3.0, 0.0, 1.0], [0.3, 0.2, 0.5])
    assert law.atoms() == [(0.0, 0.2), (1.0, 0.5), (3.0, 0.3)]
    assert law.support() == []
    z = np.array([2 + 1j, -1.0, 0.5 - 0.25j])
    exact = 0.2 / z + 0.5 / (z - 1) + 0.3 / (z - 3)
    np.testing.assert_allclose(law.cauchy_transform(z), exact, rtol=1e-15)
    np.testing.assert_allclose(law.cauchy_transform_derivative(z),
                               -(0.2 / z**2 + 0.5 / (z - 1) ** 2 + 0.3 / (z - 3) ** 2), rtol=1e-15)
    np.testing.assert_array_equal(law.cdf([-1, 0, 0.5, 1, 3, 7]), [0, 0.2, 0.2, 0.7, 1, 1])
    np.testing.assert_allclose(law.sf([-1, 0, 1, 3]), [1, 0.8, 0.3, 0], atol=1e-16)
    np.testing.assert_array_equal(law.ppf([0, 0.2, 0.2000001, 0.7, 0.71, 1]), [0, 0, 1, 1, 3, 3])
    assert law.mean() == pytest.approx(1.4, rel=1e-15)
    assert law.var() == pytest.approx(0.5 + 2.7 - 1.96, rel=1e-14)
    assert law.moment(3, dps=30) == mpmath.mpf("8.6") or \
        abs(law.moment(3, dps=30) - mpmath.mpf("8.6")) < 1e-15  # binary 0.3/0.5/0.2
    assert law.entropy() == pytest.approx(scipy.stats.entropy([0.2, 0.5, 0.3]), rel=1e-14)
    assert law.pdf(0.5) == 0.0
    assert law.median() == 1.0


def test_discrete_merges_repeats_and_validates():
    law = Discrete([1.0, 1.0, 2.0])
    assert law.atoms() == [(1.0, pytest.approx(2 / 3)), (2.0, pytest.approx(1 / 3))]
    assert Discrete([1.0, 2.0], [0.5, 0.5]) == Discrete([2.0, 1.0], [0.5, 0.5])
    for bad, param in [(([],), "points"), (([1.0, np.nan],), "points"),
                       (([1.0, 2.0], [0.5, 0.6]), "weights"), (([1.0, 2.0], [1.5, -0.5]), "weights"),
                       (([1.0, 2.0], [1.0]), "weights")]:
        with pytest.raises(ParameterError) as info:
            Discrete(*bad)
        assert info.value.param == param


def test_discrete_against_mpmath_30_digits():
    pts, w = [0.25, 1.5, 4.0], [0.125, 0.375, 0.5]  # exact binary values
    law = Discrete(pts, w)
    z = mpmath.mpc("0.7", "0.1")
    with mpmath.workdps(40):
        ref = mpmath.fsum(mpmath.mpf(wi) / (z - mpmath.mpf(p)) for p, wi in zip(pts, w))
    assert abs(law.cauchy_transform(z, dps=30) - ref) < mpmath.mpf(10) ** -29


# ------------------------------------------------------------------ Empirical
def test_empirical_is_the_discrete_law_of_the_samples():
    x = np.random.default_rng(1).standard_normal(400)
    law = Empirical(x)
    assert law.mean() == pytest.approx(np.mean(x), rel=1e-12)
    assert law.var() == pytest.approx(np.var(x), rel=1e-10)
    assert law.cdf(0.0) == pytest.approx(np.mean(x <= 0.0), abs=1e-15)
    s = np.sort(x)
    assert law.ppf(0.25) == s[99]  # the smallest x with F(x) >= 1/4 is the 100th sample
    # smoothing: the Poisson kernel at η integrates to 1 and equals the Cauchy mixture
    eta = 0.2
    grid = np.linspace(-1, 1, 5)
    ref = np.mean(eta / (np.pi * ((grid[:, None] - x[None, :]) ** 2 + eta**2)), axis=1)
    np.testing.assert_allclose(law.smoothed_pdf(grid, bandwidth=eta), ref, rtol=1e-12)
    assert law.default_bandwidth() > 0
    with pytest.raises(ParameterError) as info:
        Empirical(x, bandwidth=-1.0)
    assert info.value.param == "bandwidth"


# ------------------------------------------------------------------ NumericalLaw
def test_numerical_law_from_a_callable_finds_everything():
    law = NumericalLaw(semicircle_g, name="semicircle")
    (a, b), = law.support()
    assert abs(a + 2) < 1e-12 and abs(b - 2) < 1e-12 and law.atoms() == []
    x = np.array([-1.9, -0.4, 1.2])
    np.testing.assert_allclose(law.pdf(x), np.sqrt(4 - x**2) / (2 * np.pi), rtol=1e-12)
    # semicircle cdf F(x) = 1/2 + x sqrt(4 − x²)/(4π) + asin(x/2)/π
    ref = 0.5 + x * np.sqrt(4 - x**2) / (4 * np.pi) + np.arcsin(x / 2) / np.pi
    np.testing.assert_allclose(law.cdf(x), ref, atol=1e-12)
    assert [law.moment(k) for k in (2, 4, 6)] == pytest.approx([1, 2, 5], abs=1e-11)
    np.testing.assert_allclose(law.r_transform([0.1, -0.2]), [0.1, -0.2], atol=1e-11)


def test_numerical_law_off_axis_callable_uses_the_limit():
    # a callable that is not valid on the axis: G(x + iε) only, the density is the ε → 0 limit
    law = NumericalLaw(semicircle_g, on_axis=False, support=[(-2.0, 2.0)], atoms=[])
    x = np.array([-1.5, 0.0, 1.0])
    np.testing.assert_allclose(law.pdf(x), np.sqrt(4 - x**2) / (2 * np.pi), rtol=1e-9)


def test_numerical_law_finds_an_atom():
    law = NumericalLaw(lambda z: 0.5 * semicircle_g(z) + 0.5 / (z - 5))
    assert law.atoms() == [(pytest.approx(5.0, abs=1e-12), pytest.approx(0.5, abs=1e-12))]
    assert law.cdf(4.0) == pytest.approx(0.5, abs=1e-12)
    assert law.ppf(0.75) == pytest.approx(5.0, abs=1e-12)


def test_numerical_law_validates():
    with pytest.raises(ParameterError) as info:
        NumericalLaw(42)
    assert info.value.param == "cauchy"
    with pytest.raises(ParameterError):
        NumericalLaw(lambda z: -semicircle_g(z))  # Im G > 0 above the axis: wrong convention
    with pytest.raises(ParameterError) as info:
        NumericalLaw(semicircle_g, support=[(1.0, -1.0)])
    assert info.value.param == "support"


# ------------------------------------------------------------------ Mixture
def test_mixture_is_linear():
    mix = Mixture([Semicircle(1.0), Discrete([5.0]), MarchenkoPastur(2.0)], [0.5, 0.2, 0.3])
    sc, mp = Semicircle(1.0), MarchenkoPastur(2.0)
    z = np.array([1 + 0.5j, 7.0])
    np.testing.assert_allclose(mix.cauchy_transform(z), 0.5 * sc.cauchy_transform(z)
                               + 0.2 / (z - 5) + 0.3 * mp.cauchy_transform(z), rtol=1e-13)
    assert mix.atoms() == [(0.0, pytest.approx(0.15)), (5.0, pytest.approx(0.2))]
    assert mix.mean() == pytest.approx(0.2 * 5 + 0.3 * 1, rel=1e-14)
    x = np.array([-1.0, 0.5, 3.0, 5.0])
    np.testing.assert_allclose(mix.cdf(x), 0.5 * sc.cdf(x) + 0.2 * (x >= 5) + 0.3 * mp.cdf(x), atol=1e-14)
    q = np.array([0.1, 0.4, 0.6])
    np.testing.assert_allclose(mix.cdf(mix.ppf(q)), q, atol=1e-10)
    # inside the atom's jump (cdf(5−) < 0.95 ≤ cdf(5)) the quantile is the atom itself
    assert mix.cdf(5.0) - 0.2 < 0.95 <= mix.cdf(5.0) and mix.ppf(0.95) == 5.0
    with pytest.raises(ParameterError):
        Mixture([])
    with pytest.raises(ParameterError):
        Mixture([Semicircle(1.0)], [0.5])


# ------------------------------------------------------------------ push-forward
def test_pushforward_by_a_square_is_free_poisson():
    # semicircle(1) pushed by x ↦ x² is the free Poisson law of rate 1 (density sqrt((4−y)/y)/(2π))
    law = Transformed(Semicircle(1.0), [0.0, 0.0, 1.0])  # the numeric route, for any law
    assert law.support() == [(0.0, 4.0)]
    y = np.array([0.1, 1.0, 2.5, 3.9])
    np.testing.assert_allclose(law.pdf(y), np.sqrt((4 - y) / y) / (2 * np.pi), rtol=1e-12)
    z = np.array([1 + 1j, -2.0, 5.0, 0.3 + 1e-3j])
    np.testing.assert_allclose(law.cauchy_transform(z), FreePoisson(1.0).cauchy_transform(z), rtol=1e-12)
    np.testing.assert_allclose(law.cauchy_transform_derivative(z[:1]),
                               FreePoisson(1.0).cauchy_transform_derivative(z[:1]), rtol=1e-9)
    assert [float(law.moment(k)) for k in (1, 2, 3)] == pytest.approx([1, 2, 5], rel=1e-14)
    assert law.cdf(1.0) == pytest.approx(float(FreePoisson(1.0).cdf(1.0)), abs=1e-10)
    # a second algorithm: the exact elimination of AlgebraicLaw.pushforward, for a map with a
    # critical point x = 2 inside the support of MP(1/2): image [φ(2), φ(a)] = [−1/2, φ(a)]
    phi = [0.5, -1.0, 0.25]
    numeric = Transformed(MarchenkoPastur(0.5), phi)
    exact = MarchenkoPastur(0.5).pushforward(phi)
    zz = np.array([0.3 + 0.5j, 2.0 + 1e-2j, -3.0, 0.0])
    np.testing.assert_allclose(numeric.cauchy_transform(zz), exact.cauchy_transform(zz), rtol=1e-11)
    a = (1 - math.sqrt(0.5)) ** 2
    (lo, hi), = numeric.support()
    assert lo == -0.5 and hi == pytest.approx(0.5 - a + 0.25 * a * a, abs=1e-15)
    assert numeric.cdf(hi) == pytest.approx(1.0, abs=1e-9)


def test_affine_pushforward_of_a_generic_law_and_atoms():
    law = Discrete([0.0, 1.0], [0.5, 0.5]).pushforward([1.0, -2.0])  # x ↦ 1 − 2x
    assert law.atoms() == [(-1.0, 0.5), (1.0, 0.5)]
    folded = Discrete([-1.0, 1.0, 2.0], [0.25, 0.25, 0.5]).pushforward([0.0, 0.0, 1.0])
    assert folded.atoms() == [(1.0, 0.5), (4.0, 0.5)]  # ±1 merge under x²
    np.testing.assert_allclose(folded.cauchy_transform(2 + 1j), 0.5 / (1 + 1j) + 0.5 / (-2 + 1j), rtol=1e-13)
    with pytest.raises(ParameterError) as info:
        Semicircle(1.0).pushforward([3.0])
    assert info.value.param == "coefficients"


def test_pushforward_at_high_precision():
    law = Transformed(Semicircle(1.0), [0.0, 0.0, 1.0])
    z = mpmath.mpc(1, 1)
    with mpmath.workdps(40):
        ref = FreePoisson(1).cauchy_transform(z, dps=35)
    assert abs(law.cauchy_transform(z, dps=30) - ref) < mpmath.mpf(10) ** -28


def test_generic_law_is_a_law():
    assert issubclass(NumericalLaw, Law) and issubclass(Empirical, Discrete)
    assert math.isclose(Mixture([Discrete([1.0])]).mean(), 1.0)


@pytest.mark.parametrize("module", ["freeattn.laws.discrete", "freeattn.laws.empirical",
                                    "freeattn.laws.numerical", "freeattn._validation"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
