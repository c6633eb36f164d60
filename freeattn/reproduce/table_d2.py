"""Table D.2 of Hayase & Karakida 2026: finite-size Gaussian equivalence at public model sizes.

For each row (a layer of a public model, :data:`freeattn.attention.PRESETS`) the true softmax
layer MHA^⊥(X) and its finite Gaussian equivalent n^{-1/2} MHA^G(X) are drawn with the same
Q/K/V/O weights (β = 1, d_O = d, fan-in Gaussian weights, X = sqrt(d)[I_n, 0]); all n
eigenvalues of both Grams are compared per draw by

* relative W₁ = mean |λ_(i)^softmax − λ_(i)^Gauss| / m, m the limiting mean
  (d_O/n)(e − 1) for independent K/V and MQA, (d_O/n)(e − 1 + n/d_K) for K = V;
* KS = sup_x |F_softmax(x) − F_Gauss(x)| between the two empirical CDFs.

Reported as in the paper (App. D, "Uncertainty conventions"): the mean over draws ± the
half-width t_{N−1, 0.975} s/sqrt(N) of the 95 % Student-t interval, s the sample standard
deviation (reported beside it, labelled), N = 10 draws by default.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from .. import _validation as v
from .._validation import ParameterError

__all__ = ["ROWS", "PAPER", "Stat", "RowResult", "reproduce_row", "reproduce_table",
           "draw_cost", "estimate_seconds"]

#: Table D.2 rows in the paper's order (names of :data:`freeattn.attention.PRESETS`).
ROWS = ("bert-base", "modernbert-large", "dinov3-l16", "llada-8b", "gpt3-175b", "falcon-7b",
        "kayyam-1.2b")

#: The paper's values: (rel. W₁ in %, its ± half-width), (KS, its ± half-width); 10 draws.
PAPER = {
    "bert-base": ((1.66, 0.23), (0.0109, 0.0010)),
    "modernbert-large": ((1.37, 0.21), (0.0052, 0.0005)),
    "dinov3-l16": ((2.82, 0.40), (0.0280, 0.0018)),
    "llada-8b": ((0.92, 0.06), (0.0022, 0.0001)),
    "gpt3-175b": ((0.62, 0.07), (0.0040, 0.0004)),
    "falcon-7b": ((1.92, 0.46), (0.0061, 0.0012)),
    "kayyam-1.2b": ((0.24, 0.01), (0.0020, 0.0001)),
}
PAPER_DRAWS = 10


@dataclass(frozen=True)
class Stat:
    """Mean over draws with the 95 % Student-t half-width (Table D.2's ±) and the sd.

    ``half_width`` and ``sd`` are None with one draw.
    """

    mean: float
    half_width: float | None
    sd: float | None
    draws: int
    values: tuple = field(default=(), repr=False)

    @classmethod
    def of(cls, values, confidence=0.95):
        """Mean, t half-width t_{N−1,(1+c)/2} s/sqrt(N) and sd s (ddof = 1) of ``values``."""
        from ..montecarlo.metrics import t_interval

        vals = np.asarray(values, dtype=float)
        iv = t_interval(vals, confidence)
        if vals.size < 2:
            return cls(iv.mean, None, None, 1, tuple(vals.tolist()))
        return cls(iv.mean, iv.high - iv.mean, float(vals.std(ddof=1)), int(vals.size),
                   tuple(vals.tolist()))

    def overlaps(self, mean, half_width):
        """Whether [mean ± half_width] meets this interval (no interval: False)."""
        if self.half_width is None:
            return False
        return abs(self.mean - mean) <= self.half_width + half_width

    def to_dict(self):
        return {"mean": self.mean, "half_width": self.half_width, "sd": self.sd,
                "draws": self.draws}


@dataclass(frozen=True)
class RowResult:
    """One reproduced row: ``rel_w1`` (in %) and ``ks`` statistics, the paper's values and
    whether both metrics agree (their 95 % intervals overlap)."""

    name: str
    config: object
    rel_w1: Stat
    ks: Stat
    seconds: float
    seed: int
    method: str = "reduced"

    @property
    def paper(self):
        return PAPER[self.name]

    @property
    def agrees(self):
        (w, dw), (k, dk) = self.paper
        return bool(self.rel_w1.overlaps(w, dw) and self.ks.overlaps(k, dk))

    def to_dict(self):
        (w, dw), (k, dk) = self.paper
        return {"row": self.name, "config": self.config.to_dict(),
                "rel_w1": dict(self.rel_w1.to_dict(), unit="%"),
                "ks": self.ks.to_dict(),
                "paper": {"rel_w1": {"mean": w, "half_width": dw, "unit": "%"},
                          "ks": {"mean": k, "half_width": dk}, "draws": PAPER_DRAWS},
                "agrees": self.agrees, "seconds": self.seconds, "seed": self.seed,
                "method": self.method}


def _row_name(name):
    if name not in PAPER:
        raise ParameterError("rows", f"rows must be among {ROWS}, got {name!r}")
    return name


def reproduce_row(name, draws=PAPER_DRAWS, seed=0, *, workers=None, scheduler=None,
                  progress=False, method="reduced"):
    """Reproduce one row of Table D.2.

    Parameters
    ----------
    name : str
        A row of :data:`ROWS` (e.g. ``'bert-base'``).
    draws : int >= 1, default 10
    seed : int >= 0, default 0
        Draw i uses ``SeedSequence(seed).spawn(draws)[i]`` (bit-identical whatever the
        workers or scheduler).
    workers : int, optional
        Worker processes (default all cores); ``scheduler``: a Dask address or Client.
    progress : bool
        Progress bar on stderr.
    method : {'reduced', 'direct'}, default 'reduced'
        How each draw is computed (:func:`freeattn.montecarlo.sample`): 'reduced' samples
        the same joint law of the two spectra as the literal construction 'direct' with
        less work (the Gaussian noise drawn through the values, W^O through the joint row
        space of both models' head outputs).

    Returns
    -------
    RowResult

    Raises
    ------
    ParameterError
        ('rows') for an unknown row; ValueError for bad ``draws``/``seed``/``workers``.
    MemoryError
        Before drawing, when one draw does not fit in the memory available.
    """
    from ..attention import MHAConfig
    from ..montecarlo.metrics import ks_two_sample, rel_w1_two_sample
    from ..montecarlo.runner import run_draws

    cfg = MHAConfig.preset(_row_name(name))
    draws = v.positive_integer("draws", draws)
    mean = cfg.table_d2_mean()
    t0 = time.perf_counter()
    results = run_draws(cfg.model("mha"), draws, seed, workers=workers, scheduler=scheduler,
                        gaussian=True, progress=progress, desc=name, method=method)
    seconds = time.perf_counter() - t0
    w1 = [100 * rel_w1_two_sample(r.softmax, r.gaussian, mean) for r in results]
    ks = [ks_two_sample(r.softmax, r.gaussian) for r in results]
    return RowResult(name, cfg, Stat.of(w1), Stat.of(ks), seconds, seed, method)


def reproduce_table(rows=None, draws=PAPER_DRAWS, seed=0, *, workers=None, scheduler=None,
                    progress=False, method="reduced"):
    """Reproduce several rows (default all of :data:`ROWS`); a list of :class:`RowResult`."""
    rows = ROWS if rows is None else tuple(_row_name(r) for r in rows)
    return [reproduce_row(r, draws, seed, workers=workers, scheduler=scheduler,
                          progress=progress, method=method) for r in rows]


def draw_cost(cfg):
    """Floating-point operations of one draw of the full layer (both models), an estimate.

    Per head and model: the scores Q_r K_rᵀ (2 n² d_K), the head output A_r V_r (2 n² d_V)
    and ~ 10 n² elementwise operations and normal draws; per model: C W^O (2 n h d_V d_O),
    the Gram (2 n² d_O, or less when d_O > n via the smaller side) and its eigenvalues
    (~ 10 n³ / 3 for the two-stage driver).
    """
    n, h, dk, dv, do = cfg.n, cfg.heads, cfg.d_k, cfg.d_v, cfg.d_o
    per_model = h * (2 * n * n * dk + 2 * n * n * dv + 10 * n * n) \
        + 2 * n * h * dv * do + 2 * n * n * do + 10 * n ** 3 / 3
    return 2 * per_model


def estimate_seconds(name, draws=PAPER_DRAWS, workers=1, reference=None):
    """Estimated wall time of a row: its :func:`draw_cost` at the rate of a measured row.

    Parameters
    ----------
    name : str
        Row to estimate.
    draws, workers : int
        Draws run ``workers`` at a time (one BLAS thread each).
    reference : RowResult, optional
        A measured row giving the rate (operations per second per worker); default: one
        BERT-base draw measured now.
    """
    from ..attention import MHAConfig

    cfg = MHAConfig.preset(_row_name(name))
    if reference is None:
        reference = reproduce_row("bert-base", 1, workers=1)
    rate = draw_cost(reference.config) * reference.rel_w1.draws / reference.seconds
    return draw_cost(cfg) / rate * math.ceil(draws / max(1, workers))
