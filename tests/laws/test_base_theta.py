"""The shared θ-panel quadrature (freeattn.laws._theta) behind the cdf tables.

Reference: the semicircle law on [−2, 2], F(x) = 1/2 + x sqrt(4 − x²)/(4π) + arcsin(x/2)/π, and
the arcsine law on [−2, 2] (density 1/(π sqrt(4 − x²)), inverse-square-root edges),
F(x) = 1/2 + arcsin(x/2)/π; in θ (x = −2 + 4 sin²(θ/2)) its θ-integrand is the constant 1/π.
"""
import math

import numpy as np

from freeattn.laws._theta import (adaptive_panels, cumulative_in_panels, graded_panels,
                                  panel_integrals, theta_of_x, x_of_theta)

A, B = -2.0, 2.0


def sc_theta(th):
    x = x_of_theta(A, B, th)
    return np.sqrt(np.maximum(4 - x * x, 0.0)) / (2 * math.pi) * 0.5 * (B - A) * np.sin(th)


def sc_cdf(x):
    return 0.5 + x * np.sqrt(4 - x * x) / (4 * math.pi) + np.arcsin(x / 2) / math.pi


def test_graded_panels_structure():
    p = graded_panels(8, levels=3, ratio=0.5)
    h = math.pi / 8
    np.testing.assert_allclose(p[:5], [0, h / 8, h / 4, h / 2, h])
    np.testing.assert_allclose(p[-4:], [math.pi - h / 2, math.pi - h / 4, math.pi - h / 8, math.pi])
    assert p[0] == 0.0 and p[-1] == math.pi and np.all(np.diff(p) > 0)
    assert graded_panels(4, left=False, right=False).tolist() == [0.0, h * 2, h * 4, h * 6, math.pi]


def test_adaptive_panels_reach_the_closed_form_mass_and_cdf():
    edges, mass = adaptive_panels(sc_theta, graded_panels(16), nodes=12, atol=1e-16, rtol=4e-16,
                                  max_levels=30)
    assert abs(mass.sum() - 1) < 1e-14 and np.all(mass >= 0)
    assert edges[0] == 0.0 and edges[-1] == math.pi and len(edges) == len(mass) + 1
    cum = np.concatenate([[0.0], np.cumsum(mass)])
    x = np.array([-1.999, -1.3, 0.0, 0.7, 1.9999])
    got = cumulative_in_panels(sc_theta, edges, cum, theta_of_x(A, B, x), 12)
    np.testing.assert_allclose(got, sc_cdf(x), rtol=0, atol=2e-15)


def test_panel_integrals_are_exact_for_the_arcsine_law_and_the_caps_bound_the_table():
    # arcsine: the θ-integrand is exactly 1/π, so any panel integral is its width/π
    flat = lambda th: np.full(th.shape, 1 / math.pi)  # noqa: E731
    lo, hi = np.array([0.0, 0.3]), np.array([0.3, math.pi])
    np.testing.assert_allclose(panel_integrals(flat, lo, hi, 16), (hi - lo) / math.pi, rtol=1e-15)
    # a kink (|θ − 1|) forces splitting: max_panels and max_split stop it in bounded time
    kink = lambda th: np.abs(th - 1.0)  # noqa: E731
    e1, m1 = adaptive_panels(kink, graded_panels(4, left=False, right=False), nodes=8, atol=0,
                             rtol=0, max_levels=40, max_panels=64)
    assert len(m1) <= 64 + 8
    e2, m2 = adaptive_panels(kink, graded_panels(4, left=False, right=False), nodes=8, atol=0,
                             rtol=0, max_levels=40, max_split=1)
    want = (1.0 + (math.pi - 1) ** 2) / 2
    assert abs(m1.sum() - want) < 1e-6 and abs(m2.sum() - want) < 1e-2
    # a frozen panel is accepted without splitting
    e3, m3 = adaptive_panels(kink, graded_panels(4, left=False, right=False), nodes=8, atol=0,
                             rtol=0, max_levels=40, frozen=lambda lo, hi: np.ones(lo.shape, bool))
    assert len(m3) == 8
