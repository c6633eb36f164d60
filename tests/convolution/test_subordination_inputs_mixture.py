"""Mixture inputs of subordination laws (each component through its own warm-started input,
G = Σ p_k G_k) and the density memo of a subordination law: the same values as the routes
they replace, and as independent references."""
import numpy as np
import pytest

from freeattn import (Mixture, PointMass, Semicircle, compound_free_poisson,
                      free_additive_convolution)
from freeattn.convolution import subordination_inputs
from freeattn.laws.discrete import Discrete


def inside_points(law, k=9):
    return np.concatenate([np.linspace(a, b, k + 2)[1:-1] for a, b in law.support()])


def test_mixture_of_point_masses_equals_discrete():
    # a mixture of point masses is the discrete law: ⊞ with a semicircle by both inputs
    mix = Mixture([PointMass(-1.0), PointMass(0.5), PointMass(2.0)], [0.25, 0.5, 0.25])
    a = free_additive_convolution(Semicircle(1.0), mix, method="subordination")
    b = free_additive_convolution(Semicircle(1.0), Discrete([-1.0, 0.5, 2.0], [0.25, 0.5, 0.25]),
                                  method="subordination")
    np.testing.assert_allclose(np.ravel(a.support()), np.ravel(b.support()), rtol=1e-14)
    x = inside_points(b)
    np.testing.assert_allclose(a.pdf(x), b.pdf(x), rtol=1e-12)


@pytest.mark.parametrize("rate", [4.807598408774714, 0.3])
def test_mixture_components_against_the_mixtures_own_cauchy(monkeypatch, rate):
    # the property suite's cfp_num-0 (quantiles 14.8 s -> 2.3 s at load 7) and a rate < 1
    mu = Mixture([Semicircle(1.75).affine(3.25, 1), Semicircle(0.625).affine(1.75, 1)],
                 [0.875, 0.125])
    fast = compound_free_poisson(mu, rate)
    x = inside_points(fast)
    p_fast, s_fast = fast.pdf(x), fast.support()
    monkeypatch.setattr(subordination_inputs, "Mixture", type(None))  # the mixture's own G
    slow = compound_free_poisson(mu, rate)
    np.testing.assert_allclose(np.ravel(s_fast), np.ravel(slow.support()), rtol=1e-14)
    np.testing.assert_allclose(p_fast, slow.pdf(x), rtol=1e-12)
    assert fast.atoms() == slow.atoms()


def test_density_memo_returns_the_first_values(monkeypatch):
    law = free_additive_convolution(Semicircle(1.0), Discrete([0.0, 3.0]), method="subordination")
    x = inside_points(law, 5)
    first = law.pdf(np.concatenate([x, x[::-1]]))  # repeated abscissae within one call
    np.testing.assert_array_equal(first[:x.size], first[x.size:][::-1])
    fresh = free_additive_convolution(Semicircle(1.0), Discrete([0.0, 3.0]), method="subordination")
    np.testing.assert_array_equal(fresh.pdf(x), first[:x.size])

    def no_solve(self, xs):
        raise AssertionError("memoised abscissae solved again")

    monkeypatch.setattr(type(law), "_pdf_solve", no_solve)
    np.testing.assert_array_equal(law.pdf(x[::-1]), first[:x.size][::-1])
