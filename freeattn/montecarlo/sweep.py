"""Finite-size sweeps and the linearization threshold (Hayase, Collins & Karakida 2026; Hayase & Karakida 2026, App. D)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _validation as v
from .check import _seed_json, compare_draws
from .metrics import fit_power_law
from .runner import run_draws
from .samplers import AttentionModel, check_memory, draw_seed

__all__ = ["SweepResult", "LinearizationResult", "finite_size_sweep", "linearization_grid"]

_METRICS = ("softmax_ks", "softmax_rel_w1", "gaussian_ks", "gaussian_rel_w1",
            "pair_ks", "pair_rel_w1")


def _prepare(ns, exclude_top, seed, scheduler, models):
    """Validate what every cell needs before the first draw (ValueError/MemoryError)."""
    exclude_top = v.integer_at_least("exclude_top", exclude_top, 0)
    if exclude_top >= min(ns):
        raise ValueError(f"exclude_top must be an integer in [0, min(ns) - 1] = "
                         f"[0, {min(ns) - 1}], got {exclude_top}")
    if not isinstance(seed, np.random.SeedSequence):
        seed = v.integer_at_least("seed", seed, 0)
    if scheduler is None:
        for model in models:
            check_memory(model)
    return exclude_top, seed


def _row(law, model, draws, seed, workers, scheduler, exclude_top, progress, desc):
    results = run_draws(model, draws, seed, workers=workers, scheduler=scheduler,
                        gaussian=True, top_k=1, progress=progress, desc=desc)
    soft, gauss, pair = compare_draws(law, results, exclude_top=exclude_top, orders=())
    return {"softmax_ks": soft.ks, "softmax_rel_w1": soft.rel_w1,
            "gaussian_ks": gauss.ks, "gaussian_rel_w1": gauss.rel_w1,
            "pair_ks": pair.ks, "pair_rel_w1": pair.rel_w1}


@dataclass(frozen=True)
class SweepResult:
    """Distances per n and fitted power-law rates.

    ``rows``: list of dicts with ``n`` and the keys softmax_ks, softmax_rel_w1, gaussian_ks,
    gaussian_rel_w1, pair_ks, pair_rel_w1 (means over draws). ``rates``: for each metric,
    ``(rate, C)`` with distance ≈ C n^{−rate} (None if a distance was 0). ``settings``: beta,
    gamma_k, heads, draws, seed, exclude_top and the other model options of the sweep.
    """

    rows: list
    rates: dict
    settings: dict = None

    def to_dict(self):
        return {"rows": self.rows,
                "rates": {k: (None if r is None else {"rate": r[0], "prefactor": r[1]})
                          for k, r in self.rates.items()},
                "settings": self.settings}

    def table(self):
        head = f"{'n':>7s}" + "".join(f"{k:>17s}" for k in _METRICS)
        lines = [head] + [f"{r['n']:7d}" + "".join(f"{r[k]:17.5f}" for k in _METRICS)
                          for r in self.rows]
        lines.append(f"{'rate':>7s}" + "".join(
            f"{'-' if self.rates[k] is None else format(self.rates[k][0], '.3f'):>17s}"
            for k in _METRICS))
        return "\n".join(lines)


def finite_size_sweep(law, ns, *, beta, gamma_k, heads=1, draws=4, seed=0, workers=None,
                      scheduler=None, exclude_top=0, progress=False, **model_options):
    """Distance to ``law`` of the softmax and Gaussian models for several context lengths.

    Parameters
    ----------
    law : law object
        The limit law (it does not depend on n).
    ns : sequence of int
        Context lengths; each must give an integer d_K = γ_K n / h.
    beta, gamma_k, heads, **model_options
        Passed to :meth:`AttentionModel.from_ratios` for each n.
    draws, seed, workers, scheduler, exclude_top, progress
        As in :func:`freeattn.montecarlo.check`; cell i uses ``draw_seed(seed, i)``.

    Returns
    -------
    SweepResult
        With the least-squares power-law rate of each distance in n.

    Raises
    ------
    ValueError, MemoryError
        Before the first draw, for a bad parameter of any cell or a cell too big to draw.
    """
    ns = [v.integer_at_least("ns", n, 2) for n in ns]
    if len(set(ns)) < 2 or len(set(ns)) != len(ns):
        raise ValueError(f"ns must hold at least two distinct context lengths, got {ns}")
    draws = v.positive_integer("draws", draws)
    models = [AttentionModel.from_ratios(beta, n, gamma_k, heads, **model_options) for n in ns]
    exclude_top, seed = _prepare(ns, exclude_top, seed, scheduler, models)
    rows = []
    for i, (n, model) in enumerate(zip(ns, models)):
        row = _row(law, model, draws, draw_seed(seed, i), workers, scheduler, exclude_top,
                   progress, f"n={n}")
        rows.append(dict(n=n, **row))
    rates = {}
    for k in _METRICS:
        ds = [r[k] for r in rows]
        rates[k] = fit_power_law(ns, ds) if min(ds) > 0 else None
    settings = dict(beta=float(beta), gamma_k=float(gamma_k), heads=int(heads), draws=draws,
                    seed=_seed_json(seed), exclude_top=exclude_top,
                    **{k: val for k, val in model_options.items() if k != "x"})
    return SweepResult(rows, rates, settings)



@dataclass(frozen=True)
class LinearizationResult:
    """Softmax vs Gaussian distance to the law over a (β, n) grid.

    ``rows``: dicts with beta, n, beta_over_sqrt_log_n = β / sqrt(log n), the six distances
    of :class:`SweepResult`, ``ratio`` = softmax rel W₁ / Gaussian rel W₁ and ``exceeded``
    (ratio > factor). ``threshold``: for each n the smallest β of the grid where the ratio
    exceeds the factor (None if never), with that β / sqrt(log n). ``rates``: for each β
    (with >= 2 values of n) the fitted power-law decay rates in n of the softmax and
    Gaussian rel W₁; a softmax rate far below the Gaussian one means the softmax model is
    not approaching the prediction at these n. ``settings``: gamma_k, heads, draws, seed,
    exclude_top and the other model options of the grid.
    """

    rows: list
    factor: float
    threshold: dict
    rates: dict
    settings: dict = None

    def to_dict(self):
        return {"rows": self.rows, "factor": self.factor,
                "threshold": {str(n): t for n, t in self.threshold.items()},
                "rates": {str(b): r for b, r in self.rates.items()},
                "settings": self.settings}

    def table(self):
        lines = [f"{'beta':>6s}{'n':>7s}{'b/sqrt(ln n)':>13s}{'soft KS':>10s}"
                 f"{'soft relW1':>11s}{'gauss KS':>10s}{'gauss relW1':>12s}{'ratio':>9s}"]
        for r in self.rows:
            mark = "  <-- exceeds" if r["exceeded"] else ""
            lines.append(f"{r['beta']:6.3g}{r['n']:7d}{r['beta_over_sqrt_log_n']:13.3f}"
                         f"{r['softmax_ks']:10.4f}{r['softmax_rel_w1']:11.4f}"
                         f"{r['gaussian_ks']:10.4f}{r['gaussian_rel_w1']:12.4f}"
                         f"{r['ratio']:9.2f}{mark}")
        lines.append(f"ratio = softmax rel W1 / Gaussian rel W1 against the limit law; "
                     f"exceeds when > {self.factor:g}")
        for b, r in self.rates.items():
            lines.append(f"beta={b:g}: rel W1 decays like n^-rate, softmax rate "
                         f"{_fmt_rate(r['softmax_rel_w1'])}, Gaussian rate "
                         f"{_fmt_rate(r['gaussian_rel_w1'])}")
        for n, t in self.threshold.items():
            if t is None:
                lines.append(f"n={n}: softmax stays within {self.factor:g}x of the Gaussian "
                             f"model on this grid")
            else:
                lines.append(f"n={n}: leaves the prediction at beta={t['beta']:g} "
                             f"(beta/sqrt(ln n)={t['beta_over_sqrt_log_n']:.3f})")
        return "\n".join(lines)


def _fmt_rate(rate):
    return "-" if rate is None else f"{rate:.2f}"


def linearization_grid(law_for_beta, betas, ns, *, gamma_k, heads=1, draws=2, seed=0,
                       factor=10.0, workers=None, scheduler=None, exclude_top=0,
                       progress=False, **model_options):
    """Where the softmax spectrum leaves the Gaussian-equivalence prediction (Hayase, Collins & Karakida 2026).

    Parameters
    ----------
    law_for_beta : callable
        ``law_for_beta(beta)`` returns the limit law at β (e.g.
        ``lambda b: attention_law(b, gamma_k, heads)``).
    betas, ns : sequences
        Grid of inverse temperatures (> 0) and context lengths.
    factor : float >= 1, default 10
        A cell is marked when the softmax model's rel W₁ to the law exceeds ``factor``
        times the Gaussian model's (which measures the finite-size floor). The softmax
        model converges more slowly than the Gaussian one even at small β (at β = 1,
        γ_K = 1 its rel W₁ is about 7 times the Gaussian's for n = 200…800, both decaying
        like n^{-0.8}), hence the default 10.

    Returns
    -------
    LinearizationResult
        Rows in grid order (β outer, n inner); β / sqrt(log n) is reported because
        β ~ sqrt(log n) is the candidate breakdown scale. Cell i uses ``draw_seed(seed, i)``.

    Raises
    ------
    ValueError, MemoryError
        Before the first draw, for a bad parameter of any cell or a cell too big to draw.
    """
    betas = [float(v.positive("betas", b)) for b in betas]
    ns = [v.integer_at_least("ns", n, 2) for n in ns]
    if not betas or not ns:
        raise ValueError("betas and ns must be non-empty")
    if len(set(betas)) != len(betas):
        raise ValueError(f"betas must be distinct values, got {betas}")
    if len(set(ns)) != len(ns):
        raise ValueError(f"ns must be distinct values, got {ns}")
    factor = v.in_closed_interval("factor", factor, 1.0, math.inf)
    draws = v.positive_integer("draws", draws)
    # every law and model first, so that a bad cell fails before any draw runs
    laws = [law_for_beta(b) for b in betas]
    models = [[AttentionModel.from_ratios(b, n, gamma_k, heads, **model_options) for n in ns]
              for b in betas]
    exclude_top, seed = _prepare(ns, exclude_top, seed, scheduler,
                                 [m for row in models for m in row])
    rows = []
    cell = 0
    for b, law, row_models in zip(betas, laws, models):
        for n, model in zip(ns, row_models):
            row = _row(law, model, draws, draw_seed(seed, cell), workers, scheduler,
                       exclude_top, progress, f"beta={b:g} n={n}")
            cell += 1
            ratio = row["softmax_rel_w1"] / max(row["gaussian_rel_w1"], 1e-300)
            rows.append(dict(beta=b, n=n, beta_over_sqrt_log_n=b / math.sqrt(math.log(n)),
                             ratio=ratio, exceeded=bool(ratio > factor), **row))
    threshold = {}
    for n in ns:
        hit = [r for r in rows if r["n"] == n and r["exceeded"]]
        threshold[n] = None if not hit else {
            "beta": hit[0]["beta"], "beta_over_sqrt_log_n": hit[0]["beta_over_sqrt_log_n"]}
    rates = {}
    if len(set(ns)) >= 2:
        for b in betas:
            cells = [r for r in rows if r["beta"] == b]
            rates[b] = {}
            for k in ("softmax_rel_w1", "gaussian_rel_w1"):
                ds = [r[k] for r in cells]
                rates[b][k] = (fit_power_law([r["n"] for r in cells], ds)[0]
                               if min(ds) > 0 else None)
    settings = dict(gamma_k=float(gamma_k), heads=int(heads), draws=draws,
                    seed=_seed_json(seed), exclude_top=exclude_top,
                    **{k: val for k, val in model_options.items() if k != "x"})
    return LinearizationResult(rows, factor, threshold, rates, settings)
