"""float64 pdf/cdf/ppf next to a hard end at 0, down to the smallest positive doubles (issue 21,
items 7 and 16).

Next to a hard edge ρ ~ C·δ^{-α} at 0, G = z^{a₀}X(z) overflows float64 P(G, z) (|G|^deg beyond
1e250) long before δ underflows; there G comes from the nested Puiseux data at 0 alone, matched
to the branch on the scale of the law's structure next to 0 (the nearest other breakpoint, not
the law's overall scale), and the θ-integrand ρ·x′ is formed from mantissas and binary exponents
of δ = w·sin²(θ/2), so that quadrature nodes whose δ underflows still carry their weight.

References, independent of the float64 route:
- MarchenkoPastur(1): ρ(x) = √(4 − x)/(2π√x), cdf(x) = (s√(4 − s²)/2 + 2 asin(s/2))/π with
  s = √x (closed forms, evaluated here at 50 digits); its reflection x → −x for the end b;
- attention_law(0.01, 0.001, 1) (support [0, 2e-8] ∪ [0.0913, 0.1092]) and
  attention_law(0.02, 0.001, 1): the values below are the law's own mpmath route at dps=40
  (the θ-integral at the working precision, a separate algorithm from the float64 tables),
  printed to 30 digits.
"""
import math

import mpmath
import numpy as np
import pytest

from freeattn import MarchenkoPastur, attention_law
from freeattn.algebraic.local import _FLOAT_RANGE_DECADES

#: relative accuracy asked of the float64 route wherever the value is a normal double
REL = 1e-14


def _mp1_cdf(x):
    with mpmath.workdps(50):
        s = mpmath.sqrt(mpmath.mpf(x))
        return (s * mpmath.sqrt(4 - s * s) / 2 + 2 * mpmath.asin(s / 2)) / mpmath.pi


def _mp1_pdf(x):
    with mpmath.workdps(50):
        x = mpmath.mpf(x)
        return mpmath.sqrt(4 - x) / (2 * mpmath.pi * mpmath.sqrt(x))


def _rel(value, ref):
    return abs(mpmath.mpf(float(value)) - mpmath.mpf(ref)) / abs(mpmath.mpf(ref))


XS = [1e-10, 1e-100, 1e-200, 1e-250, 1e-300, 1e-320, 5e-324]


@pytest.mark.parametrize("x", XS)
def test_mp1_pdf_cdf_at_tiny_x(x):
    """Issue 21 item 7: MarchenkoPastur(1).pdf(5e-324) was 1.4996e161 (right 1.4320e161),
    cdf(5e-324) 0 (right 1.415e-162), cdf(1e-300) 1.3e-14 off."""
    law = MarchenkoPastur(1)
    assert _rel(law.pdf(x), _mp1_pdf(x)) <= REL
    assert _rel(law.cdf(x), _mp1_cdf(x)) <= REL


@pytest.mark.parametrize("x", XS)
def test_reflected_mp1_at_the_right_end(x):
    """The same at the end b = 0 of the reflection (sf from the right end, φ-side nodes)."""
    law = MarchenkoPastur(1).affine(0, -1)
    assert _rel(law.pdf(-x), _mp1_pdf(x)) <= REL
    assert _rel(law.sf(-x), _mp1_cdf(x)) <= REL


def test_mp1_arrays_mix_tiny_and_ordinary_points():
    """Points routed to the Puiseux data and to the tables in one call, monotone."""
    law = MarchenkoPastur(1)
    x = np.array([5e-324, 1e-320, 1e-300, 1e-200, 1e-10, 0.5, 2.0])
    c = law.cdf(x)
    assert np.all(np.diff(c) > 0)
    for xv, cv in zip(x, c):
        assert _rel(cv, _mp1_cdf(xv)) <= REL


@pytest.mark.parametrize("q", [1e-10, 1e-100, 1e-150, 1e-160])
def test_mp1_ppf_deep_tail(q):
    """ppf inverts the cdf to relative accuracy (the log-u iteration polished in u)."""
    law = MarchenkoPastur(1)
    x = law.ppf(q)
    with mpmath.workdps(50):
        ref = mpmath.findroot(lambda v: _mp1_cdf(v) - q, (mpmath.pi * q / 2) ** 2)
    # to relative accuracy, or to the spacing of the subnormals (5e-324) below 2.2e-308
    assert abs(mpmath.mpf(float(x)) - ref) <= max(4 * REL * ref, 5e-324)


# attention_law(β, γ, 1) with a narrow support component [0, ~1e-8] at a hard end 0:
# (x, cdf, pdf) and (q, ppf) from the dps=40 route
ATTENTION = {
    (0.01, 0.001): {
        "x": [(1e-200, "8.99851047658302521773896393786e-97",
               "4.4992552382915126894049701339e+103"),
              (1e-300, "8.99851047658302541102170230923e-147",
               "4.49925523829151259276360094822e+153"),
              (5e-324, "2.00015178941580539233416586634e-158",
               "2.02417614567204224211102656405e+165")],
        "q": [(1e-100, "1.23497665110523807646928554318e-208"),
              (1e-150, "1.23497665110523804263946746244e-308")],
    },
    # a second instance: component [0, 1.6e-6], P's coefficients ~1e48 (the Puiseux
    # candidates ~1569i were dropped as "zero" against that size)
    (0.03, 0.002): {
        "x": [(1e-200, "9.99200708570149400813855188645e-98",
               "4.9960035428507470934964284135e+102"),
              (1e-300, "9.99200708570149422276101594605e-148",
               "4.9960035428507469861851963837e+152"),
              (5e-324, "2.22098211746598864594098705798e-159",
               "2.24765892565179070339591255948e+164")],
        "q": [(1e-100, "1.00160050150467643114635155868e-206"),
              (1e-150, "1.00160050150467640370942574703e-306")],
    },
}


@pytest.mark.parametrize("args", list(ATTENTION))
def test_attention_hard_end_deep_tail(args):
    """Issue 21 item 16: attention_law(0.01, 0.001, 1).cdf(1e-200) was 0 (right 9.0e-97),
    pdf(1e-200) 0 (right 4.5e103), ppf(1e-100) 7.16e-158 (right 1.235e-208)."""
    law = attention_law(*args, 1)
    ref = ATTENTION[args]
    for x, c, p in ref["x"]:
        assert _rel(law.cdf(x), c) <= REL, x
        assert _rel(law.pdf(x), p) <= REL, x
    for q, x in ref["q"]:
        assert _rel(law.ppf(q), x) <= REL, q
    # below cdf(5e-324) ~ 2e-158 the quantile (the smallest x with cdf(x) ≥ q) is the
    # smallest positive double: cdf(0) = 0 < q
    assert law.ppf(1e-160) == 5e-324 and law.cdf(5e-324) >= 1e-160


def test_attention_tiny_radius_is_the_structure_scale():
    """The Puiseux data at 0 are matched on the scale of the component next to 0."""
    law = attention_law(0.01, 0.001, 1)
    (a, b), _ = law.support()
    assert a == 0.0 and b < 1e-7
    # the zone within 1/20 of the component's width
    assert law._TINY_Z * law._tiny_radius == pytest.approx(b / 20, rel=1e-12)
    assert law._tiny_z is not None


@pytest.mark.parametrize("make", [lambda: MarchenkoPastur(1), lambda: attention_law(0.01, 0.001, 1),
                                  lambda: attention_law(1.0, 1.0), lambda: attention_law(0.7, 2.3)])
def test_tiny_bound_dominates_the_matched_leading_term(make):
    """Issue 22: :meth:`_tiny_only` answers from the Newton polygon's bound (no branch
    continuation for the match points) where no sheet can leave float64's range.  The bound
    must dominate the leading term C₀z^{a₀} that the matched Puiseux data pick, and the
    answer must be the one of the full route (the matched data) at every point."""
    law = make()
    law.support()
    levels = law._tiny_z
    assert levels is not None
    a0, c0 = levels["levels"][0]
    bound = law._tiny_bound
    assert bound is not None
    assert any(a == float(a0) and math.log10(abs(complex(c0))) <= lr for a, lr in bound)
    deg = len(law._num.coefficients_mp()) - 1
    zs = np.array([1e-300, 1e-200, 1e-120, 1e-60, 1e-20, 1e-12, 5e-324])
    radius = law._TINY_Z * law._tiny_radius
    zs = zs[zs < radius]
    logz = np.log(zs)
    near = np.ones(zs.shape, bool)
    got = law._tiny_only(zs + 0j, near, logz)
    full = deg * (math.log10(abs(complex(c0))) + float(a0) * logz / math.log(10)) > _FLOAT_RANGE_DECADES
    assert np.array_equal(got, full)
