"""Exact multivariate polynomial algebra in FLINT (python-flint) behind sympy expressions.

The polynomial method's eliminations (Rao & Edelman 2008) need exact multivariate
factorisation, resultants and discriminants over Q[G, z, parameters].  sympy does them in pure
Python (Wang's factorisation of the full-layer polynomial of Hayase & Karakida 2026,
eq. (C.15), takes seconds); FLINT does the same in milliseconds.  sympy stays the interface
of :mod:`freeattn.algebraic.polynomial`: expressions are converted into a FLINT context over
their symbols, the algebra runs there, and results come back as sympy expressions in the
original symbols.

Everything here is exact: coefficients are integers (denominators are cleared, which changes a
polynomial by a non-zero constant only, immaterial for its zero set, factors, resultants and
discriminants).  A polynomial whose coefficients are not rational (an ``exp(1)`` or ``pi``
inside the expression) cannot be converted: :class:`NotConvertible` is raised and callers fall
back to sympy.  Law parameters never put such numbers into the polynomial itself (a
transcendental value stays a symbol beside it).

``FREEATTN_FLINT=0`` in the environment disables this module (sympy-only route, for
benchmarks and cross-checks); it is read at each call.
"""
from __future__ import annotations

import os
from collections import OrderedDict

import sympy as sp

try:  # python-flint is a dependency; the sympy route remains for FREEATTN_FLINT=0
    import flint
except ImportError:  # pragma: no cover - exercised only without python-flint
    flint = None

__all__ = ["NotConvertible", "flint_enabled", "context", "to_flint", "to_sympy", "poly_key",
           "factor", "factor_list", "resultant", "discriminant", "subs_rational",
           "drop_monomial_content", "discriminant_size_bound", "split_by", "eval_params_q", "series_moments_q",
           "series_moments_poly", "stieltjes_candidates", "is_stieltjes_candidate",
           "CoefficientTable"]

#: variables of the polynomial method, placed first (in this order) in every context
_FIRST = ("G", "z", "w", "S", "S_1", "u", "M")


class NotConvertible(ValueError):
    """The expression is not a polynomial with rational coefficients in its symbols."""


def flint_enabled():
    """True when python-flint is importable and ``FREEATTN_FLINT`` is not ``"0"``."""
    return flint is not None and os.environ.get("FREEATTN_FLINT", "1") != "0"


def _ordered_names(names):
    names = set(names)
    first = [n for n in _FIRST if n in names]
    return tuple(first + sorted(names - set(first)))


def context(names):
    """The FLINT context (integer coefficients, lex order) over ``names``: the polynomial
    method's variables G, z, w, S, … first, then the other names sorted."""
    return flint.fmpz_mpoly_ctx.get(_ordered_names(names), "lex")


# ------------------------------------------------------------------ conversion memo
#: sympy expressions built by :func:`to_sympy` → (fmpz_mpoly, the sympy symbol each of its
#: context's names stands for, denominator): the polynomial method passes the same large
#: expressions back to FLINT many times (a law's polynomial into ⊠, its Stieltjes factor, its
#: substituted form into the discriminant and the numeric coefficients), and reading them off
#: the FLINT polynomial they came from skips walking thousands of sympy terms each time.
#: sympy expressions are immutable, so an entry never goes stale; the memo is a bounded LRU.
#: own LRU, not functools.lru_cache: it is written where an expression is made (to_sympy) and
#: read elsewhere (_recall), a two-ended memo rather than the cache of one function
_MEMO = OrderedDict()
_MEMO_SIZE = 256


def _remember(expr, p, gens, denominator):
    try:
        _MEMO[expr] = (p, tuple(gens), int(denominator))
    except TypeError:  # pragma: no cover - every sympy expression is hashable
        return
    _MEMO.move_to_end(expr)
    while len(_MEMO) > _MEMO_SIZE:
        _MEMO.popitem(last=False)


def _recall(expr):
    """(p, gens, den) of an expression :func:`to_sympy` built (expr = p/den with the
    context's names standing for ``gens``), or None."""
    if not isinstance(expr, sp.Basic) or expr.is_Atom:
        return None
    hit = _MEMO.get(expr)
    if hit is not None:
        _MEMO.move_to_end(expr)
    return hit


def free_symbols(expr):
    """``expr.free_symbols``, read off the FLINT polynomial when :func:`to_sympy` built
    ``expr`` (walking a large sympy expression for its symbols costs as much as converting
    it)."""
    hit = _recall(expr)
    if hit is None:
        return expr.free_symbols
    p, gens, _ = hit
    return {g for g, d in zip(gens, p.degrees()) if d > 0}


def is_expanded(expr):
    """True when ``expr`` is known to be an expanded polynomial with rational coefficients
    (built by :func:`to_sympy`); False means unknown."""
    return _recall(expr) is not None


def _recalled_flint(hit, ctx, rename, index):
    """The memo's polynomial moved into ``ctx`` (variables renamed), with to_flint's
    normalisation: expr·L for the least L clearing the denominators."""
    p, gens, den = hit
    src = p.context()
    degs = p.degrees()
    targets = []
    for g, d in zip(gens, degs):
        name = rename.get(g.name, g.name)
        i = index.get(name)
        if i is None and d > 0:
            raise NotConvertible(f"symbols {[name]} not in the context")
        targets.append(i)
    if ctx is src and all(i == k for k, i in enumerate(targets)):
        q = p
    else:
        one = ctx.constant(1)
        gens_new = ctx.gens()
        q = p.compose(*[gens_new[i] if i is not None else one for i in targets], ctx=ctx)
    lcm = 1
    if den != 1:
        content = int(q.content())
        g = _gcd(content, den) if content else den
        lcm = den // g
        if g != 1:
            q = q / g
    return q, lcm


def to_flint(expr, ctx, rename=None, with_denominator=False):
    """``expr`` (sympy, polynomial with rational coefficients) as an ``fmpz_mpoly`` in ``ctx``.

    Denominators are cleared (the result is ``expr`` times a positive integer).  Every free
    symbol of ``expr`` must be named in ``ctx``, after ``rename`` (symbol name → context
    name; renaming here is much cheaper than sympy's ``xreplace`` on a large expression).
    An expanded expression is read term by term; anything else goes through ``sympy.Poly``.
    With ``with_denominator`` returns ``(poly, den)``: ``expr = poly/den``.

    Raises
    ------
    NotConvertible
        If ``expr`` is not a polynomial over Q in the context's variables.
    """
    names = ctx.names()
    rename = rename or {}
    hit = _recall(expr)
    if hit is not None:
        index = {n: i for i, n in enumerate(names)}
        p, lcm = _recalled_flint(hit, ctx, rename, index)
        return (p, lcm) if with_denominator else p
    index = {n: i for i, n in enumerate(names)}
    index.update({old: index[new] for old, new in rename.items() if new in index})
    terms = _expanded_terms(expr, index, len(names))
    if terms is None:
        syms = {rename.get(s.name, s.name): s for s in expr.free_symbols}
        if set(syms) - set(names):
            raise NotConvertible(f"symbols {sorted(set(syms) - set(names))} not in the context")
        gens = [syms.get(n, sp.Symbol(n)) for n in names]
        try:
            poly = sp.Poly(expr, *gens, domain=sp.QQ)
        except (sp.PolynomialError, sp.polys.polyerrors.CoercionFailed) as exc:
            raise NotConvertible(str(exc)) from exc
        terms = {}
        for m, c in poly.terms():
            terms[m] = (int(c.numerator), int(c.denominator))
    den = 1
    for _, d in terms.values():
        if d != 1:
            den = den * d // _gcd(den, d)
    p = ctx.from_dict({m: n * (den // d) for m, (n, d) in terms.items() if n})
    return (p, den) if with_denominator else p


def _expanded_terms(expr, index, nv):
    """{monomial: (num, den)} of an expanded sympy polynomial, or None if ``expr`` is not
    a sum of (rational × product of symbol powers) terms over the names in ``index``
    (name → position among ``nv`` variables)."""
    hit = _recall(expr)
    if hit is not None:
        return _recalled_terms(hit, index, nv)
    out = {}
    for term in sp.Add.make_args(expr):
        coeff, rest = term.as_coeff_Mul()
        if not coeff.is_Rational:
            return None
        mono = [0] * nv
        for f in sp.Mul.make_args(rest):
            if f.is_Symbol:
                base, e = f, 1
            elif f.is_Pow and f.base.is_Symbol and f.exp.is_Integer and f.exp > 0:
                base, e = f.base, int(f.exp)
            elif f == 1:
                continue
            else:
                return None
            i = index.get(base.name)
            if i is None:
                raise NotConvertible(f"symbol {base} not in the context")
            mono[i] += e
        key = tuple(mono)
        p, q = int(coeff.p), int(coeff.q)
        if key in out:
            p0, q0 = out[key]
            p, q = p0 * q + p * q0, q0 * q
            g = _gcd(abs(p), q) or 1
            p, q = p // g, q // g
        out[key] = (p, q)
    return out


def _recalled_terms(hit, index, nv):
    """:func:`_expanded_terms` from the memo's FLINT polynomial."""
    p, gens, den = hit
    degs = p.degrees()
    pos = []
    for g, d in zip(gens, degs):
        i = index.get(g.name)
        if i is None and d > 0:
            raise NotConvertible(f"symbol {g} not in the context")
        pos.append(i)
    used = [(k, i) for k, (i, d) in enumerate(zip(pos, degs)) if d > 0]
    merged = len({i for _, i in used}) < len(used)  # two symbols of one name: one variable
    out = {}
    for m, c in p.to_dict().items():
        mono = [0] * nv
        for k, i in used:
            mono[i] += int(m[k])
        key, c = tuple(mono), int(c)
        if merged and key in out:
            c += out[key][0] * den // out[key][1]
        g = _gcd(abs(c), den) or 1
        out[key] = (c // g, den // g)
    return out


def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def to_sympy(p, symbols=(), denominator=1):
    """An ``fmpz_mpoly`` as an expanded sympy expression.

    ``symbols`` gives what the context's names stand for: a sequence of sympy symbols (by
    their names, so that symbols carrying assumptions come back as themselves) or a dict
    {context name: sympy expression}; other names become plain ``Symbol``.  When every name
    maps to a distinct symbol the terms are assembled in sympy's canonical argument order
    directly (``Mul._from_args``/``Add._from_args``, see :func:`_canonical_terms`), several
    times faster than ``Mul(*…)`` per term and equal (same args, same hash) to what sympy
    would build.  ``denominator`` divides every coefficient (the polynomial p/denominator).
    """
    by_name = dict(symbols) if isinstance(symbols, dict) else {s.name: s for s in symbols}
    gens = [by_name.get(n, sp.Symbol(n)) for n in p.context().names()]
    fast = all(g.is_Symbol for g in gens) and len(set(gens)) == len(gens)
    pw = {}
    raw = []
    for monom, c in p.to_dict().items():
        keys = []
        for i, e in enumerate(monom):
            if e:
                key = (i, int(e))
                if key not in pw:
                    pw[key] = gens[i] ** key[1]
                keys.append(key)
        ci = sp.Rational(int(c), denominator) if denominator != 1 else sp.Integer(int(c))
        raw.append((keys, ci))
    if not fast:
        return sp.expand(sp.Add(*[sp.Mul(ci, *[pw[k] for k in keys]) for keys, ci in raw]))
    out = _canonical_terms(raw, pw)
    if out.is_Add:
        _remember(out, p, gens, denominator)
    return out


def _canonical_terms(raw, pw):
    """``Add`` of the monomials ``raw`` = [(factor keys, coefficient), …] (distinct
    monomials, ``pw[key]`` the factor gen**e) in sympy's canonical order.

    sympy orders the arguments of Mul and Add by ``Basic.compare``; sorting n terms with it
    costs ~n log n recursive comparisons.  Here the few distinct factors are sorted once with
    sympy's comparator, each monomial's factors by that rank (the same order: the comparator
    is a total order on distinct objects), and the terms by a key built from those ranks and
    the classes' order; that order is then confirmed by n − 1 comparisons of neighbours with
    ``Basic.compare`` itself, and where one disagrees the terms are sorted by sympy
    (``_addsort``).  Either way the result is sympy's own canonical expression."""
    from functools import cmp_to_key

    from sympy.core.add import _addsort
    from sympy.core.basic import Basic, _args_sortkey, _cmp_name

    order = sorted(pw, key=lambda k: _args_sortkey(pw[k]))
    rank = {k: r for r, k in enumerate(order)}
    terms, nums, keyed = [], [], []
    classes = {sp.Mul} | {type(v) for v in pw.values()}
    built = []
    for keys, ci in raw:
        if not keys:
            nums.append(ci)
            continue
        keys = sorted(keys, key=rank.__getitem__)
        args = [pw[k] for k in keys]
        if ci != 1:
            args.insert(0, ci)
            classes.add(type(ci))
        term = args[0] if len(args) == 1 else sp.Mul._from_args(args)
        built.append((term, keys, ci))
    if len(built) + len(nums) <= 1:
        return (([b[0] for b in built]) + nums)[0] if built or nums else sp.Integer(0)
    crank = {c: r for r, c in enumerate(sorted(classes, key=cmp_to_key(_cmp_name)))}

    def elem(a, key=None):
        if key is not None:
            return (crank[type(a)], rank[key])
        hc = a._hashable_content()
        return (crank[type(a)], len(hc), hc)

    for term, keys, ci in built:
        if not term.is_Mul:
            keyed.append(((crank[type(term)], rank[keys[0]]), term))
            continue
        head = [] if ci == 1 else [elem(ci)]
        parts = head + [elem(pw[k], k) for k in keys]
        keyed.append(((crank[sp.Mul], len(parts), tuple(parts)), term))
    try:
        keyed.sort(key=lambda kt: kt[0])
        terms = [t for _, t in keyed]
        ok = all(Basic.compare(a, b) < 0 for a, b in zip(terms, terms[1:]))
    except TypeError:  # keys of an unforeseen shape: sympy decides
        terms, ok = [t for _, t in keyed], False
    if not ok:
        SORT_FALLBACKS[0] += 1
        _addsort(terms)
    return sp.Add._from_args(nums + terms)


#: how often :func:`_canonical_terms` had to leave the order to sympy (for tests)
SORT_FALLBACKS = [0]


def poly_key(p):
    """A hashable key of an ``fmpz_mpoly`` and its context's names (for caches)."""
    return (p.context().names(), tuple(sorted((m, int(c)) for m, c in p.to_dict().items())))


def factor(p):
    """Irreducible factors of an ``fmpz_mpoly``: ``[(primitive factor, multiplicity), …]``
    (constants dropped; each factor with positive leading coefficient in the context's order).

    python-flint 0.9's ``fmpz_mpoly.factor`` sorts its factors through C longs and raises
    ``OverflowError`` on large coefficients; the same factorisation is then taken over Q
    (``fmpq_mpoly.factor``) and the monic factors made primitive integer polynomials.
    """
    try:
        return [(f, int(m)) for f, m in p.factor()[1]]
    except OverflowError:
        pass
    ctx = p.context()
    qctx = flint.fmpq_mpoly_ctx.get(ctx.names(), "lex")
    q = qctx.from_dict({m: flint.fmpq(c) for m, c in p.to_dict().items()})
    out = []
    for f, m in q.factor()[1]:
        d = f.to_dict()
        den = 1
        for c in d.values():
            cd = int(c.q)
            den = den * cd // _gcd(den, cd)
        g = ctx.from_dict({k: int(c.p) * (den // int(c.q)) for k, c in d.items()})
        content = g.content()
        if content != 1:
            g = g / content
        if g.leading_coefficient() < 0:
            g = -g
        out.append((g, int(m)))
    return out


def _from_expr(expr, extra=()):
    names = {s.name for s in expr.free_symbols} | set(extra)
    ctx = context(names)
    return to_flint(expr, ctx), ctx


def factor_list(expr):
    """Irreducible factors over Q of a sympy polynomial, in all its symbols.

    Returns ``[(factor, multiplicity), …]`` with primitive integer factors as sympy
    expressions (constants dropped), or raises :class:`NotConvertible`.
    """
    p, _ = _from_expr(expr)
    syms = tuple(expr.free_symbols)
    return [(to_sympy(f, syms), m) for f, m in factor(p)]


def resultant(a, b, var):
    """res_var(a, b) of two sympy polynomials, up to a non-zero rational factor."""
    pa, ctx = _from_expr(a, {var.name} | {s.name for s in b.free_symbols})
    pb = to_flint(b, ctx)
    syms = tuple(a.free_symbols | b.free_symbols)
    return to_sympy(pa.resultant(pb, var.name), syms)


def discriminant(expr, var):
    """Discriminant of a sympy polynomial in ``var``, up to a non-zero rational factor."""
    p, _ = _from_expr(expr, {var.name})
    return to_sympy(p.discriminant(var.name), tuple(expr.free_symbols))


# ------------------------------------------------------------------ FLINT-level helpers
def split_by(p, names):
    """``p`` as ``{exponents of names: coefficient polynomial}`` (coefficients free of names)."""
    ctx = p.context()
    idx = [ctx.variable_to_index(n) for n in names]
    groups = {}
    for monom, c in p.to_dict().items():
        key = tuple(monom[i] for i in idx)
        rest = list(monom)
        for i in idx:
            rest[i] = 0
        groups.setdefault(key, {})[tuple(rest)] = c
    return {k: ctx.from_dict(v) for k, v in groups.items()}


def drop_monomial_content(p):
    """``p`` divided by the largest monomial dividing all its terms, made primitive."""
    ctx = p.context()
    d = p.to_dict()
    low = [min(m[i] for m in d) for i in range(ctx.nvars())]
    if any(low):
        d = {tuple(e - l for e, l in zip(m, low)): c for m, c in d.items()}
    q = ctx.from_dict(d)
    content = q.content()
    if content != 1 and content != 0:
        q = q / content
    return q


def subs_rational(p, mapping, strip_monomials=True):
    """Numerator of p after substituting variable ``v`` by ``num_v/den_v`` for each
    ``v: (num_v, den_v)`` in ``mapping`` (all polynomials in p's context).

    Computed as Σ c_e(rest) Π_v num_v^{e_v} den_v^{d_v − e_v} with d_v the degree of p in v,
    then stripped of monomial content (the form sympy's ``numer(together(·))`` gives up to
    monomial factors and a constant); with ``strip_monomials=False`` only made primitive
    (the substituted polynomial times a non-zero constant).
    """
    names = list(mapping)
    groups = split_by(p, names)
    degs = [max(k[i] for k in groups) for i in range(len(names))]
    ctx = p.context()
    pw = {}

    def power(i, which, e):
        key = (i, which, e)
        if key not in pw:
            base = mapping[names[i]][which]
            pw[key] = base ** e if e else ctx.constant(1)
        return pw[key]

    out = ctx.constant(0)
    for key, coeff in groups.items():
        term = coeff
        for i, e in enumerate(key):
            term = term * power(i, 0, e) * power(i, 1, degs[i] - e)
        out += term
    if strip_monomials:
        return drop_monomial_content(out)
    content = out.content()
    return out / content if content not in (0, 1) else out


def eval_params_q(p, values, keep=("G", "z")):
    """``p`` at exact rational parameter values: ``{(e_G, e_z): fmpq}``.

    ``values`` maps every context name not in ``keep`` to a ``flint.fmpq``.
    """
    ctx = p.context()
    names = ctx.names()
    ki = [names.index(k) for k in keep]
    others = [(i, values[n]) for i, n in enumerate(names) if n not in keep]
    out = {}
    for monom, c in p.to_dict().items():
        v = flint.fmpq(int(c))
        for i, x in others:
            if monom[i]:
                v *= x ** monom[i]
        key = tuple(monom[i] for i in ki)
        out[key] = out.get(key, 0) + v
    return {k: v for k, v in out.items() if v != 0}


def series_moments_q(coeffs, order):
    """Moments m_1..m_order of the branch G ~ 1/z of Σ c_kj G^k z^j = 0 (exact rationals).

    With u = 1/z, G = u M: Q(M, u) = Σ c_kj M^k u^{k − j − m0}, m0 = min(k − j), solved for
    M = 1 + Σ m_k u^k order by order (the same recursion as
    :func:`freeattn.algebraic.polynomial.series_moments`).  Returns None when G ~ 1/z is not a
    simple root at infinity.
    """
    m0 = min(k - j for k, j in coeffs)
    byu = {}
    for (k, j), c in coeffs.items():
        byu.setdefault(k - j - m0, []).append((k, c))
    dq = sum((k * c for k, c in byu.get(0, [])), flint.fmpq(0))
    lead1 = sum((c for _, c in byu.get(0, [])), flint.fmpq(0))
    if lead1 != 0 or dq == 0:
        return None
    maxk = max(k for k, _ in coeffs)
    m = [flint.fmpq(1)]
    for n in range(1, order + 1):
        ser = m + [flint.fmpq(0)]
        # powers[i] = M^i truncated at u^n
        powers = [[flint.fmpq(1)] + [flint.fmpq(0)] * n]
        for _ in range(maxk):
            prev = powers[-1]
            powers.append([sum((prev[a] * ser[t - a] for a in range(t + 1)), flint.fmpq(0))
                           for t in range(n + 1)])
        total = flint.fmpq(0)
        for s, terms in byu.items():
            if s > n:
                continue
            for k, c in terms:
                total += c * powers[k][n - s]
        m.append(-total / dq)
    return m[1:]


def is_stieltjes_candidate(f):
    """True if ``f`` (FLINT, over G, z, parameters) depends on G and has G ~ 1/z as a simple
    root at infinity identically in the parameters: with z = 1/u, G = u M, the lowest power
    of u in f(uM, 1/u) has a coefficient L(M) with L(1) ≡ 0 and L′(1) ≢ 0."""
    ctx = f.context()
    names = ctx.names()
    iG, iz = names.index("G"), names.index("z")
    d = f.to_dict()
    if all(m[iG] == 0 for m in d):
        return False
    m0 = min(m[iG] - m[iz] for m in d)
    lead1, dlead1 = {}, {}
    for m, c in d.items():
        if m[iG] - m[iz] != m0:
            continue
        rest = tuple(0 if i in (iG, iz) else e for i, e in enumerate(m))
        lead1[rest] = lead1.get(rest, 0) + c
        dlead1[rest] = dlead1.get(rest, 0) + m[iG] * c
    return all(v == 0 for v in lead1.values()) and any(v != 0 for v in dlead1.values())


def stieltjes_candidates(p):
    """Irreducible factors of ``p`` (FLINT) that pass :func:`is_stieltjes_candidate`."""
    return [f for f, _ in factor(p) if is_stieltjes_candidate(f)]


def discriminant_size_bound(p, var="G"):
    """A priori bound on the number of terms of disc_var(p): Π_v ((2n − 2)·deg_v(p) + 1) over
    the other variables v, n = deg_var(p) (the discriminant has degree ≤ 2n − 2 in the
    coefficients of p).  It tracks the cost of computing and factoring the discriminant:
    ~3e4 for the attention law ν_{∞,h} (283 terms, ms), ~2e6 for ν ⊠ MP (8119 terms, ~1 s),
    ~6e9 for the full layer (C.15) with every parameter symbolic (beyond ten minutes)."""
    ctx = p.context()
    degs = p.degrees()
    iv = ctx.variable_to_index(var)
    n = int(degs[iv])
    bound = 1
    for i, d in enumerate(degs):
        if i != iv:
            bound *= (2 * n - 2) * int(d) + 1
    return bound


class CoefficientTable:
    """A polynomial in z whose coefficients are integer polynomials in parameters, evaluable
    numerically at any parameter point (no exact algebra per point).

    Parameters
    ----------
    p : fmpz_mpoly
        The polynomial; the context's names other than ``var`` that occur in p are the
        parameters.
    var : str
        The variable (default ``"z"``).
    symbols : sequence of sympy.Symbol, optional
        The parameter symbols, in the order of the context's names (default: plain symbols
        of those names).

    Attributes
    ----------
    symbols : tuple of sympy.Symbol
        Parameters, in the order :meth:`evaluate` expects their values.
    terms : list
        ``terms[j]`` = list of ``(exponent tuple over symbols, int coefficient)`` for z^j.
    degree : int
        Degree in z.
    """

    def __init__(self, p, var="z", symbols=None):
        ctx = p.context()
        names = ctx.names()
        iv = names.index(var)
        degs = p.degrees()
        pidx = [i for i, n in enumerate(names) if n != var and degs[i] > 0]
        if symbols is None:
            symbols = [sp.Symbol(names[i]) for i in pidx]
        self.symbols = tuple(symbols)
        d = p.to_dict()
        self.degree = max((m[iv] for m in d), default=0)
        self.terms = [[] for _ in range(self.degree + 1)]
        for m, c in d.items():
            self.terms[m[iv]].append((tuple(m[i] for i in pidx), int(c)))
        self._maxe = [max((e[i] for row in self.terms for e, _ in row), default=0)
                      for i in range(len(self.symbols))]

    def with_symbols(self, symbols):
        """The same table with its parameters renamed to ``symbols`` (same order)."""
        new = object.__new__(CoefficientTable)
        new.__dict__.update(self.__dict__)
        new.symbols = tuple(symbols)
        return new

    def evaluate(self, values, one=1):
        """Coefficients of z^0 … z^degree at parameter ``values``.

        ``values`` is a sequence in the order of :attr:`symbols`; mpmath numbers evaluate at
        the current mpmath precision (``one=mpmath.mpf(1)``), floats in float64
        (``one=1.0``).  Sums of many terms can cancel: evaluate with guard digits.
        """
        pw = []
        for v, k in zip(values, self._maxe):
            acc = [one]
            for _ in range(k):
                acc.append(acc[-1] * v)
            pw.append(acc)
        out = []
        for row in self.terms:
            s = 0 * one
            for e, c in row:
                t = c * one
                for i, k in enumerate(e):
                    if k:
                        t = t * pw[i][k]
                s += t
            out.append(s)
        return out

    def as_expr(self, var):
        """The polynomial as a sympy expression in ``var`` and :attr:`symbols`."""
        return sp.Add(*[c * var**j * sp.Mul(*[s**k for s, k in zip(self.symbols, e)])
                        for j, row in enumerate(self.terms) for e, c in row])


def series_moments_poly(p, order):
    """Moments m_1..m_order of the branch G ~ 1/z of p(G, z, parameters) = 0, exact as
    rational functions of the parameters: a list of ``(numerator, denominator)``
    ``fmpz_mpoly`` pairs in lowest terms (denominator with positive leading coefficient).

    The recursion of :func:`series_moments_q` run over Z[parameters]: with
    dq = ∂Q/∂M(1, 0), m_k has denominator dividing dq^{2k−1}; quantities are carried as
    numerator/dq^e.

    Raises
    ------
    ValueError
        If G ~ 1/z is not a simple root of p at infinity.
    """
    ctx = p.context()
    names = ctx.names()
    iG, iz = names.index("G"), names.index("z")
    d = p.to_dict()
    m0 = min(m[iG] - m[iz] for m in d)
    byu = {}
    for m, c in d.items():
        rest = tuple(0 if i in (iG, iz) else e for i, e in enumerate(m))
        key = (m[iG] - m[iz] - m0, m[iG])
        byu.setdefault(key, {})
        byu[key][rest] = byu[key].get(rest, 0) + c
    coef = {}
    for (s, k), dd in byu.items():
        coef.setdefault(s, []).append((k, ctx.from_dict(dd)))
    zero = ctx.constant(0)
    dq = sum((k * c for k, c in coef.get(0, [])), zero)
    lead1 = sum((c for _, c in coef.get(0, [])), zero)
    if not lead1.is_zero() or dq.is_zero():
        raise ValueError("G ~ 1/z is not a simple root of P at infinity")
    dq_pow = [ctx.constant(1)]

    def dpow(e):
        while len(dq_pow) <= e:
            dq_pow.append(dq_pow[-1] * dq)
        return dq_pow[e]

    def add(a, b):
        (na, ea), (nb, eb) = a, b
        e = max(ea, eb)
        return (na * dpow(e - ea) + nb * dpow(e - eb), e)

    def mul(a, b):
        return (a[0] * b[0], a[1] + b[1])

    maxk = max(k for k, _ in sum(coef.values(), []))
    ZERO = (zero, 0)
    m = [(ctx.constant(1), 0)]
    for n in range(1, order + 1):
        ser = m + [ZERO]
        powers = [[(ctx.constant(1), 0)] + [ZERO] * n]
        for _ in range(maxk):
            prev = powers[-1]
            row = []
            for t in range(n + 1):
                acc = ZERO
                for a in range(t + 1):
                    if prev[a][0].is_zero() or ser[t - a][0].is_zero():
                        continue
                    acc = add(acc, mul(prev[a], ser[t - a]))
                row.append(acc)
            powers.append(row)
        total = ZERO
        for s, terms in coef.items():
            if s > n:
                continue
            for k, c in terms:
                total = add(total, mul((c, 0), powers[k][n - s]))
        m.append((-total[0], total[1] + 1))
    out = []
    for num, e in m[1:]:
        den = dpow(e)
        g = num.gcd(den) if not num.is_zero() else den
        num, den = num / g, den / g
        if den.leading_coefficient() < 0:
            num, den = -num, -den
        out.append((num, den))
    return out
