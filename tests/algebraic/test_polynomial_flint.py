"""FLINT route of the exact algebra (freeattn.algebraic.exact) against sympy's own."""
import pytest
import sympy as sp

from freeattn.algebraic import exact
from freeattn.algebraic import discriminant as dm
from freeattn.algebraic import eliminations as el
from freeattn.algebraic import polynomial as pm
from freeattn.algebraic.polynomial import G, z

pytestmark = pytest.mark.skipif(exact.flint is None, reason="python-flint not installed")

y, a, b, h, t = sp.symbols("y a b h t")
MP = y * z * G**2 + (1 - y - z) * G + 1            # Marchenko–Pastur, ratio y
RHO = pm.affine_polynomial(MP, a, b)               # x ↦ a + b x of MP_y


def _prefactor(P1, P2):
    """The polynomial that the ⊠ elimination factors (before the Stieltjes selection)."""
    ctx = exact.context({s.name for s in P1.free_symbols | P2.free_symbols}
                        | {"G", "z", "w", "S", "S_1"})
    p1, p2 = exact.to_flint(P1, ctx), exact.to_flint(P2, ctx)
    S_, S1_ = pm._gens(ctx, "S", "S_1")
    s1 = pm._s_relation_flint(p1, "S_1")
    s2 = exact.subs_rational(pm._s_relation_flint(p2), {"S": (S_, S1_)})
    back = pm._from_s_relation_flint(s1.resultant(s2, "S_1"))
    return exact.to_sympy(back, tuple(P1.free_symbols | P2.free_symbols))


def _factor_set_sympy(expr):
    _, fl = sp.factor_list(expr, *sorted(expr.free_symbols, key=lambda s: s.name))
    return {(sp.expand(f), m) for f, m in fl if f.has(G)}


def _factor_set_flint(expr):
    return {(sp.expand(f), m) for f, m in exact.factor_list(expr) if f.has(G)}


def _same_up_to_sign(s1, s2):
    norm = lambda s: {(f if sp.Poly(f, G, z).LC().could_extract_minus_sign() is False  # noqa
                       else sp.expand(-f), m) for f, m in s}
    return norm(s1) == norm(s2)


def test_roundtrip_and_not_convertible():
    expr = sp.Rational(3, 4) * G**2 * z - sp.Rational(1, 6) * a + 2
    ctx = exact.context({"G", "z", "a"})
    p = exact.to_flint(expr, ctx)
    assert sp.expand(exact.to_sympy(p) - 12 * expr) == 0  # denominators cleared by 12
    # a non-expanded input takes sympy's Poly route, same polynomial
    assert exact.to_flint((G + a) ** 2 * z, ctx) == exact.to_flint(sp.expand((G + a) ** 2 * z), ctx)
    with pytest.raises(exact.NotConvertible):
        exact.to_flint(sp.E * G + z, ctx)


def test_factor_sets_mp_product():
    expr = sp.expand(MP * (z * G - 1) * (G + a) ** 2)
    assert _factor_set_flint(expr) == _factor_set_sympy(expr)
    assert {(sp.expand(MP), 1), (z * G - 1, 1), (G + a, 2)} == _factor_set_flint(expr)


def test_factor_sets_attention_prefactor():
    # ν_{∞,h} = ρ ⊠ MP_h: identical irreducible factors (up to sign) by both routes
    expr = _prefactor(RHO, MP.subs(y, h))
    fl = _factor_set_flint(expr)
    assert len(fl) >= 2  # the attention law's factor and the spurious zG − 1 (δ₀)
    assert _same_up_to_sign(fl, _factor_set_sympy(expr))


def test_resultant_and_discriminant_match_sympy():
    p1 = G**2 * a + G * z - 1
    p2 = G**3 - z * G + b
    r_fl, r_sp = exact.resultant(p1, p2, G), sp.resultant(p1, p2, G)
    assert sp.simplify(r_fl / r_sp).is_Rational
    d_fl, d_sp = exact.discriminant(MP, G), sp.discriminant(MP, G)
    assert sp.simplify(d_fl / d_sp).is_Rational


def test_discriminant_factors_match_sympy(monkeypatch):
    P = sp.expand(RHO.subs(y, sp.Rational(1, 3)))
    fl = dm._disc_cached.__wrapped__(pm.canonicalize(P)[0])
    monkeypatch.setenv("FREEATTN_FLINT", "0")
    sy = dm._disc_cached.__wrapped__(pm.canonicalize(P)[0])
    norm = lambda fs: {(f if f.could_extract_minus_sign() is False else sp.expand(-f), k)  # noqa
                       for f, k in fs}
    assert {(sp.factor(f), k) for f, k in fl} == {(sp.factor(f), k) for f, k in sy} or \
        norm(fl) == norm(sy)


def test_series_moments_flint_equals_sympy():
    P, _ = pm.canonicalize(sp.expand(RHO))
    fl = pm._series_moments_flint(P, 4)
    sy = pm._series_moments(P, 4)
    assert all(sp.simplify(x - y_) == 0 for x, y_ in zip(fl, sy))
    # m1 of a + b·MP_y is a + b; m2 = (a + b)² + b² y
    c0, c1, c2 = sp.symbols("c0 c1 c2")
    assert sp.expand(fl[0] - (c0 + c1)) == 0
    assert sp.expand(fl[1] - ((c0 + c1) ** 2 + c1**2 * c2)) == 0


def test_boxtimes_same_polynomial_both_routes(monkeypatch):
    """MP ⊠ MP and the attention structure: the FLINT elimination returns sympy's factor."""
    for P1, P2 in ((MP, MP.subs(y, h)), (RHO, MP.subs(y, h))):
        c1, _ = pm.canonicalize(P1, "a")
        c2, _ = pm.canonicalize(P2, "b")
        monkeypatch.setenv("FREEATTN_FLINT", "1")
        fl = el._boxtimes_cached.__wrapped__(c1, c2)
        monkeypatch.setenv("FREEATTN_FLINT", "0")
        sy = el._boxtimes_cached.__wrapped__(c1, c2)
        assert sp.expand(fl - sy) == 0 or sp.expand(fl + sy) == 0


def test_compound_poisson_same_polynomial_both_routes(monkeypatch):
    c, _ = pm.canonicalize(MP, "a")
    tt = sp.Symbol("rate_")
    monkeypatch.setenv("FREEATTN_FLINT", "1")
    fl = el._cfp_cached.__wrapped__(c, tt)
    monkeypatch.setenv("FREEATTN_FLINT", "0")
    sy = el._cfp_cached.__wrapped__(c, tt)
    assert sp.expand(fl - sy) == 0 or sp.expand(fl + sy) == 0


def test_stieltjes_factor_falls_back_on_transcendental_coefficients():
    # exp(1) inside the polynomial: FLINT cannot take it, sympy's route answers
    Q = sp.E * G**2 - z * G + 1  # semicircle of variance e
    f = pm._stieltjes_factor_cached.__wrapped__(sp.expand(Q * (G + 3)), ())
    assert sp.expand(f - Q) == 0 or sp.expand(f + Q) == 0


@pytest.mark.slow
def test_factor_sets_values_and_full_layer_prefactors():
    """ν ⊠ MP_{1/γ_V} and ν ⊠ MP_{1/γ_V} ⊠ π_{γ_O} (Hayase & Karakida 2026, eq. (C.15)):
    the polynomials factored by the eliminations have the same factors in FLINT and sympy."""
    v, t_ = sp.symbols("v t_o")
    nu = el.boxtimes_polynomial(RHO, MP.subs(y, h))
    values = el.boxtimes_polynomial(nu, MP.subs(y, v))
    fp = z * G**2 + (t_ - 1 - z) * G + 1
    for P1, P2 in ((nu, MP.subs(y, v)), (values, fp)):
        expr = _prefactor(P1, P2)
        assert _same_up_to_sign(_factor_set_flint(expr), _factor_set_sympy(expr))


def test_factor_with_large_coefficients():
    # python-flint 0.9's fmpz_mpoly.factor overflows sorting such factors; the fmpq route
    # answers the same (exact discriminants at float parameters have such coefficients)
    big = sp.Integer(2) ** 80 + 1
    expr = sp.expand((z - big * a) * (z + 3 * a) ** 2 * (G * z - big))
    got = {(sp.expand(f), m) for f, m in exact.factor_list(expr)}
    assert got == {(z - big * a, 1), (z + 3 * a, 2), (G * z - big, 1)}


def test_discriminant_tables_evaluate_to_the_substituted_discriminant():
    """The symbolic discriminant's factors, evaluated at a point, have the roots of the
    discriminant computed exactly at that point (same edges, no exact algebra per point)."""
    import mpmath

    P = el.boxtimes_polynomial(RHO, MP.subs(y, h))  # attention law structure, 4 parameters
    point = {a: sp.Rational(3, 5), b: sp.Rational(2, 7), y: sp.Rational(5, 3), h: sp.Rational(1, 4)}
    tables = dm.discriminant_tables(P)
    assert {k for _, k in tables} == {"disc", "lead"}
    exact_roots, table_roots = [], []
    for f, kind in dm.discriminant_factors(sp.expand(P.xreplace(point))):
        exact_roots += [complex(r) for r in sp.Poly(f, z).nroots(n=30)]
    with mpmath.workdps(40):
        for t, kind in tables:
            assert t.as_expr(z).free_symbols <= set(point) | {z}
            c = t.evaluate([mpmath.mpf(point[s].p) / point[s].q for s in t.symbols], mpmath.mpf(1))
            c = [v for v in c]
            while c and c[-1] == 0:
                c.pop()
            if len(c) > 1:
                table_roots += [complex(r) for r in mpmath.polyroots(c[::-1], maxsteps=200,
                                                                       extraprec=100)]
    key = lambda r: (round(r.real, 9), round(r.imag, 9))  # noqa: E731
    assert sorted(map(key, exact_roots)) == sorted(map(key, table_roots))
    # float64 evaluation agrees with the exact one
    t0 = next(t for t, k in tables if k == "disc")
    vals = [point[s] for s in t0.symbols]
    exact_c = t0.evaluate(vals, sp.Integer(1))
    float_c = t0.evaluate([float(v) for v in vals], 1.0)
    assert all(abs(float(e) - f) <= 1e-12 * max(abs(float(x)) for x in exact_c)
               for e, f in zip(exact_c, float_c))


def test_to_sympy_builds_sympys_canonical_expression():
    """The fast FLINT → sympy assembly equals (args, hash) sympy's own construction."""
    import random

    rng = random.Random(3)
    ctx = exact.context({"G", "z", "a", "b", "h"})
    names = ctx.names()
    syms = [sp.Symbol(n) for n in names]
    for _ in range(3):
        d = {tuple(rng.randint(0, 3) for _ in names): rng.randint(-50, 50) for _ in range(60)}
        d[(0,) * len(names)] = 7
        p = ctx.from_dict(d)
        fast = exact.to_sympy(p)
        ref = sp.Add(*[c * sp.Mul(*[s**e for s, e in zip(syms, m)]) for m, c in d.items()])
        assert fast == ref and hash(fast) == hash(ref) and fast.args == ref.args
    assert exact.to_sympy(ctx.from_dict({(0,) * len(names): 3})) == 3
    assert exact.to_sympy(ctx.from_dict({})) == 0


def test_expand_and_substitute_polynomial_match_sympy(monkeypatch):
    P = el.boxtimes_polynomial(RHO, MP.subs(y, h))
    Q = sp.Rational(3, 7) * P + sp.Rational(1, 5) * G  # rational coefficients too
    got = pm.expand_polynomial(Q)
    assert got == sp.expand(Q) and hash(got) == hash(sp.expand(Q))
    e = sp.exp(1) * G + z  # not for FLINT: sympy's expand answers
    assert pm.expand_polynomial(e) == sp.expand(e)
    aa, bb = sp.symbols("aa bb")
    mapping = {a: aa, b: sp.Rational(2, 9), h: sp.Rational(1, 12), y: bb}
    sub = pm.substitute_polynomial(P, mapping)
    ref = sp.expand(P.xreplace(mapping))
    ratio = sp.cancel(sub / ref)
    assert ratio.is_Rational and ratio != 0
    assert sub.free_symbols == ref.free_symbols


def test_flint_cache_is_bounded_lru(monkeypatch):
    monkeypatch.setattr(pm, "_FLINT_CACHE", type(pm._FLINT_CACHE)())
    monkeypatch.setattr(pm, "_FLINT_CACHE_SIZE", 3)
    calls = []
    for k in (1, 2, 3, 1, 4):  # 1 is refreshed, so 2 is the one evicted by 4
        pm._flint_cached(k, lambda k=k: calls.append(k) or k)
    assert calls == [1, 2, 3, 4]
    assert list(pm._FLINT_CACHE) == [3, 1, 4]


def test_oversized_symbolic_discriminant_is_refused_not_computed():
    """The full layer (C.15) with all six parameters symbolic: its discriminant in G is far
    too large to compute (beyond ten minutes); refused at once from the a-priori bound, so
    callers substitute the fixed values first (the ν ⊠ MP law, 5 parameters, is computed)."""
    v, t_ = sp.symbols("v t_o")
    nu = el.boxtimes_polynomial(RHO, MP.subs(y, h))
    full = el.boxtimes_polynomial(el.boxtimes_polynomial(nu, MP.subs(y, v)),
                                  z * G**2 + (t_ - 1 - z) * G + 1)
    with pytest.raises(ValueError, match="too large"):
        dm.discriminant_tables(full)
    with pytest.raises(ValueError, match="too large"):
        dm.discriminant_factors(full)
    fixed = {h: sp.Rational(1, 12), v: sp.Rational(2, 3), t_: sp.Rational(3, 2)}
    reduced = pm.substitute_polynomial(full, fixed)
    assert any(k == "disc" for _, k in dm.discriminant_tables(reduced))


def test_sympy_route_refuses_what_it_cannot_do_quickly(monkeypatch):
    """FREEATTN_FLINT=0: the attention law's fully symbolic discriminant (bound 6e4) is
    refused (callers take the rational-substitution route), its substituted form is computed."""
    P = el.boxtimes_polynomial(RHO, MP.subs(y, h))
    monkeypatch.setenv("FREEATTN_FLINT", "0")
    with pytest.raises(ValueError, match="too large"):
        dm._disc_cached.__wrapped__(pm.canonicalize(P)[0])
    reduced = sp.expand(P.xreplace({y: sp.Rational(2, 3), h: sp.Rational(1, 12)}))
    assert dm._disc_cached.__wrapped__(pm.canonicalize(reduced)[0])
