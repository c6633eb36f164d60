"""Finite softmax attention models and their Gaussian equivalents, drawn with shared weights.

Notation of Hayase & Karakida 2026 (arXiv 2610.10033, §2 and App. C) and Hayase, Collins & Karakida (AISTATS 2026).
For each draw the true softmax model and the finite Gaussian model (eq. 3.2–3.3) are built
from the **same** query/key/value/output weights; the Gaussian model uses independent noise.

Model kinds and the matrix ``M`` whose left Gram ``M Mᵀ`` (n × n) is diagonalised:

================  ==========================================  ==============================
kind              softmax model M                             limit law (Hayase & Karakida 2026)
================  ==========================================  ==============================
``attention``     sqrt(n/h) [A_1^⊥, …, A_h^⊥]  (h = 1: sqrt(n) A^⊥)   ν_{∞,h}, mean θ₁
``head_average``  sqrt(n h) (Ā − P)                           ρ_{γ_K} ⊠ π₁, mean θ₁
``values``        Z_V = [A_1^⊥ V_1, …, A_h^⊥ V_h]             ν_{∞,h} ⊠ π_{γ_V}, mean γ_V θ₁
``mha``           MHA^⊥(X) = Z_V W^O, W^O = G_O/sqrt(h d_V)   (C.15), mean γ_O θ₁
================  ==========================================  ==============================

In the Gaussian model each A_r^⊥ is replaced by Y_r^G / sqrt(n) with
Y_r^G = (sqrt(θ₂) S_r + sqrt(θ₁ − θ₂) W_r)/sqrt(n) (eq. 3.2), so that sqrt(n) A_r^⊥ ↔ Y_r^G and
every kind above has the same normalisation in both models.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg

from .. import _validation as v
from ..attention.single_head import theta1, theta2  # one definition of θ₁, θ₂
from ._blas import single_threaded_blas
from ._lapack import eigvalsh

__all__ = [
    "KINDS",
    "BETA_MODEL_RANGE",
    "AttentionModel",
    "Draw",
    "theta1",
    "theta2",
    "softmax_rows",
    "sample",
    "draw_seed",
]

# Kinds and the β domain of the finite models are declared once, beside the laws' domain, in
# freeattn.attention.config (BETA_MODEL_RANGE = [1e-6, 20]: θ₁ = e^{β²} − 1 must stay a finite,
# non-zero float64; the laws themselves are verified on the narrower BETA_LAW_RANGE).
from ..attention.config import (BETA_MODEL_RANGE, KINDS, MHAConfig, WidthRatios,  # noqa: E402
                                width_from_ratio)


@dataclass(frozen=True, eq=False)
class AttentionModel(WidthRatios):
    """A finite self-attention model to simulate (Hayase & Karakida 2026, §2).

    Parameters
    ----------
    beta : float
        Inverse temperature β of the softmax, in ``BETA_MODEL_RANGE`` = [1e-6, 20]
        (:mod:`freeattn.attention.config`).
    n : int
        Context length (tokens), n >= 2.
    d_k : int
        Query/key width per head, >= 1.
    heads : int, default 1
        Number of heads h >= 1.
    kind : {'attention', 'head_average', 'values', 'mha'}
        Which matrix to diagonalise (see the module docstring).
    d : int, optional
        Input width, d >= n (default n).
    d_v, d_o : int, optional
        Value width per head (default d_k) and output width (default d).
    kv_heads : int, optional
        Number of key/value heads h_KV dividing ``heads`` (default ``heads``; 1 is MQA).
        Query head r uses key/value head ``r // (heads // kv_heads)``.
    tied : bool, default False
        Tie W^V_r = W^K_r within each head (requires d_v == d_k).
    rho : float in [0, 1], optional
        Partial within-head correlation W^V_r = ρ W^K_r + sqrt(1 − ρ²) W̃_r, W̃_r an
        independent N(0, 1/d) copy (requires d_v == d_k; not with ``tied`` unless ρ = 1).
        The W̃ draw is the one the independent model uses for W^V, so ρ = 0 reproduces it.
    x : ndarray of shape (n, d), optional
        Real input with X Xᵀ/d = I_n (checked to 1e-8, or to 1e-4 for float32 input); a
        float64 copy is kept. Default sqrt(d)[I_n, 0]; then Q = X W^Q only depends on the
        first n rows of W^Q, so only those are drawn (N(0,1) entries).

    Raises
    ------
    ValueError
        For a parameter outside its domain; the message names it and the allowed range.
    TypeError
        For a non-numeric parameter, a non-boolean ``tied`` or a non-real ``x``.
    """

    beta: float
    n: int
    d_k: int
    heads: int = 1
    kind: str = "attention"
    d: int | None = None
    d_v: int | None = None
    d_o: int | None = None
    kv_heads: int | None = None
    tied: bool = False
    x: np.ndarray | None = field(default=None, repr=False)
    rho: float | None = None

    def __post_init__(self):
        set_ = lambda k, val: object.__setattr__(self, k, val)  # noqa: E731
        if self.kind not in KINDS:
            raise v.ParameterError("kind", f"kind must be one of {KINDS}, got {self.kind!r}")
        if not isinstance(self.tied, (bool, np.bool_)):
            raise TypeError(f"tied must be True or False, got {self.tied!r}")
        set_("tied", bool(self.tied))
        cfg = MHAConfig(n=self.n, d=self.d, heads=self.heads, kv_heads=self.kv_heads,
                        d_k=self.d_k, d_v=self.d_v, d_o=self.d_o, beta=self.beta,
                        sharing=_sharing(self.tied, self.heads, self.kv_heads), rho=self.rho)
        for name in ("beta", "n", "d", "heads", "kv_heads", "d_k", "d_v", "d_o", "rho"):
            set_(name, getattr(cfg, name))
        set_("_config", cfg)
        n, d = cfg.n, cfg.d
        if self.x is not None:
            given = np.asarray(self.x)
            if given.dtype.kind not in "biuf":
                raise TypeError(f"x must be a real numeric array, got dtype {given.dtype}")
            x = np.array(given, dtype=float)  # a copy: later edits of the caller's array
            if x.shape != (n, d):              # must not change the model
                raise ValueError(f"x must have shape (n, d) = ({n}, {d}), got {x.shape}")
            if not np.all(np.isfinite(x)):
                raise ValueError("x must be finite")
            tol = 1e-4 if given.dtype.itemsize < 8 else 1e-8
            err = float(np.max(np.abs(x @ x.T / d - np.eye(n))))
            if err > tol:
                raise ValueError(f"x must satisfy x @ x.T / d == I_n (orthogonal inputs) to "
                                 f"{tol:g}; max deviation {err:.3g}")
            set_("x", x)

    @classmethod
    def from_ratios(cls, beta, n, gamma_k, heads=1, *, kind="attention", d=None,
                    gamma_v=None, gamma_o=None, kv_heads=None, tied=False, x=None, rho=None):
        """Build a model from the proportional-limit ratios of Hayase & Karakida 2026, §2.

        d_K = γ_K n / h, d_V = γ_V n / h (default d_V = d_K), d_O = γ_O n (default d); each is
        rounded to the nearest positive integer when within 0.5 % of it
        (:func:`freeattn.attention.config.width_from_ratio`), else ParameterError naming the
        ratio and the nearest widths.  The model carries the realised widths and ratios.
        """
        n = v.integer_at_least("n", n, 2)
        heads = v.positive_integer("heads", heads)
        d_k = width_from_ratio("gamma_k", gamma_k, n, heads)
        d_v = None if gamma_v is None else width_from_ratio("gamma_v", gamma_v, n, heads)
        d_o = None if gamma_o is None else width_from_ratio("gamma_o", gamma_o, n, 1)
        return cls(beta=beta, n=n, d_k=d_k, heads=heads, kind=kind, d=d, d_v=d_v, d_o=d_o,
                   kv_heads=kv_heads, tied=tied, x=x, rho=rho)

    @classmethod
    def from_config(cls, cfg, kind="mha", x=None):
        """The finite softmax/Gaussian model of the layer ``cfg`` (replaces ``MHAConfig.model``).

        The model draws with cfg's float β and ρ; ``model.config`` is ``cfg`` itself, so that
        ``model.law()`` is ``cfg.law(kind)`` (an exact β or ρ of cfg kept exact).

        Parameters
        ----------
        cfg : freeattn.attention.MHAConfig
            The layer (widths, heads, sharing, β, ρ).
        kind : {'attention', 'head_average', 'values', 'mha'}, default 'mha'
            Which matrix of the layer the model samples.
        x : ndarray of shape (n, d), optional
            Input with X Xᵀ/d = I_n (default sqrt(d)[I_n, 0]).

        Returns
        -------
        AttentionModel

        Raises
        ------
        ParameterTypeError
            If ``cfg`` is not an MHAConfig.
        """
        if not isinstance(cfg, MHAConfig):
            raise v.ParameterTypeError("cfg", f"cfg must be an MHAConfig, got "
                                              f"{type(cfg).__name__}")
        model = cls(beta=cfg.beta, n=cfg.n, d_k=cfg.d_k, heads=cfg.heads, kind=kind, d=cfg.d,
                    d_v=cfg.d_v, d_o=cfg.d_o, kv_heads=cfg.kv_heads, tied=cfg.tied, x=x,
                    rho=cfg.rho)
        object.__setattr__(model, "_config", cfg)
        return model

    @property
    def theta1(self):
        return theta1(self.beta)

    @property
    def theta2(self):
        return theta2(self.beta)

    @property
    def config(self):
        """This model's layer as a :class:`freeattn.attention.MHAConfig`."""
        return self._config

    def law(self):
        """The limit law of this model's kind at its β and ratios (``config.law(kind)``).

        Raises ParameterError when the model lies outside the laws' domain
        (``BETA_LAW_RANGE`` = [0.01, 4], γ in [1e-3, 1e3]).
        """
        return self._config.law(self.kind)

    def limit_mean(self):
        """First moment of the limit law, ``self.law().mean()`` (Hayase & Karakida 2026, App. C).

        attention, head_average: θ₁; values: γ_V θ₁ (tied: γ_K θ₁ + h θ₂, eq. (C.20));
        mha: γ_O θ₁ (tied: γ_O (θ₁ + h θ₂ / γ_K)).  Sharing K/V across heads changes nothing.
        """
        return float(self.law().mean())

    @property
    def columns(self):
        """Number of columns of M (the Gram is always n × n)."""
        return {"attention": self.n * self.heads, "head_average": self.n,
                "values": self.heads * self.d_v, "mha": self.d_o}[self.kind]

    def draw_bytes(self, gaussian=True, method="direct"):
        """Peak memory of one :func:`sample` of this model, in bytes (an estimate).

        Counts the float64 arrays alive at once. 'direct' (and kinds 'attention',
        'head_average'): weights (Q, K, V, W^O, the per-query-head value stack), a stack of
        per-head logits, noise and its reshaped copy (heads are batched,
        :data:`HEAD_STACK_BYTES`), the softmax and Gaussian Grams, and the value columns of
        kinds 'values'/'mha'. 'reduced': weights, the two concatenated head outputs
        (n × h d_V), a stack of per-head n × n exponentials, and the output stage (the joint
        Gram of both models and its factor, or the Bartlett factor, and both Grams).
        """
        n, h, hkv, dk, dv = self.n, self.heads, self.kv_heads, self.d_k, self.d_v
        need_v = self.kind in ("values", "mha")
        stack = max(1, min(h, HEAD_STACK_BYTES // (8 * n * n))) * n * n
        models = 2 if gaussian else 1
        x_temp = self.d * h * dk if self.x is not None else 0  # X W from a d × width draw
        if method == "reduced" and need_v:
            c = max(1, min(h, HEAD_STACK_BYTES // (8 * n * n)))
            weights = n * (h + hkv) * dk + 2 * n * hkv * dv + x_temp
            heads_out = models * n * h * dv + stack + 3 * c * n * dv
            if self.kind == "mha":
                p = h * dv
                r = _output_rank(n, models, p, self.d_o)
                stage = (models * n * p + 2 * (models * n) ** 2 if r < p else 0) \
                    + r * min(r, self.d_o) + n * r + models * n * n
            else:
                stage = models * n * n
            return 8 * (weights + heads_out + stage)
        weights = n * (h + hkv) * dk + (n * hkv * dv if need_v and not self.tied else 0)
        weights += n * h * dv if need_v else 0
        weights += x_temp
        if self.kind == "mha":
            weights += h * dv * self.d_o + n * self.d_o
        per_model = n * n + (n * h * dv if need_v else 0)
        return 8 * (weights + 3 * stack + models * per_model)

    def to_dict(self):
        """JSON-able description (the input ``x`` is reported only as custom/default)."""
        return {"kind": self.kind, "beta": self.beta, "n": self.n, "d": self.d,
                "heads": self.heads, "kv_heads": self.kv_heads, "d_k": self.d_k,
                "d_v": self.d_v, "d_o": self.d_o, "tied": self.tied, "rho": self.rho,
                "gamma_k": self.gamma_k, "input": "default" if self.x is None else "custom"}


@dataclass(frozen=True, eq=False)
class Draw:
    """One draw: eigenvalues of the left Gram matrices of both models.

    Attributes
    ----------
    softmax, gaussian : ndarray of shape (n,)
        All n eigenvalues of M Mᵀ, ascending, zeros included (numerical zeros with
        |λ| <= 10 max(n, cols) eps λ_max are set to exactly 0). ``gaussian`` is None when the
        Gaussian model was not requested.
    softmax_top, gaussian_top : ndarray of shape (top_k,)
        Largest singular values of M, descending (square roots of the top eigenvalues).
    """

    softmax: np.ndarray
    gaussian: np.ndarray | None
    softmax_top: np.ndarray
    gaussian_top: np.ndarray | None


def softmax_rows(logits, out=None, scale=1.0):
    """Row-wise softmax of ``scale * logits``, overflow-safe (row maximum subtracted first).

    Parameters
    ----------
    logits : ndarray of shape (..., n, m)
        Rows along the last axis (a stack of heads (h, n, m) is one call).
    out : ndarray of the same shape, optional
        May be ``logits`` itself (in place).
    scale : float > 0, default 1
        Inverse temperature applied inside: softmax(scale · logits), without a scaled copy.

    Returns
    -------
    ndarray of the shape of ``logits``, rows summing to one. Finite for any finite input.
    """
    scale = float(v.positive("scale", scale))
    logits = np.asarray(logits, dtype=float)
    if out is None:
        out = np.empty_like(logits)
    np.subtract(logits, logits.max(axis=-1, keepdims=True), out=out)
    if scale != 1.0:
        out *= scale  # max(scale·x) = scale·max(x) for scale > 0
    np.exp(out, out=out)
    out /= out.sum(axis=-1, keepdims=True)
    return out


def draw_seed(seed, index):
    """SeedSequence of draw ``index``: equal to ``SeedSequence(seed).spawn(k)[index]``.

    ``seed`` is a non-negative int or a SeedSequence; nothing is mutated, so the seeds of
    draws do not depend on the order or the process in which they are made.
    """
    if isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + (index,),
                                      pool_size=seed.pool_size)
    seed = v.integer_at_least("seed", seed, 0)
    return np.random.SeedSequence(seed, spawn_key=(index,))


def _spectrum(gram, cols, top_k, rank=None):
    if gram.dtype == np.float32:  # precision='float32': LAPACK ssyevr (scipy), eigenvalues only
        eig = scipy.linalg.eigvalsh(gram, overwrite_a=True, check_finite=False,
                                    driver="evr").astype(np.float64)
        # a float32 tolerance (10 max(n, cols) eps₃₂ λ_max ~ 1e-3 λ_max) would swallow true
        # small eigenvalues (a hard edge at 0 has many): zero exactly the n − rank
        # structural zeros instead, rank = min(n, h d_V, d_O) of the product
        eig[:gram.shape[0] - rank] = 0.0
    else:
        eig = eigvalsh(gram, overwrite_a=True)  # the Gram is a temporary of this draw
        lam_max = max(abs(eig[-1]), abs(eig[0]))
        tol = 10.0 * max(gram.shape[0], cols) * np.finfo(float).eps * lam_max
        eig[np.abs(eig) <= tol] = 0.0
    top = np.sqrt(np.maximum(eig[::-1][:top_k], 0.0))
    return eig, top


class _Assembler:
    """Accumulates the Gram M Mᵀ of one model from per-head A_r^⊥ (or Y_r^G/sqrt(n))."""

    def __init__(self, model, vo):
        self.m = model
        self.vo = vo  # per head: V_r (values, mha)
        self.acc = None
        self.cols = []

    def add(self, r, b):
        """Add heads r, r+1, …, r+c−1 given as a stack b of shape (c, n, n)."""
        kind = self.m.kind
        c, n = b.shape[0], b.shape[1]
        if kind == "attention":
            wide = b.transpose(1, 0, 2).reshape(n, c * n) if c > 1 else b[0]
            g = wide @ wide.T  # Σ_r B_r B_rᵀ in one SYRK
            if self.acc is None:
                self.acc = g
            else:
                self.acc += g
        elif kind == "head_average":
            s = b.sum(axis=0)
            if self.acc is None:
                self.acc = s
            else:
                self.acc += s
        else:
            out = np.matmul(b, self.vo[r:r + c])  # (c, n, d_V): B_r V_r, one batched GEMM
            self.cols.append(out.transpose(1, 0, 2).reshape(n, -1))

    def gram(self, w_o):
        m, kind = self.m, self.m.kind
        if kind == "attention":
            self.acc *= m.n / m.heads
            return self.acc
        if kind == "head_average":
            g = self.acc @ self.acc.T
            g *= m.n / m.heads
            return g
        c = np.concatenate(self.cols, axis=1) if len(self.cols) > 1 else self.cols[0]
        if kind == "values":
            return c @ c.T
        out = c @ w_o
        return out @ out.T


def _meminfo_available():
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cgroup_room():
    """Bytes left under this process's cgroup memory limit (v2 or v1), None without one."""
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        try:
            with open(limit_file) as fh:
                limit = fh.read().strip()
            if limit == "max" or int(limit) >= 2**60:  # no limit
                return None
            with open(usage_file) as fh:
                return max(int(limit) - int(fh.read().strip()), 0)
        except (OSError, ValueError):
            continue
    return None


def available_memory():
    """Bytes of memory a new draw can use now, or None where the OS does not say.

    The smallest of: available memory (``MemAvailable`` of /proc/meminfo, which counts
    reclaimable cache), the room left under a cgroup (container) limit, and physical memory.
    """
    candidates = [_meminfo_available(), _cgroup_room()]
    try:
        candidates.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - e.g. Windows
        pass
    candidates = [c for c in candidates if c is not None and c > 0]
    return min(candidates) if candidates else None


def _sharing(tied, heads, kv_heads):
    """MHAConfig's sharing name of a sampler's (tied, kv_heads)."""
    if tied:
        return "tied_kv"
    if kv_heads is None or kv_heads == heads:
        return "none"
    return "mqa" if kv_heads == 1 else "gqa"


def _widths(model):
    m = model
    text = f"n={m.n}, heads={m.heads}, d_k={m.d_k}"
    if m.x is not None:
        text += f", d={m.d}"
    if m.kind in ("values", "mha"):
        text += f", d_v={m.d_v}"
    if m.kind == "mha":
        text += f", d_o={m.d_o}"
    return text


def check_memory(model, gaussian=True, draws_at_once=1, method="direct"):
    """How many draws of ``model`` fit in memory at once, at most ``draws_at_once``.

    Raises
    ------
    MemoryError
        Before anything is allocated, when not even one draw fits in the memory available
        now (:func:`available_memory`, :meth:`AttentionModel.draw_bytes`).
    """
    need, have = model.draw_bytes(gaussian, method), available_memory()
    if have is None:
        return draws_at_once
    if need > have:
        raise MemoryError(
            f"one draw of this model needs about {need / 2**30:.3g} GiB ({_widths(model)}), "
            f"more than the {have / 2**30:.3g} GiB of memory available; reduce n or the "
            f"widths")
    return max(1, min(draws_at_once, have // need))


#: How a draw is computed (:func:`sample`): both give the same joint law of the two spectra.
METHODS = ("reduced", "direct")


def sample(model, seed, *, gaussian=True, top_k=3, blas_threads=1, method="direct",
           precision="float64"):
    """Draw one softmax model and its Gaussian equivalent with the same weights.

    Parameters
    ----------
    model : AttentionModel
    seed : int or numpy.random.SeedSequence
        Weights come from child 0 of this seed sequence, the Gaussian noise W_r from child 1.
    gaussian : bool, default True
        Also build the finite Gaussian model (Hayase & Karakida 2026, eq. (3.2)–(3.3)).
    top_k : int, default 3
        How many top singular values to report separately.
    blas_threads : 1 or None, default 1
        1 pins BLAS to one thread for the draw, as :func:`run_draws` does, so that the
        result is bit-identical to draw i of a run; None keeps the process's BLAS threading
        (faster on many cores; the last bits then depend on the thread count).
    method : {'direct', 'reduced'}, default 'direct'
        How kinds 'values' and 'mha' are computed (kinds 'attention' and 'head_average' are
        always 'direct'). Both sample the **same joint law** of (softmax spectrum, Gaussian
        spectrum); see Notes. 'direct' forms every matrix of the paper literally (the
        default, so that a draw can be replayed from its seed matrix by matrix); 'reduced'
        does less work for the same law (what ``freeattn reproduce table-d2`` uses).
    precision : {'float64', 'float32'}, default 'float64'
        Arithmetic of a 'reduced' draw of kind 'values'/'mha' (the paper: float64). With
        'float32' the weights and noise are drawn in float64 from the same streams and
        rounded, every product and the eigenvalues (LAPACK ``ssyevr``) are float32: the
        float64 draw to about 1e-4 of the limiting mean per eigenvalue (measured on Table
        D.2's rows; docs/table-d2.md), 1.2 to 2.1 times faster. Other kinds and 'direct'
        refuse it (ParameterError 'precision').

    Returns
    -------
    Draw
        Eigenvalues (shape (n,), ascending) of M Mᵀ for each model, M as in the module
        docstring, so that the mean eigenvalue tends to ``model.limit_mean()``.

    Notes
    -----
    Weights: W^Q_r, W^K_r, W^V_r with N(0, 1/d) entries, W^O = G_O/sqrt(h d_V);
    S_r = Q_r K_rᵀ/sqrt(d_K); A_r = softmax(β S_r) computed overflow-safe (stable for β up
    to at least 10). Raises MemoryError before drawing when the draw needs more than the
    memory available (:meth:`AttentionModel.draw_bytes`, :func:`available_memory`). The
    Gram is diagonalised with LAPACK's two-stage symmetric driver ``dsyevd_2stage``
    (eigenvalues only), or with ``numpy.linalg.eigvalsh`` where that is absent.

    The softmax model is always computed in full (every A_r, n × n). ``method='reduced'``
    saves work in two places by exact identities in law, conditional on all Q/K/V weights:

    1. *Gaussian noise through the values.* The Gaussian head output is
       Y_r^G V_r / sqrt(n) = (β Q_r (K_rᵀ V_r)/sqrt(d_K) + sqrt(θ₁ − θ₂) W_r V_r)/n. Given
       V_r = U_r R_r (thin QR, R_r of shape k × d_V, k = min(n, d_V)), W_r V_r = (W_r U_r) R_r
       and W_r U_r has i.i.d. N(0, 1) entries (U_r has orthonormal columns, W_r is an
       independent Gaussian matrix), independent across query heads. So W_r V_r is drawn as
       Z_r R_r with Z_r an n × k standard Gaussian matrix: n k normals per head instead of
       n², and no n × n product for the Gaussian model.
    2. *Output projection through the joint row space.* With C_soft, C_Gauss the two
       n × h d_V concatenations, both Grams are C W^O W^Oᵀ Cᵀ with the same W^O, independent
       of the C's. If B = [C_soft; C_Gauss] = F Uᵀ with U (h d_V × r) orthonormal columns
       (F = Cholesky factor of B Bᵀ, r = 2n; or U = I, F = B, r = h d_V, whichever costs
       less), then Uᵀ W^O is an r × d_O matrix of i.i.d. N(0, 1/(h d_V)) entries. When
       d_O >= r its Gram is drawn by Bartlett's decomposition, Uᵀ W^O W^Oᵀ U = L Lᵀ with L
       lower triangular (L_ii² ~ χ²_{d_O − i}, L_ij ~ N(0, 1) below the diagonal, all over
       h d_V) (Bartlett 1933; Muirhead 1982, Thm 3.2.14); else Uᵀ W^O is drawn directly.
       Each Gram is then (F_m L)(F_m L)ᵀ. For GPT-3's row (h d_V = d_O = 12288, n = 2048)
       this replaces two 2048 × 12288 × 12288 products by one 4096 × 4096 Gram of B.

    With 'reduced' the softmax model's bits depend on whether the Gaussian model is drawn
    (route 2 uses both), its law does not; with 'direct' they do not.
    """
    if not isinstance(model, AttentionModel):
        raise TypeError(f"model must be an AttentionModel, got {type(model).__name__}")
    top_k = v.positive_integer("top_k", top_k)
    if blas_threads not in (1, None) or isinstance(blas_threads, bool):
        raise ValueError(f"blas_threads must be 1 or None, got {blas_threads!r}")
    method = _method(method)
    dtype = _precision(precision, method, model)
    if not isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(v.integer_at_least("seed", seed, 0))
    check_memory(model, gaussian, method=method)
    if blas_threads is None:
        return _sample(model, seed, gaussian, top_k, method=method, dtype=dtype)
    with single_threaded_blas():
        return _sample(model, seed, gaussian, top_k, method=method, dtype=dtype)


def _method(method):
    if method not in METHODS:
        raise v.ParameterError("method", f"method must be one of {METHODS}, got {method!r}")
    return method


#: Arithmetic of a 'reduced' draw (:func:`sample`).
PRECISIONS = ("float64", "float32")


def _precision(precision, method, model=None):
    """numpy dtype of ``precision``; float32 only for 'reduced' draws of 'values'/'mha'."""
    if precision not in PRECISIONS:
        raise v.ParameterError("precision",
                               f"precision must be one of {PRECISIONS}, got {precision!r}")
    if precision == "float32" and (method != "reduced" or (
            model is not None and model.kind not in ("values", "mha"))):
        raise v.ParameterError("precision", "precision='float32' needs method='reduced' and "
                                            "a model of kind 'values' or 'mha'")
    return np.float32 if precision == "float32" else np.float64


#: memory of one stack of per-head n × n arrays in a draw (:func:`_sample` batches heads)
HEAD_STACK_BYTES = 64 * 2**20


def _head_chunk(n, h):
    return max(1, min(h, HEAD_STACK_BYTES // (8 * n * n)))


def _sample(model, seed, gaussian, top_k, head_chunk=None, method="direct", dtype=np.float64):
    """One draw; ``head_chunk`` heads per batched GEMM (default: as many as fit in
    HEAD_STACK_BYTES; 1 is the per-head loop, kept for the benchmark)."""
    if method == "reduced" and model.kind in ("values", "mha"):
        return _sample_reduced(model, seed, gaussian, top_k, head_chunk, dtype)
    return _sample_direct(model, seed, gaussian, top_k, head_chunk)


def _projector(m, rng):
    def proj(width):  # X W with W (d × width) i.i.d. N(0, 1/d)
        if m.x is None:
            return rng.standard_normal((m.n, width))
        return m.x @ rng.standard_normal((m.d, width)) / math.sqrt(m.d)
    return proj


def _draw_qkv(m, rng, need_v=True):
    """Q, K (and V when ``need_v``) = X W of one draw, in this order from ``rng``: the one
    place where both methods draw the projection weights (W^V = W^K when tied,
    W^V = ρW^K + sqrt(1 − ρ²)W̃ with partial key–value correlation ρ)."""
    proj = _projector(m, rng)
    q = proj(m.heads * m.d_k)
    k = proj(m.kv_heads * m.d_k)
    vals = (k if m.tied else proj(m.kv_heads * m.d_v)) if need_v else None
    if need_v and m.rho is not None and not m.tied:  # V = X(ρW^K + sqrt(1 − ρ²)W̃), W̃ drawn above
        vals *= math.sqrt(1.0 - m.rho ** 2)
        vals += m.rho * k
    return q, k, vals


def _sample_direct(model, seed, gaussian, top_k, head_chunk=None):
    """Every matrix of the paper formed literally: n × n noise per head, W^O drawn."""
    rng = np.random.default_rng(draw_seed(seed, 0))
    noise = np.random.default_rng(draw_seed(seed, 1)) if gaussian else None
    m = model
    n, h, hkv, dk, dv = m.n, m.heads, m.kv_heads, m.d_k, m.d_v
    need_v = m.kind in ("values", "mha")
    q, k, vals = _draw_qkv(m, rng, need_v)
    w_o = rng.standard_normal((h * dv, m.d_o)) / math.sqrt(h * dv) if m.kind == "mha" else None
    group = h // hkv
    heads_of = np.arange(h) // group  # K/V head of each query head
    q3 = q.reshape(n, h, dk).transpose(1, 0, 2)  # (h, n, d_K) views, no copy
    k3 = k.reshape(n, hkv, dk).transpose(1, 0, 2)
    vo = vals.reshape(n, hkv, dv).transpose(1, 0, 2)[heads_of] if need_v else None

    soft = _Assembler(m, vo)
    gauss = _Assembler(m, vo) if gaussian else None
    # β S_r = scale · Q_r K_rᵀ with scale = β/sqrt(d_K); sqrt(θ₂) S_r = β S_r as θ₂ = β².
    # The scale is applied inside the softmax and the Gaussian sum, not to a copy of Q_r.
    scale = m.beta / math.sqrt(dk)
    noise_sd = math.sqrt(max(m.theta1 - m.theta2, 0.0))
    # heads in stacks of c: one batched GEMM (np.matmul on (c, n, ·) arrays) per stack
    # instead of a Python loop over heads; c keeps a stack of n × n arrays near HEAD_STACK_BYTES
    c = head_chunk or _head_chunk(n, h)
    for r0 in range(0, h, c):
        r1 = min(r0 + c, h)
        logits = np.matmul(q3[r0:r1], k3[heads_of[r0:r1]].transpose(0, 2, 1))  # Q_r K_rᵀ
        if gaussian:
            y = noise.standard_normal(logits.shape)  # the same stream as one (n, n) per head
            y *= noise_sd / scale
            y += logits
            y *= scale / n  # Y_r^G / sqrt(n), the Gaussian counterpart of A_r^⊥
            gauss.add(r0, y)
            del y
        a = softmax_rows(logits, out=logits, scale=scale)
        a -= 1.0 / n  # A_r^⊥ = A_r − P
        soft.add(r0, a)
        del a, logits
    s_eig, s_top = _spectrum(soft.gram(w_o), m.columns, top_k)
    if gaussian:
        g_eig, g_top = _spectrum(gauss.gram(w_o), m.columns, top_k)
    else:
        g_eig = g_top = None
    return Draw(s_eig, g_eig, s_top, g_top)


def _sample_reduced(model, seed, gaussian, top_k, head_chunk=None, dtype=np.float64):
    """Kinds 'values'/'mha' with the work-saving identities of :func:`sample` (Notes); the
    arithmetic in ``dtype`` (random numbers drawn in float64 and rounded)."""
    rng = np.random.default_rng(draw_seed(seed, 0))
    noise = np.random.default_rng(draw_seed(seed, 1)) if gaussian else None
    m = model
    n, h, hkv, dk, dv = m.n, m.heads, m.kv_heads, m.d_k, m.d_v
    scale = m.beta / math.sqrt(dk)
    q, k, vals = _draw_qkv(m, rng)
    q *= scale  # logits Q_r K_rᵀ · β/sqrt(d_K) = β S_r straight from the GEMM
    if dtype != np.float64:
        q, k = q.astype(dtype), k.astype(dtype)
        vals = k if m.tied else vals.astype(dtype)
    heads_of = np.arange(h) // (h // hkv)  # K/V head of each query head
    q3 = q.reshape(n, h, dk).transpose(1, 0, 2)  # (h, n, d_K) views, no copy
    k3 = k.reshape(n, hkv, dk).transpose(1, 0, 2)
    v3 = np.ascontiguousarray(vals.reshape(n, hkv, dv).transpose(1, 0, 2))  # (h_KV, n, d_V)
    v_mean = v3.mean(axis=1, keepdims=True)  # P V_r = 1 (1ᵀ V_r / n): the centring term
    c_soft = np.empty((n, h, dv), dtype)
    if gaussian:
        noise_sd = math.sqrt(max(m.theta1 - m.theta2, 0.0))
        kv = np.matmul(k3.transpose(0, 2, 1), v3)  # K_rᵀ V_r, (h_KV, d_K, d_V)
        # V_r = U_r R_r, R_r of shape (min(n, d_V), d_V) (in float64: small)
        r_v = np.linalg.qr(v3.astype(np.float64, copy=False), mode="r").astype(dtype, copy=False)
        c_gauss = np.empty((n, h, dv), dtype)
    c = head_chunk or _head_chunk(n, h)
    for r0 in range(0, h, c):
        r1 = min(r0 + c, h)
        g = heads_of[r0:r1]
        e = np.matmul(q3[r0:r1], k3[g].transpose(0, 2, 1))  # β S_r, (c, n, n)
        e -= e.max(axis=-1, keepdims=True)  # overflow-safe: exponents <= 0
        np.exp(e, out=e)
        out = np.matmul(e, v3[g])  # E_r V_r; A_r = D_r⁻¹ E_r with D_r the row sums
        out /= e.sum(axis=-1, keepdims=True)
        out -= v_mean[g]  # A_r^⊥ V_r = A_r V_r − P V_r
        c_soft[:, r0:r1] = out.transpose(1, 0, 2)
        del e, out
        if gaussian:  # (β S_r V_r + sqrt(θ₁ − θ₂) W_r V_r)/n, W_r V_r drawn as Z_r R_r
            z = noise.standard_normal((r1 - r0, n, r_v.shape[1])).astype(dtype, copy=False)
            y = np.matmul(z, r_v[g])
            y *= noise_sd
            y += np.matmul(q3[r0:r1], kv[g])
            y /= n
            c_gauss[:, r0:r1] = y.transpose(1, 0, 2)
            del z, y
    c_soft = c_soft.reshape(n, h * dv)
    c_gauss = c_gauss.reshape(n, h * dv) if gaussian else None
    if m.kind == "mha":
        grams = _output_grams(c_soft, c_gauss, m.d_o, rng)
    else:
        grams = [c_soft @ c_soft.T] + ([c_gauss @ c_gauss.T] if gaussian else [])
    del c_soft, c_gauss
    rank = min(n, h * dv, m.d_o if m.kind == "mha" else n)
    s_eig, s_top = _spectrum(grams[0], m.columns, top_k, rank)
    if gaussian:
        g_eig, g_top = _spectrum(grams[1], m.columns, top_k, rank)
    else:
        g_eig = g_top = None
    return Draw(s_eig, g_eig, s_top, g_top)


def bartlett_factor(r, dof, rng):
    """Lower-triangular L with L Lᵀ ~ Wishart_r(I, dof) (Bartlett's decomposition).

    L_ii = sqrt(χ²_{dof − i}) (i = 0, …, r − 1), L_ij ~ N(0, 1) for i > j, all independent
    (Bartlett 1933; Muirhead 1982, Theorem 3.2.14). Needs dof >= r. Row i uses i normals,
    drawn row by row from ``rng``.
    """
    if dof < r:
        raise ValueError(f"Bartlett's decomposition needs dof >= r, got dof={dof}, r={r}")
    out = np.zeros((r, r))
    for i in range(1, r):
        out[i, :i] = rng.standard_normal(i)
    out[np.diag_indices(r)] = np.sqrt(rng.chisquare(dof - np.arange(r)))
    return out


def _route_costs(n, models, p, d_o):
    """Flops of the output stage with U = I (r = p) and with the joint row space (r = mn)."""
    w = min(p, d_o)
    plain = models * (2 * n * p * w + n * n * w)
    r = models * n
    wj = min(r, d_o)
    joint = r * r * p + r ** 3 / 3 + models * (2 * n * r * wj + n * n * wj)
    return plain, joint


def _output_rank(n, models, p, d_o):
    """r of the output stage: ``models * n`` (joint row space) when that costs less, else p."""
    plain, joint = _route_costs(n, models, p, d_o)
    return models * n if (joint < plain and models * n < p) else p


def _output_grams(c_soft, c_gauss, d_o, rng):
    """Grams C W^O W^Oᵀ Cᵀ of both models with one W^O (N(0, 1/p) entries, p = h d_V),
    drawn through the joint row space of the C's (:func:`sample`, Notes, 2)."""
    n, p = c_soft.shape
    mats = [c_soft] if c_gauss is None else [c_soft, c_gauss]
    factors = None
    if _output_rank(n, len(mats), p, d_o) < p:
        b = np.concatenate(mats, axis=0)
        bbt = b @ b.T
        del b
        try:  # B Bᵀ = F Fᵀ, F lower triangular: B = F Uᵀ with U = Bᵀ F⁻ᵀ orthonormal
            f = np.linalg.cholesky(bbt)
        except np.linalg.LinAlgError:  # B numerically rank deficient: keep U = I
            f = None
        del bbt
        if f is not None:
            # the softmax rows only reach the first n columns of F (F is lower triangular)
            factors = [f[:n, :n]] + ([f[n:]] if c_gauss is not None else [])
    if factors is None:
        factors = mats
    r = factors[-1].shape[1]
    scale = 1.0 / math.sqrt(p)
    if d_o >= r:
        w_red = bartlett_factor(r, d_o, rng)
        w_red *= scale
    else:
        w_red = rng.standard_normal((r, d_o))
        w_red *= scale
    w_red = w_red.astype(c_soft.dtype, copy=False)
    grams = []
    for f in factors:
        # a lower-triangular W: columns beyond f's width meet only zeros of W's rows
        cols = f.shape[1]
        out = _times_lower(f, w_red[:cols, :cols]) if d_o >= r else f @ w_red[:cols]
        grams.append(out @ out.T)
        del out
    return grams


def _times_lower(f, low, blocks=8):
    """F L for lower-triangular L, skipping its zero upper blocks (about 56 % of a GEMM's
    work with 8 column blocks): column block j of F L is F[:, j0:] L[j0:, j0:j1]."""
    k = low.shape[0]
    edges = np.linspace(0, k, min(blocks, k) + 1).astype(int)
    out = np.empty((f.shape[0], k), np.result_type(f, low))
    for j0, j1 in zip(edges[:-1], edges[1:]):
        np.matmul(f[:, j0:], low[j0:, j0:j1], out=out[:, j0:j1])
    return out


def _draw_task(model, seed, gaussian, top_k, method="direct", precision="float64"):
    """Worker entry point: one draw with BLAS pinned to a single thread."""
    return sample(model, seed, gaussian=gaussian, top_k=top_k, blas_threads=1, method=method,
                  precision=precision)
