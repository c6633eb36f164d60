"""Quantiles of subordination laws from their cdf tables (scipy's elementwise Chandrupatla
root finder on the θ-panel cdf).

References: Semicircle(1) ⊞ Semicircle(1) = Semicircle(2), whose quantiles come from the
closed-form cdf (Wigner 1958); the definition ppf(q) = inf{x : F(x) ≥ q}, checked on a law
with an atom at 0 and a gap between two support intervals: π(½δ₁ + ½δ₁₀, ½) (atom ½ at 0).
"""
import numpy as np

from freeattn import Semicircle, compound_free_poisson, free_additive_convolution
from freeattn.laws import Discrete


def test_quantiles_equal_the_closed_form():
    law = free_additive_convolution(Semicircle(1), Semicircle(1), method="subordination")
    q = np.array([0.0, 1e-6, 0.01, 0.25, 0.5, 0.77, 0.999, 1.0])
    np.testing.assert_allclose(law.ppf(q), Semicircle(2).ppf(q), rtol=0, atol=1e-9)
    assert law.ppf(0.0) == law.support()[0][0] and law.ppf(1.0) == law.support()[0][1]


def test_quantile_definition_with_an_atom_and_a_gap():
    law = compound_free_poisson(Discrete([1.0, 10.0]), 0.5, method="subordination")
    (a1, b1), (a2, b2) = law.support()
    (loc, mass), = law.atoms()
    assert loc == 0.0 and abs(mass - 0.5) < 1e-12 and b1 < a2
    q = np.linspace(0.0, 1.0, 401)
    x = law.ppf(q)
    assert np.all(np.diff(x) >= 0)
    np.testing.assert_array_equal(x[q <= 0.5], 0.0)  # inside the atom's jump
    F = law.cdf(x)
    assert np.all(F >= q - 1e-14)  # F(ppf(q)) ≥ q
    left = law.cdf(x - 1e-9 * (1 + np.abs(x)))
    assert np.all(left[q > 0] <= q[q > 0] + 1e-14)  # and nothing smaller reaches q
    # a q at the mass of the first interval is reached at its right end, not in the gap
    q_gap = law.cdf(0.5 * (b1 + a2))
    assert abs(law.ppf(q_gap) - b1) <= 1e-9 * b1
    assert np.all((x <= b1 + 1e-12) | (x >= a2 - 1e-12))  # never inside the gap
