"""Exact moments by the FLINT series recursion (freeattn.algebraic.series.series_moments,
series_moments_at) against closed forms, a second algorithm (free cumulants through
non-crossing partitions) and the symbolic expansion of freeattn.algebraic.polynomial."""
from fractions import Fraction

import pytest
import sympy as sp

from freeattn import MarchenkoPastur, MHAConfig, attention_law, boxtimes
from freeattn._validation import ParameterError
from freeattn.algebraic import polynomial as pm
from freeattn.algebraic.polynomial import G, z
from freeattn.algebraic.series import series_moments, series_moments_at, series_moments_numeric
from freeattn.symbolic import algebraic_equation
from freeattn.transforms.cumulants import boxtimes_free_cumulants, moments_from_free_cumulants


def fuss_catalan(n, s):
    """Moments of MP(1)^{⊠s}: binom((s+1)n, n)/(s n + 1)."""
    return sp.binomial((s + 1) * n, n) / (s * n + 1)


def narayana(n, y):
    return sum(sp.binomial(n, k) * sp.binomial(n, k - 1) / n * y ** (k - 1) for k in range(1, n + 1))


@pytest.mark.parametrize("s", [1, 2, 3])
def test_fuss_catalan_from_functional_equation(s):
    # M = 1 + u M^{s+1} with G = u M, z = 1/u: G z − 1 − G^{s+1} z^s = 0
    P = G * z - 1 - G ** (s + 1) * z**s
    ms = series_moments(P, 40)
    assert ms == [fuss_catalan(n, s) for n in range(1, 41)]
    assert ms[:5] == [[1, 2, 5, 14, 42], [1, 3, 12, 55, 273], [1, 4, 22, 140, 969]][s - 1]


def test_fuss_catalan_through_boxtimes_law():
    law = boxtimes(MarchenkoPastur(1), MarchenkoPastur(1))
    ms = series_moments_at(law._factor, law.values, 30)
    assert ms == [fuss_catalan(n, 2) for n in range(1, 31)]


def test_narayana_symbolic_and_at_values():
    y = sp.Symbol("y")
    P = y * z * G**2 + (1 - y - z) * G + 1
    ms = series_moments(P, 12)
    for n, m in enumerate(ms, start=1):
        assert sp.expand(m - narayana(n, y)) == 0
    half = series_moments_at(P, {y: sp.Rational(1, 3)}, 25)
    assert half == [narayana(n, sp.Rational(1, 3)) for n in range(1, 26)]
    # the numeric recursion in exact fractions is a second implementation
    c = [[Fraction(1), Fraction(0)], [Fraction(2, 3), Fraction(-1)], [Fraction(0), Fraction(1, 3)]]
    assert [sp.Rational(f.numerator, f.denominator) for f in series_moments_numeric(c, 25)] == half


def test_parameter_dependent_dq_rational_moments():
    """a(Gz − 1) + b G² = 0: dq = a, the semicircle of variance −b/a; m_2k = Cat(k) (−b/a)^k.
    Runs the fraction-free route (u = dq² w)."""
    a, b = sp.symbols("a b")
    P = a * (G * z - 1) + b * G**2
    ms = series_moments(P, 12)
    for n, m in enumerate(ms, start=1):
        ref = 0 if n % 2 else sp.catalan(n // 2) * (-b / a) ** (n // 2)
        assert sp.cancel(m - ref) == 0
    old = pm.series_moments(P, 6)
    assert [sp.cancel(x - y) for x, y in zip(ms, old)] == [0] * 6
    # irrational values through composition of numerator and denominator
    vals = {a: sp.E, b: -sp.pi}
    at = series_moments_at(P, vals, 8)
    for n, m in enumerate(at, start=1):
        ref = 0 if n % 2 else sp.catalan(n // 2) * (sp.pi / sp.E) ** (n // 2)
        assert sp.simplify(m - ref) == 0
    assert at == [sp.expand(m.xreplace(vals)) for m in ms[:8]]


def test_single_head_equals_free_cumulant_route_exactly():
    """ν = ρ_γ ⊠ MP_{1/h} (Hayase, Collins & Karakida, eqs. (C.8)–(C.11)): κ_1(ρ) = θ₁,
    κ_q(ρ) = θ₂^q/γ_K^{q−1}, κ_q(MP_{1/h}) = h^{1−q}; at β = 1: θ₁ = e − 1, θ₂ = 1."""
    n = 7
    law = attention_law(1.0, 1.0)
    th1, th2, g, h = sp.E - 1, sp.Integer(1), sp.Integer(1), 1
    k_rho = [th1] + [th2**q / g ** (q - 1) for q in range(2, n + 1)]
    k_mp = [sp.Rational(1, h) ** (q - 1) for q in range(1, n + 1)]
    ref = moments_from_free_cumulants(boxtimes_free_cumulants(k_rho, k_mp))
    ms = series_moments_at(law._factor, law.values, n)
    assert [sp.expand(a - b) for a, b in zip(ms, ref)] == [0] * n


def test_symbolic_in_theta_c11():
    """m₁ = θ₁, m₂ = (1 + 1/h) θ₁² + θ₂²/γ_K (eq. (C.11)) and m₃ of ρ ⊠ MP_{1/h} from the
    moments of a product of free variables, φ((ab)³) = a₃b₁³ + 3a₁a₂(b₁b₂ − b₁³)
    + a₁³(b₃ − 3b₁b₂ + 2b₁³) (Nica & Speicher 2006, Lecture 14), all in symbols."""
    P = algebraic_equation(attention_law(1.0, 1.0, 2), symbolic=True)
    th1, th2, gk, h = sp.symbols("theta_1 theta_2 gamma_K h")
    syms = {s.name: s for s in P.free_symbols}
    th1, th2, gk, h = (syms[n] for n in ("theta_1", "theta_2", "gamma_K", "h"))
    m1, m2, m3 = series_moments(P, 3)
    assert sp.cancel(m1 - th1) == 0
    assert sp.cancel(m2 - ((1 + 1 / h) * th1**2 + th2**2 / gk)) == 0
    # ρ = (x ↦ θ₁ − θ₂ + θ₂ x)_# MP_{1/γ_K}: moments of MP_{1/γ} are Narayana in 1/γ
    mp = [narayana(k, 1 / gk) for k in (1, 2, 3)]
    a1 = th1
    a2 = sp.expand((th1 - th2) ** 2 + 2 * (th1 - th2) * th2 * mp[0] + th2**2 * mp[1])
    a3 = sp.expand(sum(sp.binomial(3, j) * (th1 - th2) ** (3 - j) * th2**j * ([1] + mp)[j] for j in range(4)))
    b1, b2, b3 = (narayana(k, 1 / h) for k in (1, 2, 3))
    ref3 = a3 * b1**3 + 3 * a1 * a2 * (b1 * b2 - b1**3) + a1**3 * (b3 - 3 * b1 * b2 + 2 * b1**3)
    assert sp.cancel(m3 - ref3) == 0


@pytest.mark.parametrize("make", [lambda: attention_law(1.0, 1.0),
                                  lambda: attention_law(1.5, 0.75, 2),
                                  lambda: attention_law(0.5, 2.0, 12)])
def test_equals_old_symbolic_route(make):
    """The drop-in equals polynomial.series_moments (same expressions), and the substituted
    route equals its expansion at the law's values, for k ≤ 8."""
    law = make()
    old = pm.series_moments(law._factor, 8)
    assert series_moments(law._factor, 8) == old
    at = series_moments_at(law._factor, law.values, 8)
    assert at == [sp.expand(m.xreplace(law.values)) for m in old]


def test_bert_base_layer_first_moments():
    """Full layer (Hayase & Karakida 2026, eq. (C.15)) at bert-base widths: the substituted
    recursion equals the symbolic one for k ≤ 4, and m₂/m₁² − 1 = 1/h + 1/γ_V + 1/γ_O
    + θ₂²/(γ_K θ₁²) (eq. (C.16))."""
    law = MHAConfig.preset("bert-base").law()
    old = [sp.expand(m.xreplace(law.values)) for m in pm.series_moments(law._factor, 4)]
    at = series_moments_at(law._factor, law.values, 4)
    assert [sp.expand(a - b) for a, b in zip(at, old)] == [0] * 4
    th1, th2 = sp.E - 1, sp.Integer(1)
    h, gk, gv, go = 12, sp.Rational(3, 2), sp.Rational(3, 2), sp.Rational(3, 2)
    ref = sp.Rational(1, h) + 1 / gv + 1 / go + th2**2 / (gk * th1**2)
    assert sp.simplify(at[1] / at[0] ** 2 - 1 - ref) == 0


def test_fifty_moments_agree_with_numeric_recursion():
    """m_1..m_50 of attention_law(1, 1) exactly, evaluated, against the 60-digit numeric
    recursion (independent arithmetic) to 1e-40 relative."""
    import mpmath

    law = attention_law(1.0, 1.0)
    ms = series_moments_at(law._factor, law.values, 50)
    with mpmath.workdps(60):
        num = series_moments_numeric(law._num.coefficients_mp(), 50)
        for m, ref in zip(ms, num):
            v = mpmath.mpf(sp.N(m, 60))
            assert abs(v / ref - 1) < mpmath.mpf(10) ** -40


def test_partial_values_keep_symbols():
    y, t = sp.symbols("y t")
    P = (y * z * G**2 + (1 - y - z) * G + 1) * (1 + t)  # t: a content factor, set to 5
    ms = series_moments_at(P, {t: sp.Integer(5)}, 5)
    assert [sp.expand(m - narayana(n, y)) for n, m in enumerate(ms, start=1)] == [0] * 5


def test_errors():
    with pytest.raises(ValueError, match="simple root"):
        series_moments(G * z + 1, 3)  # G ~ −1/z
    y = sp.Symbol("y")
    with pytest.raises(ValueError, match="simple root"):
        # dq = 1 − 2y vanishes at y = 1/2 (P = G² there)
        series_moments_at((G * z - 1) * (1 - 2 * y) + G**2, {y: sp.Rational(1, 2)}, 3)
    with pytest.raises(ParameterError) as info:
        series_moments(G * z - 1 - G**2, -1)
    assert info.value.param == "order"
    assert series_moments(G * z - 1 - G**2, 0) == []


def test_docstring_examples():
    import doctest

    import freeattn.algebraic.series as module

    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
