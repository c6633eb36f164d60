"""The scipy.stats vocabulary on every law, against scipy's own semantics (issue 18).

References: (1) a ``scipy.stats.rv_continuous`` subclass built from nothing but our
MarchenkoPastur's closed-form pdf on its support, so that scipy computes every other entry
by its own generic routes (quad for cdf, moments, entropy and expect; root finding for ppf;
inverse-cdf sampling for rvs); (2) ``scipy.stats.semicircular`` (closed forms) against our
Semicircle(1/4) (radius 1); (3) closed forms and 30-digit mpmath for the deep tails, where
scipy's generic 1 − cdf cannot serve.  docs/scipy-vocabulary.md is the table.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import scipy.stats as st

from freeattn import (Discrete, MarchenkoPastur, Mixture, PointMass, Semicircle, attention_law,
                      free_additive_convolution)

Y = 0.5
MP = MarchenkoPastur(Y)
A, B = MP.support()[0]


class _MPFromPdf(st.rv_continuous):
    """scipy's generic distribution from the Marchenko–Pastur density alone,
    sqrt((b − x)(x − a))/(2π y x) on [a, b] = [(1 − √y)², (1 + √y)²] (Marchenko & Pastur
    1967), written here in numpy (so that scipy's quadratures run at numpy speed)."""

    def _pdf(self, x):
        a, b = (1 - math.sqrt(Y)) ** 2, (1 + math.sqrt(Y)) ** 2
        x = np.asarray(x, dtype=float)
        return np.sqrt(np.clip((b - x) * (x - a), 0, None)) / (2 * math.pi * Y * x)


SCIPY_MP = _MPFromPdf(a=A, b=B, name="mp_from_pdf")
SC = Semicircle(0.25)                       # radius 2σ = 1: scipy's semicircular
SCIPY_SC = st.semicircular()
REFERENCES = [(MP, SCIPY_MP, 1e-7), (SC, SCIPY_SC, 1e-12)]
X = [0.2, 0.7, 1.3, 2.4]                    # inside both supports' scaled points below


def _points(law):
    a, b = law.hull()
    return [a + (b - a) * t for t in (0.03, 0.3, 0.55, 0.9)]


@pytest.mark.parametrize("law, ref, rtol", REFERENCES)
@pytest.mark.parametrize("method", ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"])
def test_pointwise_functions_match_scipy(law, ref, rtol, method):
    x = np.array(_points(law))
    np.testing.assert_allclose(getattr(law, method)(x), getattr(ref, method)(x), rtol=rtol,
                               atol=1e-300)
    # scalars stay scalars
    assert np.ndim(getattr(law, method)(float(x[1]))) == 0


@pytest.mark.parametrize("law, ref, rtol", REFERENCES)
@pytest.mark.parametrize("method", ["ppf", "isf"])
def test_quantiles_match_scipy(law, ref, rtol, method):
    q = np.array([0.01, 0.25, 0.5, 0.9, 0.999])
    np.testing.assert_allclose(getattr(law, method)(q), getattr(ref, method)(q), rtol=max(rtol, 1e-9),
                               atol=1e-15)


def _scipy_moment(ref, order):
    """scipy's moment; for the pdf-only distribution by scipy's E[X^k] (``expect``): its
    generic ``moment`` integrates for ~20 s per order, to no other value."""
    return ref.expect(lambda x: x**order) if ref is SCIPY_MP else ref.moment(order)


def _scipy_stats(ref, moments):
    """scipy's stats; for the pdf-only distribution from its central moments E[(X − m)^j]
    (``expect``), scipy's definitions of variance, skewness and excess kurtosis."""
    if ref is not SCIPY_MP:
        return ref.stats(moments=moments)
    m = ref.expect()
    mu = {j: ref.expect(lambda x, j=j: (x - m) ** j) for j in (2, 3, 4)}
    vals = dict(m=m, v=mu[2], s=mu[3] / mu[2] ** 1.5, k=mu[4] / mu[2] ** 2 - 3)
    out = tuple(vals[c] for c in "mvsk" if c in moments)
    return out[0] if len(out) == 1 else out


@pytest.mark.parametrize("law, ref, rtol", REFERENCES)
def test_moments_and_summaries_match_scipy(law, ref, rtol):
    for order in (1, 2, 3, 4):
        want = _scipy_moment(ref, order)
        assert law.moment(order=order) == pytest.approx(want, rel=rtol)   # scipy's keyword
        assert law.moment(order) == pytest.approx(want, rel=rtol)         # positional
        assert law.moment(k=order) == pytest.approx(want, rel=rtol)       # our keyword
    names = ("median", "entropy") if ref is SCIPY_MP else ("mean", "var", "std", "median",
                                                             "entropy")
    for name in names:
        assert getattr(law, name)() == pytest.approx(getattr(ref, name)(), rel=rtol, abs=1e-12), name
    if ref is SCIPY_MP:
        m, v = _scipy_stats(ref, "mv")
        assert (law.mean(), law.var(), law.std()) == pytest.approx((m, v, v ** 0.5), rel=rtol)
    for c in (0.5, 0.95):
        np.testing.assert_allclose(law.interval(c), ref.interval(c), rtol=max(rtol, 1e-9))


@pytest.mark.parametrize("law, ref, rtol", REFERENCES)
@pytest.mark.parametrize("moments", ["m", "v", "mv", "mvsk", "sk", "km"])
def test_stats_matches_scipy(law, ref, rtol, moments):
    got, want = law.stats(moments=moments), _scipy_stats(ref, moments)
    if len(moments) == 1:
        assert np.ndim(got) == 0
        got, want = (got,), (want,)
    assert len(got) == len(want)
    np.testing.assert_allclose(np.array(got, dtype=float), np.array(want, dtype=float),
                               rtol=max(rtol, 1e-9), atol=1e-12)


@pytest.mark.parametrize("law, ref, rtol", REFERENCES)
def test_expect_matches_scipy(law, ref, rtol):
    a, b = law.hull()
    lb, ub = a + 0.2 * (b - a), a + 0.7 * (b - a)
    tol = max(rtol, 1e-9)
    assert law.expect() == pytest.approx(ref.expect(), rel=tol)          # default: identity
    assert law.expect(np.square) == pytest.approx(ref.expect(np.square), rel=tol)
    assert law.expect(np.square, lb=lb, ub=ub) == pytest.approx(
        ref.expect(np.square, lb=lb, ub=ub), rel=tol)
    assert law.expect(lb=lb, ub=ub, conditional=True) == pytest.approx(
        ref.expect(lb=lb, ub=ub, conditional=True), rel=tol)
    assert law.expect(lb=lb) == pytest.approx(ref.expect(lb=lb), rel=tol)
    assert law.expect(ub=ub) == pytest.approx(ref.expect(ub=ub), rel=tol)
    # the mass of [lb, ub] is cdf(ub) − cdf(lb)
    assert law.expect(lambda x: np.ones_like(x), lb=lb, ub=ub) == pytest.approx(
        float(law.cdf(ub) - law.cdf(lb)), rel=1e-12)


def test_expect_at_high_precision_with_bounds():
    # MP(1/2) on [a, b]: E[X 1{X ≤ 1}] at 30 digits against mpmath's own quadrature
    with mpmath.workdps(40):
        y = mpmath.mpf(1) / 2
        a, b = (1 - mpmath.sqrt(y)) ** 2, (1 + mpmath.sqrt(y)) ** 2

        def rho(x):
            return mpmath.sqrt((b - x) * (x - a)) / (2 * mpmath.pi * y * x)

        want = mpmath.quad(lambda x: x * rho(x), [a, 1])
        want_cond = want / mpmath.quad(rho, [a, 1])
    got = MP.expect(lambda x: x, dps=30, ub=1)
    assert abs(got - want) < mpmath.mpf(10) ** -27
    got = MP.expect(dps=30, ub=1, conditional=True)
    assert abs(got - want_cond) < mpmath.mpf(10) ** -27
    got = MP.expect(dps=30, lb=1)
    assert abs(got + want - 1) < mpmath.mpf(10) ** -27          # m₁ = 1


def test_expect_bounds_include_atoms():
    law = Mixture([PointMass(0), Semicircle(1)], [0.25, 0.75])
    assert law.expect(lambda x: np.ones_like(x), lb=0, ub=0) == pytest.approx(0.25, rel=1e-15)
    assert law.expect(lambda x: np.ones_like(x), ub=0) == pytest.approx(0.25 + 0.375, rel=1e-12)
    d = Discrete([1, 2, 3], [0.25, 0.5, 0.25])
    assert d.expect(lb=2) == pytest.approx(0.5 * 2 + 0.25 * 3, rel=1e-15)
    assert d.expect(lb=2, conditional=True) == pytest.approx((1 + 0.75) / 0.75, rel=1e-15)
    # scipy's discrete expect has the same inclusive bounds
    ref = st.rv_discrete(values=([1, 2, 3], [0.25, 0.5, 0.25]))
    assert d.expect(lb=2, ub=3) == pytest.approx(ref.expect(lb=2, ub=3), rel=1e-15)


@pytest.mark.parametrize("kwargs, name", [
    (dict(lb=2, ub=1), "lb"), (dict(lb=math.nan), "lb"), (dict(ub="1"), "ub"),
    (dict(conditional="yes"), "conditional"), (dict(lb=5, ub=6, conditional=True), "lb")])
def test_expect_refuses_bad_bounds(kwargs, name):
    from freeattn._validation import ParameterError

    with pytest.raises(ParameterError) as info:
        MP.expect(**kwargs)
    assert info.value.param == name


@pytest.mark.parametrize("law, ref, rtol", REFERENCES)
def test_nnlf_matches_scipy(law, ref, rtol):
    x = np.array(_points(law))
    # scipy's nnlf(theta, x) = −Σ log pdf(x) at loc 0, scale 1 (a frozen law has none)
    want = (st.semicircular.nnlf((0, 1), x) if ref is SCIPY_SC
            else SCIPY_MP.nnlf((0, 1), x))
    assert law.nnlf(x) == pytest.approx(want, rel=rtol)
    # outside the support: zero likelihood, as scipy
    assert law.nnlf(np.append(x, 100.0)) == math.inf


def test_nnlf_counts_atoms_by_their_mass():
    law = Mixture([PointMass(0), MarchenkoPastur(0.5)], [0.25, 0.75])
    x = [0.0, 1.0]
    assert law.nnlf(x) == pytest.approx(-(math.log(0.25) + math.log(0.75 * MP.pdf(1.0))),
                                        rel=1e-13)


def test_rvs_accepts_what_scipy_accepts():
    # a RandomState or a Generator gives scipy's inverse-cdf variates (U = uniform(size))
    ours = MP.rvs(size=6, random_state=np.random.RandomState(0))
    theirs = SCIPY_MP.rvs(size=6, random_state=np.random.RandomState(0))
    np.testing.assert_allclose(ours, theirs, rtol=1e-8)
    ours = MP.rvs(size=6, random_state=np.random.default_rng(5))
    theirs = SCIPY_MP.rvs(size=6, random_state=np.random.default_rng(5))
    np.testing.assert_allclose(ours, theirs, rtol=1e-8)
    # None: numpy's global RandomState, as scipy (np.random.seed applies)
    np.random.seed(3)
    ours = MP.rvs(size=4)
    np.random.seed(3)
    theirs = SCIPY_MP.rvs(size=4)
    np.testing.assert_allclose(ours, theirs, rtol=1e-8)
    # an int seeds a Generator (freeattn's stream, unchanged): ppf of default_rng(seed)
    np.testing.assert_array_equal(MP.rvs(size=5, random_state=7),
                                  MP.ppf(np.random.default_rng(7).random(5)))
    assert np.ndim(MP.rvs(random_state=np.random.RandomState(1))) == 0


@pytest.mark.parametrize("state", ["0", 1.5, -1, object(), True])
def test_rvs_refuses_other_random_states(state):
    from freeattn._validation import ParameterError

    with pytest.raises(ParameterError) as info:
        MP.rvs(3, random_state=state)
    assert info.value.param == "random_state"


def test_support_is_a_list_and_hull_is_scipys_pair():
    assert MP.support() == [(A, B)]
    assert MP.hull() == MP.bounds() == (A, B)
    assert MP.hull() == pytest.approx(SCIPY_MP.support(), rel=0)
    assert SC.hull() == pytest.approx(SCIPY_SC.support(), rel=1e-15)
    # atoms outside the intervals count, gaps are spanned
    law = Mixture([Semicircle(1).affine(-5, 1), PointMass(7)])
    assert law.hull() == (-7.0, 7.0)
    assert len(law.support()) == 1
    two = free_additive_convolution(Discrete([-4, 4]), Semicircle(1))
    assert len(two.support()) == 2 and two.hull() == (two.support()[0][0], two.support()[1][1])
    lo, hi = MarchenkoPastur(2).hull(dps=30)
    assert lo == 0 and isinstance(hi, mpmath.mpf)


# ------------------------------------------------------------ the deep tails (issue 21 item 1)
def _mp1_sf(x, dps=40):
    """sf of MP(1) at 40 digits: ∫_x^4 sqrt((4 − t)t)/(2πt) dt."""
    with mpmath.workdps(dps):
        x = mpmath.mpf(x)
        return mpmath.quad(lambda t: mpmath.sqrt((4 - t) * t) / (2 * mpmath.pi * t), [x, 4])


@pytest.mark.parametrize("d", [1e-12, 1e-9, 1e-6])
def test_logsf_is_accurate_in_the_deep_upper_tail(d):
    law = MarchenkoPastur(1)
    x = 4 - d
    want = float(mpmath.log(_mp1_sf(x)))
    assert law.logsf(x) == pytest.approx(want, rel=1e-9)
    assert math.exp(law.logsf(x)) == pytest.approx(float(_mp1_sf(x)), rel=1e-8)
    got = law.logsf(x, dps=30)
    with mpmath.workdps(40):
        assert abs(got - mpmath.log(_mp1_sf(x))) < mpmath.mpf(10) ** -20 * abs(got)
    # scipy's generic log(1 − cdf) loses it all there
    if d <= 1e-12:
        assert law.cdf(x) == 1.0  # 1 − cdf is 0 in float64: log(1 − cdf) = −inf


def test_logcdf_is_accurate_near_the_right_end():
    # log cdf(x) = log1p(−sf(x)) ≈ −sf(x) next to the right end
    law = MarchenkoPastur(1)
    x = 4 - 1e-9
    assert law.logcdf(x) == pytest.approx(-float(_mp1_sf(x)), rel=1e-8)
    # and in the deep lower tail logsf ≈ −cdf
    sc = Semicircle(1)
    assert sc.logsf(-2 + 1e-12) == pytest.approx(-float(sc.cdf(-2 + 1e-12)), rel=1e-8)


def test_logs_at_the_ends_and_outside():
    law = MarchenkoPastur(0.5)
    assert law.logsf(B + 1) == -math.inf and law.logsf(A - 1) == 0.0
    assert law.logcdf(A - 1) == -math.inf and law.logcdf(B + 1) == 0.0
    assert law.logsf(math.inf) == -math.inf and law.logcdf(-math.inf) == -math.inf
    np.testing.assert_array_equal(np.shape(law.logsf(np.zeros((2, 3)) + 1.0)), (2, 3))


def test_stats_refuses_unknown_letters_and_degenerate_laws():
    from freeattn._validation import ParameterError

    with pytest.raises(ParameterError) as info:
        MP.stats(moments="mvx")
    assert info.value.param == "moments"
    assert PointMass(3).stats("mv") == (3.0, 0.0)
    with pytest.raises(ArithmeticError, match="variance 0"):
        PointMass(3).stats("s")


def test_var_keeps_its_digits_far_from_zero():
    # m₂ − m₁² in float64 would lose ~16 digits at a shift of 1e8 (σ² = 1/4 exactly)
    law = Semicircle(0.25).affine(1e8, 1)
    assert law.var() == pytest.approx(0.25, rel=1e-12)
    assert law.stats("vsk") == pytest.approx((0.25, 0.0, -1.0), abs=1e-9)


def test_stats_at_dps():
    m, v, s, k = attention_law(1, 1).stats("mvsk", dps=25)
    law = attention_law(1, 1)
    with mpmath.workdps(40):
        ms = [mpmath.mpf(law.moment(j, dps=40)) for j in range(1, 5)]
        mu2 = ms[1] - ms[0] ** 2
        mu3 = ms[2] - 3 * ms[0] * ms[1] + 2 * ms[0] ** 3
        mu4 = ms[3] - 4 * ms[0] * ms[2] + 6 * ms[0] ** 2 * ms[1] - 3 * ms[0] ** 4
        want = (ms[0], mu2, mu3 / mu2 ** 1.5, mu4 / mu2 ** 2 - 3)
        for g, w in zip((m, v, s, k), want):
            assert abs(g - w) < mpmath.mpf(10) ** -22 * abs(w)
