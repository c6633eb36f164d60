"""The chain of models of Table 1 (Hayase & Karakida 2026, Section 4): paired samplers,
their exact identities, the feature covariance (4.11) and the fitted rates."""
import math

import numpy as np
import pytest
import scipy.linalg
from scipy import stats

from freeattn._validation import ParameterError
from freeattn.montecarlo.chain import (MODELS, STEPS, chain_draw, chain_matrices, chain_model,
                                       feature_covariance, spectral_distances)
from freeattn.montecarlo.chain_sweep import ChainResult, chain_rates, fit_slope
from freeattn.montecarlo.samplers import theta1, theta2


@pytest.fixture(scope="module")
def small():
    model = chain_model(1.0, 60, gamma_k=1.0, heads=2)
    return model, chain_matrices(model, 3)


def test_shapes_and_the_normalizer_identity(small):
    """(4.3): Y_r^f P^perp = D_r sqrt(n) A_r^perp, head by head (all scaled by 1/sqrt(h))."""
    model, m = small
    n, h = model.n, model.heads
    for name in MODELS:
        assert m[name].shape == (n, h * n)
    for r in range(h):
        cols = slice(r * n, (r + 1) * n)
        lhs = m["features_perp"][:, cols]
        rhs = m["normalizers"][r][:, None] * m["softmax"][:, cols]
        assert np.max(np.abs(lhs - rhs)) < 1e-12


def test_centering_is_the_rank_one_conditional_mean(small):
    """(4.4): Y^f - Y°^f = 1 m^T/sqrt(n) with m_j = e^{b^2((Sigma_K)_jj - 1)/2} - 1."""
    model, m = small
    n, h = model.n, model.heads
    diff = (m["features"] - m["centred"]) * math.sqrt(h)
    sk = m["sigma_k"]
    for r in range(h):
        mean = np.expm1(model.beta ** 2 * (np.diag(sk[r // (h // model.kv_heads)]) - 1) / 2)
        block = diff[:, r * n:(r + 1) * n]
        assert np.max(np.abs(block - mean[None, :] / math.sqrt(n))) < 1e-13
    assert np.linalg.matrix_rank(diff, tol=1e-10) <= h


def test_gaussian_end_is_exactly_the_gaussian_model(small):
    """W~ = sqrt(n) Y^G Sigma_G^{-1/2}: Y^G[Sigma_G] = W~ Sigma_G^{1/2}/sqrt(n) = Y^G
    (square roots here by scipy.linalg.sqrtm, a second algorithm)."""
    model, m = small
    n = model.n
    th1, th2 = theta1(model.beta), theta2(model.beta)
    for r in range(model.heads):
        cols = slice(r * n, (r + 1) * n)
        sg = m["sigma_g"][r]
        assert np.allclose(sg, th2 * m["sigma_k"][r] + (th1 - th2) * np.eye(n), atol=1e-14)
        root = np.real(scipy.linalg.sqrtm(sg))
        yg = m["gaussian_g"][:, cols]
        w = yg @ np.linalg.inv(root) * math.sqrt(n)
        again = w @ root / math.sqrt(n)
        assert np.max(np.abs(again - yg)) < 1e-11
        # Y^G[Sigma_f] = W~ Sigma_f^{1/2}/sqrt(n) with the same W~
        rootf = np.real(scipy.linalg.sqrtm(m["sigma_f"][r]))
        assert np.max(np.abs(w @ rootf / math.sqrt(n) - m["gaussian_f"][:, cols])) < 1e-9


def test_coupled_rows_are_standard_gaussian():
    """Given the keys, W~ = sqrt(n) Y^G Sigma_G^{-1/2} has i.i.d. N(0, I) rows: its Gram
    W~^T W~ / n has the Marchenko-Pastur edges (1 +- 1)^2 of ratio 1 up to finite n."""
    n = 200
    model = chain_model(1.0, n, gamma_k=1.0, heads=1)
    m = chain_matrices(model, 0)
    lam, u = np.linalg.eigh(m["sigma_g"][0])  # Sigma_G's own eigenvectors
    w = m["gaussian_g"] @ (u / np.sqrt(lam)) @ u.T * math.sqrt(n)
    assert abs(w.mean()) < 0.01 and w.var() == pytest.approx(1.0, abs=0.03)
    ev = np.linalg.eigvalsh(w.T @ w / n)
    assert ev[-1] == pytest.approx(4.0, abs=0.5) and ev[0] < 0.05


def test_feature_covariance_monte_carlo():
    """(4.11)/(B.13): covariance of f(K q/sqrt(d_K)) over queries q for fixed keys."""
    rng = np.random.default_rng(1)
    beta, n, d_k, reps = 0.8, 5, 40, 200_000
    k = rng.standard_normal((n, d_k))
    sk = k @ k.T / d_k
    x = np.expm1(beta * rng.standard_normal((reps, d_k)) @ k.T / math.sqrt(d_k) - beta ** 2 / 2)
    emp = np.cov(x.T)
    exact = feature_covariance(sk, beta)
    se = np.sqrt((np.diag(exact)[:, None] * np.diag(exact)[None, :] + exact ** 2) / reps)
    assert np.all(np.abs(emp - exact) < 6 * se * 3)  # heavy tails: 3x the Gaussian se
    assert np.allclose(x.mean(axis=0), np.expm1(beta ** 2 * (np.diag(sk) - 1) / 2), atol=0.02)
    assert np.linalg.eigvalsh(exact)[0] > 0


def test_spectral_distances_against_scipy():
    rng = np.random.default_rng(2)
    a, b = rng.exponential(size=300), rng.exponential(size=300) * 1.1
    d = spectral_distances(a, b, 2.0)
    assert d["ks"] == pytest.approx(stats.ks_2samp(a, b).statistic, abs=1e-15)
    assert d["w1"] == pytest.approx(stats.wasserstein_distance(a, b) / 2.0, rel=1e-12)
    assert d["dm2"] == pytest.approx(abs(np.mean(a ** 2) - np.mean(b ** 2)) / 4.0, rel=1e-12)


def test_fit_slope_against_linregress():
    ns = np.repeat([100, 200, 400, 800], 3)
    rng = np.random.default_rng(4)
    y = 3.0 * ns ** -0.5 * np.exp(0.05 * rng.standard_normal(ns.size))
    fit = fit_slope(ns, y)
    lr = stats.linregress(np.log(ns), np.log(y))
    assert fit.slope == pytest.approx(lr.slope, rel=1e-12)
    hw = stats.t.ppf(0.975, ns.size - 2) * lr.stderr
    assert fit.half_width == pytest.approx(hw, rel=1e-10)
    exact = fit_slope([10, 20, 40], [1.0, 0.5, 0.25])
    assert exact.slope == pytest.approx(-1.0, abs=1e-14) and exact.half_width < 1e-12
    with pytest.raises(ValueError):
        fit_slope([10, 10, 10], [1, 2, 3])


def test_chain_draw_and_the_lemma_bounds():
    """Lemma 4.2 per draw: rank(Y^f - Y^f P^perp) <= h and ||sqrt(n) A^perp - Y^f P^perp||
    <= max|1/D - 1| ||Y^f P^perp||; centering: KS <= 2/n (rank one)."""
    model = chain_model(1.0, 120, gamma_k=1.0, heads=2)
    d = chain_draw(model, 7)
    m = chain_matrices(model, 7)
    assert d.rank_normalizers <= 2
    norm = np.linalg.svd(m["features_perp"], compute_uv=False)[0]
    inv = np.max(np.abs(1 / m["normalizers"] - 1))
    assert d.steps["normalizers"]["op"] <= inv * norm * (1 + 1e-9)
    assert d.steps["normalizers"]["op"] == pytest.approx(
        np.linalg.svd(m["softmax"] - m["features_perp"], compute_uv=False)[0], rel=1e-8)
    assert d.steps["centering"]["ks"] <= 2 / 120
    assert set(d.steps) == {s.name for s in STEPS} | {"end_to_end"}
    assert "op" not in d.steps["gaussian_rows"]  # not coupled by a matrix identity


def test_chain_refuses_narrow_keys_and_other_kinds():
    with pytest.raises(ParameterError) as e:
        chain_draw(chain_model(2.0, 20, gamma_k=1.0, heads=2), 0)  # d_K = 10 <= 16
    assert e.value.param == "model"
    with pytest.raises(ParameterError) as e:
        chain_rates(1.0, (50, 50))
    assert e.value.param == "ns"


def test_chain_rates_small_grid():
    """A fast version of the slow rate test: β = 1, n = 100..400.  The covariance step's
    normalised Frobenius error falls like n^{-1/2} (Lemma B.14), the centering step's KS is
    at most 2/n, every rank <= h."""
    res = chain_rates(1.0, (100, 200, 400), draws=2, seed=1)
    assert max(max(r) for r in res.ranks) <= 2
    frob = res.fits["covariance"]["frob"]
    assert -0.75 < frob.slope < -0.35
    assert res.fits["centering"]["ks"].slope < -0.9
    ver = res.verdicts()
    assert ver["centering"]["ks"]["verdict"] == "within bound"
    assert "covariance" in res.table() and res.to_dict()["ns"] == [100, 200, 400]
    import json

    again = ChainResult.from_dict(json.loads(json.dumps(res.to_dict())))
    assert again.fits["covariance"]["frob"].slope == frob.slope
    assert again.table() == res.table()


@pytest.mark.slow
def test_chain_rates_beta_one_agree_with_table_1():
    """β = 1, n = 250..2000, 4 draws: Lemma 4.2's operator-norm slope contains -1/2; the
    covariance step's Frobenius slope is within 0.05 of -1/2; all bounds hold."""
    res = chain_rates(1.0, (250, 500, 1000, 2000), draws=4, seed=0)
    ver = res.verdicts()
    assert ver["normalizers"]["op"]["verdict"] == "agrees"
    assert abs(res.fits["covariance"]["frob"].slope + 0.5) < 0.05
    for step in ver.values():
        for v in step.values():
            assert v["verdict"] != "not converged"
