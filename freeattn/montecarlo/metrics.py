"""Distances between eigenvalue samples and laws (Hayase & Karakida 2026, App. D).

A *law* is any object with vectorised ``cdf`` (atoms included, right-continuous), ``ppf``,
``pdf``, ``mean()``, ``moment(k)``, ``support()`` and ``atoms()`` -> [(location, mass)].
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _validation as v

__all__ = [
    "ks_distance",
    "ks_two_sample",
    "rel_w1",
    "law_quantiles",
    "rel_w1_two_sample",
    "drop_top",
    "MomentInterval",
    "t_interval",
    "moment_intervals",
    "density_histogram",
    "fit_power_law",
]


def _sample(name, samples):
    """Sorted finite real values (any shape, flattened); ParameterError naming ``name`` for
    an empty or non-finite sample, ParameterTypeError for strings/booleans (numbers only)."""
    try:
        flat = np.ravel(samples)
    except (TypeError, ValueError):
        raise v.ParameterError(name, f"{name} must be an array of eigenvalues") from None
    if flat.size == 0:
        raise v.ParameterError(name, f"{name} must be a non-empty array of eigenvalues")
    x = v.real_vector(name, flat)
    return np.sort(x)


def _atoms(law):
    atoms = getattr(law, "atoms", None)
    return [(float(a), float(p)) for a, p in (atoms() if atoms is not None else [])]


def _atom_mass_at(points, atoms):
    mass = np.zeros_like(points)
    for loc, p in atoms:
        mass[np.abs(points - loc) <= 1e-12 * max(1.0, abs(loc))] += p
    return mass


def ks_distance(samples, law):
    """Kolmogorov–Smirnov distance sup_x |F_n(x) − F(x)| between a sample and a law.

    Parameters
    ----------
    samples : array_like, shape (m,)
        Eigenvalues (any order; ties allowed).
    law : law object
        ``law.cdf`` must include atoms; ``law.atoms()`` gives them so that the left limits
        F(x−) = F(x) − mass at x are used.

    Returns
    -------
    float in [0, 1]. The supremum is taken over the jump points of both CDFs, from both
    sides: at each distinct sample value and at each atom of the law.

    Raises
    ------
    ValueError
        If ``samples`` is empty or not finite.
    """
    x = _sample("samples", samples)
    m = x.size
    atoms = _atoms(law)
    pts = np.unique(np.concatenate([x, np.array([a for a, _ in atoms], dtype=float)]))
    fe_right = np.searchsorted(x, pts, side="right") / m
    fe_left = np.searchsorted(x, pts, side="left") / m
    f_right = np.clip(np.asarray(law.cdf(pts), dtype=float), 0.0, 1.0)
    f_left = np.clip(f_right - _atom_mass_at(pts, atoms), 0.0, 1.0)
    return float(max(np.max(np.abs(fe_right - f_right)), np.max(np.abs(fe_left - f_left))))


def ks_two_sample(a, b):
    """Two-sample KS distance sup_x |F_a(x) − F_b(x)| between empirical CDFs.

    The statistic of :func:`scipy.stats.ks_2samp` (its p-value, not needed here, is taken by
    the cheap asymptotic method).  Returns a float in [0, 1].
    """
    from scipy.stats import ks_2samp  # scipy.stats takes ~1 s to import (CLI start-up)

    a = _sample("a", a)
    b = _sample("b", b)
    return float(ks_2samp(a, b, method="asymp").statistic)


def _positive_mean(name, value):
    return v.positive(name, float(value))


def law_quantiles(law, m):
    """The law's quantiles F^{-1}((i − 1/2)/m), i = 1..m (shape (m,))."""
    m = v.positive_integer("m", m)
    return np.asarray(law.ppf((np.arange(1, m + 1) - 0.5) / m), dtype=float)


def rel_w1(samples, law, mean=None, quantiles=None):
    """Relative Wasserstein-1 distance between a sample and a law (Hayase & Karakida 2026, App. D).

    ``mean(|λ_(i) − F^{-1}((i − 1/2)/m)|) / mean``: ordered eigenvalues against the law's
    quantiles at the mid-points of m equal cells, divided by the limit mean (``law.mean()``
    unless ``mean`` is given). ``quantiles`` may pass ``law_quantiles(law, m)`` computed
    once for many samples of the same size m.

    Raises
    ------
    ValueError
        If the sample is empty or not finite, or the mean is not > 0.
    """
    x = _sample("samples", samples)
    if quantiles is None:
        quantiles = law_quantiles(law, x.size)
    elif np.shape(quantiles) != x.shape:
        raise ValueError(f"quantiles must have shape {x.shape}, got {np.shape(quantiles)}")
    mean = _positive_mean("mean", law.mean() if mean is None else mean)
    return float(np.mean(np.abs(x - quantiles)) / mean)


def rel_w1_two_sample(a, b, mean):
    """Relative W₁ between two samples of equal size: mean |a_(i) − b_(i)| / mean.

    This is Table D.2's metric between softmax and Gaussian eigenvalues of one draw, with
    ``mean`` the limiting mean (Hayase & Karakida 2026, App. D); the W₁ distance of the two empirical laws is
    :func:`scipy.stats.wasserstein_distance` (for equal sizes the mean gap of the ordered
    samples). Raises ValueError if the sizes differ.
    """
    from scipy.stats import wasserstein_distance  # ~1 s import (see ks_two_sample)

    a = _sample("a", a)
    b = _sample("b", b)
    if a.size != b.size:
        raise ValueError(f"a and b must have the same size, got {a.size} and {b.size}")
    return float(wasserstein_distance(a, b) / _positive_mean("mean", mean))


def drop_top(samples, k):
    """Sorted ``samples`` without the ``k`` largest values (outliers), k >= 0."""
    k = v.integer_at_least("k", k, 0)
    x = _sample("samples", samples)
    if k >= x.size:
        raise ValueError(f"k must be smaller than the sample size {x.size}, got {k}")
    return x[: x.size - k]


@dataclass(frozen=True)
class MomentInterval:
    """Mean over draws with a Student-t confidence interval.

    ``low``/``high`` are None with fewer than two draws (no interval can be formed).
    """

    mean: float
    low: float | None
    high: float | None
    values: tuple
    confidence: float = 0.95

    def contains(self, value):
        """True if ``value`` lies in [low, high] (False when there is no interval)."""
        return self.low is not None and self.low <= value <= self.high

    def to_dict(self):
        return {"mean": self.mean, "low": self.low, "high": self.high,
                "values": list(self.values), "confidence": self.confidence}


def t_interval(values, confidence=0.95, lower=None):
    """Student-t interval for the mean of i.i.d. ``values`` (one per draw).

    mean ± t_{(1+c)/2, k−1} s / sqrt(k), s the sample standard deviation (ddof = 1).
    Returns a :class:`MomentInterval`; low/high are None when k < 2.

    Parameters
    ----------
    values : array_like
        One value per draw (finite reals).
    confidence : float in (0, 1), default 0.95
    lower : float, optional
        The smallest value the quantity can take (0 for a distance or a moment of a
        non-negative spectrum): ``low`` is raised to it.  The interval then holds the same
        admissible means, so its coverage is unchanged; without it a distance's interval
        reaches below 0 at a few draws.

    Raises
    ------
    ValueError
        If ``values`` is empty or not finite, or ``confidence`` is not in (0, 1).
    """
    confidence = v.in_open_interval("confidence", confidence, 0.0, 1.0)
    if lower is not None:
        lower = v.finite_real("lower", lower)
    vals = np.ravel(values)
    if vals.size == 0:
        raise v.ParameterError("values", "values must be non-empty")
    vals = v.real_vector("values", vals)  # finite reals
    mean = float(np.mean(vals / 2) * 2)  # halves first: no overflow near the float64 limit
    if vals.size < 2:
        return MomentInterval(mean, None, None, tuple(vals.tolist()), confidence)
    from scipy.stats import t as student_t  # ~1 s import (see ks_two_sample)

    big = float(np.max(np.abs(vals)))
    scale = big if big > 1e150 else 1.0  # values near the float64 limit: no overflow in sd
    sd = float((vals / scale).std(ddof=1)) * scale
    if sd == 0:  # scipy needs scale > 0; equal values give a zero-width interval
        return MomentInterval(mean, mean, mean, tuple(vals.tolist()), confidence)
    low, high = student_t.interval(confidence, vals.size - 1, loc=mean,
                                   scale=sd / math.sqrt(vals.size))
    if lower is not None:
        low = max(float(low), lower)
    return MomentInterval(mean, float(low), float(high), tuple(vals.tolist()), confidence)


def moment_intervals(samples_per_draw, orders=(1, 2, 3), confidence=0.95, lower=None):
    """Empirical moments m_k = mean(λ^k) per draw and their t-intervals over draws.

    Parameters
    ----------
    samples_per_draw : sequence of 1-d arrays
        Eigenvalues of each draw.
    orders : sequence of int >= 1
    confidence : float in (0, 1), default 0.95
    lower : float, optional
        Passed to :func:`t_interval` (0 for the moments of a non-negative spectrum: every
        order's mean is then >= 0).

    Returns
    -------
    dict {k: MomentInterval}

    Raises
    ------
    ValueError
        If there is no draw, a draw is empty or not finite, or an order is not >= 1.
    """
    draws = [np.asarray(s, dtype=float).ravel() for s in samples_per_draw]
    if not draws:
        raise ValueError("samples_per_draw must hold at least one draw")
    for i, s in enumerate(draws):
        if s.size == 0 or not np.all(np.isfinite(s)):
            raise ValueError(f"samples_per_draw[{i}] must be a non-empty array of finite "
                             f"eigenvalues")
    out = {}
    for k in orders:
        k = v.positive_integer("orders", k)
        out[k] = t_interval([float(np.mean(s ** k)) for s in draws], confidence, lower)
    return out


def density_histogram(samples, bins=60, range=None):
    """Density-normalised histogram: heights h_i with sum(h_i * width_i) == 1
    (:func:`numpy.histogram` with ``density=True``; samples outside ``range`` are left out).

    Parameters
    ----------
    samples : array_like
    bins : int or sequence of edges
    range : (float, float), optional

    Returns
    -------
    heights : ndarray, shape (nbins,)
    edges : ndarray, shape (nbins + 1,)
    """
    x = _sample("samples", samples)
    with np.errstate(invalid="raise", divide="raise"):
        try:
            return np.histogram(x, bins=bins, range=range, density=True)
        except FloatingPointError:  # 0/0: numpy would warn and return NaN heights
            raise ValueError("no sample falls inside the histogram range") from None


def fit_power_law(ns, distances):
    """Least-squares fit of log distance = log C − rate · log n.

    Returns ``(rate, C)``: the distance decays like C n^{−rate}. Needs at least two
    distinct n and positive distances, else ValueError.
    """
    ns = np.asarray(ns, dtype=float)
    ds = np.asarray(distances, dtype=float)
    if ns.size != ds.size or np.unique(ns).size < 2:
        raise ValueError("ns and distances must have equal length with >= 2 distinct n")
    if np.any(ns <= 0) or np.any(ds <= 0):
        raise ValueError("ns and distances must be > 0 for a power-law fit")
    slope, intercept = np.polyfit(np.log(ns), np.log(ds), 1)
    return float(-slope), float(math.exp(intercept))
