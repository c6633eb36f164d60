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
