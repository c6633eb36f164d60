"""Metrics of freeattn.montecarlo against exact values on small hand examples."""
import math
import warnings

import numpy as np
import pytest
from scipy import integrate, stats

from freeattn.montecarlo import (
    density_histogram,
    drop_top,
    fit_power_law,
    ks_distance,
    ks_two_sample,
    law_quantiles,
    moment_intervals,
    rel_w1,
    rel_w1_two_sample,
    t_interval,
)


class Uniform01:
    """Uniform law on [0, 1] (duck-typed law interface)."""

    def pdf(self, x):
        x = np.asarray(x, float)
        return ((x >= 0) & (x <= 1)).astype(float)

    def cdf(self, x):
        return np.clip(np.asarray(x, float), 0.0, 1.0)

    def ppf(self, q):
        return np.asarray(q, float)

    def mean(self):
        return 0.5

    def moment(self, k):
        return 1.0 / (k + 1)

    def support(self):
        return [(0.0, 1.0)]

    def atoms(self):
        return []


class HalfAtom:
    """0.5 δ₀ + 0.5 Uniform[0, 1]: a law with an atom at zero."""

    def cdf(self, x):
        x = np.asarray(x, float)
        return np.where(x < 0, 0.0, 0.5 + 0.5 * np.clip(x, 0.0, 1.0))

    def ppf(self, q):
        q = np.asarray(q, float)
        return np.where(q <= 0.5, 0.0, 2 * q - 1)

    def mean(self):
        return 0.25

    def atoms(self):
        return [(0.0, 0.5)]


class ClosedFormMP:
    """Marchenko–Pastur, mean one, ratio y <= 1 (stand-in, density in closed form)."""

    def __init__(self, y):
        self.y = y
        self.a, self.b = (1 - math.sqrt(y)) ** 2, (1 + math.sqrt(y)) ** 2

    def pdf(self, x):
        x = np.asarray(x, float)
        inside = (x > self.a) & (x < self.b)
        xs = np.where(inside, x, 1.0)
        return np.where(inside, np.sqrt(np.abs((self.b - xs) * (xs - self.a)))
                        / (2 * math.pi * self.y * xs), 0.0)

    def _grid(self):
        # x = a + (b - a)(1 - cos t)/2 removes the square-root edges; cumulative trapezoid
        t = np.linspace(0.0, math.pi, 20001)
        x = self.a + (self.b - self.a) * (1 - np.cos(t)) / 2
        dens = self.pdf(x) * (self.b - self.a) * np.sin(t) / 2
        c = integrate.cumulative_trapezoid(dens, t, initial=0.0)
        return x, c / c[-1]

    def cdf(self, x):
        gx, gc = self._grid()
        return np.interp(np.asarray(x, float), gx, gc, left=0.0, right=1.0)

    def ppf(self, q):
        gx, gc = self._grid()
        return np.interp(np.asarray(q, float), gc, gx)

    def mean(self):
        return 1.0

    def atoms(self):
        return []


def test_ks_single_point_uniform():
    assert ks_distance([0.5], Uniform01()) == pytest.approx(0.5)


def test_ks_two_points_both_sides():
    # at 0.2: right 0.5-0.2=0.3, left 0.2; at 0.9: right 0.1, left 0.9-0.5=0.4
    assert ks_distance([0.9, 0.2], Uniform01()) == pytest.approx(0.4)


def test_ks_ties_and_atoms():
    law = HalfAtom()
    # sample: two exact zeros, 0.5, 1.0 -> F_n(0)=0.5=F(0); at 0.5: F=0.75, F_n=0.75 (right),
    # left F_n=0.5 vs F(0.5-)=0.75 -> 0.25
    assert ks_distance([0.0, 0.0, 0.5, 1.0], law) == pytest.approx(0.25)
    # no sample at the atom: just below 1e-3 F_n = 0 but F = 0.5 + ... -> about 0.5
    assert ks_distance([1e-3, 2e-3], law) == pytest.approx(0.5 + 0.5e-3)


def test_rel_w1_exact():
    # quantiles at (i-1/2)/2 = 0.25, 0.75: (|0.2-0.25| + |0.9-0.75|)/2 / 0.5 = 0.2
    assert rel_w1([0.9, 0.2], Uniform01()) == pytest.approx(0.2)
    assert rel_w1([0.25, 0.75], Uniform01()) == 0.0
    # atom at 0: quantiles 0, 0, 0.5 - ... for m=4: q = 1/8, 3/8, 5/8, 7/8 -> 0, 0, 0.25, 0.75
    np.testing.assert_allclose(law_quantiles(HalfAtom(), 4), [0, 0, 0.25, 0.75])
    assert rel_w1([0, 0, 0.25, 0.75], HalfAtom()) == 0.0


def test_two_sample_metrics_exact():
    assert ks_two_sample([1, 2, 3, 4], [1, 2, 3, 4]) == 0.0
    assert ks_two_sample([1, 2], [3, 4]) == 1.0
    assert ks_two_sample([1, 2, 3, 4], [2.5, 5, 6, 7]) == pytest.approx(0.75)
    assert rel_w1_two_sample([1, 2], [2, 4], mean=3.0) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="same size"):
        rel_w1_two_sample([1, 2], [1], mean=1.0)
    with pytest.raises(ValueError, match="mean"):
        rel_w1_two_sample([1, 2], [1, 2], mean=0.0)


def test_metrics_reject_bad_samples():
    with pytest.raises(ValueError, match="samples"):
        ks_distance([], Uniform01())
    with pytest.raises(ValueError, match="finite"):
        rel_w1([np.nan], Uniform01())


def test_t_interval_matches_scipy():
    vals = [1.0, 2.0, 4.0]
    iv = t_interval(vals)
    lo, hi = stats.t.interval(0.95, 2, loc=np.mean(vals), scale=stats.sem(vals))
    assert iv.low == pytest.approx(lo) and iv.high == pytest.approx(hi)
    assert iv.contains(2.0) and not iv.contains(100.0)
    for bad in ([np.nan, 1.0], [np.inf, 1.0], []):
        with pytest.raises(ValueError, match="values must be"):
            t_interval(bad)
    with pytest.raises(ValueError, match=r"samples_per_draw\[0\]"):
        moment_intervals([[]])
    with pytest.raises(ValueError, match=r"samples_per_draw\[1\]"):
        moment_intervals([[1.0], [np.nan, 1.0]])
    huge = t_interval([1e308, 1e308])  # no overflow to nan/inf near the float64 limit
    assert huge.mean == 1e308 and huge.low == 1e308 and huge.high == 1e308
    one = t_interval([3.0])
    assert one.low is None and not one.contains(3.0)
    m = moment_intervals([np.array([1.0, 2.0]), np.array([2.0, 2.0])], orders=(1, 2))
    assert m[1].mean == pytest.approx(1.75) and m[2].mean == pytest.approx((2.5 + 4) / 2)


def test_histogram_area_one():
    x = np.random.default_rng(0).gamma(2.0, size=5000)
    for bins in (7, 50, np.array([0, 0.5, 3, 30.0])):
        h, e = density_histogram(x, bins=bins)
        assert np.sum(h * np.diff(e)) == pytest.approx(1.0)


def test_fit_power_law_exact():
    ns = np.array([100, 200, 400, 800])
    rate, c = fit_power_law(ns, 3.0 * ns ** -0.75)
    assert rate == pytest.approx(0.75) and c == pytest.approx(3.0)
    with pytest.raises(ValueError):
        fit_power_law([100, 100], [1, 2])


def test_drop_top():
    np.testing.assert_array_equal(drop_top([3, 1, 2], 1), [1, 2])
    with pytest.raises(ValueError, match="k must be"):
        drop_top([1, 2], 2)


def test_wishart_sample_close_to_stand_in_mp():
    rng = np.random.default_rng(1)
    n, p = 300, 600  # ratio y = n/p = 0.5
    z = rng.standard_normal((n, p))
    eig = np.linalg.eigvalsh(z @ z.T / p)
    law = ClosedFormMP(0.5)
    assert ks_distance(eig, law) < 0.02
    assert rel_w1(eig, law) < 0.02
    # a law with the wrong ratio is far
    assert ks_distance(eig, ClosedFormMP(0.2)) > 0.05


def test_histogram_outside_range_is_an_error_not_nan():
    x = np.array([5.0, 6.0, 7.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="no sample falls inside"):
            density_histogram(x, bins=4, range=(0.0, 1.0))
        h, e = density_histogram(np.array([0.1, 0.2, 3.0]), bins=2, range=(0.0, 1.0))
    assert np.sum(h * np.diff(e)) == pytest.approx(1.0)  # normalised over the two inside


def test_t_interval_lower_bound_clips_only_the_low_end():
    """A distance is >= 0: at three draws the t-interval of [0.001, 0.002, 0.1] reaches
    below 0 (the issue: check --json gave negative lows); lower=0 raises low to 0 and keeps
    the mean and the upper end."""
    vals = [0.001, 0.002, 0.1]
    free, kept = t_interval(vals), t_interval(vals, lower=0.0)
    lo, hi = stats.t.interval(0.95, 2, loc=np.mean(vals), scale=stats.sem(vals))
    assert free.low == pytest.approx(lo) and free.low < 0
    assert kept.low == 0.0 and kept.high == pytest.approx(hi) and kept.mean == free.mean
    high = t_interval([1.0, 1.1, 1.2], lower=0.0)  # above the bound: unchanged
    assert high.low == t_interval([1.0, 1.1, 1.2]).low > 0
    m = moment_intervals([np.array([0.0, 0.1]), np.array([0.0, 9.0]), np.array([0.0, 0.2])],
                         orders=(3,), lower=0.0)
    assert m[3].low == 0.0
    with pytest.raises(ValueError, match="lower"):
        t_interval(vals, lower=np.nan)
