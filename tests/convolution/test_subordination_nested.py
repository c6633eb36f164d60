"""Subordination laws whose inputs are themselves subordination laws (issue 21, item 10).

A nested law such as (μ ⊞ μ) ⊞ μ evaluates its inner law at every iterate of its own solver;
the inner law is then solved by Newton's method warm-started from its solution at the previous
iterate's points (``SubordinationLaw._value_warm``), with G′ by implicit differentiation.
Right values: ``free_additive_power(μ, 3)`` (a different system: one equation in one
subordination function) and the algebraic route (exact polynomial of the product law).
"""
import time

import numpy as np
import pytest

from freeattn import (MarchenkoPastur, Mixture, Semicircle, free_additive_convolution,
                      free_additive_power, free_multiplicative_convolution)

#: (μ ⊞ μ) ⊞ μ = μ^{⊞3} for μ the two-semicircle mixture of issue 21 item 10; pdf(0) by the
#: power route (one subordination equation), as quoted in the issue
NESTED_PDF0 = 0.075733779455968652


def two_bumps():
    return Mixture([Semicircle(0.25).affine(-2, 1), Semicircle(0.25).affine(2, 1)])


def test_nested_additive_convolution_returns_the_power_value_fast():
    mu = two_bumps()
    t0 = time.perf_counter()
    one = free_additive_convolution(mu, mu)
    one.pdf(0.0)
    t_one = time.perf_counter() - t0
    t0 = time.perf_counter()
    nested = free_additive_convolution(free_additive_convolution(mu, mu), mu)
    value = float(nested.pdf(0.0))
    t_nested = time.perf_counter() - t0
    assert value == pytest.approx(NESTED_PDF0, rel=1e-12)
    # before: no answer in 560 s (one level: ~10 s); measured 2.8x one level at load 8
    assert t_nested <= 8 * t_one + 10, (t_nested, t_one)
    # elsewhere too: against the power route, and the same support
    power = free_additive_power(mu, 3)
    x = np.array([-5.0, -1.3, 2.2, 4.75])
    np.testing.assert_allclose(nested.pdf(x), power.pdf(x), rtol=1e-10)
    (a, b), = power.support()
    (c, d), = nested.support()
    assert abs(c - a) <= 1e-9 * (b - a) and abs(d - b) <= 1e-9 * (b - a)


def test_nested_multiplicative_convolution_agrees_with_the_algebraic_route():
    # (MP½ ⊠ MP½) ⊠ MP¼ with the inner product by subordination, against the exact
    # polynomial of the same law (algebraic route at both levels); m₂ = 1 + ½ + ½ + ¼ = 2.25
    inner = free_multiplicative_convolution(MarchenkoPastur(0.5), MarchenkoPastur(0.5),
                                            method="subordination")
    nested = free_multiplicative_convolution(inner, MarchenkoPastur(0.25),
                                             method="subordination")
    exact = free_multiplicative_convolution(
        free_multiplicative_convolution(MarchenkoPastur(0.5), MarchenkoPastur(0.5),
                                        method="algebraic"),
        MarchenkoPastur(0.25), method="algebraic")
    (a, b), = exact.support()
    (c, d), = nested.support()
    assert abs(c - a) <= 1e-9 * b and abs(d - b) <= 1e-9 * b
    x = a + (b - a) * np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    np.testing.assert_allclose(nested.pdf(x), exact.pdf(x), rtol=1e-10)
    assert nested.moment(2) == pytest.approx(2.25, rel=1e-12)


def test_nested_input_g_derivative_is_the_implicit_one():
    # the warm route's G′ (implicit differentiation) against a central difference of G
    inner = free_additive_convolution(Semicircle(1), MarchenkoPastur(0.5), method="subordination")
    w = np.array([0.3 + 0.2j, 1.5 + 1e-3j, -2.0 + 0.5j])
    g, dg, _ = inner._value_warm(w, None)
    h = 1e-6
    num = (inner.cauchy_transform(w + h) - inner.cauchy_transform(w - h)) / (2 * h)
    np.testing.assert_allclose(g, inner.cauchy_transform(w), rtol=1e-13)
    np.testing.assert_allclose(dg, num, rtol=1e-6)


def test_compound_poisson_of_an_affine_image_of_a_subordination_law():
    # π(3 + (SC₁ ⊞ SC₁), 2) with the inner sum by subordination (an affine image of a
    # subordination law as the input): SC₁ ⊞ SC₁ = SC₂ exactly, so the right value is the
    # one-level π(3 + SC₂, 2); before: > 1200 s (one level: 2 s)
    from freeattn import compound_free_poisson
    inner = free_additive_convolution(Semicircle(1), Semicircle(1), method="subordination")
    nested = compound_free_poisson(inner.affine(3, 1), 2.0)
    one = compound_free_poisson(Semicircle(2).affine(3, 1), 2.0)
    (a, b), = one.support()
    (c, d), = nested.support()
    assert abs(c - a) <= 1e-9 * b and abs(d - b) <= 1e-9 * b
    x = np.linspace(a, b, 7)[1:-1]
    np.testing.assert_allclose(nested.pdf(x), one.pdf(x), rtol=1e-10)
