"""Monte Carlo of the residual stream R = X + α √n MHA(X): true softmax and Gaussian models.

Both models are drawn with the **same** Q/K/V/O weights (Hayase & Karakida 2026, §2 and
eqs. (3.2)–(3.3)), inputs X = √d [I_n, 0], d_O = d:

* softmax: R = X + α √n [A_1 V_1, …, A_h V_h] W^O, A_r = softmax(β S_r) (uncentred: the
  common mode P V_r is part of A_r V_r);
* Gaussian: R_G = X + α √n [(Y_1^G/√n + P) V_1, …] W^O with Y_r^G = (β S_r + √(θ₁ − θ₂) W_r)/√n,
  W_r independent N(0, 1) (the same common mode P V_r added, so both have the outlier).

A draw returns the n eigenvalues of R Rᵀ/d (ascending) and the singular value θ of each
model's rank-one common mode: α‖Σ_r cᵣᵀV_rW^O_r‖/√d for softmax, with c_r(j) = (1 +
β²/d_K)^{−d_K/2} exp(β²‖k_j‖²/(2(d_K + β²))) the n → ∞ column sums of A_r
(:func:`freeattn.attention.residual.common_mode_factor`), and α‖1ᵀ[V]W^O‖/√d for the
Gaussian model (its common mode is P V_r exactly).  :func:`check_residual` compares the bulk (the top eigenvalue,
the outlier, removed) with :func:`freeattn.attention.residual.residual_law` by KS and relative
W₁ (normalised by the law's mean) with Student-t 95 % intervals over draws, and the outlier
with :func:`~freeattn.attention.residual.residual_outlier`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _validation as v
from ..attention.config import MHAConfig
from ..attention.single_head import theta1, theta2
from .metrics import ks_distance, ks_two_sample, law_quantiles, rel_w1, rel_w1_two_sample, t_interval
from .samplers import draw_seed, softmax_rows

__all__ = ["ResidualDraw", "sample_residual", "check_residual", "ResidualCheck"]


@dataclass(frozen=True)
class ResidualDraw:
    """One draw: eigenvalues (n, ascending) of R Rᵀ/d for both models, and the spike θ of
    each model's common mode (module docstring)."""

    softmax: np.ndarray
    gaussian: np.ndarray | None
    spike: float
    spike_gaussian: float


def _alpha(alpha):
    a = v.finite_real("alpha", alpha)
    if not a > 0:
        raise v.ParameterError("alpha", f"alpha must be a finite number > 0, got {alpha!r}")
    return float(a)


def sample_residual(cfg, alpha, seed, gaussian=True):
    """One draw of the residual stream of the layer ``cfg`` (an :class:`MHAConfig`, d_O = d).

    Parameters
    ----------
    cfg : MHAConfig
        Widths, β and sharing (any: 'none', 'gqa', 'mqa', 'tied_kv', ρ).
    alpha : float > 0
        R = X + α √n MHA(X) (module docstring).
    seed : int >= 0 or SeedSequence
        Weights from child 0, Gaussian noise from child 1.
    gaussian : bool, default True

    Returns
    -------
    ResidualDraw
    """
    if not isinstance(cfg, MHAConfig):
        raise TypeError(f"cfg must be an MHAConfig, got {type(cfg).__name__}")
    if cfg.d_o != cfg.d:
        raise v.ParameterError("d_o", f"the residual needs d_o == d = {cfg.d}, got {cfg.d_o}")
    a = _alpha(alpha)
    if not isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(v.integer_at_least("seed", seed, 0))
    rng = np.random.default_rng(draw_seed(seed, 0))
    noise = np.random.default_rng(draw_seed(seed, 1))
    n, d, h, hkv, dk, dv = cfg.n, cfg.d, cfg.heads, cfg.kv_heads, cfg.d_k, cfg.d_v
    # X = √d [I_n, 0]: X W has i.i.d. N(0, 1) entries (only the first n rows of W matter)
    q = rng.standard_normal((n, h * dk))
    k = rng.standard_normal((n, hkv * dk))
    if cfg.tied:
        vals = k
    else:
        vals = rng.standard_normal((n, hkv * dv))
        if cfg.rho is not None:
            vals = cfg.rho * k + math.sqrt(1 - cfg.rho ** 2) * vals
    w_o = rng.standard_normal((h * dv, d)) / math.sqrt(h * dv)
    group = h // hkv
    scale = cfg.beta / math.sqrt(dk)
    noise_sd = math.sqrt(max(theta1(cfg.beta) - theta2(cfg.beta), 0.0))
    c_soft = np.empty((n, h * dv))
    mode = np.empty(h * dv)
    c_gauss = np.empty((n, h * dv)) if gaussian else None
    for r in range(h):
        g = r // group
        qr, kr, vr = q[:, r * dk:(r + 1) * dk], k[:, g * dk:(g + 1) * dk], vals[:, g * dv:(g + 1) * dv]
        logits = qr @ kr.T
        vmean = vr.mean(axis=0, keepdims=True)  # P V_r: the common mode
        if gaussian:
            y = noise.standard_normal((n, n)) * (noise_sd / scale) + logits
            y *= scale / n  # Y_r^G / √n
            c_gauss[:, r * dv:(r + 1) * dv] = y @ vr + vmean
        a_r = softmax_rows(logits, out=logits, scale=scale)
        c_soft[:, r * dv:(r + 1) * dv] = a_r @ vr
        # the limit column sums c(‖k_j‖) of A_r weight the softmax common mode
        colsum = math.exp(-dk / 2 * math.log1p(cfg.beta ** 2 / dk)) * np.exp(
            cfg.beta ** 2 * np.einsum("ij,ij->i", kr, kr) / (2 * (dk + cfg.beta ** 2)))
        mode[r * dv:(r + 1) * dv] = colsum @ vr
    spike_g = a * float(np.linalg.norm(vals_sum(vals, h, hkv, dv) @ w_o)) / math.sqrt(d)
    spike = a * float(np.linalg.norm(mode @ w_o)) / math.sqrt(d)
    out = []
    for c in ([c_soft] + ([c_gauss] if gaussian else [])):
        r_mat = (a * math.sqrt(n)) * (c @ w_o)
        r_mat[:, :n] += math.sqrt(d) * np.eye(n)
        gram = r_mat @ r_mat.T / d
        out.append(np.linalg.eigvalsh((gram + gram.T) / 2))
    return ResidualDraw(out[0], out[1] if gaussian else None, spike, spike_g)


def vals_sum(vals, h, hkv, dv):
    """1ᵀ[V_1, …, V_h] (each query head's value block; shared blocks repeated)."""
    col = vals.sum(axis=0)
    group = h // hkv
    return np.concatenate([col[(r // group) * dv:((r // group) + 1) * dv] for r in range(h)])


@dataclass(frozen=True)
class ResidualCheck:
    """Result of :func:`check_residual`: per-model KS and relative W₁ (MomentIntervals over
    draws), softmax-vs-Gaussian distances, and the outlier (draws, prediction)."""

    config: dict
    alpha: float
    draws: int
    ks: dict
    rel_w1: dict
    outlier: dict

    def to_dict(self):
        return {"config": self.config, "alpha": self.alpha, "draws": self.draws,
                "ks": {k: iv.to_dict() for k, iv in self.ks.items()},
                "rel_w1": {k: iv.to_dict() for k, iv in self.rel_w1.items()},
                "outlier": {k: (val.to_dict() if hasattr(val, "to_dict") else val)
                            for k, val in self.outlier.items()}}


def check_residual(cfg, alpha, draws=10, seed=0, law=None, gaussian=True):
    """Compare the simulated residual stream with its limit law and outlier.

    Parameters
    ----------
    cfg : MHAConfig (d_O = d)
    alpha : float > 0
    draws : int >= 1 (Student-t intervals need >= 2)
    seed : int >= 0
    law : Law, optional
        Default :func:`freeattn.attention.residual.residual_law` ``(cfg, alpha)``.

    Returns
    -------
    ResidualCheck
        ks / rel_w1: 'softmax', 'gaussian' (against the law, the top eigenvalue dropped) and
        'softmax_vs_gaussian'; outlier: 'softmax' (interval of s₁ over draws), 'predicted'
        (ρ at the limit spike θ = α√(nF), :func:`~freeattn.attention.residual.residual_outlier`),
        'conditional' (interval of s₁ − ρ(θ_draw), the prediction at each draw's own common
        mode), and with ``gaussian`` the same for the Gaussian model ('gaussian',
        'predicted_gaussian' at θ = α√n, 'conditional_gaussian').
    """
    from ..attention.residual import bulk_outlier, residual_law, residual_outlier

    draws = v.positive_integer("draws", draws)
    a = _alpha(alpha)
    law = law if law is not None else residual_law(cfg, a)
    lam = cfg.n / cfg.d
    mean = float(law.mean())
    q = law_quantiles(law, cfg.n - 1)
    ks = {"softmax": [], "gaussian": [], "softmax_vs_gaussian": []}
    w1 = {"softmax": [], "gaussian": [], "softmax_vs_gaussian": []}
    top, cond, top_g, cond_g = [], [], [], []
    for i in range(draws):
        dr = sample_residual(cfg, a, draw_seed(seed, i), gaussian=gaussian)
        bulk_s = dr.softmax[:-1]
        ks["softmax"].append(ks_distance(bulk_s, law))
        w1["softmax"].append(rel_w1(bulk_s, law, mean=mean, quantiles=q))
        if gaussian:
            bulk_g = dr.gaussian[:-1]
            ks["gaussian"].append(ks_distance(bulk_g, law))
            w1["gaussian"].append(rel_w1(bulk_g, law, mean=mean, quantiles=q))
            ks["softmax_vs_gaussian"].append(ks_two_sample(bulk_s, bulk_g))
            w1["softmax_vs_gaussian"].append(rel_w1_two_sample(bulk_s, bulk_g, mean))
        s1 = math.sqrt(dr.softmax[-1])
        top.append(s1)
        cond.append(s1 - math.sqrt(bulk_outlier(law, lam, dr.spike)))
        if gaussian:
            s1g = math.sqrt(dr.gaussian[-1])
            top_g.append(s1g)
            cond_g.append(s1g - math.sqrt(bulk_outlier(law, lam, dr.spike_gaussian)))
    ks = {k: t_interval(val) for k, val in ks.items() if val}
    w1 = {k: t_interval(val) for k, val in w1.items() if val}
    outlier = {"softmax": t_interval(top), "predicted": residual_outlier(cfg, a, law=law),
               "conditional": t_interval(cond)}
    if gaussian:
        outlier.update(gaussian=t_interval(top_g), conditional_gaussian=t_interval(cond_g),
                       predicted_gaussian=residual_outlier(cfg, a, law=law, model="gaussian"))
    return ResidualCheck(cfg.to_dict(), a, draws, ks, w1, outlier)
