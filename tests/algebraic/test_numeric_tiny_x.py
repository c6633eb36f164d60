"""NumericPolynomial next to a hard edge at 0, down to the smallest double (property-suite kind
N14): where a coefficient of P(·, x) under- or overflows in float64 (7.4e-12 x² is 0 at
x = 5e-324), the roots come from P(s·H, x) formed in logarithms — equal to mpmath's roots of
the exact coefficients, with no RuntimeWarning — and the float64 density equals the mpmath
one there."""
import warnings

import mpmath
import numpy as np
import pytest

from freeattn import attention_law

LAWS = {
    "tiny beta": (0.01033684163702969, 0.08231443640648436),  # the suite's point
    "beta 1": (1.0, 1.0),  # ρ ~ x^{-1/2} at 0
}
XS = [1e-160, 1e-200, 1e-300, 1e-310, 5e-324]


def _mp_roots(num, x):
    with mpmath.workdps(40):
        return [complex(r) for r in num.roots_mp(mpmath.mpf(x))]


@pytest.mark.parametrize("name", sorted(LAWS))
def test_roots_at_tiny_x_equal_mpmath_roots(name):
    law = attention_law(*LAWS[name])
    law.support()
    num = law._num
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = num.roots(np.array(XS))
    for x, row in zip(XS, got):
        want = _mp_roots(num, x)
        assert len(want) == len(row)
        for w in want:  # each mpmath root has a float64 root next to it, to 1e-12 relative
            assert np.min(np.abs(row - w)) <= 1e-12 * abs(w), (x, w, row)


@pytest.mark.parametrize("name", sorted(LAWS))
def test_pdf_at_tiny_x_equals_mpmath(name):
    law = attention_law(*LAWS[name])
    assert law.support()[0][0] == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = law.pdf(np.array(XS))
    for x, p in zip(XS, got):
        want = float(law.pdf(x, dps=20))
        assert p == pytest.approx(want, rel=1e-10), x


def test_newton_polish_at_tiny_x_keeps_the_root():
    """The vectorised polish on P(s·H, x): a root stays a root (P(·, x) in double would have
    lost its G⁴ and G³ terms and moved it)."""
    law = attention_law(*LAWS["tiny beta"])
    num = law._num
    x = np.array([1e-250, 5e-324])
    r = num.roots(x)
    g = r[np.arange(2), np.argmin(r.imag / np.abs(r), axis=1)]  # the root of Im < 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h, step = num.newton(g, x)
    assert np.allclose(h, g, rtol=1e-13, atol=0) and np.all(step <= 1e-12 * np.abs(g))


def test_roots_at_several_scales_from_the_newton_polygon():
    """The values law of mistral-7b at β = 0.0197: at x = 1e-80 the roots sit at 3e81 and
    4e42 at once (one scaling of P keeps only the larger ones); each edge of the Newton
    polygon gives its own, and the cdf and pdf there equal the mpmath ones."""
    from freeattn import MHAConfig

    law = MHAConfig.preset("mistral-7b", beta=0.019702579756905515).law("values")
    law.support()
    x = np.array([1e-80, 1e-170])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = law._num.roots(x)
        cdf, pdf = law.cdf(x), law.pdf(x)
    for xi, row in zip(x, got):
        want = _mp_roots(law._num, xi)
        for i, w in enumerate(want):
            # a nearly double root (the pair at −3.1e81, 1e-20 apart) is conditioned by
            # √eps in any float64 root finder; every other one to 1e-12
            double = min(abs(w - v) for j, v in enumerate(want) if j != i) <= 1e-10 * abs(w)
            assert np.min(np.abs(row - w)) <= (1e-6 if double else 1e-12) * abs(w), (xi, w, row)
    for xi, c, p in zip(x, cdf, pdf):
        assert c == pytest.approx(float(law.cdf(xi, dps=20)), rel=1e-12)
        assert p == pytest.approx(float(law.pdf(xi, dps=20)), rel=1e-10)
