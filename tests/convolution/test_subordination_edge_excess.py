"""Issue 21, the "float64 end's own rounding" kind, subordination laws: cdf/sf/pdf 1e-8 of the
width from a square-root edge.

A subordination law's edge is a double within an ulp or two of the true edge e (no sub-ulp
correction, unlike the algebraic tables' ``corr``), and the cdf tables' integrand took the end
fit through the rounded node x = e ± δ: the tail 1e-8 of the width from an end at |e| ~ w was
off by ~1e-8 of itself (boxtimes_power_alg-2: 4.8e-8, boxtimes_num-1: 2.7e-8; main's pdf
there 1.35e-8).  Now the sides integrate the fit at the nodes' exact distances and, within
1e-4 of the width of an edge, cdf/sf/pdf measure from the edge polished to 30 digits.

Right values: closed forms (Semicircle(1) ⊞ Semicircle(1) shifted = Semicircle(2) shifted;
π₂₀ ⊞ π₃₀ = π₅₀) at 30 digits, the algebraic route, and 25-digit mpmath quadratures of
−Im G/π from the 25-digit edge.
"""
import mpmath
import numpy as np
import pytest

from freeattn import (Empirical, FreePoisson, MarchenkoPastur, Mixture, Semicircle, free_additive_convolution,
                      free_multiplicative_convolution, free_multiplicative_power)

#: the distances (fractions of the width) of the property suite's `tails` check, and more
FRACTIONS = (1e-8, 1e-7, 1e-6, 1e-5, 1e-2)


def _tails(law, ref, rtol):
    (a, b), = law.support()
    w = b - a
    for d in FRACTIONS:
        xa, xb = a + d * w, b - d * w
        for got, right in ((law.cdf(xa), ref.cdf(xa, dps=30)), (law.sf(xb), ref.sf(xb, dps=30)),
                           (law.pdf(xa), ref.pdf(xa, dps=30)), (law.pdf(xb), ref.pdf(xb, dps=30))):
            assert abs(got / float(right) - 1) <= rtol, (d, got, right)


@pytest.mark.parametrize("shift", [10.0, 30.0])
def test_shifted_semicircles(shift):
    # Semicircle(1).affine(shift, 1) ⊞ Semicircle(1) = Semicircle(2).affine(shift, 1); main:
    # sf 1e-8 of the width from the right end 4.3e-8 off (shift 30), pdf 1.35e-8
    law = free_additive_convolution(Semicircle(1).affine(shift, 1), Semicircle(1),
                                    method="subordination")
    _tails(law, Semicircle(2).affine(shift, 1), 1e-10)


def test_free_poisson_semigroup():
    # π₂₀ ⊞ π₃₀ = π₅₀ on [36.86, 65.14]: main's sf 1e-8 of the width from 65.14 was 6.7e-8 off
    law = free_additive_convolution(FreePoisson(20), FreePoisson(30), method="subordination")
    _tails(law, FreePoisson(50), 1e-10)


def test_boxtimes_power_alg_2_against_the_algebraic_route():
    # the property suite's boxtimes_power_alg-2: sf(136.5145562180318) was 7.849050265653563e-13,
    # right 7.84905064212007e-13 (algebraic route at dps=20; its float route agrees to 1e-15)
    make = lambda m: free_multiplicative_power(Semicircle(1.125).affine(4.0, 1), 3, method=m)  # noqa: E731
    sub, alg = make("subordination"), make("algebraic")
    x = 136.5145562180318
    right = alg.sf(x, dps=20)
    assert abs(float(right) - 7.84905064212007e-13) <= 1e-26
    assert abs(sub.sf(x) / float(right) - 1) <= 1e-11
    (a, b), = sub.support()
    for d in FRACTIONS:
        xa, xb = a + d * (b - a), b - d * (b - a)
        assert abs(sub.cdf(xa) / float(alg.cdf(xa, dps=20)) - 1) <= 1e-9
        assert abs(sub.sf(xb) / float(alg.sf(xb, dps=20)) - 1) <= 1e-9


def test_boxtimes_num_1():
    # the property suite's boxtimes_num-1 (an Empirical ⊠ a mixture of MP and π): sf(2.058871393999327) was
    # 1.7905034552360706e-13 (1.5e-7 off; 2.7e-8 after session 10), right 1.7905031869736746e-13
    # (mpmath tanh-sinh of the 20-digit density from the 20-digit edge, the property suite's
    # reference)
    law = free_multiplicative_convolution(
        Empirical([0.342051, 0.395882, 0.0965364, 0.246413, 0.231262, 0.0227916, 0.00632674,
                   0.272293, 0.0984295, 0.11221, 0.252755, 0.349704]),
        Mixture([MarchenkoPastur(2.125), FreePoisson(3.75)], [0.75, 0.25]))
    assert abs(law.sf(2.058871393999327) / 1.7905031869736746e-13 - 1) <= 5e-9


def _boxplus_num_1():
    return free_additive_convolution(
        Mixture([Semicircle(2.5), Semicircle(1.25).affine(1.25, 1)], [0.75, 0.25]),
        Mixture([FreePoisson(1.125), FreePoisson(2.5)], [0.875, 0.125]))


def test_edge_two_ulps_off():
    # boxplus_num-1's left edge: the true edge (30 digits) is 2.1 ulps right of the float
    # edge; cdf(−2.339823615546374) is 2.26090935920797e-12 (mpmath quad of −Im G/π at 25
    # digits from the 25-digit edge; the float pdf integrated from the float edge, the
    # property suite's reference on main, gave 2.2609093914e-12, 1.4e-8 high)
    law = _boxplus_num_1()
    x = -2.339823615546374
    assert abs(law.cdf(x) / 2.26090935920797e-12 - 1) <= 1e-11
    (a, _), = law.support()
    e = law.support(dps=30)[0][0]
    with mpmath.workdps(30):
        assert 2 * np.spacing(abs(a)) < e - mpmath.mpf(a) < 3 * np.spacing(abs(a))
    # beyond the true edge nothing: cdf 0 and pdf 0 on the two doubles between
    inside = [np.nextafter(a, np.inf), np.nextafter(np.nextafter(a, np.inf), np.inf)]
    np.testing.assert_array_equal(law.cdf(inside), [0.0, 0.0])
    np.testing.assert_array_equal(law.pdf(inside), [0.0, 0.0])
    # quantiles invert the corrected cdf at the ulp (ppf(1e-300) was a double where cdf is 0)
    q = np.array([1e-300, 1e-200, 1e-30])
    xq = law.ppf(q)
    assert np.all(law.cdf(xq) >= q) and np.all(law.cdf(np.nextafter(xq, -np.inf)) < q)


def test_correction_monotone_and_history_free():
    # across the zone where the excess tapers in, the cdf is monotone between neighbouring
    # doubles and the sf too; a value beyond the zone does not depend on whether a query near
    # the edge (and its polish) came first (issue 21, item 17)
    far_x = None
    values = []
    for near_first in (False, True):
        law = _boxplus_num_1()
        (a, b), = law.support()
        w = b - a
        far_x = a + 0.3 * w
        if near_first:
            law.cdf(a + 1e-8 * w)
        values.append((float(law.cdf(far_x)), float(law.sf(far_x)), float(law.pdf(far_x))))
    assert values[0] == values[1]
    x = a + w * np.array([1e-9, 1e-8, 1e-6, 2.5e-5, 5e-5, 7.5e-5, 1e-4, 2e-4])
    pts = np.sort(np.concatenate([x + k * np.spacing(x) for k in range(-30, 31)]))
    F, S = law.cdf(pts), law.sf(pts)
    assert np.all(np.diff(F) >= 0) and np.all(np.diff(S) <= 0)
    assert np.all(np.abs(F + S - 1) <= 4e-16)
