"""The arrival-time bootstrap (scipy.stats.bootstrap, percentile method) against the exact
bootstrap distribution of a three-draw case, enumerated by hand."""
import itertools

import numpy as np
import pytest

from freeattn.readout.finite import (FeatureSpectrum, bootstrap_arrival_interval,
                                     mean_curve_arrival)


def _spectra():
    rng = np.random.default_rng(3)
    out = []
    for scale in (0.5, 1.0, 3.0):
        q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
        out.append(FeatureSpectrum(ell=scale * np.array([0.2, 0.7, 1.1, 2.0]), u=q, p=4))
    return out


def test_percentile_interval_is_the_exact_bootstrap_extremes():
    specs, y = _spectra(), np.ones(4)
    times = [mean_curve_arrival([specs[i] for i in idx], y, 0.1)
             for idx in itertools.product(range(3), repeat=3)]
    # each of the 27 ordered resamples has probability 1/27 > 2.5 %: the exact 2.5th and
    # 97.5th percentiles are the smallest and largest arrival times
    lo, hi = bootstrap_arrival_interval(specs, y, 0.1, resamples=2000, seed=1)
    assert lo == pytest.approx(min(times), rel=1e-12)
    assert hi == pytest.approx(max(times), rel=1e-12)
    assert lo <= mean_curve_arrival(specs, y, 0.1) <= hi


def test_seeded_and_reproducible():
    specs, y = _spectra(), np.ones(4)
    a = bootstrap_arrival_interval(specs, y, 0.1, resamples=200, seed=5)
    assert a == bootstrap_arrival_interval(specs, y, 0.1, resamples=200, seed=5)


def test_resamples_validated():
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_arrival_interval(_spectra(), np.ones(4), resamples=0)
