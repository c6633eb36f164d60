"""Free powers μ^{⊞t}, μ^{⊠t}: subordination vs algebraic, and against repeated convolution."""
import numpy as np

from freeattn import (MarchenkoPastur, Semicircle, boxplus, boxtimes, free_additive_power,
                      free_multiplicative_power)


def _same(a, b, n=31):
    ((a1, b1),), ((a2, b2),) = a.support(), b.support()
    assert abs(a1 - a2) <= 1e-10 and abs(b1 - b2) <= 1e-10
    x = np.concatenate([np.linspace(a2, b2, n)[1:-1], [a2 - 0.1, b2 + 0.1]])
    np.testing.assert_allclose(a.pdf(x), b.pdf(x), rtol=0, atol=1e-10)
    assert abs(a.cdf(b2 + 1) - 1) <= 1e-10


def test_semicircle_additive_power_is_dilation():
    """Semicircle(1)^{⊞t} = Semicircle(t) (κ₂ times t), t = 2.5, both routes."""
    ref = Semicircle(2.5)
    _same(free_additive_power(Semicircle(1), 2.5, method="subordination"), ref)
    _same(free_additive_power(Semicircle(1), 2.5), ref)


def test_mp_additive_power_routes_agree():
    mp = MarchenkoPastur(0.5)
    sub = free_additive_power(mp, 2.5, method="subordination")
    _same(sub, free_additive_power(mp, 2.5))
    assert [float(v) for v in sub.exact_moments(2)] == [2.5, 7.5]


def test_mp_multiplicative_power_integer_routes_and_repeated_boxtimes():
    mp = MarchenkoPastur(0.5)
    p2 = free_multiplicative_power(mp, 2, method="subordination")
    _same(p2, boxtimes(mp, mp))
    _same(p2, free_multiplicative_power(mp, 2))


def test_mp_multiplicative_power_fractional():
    """μ^{⊠3/2} (no exact route): moments of the subordination density by quadrature equal
    the exact ones from S^{3/2} (J. C. P. Miller's power recursion on the S-series)."""
    import math

    mp = MarchenkoPastur(0.5)
    law = free_multiplicative_power(mp, 1.5)
    exact = [float(v) for v in law.exact_moments(3)]
    # S(w) = 1/(1 + w/2) for MP(1/2): S^{3/2} ⇒ m₁ = 1, m₂ = 1 + (3/2)(1/2)
    assert exact[:2] == [1.0, 1.75]
    ((a, b),) = law.support()
    gx, gw = np.polynomial.legendre.leggauss(16)
    edges = np.linspace(0, math.pi, 33)
    half = 0.5 * np.diff(edges)
    th = ((edges[:-1] + edges[1:]) / 2)[:, None] + half[:, None] * gx[None, :]
    x = a + (b - a) * np.sin(th / 2) ** 2
    f = law.pdf(x.ravel()).reshape(x.shape) * (b - a) / 2 * np.sin(th)
    for k, ref in enumerate([1.0] + exact):
        assert abs(float(np.sum((f * x**k) @ gw * half)) - ref) <= 1e-10 * ref
