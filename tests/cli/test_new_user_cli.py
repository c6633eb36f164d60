"""Faults a new user met in the CLI (issue 9 review, part 3): each with its right value."""
import json

import pytest
from click.testing import CliRunner

from freeattn.cli import main


def _run(args):
    return CliRunner().invoke(main, args)


@pytest.mark.parametrize("args, kv", [
    # independent heads follow an overridden --heads (was: "--kv-heads must divide heads=8,
    # got 12" although no --kv-heads was given)
    (["--preset", "bert-base", "--heads", "8"], 8),
    (["--preset", "mistral-7b", "--sharing", "none"], 32),   # none: h_KV = h
    (["--preset", "mistral-7b", "--sharing", "mqa"], 1),
    (["--preset", "mistral-7b", "--heads", "16"], 8),        # GQA keeps h_KV = 8 (divides 16)
    (["--preset", "kayyam-1.2b", "--heads", "16"], 16),      # tied K = V, h_KV = h
])
def test_preset_overrides_keep_a_consistent_kv_heads(args, kv):
    from freeattn.attention import MHAConfig

    res = _run(["check", "mha"] + args + ["--n", "64", "--draws", "1", "--workers", "1",
                                          "--no-law", "--json", "--ks-tol", "1", "--w1-tol",
                                          "10"])
    assert res.exit_code == 0, res.output
    model = json.loads(res.output)["model"]
    assert model["kv_heads"] == kv
    heads = int(args[args.index("--heads") + 1]) if "--heads" in args else \
        MHAConfig.preset(args[1]).heads
    assert model["heads"] == heads
    res = _run(["density", "mha"] + args + ["--points", "2"])
    assert res.exit_code == 0, res.output
    assert f"heads={heads} kv_heads={kv} " in res.output


@pytest.mark.parametrize("command", [["check", "mha", "--no-law"], ["density", "mha"]])
def test_preset_kv_heads_that_no_longer_fits_says_where_it_came_from(command):
    res = _run(command + ["--preset", "mistral-7b", "--heads", "8"])
    assert res.exit_code == 2
    assert "h_KV = 8 comes from --preset mistral-7b" in res.output
    assert "Traceback" not in res.output


@pytest.mark.parametrize("command", [["check", "mha", "--no-law"], ["density", "mha"]])
def test_zero_heads_with_a_preset_names_heads(command):
    res = _run(command + ["--preset", "bert-base", "--heads", "0"])
    assert res.exit_code == 2
    assert "--heads must be an integer >= 1, got 0" in res.output


@pytest.mark.parametrize("path, match", [("/nonexistent-dir/x.json", "does not exist"),
                                         ("/proc/x.json", "cannot write")])
def test_table_d2_json_out_checked_before_any_work(path, match):
    # was a FileNotFoundError traceback after the first row
    res = _run(["reproduce", "table-d2", "--rows", "bert-base", "--estimate", "--json-out",
                path])
    assert res.exit_code == 2, res.output
    assert "--json-out" in res.output and match in res.output
    assert "Traceback" not in res.output and "estimate" not in res.output


@pytest.mark.parametrize("args", [
    ["density", "attention", "--beta", "1", "--gamma-k", "1"],
    ["density", "mha", "--gamma-k", "1"],
    ["edges", "attention", "--beta", "1", "--gamma-k", "1"],
    ["moments", "attention", "--beta", "1", "--gamma-k", "1"],
])
def test_dps_beyond_the_supported_range_is_a_usage_error(args):
    # --dps 3000 was a ValueError traceback ("Exceeds the limit (4300 digits) for integer
    # string conversion") from the exact-to-mpmath conversion
    res = _run(args + ["--dps", "3000"])
    assert res.exit_code == 2
    assert "5<=x<=2000" in res.output and "Traceback" not in res.output


def test_subcommand_list_shows_whole_short_help():
    res = _run(["reproduce", "--help"])
    assert res.exit_code == 0
    assert "Table D.2: softmax vs Gaussian model spectra" in res.output


@pytest.mark.parametrize("command", ["dof", "ridge", "loss"])
def test_readout_help_lists_the_presets(command):
    from freeattn.attention.config import PRESETS

    res = _run(["readout", command, "--help"])
    assert res.exit_code == 0
    text = "".join(res.output.split())  # help wraps at hyphens
    assert all(name in text for name in PRESETS)  # was "Published layer (MHAConfig.preset)."


def test_density_mha_points_range():
    res = _run(["density", "mha", "--gamma-k", "1", "--points", "1000001"])
    assert res.exit_code == 2 and "--points" in res.output and "[2, 1000000]" in res.output


def _examples():
    from freeattn.cli import EXAMPLES

    return EXAMPLES


def test_help_lists_the_examples():
    res = _run(["--help"])
    assert res.exit_code == 0
    assert _examples() and all(e in res.output for e in _examples())


@pytest.mark.parametrize("index", range(5))
def test_help_examples_run(tmp_path, monkeypatch, index):
    """Every example under ``freeattn --help`` runs as printed (draws lowered to 2 here)."""
    import shlex

    assert len(_examples()) == 5
    example = _examples()[index]
    monkeypatch.chdir(tmp_path)
    words = shlex.split(example.split(">")[0])
    assert words[0] == "freeattn"
    args = words[1:]
    if "--draws" in args:
        args[args.index("--draws") + 1] = "2"
    elif args[:2] == ["reproduce", "table-d2"]:
        args += ["--draws", "2"]
    if args[0] in ("check", "reproduce"):
        args += ["--workers", "1"]
    res = _run(args)
    assert res.exit_code == 0, (example, res.output)
    if "--plot" in args:
        assert (tmp_path / "nu.png").stat().st_size > 1000
    if "--out" in args:
        assert json.loads((tmp_path / "bert.json").read_text())["preset"] == "bert-base"
