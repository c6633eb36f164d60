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
