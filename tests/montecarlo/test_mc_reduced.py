"""method='reduced' (the sampler Table D.2 uses) samples the same joint law as 'direct'.

References: the literal construction ('direct', every matrix of the paper formed), exact
Wishart moments, and the exact conditional mean of the Gaussian model given the weights.
"""
import math

import numpy as np
import pytest
from scipy import stats

from freeattn.montecarlo import AttentionModel, run_draws, sample
from freeattn.montecarlo import samplers
from freeattn.montecarlo.metrics import ks_two_sample, rel_w1_two_sample


def _within(values, exact, z=4.5):
    """``exact`` lies within z standard errors of the mean of ``values``."""
    x = np.asarray(values, dtype=float)
    se = x.std(ddof=1) / math.sqrt(x.size)
    return abs(x.mean() - exact) <= z * se, (x.mean(), exact, se)


def test_bartlett_factor_is_a_wishart_factor():
    rng = np.random.default_rng(0)
    r, dof, reps = 4, 7, 4000
    s = np.array([(lambda f: f @ f.T)(samplers.bartlett_factor(r, dof, rng)) for _ in range(reps)])
    low = samplers.bartlett_factor(r, dof, rng)
    assert np.all(np.triu(low, 1) == 0) and np.all(np.diag(low) > 0)
    # Wishart_r(I, dof): E S = dof I, Var S_ii = 2 dof, Var S_ij = dof (i != j)
    ok, info = _within(s[:, 1, 1], dof)
    assert ok, info
    ok, info = _within(s[:, 3, 0], 0.0)
    assert ok, info
    ok, info = _within(s[:, 2, 2] ** 2, 2 * dof + dof**2)
    assert ok, info
    ok, info = _within(s[:, 3, 1] ** 2, dof)
    assert ok, info
    with pytest.raises(ValueError, match="dof >= r"):
        samplers.bartlett_factor(5, 4, rng)


@pytest.mark.parametrize("n, p, d_o, joint", [
    (6, 40, 60, True),    # p > 2n and d_O >= 2n: joint row space, Bartlett factor
    (6, 200, 9, True),    # joint row space, d_O < 2n: U^T W^O drawn directly
    (10, 12, 30, False),  # p <= 2n: U = I, Bartlett factor of W^O W^Oᵀ
])
def test_output_stage_has_the_exact_wishart_moments(n, p, d_o, joint):
    """G_m = C_m W Wᵀ C_mᵀ / p with ONE W for both models: E tr G_s = d_O tr(C_s C_sᵀ)/p and
    E tr(G_s G_g) = [k² |A|_F² + k tr(A²) + k tr(A)²]/p², A = C_sᵀ C_g, k = d_O (from
    E[S A S] = k² A + k Aᵀ + k tr(A) I for S ~ Wishart(I, k)); independent W's for the two
    models would give k² |A|_F² / p² alone."""
    rng = np.random.default_rng(1)
    c_s = rng.standard_normal((n, p))
    c_g = 0.6 * c_s + rng.standard_normal((n, p))
    assert (samplers._output_rank(n, 2, p, d_o) < p) is joint
    reps = 3000
    tr_s, tr_sg = [], []
    for _ in range(reps):
        g_s, g_g = samplers._output_grams(c_s, c_g, d_o, rng)
        assert g_s.shape == g_g.shape == (n, n)
        tr_s.append(np.trace(g_s))
        tr_sg.append(np.sum(g_s * g_g))
    k, a = d_o, c_s.T @ c_g
    ok, info = _within(tr_s, k * np.sum(c_s**2) / p)
    assert ok, info
    exact = (k * k * np.sum(a * a) + k * np.trace(a @ a) + k * np.trace(a) ** 2) / p**2
    ok, info = _within(tr_sg, exact)
    assert ok, info


@pytest.mark.parametrize("p, d_o", [(40, 60), (12, 30)])
def test_output_stage_uses_one_w_for_both_models(p, d_o):
    # equal head outputs give equal Grams (to rounding) in both routes
    rng = np.random.default_rng(2)
    c = rng.standard_normal((6, p))
    g_s, g_g = samplers._output_grams(c, c.copy(), d_o, rng)
    np.testing.assert_allclose(g_g, g_s, rtol=0, atol=1e-10 * np.abs(g_s).max())


@pytest.mark.parametrize("kw", [
    dict(kind="values", heads=4, kv_heads=2),
    dict(kind="mha", heads=4, d_o=30),            # d_O < h d_V: W^O itself, same stream
    dict(kind="mha", heads=4, kv_heads=1, d_o=20),
    dict(kind="values", heads=4, rho=0.6),         # partial K–V correlation
])
def test_reduced_softmax_model_is_the_direct_one(kw):
    """Same weights: the softmax spectrum of 'reduced' (row sums and the centring term applied
    to A_r V_r, the scale folded into Q) equals the literal A_r^⊥ V_r to rounding."""
    m = AttentionModel(beta=1.0, n=50, d_k=10, **kw)
    a = sample(m, 3, method="direct")
    b = sample(m, 3, method="reduced")
    np.testing.assert_allclose(b.softmax, a.softmax, rtol=1e-9, atol=1e-12 * a.softmax.max())
    assert b.gaussian.shape == (50,) and not np.allclose(b.gaussian, a.gaussian)


def _fixed_weights(monkeypatch, seed=0):
    real = samplers.draw_seed
    monkeypatch.setattr(samplers, "draw_seed",
                        lambda s, i: real(seed, 0) if i == 0 else real(s, 1))
    return real(seed, 0)


def test_gaussian_noise_through_values_conditional_law(monkeypatch):
    """Weights fixed, noise varied: E tr(C_g C_gᵀ) given the weights equals
    Σ_r (|β Q_r K_rᵀ V_r / sqrt(d_K)|² + (θ₁ − θ₂) n |V_r|²)/n² for 'reduced' and 'direct',
    and the two methods' laws of tr(G²) and λ_max agree (two-sample t tests)."""
    n, h, dk = 30, 3, 6
    m = AttentionModel(beta=1.0, n=n, d_k=dk, heads=h, kind="values", kv_heads=1)
    wseed = _fixed_weights(monkeypatch)
    rng = np.random.default_rng(wseed)  # replay: Q, then K, then V (one K/V head)
    q, k, v = (rng.standard_normal((n, h * dk)), rng.standard_normal((n, dk)),
               rng.standard_normal((n, dk)))
    th1, th2 = math.expm1(1.0), 1.0
    exact = sum(np.sum((q[:, r * dk:(r + 1) * dk] @ k.T @ v / math.sqrt(dk)) ** 2)
                + (th1 - th2) * n * np.sum(v**2) for r in range(h)) / n**2
    stats_ = {}
    for method in ("direct", "reduced"):
        draws = [samplers._sample(m, np.random.SeedSequence(s), True, 1, method=method)
                 for s in range(400)]
        g = [d.gaussian for d in draws]
        ok, info = _within([x.sum() for x in g], exact)
        assert ok, (method, info)
        stats_[method] = ([np.sum(x**2) for x in g], [x[-1] for x in g])
        # the softmax model does not see the noise
        assert all(np.array_equal(d.softmax, draws[0].softmax) for d in draws)
    for i in range(2):
        assert stats.ttest_ind(stats_["direct"][i], stats_["reduced"][i],
                               equal_var=False).pvalue > 1e-3


def _table_stats(m, draws, method, seed):
    mean = m.config.table_d2_mean()
    res = run_draws(m, draws, seed=seed, workers=1, method=method)
    return ([100 * rel_w1_two_sample(d.softmax, d.gaussian, mean) for d in res],
            [ks_two_sample(d.softmax, d.gaussian) for d in res])


@pytest.mark.parametrize("kw", [
    dict(heads=4, d_k=12, d_o=120),                # U = I route, Bartlett
    dict(heads=4, d_k=24, n=30, d_o=130),          # joint row space route
    dict(heads=4, d_k=12, tied=True, d_o=120),     # K = V
    dict(heads=4, d_k=12, rho=0.6, d_o=120),       # partial K–V correlation ρ
])
def test_table_statistics_agree_between_methods(kw):
    """Table D.2's two statistics (rel. W₁, KS) have the same law under both methods."""
    args = dict(beta=1.0, n=48, kind="mha")
    args.update(kw)
    m = AttentionModel(**args)
    direct = _table_stats(m, 120, "direct", 1)
    reduced = _table_stats(m, 120, "reduced", 2)
    for a, b in zip(direct, reduced):
        assert stats.ttest_ind(a, b, equal_var=False).pvalue > 1e-3, (np.mean(a), np.mean(b))


@pytest.mark.slow
def test_table_statistics_agree_between_methods_bert_shape():
    """BERT-base's shape at n = 256 (h = 12, d_K = 32, d_O = 384), 30 draws each."""
    m = AttentionModel(beta=1.0, n=256, d=384, d_k=32, heads=12, kind="mha")
    direct = _table_stats(m, 30, "direct", 11)
    reduced = _table_stats(m, 30, "reduced", 12)
    for a, b in zip(direct, reduced):
        assert stats.ttest_ind(a, b, equal_var=False).pvalue > 1e-3, (np.mean(a), np.mean(b))


def test_method_is_validated_and_reduced_needs_less_memory():
    m = AttentionModel(beta=1.0, n=64, d_k=16, heads=4, kind="mha", d_o=64)
    with pytest.raises(ValueError, match="method must be one of"):
        sample(m, 0, method="fast")
    with pytest.raises(ValueError, match="method"):
        run_draws(m, 1, workers=1, method="fast")
    from freeattn.attention import MHAConfig

    gpt3 = AttentionModel.from_config(MHAConfig.preset("gpt3-175b"), "mha")
    assert gpt3.draw_bytes(method="reduced") < gpt3.draw_bytes(method="direct")
    # GPT-3's row goes through the 2n-dimensional joint row space (h d_V = 12288 > 2n)
    assert samplers._output_rank(2048, 2, 12288, 12288) == 4096


@pytest.mark.slow
def test_table_statistics_agree_between_methods_dinov3_full_size():
    """DINOv3-L/16's row at full size (n = 261, h d_V = 1024 > 2n: the joint row space
    route), 60 draws per method (measured once with 100: direct 2.970 % / 0.0282, reduced
    2.885 % / 0.0283, t-test p = 0.33 / 0.78)."""
    from freeattn.attention import MHAConfig

    cfg = MHAConfig.preset("dinov3-l16")
    m = AttentionModel.from_config(cfg, "mha")
    assert samplers._output_rank(m.n, 2, m.heads * m.d_v, m.d_o) == 2 * m.n
    direct = _table_stats(m, 60, "direct", 100)
    reduced = _table_stats(m, 60, "reduced", 200)
    for a, b in zip(direct, reduced):
        assert stats.ttest_ind(a, b, equal_var=False).pvalue > 1e-3, (np.mean(a), np.mean(b))


@pytest.mark.parametrize("kw", [
    dict(heads=4, d_k=12, d_o=120),             # U = I route, Bartlett
    dict(heads=4, d_k=24, n=30, d_o=130),       # joint row space route
    dict(heads=4, d_k=12, tied=True, d_o=120),  # K = V
    dict(heads=4, d_k=12, kind="values", kv_heads=2),
    dict(heads=4, d_k=12, d_o=30),              # rank d_O: 18 structural zeros
    dict(heads=4, d_k=12, d=64, d_o=48),        # h d_V = d_O = n: a hard edge at 0
])
def test_float32_draw_is_the_float64_draw_rounded(kw):
    """precision='float32': the same random numbers rounded; every eigenvalue within 1e-4 of
    the limiting mean of the float64 one (measured ~4e-6 here, 2e-4 at Kayyam's full size),
    and the structural zeros, and only those, exactly 0."""
    args = dict(beta=1.0, n=48, kind="mha")
    args.update(kw)
    m = AttentionModel(**args)
    a = sample(m, 3, method="reduced")
    b = sample(m, 3, method="reduced", precision="float32")
    for x, y in ((a.softmax, b.softmax), (a.gaussian, b.gaussian)):
        assert y.dtype == np.float64 and y.shape == x.shape
        np.testing.assert_allclose(y, x, rtol=0, atol=1e-4 * x.mean())
        assert np.count_nonzero(y == 0) == np.count_nonzero(x == 0)
    mean = m.config.table_d2_mean()
    assert abs(rel_w1_two_sample(a.softmax, a.gaussian, mean)
               - rel_w1_two_sample(b.softmax, b.gaussian, mean)) < 1e-4


def test_float32_needs_reduced_and_a_values_kind():
    m = AttentionModel(beta=1.0, n=32, d_k=8, heads=4, kind="mha")
    with pytest.raises(ValueError, match="precision='float32' needs method='reduced'"):
        sample(m, 0, precision="float32")
    with pytest.raises(ValueError, match="precision='float32' needs"):
        sample(AttentionModel(beta=1.0, n=32, d_k=8), 0, method="reduced", precision="float32")
    with pytest.raises(ValueError, match="precision must be one of"):
        run_draws(m, 1, workers=1, method="reduced", precision="half")
    # through run_draws: draw i equals sample(..., draw_seed(seed, i))
    from freeattn.montecarlo import draw_seed

    run = run_draws(m, 2, seed=5, workers=1, method="reduced", precision="float32")
    one = sample(m, draw_seed(5, 1), method="reduced", precision="float32")
    assert run[1].softmax.tobytes() == one.softmax.tobytes()
