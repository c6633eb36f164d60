"""Rectangular free convolution ⊞_λ: independent references for every relation.

References used here (none of them calls the code under test): closed-form Gaussian laws
(variances add), δ₀ as the identity, Haagerup–Larsen/Benaych-Georges' λ = 1 case through the
square ⊞ of the symmetrised laws, the λ → 0 limit (⊞ of the squared laws), the
Dozier–Silverstein equation of information-plus-noise matrices solved as a cubic, exact
moments from the rectangular cumulants, finite-matrix rank counts for the atom rule, and the
algebraic route against the subordination route.
"""
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from freeattn import (Discrete, MarchenkoPastur, PointMass, Semicircle,
                      free_additive_convolution)
from freeattn._validation import ParameterError
from freeattn.convolution.rectangular import RectangularConvolution, rectangular_free_convolution
from freeattn.laws import AlgebraicLaw
from freeattn.algebraic.polynomial import G, z
from freeattn.transforms.rectangular import (moments_from_rectangular_cumulants,
                                             rectangular_cumulants_from_moments,
                                             rectangular_r_transform)


def interior(law, k=7):
    (a, b), = law.support()
    return np.linspace(a, b, k + 2)[1:-1]


# ------------------------------------------------------------------ transforms
def test_cumulants_roundtrip_exact():
    m = [Fraction(2), Fraction(7), Fraction(31), Fraction(150)]
    lam = Fraction(1, 3)
    c = rectangular_cumulants_from_moments(m, lam)
    assert moments_from_rectangular_cumulants(c, lam) == m
    assert c[0] == 2 and c[1] == 7 - (1 + lam) * 4


def test_r_transform_of_gaussian_is_linear():
    # D_{σ²} MP_λ has C(h) = σ² h (derivations/rectangular_transform.py, 3.)
    lam, s2 = 0.4, 1.7
    law = MarchenkoPastur(lam).dilate(s2)
    h = np.array([0.01, 0.02 + 0.01j, -0.015])
    np.testing.assert_allclose(rectangular_r_transform(law, h, lam), s2 * h, rtol=1e-11)


# ------------------------------------------------------------------ identities
@pytest.mark.parametrize("method", ["subordination", "algebraic"])
def test_delta0_is_identity(method):
    nu = MarchenkoPastur(Fraction(1, 2)).dilate(3)
    law = rectangular_free_convolution(PointMass(0), nu, Fraction(1, 2), method=method)
    x = interior(nu)
    np.testing.assert_allclose(law.pdf(x), nu.pdf(x), rtol=1e-12)
    np.testing.assert_allclose(law.support(), nu.support(), rtol=1e-12)


def test_delta0_identity_on_atoms():
    nu = Discrete([1.0, 2.0], [0.3, 0.7])
    law = rectangular_free_convolution(PointMass(0), nu, 0.5)
    np.testing.assert_allclose(law.atoms(), [(1.0, 0.3), (2.0, 0.7)], atol=1e-14)
    assert law.support() == []


@pytest.mark.parametrize("method", ["subordination", "algebraic"])
@pytest.mark.parametrize("lam", [Fraction(1, 2), Fraction(1, 5), Fraction(1)])
def test_gaussian_variances_add(method, lam):
    a, b = MarchenkoPastur(lam).dilate(Fraction(1, 2)), MarchenkoPastur(lam).dilate(2)
    law = rectangular_free_convolution(a, b, lam, method=method)
    ref = MarchenkoPastur(lam).dilate(Fraction(5, 2))
    x = interior(ref) if lam != 1 else np.linspace(0.05, 9.9, 7)
    np.testing.assert_allclose(law.pdf(x), ref.pdf(x), rtol=1e-11)
    assert law.support()[0][1] == pytest.approx(ref.support()[0][1], rel=1e-12)


def test_lambda_one_is_boxplus_of_symmetrised_laws():
    # δ₁ ↔ ½(δ₋₁ + δ₁), D_{σ²} MP₁ ↔ Semicircle(σ²) (quarter circle law); ρ_ν(x) = ρ_s(√x)/√x
    s2 = 0.3
    law = rectangular_free_convolution(PointMass(1), MarchenkoPastur(1).dilate(s2), 1)
    sym = free_additive_convolution(Discrete([-1.0, 1.0], [0.5, 0.5]), Semicircle(s2))
    x = interior(law, 9)
    np.testing.assert_allclose(law.pdf(x), sym.pdf(np.sqrt(x)) / np.sqrt(x), rtol=1e-10)
    b = law.support()[-1][1]
    assert np.sqrt(b) == pytest.approx(sym.support()[-1][1], rel=1e-9)


def test_lambda_to_zero_is_boxplus_of_the_laws():
    # ⊞_λ → ⊞ of the squared-singular-value laws, at rate O(λ)
    nu = MarchenkoPastur(0.5)
    ref = nu.affine(1.0, 1.0)   # δ₁ ⊞ ν
    x = np.linspace(1.2, 3.7, 6)
    errs = []
    for lam in (1e-2, 1e-3, 1e-4):
        law = rectangular_free_convolution(PointMass(1), nu, lam)
        errs.append(np.max(np.abs(law.pdf(x) - ref.pdf(x))))
    assert errs[-1] < 1e-3
    assert 5 < errs[0] / errs[1] < 20 and 5 < errs[1] / errs[2] < 20  # linear in λ


def _dozier_silverstein_density(x, lam, s2):
    """Dozier & Silverstein (2007, J. Multivariate Anal. 98, Thm 1.1) for H = δ₁:
    m = 1/(1/b − b x + σ²(1 − c)), b = 1 + σ² c m, c = λ, m(x) = ∫ dν(t)/(t − x);
    the cubic m(1 − b² x + σ²(1 − c) b) − b = 0 solved by numpy.roots, the root with
    Im m > 0; density Im m/π."""
    out = []
    for xv in x:
        b = np.array([s2 * lam, 1.0])
        poly = np.polysub(np.polymul([1.0, 0.0], np.polyadd(
            np.polysub([1.0], xv * np.polymul(b, b)), s2 * (1 - lam) * b)), b)
        roots = np.roots(poly)
        out.append(max(r.imag for r in roots) / np.pi)
    return np.array(out)


@pytest.mark.parametrize("lam,s2", [(0.5, 0.25), (0.2, 1.0), (0.9, 0.05)])
def test_information_plus_noise(lam, s2):
    law = rectangular_free_convolution(PointMass(1), MarchenkoPastur(lam).dilate(s2), lam)
    for a, b in law.support():
        x = np.linspace(a, b, 11)[1:-1]
        np.testing.assert_allclose(law.pdf(x), _dozier_silverstein_density(x, lam, s2),
                                   rtol=1e-10, atol=1e-13)


def test_information_plus_noise_monte_carlo():
    # a finite check that the normalisation is the one of X/√d + σ G/√d
    lam, s2, n = 0.5, 0.25, 400
    d = int(n / lam)
    rng = np.random.default_rng(3)
    r = np.hstack([np.eye(n), np.zeros((n, d - n))]) * np.sqrt(d)
    m = (r + np.sqrt(s2) * rng.standard_normal((n, d))) / np.sqrt(d)
    eig = np.linalg.eigvalsh(m @ m.T)
    law = rectangular_free_convolution(PointMass(1), MarchenkoPastur(lam).dilate(s2), lam)
    from freeattn.montecarlo import ks_distance
    assert ks_distance(eig, law) < 0.02


# ------------------------------------------------------------------ atoms, mass, moments
def test_atom_rule_against_rank_counts():
    lam = 0.5
    mu = Discrete([0.0, 1.0], [0.5, 0.5])
    nu = Discrete([0.0, 2.0], [0.95, 0.05])
    law = rectangular_free_convolution(mu, nu, lam)
    atoms = dict(law.atoms())
    assert atoms[0.0] == pytest.approx(0.45, abs=1e-12)
    assert atoms[1.0] == pytest.approx(0.4, abs=1e-12)
    # finite matrices in general position: the multiplicities are exactly n·mass
    n, p = 400, 800
    rng = np.random.default_rng(0)
    a = np.zeros((n, p))
    a[np.arange(n // 2), np.arange(n // 2)] = 1.0
    r = n // 20
    u = np.linalg.qr(rng.standard_normal((n, n)))[0][:, :r]
    v = np.linalg.qr(rng.standard_normal((p, p)))[0][:, :r]
    b = np.sqrt(2.0) * u @ v.T
    eig = np.linalg.eigvalsh((a + b) @ (a + b).T)
    assert np.sum(np.abs(eig) < 1e-9) == round(0.45 * n)
    assert np.sum(np.abs(eig - 1) < 1e-9) == round(0.4 * n)
    assert law.total_mass() == pytest.approx(1.0, abs=1e-9)


def test_exact_moments_match_quadrature():
    lam = Fraction(1, 3)
    law = RectangularConvolution(PointMass(1), MarchenkoPastur(Fraction(1, 2)).dilate(2), lam)
    m = law.exact_moments(3)
    for k in (1, 2, 3):
        assert law.moment(k) == pytest.approx(float(m[k - 1]), rel=1e-10)


def test_mpmath_route_polishes_float():
    law = RectangularConvolution(PointMass(1), MarchenkoPastur(0.5).dilate(0.25), 0.5)
    zq = 1.3 + 0.2j
    g30 = law.cauchy_transform(zq, dps=30)
    assert complex(g30) == pytest.approx(complex(law.cauchy_transform(zq)), rel=1e-13)


# ------------------------------------------------------------------ routes agree
def _two_point(a, b, p):
    """An algebraic two-point law p δ_a + (1 − p) δ_b (P = G(z − a)(z − b) − …)."""
    return AlgebraicLaw(G * (z - a) * (z - b) - (p * (z - b) + (1 - p) * (z - a)),
                        name=f"two-point({a}, {b}, {p})")


def _families(rng):
    def rat(lo, hi, den=8):
        return sp.Rational(int(rng.integers(lo * den, hi * den + 1)), den)

    return [
        lambda: MarchenkoPastur(rat(0.25, 2)).dilate(rat(0.25, 2)),
        lambda: PointMass(rat(0.25, 3)),
        lambda: Semicircle(rat(0.125, 0.5)).affine(rat(2.5, 4), 1),   # semicircle on (0, ∞)
        lambda: _two_point(rat(0.5, 1.5), rat(2, 3), rat(0.25, 0.75)),
        lambda: MarchenkoPastur(rat(0.5, 2)).dilate(rat(1, 2)).affine(rat(0, 1), 1),
    ]


def _pairs(count, seed):
    rng = np.random.default_rng(seed)
    fam = _families(rng)
    out = []
    for _ in range(count):
        i, j = rng.integers(0, len(fam), 2)
        lam = sp.Rational(int(rng.integers(1, 9)), 8)
        out.append((fam[i](), fam[j](), lam))
    return out


def _agree(mu, nu, lam):
    A = rectangular_free_convolution(mu, nu, lam, method="algebraic")
    S = rectangular_free_convolution(mu, nu, lam, method="subordination")
    assert len(A.support()) == len(S.support())
    np.testing.assert_allclose(np.ravel(A.support()), np.ravel(S.support()), rtol=1e-9, atol=1e-12)
    for (a1, m1), (a2, m2) in zip(A.atoms(), S.atoms()):
        assert a1 == pytest.approx(a2, abs=1e-10) and m1 == pytest.approx(m2, abs=1e-10)
    for a, b in A.support():
        x = np.linspace(a, b, 9)[1:-1]
        np.testing.assert_allclose(A.pdf(x), S.pdf(x), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mu,nu,lam", _pairs(3, 11))
def test_routes_agree_small(mu, nu, lam):
    _agree(mu, nu, lam)


@pytest.mark.slow
@pytest.mark.parametrize("mu,nu,lam", _pairs(20, 2026))
def test_routes_agree_random_pairs(mu, nu, lam):
    _agree(mu, nu, lam)


def test_left_edge_next_to_the_spurious_branch():
    # formerly the one mismatch of the 20 random pairs: the ladder was attracted to the
    # exact spurious solution u₁ = ∞, u₂ = a/8 (D = 0, G = −(1 − λ)/(λy)) and reported the
    # left edge 0.067025; the edge is the algebraic route's real critical point
    mu = _two_point(sp.Rational(11, 8), sp.Rational(11, 4), sp.Rational(3, 4))
    nu = PointMass(sp.Rational(9, 4))
    lam = sp.Rational(7, 8)
    A = rectangular_free_convolution(mu, nu, lam, method="algebraic")
    S = rectangular_free_convolution(mu, nu, lam, method="subordination")
    (a, b), = A.support()
    assert a == pytest.approx(0.06665208703112345, rel=1e-13)
    assert b == pytest.approx(8.978842441771267, rel=1e-13)
    (sa, sb), = S.support()
    assert sa == pytest.approx(a, rel=1e-9) and sb == pytest.approx(b, rel=1e-12)
    x = np.linspace(a, a * 1.05, 7)[1:]
    np.testing.assert_allclose(S.pdf(x), A.pdf(x), rtol=1e-10, atol=1e-12)
    # left of the edge the density is 0 and G is the (real) Stieltjes value
    g = S.cauchy_transform(0.066)
    assert complex(g) == pytest.approx(complex(A.cauchy_transform(0.066)), rel=1e-10)


def test_routes_agree_attention_law():
    from freeattn import attention_law
    mu = attention_law(1.0, 2.0, 1).dilate(sp.Rational(1, 4))
    _agree(PointMass(1), mu, sp.Rational(1, 2))


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("ratio", [0, 1.5, -0.2, float("nan")])
def test_bad_ratio(ratio):
    with pytest.raises(ParameterError) as e:
        rectangular_free_convolution(PointMass(1), MarchenkoPastur(0.5), ratio)
    assert e.value.param == "ratio"


def test_negative_support_refused():
    with pytest.raises(ParameterError) as e:
        rectangular_free_convolution(Semicircle(1), MarchenkoPastur(0.5), 0.5)
    assert e.value.param == "mu"


def test_bad_method():
    with pytest.raises(ParameterError) as e:
        rectangular_free_convolution(PointMass(1), MarchenkoPastur(0.5), 0.5, method="x")
    assert e.value.param == "method"
    with pytest.raises(ParameterError):
        rectangular_free_convolution(Discrete([1.0], [1.0]), MarchenkoPastur(0.5), 0.5,
                                     method="algebraic")


# ------------------------------------------------------------------ support scan
def test_gap_between_coarse_scan_points_found_on_the_tables(monkeypatch):
    # two components 0.0063 apart (the coarse scan's spacing is ~0.01 there): the coarse scan
    # alone sees one interval (missing 3e-5 of mass); the θ-table check splits it, and both
    # intervals, the gap's edges and the density agree with the algebraic route
    from freeattn.convolution import rectangular as rect

    mu = _two_point(1, sp.Rational(5, 4), sp.Rational(1, 2))
    nu = MarchenkoPastur(sp.Rational(1, 2)).dilate(sp.Rational(3, 256))
    lam = sp.Rational(1, 2)
    S = RectangularConvolution(mu, nu, lam)
    monkeypatch.setattr(rect, "_GAP_PASSES", 0)
    coarse, _ = S._scan_support(rect._SCAN_COARSE)
    monkeypatch.undo()
    assert len(coarse) == 1
    (a1, b1), (a2, b2) = S.support()
    assert 0 < a2 - b1 < 0.01
    _agree(mu, nu, lam)
    assert S.total_mass() == pytest.approx(1.0, abs=1e-12)


# ------------------------------------------------------------------ cold-start shortcuts
@pytest.mark.parametrize("shift, scale", [(0, sp.Rational(2, 3)), (sp.Rational(1, 5), sp.Rational(7, 3)),
                                          (sp.Rational(-1, 5), sp.Rational(-7, 3))])
def test_affine_input_table_from_its_base_law(shift, scale):
    # an affine image's polynomial table for the subordination inputs is its base law's,
    # mapped (no exact P(sG, (z − a)/s) built): the image's own table (exact polynomial,
    # evaluated at 40 digits) to rounding, up to the constant factor of either
    from freeattn.attention import attention_law
    from freeattn.convolution.rectangular_inputs import _poly_coefficients

    for base in (MarchenkoPastur(Fraction(1, 3)), attention_law(1, Fraction(1, 2), 3)):
        img = base.affine(shift, scale)
        mine = _poly_coefficients(img)
        assert "_num" not in img.__dict__
        ref = np.asarray(img._num.cf, dtype=complex)
        k = np.unravel_index(np.argmax(np.abs(ref)), ref.shape)
        assert mine.shape == ref.shape
        np.testing.assert_allclose(mine * (ref[k] / mine[k]), ref, rtol=1e-15,
                                   atol=1e-15 * abs(ref[k]))


@pytest.mark.parametrize("case", ["mp", "two_point", "gap"])
def test_direct_edges_equal_the_subgrid_route(case, monkeypatch):
    # edges by Newton straight from the scan bracket (then confirmed by a probe) against the
    # sub-grid route that shrinks every bracket 1024-fold first (the route before)
    from freeattn.convolution import rectangular as rect

    mu, nu, lam = {
        "mp": (MarchenkoPastur(Fraction(1, 2)), MarchenkoPastur(Fraction(1, 2)).dilate(3),
               Fraction(1, 2)),
        "two_point": (_two_point(sp.Rational(11, 8), sp.Rational(11, 4), sp.Rational(3, 4)),
                      PointMass(sp.Rational(9, 4)), Fraction(7, 8)),
        "gap": (_two_point(1, sp.Rational(5, 4), sp.Rational(1, 2)),
                MarchenkoPastur(sp.Rational(1, 2)).dilate(sp.Rational(3, 256)), Fraction(1, 2)),
    }[case]
    calls = []
    orig = RectangularConvolution._edge_from_scan

    def spy(self, *args):
        e = orig(self, *args)
        calls.append(e)
        return e

    monkeypatch.setattr(RectangularConvolution, "_edge_from_scan", spy)
    fast = RectangularConvolution(mu, nu, lam).support()
    assert any(e is not None for e in calls)  # the direct route took an edge
    monkeypatch.setattr(RectangularConvolution, "_edge_from_scan", lambda self, *a: None)
    slow = RectangularConvolution(mu, nu, lam).support()
    assert len(fast) == len(slow)
    np.testing.assert_allclose(fast, slow, rtol=4e-15, atol=1e-15)


def test_an_input_hull_that_misses_mass_is_refused(monkeypatch):
    # the inputs' hulls come from their breakpoints without their own mass checks, and bound
    # only the scan: a hull that leaves out part of an input's support either still bounds
    # the law's support (same law), or the law refuses its support (its density does not
    # vanish at the scan's end, or, the scan's end in a gap, its mass check) -- never a
    # short support
    from freeattn.convolution import rectangular as rect
    from freeattn.convolution import rectangular_inputs
    from freeattn.convolution._dispatch import hull

    def cut_hull(law_to_cut, cut):
        def short(law):
            lo, hi = hull(law)
            return (lo, cut * hi) if law is law_to_cut else (lo, hi)
        return short

    nu = MarchenkoPastur(Fraction(1, 2)).dilate(Fraction(1, 3))
    true = RectangularConvolution(PointMass(1), nu, Fraction(1, 2)).support()
    monkeypatch.setattr(rectangular_inputs, "hull", cut_hull(nu, 0.5))  # the inputs' hulls
    np.testing.assert_allclose(RectangularConvolution(PointMass(1), nu, Fraction(1, 2)).support(),
                               true, rtol=1e-14)
    monkeypatch.setattr(rectangular_inputs, "hull", cut_hull(nu, 0.2))  # the inputs' hulls
    with pytest.raises(ArithmeticError, match="does not vanish"):
        RectangularConvolution(PointMass(1), nu, Fraction(1, 2)).support()
    # two components (the gap case above): the scan ends in the gap, half the mass is missing
    mu = _two_point(1, sp.Rational(5, 4), sp.Rational(1, 2))
    nu = MarchenkoPastur(sp.Rational(1, 2)).dilate(sp.Rational(3, 256))
    monkeypatch.undo()
    (_, b1), (a2, _) = RectangularConvolution(mu, nu, sp.Rational(1, 2)).support()
    x = 0.5 * (b1 + a2) / (1 + rect._SCAN_PAD)  # the scan's end, padding included
    cut = (np.sqrt(x) - np.sqrt(hull(nu)[1])) ** 2 / hull(mu)[1]  # μ's hull cut
    assert 0 < cut < 1
    monkeypatch.setattr(rectangular_inputs, "hull", cut_hull(mu, cut))  # the inputs' hulls
    with pytest.raises(ArithmeticError, match="carry mass"):
        RectangularConvolution(mu, nu, sp.Rational(1, 2)).support()


def test_hull_of_an_affine_image_skips_the_base_mass_check():
    # hull() of an AlgebraicAffineImage maps its base law's hull from the breakpoints (its
    # _affine_source), without the base law's cdf-level mass check: that check was 0.2 s of a
    # residual law's cold build (the dilated MHA law), which checks its own mass instead
    from freeattn.attention import attention_law
    from freeattn.convolution._dispatch import hull

    base = attention_law(1, Fraction(1, 2), 3)
    img = base.dilate(Fraction(2, 3))
    lo, hi = hull(img)
    assert "_mass_verdict" not in base.__dict__ and "_mass_verdict" not in img.__dict__
    (a, b), = base.support()  # now the mass check runs, and the ends agree
    assert (lo, hi) == pytest.approx((2 / 3 * a, 2 / 3 * b), rel=1e-15)
    assert (lo, hi) == pytest.approx(img.support()[0], rel=1e-15)


def test_polish_substeps_continue_the_guess_branch(monkeypatch):
    # a long ladder step: the first-order prediction from u0 is far from G(u) (the polish
    # rule refuses it); the sub-stepped continuation from u0 gives the law's own G (all roots
    # of P, branch selection) without calling it
    from freeattn.attention import attention_law
    from freeattn.convolution import rectangular_inputs as rect

    law = attention_law(1, Fraction(1, 2), 3).dilate(Fraction(1, 6))
    inp = rect._Input(law)
    assert not inp.closed and inp.poly is not None
    (_, b), = law.support()
    u0 = np.array([0.4 * b + 1.0j * b, 0.9 * b + 1.2j * b, -0.5 * b + 0.8j * b])
    u = np.array([0.5 * b + 0.2j * b, 0.7 * b + 0.1j * b, -0.2 * b + 0.05j * b])
    g0 = law._cauchy_float(u0)
    d0 = law._cauchy_derivative_float(u0)
    truth = law._cauchy_float(u)
    start = g0 + d0 * (u - u0)
    assert np.all(np.abs(start - truth) > rect._POLISH_NEAR * np.abs(start))  # refused as before
    calls = []
    monkeypatch.setattr(rect._Input, "_fallback",
                        lambda self, g, ok, w: calls.append(int((~ok).sum())) or g)
    g, _ = inp.value(u, (u0, g0, d0))
    assert sum(calls) == 0
    np.testing.assert_allclose(g, truth, rtol=1e-13)
