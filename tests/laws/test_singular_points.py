"""Right values at singular points (issue 7 items 1-10), each at a second input of the kind.

References are independent of the engine: closed forms, S-transform algebra redone here,
mpmath roots at 40-60 digits, mpmath.findroot on closed-form cdfs.
"""
import decimal
import fractions
import math
import pickle

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy import integrate

from freeattn import (AlgebraicLaw, FreePoisson, MarchenkoPastur, PointMass, Semicircle,
                      attention_law, compound_free_poisson, free_multiplicative_convolution)
from freeattn.algebraic.polynomial import G, z


def generic_mp(y):
    """MP_y through the bare polynomial (no closed-form fast path)."""
    y = sp.nsimplify(y)
    return AlgebraicLaw(y * z * G**2 + (1 - y - z) * G + 1)


def total_mass(law):
    mass = sum(m for _, m in law.atoms())
    for a, b in law.support():
        mass += integrate.quad(law.pdf, a, b, limit=400, epsabs=1e-14, epsrel=1e-13)[0]
    return mass


def stieltjes_root(coeffs_of_x, x, dps=40):
    """−Im of the root with the most negative imaginary part of P(·, x), over π (a support
    point with a unique root in the lower half-plane)."""
    with mpmath.workdps(dps):
        roots = mpmath.polyroots(coeffs_of_x(mpmath.mpf(x)), maxsteps=200, extraprec=200)
        return -min(mpmath.im(r) for r in roots) / mpmath.pi


# --- 1. atoms under ⊠: (μ ⊠ ν)({0}) = max(μ({0}), ν({0})) (Belinschi 2003) ---------------
def test_boxtimes_keeps_the_atom_at_zero():
    law = free_multiplicative_convolution(MarchenkoPastur(2), MarchenkoPastur(3))
    (loc, mass), = law.atoms()
    assert loc == 0.0 and mass == pytest.approx(2 / 3, rel=1e-14)
    assert law.cdf(1e9) == pytest.approx(1.0, abs=1e-12)
    assert total_mass(law) == pytest.approx(1.0, abs=1e-10)


def test_boxtimes_equal_atoms_divergent_density_next_to_the_atom():
    """MP(2) ⊠ MP(2): atom 1/2 at 0 where the mass is a double root of the Newton polygon;
    S = 1/(1 + 2w)² gives G(2zG − 1)² − zG + 1 = 0 (redone here from S_MP(w) = 1/(1 + y w))."""
    law = free_multiplicative_convolution(MarchenkoPastur(2), MarchenkoPastur(2))
    assert law.atoms() == [(0.0, pytest.approx(0.5, rel=1e-14))]
    coeffs = lambda x: [4 * x**2, -4 * x, 1 - x, 1]  # noqa: E731
    for x in (1.0, 1e-6, 1e-12):
        assert law.pdf(x) == pytest.approx(float(stieltjes_root(coeffs, x)), rel=1e-9)
    assert total_mass(law) == pytest.approx(1.0, abs=1e-10)
    assert law.cdf(100.0) == pytest.approx(1.0, abs=1e-12)


# --- 2. narrow gaps ------------------------------------------------------------------
def two_point_jump():
    return AlgebraicLaw((z - 2) * (z - sp.Rational(11, 2)) * G - sp.Rational(3, 4) * (z - sp.Rational(11, 2))
                        - sp.Rational(1, 4) * (z - 2))


def test_narrow_gap_of_1e_12():
    law = compound_free_poisson(two_point_jump(), 0.31027322637500027)
    sup = law.support()
    ref = [(0.4403682973461512, 3.8393631452853043), (3.8393631452866356, 9.640120889488161)]
    assert len(sup) == 2
    np.testing.assert_allclose(np.array(sup), np.array(ref), rtol=1e-15)
    (loc, mass), = law.atoms()
    assert loc == 0.0 and mass == pytest.approx(1 - 0.31027322637500027, rel=1e-12)
    assert law.cdf(sup[0][1]) == pytest.approx(law.cdf(sup[1][0]), abs=1e-14)
    assert law.cdf(20.0) == pytest.approx(1.0, abs=1e-12)


def test_narrow_gap_second_rate():
    """A rate a little further from the closing of the gap: still two intervals, mass 1."""
    law = compound_free_poisson(two_point_jump(), 0.3102732263)
    sup = law.support()
    assert len(sup) == 2 and 0 < sup[1][0] - sup[0][1] < 1e-8
    assert total_mass(law) == pytest.approx(1.0, abs=1e-10)


# --- 3. high-precision density next to an edge -------------------------------------------
def test_pdf_dps50_just_inside_the_attention_edge():
    law = attention_law(1, 1)
    e = law.support(dps=50)[-1][1]
    with mpmath.workdps(60):
        x = e - mpmath.mpf("1e-20")
    assert float(law.pdf(x, dps=50)) == pytest.approx(1.2846357439406578e-12, rel=1e-12)


def test_pdf_dps50_just_inside_an_mp_edge_generic_route():
    law = generic_mp(sp.Rational(1, 2))
    b = law.support(dps=50)[0][1]
    with mpmath.workdps(60):
        x = b - mpmath.mpf("1e-25")
        y = mpmath.mpf(1) / 2
        a_, b_ = (1 - mpmath.sqrt(y)) ** 2, (1 + mpmath.sqrt(y)) ** 2
        ref = mpmath.sqrt((b_ - x) * (x - a_)) / (2 * mpmath.pi * y * x)
    with mpmath.workdps(50):
        assert abs(law.pdf(x, dps=50) / ref - 1) < mpmath.mpf(10) ** -40


# --- 4. G exactly on the support's boundary ----------------------------------------
def test_cauchy_on_the_semicircle_edge_is_the_double_root():
    sc = Semicircle(1)
    assert sc.cauchy_transform(2.0) == 1.0
    assert sc.cauchy_transform(2.0, dps=30) == 1
    assert sc.cauchy_transform(-2.0) == -1.0
    generic = AlgebraicLaw(G**2 - z * G + 1)
    assert generic.cauchy_transform(2.0) == pytest.approx(1.0, rel=1e-15)
    assert generic.cauchy_transform(2.0).imag == 0
    with mpmath.workdps(30):
        assert abs(generic.cauchy_transform(2.0, dps=30) - 1) < mpmath.mpf(10) ** -29


def test_cauchy_on_the_attention_and_mp_edges():
    law = attention_law(1, 1)
    e = law.support()[-1][1]
    g = law.cauchy_transform(e)
    assert g.imag == 0 and g.real == pytest.approx(0.18191978849533374, rel=1e-15)
    law = generic_mp(sp.Rational(1, 2))
    a, b = law.support()[0]
    # r = 0 at the edges in G = 2/(z + y − 1 + r): G(b) = 2/(b − 1/2)
    assert law.cauchy_transform(b) == pytest.approx(2 / (b - 0.5), rel=1e-15)
    assert law.cauchy_transform(a) == pytest.approx(2 / (a - 0.5), rel=1e-15)


# --- 5. the Stieltjes sheet next to an atom --------------------------------------------
@pytest.mark.parametrize("law", [MarchenkoPastur(2), generic_mp(2)], ids=["closed", "generic"])
def test_wrong_sheet_near_zero(law):
    g = law.cauchy_transform(1e-12j)
    assert g.imag < 0
    # G(iε) = (1 − 1/y)/(iε) + G_ac(0); G_ac(0) = −1/(y − 1)·… : closed form 2/(s + r) at z = iε
    with mpmath.workdps(40):
        zz = mpmath.mpc(0, mpmath.mpf("1e-12"))
        a, b = (1 - mpmath.sqrt(2)) ** 2, (1 + mpmath.sqrt(2)) ** 2
        s, r = zz + 1, mpmath.sqrt(zz - a) * mpmath.sqrt(zz - b)
        ref = complex((s - r) / (4 * zz))
    assert g == pytest.approx(ref, rel=1e-12)
    assert ref == pytest.approx(-0.5 - 5e11j, rel=1e-12)


def test_sheet_near_an_atom_of_a_product():
    law = free_multiplicative_convolution(MarchenkoPastur(2), MarchenkoPastur(3))
    for eps in (1e-6, 1e-10, 1e-14):
        g = law.cauchy_transform(1j * eps)
        assert g.imag < 0
        assert (1j * eps * g).real == pytest.approx(2 / 3, abs=1e-3)


# --- 6. near-degenerate laws end, with the right value ----------------------------------
def test_near_degenerate_mp_ends_with_the_right_value():
    ref = math.sqrt(3) / (2 * math.pi)  # the limit y → 1 at x = 1
    assert MarchenkoPastur(1.000000000001).pdf(1.0) == pytest.approx(ref, rel=1e-11)
    law = generic_mp(1.000000000001)
    assert law.pdf(1.0) == pytest.approx(ref, rel=1e-11)
    assert total_mass(law) == pytest.approx(1.0, abs=1e-10)


def test_boxtimes_mp2_mp2_pdf_ends():
    law = free_multiplicative_convolution(MarchenkoPastur(2), MarchenkoPastur(2))
    coeffs = lambda x: [4 * x**2, -4 * x, 1 - x, 1]  # noqa: E731
    assert law.pdf(1.0) == pytest.approx(float(stieltjes_root(coeffs, 1.0)), rel=1e-13)


# --- 7. quantiles in the far tails --------------------------------------------------------
def mp1_ppf_reference(q):
    """Invert F(x) = [√(x(4 − x)) + 4 asin(√x/2)]/(2π) (MP_1) at 40 digits."""
    with mpmath.workdps(40):
        q = mpmath.mpf(q)
        F = lambda x: (mpmath.sqrt(x * (4 - x)) + 4 * mpmath.asin(mpmath.sqrt(x) / 2)) / (2 * mpmath.pi)  # noqa: E731
        rho = lambda x: mpmath.sqrt(4 - x) / (2 * mpmath.pi * mpmath.sqrt(x))  # noqa: E731
        x = (mpmath.pi * q / 2) ** 2
        for _ in range(200):  # Newton on F(x) = q (F concave: monotone from the left)
            step = (F(x) - q) / rho(x)
            x -= step
            if abs(step) < mpmath.mpf(10) ** -35 * x:
                break
        return float(x)


@pytest.mark.parametrize("law", [MarchenkoPastur(1), generic_mp(1)], ids=["closed", "generic"])
@pytest.mark.parametrize("q", [1e-20, 1e-100, 1e-250, 1e-3, 0.3])
def test_ppf_in_the_far_tail(law, q):
    x = law.ppf(q)
    assert x == pytest.approx(mp1_ppf_reference(q), rel=1e-12)
    assert law.cdf(x) == pytest.approx(q, rel=1e-12)


def test_tail_values_do_not_raise():
    law = generic_mp(1)
    assert law.pdf(1e-300) == pytest.approx(1 / (math.pi * math.sqrt(1e-300)), rel=1e-12)
    assert np.isfinite(law.ppf(1e-160)) and law.ppf(1e-160) >= 0
    assert MarchenkoPastur(1).pdf(1e-300) == pytest.approx(1 / (math.pi * 1e-150), rel=1e-12)


def test_ppf_tail_at_a_square_root_edge_away_from_zero():
    """Left edge a ≠ 0 of MP_{1/2}: the quantile of q = 1e-30 against the local law
    F(x) ≈ (2/3) c (x − a)^{3/2}, c = sqrt(b − a)/(2π y a)."""
    law = generic_mp(sp.Rational(1, 2))
    a, b = law.support()[0]
    x = law.ppf(1e-30)
    c = math.sqrt(b - a) / (2 * math.pi * 0.5 * a)
    assert x - a == pytest.approx((1.5e-30 / c) ** (2 / 3), rel=1e-6)


# --- 8. non-finite arguments -----------------------------------------------------------
@pytest.mark.parametrize("law", [MarchenkoPastur(0.5), generic_mp(sp.Rational(1, 2)), Semicircle(1),
                                 PointMass(2.0), FreePoisson(0.5)],
                         ids=["mp", "generic", "semicircle", "point", "freepoisson"])
def test_cauchy_at_infinity_is_zero(law):
    assert law.cauchy_transform(np.inf) == 0
    assert law.cauchy_transform(-np.inf) == 0
    assert law.cauchy_transform(complex(0, np.inf)) == 0
    assert law.cauchy_transform(np.inf, dps=20) == 0
    big = law.cauchy_transform(1e300)
    assert big == pytest.approx(1e-300, rel=1e-12)


def test_attention_cauchy_far_away_uses_the_moment_series():
    law = attention_law(1, 1)
    for zz in (1e10, 1e10 + 1e10j, -3e12):
        m = [law.moment(k) for k in range(4)]
        ref = sum(mk / zz ** (k + 1) for k, mk in enumerate(m))
        assert law.cauchy_transform(zz) == pytest.approx(ref, rel=1e-14)
    assert law.cauchy_transform(np.inf) == 0


# --- 9. pickling after evaluation -------------------------------------------------------
@pytest.mark.parametrize("make", [lambda: MarchenkoPastur(0.5), lambda: generic_mp(sp.Rational(1, 3)),
                                  lambda: free_multiplicative_convolution(MarchenkoPastur(2), MarchenkoPastur(3)),
                                  lambda: attention_law(1.0, 0.5)],
                         ids=["mp", "generic", "boxtimes", "attention"])
def test_laws_pickle_after_evaluation(make):
    law = make()
    a, b = law.support()[0]
    x = np.linspace(a, b, 7)[1:-1]
    before = law.pdf(x)
    law.cdf(x)
    law.pdf(float(x[2]), dps=20)
    law.cauchy_transform(1 + 1j)
    back = pickle.loads(pickle.dumps(law))
    np.testing.assert_array_equal(back.pdf(x), before)
    assert back.pdf(float(x[2]), dps=20) == law.pdf(float(x[2]), dps=20)
    fresh = pickle.loads(pickle.dumps(make()))  # and before any evaluation
    np.testing.assert_allclose(fresh.pdf(x), before, rtol=1e-14)


# --- 10. exact parameters -------------------------------------------------------------
@pytest.mark.parametrize("value", [sp.Rational(1, 10), fractions.Fraction(1, 10), decimal.Decimal("0.1")],
                         ids=["sympy", "fraction", "decimal"])
def test_exact_parameters_stay_exact(value):
    law = MarchenkoPastur(value)
    assert list(law.values.values()) == [sp.Rational(1, 10)]
    with mpmath.workdps(60):
        y = mpmath.mpf(1) / 10
        a, b = (1 - mpmath.sqrt(y)) ** 2, (1 + mpmath.sqrt(y)) ** 2
        ref = mpmath.sqrt((b - 1) * (1 - a)) / (2 * mpmath.pi * y)
    with mpmath.workdps(50):
        assert abs(law.pdf(1.0, dps=50) - ref) < mpmath.mpf(10) ** -48
        assert abs(law.support(dps=50)[0][1] - b) < mpmath.mpf(10) ** -48


def test_float_and_mpf_parameters_are_their_binary_values():
    assert list(MarchenkoPastur(0.1).values.values()) == [sp.Rational(0.1)]
    with mpmath.workdps(40):
        v = mpmath.mpf("0.1")
    law = Semicircle(v)
    (val,) = law.values.values()
    assert val != sp.Rational(1, 10) and abs(float(val) - 0.1) < 1e-40
    with mpmath.workdps(40):
        assert mpmath.mpf(val.p) / val.q == v
    quarter = decimal.Decimal("0.25")
    assert FreePoisson(quarter).rate == 0.25 and list(FreePoisson(quarter).values.values()) == [sp.Rational(1, 4)]
    # numbers only: a string is refused, numeric or not (freeattn._validation.refuse_text)
    for text in ("abc", "-0.1", "0.1"):
        with pytest.raises(TypeError, match="ratio must be a finite number > 0, not a string"):
            MarchenkoPastur(text)


# --- an edge where the branch moves fast (the multi-head layer's edge next to 0) ----------
def _mha_none(h, gamma_k, gamma_v, gamma_o):
    from freeattn import mha_output_law
    return mha_output_law(1, h, gamma_k, gamma_v, gamma_o)


def _tracked_density(law, x):
    """−Im G(x + i0)/π by continuing the branch down from far above the axis (the tracker),
    independent of the θ-table and of the nearest-root selection from the midpoint."""
    x = np.atleast_1d(np.asarray(x, float))
    g, ok = law._num.track(x, 1e-6 * np.abs(x - law.support()[0][0]))
    assert ok.all()
    g, _ = law._num.newton(g, x, steps=3)
    return -g.imag / math.pi


def test_mha_layer_edge_next_to_zero_keeps_its_mass():
    """ν_{∞,8} ⊠ MP_{1/1.5} ⊠ π_2 (Hayase & Karakida 2026 eq. (C.15)): no atom (γ_K = 1,
    γ_V, γ_O > 1), so the a.c. part carries mass 1.  Within 2e-3 of the left edge G runs from
    0.15 − 1.8i to the double root −6.44; the edge's double root and the branch next to it were
    taken from another sheet (density 0 there, mass 0.99994)."""
    law = _mha_none(8, 1, 1.5, 2)
    assert law.atoms() == []
    (a, b), = law.support()
    assert law.cdf(b) == pytest.approx(1.0, abs=1e-10)
    assert total_mass(law) == pytest.approx(1.0, abs=1e-9)
    # first moment of the quadrature against the exact moment (series)
    m1 = integrate.quad(lambda x: x * law.pdf(x), a, b, limit=400, epsabs=1e-13, epsrel=1e-12)[0]
    assert m1 == pytest.approx(float(law.moment(1)), rel=1e-9)
    x = a + np.array([1e-8, 1e-6, 1e-4, 1e-3])
    np.testing.assert_allclose(law.pdf(x), _tracked_density(law, x), rtol=1e-7)
    assert law.pdf(a + 1e-4) > 0.1


@pytest.mark.parametrize("h", [8, pytest.param(12, marks=pytest.mark.slow)])
def test_mha_layer_second_head_count_matches_the_tracked_branch(h):
    law = _mha_none(h, 1, 1.5, 2)
    (a, b), = law.support()
    assert law.cdf(b) == pytest.approx(1.0, abs=1e-10)
    x = a + np.array([1e-7, 1e-5, 1e-3])
    np.testing.assert_allclose(law.pdf(x), _tracked_density(law, x), rtol=1e-7)


# --- tied K=V layer: atom whose mass is a triple root of the Newton polygon -------------------
def _tied(h, gamma_k, gamma_o):
    from freeattn import mha_output_law
    return mha_output_law(1, h, gamma_k, gamma_k, gamma_o, sharing="tied_kv")


def _check_tied(law, gamma_k, gamma_o):
    """Atom at 0 of mass 1 − min{1, γ_K, γ_O} (Hayase & Karakida 2026 eq. (C.21); (μ ⊠ ν)({0})
    = max of the masses, Belinschi 2003), total mass 1, first moment of the quadrature equal to
    the exact moment (series)."""
    expected = 1 - min(1.0, gamma_k, gamma_o)
    atoms = law.atoms()
    if expected > 0:
        (loc, mass), = atoms
        assert loc == 0.0 and mass == pytest.approx(expected, abs=1e-12)
    else:
        assert atoms == []
    (a, b), = law.support()
    assert law.cdf(b) == pytest.approx(1.0, abs=1e-9)
    m1 = integrate.quad(lambda x: x * law.pdf(x), a, b, limit=400, epsabs=1e-12, epsrel=1e-10)[0]
    assert m1 == pytest.approx(float(law.moment(1)), rel=1e-8)


def test_tied_kv_atom_that_is_a_triple_polygon_root():
    """γ_K = γ_O = 1/2: the mass 1/2 is a triple root of the polygon, split to 0.5 ± 2e-11 at
    30 digits (was: 'the mass of the pole at 0.0 is ambiguous'); density ~ δ^{-1/2} beside it."""
    _check_tied(_tied(2, 0.5, 0.5), 0.5, 0.5)


@pytest.mark.slow
def test_tied_kv_atom_that_is_a_triple_polygon_root_h4():
    _check_tied(_tied(4, 0.5, 0.5), 0.5, 0.5)


def test_tied_kv_no_atom_at_unit_ratios():
    """γ_K = γ_O = 1: 1 − min{1, 1, 1} = 0, no atom; support from 0."""
    _check_tied(_tied(2, 1, 1), 1.0, 1.0)
    _check_tied(_tied(3, 1, 1), 1.0, 1.0)


def test_tied_kv_mean_one_cauchy_near_zero_returns():
    """w(λ) = 1 + λG(−λ) of the mean-one law at λ = 1e-3 (once hung for minutes): G(−λ) is
    real and negative (−λ lies left of the support), and |λG(−λ) + mass at 0| is below 1."""
    law = _tied(2, 0.5, 0.5)
    lm = law.dilate(1 / float(law.mean()))
    g = complex(lm.cauchy_transform(-1e-3))
    assert g.imag == 0 and g.real < 0
    # λG(−λ) → −(mass at 0) as λ → 0: an independent bound from the atom
    assert -1e-3 * g.real == pytest.approx(0.5, abs=0.05)
