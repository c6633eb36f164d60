"""High-precision routes: cdf, ppf, pdf and edges at dps against independent references."""
import mpmath
import numpy as np
import pytest
import sympy as sp

from freeattn import AlgebraicLaw, attention_law
from freeattn.algebraic.polynomial import G, z


def mp_cdf_reference(x, y):
    """Closed-form MP_y cdf (y ≤ 1) from the antiderivative of sqrt((b − x)(x − a))/x."""
    y = mpmath.mpf(y)
    a, b = (1 - mpmath.sqrt(y)) ** 2, (1 + mpmath.sqrt(y)) ** 2
    x = mpmath.mpf(x)

    def A(t):
        root = mpmath.sqrt(max((b - t) * (t - a), 0))
        u = max(min((2 * t - a - b) / (b - a), 1), -1)
        v = max(min(((a + b) * t - 2 * a * b) / (t * (b - a)), 1), -1)
        return root + (a + b) / 2 * mpmath.asin(u) - (1 - y) * mpmath.asin(v)

    return (A(x) - A(a)) / (2 * mpmath.pi * y)


@pytest.fixture(scope="module")
def generic_half():
    y = sp.Rational(1, 2)
    return AlgebraicLaw(y * z * G**2 + (1 - y - z) * G + 1)


@pytest.mark.parametrize("x", ["0.3", "1.7", "2.9"])
def test_cdf_dps30_generic_mp(generic_half, x):
    with mpmath.workdps(45):
        x = mpmath.mpf(x)
        ref = mp_cdf_reference(x, mpmath.mpf(1) / 2)
    got = generic_half.cdf(x, dps=30)
    with mpmath.workdps(30):
        assert abs(got - ref) < mpmath.mpf(10) ** -29


@pytest.mark.parametrize("q", ["1e-8", "0.25", "0.999"])
def test_ppf_dps30_generic_mp(generic_half, q):
    with mpmath.workdps(40):
        q = mpmath.mpf(q)
    x = generic_half._ppf_mp(q, 30)
    with mpmath.workdps(45):
        half = mpmath.mpf(1) / 2
        a, b = (1 - mpmath.sqrt(half)) ** 2, (1 + mpmath.sqrt(half)) ** 2
        ref = mpmath.mpf(float(x))
        for _ in range(50):  # Newton on the closed-form cdf
            step = (mp_cdf_reference(ref, half) - q) / (mpmath.sqrt((b - ref) * (ref - a)) / (2 * mpmath.pi * half * ref))
            ref -= step
            if abs(step) < mpmath.mpf(10) ** -42 * ref:
                break
        assert abs(x / ref - 1) < mpmath.mpf(10) ** -29


def test_attention_cdf_dps30_against_tanh_sinh_in_x():
    """θ-Gauss–Legendre with Newton-tracked branch vs tanh-sinh in s = sqrt(x) (the hard edge
    at 0 made smooth) of the 40-digit density."""
    law = attention_law(1.0, 1.0)
    a, b = law.support(dps=40)[0]
    assert a == 0 and not law.atoms()
    with mpmath.workdps(40):
        x = mpmath.mpf(3)
        ref = mpmath.quad(lambda s: 2 * s * law.pdf(s * s, dps=40), [0, 1, mpmath.sqrt(x)])
    got = law.cdf(x, dps=30)
    with mpmath.workdps(30):
        assert abs(got - ref) < mpmath.mpf(10) ** -27
    assert float(got) == pytest.approx(law.cdf(3.0), abs=1e-14)


def test_attention_ppf_dps30_roundtrip():
    law = attention_law(0.5, 2.0)
    with mpmath.workdps(40):
        q = mpmath.mpf(7) / 10
    x = law._ppf_mp(q, 30)
    with mpmath.workdps(30):
        assert abs(law.cdf(x, dps=30) - q) < mpmath.mpf(10) ** -28
    assert float(x) == pytest.approx(law.ppf(0.7), rel=1e-14)
