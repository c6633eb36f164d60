"""The sympy ↔ FLINT conversion memo (freeattn.algebraic.exact): an expression that
``to_sympy`` built goes back to FLINT, to its free symbols and to its term table exactly as a
fresh conversion of the same expression would (memo cleared)."""
from collections import OrderedDict

import pytest
import sympy as sp

from freeattn.algebraic import exact
from freeattn.algebraic import polynomial as pm
from freeattn.algebraic.polynomial import G, z

pytestmark = pytest.mark.skipif(exact.flint is None, reason="python-flint not installed")

y, a, b = sp.symbols("y a b")
MP = y * z * G**2 + (1 - y - z) * G + 1


def _fresh(monkeypatch):
    monkeypatch.setattr(exact, "_MEMO", OrderedDict())


def _built():
    """An expanded polynomial built by to_sympy (affine image of MP with a/3 + b over 6)."""
    ctx = exact.context({"G", "z", "y", "a", "b"})
    P = exact.to_flint(pm.affine_polynomial(MP, a, b), ctx)
    gy = ctx.gen(ctx.variable_to_index("y"))
    return exact.to_sympy(P * 2 + gy**3 * 5, (y, a, b), denominator=6)


@pytest.mark.parametrize("names, rename", [
    ({"G", "z", "y", "a", "b"}, None),                      # same context
    ({"G", "z", "w", "S", "c0", "c1", "c2"}, {"a": "c0", "b": "c1", "y": "c2"}),  # renamed
    ({"G", "z", "y", "a", "b", "extra"}, None),             # a larger context
])
def test_memo_conversion_equals_a_fresh_one(monkeypatch, names, rename):
    expr = _built()
    assert exact.is_expanded(expr)
    ctx = exact.context(names)
    fast = exact.to_flint(expr, ctx, rename, with_denominator=True)
    fast_terms = exact._expanded_terms(expr, {n: i for i, n in enumerate(ctx.names())}
                                       if rename is None else
                                       {**{n: i for i, n in enumerate(ctx.names())},
                                        **{o: ctx.names().index(n) for o, n in rename.items()}},
                                       len(ctx.names()))
    fast_syms = exact.free_symbols(expr)
    _fresh(monkeypatch)
    assert not exact.is_expanded(expr)
    slow = exact.to_flint(expr, ctx, rename, with_denominator=True)
    index = {n: i for i, n in enumerate(ctx.names())}
    if rename:
        index.update({o: index[n] for o, n in rename.items()})
    assert fast == slow
    assert fast_terms == exact._expanded_terms(expr, index, len(ctx.names()))
    assert fast_syms == expr.free_symbols == {G, z, y, a, b}


def test_memo_refuses_a_context_without_a_symbol(monkeypatch):
    expr = _built()
    ctx = exact.context({"G", "z", "y", "a"})
    with pytest.raises(exact.NotConvertible):
        exact.to_flint(expr, ctx)
    _fresh(monkeypatch)
    with pytest.raises(exact.NotConvertible):
        exact.to_flint(expr, ctx)


def test_two_symbols_of_one_name_merge_as_in_a_fresh_conversion(monkeypatch):
    """A context name standing for two sympy symbols (same name, other assumptions): their
    terms combine into one variable, exactly as the term-by-term reading does."""
    yp = sp.Symbol("y", positive=True)
    ctx = exact.context({"G", "z", "y", "q"})
    gy, gq = ctx.gen(2), ctx.gen(3)
    # q stands for a second symbol named y: y·G + q·G − 3 = (y + y⁺) G − 3
    expr = exact.to_sympy(gy * ctx.gen(0) + gq * ctx.gen(0) - 3, {"y": y, "q": yp, "G": G})
    index = {"G": 0, "z": 1, "y": 2}
    fast = exact._expanded_terms(expr, index, 3)
    _fresh(monkeypatch)
    assert fast == exact._expanded_terms(expr, index, 3) == {(1, 0, 1): (2, 1), (0, 0, 0): (-3, 1)}


def test_canonical_order_equals_sympys_on_random_polynomials():
    """to_sympy's ranked order of factors and terms (confirmed by neighbour comparisons)
    builds exactly sympy's expression: same args in the same order, same hash."""
    import random

    rnd = random.Random(7)
    names = ("G", "z", "w", "S", "c0", "c1", "c10", "c2", "y_8", "y_11")
    ctx = exact.context(set(names))
    syms = [sp.Symbol(n) for n in ctx.names()]
    before = exact.SORT_FALLBACKS[0]
    for _ in range(60):
        d = {}
        for _ in range(rnd.randint(1, 200)):
            m = tuple(rnd.choice([0, 0, 0, 1, 2, 3, 5]) for _ in names)
            d[m] = rnd.choice([1, -1, 2, -3, 7, 10**30]) * rnd.choice([1, -1])
        p = ctx.from_dict(d)
        den = rnd.choice([1, 2, 35])
        got = exact.to_sympy(p, syms, denominator=den)
        want = sp.Add(*[sp.Rational(int(c), den) * sp.Mul(*[s**int(k) for s, k in zip(syms, m)])
                        for m, c in p.to_dict().items()])
        assert got == want and got.args == want.args and hash(got) == hash(want)
    assert exact.SORT_FALLBACKS[0] == before  # the ranked order held every time


def test_rename_symbols_equals_xreplace():
    expr = _built()
    u, v = sp.symbols("u v")
    for mapping in ({a: u, b: v}, {a: u}, {a: b}):  # the last merges two symbols
        got = pm.rename_symbols(expr, mapping)
        want = expr.xreplace(mapping)
        assert got == want and got.args == want.args
