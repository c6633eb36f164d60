"""check(), assert_spectrum_matches and the Table D.2 comparison, end to end."""
import json
import math

import numpy as np
import pytest

from freeattn.attention import attention_law
from freeattn.laws import MarchenkoPastur
from freeattn.montecarlo import AttentionModel, check, compare_draws, run_draws
from freeattn.testing import assert_spectrum_matches


class Dilated:
    """The push-forward of ``law`` by x -> s x (duck-typed law interface)."""

    def __init__(self, law, s):
        self.law, self.s = law, s

    def pdf(self, x):
        return np.asarray(self.law.pdf(np.asarray(x, float) / self.s)) / self.s

    def cdf(self, x):
        return self.law.cdf(np.asarray(x, float) / self.s)

    def ppf(self, q):
        return self.s * np.asarray(self.law.ppf(q))

    def mean(self):
        return self.s * float(self.law.mean())

    def moment(self, k):
        return self.s ** k * float(self.law.moment(k))

    def support(self):
        return [(self.s * a, self.s * b) for a, b in self.law.support()]

    def atoms(self):
        return [(self.s * a, p) for a, p in self.law.atoms()]


@pytest.fixture(scope="module")
def law11():
    return attention_law(1.0, 1.0)


@pytest.fixture(scope="module")
def run400(law11):
    model = AttentionModel.from_ratios(1.0, 400, 1.0)
    return check(law11, model, draws=3, seed=0, workers=1, ks_tol=0.04, rel_w1_tol=0.08)


def test_check_attention_law_passes(run400, law11):
    r = run400
    assert r.passed, r.summary()
    assert r.gaussian.ks < r.softmax.ks  # softmax converges more slowly (MATH.md §5)
    assert r.gaussian.ks < 0.015
    assert r.gaussian.moments[1].contains(law11.mean())
    d = r.to_dict()
    assert set(d) >= {"softmax", "gaussian", "softmax_vs_gaussian", "passed"}
    assert set(d["softmax_vs_gaussian"]) >= {"ks", "rel_w1"}
    assert len(d["top_singular_values"]["softmax"]) == 3
    assert "PASS" in r.summary()


def test_same_mean_marchenko_pastur_fails(run400, law11):
    mp = Dilated(MarchenkoPastur(1.0), law11.mean())
    assert mp.mean() == pytest.approx(law11.mean())
    _, gauss, _ = compare_draws(mp, run400.samples, orders=())
    _, gauss_true, _ = compare_draws(law11, run400.samples, orders=())
    assert gauss.ks > 3 * gauss_true.ks
    res = check(mp, run400.model, draws=3, seed=0, workers=1, ks_tol=0.04, rel_w1_tol=0.08)
    assert not res.passed and res.failures()
    with pytest.raises(AssertionError, match="does not match"):
        assert_spectrum_matches(mp, run400.model, draws=3, ks_tol=0.04, rel_w1_tol=0.08)


def test_exclude_top_removes_outliers(run400, law11):
    res = check(law11, run400.model, draws=3, seed=0, workers=1, exclude_top=3, orders=(1,))
    # same draws, the top 3 eigenvalues removed from both models
    assert res.softmax.moments[1].mean < run400.softmax.moments[1].mean
    np.testing.assert_array_equal(res.samples[0].softmax, run400.samples[0].softmax)
    with pytest.raises(ValueError, match="exclude_top"):
        check(law11, run400.model, draws=1, exclude_top=400)


def test_check_validation(law11):
    m = AttentionModel.from_ratios(1.0, 50, 1.0)
    with pytest.raises(ValueError, match="target"):
        check(law11, m, target="nope")
    with pytest.raises(ValueError, match="ks_tol"):
        check(law11, m, ks_tol=0)
    with pytest.raises(ValueError, match="seed"):
        check(law11, m, seed=-1)
    with pytest.raises(TypeError, match="model must be an AttentionModel"):
        check(law11, "m")
    with pytest.raises(TypeError, match="law must be a law object"):
        check("nu_inf", m)


def test_seed_sequence_and_one_draw(law11):
    m = AttentionModel.from_ratios(1.0, 60, 1.0)
    res = check(law11, m, draws=1, seed=np.random.SeedSequence(3), workers=1, ks_tol=1,
                rel_w1_tol=10)
    same = check(law11, m, draws=1, seed=3, workers=1, ks_tol=1, rel_w1_tol=10)
    assert res.softmax.ks == same.softmax.ks
    data = res.to_dict()
    json.dumps(data, allow_nan=False)
    assert data["seed"] == {"entropy": 3, "spawn_key": []}
    # one draw: no interval, so whether the law lies inside it is unknown, not False
    assert data["softmax"]["moments"]["1"]["low"] is None
    assert data["softmax"]["moments"]["1"]["law_within_interval"] is None


def test_bert_base_mha_softmax_vs_gaussian():
    """Table D.2, BERT-base dims: rel W1 1.66% ± 0.23, KS 0.0109 ± 0.0010 (10 draws)."""
    m = AttentionModel(beta=1.0, n=512, d=768, heads=12, d_k=64, d_v=64, kind="mha")
    mean = 768 / 512 * (math.e - 1)  # Table D.2's normaliser (d_O/n)(e − 1)
    draws = run_draws(m, 2, seed=0, workers=1)
    _, _, pair = compare_draws(None, draws, limit_mean=mean)
    assert 0.005 < pair.rel_w1 < 0.03
    assert 0.004 < pair.ks < 0.02
    assert all(np.count_nonzero(d.softmax == 0) == 0 for d in draws)  # d_O > n: full rank


@pytest.mark.slow
def test_done_when_n1000(law11):
    m = AttentionModel.from_ratios(1.0, 1000, 1.0)
    r = check(law11, m, draws=2, seed=0)
    assert r.softmax.ks < 0.02 and r.gaussian.ks < 0.006


@pytest.mark.slow
def test_finite_size_sweep_rate(law11):
    from freeattn.montecarlo import finite_size_sweep

    res = finite_size_sweep(law11, [250, 500, 1000, 2000], beta=1.0, gamma_k=1.0, draws=4)
    assert res.rates["gaussian_ks"][0] > 0.5
    assert res.rates["softmax_ks"][0] > 0.2
    rows = res.rows
    assert rows[-1]["softmax_ks"] < rows[0]["softmax_ks"]


def test_dask_scheduler_same_result(law11):
    distributed = pytest.importorskip("dask.distributed")
    m = AttentionModel.from_ratios(1.0, 100, 1.0)
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1) as client:
        via_dask = run_draws(m, 2, seed=3, scheduler=client)
    local = run_draws(m, 2, seed=3, workers=1)
    for x, y in zip(local, via_dask):
        assert x.softmax.tobytes() == y.softmax.tobytes()


def _refuse_draws(monkeypatch):
    import importlib

    def refuse(*args, **kwargs):
        raise AssertionError("a draw ran before the bad input was reported")

    monkeypatch.setattr(importlib.import_module("freeattn.montecarlo.runner"), "_draw_task",
                        refuse)


@pytest.mark.parametrize("ns, kw, match", [
    ([80, 81], dict(heads=2), "gamma_k"),            # d_K not an integer for the 2nd cell
    ([80, 10], dict(exclude_top=20), "exclude_top"),
    ([80, 80], {}, "distinct"),
    ([80, 10**7], {}, "GiB"),
])
def test_sweep_validates_every_cell_before_drawing(monkeypatch, law11, ns, kw, match):
    from freeattn.montecarlo import finite_size_sweep

    _refuse_draws(monkeypatch)
    with pytest.raises((ValueError, MemoryError), match=match):
        finite_size_sweep(law11, ns, beta=1.0, gamma_k=1.0, draws=2, workers=1, **kw)


def test_grid_validates_every_cell_before_drawing(monkeypatch):
    from freeattn.montecarlo import linearization_grid

    _refuse_draws(monkeypatch)
    with pytest.raises(ValueError, match="beta"):
        linearization_grid(lambda b: attention_law(b, 1.0), [1.0, 5.0], [80], gamma_k=1.0)
    with pytest.raises(ValueError, match="factor"):
        linearization_grid(lambda b: attention_law(b, 1.0), [1.0], [80], gamma_k=1.0,
                           factor=0.5)


def test_check_validates_orders_before_drawing(monkeypatch, law11):
    _refuse_draws(monkeypatch)
    with pytest.raises(ValueError, match="orders"):
        check(law11, AttentionModel.from_ratios(1.0, 50, 1.0), orders=(0,))


def test_sweep_accepts_a_seed_sequence_and_reports_its_settings(law11):
    from freeattn.montecarlo import finite_size_sweep

    a = finite_size_sweep(law11, [40, 60], beta=1.0, gamma_k=1.0, draws=1, workers=1,
                          seed=np.random.SeedSequence(2))
    b = finite_size_sweep(law11, [40, 60], beta=1.0, gamma_k=1.0, draws=1, workers=1, seed=2)
    assert a.rows == b.rows
    data = b.to_dict()
    json.dumps(data, allow_nan=False)
    assert data["settings"]["draws"] == 1 and data["settings"]["seed"] == 2
    assert data["settings"]["beta"] == 1.0 and data["settings"]["exclude_top"] == 0


def test_check_refuses_a_law_of_another_kind_or_other_parameters():
    from freeattn import attention_law

    law = attention_law(1.0, 1.0, 4)
    with pytest.raises(TypeError, match="kind 'attention'.*kind 'values'"):
        check(law, AttentionModel(beta=1.0, n=40, d_k=10, heads=4, kind="values"), draws=1)
    with pytest.raises(ValueError, match="beta=1, but the model has beta=0.5"):
        check(law, AttentionModel(beta=0.5, n=40, d_k=10, heads=4), draws=1)
    with pytest.raises(ValueError, match="gamma_k"):
        check(law, AttentionModel(beta=1.0, n=40, d_k=20, heads=4), draws=1)
    # law=None checks the model against its own limit law
    res = check(None, AttentionModel(beta=1.0, n=40, d_k=10, heads=4), draws=1, workers=1,
                ks_tol=1, rel_w1_tol=10)
    assert res.softmax.law_moments[1] == pytest.approx(math.e - 1, rel=1e-14)
