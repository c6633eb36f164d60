"""The batch evaluator (freeattn.algebraic.batch) against the full law, point by point."""
import numpy as np
import pytest

from freeattn import attention_law
from freeattn.algebraic.batch import evaluate_laws

#: batch and full law agree to this (relative; pdf relative to the point's largest density):
#: both are float64 Newton roots of P's float64 coefficients, edges polished on P = ∂_G P = 0
AGREE = 1e-13


def _single_head_points(n, seed):
    rng = np.random.default_rng(seed)
    betas = rng.uniform(0.3, 2.0, n)
    gks = np.exp(rng.uniform(np.log(0.2), np.log(5.0), n))
    return [(float(b), float(g)) for b, g in zip(betas, gks)]


def _compare(laws, res, x, K):
    checked = 0
    for i, law in enumerate(laws):
        if res["fallback"][i]:
            continue
        checked += 1
        sup = law.support()
        got = res["support"][i]
        assert len(got) == len(sup)
        for (a, b), (c, d) in zip(got, sup):
            assert abs(a - c) <= AGREE * max(1.0, abs(c))
            assert abs(b - d) <= AGREE * max(1.0, abs(d))
        ref_atoms = law.atoms()
        assert len(res["atoms"][i]) == len(ref_atoms)
        for (a, m), (c, n) in zip(res["atoms"][i], ref_atoms):
            assert abs(a - c) <= AGREE * (1 + abs(c)) and abs(m - n) <= AGREE
        mom = np.array([law.moment(k) for k in range(1, K + 1)])
        np.testing.assert_allclose(res["moments"][i], mom, rtol=AGREE, atol=0)
        pdf = law.pdf(x)
        assert np.max(np.abs(res["pdf"][i] - pdf)) <= AGREE * np.max(pdf)
    return checked


def test_single_head_batch_equals_points():
    pts = _single_head_points(60, 7)
    x = np.linspace(0.01, 10, 100)
    laws = [attention_law(b, g) for b, g in pts]
    res = evaluate_laws(laws, x=x, moments=4)
    checked = _compare([attention_law(b, g) for b, g in pts], res, x, 4)
    # most points take the batch route (the rest fell back and say why)
    assert checked >= 55, res["why"]
    assert set(res["why"]) == set(np.flatnonzero(res["fallback"]))


def test_sweep_batch_route_equals_points_route():
    from freeattn import sweep

    betas, gks = [0.4, 0.9, 1.6], [0.3, 1.0, 3.7]  # γ_K < 1 and > 1: hard edge at 0 or not
    x = np.linspace(0.01, 8, 40)
    kw = dict(beta=betas, gamma_k=gks, moments=3, x=x, progress=False)
    fast = sweep(attention_law, route="batch", **kw)
    slow = sweep(attention_law, route="points", **kw)
    assert fast.route == "batch" and slow.route == "points" and slow.fallback is None
    assert fast.fallback.shape == fast.shape and not fast.fallback.all()
    for name in ("left_edge", "right_edge"):
        np.testing.assert_allclose(getattr(fast, name), getattr(slow, name), rtol=AGREE, atol=AGREE)
    for name in ("intervals", "atoms_count"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name))
    np.testing.assert_allclose(fast.moments, slow.moments, rtol=AGREE, atol=0)
    scale = np.max(slow.pdf, axis=-1, keepdims=True)
    assert np.all(np.abs(fast.pdf - slow.pdf) <= AGREE * scale)


def test_sweep_route_bad_input():
    from freeattn import sweep
    from freeattn._validation import ParameterError

    with pytest.raises(ParameterError) as info:
        sweep(attention_law, beta=[1.0], gamma_k=[1.0], route="fast", progress=False)
    assert info.value.param == "route"
    with pytest.raises(ParameterError) as info:
        sweep(attention_law, beta=[1.0], gamma_k=[1.0], x=[1.0], cdf=True, route="batch",
              progress=False)
    assert info.value.param == "route"


def _bert_layer(beta, heads):
    from freeattn import MHAConfig

    return MHAConfig.preset("bert-base", beta=beta, heads=heads, kv_heads=heads).law()


def _assert_grids_agree(fast, slow):
    """A batch grid against the points route: the verified points to AGREE (edges, atoms,
    moments relative, pdf relative to the point's largest density), the fallen ones equal."""
    fb = fast.fallback
    for name in ("left_edge", "right_edge", "atom_mass"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert np.array_equal(a[fb], b[fb]), name
        np.testing.assert_allclose(a[~fb], b[~fb], rtol=AGREE, atol=AGREE)
    for name in ("intervals", "atoms_count"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
    for idx in np.ndindex(fast.shape):
        assert len(fast.atoms[idx]) == len(slow.atoms[idx])
        for (a, m), (c, n) in zip(fast.atoms[idx], slow.atoms[idx]):
            assert abs(a - c) <= AGREE * (1 + abs(c)) and abs(m - n) <= AGREE
    np.testing.assert_allclose(fast.moments, slow.moments, rtol=AGREE, atol=0)
    scale = np.max(slow.pdf, axis=-1, keepdims=True)
    assert np.all(np.abs(fast.pdf - slow.pdf) <= AGREE * scale)
    assert np.array_equal(fast.pdf[fb], slow.pdf[fb])


def test_layer_structure_takes_the_pencil_route():
    """The full layer over (β, h): its discriminant with the varying parameters symbolic is
    beyond DISCRIMINANT_SIZE_LIMIT, so sweep's batch route takes each point's breakpoints
    from its Sylvester pencil (grid.pencil all True) instead of going point by point; every
    point equals the points route (verified ones to AGREE), and each fallen point says why."""
    from freeattn import sweep

    kw = dict(beta=[0.7, 1.2], heads=[2, 12], moments=2, x=np.linspace(0.01, 20, 11),
              progress=False)
    fast = sweep(_bert_layer, route="batch", **kw)
    slow = sweep(_bert_layer, route="points", **kw)
    assert fast.pencil.all() and slow.pencil is None
    assert not fast.fallback.all()
    assert set(fast.fallback_reason) == {tuple(i) for i in np.argwhere(fast.fallback)}
    _assert_grids_agree(fast, slow)


def test_layer_pencil_breakpoints_equal_points():
    """pencil=True: the full layer's breakpoints per point from its Sylvester pencil in
    float64 (the symbolic discriminant is too large).  At 20 random bert-base (β, h) points,
    every point the batch verifies agrees with its law to AGREE; the others fall back and
    say why (on the layer most still do: ladder / mass check, see docs/howto-sweep.md)."""
    rng = np.random.default_rng(3)
    pts = [(float(b), int(h)) for b, h in
           zip(rng.uniform(0.5, 1.5, 20), rng.choice([1, 2, 3, 4, 6, 8, 12], 20))]
    x = np.linspace(0.01, 20, 50)
    with pytest.raises(ValueError):
        evaluate_laws([_bert_layer(b, h) for b, h in pts[:2]], x=x, moments=2)
    res = evaluate_laws([_bert_layer(b, h) for b, h in pts], x=x, moments=2, pencil=True)
    assert set(res["why"]) == set(np.flatnonzero(res["fallback"]))
    assert _compare([_bert_layer(b, h) for b, h in pts], res, x, 2) >= 9, res["why"]


def test_batch_route_over_two_workers_equals_one():
    """route="batch", workers=2: the grid in two chunks over two processes (each keeping the
    grid's varying parameters as batch columns) gives the one-process batch's values."""
    from freeattn import sweep

    kw = dict(beta=[0.4, 0.9, 1.6], gamma_k=[0.3, 1.0, 3.7], moments=3,
              x=np.linspace(0.01, 8, 40), progress=False, route="batch")
    one = sweep(attention_law, **kw)
    two = sweep(attention_law, workers=2, **kw)
    assert two.route == "batch" and np.array_equal(one.fallback, two.fallback)
    assert one.fallback_reason == two.fallback_reason
    for name in ("left_edge", "right_edge", "atom_mass", "moments", "pdf"):
        np.testing.assert_allclose(getattr(two, name), getattr(one, name), rtol=1e-15, atol=0)


def test_layer_grid_with_h1_equals_points():
    """The bench's reduced (β, h) map of the full layer (h = 1, 50, 100; all 9 points fell
    back point by point before the pencil route, 4 of them with the plain pencil): batch
    equals the points route (verified points to AGREE, fallen ones exactly), every fallen
    point says why, and most points are verified."""
    from freeattn import sweep

    kw = dict(beta=[0.5, 1.0, 1.5], heads=[1, 50, 100], moments=2,
              x=np.linspace(0.01, 20, 50), progress=False)
    fast = sweep(_bert_layer, route="batch", **kw)
    slow = sweep(_bert_layer, route="points", **kw)
    assert fast.pencil.all()
    assert (~fast.fallback).sum() >= 5, fast.fallback_reason
    assert set(fast.fallback_reason) == {tuple(i) for i in np.argwhere(fast.fallback)}
    _assert_grids_agree(fast, slow)


def test_pencil_missed_edge_next_to_a_pole_is_caught():
    """At β = 1.448328453291775, h = 34 the equilibrated pencil misses the left edge 0.2424
    next to the pole at 0 (no atom: h d_V > n); the midpoint and the mass check pass with
    support (0, 45.7), the support probes do not.  The batch either falls back or gives the
    law's support."""
    pts = [(1.448328453291775, 34), (1.0, 12), (0.7, 40)]
    laws = [_bert_layer(b, h) for b, h in pts]
    res = evaluate_laws(laws, x=np.linspace(0.01, 20, 11), moments=1, pencil=True)
    assert res["fallback"][0] or res["support"][0][0][0] > 0.24, res["support"][0]
    _compare(laws, res, np.linspace(0.01, 20, 11), 1)  # every verified point equals its law


def test_layer_map_next_to_the_pole_is_verified():
    """The bench's 5 × 5 (β, h) map of the full layer: every point is verified and equals its
    law.  Before, 5 of its 25 points fell back: the pencil scatters the many-fold root at the
    pole 0 into a cluster of real eigenvalues (±1e-6 .. ±5e-3), whose midpoints the ladder
    could not reach (each such pair crept ~1000 rungs); the cluster is told from breakpoints
    by its move under a perturbation of the pencil and dropped (β = 0.5 .. 1.5 at h = 1).  The
    mass contour's crossings were resolved to δ/2 (β = 1, h = 1: mass 1 − 1.1e-6) and the
    atom 7/8 at 0, a double root of the polygon's row, was read 0.875 ± 1.9e-8 (β = 1.5)."""
    from freeattn.algebraic import batch

    pts = [(float(b), int(h)) for b in np.linspace(0.5, 1.5, 5) for h in (1, 25, 50, 75, 100)]
    x = np.linspace(0.01, 20, 50)
    res = evaluate_laws([_bert_layer(b, h) for b, h in pts], x=x, moments=2, pencil=True)
    assert not res["fallback"].any(), res["why"]
    laws = [_bert_layer(b, h) for b, h in pts]
    assert _compare(laws, res, x, 2) == len(pts)
    for bp in res["breakpoints"]:  # the cluster's members next to the pole are gone
        assert not [b for b in bp if 0 < abs(b) < 1e-5], bp
    # the perturbation's verdict, as measured at β = 0.5, h = 1: genuine breakpoints move
    # ≤ 1e-8 of their distance from 0, the cluster's members ≥ 2e-2
    kept = batch._drop_pole_clusters([-1.2, -5e-3, -3e-6, 0.0, 1.4e-5, 5e-3, 0.18], [0.0],
                                     {-1.2: 1e-13, -5e-3: 1e-3, -3e-6: 4e-6, 1.4e-5: 3e-7,
                                      5e-3: 1e-8, 0.18: 1e-12})
    assert kept == [-1.2, 0.0, 5e-3, 0.18]


def test_root_clusters_merge_a_split_multiple_root():
    """A double root split by float64 into 0.875 ± 1.9e-8 (and a double root at 0 split into a
    conjugate pair) is one root each, their mean; distinct roots stay apart."""
    from freeattn.algebraic.batch import _root_clusters

    r = np.roots(np.poly([0.875, 0.875, -0.5, 0.0, 0.0, 0.3]))
    got = sorted(_root_clusters(r), key=lambda v: v.real)
    assert len(got) == 4
    np.testing.assert_allclose([v.real for v in got], [-0.5, 0.0, 0.3, 0.875], atol=1e-12)


def test_ladder_along_paths_equals_the_ladder():
    """ladder_along (each pair of a path from its predecessor) gives the ladder's values at
    the contour-like and axis pairs of single-head laws, to 1e-13 of |G|."""
    from freeattn.algebraic.batch import BatchStructure
    from freeattn.algebraic.ladder import ladder, ladder_along

    laws = [attention_law(b, g) for b, g in _single_head_points(4, 11)]
    res = evaluate_laws(laws, x=np.linspace(0.01, 10, 60), moments=1)
    assert not res["fallback"].any()
    law = laws[0]
    a, b = res["support"][0][-1]
    st = BatchStructure(law._factor, {}, dict(law.values))
    V = np.array([[float(law.values[s]) for s in st.params]])
    cf = st.coefficient_tables(V)
    th = np.linspace(0, np.pi, 65)[1:-1]
    c, A = 0.5 * (a + b), 0.6 * (b - a)
    z = np.r_[c + A * np.exp(1j * th), np.linspace(a, b, 42)[1:-1]]
    path = np.r_[np.zeros(th.size, int), np.ones(40, int)]
    M = z.size
    args = (np.repeat(cf, M, axis=0), z.real, np.full(M, b), np.abs(z.imag))
    near = np.minimum(np.abs(z - a), np.abs(z - b))
    g1, ok1 = ladder(*args, near=near)
    g2, ok2 = ladder_along(*args, path, near=near)
    assert ok1.all() and ok2.all()
    np.testing.assert_allclose(g2, g1, rtol=1e-13)
