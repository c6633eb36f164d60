"""A half-line subordination law whose left edge sits ~1e-9 of the width from 0 (compound free
Poisson at a rate just above 1, where the hard edge at 0 of rate 1 opens into a soft edge at
~(t − 1)²): the side at that edge is graded toward it, as at an edge at 0 (issue 21 item 19,
slow point cfp_alg-28: the frozen end panel lost 1.4e-6 of mass and the law refused, "the
support scan missed a component").  Reference: the algebraic route (exact polynomial)."""
import numpy as np
import pytest
import sympy as sp

from freeattn import AlgebraicLaw, Discrete, compound_free_poisson
from freeattn.algebraic.polynomial import G, z


def discrete_polynomial(points, weights):
    """P(G, z) = G Π(z − a_i) − Σ w_i Π_{j≠i}(z − a_j), exact (the weights are dyadic)."""
    points = [sp.Rational(a) for a in points]
    weights = [sp.Rational(w) for w in weights]
    prod = sp.prod([z - a for a in points])
    return G * prod - sum(w * sp.prod([z - b for b in points if b != a])
                          for a, w in zip(points, weights))


@pytest.mark.parametrize("x, w, t", [
    ([0.5, 0.75, 1.375], [0.0625, 0.875, 0.0625], sp.Rational(1) + sp.Rational(1, 2**13)),   # cfp_alg-28
    ([0.25, 2.0], [0.5, 0.5], sp.Rational(1) + sp.Rational(1, 2**11)),                         # second instance
])
def test_near_zero_edge_mass_and_cdf(x, w, t):
    sub = compound_free_poisson(Discrete(x, w), float(t), method="subordination")
    alg = compound_free_poisson(AlgebraicLaw(discrete_polynomial(x, w)), t, method="algebraic")
    (a, b), = alg.support()
    assert 0 < a < 1e-4 * (b - a)
    (a2, b2), = sub.support()
    assert a2 == pytest.approx(a, rel=1e-9) and b2 == pytest.approx(b, rel=1e-12)
    assert sub.atoms() == []
    pts = np.array([a * 4, a * 1e3, 1e-3, 0.1, 0.5 * (a + b), b * 0.99])
    assert np.max(np.abs(sub.cdf(pts) - alg.cdf(pts))) < 1e-10
