"""Verdicts: compare the softmax and Gaussian models with a law and with each other."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .. import _validation as v
from .metrics import (
    drop_top,
    ks_distance,
    ks_two_sample,
    law_quantiles,
    moment_intervals,
    rel_w1,
    rel_w1_two_sample,
    t_interval,
)
from .runner import run_draws
from .samplers import AttentionModel, _method

__all__ = ["Comparison", "CheckResult", "check", "compare_draws", "default_method",
           "law_fits_model"]

TARGETS = ("softmax", "gaussian", "both")


@dataclass(frozen=True)
class Comparison:
    """Distances of one model (or of softmax vs Gaussian) over the draws.

    ``ks`` and ``rel_w1`` are means over draws of the per-draw distances; ``*_interval``
    are Student-t 95% intervals over draws (None bounds with one draw); ``moments`` maps
    k to the interval of the empirical k-th moment, ``law_moments`` to the law's value.
    """

    ks: float
    rel_w1: float
    ks_interval: object
    rel_w1_interval: object
    moments: dict = field(default_factory=dict)
    law_moments: dict = field(default_factory=dict)

    def to_dict(self):
        out = {"ks": self.ks, "rel_w1": self.rel_w1,
               "ks_interval": self.ks_interval.to_dict(),
               "rel_w1_interval": self.rel_w1_interval.to_dict()}
        if self.moments:
            out["moments"] = {
                str(k): dict(iv.to_dict(), law=self.law_moments.get(k),
                             law_within_interval=_within(iv, self.law_moments.get(k)))
                for k, iv in self.moments.items()}
        return out


def check_exclude_top(exclude_top, n):
    """``exclude_top`` as an integer in [0, n − 1] (outliers removed from n eigenvalues).

    Raises
    ------
    ParameterError
        Naming ``exclude_top`` and the range.
    """
    exclude_top = v.integer_at_least("exclude_top", exclude_top, 0)
    if exclude_top >= n:
        raise v.ParameterError("exclude_top", f"exclude_top must be an integer in [0, n - 1] "
                                              f"= [0, {n - 1}], got {exclude_top}")
    return exclude_top


def default_method(model, method=None):
    """The sampling method a check of ``model`` uses: ``method`` if given (validated), else
    'reduced' for kinds 'values'/'mha' and 'direct' for the others (where 'reduced' is the
    same computation, so the record names what ran).

    Raises
    ------
    ParameterError
        If ``method`` is not None, 'reduced' or 'direct'.
    """
    if method is not None:
        method = _method(method)
    reducible = model.kind in ("values", "mha")
    if method is None:
        return "reduced" if reducible else "direct"
    return method if reducible else "direct"


def _within(interval, value):
    """Whether the law's value lies in the interval; None when either is missing."""
    return None if value is None or interval.low is None else interval.contains(value)


def _seed_json(seed):
    if isinstance(seed, np.random.SeedSequence):
        return {"entropy": seed.entropy, "spawn_key": list(seed.spawn_key)}
    return seed


def _require_law(law):
    missing = [a for a in ("cdf", "ppf", "mean") if not callable(getattr(law, a, None))]
    if missing:
        raise TypeError(f"law must be a law object with cdf, ppf and mean (e.g. "
                        f"freeattn.attention.attention_law(...)), got {type(law).__name__}")


def law_fits_model(law, model):
    """Refuse a law that is not the limit of ``model``'s matrix.

    Laws built by :mod:`freeattn.attention` record which matrix they describe
    (``law.describes``) and their β and ratios (``law.params``); these must equal the model's
    kind and its realised β, h, γ_K, γ_V, γ_O and tying (to 1e-9).  Laws without that record (a user's law, an
    :class:`Empirical` law) are accepted as they are.

    Raises
    ------
    TypeError
        If the law describes another kind of matrix (e.g. ν_{∞,h} for kind 'values').
    ValueError
        If a parameter of the law differs from the model's; the message names it.
    """
    kind = getattr(law, "describes", None)
    params = getattr(law, "params", None)
    if kind is None or not isinstance(params, dict):
        return
    if kind != model.kind:
        raise TypeError(
            f"law {getattr(law, 'name', law)!r} is the limit of kind {kind!r}, but "
            f"the model is of kind {model.kind!r}; use model.law() (the limit of the model's "
            f"own matrix) or a model of kind {kind!r}")
    tied = params.get("sharing") == "tied_kv" or params.get("tied", False)
    if "sharing" in params or "tied" in params:
        if tied != model.tied:
            raise ValueError(f"law has tied K = V {tied}, but the model has tied={model.tied}")
    if kind in ("values", "mha") and ("rho" in params or getattr(model, "rho", None) is not None):
        law_rho = params.get("rho", 1.0 if tied else 0.0)
        model_rho = model.rho if model.rho is not None else (1.0 if model.tied else 0.0)
        if not math.isclose(law_rho, model_rho, rel_tol=1e-9, abs_tol=1e-12):
            raise ValueError(f"law has rho={law_rho:g}, but the model has rho={model_rho:g}; "
                             f"build the law from the model (model.law())")
    mine = {"beta": model.beta, "heads": model.heads, "gamma_k": model.gamma_k,
            "gamma_v": model.gamma_v, "gamma_o": model.gamma_o}
    for name, value in mine.items():
        if name in params and not math.isclose(params[name], value, rel_tol=1e-9):
            raise ValueError(f"law has {name}={params[name]:g}, but the model has "
                             f"{name}={value:g}; build the law from the model (model.law())")


@dataclass(frozen=True)
class CheckResult:
    """Result of :func:`check`.

    Attributes
    ----------
    model : AttentionModel
    draws, seed, exclude_top : int
    softmax, gaussian : Comparison
        Each model against the law.
    softmax_vs_gaussian : Comparison
        Table D.2 metrics between the two models of the same draw (moments empty).
    top_singular_values : dict
        ``{'softmax': [[s1, s2, ...] per draw], 'gaussian': [...]}``, descending.
    ks_tol, rel_w1_tol : float
        Tolerances on the mean KS and relative W₁ against the law.
    target : {'softmax', 'gaussian', 'both'}
        Which model(s) must meet the tolerances.
    passed : bool
    samples : list of Draw
        The raw eigenvalues of every draw (not included in :meth:`to_dict`).
    method : {'direct', 'reduced'}
        How the draws were computed (:func:`freeattn.montecarlo.sample`): 'reduced' for
        kinds 'values'/'mha' by default, 'direct' for the kinds where both are the same.
    """

    model: AttentionModel
    draws: int
    seed: int
    exclude_top: int
    softmax: Comparison
    gaussian: Comparison
    softmax_vs_gaussian: Comparison
    top_singular_values: dict
    ks_tol: float
    rel_w1_tol: float
    target: str
    passed: bool
    samples: list = field(default=None, repr=False)
    method: str = "direct"

    def failures(self):
        """List of human-readable reasons the check failed (empty if it passed)."""
        out = []
        for name in (("softmax", "gaussian") if self.target == "both" else (self.target,)):
            comp = getattr(self, name)
            if not comp.ks <= self.ks_tol:
                out.append(f"{name}: KS {comp.ks:.4g} > tolerance {self.ks_tol:g}")
            if not comp.rel_w1 <= self.rel_w1_tol:
                out.append(f"{name}: rel W1 {comp.rel_w1:.4g} > tolerance {self.rel_w1_tol:g}")
        return out

    def to_dict(self):
        """JSON-able dict with keys softmax, gaussian, softmax_vs_gaussian, ..."""
        return {
            "softmax": self.softmax.to_dict(),
            "gaussian": self.gaussian.to_dict(),
            "softmax_vs_gaussian": self.softmax_vs_gaussian.to_dict(),
            "top_singular_values": self.top_singular_values,
            "model": self.model.to_dict(),
            "draws": self.draws,
            "seed": _seed_json(self.seed),
            "method": self.method,
            "exclude_top": self.exclude_top,
            "tolerance": {"ks": self.ks_tol, "rel_w1": self.rel_w1_tol, "target": self.target},
            "passed": self.passed,
            "failures": self.failures(),
        }

    def summary(self):
        """Plain-text table of the result."""
        m = self.model
        widths = f"d_k={m.d_k} (gamma_k={m.gamma_k:g})"
        if m.kind in ("values", "mha"):
            widths += f" d_v={m.d_v}" + (f" d_o={m.d_o}" if m.kind == "mha" else "")
            widths += f" tied={m.tied}"
        seed = self.seed if not isinstance(self.seed, np.random.SeedSequence) else \
            f"SeedSequence({self.seed.entropy}, spawn_key={tuple(self.seed.spawn_key)})"
        lines = [f"{m.kind}: beta={m.beta:g} n={m.n} d={m.d} heads={m.heads} "
                 f"kv_heads={m.kv_heads} {widths} "
                 f"draws={self.draws} seed={seed} method={self.method} "
                 f"exclude_top={self.exclude_top}",
                 f"{'':24s}{'KS':>10s}{'rel W1':>10s}"]
        for name in ("softmax", "gaussian", "softmax_vs_gaussian"):
            comp = getattr(self, name)
            lines.append(f"{name:24s}{comp.ks:10.4f}{comp.rel_w1:10.4f}")
        for name in ("softmax", "gaussian"):
            comp = getattr(self, name)
            for k, iv in comp.moments.items():
                lo = "-" if iv.low is None else f"{iv.low:.5g}"
                hi = "-" if iv.high is None else f"{iv.high:.5g}"
                law = comp.law_moments.get(k)
                law_s = "" if law is None else f"  law {law:.5g}"
                lines.append(f"  {name} m{k} = {iv.mean:.5g} [{lo}, {hi}]{law_s}")
        for name, tops in self.top_singular_values.items():
            lines.append(f"  top singular values ({name}, draw 0): "
                         + ", ".join(f"{s:.4g}" for s in tops[0]))
        verdict = "PASS" if self.passed else "FAIL: " + "; ".join(self.failures())
        lines.append(f"tolerance KS <= {self.ks_tol:g}, rel W1 <= {self.rel_w1_tol:g} "
                     f"({self.target}): {verdict}")
        return "\n".join(lines)


def _law_moment(law, k):
    try:
        return float(law.moment(k))
    except Exception:  # noqa: BLE001 - a law may not provide every moment
        return None


def compare_draws(law, draws, *, exclude_top=0, orders=(1, 2, 3), limit_mean=None):
    """Metrics of a list of :class:`Draw` against ``law`` (and softmax vs Gaussian).

    Parameters
    ----------
    law : law object or None
        Without a law only ``softmax_vs_gaussian`` is filled (the others are None);
        ``limit_mean`` (default ``law.mean()``) normalises the two-sample W₁.
    draws : list of Draw (with the Gaussian model)
    exclude_top : int >= 0
        Drop this many largest eigenvalues of each model before comparing (outliers).
        Relative W₁ then uses the quantiles of n − k cells.
    orders : moments to report.

    Returns
    -------
    (softmax, gaussian, softmax_vs_gaussian) : tuple of Comparison (or None)
    """
    exclude_top = v.integer_at_least("exclude_top", exclude_top, 0)
    if not draws or any(d.gaussian is None for d in draws):
        raise ValueError("draws must be a non-empty list of draws with the Gaussian model")
    soft = [drop_top(d.softmax, exclude_top) for d in draws]
    gauss = [drop_top(d.gaussian, exclude_top) for d in draws]
    if limit_mean is None:
        limit_mean = law.mean() if law is not None else float(np.mean(np.concatenate(gauss)))
    law_moments = {} if law is None else {k: _law_moment(law, k) for k in orders}
    law_moments = {k: val for k, val in law_moments.items() if val is not None}

    quantiles = None if law is None else law_quantiles(law, soft[0].size)

    def against_law(samples):
        ks = [ks_distance(s, law) for s in samples]
        w1 = [rel_w1(s, law, mean=limit_mean, quantiles=quantiles) for s in samples]
        ks_i, w1_i = t_interval(ks, lower=0.0), t_interval(w1, lower=0.0)
        # squared singular values: every moment of the spectrum is >= 0
        return Comparison(ks_i.mean, w1_i.mean, ks_i, w1_i,
                          moment_intervals(samples, orders, lower=0.0), law_moments)

    ks = [ks_two_sample(a, b) for a, b in zip(soft, gauss)]
    w1 = [rel_w1_two_sample(a, b, limit_mean) for a, b in zip(soft, gauss)]
    ks_i, w1_i = t_interval(ks, lower=0.0), t_interval(w1, lower=0.0)  # distances: >= 0
    pair = Comparison(ks_i.mean, w1_i.mean, ks_i, w1_i)
    if law is None:
        return None, None, pair
    return against_law(soft), against_law(gauss), pair


def check(law, model, *, draws=10, seed=0, workers=None, scheduler=None, exclude_top=0,
          top_k=3, orders=(1, 2, 3), ks_tol=0.02, rel_w1_tol=0.05, target="both",
          progress=False, method=None):
    """Check a limit law against simulation of the finite softmax and Gaussian models.

    Parameters
    ----------
    law : law object or None
        The predicted limit of the eigenvalue law of ``M Mᵀ`` for ``model`` (e.g.
        ``freeattn.attention.attention_law(beta, gamma_k, heads)`` for kind 'attention');
        None uses ``model.law()``.
    model : AttentionModel
        The finite model (n, widths, β, sharing) to draw.
    draws : int, default 10
        Independent draws (the paper's App. D uses 10).
    seed : int >= 0 or numpy.random.SeedSequence, default 0
        Draw i uses ``SeedSequence(seed).spawn(draws)[i]``; results are bit-identical
        whatever ``workers``/``scheduler``.
    workers : int, optional
        Worker processes (default: all cores). ``scheduler``: Dask address or Client.
    exclude_top : int, default 0
        Outliers removed from both models before comparing (all n eigenvalues count by
        default, zeros included). Top singular values are always reported separately.
    top_k : int, default 3
        Number of top singular values reported per draw.
    orders : tuple of int
        Moments reported with Student-t 95% intervals over draws, next to law.moment(k).
    ks_tol, rel_w1_tol : float
        The check passes when the mean (over draws) KS and relative W₁ against the law of
        every ``target`` model are at most these values.
    target : {'softmax', 'gaussian', 'both'}, default 'both'
    progress : bool
        Progress bar on stderr.
    method : {None, 'reduced', 'direct'}, default None
        How each draw is computed (:func:`freeattn.montecarlo.sample`). Both sample the same
        joint law of the softmax and Gaussian spectra. None: 'reduced' for kinds 'values'
        and 'mha' (the softmax model's spectrum is the literal one to rounding; the Gaussian
        noise goes through the values and the output projection through the joint row
        space, less work), 'direct' for kinds 'attention' and 'head_average' (where the two
        are the same computation). 'direct' forms every matrix of the paper literally (a
        draw can be replayed matrix by matrix from its seed). The Gaussian model's bits,
        not its law, depend on the method.

    Returns
    -------
    CheckResult

    Raises
    ------
    ValueError
        For invalid parameters (the message names the parameter and its range), or a law
        whose β or ratios differ from the model's.
    TypeError
        If ``law`` is not a law object, ``model`` not an :class:`AttentionModel`, or the law
        is the limit of another kind of matrix (:func:`law_fits_model`).
    MemoryError
        Before drawing, when one draw needs more than the memory available.

    Notes
    -----
    Metrics follow Hayase & Karakida 2026, App. D: KS between the empirical and
    the limiting CDF; relative W₁ of ordered eigenvalues against limit quantiles divided by
    the limiting mean; softmax vs Gaussian (Table D.2) with the same normalisation.
    """
    if not isinstance(model, AttentionModel):
        raise TypeError(f"model must be an AttentionModel, got {type(model).__name__}")
    if law is None:
        law = model.law()
    _require_law(law)
    law_fits_model(law, model)
    if target not in TARGETS:
        raise v.ParameterError("target", f"target must be one of {TARGETS}, got {target!r}")
    ks_tol = v.positive("ks_tol", ks_tol)
    rel_w1_tol = v.positive("rel_w1_tol", rel_w1_tol)
    exclude_top = check_exclude_top(exclude_top, model.n)
    if not isinstance(seed, np.random.SeedSequence):
        seed = v.integer_at_least("seed", seed, 0)
    orders = tuple(v.positive_integer("orders", k) for k in orders)
    method = default_method(model, method)
    results = run_draws(model, draws, seed, workers=workers, scheduler=scheduler,
                        gaussian=True, top_k=top_k, progress=progress, method=method)
    soft, gauss, pair = compare_draws(law, results, exclude_top=exclude_top, orders=orders)
    tops = {"softmax": [d.softmax_top.tolist() for d in results],
            "gaussian": [d.gaussian_top.tolist() for d in results]}
    names = ("softmax", "gaussian") if target == "both" else (target,)
    comps = {"softmax": soft, "gaussian": gauss}
    passed = all(comps[nm].ks <= ks_tol and comps[nm].rel_w1 <= rel_w1_tol for nm in names)
    return CheckResult(model, draws, seed, exclude_top, soft, gauss, pair, tops, ks_tol,
                       rel_w1_tol, target, bool(passed), samples=results, method=method)
