"""`freeattn readout …` and `freeattn reproduce fig…`: outputs and errors."""
import json

import pytest
from click.testing import CliRunner

from freeattn.cli import main
from freeattn.readout import IndependentKV, ridge_error


def test_ridge_text_and_json():
    r = CliRunner().invoke(main, ["readout", "ridge", "--gamma-k", "1.5", "--heads", "96",
                                  "--gamma-o", "1.5", "--lam", "1e-4", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    ref = ridge_error(IndependentKV(1.0, 1.5, 96, 1.5, 1.5), 1e-4, 0.1, 1.5)
    assert data["rows"][0][1] == pytest.approx(float(ref), rel=1e-14)


def test_loss_arrival_and_tied_dof():
    r = CliRunner().invoke(main, ["readout", "loss", "--gamma-k", "1", "--heads", "64",
                                  "--gamma-o", "2", "--level", "0.1", "--t", "1"])
    assert r.exit_code == 0, r.output
    assert "arrival_time: 41.22" in r.output
    r = CliRunner().invoke(main, ["readout", "dof", "--gamma-k", "0.5", "--heads", "8",
                                  "--gamma-o", "0.5", "--tied", "--lam-range", "1e-3", "1", "3"])
    assert r.exit_code == 0, r.output
    assert "zero_mass: 0.5" in r.output


@pytest.mark.parametrize("args, flag", [
    (["--gamma-k", "-1", "--heads", "2", "--gamma-o", "1", "--lam", "1"], "--gamma-k"),
    (["--gamma-k", "1", "--heads", "2", "--gamma-o", "1", "--lam", "0"], "--lam"),
    (["--gamma-k", "1", "--heads", "2", "--gamma-o", "1", "--lam", "1", "--sigma2", "-1"],
     "--sigma2"),
    (["--heads", "2", "--gamma-o", "1", "--lam", "1"], "--gamma-k"),
])
def test_errors_name_the_flag(args, flag):
    r = CliRunner().invoke(main, ["readout", "ridge", *args])
    assert r.exit_code == 2
    assert flag in r.output


def test_reproduce_fig2d_theory_only(tmp_path):
    png, out = tmp_path / "f.png", tmp_path / "f.json"
    r = CliRunner().invoke(main, ["reproduce", "fig2d", "--mc", "none", "--plot", str(png),
                                  "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "beta_c = 0.5587" in r.output
    assert png.stat().st_size > 1000
    assert json.loads(out.read_text())["beta_c"] == pytest.approx(0.5587, abs=1e-4)


def test_preset_uses_mhaconfig():
    config = pytest.importorskip("freeattn.attention.config")  # MHAConfig (issue 9)
    cfg = config.MHAConfig.preset("bert-base")
    r = CliRunner().invoke(main, ["readout", "ridge", "--preset", "bert-base", "--lam", "0.01",
                                  "--json"])
    assert r.exit_code == 0, r.output
    ref = ridge_error(IndependentKV(cfg.beta, cfg.gamma_k, cfg.heads, cfg.gamma_v, cfg.gamma_o),
                      0.01, 0.1, cfg.gamma_o)
    assert json.loads(r.output)["rows"][0][1] == pytest.approx(float(ref), rel=1e-14)


def test_loss_check_flag():
    ok = CliRunner().invoke(main, ["readout", "loss", "--gamma-k", "1", "--heads", "64",
                                   "--gamma-o", "2", "--t", "1", "--check", "1e-10"])
    assert ok.exit_code == 0, ok.output
    bad = CliRunner().invoke(main, ["readout", "loss", "--gamma-k", "1", "--heads", "64",
                                    "--gamma-o", "2", "--t", "1", "--check", "2"])
    assert bad.exit_code == 2 and "--check" in bad.output


# ------------------------------------------------------------- layer domains (review item 2)
_LAYER = ["--gamma-k", "1", "--gamma-o", "2"]


@pytest.mark.parametrize("beta", ["50", "10"])
def test_readout_beta_outside_domain_is_a_usage_error(beta):
    """--beta 50 used to end in an OverflowError traceback in θ₁; --beta 10 was accepted."""
    r = CliRunner().invoke(main, ["readout", "loss", *_LAYER, "--heads", "64", "--beta", beta,
                                  "--t", "1"])
    assert r.exit_code == 2, r.output
    assert "--beta" in r.output and "[0.01, 4]" in r.output


def test_readout_heads_is_an_integer_in_the_declared_range():
    r = CliRunner().invoke(main, ["readout", "ridge", *_LAYER, "--heads", "1.5", "--lam", "1"])
    assert r.exit_code == 2 and "--heads" in r.output and "integer" in r.output
    r = CliRunner().invoke(main, ["readout", "ridge", *_LAYER, "--heads", "20000", "--lam", "1"])
    assert r.exit_code == 2 and "--heads" in r.output and "10000" in r.output


@pytest.mark.parametrize("cmd", [["density", "attention"], ["equation", "attention"],
                                 ["moments", "attention"], ["edges", "attention"],
                                 ["readout", "ridge"]])
def test_help_states_the_declared_domains(cmd):
    """--help ranges come from BETA_LAW_RANGE, GAMMA_RANGE, MAX_HEADS (one source), not
    hand-written "β > 0", "γ_K > 0", "h ≥ 1"."""
    from freeattn.attention.config import BETA_LAW_RANGE, GAMMA_RANGE, MAX_HEADS

    out = " ".join(CliRunner().invoke(main, [*cmd, "--help"]).output.split())
    assert f"β in [{BETA_LAW_RANGE[0]:g}, {BETA_LAW_RANGE[1]:g}]" in out
    assert f"in [{GAMMA_RANGE[0]:g}, {GAMMA_RANGE[1]:g}]" in out
    assert f"1 ≤ h ≤ {MAX_HEADS}" in out
    assert "β > 0" not in out and "γ_K = h d_K / n > 0" not in out and "h ≥ 1." not in out


def test_readout_extreme_lam_cli():
    """--lam 1e300 printed "The function value at x=0.0 is NaN" without naming the flag."""
    r = CliRunner().invoke(main, ["readout", "ridge", *_LAYER, "--heads", "64", "--lam",
                                  "1e300", "--lam", "1e-300", "--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)["rows"]
    assert rows[0][1] == 1.0 and rows[1][1] > 1e148
    r = CliRunner().invoke(main, ["readout", "ridge", *_LAYER, "--heads", "64", "--tied",
                                  "--lam", "1e-12"])
    assert r.exit_code == 2 and "--lam" in r.output


def test_loss_level_needs_times():
    """--level without --t used to print an empty "t loss" table: now a usage error."""
    r = CliRunner().invoke(main, ["readout", "loss", *_LAYER, "--heads", "64", "--level",
                                  "0.1"])
    assert r.exit_code == 2 and "--t" in r.output
    r = CliRunner().invoke(main, ["readout", "loss", *_LAYER, "--heads", "64", "--level",
                                  "0.1", "--t", "41.2235772797", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["arrival_time"] == pytest.approx(41.2236, abs=1e-4)
    assert data["rows"][0][1] == pytest.approx(0.1, abs=1e-9)  # L(arrival) = level
