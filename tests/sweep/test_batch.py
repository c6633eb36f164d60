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
    assert checked >= 40, res["why"]
    assert set(res["why"]) == set(np.flatnonzero(res["fallback"]))
