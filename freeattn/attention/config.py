"""One description of a multi-head attention layer for the limit laws and the simulations.

:class:`MHAConfig` holds the widths of a finite layer (n, d, h, h_KV, d_K, d_V, d_O), the
inverse temperature β and the K/V sharing pattern; the proportional-limit ratios
γ_K = h d_K / n, γ_V = h d_V / n, γ_O = d_O / n are derived from them.  ``.law(kind)`` is the
limit law, ``.model(kind)`` the finite softmax/Gaussian model of :mod:`freeattn.montecarlo`,
so that a law and the simulation that checks it cannot disagree about a parameter.

Parameter domains (declared here once, used by the laws and the samplers)
-------------------------------------------------------------------------
``BETA_LAW_RANGE`` = [0.01, 4]
    β of the limit laws (:func:`attention_law` and every law built on it): the range in which
    float64 edges, atoms and total mass are verified (mass 1 to 1e-10, m₁ = θ₁).  Below
    β = 0.01 a component of width ~ (θ₁ − θ₂)·1e-8 sits next to the bulk, beyond float64.
``BETA_MODEL_RANGE`` = [1e-6, 20]
    β of the finite models (:class:`MHAConfig`, :class:`freeattn.montecarlo.AttentionModel`):
    the softmax is overflow-safe for any β, but the Gaussian model needs θ₁ = e^{β²} − 1,
    which leaves float64 above β ≈ 26.6 and underflows to 0 below β ≈ 1e-8.  A model outside
    ``BETA_LAW_RANGE`` can be simulated, but ``.law()`` refuses it (ParameterError 'beta').
``GAMMA_RANGE`` = [1e-3, 1e3]
    γ_K, γ_V, γ_O of the limit laws.
``MAX_HEADS`` = 10 000
    h of the limit laws.
``WIDTH_RTOL`` = 5e-3
    :meth:`MHAConfig.from_ratios` accepts a ratio whose width (e.g. γ_K n / h) lies within
    this relative distance of an integer, and uses that integer width (and its exact ratio).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from functools import lru_cache

from .. import _validation as v
from .._validation import ParameterError, integer_at_least

__all__ = ["MHAConfig", "WidthRatios", "PRESETS", "KINDS", "SHARINGS", "check_sharing", "BETA_LAW_RANGE", "BETA_MODEL_RANGE",
           "GAMMA_RANGE", "MAX_HEADS", "WIDTH_RTOL", "width_from_ratio"]

BETA_LAW_RANGE = (0.01, 4.0)
BETA_MODEL_RANGE = (1e-6, 20.0)
GAMMA_RANGE = (1e-3, 1e3)
MAX_HEADS = 10_000
WIDTH_RTOL = 5e-3

#: which matrix of the layer a law or a simulation describes (see freeattn.montecarlo)
KINDS = ("attention", "head_average", "values", "mha")

#: across-head sharing and within-head tying of keys and values (Hayase & Karakida 2026, App. C)
SHARINGS = ("none", "gqa", "mqa", "tied_kv")


def width_from_ratio(name, ratio, n, per=1, rtol=WIDTH_RTOL, width_name=None):
    """The integer width ``round(ratio * n / per)``, if within ``rtol`` of ``ratio * n / per``.

    Parameters
    ----------
    name : str
        The ratio's name (``'gamma_k'``), used in errors.
    ratio : float > 0
    n, per : int
        Context length and divisor (h for per-head widths, 1 for d_O).
    rtol : float >= 0
        Relative tolerance on the rounding (default ``WIDTH_RTOL`` = 0.5 %).
    width_name : str, optional
        The width's name for the error message (default derived from ``name``).

    Returns
    -------
    int >= 1

    Raises
    ------
    ParameterError
        (``name``) if the width rounds to 0 or lies farther than ``rtol`` from an integer; the
        message names the two nearest widths and their exact ratios.
    """
    ratio = v.positive(name, ratio)
    raw = ratio * n / per
    width = int(round(raw))
    if width >= 1 and abs(raw - width) <= rtol * raw:
        return width
    wname = width_name or "d_" + name.rsplit("_", 1)[-1]
    lo, hi = max(math.floor(raw), 1), max(math.ceil(raw), 1)
    options = " or ".join(f"{wname}={w} ({name}={w * per / n:.6g})" for w in sorted({lo, hi}))
    per_s = " / heads" if per != 1 else ""
    raise ParameterError(name, f"{name} * n{per_s} = {raw:.6g} is not within {100 * rtol:g} % of a "
                               f"positive integer width (n={n}{f', heads={per}' if per != 1 else ''}); "
                               f"use {options}")


def check_sharing(sharing, heads, kv_heads):
    """Validate an across-head sharing pattern; return the number of K/V heads h_KV.

    Parameters
    ----------
    sharing : {'none', 'gqa', 'mqa', 'tied_kv'}
        'none': independent K/V per query head (h_KV = h); 'mqa': one K/V pair shared by all
        query heads (h_KV = 1); 'gqa': h_KV K/V heads with 1 < h_KV < h dividing h, each shared
        by h/h_KV query heads; 'tied_kv': W^V_r = W^K_r within each head (h_KV any divisor of
        h, default h).
    heads : int
    kv_heads : int or None

    Raises
    ------
    ParameterError
        ('sharing') for an unknown name; ('kv_heads') when h_KV does not fit the pattern.
    """
    if sharing not in SHARINGS:
        raise ParameterError("sharing", f"sharing must be one of {SHARINGS}, got {sharing!r}")
    if kv_heads is not None:
        kv_heads = integer_at_least("kv_heads", kv_heads, 1)
        if heads % kv_heads:
            raise ParameterError("kv_heads", f"kv_heads must divide heads={heads}, got {kv_heads}")
    if sharing == "none":
        if kv_heads not in (None, heads):
            raise ParameterError("kv_heads", f"sharing='none' has kv_heads = heads = {heads}, "
                                             f"got {kv_heads} (use sharing='gqa' or 'mqa')")
        return heads
    if sharing == "mqa":
        if kv_heads not in (None, 1):
            raise ParameterError("kv_heads", f"sharing='mqa' has kv_heads = 1, got {kv_heads}")
        return 1
    if sharing == "gqa":
        if kv_heads is None or not 1 < kv_heads < heads:
            raise ParameterError("kv_heads", f"sharing='gqa' needs kv_heads with 1 < kv_heads "
                                             f"< heads={heads} dividing heads, got {kv_heads}")
        return kv_heads
    return heads if kv_heads is None else kv_heads


class WidthRatios:
    """The proportional-limit ratios of a layer with widths n, h, d_K, d_V, d_O (shared by
    :class:`MHAConfig` and the Monte Carlo model; Hayase & Karakida 2026, §2)."""

    @property
    def gamma_k(self):
        """γ_K = h d_K / n."""
        return self.heads * self.d_k / self.n

    @property
    def gamma_v(self):
        """γ_V = h d_V / n."""
        return self.heads * self.d_v / self.n

    @property
    def gamma_o(self):
        """γ_O = d_O / n."""
        return self.d_o / self.n


@dataclass(frozen=True, kw_only=True)
class MHAConfig(WidthRatios):
    """A finite multi-head attention layer (Hayase & Karakida 2026, §2): widths, β and K/V sharing.

    Parameters (keyword-only)
    ----------
    n : int >= 2
        Context length (tokens).
    d : int >= n, optional
        Input width (default n); inputs X with X Xᵀ/d = I_n.
    heads : int >= 1, default 1
        Number of query heads h.
    kv_heads : int, optional
        Number of K/V heads h_KV (dividing h).  Default: h for 'none' and 'tied_kv', 1 for
        'mqa'; required for 'gqa' (1 < h_KV < h).
    d_k : int >= 1
        Query/key width per head d_K.
    d_v : int >= 1, optional
        Value width per head d_V (default d_K; must equal d_K for 'tied_kv').
    d_o : int >= 1, optional
        Output width d_O (default d).
    beta : float in BETA_MODEL_RANGE = [1e-6, 20], default 1
        Inverse temperature.
    sharing : {'none', 'gqa', 'mqa', 'tied_kv'}, default 'none'
        Across-head K/V sharing ('gqa', 'mqa') or within-head tying W^V_r = W^K_r ('tied_kv').
    rho : float in [0, 1], optional
        Within-head key–value correlation W^V_r = ρ W^K_r + sqrt(1 − ρ²) W̃_r (needs d_V = d_K;
        combines with 'none', 'gqa', 'mqa'; with 'tied_kv' only ρ = 1).  None: independent
        values (tied for 'tied_kv').  Beyond Hayase & Karakida 2026 (derivations/partial_kv.py).

    Raises
    ------
    ParameterError
        For a parameter outside its domain or inconsistent with another; ``.param`` names it.
    TypeError
        For a non-numeric width or β.

    Examples
    --------
    >>> cfg = MHAConfig.preset("bert-base")
    >>> cfg.gamma_k, cfg.gamma_v, cfg.gamma_o
    (1.5, 1.5, 1.5)
    >>> MHAConfig.from_ratios(333, gamma_k=0.3).d_k   # 0.3 * 333 = 99.9 rounds to 100
    100
    """

    n: int
    d: int | None = None
    heads: int = 1
    kv_heads: int | None = None
    d_k: int
    d_v: int | None = None
    d_o: int | None = None
    beta: float = 1.0
    sharing: str = "none"
    rho: float | None = None

    def __post_init__(self):
        set_ = lambda k, val: object.__setattr__(self, k, val)  # noqa: E731
        n = v.integer_at_least("n", self.n, 2)
        set_("n", n)
        set_("beta", float(v.in_closed_interval("beta", self.beta, *BETA_MODEL_RANGE)))
        heads = v.positive_integer("heads", self.heads)
        set_("heads", heads)
        d_k = v.positive_integer("d_k", self.d_k)
        set_("d_k", d_k)
        d = n if self.d is None else v.integer_at_least("d", self.d, 1)
        if d < n:
            raise ParameterError("d", f"d must be an integer >= n={n} (orthogonal inputs "
                                      f"X Xᵀ/d = I_n need n <= d), got {d}")
        set_("d", d)
        d_v = d_k if self.d_v is None else v.positive_integer("d_v", self.d_v)
        set_("d_v", d_v)
        set_("d_o", d if self.d_o is None else v.positive_integer("d_o", self.d_o))
        set_("kv_heads", check_sharing(self.sharing, heads, self.kv_heads))
        if self.sharing == "tied_kv" and d_v != d_k:
            raise ParameterError("d_v", f"sharing='tied_kv' (W^V = W^K) needs d_v == d_k={d_k}, "
                                        f"got d_v={d_v}")
        if self.rho is not None:
            from .partial_kv import check_rho

            rho = float(check_rho(self.rho))
            if self.sharing == "tied_kv" and rho != 1:
                raise ParameterError("rho", f"sharing='tied_kv' is rho = 1, got rho={rho!r}")
            if d_v != d_k:
                raise ParameterError("d_v", f"rho (W^V = ρW^K + sqrt(1 − ρ²)W̃) needs d_v == "
                                            f"d_k={d_k}, got d_v={d_v}")
            set_("rho", rho)

    # ------------------------------------------------------------ construction
    @classmethod
    def from_ratios(cls, n, gamma_k, heads=1, gamma_v=None, gamma_o=None, *, d=None,
                    kv_heads=None, beta=1.0, sharing="none", rtol=WIDTH_RTOL, rho=None):
        """Build a layer from the proportional-limit ratios of Hayase & Karakida 2026, §2.

        d_K = γ_K n / h, d_V = γ_V n / h (default d_K), d_O = γ_O n (default d), each rounded to
        the nearest integer when within ``rtol`` (default 0.5 %) of it; the configuration then
        carries the realised widths and ratios (e.g. γ_K = 0.3, n = 333 gives d_K = 100 and
        γ_K = 0.3003).

        Raises
        ------
        ParameterError
            ('gamma_k', 'gamma_v' or 'gamma_o') when a width is not within ``rtol`` of a positive
            integer (the message names the nearest widths), or as :class:`MHAConfig`.
        """
        n = v.integer_at_least("n", n, 2)
        heads = v.positive_integer("heads", heads)
        rtol = v.nonnegative("rtol", rtol)
        d_k = width_from_ratio("gamma_k", gamma_k, n, heads, rtol)
        d_v = None if gamma_v is None else width_from_ratio("gamma_v", gamma_v, n, heads, rtol)
        d_o = None if gamma_o is None else width_from_ratio("gamma_o", gamma_o, n, 1, rtol)
        return cls(n=n, d_k=d_k, heads=heads, d=d, kv_heads=kv_heads, d_v=d_v, d_o=d_o,
                   beta=beta, sharing=sharing, rho=rho)

    @classmethod
    def preset(cls, name, **overrides):
        """The layer of a published model (see :data:`PRESETS`), optionally with overrides.

        Raises
        ------
        ParameterError
            ('preset') for an unknown name.
        """
        if name not in PRESETS:
            raise ParameterError("preset", f"preset must be one of {tuple(PRESETS)}, got {name!r}")
        fields = {k: val for k, val in PRESETS[name].items() if k != "source"}
        fields.update(overrides)
        return cls(**fields)

    @property
    def tied(self):
        """True for within-head tying W^V_r = W^K_r."""
        return self.sharing == "tied_kv"

    # ------------------------------------------------------------ law and model
    def law(self, kind="mha"):
        """The limit law of ``kind`` at this layer's β and ratios.

        Parameters
        ----------
        kind : {'attention', 'head_average', 'values', 'mha'}, default 'mha'
            'attention': ν_{∞,h} of sqrt(n/h)[A_1^⊥, …]; 'head_average': of sqrt(nh)(Ā − P);
            'values': of Z_V = [A_r^⊥ V_r] (tied: Z_KV, eq. (C.19)); 'mha': of MHA^⊥(X).

        Returns
        -------
        Law (cached per configuration and kind)

        Raises
        ------
        ParameterError
            ('kind') for an unknown kind; ('beta', 'gamma_*', 'heads') when the configuration
            lies outside the laws' domain (``BETA_LAW_RANGE``, ``GAMMA_RANGE``, ``MAX_HEADS``).
        """
        if kind not in KINDS:
            raise ParameterError("kind", f"kind must be one of {KINDS}, got {kind!r}")
        return _law(self, kind)

    def limit_mean(self, kind="mha"):
        """First moment of :meth:`law` (``self.law(kind).mean()``), a float."""
        return float(self.law(kind).mean())

    def table_d2_mean(self):
        """Closed-form mean of the full-layer law, Table D.2's normaliser of relative W₁.

        γ_O θ₁ for independent K/V, MQA and GQA; γ_O (θ₁ + h θ₂/γ_K) for K = V (at β = 1:
        (d_O/n)(e − 1) and (d_O/n)(e − 1 + n/d_K); Hayase & Karakida 2026, App. D.1,
        (C.20)).  Equals ``self.limit_mean('mha')`` (tested) without building the law, and is
        defined for every β of the finite model.
        """
        t1, t2 = math.expm1(self.beta ** 2), self.beta ** 2
        if self.rho is not None:  # γ_O(θ₁ + ρ² h θ₂/γ_K) (derivations/partial_kv.py)
            return self.gamma_o * (t1 + self.rho ** 2 * self.heads * t2 / self.gamma_k)
        return self.gamma_o * (t1 + self.heads * t2 / self.gamma_k if self.tied else t1)

    def model(self, kind="mha", x=None):
        """The finite softmax/Gaussian model of this layer (:class:`freeattn.montecarlo.AttentionModel`).

        Parameters
        ----------
        kind : {'attention', 'head_average', 'values', 'mha'}, default 'mha'
        x : ndarray of shape (n, d), optional
            Input with X Xᵀ/d = I_n (default sqrt(d)[I_n, 0]).
        """
        from ..montecarlo.samplers import AttentionModel

        return AttentionModel(beta=self.beta, n=self.n, d_k=self.d_k, heads=self.heads,
                              kind=kind, d=self.d, d_v=self.d_v, d_o=self.d_o,
                              kv_heads=self.kv_heads, tied=self.tied, x=x, rho=self.rho)

    def to_dict(self):
        """JSON-able description with the derived ratios."""
        out = asdict(self)
        out.update(gamma_k=self.gamma_k, gamma_v=self.gamma_v, gamma_o=self.gamma_o)
        return out


@lru_cache(maxsize=64)
def _law(cfg, kind):
    from .multi_head import head_average_law, mha_output_law, values_law
    from .single_head import attention_law

    if kind == "attention":
        return attention_law(cfg.beta, cfg.gamma_k, cfg.heads)
    if kind == "head_average":
        return head_average_law(cfg.beta, cfg.gamma_k, cfg.heads, kv_heads=cfg.kv_heads)
    if kind == "values":
        if cfg.rho is not None:
            from .partial_kv import partial_kv_values_law

            return partial_kv_values_law(cfg.beta, cfg.heads, cfg.gamma_k, cfg.rho)
        if cfg.tied:
            from .tied import kv_values_law

            return kv_values_law(cfg.beta, cfg.heads, cfg.gamma_k)
        return values_law(cfg.beta, cfg.heads, cfg.gamma_k, cfg.gamma_v)
    return mha_output_law(cfg.beta, cfg.heads, cfg.gamma_k, cfg.gamma_v, cfg.gamma_o,
                          sharing=cfg.sharing, kv_heads=cfg.kv_heads, rho=cfg.rho)


def _row(n, d, heads, kv_heads, d_k, sharing, source):
    return dict(n=n, d=d, heads=heads, kv_heads=kv_heads, d_k=d_k, d_v=d_k, d_o=d, beta=1.0,
                sharing=sharing, source=source)


#: Layers of public models: Table D.2 of Hayase & Karakida 2026 (β = 1, d_O = d, d_V = d_K,
#: n <= d), plus one grouped-query model.  ``source`` says where the widths come from.
PRESETS = {
    "bert-base": _row(512, 768, 12, 12, 64, "none",
                      "Table D.2: BERT-base, final training stage n = 512 (Devlin et al. 2019)"),
    "modernbert-large": _row(1024, 1024, 16, 16, 64, "none",
                             "Table D.2: ModernBERT-large, initial stage (Warner et al. 2025)"),
    "dinov3-l16": _row(261, 1024, 16, 16, 64, "none",
                       "Table D.2: DINOv3-L/16, one 256-pixel global crop (Siméoni et al. 2026)"),
    "llada-8b": _row(4096, 4096, 32, 32, 128, "none",
                     "Table D.2: LLaDA-8B, main training length (Nie et al. 2025)"),
    "gpt3-175b": _row(2048, 12288, 96, 96, 128, "none",
                      "Table D.2: GPT-3 175B, training context (Brown et al. 2020)"),
    "falcon-7b": _row(2048, 4544, 71, 1, 64, "mqa",
                      "Table D.2: Falcon-7B, multi-query attention (Almazrouei et al. 2023)"),
    "kayyam-1.2b": _row(2048, 2048, 32, 32, 64, "tied_kv",
                        "Table D.2: Kayyam 1.2B, W^K = W^V, 2048-token evaluation setting"),
    "mistral-7b": _row(4096, 4096, 32, 8, 128, "gqa",
                       "Mistral 7B (Jiang et al. 2023, Table 1): dim 4096, 32 query heads, 8 K/V "
                       "heads, head_dim 128; n = its sliding-window length 4096 (n <= d)"),
}
