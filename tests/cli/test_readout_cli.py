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
                                  "--gamma-o", "2", "--level", "0.1"])
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
