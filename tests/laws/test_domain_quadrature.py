"""Moments by quadrature and the mass of laws with hard-to-integrate densities (issue 8).

The five failures of the 2000-point property test (tests/attention/test_attention_domain_random.py,
seed 20261130, draws 145, 273, 275, 992 and 1177), each with a second law of the same kind:

* an interior dip of the density (two components nearly touching): a single tanh-sinh rule
  over θ ∈ [0, π] did not converge (m₁ off by 1.9e-6 at draw 145);
* a steep edge next to the pole at 0 (γ_K ≈ 1: the density rises to ~100× its mean within
  1e-3 of the width): tanh-sinh stopped early on a wrong value (m₂ off by 5e-9, draws 273, 992);
* a square-root edge whose branch was continued onto another sheet's real root (draw 1177: the
  edge expansion was built at G = 8.1e-4, a root of ∂P/∂G only; the density read 0 over part of
  the edge zone and the law refused itself, mass 1 − 6.1e-9).

The same kinds on other routes: a Mixture of two overlapping semicircles (interior
square-root kinks, generic base-class route: the old rule had m₂ off by 1e-8), a law known by
its G alone, and the mpmath route at ``dps`` (old rule: 1.8e-7 at 20 digits on the dip law).
A pushforward whose interval beside an interior branch point took another sheet (tracker in
algebraic/numeric.py, fixed by its step control) is checked against its right values.

Right values: m₁ = θ₁ and m₂ = (1 + 1/h)θ₁² + θ₂²/γ_K (Hayase & Karakida 2026, eq. (C.11)) for
attention laws; free cumulants add under ⊞ (Bernoulli ± 1 ⊞ semicircle of variance s: m₁ = 0,
m₂ = 1 + s); MP(λ) ⊠ MP(μ) has m₁ = 1, m₂ = 1 + λ + μ; 30-digit densities for the edge zone.
"""
import math

import mpmath
import numpy as np
import pytest

from freeattn import (AlgebraicLaw, MarchenkoPastur, Semicircle, attention_law,
                      free_additive_convolution, free_multiplicative_convolution, theta1, theta2)
from freeattn.algebraic.polynomial import G, z
from freeattn.laws.base import _adaptive_mp_quad
from freeattn.laws.mixture import Mixture
from freeattn.laws.numerical import NumericalLaw

#: float64 quadrature of a smooth θ-integrand reaches ~1e-16; the old route was off by 3e-13
#: (Bernoulli ⊞ semicircle) to 1.9e-6 (draw 145)
TOL = 1e-13

DRAW_145 = (1.1174288419460439, 0.2696642830753492, 3)  # interior dip
DRAW_275 = (0.3798392069077672, 0.4833824140315123, 1)  # interior dip, hard edge at 0
DRAW_273 = (0.21747638355729002, 1.0244582872036236, 5)  # steep edge next to the pole 0
DRAW_992 = (0.13771988038620314, 0.9838257686165809, 2)  # steep edge next to the pole 0
DRAW_1177 = (3.0014052949996817, 0.0029955160589241656, 35)  # edge branch on a real root


def _attention_moments(beta, gamma_k, heads):
    t1 = theta1(beta)
    return t1, (1 + 1 / heads) * t1**2 + theta2(beta) ** 2 / gamma_k


def _mass(law):
    return sum(m for _, m in law.atoms()) + sum(law.cdf(b) - law.cdf(a) for a, b in law.support())


def _check_moments(law, m1, m2, tol=TOL):
    q1 = law.moment(1, method="quad")
    q2 = law.moment(2, method="quad")
    scale1 = abs(m1) if m1 else 1.0
    assert abs(q1 - m1) <= tol * scale1, (q1, m1)
    assert abs(q2 / m2 - 1) <= tol, (q2, m2)


def _bernoulli():
    return AlgebraicLaw((z**2 - 1) * G - z, name="Bernoulli")


@pytest.mark.parametrize("point", [DRAW_145, DRAW_275, DRAW_273, DRAW_992,
                                   (0.14207, 0.97803, 4)])
def test_attention_moments_by_quadrature(point):
    law = attention_law(*point)
    assert abs(_mass(law) - 1) <= 1e-12
    _check_moments(law, *_attention_moments(*point))


def test_interior_dip_of_a_boxplus_law():
    # Bernoulli ± 1 ⊞ semicircle(1.001): one interval, a dip at 0 (density 0.01 against 0.2
    # at 0.5) just past the merger of the two components at variance 1 (old rule: 3.3e-13)
    law = free_additive_convolution(_bernoulli(), Semicircle(1.001))
    ((a, b),) = law.support()
    assert a < 0 < b and law.pdf(0.0) < 0.1 * law.pdf(0.5)
    _check_moments(law, 0.0, 2.001)


def test_two_components_of_a_boxplus_law():
    law = free_additive_convolution(_bernoulli(), Semicircle(0.3))
    assert len(law.support()) == 2
    _check_moments(law, 0.0, 1.3)


def test_steep_edge_next_to_the_pole_of_a_boxtimes_law():
    # MP(0.98) ⊠ MP(0.98): left edge 1.2e-6 on a support of width 6.7, next to the pole at 0
    law = free_multiplicative_convolution(MarchenkoPastur(0.98), MarchenkoPastur(0.98))
    ((a, b),) = law.support()
    assert 0 < a < 1e-5 and b > 6
    _check_moments(law, 1.0, 2.96)


def test_generic_route_of_a_law_known_by_its_cauchy_transform_only():
    # the base-class quadrature (graded θ-panels, each checked against its halves) on a law
    # that is only a G callable: the interior dip of draw 145
    ref = attention_law(*DRAW_145)
    law = NumericalLaw(lambda zz: ref.cauchy_transform(zz), support=ref.support(), atoms=[],
                       name="draw 145 by G")
    _check_moments(law, *_attention_moments(*DRAW_145), tol=1e-12)


def test_generic_route_across_interior_edges_of_a_mixture():
    # two semicircles overlapping on [−0.1, 0.1]: one support interval with two interior
    # square-root kinks of the density (the single tanh-sinh rule: m₂ off by 1e-8)
    law = Mixture([Semicircle(1).affine(-1.9, 1), Semicircle(1).affine(1.9, 1)], [0.5, 0.5])
    assert law.support() == [(-3.9, 3.9)]
    _check_moments(law, 0.0, 1 + 1.9**2)


def test_generic_mass_check_and_cdf_across_interior_kinks():
    # the same two semicircles known by G alone: the generic route finds the support and
    # checks its mass (the single tanh-sinh rule: 0.999999015, and the law refused itself);
    # cdf, sf and ppf are read from the same adaptive θ-panels as the mass
    def g_sc(zz):
        return (zz - np.sqrt(zz - 2) * np.sqrt(zz + 2)) / 2

    law = NumericalLaw(lambda zz: 0.5 * (g_sc(zz + 1.9) + g_sc(zz - 1.9)), name="two semicircles")
    ((a, b),) = law.support()
    assert abs(a + 3.9) <= 1e-12 and abs(b - 3.9) <= 1e-12 and not law.atoms()
    left, right = Semicircle(1).affine(-1.9, 1), Semicircle(1).affine(1.9, 1)
    x = np.array([-3.0, -0.5, -0.1, -0.05, 0.0, 0.05, 0.1, 0.5, 3.0, 3.9])
    ref = 0.5 * (left.cdf(x) + right.cdf(x))
    assert np.max(np.abs(law.cdf(x) - ref)) <= 1e-14
    assert np.max(np.abs(law.sf(x) - (1 - ref))) <= 1e-14
    q = np.array([1e-6, 0.1, 0.4999, 0.5, 0.9, 1 - 1e-6])
    assert np.max(np.abs(law.cdf(law.ppf(q)) - q)) <= 1e-14
    _check_moments(law, 0.0, 1 + 1.9**2)


@pytest.mark.parametrize("point", [DRAW_1177, (3.0, 0.003, 30)])
def test_edge_branch_is_not_another_sheets_real_root(point):
    law = attention_law(*point)
    (a1, b1), (a2, b2) = law.support()  # mass 1 − γ_K and γ_K, 600 apart at x ~ 1e4
    assert not law.atoms()
    assert abs(_mass(law) - 1) <= 1e-12
    assert abs((law.cdf(b2) - law.cdf(a2)) / point[1] - 1) <= 1e-12
    _check_moments(law, *_attention_moments(*point), tol=1e-12)
    # the density in the edge zone of the second component (1e-9 … 0.6 from the edge), where
    # the float route read 0 at 14 of 29 points, against 30-digit densities
    x = a2 + np.geomspace(1e-6, 0.5, 12)
    pdf = law.pdf(x)
    for xi, p in zip(x, pdf):
        ref = float(law.pdf(xi, dps=30))
        assert ref > 0 and abs(p / ref - 1) <= 1e-9, (xi - a2, p, ref)


def test_edge_double_root_is_a_root_of_the_polynomial():
    # the edge expansion is centred at a root of P(·, e) that is double (∂P/∂G = 0 as well),
    # not at the nearest root of ∂P/∂G to a wrong guess
    law = attention_law(*DRAW_1177)
    c = law._num.coefficients_mp()
    for t in law._tables:
        for edge in t["edges"]:
            with mpmath.workdps(30):
                e, g = edge["e_mp"], mpmath.mpf(edge["g"])
                terms = [c[k][j] * g**k * e**j for k in range(len(c)) for j in range(len(c[0]))]
                assert abs(mpmath.fsum(terms)) <= 1e-12 * mpmath.fsum(abs(v) for v in terms)
    assert math.isclose(law.mean(), theta1(DRAW_1177[0]), rel_tol=1e-14)


def test_mp_theta_rule_resolves_a_near_singularity():
    # the mpmath θ-rule of Law.expect/cdf at dps: one tanh-sinh rule over [0, π] gives this
    # Lorentzian of width 1e-3 (a density peak or dip of that width) 68 % off; Gauss–Legendre
    # pieces bisected until the error estimate is below 10^-(dps+1) of ∫|f| get 20 digits
    with mpmath.workdps(30):
        eps = mpmath.mpf("1e-3")
        ref = mpmath.atan((mpmath.pi - 1) / eps) + mpmath.atan(1 / eps)
        val = _adaptive_mp_quad(lambda t: eps / ((t - 1) ** 2 + eps**2), mpmath.mpf(0), mpmath.pi, 20)
        assert abs(val / ref - 1) <= mpmath.mpf(10) ** -19


@pytest.mark.slow
def test_moments_at_dps_across_an_interior_dip():
    # the mpmath route of Law.expect on the dip law Bernoulli ⊞ semicircle(1.001): the single
    # tanh-sinh rule was off by 1.8e-7 at 20 digits
    law = free_additive_convolution(_bernoulli(), Semicircle(1.001))
    m2 = law.moment(2, dps=20, method="quad")
    assert abs(m2 - mpmath.mpf("2.001")) <= mpmath.mpf(10) ** -18


@pytest.mark.slow
def test_attention_moment_at_dps_across_an_interior_dip():
    # draw 145 at 20 digits: the single tanh-sinh rule was off by 1.6e-4 (relative)
    law = attention_law(*DRAW_145)
    with mpmath.workdps(20):
        ref = mpmath.e ** (mpmath.mpf(DRAW_145[0]) ** 2) - 1
    assert abs(law.moment(1, dps=20, method="quad") / ref - 1) <= mpmath.mpf(10) ** -17


def test_pushforward_with_a_critical_point_inside_the_support():
    # (x − 1)² of MP(½): y has the preimages 1 ± √y, so F(y) = F_MP(1 + √y) − F_MP(1 − √y)
    mp_law = MarchenkoPastur(0.5)
    law = mp_law.pushforward([1, -2, 1])
    y = np.array([0.3, 0.834, 0.8357, 0.84, 0.95, 2.0, 3.5])
    s = np.sqrt(y)
    ref = mp_law.cdf(1 + s) - mp_law.cdf(1 - s)
    assert np.max(np.abs(law.cdf(y) - ref)) <= 1e-10
    rho = (mp_law.pdf(1 + s) + mp_law.pdf(1 - s)) / (2 * s)
    assert np.max(np.abs(law.pdf(y) / rho - 1)) <= 1e-9
