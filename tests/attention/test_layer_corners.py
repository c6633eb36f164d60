"""Issue 21 item 18: layer laws at the corners of their domain.

* The MQA layer with h = 6754 (support ~[2.7e10, 4.0e10]): its discriminant's coefficients in
  z span 9e734 … 2e852, and the top three, small against the largest, were zeroed as
  rounding noise, which moved the right end by 4.1e-7 of the width (and the left end by
  6.7e-8).  Right values: the edges polished on P = ∂_G P = 0 at 50 digits
  (mpmath.findroot on the law's polynomial, no discriminant), pinned below and recomputed.
* The partial K–V (ρ) layer laws raised "None: the mass of the pole at 0.0 is ambiguous":
  the exact atom at 0 was attached to the dilation, not to the algebraic law whose poles are
  read.  Its mass, from the structure: π(μ_ρ, γ_K)({0}) = max(0, 1 − γ_K(1 − μ_ρ({0}))) with
  μ_ρ({0}) = max(0, 1 − h/γ_K), and ⊠ π_{γ_O} takes the larger of that and max(0, 1 − γ_O)
  (Belinschi 2003), i.e. 1 − min(1, γ_K, γ_O) as h ≥ 1; pinned as exact numbers.
"""
import mpmath
import pytest
import sympy as sp

from freeattn import mha_output_law
from freeattn.algebraic.polynomial import G, z

MQA = (3.582222907147184, 6754, 37.39654800700691, 0.008522530657039801, 759.7039908457708)
#: the edges (left, right) and G there, polished on P = ∂_G P = 0 at 60 digits
MQA_EDGES = ("27471984559.47566233392053602445833830083",
             "39795811361.49741736993105910916735347927")
MQA_EDGE_G = ("3.30423195186943703631040210007e-11", "2.74460296466670389829984054791e-11")
#: float64 ends against the 40-digit values, relative to the width (the breakpoints are
#: found at 80 digits and rounded: what remains is the double's rounding of ~4e10)
FLOAT_END_RTOL = 1e-14
#: the 30-digit route's ends against the 40-digit values, relative to the end
MP_END_RTOL = 1e-28


def _edge_polished(P, x0, g0, dps=60):
    """(x_e, G_e) with P = ∂_G P = 0, by mpmath.findroot at ``dps`` digits."""
    pg = sp.Poly(P, G)
    cf = [sp.lambdify(z, c, "mpmath") for c in pg.all_coeffs()]
    n = pg.degree()
    with mpmath.workdps(dps):
        def p(g, x):
            return mpmath.polyval([c(x) for c in cf], g)

        def dp(g, x):
            c = [f(x) for f in cf]
            return mpmath.polyval([c[i] * (n - i) for i in range(n)], g)
        g, x = mpmath.findroot([p, dp], (mpmath.mpf(g0), mpmath.mpf(x0)))
        return +x, +g


def test_mqa_h6754_edges_against_polished_double_root():
    law = mha_output_law(*MQA, sharing="mqa")
    (a, b), = law.support()
    width = b - a
    for end, ref in zip((a, b), MQA_EDGES):
        assert abs(end - float(mpmath.mpf(ref))) <= FLOAT_END_RTOL * width
    (a30, b30), = law.support(dps=30)
    for end, ref in zip((a30, b30), MQA_EDGES):
        assert abs(end / mpmath.mpf(ref) - 1) <= MP_END_RTOL


def test_mqa_h6754_pinned_edges_recomputed():
    # the pins are a double root of the law's polynomial (independent of its discriminant)
    P = mha_output_law(*MQA, sharing="mqa").polynomial
    for x_ref, g_ref in zip(MQA_EDGES, MQA_EDGE_G):
        x, g = _edge_polished(P, x_ref, g_ref)
        with mpmath.workdps(60):
            assert abs(x / mpmath.mpf(x_ref) - 1) < mpmath.mpf(10) ** -38
            assert abs(g / mpmath.mpf(g_ref) - 1) < mpmath.mpf(10) ** -28


def test_mqa_h6754_right_end_is_an_edge():
    law = mha_output_law(*MQA, sharing="mqa")
    (a, b), = law.support()
    width = b - a
    inside = [float(law.pdf(b - f * width)) for f in (1e-3, 1e-5, 1e-7)]
    # a square-root edge: pdf > 0 inside, falling like sqrt(distance) (×10 per 100×)
    assert all(p > 0 for p in inside)
    for p1, p2 in zip(inside, inside[1:]):
        assert p1 / p2 == pytest.approx(10.0, rel=1e-3)
    # beyond it the density is 0 and G is real (the branch left the axis as a real root)
    assert float(law.pdf(b + 1e-7 * width)) == 0.0
    g = complex(law.cauchy_transform(b + 1e-7 * width))
    assert abs(g.imag) <= 1e-12 * abs(g.real)
    # and the old end (4.1e-7 of the width inside) is inside the support
    assert float(law.pdf(b - 4.1e-7 * width)) > 0


RHO_CASES = {
    "h=15": ((1.4642804628913366, 15, 0.399471485768876, 0.399471485768876,
              0.4040559994395943, 0.6577230836687467), sp.Rational(1) - sp.Rational(
                  0.399471485768876)),
    "h=3": ((1.8714428928332714, 3, 0.005488083179013263, 0.005488083179013263,
             304.35273423699846, 0.5545530642617585), sp.Rational(1) - sp.Rational(
                 0.005488083179013263)),
    "h=13": ((0.9651737014469873, 13, 0.2705284048087346, 0.2705284048087346,
              0.9378113327268824, 0.2563134906732225), sp.Rational(1) - sp.Rational(
                  0.2705284048087346)),
}


@pytest.mark.parametrize("case", sorted(RHO_CASES))
def test_rho_layer_atom_at_zero_exact(case):
    args, mass = RHO_CASES[case]
    law = mha_output_law(*args[:5], sharing="mqa", rho=args[5])
    # the structure's exact mass reaches the algebraic law whose pole at 0 is read
    with mpmath.workdps(40):
        exact = law.base._exact_atom_at_zero(40)
        assert exact == mpmath.mpf(sp.Float(mass, 45))
