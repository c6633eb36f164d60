"""Rates along the chain of Table 1: distances at several n, fitted slopes in log n.

Hayase & Karakida 2026 (arXiv 2610.10033), Table 1 and Lemmas 4.2–4.6.  For each n of a grid
and each draw, :func:`freeattn.montecarlo.chain.chain_draw` gives the distances between
consecutive models; :func:`chain_rates` fits log(distance) = a + b log n by least squares over
all (n, draw) pairs and reports b with its 95 % Student-t interval, beside the exponent that
the paper states for that step (:data:`freeattn.montecarlo.chain.STEPS`).

Verdicts: for a ``'rate'`` (the order the paper states, expected to be attained) the slope
*agrees* when the interval contains the exponent (and is *faster than stated* when the
interval lies below it: every control of Table 1 is an upper bound); for a ``'bound'`` it is
*within* the bound when the interval's lower end does not exceed the exponent.  A slope
whose interval lies above a stated exponent marks a step that has **not converged** at the
sizes of the grid (its distance falls more slowly than the proof's control).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _validation as v
from .chain import END_TO_END, STEPS, chain_draw, chain_model
from .samplers import draw_seed

__all__ = ["SlopeFit", "ChainResult", "fit_slope", "chain_rates", "DEFAULT_N_GRID"]

DEFAULT_N_GRID = (250, 500, 1000, 2000)
_METRICS = ("op", "frob", "ks", "w1", "dm2")


@dataclass(frozen=True)
class SlopeFit:
    """Least-squares slope b of log y = a + b log n with its confidence interval."""

    slope: float
    low: float
    high: float
    intercept: float
    points: int

    @property
    def half_width(self):
        return (self.high - self.low) / 2

    def to_dict(self):
        return {"slope": self.slope, "low": self.low, "high": self.high,
                "intercept": self.intercept, "points": self.points}


def fit_slope(ns, values, confidence=0.95):
    """Fit log(values) = a + b log(ns) by ordinary least squares; Student-t interval for b.

    Parameters
    ----------
    ns, values : array_like of equal length (>= 3), ns with >= 2 distinct values, values > 0
    confidence : float in (0, 1)

    Returns
    -------
    SlopeFit
        b ± t_{(1+c)/2, N−2} se(b), se(b) = s/sqrt(Σ (x − x̄)²), s² the residual variance.

    Raises
    ------
    ValueError
        For fewer than 3 points, fewer than 2 distinct n, or a value <= 0.
    """
    from scipy.stats import t as student_t  # ~1 s to import: loaded when a fit is made

    confidence = v.in_open_interval("confidence", confidence, 0.0, 1.0)
    x = np.log(np.asarray(ns, dtype=float))
    y = np.asarray(values, dtype=float)
    if x.shape != y.shape or x.size < 3 or np.unique(x).size < 2:
        raise ValueError("need >= 3 points at >= 2 distinct n for a slope with an interval")
    if not np.all(np.isfinite(y)) or np.any(y <= 0):
        raise ValueError("values must be finite and > 0 for a fit in log scale")
    y = np.log(y)
    xm = x - x.mean()
    sxx = float(xm @ xm)
    b = float(xm @ (y - y.mean())) / sxx
    a = float(y.mean() - b * x.mean())
    resid = y - a - b * x
    dof = x.size - 2
    s = math.sqrt(float(resid @ resid) / dof) if dof > 0 else float("nan")
    hw = float(student_t.ppf((1 + confidence) / 2, dof)) * s / math.sqrt(sxx)
    return SlopeFit(slope=b, low=b - hw, high=b + hw, intercept=a, points=int(x.size))


@dataclass(frozen=True)
class ChainResult:
    """Distances along the chain on an n grid, the fitted slopes and the verdicts.

    Attributes
    ----------
    beta, gamma_k : float
    heads, draws, seed : int
    ns : tuple of int
    values : dict
        step → metric → list over ns of lists over draws.
    fits : dict
        step → metric → SlopeFit (metrics with all values > 0).
    ranks : list
        Numerical rank of Y^f − Y^f P^⊥_⊕ per (n, draw) (Lemma 4.2: at most h).
    """

    beta: float
    gamma_k: float
    heads: int
    draws: int
    seed: int
    ns: tuple
    values: dict
    fits: dict
    ranks: list

    def verdicts(self):
        """step → metric → dict(exponent, kind, statement, slope, low, high, verdict).

        verdict, for a stated rate: ``'agrees'`` (the interval contains the exponent),
        ``'not converged'`` (the interval lies above it: the distance falls more slowly than
        stated) or ``'faster than stated'`` (below it: the paper's O-bound holds with room);
        for a bound: ``'within bound'`` (the interval's lower end <= exponent) or
        ``'not converged'``.
        """
        out = {}
        for step in STEPS:
            out[step.name] = {}
            for metric, (expo, kind, statement) in step.rates.items():
                fit = self.fits[step.name].get(metric)
                if fit is None:
                    continue
                if kind == "rate":
                    ok = fit.low <= expo <= fit.high
                    verdict = "agrees" if ok else ("not converged" if fit.low > expo
                                                   else "faster than stated")
                else:
                    verdict = "within bound" if fit.low <= expo else "not converged"
                out[step.name][metric] = {"exponent": expo, "kind": kind,
                                          "statement": statement, **fit.to_dict(),
                                          "verdict": verdict}
        return out

    @classmethod
    def from_dict(cls, data):
        """Rebuild a result from :meth:`to_dict` output (the fits are recomputed from the
        stored distances, the verdicts from the current :data:`STEPS`)."""
        ns = tuple(int(n) for n in data["ns"])
        values = {s: {m: [list(map(float, row)) for row in per_n] for m, per_n in d.items()}
                  for s, d in data["values"].items()}
        return cls(beta=float(data["beta"]), gamma_k=float(data["gamma_k"]),
                   heads=int(data["heads"]), draws=int(data["draws"]), seed=int(data["seed"]),
                   ns=ns, values=values, fits=_fits(ns, values), ranks=data["ranks"])

    def to_dict(self):
        return {"beta": self.beta, "gamma_k": self.gamma_k, "heads": self.heads,
                "draws": self.draws, "seed": self.seed, "ns": list(self.ns),
                "values": self.values,
                "fits": {s: {m: f.to_dict() for m, f in d.items()} for s, d in self.fits.items()},
                "verdicts": self.verdicts(), "ranks": self.ranks,
                "steps": [{"name": s.name, "pair": list(s.pair), "lemma": s.lemma,
                           "control": s.control} for s in STEPS + (END_TO_END,)]}

    def table(self):
        """Plain-text table: per step and metric, the mean distance at each n, the fitted
        slope [95 %] and the paper's exponent with the verdict."""
        head = f"{'step':14s}{'metric':7s}" + "".join(f"{'n=' + str(n):>11s}" for n in self.ns)
        lines = [f"Chain of Table 1 (Hayase & Karakida 2026): beta = {self.beta:g}, "
                 f"gamma_K = {self.gamma_k:g}, h = {self.heads}, {self.draws} draws per n, "
                 f"seed {self.seed}",
                 head + f"{'slope [95%]':>24s}  paper   verdict"]
        verdicts = self.verdicts()
        for step in STEPS + (END_TO_END,):
            for metric in _METRICS:
                vals = self.values[step.name].get(metric)
                if vals is None:
                    continue
                row = f"{step.name:14s}{metric:7s}" + "".join(
                    f"{np.mean(x):11.4g}" for x in vals)
                fit = self.fits[step.name].get(metric)
                if fit is not None:
                    row += f"{fit.slope:>10.3f} [{fit.low:6.3f},{fit.high:6.3f}]"
                ver = verdicts.get(step.name, {}).get(metric)
                if ver is not None:
                    sign = "=" if ver["kind"] == "rate" else "<="
                    row += f"  {sign}{ver['exponent']:+.1f}  {ver['verdict']}"
                lines.append(row)
        top = max(max(r) for r in self.ranks)
        lines.append(f"rank of Y^f - Y^f P^perp over all draws: at most {top} "
                     f"(Lemma 4.2: <= h = {self.heads})")
        return "\n".join(lines)


def chain_rates(beta, ns=DEFAULT_N_GRID, *, gamma_k=1.0, heads=2, draws=4, seed=0,
                progress=None):
    """Distances between consecutive models of Table 1 on an n grid, with fitted slopes.

    Parameters
    ----------
    beta : float in [1e-6, 20]
    ns : sequence of int >= 2
        At least two distinct sizes; d_K = γ_K n/h must be an integer within 0.5 % and
        exceed 4β².
    gamma_k : float > 0, default 1
    heads : int >= 1, default 2
    draws : int >= 1, default 4
        Draws per n (at least 3 points in all for an interval).
    seed : int >= 0
        Draw i at size n uses ``draw_seed(SeedSequence(seed, spawn_key=(n,)), i)``.
    progress : callable, optional
        Called as ``progress(n, i)`` after each draw.

    Returns
    -------
    ChainResult

    Raises
    ------
    ParameterError
        For a parameter outside its domain.
    """
    seed = v.integer_at_least("seed", seed, 0)
    draws = v.positive_integer("draws", draws)
    ns = tuple(int(v.integer_at_least("ns", n, 2)) for n in ns)
    if len(set(ns)) < 2:
        raise v.ParameterError("ns", "ns must hold at least two distinct sizes")
    if len(ns) * draws < 3:
        raise v.ParameterError("draws", "need at least 3 draws in all for a slope interval")
    models = [chain_model(beta, n, gamma_k, heads) for n in ns]  # validate all first
    for m in models:
        if m.d_k <= 4 * m.beta ** 2:
            raise v.ParameterError("gamma_k", f"d_K = {m.d_k} at n = {m.n} must exceed "
                                              f"4 beta^2 = {4 * m.beta ** 2:.4g}")
    names = [s.name for s in STEPS + (END_TO_END,)]
    values = {s: {} for s in names}
    ranks = []
    for m in models:
        base = np.random.SeedSequence(seed, spawn_key=(m.n,))
        rows = []
        for i in range(draws):
            rows.append(chain_draw(m, draw_seed(base, i)))
            if progress is not None:
                progress(m.n, i)
        ranks.append([r.rank_normalizers for r in rows])
        for s in names:
            for metric in rows[0].steps[s]:
                values[s].setdefault(metric, []).append([r.steps[s][metric] for r in rows])
    return ChainResult(beta=float(models[0].beta), gamma_k=float(gamma_k), heads=int(heads),
                       draws=draws, seed=seed, ns=ns, values=values, fits=_fits(ns, values),
                       ranks=ranks)


def _fits(ns, values):
    """step → metric → SlopeFit over all (n, draw) points (metrics with all values > 0)."""
    fits = {}
    for s, per_metric in values.items():
        fits[s] = {}
        for metric, per_n in per_metric.items():
            xs = [n for n, row in zip(ns, per_n) for _ in row]
            ys = [y for row in per_n for y in row]
            if all(y > 0 for y in ys):
                fits[s][metric] = fit_slope(xs, ys)
    return fits
