"""Symbolic side of the polynomial method (Rao & Edelman 2008).

An *algebraic law* μ is described by an irreducible bivariate polynomial P(G, z) with
P(G_μ(z), z) = 0, where G_μ(z) = ∫ dμ(x)/(z − x) is the Cauchy transform (sign convention:
G ~ 1/z at infinity, Im G < 0 on the upper half-plane).  Law parameters enter P as sympy
symbols; their values live beside P (see :class:`freeattn.laws.AlgebraicLaw`).

This module holds the primitives: the variables G, z, w, S, canonical forms and the FLINT
result cache, series moments at infinity, the Stieltjes factor, the affine change of variables,
the S- and R-relations, and FLINT versions of sympy's expand/xreplace.  The eliminations of the
operations on laws (⊠, compound free Poisson, polynomial push-forward) are in
:mod:`freeattn.algebraic.eliminations`; discriminants and breakpoint factors in
:mod:`freeattn.algebraic.discriminant`.

Inputs and outputs are sympy expressions; the exact algebra (factorisation, resultants,
discriminants, substitutions, series moments) runs in FLINT through
:mod:`freeattn.algebraic.exact` (python-flint), with sympy's own route as the fallback for
expressions FLINT cannot take and under ``FREEATTN_FLINT=0``.  Every operation is cached on a
*canonical* form of its input (parameter symbols renamed ``c0, c1, …`` in sorted order, the
renaming done inside the conversion to FLINT), so that, e.g., all attention laws share one
elimination whatever their numeric parameters.

The change of variables behind ⊠ and compound free Poisson (Mingo & Speicher 2017, §3.6;
Hayase & Karakida 2026, eqs. (C.1)–(C.6)):
    ψ(u) = Σ_{q≥1} m_q u^q = (1/u) G(1/u) − 1,   χ = ψ^{-1},   S(w) = (1 + w)/w · χ(w).
Writing w = ψ(1/z) = zG − 1 and S = S(w) gives G = S w and z = (1 + w)/(S w); hence the
S-relation Σ(w, S) = numerator of P(S w, (1 + w)/(S w)) and back P(G, z) = numerator of
Σ(zG − 1, G/(zG − 1)).
"""
from __future__ import annotations

from collections import OrderedDict
from functools import lru_cache

import sympy as sp

from . import exact

__all__ = [
    "G", "z", "w", "S",
    "canonicalize",
    "stieltjes_factor",
    "affine_polynomial",
    "s_relation",
    "from_s_relation",
    "r_relation",
    "expand_polynomial",
    "substitute_polynomial",
    "rename_symbols",
    "series_polynomial",
    "series_moments",
]

G, z, w, S = sp.symbols("G z w S")
_S1 = sp.Symbol("S_1")
_u, _M = sp.symbols("u M")


def parameter_order(symbol):
    """Sort key of parameter symbols for the canonical forms: by name, a trailing ``_N``
    (the counter of :func:`freeattn.laws._params.fresh`) compared as a number, so that two
    laws of one structure order their parameters alike (``y_8`` before ``y_11``, as created)
    whatever the counter's number of digits."""
    name = symbol.name
    stem, sep, num = name.rpartition("_")
    if sep and num.isdigit():
        return (stem, int(num), name)
    return (name, -1, name)


def _numer(expr):
    """Numerator of a rational expression, expanded (denominators are cleared)."""
    return sp.expand(sp.numer(sp.together(expr)))


def canonicalize(expr, prefix="c"):
    """Rename the free parameter symbols of ``expr`` to ``prefix0, prefix1, …``.

    Returns ``(expr_c, old_symbols)`` with ``old_symbols[i]`` the symbol renamed to
    ``prefix{i}``. The variables G, z, w, S are left alone.
    """
    params = sorted(exact.free_symbols(expr) - {G, z, w, S}, key=parameter_order)
    new = [sp.Symbol(f"{prefix}{i}") for i in range(len(params))]
    return expr.xreplace(dict(zip(params, new))), params


def _series_residual_zero(factor):
    """True if G = 1/z + O(z^-2) is a simple root of ``factor`` at infinity.

    With z = 1/u and G = u M, the leading coefficient in u of factor(uM, 1/u) must vanish at
    M = 1 with non-zero M-derivative there (so the moment recursion is solvable).
    """
    q = series_polynomial(factor)
    lead = sp.expand(q.subs(_u, 0))
    return sp.simplify(lead.subs(_M, 1)) == 0 and sp.simplify(sp.diff(lead, _M).subs(_M, 1)) != 0


def series_moments(P, order):
    """Cached front end of :func:`_series_moments` (on the canonical form of P)."""
    if exact.flint_enabled():
        try:
            ren, back = _rename(P, "c", frozenset({G, z, w, S}))
            p = exact.to_flint(P, exact.context(set(ren.values()) | {"G", "z"}), ren)
        except exact.NotConvertible:
            pass
        else:
            ms = _flint_cached(("sm", exact.poly_key(p), int(order)),
                               lambda: exact.series_moments_poly(p, int(order)))
            return [_fraction_to_sympy(num, den, back) for num, den in ms]
    Pc, params = canonicalize(P)
    ms = _series_moments_cached(Pc, int(order))
    back = {sp.Symbol(f"c{i}"): p for i, p in enumerate(params)}
    return [m.xreplace(back) for m in ms]


@lru_cache(maxsize=None)
def _series_moments_cached(P, order):
    if exact.flint_enabled():
        try:
            return tuple(_series_moments_flint(P, order))
        except exact.NotConvertible:
            pass
    return tuple(_series_moments(P, order))


def _fraction_to_sympy(num, den, symbols):
    n_expr = exact.to_sympy(num, symbols)
    if den.is_one():
        return n_expr
    d_expr = exact.to_sympy(den, symbols)
    return sp.expand(n_expr / d_expr) if len(den) == 1 else n_expr / d_expr


def _series_moments_flint(P, order):
    """:func:`_series_moments` in FLINT: each m_k as an expanded numerator over an expanded
    denominator (in lowest terms)."""
    ctx = exact.context({s.name for s in exact.free_symbols(P)} | {"G", "z"})
    syms = tuple(exact.free_symbols(P))
    return [_fraction_to_sympy(num, den, syms)
            for num, den in exact.series_moments_poly(exact.to_flint(P, ctx), order)]


def _series_moments(P, order):
    """First ``order`` moments m_1..m_order of the branch G ~ 1/z of P(G, z) = 0.

    Exact when the coefficients of P are exact (sympy arithmetic), solved order by order in
    u = 1/z with G = u M(u), M = 1 + Σ m_k u^k: the unknown m_k enters linearly with the
    coefficient ∂Q/∂M(1, 0) of Q(M, u) = u^k P(uM, 1/u).
    """
    q = sp.Poly(series_polynomial(P), _M, _u)
    coeffs = {}
    for (i, j), c in q.terms():
        coeffs.setdefault(j, []).append((i, c))
    dq = sum(i * c for i, c in coeffs.get(0, []))
    if sp.simplify(dq) == 0:
        raise ValueError("G ~ 1/z is not a simple root of P at infinity")
    m = [sp.Integer(1)]
    for k in range(1, order + 1):
        # coefficient of u^k in Q(M_{<k}, u), with M truncated at order k-1 (m_k = 0)
        ser = m + [sp.Integer(0)]
        powers = [[sp.Integer(1)] + [sp.Integer(0)] * k]
        total = sp.Integer(0)
        maxi = max(i for terms in coeffs.values() for i, _ in terms)
        for _ in range(maxi):
            prev = powers[-1]
            powers.append([sp.expand(sum(prev[a] * ser[k_ - a] for a in range(k_ + 1)))
                           for k_ in range(k + 1)])
        for j, terms in coeffs.items():
            if j > k:
                continue
            for i, c in terms:
                total += c * powers[i][k - j]
        m.append(sp.expand(-total / dq))
    return m[1:]


_PROBE = (sp.Rational(3, 7), sp.Rational(5, 11), sp.Rational(13, 17), sp.Rational(19, 23),
          sp.Rational(29, 31), sp.Rational(37, 41), sp.Rational(43, 47), sp.Rational(53, 59))


def _probe_values(params):
    """Exact generic rational values for parameter symbols (an identity test at a random point)."""
    return {p: _PROBE[i % len(_PROBE)] + i for i, p in enumerate(params)}


#: :func:`_same`'s numeric fallback: |a − b| at _SAME_DPS digits below 10^-_SAME_DIGITS × (1 + |a|),
#: |a| at _SAME_SCALE_DPS digits
_SAME_DPS = 60
_SAME_DIGITS = 45
_SAME_SCALE_DPS = 20


def _same(a, b):
    """Exact equality of two constant sympy expressions (numeric fallback for E, π, …)."""
    d = sp.expand(a - b)
    return d == 0 or (abs(sp.N(d, _SAME_DPS))
                      < sp.Float(10) ** -_SAME_DIGITS * (1 + abs(sp.N(a, _SAME_SCALE_DPS))))


def _probe_q(names):
    """:func:`_probe_values` as ``flint.fmpq`` keyed by name (same values, same order)."""
    params = sorted(n for n in names if n not in ("G", "z", "w", "S", "S_1"))
    vals = {n: exact.flint.fmpq(int(v.p), int(v.q))
            for n, v in zip(params, _probe_values(params).values())}
    for n in names:
        vals.setdefault(n, exact.flint.fmpq(0))
    return vals


def _select_flint(p, expected_fn):
    """The Stieltjes factor of ``p`` (FLINT): candidates with G ~ 1/z at infinity, decided
    by the first moments at a generic rational parameter point when there are several.

    ``expected_fn(probe)`` returns the expected moments (``fmpq``) at the probe values."""
    candidates = exact.stieltjes_candidates(p)
    if len(candidates) > 1 and expected_fn is not None:
        probe = _probe_q(p.context().names())
        exp = expected_fn(probe)
        candidates = [f for f in candidates
                      if exact.series_moments_q(exact.eval_params_q(f, probe), len(exp)) == exp]
    if len(candidates) != 1:
        raise ValueError(
            f"polynomial has {len(candidates)} factors compatible with G ~ 1/z; "
            "cannot identify the Stieltjes branch"
        )
    return candidates[0]


def _to_q(value):
    if not value.is_Rational:
        raise exact.NotConvertible(f"expected moment {value} is not rational at the probe")
    return exact.flint.fmpq(int(value.p), int(value.q))


# FLINT front ends: parameters are renamed while converting (no sympy xreplace of large
# expressions), results cached on the canonical FLINT polynomial.  The cache is a bounded LRU:
# a scan over thousands of parameter points (each a new exact discriminant of the substituted
# polynomial) must not grow memory without bound.
# own LRU, not functools.lru_cache: callers key on a canonical polynomial they compute
# themselves and pass the work as a closure, so the key is not the call's arguments
_FLINT_CACHE = OrderedDict()
_FLINT_CACHE_SIZE = 2048
_VARS = frozenset({G, z, w, S, _S1})


def _flint_cached(key, compute):
    try:
        _FLINT_CACHE.move_to_end(key)
        return _FLINT_CACHE[key]
    except KeyError:
        value = _FLINT_CACHE[key] = compute()
        while len(_FLINT_CACHE) > _FLINT_CACHE_SIZE:
            _FLINT_CACHE.popitem(last=False)
        return value


def _flint_has(key):
    """Whether :func:`_flint_cached` holds ``key`` (without touching its LRU order)."""
    return key in _FLINT_CACHE


def _rename(expr, prefix, variables=_VARS):
    """(symbol name → canonical name, canonical name → symbol) for expr's parameters, in
    sorted order as :func:`canonicalize` (which does the same renaming in sympy)."""
    params = sorted(exact.free_symbols(expr) - variables, key=parameter_order)
    return ({p.name: f"{prefix}{i}" for i, p in enumerate(params)},
            {f"{prefix}{i}": p for i, p in enumerate(params)})


def _stieltjes_p(p, expected):
    """Stieltjes factor of ``p`` (FLINT); ``expected`` moments are sympy expressions in the
    context's parameter names.  Returns ``p`` itself when it is already that factor."""
    fl = exact.factor(p)
    if len(fl) == 1 and fl[0][1] == 1 and fl[0][0] == p and exact.is_stieltjes_candidate(p):
        return p

    def expected_fn(probe):
        vals = {sp.Symbol(n): sp.Rational(int(v.p), int(v.q)) for n, v in probe.items()}
        return [_to_q(sp.sympify(e).xreplace(vals)) for e in expected]

    return _select_flint(p, expected_fn if expected else None)


@lru_cache(maxsize=None)
def _stieltjes_factor_cached(expr, expected):
    if exact.flint_enabled():
        try:
            return _stieltjes_factor_flint(expr, expected)
        except exact.NotConvertible:
            pass
    _, factors = sp.factor_list(expr, G, z)
    candidates = [f for f, _ in factors if f.has(G) and _series_residual_zero(f)]
    if expected and len(candidates) > 1:
        params = sorted(exact.free_symbols(expr) - {G, z}, key=lambda s: s.name)
        vals = _probe_values(params)
        exp = [sp.sympify(e).xreplace(vals) for e in expected]
        candidates = [f for f in candidates
                      if all(_same(a, b) for a, b in
                             zip(series_moments(f.xreplace(vals), len(exp)), exp))]
    if len(candidates) != 1:
        raise ValueError(
            f"polynomial has {len(candidates)} factors compatible with G ~ 1/z; "
            "cannot identify the Stieltjes branch"
        )
    return sp.expand(candidates[0])


def _stieltjes_factor_flint(expr, expected):
    ren, back = _rename(expr, "c", frozenset({G, z}))
    p = exact.to_flint(expr, exact.context(set(ren.values()) | {"G", "z"}), ren)
    fwd = {s: sp.Symbol(ren[s.name]) for s in back.values()}
    exp_c = tuple(sp.sympify(e).xreplace(fwd) for e in expected)
    f = _flint_cached(("sf", exact.poly_key(p), exp_c), lambda: _stieltjes_p(p, exp_c))
    if f == p:
        return expr  # already the irreducible, primitive Stieltjes factor: no re-conversion
    return exact.to_sympy(f, back)


def stieltjes_factor(expr, expected_moments=()):
    """The irreducible factor of P(G, z) that carries the branch G ~ 1/z at infinity.

    ``expected_moments`` (m_1, m_2, … as sympy expressions in the parameters of ``expr``)
    decide between several factors with G ~ 1/z, e.g. the spurious factor zG − 1 (the law
    δ₀) that eliminations produce.
    """
    if exact.flint_enabled():
        try:
            return _stieltjes_factor_flint(expr, tuple(expected_moments))
        except exact.NotConvertible:
            pass
    params = sorted(exact.free_symbols(expr) - {G, z}, key=parameter_order)
    ren = {p: sp.Symbol(f"c{i}") for i, p in enumerate(params)}
    expr_c = expr.xreplace(ren)
    exp_c = tuple(sp.sympify(e).xreplace(ren) for e in expected_moments)
    res = _stieltjes_factor_cached(expr_c, exp_c)
    return res.xreplace({v: k for k, v in ren.items()})


def series_polynomial(P):
    """Q(M, u) = u^k P(u M, 1/u), the polynomial whose root M(u) = Σ m_k u^k, m_0 = 1, is the
    moment generating series (u = 1/z, G = u M)."""
    return _numer(P.subs({G: _u * _M, z: 1 / _u}, simultaneous=True))


def affine_polynomial(P, a, b):
    """Polynomial of the push-forward of μ by x ↦ a + b x (b ≠ 0): G_new(z) = G((z − a)/b)/b.

    ``a`` and ``b`` symbols or rationals: FLINT route cached on the canonical form (up to
    monomial factors and a constant the same polynomial as sympy's route, which serves
    other expressions)."""
    a, b = sp.sympify(a), sp.sympify(b)
    if (exact.flint_enabled() and all(v.is_Symbol or v.is_Rational for v in (a, b))
            and not (exact.free_symbols(P) & (a.free_symbols | b.free_symbols))):
        ren, back = _rename(P, "c", frozenset({G, z, w, S}))
        a_c = sp.Symbol("shift_") if a.is_Symbol else a
        b_c = sp.Symbol("scale_") if b.is_Symbol else b
        ren.update({v.name: c.name for v, c in ((a, a_c), (b, b_c)) if v.is_Symbol})
        ctx = exact.context(set(ren.values()) | {"G", "z"})
        try:
            p = exact.to_flint(P, ctx, ren)
        except exact.NotConvertible:
            pass
        else:
            f = _flint_cached(("aff", exact.poly_key(p), a_c, b_c),
                              lambda: _affine_p(p, a_c, b_c))
            back.update({c.name: v for v, c in ((a, a_c), (b, b_c)) if v.is_Symbol})
            return exact.to_sympy(f, back)
    return _numer(P.subs({G: b * G, z: (z - a) / b}, simultaneous=True))


def _affine_p(p, a, b):
    """:func:`affine_polynomial` of p (FLINT); a, b symbols named in p's context or
    rationals."""
    ctx = p.context()
    G_, z_ = _gens(ctx, "G", "z")

    def split(v):  # v = num/den as polynomials
        if v.is_Symbol:
            return _gens(ctx, v.name)[0], ctx.constant(1)
        return ctx.constant(int(v.p)), ctx.constant(int(v.q))

    (an, ad), (bn, bd) = split(a), split(b)
    # G -> b G = bn G / bd ;  z -> (z - a)/b = (ad z - an) bd / (ad bn)
    return exact.subs_rational(p, {"G": (bn * G_, bd), "z": ((ad * z_ - an) * bd, ad * bn)})


def s_relation(P):
    """Σ(w, S): the polynomial relation satisfied by the S-transform (see module docstring)."""
    return _numer(P.subs({G: S * w, z: (1 + w) / (S * w)}, simultaneous=True))


def from_s_relation(sigma, expected_moments=()):
    """Inverse of :func:`s_relation`: P(G, z) from Σ(w, S), Stieltjes factor selected
    (``expected_moments`` as in :func:`stieltjes_factor`)."""
    P = _numer(sigma.subs({w: z * G - 1, S: G / (z * G - 1)}, simultaneous=True))
    return stieltjes_factor(P, expected_moments)


def r_relation(P):
    """Polynomial relation C(g, R) = 0 between g and R(g), from z = R(G) + 1/G.

    Returned in the variables (w, S) standing for (g, R)."""
    return _numer(P.subs({G: w, z: S + 1 / w}, simultaneous=True))


def _gens(ctx, *names):
    return [ctx.gen(ctx.variable_to_index(n)) for n in names]


def _s_relation_flint(p, S_name="S"):
    """Σ(w, S) of p(G, z) in FLINT (see :func:`s_relation`)."""
    ctx = p.context()
    w_, S_ = _gens(ctx, "w", S_name)
    return exact.subs_rational(p, {"G": (S_ * w_, ctx.constant(1)), "z": (1 + w_, S_ * w_)})


def _from_s_relation_flint(sigma):
    """P(G, z) (before factor selection) from Σ(w, S) in FLINT (see :func:`from_s_relation`)."""
    ctx = sigma.context()
    G_, z_ = _gens(ctx, "G", "z")
    return exact.subs_rational(sigma, {"w": (z_ * G_ - 1, ctx.constant(1)),
                                       "S": (G_, z_ * G_ - 1)})


def _moments_at(p, probe, order):
    m = exact.series_moments_q(exact.eval_params_q(p, probe), order)
    if m is None:
        raise ValueError("G ~ 1/z is not a simple root of P at infinity")
    return m


# ------------------------------------------------------------------ sympy glue in FLINT
def expand_polynomial(P):
    """``sympy.expand(P)`` for a polynomial with rational coefficients, through FLINT.

    The same expression (equal, same hash) as sympy's ``expand``, many times faster on the
    eliminated polynomials (hundreds to thousands of terms), where ``expand`` walks every
    term even when P is already expanded.  Anything FLINT cannot take (``exp(1)`` inside P,
    two symbols of one name, FREEATTN_FLINT=0) goes to ``sympy.expand``.
    """
    syms = exact.free_symbols(P)
    names = {s.name for s in syms}
    if exact.flint_enabled() and len(names) == len(syms):
        try:
            p, den = exact.to_flint(P, exact.context(names), with_denominator=True)
        except exact.NotConvertible:
            pass
        else:
            return exact.to_sympy(p, tuple(syms), denominator=den)
    return sp.expand(P)


def rename_symbols(P, mapping):
    """``P.xreplace(mapping)`` for a symbol → symbol renaming (e.g. a law's parameters renamed
    apart before ⊠), the same expression; an expanded polynomial that came from FLINT is
    rebuilt from its FLINT form with the new symbols (no walk of the sympy tree)."""
    hit = exact._recall(P)
    if hit is None or not all(k.is_Symbol and v.is_Symbol for k, v in mapping.items()):
        return P.xreplace(mapping)
    p, gens, den = hit
    new = [mapping.get(g, g) for g in gens]
    if len(set(new)) != len(new):  # two symbols merged: sympy combines the terms
        return P.xreplace(mapping)
    return exact.to_sympy(p, dict(zip(p.context().names(), new)), denominator=den)


def substitute_polynomial(P, mapping):
    """``sympy.expand(P.xreplace(mapping))`` up to a non-zero rational factor, in FLINT.

    For the polynomial method's substitutions: renaming parameter symbols (symbol → symbol)
    and substituting exact rational parameter values (symbol → Rational).  The result has
    integer coefficients with no common factor, which changes P(G, z) = 0 by a constant
    only.  Other mappings or expressions go to sympy (exact ``expand(xreplace)``).
    """
    mapping = {k: sp.sympify(v) for k, v in mapping.items()}
    syms = exact.free_symbols(P)
    names = {s.name for s in syms}
    if (exact.flint_enabled() and len(names) == len(syms)
            and all(k.is_Symbol and (v.is_Symbol or v.is_Rational) for k, v in mapping.items())):
        renames = {k.name: v.name for k, v in mapping.items() if v.is_Symbol and k in syms}
        values = {k.name: v for k, v in mapping.items() if v.is_Rational and k in syms}
        ctx = exact.context((names - set(renames)) | set(renames.values()))
        try:
            p = exact.to_flint(P, ctx, renames)
        except exact.NotConvertible:
            pass
        else:
            if values:
                p = exact.subs_rational(p, {n: (ctx.constant(int(v.p)), ctx.constant(int(v.q)))
                                            for n, v in values.items()},
                                        strip_monomials=False)
            back = {s.name: s for s in syms}
            back.update({v.name: v for v in mapping.values() if v.is_Symbol})
            return exact.to_sympy(p, back)
    return sp.expand(P.xreplace(mapping))
