"""The branch guess beyond a table's outermost θ-nodes (BranchMixin._table_extrapolation)."""
import math
import warnings

import numpy as np

from freeattn.algebraic.branch import BranchMixin


def _table(g_last, g_prev):
    nodes = np.array([0.1, 1.0, 2.0, math.pi - 2e-6, math.pi - 1e-6])
    g = np.array([-1.0 - 0.5j, -0.8 - 0.3j, -0.5 - 0.2j, g_prev, g_last])
    return {"theta": nodes, "g": g}


def test_overflowing_power_law_keeps_the_interpolated_guess():
    """|G| growing as a power of the distance from a pole end, so fast that the continued
    power overflows (|G| = 1e300 at the last node, 1e150 at the one before): inf times the
    argument's zero imaginary part was NaN and a RuntimeWarning (pushforward-30, -146 of the
    slow suite, in some test orders); the interpolated guess stands there, finite, silently."""
    t = _table(-1e300 - 0j, -1e150 - 0j)
    th = np.array([math.pi - 1e-7, math.pi - 5e-7])
    guess = np.array([-2e300 - 0j, -3e300 - 0j])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = BranchMixin._table_extrapolation(t, th, guess)
    assert np.all(np.isfinite(out))
    np.testing.assert_array_equal(out, guess)


def test_power_law_continued_where_finite():
    """A power law that stays finite is continued: |G| ∝ d^p through the two outer nodes,
    the argument of the outermost kept."""
    t = _table(-1e6 - 1e3j, -5e5 - 5e2j)  # p = log 2 / log(1/2) = −1
    th = np.array([math.pi - 5e-7])
    out = BranchMixin._table_extrapolation(t, th, np.array([0j]))
    # (π − θ of nodes next to π carries the rounding of π: ~2e-16/1e-6 relative)
    np.testing.assert_allclose(out, [(-1e6 - 1e3j) * 2.0], rtol=1e-9)
