"""The proof's chain of equivalent models (Table 1), drawn from one set of weights.

Hayase & Karakida 2026 (arXiv 2610.10033), Section 4 and Table 1.  From one draw of the
queries Q_r, keys K_r and the Gaussian noise W_r, every intermediate model of the proof is
formed, so that consecutive models are *paired* (their difference is a matrix, not only a
difference of laws).  All matrices are n × h n and carry the attention-bulk scaling 1/sqrt(h)
(right multiplier T = I_{hn}/sqrt(h), as in Corollary C.3), so that each squared-singular-value
law tends to ν_{∞,h} (mean θ₁):

==================  =================================================  ==================
model               matrix (head block r, before the 1/sqrt(h))         equation
==================  =================================================  ==================
``softmax``         sqrt(n) A_r^⊥ = sqrt(n)(softmax(β S_r) − 1 1ᵀ/n)    (3.1), (4.1)
``features``        Y_r^f = f(S_r)/sqrt(n), f(x) = e^{βx − β²/2} − 1   (4.2): denominators
                                                                        replaced by n e^{β²/2}
``centred``         Y̊_r^f = Y_r^f − E[Y_r^f | K]                         (4.4): rank-one mean
``gaussian_f``      Y^G[Σ_f]_r = W̃_r Σ_{f,r}^{1/2}/sqrt(n)               (4.5), (4.11)
``gaussian_g``      Y^G[Σ_G]_r = W̃_r Σ_{G,r}^{1/2}/sqrt(n) = Y_r^G      (4.5), (3.2), (3.4)
==================  =================================================  ==================

The Gaussian rows W̃ are coupled to the Gaussian model Y^G = (sqrt(θ₂) S + sqrt(θ₁ − θ₂) W)/sqrt(n)
of (3.2): W̃_r = sqrt(n) Y_r^G Σ_{G,r}^{-1/2}.  Given the keys, each row of Y_r^G is
N(0, Σ_{G,r}/n), so the rows of W̃_r are i.i.d. N(0, I_n) *whatever the keys are*: W̃ is a
standard Gaussian matrix independent of the keys (what (4.5) asks of it), and then
Y^G[Σ_G] = Y^G exactly, the last line of Table 1 ("same conditional law").  The coupling
makes all five models paired through (Q, K, W); each model's conditional law given the keys
is the one of Table 1.  (W̃ is not independent of the queries, which (4.5) also asks: this
changes the joint law of ``centred`` and ``gaussian_f``, not either one's law.)

The four steps and the control that Table 1 and Lemmas 4.2–4.5 state for each
(:data:`STEPS`; rates as powers of n, n^{o(1)} and log factors dropped):

1. ``normalizers`` (Lemma 4.2): ‖sqrt(n) A^⊥ − Y^f P^⊥_⊕‖ ≤ n^{−1/2+o(1)}; Y^f P^⊥_⊕ − Y^f has
   rank ≤ h.
2. ``centering`` (Lemma 4.3): Y^f − Y̊^f has rank one and norm n^{o(1)} (O(sqrt(log n))).
3. ``gaussian_rows`` (Lemma 4.4, via Lemma B.10): |E m_q difference| ≤ n^{−1/2+o(1)}.
4. ``covariance`` (Lemma 4.5, via Lemma B.14): ‖Y^G[Σ_f] − Y^G[Σ_G]‖_F/sqrt(n) = O(sqrt(log n / n)).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import svds

from .. import _validation as v
from ._blas import single_threaded_blas
from ._lapack import eigvalsh
from .samplers import AttentionModel, _draw_qkv, draw_seed, theta1, theta2

__all__ = ["MODELS", "STEPS", "END_TO_END", "ChainStep", "ChainDraw", "chain_model",
           "chain_matrices", "chain_draw", "feature_covariance", "spectral_distances"]

#: the five models of Table 1, in the order of the chain
MODELS = ("softmax", "features", "centred", "gaussian_f", "gaussian_g")


@dataclass(frozen=True)
class ChainStep:
    """One step of Table 1: the pair it compares and the controls the paper states.

    ``rates`` maps a metric to ``(exponent, kind, statement)``: the distance is expected to
    behave like n^{exponent}; ``kind`` is ``'rate'`` (the paper's order, expected to be
    attained: the fitted slope should agree with it) or ``'bound'`` (an upper bound: the
    fitted slope should not exceed it); ``statement`` quotes the paper.
    """

    name: str
    pair: tuple
    lemma: str
    control: str
    rates: dict = field(default_factory=dict)


STEPS = (
    ChainStep("normalizers", ("softmax", "features"), "Lemma 4.2",
              "replace the row denominators by a constant: operator-norm error n^{-1/2+o(1)}; "
              "rank at most h",
              {"op": (-0.5, "rate", "||sqrt(n) A^perp - Y^f P^perp_+|| <= n^{-1/2+o(1)} "
                                    "(Lemma 4.2)"),
               "ks": (-0.5, "bound", "operator-norm error n^{-1/2+o(1)} plus rank <= h"),
               "w1": (-0.5, "bound", "(B.1) with the operator-norm error n^{-1/2+o(1)}"),
               "dm2": (-0.5, "bound", "(B.1)+(B.3): moment differences -> 0 at n^{-1/2+o(1)}")}),
    ChainStep("centering", ("features", "centred"), "Lemma 4.3",
              "subtract the conditional row mean: rank at most one; norms n^{o(1)}",
              {"op": (0.0, "bound", "rank one, norm O(sqrt(log n)) = n^{o(1)} (Lemma 4.3)"),
               "ks": (-1.0, "bound", "rank one: KS <= 2/n by interlacing"),
               "w1": (-1.0, "bound", "rank one, norms n^{o(1)}: (B.3)"),
               "dm2": (-1.0, "bound", "(B.3): 2 rank M^{2q}/n")}),
    ChainStep("gaussian_rows", ("centred", "gaussian_f"), "Lemma 4.4",
              "Gaussian rows with matching covariance: quadratic-form concentration; "
              "self-averaging",
              {"ks": (-0.5, "bound", "diagnostic: Table 1's slowest control n^{-1/2} "
                                     "applied to the spectral KS (no rate stated)"),
               "dm2": (-0.5, "bound", "|E m_q difference| <= n^{-1/2+o(1)} (Lemma B.10)")}),
    ChainStep("covariance", ("gaussian_f", "gaussian_g"), "Lemma 4.5",
              "approximate Sigma_f by Sigma_G: normalized Frobenius error O(sqrt(log n / n))",
              {"frob": (-0.5, "rate", "||Y^G[Sigma_f] - Y^G[Sigma_G]||_F/sqrt(n) = "
                                      "O(sqrt(log n/n)) (proof of Lemma B.14)"),
               "ks": (-0.5, "bound", "diagnostic: Table 1's slowest control n^{-1/2} "
                                     "applied to the spectral KS (no rate stated)"),
               "dm2": (-0.5, "bound", "(B.2) with the Frobenius error")}),
)
#: the whole chain's two ends (for context: the softmax-vs-Gaussian distance of Table D.2)
END_TO_END = ChainStep("end_to_end", ("softmax", "gaussian_g"), "Lemma 4.6",
                       "softmax attention against its Gaussian equivalent (Theorem 3.1)", {})

#: the step metrics: matrix distances (paired steps only) and spectral distances
MATRIX_METRICS = ("op", "frob")
SPECTRAL_METRICS = ("ks", "w1", "dm2")


def chain_model(beta, n, gamma_k=1.0, heads=2, kv_heads=None):
    """The attention model (kind 'attention', d = n) whose chain is drawn.

    Parameters as :meth:`AttentionModel.from_ratios` (β in [1e-6, 20], n >= 2,
    d_K = γ_K n/h rounded when within 0.5 %, h >= 1, h_KV dividing h).
    """
    return AttentionModel.from_ratios(beta, n, gamma_k, heads, kind="attention",
                                      kv_heads=kv_heads)


def _check_model(model):
    if not isinstance(model, AttentionModel):
        raise TypeError(f"model must be an AttentionModel, got {type(model).__name__}")
    if model.kind != "attention" or model.x is not None or model.d != model.n:
        raise v.ParameterError("model", "the chain is drawn for kind 'attention' with the "
                                        "default input (d = n)")
    if model.d_k <= 4 * model.beta ** 2:
        raise v.ParameterError("model", f"d_k must exceed 4 beta^2 = {4 * model.beta ** 2:.4g} "
                                        f"(finite feature moments), got d_k = {model.d_k}")
    return model


def feature_covariance(sigma_k, beta):
    """Σ_{f,r}: conditional covariance of a row of f(S_r) given the keys, eq. (4.11)/(B.13).

    (Σ_f)_{ij} = e^{β²(ρ_ii + ρ_jj − 2)/2} (e^{β² ρ_ij} − 1), ρ = Σ_{K,r} = K_r K_rᵀ/d_K.

    Parameters
    ----------
    sigma_k : ndarray (n, n), symmetric positive semidefinite
    beta : float > 0

    Returns
    -------
    ndarray (n, n)
    """
    b2 = float(v.positive("beta", beta)) ** 2
    sigma_k = np.asarray(sigma_k, dtype=float)
    g = np.exp(b2 * (np.diag(sigma_k) - 1.0) / 2.0)
    out = np.expm1(b2 * sigma_k)
    out *= g[:, None]
    out *= g[None, :]
    return out


def _sqrt_psd(c):
    """Symmetric square root of a PSD matrix by eigh.

    Eigenvalues below 0 by at most 1e-10 ‖c‖ (rounding) are set to 0; a more negative one
    raises ArithmeticError (the matrix is not a covariance)."""
    w, u = scipy.linalg.eigh(c, check_finite=False)
    lo = -1e-10 * max(abs(w[-1]), 1.0)
    if w[0] < lo:
        raise ArithmeticError(f"covariance has a negative eigenvalue {w[0]:.3g}")
    return (u * np.sqrt(np.maximum(w, 0.0))) @ u.T


def _key_blocks(model, rng):
    q, k, _ = _draw_qkv(model, rng, need_v=False)
    return q, k


def chain_matrices(model, seed):
    """The five models of Table 1 from one draw, and the pieces of their construction.

    Parameters
    ----------
    model : AttentionModel
        kind 'attention', default input (d = n), d_K > 4β²; h heads, h_KV key heads.
    seed : int >= 0 or SeedSequence
        Draw ``seed``: queries/keys from ``draw_seed(seed, 0)``, noise W from
        ``draw_seed(seed, 1)`` (the streams of the Monte Carlo checker).

    Returns
    -------
    dict
        ``MODELS`` → ndarray (n, h n), each scaled by 1/sqrt(h); and ``'features_perp'``
        (Y^f P^⊥_⊕/sqrt(h)), ``'row_mean'`` (the conditional mean of sqrt(n) Y^f, shape (h, n),
        eq. (4.4)), ``'normalizers'`` (D_r diagonals, (h, n), eq. (4.2)), ``'sigma_k'``,
        ``'sigma_f'``, ``'sigma_g'`` (lists of n × n blocks per key head).
    """
    m = _check_model(model)
    n, h = m.n, m.heads
    b, th1, th2 = m.beta, theta1(m.beta), theta2(m.beta)
    rng = np.random.default_rng(draw_seed(seed, 0))
    noise = np.random.default_rng(draw_seed(seed, 1))
    q, k = _key_blocks(m, rng)
    dk, per = m.d_k, h // m.kv_heads
    scale = 1.0 / math.sqrt(h)
    out = {name: np.empty((n, h * n)) for name in MODELS}
    out["features_perp"] = np.empty((n, h * n))
    out.update(row_mean=np.empty((h, n)), normalizers=np.empty((h, n)),
               sigma_k=[], sigma_f=[], sigma_g=[])
    for r in range(h):
        g = r // per  # query heads g·per … (g+1)·per − 1 share key head g
        kr = k[:, g * dk:(g + 1) * dk]
        if r % per == 0:  # the first query head of key head g: its covariance blocks
            sk = kr @ kr.T / dk
            wk, uk = scipy.linalg.eigh(sk, check_finite=False)
            wk = np.maximum(wk, 0.0)
            sg = th2 * sk + (th1 - th2) * np.eye(n)
            sg_inv_half = (uk / np.sqrt(th2 * wk + th1 - th2)) @ uk.T
            sf = feature_covariance(sk, b)
            sf_half = _sqrt_psd(sf)
            mean = np.expm1(b * b * (np.diag(sk) - 1.0) / 2.0)  # (4.4)
            coupling = sg_inv_half @ sf_half
            out["sigma_k"].append(sk)
            out["sigma_f"].append(sf)
            out["sigma_g"].append(sg)
        s = q[:, r * dk:(r + 1) * dk] @ kr.T / math.sqrt(dk)
        cols = slice(r * n, (r + 1) * n)
        zeta = np.exp(b * s - b * b / 2.0)           # e^{βS − β²/2} = f(S) + 1
        d_r = zeta.mean(axis=1)                      # D_r = Z_r/(n e^{β²/2}), (4.2)
        out["normalizers"][r] = d_r
        yf = (zeta - 1.0) / math.sqrt(n)
        out["features"][:, cols] = yf * scale
        out["features_perp"][:, cols] = (yf - yf.mean(axis=1, keepdims=True)) * scale
        # sqrt(n) A_r^⊥ = sqrt(n)(softmax(βS) − 1/n); softmax with the row maximum removed
        a = np.exp(b * (s - s.max(axis=1, keepdims=True)))
        a /= a.sum(axis=1, keepdims=True)
        out["softmax"][:, cols] = (a - 1.0 / n) * (math.sqrt(n) * scale)
        out["row_mean"][r] = mean
        out["centred"][:, cols] = (yf - mean[None, :] / math.sqrt(n)) * scale
        w = noise.standard_normal((n, n))
        yg = (math.sqrt(th2) * s + math.sqrt(th1 - th2) * w) / math.sqrt(n)   # (3.2)
        out["gaussian_g"][:, cols] = yg * scale
        out["gaussian_f"][:, cols] = (yg @ coupling) * scale  # W̃ Σ_f^{1/2}/sqrt(n)
    return out


def _gram_eigenvalues(mat):
    """All n eigenvalues of M Mᵀ (ascending), M of shape (n, p)."""
    gram = mat @ mat.T
    return eigvalsh(gram, overwrite_a=True)


def _opnorm(mat, seed=0):
    """Largest singular value of ``mat`` (Lanczos, ARPACK, relative tolerance 1e-10)."""
    v0 = np.random.default_rng(seed).standard_normal(min(mat.shape))
    s = svds(mat, k=1, return_singular_vectors=False, tol=1e-10, v0=v0)
    return float(s[0])


def spectral_distances(a, b, mean):
    """KS, relative W₁ and relative |Δm₂| between two samples of n eigenvalues each.

    ks = sup_x |F_a(x) − F_b(x)|; w1 = mean |a_(i) − b_(i)| / mean (ordered samples);
    dm2 = |m₂(a) − m₂(b)| / mean² (second moments of the squared singular values).
    """
    a = np.sort(np.asarray(a, dtype=float))
    b = np.sort(np.asarray(b, dtype=float))
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("a and b must be 1-d samples of equal size")
    pts = np.concatenate([a, b])
    fa = np.searchsorted(a, pts, side="right")
    fb = np.searchsorted(b, pts, side="right")
    ks = float(np.max(np.abs(fa - fb))) / a.size
    w1 = float(np.mean(np.abs(a - b))) / mean
    dm2 = abs(float(np.mean(a * a) - np.mean(b * b))) / mean ** 2
    return {"ks": ks, "w1": w1, "dm2": dm2}


@dataclass(frozen=True)
class ChainDraw:
    """Distances along the chain for one draw.

    Attributes
    ----------
    n, heads : int
    steps : dict
        step name (and ``'end_to_end'``) → {metric: value}; matrix metrics ``op``
        (operator norm of the difference) and ``frob`` (‖difference‖_F/sqrt(n)) for the
        paired steps, spectral ``ks``, ``w1`` (relative to θ₁), ``dm2`` (relative to θ₁²).
    rank_normalizers : int
        Numerical rank of Y^f − Y^f P^⊥_⊕ (Lemma 4.2: at most h).
    max_normalizer_deviation : float
        max_{r,i} |D_{r,ii} − 1| (Lemma B.7: n^{−1/2+ε}).
    spectra : dict or None
        model → its n eigenvalues (only when requested).
    """

    n: int
    heads: int
    steps: dict
    rank_normalizers: int
    max_normalizer_deviation: float
    spectra: dict | None = None

    def to_dict(self):
        return {"n": self.n, "heads": self.heads, "steps": self.steps,
                "rank_normalizers": self.rank_normalizers,
                "max_normalizer_deviation": self.max_normalizer_deviation}


def chain_draw(model, seed, keep_spectra=False):
    """Distances between consecutive models of Table 1 for one draw (see the module notes).

    Parameters
    ----------
    model : AttentionModel
        kind 'attention', default input, d_K > 4β².
    seed : int >= 0 or SeedSequence
    keep_spectra : bool, default False
        Keep the five eigenvalue samples in the result.

    Returns
    -------
    ChainDraw

    Raises
    ------
    ParameterError
        For a model of another kind or input, or d_K <= 4β².
    """
    m = _check_model(model)
    with single_threaded_blas():
        mats = chain_matrices(m, seed)
        n, th1 = m.n, theta1(m.beta)
        spectra = {name: _gram_eigenvalues(mats[name]) for name in MODELS}
        steps = {}
        for step in STEPS + (END_TO_END,):
            a, b = step.pair
            d = spectral_distances(spectra[a], spectra[b], th1)
            if step.name == "normalizers":  # Lemma 4.2's operator-norm comparison
                diff = mats["softmax"] - mats["features_perp"]
            elif step.name in ("centering", "covariance"):
                diff = mats[a] - mats[b]
            else:
                diff = None  # not coupled by a matrix identity: only laws are compared
            if diff is not None:
                d["op"] = _opnorm(diff)
                d["frob"] = float(np.linalg.norm(diff)) / math.sqrt(n)
            steps[step.name] = d
        low = mats["features"] - mats["features_perp"]  # Y^f P_⊕ / sqrt(h): rank ≤ h
        sv = np.linalg.svd(low.reshape(n, m.heads, n)[:, :, 0], compute_uv=False)
        # every column block of Y^f P_⊕ is constant: its rank is that of one column per head
        rank = int(np.sum(sv > 1e-12 * max(sv[0], 1e-300) * n))
        dev = float(np.max(np.abs(mats["normalizers"] - 1.0)))
    return ChainDraw(n=n, heads=m.heads, steps=steps, rank_normalizers=rank,
                     max_normalizer_deviation=dev,
                     spectra=spectra if keep_spectra else None)
