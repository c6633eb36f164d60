"""The partial key–value jump polynomial and its layer eliminations (arguments validated).

The constructions behind :mod:`freeattn.attention.partial_kv` (beyond Hayase & Karakida 2026;
derived in ``derivations/partial_kv.py``): the polynomial :data:`JUMP_POLYNOMIAL` of the
dilated jump law μ̂ = D_{1/(θ₁−θ₂)} μ_ρ in κ = θ₂/(t(θ₁ − θ₂)), t = γ_K/h, r = ρ², and the
S-relation substitutions that give π(μ_ρ, γ_K) and π(μ_ρ, γ_K) ⊠ π_{γ_O} (eq. (C.4)), in
FLINT where the parameters are rational and in sympy otherwise.  The end points ρ = 0 and
ρ = 1 use the paper's constructions (:mod:`._constructions`).  Everything takes exact
(sympy) values and stays exact.
"""
from __future__ import annotations

import ast
import math
import operator
from functools import lru_cache

import sympy as sp

from ..algebraic import exact as exact_alg
from ..algebraic import polynomial as pm
from ..algebraic.parse import parse_polynomial
from ..algebraic.polynomial import G, S, from_s_relation, s_relation, w, z
from ..algebraic.positivity import mark_positive
from ..convolution import compound_free_poisson
from ..laws import MarchenkoPastur
from ..laws._params import fresh
from ..laws.algebraic import AlgebraicLaw, AtomAtZero
from . import _constructions as C

__all__ = ["JUMP_POLYNOMIAL", "KAPPA", "T", "R", "jump_polynomial", "exact_params",
           "jump_law", "values", "output"]

#: P(G, z) = Σ c_ij(κ, t, r) G^i z^j of the dilated jump law μ̂ = D_{1/(θ₁−θ₂)} μ_ρ
#: (κ = θ₂/(t(θ₁ − θ₂)), t = γ_K/h, r = ρ²), derived in derivations/partial_kv.py
JUMP_POLYNOMIAL = {
    (7, 4): "-kappa**2*t**6*(r - 1)**3",
    (6, 4): "-kappa**2*t**5*(r - 1)**2",
    (6, 3): "4*kappa**2*t**5*(r - 1)**3*(t - 1)",
    (5, 3): "kappa*t**4*(r - 1)*(3*kappa*r*t - 3*kappa*r - 3*kappa*t + 3*kappa + 2*r + 2)",
    (5, 2): "-6*kappa**2*t**4*(r - 1)**3*(t - 1)**2",
    (4, 3): "2*kappa*t**3*(r + 1)",
    (4, 2): "-t**3*(3*kappa**2*r**2*t**2 - 6*kappa**2*r**2*t + 3*kappa**2*r**2"
            " - 6*kappa**2*r*t**2 + 12*kappa**2*r*t - 6*kappa**2*r + 3*kappa**2*t**2"
            " - 6*kappa**2*t + 3*kappa**2 + 6*kappa*r**2*t - 5*kappa*r**2 - kappa*r*t"
            " - kappa*r - 5*kappa*t + 6*kappa - r)",
    (4, 1): "4*kappa**2*t**3*(r - 1)**3*(t - 1)**3",
    (3, 2): "-t**2*(4*kappa*r*t - 4*kappa*r + 4*kappa*t - 4*kappa + r - 1)",
    (3, 1): "t**2*(t - 1)*(kappa**2*r**2*t**2 - 2*kappa**2*r**2*t + kappa**2*r**2"
            " - 2*kappa**2*r*t**2 + 4*kappa**2*r*t - 2*kappa**2*r + kappa**2*t**2"
            " - 2*kappa**2*t + kappa**2 + 6*kappa*r**2*t - 4*kappa*r**2 - 2*kappa*r*t"
            " - 2*kappa*r - 4*kappa*t + 6*kappa - 2*r)",
    (3, 0): "-kappa**2*t**2*(r - 1)**3*(t - 1)**4",
    (2, 2): "-t",
    (2, 1): "t*(2*kappa*r*t**2 - 5*kappa*r*t + 3*kappa*r + 3*kappa*t**2 - 5*kappa*t + 2*kappa"
            " + 2*r*t - r - t + 2)",
    (2, 0): "-t*(t - 1)**2*(2*kappa*r**2*t - kappa*r**2 - kappa*r*t - kappa*r - kappa*t"
            " + 2*kappa - r)",
    (1, 1): "t - 1",
    (1, 0): "(t - 1)*(kappa*r*t - kappa*r - kappa*t**2 + kappa*t - r*t - 1)",
    (0, 0): "1",
}

KAPPA, T, R = sp.symbols("kappa t r")


@lru_cache(maxsize=1)
def jump_polynomial():
    """P(G, z; κ, t, r) of μ̂ = D_{1/(θ₁−θ₂)} μ_ρ as a sympy expression (see the module
    docstring; G, z are :data:`freeattn.algebraic.polynomial.G`, ``z``)."""
    # the stored coefficients go through the same restricted parser as a user's text
    return sp.expand(sum(parse_polynomial(c, (KAPPA, T, R), "JUMP_POLYNOMIAL") * G**i * z**j
                         for (i, j), c in JUMP_POLYNOMIAL.items()))


def exact_params(beta, heads, gamma_k, rho):
    """(θ₁ − θ₂, κ, t, r) exactly."""
    b2 = beta ** 2
    c = sp.exp(b2) - 1 - b2
    t = gamma_k / heads
    return c, b2 / (t * c), t, rho ** 2


def _jump_relation(kappa, t, r):
    """The S-relation Σ̂(w, S) of μ̂ with t, r substituted and κ a fresh symbol; (Σ̂, values)."""
    k = fresh("kappa")
    P = jump_polynomial().xreplace({KAPPA: k, T: t, R: r})
    return s_relation(P), {k: kappa}


def _base_name(kind, beta, heads, gamma_k, rho, gamma_o=None):
    """The name of the undilated algebraic law (errors from its numerics quote it)."""
    go = "" if gamma_o is None else f", gamma_o={float(gamma_o):g}"
    return (f"undilated partial K-V {kind} law (beta={float(beta):g}, heads={heads}, "
            f"gamma_k={float(gamma_k):g}{go}, rho={float(rho):g})")


def _law(poly, values, scale, name, atom0):
    # μ_ρ, π(μ_ρ, γ_K) and its ⊠ π_{γ_O} are Gram spectra (squared singular values, m₁ > 0):
    # on [0, ∞), so that every interval below 0 is a gap (BranchData, issue 21 item 18)
    base = mark_positive(AlgebraicLaw(poly, values=values, name=name),
                         "partial K-V law: a Gram spectrum, on [0, ∞) with m₁ > 0")
    # the exact atom at 0 (from the compound free Poisson and ⊠ atom rules), which decides it
    # where the numerics cannot tell nearly equal candidate masses apart (AlgebraicLaw._pole_mass).
    # It goes on the algebraic law whose poles are read: the dilation D_scale keeps the atom at
    # 0 and its mass and finds it through its source (AtomsMixin._exact_atom_at_zero); attached
    # to the dilation only, the base's _pole_mass never saw it
    base.atom_at_zero = AtomAtZero("value", value=atom0)
    return base.dilate(scale)


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Pow: operator.pow}


def _evaluate(node, names):
    """Value of a parsed :data:`JUMP_POLYNOMIAL` coefficient (integers, the names κ, t, r,
    +, −, ×, integer powers) with ``names`` bound to FLINT numbers or polynomials."""
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, names)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_evaluate(node.left, names), _evaluate(node.right, names))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand, names)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    raise ValueError(f"unexpected term in JUMP_POLYNOMIAL: {ast.dump(node)}")


@lru_cache(maxsize=1)
def _jump_parsed():
    return {key: ast.parse(c, mode="eval") for key, c in JUMP_POLYNOMIAL.items()}


def _jump_flint(ctx, kname, t, r):
    """:func:`jump_polynomial` at rational t, r (κ the context's variable ``kname``) as an
    integer FLINT polynomial (denominators cleared), read straight off the coefficient
    strings: no sympy expansion of the degree-(7, 4) polynomial."""
    flint = exact_alg.flint
    qctx = flint.fmpq_mpoly_ctx.get(ctx.names(), "lex")
    gens = dict(zip(ctx.names(), qctx.gens()))
    names = {"kappa": gens[kname], "t": flint.fmpq(int(t.p), int(t.q)),
             "r": flint.fmpq(int(r.p), int(r.q))}
    total = qctx.constant(0)
    for (i, j), node in _jump_parsed().items():
        total += _evaluate(node, names) * gens["G"] ** i * gens["z"] ** j
    d = total.to_dict()
    den = math.lcm(*(int(v.q) for v in d.values()))
    return ctx.from_dict({m: int(v.p) * (den // int(v.q)) for m, v in d.items()})


def _with_free_poisson_flint(kappa, t, r, g, g_o):
    """:func:`_with_free_poisson`'s elimination in FLINT (t, r, γ_K, γ_O rational)."""
    k = fresh("kappa")
    ctx = exact_alg.context({"G", "z", "w", "S", "S_1", "kappa_"})
    w_, S_ = pm._gens(ctx, "w", "S")
    sigma = pm._s_relation_flint(_jump_flint(ctx, "kappa_", t, r))
    # u ↦ u/γ_K and S ↦ S (γ_K + u)(γ_O + u), as numerator over denominator
    num = S_ * (int(g.p) + int(g.q) * w_)
    den = ctx.constant(int(g.q))
    if g_o is not None:
        num, den = num * (int(g_o.p) + int(g_o.q) * w_), den * int(g_o.q)
    sub = exact_alg.subs_rational(sigma, {"w": (int(g.q) * w_, ctx.constant(int(g.p))),
                                      "S": (num, den)})
    fq = exact_alg.flint.fmpq
    gq, goq = fq(int(g.p), int(g.q)), (1 if g_o is None else fq(int(g_o.p), int(g_o.q)))
    tq, rq = fq(int(t.p), int(t.q)), fq(int(r.p), int(r.q))

    def expected(probe):
        # m₁ = γ_K m₁(μ̂) (times γ_O after ⊠ π_{γ_O}), m₁(μ̂) = 1 + κ(r + t)
        return [gq * (1 + probe["kappa_"] * (rq + tq)) * goq]

    f = pm._select_flint(pm._from_s_relation_flint(sub), expected)
    return exact_alg.to_sympy(f, {"G": G, "z": z, "kappa_": k}), {k: kappa}


def _with_free_poisson(beta, heads, gamma_k, rho, gamma_o):
    """P(G, z) of π(μ̂, γ_K) (``gamma_o`` None) or π(μ̂, γ_K) ⊠ π_{γ_O}, by substitution in
    the S-relation: S_{π(μ,γ)}(u) = S_μ(u/γ)/(γ + u), S_{π_γ}(u) = 1/(γ + u) (eq. (C.4))."""
    c, kappa, t, r = exact_params(beta, heads, gamma_k, rho)
    g_o = None if gamma_o is None else gamma_o
    if exact_alg.flint_enabled() and all(v.is_Rational for v in (t, r, gamma_k)) \
            and (g_o is None or g_o.is_Rational):
        P, values = _with_free_poisson_flint(kappa, t, r, gamma_k, g_o)
        return P, values, c
    sigma, values = _jump_relation(kappa, t, r)
    g = gamma_k
    factor = (g + w) * (1 if gamma_o is None else gamma_o + w)
    sub = sp.expand(sp.numer(sp.together(sigma.xreplace({w: w / g, S: S * factor}))))
    # moments fix the factor: m₁ = γ_K m₁(μ̂) (times γ_O after ⊠ π_{γ_O})
    m1 = g * (1 + kappa * (r + t)) * (1 if gamma_o is None else gamma_o)
    k = next(iter(values))
    return from_s_relation(sub, (m1.xreplace({kappa: k}),)), values, c


def jump_law(beta, heads, gamma_k, rho, generic=False):
    """μ_ρ (see :func:`freeattn.attention.partial_kv_jump_law`), exact arguments."""
    c, kappa, t, r = exact_params(beta, heads, gamma_k, rho)
    if r == 1:
        return MarchenkoPastur(t).pushforward((sp.Integer(0), c, beta ** 2 / t))
    if r == 0 and not generic:
        return compound_free_poisson(C.rho_law(beta, t), 1 / t).dilate(t)
    k = fresh("kappa")
    P = jump_polynomial().xreplace({KAPPA: k, T: t, R: r})
    return _law(P, {k: kappa}, c, _base_name("jump", beta, heads, gamma_k, rho),
                sp.Max(0, 1 - 1 / t))


def values(beta, heads, gamma_k, rho, generic=False):
    """π(μ_ρ, γ_K) (see :func:`freeattn.attention.partial_kv_values_law`), exact arguments."""
    if rho == 1:
        return C.kv_values(beta, heads, gamma_k)
    if rho == 0 and not generic:
        return C.independent_values(beta, heads, gamma_k, gamma_k)
    P, vals, c = _with_free_poisson(beta, heads, gamma_k, rho, None)
    return _law(P, vals, c, _base_name("values", beta, heads, gamma_k, rho),
                sp.Max(0, 1 - gamma_k))


def output(beta, heads, gamma_k, gamma_o, rho, generic=False):
    """D_{1/γ_K}(π(μ_ρ, γ_K) ⊠ π_{γ_O}) (see :func:`freeattn.attention.partial_kv_output_law`),
    exact arguments."""
    if rho == 1:
        return C.tied_output(beta, heads, gamma_k, gamma_o)
    if rho == 0 and not generic:
        return C.independent_output(beta, heads, gamma_k, gamma_k, gamma_o)
    P, vals, c = _with_free_poisson(beta, heads, gamma_k, rho, gamma_o)
    return _law(P, vals, c / gamma_k, _base_name("output", beta, heads, gamma_k, rho, gamma_o),
                1 - sp.Min(1, gamma_k, gamma_o))
