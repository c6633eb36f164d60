"""check() of multi-head models draws with method='reduced' by default, and the limit-law
comparison holds with it as with the literal construction ('direct')."""
import json

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

from freeattn._validation import ParameterError
from freeattn.attention import MHAConfig, attention_law
from freeattn.cli.check import check as check_cli
from freeattn.laws import MarchenkoPastur
from freeattn.montecarlo import AttentionModel, check, draw_seed, run_draws, sample
from freeattn.montecarlo.check import default_method
from freeattn.montecarlo.metrics import ks_distance

# GQA layer with every width different (γ_K = 1.5, γ_V = 2, γ_O = 2, h = 4, h_KV = 2)
CFG = MHAConfig(n=160, heads=4, kv_heads=2, d_k=60, d_v=80, d_o=320, sharing="gqa")


@pytest.fixture(scope="module")
def law():
    return CFG.law("mha")


def test_default_method_per_kind():
    mha = AttentionModel(beta=1.0, n=32, d_k=8, heads=4, kind="mha")
    values = AttentionModel(beta=1.0, n=32, d_k=8, heads=4, kind="values")
    att = AttentionModel(beta=1.0, n=32, d_k=8, heads=4)
    assert default_method(mha) == default_method(values) == "reduced"
    assert default_method(mha, "direct") == "direct"
    # kinds without a reduced route record the computation that runs
    assert default_method(att) == default_method(att, "reduced") == "direct"
    with pytest.raises(ParameterError, match="method must be one of") as exc:
        default_method(mha, "fast")
    assert exc.value.param == "method"


def test_check_draws_reduced_by_default_and_passes(law):
    m = AttentionModel.from_config(CFG, "mha")
    res = check(law, m, draws=3, seed=0, workers=1, ks_tol=0.06, rel_w1_tol=0.1)
    assert res.method == "reduced" and res.to_dict()["method"] == "reduced"
    assert "method=reduced" in res.summary()
    # draw i is sample(..., draw_seed(0, i), method='reduced'), bit for bit
    one = sample(m, draw_seed(0, 1), method="reduced")
    assert res.samples[1].gaussian.tobytes() == one.gaussian.tobytes()
    assert res.samples[1].softmax.tobytes() == one.softmax.tobytes()
    assert res.passed, res.summary()
    # measured: Gaussian KS 0.016, softmax 0.040 (finite-n softmax converges more slowly)
    assert res.gaussian.ks < 0.025 and res.gaussian.rel_w1 < 0.04
    assert res.gaussian.moments[1].contains(law.mean())
    direct = check(law, m, draws=3, seed=0, workers=1, ks_tol=0.06, rel_w1_tol=0.1,
                   method="direct")
    assert direct.method == "direct" and direct.passed
    assert direct.samples[1].gaussian.tobytes() != one.gaussian.tobytes()


def test_reduced_check_still_refuses_a_wrong_law(law):
    """A Marchenko–Pastur law with the same mean is far from the reduced draws."""
    m = AttentionModel.from_config(CFG, "mha")
    mean = float(law.mean())
    wrong = MarchenkoPastur(0.5).dilate(mean)
    assert float(wrong.mean()) == pytest.approx(mean)
    res = check(wrong, m, draws=2, seed=0, workers=1, ks_tol=0.06, rel_w1_tol=0.1)
    right = check(law, m, draws=2, seed=0, workers=1, ks_tol=0.06, rel_w1_tol=0.1)
    assert not res.passed and right.passed
    assert res.gaussian.ks > 4 * right.gaussian.ks


def test_law_distances_have_the_same_law_under_both_methods():
    """KS and relative W1 of each model against the limit law, 40 draws per method of a
    small GQA layer: two-sample t tests (independent seeds) do not tell the methods apart."""
    cfg = MHAConfig(n=48, heads=4, kv_heads=2, d_k=18, d_v=24, d_o=96, sharing="gqa")
    law, m = cfg.law("mha"), AttentionModel.from_config(cfg, "mha")
    ks = {}
    for method, seed in (("direct", 1), ("reduced", 2)):
        draws = run_draws(m, 40, seed=seed, workers=1, method=method)
        ks[method] = ([ks_distance(d.softmax, law) for d in draws],
                      [ks_distance(d.gaussian, law) for d in draws])
    for a, b in zip(ks["direct"], ks["reduced"]):
        assert stats.ttest_ind(a, b, equal_var=False).pvalue > 1e-3, (np.mean(a), np.mean(b))


def test_check_method_is_validated_before_any_draw(law, monkeypatch):
    import importlib

    mc_check = importlib.import_module("freeattn.montecarlo.check")
    monkeypatch.setattr(mc_check, "run_draws", lambda *a, **k: pytest.fail("drew"))
    with pytest.raises(ParameterError, match="method"):
        check(law, AttentionModel.from_config(CFG, "mha"), method="literal")


def test_attention_kind_check_records_direct():
    law = attention_law(1.0, 1.0)
    m = AttentionModel.from_ratios(1.0, 60, 1.0)
    res = check(law, m, draws=1, workers=1, ks_tol=1, rel_w1_tol=10, method="reduced")
    assert res.method == "direct"
    same = check(law, m, draws=1, workers=1, ks_tol=1, rel_w1_tol=10)
    assert res.samples[0].gaussian.tobytes() == same.samples[0].gaussian.tobytes()


MHA = ["mha", "--n", "64", "--heads", "2", "--d-k", "32", "--draws", "2", "--workers", "1",
       "--ks-tol", "1", "--w1-tol", "10", "--json"]


@pytest.mark.parametrize("extra", [[], ["--no-law"]])
def test_cli_method_option(extra):
    out = {}
    for method in (None, "reduced", "direct"):
        args = MHA + extra + ([] if method is None else ["--method", method])
        res = CliRunner().invoke(check_cli, args, catch_exceptions=False)
        assert res.exit_code == 0, res.output
        out[method] = json.loads(res.output)
    assert out[None]["method"] == "reduced" and out["direct"]["method"] == "direct"
    assert out[None] == out["reduced"]
    pair = "softmax_vs_gaussian"
    assert out["direct"][pair]["ks"] != out["reduced"][pair]["ks"]
    res = CliRunner().invoke(check_cli, MHA + extra + ["--method", "fast"])
    assert res.exit_code == 2 and "--method" in res.output
