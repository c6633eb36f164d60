"""Breakpoints inside the support (branch points of other sheets) next to a 'track' interval.

The discriminant of attention_law(1, 0.5) ⊠ MP(0.5) has a root at x ≈ 0.11354 where two
roots of another sheet meet; the support runs straight through it, but within one table node
of it the branch used to be re-selected by continuity from the interval's midpoint across a
sparse set of points, which jumped to a real root: pdf = 0 there and the mass check failed
(0.99799).  Right values from the subordination route (an independent algorithm).
"""
import numpy as np
import pytest

from freeattn import (MHAConfig, MarchenkoPastur, Semicircle, attention_law,
                      free_additive_convolution, free_multiplicative_convolution)


@pytest.fixture(scope="module")
def product():
    return free_multiplicative_convolution(attention_law(1, 0.5), MarchenkoPastur(0.5))


def test_density_through_an_interior_breakpoint(product):
    sub = free_multiplicative_convolution(attention_law(1, 0.5), MarchenkoPastur(0.5),
                                          method="subordination")
    x = np.array([0.11, 0.1135, 0.1136, 0.114, 0.12, 0.5])
    got = product.pdf(x)
    assert np.all(got > 0.3)
    np.testing.assert_allclose(got, sub.pdf(x), rtol=1e-10)
    assert got[3] == pytest.approx(1.01523093, abs=1e-8)


def test_mass_one_through_an_interior_breakpoint(product):
    (a, b), = product.support()
    assert a == 0.0 and product.atoms() == []
    assert abs(product.cdf(b) - 1) <= 1e-10


def test_second_kind_additive_and_a_preset_with_mp_one():
    law = free_additive_convolution(attention_law(1, 0.5), Semicircle(1))
    (a, b), = law.support()
    assert abs(law.cdf(b) - 1) <= 1e-10
    # a factor MarchenkoPastur(1) (h d_V = n): the layer law used to fail its mass check
    layer = MHAConfig.preset("modernbert-large").law()
    (a, b), = layer.support()
    assert abs(layer.cdf(b) - 1) <= 1e-10


def test_finite_branch_at_a_pole_of_the_leading_coefficient():
    # π(semicircle, 3/2): P's leading coefficient z²G⁴ vanishes at 0, but P(G, 0) = G²/4 + 3/2
    # keeps the branch finite, G(0) = −i√6: density √6/π there, not a hard edge
    import math

    import mpmath

    from freeattn import compound_free_poisson

    law = compound_free_poisson(Semicircle(1), 1.5)
    assert law.pdf(0.0) == pytest.approx(math.sqrt(6) / math.pi, rel=1e-12)
    assert law.pdf(-1e-9) == pytest.approx(math.sqrt(6) / math.pi, rel=1e-9)
    v = law.pdf(0, dps=30)
    with mpmath.workdps(40):
        assert abs(v - mpmath.sqrt(6) / mpmath.pi) < mpmath.mpf(10) ** -28
    # a real hard edge stays one: ν_{∞,1} at 0 and MP₁ ⊠ MP₁ at 0 diverge
    assert attention_law(1, 1).pdf(0.0) == math.inf
    assert free_multiplicative_convolution(MarchenkoPastur(1), MarchenkoPastur(1)).pdf(0.0) == math.inf


def test_push_forward_with_a_critical_point_inside_the_support():
    # φ(x) = 1/2 − x + x²/4 has its minimum −1/2 at x = 2, inside supp MP(1/2) = [0.086, 2.914]:
    # the density of φ#μ diverges like (y + 1/2)^{-1/2} at −1/2 (a pole of P's leading
    # coefficient where the branch grows like δ^{-1/2}, next to a 'track' interval), and two
    # complex roots meet at the interior breakpoint −0.2911.  Right values: the numeric
    # push-forward (a second algorithm: Σ G_μ(x_j)/φ′(x_j) over the preimages).
    from freeattn import Transformed

    mu = MarchenkoPastur(0.5)
    exact = mu.pushforward([0.5, -1, 0.25])
    numeric = Transformed(mu, [0.5, -1, 0.25])
    (a, b), = exact.support()
    assert a == -0.5 and b == pytest.approx(0.4160533905932738, rel=1e-14)
    assert exact.pdf(-0.5) == np.inf
    e = -0.2910533905932738
    x = np.concatenate([e + np.array([-1e-4, -1e-6, -1e-9, 1e-9, 1e-6]), [0.0, 0.4]])
    np.testing.assert_allclose(exact.pdf(x), numeric.pdf(x), rtol=1e-9)
    # next to the pole the two algorithms differ by the conditioning of y ↦ φ^{-1}(y) there
    x = -0.5 + np.array([1e-12, 1e-8, 1e-6])
    np.testing.assert_allclose(exact.pdf(x), numeric.pdf(x), rtol=1e-7)
    assert abs(exact.cdf(b) - 1) <= 1e-10
