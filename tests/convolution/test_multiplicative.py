"""⊠ by both routes: Fuss–Catalan moments, atoms at 0 (Belinschi 2003), route agreement."""
import math

import numpy as np
import pytest
from scipy import integrate

from freeattn import MarchenkoPastur, boxtimes, free_multiplicative_convolution
from freeattn.convolution.subordination import MultiplicativeConvolution


def _fuss_catalan(k, s=2):
    """Fuss–Catalan number binom((s+1)k, k)/(sk + 1): the moments of MP₁^{⊠s}."""
    return math.comb((s + 1) * k, k) / (s * k + 1)


def test_mp_boxtimes_mp_moments_fuss_catalan_algebraic():
    law = boxtimes(MarchenkoPastur(1), MarchenkoPastur(1), method="algebraic")
    assert [int(m) for m in law.exact_moments(5)] == [1, 3, 12, 55, 273]
    assert [int(m) for m in law.exact_moments(5)] == [_fuss_catalan(k) for k in range(1, 6)]


def test_mp_boxtimes_mp_moments_fuss_catalan_subordination():
    """Moments of the subordination density by quadrature (a hard edge x^{-2/3} at 0)."""
    law = boxtimes(MarchenkoPastur(1), MarchenkoPastur(1), method="subordination")
    assert isinstance(law, MultiplicativeConvolution)
    ((a, b),) = law.support()
    assert abs(a) <= 1e-10 and abs(b - 27 / 4) <= 1e-10  # right edge (s+1)^{s+1}/s^s
    assert [int(m) for m in law.exact_moments(4)] == [1, 3, 12, 55]
    # x = b sin⁶(θ/2) makes both ends smooth (x^{-2/3} at 0, square root at b); composite
    # Gauss–Legendre, 64 panels × 16 nodes, all densities in one vectorised call
    gx, gw = np.polynomial.legendre.leggauss(16)
    edges = np.linspace(0, math.pi, 65)
    half = 0.5 * np.diff(edges)
    th = ((edges[:-1] + edges[1:]) / 2)[:, None] + half[:, None] * gx[None, :]
    s = np.sin(th / 2) ** 2
    x = b * s**3
    dx = b * 3 * s**2 * np.sin(th / 2) * np.cos(th / 2)
    f = law.pdf(x.ravel()).reshape(x.shape) * dx
    for k in (0, 1, 2, 3):
        val = float(np.sum((f * x**k) @ gw * half))
        ref = 1.0 if k == 0 else _fuss_catalan(k)
        assert abs(val - ref) <= 1e-9 * ref
    assert abs(law.cdf(8.0) - 1) <= 1e-9


def test_mp_boxtimes_mp_subordination_equals_algebraic():
    mu, nu = MarchenkoPastur(0.5), MarchenkoPastur(0.3)
    sub = boxtimes(mu, nu, method="subordination")
    alg = boxtimes(mu, nu)
    ((a, b),), ((a2, b2),) = sub.support(), alg.support()
    assert abs(a - a2) <= 1e-10 and abs(b - b2) <= 1e-10
    x = np.concatenate([np.linspace(a2, b2, 41)[1:-1], a2 + (b2 - a2) * np.array([1e-7, 1e-4]),
                        b2 - (b2 - a2) * np.array([1e-7, 1e-4]), [0.01, 4.0]])
    np.testing.assert_allclose(sub.pdf(x), alg.pdf(x), rtol=0, atol=1e-10)
    np.testing.assert_allclose(sub.cdf([0.5, 1.0, 2.0, 5.0]), alg.cdf([0.5, 1.0, 2.0, 5.0]),
                               atol=1e-10)


def test_atom_at_zero_is_max_of_masses_subordination(mp2_mp3_sub):
    """Issue 7 item 1: MP(2) ⊠ MP(3) has an atom 2/3 at 0 (Belinschi 2003: max of 1/2 and
    2/3) and total mass 1."""
    law = mp2_mp3_sub
    atoms = law.atoms()
    assert len(atoms) == 1 and atoms[0][0] == 0 and abs(atoms[0][1] - 2 / 3) <= 1e-15
    assert abs(law.cdf(1e9) - 1) <= 1e-10
    assert abs(law.cdf(0.0) - 2 / 3) <= 1e-12 and law.cdf(-1e-12) == 0
    ((a, b),) = law.support()
    assert a > 0
    # the density carries the remaining 1/3: by quadrature in θ, x = a + (b − a) sin²(θ/2)
    val, _ = integrate.quad(lambda th: float(law.pdf(a + (b - a) * math.sin(th / 2) ** 2))
                            * (b - a) / 2 * math.sin(th), 0, math.pi, epsabs=1e-13, limit=200)
    assert abs(val - 1 / 3) <= 1e-10
    assert law.ppf(0.5) == 0.0 and law.ppf(0.7) > a


def test_atom_at_zero_is_max_of_masses_dps(mp2_mp3_sub):
    import mpmath

    ((loc, mass),) = mp2_mp3_sub.atoms(dps=30)
    with mpmath.workdps(40):
        assert loc == 0 and abs(mass - mpmath.mpf(2) / 3) < mpmath.mpf(10) ** -29


def test_atom_at_zero_algebraic_route():
    law = boxtimes(MarchenkoPastur(2), MarchenkoPastur(3), method="algebraic")
    assert abs(law.cdf(1e9) - 1) <= 1e-10
    assert any(a == 0 and abs(m - 2 / 3) <= 1e-12 for a, m in law.atoms())


def test_refuses_laws_off_the_half_line():
    from freeattn import Semicircle
    from freeattn._validation import ParameterError

    with pytest.raises(ParameterError) as e:
        free_multiplicative_convolution(Semicircle(1), MarchenkoPastur(0.5), method="subordination")
    assert e.value.param == "mu"
    with pytest.raises(ParameterError) as e:
        free_multiplicative_convolution(MarchenkoPastur(0.5), Semicircle(1))
    assert e.value.param == "nu"
