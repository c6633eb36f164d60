"""The exact constructions that several attention families share (arguments already validated).

Each function takes the exact (sympy) parameter values that :mod:`.domains` returns and builds
a law by the exact eliminations of :mod:`freeattn.convolution` (⊠, compound free Poisson,
push-forward, dilation); nothing here validates or casts to float, so an exact input stays
exact to the end (β = 1/10 is the law at 1/10, not at the double nearest to it).

=====================================  ==========================================  ===========
function                               law                                         source
=====================================  ==========================================  ===========
:func:`rho_law`                        ρ_t = (x ↦ θ₁ − θ₂ + θ₂ x)_# MP_{1/t}        (C.8)
:func:`nu`                             ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h}                  (C.8)–(C.11)
:func:`independent_values`             ν_{∞,h} ⊠ π_{γ_V}                            Prop. C.5
:func:`independent_output`             ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O}               (C.15)
:func:`kv_polynomial`, :func:`kv_law`  φ_KV, μ_KV = φ_KV# π_{γ_K/h}                 (C.18)
:func:`kv_values`                      π(μ_KV, h)                                  (C.19)
:func:`tied_output`                    D_{1/γ_K}(π(μ_KV, h) ⊠ π_{γ_O})              (C.21)
=====================================  ==========================================  ===========

(Hayase & Karakida 2026, arXiv 2610.10033, App. C; θ₁ = e^{β²} − 1, θ₂ = β².)
"""
from __future__ import annotations

import math

import sympy as sp

from .._validation import positive
from ..algebraic.polynomial import rename_symbols
from ..convolution import compound_free_poisson, free_multiplicative_convolution
from ..convolution._dispatch import mark_positive
from ..laws import MarchenkoPastur
from ..laws._params import exact, fresh
from ..laws.algebraic import AlgebraicLaw
from ..laws.marchenko_pastur import FreePoisson

__all__ = ["theta1", "theta2", "c_beta", "thetas", "rho_law", "nu", "exact_build",
           "independent_values", "independent_output", "kv_polynomial", "kv_law", "kv_values", "tied_output",
           "named"]


def theta1(beta):
    """θ₁ = e^{β²} − 1, the variance of the feature f(χ) = e^{βχ − β²/2} − 1, χ ~ N(0, 1).

    Raises ValueError if beta is not a finite number > 0.  Source: Hayase, Collins & Karakida (AISTATS 2026); Hayase & Karakida 2026, eq. (3.2).
    """
    beta = positive("beta", beta)
    return math.expm1(beta * beta)


def theta2(beta):
    """θ₂ = β² = (E f'(χ))², the linear (first Hermite) coefficient squared."""
    beta = positive("beta", beta)
    return beta * beta


def c_beta(beta):
    """c_β = θ₂/θ₁ ∈ (0, 1)."""
    return theta2(beta) / theta1(beta)


def thetas(beta):
    """(θ₁, θ₂) = (e^{β²} − 1, β²) exactly, for an exact β."""
    b2 = beta ** 2
    return sp.exp(b2) - 1, b2


def named(law, name, kind=None, **params):
    """Name the law and record what it describes: ``law.describes`` is the matrix kind of
    :class:`freeattn.montecarlo.AttentionModel` and ``law.params`` its β and ratios (as
    floats); :func:`freeattn.montecarlo.check` uses them to refuse a law of another kind or
    other parameters."""
    law.name = name
    if kind is not None:
        law.params = params
        law.describes = kind
    return law


def rho_law(beta, t):
    """ρ_t = (x ↦ θ₁ − θ₂ + θ₂ x)_# MP_{1/t} at exact β, t (eq. (C.8))."""
    th1, th2 = thetas(beta)
    return MarchenkoPastur(1 / t).affine(th1 - th2, th2)


#: per number of heads: (P, symbols) of ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h} from one exact build,
#: the symbols in the order (1/γ_K, θ₁ − θ₂, θ₂, 1/h) of the parameters they stand for
_STRUCTURES = {}
#: the point at which a structure is built once: its four parameter values are distinct
#: (2/5, e^{9/4} − 13/4, 9/4, 1/h), so that each symbol is identified by its value
_TEMPLATE_POINT = (sp.Rational(3, 2), sp.Rational(5, 2))


def _parameter_values(beta, gamma_k, heads):
    """The exact values (1/γ_K, θ₁ − θ₂, θ₂, 1/h) that :func:`rho_law` and
    MP_{1/h} give their parameter symbols (the same sympy expressions)."""
    th1, th2 = thetas(beta)
    return (1 / gamma_k, th1 - th2, th2, sp.Rational(1, heads))


def exact_build(beta, gamma_k, heads):
    """ν_{∞,h} by the exact route: ρ_{γ_K} (affine map of MP), then ⊠ MP_{1/h} (resultant)."""
    beta, gamma_k = exact(beta), exact(gamma_k)
    return free_multiplicative_convolution(rho_law(beta, gamma_k),
                                           MarchenkoPastur(sp.Rational(1, heads)))


def nu(beta, gamma_k, heads):
    """ν_{∞,h} at exact β, γ_K: the polynomial of the structure (built once per h by
    :func:`exact_build` at ``_TEMPLATE_POINT``) with its parameter symbols renamed apart and
    the new point's exact values, so that a β or γ_K scan redoes no resultant, affine map or
    positivity check (ρ_{γ_K} is on [0, ∞) with mean θ₁ > 0 for every β, γ_K > 0).  The law
    is the one :func:`exact_build` gives at that point (same polynomial up to the names of
    the symbols, same exact values)."""
    if heads not in _STRUCTURES:
        template = exact_build(*_TEMPLATE_POINT, heads)
        values = _parameter_values(*_TEMPLATE_POINT, heads)
        order = [[s for s, v in template.values.items() if v == want] for want in values]
        if sorted(len(o) for o in order) != [1, 1, 1, 1]:  # the structure changed: no template
            return exact_build(beta, gamma_k, heads)
        _STRUCTURES[heads] = (template.symbolic_polynomial, [o[0] for o in order])
    P, symbols = _STRUCTURES[heads]
    ren = {s: fresh(s.name.rsplit("_", 1)[0]) for s in symbols}
    values = dict(zip((ren[s] for s in symbols), _parameter_values(beta, gamma_k, heads)))
    # ρ_{γ_K} ⊠ MP_{1/h} with ρ_{γ_K} = (x ↦ θ₁ − θ₂ + θ₂ x)_# MP_{1/γ_K} on [0, ∞)
    # (θ₁ − θ₂ = e^{β²} − 1 − β² > 0, θ₂ > 0): on [0, ∞) with mean θ₁ > 0, as the template
    return mark_positive(AlgebraicLaw(rename_symbols(P, ren), values),
                         "ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h} of laws on [0, ∞)")


def independent_values(beta, heads, gamma_k, gamma_v):
    """ν_{∞,h} ⊠ π_{γ_V} (Prop. C.5), exact arguments."""
    return free_multiplicative_convolution(nu(beta, gamma_k, heads), FreePoisson(gamma_v))


def independent_output(beta, heads, gamma_k, gamma_v, gamma_o):
    """ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O} (eq. (C.15)), exact arguments."""
    law = free_multiplicative_convolution(nu(beta, gamma_k, heads), MarchenkoPastur(1 / gamma_v))
    return free_multiplicative_convolution(law, FreePoisson(gamma_o))


def kv_polynomial(beta, heads, gamma_k):
    """(c₀, c₁, c₂) = (0, θ₁ − θ₂, h θ₂ / γ_K) of φ_KV (eq. (C.18)), exact."""
    th1, th2 = thetas(beta)
    return (sp.Integer(0), th1 - th2, heads * th2 / gamma_k)


def kv_law(beta, heads, gamma_k):
    """μ_KV = φ_KV# π_{γ_K/h} (Cor. C.7), exact arguments."""
    return FreePoisson(gamma_k / heads).pushforward(kv_polynomial(beta, heads, gamma_k))


#: why the jump laws here are on [0, ∞) with positive mean: a free Poisson law pushed forward
#: by x ↦ c₁x + c₂x² with c₁ = θ₁ − θ₂ = e^{β²} − 1 − β² > 0 (times t > 0) and c₂ > 0
PHI_POSITIVE = "φ#π_s, φ(x) = c₁x + c₂x² with c₁, c₂ > 0, π_s on [0, ∞)"


def kv_values(beta, heads, gamma_k):
    """π(μ_KV, h) (eq. (C.19)), exact arguments; for t = γ_K/h < 1 by the atom-free jump law
    ψ# π_{1/t}, ψ(x) = φ_KV(t x), at rate γ_K (see :func:`freeattn.attention.kv_values_law`)."""
    t = gamma_k / heads
    if t < 1:
        _, c1, c2 = kv_polynomial(beta, heads, gamma_k)
        jump = FreePoisson(1 / t).pushforward((sp.Integer(0), c1 * t, c2 * t**2))
        return compound_free_poisson(mark_positive(jump, PHI_POSITIVE), gamma_k)
    return compound_free_poisson(mark_positive(kv_law(beta, heads, gamma_k), PHI_POSITIVE),
                                 heads)


def tied_output(beta, heads, gamma_k, gamma_o):
    """D_{1/γ_K}(π(μ_KV, h) ⊠ π_{γ_O}) (eq. (C.21)), exact arguments."""
    law = free_multiplicative_convolution(kv_values(beta, heads, gamma_k), FreePoisson(gamma_o))
    return law.dilate(1 / gamma_k)
