"""The θ-integrand of the cdf next to a hard end at 0 where δ = (b − a)·sin²(θ/2) is
subnormal or underflows to 0 (θ ≲ 1e-154; kind N14, issue 21), and pdf/cdf/ppf there.

At a hard edge ρ(x) ~ |C|/π · x^{-1/2}, so f(θ) = ρ·(b − a)/2·sin θ tends to the constant
|C|·√(b − a)/π as θ → 0.  References independent of the real-axis table route:
- MarchenkoPastur(1): the closed form ρ = √((4 − x)x)/(2πx), f(0+) = 2/π;
- attention_law(0.05, 1, 1), support [0, 0.01688]: P = −1 + Gz + c₂₁G²z + c₃₂G³z² + c₄₂G⁴z²,
  so G ~ C·z^{-1/2} at 0 with −1 + c₂₁C² + c₄₂C⁴ = 0 (the Newton polygon's segment of slope
  −1/2), solved below at 40 digits from P's exact coefficients.  Of the two roots C², the
  positive one gives a real G on x > 0 (no density), so C² < 0 at the hard end, and
  Im G < 0 above the axis fixes C = −i|C|, |C| = 105.4076…  (the float route on the axis
  agrees: G·√z = −105.407597i at z = i·1e-20, the next term ~√z·700 relative).  Then
  ρ(x) = |C|/(π√x), cdf(x) = 2|C|√x/π and ppf(q) = (πq/(2|C|))² to relative O(700·√x),
  below 1e-90 for x ≤ 1e-200; the law's own mpmath route at dps=30 is a second reference.
Before the Puiseux match was retried closer to 0 (algebraic/local.py, _tiny_match) this law
had no Puiseux data at 0 (its match points i·1e-4, i·1e-5 lie outside the zone where G·√z has
settled: G·√z = 9.7 − 29i at i·1e-4), so points with subnormal δ took the general float
route: f(1e-160) = 4.2478, f(1e-170) = 0 via the end b's expansion (δ = 0 read as "next to
b"), cdf(5e-324) 77 % low, cdf(1e-320) 2.6 % low, pdf(1e-300) 4e-14 off, and a log(0)
RuntimeWarning in _edge_zone_guess (test_properties_large[attention(0.05, 1.0, 1)]).
"""
import math
import warnings

import mpmath
import numpy as np
import pytest
import sympy as sp

from freeattn import MarchenkoPastur, attention_law
from freeattn.algebraic.polynomial import G, z

THETAS = np.array([1e-170, 1e-160, 1e-150, 1e-100])
#: relative accuracy asked of the float64 route wherever the value is a normal double
REL = 1e-14


def _hard_end_table(law):
    law.cdf(1e-3)
    return next(t for t in law._tables if t["a"] == 0)


def _rel(value, ref):
    return abs(mpmath.mpf(float(value)) - ref) / abs(ref)


def test_mp1_integrand_limit_at_subnormal_delta():
    law = MarchenkoPastur(1)
    t = _hard_end_table(law)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = law._theta_integrand(t, THETAS)
    assert f == pytest.approx(np.full(THETAS.size, 2 / math.pi), rel=1e-12)


def _attention_c():
    """|C| of G ~ C·z^{-1/2} at 0 for attention_law(0.05, 1, 1), 40 digits, from P's exact
    coefficients (the module docstring)."""
    law = attention_law(0.05, 1.0, 1)
    poly = sp.Poly(sp.expand(law.polynomial), G, z)
    assert poly.coeff_monomial(1) == -1 and poly.coeff_monomial(G**2) == 0
    with mpmath.workdps(40):
        c0 = mpmath.mpf(-1)
        c21 = mpmath.mpf(sp.N(poly.coeff_monomial(G**2 * z), 50))
        c42 = mpmath.mpf(sp.N(poly.coeff_monomial(G**4 * z**2), 50))
        disc = mpmath.sqrt(c21**2 - 4 * c42 * c0)
        w = min((-c21 + disc) / (2 * c42), (-c21 - disc) / (2 * c42))  # C² < 0
        assert w < 0
        return mpmath.sqrt(-w)


def test_attention_leading_coefficient():
    c = _attention_c()
    with mpmath.workdps(40):
        assert abs(c - mpmath.mpf("105.407603233885126485970118649")) <= mpmath.mpf(10) ** -25
    # the float route off the axis, where the next term is ~1e-8 relative
    zz = 1j * 1e-20
    law = attention_law(0.05, 1.0, 1)
    g = law._cauchy_upper(np.array([zz]))[0] * np.sqrt(zz)
    assert abs(g.real) <= 1e-7 * float(c) and g.imag == pytest.approx(-float(c), rel=1e-7)


def test_attention_integrand_limit_at_subnormal_delta():
    law = attention_law(0.05, 1.0, 1)
    t = _hard_end_table(law)
    limit = float(_attention_c() * mpmath.sqrt(t["b"] - t["a"]) / mpmath.pi)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = law._theta_integrand(t, THETAS)
    assert f == pytest.approx(np.full(THETAS.size, limit), rel=1e-12)


@pytest.mark.parametrize("x", [1e-200, 1e-300, 1e-320, 5e-324])
def test_attention_pdf_cdf_next_to_the_hard_end(x):
    """Before: cdf(5e-324) 0.774 low, cdf(1e-320) 0.0257 low, pdf(1e-300) 4.2e-14 off."""
    law = attention_law(0.05, 1.0, 1)
    c = _attention_c()
    with mpmath.workdps(40):
        xm = mpmath.mpf(x)
        pdf = c / (mpmath.pi * mpmath.sqrt(xm))
        cdf = 2 * c * mpmath.sqrt(xm) / mpmath.pi
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _rel(law.pdf(x), pdf) <= REL
        assert _rel(law.cdf(x), cdf) <= REL
    # the law's mpmath route (the θ-integral at the working precision)
    assert _rel(law.pdf(x, dps=30), pdf) <= REL
    assert _rel(law.cdf(x, dps=30), cdf) <= REL


@pytest.mark.parametrize("q", [1e-60, 1e-100, 1e-150])
def test_attention_ppf_next_to_the_hard_end(q):
    law = attention_law(0.05, 1.0, 1)
    c = _attention_c()
    with mpmath.workdps(40):
        ref = (mpmath.pi * mpmath.mpf(q) / (2 * c)) ** 2
    assert _rel(law.ppf(q), ref) <= 4 * REL
    assert _rel(law.ppf(q, dps=30), ref) <= 4 * REL
    # below cdf(5e-324) ~ 1.5e-160 the quantile is the smallest positive double
    assert law.ppf(1e-161) == 5e-324 and law.cdf(5e-324) >= 1e-161


def test_hard_end_without_puiseux_data_takes_no_log_of_zero(monkeypatch):
    """The kind: a hard end at 0 whose Puiseux data are missing (withheld here) sends points
    with subnormal or zero δ to the general float route; _edge_zone_guess leaves them there
    without a log of 0 (the RuntimeWarning of test_properties_large[attention(0.05, 1.0, 1)]
    before the match retry).  Points with a normal δ keep the limit."""
    law = attention_law(0.05, 1.0, 1)
    monkeypatch.setattr(law, "_tiny_levels", lambda wp: None)
    t = _hard_end_table(law)
    assert law._tiny_z is None
    limit = float(_attention_c() * mpmath.sqrt(t["b"] - t["a"]) / mpmath.pi)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = law._theta_integrand(t, THETAS)
    assert np.all(np.isfinite(f)) and np.all(f >= 0)
    assert f[2:] == pytest.approx(np.full(2, limit), rel=1e-12)  # θ = 1e-150, 1e-100
