"""Monte Carlo of the uncentered attention concatenation A (Corollary C.3, (C.13)–(C.14)).

Hayase & Karakida 2026 (arXiv 2610.10033), Section C.1.3.  Each draw forms the softmax
matrices A_r = softmax(β Q_r K_rᵀ/sqrt(d_K)) of an attention model (kind 'attention'), measures
:func:`freeattn.attention.uncentered.uncentered_statistics` (s₁, s₂, alignment of the top
singular vector with 1/sqrt(n), ‖A‖_F², ‖A^⊥‖ and the identity (C.13)), and the spectra of the
uncentered and centred bulk sqrt(n/h) A and sqrt(n/h) A^⊥; :func:`uncentered_check` compares
the means over draws (Student-t 95 % intervals) with the limits and the bulk with ν_{∞,h}.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _validation as v
from ..attention.uncentered import uncentered_law, uncentered_limits, uncentered_statistics
from ._blas import single_threaded_blas
from ._lapack import eigvalsh
from .metrics import ks_distance, t_interval
from .samplers import AttentionModel, _draw_qkv, draw_seed

__all__ = ["uncentered_matrix", "uncentered_draw", "UncenteredCheck", "uncentered_check",
           "STATISTICS"]

#: statistic name → (attribute of UncenteredStatistics, attribute of UncenteredLimits)
STATISTICS = {
    "s1/sqrt(h)": ("s1_over_sqrt_h", "s1_over_sqrt_h"),
    "s2": ("s2", "s2"),
    "alignment |u^T x1|^2": ("alignment", "alignment"),
    "||A||_F^2/h": ("frobenius_per_head", "frobenius_per_head"),
    "stable rank ||A||_F^2/s1^2": ("stable_rank", "stable_rank"),
}


def _model(model):
    if not isinstance(model, AttentionModel):
        raise TypeError(f"model must be an AttentionModel, got {type(model).__name__}")
    if model.kind != "attention":
        raise v.ParameterError("model", f"model.kind must be 'attention', got {model.kind!r}")
    return model


def uncentered_matrix(model, seed):
    """One draw of A = [A_1, …, A_h] (n × h n, rows of each block summing to one).

    Queries and keys come from ``draw_seed(seed, 0)``, as in :func:`sample` (so the same seed
    gives the same attention matrices as the checker's softmax model).
    """
    m = _model(model)
    rng = np.random.default_rng(draw_seed(seed, 0))
    q, k, _ = _draw_qkv(m, rng, need_v=False)
    n, h, dk, per = m.n, m.heads, m.d_k, m.heads // m.kv_heads
    a = np.empty((n, h * n))
    for r in range(h):
        g = r // per
        s = q[:, r * dk:(r + 1) * dk] @ k[:, g * dk:(g + 1) * dk].T * (m.beta / math.sqrt(dk))
        s -= s.max(axis=1, keepdims=True)
        np.exp(s, out=s)
        s /= s.sum(axis=1, keepdims=True)
        a[:, r * n:(r + 1) * n] = s
    return a


def uncentered_draw(model, seed):
    """Statistics of one draw and the bulk spectra.

    Returns
    -------
    (UncenteredStatistics, ndarray, ndarray)
        The statistics, the n eigenvalues of (n/h) A Aᵀ (one outlier ≈ n) and of
        (n/h) A^⊥ A^⊥ᵀ, ascending.
    """
    m = _model(model)
    with single_threaded_blas():
        a = uncentered_matrix(m, seed)
        stats = uncentered_statistics(a, m.heads)
        c = m.n / m.heads
        full = eigvalsh(c * (a @ a.T), overwrite_a=True)
        perp = a - 1.0 / m.n
        centred = eigvalsh(c * (perp @ perp.T), overwrite_a=True)
    return stats, full, centred


@dataclass(frozen=True)
class UncenteredCheck:
    """Means over draws of Corollary C.3's statistics against their limits.

    Attributes
    ----------
    model : AttentionModel
    limits : UncenteredLimits
    statistics : dict
        name → MomentInterval over draws (see :data:`STATISTICS`).
    bounds_hold : bool
        Every draw satisfies the finite-size inequalities (and the identities to 1e-10).
    worst_identity_error : float
        Largest entrywise error of (C.13) and of ‖A‖_F² = h + ‖A^⊥‖_F² over the draws.
    centred_norm : MomentInterval
        ‖A^⊥‖ over draws (the bound that drives every limit: n^{−1/2+o(1)}).
    ks_uncentered, ks_centred : MomentInterval or None
        KS distance of the bulk of sqrt(n/h) A (outlier included) and of sqrt(n/h) A^⊥ to
        ν_{∞,h} (None when the law is not computed).
    """

    model: AttentionModel
    limits: object
    statistics: dict
    bounds_hold: bool
    worst_identity_error: float
    centred_norm: object
    ks_uncentered: object
    ks_centred: object

    def to_dict(self):
        return {"model": self.model.to_dict(), "limits": self.limits.to_dict(),
                "statistics": {k: s.to_dict() for k, s in self.statistics.items()},
                "bounds_hold": self.bounds_hold,
                "worst_identity_error": self.worst_identity_error,
                "centred_norm": self.centred_norm.to_dict(),
                "ks_uncentered": None if self.ks_uncentered is None else
                self.ks_uncentered.to_dict(),
                "ks_centred": None if self.ks_centred is None else self.ks_centred.to_dict()}

    def summary(self):
        m, lim = self.model, self.limits
        lines = [f"Uncentered attention A (Hayase & Karakida 2026, Corollary C.3, (C.13)-(C.14)):"
                 f" beta = {m.beta:g}, n = {m.n}, h = {m.heads}, d_K = {m.d_k} "
                 f"(gamma_K = {m.gamma_k:.4g}), {len(self.centred_norm.values)} draws",
                 f"{'statistic':28s}{'mean':>12s}{'95% interval':>26s}{'limit':>12s}"]
        for name, iv in self.statistics.items():
            limit = float(getattr(lim, STATISTICS[name][1]))
            rng = "" if iv.low is None else f"[{iv.low:.5g}, {iv.high:.5g}]"
            lines.append(f"{name:28s}{iv.mean:12.6g}{rng:>26s}{limit:12.6g}")
        c = self.centred_norm
        lines.append(f"{'||A^perp|| (-> 0)':28s}{c.mean:12.6g}")
        lines.append("finite-size bounds h <= s1^2 <= h + ||A^perp||^2, s2 <= ||A^perp||, "
                     "1 - alignment <= ||A^perp||^2/h: "
                     + ("hold in every draw" if self.bounds_hold else "VIOLATED"))
        lines.append(f"identity A A^T = hP + A^perp A^perp^T (C.13): largest error "
                     f"{self.worst_identity_error:.2e}")
        for label, iv in (("uncentered sqrt(n/h) A", self.ks_uncentered),
                          ("centred sqrt(n/h) A^perp", self.ks_centred)):
            if iv is not None:
                lines.append(f"KS of {label} to nu_inf,h: {iv.mean:.4f}")
        return "\n".join(lines)


def uncentered_check(model, draws=10, seed=0, law=True):
    """Simulate Corollary C.3 for ``model`` (kind 'attention').

    Parameters
    ----------
    model : AttentionModel
        kind 'attention' (any h, h_KV, input).
    draws : int >= 1
    seed : int >= 0
    law : bool, default True
        Also compare the bulk with ν_{∞,h} (needs β, γ_K in the laws' domain).

    Returns
    -------
    UncenteredCheck
    """
    m = _model(model)
    draws = v.positive_integer("draws", draws)
    seed = v.integer_at_least("seed", seed, 0)
    lim = uncentered_limits(m.beta, m.heads)
    nu = uncentered_law(m.beta, m.gamma_k, m.heads) if law else None
    rows, ks_u, ks_c = [], [], []
    ok, worst = True, 0.0
    for i in range(draws):
        st, full, centred = uncentered_draw(m, draw_seed(seed, i))
        rows.append(st)
        tol = 1e-10 * max(1.0, st.frobenius_sq)
        for value, low, high in st.bounds().values():
            ok &= low - tol <= value <= high + tol
        worst = max(worst, st.gram_identity_error, abs(st.bounds()["frobenius_identity"][0]))
        if nu is not None:
            ks_u.append(ks_distance(full, nu))
            ks_c.append(ks_distance(centred, nu))
    stats = {name: t_interval([getattr(r, attr) for r in rows], lower=0.0)  # all >= 0
             for name, (attr, _) in STATISTICS.items()}
    return UncenteredCheck(model=m, limits=lim, statistics=stats, bounds_hold=bool(ok),
                           worst_identity_error=float(worst),
                           centred_norm=t_interval([r.centred_norm for r in rows], lower=0.0),
                           ks_uncentered=t_interval(ks_u, lower=0.0) if ks_u else None,
                           ks_centred=t_interval(ks_c, lower=0.0) if ks_c else None)
