"""The one scalar Newton polish of algebraic/ (roots.newton_polish) against exact roots."""
import mpmath

from freeattn.algebraic.roots import newton_polish


def test_converges_to_sqrt2_at_50_digits():
    with mpmath.workdps(50):
        g, ok = newton_polish([1, 0, -2], mpmath.mpf(1), mpmath.mpf(10) ** -48, 60)
        assert ok
        assert abs(g - mpmath.sqrt(2)) <= mpmath.mpf(10) ** -48


def test_step_test_is_relative_for_a_root_near_zero():
    """(x − 1e-30)(x − 1): from 2e-30 the root 1e-30 comes out to the relative accuracy asked
    for (the test is |step| ≤ rtol·|g|, not an absolute one)."""
    with mpmath.workdps(40):
        r = mpmath.mpf("1e-30")
        g, ok = newton_polish([1, -(1 + r), r], 2 * r, mpmath.mpf(10) ** -35, 60)
        assert ok
        assert abs(g - r) <= mpmath.mpf(10) ** -35 * r


def test_complex_root_and_the_two_misses():
    with mpmath.workdps(30):
        g, ok = newton_polish([1, 0, 1], mpmath.mpc(0.1, -0.9), mpmath.mpf(10) ** -28, 60)
        assert ok and abs(g - mpmath.mpc(0, -1)) <= mpmath.mpf(10) ** -28
        # zero derivative at the start: not converged, the start handed back
        g, ok = newton_polish([1, 0, -2], mpmath.mpf(0), mpmath.mpf(10) ** -28, 60)
        assert not ok and g == 0
        # out of steps (x² + 1 from a real start stays real): not converged
        g, ok = newton_polish([1, 0, 1], mpmath.mpf(0.5), mpmath.mpf(10) ** -28, 8)
        assert not ok and mpmath.im(g) == 0


def test_array_polish_per_point_coefficients():
    """newton_polish_array: x² − c for c = 2, 3, 5 at once, against √c; a point with a zero
    derivative stays where it is (step 0); rtol = 0 runs every step."""
    import numpy as np

    from freeattn.algebraic.roots import newton_polish_array

    c = np.array([2.0, 3.0, 5.0, 4.0])
    g0 = np.array([1.0, 2.0, 2.0, 0.0]) + 0j
    g, step = newton_polish_array([1.0, 0.0, -c], g0, 50, rtol=1e-15)
    np.testing.assert_allclose(g[:3].real, np.sqrt(c[:3]), rtol=4e-16)
    assert g[3] == 0 and step[3] == 0
    g2, _ = newton_polish_array([1.0, 0.0, -c], g0, 2)   # two fixed steps from 1: 1.5, 17/12
    assert g2[0] == 17 / 12
