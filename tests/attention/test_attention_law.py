"""The attention law ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h} against independent references.

References: MATH.md §2 moment formulas; an independent uniformisation of the law (derived in
derivations/attention_uniformization.py): with R(ζ) = θ₁ − θ₂ + θ₂/(1 − θ₂ζ/γ_K),
    z(ζ) = (1 + ζR(ζ))(1 + ζR(ζ)/h)/ζ,   G(z(ζ)) = ζ/(1 + ζR(ζ)/h),
so edges are critical values of z(ζ) (the stationary equation) and the density at x solves
z(ζ) = x; both solved here with mpmath.findroot at 30+ digits.
"""
import math
import warnings

import mpmath
import numpy as np
import pytest
from scipy import integrate

from freeattn import MarchenkoPastur, attention_law, c_beta, theta1, theta2
from freeattn.montecarlo.metrics import ks_distance

CASES = [(1.0, 1.0, 1), (1.0, 0.5, 1), (0.5, 2.0, 1), (1.0, 1.0, 4), (2.0, 2.0, 4), (0.7, 3.0, 12)]


def uniformization(beta, gamma_k, h):
    th1 = mpmath.exp(mpmath.mpf(beta) ** 2) - 1
    th2 = mpmath.mpf(beta) ** 2
    R = lambda q: th1 - th2 + th2 / (1 - th2 * q / gamma_k)  # noqa: E731
    zf = lambda q: (1 + q * R(q)) * (1 + q * R(q) / h) / q  # noqa: E731
    gf = lambda q: q / (1 + q * R(q) / h)  # noqa: E731
    return zf, gf, th2 / mpmath.mpf(gamma_k)


def reference_right_edge(beta, gamma_k, h, dps=40):
    """First positive critical point of z(ζ) below the pole of R, by bracketing + findroot."""
    with mpmath.workdps(dps):
        zf, _, c = uniformization(beta, gamma_k, h)
        dz = lambda q: mpmath.diff(zf, q)  # noqa: E731
        grid = [(1 / c) * mpmath.mpf(k) / 400 for k in range(1, 400)]
        prev = grid[0]
        for q in grid[1:]:
            if dz(prev) < 0 <= dz(q):
                root = mpmath.findroot(dz, (prev, q), solver="anderson")
                return zf(root)
            prev = q
    raise AssertionError("no critical point found")


def reference_pdf(beta, gamma_k, h, x, g0, dps=40):
    """−Im G/π at x from z(ζ) = x, started at ζ0 from a rough guess of G (any nearby point)."""
    with mpmath.workdps(dps):
        zf, gf, _ = uniformization(beta, gamma_k, h)
        x = mpmath.mpf(x)
        w0 = x * g0 - 1
        q0 = mpmath.mpc(g0) * (1 + w0 / h)
        q = mpmath.findroot(lambda q: zf(q) - x, q0)
        return float(-mpmath.im(gf(q)) / mpmath.pi)


@pytest.mark.parametrize("beta,gamma_k,h", CASES)
def test_moments_match_math_md(beta, gamma_k, h):
    law = attention_law(beta, gamma_k, h)
    th1, th2 = theta1(beta), theta2(beta)
    assert law.moment(1) == pytest.approx(th1, rel=1e-14)
    assert law.moment(2) == pytest.approx((1 + 1 / h) * th1**2 + th2**2 / gamma_k, rel=1e-13)
    c = c_beta(beta)
    m3 = 1 + 3 * (1 / h + c**2 / gamma_k) + 1 / h**2 + 3 * c**2 / (gamma_k * h) + c**3 / gamma_k**2
    assert law.moment(3) / th1**3 == pytest.approx(m3, rel=1e-13)


@pytest.mark.parametrize("beta,gamma_k,h", CASES)
def test_mass_one_and_moments_by_quadrature(beta, gamma_k, h):
    law = attention_law(beta, gamma_k, h)
    atoms = sum(m for _, m in law.atoms())
    mass = atoms
    m1 = sum(m * a for a, m in law.atoms())
    for a, b in law.support():
        val, _ = integrate.quad(law.pdf, a, b, limit=400, epsabs=1e-14, epsrel=1e-13)
        mass += val
        v1, _ = integrate.quad(lambda x: x * law.pdf(x), a, b, limit=400, epsrel=1e-12)
        m1 += v1
    assert mass == pytest.approx(1.0, abs=1e-10)
    assert m1 == pytest.approx(theta1(beta), rel=1e-9)
    assert law.cdf(law.support()[-1][1] * 2) == pytest.approx(1.0, abs=1e-10)
    x = np.linspace(-1, law.support()[-1][1] * 1.2, 3001)
    assert np.all(law.pdf(x) >= 0)


@pytest.mark.parametrize("beta,gamma_k,h", CASES[:4])
def test_right_edge_exceeds_mp_and_matches_30_digits(beta, gamma_k, h):
    law = attention_law(beta, gamma_k, h)
    edge30 = law.support(dps=30)[-1][1]
    ref = reference_right_edge(beta, gamma_k, h)
    with mpmath.workdps(40):
        assert abs(edge30 - ref) <= mpmath.mpf(10) ** -28 * ref
    edge = law.support()[-1][1]
    assert edge == pytest.approx(float(ref), rel=1e-14)
    if h == 1:
        assert edge > 4 * theta1(beta)  # not Marchenko–Pastur: i.i.d. edge is 4θ₁


def test_pdf_matches_uniformization_and_mp_route():
    beta, gamma_k, h = 1.0, 1.0, 1
    law = attention_law(beta, gamma_k, h)
    a, b = law.support()[0]
    x = np.concatenate([np.linspace(a, b, 41)[1:-1], [b * (1 - 1e-6), b * (1 - 1e-9), 1e-8]])
    pdf = law.pdf(x)
    g = law.cauchy_transform(x)
    ref = np.array([reference_pdf(beta, gamma_k, h, xi, gi) for xi, gi in zip(x, g)])
    np.testing.assert_allclose(pdf, ref, rtol=1e-10)
    # double vs dps=30 on the same grid, points next to the edges included
    with mpmath.workdps(40):
        hp = np.array([float(v) for v in law.pdf(x, dps=30)])
    np.testing.assert_allclose(pdf, hp, rtol=1e-12)
    np.testing.assert_allclose(hp, ref, rtol=1e-12)


def test_pdf_outside_support_zero_and_no_warnings():
    law = attention_law(1.0, 1.0, 4)
    a, b = law.support()[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vals = law.pdf(np.array([-10.0, a - 1e-9, b + 1e-9, 1e6]))
    assert np.all(vals == 0.0)


@pytest.mark.parametrize("kwargs,name", [
    (dict(beta=0, gamma_k=1), "beta"), (dict(beta=-1, gamma_k=1), "beta"),
    (dict(beta=float("nan"), gamma_k=1), "beta"), (dict(beta=1, gamma_k=0), "gamma_k"),
    (dict(beta=1, gamma_k=float("nan")), "gamma_k"), (dict(beta=1, gamma_k=1, heads=0), "heads"),
    (dict(beta=1, gamma_k=1, heads=1.5), "heads"), (dict(beta=4.5, gamma_k=1), "beta"),
    (dict(beta=1e-3, gamma_k=1), "beta"), (dict(beta=1, gamma_k=1e-300), "gamma_k"),
    (dict(beta=1, gamma_k=1e300), "gamma_k"), (dict(beta=1, gamma_k=1, heads=10**6), "heads"),
])
def test_invalid_parameters(kwargs, name):
    with pytest.raises(ValueError, match=name):
        attention_law(**kwargs)


@pytest.mark.parametrize("kwargs", [dict(beta="1", gamma_k=1), dict(beta=1, gamma_k=True),
                                    dict(beta=1, gamma_k=1, heads="2")])
def test_non_numbers_are_refused(kwargs):
    with pytest.raises(TypeError, match="real number"):
        attention_law(**kwargs)


@pytest.mark.parametrize("beta,gamma_k,h", [(0.01, 0.001, 1), (0.01, 1000, 3), (4.0, 0.001, 1),
                                            (4.0, 0.5, 3), (0.1, 1, 2), (4.0, 1.0, 5)])
def test_corners_of_the_domain_have_mass_one(beta, gamma_k, h):
    """Regression: β = 0.1 lost 2e-8 of mass (θ-panels now adaptive) and β = 4 had its edge
    wrong by 4e-10 relative (breakpoints now found at twice the working precision)."""
    law = attention_law(beta, gamma_k, h)
    edge = law.support()[-1][1]
    assert law.cdf(2 * edge) == pytest.approx(1.0, abs=1e-12)
    assert law.moment(1) == pytest.approx(theta1(beta), rel=1e-12)
    with mpmath.workdps(70):
        e30, e60 = law.support(dps=30)[-1][1], law.support(dps=60)[-1][1]
        assert abs(e30 - e60) <= mpmath.mpf(10) ** -28 * e60


def test_small_monte_carlo_softmax_and_gaussian_match_not_mp():
    """n = 600, β = 1, γ_K = 1, seed 1.  Measured: softmax KS 0.031 (top 3 removed),
    Gaussian model KS 0.0055; θ₁·MP₁ (same mean, i.i.d. entries) gives 0.079 and 0.051."""
    n, beta = 600, 1.0
    rng = np.random.default_rng(1)
    Q = rng.standard_normal((n, n))
    K = rng.standard_normal((n, n))
    W = rng.standard_normal((n, n))
    S = Q @ K.T / math.sqrt(n)
    E = beta * S
    E -= E.max(axis=1, keepdims=True)
    A = np.exp(E)
    A /= A.sum(axis=1, keepdims=True)
    Ac = A - 1.0 / n
    ev_soft = np.linalg.eigvalsh(n * Ac @ Ac.T)[:-3]
    th1, th2 = theta1(beta), theta2(beta)
    Y = (beta * S + math.sqrt(th1 - th2) * W) / math.sqrt(n)
    ev_gauss = np.linalg.eigvalsh(Y @ Y.T)
    law = attention_law(beta, 1.0)
    mp = MarchenkoPastur(1.0).dilate(th1)
    ks_soft, ks_gauss = ks_distance(ev_soft, law), ks_distance(ev_gauss, law)
    assert ks_soft < 0.045
    assert ks_gauss < 0.015
    assert ks_distance(ev_soft, mp) > 0.06 and ks_distance(ev_gauss, mp) > 0.04
    assert ks_distance(ev_soft, mp) > 2 * ks_soft and ks_distance(ev_gauss, mp) > 5 * ks_gauss


@pytest.mark.parametrize("beta,gamma_k,h", [(0.1, 1.0, 64), (4.0, 1.0, 5), (4.0, 7.0, 64)])
def test_float_pdf_next_to_edges_matches_30_digits(beta, gamma_k, h):
    """Regression: at (0.1, 1, 64) the local edge expansion was built on the wrong double root
    (7e-9 relative error 1e-12 from the edge); at β = 4 the edges were off by 4e-10."""
    law = attention_law(beta, gamma_k, h)
    for a, b in law.support():
        w = b - a
        xs = [b * (1 - 1e-9), b - 1e-7 * w, a + 1e-6 * w, a + 1e-12 * w]
        if a > 0:
            xs.append(a * (1 + 1e-9))
        for x in xs:
            ref = float(law.pdf(x, dps=30))
            assert law.pdf(x) == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("beta,gamma_k,h,soft_tol", [(1.0, 1.0, 4, 0.06), (0.5, 2.0, 3, 0.02)])
def test_multi_head_law_against_simulation(beta, gamma_k, h, soft_tol):
    """ν_{∞,h} against one n = 600 draw of sqrt(n/h)[A_1^⊥, …, A_h^⊥] (seed 0).
    Measured KS: (1, 1, 4) softmax 0.042, Gaussian 0.0054; (0.5, 2, 3) 0.0068 and 0.0063.
    The i.i.d. alternative θ₁·MP_{1/h} (same mean, same shape n × hn) must do worse."""
    from freeattn.montecarlo import AttentionModel, sample

    draw = sample(AttentionModel.from_ratios(beta, 600, gamma_k, h), 0)
    law = attention_law(beta, gamma_k, h)
    ks_gauss, ks_soft = ks_distance(draw.gaussian, law), ks_distance(draw.softmax, law)
    assert ks_gauss < 0.015
    assert ks_soft < soft_tol
    iid = MarchenkoPastur(1 / h).dilate(theta1(beta))
    assert ks_distance(draw.gaussian, iid) > 3 * ks_gauss


def test_components_at_scales_1e5_apart_are_all_found():
    """heads = 10 000, γ_K = 0.0153: the atom 1 − γ_K of ρ at θ₁ − θ₂ ≈ 1.9e-6 becomes a
    component of that mass (width ±2 %, density ~1.7e7) beside the bulk near 0.1: both are
    reported, with mass 1 − γ_K and total mass 1, and m₁, m₂ from the density are exact."""
    beta, gamma_k = 0.04391137002802402, 0.015313800132057815
    law = attention_law(beta, gamma_k, heads=10000)
    (a1, b1), (a2, b2) = law.support()
    th1, th2 = theta1(beta), theta2(beta)
    assert a1 < th1 - th2 < b1 < 1e-5 < a2
    assert law.cdf(b1) == pytest.approx(1 - gamma_k, abs=1e-12)
    m0 = m1 = m2 = 0.0
    for a, b in law.support():
        for k in range(3):
            v = integrate.quad(lambda x: x**k * law.pdf(x), a, b, limit=400, epsabs=0, epsrel=1e-13)[0]
            m0, m1, m2 = (m0 + v, m1, m2) if k == 0 else (m0, m1 + v, m2) if k == 1 else (m0, m1, m2 + v)
    assert m0 == pytest.approx(1.0, abs=1e-10)
    h = 10000
    assert m1 == pytest.approx(th1, rel=1e-9)
    assert m2 == pytest.approx((1 + 1 / h) * th1**2 + th2**2 / gamma_k, rel=1e-9)


def test_new_parameter_point_redoes_no_exact_algebra():
    """A new (β, γ_K) of an already-eliminated structure evaluates the cached canonical
    discriminant numerically: no new sympy discriminant/factorisation is computed."""
    from freeattn.algebraic import discriminant

    attention_law(1.0, 1.0, 2).support()
    before = discriminant._disc_cached.cache_info().misses
    law = attention_law(0.8123456789, 0.4321, 2)
    sup = law.support()
    assert discriminant._disc_cached.cache_info().misses == before
    assert law.cdf(sup[-1][1]) == pytest.approx(1.0, abs=1e-12)
