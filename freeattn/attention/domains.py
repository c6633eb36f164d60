"""The parameters of the attention laws and models, declared once.

Every builder of :mod:`freeattn.attention` (and the readout laws and the command line, which
derive their flags and help texts from these declarations) validates through the
:class:`~freeattn._validation.Param` objects below, once, at its public entry; the building
blocks underneath trust their arguments.

Two domains of β
----------------
``BETA_LAW_RANGE`` = [0.01, 4] (:data:`BETA`, the **law** domain)
    β of the limit laws (:func:`~freeattn.attention.attention_law` and every law built on
    it): the range in which float64 edges, atoms and total mass are verified (mass 1 to
    1e-10, m₁ = θ₁).  Below β = 0.01 a component of width ~ (θ₁ − θ₂)·1e-8 sits next to the
    bulk, beyond float64.
``BETA_MODEL_RANGE`` = [1e-6, 20] (:data:`BETA_MODEL`, the **sampler** domain)
    β of the finite models (:class:`~freeattn.attention.MHAConfig`,
    :class:`freeattn.montecarlo.AttentionModel`): the softmax is overflow-safe for any β, but
    the Gaussian model needs θ₁ = e^{β²} − 1, which leaves float64 above β ≈ 26.6 and
    underflows to 0 below β ≈ 1e-8.  A model outside ``BETA_LAW_RANGE`` can be simulated,
    but ``.law()`` refuses it (ParameterError 'beta').

The other domains
-----------------
``GAMMA_RANGE`` = [1e-3, 1e3]: γ_K, γ_V, γ_O of the limit laws; ``MAX_HEADS`` = 10 000: h of
the limit laws; ``RHO_RANGE`` = [0, 1]: the key–value correlation ρ; ``WIDTH_RTOL`` = 5e-3:
:meth:`MHAConfig.from_ratios` accepts a ratio whose width (e.g. γ_K n / h) lies within this
relative distance of an integer.

Exact input stays exact: :func:`exact_value` returns the validated value as a sympy number
(int, Fraction, Decimal, sympy and mpmath numbers keep every digit; a float is its binary
value), so that ``attention_law(sympy.Rational(1, 10), 1)`` is the law at β = 1/10, not at
the double nearest to it.
"""
from __future__ import annotations

import math

import numpy as np

from .._messages import shown
from .._validation import Param, ParameterError, ParameterTypeError, integer_at_least

__all__ = ["BETA_LAW_RANGE", "BETA_MODEL_RANGE", "GAMMA_RANGE", "MAX_HEADS", "RHO_RANGE",
           "WIDTH_RTOL", "KINDS", "SHARINGS", "BETA", "BETA_MODEL", "BETA_POSITIVE", "GAMMA_K",
           "GAMMA_V", "GAMMA_O", "HEADS", "KV_HEADS", "SHARING", "KIND", "RHO", "T", "N", "D",
           "D_K", "D_V", "D_O", "PARAMS", "exact_value", "check_heads", "check_sharing", "check_rho",
           "check_rho_layer", "check_kind", "check_flag", "same_ratio"]

BETA_LAW_RANGE = (0.01, 4.0)
BETA_MODEL_RANGE = (1e-6, 20.0)
GAMMA_RANGE = (1e-3, 1e3)
MAX_HEADS = 10_000
RHO_RANGE = (0.0, 1.0)
WIDTH_RTOL = 5e-3

#: which matrix of the layer a law or a simulation describes (see freeattn.montecarlo)
KINDS = ("attention", "head_average", "values", "mha")

#: across-head sharing and within-head tying of keys and values (Hayase & Karakida 2026, App. C)
SHARINGS = ("none", "gqa", "mqa", "tied_kv")


def _heads_domain(name, value):
    """h in [1, MAX_HEADS]: one message, with both bounds, for every way of leaving it
    (0, 1.5 and 20000 alike); a value that is not a real number keeps the type error."""
    try:
        h = integer_at_least(name, value, 1)
    except ParameterTypeError:
        raise
    except ParameterError:
        h = None
    if h is None or h > MAX_HEADS:
        raise ParameterError(name, f"{name} must be an integer in [1, {MAX_HEADS}], "
                                   f"got {shown(value)}")
    return h


def _choice(choices):
    def check(name, value):
        if not isinstance(value, str) or value not in choices:
            raise ParameterError(name, f"{name} must be one of {choices}, got {shown(value)}")
        return value

    return check


def _integer_at_least(lo):
    def check(name, value):
        return integer_at_least(name, value, lo)

    return check


#: β of the limit laws (the law domain; see the module docstring)
BETA = Param("beta", ("closed", *BETA_LAW_RANGE), "β", "inverse temperature β")
#: β > 0, where a formula is defined for every β (θ₁, θ₂, ρ_t), not only on the laws' domain
BETA_POSITIVE = Param("beta", "positive", "β", "inverse temperature β > 0")
#: β of the finite models (the sampler domain)
BETA_MODEL = Param("beta", ("closed", *BETA_MODEL_RANGE), "β",
                   "inverse temperature β of a finite softmax model")
GAMMA_K = Param("gamma_k", ("closed", *GAMMA_RANGE), "γ_K", "γ_K = h d_K / n")
GAMMA_V = Param("gamma_v", ("closed", *GAMMA_RANGE), "γ_V", "γ_V = h d_V / n")
GAMMA_O = Param("gamma_o", ("closed", *GAMMA_RANGE), "γ_O", "γ_O = d_O / n")
HEADS = Param("heads", _heads_domain, "h",
              f"number of heads h, an integer with 1 ≤ h ≤ {MAX_HEADS}")
KV_HEADS = Param("kv_heads", "positive_integer", "h_KV",
                 "number of key/value heads h_KV, dividing h", optional=True)
SHARING = Param("sharing", _choice(SHARINGS), "sharing", f"one of {SHARINGS}")
KIND = Param("kind", _choice(KINDS), "kind", f"one of {KINDS}")
RHO = Param("rho", ("closed", *RHO_RANGE), "ρ",
            "within-head key–value correlation ρ (W^V = ρW^K + sqrt(1 − ρ²)W̃)", optional=True)
#: the width ratio of ρ_t = (x ↦ θ₁ − θ₂ + θ₂ x)_# MP_{1/t}
T = Param("t", "positive", "t", "width ratio t > 0")
N = Param("n", _integer_at_least(2), "n", "context length, an integer >= 2")
D = Param("d", "positive_integer", "d", "input width d >= n", optional=True)
D_K = Param("d_k", "positive_integer", "d_K", "query/key width per head")
D_V = Param("d_v", "positive_integer", "d_V", "value width per head", optional=True)
D_O = Param("d_o", "positive_integer", "d_O", "output width", optional=True)

#: every declaration above, by Python name (β: the law domain)
PARAMS = {p.name: p for p in (BETA, GAMMA_K, GAMMA_V, GAMMA_O, HEADS, KV_HEADS, SHARING, KIND,
                              RHO, T, N, D, D_K, D_V, D_O)}


def exact_value(param, value):
    """The exact (sympy) value of a real parameter, validated against its declaration.

    The domain is checked with the declaration's own messages (a string or a bool is a
    :class:`~freeattn._validation.ParameterTypeError` "… must be a real number", NaN and
    values outside the interval a :class:`~freeattn._validation.ParameterError`), then on
    the exact value (so that an mpf a hair above 4 is refused as β, not rounded into range).

    Returns
    -------
    sympy number
        Exact: int, Fraction, Decimal, sympy numbers and mpf keep their value; a float is its
        binary value (:func:`freeattn.laws._params.exact`).
    """
    try:
        param.validate(value)
    except ParameterTypeError:
        raise
    except ParameterError as exc:
        if not isinstance(param.domain, tuple) or "interval" in str(exc):
            raise
        kind, lo, hi = param.domain  # NaN and ±∞ too: state the interval
        where = f"closed interval [{lo:g}, {hi:g}]" if kind == "closed" else \
            f"open interval ({lo:g}, {hi:g})"
        raise ParameterError(param.name, f"{param.name} must be a real number in the {where}, "
                                         f"got {shown(value)}") from None
    return param.exact(value)


def same_ratio(a, b):
    """Whether two width ratios are equal (to 1e-12 relative: d_V = d_K up to rounding)."""
    return math.isclose(float(a), float(b), rel_tol=1e-12)


def check_heads(heads):
    """h as an int in [1, MAX_HEADS] (ParameterError 'heads' otherwise)."""
    return HEADS.validate(heads)


def check_kind(kind):
    """A matrix kind of :data:`KINDS` (ParameterError 'kind' otherwise)."""
    return KIND.validate(kind)


def check_flag(name, value):
    """A boolean switch: True or False only (numpy booleans included).

    Raises
    ------
    ParameterTypeError
        Naming ``name`` for anything else (``"no"``, 0, None: a truthy string must not
        silently count as True).
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ParameterTypeError(name, f"{name} must be True or False, got {shown(value)}")


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
        Validated h.
    kv_heads : int or None

    Raises
    ------
    ParameterError
        ('sharing') for an unknown name; ('kv_heads') when h_KV does not fit the pattern.
    """
    SHARING.validate(sharing)
    kv_heads = KV_HEADS.validate(kv_heads)
    if kv_heads is not None and heads % kv_heads:
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


def check_rho(rho):
    """Validate ρ ∈ [0, 1]; return it as an exact sympy number (a float keeps its binary value).

    Raises
    ------
    ParameterError
        ('rho') if ρ is not a real number in the closed interval [0, 1] (NaN included);
        a :class:`~freeattn._validation.ParameterTypeError` for a string or a bool.
    """
    if rho is None:
        raise ParameterError("rho", "rho must be a real number in the closed interval [0, 1], "
                                    "got None")
    return exact_value(RHO, rho)


def check_rho_layer(rho, sharing="none", gamma_k=None, gamma_v=None):
    """Validate ρ for a layer: ρ ∈ [0, 1], only ρ = 1 with sharing='tied_kv', γ_V = γ_K.

    Returns
    -------
    sympy number
        ρ exactly.

    Raises
    ------
    ParameterError
        ('rho') for ρ outside [0, 1] or ρ ≠ 1 with 'tied_kv'; ('gamma_v') if γ_V ≠ γ_K.
    """
    rho_x = check_rho(rho)
    if sharing == "tied_kv" and rho_x != 1:
        raise ParameterError("rho", f"sharing='tied_kv' is rho = 1; got rho={shown(rho)} (use "
                                    f"sharing='none', 'gqa' or 'mqa' with rho in [0, 1])")
    if gamma_k is not None and gamma_v is not None and not same_ratio(gamma_k, gamma_v):
        raise ParameterError("gamma_v", f"rho (W^V = ρW^K + sqrt(1 − ρ²)W̃) needs gamma_v == "
                                        f"gamma_k = {float(gamma_k):g}, got {float(gamma_v):g}")
    return rho_x
