"""Discriminants of the polynomial method: the breakpoints of an algebraic law.

The real roots of disc_G P(G, z) (edges, branch points) and of P's leading coefficient in G
(poles: atoms or hard edges) split the real axis into intervals on each of which the Stieltjes
branch is one root of P(·, x) (see :mod:`freeattn.algebraic.numeric`).  This module computes
their z-dependent factors exactly:

* :func:`discriminant_factors` — of P as given (FLINT, sympy's route as the fallback);
* :func:`discriminant_tables` — of P with parameters symbolic, as coefficient tables evaluated
  per parameter point (a β scan does the elimination once);
* :func:`discriminant_near` — at dyadic rationals next to transcendental parameter values, for
  a structure whose symbolic discriminant is too costly (:func:`discriminant_cost`).

Results are cached on the canonical FLINT form, in the cache of
:mod:`freeattn.algebraic.polynomial`.
"""
from __future__ import annotations

from collections import OrderedDict
from functools import lru_cache

import mpmath
import sympy as sp

from .._context import to_mp
from . import exact
from .polynomial import (G, S, _FLINT_CACHE_SIZE, _flint_cached, _flint_has, _rename,
                         canonicalize, w, z)

__all__ = ["discriminant_factors", "discriminant_tables", "discriminant_cost",
           "discriminant_near", "discriminant_structure_seen", "table_coefficients",
           "table_coefficient_sizes", "DISCRIMINANT_SIZE_LIMIT",
           "DISCRIMINANT_EXACT_COST"]


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
                           lambda: tuple((_with_exact_rows(exact.CoefficientTable(f)), k)
                                         for f, k in fl))
    return tuple((t.with_symbols([back[s.name] for s in t.symbols]), k) for t, k in tables)


def _with_exact_rows(table):
    """The table with ``_exact_rows``: per power of z its coefficient as an ``fmpq_mpoly``
    in the table's parameters (None for a constant), built once per structure, for
    :func:`table_coefficients`."""
    n = len(table.symbols)
    if n:
        ctx = exact.flint.fmpq_mpoly_ctx.get(tuple(f"p{i}" for i in range(n)), "lex")
        table._exact_rows = [ctx.from_dict({e: c for e, c in row}) if row else None
                             for row in table.terms]
        # the same rows with |coefficients|: at |values| the size of each coefficient's terms
        # (table_coefficient_sizes)
        table._abs_rows = [ctx.from_dict({e: abs(c) for e, c in row}) if row else None
                           for row in table.terms]
    else:
        table._exact_rows = [None] * len(table.terms)
        table._abs_rows = [None] * len(table.terms)
    return table


def _mpf_to_fmpq(v):
    """An mpf as the exact binary rational it is (``man_exp`` is the modulus's: the sign
    is read from ``_mpf_``)."""
    sign, man, exp, _ = mpmath.mpf(v)._mpf_
    if not man:
        return exact.flint.fmpq(0)
    man = -man if sign else man
    if exp >= 0:
        return exact.flint.fmpq(man << exp)
    return exact.flint.fmpq(man, 1 << -exp)


def table_coefficients(table, values):
    """Coefficients of z^0 … z^degree of a :func:`discriminant_tables` table at the mpmath
    parameter ``values`` (in the order of ``table.symbols``), at the current precision.

    Each coefficient is the table's integer polynomial evaluated *exactly* (FLINT
    ``fmpq_mpoly``) at the values taken as the binary rationals they are, then rounded once:
    no cancellation among the hundreds of terms of a discriminant factor (a constant term
    that vanishes at these values comes out exactly 0), and a single C call per coefficient
    instead of a Python loop over mpf products (8 → 2 ms a new point of attention_law).
    Tables without exact rows (FLINT disabled) are evaluated in mpmath arithmetic."""
    rows = getattr(table, "_exact_rows", None)
    if rows is None or not exact.flint_enabled():
        return table.evaluate(values, mpmath.mpf(1))
    qs = [_mpf_to_fmpq(v) for v in values]
    out = []
    for poly, row in zip(rows, table.terms):
        if poly is None:
            out.append(mpmath.mpf(sum(c for _, c in row)))
        else:
            q = poly(*qs)
            out.append(mpmath.mpf(int(q.p)) / int(q.q))
    return out


def table_coefficient_sizes(table, values):
    """Σ |c| Π |v|^e over the terms of each coefficient (z^0 … z^degree) of a
    :func:`discriminant_tables` table at the mpmath parameter ``values``: the magnitude
    against which that coefficient's rounding is measured.  A coefficient that vanishes at
    the true parameter values comes out of :func:`table_coefficients` at the rounded values
    as ~10^-dps of its own size, not of the largest coefficient's: the coefficients of a
    discriminant whose roots span many decades differ by hundreds of orders of magnitude
    (mha_output_law(3.58, 6754, 37.4, 0.0085, 760, sharing='mqa'): z^9 … z^0 from 9e734 to
    2e852), and the top ones, small against the largest, decide the roots."""
    rows = getattr(table, "_abs_rows", None)
    if rows is None or not exact.flint_enabled():
        return _abs_table(table).evaluate([abs(v) for v in values], mpmath.mpf(1))
    qs = [_mpf_to_fmpq(abs(v)) for v in values]
    out = []
    for poly, row in zip(rows, table.terms):
        if poly is None:
            out.append(mpmath.mpf(sum(abs(c) for _, c in row)))
        else:
            q = poly(*qs)
            out.append(mpmath.mpf(int(q.p)) / int(q.q))
    return out


def _abs_table(table):
    """A copy of a coefficient table with |coefficients| (for its terms' sizes)."""
    new = table.with_symbols(table.symbols)
    new.terms = [[(e, abs(c)) for e, c in row] for row in table.terms]
    return new


#: a-priori cost of the exact discriminant in the parameters (exact.discriminant_size_bound
#: × the bits of P's largest coefficient) beyond which :func:`discriminant_near` takes over
#: for the breakpoints: ~1e4–5e4 for the papers' layer laws (ms), 1.2e5 for the single head,
#: 1.4e7 for a partial K/V law at a dyadic ρ (0.5 s), 2.8e8 at ρ = 0.6 (a 53-bit binary
#: rational: 20–30 s in FLINT); the measure can be far off for one transcendental parameter
#: (the ρ layer's κ: 2.0e6 took 15 s, 7.8e6 86 s), hence the bound at 1e6
DISCRIMINANT_EXACT_COST = 10**6


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
    seen = key in _SEEN or _flint_has(("tables",) + key[1:])
    _SEEN[key] = True
    _SEEN.move_to_end(key)
    while len(_SEEN) > _FLINT_CACHE_SIZE:
        _SEEN.popitem(last=False)
    return seen

