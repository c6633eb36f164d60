"""The tracker's start scan (issue 22): the Stieltjes branch continued down x + ih starts at
the lowest height of its ln h grid where exactly one root of P(·, x + ih) meets the Nevanlinna
conditions (Im G < 0, Im(1/G) ≥ Im z, |G|·Im z ≤ 1: there that root is the branch), instead of
far above the spectrum.  Reference: the same tracker without the scan (every point from
G ~ 1/z far above), a separate path down the same lines; and, at moderate heights, the
Stieltjes integral of the law's own density (an independent quadrature)."""
import numpy as np
import pytest

from freeattn import MHAConfig, attention_law
from freeattn.algebraic import numeric_polynomial as npoly


def _laws():
    return [attention_law(1.0, 1.0), attention_law(0.61, 2.3),
            MHAConfig.preset("bert-base", beta=0.63).law()]


@pytest.mark.parametrize("k", range(3))
def test_scan_start_ends_on_the_branch_of_the_full_track(k, monkeypatch):
    law = _laws()[k]
    (a, b), *_ = law.support()
    num = law._num
    x = np.concatenate([np.linspace(a, b, 9)[1:-1], [a - 0.3 * (b - a), b + 0.2 * (b - a)]])
    h = np.full(x.shape, 1e-6 * (b - a))
    g_scan, ok_scan = num.track(x, h)
    t0, _, found = num._scan_start(x, np.log(8.0 * (getattr(num, "scale_hint", 1.0) + np.abs(x) + 1.0)),
                                   np.log(h))
    assert np.any(found)  # the scan is used: some point starts lower than far above
    monkeypatch.setattr(npoly, "_SCAN_MAX_MATRICES", 0)
    g_full, ok_full = num.track(x, h)
    assert np.all(ok_scan) and np.all(ok_full)
    assert np.max(np.abs(g_scan - g_full) / np.abs(g_full)) <= 1e-10


def test_scan_start_against_the_stieltjes_integral():
    law = attention_law(0.61, 2.3)
    (a, b), *_ = law.support()
    x = np.linspace(a, b, 5)[1:-1]
    h = 0.05 * (b - a)
    g, ok = law._num.track(x, np.full(x.shape, h))
    assert np.all(ok)
    for xi, gi in zip(x, g):
        # the Stieltjes integral ∫ ρ(t)/(z − t) dt by the law's quadrature (real and
        # imaginary parts separately)
        re = law.expect(lambda t, xi=xi: (xi - t) / ((xi - t) ** 2 + h * h))
        im = law.expect(lambda t, xi=xi: -h / ((xi - t) ** 2 + h * h))
        assert abs(gi - complex(re, im)) <= 1e-9 * abs(gi)
