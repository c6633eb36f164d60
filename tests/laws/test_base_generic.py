"""The generic Law interface: a law defined by its Cauchy transform alone gets everything.

References are closed forms of the arcsine law on [−2, 2] (density 1/(π sqrt(4 − x²)),
F(x) = 1/2 + asin(x/2)/π, m_{2k} = C(2k, k), R(g) = (sqrt(1 + 4g²) − 1)/g) and, for the S-transform,
of its shift to [0, 4]: G(z) = 1/sqrt(z(z − 4)) gives ψ(u) + 1 = sqrt(z/(z − 4)) at z = 1/u, so
S(w) = (2 + w)/(4(1 + w)).
"""
import math
import pickle

import mpmath
import numpy as np
import pytest
import scipy.stats

from freeattn._validation import ParameterError
from freeattn.laws import Law, MarchenkoPastur, Semicircle


# -- the done-when test: the arcsine law from its Cauchy transform alone (≤ 15 lines) --------
class Arcsine(Law):
    """Arcsine law on [−2, 2] given only by G(z) = 1/sqrt(z² − 4) on the branch G ~ 1/z."""

    name = "arcsine(-2, 2)"

    def _cauchy_float(self, z):
        return 1 / (np.sqrt(z - 2) * np.sqrt(z + 2))


def test_arcsine_from_its_cauchy_transform_alone():
    law = Arcsine()
    x = np.array([-1.999, -1.2, -0.3, 0.0, 0.7, 1.5, 1.9999])
    np.testing.assert_allclose(law.pdf(x), 1 / (np.pi * np.sqrt(4 - x**2)), rtol=1e-10, atol=0)
    np.testing.assert_allclose(law.cdf(x), 0.5 + np.arcsin(x / 2) / np.pi, rtol=0, atol=1e-10)
    q = np.array([1e-9, 0.01, 0.25, 0.5, 0.8, 0.999])
    np.testing.assert_allclose(law.ppf(q), 2 * np.sin(np.pi * (q - 0.5)), rtol=0, atol=1e-10)
    for k in range(1, 9):
        exact = math.comb(k, k // 2) if k % 2 == 0 else 0
        assert law.moment(k) == pytest.approx(exact, abs=1e-10)
    (a, b), = law.support()
    assert abs(a + 2) < 1e-10 and abs(b - 2) < 1e-10 and law.atoms() == []
    g = np.array([-0.4, -0.05, 0.1, 0.3])
    np.testing.assert_allclose(law.r_transform(g), (np.sqrt(1 + 4 * g**2) - 1) / g, rtol=0, atol=1e-10)
    w = np.array([-0.9, -0.5, -0.1, 0.0])
    shifted = law.affine(2.0, 1.0)  # arcsine on [0, 4]: S needs a law on [0, ∞) with m₁ > 0
    np.testing.assert_allclose(shifted.s_transform(w), (2 + w) / (4 * (1 + w)), rtol=0, atol=1e-10)


@pytest.fixture(scope="module")
def arcsine():
    return Arcsine()


def test_scipy_vocabulary_against_scipy_stats(arcsine):
    ref = scipy.stats.arcsine(loc=-2, scale=4)
    x = np.array([-1.5, 0.2, 1.8])
    np.testing.assert_allclose(arcsine.sf(x), ref.sf(x), atol=1e-12)
    np.testing.assert_allclose(arcsine.logpdf(x), ref.logpdf(x), rtol=1e-10)
    np.testing.assert_allclose(arcsine.logcdf(x), ref.logcdf(x), rtol=1e-10)
    q = np.array([0.01, 0.3, 0.95])
    np.testing.assert_allclose(arcsine.isf(q), ref.isf(q), atol=1e-10)
    assert arcsine.median() == pytest.approx(0.0, abs=1e-12)
    assert arcsine.std() == pytest.approx(math.sqrt(2), rel=1e-12)
    lo, hi = arcsine.interval(0.9)
    assert (lo, hi) == pytest.approx(ref.interval(0.9), abs=1e-10)
    assert arcsine.expect(np.cos) == pytest.approx(scipy.special.j0(2.0), abs=1e-10)
    # differential entropy log(π): the ulp next to an inverse-square-root edge limits it
    assert arcsine.entropy() == pytest.approx(ref.entropy(), abs=1e-7)
    assert float(arcsine.logpdf(3.0)) == -np.inf


def test_rvs_is_inverse_cdf_sampling(arcsine):
    u = np.random.default_rng(7).random(200)
    s = arcsine.rvs(200, random_state=np.random.default_rng(7))
    np.testing.assert_allclose(s, 2 * np.sin(np.pi * (u - 0.5)), atol=1e-10)
    assert scipy.stats.kstest(arcsine.rvs(2000, random_state=3),
                              scipy.stats.arcsine(loc=-2, scale=4).cdf).pvalue > 1e-3


def test_cauchy_transform_derivative_generic(arcsine):
    z = np.array([3.0, -2.5, 1 + 1j, -0.3 + 0.01j, 0.5, -1.7])
    # G′(z) = −z/(z² − 4)^{3/2} on the branch G ~ 1/z, i.e. −z G(z)³
    exact = -z * (1 / (np.sqrt(z - 2 + 0j) * np.sqrt(z + 2 + 0j))) ** 3
    np.testing.assert_allclose(arcsine.cauchy_transform_derivative(z), exact, rtol=1e-9)


def test_non_finite_arguments_one_rule(arcsine):
    assert arcsine.cauchy_transform(np.inf) == 0
    assert arcsine.cauchy_transform(-np.inf, dps=20) == 0
    np.testing.assert_array_equal(arcsine.pdf([np.inf, -np.inf]), [0.0, 0.0])
    np.testing.assert_array_equal(arcsine.cdf([-np.inf, np.inf]), [0.0, 1.0])
    assert arcsine.cdf(mpmath.inf, dps=20) == 1 and arcsine.cdf(-np.inf, dps=20) == 0
    for dps in (None, 30):
        with pytest.raises(ParameterError) as info:
            arcsine.pdf(float("nan"), dps=dps)
        assert info.value.param == "x"
        with pytest.raises(ParameterError):
            arcsine.cauchy_transform(complex("nan+1j"), dps=dps)
    with pytest.raises(ParameterError):
        arcsine.ppf(1.5)
    # classic algebraic laws share the filter (issue 7 item 8)
    assert Semicircle(1.0).cauchy_transform(np.inf) == 0
    with pytest.raises(ParameterError):
        Semicircle(1.0).pdf(float("nan"), dps=30)


def test_method_dispatch_error_names_method_and_choices(arcsine):
    with pytest.raises(ParameterError) as info:
        arcsine.pdf(0.0, method="bogus")
    assert info.value.param == "method"
    assert "'axis'" in str(info.value) and "'limit'" in str(info.value)
    with pytest.raises(ParameterError):
        arcsine.moment(2, method="series")
    with pytest.raises(ParameterError):
        arcsine.r_transform(0.1, method="relation")


def test_pdf_limit_route_and_error_estimate(arcsine):
    x = np.array([-1.0, 0.0, 0.5])
    np.testing.assert_allclose(arcsine.pdf(x, method="limit"), 1 / (np.pi * np.sqrt(4 - x**2)),
                               rtol=1e-9)
    val, err = arcsine.density_limit(x)
    assert np.all(err < 1e-8)


def test_exact_and_quadrature_moments_agree():
    law = MarchenkoPastur(0.5)
    for k in (1, 2, 3):
        assert law.moment(k, method="quad") == pytest.approx(law.moment(k, method="exact"), rel=1e-10)


def test_equal_laws_compare_and_hash_equal():
    assert MarchenkoPastur(0.5) == MarchenkoPastur(0.5)
    assert hash(Semicircle(2.0)) == hash(Semicircle(2))
    assert MarchenkoPastur(0.5) != MarchenkoPastur(0.25)
    assert MarchenkoPastur(0.5) != Semicircle(0.5)
    assert len({MarchenkoPastur(0.5), MarchenkoPastur(0.5)}) == 1
    # laws built from laws compare through them (never equal on a shared rate alone)
    from freeattn import compound_free_poisson
    from freeattn.laws import Empirical

    p = compound_free_poisson(Empirical([1.0, 2.0]), 0.5)
    assert p == compound_free_poisson(Empirical([1.0, 2.0]), 0.5)
    assert p != compound_free_poisson(Empirical([1.0, 3.0]), 0.5)


def test_generic_law_pickles_after_evaluation(arcsine):
    arcsine.cdf(0.3)
    back = pickle.loads(pickle.dumps(arcsine))
    assert back.cdf(0.3) == pytest.approx(arcsine.cdf(0.3), abs=1e-15)


def test_display_fallback_is_a_table(arcsine):
    text = arcsine._summary_text()
    assert "support: [-2, 2]" in text and "atoms: none" in text and "mean: " in text
    assert arcsine._repr_html_()
    assert arcsine._repr_latex_().startswith("$$")


def test_high_precision_routes_with_an_mp_hook():
    class ArcsineMp(Arcsine):
        def _cauchy_mp(self, z, dps):
            with mpmath.workdps(dps + 10):
                val = 1 / (mpmath.sqrt(z - 2) * mpmath.sqrt(z + 2))
            with mpmath.workdps(dps):
                return +val

    law = ArcsineMp()
    with mpmath.workdps(40):
        x = mpmath.mpf("0.3")
        ref_pdf = 1 / (mpmath.pi * mpmath.sqrt(4 - x**2))
        ref_cdf = mpmath.mpf(1) / 2 + mpmath.asin(x / 2) / mpmath.pi
    assert abs(law.pdf(x, dps=30) - ref_pdf) < mpmath.mpf(10) ** -28
    assert abs(law.cdf(x, dps=30) - ref_cdf) < mpmath.mpf(10) ** -28
    assert abs(law.ppf(ref_cdf, dps=30) - x) < mpmath.mpf(10) ** -27
    with mpmath.workdps(40):
        ref_sf = 1 - ref_cdf
        ref_log = mpmath.log(ref_pdf)
    assert abs(law.sf(x, dps=30) - ref_sf) < mpmath.mpf(10) ** -28
    assert abs(law.logpdf(x, dps=30) - ref_log) < mpmath.mpf(10) ** -28
    a, b = law.support(dps=30)[0]
    assert abs(a + 2) < mpmath.mpf(10) ** -28 and abs(b - 2) < mpmath.mpf(10) ** -28
    # G′ at 30 digits by the Cauchy integral formula: −z G³
    zz = mpmath.mpc(1, 1)
    with mpmath.workdps(40):
        ref = -zz / (mpmath.sqrt(zz - 2) * mpmath.sqrt(zz + 2)) ** 3
    assert abs(law.cauchy_transform_derivative(zz, dps=30) - ref) < mpmath.mpf(10) ** -27


def test_float_only_law_refuses_high_precision(arcsine):
    assert abs(arcsine.cauchy_transform(1j, dps=12) - 1 / (1j * math.sqrt(5))) < 1e-12
    with pytest.raises(NotImplementedError, match="_cauchy_mp"):
        arcsine.cauchy_transform(1j, dps=30)


def test_generic_law_with_a_gap_and_an_atom():
    """G of 0.5·semicircle on [−5, −3] + 0.2·δ₀ + 0.3·arcsine on [1, 3], given only as G: the
    generic routes find both intervals, their edges, the atom and its mass."""

    class ThreeParts(Law):
        def _cauchy_float(self, z):
            u = z + 4
            sc = 2 * (u - np.sqrt(u - 1) * np.sqrt(u + 1))  # semicircle of radius 1 at −4
            arc = 1 / (np.sqrt(z - 3) * np.sqrt(z - 1))    # arcsine on [1, 3]
            return 0.5 * sc + 0.2 / z + 0.3 * arc

    law = ThreeParts()
    (a1, b1), (a2, b2) = law.support()
    assert (a1, b1, a2, b2) == pytest.approx((-5, -3, 1, 3), abs=1e-12)
    (loc, mass), = law.atoms()
    assert loc == pytest.approx(0.0, abs=1e-12) and mass == pytest.approx(0.2, abs=1e-10)
    np.testing.assert_allclose(law.cdf([-4.0, -1.0, 0.0, 2.0, 5.0]), [0.25, 0.5, 0.7, 0.85, 1.0],
                               atol=1e-9)
    assert law.ppf(0.6) == loc  # inside the atom's jump (0.5, 0.7]: the atom itself
    assert law.mean() == pytest.approx(0.5 * -4 + 0.3 * 2, abs=1e-9)


@pytest.mark.parametrize("law", [MarchenkoPastur(0.5), MarchenkoPastur(2.0)], ids=str)
def test_generic_routes_agree_with_the_algebraic_routes(law):
    """A second algorithm: the same G through the generic routes (support scan, pole bisection,
    tanh-sinh cdf, quadrature moments) against the algebraic law's own exact routes."""
    from freeattn.laws import NumericalLaw

    gen = NumericalLaw(law._cauchy_float)
    np.testing.assert_allclose(gen.support(), law.support(), atol=1e-14)
    assert len(gen.atoms()) == len(law.atoms())
    for (a1, w1), (a2, w2) in zip(gen.atoms(), law.atoms()):
        assert a1 == a2 and w1 == pytest.approx(w2, abs=1e-12)
    (a, b), = law.support()
    x = np.linspace(a, b, 7)[1:-1]
    np.testing.assert_allclose(gen.cdf(x), law.cdf(x), atol=1e-13)
    assert gen.moment(3) == pytest.approx(float(law.moment(3)), rel=1e-12)
