"""G and G′ of discrete laws with many atoms (freeattn.laws.discrete._CauchySum): the
blocked direct sum and the tree code against the plain complex sum, and a compound free
Poisson law of an empirical law built through either route."""
import numpy as np
import pytest

from freeattn import Discrete, Empirical, compound_free_poisson
from freeattn.laws import discrete


def reference(z, a, w):
    diff = z[:, None] - a[None, :]
    g = (w / diff).sum(axis=1)
    dg = -(w / diff**2).sum(axis=1)
    return g, dg, (w / np.abs(diff)).sum(axis=1), (w / np.abs(diff) ** 2).sum(axis=1)


def points(rng, m, lo, hi):
    return np.concatenate([
        rng.uniform(lo, hi, m) + 1j * 10.0 ** rng.uniform(-12, 1, m),   # near the axis
        rng.uniform(lo, hi, m) + 0j,                                      # on it
        rng.uniform(lo, hi, m) - 1j * rng.uniform(0, 3, m),              # lower half-plane
        40 * rng.standard_normal(m) + 1j * rng.uniform(0, 60, m),         # far
    ])


@pytest.mark.parametrize("n,tree", [(300, False), (300, True), (5000, True)])
def test_sum_against_plain_complex_sum(monkeypatch, n, tree):
    rng = np.random.default_rng(n)
    a = np.sort(rng.standard_normal(n) ** 2)
    w = rng.uniform(0.2, 1.8, n)
    w /= w.sum()
    if tree:  # force the tree code for every call
        monkeypatch.setattr(discrete, "_TREE_MIN_ATOMS", 0)
        monkeypatch.setattr(discrete, "_TREE_MIN_PAIRS", 0)
    else:
        monkeypatch.setattr(discrete, "_TREE_MIN_ATOMS", 10**9)
    z = points(rng, 200, -1.0, a[-1] + 1.0)
    law = Discrete(a, w)
    g, dg = law._cauchy_float(z), law._cauchy_derivative_float(z)
    rg, rdg, sg, sdg = reference(z, law.points, law.weights)
    # truncation bound of the expansions (≤ 4e-16) plus rounding, relative to Σ w/|z − a|^k
    assert np.max(np.abs(g - rg) / sg) < 5e-15
    assert np.max(np.abs(dg - rdg) / sdg) < 5e-15


def test_atoms_and_infinity():
    law = Empirical([1.0, 2.0, 2.0, 5.0] * 200 + list(np.linspace(7, 9, 900)))
    z = np.array([2.0 + 0j, 7.0 + 0j, 3.0 + 0j, np.inf + 0j])
    g = law._cauchy_float(z)
    dg = law._cauchy_derivative_float(z)
    assert g[0] == complex(np.inf, 0) and dg[0] == complex(-np.inf, 0)
    assert g[1] == complex(np.inf, 0)
    assert np.isfinite(g[2]) and g[2].imag == 0
    assert g[3] == 0 and dg[3] == 0
    assert complex(law.cauchy_transform(3.0)) == pytest.approx(complex(g[2]), rel=1e-15)


def test_compound_poisson_of_empirical_same_through_tree_and_direct(monkeypatch):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(600) ** 2
    fast = compound_free_poisson(Empirical(x), 2)
    s_fast = fast.support()
    xs = np.linspace(s_fast[0][0], s_fast[0][1], 7)[1:-1]
    p_fast = fast.pdf(xs)
    monkeypatch.setattr(discrete, "_TREE_MIN_ATOMS", 10**9)
    slow = compound_free_poisson(Empirical(x), 2)
    s_slow = slow.support()
    assert len(s_fast) == len(s_slow)
    for (a, b), (c, d) in zip(s_fast, s_slow):
        assert a == pytest.approx(c, rel=1e-10, abs=1e-12) and b == pytest.approx(d, rel=1e-10)
    np.testing.assert_allclose(p_fast, slow.pdf(xs), rtol=1e-10)


def test_order_thresholds_keep_the_stated_bounds():
    # r_p: the largest ratio at which p terms keep the bounds of _TERMS terms at ρ, both
    # checked in mpmath (30 digits) just below r_p and shown maximal just above it
    import mpmath

    P, rho = discrete._TERMS, discrete._RHO
    thr = discrete._order_thresholds()
    assert thr.size == P and np.all(np.diff(thr) > 0) and thr[-1] == rho
    with mpmath.workdps(30):
        rm = mpmath.mpf(rho)
        bg, bd = rm**P / (1 - rm), (P + 1) * rm**P / (1 - rm) ** 2

        def ok(r, p):
            r = mpmath.mpf(r)
            return r**p / (1 - r) <= bg and (p + 1) * r**p / (1 - r) ** 2 <= bd

        for p in range(1, P):
            assert ok(thr[p - 1] * (1 - THRESHOLD_ROUNDING), p)
            assert not ok(thr[p - 1] * (1 + THRESHOLD_MAXIMAL), p)


#: r_p is found in float64 logarithms: the bounds hold to its rounding (r_p 1e-12 lower), and
#: r_p is maximal to 1e-9 (the bounds fail 1e-9 above)
THRESHOLD_ROUNDING = 1e-12
THRESHOLD_MAXIMAL = 1e-9


def test_tree_far_and_mid_points_against_mpmath():
    # far points take a few terms (the root at ratio ~1e-2: ~12), mid points up to _TERMS;
    # G and G′ against mpmath.fsum at 30 digits, relative to Σ w/|z − a|^k: truncation bound
    # (≤ 4e-16) plus rounding of the expansions
    import mpmath

    rng = np.random.default_rng(3)
    a = np.sort(rng.standard_normal(2000) ** 2)
    law = Discrete(a)
    z = np.concatenate([300 * np.exp(1j * rng.uniform(0.1, 3.0, 20)),
                        rng.uniform(-5, 20, 20) + 1j * rng.uniform(2, 8, 20),
                        rng.uniform(0, 9, 20) + 1j * 10.0 ** rng.uniform(-6, 0, 20)])
    eng = discrete._CauchySum(law.points, law.weights)
    g, dg = eng._tree_eval(z)
    with mpmath.workdps(30):
        am = [mpmath.mpf(float(v)) for v in law.points]
        wm = [mpmath.mpf(float(v)) for v in law.weights]
        for zi, gi, di in zip(z, g, dg):
            zm = mpmath.mpc(zi)
            gr = mpmath.fsum(w / (zm - x) for x, w in zip(am, wm))
            dr = -mpmath.fsum(w / (zm - x) ** 2 for x, w in zip(am, wm))
            s1 = mpmath.fsum(w / abs(zm - x) for x, w in zip(am, wm))
            s2 = mpmath.fsum(w / abs(zm - x) ** 2 for x, w in zip(am, wm))
            assert abs(complex(gr) - gi) <= TREE_RTOL * float(s1)
            assert abs(complex(dr) - di) <= TREE_RTOL * float(s2)


#: the tree code against mpmath, relative to Σ w/|z − a|^k (as test_sum_against_plain_complex_sum)
TREE_RTOL = 2e-15
