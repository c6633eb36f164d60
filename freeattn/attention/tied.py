"""Within-head key–value tying W^V_r = W^K_r (Hayase & Karakida 2026, App. C.2, (C.17)–(C.21)).

With d_V = d_K and V_r = K_r the value projection depends on the keys that shape the
attention, and the limit laws change (across-head sharing does not change them):

    φ_KV(x) = (θ₁ − θ₂) x + (h θ₂ / γ_K) x²                         (C.18)
    μ_KV    = φ_KV# π_{γ_K/h}                                         (Cor. C.7)
    ν_{Z_KV} → π(μ_KV, h),   ‖Z_KV‖_F²/n → γ_K θ₁ + h θ₂                (C.19), (C.20)
    ν_{MHA^⊥(X)} → D_{1/γ_K}(π(μ_KV, h) ⊠ π_{γ_O}),  atom 1 − min{1, γ_K, γ_O} at 0   (C.21)

with Z_KV = [A_1^⊥ K_1, …, A_h^⊥ K_h] and Gaussian output weights W^O = G_O/sqrt(h d_K).
"""
from __future__ import annotations

import sympy as sp

from .._validation import in_closed_interval, integer_at_least
from ..convolution import compound_free_poisson, free_multiplicative_convolution
from ..convolution._dispatch import mark_positive
from ..laws._params import exact
from . import config as _cfg

__all__ = ["kv_polynomial", "kv_law", "kv_values_law", "tied_output_law"]


def _free_poisson(rate):
    from ..laws.marchenko_pastur import FreePoisson

    return FreePoisson(rate)


def _args(beta, heads, gamma_k):
    beta = float(in_closed_interval("beta", beta, *_cfg.BETA_LAW_RANGE))
    heads = integer_at_least("heads", heads, 1)
    if heads > _cfg.MAX_HEADS:
        raise _cfg.ParameterError("heads", f"heads must be an integer in [1, {_cfg.MAX_HEADS}], "
                                           f"got {heads}")
    gamma_k = float(in_closed_interval("gamma_k", gamma_k, *_cfg.GAMMA_RANGE))
    return beta, heads, gamma_k


def kv_polynomial(beta, heads, gamma_k):
    """Exact coefficients (c₀, c₁, c₂) of φ_KV(x) = c₀ + c₁ x + c₂ x² (eq. (C.18)).

    c₀ = 0, c₁ = θ₁ − θ₂, c₂ = h θ₂ / γ_K, as sympy numbers (θ₁ = e^{β²} − 1 kept exact).
    """
    beta, heads, gamma_k = _args(beta, heads, gamma_k)
    b2 = exact(beta) ** 2
    th1, th2 = sp.exp(b2) - 1, b2
    return (sp.Integer(0), th1 - th2, heads * th2 / exact(gamma_k))


def kv_law(beta, heads, gamma_k):
    """The key–value covariance law μ_KV = φ_KV# π_{γ_K/h} (Hayase & Karakida 2026, Cor. C.7).

    Parameters
    ----------
    beta : float in [0.01, 4]
    heads : int in [1, 10000]
    gamma_k : float in [1e-3, 1e3]
        γ_K = h d_K / n.

    Returns
    -------
    AlgebraicLaw
        The exact push-forward of the free Poisson law π_{γ_K/h} by the quadratic φ_KV;
        mean (θ₁ − θ₂) γ_K/h + θ₂ (1 + γ_K/h), atom max{1 − γ_K/h, 0} at 0.

    Raises
    ------
    ParameterError
        For a parameter outside its domain.
    """
    beta, heads, gamma_k = _args(beta, heads, gamma_k)
    coeffs = kv_polynomial(beta, heads, gamma_k)
    law = _free_poisson(exact(gamma_k) / heads).pushforward(coeffs)
    law.name = f"kv_law(beta={beta:g}, heads={heads}, gamma_k={gamma_k:g})"
    return law


#: why the jump laws here are on [0, ∞) with positive mean: a free Poisson law pushed forward
#: by x ↦ c₁x + c₂x² with c₁ = θ₁ − θ₂ = e^{β²} − 1 − β² > 0 (times t > 0) and c₂ > 0
_PHI_POSITIVE = "φ#π_s, φ(x) = c₁x + c₂x² with c₁, c₂ > 0, π_s on [0, ∞)"


def kv_values_law(beta, heads, gamma_k):
    """Limit law π(μ_KV, h) of the squared singular values of Z_KV = [A_1^⊥ K_1, …, A_h^⊥ K_h].

    Values tied to keys, no output projection (Hayase & Karakida 2026, eq. (C.19)); mean
    γ_K θ₁ + h θ₂ (eq. (C.20)); free cumulants κ_q = h ∫ φ_KV^q dπ_{γ_K/h}.

    Raises
    ------
    ParameterError
        For a parameter outside its domain.

    Notes
    -----
    For t = γ_K/h < 1 the jump law μ_KV has an atom 1 − t at 0, which a compound free Poisson
    law does not see: π_t = (1 − t)δ₀ + t D_t π_{1/t} (the non-zero eigenvalues of Z Zᵀ/n
    and ZᵀZ/n agree), so κ_q = h t ∫ φ_KV(t x)^q dπ_{1/t}(x) and

        π(μ_KV, h) = π(ψ# π_{1/t}, γ_K),   ψ(x) = φ_KV(t x) = t (θ₁ − θ₂) x + t θ₂ x²,

    an atom-free jump law (the route used here when t < 1).
    """
    beta, heads, gamma_k = _args(beta, heads, gamma_k)
    t = exact(gamma_k) / heads
    if t < 1:
        _, c1, c2 = kv_polynomial(beta, heads, gamma_k)
        jump = _free_poisson(1 / t).pushforward((sp.Integer(0), c1 * t, c2 * t**2))
        law = compound_free_poisson(mark_positive(jump, _PHI_POSITIVE), exact(gamma_k))
    else:
        law = compound_free_poisson(mark_positive(kv_law(beta, heads, gamma_k), _PHI_POSITIVE),
                                    heads)
    law.name = f"kv_values_law(beta={beta:g}, heads={heads}, gamma_k={gamma_k:g})"
    law.params = {"beta": beta, "heads": heads, "gamma_k": gamma_k, "gamma_v": gamma_k,
                  "tied": True}
    law.describes = "values"
    return law


def tied_output_law(beta, heads, gamma_k, gamma_o):
    """Limit law D_{1/γ_K}(π(μ_KV, h) ⊠ π_{γ_O}) of MHA^⊥(X) with W^V_r = W^K_r (eq. (C.21)).

    Gaussian output weights W^O = G_O/sqrt(h d_K); mean γ_O(θ₁ + h θ₂/γ_K); atom
    1 − min{1, γ_K, γ_O} at 0.  Prefer :func:`freeattn.attention.mha_output_law` with
    ``sharing='tied_kv'``, which validates all widths.

    Raises
    ------
    ParameterError
        For a parameter outside its domain.
    """
    beta, heads, gamma_k = _args(beta, heads, gamma_k)
    gamma_o = float(in_closed_interval("gamma_o", gamma_o, *_cfg.GAMMA_RANGE))
    law = free_multiplicative_convolution(kv_values_law(beta, heads, gamma_k),
                                          _free_poisson(gamma_o))
    return law.dilate(1 / exact(gamma_k))
