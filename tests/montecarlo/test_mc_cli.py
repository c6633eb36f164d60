"""The `freeattn check attention` command (click group `check`)."""
import json

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
                "--draws", "2", "--workers", "1", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert 0.005 < data["softmax_vs_gaussian"]["rel_w1"] < 0.03
    assert data["model"]["d_o"] == 768 and data["passed"] is True
