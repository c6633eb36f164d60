"""``freeattn density mha``: presets and explicit ratios, same outputs as density attention."""
import json

import pytest
from click.testing import CliRunner

from freeattn.cli import main


def test_explicit_ratios_gqa_equals_none(tmp_path):
    out = {}
    for extra in ([], ["--sharing", "gqa", "--kv-heads", "2"], ["--sharing", "mqa"]):
        path = tmp_path / f"c{len(extra)}.json"
        res = CliRunner().invoke(main, ["density", "mha", "--heads", "4", "--gamma-k", "1.5",
                                        "--gamma-v", "2", "--gamma-o", "2", "--out", str(path),
                                        "--points", "50"] + extra)
        assert res.exit_code == 0, res.output
        assert "support" in res.output and "moment 3" in res.output
        out[len(extra)] = json.loads(path.read_text())
    assert out[0]["pdf"] == out[4]["pdf"] == out[2]["pdf"]
    assert out[0]["support"][0][1] == pytest.approx(20.3071616012388, rel=1e-12)


def test_preset_tied_and_errors():
    res = CliRunner().invoke(main, ["density", "mha", "--preset", "kayyam-1.2b"])
    assert res.exit_code == 0, res.output
    # (C.21) mean γ_O (θ₁ + h θ₂/γ_K) at β = 1, h = 32, γ_K = γ_O = 1: e − 1 + 32
    assert "moment 1  : 33.718281828459" in res.output
    res = CliRunner().invoke(main, ["density", "mha", "--gamma-k", "1", "--sharing", "gqa"])
    assert res.exit_code == 2 and "kv_heads" in res.output.replace("-", "_")
    res = CliRunner().invoke(main, ["density", "mha", "--preset", "bert"])
    assert res.exit_code == 2 and "--preset" in res.output
    res = CliRunner().invoke(main, ["density", "mha", "--heads", "2"])
    assert res.exit_code == 2 and "--gamma-k" in res.output
