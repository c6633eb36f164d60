"""G′(z) = −∂_zP/∂_GP at the branch (the AlgebraicLaw hooks behind cauchy_transform_derivative)."""
import mpmath
import numpy as np
import pytest
import sympy as sp

from freeattn import AlgebraicLaw, MarchenkoPastur, Semicircle, attention_law
from freeattn.algebraic.polynomial import G, z

ZS = np.array([1.3 + 0.2j, 0.4 + 1e-3j, 3 - 2j, -1.5 + 0.5j, 7.0 + 0j, -0.3 + 0j, 2.1 + 0j])


def semicircle_dg(zz, v):
    """d/dz of (z − sqrt(z − 2σ) sqrt(z + 2σ))/(2v) (closed form)."""
    r = 2 * np.sqrt(v)
    root = np.sqrt(zz - r) * np.sqrt(zz + r)
    return (1 - zz / root) / (2 * v)


def mp_dg(zz, y):
    """d/dz of G = (z + y − 1 − R)/(2yz), R = sqrt(z − a) sqrt(z − b) (closed form)."""
    a, b = (1 - np.sqrt(y)) ** 2, (1 + np.sqrt(y)) ** 2
    R = np.sqrt(zz - a) * np.sqrt(zz - b)
    dR = (2 * zz - a - b) / (2 * R)
    num = zz + y - 1 - R
    return ((1 - dR) * zz - num) / (2 * y * zz**2)


@pytest.mark.parametrize("v", [1.0, 2.5])
def test_semicircle_derivative_closed_form(v):
    zs = np.where(ZS.imag == 0, ZS + 0j, ZS)
    zs = zs[np.abs(zs.real) > 2 * np.sqrt(v) + 0.1]  # off the support: no boundary-value ambiguity
    for law in (Semicircle(v), AlgebraicLaw(sp.nsimplify(v) * G**2 - z * G + 1)):
        np.testing.assert_allclose(law._cauchy_derivative_float(zs), semicircle_dg(zs, v), rtol=1e-12)
    zu = ZS[ZS.imag > 0]
    np.testing.assert_allclose(Semicircle(v)._cauchy_derivative_float(zu), semicircle_dg(zu, v), rtol=1e-12)
    np.testing.assert_allclose(Semicircle(v)._cauchy_derivative_float(zu.conj()), semicircle_dg(zu, v).conj(),
                               rtol=1e-12)


@pytest.mark.parametrize("y", [0.5, 2.0])
def test_mp_derivative_closed_form(y):
    zu = ZS[ZS.imag > 0]
    law = MarchenkoPastur(y)
    np.testing.assert_allclose(law._cauchy_derivative_float(zu), mp_dg(zu, y), rtol=1e-11)
    with mpmath.workdps(30):
        d = law._cauchy_derivative_mp(complex(zu[0]), 30)
    assert complex(d) == pytest.approx(complex(mp_dg(zu[:1], y)[0]), rel=1e-13)
    # inside the support the boundary value G'(x + i0)
    x = np.array([1.0 + 0j])
    ref = mp_dg(np.array([1.0 + 1e-14j]), y)
    np.testing.assert_allclose(law._cauchy_derivative_float(x), ref, rtol=1e-10)


def test_attention_derivative_against_mpmath_diff():
    law = attention_law(1.0, 0.5)
    for zz in (3.0 + 0.5j, 12.0 + 0j, 1.0 + 0.01j):
        with mpmath.workdps(30):
            ref = mpmath.diff(lambda t: law.cauchy_transform(t, dps=70), mpmath.mpc(zz), h=mpmath.mpf(10) ** -25)
            got = law._cauchy_derivative_mp(zz, 30)
            assert abs(got - ref) < mpmath.mpf(10) ** -20 * abs(ref)
        assert complex(law._cauchy_derivative_float(np.array([zz]))[0]) == pytest.approx(complex(ref), rel=1e-10)


def test_derivative_at_infinity_and_far_away():
    law = attention_law(1.0, 1.0)
    d = law._cauchy_derivative_float(np.array([np.inf, 1e12 + 0j]))
    assert d[0] == 0
    assert d[1] == pytest.approx(-1e-24, rel=1e-10)
