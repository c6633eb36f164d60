"""θ-tables + atoms → cdf, sf, ppf, isf (freeattn.quadrature.tables): the one implementation.

The generic interface is checked on a law assembled by hand from a closed-form density (the
semicircle, the arcsine law) with atoms, against the closed-form cdf; the faults of issue 21
(items 1, 2, 5, 6) are pinned on the laws that showed them, each with a second instance, the
right values computed independently (closed forms integrated by mpmath at 40 digits)."""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import pytest

from freeattn import MarchenkoPastur, MHAConfig, Semicircle, attention_law, mha_output_law
from freeattn.laws import AlgebraicLaw
from freeattn.quadrature.ends import end_rule, end_zone
from freeattn.quadrature.tables import (Interval, MpInterval, Side, cdf_sf, compensated_cumsum,
                                        quantile)
from freeattn.quadrature.theta import adaptive_panels, graded_half_panels


# ------------------------------------------------------------ a law assembled by hand
def _semicircle_u(r, w, u):
    """θ-integrand of w × the semicircle of radius r in the distance coordinate u from either
    end (symmetric): w ρ(x) x′(u) with x = −r + 2r sin²(u/2)."""
    x_minus_a = 2 * r * np.sin(0.5 * u) ** 2
    b_minus_x = 2 * r - x_minus_a
    rho = np.sqrt(x_minus_a * b_minus_x) * 2 / (math.pi * r * r)
    return w * rho * r * np.sin(u)


def _side(f, m=1):
    edges, masses = adaptive_panels(f, graded_half_panels(8), nodes=12, atol=1e-17,
                                    rtol=1e-15, max_levels=30)
    return Side(edges, masses, functools.partial(end_rule, f, m=m, nodes=12), f)


def _semicircle_interval(r, shift, w):
    f = functools.partial(_semicircle_u, r, w)
    return Interval(shift - r, shift + r, _side(f), _side(f))


def _semicircle_cdf(r, x):
    t = np.clip(x / r, -1, 1)
    return 0.5 + (t * np.sqrt(1 - t * t) + np.arcsin(t)) / math.pi


def _semicircle_sf_mp(d):
    """μ((1 − d, 1]) of the unit semicircle at 40 digits."""
    with mpmath.workdps(40):
        return mpmath.quad(lambda t: 2 / mpmath.pi * mpmath.sqrt(1 - t * t), [1 - mpmath.mpf(d), 1])


def test_generic_interface_reproduces_a_closed_form_with_atoms_and_two_intervals():
    """w₁ × semicircle(1) at −3, w₂ × semicircle(1) at +3, atoms at 0 and 5: cdf, sf, ppf,
    isf against the closed form."""
    w1, w2, a0, a5 = 0.3, 0.5, 0.15, 0.05
    ivs = [_semicircle_interval(1.0, -3.0, w1), _semicircle_interval(1.0, 3.0, w2)]
    atoms = [(0.0, a0), (5.0, a5)]
    x = np.array([-5, -4, -3.7, -3.0, -2.01, -2, -1, 0, 0.5, 2.2, 3.4, 3.999, 4, 5, 6.0])

    def exact(x):
        return (w1 * _semicircle_cdf(1, x + 3) + w2 * _semicircle_cdf(1, x - 3)
                + a0 * (x >= 0) + a5 * (x >= 5))

    F = cdf_sf(x, atoms, ivs)
    S = cdf_sf(x, atoms, ivs, upper=True)
    assert np.allclose(F, exact(x), rtol=0, atol=1e-15)
    assert np.allclose(S, 1 - exact(x), rtol=0, atol=1e-15)
    assert F[0] == 0.0 and S[0] == 1.0 and F[-1] == 1.0 and S[-1] == 0.0
    q = np.array([0.1, 0.3, 0.46, 0.9])
    assert np.allclose(exact(quantile(q, atoms, ivs)), q, rtol=1e-13, atol=0)
    x_tail = quantile(np.array([1e-12]), atoms, ivs)[0]  # w₁'s left tail at −4 (symmetric)
    assert float(w1 * _semicircle_sf_mp(x_tail + 4.0)) == pytest.approx(1e-12, rel=1e-12)
    assert quantile(np.array([0.0, 0.3 + 0.15, 0.95 + 1e-9, 1.0]), atoms, ivs).tolist() == [
        -4.0, 0.0, 5.0, 5.0]
    # isf: inside the atom at 5; small p from the right end of w₂'s semicircle (atoms moved
    # left): sf(isf(p)) = p up to the density times an ulp of x
    assert quantile(np.array([0.03]), atoms, ivs, upper=True)[0] == 5.0
    p = np.array([1e-20, 1e-12, 1e-6])
    xs = quantile(p, [(0.0, a0 + a5)], ivs, upper=True)
    for xi, pi in zip(xs, p):
        d = 4.0 - xi
        slack = w2 * 2 / math.pi * math.sqrt(2 * d) * 2 * np.spacing(xi)
        assert abs(float(w2 * _semicircle_sf_mp(d)) - pi) <= slack + 1e-13 * pi


def test_mp_interval_matches_the_float_tables():
    """The same combination (atoms, L/(L + R)) at 30 digits from MpInterval's integrals."""
    r = mpmath.mpf(1)
    with mpmath.workdps(40):
        def lower(th):
            return mpmath.quad(lambda t: 2 / mpmath.pi * mpmath.sin(t) ** 2, [0, th])

        def upper(th):
            return mpmath.quad(lambda t: 2 / mpmath.pi * mpmath.sin(t) ** 2, [th, mpmath.pi])

        iv = MpInterval(-r, r, mpmath.mpf(1) - mpmath.mpf("0.25"),
                        lambda th: (1 - mpmath.mpf("0.25")) * lower(th),
                        lambda th: (1 - mpmath.mpf("0.25")) * upper(th))
        x = np.array([mpmath.mpf("-0.5"), mpmath.mpf("0.999999")], dtype=object)
        F = cdf_sf(x, [(mpmath.mpf(2), mpmath.mpf("0.25"))], [iv])
        S = cdf_sf(x, [(mpmath.mpf(2), mpmath.mpf("0.25"))], [iv], upper=True)
        for xi, Fi, Si in zip(x, F, S):
            t = xi
            ex = mpmath.mpf("0.75") * (mpmath.mpf(1) / 2 + (t * mpmath.sqrt(1 - t * t)
                                                             + mpmath.asin(t)) / mpmath.pi)
            assert abs(Fi - ex) <= mpmath.mpf(10) ** -30
            assert abs(Si - (1 - ex)) <= mpmath.mpf(10) ** -30 * (1 - ex)


def test_end_rule_in_s_integrates_an_inverse_power_at_the_end():
    """∫_0^h u^{-1/2} du = 2√h: the rule in s (m = 2: u = h s², analytic) to the ulp, plain
    Gauss–Legendre far from it; end_zone converges to the same."""
    f = lambda u: u ** -0.5  # noqa: E731
    h = 1e-3
    assert end_rule(f, np.array([0.0]), np.array([h]), 2, 12)[0] == pytest.approx(2 * math.sqrt(h), rel=4e-16)
    assert abs(end_rule(f, np.array([0.0]), np.array([h]), 1, 12)[0] / (2 * math.sqrt(h)) - 1) > 1e-3
    edges, masses = end_zone(f, 2, h, 12, 1e-18, 4e-16, 40)
    assert edges[0] == 0.0 and edges[-1] == h
    assert math.fsum(masses) == pytest.approx(2 * math.sqrt(h), rel=1e-15)


# ------------------------------------------------------------ issue 21, item 1
def _mp1_sf_exact(x):
    """sf of MP(1) at the double x near 4: ∫_x^4 sqrt((4 − t)/t)/(2π) dt at 40 digits."""
    with mpmath.workdps(40):
        xm = mpmath.mpf(x)
        return mpmath.quad(lambda t: mpmath.sqrt((4 - t) / t) / (2 * mpmath.pi), [xm, 4])


def test_sf_upper_tail_full_relative_accuracy_mp1():
    """Issue 21 item 1: sf from the right end, not 1 − cdf.  MarchenkoPastur(1).sf(4 − 1e-12)
    (the double 4 − 1.0000889e-12: 5.30587e-20; 5.3052e-20 is for the exact 4 − 1e-12) and
    isf(1e-20) = 3.99999999999967124874804647831, float64 and dps=30."""
    law = MarchenkoPastur(1)
    x = 4 - 1e-12
    exact = _mp1_sf_exact(x)
    assert law.sf(x) == pytest.approx(float(exact), rel=1e-13)
    assert float(exact) == pytest.approx(5.3052e-20 * ((4 - x) / 1e-12) ** 1.5, rel=1e-4)
    with mpmath.workdps(30):
        right = mpmath.mpf("3.99999999999967124874804647831")
    assert law.isf(1e-20) == pytest.approx(float(right), rel=2e-16, abs=0)
    with mpmath.workdps(30):
        v = law.isf(1e-20, dps=30)
        assert abs(v - right) <= mpmath.mpf(10) ** -28 * 4
        s30 = law.sf(x, dps=30)
    assert abs(s30 - exact) <= mpmath.mpf(10) ** -27 * exact


def test_sf_upper_tail_full_relative_accuracy_second_instances():
    """The same kind on the semicircle (right end 2) and a generic algebraic law (the
    MP(1/2) polynomial through AlgebraicLaw's own route: right end (1 + √½)²)."""
    sc = Semicircle(1)
    for d in (1e-6, 1e-10, 1e-14):
        x = 2 - d
        with mpmath.workdps(40):
            exact = mpmath.quad(lambda t: mpmath.sqrt(4 - t * t) / (2 * mpmath.pi), [mpmath.mpf(x), 2])
        assert sc.sf(x) == pytest.approx(float(exact), rel=1e-12)
        assert sc.isf(float(exact)) == pytest.approx(x, rel=0, abs=4e-16 * 4)
    gen = AlgebraicLaw(MarchenkoPastur(0.5).polynomial)
    b = (1 + math.sqrt(0.5)) ** 2
    with mpmath.workdps(40):
        bm = (1 + mpmath.sqrt(mpmath.mpf(1) / 2)) ** 2
        am = (1 - mpmath.sqrt(mpmath.mpf(1) / 2)) ** 2
        for d in (1e-4, 1e-9, 1e-13):
            x = b - d
            ex = mpmath.quad(lambda t: mpmath.sqrt((bm - t) * (t - am)) / (mpmath.pi * t),
                             [mpmath.mpf(x), bm])
            assert gen.sf(x) == pytest.approx(float(ex), rel=1e-12)


# ------------------------------------------------------------ issue 21, item 2
def test_sf_on_laws_with_two_support_components_bert_base():
    """Issue 21 item 2 (the engine issue's sf fault): bert-base's layer law has two support
    tables meeting at a cusp; sf(1.0) raised StopIteration, sf(−1.0) gave 0.887.  Right:
    sf(−1) = 1 and sf + cdf = 1 at points in both components, sf against the 20-digit route."""
    law = MHAConfig.preset("bert-base").law()
    assert len(law._tables) == 2
    assert law.sf(-1.0) == 1.0 and law.cdf(-1.0) == 0.0
    for t in law._tables:
        x = np.linspace(t["a"], t["b"], 9)[1:-1]
        assert np.all(np.abs(law.sf(x) + law.cdf(x) - 1) <= 2.3e-16)
    s1 = law.sf(1.0)
    assert float(law.sf(1.0, dps=20)) == pytest.approx(s1, rel=1e-13)


def test_sf_on_laws_with_two_disjoint_components():
    """Second instance: attention_law(0.3, 0.1, 8) has two disjoint support intervals; sf and
    cdf add to 1 in each and in the gap, sf(left of all) = 1, sf(right of all) = 0."""
    law = attention_law(0.3, 0.1, 8)
    sup = law.support()
    assert len(sup) == 2
    gap = 0.5 * (sup[0][1] + sup[1][0])
    pts = np.concatenate([np.linspace(*sup[0], 7)[1:-1], [gap], np.linspace(*sup[1], 7)[1:-1]])
    assert np.all(np.abs(law.sf(pts) + law.cdf(pts) - 1) <= 2.3e-16)
    assert law.sf(sup[0][0] - 1) == 1.0 and law.sf(sup[1][1] + 1) == 0.0
    assert float(law.sf(gap, dps=20)) == pytest.approx(law.sf(gap), rel=1e-13)


# ------------------------------------------------------------ issue 21, item 5
@pytest.mark.parametrize("args", [(0.6036469156149744, 22.179325848091782), (2.0, 0.5, 3)])
def test_cdf_exactly_one_beyond_the_support(args):
    """Issue 21 item 5: beyond the support cdf is exactly 1 and sf exactly 0 (left of it 0
    and 1), float64 and at dps=20; attention_law(0.6036…, 22.179…) right edge
    1.8117657063164523 gave cdf(edge·(1 + 1e-9)) = 1 − 3e-16."""
    law = attention_law(*args)
    a, b = law.support()[0][0], law.support()[-1][1]
    if args[0] == 0.6036469156149744:
        assert b == 1.8117657063164523
    right = np.array([b * (1 + 1e-9), np.nextafter(b, np.inf), b + 1.0])
    left = np.array([a - abs(a) * 1e-9 - 1e-300, a - 1.0])
    assert np.all(law.cdf(right) == 1.0) and np.all(law.sf(right) == 0.0)
    assert np.all(law.cdf(left) == 0.0) and np.all(law.sf(left) == 1.0)
    assert law.cdf(float(right[0]), dps=20) == 1 and law.sf(float(right[0]), dps=20) == 0
    assert law.cdf(float(left[1]), dps=20) == 0 and law.sf(float(left[1]), dps=20) == 1


# ------------------------------------------------------------ issue 21, item 6
@pytest.mark.parametrize("make", [lambda: AlgebraicLaw(MarchenkoPastur(0.5).polynomial),
                                  lambda: attention_law(1.0, 1.0)], ids=["mp-generic", "attention"])
def test_cdf_monotone_to_the_ulp(make):
    """Issue 21 item 6: cdf never decreases (sf never increases) between neighbouring doubles:
    the pair of the report (MP(0.5) at 2.856400956850558, here through the algebraic route)
    and 200 random neighbouring pairs, seeded."""
    law = make()
    a, b = law.support()[0][0], law.support()[-1][1]
    rng = np.random.default_rng(21)
    x = np.sort(np.concatenate([[2.856400956850558], a + (b - a) * rng.random(199)]))
    pairs = np.column_stack([x, np.nextafter(x, np.inf)]).reshape(-1)
    F, S = law.cdf(pairs).reshape(-1, 2), law.sf(pairs).reshape(-1, 2)
    assert np.all(F[:, 1] >= F[:, 0]) and np.all(S[:, 1] <= S[:, 0])
    assert np.all(np.diff(law.cdf(pairs)) >= 0)


def test_quantile_below_the_first_double_inside_an_end():
    """A positive mass from an end lies strictly inside it: a semicircle on [3, 5] (ends
    ≠ 0, ulp 4.4e-16 there), ppf(1e-300) and isf(1e-300) are the first doubles inside (the
    mass up to them, ~1e-23, is above 1e-300; the distance a + δ rounded onto a before, and
    cdf(ppf(q)) was 0 < q: FreePoisson(13.25).ppf(1e-300))."""
    iv = _semicircle_interval(1.0, 4.0, 1.0)
    x = quantile(np.array([1e-300, 0.0]), [], [iv])
    assert x[0] == np.nextafter(3.0, 4.0) and x[1] == 3.0
    assert cdf_sf(x[:1], [], [iv])[0] > 1e-300
    y = quantile(np.array([1e-300, 0.0]), [], [iv], upper=True)
    assert y[0] == np.nextafter(5.0, 4.0) and y[1] == 5.0
    assert cdf_sf(y[:1], [], [iv], upper=True)[0] > 1e-300
    # the correction of a rounded end: the first double with a positive distance to the
    # exact end (here 1.5 ulp above the double 3.0)
    f = functools.partial(_semicircle_u, 1.0, 1.0)
    shifted = Interval(3.0, 5.0, _side(f), _side(f), corr=(-1.5 * np.spacing(3.0), 0.0))
    x = quantile(np.array([1e-300]), [], [shifted])[0]
    assert x == np.nextafter(np.nextafter(3.0, 4.0), 4.0)


# ------------------------------------------------------------ issue 21, items 6 and 17
@pytest.mark.parametrize("make", [lambda: AlgebraicLaw(MarchenkoPastur(0.5).polynomial),
                                  lambda: attention_law(1.0, 1.0)], ids=["mp-generic", "attention"])
def test_answers_do_not_depend_on_the_other_points_of_the_call(make):
    """Issue 21 item 17: cdf, sf, pdf and ppf of an array equal the elementwise calls bit for
    bit, and stay so after other calls on the law (no running max over the call, each
    quantile iteration converges per target)."""
    law = make()
    a, b = law.support()[0][0], law.support()[-1][1]
    rng = np.random.default_rng(17)
    x = a + (b - a) * rng.random(40)
    q = np.concatenate([rng.random(30), 10.0 ** -rng.uniform(3, 60, 10)])
    batch = {m: getattr(law, m)(x) for m in ("cdf", "sf", "pdf")}
    batch["ppf"] = law.ppf(q)
    law.cdf(np.linspace(a, b, 500))
    law.ppf(np.linspace(0.0, 1.0, 301))
    for m in ("cdf", "sf", "pdf"):
        alone = np.array([float(getattr(law, m)(v)) for v in x])
        assert np.array_equal(batch[m], alone), m
        assert np.array_equal(getattr(law, m)(x), alone), m
    assert np.array_equal(batch["ppf"], np.array([float(law.ppf(v)) for v in q]))


@pytest.mark.parametrize("make", [lambda: AlgebraicLaw(MarchenkoPastur(0.5).polynomial),
                                  lambda: attention_law(1.0, 1.0)], ids=["mp-generic", "attention"])
def test_cdf_monotone_across_the_junction_of_the_two_sides(make):
    """Issue 21 item 6: 4000 consecutive doubles around the point where an interval's two
    sides meet (L from the left end, then the left side's mass plus the right side's
    complement), each evaluated alone: cdf never decreases, sf never increases."""
    law = make()
    a, b = law.support()[0][0], law.support()[0][1]
    mid = 0.5 * (a + b)
    x = [mid]
    for _ in range(2000):
        x.append(np.nextafter(x[-1], np.inf))
        x.insert(0, np.nextafter(x[0], -np.inf))
    F = np.array([float(law.cdf(v)) for v in x])
    S = np.array([float(law.sf(v)) for v in x])
    assert np.all(np.diff(F) >= 0) and np.all(np.diff(S) <= 0)


# ------------------------------------------------- issue 21 item 6 with a noisy rule (the tree)
def _cubic_side(noise):
    """A Side of F(u) = u³ on [0, π/2] (8 equal panels), its rule ∫_lo^hi = hi³ − lo³ times
    (1 + noise·sin(1e9·hi + 1e7·lo)): a deterministic relative error far above the increment
    of F over one 2^-26 cell (as the densities of subordination and of deep tails are); the density exact."""
    def rule(lo, hi):
        lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        return (hi ** 3 - lo ** 3) * (1.0 + noise * np.sin(1e9 * hi + 1e7 * lo))
    edges = np.linspace(0.0, 0.5 * math.pi, 9)
    return Side(edges, np.diff(edges ** 3), rule, lambda u: 3.0 * np.asarray(u) ** 2)


@pytest.mark.parametrize("noise", [0.0, 1e-10, 1e-4])
def test_side_integral_monotone_whatever_the_rule_noise(noise):
    """Side.integral is non-decreasing between neighbouring doubles and on a sorted random
    sample, with rule errors up to 1e-4 relative (the lattice of the reverted s8 tables was
    monotone only where the rule's noise stayed below its cell's increment, ~1e-7); each
    value a function of its own u (batch == elementwise bit for bit)."""
    side = _cubic_side(noise)
    rng = np.random.default_rng(6)
    starts = np.concatenate([[1e-100, 1e-8, 0.3, 0.5 * math.pi / 8, 1.2],
                             0.5 * math.pi * rng.random(5)])
    for u0 in starts:
        u = [u0]
        for _ in range(400):
            u.append(np.nextafter(u[-1], np.inf))
        F = side.integral(np.array(u))
        assert np.all(np.diff(F) >= 0), u0
    u = np.sort(np.concatenate([0.5 * math.pi * rng.random(3000), 10.0 ** -rng.uniform(1, 100, 300)]))
    F = side.integral(u)
    assert np.all(np.diff(F) >= 0)
    assert np.array_equal(F[::97], np.array([side.integral(np.array([v]))[0] for v in u[::97]]))


@pytest.mark.parametrize("noise", [0.0, 1e-10, 1e-4])
def test_side_inverse_inverts_the_tabulated_integral(noise):
    """Side.inverse inverts exactly the function Side.integral evaluates (both read the same
    tree): integral(u⁻) ≤ r ≤ integral(u⁺) at the neighbouring doubles of u = inverse(r),
    targets from 1e-300 to the whole mass, whatever the rule's noise (the reverted s8 tables
    inverted the bare rule: isf missed the tabulated sf by the rule's noise, 1e-10 to 1e-5).
    Slack: a few ulps of r, the resolution of integral in u being that of the panel position
    τ = (u − e_k)/w (one rounding: two neighbouring u may share a τ, and F ~ u³ moves by
    three ulps per ulp of u)."""
    side = _cubic_side(noise)
    rng = np.random.default_rng(60)
    r = np.concatenate([10.0 ** -rng.uniform(0, 300, 200), side.mass * rng.random(200)])
    u = side.inverse(r)
    lo = side.integral(np.nextafter(u, -np.inf))
    hi = side.integral(np.nextafter(u, np.inf))
    slack = 4 * np.finfo(float).eps
    assert np.all(lo <= r * (1 + slack)) and np.all(r * (1 - slack) <= hi)
    assert np.array_equal(u[::37], np.array([side.inverse(np.array([v]))[0] for v in r[::37]]))


def test_side_integral_keeps_full_relative_accuracy_in_the_tail():
    """The noise-free cubic side against F(u) = u³ (exact): the tree's quadratic in a leaf
    (2^-18 of a binade of the panel position) is below 1e-15 relative, down to u =
    1e-100 (the integral read from the end keeps full relative resolution in the deep tail)."""
    side = _cubic_side(0.0)
    rng = np.random.default_rng(61)
    u = np.concatenate([0.5 * math.pi * rng.random(500), 10.0 ** -rng.uniform(0, 100, 500)])
    F = side.integral(u)
    exact = np.array([float(mpmath.mpf(v) ** 3) for v in u])
    assert np.max(np.abs(F / exact - 1)) < 1e-15


def test_isf_inverts_the_tabulated_sf_where_the_density_is_noisy():
    """The reverted s8 tables (fresh-clone CI): isf(3.172026818573021e-16) of this
    mha_output_law missed sf by 2.6e-5 relative (the deep tail's density is noisy at 5e-4;
    isf inverted the bare rule, sf read the lattice).  Now sf(x⁺) ≤ q ≤ sf(x⁻) at x = isf(q)."""
    law = mha_output_law(0.9158961045128253, 1, 0.20150974381191458, 0.20150974381191458,
                         0.013818305003416378, sharing="mqa", rho=0.7405397030012019)
    for q in (3.172026818573021e-16, 1e-12, 1e-6, 0.3):
        x = float(law.isf(q))
        s = law.sf(np.array([np.nextafter(x, -np.inf), np.nextafter(x, np.inf)]))
        assert s[1] <= q * (1 + 1e-13) and q <= s[0] * (1 + 1e-13), q
