"""Support edges of subordination laws (SubordinationLaw._refine_edges: every edge polished
at once as a real critical point of the system from the support scan, checked on both sides)
against independent references: the algebraic route at 30 digits, and for compound free
Poisson laws of empirical laws the critical points of x(ω) = ω(1 − t) + t ω² G_μ(ω) found by
mpmath at 30 digits from the direct sum G_μ(ω) = Σ w_i/(ω − a_i)."""
import mpmath
import numpy as np
import pytest
import sympy as sp

from freeattn import (AlgebraicLaw, Empirical, Semicircle, compound_free_poisson,
                      free_additive_convolution)
from freeattn.algebraic.polynomial import G, z
from freeattn.laws.discrete import Discrete

R = sp.Rational


def discrete_polynomial(points, weights):
    """P(G, z) = G Π(z − a_i) − Σ w_i Π_{j≠i}(z − a_j): the discrete law as an algebraic law."""
    prod = sp.prod([z - a for a in points])
    return G * prod - sum(w * sp.prod([z - b for b in points if b != a]) for a, w in zip(points, weights))


def assert_edges(sub, ref, rel):
    assert len(sub) == len(ref)
    for (a, b), (c, d) in zip(sub, ref):
        assert abs(a - float(c)) <= rel * max(1.0, abs(float(c)))
        assert abs(b - float(d)) <= rel * max(1.0, abs(float(d)))


def test_nested_edges_against_algebraic():
    # (Bernoulli ⊞ Bernoulli) ⊞ Discrete([0, 3]): the bracket-first route had the edge
    # 3.171819107754117... off by 5.4e-10 (the nested input's warm values near the edge)
    S = "subordination"
    inner = free_additive_convolution(Discrete([0.0, 1.0]), Discrete([0.0, 1.0]), method=S)
    law = free_additive_convolution(inner, Discrete([0.0, 3.0]), method=S)
    b = AlgebraicLaw(discrete_polynomial([0, 1], [R(1, 2), R(1, 2)]))
    b3 = AlgebraicLaw(discrete_polynomial([0, 3], [R(1, 2), R(1, 2)]))
    ref = free_additive_convolution(free_additive_convolution(b, b, method="algebraic"), b3,
                                    method="algebraic").support(dps=30)
    assert_edges(law.support(), ref, 1e-14)


def test_semicircle_plus_discrete_edges_against_algebraic():
    # issue 21 item 19's first pair: two intervals, the gap between them 0.033 wide
    pts, ws = [R(-21, 8), R(-1, 4), R(7, 4)], [R(5, 16), R(7, 16), R(1, 4)]
    law = free_additive_convolution(Semicircle(1.625), Discrete([float(p) for p in pts],
                                                                [float(w) for w in ws]),
                                    method="subordination")
    ref = free_additive_convolution(Semicircle(R(13, 8)), AlgebraicLaw(discrete_polynomial(pts, ws)),
                                    method="algebraic").support(dps=30)
    assert_edges(law.support(), ref, 1e-14)


def critical_edges_mp(law, a, w, t):
    """The edges of π(μ, t) at 30 digits: x(ω) at the real critical points ω of
    x(ω) = ω(1 − t) + t ω² G_μ(ω), Newton (mpmath.findroot) from the float solution at each
    float edge."""
    out = []
    with mpmath.workdps(30):
        am = [mpmath.mpf(float(v)) for v in a]
        wm = [mpmath.mpf(float(v)) for v in w]
        tm = mpmath.mpf(t)

        def g(om, k):  # G^(k)(ω)/(−1)^k k!
            return mpmath.fsum(wi / (om - ai) ** (k + 1) for ai, wi in zip(am, wm))

        def dx(om):
            return (1 - tm) + 2 * tm * om * g(om, 0) - tm * om ** 2 * g(om, 1)

        for e in np.ravel(law.support()):
            if e == 0:
                out.append(mpmath.mpf(0))
                continue
            u, _, _ = law._solve_float(np.array([e + 0j]))
            om = mpmath.findroot(dx, mpmath.mpf(float(u[0][0].real)))
            out.append(om * (1 - tm) + tm * om ** 2 * g(om, 0))
    return [(out[k], out[k + 1]) for k in range(0, len(out), 2)]


@pytest.mark.parametrize("n,t,count", [(1000, 2.0, 2), (1000, 0.5, 3), (400, 3.0, None)])
def test_compound_poisson_of_empirical_edges_against_mpmath(n, t, count):
    rng = np.random.default_rng(0 if n == 1000 else 7)
    x = rng.standard_normal(n) ** 2
    law = compound_free_poisson(Empirical(x), t)
    sup = law.support()
    if count is not None:
        assert len(sup) == count
    mu = Empirical(x)
    assert_edges(sup, critical_edges_mp(law, mu.points, mu.weights, t), 1e-13)
    # the atom at 0: max(0, 1 − t) (Nica & Speicher 2006, Prop. 12.11)
    assert law.atoms() == ([(0.0, pytest.approx(1 - t, rel=1e-14))] if t < 1 else [])


#: π(Discrete([1, 7/4, 4], [0.3, 0.3, 0.4]), 0.2) (binary values of 0.3, 0.4, 0.2): x(ω) at
#: the four real roots of the numerator of x′(ω), x(ω) = ω(1 − t) + t ω² G_μ(ω), sympy
#: Poly.nroots at 40 digits on the exact rationals (degree 6, two roots complex)
NARROW_GAP_EDGES = [("0.42236323958258780605646073653831", "2.4098571799790905918143812044868"),
                    ("2.4293230194989614139979338891384", "6.8164977111949074312224114689906")]
#: edges of a subordination law: relative accuracy asked of the float route
EDGE_RTOL = 1e-14


def test_edge_of_gap_holding_one_scan_point_by_newton_from_inside(monkeypatch):
    # the gap (2.40986, 2.42932) holds a single point of the support scan: both its edges
    # start the critical-point Newton from that point, which finds only one of them; the
    # other is retried from its inside point instead of the 3-round sub-grid bracket (the old
    # route bracketed it: 3 more solves; π(Empirical(10⁵ samples), 2): 10 of 12 edges)
    from freeattn.convolution.subordination_edges import SupportEdges

    def no_bracket(self, *args):
        raise AssertionError("bracket route taken")

    monkeypatch.setattr(SupportEdges, "_bracket", no_bracket)
    law = compound_free_poisson(Discrete([1.0, 1.75, 4.0], [0.3, 0.3, 0.4]), 0.2)
    sup = law.support()
    assert len(sup) == 2
    for (a, b), (c, d) in zip(sup, NARROW_GAP_EDGES):
        assert abs(a - float(c)) <= EDGE_RTOL * float(c)
        assert abs(b - float(d)) <= EDGE_RTOL * float(d)
    # and the pinned values are the roots: x′ = 0 there to 30 digits
    w = sp.Symbol("w")
    G_mu = sum(R(m) / (w - R(a)) for a, m in zip([1.0, 1.75, 4.0], [0.3, 0.3, 0.4]))
    xw = w * (1 - R(0.2)) + R(0.2) * w**2 * G_mu
    P = sp.Poly(sp.numer(sp.together(sp.diff(xw, w))), w)
    ref = sorted(sp.N(xw.subs(w, sp.re(r)), 32) for r in P.nroots(n=40) if abs(sp.im(r)) < 1e-30)
    assert [float(v) for v in ref] == [float(v) for ab in NARROW_GAP_EDGES for v in ab]
