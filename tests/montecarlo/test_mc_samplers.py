"""Samplers: normalisation, reproducibility, worker-count invariance, validation."""
import math
import warnings

import numpy as np
import pytest

from freeattn.montecarlo import (
    AttentionModel,
    draw_seed,
    moment_intervals,
    run_draws,
    sample,
    softmax_rows,
    theta1,
)


def test_softmax_rows_overflow_safe():
    rng = np.random.default_rng(0)
    logits = 10.0 * 40.0 * rng.standard_normal((50, 60))  # beta=10 times huge scores
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = softmax_rows(logits)
    assert np.all(np.isfinite(a))
    np.testing.assert_allclose(a.sum(axis=1), 1.0)
    # the inverse temperature applied inside equals softmax of the scaled logits
    np.testing.assert_allclose(softmax_rows(logits / 400.0, scale=400.0), a, rtol=1e-12,
                               atol=1e-300)
    with pytest.raises(ValueError, match="scale"):
        softmax_rows(logits, scale=0.0)


def test_beta_ten_draw_is_finite():
    m = AttentionModel(beta=10.0, n=64, d_k=64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = sample(m, 3)
    assert np.all(np.isfinite(d.softmax)) and np.all(np.isfinite(d.gaussian))
    assert d.softmax.shape == (64,) and d.softmax_top.shape == (3,)


def test_gaussian_mean_squared_singular_value_is_theta1():
    beta = 1.0
    m = AttentionModel.from_ratios(beta, 200, gamma_k=1.0)
    draws = run_draws(m, 8, seed=11, workers=1)
    iv = moment_intervals([d.gaussian for d in draws], orders=(1,))[1]
    assert iv.contains(theta1(beta)), (iv, theta1(beta))
    # softmax mean is close too (finite-size bias: about 6% at n = 200, 1.5% at n = 1000)
    soft = np.mean([d.softmax.mean() for d in draws])
    assert abs(soft / theta1(beta) - 1) < 0.1


@pytest.mark.parametrize("kw", [
    dict(kind="attention", heads=4),
    dict(kind="head_average", heads=4),
    dict(kind="values", heads=4, kv_heads=2),
    dict(kind="mha", heads=4, d_o=100),
    dict(kind="mha", heads=4, tied=True),
])
def test_gaussian_normalisation_each_kind(kw):
    n = 160
    m = AttentionModel(beta=0.8, n=n, d_k=n // 4, **kw)
    draws = run_draws(m, 6, seed=5, workers=1)
    iv = moment_intervals([d.gaussian for d in draws], orders=(1,))[1]
    # limit means in closed form (MATH.md §2, (C.20)), independent of the law objects
    t1, t2, h = theta1(0.8), 0.64, m.heads
    mean = {"attention": t1, "head_average": t1, "values": m.gamma_v * t1,
            "mha": m.gamma_o * (t1 + h * t2 / m.gamma_k) if m.tied else m.gamma_o * t1}[m.kind]
    # E trace/n is exact for the Gaussian model of attention/head_average; for values and
    # mha the finite-n mean equals the limit mean only up to O(1/n)
    tol = 0.0 if m.kind in ("attention", "head_average") else 0.03 * mean
    assert iv.low - tol <= mean <= iv.high + tol, (iv, mean)
    assert all(d.gaussian.shape == (n,) for d in draws)


def test_zero_eigenvalues_are_counted():
    m = AttentionModel(beta=1.0, n=120, d_k=60, heads=2, kind="mha", d_o=40)
    d = sample(m, 0)
    assert d.softmax.size == 120
    assert np.count_nonzero(d.softmax == 0.0) == 80  # rank d_O = 40
    assert np.count_nonzero(d.gaussian == 0.0) == 80
    # single head: A^⊥ 1 = 0 exactly, one zero eigenvalue
    d1 = sample(AttentionModel(beta=1.0, n=100, d_k=100), 0)
    assert np.count_nonzero(d1.softmax == 0.0) == 1
    np.testing.assert_allclose(d1.softmax_top, np.sqrt(d1.softmax[::-1][:3]))


def test_reproducible_by_seed_and_seed_sequence():
    m = AttentionModel(beta=1.0, n=80, d_k=40, heads=2)
    a, b, c = sample(m, 7), sample(m, 7), sample(m, 8)
    np.testing.assert_array_equal(a.softmax, b.softmax)
    np.testing.assert_array_equal(a.gaussian, b.gaussian)
    assert not np.array_equal(a.softmax, c.softmax)
    # draw i of a run is SeedSequence(seed).spawn(k)[i]
    kids = np.random.SeedSequence(4).spawn(3)
    assert draw_seed(4, 2).generate_state(4).tolist() == kids[2].generate_state(4).tolist()
    # the softmax draw does not depend on whether the Gaussian model is drawn
    np.testing.assert_array_equal(sample(m, 7, gaussian=False).softmax, a.softmax)


def test_worker_count_invariance():
    m = AttentionModel(beta=1.0, n=150, d_k=150)
    one = run_draws(m, 3, seed=2, workers=1)
    two = run_draws(m, 3, seed=2, workers=2)
    for x, y in zip(one, two):
        assert x.softmax.tobytes() == y.softmax.tobytes()
        assert x.gaussian.tobytes() == y.gaussian.tobytes()


def test_custom_orthogonal_input():
    n, d = 40, 50
    q, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((d, n)))
    x = math.sqrt(d) * q.T  # x x^T / d = I_n
    m = AttentionModel(beta=1.0, n=n, d_k=n, d=d, x=x)
    assert sample(m, 0).softmax.shape == (n,)
    with pytest.raises(ValueError, match="x must satisfy"):
        AttentionModel(beta=1.0, n=n, d_k=n, d=d, x=2 * x)


@pytest.mark.parametrize("kw, match", [
    (dict(beta=0.0), "beta"),
    (dict(beta=27.0), r"beta must lie in the closed interval \[1e-06, 20\]"),  # θ₁ overflows
    (dict(beta=1e-300), "beta must lie in"),  # θ₁ = 0: no limit mean
    (dict(n=1), "n must be an integer >= 2"),
    (dict(d=10), r"d must be an integer >= n=20"),
    (dict(heads=4, kv_heads=3), "kv_heads"),
    (dict(tied=True, d_v=5), "tied"),
    (dict(kind="cross"), "kind"),
])
def test_validation(kw, match):
    args = dict(beta=1.0, n=20, d_k=10)
    args.update(kw)
    with pytest.raises(ValueError, match=match):
        AttentionModel(**args)


def test_from_ratios_integer_widths():
    m = AttentionModel.from_ratios(1.0, 512, 1.5, heads=12)
    assert m.d_k == 64 and m.gamma_k == pytest.approx(1.5)
    with pytest.raises(ValueError, match="gamma_k"):
        AttentionModel.from_ratios(1.0, 100, 1.0, heads=3)
    with pytest.raises(ValueError, match="gamma_k"):
        AttentionModel.from_ratios(1.0, 100, -1.0)
    with pytest.raises(ValueError, match="draws"):
        run_draws(m, 0)


@pytest.mark.slow
def test_spawn_workers_match_in_process():
    m = AttentionModel(beta=1.0, n=100, d_k=50, heads=2)
    spawned = run_draws(m, 2, seed=9, workers=2, start_method="spawn")
    local = run_draws(m, 2, seed=9, workers=1)
    for x, y in zip(local, spawned):
        assert x.softmax.tobytes() == y.softmax.tobytes()
        assert x.gaussian.tobytes() == y.gaussian.tobytes()


@pytest.mark.parametrize("kw, match", [
    (dict(tied="no"), "tied must be True or False"),
    (dict(x="abc"), "x must be a real numeric array"),
    (dict(x=np.eye(20) * (1 + 1j)), "x must be a real numeric array"),
])
def test_type_errors(kw, match):
    args = dict(beta=1.0, n=20, d_k=10)
    args.update(kw)
    with pytest.raises(TypeError, match=match):
        AttentionModel(**args)


def test_input_is_copied_and_float32_input_accepted():
    n = 30
    x = (math.sqrt(n) * np.eye(n)).astype(np.float32)  # x x^T / d = I_n up to float32 rounding
    m = AttentionModel(beta=1.0, n=n, d_k=n, x=x)
    x[0, 0] = 99.0  # editing the caller's array afterwards does not change the model
    assert m.x[0, 0] == pytest.approx(math.sqrt(n), rel=1e-6) and m.x.dtype == np.float64


def test_sample_equals_draw_i_of_a_run_bit_for_bit():
    # sample() pins BLAS to one thread as run_draws does, so both give the same bits
    m = AttentionModel(beta=1.0, n=120, d_k=120)
    run = run_draws(m, 3, seed=5, workers=2)
    one = sample(m, draw_seed(5, 1))
    assert one.softmax.tobytes() == run[1].softmax.tobytes()
    assert one.gaussian.tobytes() == run[1].gaussian.tobytes()
    free = sample(m, draw_seed(5, 1), blas_threads=None)
    np.testing.assert_allclose(free.softmax, one.softmax, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="blas_threads"):
        sample(m, 0, blas_threads=4)


def test_numpy_integer_seeds():
    m = AttentionModel(beta=1.0, n=20, d_k=20)
    a = sample(m, np.uint64(2**64 - 1), gaussian=False)
    b = sample(m, 2**64 - 1, gaussian=False)
    assert a.softmax.tobytes() == b.softmax.tobytes()


def test_a_draw_too_big_for_memory_is_refused_before_allocating():
    m = AttentionModel(beta=1.0, n=10**6, d_k=10**6)  # about 40 TB per draw
    assert m.draw_bytes() > 3e13
    with pytest.raises(MemoryError, match="GiB"):
        sample(m, 0)
    with pytest.raises(MemoryError, match="reduce n"):
        run_draws(m, 2, 0, workers=1)


def test_draw_bytes_bounds_the_arrays_of_a_draw():
    # the estimate covers at least Q, K, the logits and both Grams
    m = AttentionModel(beta=1.0, n=100, d_k=50, heads=2)
    assert m.draw_bytes() >= 8 * (2 * 100 * 100 + 3 * 100 * 100)
    assert m.draw_bytes(gaussian=False) < m.draw_bytes()


def test_workers_are_capped_by_the_memory_available(monkeypatch):
    import importlib

    samplers = importlib.import_module("freeattn.montecarlo.samplers")
    m = AttentionModel(beta=1.0, n=60, d_k=60)
    need = m.draw_bytes()
    monkeypatch.setattr(samplers, "available_memory", lambda: int(2.5 * need))
    assert samplers.check_memory(m, True, 4) == 2
    assert samplers.check_memory(m, True, 1) == 1
    monkeypatch.setattr(samplers, "available_memory", lambda: need // 2)
    with pytest.raises(MemoryError, match="available"):
        samplers.check_memory(m)
    monkeypatch.setattr(samplers, "available_memory", lambda: None)  # OS does not say
    assert samplers.check_memory(m, True, 3) == 3


def test_available_memory_is_positive_and_at_most_physical():
    from freeattn.montecarlo import available_memory

    have = available_memory()
    if have is None:
        pytest.skip("this OS does not report memory")
    import os

    assert 0 < have <= os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def test_start_method_is_checked_even_with_one_worker():
    m = AttentionModel(beta=1.0, n=20, d_k=20)
    with pytest.raises(ValueError, match="start_method"):
        run_draws(m, 1, 0, workers=1, start_method="bogus")


@pytest.mark.parametrize("kw", [
    dict(kind="attention", heads=6),
    dict(kind="head_average", heads=6, kv_heads=2),
    dict(kind="values", heads=6, kv_heads=3),
    dict(kind="mha", heads=6, kv_heads=1, d_o=50),
    dict(kind="mha", heads=6, tied=True),
])
def test_batched_heads_equal_the_per_head_loop(kw, monkeypatch):
    """Heads in stacks (one batched GEMM) give the draw of the per-head loop (same noise
    stream; GEMM rounding only)."""
    from freeattn.montecarlo import samplers

    m = AttentionModel(beta=1.0, n=60, d_k=10, **kw)
    seed = np.random.SeedSequence(4)
    loop = samplers._sample(m, seed, True, 3, head_chunk=1)
    monkeypatch.setattr(samplers, "HEAD_STACK_BYTES", 4 * 8 * 60 * 60)  # stacks of 4: 4 + 2
    stacked = samplers._sample(m, seed, True, 3)
    for a, b in ((loop.softmax, stacked.softmax), (loop.gaussian, stacked.gaussian)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12 * b.max())
