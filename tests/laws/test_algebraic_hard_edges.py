"""G at a hard edge of an AlgebraicLaw and just beside it (issue 21 item 8).

At a hard edge e (a pole of P's leading coefficient where the density diverges and no atom
sits) G is real on the gap beside it and diverges there: G(e − δ) → −∞ when the support lies to
the right of e, G(e + δ) → +∞ when it lies to the left.  cauchy_transform(e) is that limit,
in float64 and at any dps (it was +inf on both sides)."""
from __future__ import annotations

import math

import mpmath
import pytest

from freeattn import attention_law


def test_hard_left_edge_at_zero_is_minus_infinity():
    """attention_law(1, 1): support [0, 9.0095…], density ~ x^{-1/2}·… at 0.  Right values
    from the report: G(0) = −inf, G(−1e-300) = −8.84e149 (real)."""
    law = attention_law(1, 1)
    assert law.support()[0][0] == 0.0
    g0 = law.cauchy_transform(0.0)
    assert g0.real == -math.inf and g0.imag == 0
    g = law.cauchy_transform(-1e-300)
    assert g.imag == 0 and g.real == pytest.approx(-8.84e149, rel=1e-3)
    # G(x) for x < 0 is negative, increasing in |G| toward the edge, and continuous into G(0)
    gs = [law.cauchy_transform(-d).real for d in (1e-100, 1e-200, 1e-300)]
    assert gs[0] > gs[1] > gs[2] < 0
    g20 = law.cauchy_transform(0.0, dps=20)
    assert mpmath.isinf(g20.real) and g20.real < 0
    assert float(law.cauchy_transform(-1e-300, dps=20).real) == pytest.approx(g.real, rel=1e-12)


def test_hard_right_edge_at_zero_is_plus_infinity():
    """Second instance: the mirrored law x ↦ −x (support [−9.0095…, 0], hard edge on the right
    at 0): G_mirror(z) = −G(−z), so G(0) = +inf and G(1e-300) = +8.84e149."""
    law = attention_law(1, 1)
    mirror = law.affine(0, -1)
    assert mirror.support()[-1][1] == 0.0
    g0 = mirror.cauchy_transform(0.0)
    assert g0.real == math.inf and g0.imag == 0
    g = mirror.cauchy_transform(1e-300)
    assert g.imag == 0 and g.real == pytest.approx(-law.cauchy_transform(-1e-300).real, rel=1e-12)
    g20 = mirror.cauchy_transform(0.0, dps=20)
    assert mpmath.isinf(g20.real) and g20.real > 0
