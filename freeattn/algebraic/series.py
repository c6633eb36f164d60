"""Moments of an algebraic law by a power-series recursion on P(G, z) = 0, numeric or exact.

With z = 1/u and G = u M(u), M(u) = 1 + Σ_{k≥1} m_k u^k is the moment series of the branch
G ~ 1/z (Rao & Edelman 2008, §4).  Substituting into P(G, z) = Σ_{k,j} c_kj G^k z^j and
multiplying by u^{deg_z} gives Q(M, u) = Σ_{k,j} c_kj M^k u^{k − j + deg_z}.  The coefficient
of u^{s₀ + n} of Q(M(u), u) (s₀ the lowest power of u in Q) is linear in m_n with the
coefficient dq = Σ_{k: k − j + deg_z = s₀} k c_kj, so m_1, m_2, … follow one at a time from the
truncated powers M^k, each power extended by one coefficient per step.  Cost
O(deg_G · N²) ring multiplications for N moments:

- :func:`series_moments_numeric`: in any number type (floats, mpmath numbers at any precision,
  exact fractions); the first 50 moments take milliseconds;
- :func:`series_moments`: exact, in FLINT (``fmpq_mpoly`` over the parameters of P), the
  moments as sympy expressions in P's parameters (rational functions when dq depends on
  them);
- :func:`series_moments_at`: exact, with the parameter values substituted before the
  recursion starts: rational values as rationals (``fmpq``), irrational ones (θ₁ = e^{β²} − 1,
  …) as polynomials over Q in generators of their own (``E``, ``exp(169/100)``, ``sqrt(2)``),
  so the recursion runs over Q[generators] — one variable for the attention laws, however many
  parameters carry e^{β²}.  The 50 exact moments of ``attention_law(1, 1)`` take ~0.1 s where
  the symbolic expansion in every parameter took > 300 s.

When dq depends on the parameters, the recursion runs fraction-free: with u = dq² w and
M = 1 + dq A(w), A(w) = Σ a_n w^n, every a_n is a polynomial (m_n has denominator dividing
dq^{2n−1}) and a_n = −(rest of the w^n coefficient)/dq² is an exact polynomial division.
"""
from __future__ import annotations

from collections import OrderedDict

import mpmath
import sympy as sp

from .._context import to_mp, workdps
from .._validation import integer_at_least
from . import exact
from .polynomial import G, parameter_order, z

#: |leading coefficient at infinity| (relative to P's largest) below which G ~ 1/z is taken to
#: be a root there in the numeric series (float or mpmath coefficients)
_SERIES_LEAD_TOL = 1e-8

__all__ = ["series_moments_numeric", "moments_of_terms", "series_moments", "series_moments_at"]


def series_moments_numeric(coefficients, order):
    """First ``order`` moments m_1..m_order of the branch G ~ 1/z of P(G, z) = 0.

    Parameters
    ----------
    coefficients : sequence of sequences
        ``coefficients[k][j]`` is the coefficient of G^k z^j in P (numbers of one type:
        float, mpmath mpf at the working precision, or fractions.Fraction for exact values).
    order : int ≥ 0

    Returns
    -------
    list
        [m_1, …, m_order] in the number type of the coefficients.

    Raises
    ------
    ValueError
        If G = 1/z + O(z^-2) is not a simple root of P at infinity (the recursion is not
        solvable: P does not describe a probability law with this branch).
    """
    c = coefficients
    deg = len(c) - 1
    degz = len(c[0]) - 1
    zero = c[0][0] * 0
    one = zero + 1
    terms = [(k, k - j + degz, c[k][j]) for k in range(deg + 1) for j in range(degz + 1)
             if c[k][j] != 0]
    if not terms:
        raise ValueError("P vanishes identically")
    s0 = min(s for _, s, _ in terms)
    lead = sum((cv for k, s, cv in terms if s == s0), zero)
    dq = sum((k * cv for k, s, cv in terms if s == s0), zero)
    scale = max(abs(cv) for _, _, cv in terms)
    if abs(lead) > _SERIES_LEAD_TOL * scale or dq == 0:
        raise ValueError("G ~ 1/z is not a simple root of P at infinity")
    return moments_of_terms(terms, s0, dq, deg, order, zero, one)


def moments_of_terms(terms, s0, dq, deg, order, zero, one):
    """Moments m_1, …, m_order of a law from the terms of its polynomial P at infinity.

    Writes G = u·M(u) with u = 1/z and M(u) = Σ_n m_n u^n, substitutes into P(G, z) and solves
    order by order: the unknown m_n enters the coefficient of u^(s0 + n) linearly, with factor
    dq.  This is the recursion of :func:`series_moments_numeric`, written once for every
    number type.

    Parameters
    ----------
    terms : sequence of (int, int, number)
        ``(k, s, c)``: the coefficient c of M^k u^s in P(u·M, 1/u) (after clearing powers of u).
    s0 : int
        The lowest power s among ``terms``.
    dq : number
        Σ k·c over the terms with s = s0; must be non-zero (the recursion divides by it).
    deg : int
        The degree of P in G (the highest k).
    order : int
        How many moments to return (≥ 0).
    zero, one : number
        The additive and multiplicative units of the number type: floats, mpmath ``mpf``,
        ``Fraction``, or numpy arrays of shape (npoints,) for many parameter points at once
        (the sweep's batch route).  Nothing is updated in place, so they may be shared arrays.

    Returns
    -------
    list
        ``[m_1, …, m_order]``, each of the type (and shape) of ``one``; m_0 = 1 is implied.

    Raises
    ------
    ZeroDivisionError
        If ``dq`` is a zero scalar (arrays give inf/nan entries instead; callers mark them).

    Notes
    -----
    The moment series of the Cauchy transform at infinity, G(z) = Σ_{n≥0} m_n z^(−n−1), read off
    the algebraic equation P(G, z) = 0 term by term (a power-series solution of P = 0).
    """
    m = [one]
    # powers[k][n] = coefficient of u^n in M(u)^k, k = 0..deg
    powers = [[one] for _ in range(deg + 1)]
    for n in range(1, order + 1):
        # extend M^k to order n with m_n = 0 (the unknown enters linearly)
        m.append(zero)
        for k in range(1, deg + 1):
            prev = powers[k - 1]
            acc = zero
            for a in range(n + 1):
                if a < len(m) and n - a < len(prev):
                    acc = acc + m[a] * prev[n - a]
            powers[k].append(acc)
        powers[0].append(zero)
        total = zero
        for k, s, cv in terms:
            idx = s0 + n - s
            if 0 <= idx <= n:
                total = total + cv * powers[k][idx]
        mn = -total / dq
        m[n] = mn
        # add the m_n contribution to the order-n coefficients of M^k: d(M^k)_n = k m_n
        for k in range(1, deg + 1):
            powers[k][n] = powers[k][n] + k * mn
    return m[1:]


# ------------------------------------------------------------------ exact (FLINT)
def _recursion(coef, one, order):
    """a_1..a_order and the scales (λ, μ) of the exact recursion over a FLINT ring.

    ``coef`` maps s ≥ 0 (the power of u in Q, shifted so the lowest is 0) to a list of
    ``(k, c)`` (the coefficient c of M^k u^s, ring elements); ``one`` is the ring's unit.
    With u = λ w and M = 1 + μ A(w), the moments are m_n = μ a_n / λ^n: λ = μ = 1 when dq is
    a constant, λ = dq², μ = dq otherwise (then every a_n is a polynomial; see the module
    docstring).  Returns ``(a, lam, mu, dq)``.

    Raises ``ValueError`` if G ~ 1/z is not a simple root at infinity.
    """
    zero = one * 0
    base = coef.get(0, [])
    lead = sum((c for _, c in base), zero)
    dq = sum((k * c for k, c in base), zero)
    if not lead.is_zero() or dq.is_zero():
        raise ValueError("G ~ 1/z is not a simple root of P at infinity")
    if dq.is_constant():
        lam, mu, div = one, one, dq          # a_n = −rest/dq
    else:
        lam, mu, div = dq * dq, dq, dq * dq  # a_n = −rest/dq², exact
    deg = max(k for terms in coef.values() for k, _ in terms)
    scaled, lam_s = [], one
    for s in range(max(coef) + 1):
        if s in coef:
            scaled.append([(k, c * lam_s) for k, c in coef[s] if not c.is_zero()])
        else:
            scaled.append([])
        lam_s = lam_s * lam
    ser = [one]                               # M's coefficients: 1, μ a_1, μ a_2, …
    powers = [[one] for _ in range(deg + 1)]  # powers[k][t] = coefficient of w^t in M^k
    a = []
    for n in range(1, order + 1):
        ser.append(zero)
        powers[0].append(zero)
        for k in range(1, deg + 1):
            prev = powers[k - 1]
            acc = prev[n]
            for i in range(1, n):
                x, y = ser[i], prev[n - i]
                if not (x.is_zero() or y.is_zero()):
                    acc = acc + x * y
            powers[k].append(acc)
        rest = zero
        for s in range(min(n, len(scaled) - 1) + 1):
            for k, c in scaled[s]:
                y = powers[k][n - s]
                if not y.is_zero():
                    rest = rest + c * y
        an = -(rest / div)
        a.append(an)
        mn = mu * an
        ser[n] = mn
        if not mn.is_zero():
            for k in range(1, deg + 1):
                powers[k][n] = powers[k][n] + k * mn
    return a, lam, mu, dq


def _split(p, subst, gen_names=()):
    """The coefficients of Q(M, u) for ``p`` (an ``fmpz_mpoly`` over G, z and parameters) with
    the parameters named in ``subst`` replaced by their values.

    ``subst`` maps a name to an ``fmpq`` or to a polynomial over Q in the generators
    ``gen_names`` (a dict {exponent tuple: fmpq}, see :func:`_generator_polynomial`).
    Returns ``(coef, one, kept)``: ``coef`` as :func:`_recursion` takes it, in the ring
    ``fmpq_mpoly`` over ``kept``: the parameters not substituted (names, in the context's
    order), then the generators."""
    ctx = p.context()
    names = ctx.names()
    degs = p.degrees()
    free = [n for i, n in enumerate(names) if n not in ("G", "z") and n not in subst and degs[i] > 0]
    kept = free + list(gen_names)
    tctx = exact.flint.fmpq_mpoly_ctx.get(("G", "z") + tuple(kept), "lex")
    tg = dict(zip(("G", "z") + tuple(kept), tctx.gens()))
    images = []
    for i, n in enumerate(names):
        v = subst.get(n)
        if n in tg:
            images.append(tg[n])
        elif v is None or degs[i] == 0:
            images.append(tctx.constant(0))  # absent from p
        elif isinstance(v, dict):
            shift = 2 + len(free)
            images.append(tctx.from_dict({(0,) * shift + m: c for m, c in v.items()}))
        else:
            images.append(tctx.constant(v))
    qp = exact.flint.fmpq_mpoly_ctx.get(names, "lex").from_dict(
        {m: exact.flint.fmpq(int(c)) for m, c in p.to_dict().items()})
    composed = qp.compose(*images, ctx=tctx)  # FLINT: the substitution in C
    groups = {}
    for monom, c in composed.to_dict().items():
        key = (int(monom[0]) - int(monom[1]), int(monom[0]))
        groups.setdefault(key, {})[tuple(int(e) for e in monom[2:])] = c
    qctx = exact.flint.fmpq_mpoly_ctx.get(tuple(kept), "lex")
    coef = {}
    for (d, k), inner in groups.items():
        c = qctx.from_dict(inner)
        if not c.is_zero():
            coef.setdefault(d, []).append((k, c))
    if not coef:
        raise ValueError("P vanishes identically at these parameter values")
    s0 = min(coef)
    return {d - s0: terms for d, terms in coef.items()}, qctx.constant(1), kept


def _moment_fractions(a, lam, mu, dq):
    """m_n = μ a_n / λ^n as ``(numerator, denominator)`` ``fmpq_mpoly`` pairs: the
    denominator 1 when dq is a constant (the numerator then carries the rational factor),
    else both in lowest terms."""
    out = []
    if dq.is_constant():
        for an in a:
            out.append((an, None))
        return out
    lam_n = lam
    for an in a:
        num, den = mu * an, lam_n
        g = num.gcd(den) if not num.is_zero() else den
        out.append((num / g, den / g))
        lam_n = lam_n * lam
    return out


def _integer_pair(num, den):
    """``fmpq_mpoly`` num (and den, or None) as ``(integer coefficient dict, lcm)`` pairs:
    q = (the integer polynomial)/lcm, lcm the least common denominator of q's coefficients."""

    def clear(q):
        d = q.to_dict()
        lcm = 1
        for c in d.values():
            lcm = lcm * int(c.q) // exact._gcd(lcm, int(c.q))
        return {m: int(c.p) * (lcm // int(c.q)) for m, c in d.items()}, lcm

    return clear(num), (None if den is None else clear(den))


def _poly_to_sympy(terms, lcm, names, symbols):
    """Σ terms/lcm (monomials over ``names``) as an expanded sympy expression; ``symbols``
    maps each name to what it stands for (a symbol or, after composition, a generator)."""
    if not names:
        return sp.Rational(sum(terms.values()), lcm)
    zctx = exact.flint.fmpz_mpoly_ctx.get(tuple(names), "lex")
    return exact.to_sympy(zctx.from_dict(terms), {n: symbols[n] for n in names}, lcm)


def _fraction_to_sympy(num, den, names, symbols):
    (nt, nl), dd = _integer_pair(num, den)
    n_expr = _poly_to_sympy(nt, nl, names, symbols)
    if dd is None:
        return n_expr
    dt, dl = dd
    # (N/nl)/(D/dl): the divisor nl/dl moves to the denominator's integer side
    d_expr = _poly_to_sympy(dt, dl, names, symbols)
    if len(dt) == 1:
        return sp.expand(n_expr / d_expr)
    return n_expr / d_expr


#: largest power of one generator (E, exp(r), sqrt(2), …) read in an irrational parameter
#: value by :func:`_generator_polynomial`; beyond it the value is substituted after the
#: recursion instead
_MAX_GENERATOR_POWER = 64
#: digits at which the recursion's divisor is checked to be non-zero at the generators'
#: values, and the digits of cancellation beyond which it counts as zero
_DIVISOR_DPS = 40
_DIVISOR_DIGITS = 10

#: (canonical FLINT polynomial key, order) → moments as fmpq_mpoly fractions
#: own LRU, not functools.lru_cache: the key is built from ``exact.poly_key(p)`` and the sorted
#: substitution (an fmpz_mpoly and a dict of values are not the cache's hashable key themselves)
_CACHE = OrderedDict()
_CACHE_SIZE = 64


def _flint_polynomial(P):
    """P as an ``fmpz_mpoly`` over G, z and its parameters renamed c0, c1, … (in
    :func:`freeattn.algebraic.polynomial.parameter_order`), with the symbol each name stands
    for."""
    params = sorted(exact.free_symbols(P) - {G, z}, key=parameter_order)
    ren = {q.name: f"c{i}" for i, q in enumerate(params)}
    ctx = exact.context(set(ren.values()) | {"G", "z"})
    return exact.to_flint(P, ctx, ren), {f"c{i}": q for i, q in enumerate(params)}


def _exact_fractions(p, subst, order, gen_names=()):
    """(moment fractions, kept names, dq) of the recursion for ``p`` at ``subst`` (cached)."""
    items = tuple(sorted((n, tuple(sorted(v.items())) if isinstance(v, dict) else v)
                         for n, v in subst.items()))
    key = (exact.poly_key(p), items, tuple(gen_names), int(order))
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    coef, one, kept = _split(p, subst, gen_names)
    a, lam, mu, dq = _recursion(coef, one, int(order))
    out = (_moment_fractions(a, lam, mu, dq), kept, dq)
    _CACHE[key] = out
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return out


def _check_order(order):
    return integer_at_least("order", order, 0)


def series_moments(P, order):
    """First ``order`` moments m_1..m_order of the branch G ~ 1/z of P(G, z) = 0, exact.

    Drop-in for :func:`freeattn.algebraic.polynomial.series_moments` (same arguments, same
    values), by the one-step-per-moment recursion of this module in FLINT.

    Parameters
    ----------
    P : sympy expression
        A polynomial in ``G``, ``z`` and parameter symbols, with rational coefficients.
    order : int ≥ 0

    Returns
    -------
    list of sympy expressions, length ``order``
        m_k as an expanded polynomial in P's parameters, or (when the coefficient dq of the
        recursion depends on them) as an expanded numerator over an expanded denominator in
        lowest terms.

    Raises
    ------
    ValueError
        If G = 1/z + O(z^-2) is not a simple root of P at infinity.
    ParameterError
        If ``order`` is not an integer ≥ 0.
    exact.NotConvertible
        If P is not a polynomial with rational coefficients.

    Notes
    -----
    Rao & Edelman 2008, §4 (moments from the series of G at infinity).  For a law with
    parameter values use :func:`series_moments_at`, which substitutes rational values before
    the recursion: a polynomial in several symbols grows like k^{#symbols} terms at order k.
    """
    order = _check_order(order)
    if order == 0:
        return []
    p, back = _flint_polynomial(P)
    fracs, kept, _ = _exact_fractions(p, {}, order)
    return [_fraction_to_sympy(n, d, kept, back) for n, d in fracs]


def series_moments_at(P, values, order):
    """First ``order`` moments of the branch G ~ 1/z of P(G, z) = 0 at parameter ``values``.

    Equal to ``[sp.expand(m.xreplace(values)) for m in series_moments(P, order)]`` without
    forming the symbolic moments: rational values are substituted into P's coefficients
    before the recursion; an irrational value that is a polynomial over Q in generators
    (:func:`_generator_polynomial`: ``E``, ``exp(r)``, ``sqrt(2)``, ``pi``, each to a power
    ≤ :data:`_MAX_GENERATOR_POWER`) is substituted too, the recursion then running over
    Q[generators]; any other value (a Float, a higher power) stays a symbol through the
    recursion and is substituted at the end (sympy's expand).  Since generators need not be
    algebraically independent (exp(1/2)² = e), a divisor of the recursion that depends on
    them is checked to be non-zero at their values (:func:`_check_divisor`).

    Parameters
    ----------
    P : sympy expression
        A polynomial in ``G``, ``z`` and parameter symbols, with rational coefficients.
    values : dict
        Parameter symbol → exact sympy value.  Parameters not in ``values`` stay symbolic
        (the moments are then polynomials, or rational functions, in them).
    order : int ≥ 0

    Returns
    -------
    list of sympy expressions, length ``order``

    Raises
    ------
    ValueError
        If G ~ 1/z is not a simple root of P at infinity (at these values).
    ParameterError
        If ``order`` is not an integer ≥ 0.
    exact.NotConvertible
        If P is not a polynomial with rational coefficients.

    Examples
    --------
    >>> import sympy as sp
    >>> from freeattn.algebraic.polynomial import G, z
    >>> t = sp.Symbol("t")
    >>> series_moments_at(t * z * G**2 + (1 - t - z) * G + 1, {t: sp.Rational(1, 2)}, 3)
    [1, 3/2, 11/4]
    """
    order = _check_order(order)
    if order == 0:
        return []
    p, back = _flint_polynomial(P)
    subst, later, gens = {}, {}, []
    for name, sym in back.items():
        if sym not in values:
            continue
        v = sp.sympify(values[sym])
        if v.is_Rational:
            subst[name] = exact.flint.fmpq(int(v.p), int(v.q))
            continue
        poly = _generator_polynomial(v, gens)
        if poly is None:
            later[name] = v
        else:
            subst[name] = poly
    width = len(gens)
    for name, v in subst.items():
        if isinstance(v, dict):  # exponent tuples padded to the final number of generators
            subst[name] = {m + (0,) * (width - len(m)): c for m, c in v.items()}
    gen_names = tuple(f"_g{i}" for i in range(width))
    fracs, kept, dq = _exact_fractions(p, subst, order, gen_names)
    by_name = dict(back)
    by_name.update(zip(gen_names, gens))
    if gens and not dq.is_constant():
        _check_divisor(dq, kept, by_name)
    vals = {back[n]: v for n, v in later.items() if n in kept}
    simple = width == 1 and not vals
    out = []
    for num, den in fracs:
        if den is None and simple and len(kept) == 1:
            out.append(_sum_of_terms(num, [by_name[n] for n in kept]))
            continue
        m = _fraction_to_sympy(num, den, kept, by_name)
        out.append(sp.expand(m.xreplace(vals)) if (vals or gens) else m)
    return out


def _generator_polynomial(v, gens):
    """The exact number ``v`` as a polynomial over Q in generators: a dict {exponent tuple:
    fmpq}, the generators (``E``, ``exp(169/100)``, ``sqrt(2)``, ``pi``, …, each a factor of a
    term of expanded ``v`` other than a positive integer power) appended to ``gens`` as met;
    None when ``v`` has a non-rational coefficient (a Float), free symbols, or a power of a
    generator above :data:`_MAX_GENERATOR_POWER`.

    Our own reading rather than ``sympy.Poly``: Poly takes exp(p/q) for exp(1/q)^p, a
    polynomial of degree p (10^31 for a float β²), and builds it densely."""
    if v.free_symbols:
        return None
    out = {}
    for t in sp.Add.make_args(sp.expand(v)):
        c, rest = t.as_coeff_Mul()
        if not c.is_Rational:
            return None
        mono = {}
        for f in sp.Mul.make_args(rest):
            if f is sp.S.One:
                continue
            base, e = f, 1
            if f.is_Pow and f.exp.is_Integer and f.exp > 0:
                base, e = f.base, int(f.exp)
            if base.is_Rational or not base.is_number or e > _MAX_GENERATOR_POWER:
                return None
            if base not in gens:
                gens.append(base)
            i = gens.index(base)
            mono[i] = mono.get(i, 0) + e
        key = tuple(mono.get(i, 0) for i in range(len(gens)))
        out[key] = out.get(key, 0) + exact.flint.fmpq(int(c.p), int(c.q))
    return {k + (0,) * (len(gens) - len(k)): c for k, c in out.items() if c != 0}


def _check_divisor(dq, kept, by_name):
    """Raise ValueError when the recursion's divisor dq, a non-zero polynomial in the
    generators, vanishes at their values (generators need not be algebraically independent:
    exp(1/2)² = e) or is too small to be told from 0 at :data:`_DIVISOR_DPS` digits."""
    if any(not by_name[n].is_number for n in kept):
        return  # symbols kept: dq is a polynomial in them, checked by the recursion
    with workdps(_DIVISOR_DPS):
        g = [to_mp(by_name[n]) for n in kept]
        total, size = mpmath.mpf(0), mpmath.mpf(0)
        for monom, c in dq.to_dict().items():
            t = to_mp(sp.Rational(int(c.p), int(c.q)))
            for x, e in zip(g, monom):
                t *= x ** int(e)
            total += t
            size += abs(t)
        if abs(total) <= mpmath.mpf(10) ** (_DIVISOR_DIGITS - _DIVISOR_DPS) * size:
            raise ValueError("G ~ 1/z is not a simple root of P at infinity (the "
                             "recursion's divisor vanishes at these values)")


def _sum_of_terms(q, gens):
    """An ``fmpq_mpoly`` as ``Add`` of its terms, its variables standing for ``gens``.

    When every power g^e met is a single factor in sympy (E**3, exp(3/4); not sqrt(2)**2 = 2
    nor sqrt(2)**3 = 2·sqrt(2)) and there is one generator, the terms are assembled in
    sympy's canonical order directly (:func:`exact._canonical_terms`, the same expression
    ``Add(*terms)`` returns, without its assumption queries: most of the time of 50 exact
    moments went there); otherwise by ``Mul``/``Add``."""
    pw = {}
    raw = []
    for monom, c in q.to_dict().items():
        keys = []
        for i, e in enumerate(monom):
            if e:
                key = (i, int(e))
                if key not in pw:
                    pw[key] = gens[i] ** key[1]
                keys.append(key)
        raw.append((keys, sp.Rational(int(c.p), int(c.q))))
    single = all(len(keys) <= 1 for keys, _ in raw)
    if single and not any(v.is_Rational or v.is_Mul or v.is_Add for v in pw.values()):
        return exact._canonical_terms(raw, pw)
    return sp.Add(*[sp.Mul(ci, *[pw[k] for k in keys]) for keys, ci in raw])
