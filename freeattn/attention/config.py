"""One description of a multi-head attention layer for the limit laws and the simulations.

:class:`MHAConfig` holds the widths of a finite layer (n, d, h, h_KV, d_K, d_V, d_O), the
inverse temperature β and the K/V sharing pattern; the proportional-limit ratios
γ_K = h d_K / n, γ_V = h d_V / n, γ_O = d_O / n are derived from them.  ``.law(kind)`` is the
limit law, and ``freeattn.montecarlo.AttentionModel.from_config(cfg, kind)`` the finite
softmax/Gaussian model, so that a law and the simulation that checks it cannot disagree about
a parameter (the samplers depend on this module, never the reverse).

Parameter domains: declared once in :mod:`freeattn.attention.domains` (``BETA_LAW_RANGE``,
``BETA_MODEL_RANGE``, ``GAMMA_RANGE``, ``MAX_HEADS``, ``WIDTH_RTOL``; re-exported here).
Exact input stays exact: ``MHAConfig(beta=Fraction(1, 10), ...)`` keeps β = 1/10 (and ρ
likewise) for :meth:`MHAConfig.law`; :meth:`MHAConfig.to_dict` and the finite model
(:meth:`freeattn.montecarlo.AttentionModel.from_config`) use their float values.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from fractions import Fraction
from functools import lru_cache

from .. import _validation as v
from .._validation import ParameterError
from .domains import (BETA_LAW_RANGE, BETA_MODEL, BETA_MODEL_RANGE, D, D_K, D_O, D_V,
                      GAMMA_RANGE, KINDS, MAX_HEADS, N, SHARINGS, WIDTH_RTOL, check_kind,
                      check_rho, check_sharing, exact_value)
from .multi_head import head_average_law, mha_output_law, values_law
from .partial_kv import partial_kv_values_law
from .single_head import attention_law
from .tied import kv_values_law

__all__ = ["MHAConfig", "WidthRatios", "PRESETS", "KINDS", "SHARINGS", "check_sharing",
           "BETA_LAW_RANGE", "BETA_MODEL_RANGE", "GAMMA_RANGE", "MAX_HEADS", "WIDTH_RTOL",
           "width_from_ratio"]


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
        n = N.validate(self.n)
        set_("n", n)
        # β (and ρ below): the float for the finite model and to_dict, the exact value
        # (self._exact) for the laws, so that Fraction(1, 10) is the law at 1/10
        beta_x = exact_value(BETA_MODEL, self.beta)
        set_("beta", float(beta_x))
        heads = v.positive_integer("heads", self.heads)  # a finite model may have > MAX_HEADS
        set_("heads", heads)
        d_k = D_K.validate(self.d_k)
        set_("d_k", d_k)
        d = n if self.d is None else D.validate(self.d)
        if d < n:
            raise ParameterError("d", f"d must be an integer >= n={n} (orthogonal inputs "
                                      f"X Xᵀ/d = I_n need n <= d), got {d}")
        set_("d", d)
        d_v = d_k if self.d_v is None else D_V.validate(self.d_v)
        set_("d_v", d_v)
        set_("d_o", d if self.d_o is None else D_O.validate(self.d_o))
        set_("kv_heads", check_sharing(self.sharing, heads, self.kv_heads))
        if self.sharing == "tied_kv" and d_v != d_k:
            raise ParameterError("d_v", f"sharing='tied_kv' (W^V = W^K) needs d_v == d_k={d_k}, "
                                        f"got d_v={d_v}")
        rho_x = None
        if self.rho is not None:
            rho_x = check_rho(self.rho)
            if self.sharing == "tied_kv" and rho_x != 1:
                raise ParameterError("rho", f"sharing='tied_kv' is rho = 1, got rho={self.rho!r}")
            if d_v != d_k:
                raise ParameterError("d_v", f"rho (W^V = ρW^K + sqrt(1 − ρ²)W̃) needs d_v == "
                                            f"d_k={d_k}, got d_v={d_v}")
            set_("rho", float(rho_x))
        set_("_exact", (beta_x, rho_x))

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
        return _law(self, check_kind(kind), self._exact)

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

    def to_dict(self):
        """JSON-able description with the derived ratios."""
        out = asdict(self)
        out.update(gamma_k=self.gamma_k, gamma_v=self.gamma_v, gamma_o=self.gamma_o)
        return out


@lru_cache(maxsize=64)
def _law(cfg, kind, exact):
    """The law of ``kind`` (the sharing/ρ dispatch), cached per configuration, kind and exact
    (β, ρ) (configurations that differ only in an exact β compare equal as dataclasses)."""
    beta, rho = exact
    # the ratios of integer widths, exactly (γ_K = h d_K / n, ...)
    gamma_k = Fraction(cfg.heads * cfg.d_k, cfg.n)
    gamma_v = Fraction(cfg.heads * cfg.d_v, cfg.n)
    gamma_o = Fraction(cfg.d_o, cfg.n)
    if kind == "attention":
        return attention_law(beta, gamma_k, cfg.heads)
    if kind == "head_average":
        return head_average_law(beta, gamma_k, cfg.heads, kv_heads=cfg.kv_heads)
    if kind == "values":
        if rho is not None:
            return partial_kv_values_law(beta, cfg.heads, gamma_k, rho)
        if cfg.tied:
            return kv_values_law(beta, cfg.heads, gamma_k)
        return values_law(beta, cfg.heads, gamma_k, gamma_v)
    return mha_output_law(beta, cfg.heads, gamma_k, gamma_v, gamma_o, sharing=cfg.sharing,
                          kv_heads=cfg.kv_heads, rho=rho)


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
