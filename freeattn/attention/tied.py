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

from . import _constructions as C
from .domains import BETA, GAMMA_K, GAMMA_O, check_heads, exact_value

__all__ = ["kv_polynomial", "kv_law", "kv_values_law", "tied_output_law"]


def _args(beta, heads, gamma_k):
    """(β, h, γ_K), validated once, β and γ_K exact."""
    return exact_value(BETA, beta), check_heads(heads), exact_value(GAMMA_K, gamma_k)


def kv_polynomial(beta, heads, gamma_k):
    """Exact coefficients (c₀, c₁, c₂) of φ_KV(x) = c₀ + c₁ x + c₂ x² (eq. (C.18)).

    c₀ = 0, c₁ = θ₁ − θ₂, c₂ = h θ₂ / γ_K, as sympy numbers (θ₁ = e^{β²} − 1 kept exact).
    """
    return C.kv_polynomial(*_args(beta, heads, gamma_k))


def kv_law(beta, heads, gamma_k):
    """The key–value covariance law μ_KV = φ_KV# π_{γ_K/h} (Hayase & Karakida 2026, Cor. C.7).

    Parameters
    ----------
    beta : real number in [0.01, 4]
    heads : int in [1, 10000]
    gamma_k : real number in [1e-3, 1e3]
        γ_K = h d_K / n.  Exact input (int, Fraction, Decimal, sympy, mpmath) stays exact.

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
    return C.named(C.kv_law(beta, heads, gamma_k),
                   f"kv_law(beta={float(beta):g}, heads={heads}, gamma_k={float(gamma_k):g})")


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
    b, g = float(beta), float(gamma_k)
    return C.named(C.kv_values(beta, heads, gamma_k),
                   f"kv_values_law(beta={b:g}, heads={heads}, gamma_k={g:g})", "values",
                   beta=b, heads=heads, gamma_k=g, gamma_v=g, tied=True)


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
    gamma_o = exact_value(GAMMA_O, gamma_o)
    return C.named(C.tied_output(beta, heads, gamma_k, gamma_o),
                   f"tied_output_law(beta={float(beta):g}, heads={heads}, "
                   f"gamma_k={float(gamma_k):g}, gamma_o={float(gamma_o):g})")
