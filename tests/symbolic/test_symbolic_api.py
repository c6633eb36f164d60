"""freeattn.symbolic: equations in the papers' names, exact moments/cumulants, series, LaTeX."""
import doctest
import subprocess
import sys

import pytest
import sympy as sp

import freeattn.symbolic as fs
from freeattn import MarchenkoPastur, attention_law, boxtimes
from freeattn.symbolic import symbols as S
from freeattn.symbolic.equations import G, z


@pytest.fixture(scope="module")
def law():
    return attention_law(1.0, 0.5, 4)


def test_not_imported_by_freeattn():
    code = "import sys, freeattn; print('freeattn.symbolic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_equation_is_the_laws_polynomial_in_paper_names(law):
    P = fs.algebraic_equation(law, symbolic=True)
    assert P.free_symbols == {G, z, S.theta_1, S.theta_2, S.gamma_K, S.h}
    # same object on every call and for every construction
    assert fs.algebraic_equation(attention_law(2.0, 3.0, 2), symbolic=True) == P
    # substituted: a constant multiple of the engine's own (independently built) polynomial
    ratio = sp.simplify(fs.algebraic_equation(law) / law.polynomial)
    assert ratio.is_number and ratio != 0
    vals = fs.equation_parameters(law)
    assert vals[S.h] == 4 and vals[S.gamma_K] == sp.Rational(1, 2)
    assert sp.simplify(vals[S.theta_1] - (sp.E - 1)) == 0


def test_equation_in_beta(law):
    P = fs.algebraic_equation(law, symbolic=True, in_beta=True)
    assert S.beta in P.free_symbols and S.theta_1 not in P.free_symbols
    assert sp.simplify(fs.algebraic_equation(law, in_beta=True) - fs.algebraic_equation(law)) == 0


def test_generic_law_names_are_stable():
    a = boxtimes(MarchenkoPastur(0.5), MarchenkoPastur(2.0))
    b = boxtimes(MarchenkoPastur(0.5), MarchenkoPastur(2.0))
    Pa, Pb = fs.algebraic_equation(a, symbolic=True), fs.algebraic_equation(b, symbolic=True)
    assert Pa == Pb
    assert {s.name for s in Pa.free_symbols} == {"G", "z", "y_1", "y_2"}
    assert fs.equation_parameters(a) == {sp.Symbol("y_1"): sp.Rational(1, 2), sp.Symbol("y_2"): 2}
    with pytest.raises(TypeError):
        fs.algebraic_equation(object())


def test_moments_match_C11_and_C29_block():
    law = attention_law(1.0, 2.0, 3)
    m = fs.moments(law, 3, symbolic=True)
    th1, th2, gK, h = S.theta_1, S.theta_2, S.gamma_K, S.h
    assert sp.simplify(m[0] - th1) == 0
    assert sp.simplify(m[1] - ((1 + 1 / h) * th1**2 + th2**2 / gK)) == 0  # (C.11)
    c = S.c_beta
    m3 = 1 + 3 * (1 / h + c**2 / gK) + 1 / h**2 + 3 * c**2 / (gK * h) + c**3 / gK**2  # §C.6.1
    assert sp.simplify(m[2].subs({th1: 1, th2: c}) - m3) == 0
    # exact values equal the law's own exact moments (series of its polynomial)
    assert all(sp.simplify(a - b) == 0 for a, b in zip(fs.moments(law, 3), law.exact_moments(3)))


def test_free_cumulants_exact():
    assert fs.free_cumulants(MarchenkoPastur(0.5), 5) == [1, sp.Rational(1, 2), sp.Rational(1, 4),
                                                           sp.Rational(1, 8), sp.Rational(1, 16)]
    k = fs.free_cumulants(attention_law(1.0, 1.0, 2), 3, symbolic=True)
    assert sp.simplify(k[1] - (S.theta_1**2 / S.h + S.theta_2**2 / S.gamma_K)) == 0  # §C.1.2
    with pytest.raises(ValueError):
        fs.moments(MarchenkoPastur(0.5), 0)


def test_moment_series():
    law = attention_law(1.0, 1.0, 2)
    m1, m2 = fs.moment_series(law, 2, "beta", 8, symbolic=True)
    b = S.beta
    assert sp.expand(m1.removeO() - (b**2 + b**4 / 2 + b**6 / 6)) == 0
    assert sp.simplify(m2.removeO().coeff(b, 4) - (1 + 1 / S.h + 1 / S.gamma_K)) == 0
    big = fs.moment_series(law, 2, "gamma_k", 2, symbolic=True)[1].removeO()
    assert sp.simplify(big - ((1 + 1 / S.h) * S.theta_1**2 + S.theta_2**2 / S.gamma_K)) == 0
    with pytest.raises(ValueError):
        fs.moment_series(law, 2, "h", 3)
    with pytest.raises(TypeError):
        fs.moment_series(MarchenkoPastur(0.5), 2)


def test_edge_series_large_gamma_k():
    law = attention_law(1.0, 400.0, 4)
    es = fs.edge_series(law, order=2)
    (a, b), = law.support()
    g = 400
    right = float(es["right"].removeO().subs(S.gamma_K, g))
    left = float(es["left"].removeO().subs(S.gamma_K, g))
    # remainder O(γ_K^{-3}); the γ_K → ∞ limits are θ₁(1 ± 1/sqrt(h))²
    assert abs(right - b) < 20 / g**3 and abs(left - a) < 20 / g**3
    lim = fs.edge_series(law, order=1, symbolic=True)["right"].removeO()
    assert sp.simplify(lim.coeff(S.gamma_K, 0) - S.theta_1 * (1 + 1 / sp.sqrt(S.h)) ** 2) == 0


def test_latex():
    P = fs.algebraic_equation(attention_law(1.0, 1.0, 2), symbolic=True)
    tex = fs.latex(P, equation=True)
    assert tex.endswith("= 0") and "\\theta_{1}" in tex and "\\gamma_{K}" in tex
    assert "_4" not in tex and "shift" not in tex


def test_docstring_examples():
    import freeattn.symbolic.cumulants as c
    import freeattn.symbolic.equations as e
    import freeattn.symbolic.printing as lx
    import freeattn.symbolic.series as sr

    for mod in (c, e, lx, sr):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert res.attempted > 0 and res.failed == 0, mod.__name__


def test_edge_series_small_beta():
    law = attention_law(0.05, 2.0, 4)
    es = fs.edge_series(law, "beta", order=4, dps=25)
    (a, b), = law.support(dps=30)
    beta = 0.05
    for series, exact in ((es["right"], b), (es["left"], a)):
        approx = series.removeO().subs(S.beta, beta)
        # remainder O(β^10) relative to the leading β² term
        assert abs(approx - exact) <= 1e-9 * abs(exact)
    # leading coefficient: the right edge of MP_{1/2} ⊠ MP_{1/4} (θ₁ ~ β²)
    lead = float(es["right"].removeO().coeff(S.beta, 2))
    ref = boxtimes(MarchenkoPastur(0.5), MarchenkoPastur(0.25)).support()[-1][1]
    assert abs(lead - ref) < 1e-12 * ref


def test_head_average_law_in_paper_names():
    from freeattn import head_average_law

    law = head_average_law(1.0, 1.0, 4, kv_heads=2)
    P = fs.algebraic_equation(law, symbolic=True)
    assert {s.name for s in P.free_symbols} == {"G", "z", "theta_1", "theta_2", "gamma_K", "h", "h_KV"}
    ratio = sp.simplify(fs.algebraic_equation(law) / law.polynomial)
    assert ratio.is_number and ratio != 0
    m = fs.moments(law, 2, symbolic=True)  # ρ_t ⊠ π₁, t = γ_K h_KV/h: m₂ = 2θ₁² + θ₂²/t
    t = S.gamma_K * S.h_KV / S.h
    assert sp.simplify(m[1] - (2 * S.theta_1**2 + S.theta_2**2 / t)) == 0


def test_layer_families_reproduce_C15_C16():
    """values/mha families (Prop. C.5, (C.15)): the paper-named polynomial's own moments give
    m₁ = γ_O θ₁ and the normalised variance (C.16)."""
    from freeattn.symbolic.equations import family, family_polynomial
    from types import SimpleNamespace

    params = dict(kind="mha", beta=1.0, heads=2, gamma_k=1.0, gamma_v=2.0, gamma_o=0.5,
                  sharing="mqa")
    fake = SimpleNamespace(params=params, symbolic_polynomial=None)
    assert family(fake) == "mha"
    P = fs.algebraic_equation(fake, symbolic=True)
    assert P == family_polynomial("mha")
    m1, m2 = fs.moments(fake, 2, symbolic=True)
    th1, th2, gK, gV, gO, h = S.theta_1, S.theta_2, S.gamma_K, S.gamma_V, S.gamma_O, S.h
    assert sp.simplify(m1 - gO * th1) == 0
    assert sp.simplify(m2 / m1**2 - 1 - (1 / h + 1 / gV + 1 / gO + th2**2 / (gK * th1**2))) == 0
    vals = fs.equation_parameters(fake)
    assert vals[S.gamma_O] == sp.Rational(1, 2) and vals[S.gamma_V] == 2
    v = SimpleNamespace(params=dict(kind="values", beta=1.0, heads=2, gamma_k=1.0, gamma_v=2.0,
                                    tied=False), symbolic_polynomial=None)
    m1, m2 = fs.moments(v, 2, symbolic=True)  # ν_{∞,h} ⊠ π_{γ_V}: m₁ = γ_V θ₁
    assert sp.simplify(m1 - gV * th1) == 0
    assert sp.simplify(m2 / m1**2 - 1 - (1 / h + 1 / gV + th2**2 / (gK * th1**2))) == 0
    tied = SimpleNamespace(params=dict(params, sharing="tied_kv"), symbolic_polynomial=None)
    assert family(tied) is None


def test_law_method_delegates_to_the_symbolic_module():
    """AlgebraicLaw has no algebraic_equation method any more (laws/ must not import
    symbolic/, a higher layer): the symbolic module's function is the one route."""
    import sympy as sp

    from freeattn import attention_law
    from freeattn.symbolic import algebraic_equation

    law = attention_law(1, 1, 2)
    assert not hasattr(law, "algebraic_equation")
    P = algebraic_equation(law, symbolic=True)
    assert sp.expand(P - algebraic_equation(attention_law(1, 1, 2), symbolic=True)) == 0
    assert {"theta_1", "theta_2", "gamma_K", "h"} <= {s.name for s in P.free_symbols}