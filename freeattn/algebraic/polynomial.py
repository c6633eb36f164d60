"""Symbolic side of the polynomial method (Rao & Edelman 2008).

An *algebraic law* μ is described by an irreducible bivariate polynomial P(G, z) with
P(G_μ(z), z) = 0, where G_μ(z) = ∫ dμ(x)/(z − x) is the Cauchy transform (sign convention:
G ~ 1/z at infinity, Im G < 0 on the upper half-plane).  Law parameters enter P as sympy
symbols; their values live beside P (see :class:`freeattn.laws.AlgebraicLaw`).

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
    "boxtimes_polynomial",
    "compound_free_poisson_polynomial",
    "discriminant_factors",
    "discriminant_tables",
    "discriminant_cost",
    "discriminant_near",
    "pushforward_polynomial",
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


def _same(a, b):
    """Exact equality of two constant sympy expressions (numeric fallback for E, π, …)."""
    d = sp.expand(a - b)
    return d == 0 or abs(sp.N(d, 60)) < sp.Float(10) ** -45 * (1 + abs(sp.N(a, 20)))


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


def _boxtimes_flint(P1, P2):
    syms = exact.free_symbols(P1) | exact.free_symbols(P2)
    names = {s.name for s in syms} | {"G", "z", "w", "S", "S_1"}
    ctx = exact.context(names)
    p1, p2 = exact.to_flint(P1, ctx), exact.to_flint(P2, ctx)
    return exact.to_sympy(_boxtimes_p(p1, p2), tuple(syms))


def _boxtimes_p(p1, p2):
    """The ⊠ elimination of :func:`boxtimes_polynomial` on FLINT polynomials of one context
    (with the variables G, z, w, S, S_1)."""
    ctx = p1.context()
    S_, S1_ = _gens(ctx, "S", "S_1")
    s1 = _s_relation_flint(p1, "S_1")
    s2 = exact.subs_rational(_s_relation_flint(p2), {"S": (S_, S1_)})
    res = s1.resultant(s2, "S_1")

    def expected(probe):
        a1, a2 = _moments_at(p1, probe, 2)
        b1, b2 = _moments_at(p2, probe, 2)
        return [a1 * b1, a2 * b1**2 + a1**2 * b2 - a1**2 * b1**2]

    return _select_flint(_from_s_relation_flint(res), expected)


@lru_cache(maxsize=None)
def _boxtimes_cached(P1, P2):
    if exact.flint_enabled():
        try:
            return _boxtimes_flint(P1, P2)
        except exact.NotConvertible:
            pass
    s1 = s_relation(P1).subs(S, _S1)
    s2 = _numer(s_relation(P2).subs(S, S / _S1))
    res = sp.resultant(s1, s2, _S1)
    # m1, m2 of a product of free variables: φ(ab) = φ(a)φ(b),
    # φ(abab) = φ(a²)φ(b)² + φ(a)²φ(b²) − φ(a)²φ(b)²  (Nica & Speicher 2006, Lecture 14)
    a1, a2 = series_moments(P1, 2)
    b1, b2 = series_moments(P2, 2)
    return from_s_relation(res, (a1 * b1, a2 * b1**2 + a1**2 * b2 - a1**2 * b1**2))


def boxtimes_polynomial(P1, P2):
    """Polynomial of μ ⊠ ν from those of μ and ν, by S_{μ⊠ν} = S_μ S_ν and a resultant.

    Source: Rao & Edelman (2008), Table 7; Voiculescu's S-transform multiplicativity.
    """
    if exact.flint_enabled():
        ren1, back = _rename(P1, "a")
        ren2, back2 = _rename(P2, "b")
        back.update(back2)
        ctx = exact.context(set(ren1.values()) | set(ren2.values()) | {"G", "z", "w", "S", "S_1"})
        try:
            q1, q2 = exact.to_flint(P1, ctx, ren1), exact.to_flint(P2, ctx, ren2)
        except exact.NotConvertible:
            pass
        else:
            f = _flint_cached(("bt", exact.poly_key(q1), exact.poly_key(q2)),
                              lambda: _boxtimes_p(q1, q2))
            return exact.to_sympy(f, back)
    c1, p1 = canonicalize(P1, "a")
    c2, p2 = canonicalize(P2, "b")
    res = _boxtimes_cached(c1, c2)
    back = {sp.Symbol(f"a{i}"): s for i, s in enumerate(p1)}
    back.update({sp.Symbol(f"b{i}"): s for i, s in enumerate(p2)})
    return res.xreplace(back)


def _cfp_flint(P, t):
    names = {s.name for s in exact.free_symbols(P)} | {"G", "z", "w", "S", t.name}
    ctx = exact.context(names)
    p = exact.to_flint(P, ctx)
    return exact.to_sympy(_cfp_p(p, t.name), tuple(exact.free_symbols(P) | {t}))


def _cfp_p(p, tname):
    """The compound free Poisson elimination on a FLINT polynomial (context with G, z, w, S
    and the rate's name ``tname``)."""
    ctx = p.context()
    w_, S_, t_ = _gens(ctx, "w", "S", tname)
    sigma_t = exact.subs_rational(_s_relation_flint(p), {"w": (w_, t_),
                                                         "S": (S_ * (t_ + w_), ctx.constant(1))})

    def expected(probe):
        m1, m2 = _moments_at(p, probe, 2)
        tq = probe[tname]
        return [tq * m1, tq * m2 + tq**2 * m1**2]

    return _select_flint(_from_s_relation_flint(sigma_t), expected)


@lru_cache(maxsize=None)
def _cfp_cached(P, t):
    if exact.flint_enabled():
        try:
            return _cfp_flint(P, t)
        except exact.NotConvertible:
            pass
    sigma = s_relation(P)
    sigma_t = _numer(sigma.subs({w: w / t, S: S * (t + w)}, simultaneous=True))
    m1, m2 = series_moments(P, 2)
    # m1(π(μ,t)) = t m1(μ), m2 = t m2(μ) + t² m1(μ)²  (Hayase & Karakida 2026, §C.1)
    return from_s_relation(sigma_t, (t * m1, t * m2 + t**2 * m1**2))


def compound_free_poisson_polynomial(P, rate):
    """Polynomial of π(μ, t) from that of μ via S_{π(μ,t)}(w) = S_μ(w/t)/(t + w).

    Source: Hayase & Karakida 2026, eq. (C.4)."""
    t = sp.Symbol("rate_")
    if exact.flint_enabled():
        ren, back = _rename(P, "a")
        ctx = exact.context(set(ren.values()) | {"G", "z", "w", "S", t.name})
        try:
            q = exact.to_flint(P, ctx, ren)
        except exact.NotConvertible:
            pass
        else:
            f = _flint_cached(("cfp", exact.poly_key(q)), lambda: _cfp_p(q, t.name))
            back[t.name] = sp.sympify(rate)
            return exact.to_sympy(f, back)
    c, p = canonicalize(P, "a")
    res = _cfp_cached(c, t)
    back = {sp.Symbol(f"a{i}"): s for i, s in enumerate(p)}
    back[t] = rate
    return res.xreplace(back)


def _disc_flint(P):
    ctx = exact.context({s.name for s in exact.free_symbols(P)} | {"G", "z"})
    p = exact.to_flint(P, ctx)
    return _disc_p(p), tuple(exact.free_symbols(P))


#: largest a-priori term bound (exact.discriminant_size_bound) of a discriminant computed
#: exactly in FLINT; beyond it a ValueError asks for fewer symbols (substitute fixed values)
DISCRIMINANT_SIZE_LIMIT = 10**8
#: the same for sympy's route (FREEATTN_FLINT=0): the attention law's symbolic discriminant
#: (bound 6e4) takes ~10 s there, its rational-substitution forms (bound ≤ 2e4) well under 1 s
SYMPY_DISCRIMINANT_SIZE_LIMIT = 3 * 10**4


def _check_disc_size(bound, limit=None):
    limit = DISCRIMINANT_SIZE_LIMIT if limit is None else limit
    if bound > limit:
        raise ValueError(
            f"the discriminant of this polynomial in G is too large to compute exactly with its "
            f"parameters symbolic (a-priori bound {float(bound):.1e} terms > "
            f"{float(limit):.0e}); substitute the fixed parameter values first")


def _disc_p(p):
    """z-dependent factors of disc_G(p) and lc_G(p) (FLINT): ((factor, kind), …).

    Raises ValueError when :func:`exact.discriminant_size_bound` exceeds
    :data:`DISCRIMINANT_SIZE_LIMIT`."""
    _check_disc_size(exact.discriminant_size_bound(p, "G"))
    ctx = p.context()
    groups = exact.split_by(p, ["G"])
    lc = groups[max(groups)]
    disc = p.discriminant("G")
    iz = ctx.variable_to_index("z")
    out = []
    for poly, kind in ((disc, "disc"), (lc, "lead")):
        if poly.is_zero():
            continue
        for f, _ in exact.factor(poly):
            if f.degrees()[iz] > 0:
                out.append((f, kind))
    return tuple(out)


@lru_cache(maxsize=None)
def _disc_cached(P):
    if exact.flint_enabled():
        try:
            fl, syms = _disc_flint(P)
            return tuple((exact.to_sympy(f, syms), kind) for f, kind in fl)
        except exact.NotConvertible:
            pass
    poly = sp.Poly(P, G)
    n = poly.degree()
    full = sp.Poly(P, G, *sorted(exact.free_symbols(P) - {G}, key=lambda s_: s_.name))
    bound = 1
    for d in full.degree_list()[1:]:
        bound *= (2 * n - 2) * d + 1
    _check_disc_size(bound, SYMPY_DISCRIMINANT_SIZE_LIMIT)
    lc = poly.LC()
    disc = sp.discriminant(poly.as_expr(), G)
    out = []
    for expr, kind in ((disc, "disc"), (lc, "lead")):
        _, fl = sp.factor_list(sp.expand(expr), z)
        for f, _ in fl:
            if f.has(z):
                out.append((sp.expand(f), kind))
    return tuple(out)


def discriminant_factors(P):
    """Factors (in z) of the discriminant of P in G and of its leading coefficient in G.

    Returns a tuple of ``(factor, kind)`` with kind ``"disc"`` (edges / branch points) or
    ``"lead"`` (poles: candidate atoms).  Only factors that depend on z are kept.

    Raises ValueError when the discriminant is too large to compute exactly with P's
    symbols (see :data:`DISCRIMINANT_SIZE_LIMIT`): substitute fixed values first.
    """
    if exact.flint_enabled():
        try:
            key, back, q = _disc_key(P)
        except exact.NotConvertible:
            pass
        else:
            fl = _flint_cached(key, lambda: _disc_p(q))
            skey = ("disc-sympy", key, tuple(sorted(back.items(), key=lambda kv: kv[0])))
            return _flint_cached(skey, lambda: tuple((exact.to_sympy(f, back), k)
                                                     for f, k in fl))
    c, p = canonicalize(P)
    res = _disc_cached(c)
    back = {sp.Symbol(f"c{i}"): s for i, s in enumerate(p)}
    return tuple((f.xreplace(back), k) for f, k in res)


def _disc_key(P):
    ren, back = _rename(P, "c", frozenset({G, z, w, S}))
    q = exact.to_flint(P, exact.context(set(ren.values()) | {"G", "z"}), ren)
    return ("disc", exact.poly_key(q)), back, q




def _flint_disc_key(P, who):
    """:func:`_disc_key` of P for the FLINT routes, with their errors: ValueError naming
    ``who`` when FLINT is off, or when P's coefficients are not rational."""
    if not exact.flint_enabled():
        raise ValueError(f"{who} needs python-flint (FREEATTN_FLINT is 0)")
    try:
        return _disc_key(P)
    except exact.NotConvertible as exc:
        raise ValueError(f"P must have rational coefficients: {exc}") from exc


def discriminant_tables(P):
    """Factors (in z) of the discriminant of P in G and of its leading coefficient in G,
    as numerically evaluable coefficient tables in P's parameters.

    For a new parameter point of an already-eliminated structure (a β scan, a random sweep)
    no exact algebra is redone: the factors of the *symbolic* discriminant are computed once
    (in FLINT, cached on the canonical form of P) and their coefficients in z evaluated at
    the working precision per point.

    Parameters
    ----------
    P : sympy expression
        P(G, z) with rational coefficients; every other symbol is a parameter (keep
        symbolic the parameters that change between points, substitute the fixed ones).

    Returns
    -------
    tuple of (CoefficientTable, str)
        ``(table, kind)`` with kind ``"disc"`` (edges / branch points) or ``"lead"``
        (poles: candidate atoms); ``table.symbols`` are P's parameter symbols and
        ``table.evaluate(values, one)`` gives the coefficients of z^0 … z^degree.  Only
        factors that depend on z are returned.

    Raises
    ------
    ValueError
        If python-flint is unavailable or disabled (``FREEATTN_FLINT=0``), P does not have
        rational coefficients, or the symbolic discriminant is too large
        (:data:`DISCRIMINANT_SIZE_LIMIT`; e.g. the full layer (C.15) with all six
        parameters symbolic): then substitute the fixed parameter values first.

    Notes
    -----
    At special parameter values a factor may vanish identically (all its coefficients
    zero) or the degree of P in G may drop; both need the caller's attention (skip the
    factor / fall back to :func:`discriminant_factors` of the substituted polynomial).
    Costs (this machine): attention law ν_{∞,h} (4 parameters, 283-term discriminant factor)
    ~2 ms once; ν_{∞,h} ⊠ MP (5 parameters, 8119 terms) ~1 s once.
    """
    key, back, q = _flint_disc_key(P, "discriminant_tables")
    fl = _flint_cached(key, lambda: _disc_p(q))
    tables = _flint_cached(("tables",) + key[1:],
                           lambda: tuple((exact.CoefficientTable(f), k) for f, k in fl))
    return tuple((t.with_symbols([back[s.name] for s in t.symbols]), k) for t, k in tables)


#: a-priori cost of the exact discriminant in the parameters (exact.discriminant_size_bound
#: × the bits of P's largest coefficient) beyond which :func:`discriminant_near` takes over
#: for the breakpoints: ~1e4–5e4 for the papers' layer laws (ms), 1.4e7 for a partial K/V law
#: at a dyadic ρ (0.5 s), 2.8e8 at ρ = 0.6 (a 53-bit binary rational: 20–30 s in FLINT)
DISCRIMINANT_EXACT_COST = 10**8


def discriminant_cost(P):
    """:data:`DISCRIMINANT_EXACT_COST`'s measure of P (sympy, rational coefficients), or
    None when FLINT cannot take P."""
    if not exact.flint_enabled():
        return None
    try:
        _, _, q = _disc_key(P)
    except exact.NotConvertible:
        return None
    bits = max(int(c).bit_length() for c in q.coeffs())
    return exact.discriminant_size_bound(q, "G") * bits


def discriminant_near(P, values, prec):
    """Factors (in z) of the discriminant of P in G at rational parameter values within
    2^-prec (relative) of ``values``, and of P's leading coefficient in G (exact in the
    parameters).

    For a law whose parameters stay symbolic (transcendental values such as
    κ = θ₂/(t(θ₁ − θ₂))) but whose discriminant in them is too costly
    (:func:`discriminant_cost`): each parameter is replaced by its value rounded to ``prec``
    bits (a dyadic rational), which leaves a discriminant in z alone, exact for that nearby
    point; its roots differ from those at the true values by O(2^-prec) times their
    condition (the caller verifies them, see ``BranchData``).  The leading coefficient's
    factors (poles: atom locations) take no elimination and stay exact in the parameters.

    Parameters
    ----------
    P : sympy expression
        P(G, z) with rational coefficients and parameter symbols.
    values : dict
        Parameter symbol → exact value (sympy), for every parameter of P.
    prec : int
        Bits of the rational approximations.

    Returns
    -------
    tuple of (list of int or CoefficientTable, str)
        ``("disc")`` entries: integer coefficients of z^0 … z^degree;
        ``("lead")`` entries: :class:`~freeattn.algebraic.exact.CoefficientTable` in P's
        parameters.

    Raises
    ------
    ValueError
        If FLINT is unavailable or P does not have rational coefficients.
    """
    import mpmath

    from .._context import to_mp

    key, back, q = _flint_disc_key(P, "discriminant_near")
    ctx = q.context()
    iz = ctx.variable_to_index("z")
    params = [n for n in ctx.names() if n not in ("G", "z")]
    mapping = {}
    with mpmath.workprec(int(prec)):
        for n in params:
            man, e = mpmath.mpf(to_mp(values[back[n]])).man_exp
            num, den = (int(man) << e, 1) if e >= 0 else (int(man), 1 << -e)
            mapping[n] = (ctx.constant(num), ctx.constant(den))
    out = []
    near = exact.subs_rational(q, mapping, strip_monomials=False) if mapping else q
    disc = near.discriminant("G")
    if not disc.is_zero():
        for f, _ in exact.factor(disc):
            if f.degrees()[iz] > 0:
                coeffs = [0] * (int(f.degrees()[iz]) + 1)
                for m, c in f.to_dict().items():
                    coeffs[int(m[iz])] += int(c)
                out.append((coeffs, "disc"))
    groups = exact.split_by(q, ["G"])
    lead = _flint_cached(("lead",) + key[1:], lambda: tuple(
        exact.CoefficientTable(f) for f, _ in exact.factor(groups[max(groups)])
        if f.degrees()[iz] > 0))
    out += [(t.with_symbols([back[s.name] for s in t.symbols]), "lead") for t in lead]
    return tuple(out)


_SEEN = OrderedDict()


def discriminant_structure_seen(P):
    """Whether a law of P's structure (its canonical form, parameters symbolic) was met
    before in this process, or its :func:`discriminant_tables` are already cached; records
    P's structure either way.

    The symbolic discriminant pays off from the second parameter point of a structure on (a
    β scan); a single law builds faster from the discriminant of its substituted polynomial
    (e.g. ν_{∞,h} ⊠ MP: 0.07 s instead of 0.9 s for the five-parameter symbolic one)."""
    if not exact.flint_enabled():
        return False
    try:
        key = _disc_key(P)[0]
    except exact.NotConvertible:
        return False
    seen = key in _SEEN or (("tables",) + key[1:]) in _FLINT_CACHE
    _SEEN[key] = True
    _SEEN.move_to_end(key)
    while len(_SEEN) > _FLINT_CACHE_SIZE:
        _SEEN.popitem(last=False)
    return seen


# ------------------------------------------------------------------ push-forward φ#μ
def _pushforward_chain(Q, phi, resultant, compose, divide, gens):
    """Elimination behind :func:`pushforward_polynomial`, written once for both backends.

    G_{φ#μ}(z) = Σ_{φ(x_i) = z} G_μ(x_i)/φ′(x_i) over the d roots of φ(x) = z (partial
    fractions of 1/(z − φ(x))).  With t_i = G_μ(x_i)/φ′(x_i), Q(t, x) = P(t φ′(x), x) = 0.
    The roots are split off one at a time by divided differences,
    Φ_0(x) = φ(x) − z, Φ_k(x) = (Φ_{k−1}(x) − Φ_{k−1}(x_k))/(x − x_k), whose roots are
    x_{k+1}, …, x_d; the partial sums S_k = t_k + … + t_d are eliminated from the last one
    up: R_d(s) = res_{x_d}(Q(s, x_d), Φ_{d−1}(x_d)),
    R_k(s) = res_{x_k}(res_t(Q(t, x_k), R_{k+1}(s − t)), Φ_{k−1}(x_k)); R_1(G) vanishes at
    G = G_{φ#μ}(z) (with spurious factors from other branch combinations).
    """
    Gs, ts, X, xs = gens["G"], gens["t"], gens["x"], gens["xs"]
    d = len(xs)
    phis = [phi(X)]
    for k in range(1, d):
        prev = phis[-1]
        phis.append(divide(prev - compose(prev, {"x": xs[k - 1]}), X - xs[k - 1]))
    R = resultant(Q(Gs, xs[d - 1]), compose(phis[d - 1], {"x": xs[d - 1]}), d - 1)
    for k in range(d - 1, 0, -1):
        H = resultant(Q(ts, xs[k - 1]), compose(R, {"G": Gs - ts}), "t")
        R = resultant(H, compose(phis[k - 1], {"x": xs[k - 1]}), k - 1)
    return R


def _pushforward_flint(P, ks):
    d = len(ks) - 1
    xnames = [f"x_{i}" for i in range(1, d + 1)]
    names = ({s.name for s in exact.free_symbols(P)} | {k.name for k in ks if k.is_Symbol}
             | {"G", "z", "t_", "x_"} | set(xnames))
    ctx = exact.context(names)
    p = exact.to_flint(P, ctx)
    gens = list(ctx.gens())
    idx = {n: i for i, n in enumerate(ctx.names())}
    G_, z_, t_, X_ = (gens[idx[n]] for n in ("G", "z", "t_", "x_"))
    xs = [gens[idx[n]] for n in xnames]
    coeffs = [gens[idx[k.name]] if k.is_Symbol else ctx.constant(int(k)) for k in ks]

    def phi(v):
        return sum((c * v**j for j, c in enumerate(coeffs)), ctx.constant(0)) - z_

    def dphi(v):
        return sum((j * c * v ** (j - 1) for j, c in enumerate(coeffs) if j), ctx.constant(0))

    def compose(q, images):
        args = list(gens)
        for n, img in images.items():
            args[idx[{"x": "x_", "G": "G", "t": "t_"}.get(n, n)]] = img
        return q.compose(*args)

    def Q(tv, xv):
        return compose(p, {"G": tv * dphi(xv), "z": xv})

    def resultant(a, b, which):
        name = "t_" if which == "t" else xnames[which]
        return a.resultant(b, name)

    R = _pushforward_chain(Q, phi, resultant, compose, lambda a, b: a / b,
                           {"G": G_, "t": t_, "x": X_, "xs": xs})
    return exact.drop_monomial_content(R), ctx


def _pushforward_sympy(P, ks):
    d = len(ks) - 1
    tt, X = sp.symbols("t_ x_")
    xs = list(sp.symbols(f"x_1:{d + 1}"))

    def phi(v):
        return sum(c * v**j for j, c in enumerate(ks)) - z

    def dphi(v):
        return sum(j * c * v ** (j - 1) for j, c in enumerate(ks) if j)

    def compose(q, images):
        rename = {"x": X, "G": G, "t": tt, "z": z}
        return sp.expand(q.xreplace({rename[n]: v for n, v in images.items()}))

    def Q(tv, xv):
        return sp.expand(P.xreplace({G: tv * dphi(xv), z: xv}))

    def resultant(a, b, which):
        return sp.expand(sp.resultant(a, b, tt if which == "t" else xs[which]))

    return _pushforward_chain(Q, phi, resultant, compose, lambda a, b: sp.quo(a, b, X),
                              {"G": G, "t": tt, "x": X, "xs": xs})


@lru_cache(maxsize=None)
def _pushforward_cached(P, ks):
    d = len(ks) - 1
    kparams = [k for k in ks if k.is_Symbol]
    if exact.flint_enabled():
        try:
            R, ctx = _pushforward_flint(P, ks)
            names = {s.name for s in exact.free_symbols(P)} | {"G", "z"}
            pf = exact.to_flint(P, exact.context(names))

            def expected(probe):
                m = [exact.flint.fmpq(1)] + _moments_at(pf, probe, 2 * d)
                c = [probe[k.name] if k.is_Symbol else exact.flint.fmpq(int(k)) for k in ks]
                m1 = sum((c[j] * m[j] for j in range(d + 1)), exact.flint.fmpq(0))
                m2 = sum((c[i] * c[j] * m[i + j] for i in range(d + 1) for j in range(d + 1)),
                         exact.flint.fmpq(0))
                return [m1, m2]

            f = _select_flint(R, expected)
            return exact.to_sympy(f, tuple(exact.free_symbols(P)) + tuple(kparams))
        except exact.NotConvertible:
            pass
    R = _pushforward_sympy(P, ks)
    mu = [sp.Integer(1)] + list(series_moments(P, 2 * d))
    m1 = sum(ks[j] * mu[j] for j in range(d + 1))
    m2 = sum(ks[i] * ks[j] * mu[i + j] for i in range(d + 1) for j in range(d + 1))
    return stieltjes_factor(R, (sp.expand(m1), sp.expand(m2)))


def pushforward_polynomial(P, coefficients):
    """P(G, z) of the push-forward φ#μ of μ (polynomial P) by a real polynomial map
    φ(x) = c_0 + c_1 x + … + c_d x^d, exact by elimination.

    Parameters
    ----------
    P : sympy expression
        P(G, z) of μ (parameter symbols allowed).
    coefficients : sequence of sympy expressions
        c_0, …, c_d, low to high; c_d ≠ 0.  Symbols stay symbolic (the elimination is
        cached on the structure: which coefficients are zero and P's canonical form);
        non-zero numbers are eliminated as symbols and substituted at the end.

    Returns
    -------
    sympy expression
        The irreducible factor carrying G_{φ#μ} ~ 1/z at infinity (selected by the first
        two moments m_k(φ#μ) = ∫ φ(x)^k dμ).

    Raises
    ------
    ValueError
        If the leading coefficient is zero or the degree is < 1.

    Notes
    -----
    G_{φ#μ}(z) = ∫ dμ(x)/(z − φ(x)) = Σ_{φ(x_i) = z} G_μ(x_i)/φ′(x_i) over the roots x_i of
    φ(x) = z (partial fractions), eliminated by resultants (see :func:`_pushforward_chain`);
    degree 1 is :func:`affine_polynomial`.  The multi-head paper's tied K = V law
    μ_KV = φ_KV#π_{γ_K/h}, φ_KV(x) = (θ₁ − θ₂) x + (h θ₂/γ_K) x² (Hayase & Karakida 2026,
    eqs. (C.17)–(C.21)) is the case d = 2.  Cost grows like deg_G(P)^d: meant for small d.
    """
    coefficients = [sp.sympify(c) for c in coefficients]
    if len(coefficients) < 2 or coefficients[-1] == 0:
        raise ValueError("coefficients must be c_0..c_d with d >= 1 and c_d != 0")
    if len(coefficients) == 2:
        return affine_polynomial(P, coefficients[0], coefficients[1])
    Pc, params = canonicalize(P)
    ks, back = [], {}
    for j, c in enumerate(coefficients):
        if c == 0:
            ks.append(sp.Integer(0))
        else:
            k = sp.Symbol(f"k{j}")
            ks.append(k)
            back[k] = c
    back.update({sp.Symbol(f"c{i}"): p for i, p in enumerate(params)})
    return _pushforward_cached(Pc, tuple(ks)).xreplace(back)


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
