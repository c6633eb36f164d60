"""Finite-matrix readout measurements on sampled softmax multi-head attention features.

Features F = MHA(X)/sqrt(m) (uncentred, the common component kept; m the limiting readout
normalisation), drawn with the Monte Carlo samplers' conventions and weights (same seed → same
Q/K/V/O as :func:`freeattn.montecarlo.sample`).  For each feature matrix:

* the exact conditional ridge coefficient error, teacher ϑ ~ N(0, I_p/p) and noise ε ~
  N(0, σ² I_n) averaged analytically (Hayase & Karakida 2026, §C.5.2, before the limit (C.28));
* the exact gradient-flow loss of a fixed centred target y from the eigendecomposition
  F Fᵀ u_j = ℓ_j u_j:  L(t; y) = Σ_j e^{−2tℓ_j} |u_jᵀ y|² / ‖y‖²  (§D.2).

Averages over draws carry Student-t 95 % intervals; ratios of means (Fig. 2(d)) Fieller
intervals; arrival times of the mean curve bootstrap percentile intervals (§D).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import stdtrit

from .._validation import (ParameterError, ParameterTypeError, in_open_interval, nonnegative,
                           positive, positive_integer)
from ..montecarlo._blas import single_threaded_blas
from ..montecarlo.metrics import t_interval
from ..montecarlo.samplers import AttentionModel, draw_seed, softmax_rows
from .._messages import shown
from .scalar import readout_normalisation

__all__ = ["mha_features", "FeatureSpectrum", "feature_spectrum", "finite_ridge_error",
           "draw_spectra", "interval_dict",
           "finite_training_loss", "fixed_target", "fieller_interval", "mean_curve_arrival",
           "bootstrap_arrival_interval", "t_interval"]


def fixed_target(n, seed=0):
    """The paper's fixed target: a standard Gaussian vector, centred, rescaled to ‖y‖² = n
    (§D.2); ``seed`` fixes it across conditions and draws."""
    n = positive_integer("n", n)
    y = np.random.default_rng(np.random.SeedSequence(seed)).standard_normal(n)
    y -= y.mean()
    return y * math.sqrt(n / float(y @ y))


def mha_features(model, seed, betas=None, centred=False):
    """Uncentred MHA(X)/sqrt(m) of one draw, optionally at several β with the same weights.

    Parameters
    ----------
    model : AttentionModel
        kind 'mha'; sharing (``kv_heads``) and tying (``tied``) as in the samplers.
    seed : int or SeedSequence
        The weights come from child 0 of the seed exactly as in :func:`freeattn.montecarlo.sample`
        (same Q, K, V, W^O for the same seed).
    betas : sequence of float, optional
        Inverse temperatures; default ``[model.beta]``.  The same weights serve every β (§D.4).
    centred : bool, default False
        Return MHA^⊥(X)/sqrt(m) instead (each A_r replaced by A_r − 11ᵀ/n, eq. (3.1)), whose
        left Gram is the samplers' 'mha' matrix divided by m.

    Returns
    -------
    list of ndarray, each of shape (n, d_O)
        F = MHA(X)/sqrt(m) with m = γ_O θ₁ (independent K/V, MQA/GQA) or γ_O(θ₁ + h θ₂/γ_K)
        (tied), γ's the model's realised ratios (eq. (C.24)).

    Raises
    ------
    ParameterError, TypeError
        For a model that is not an 'mha' AttentionModel.
    """
    if not isinstance(model, AttentionModel):
        raise ParameterTypeError("model", f"model must be an AttentionModel, got {type(model).__name__}")
    if model.kind != "mha":
        raise ParameterError("model", f"model.kind must be 'mha', got {model.kind!r}")
    if not isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(int(nonnegative("seed", seed)))
    betas = [model.beta] if betas is None else [float(positive("beta", b)) for b in betas]
    rng = np.random.default_rng(draw_seed(seed, 0))
    m = model
    n, h, hkv, dk, dv = m.n, m.heads, m.kv_heads, m.d_k, m.d_v

    def proj(width):  # X W with W (d × width) i.i.d. N(0, 1/d), as in the samplers
        if m.x is None:
            return rng.standard_normal((n, width))
        return m.x @ rng.standard_normal((m.d, width)) / math.sqrt(m.d)

    q = proj(h * dk)
    k = proj(hkv * dk)
    vals = k if m.tied else proj(hkv * dv)
    if m.rho is not None and not m.tied:  # V = X(ρW^K + sqrt(1 − ρ²)W̃), as the samplers draw it
        vals = m.rho * k + math.sqrt(1.0 - m.rho ** 2) * vals
    w_o = rng.standard_normal((h * dv, m.d_o)) / math.sqrt(h * dv)
    group = h // hkv
    out = []
    for beta in betas:
        z = np.empty((n, h * dv))  # [A_1 V_1, …, A_h V_h]
        scale = beta / math.sqrt(dk)
        for r in range(h):
            g = r // group
            logits = q[:, r * dk:(r + 1) * dk] @ k[:, g * dk:(g + 1) * dk].T
            a = softmax_rows(logits, out=logits, scale=scale)
            if centred:
                a -= 1.0 / n
            np.matmul(a, vals[:, g * dv:(g + 1) * dv], out=z[:, r * dv:(r + 1) * dv])
        norm = readout_normalisation(beta, m.gamma_k, h, m.gamma_o, tied=m.tied, rho=m.rho)
        out.append((z @ w_o) / math.sqrt(norm))
    return out


@dataclass(frozen=True)
class FeatureSpectrum:
    """Eigendecomposition of F Fᵀ (n × n): ascending eigenvalues ``ell`` (n,), eigenvectors
    ``u`` (n, n) as columns, and the feature count p (columns of F)."""

    ell: np.ndarray
    u: np.ndarray
    p: int

    @property
    def n(self):
        return self.ell.shape[0]


def feature_spectrum(f):
    """Eigendecomposition of F Fᵀ for a feature matrix F of shape (n, p) (all n eigenvalues,
    zeros included; tiny negative rounding set to 0)."""
    f = np.asarray(f, dtype=float)
    if f.ndim != 2:
        raise ParameterError("f", f"f must be a 2-D array, got shape {f.shape}")
    ell, u = np.linalg.eigh(f @ f.T)
    ell = np.where(ell < 0, 0.0, ell)
    return FeatureSpectrum(ell, u, f.shape[1])


def finite_ridge_error(spec, lam, sigma2):
    """Exact conditional ridge coefficient error E_{ϑ,ε}[‖ϑ_* − ϑ‖² | F] of one feature matrix.

    With C = FᵀF (p × p), ϑ ~ N(0, I_p/p), ε ~ N(0, σ² I_n):
    (λ²/p) Tr (C + λ)^{−2} + (σ²/n) Tr C (C + λ)^{−2}
    = 1 − n/p + (n/p)(1/n) Σ_j λ²/(ℓ_j + λ)² + σ² (1/n) Σ_j ℓ_j/(ℓ_j + λ)²
    over the n eigenvalues ℓ_j of F Fᵀ (Hayase & Karakida 2026, §C.5.2).

    Parameters
    ----------
    spec : FeatureSpectrum
    lam : float > 0 or array_like
    sigma2 : float ≥ 0

    Returns
    -------
    float or ndarray (shape of ``lam``)
    """
    lam_arr = np.asarray(lam, dtype=float)
    if np.any(~(lam_arr > 0)) or np.any(~np.isfinite(lam_arr)):
        raise ParameterError("lam", f"lam must be finite and > 0, got {shown(lam)}")
    sigma2 = nonnegative("sigma2", sigma2)
    n, p = spec.n, spec.p
    ell = spec.ell[:, None]
    lf = lam_arr.reshape(-1)[None, :]
    bias = np.mean(lf ** 2 / (ell + lf) ** 2, axis=0)
    var = np.mean(ell / (ell + lf) ** 2, axis=0)
    out = (1 - n / p + (n / p) * bias + sigma2 * var).reshape(lam_arr.shape)
    return out[()] if out.ndim == 0 else out


def finite_training_loss(spec, y, t):
    """Exact relative gradient-flow loss L(t; y) = Σ_j e^{−2tℓ_j}|u_jᵀ y|²/‖y‖² (§D.2).

    Gradient flow on ½‖F ϑ − y‖² from ϑ(0) = 0; the residual is e^{−t F Fᵀ}(−y), so the loss
    keeps the alignment of the fixed target with the empirical eigenvectors.

    Parameters
    ----------
    spec : FeatureSpectrum
    y : ndarray of shape (n,), non-zero
    t : float ≥ 0 or array_like

    Returns
    -------
    float or ndarray (shape of ``t``)
    """
    y = np.asarray(y, dtype=float)
    if y.shape != (spec.n,) or not np.any(y):
        raise ParameterError("y", f"y must be a non-zero vector of length {spec.n}")
    t_arr = np.asarray(t, dtype=float)
    if np.any(~(t_arr >= 0)) or np.any(~np.isfinite(t_arr)):
        raise ParameterError("t", f"t must be finite and >= 0, got {shown(t)}")
    c = (spec.u.T @ y) ** 2 / float(y @ y)
    out = (np.exp(-2.0 * np.multiply.outer(t_arr.reshape(-1), spec.ell)) @ c).reshape(t_arr.shape)
    return out[()] if out.ndim == 0 else out


def fieller_interval(y, x, confidence=0.95):
    """Fieller interval for the ratio of means r = Ȳ/X̄ of paired replicates (§D.4).

    The set of r with |Ȳ − r X̄| ≤ t_{N−1,(1+c)/2} s_{Y−rX}/sqrt(N), s_{Y−rX} the sample
    standard deviation of Y_i − r X_i (paired within each replicate).

    Returns
    -------
    (ratio, low, high) : floats; low/high are ±inf when the set is unbounded (X̄ not
    significantly non-zero).
    """
    # scipy.special.stdtrit is the quantile behind scipy.stats.t.ppf (a much lighter import)
    y = np.asarray(y, dtype=float).ravel()
    x = np.asarray(x, dtype=float).ravel()
    if y.shape != x.shape or y.size < 2:
        raise ParameterError("y", "y and x must be paired samples of equal length >= 2")
    confidence = in_open_interval("confidence", confidence, 0.0, 1.0)
    nrep = y.size
    tq = float(stdtrit(nrep - 1, 0.5 + confidence / 2))
    k = tq * tq / nrep
    my, mx = y.mean(), x.mean()
    cov = np.cov(np.vstack([y, x]), ddof=1)
    syy, sxy, sxx = cov[0, 0], cov[0, 1], cov[1, 1]
    a = mx * mx - k * sxx
    b = -2 * (mx * my - k * sxy)
    c = my * my - k * syy
    ratio = my / mx
    disc = b * b - 4 * a * c
    if a <= 0 or disc < 0:
        return ratio, -math.inf, math.inf
    r1 = (-b - math.sqrt(disc)) / (2 * a)
    r2 = (-b + math.sqrt(disc)) / (2 * a)
    return ratio, min(r1, r2), max(r1, r2)


def mean_curve_arrival(specs, y, level=0.1):
    """Arrival time of the mean finite loss curve: the root of mean_i L_i(t; y) = level (§D.5).

    Brent's method with relative tolerance 1e-12 and absolute tolerance the smallest normal
    float64, as in the paper.
    """
    level = in_open_interval("level", level, 0.0, 1.0)
    cs = [(s.u.T @ y) ** 2 / float(y @ y) for s in specs]

    def g(t):
        return np.mean([np.exp(-2 * t * s.ell) @ c for s, c in zip(specs, cs)]) - level

    hi = 1.0
    while g(hi) > 0:
        hi *= 2
        if hi > 1e15:
            raise ArithmeticError(f"mean loss does not reach {level}")
    return brentq(g, 0.0, hi, xtol=np.finfo(float).tiny, rtol=1e-12)


def bootstrap_arrival_interval(specs, y, level=0.1, resamples=2000, seed=0):
    """Percentile bootstrap interval of the mean curve's arrival time over draws (§D).

    The draws are resampled with replacement ``resamples`` times and the arrival time of
    each resampled mean curve is computed (:func:`mean_curve_arrival`); the interval is
    scipy.stats.bootstrap's ``method="percentile"`` at confidence 0.95 (the 2.5th and
    97.5th percentiles, as in Hayase & Karakida 2026, §D).

    Returns
    -------
    (low, high) : floats.
    """
    # scipy.stats costs about 1 s to import: loaded only when a bootstrap is asked for
    from scipy.stats import bootstrap

    resamples = positive_integer("resamples", resamples)
    specs = list(specs)

    def arrival(idx):
        return mean_curve_arrival([specs[int(i)] for i in idx], y, level)

    res = bootstrap((np.arange(len(specs)),), arrival, n_resamples=resamples,
                    vectorized=False, method="percentile", confidence_level=0.95,
                    rng=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def draw_spectra(model, draws, seed=0, betas=None):
    """Feature spectra of ``draws`` independent draws (draw i seeded by ``draw_seed(seed, i)``).

    Returns
    -------
    list (one per draw) of list (one per β in ``betas``, default ``[model.beta]``) of
    :class:`FeatureSpectrum`.
    """
    draws = positive_integer("draws", draws)
    out = []
    # one BLAS thread: reproducible last bits, and no oversubscription on a shared machine
    with single_threaded_blas():
        for i in range(draws):
            fs = mha_features(model, draw_seed(seed, i), betas=betas)
            out.append([feature_spectrum(f) for f in fs])
    return out


def interval_dict(values):
    """Mean and Student-t 95 % interval of per-draw values as a JSON-ready dict."""
    ci = t_interval(values)
    return {"mean": ci.mean, "low": ci.low, "high": ci.high, "draws": len(values)}
