"""The mpmath θ-integral (freeattn.quadrature.ends.theta_integral_mp) with a predicted rule.

One Gauss–Legendre rule at the working precision whose size comes from float64 rules on the
same piece (issue 22: evaluate at the working precision only at the nodes the digits need).
Each integral is checked against its closed form at 50 digits; the cases where no size may be
predicted (an algebraic end singularity: convergence not geometric) must take the bisection
route and still be right; a piece narrower than float64 resolves is sized from a wider one.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from freeattn.quadrature import ends
from freeattn.quadrature.ends import MP_GL_SIZES, predicted_nodes, theta_integral_mp
from freeattn.quadrature.theta import gauss_legendre_mp

DPS = 30


def _poisson(c):
    """f(θ) = 1/(c − cos θ): a pole at θ = ±i·arccosh(c) (a moderate ellipse for c near 1),
    ∫_0^x f = 2/√(c² − 1) · atan(√((c + 1)/(c − 1)) tan(x/2)) for x < π."""
    def f_mp(th, phi=None):
        return 1 / (c - mpmath.cos(th))

    def f_float(th, phi=None):
        return 1.0 / (float(c) - np.cos(th))

    def exact(x):
        return 2 / mpmath.sqrt(c * c - 1) * mpmath.atan(mpmath.sqrt((c + 1) / (c - 1))
                                                        * mpmath.tan(x / 2))
    return f_mp, f_float, exact


@pytest.mark.parametrize("n", [5, 24, 37])
def test_gauss_legendre_mp_nodes_integrate_polynomials_exactly(n):
    with mpmath.workdps(50):
        rule = gauss_legendre_mp(n, mpmath.mp.prec)
        assert len(rule) == n
        for k in (0, 2, 2 * n - 2):  # ∫_{-1}^{1} x^k = 2/(k + 1) (k even), exact to degree 2n − 1
            got = mpmath.fsum(w * x**k for x, w in rule)
            assert abs(got - mpmath.mpf(2) / (k + 1)) < mpmath.mpf(10) ** -48
        got = mpmath.fsum(w * x ** (2 * n - 1) for x, w in rule)
        assert abs(got) < mpmath.mpf(10) ** -48


@pytest.mark.parametrize("c, x, predicted", [(1.5, 2.0, True), (1.2, 1.2, True),
                                              (3.0, 0.7, True), (1.05, 1.2, False)])
def test_predicted_rule_meets_the_precision(c, x, predicted):
    """Closed form at 50 digits.  The rule is the predicted one, except where the pole is so
    close (c = 1.05: 0.32i) that more than the largest size would be needed on the whole
    piece: then each piece of the coarse grid is sized (or bisected) on its own."""
    with mpmath.workdps(DPS + 10):
        f_mp, f_float, exact = _poisson(mpmath.mpf(c))
        tol = mpmath.mpf(10) ** -(DPS + 3)
        fit = predicted_nodes(f_float, mpmath.mpf(0), mpmath.mpf(x), tol)
        assert (fit is not None and fit[0] in MP_GL_SIZES) == predicted
        got = theta_integral_mp(f_mp, mpmath.mpf(0), mpmath.mpf(x), tol, f_float=f_float)
    with mpmath.workdps(50):
        right = exact(mpmath.mpf(x))
    assert abs(got - right) <= mpmath.mpf(10) ** -DPS * abs(right)


def test_closer_pole_needs_more_nodes():
    """The size follows the convergence rate: c → 1 (pole closer to the axis) needs more."""
    tol = mpmath.mpf(10) ** -(DPS + 3)
    sizes = [predicted_nodes(_poisson(c)[1], 0.0, 1.0, tol)[0] for c in (3.0, 1.5, 1.1)]
    assert sizes[0] < sizes[1] < sizes[2]


def test_algebraic_singularity_is_not_predicted_and_still_right(monkeypatch):
    """√θ on [0, 1]: Gauss–Legendre converges algebraically, no size is predicted, the piece
    goes to the mpmath.quad bisection (which must be used) and the value is right."""
    calls = []
    real_quad = mpmath.quad

    def counting_quad(*args, **kwargs):
        calls.append(1)
        return real_quad(*args, **kwargs)

    monkeypatch.setattr(ends.mpmath, "quad", counting_quad)
    tol = mpmath.mpf(10) ** -(DPS + 3)
    f_float = lambda th, phi=None: np.sqrt(th)  # noqa: E731
    assert predicted_nodes(f_float, 0.0, 1.0, tol) is None
    with mpmath.workdps(DPS + 10):
        got = theta_integral_mp(lambda th, phi=None: mpmath.sqrt(th), mpmath.mpf(0),
                                mpmath.mpf(1), tol, m_lo=2, f_float=f_float)
        # m_lo = 2 makes it analytic in s (θ = s²): then predicted; without it, bisection
        assert abs(got - mpmath.mpf(2) / 3) < mpmath.mpf(10) ** -DPS
        assert not calls
        got = theta_integral_mp(lambda th, phi=None: mpmath.sqrt(th), mpmath.mpf(0),
                                mpmath.mpf(1), mpmath.mpf(10) ** -12, f_float=f_float)
        assert calls, "the bisection route was not taken"
        assert abs(got - mpmath.mpf(2) / 3) < mpmath.mpf(10) ** -11


@pytest.mark.parametrize("x, width", [(0.8, 1e-20), (2.1, 3e-12)])
def test_piece_below_float_resolution(x, width):
    """A piece narrower than FIT_MIN_WIDTH (a Newton step of a quantile): sized from a wider
    piece around it, a handful of nodes, right against the closed form."""
    with mpmath.workdps(DPS + 10):
        f_mp, f_float, exact = _poisson(mpmath.mpf("1.2"))
        lo = mpmath.mpf(x)
        hi = lo + mpmath.mpf(width)
        tol = mpmath.mpf(10) ** -(DPS + 3)
        fit = predicted_nodes(f_float, lo, hi, tol, bounds=(0.0, math.pi))
        assert fit is not None and fit[0] <= 8 and fit[1] is None
        got = theta_integral_mp(f_mp, lo, hi, tol, f_float=f_float)
    with mpmath.workdps(60):
        right = exact(hi) - exact(lo)
    assert abs(got - right) <= mpmath.mpf(10) ** -DPS * abs(right)


# ------------------------------------------------------------ next to the right end, dps=30
def _reference_right_tail(density_in_t, d):
    """∫_{b−d}^{b} ρ at 60 digits, with x = b − d·t² (the square-root or hard edge becomes
    analytic in t)."""
    with mpmath.workdps(60):
        d = mpmath.mpf(d)
        return mpmath.quad(lambda t: density_in_t(d, t), [0, 1])


@pytest.mark.parametrize("case", ["reflected MP(1), hard end at 0", "semicircle, edge at 2"])
@pytest.mark.parametrize("d", [1e-12, 1e-7])
def test_sf_next_to_the_right_end_keeps_its_digits(case, d):
    """Nodes next to b take x = b − δ with δ from θ (not a + (b − a) sin²(θ/2), which keeps
    only dps − log10((b − a)/δ) digits of δ: sf(b − 1e-12) of the reflected MP(1) was off by
    1e-27 at dps=30)."""
    from freeattn.algebraic.polynomial import G, z
    from freeattn.laws import AlgebraicLaw
    if case.startswith("reflected"):
        law = AlgebraicLaw(-z * G**2 - z * G + 1)  # x ↦ −x of MP(1): ρ(x) = √((4 + x)/−x)/(2π)
        dens = lambda d, t: 2 * mpmath.sqrt(d) * mpmath.sqrt(4 - d * t * t) / (2 * mpmath.pi)  # noqa: E731
    else:
        law = AlgebraicLaw(G**2 - z * G + 1)  # ρ(x) = √(4 − x²)/(2π)
        dens = lambda d, t: (2 * d * t) * mpmath.sqrt(d * t * t * (4 - d * t * t)) / (2 * mpmath.pi)  # noqa: E731
    (a, b), = law.support()
    x = b - d
    right = _reference_right_tail(dens, b - x)  # the float x's own distance to b
    got = law.sf(x, dps=DPS)
    with mpmath.workdps(60):
        assert abs(got - right) <= 2 * mpmath.mpf(10) ** -DPS * right
        assert abs(law.cdf(x, dps=DPS) - (1 - right)) <= 2 * mpmath.mpf(10) ** -DPS
