"""Eliminations of the polynomial method: P(G, z) of μ ⊠ ν, of π(μ, t), of φ#μ.

Each operation on laws becomes a resultant elimination on the polynomials of its inputs
(Rao & Edelman 2008, Table 7), followed by the selection of the factor that carries the
Stieltjes branch G ~ 1/z (by the first moments of the result, exact):

* :func:`boxtimes_polynomial` — μ ⊠ ν from S_{μ⊠ν} = S_μ S_ν;
* :func:`compound_free_poisson_polynomial` — π(μ, t) from S_{π(μ,t)}(w) = S_μ(w/t)/(t + w)
  (Hayase & Karakida 2026, eq. (C.4));
* :func:`pushforward_polynomial` — φ#μ for a real polynomial map φ (degree 1 is
  :func:`freeattn.algebraic.polynomial.affine_polynomial`);
* :func:`boxplus_polynomial` — μ ⊞ ν from R_{μ⊞ν} = R_μ + R_ν:
  C_{μ⊞ν}(g, R) = Res_{R₁}(C_μ(g, R₁), C_ν(g, R − R₁)) on the R-relations
  C(g, R) = numerator of P(g, R + 1/g), and back P(G, z) = numerator of C(G, z − 1/G);
* :func:`boxplus_power_polynomial` — μ^{⊞t} (R = t R_μ); :func:`boxtimes_power_polynomial` —
  μ^{⊠p} for an integer p (S = S_μ^p, i.e. Res_{S₁}(Σ(w, S₁), S − S₁^p); a non-integer
  ⊠-power is not done here: S^q = S₁^p also carries the sheets S = e^{2πik/q} S₁^{p/q}, which
  meet the Stieltjes branch at z = ∞, so G ~ 1/z is no longer a simple root there; the
  subordination route handles it);
* :func:`compound_free_poisson_r_polynomial` — π(μ, t) by the R-transform, for a jump law μ on
  the whole line (no positivity needed).

The ⊠, compound Poisson (S-route) and push-forward eliminations run in FLINT
(:mod:`freeattn.algebraic.exact`) with sympy's route as the fallback; the R-relation ones in
sympy.  All are cached on the canonical form of their inputs (see
:mod:`freeattn.algebraic.polynomial`): the laws of one structure share one elimination
whatever their parameter values.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from . import exact
from .polynomial import (G, S, _S1, _flint_cached, _from_s_relation_flint, _gens, _moments_at,
                         _numer, _rename, _s_relation_flint, _select_flint, affine_polynomial,
                         canonicalize, from_s_relation, r_relation, s_relation, series_moments,
                         stieltjes_factor, w, z)

__all__ = ["boxtimes_polynomial", "compound_free_poisson_polynomial", "pushforward_polynomial",
           "boxplus_polynomial", "boxplus_power_polynomial", "boxtimes_power_polynomial",
           "compound_free_poisson_r_polynomial"]

_R1 = sp.Symbol("R_1")


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


# ------------------------------------------------------------------ R-relation route: ⊞, powers
def _from_r_relation(C, expected_moments):
    """P(G, z) from the R-relation C(g, R) (symbols w, S), Stieltjes factor selected."""
    P = _numer(C.subs({w: G, S: z - 1 / G}, simultaneous=True))
    return stieltjes_factor(P, expected_moments)


@lru_cache(maxsize=None)
def _boxplus_cached(P1, P2):
    c1 = r_relation(P1).subs(S, _R1)
    c2 = _numer(r_relation(P2).subs(S, S - _R1))
    res = sp.resultant(c1, c2, _R1)
    # free cumulants add: m1 = a1 + b1, m2 = κ2 + κ1² = a2 + b2 + 2 a1 b1
    a1, a2 = series_moments(P1, 2)
    b1, b2 = series_moments(P2, 2)
    return _from_r_relation(sp.expand(res), (a1 + b1, a2 + b2 + 2 * a1 * b1))


def boxplus_polynomial(P1, P2):
    """Polynomial of μ ⊞ ν from those of μ and ν: R_{μ⊞ν} = R_μ + R_ν, eliminated by a
    resultant (Rao & Edelman 2008, Table 7; Voiculescu's R-transform additivity).

    Parameters
    ----------
    P1, P2 : sympy expressions in ``G``, ``z`` and parameter symbols (the symbols of P1 and P2
        must be distinct).

    Returns
    -------
    sympy expression
        The irreducible factor of the eliminant carrying the Stieltjes branch of μ ⊞ ν.
    """
    c1, p1 = canonicalize(P1, "a")
    c2, p2 = canonicalize(P2, "b")
    res = _boxplus_cached(c1, c2)
    back = {sp.Symbol(f"a{i}"): s for i, s in enumerate(p1)}
    back.update({sp.Symbol(f"b{i}"): s for i, s in enumerate(p2)})
    return res.xreplace(back)


@lru_cache(maxsize=None)
def _boxplus_power_cached(P, t):
    C = _numer(r_relation(P).subs(S, S / t))
    a1, a2 = series_moments(P, 2)
    # κ_q(μ^{⊞t}) = t κ_q(μ): m1 = t a1, m2 = t (a2 − a1²) + t² a1²
    return _from_r_relation(C, (t * a1, t * (a2 - a1**2) + t**2 * a1**2))


def boxplus_power_polynomial(P, t):
    """Polynomial of the free additive power μ^{⊞t} (R_{μ^{⊞t}} = t R_μ, t ≥ 1).

    ``t`` may be a parameter symbol (its value kept beside the polynomial) or an exact number.
    Source: Nica & Speicher 2006, Lecture 14 (free convolution powers).
    """
    tt = sp.Symbol("t_pow_")
    c, p = canonicalize(P, "a")
    res = _boxplus_power_cached(c, tt)
    back = {sp.Symbol(f"a{i}"): s for i, s in enumerate(p)}
    back[tt] = t
    return res.xreplace(back)


@lru_cache(maxsize=None)
def _boxtimes_power_cached(P, p):
    sigma = s_relation(P).subs(S, _R1)
    res = sp.resultant(sp.expand(sigma), S - _R1**p, _R1)
    a1, a2 = series_moments(P, 2)
    # S(w) = 1/m1 − (m2 − m1²)/m1³ w + O(w²); S^p ⇒ m1' = m1^p, var'/m1'² = p var/m1²
    m1 = a1**p
    m2 = m1**2 * (1 + p * (a2 - a1**2) / a1**2)
    return from_s_relation(sp.expand(res), (m1, m2))


def boxtimes_power_polynomial(P, p):
    """Polynomial of the free multiplicative power μ^{⊠p} for an integer p ≥ 1:
    S_{μ^{⊠p}} = S_μ^p, eliminated as Res_{S₁}(Σ_μ(w, S₁), S − S₁^p) (Voiculescu's
    S-multiplicativity; Rao & Edelman 2008).

    Parameters
    ----------
    P : sympy expression in ``G``, ``z`` and parameter symbols.
    p : int ≥ 1 (it enters the elimination as an exponent).
    """
    c, params = canonicalize(P, "a")
    res = _boxtimes_power_cached(c, int(p))
    back = {sp.Symbol(f"a{i}"): s for i, s in enumerate(params)}
    return res.xreplace(back)


@lru_cache(maxsize=None)
def _cfp_r_cached(P, t):
    # R(g) = t ∫ x/(1 − xg) dμ = (t/g)((1/g) G_μ(1/g) − 1)  ⇔  G_μ(1/g) = g (1 + g R/t)
    C = _numer(P.subs({G: w * (1 + w * S / t), z: 1 / w}, simultaneous=True))
    a1, a2 = series_moments(P, 2)
    # κ_q = t m_q(μ): m1 = t a1, m2 = t a2 + t² a1²
    return _from_r_relation(C, (t * a1, t * a2 + t**2 * a1**2))


def compound_free_poisson_r_polynomial(P, rate):
    """Polynomial of π(μ, t) for a jump law μ on the whole real line, from its R-transform
    R(g) = t ∫ x/(1 − xg) dμ(x) = (t/g)((1/g) G_μ(1/g) − 1) (Nica & Speicher 2006, Prop. 12.11).

    Unlike the S-transform route it needs no positivity of μ.  ``rate`` may be a parameter
    symbol or an exact number.
    """
    tt = sp.Symbol("rate_r_")
    c, p = canonicalize(P, "a")
    res = _cfp_r_cached(c, tt)
    back = {sp.Symbol(f"a{i}"): s for i, s in enumerate(p)}
    back[tt] = rate
    return res.xreplace(back)
