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
from ..algebraic.atoms import AtomAtZero
from ..convolution import compound_free_poisson, free_multiplicative_convolution
from ..convolution._dispatch import mark_positive
from ..laws import MarchenkoPastur
from ..laws._params import exact
from ..laws.algebraic import AlgebraicLaw
from ..laws.marchenko_pastur import FreePoisson

__all__ = ["theta1", "theta2", "c_beta", "thetas", "rho_law", "nu", "exact_build",
           "independent_values", "exact_output", "independent_output", "kv_polynomial", "kv_law", "kv_values", "tied_output",
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


#: per construction: (P, symbols) from one exact build at a template point, the symbols in
#: the order of the parameter values they stand for (None where the template's values do
#: not identify its symbols)
_STRUCTURES = {}
#: the point at which a structure is built once: (β, γ_K, γ_V, γ_O) and h whose parameter
#: values are distinct (2/5, e^{9/4} − 13/4, 9/4, 1/12, 3/7, 11/4), so that each symbol is
#: identified by its value.  One template serves every h: 1/h is a parameter of MP_{1/h}
#: (the structure is the same at h = 1, 2, 12, 100: tests/attention/test_output_structure.py);
#: a template per h cost 46 ms a new h of the layer, 100 of them on a 100 × 100 (β, h) map
_TEMPLATE_POINT = (sp.Rational(3, 2), sp.Rational(5, 2), sp.Rational(7, 3), sp.Rational(11, 4))
_TEMPLATE_HEADS = 12


def _parameter_values(beta, gamma_k, heads):
    """The exact values (1/γ_K, θ₁ − θ₂, θ₂, 1/h) that :func:`rho_law` and
    MP_{1/h} give their parameter symbols (the same sympy expressions)."""
    th1, th2 = thetas(beta)
    return (1 / gamma_k, th1 - th2, th2, sp.Rational(1, heads))


def _from_structure(key, build, values, template_values):
    """The law whose exact build is ``build()`` at the template point, at ``values``: the
    structure's polynomial (built once per ``key``, the same object at every point) with its
    symbols given ``values``, or None where the template's values do not identify its
    symbols (then the caller builds exactly).  A β or γ scan thereby redoes no resultant, affine map or
    positivity check.  ``template_values()`` gives the template point's values, asked for
    only when the structure is built (a sympy e^{β²} − 1 − β² a point otherwise).  Where the
    template's polynomial is its own Stieltjes factor (irreducible, primitive), so is the
    law's: the law's ``_factor`` is set to it (no FLINT factorisation a point)."""
    if key not in _STRUCTURES:
        template = build()
        order = [[s for s, v in template.values.items() if v == want]
                 for want in template_values()]
        ok = (sorted(len(o) for o in order) == [1] * len(order)
              and len(template.values) == len(order))
        _STRUCTURES[key] = (template.symbolic_polynomial, [o[0] for o in order],
                            template._factor is template.symbolic_polynomial) if ok else None
    if _STRUCTURES[key] is None:
        return None
    P, symbols, irreducible = _STRUCTURES[key]
    # the template's own symbols, not renamed apart: every combinator renames its operands
    # apart (convolution._fresh_copy), and one polynomial object a structure lets the
    # structure-keyed caches (structure_key, discriminant tables, series) hit by identity
    # (a renaming per point was a sympy xreplace of the whole polynomial: 5 ms of a 7 ms
    # single-head point in a sweep)
    law = AlgebraicLaw(P, dict(zip(symbols, values)))
    if irreducible:
        law.__dict__["_factor"] = law.symbolic_polynomial  # the cached property's value
    return law


def exact_build(beta, gamma_k, heads):
    """ν_{∞,h} by the exact route: ρ_{γ_K} (affine map of MP), then ⊠ MP_{1/h} (resultant)."""
    beta, gamma_k = exact(beta), exact(gamma_k)
    return free_multiplicative_convolution(rho_law(beta, gamma_k),
                                           MarchenkoPastur(sp.Rational(1, heads)))


def nu(beta, gamma_k, heads):
    """ν_{∞,h} at exact β, γ_K: the polynomial of the structure (built once by
    :func:`exact_build` at ``_TEMPLATE_POINT``, ``_TEMPLATE_HEADS``) with the new point's
    exact values (:func:`_from_structure`).  The law is the one
    :func:`exact_build` gives at that point (same polynomial up to the names of the symbols,
    same exact values)."""
    b0, g0 = _TEMPLATE_POINT[:2]
    h0 = _TEMPLATE_HEADS
    law = _from_structure("nu", lambda: exact_build(b0, g0, h0),
                          _parameter_values(beta, gamma_k, heads),
                          lambda: _parameter_values(b0, g0, h0))
    if law is None:
        return exact_build(beta, gamma_k, heads)
    # ρ_{γ_K} ⊠ MP_{1/h} with ρ_{γ_K} = (x ↦ θ₁ − θ₂ + θ₂ x)_# MP_{1/γ_K} on [0, ∞)
    # (θ₁ − θ₂ = e^{β²} − 1 − β² > 0, θ₂ > 0): on [0, ∞) with mean θ₁ > 0, as the template;
    # no atom at 0 (max(ρ({0}), MP_{1/h}({0})) = 0 for h ≥ 1, Belinschi 2003): a rule, so that
    # a ⊠ built on ν reads it exactly instead of continuing ν's branch at 50 digits
    law.atom_at_zero = AtomAtZero("value", value=0)
    return mark_positive(law, "ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h} of laws on [0, ∞)")


def independent_values(beta, heads, gamma_k, gamma_v):
    """ν_{∞,h} ⊠ π_{γ_V} (Prop. C.5), exact arguments."""
    return free_multiplicative_convolution(nu(beta, gamma_k, heads), FreePoisson(gamma_v))


def exact_output(beta, heads, gamma_k, gamma_v, gamma_o):
    """ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O} (eq. (C.15)) by two resultants, exact arguments."""
    law = free_multiplicative_convolution(nu(beta, gamma_k, heads), MarchenkoPastur(1 / gamma_v))
    return free_multiplicative_convolution(law, FreePoisson(gamma_o))


def _output_values(beta, heads, gamma_k, gamma_v, gamma_o):
    """The exact values of ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O}'s parameter symbols: those of
    :func:`_parameter_values`, then 1/γ_V and γ_O."""
    return _parameter_values(beta, gamma_k, heads) + (1 / gamma_v, gamma_o)


#: (MP_{1/γ_V}, π_{γ_O}) of the output law's atom rule per exact (γ_V, γ_O), the last
#: _ATOM_LAWS_SIZE pairs: a β or h sweep at fixed widths shares the two laws (their
#: construction, a sympy expansion each, cost 1.6 ms a point of the bert-base layer)
_ATOM_LAWS = {}
_ATOM_LAWS_SIZE = 64


def _atom_rule_laws(gamma_v, gamma_o):
    """(MP_{1/γ_V}, π_{γ_O}), whose atoms at 0 give the output law's (read only when asked:
    :class:`~freeattn.algebraic.atoms.AtomAtZero`), shared by the laws of one (γ_V, γ_O)."""
    key = (gamma_v, gamma_o)
    got = _ATOM_LAWS.get(key)
    if got is None:
        got = _ATOM_LAWS[key] = (MarchenkoPastur(1 / gamma_v), FreePoisson(gamma_o))
        while len(_ATOM_LAWS) > _ATOM_LAWS_SIZE:  # the oldest first
            _ATOM_LAWS.pop(next(iter(_ATOM_LAWS)), None)
    return got


def independent_output(beta, heads, gamma_k, gamma_v, gamma_o):
    """ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O} (eq. (C.15)), exact arguments: the structure's
    polynomial (one :func:`exact_output` at ``_TEMPLATE_POINT``, ``_TEMPLATE_HEADS``) at the new point's
    values, the same law as :func:`exact_output` there (same polynomial up to the symbols'
    names, same exact values, the same atom rule at 0)."""
    b0, g0, v0, o0 = _TEMPLATE_POINT
    h0 = _TEMPLATE_HEADS
    law = _from_structure("output", lambda: exact_output(b0, h0, g0, v0, o0),
                          _output_values(beta, heads, gamma_k, gamma_v, gamma_o),
                          lambda: _output_values(b0, h0, g0, v0, o0))
    if law is None:
        return exact_output(beta, heads, gamma_k, gamma_v, gamma_o)
    # (μ ⊠ ν)({0}) = max(μ({0}), ν({0})) (Belinschi 2003), twice, with ν_{∞,h}({0}) = 0
    # (ρ_{γ_K} lives on [θ₁ − θ₂, ∞), θ₁ − θ₂ > 0, and MP_{1/h}, 1/h ≤ 1, has no atom)
    law.atom_at_zero = AtomAtZero("max", _atom_rule_laws(gamma_v, gamma_o))
    # ⊠ of laws on [0, ∞) with positive means, as the template
    return mark_positive(law, "⊠ of two laws on [0, ∞) with positive means")


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
