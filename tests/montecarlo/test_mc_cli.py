"""The `freeattn check attention` command (click group `check`)."""
import importlib
import json
import math

import pytest
from click.testing import CliRunner

from freeattn.cli.check import check

BASE = ["attention", "--beta", "1", "--gamma-k", "1", "--n", "200", "--draws", "2",
        "--seed", "0", "--workers", "1", "--ks-tol", "0.06", "--w1-tol", "0.1"]


def _run(args):
    return CliRunner().invoke(check, args, catch_exceptions=False)


def test_json_keys_and_identical_output():
    first = _run(BASE + ["--json"])
    assert first.exit_code == 0, first.output
    data = json.loads(first.output)
    for key in ("softmax", "gaussian", "softmax_vs_gaussian"):
        assert {"ks", "rel_w1"} <= set(data[key])
    assert data["passed"] is True
    second = _run(BASE + ["--json"])
    assert second.output == first.output


def test_text_output_and_failure_exit_code(tmp_path):
    res = _run(BASE + ["--ks-tol", "1e-6"])
    assert res.exit_code == 1
    assert "FAIL" in res.output and "softmax_vs_gaussian" in res.output


def test_plot_written(tmp_path):
    out = tmp_path / "check.png"
    res = _run(BASE + ["--plot", str(out)])
    assert res.exit_code == 0, res.output
    assert out.stat().st_size > 1000 and out.read_bytes()[:4] == b"\x89PNG"


def test_beta_grid_table():
    res = _run(["attention", "--gamma-k", "1", "--beta-grid", "0.5,2.5", "--n-grid", "100,200",
                "--draws", "1", "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "b/sqrt(ln n)" in res.output
    assert "exceeds" in res.output  # beta = 2.5 leaves the prediction
    assert len([ln for ln in res.output.splitlines() if ln.strip()[:1].isdigit()]) == 4


def test_finite_size_sweep_table():
    res = _run(["attention", "--beta", "1", "--gamma-k", "1", "--n-grid", "60,120",
                "--draws", "2", "--workers", "1", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert [r["n"] for r in data["rows"]] == [60, 120]
    assert data["rates"]["gaussian_ks"]["rate"] > 0


@pytest.mark.parametrize("args, match", [
    (["attention", "--beta", "1", "--gamma-k", "1", "--n", "100", "--heads", "3"], "gamma_k"),
    (["attention", "--gamma-k", "1"], "--beta"),
    (["attention", "--beta", "-1", "--gamma-k", "1", "--n", "50"], "beta"),
    (["attention", "--gamma-k", "1", "--beta-grid", "a,b"], "--beta-grid"),
])
def test_usage_errors(args, match):
    res = CliRunner().invoke(check, args)
    assert res.exit_code == 2
    assert match in res.output


def test_scheduler_without_dask_is_a_clear_error():
    try:
        import dask.distributed  # noqa: F401
        pytest.skip("dask is installed")
    except ImportError:
        pass
    res = CliRunner().invoke(check, BASE + ["--scheduler", "tcp://127.0.0.1:8786"])
    assert res.exit_code == 2
    assert "freeattn[dask]" in res.output


def test_mha_table_d2_bert_base():
    res = _run(["mha", "--n", "512", "--d", "768", "--heads", "12", "--d-k", "64",
                "--draws", "2", "--workers", "1", "--json", "--no-law"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert 0.005 < data["softmax_vs_gaussian"]["rel_w1"] < 0.03
    assert data["model"]["d_o"] == 768 and data["passed"] is True


@pytest.fixture
def no_draws(monkeypatch):
    """Fail the test if any draw starts: these errors must come before the work."""
    def refuse(*args, **kwargs):
        raise AssertionError("a draw ran before the bad input was reported")

    # run_draws still validates (memory included); only the draw itself is refused
    monkeypatch.setattr(importlib.import_module("freeattn.montecarlo.runner"), "_draw_task",
                        refuse)


ATT = ["attention", "--gamma-k", "1", "--workers", "1", "--draws", "2"]
MHA = ["mha", "--n", "64", "--heads", "2", "--d-k", "32", "--workers", "1"]


@pytest.mark.parametrize("args, match", [
    (ATT + ["--beta", "1", "--n", "200", "--plot", "/nonexistent-dir/p.png"], "does not exist"),
    (ATT + ["--beta", "1", "--n", "200", "--plot", "p.xyz"], "image extension"),
    (ATT + ["--beta", "1", "--n-grid", "100,200", "--ks-tol", "0.5"], "--ks-tol"),
    (ATT + ["--beta-grid", "1", "--n-grid", "200", "--target", "softmax"], "--target"),
    (ATT + ["--beta", "1", "--beta-grid", "1,2"], "not both"),
    (ATT + ["--beta", "1", "--n", "100", "--factor", "3"], "--factor"),
    (ATT + ["--beta", "1", "--n", "200", "--w1-tol", "inf"], "--w1-tol"),
    (ATT + ["--beta", "1", "--n", "200", "--exclude-top", "200"], "--exclude-top"),
    (ATT + ["--beta", "1", "--n-grid", "100,200", "--exclude-top", "150"], "--exclude-top"),
    (ATT + ["--beta", "1", "--n-grid", "200,200"], "distinct"),
    (ATT + ["--beta", "1", "--n-grid", "200"], "at least two"),
    (ATT + ["--beta-grid", "0,1", "--n-grid", "100,200"], "--beta-grid"),
    (ATT + ["--beta-grid", "1,10", "--n-grid", "100,200"], "--beta-grid must lie in"),
    (ATT + ["--beta", "1", "--n", "10000000"], "GiB"),
    (ATT + ["--beta", "1", "--n-grid", "100,10000000"], "GiB"),  # every cell before any draw
    (ATT + ["--beta-grid", "1,2", "--n-grid", "100,10000000"], "GiB"),
    (ATT + ["--beta", "1", "--n", "300", "--n-grid", "100,200"], "not both"),
    (ATT + ["--beta-grid", "1,2", "--n-grid", "100", "--factor", "0.5"], "--factor"),
    (ATT + ["--beta", "1", "--n", "200", "--plot", "p.pgf"], "image extension"),
    (ATT + ["--beta", "1", "--n", "200", "--plot", "/proc/p.png"], "cannot write"),
    (MHA + ["--beta", "30"], "--beta must lie in"),
    (MHA + ["--beta", "1e-300"], "--beta"),
    (MHA + ["--ks-tol", "inf"], "--ks-tol"),
    # the Table D.2 route checked exclude_top only after drawing, naming 'k'
    (MHA + ["--no-law", "--exclude-top", "64"], "--exclude-top must be an integer in [0, n - 1]"),
    (MHA + ["--exclude-top", "64"], "--exclude-top must be an integer in [0, n - 1]"),
    (MHA + ["--method", "literal"], "--method"),
])
def test_bad_input_is_reported_before_any_draw(no_draws, args, match):
    res = CliRunner().invoke(check, args)
    assert res.exit_code == 2, res.output
    assert match in res.output
    assert "Traceback" not in res.output


def test_unreachable_scheduler_is_a_clean_error(monkeypatch):
    pytest.importorskip("dask.distributed")
    mc_check = importlib.import_module("freeattn.montecarlo.check")

    def unreachable(*args, **kwargs):
        raise OSError("Timed out trying to connect to tcp://127.0.0.1:1 after 30 s")

    monkeypatch.setattr(mc_check, "run_draws", unreachable)
    res = CliRunner().invoke(check, BASE + ["--scheduler", "tcp://127.0.0.1:1"])
    assert res.exit_code == 3  # the tool could not finish: not a failed check (1)
    assert "could not run on the Dask scheduler" in res.output


def test_sweep_plot_written(tmp_path):
    out = tmp_path / "sweep.svg"
    res = _run(["attention", "--beta", "1", "--gamma-k", "1", "--n-grid", "40,80",
                "--draws", "1", "--workers", "1", "--plot", str(out)])
    assert res.exit_code == 0, res.output
    assert out.read_text().lstrip().startswith("<?xml")


def test_mha_one_draw_reports_no_spread():
    res = CliRunner().invoke(check, ["mha", "--n", "64", "--heads", "2", "--d-k", "32",
                                     "--draws", "1", "--workers", "1", "--ks-tol", "1",
                                     "--w1-tol", "10", "--no-law"])
    assert res.exit_code == 0, res.output
    assert "one draw: no sd" in res.output and "sd 0.00" not in res.output


def test_a_failed_plot_write_keeps_the_results_and_exits_3(monkeypatch, tmp_path):
    import freeattn.plotting.check as mc_plot

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(mc_plot, "plot_check", broken)
    res = CliRunner().invoke(check, BASE + ["--json", "--plot", str(tmp_path / "p.png")])
    assert res.exit_code == 3
    assert '"softmax_vs_gaussian"' in res.output  # the results were printed first
    assert "could not write --plot" in res.output and "disk full" in res.output


def test_mha_widths_from_ratios_presets_and_the_limit_law():
    # the example: γ_K = 0.3 at n = 333 is d_K = 99.9, taken as 100
    res = _run(["mha", "--n", "333", "--gamma-k", "0.3", "--draws", "1", "--workers", "1",
                "--no-law", "--json", "--ks-tol", "1", "--w1-tol", "10"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["model"]["d_k"] == 100
    res = _run(["mha", "--n", "333", "--gamma-k", "0.31", "--heads", "3", "--no-law"])
    assert res.exit_code == 2 and "--gamma-k" in res.output and "d_k=34" in res.output
    res = _run(["mha", "--preset", "bert", "--no-law"])
    assert res.exit_code == 2 and "--preset" in res.output
    res = _run(["mha", "--n", "64", "--d-k", "32", "--gamma-k", "1"])
    assert res.exit_code == 2 and "not both" in res.output


@pytest.mark.slow
def test_mha_against_the_limit_law():
    """About 30 s of exact algebra for the full-layer law before the cold-start work lands."""
    # softmax, Gaussian model and the limit law (C.15), GQA with 2 K/V heads
    res = _run(["mha", "--n", "64", "--heads", "4", "--kv-heads", "2", "--gamma-k", "1.5",
                "--gamma-v", "2", "--gamma-o", "2", "--draws", "2", "--workers", "1", "--json",
                "--ks-tol", "0.2", "--w1-tol", "0.3"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["config"]["sharing"] == "gqa" and data["model"]["d_o"] == 128
    assert data["limit_mean"] == pytest.approx(2 * (math.e - 1), rel=1e-13)
    assert data["softmax"]["ks"] < 0.2 and "softmax_vs_gaussian" in data
