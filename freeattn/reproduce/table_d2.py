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

import concurrent.futures as cf
import math
import os
import time
from dataclasses import dataclass, field

import numpy as np

from .. import _validation as v
from .._validation import ParameterError
from ..attention import MHAConfig
from ..montecarlo.samplers import AttentionModel
from ..montecarlo.metrics import ks_two_sample, rel_w1_two_sample
from ..montecarlo.runner import run_draws
from ..montecarlo.samplers import _output_rank
from ..montecarlo._blas import single_threaded_blas
from ..montecarlo._lapack import eigvalsh
from ..montecarlo.runner import _start_method
from ..montecarlo.metrics import t_interval

__all__ = ["ROWS", "PAPER", "Stat", "RowResult", "reproduce_row", "reproduce_table",
           "draw_cost", "draw_work", "Rates", "measure_rates", "draw_seconds",
           "estimate_seconds"]

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
    precision: str = "float64"

    @property
    def paper(self):
        return PAPER[self.name]

    @property
    def agrees(self):
        """True/False: whether both 95 % intervals overlap the paper's; None when there is no
        interval to compare (fewer than 2 draws): undecided, neither agreement nor not.

        An interval is used as computed: its lower end may lie below 0 for a distance (KS,
        W₁) with few draws; it is not clipped."""
        if self.rel_w1.half_width is None or self.ks.half_width is None:
            return None
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
                "method": self.method, "precision": self.precision}


def _row_name(name):
    if name not in PAPER:
        raise ParameterError("rows", f"rows must be among {ROWS}, got {name!r}")
    return name


def reproduce_row(name, draws=PAPER_DRAWS, seed=0, *, workers=None, scheduler=None,
                  progress=False, method="reduced", precision="float64"):
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
    precision : {'float64', 'float32'}, default 'float64'
        Arithmetic of the draws: float64 as in the paper; float32 (with 'reduced') is
        1.2 to 2.1 times faster and moves rel. W₁ by ~1e-5 percentage points and KS not at all on
        the rows measured (docs/table-d2.md).

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
    cfg = MHAConfig.preset(_row_name(name))
    draws = v.positive_integer("draws", draws)
    mean = cfg.table_d2_mean()
    t0 = time.perf_counter()
    results = run_draws(AttentionModel.from_config(cfg, "mha"), draws, seed, workers=workers,
                        scheduler=scheduler,
                        gaussian=True, progress=progress, desc=name, method=method,
                        precision=precision)
    seconds = time.perf_counter() - t0
    w1 = [100 * rel_w1_two_sample(r.softmax, r.gaussian, mean) for r in results]
    ks = [ks_two_sample(r.softmax, r.gaussian) for r in results]
    return RowResult(name, cfg, Stat.of(w1), Stat.of(ks), seconds, seed, method, precision)


def reproduce_table(rows=None, draws=PAPER_DRAWS, seed=0, *, workers=None, scheduler=None,
                    progress=False, method="reduced", precision="float64"):
    """Reproduce several rows (default all of :data:`ROWS`); a list of :class:`RowResult`."""
    rows = ROWS if rows is None else tuple(_row_name(r) for r in rows)
    return [reproduce_row(r, draws, seed, workers=workers, scheduler=scheduler,
                          progress=progress, method=method, precision=precision) for r in rows]


def draw_work(cfg, method="reduced"):
    """The work of one draw of the full layer (softmax and Gaussian model) by kind of step.

    Returns a dict: ``gemm_flops`` (matrix products, factorisations), ``softmax_elements``
    (entries of the per-head n × n score matrices: max, shift, exp, row sum), ``normals``
    (standard normal variates) and ``eig_n3`` (Σ n³ over the eigenvalue problems, two n × n
    Grams). Counts follow :func:`freeattn.montecarlo.sample` step by step for ``method``.
    """
    n, h, hkv, dk, dv, do = cfg.n, cfg.heads, cfg.kv_heads, cfg.d_k, cfg.d_v, cfg.d_o
    tied = cfg.sharing == "tied_kv"
    p = h * dv
    weights = n * (h + hkv) * dk + (0 if tied else n * hkv * dv)
    tri = 0.5625  # _times_lower: 8 column blocks of a lower-triangular factor, (8+1)/16
    if method == "direct":
        gemm = 2 * h * n * n * dk + 2 * 2 * h * n * n * dv  # scores; A_r V_r, both models
        gemm += 2 * (2 * n * p * do + n * n * do)           # C W^O and its Gram (SYRK)
        return {"gemm_flops": float(gemm), "softmax_elements": float(h * n * n),
                "normals": float(weights + p * do + h * n * n), "eig_n3": 2.0 * n ** 3,
                "noise_elements": float(h * n * n)}
    k = min(n, dv)
    gemm = 2 * h * n * n * (dk + dv)                           # scores, E_r V_r (softmax)
    gemm += 2 * hkv * n * dk * dv + 2 * hkv * n * dv * dv      # K_rᵀ V_r, QR of V_r
    gemm += 2 * h * n * dv * (k + dk)                          # Z_r R_r, Q_r (K_rᵀ V_r)
    r = _output_rank(n, 2, p, do)
    if r < p:  # joint row space: Gram of B, Cholesky, then F_m L
        w = min(r, do)
        gemm += r * r * p + r ** 3 / 3
        lower = tri if do >= r else 1.0
        gemm += lower * 2 * n * n * (n if do >= r else w) + lower * 2 * n * r * w
        gemm += 2 * n * n * w
        normals = weights + h * n * k + (r * r / 2 if do >= r else r * do)
    else:
        w = min(p, do)
        gemm += 2 * ((tri if do >= p else 1.0) * 2 * n * p * w + n * n * w)
        normals = weights + h * n * k + (p * p / 2 if do >= p else p * do)
    return {"gemm_flops": float(gemm), "softmax_elements": float(h * n * n),
            "normals": float(normals), "eig_n3": 2.0 * n ** 3, "noise_elements": 0.0}


def draw_cost(cfg, method="reduced"):
    """Floating-point operations of one draw (both models), for ordering rows: the GEMM
    flops of :func:`draw_work`, ~10 flops per softmax entry and per normal, and
    ~10 n³/3 per eigenvalue problem (two-stage driver)."""
    w = draw_work(cfg, method)
    return (w["gemm_flops"] + 10 * (w["softmax_elements"] + w["normals"]
                                    + w["noise_elements"]) + 10 * w["eig_n3"] / 3)


@dataclass(frozen=True)
class Rates:
    """Speeds of this machine for the steps of a draw, measured with BLAS on one thread in
    ``workers`` processes at once (so that they share the cores and memory bandwidth as the
    draws of a run do), at the load of the moment.

    gemm_flops_per_s : float64 matrix products (1024 × 2048 × 1024); softmax_s : seconds per
    score entry (max, shift, exp, row sum, over a 2 × 1024 × 1024 stack); normal_s : seconds per
    standard normal; noise_s : seconds per entry of the 'direct' Gaussian noise arithmetic;
    eig_s_per_n3 : seconds / n³ of the eigenvalues of an n = 1024 Gram (freeattn's driver).
    """

    gemm_flops_per_s: float
    softmax_s: float
    normal_s: float
    noise_s: float
    eig_s_per_n3: float
    workers: int = 1
    load: float | None = None

    def to_dict(self):
        return {k: getattr(self, k) for k in ("gemm_flops_per_s", "softmax_s", "normal_s",
                                              "noise_s", "eig_s_per_n3", "workers", "load")}


def _median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def _measure_rates(_=None, repeat=3):
    """One process's rates (BLAS pinned to one thread, as in a draw); medians of ``repeat``
    timings (not the best: on a shared machine the best is a lucky moment)."""
    rng = np.random.default_rng(0)
    m = 1024
    with single_threaded_blas():
        a, b = rng.standard_normal((m, 2 * m)), rng.standard_normal((2 * m, m))
        t_gemm = _median_time(lambda: a @ b, repeat)
        e = rng.standard_normal((2, m, m))

        def softmax():
            x = e.copy()
            x -= x.max(axis=-1, keepdims=True)
            np.exp(x, out=x)
            x.sum(axis=-1, keepdims=True)

        copy = _median_time(lambda: e.copy(), repeat)
        t_soft = max(_median_time(softmax, repeat) - copy, 0.0)
        out = np.empty(2 * m * m)
        t_norm = _median_time(lambda: rng.standard_normal(out=out), repeat)

        def noise():
            y = out.copy()
            y *= 0.5
            y += out
            y *= 0.25

        t_noise = max(_median_time(noise, repeat) - copy, 0.0)
        g = a[:, :m] @ a[:, :m].T
        t_eig = _median_time(lambda: eigvalsh(g), 3)
    return (4 * m ** 3 / t_gemm, t_soft / (2 * m * m), t_norm / (2 * m * m),
            t_noise / (2 * m * m), t_eig / m ** 3)


def measure_rates(workers=1):
    """:class:`Rates` of this machine now, measured in ``workers`` processes at once (a few
    seconds; medians of repeated timings); the means over the processes."""
    workers = v.positive_integer("workers", workers)
    if workers == 1:
        vals = [_measure_rates()]
    else:

        with cf.ProcessPoolExecutor(max_workers=workers, mp_context=_start_method(None)) as pool:
            vals = list(pool.map(_measure_rates, range(workers)))
    mean = np.mean(np.array(vals), axis=0)
    try:
        load = os.getloadavg()[0]
    except OSError:  # pragma: no cover
        load = None
    return Rates(*[float(x) for x in mean], workers=workers, load=load)


def draw_seconds(cfg, rates, method="reduced"):
    """Estimated seconds of one draw of ``cfg`` at ``rates`` (:func:`draw_work`)."""
    w = draw_work(cfg, method)
    return (w["gemm_flops"] / rates.gemm_flops_per_s + w["softmax_elements"] * rates.softmax_s
            + w["normals"] * rates.normal_s + w["noise_elements"] * rates.noise_s
            + w["eig_n3"] * rates.eig_s_per_n3)


def estimate_seconds(name, draws=PAPER_DRAWS, workers=1, rates=None, method="reduced"):
    """Estimated wall time of a row here: ceil(draws / workers) draws one after the other,
    each :func:`draw_seconds` at ``rates`` (default: :func:`measure_rates` now, in
    ``workers`` processes).

    The per-step rates are measured, the counts are exact; what the model leaves out
    (memory traffic of the large arrays, Python overhead, other users of the machine
    changing their load) is measured in docs/table-d2.md by setting estimates beside the
    times of full rows.
    """
    cfg = MHAConfig.preset(_row_name(name))
    workers = v.positive_integer("workers", workers)
    draws = v.positive_integer("draws", draws)
    if rates is None:
        rates = measure_rates(workers)
    waves = math.ceil(draws / min(workers, draws))
    return draw_seconds(cfg, rates, method) * waves
