"""Progress bars: stderr only, and only where a person watches (stderr a terminal, no --json),
or as --progress/--no-progress say; redirected tables stay clean."""
import importlib
import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from freeattn.cli import main

runner_mod = importlib.import_module("freeattn.montecarlo.runner")
progress_mod = importlib.import_module("freeattn.cli._progress")


@pytest.fixture
def bars(monkeypatch):
    """Record the ``enabled`` of every progress bar a run asks for."""
    seen = []
    real = runner_mod._progress

    def record(total, enabled, desc):
        seen.append(enabled)
        return real(total, False, desc)

    monkeypatch.setattr(runner_mod, "_progress", record)
    return seen


MHA = ["check", "mha", "--n", "64", "--heads", "2", "--d-k", "32", "--draws", "1",
       "--workers", "1", "--ks-tol", "1", "--w1-tol", "10"]
ATT = ["check", "attention", "--beta", "1", "--gamma-k", "1", "--n", "60", "--draws", "1",
       "--workers", "1", "--ks-tol", "1", "--w1-tol", "10"]
TABLE = ["reproduce", "table-d2", "--rows", "dinov3-l16", "--draws", "1", "--workers", "1"]


CASES = [
    ([], False, False),                  # stderr redirected (a file, a pipe, CliRunner)
    ([], True, True),                    # a terminal watches
    (["--json"], True, False),           # machine output
    (["--no-progress"], True, False),
    (["--progress"], False, True),       # asked for explicitly
]


# table-d2 measures step rates first (~1 s): two cases of it here, all five for the checks
@pytest.mark.parametrize("args, flags, terminal, want",
                         [(a,) + c for a in (MHA, MHA + ["--no-law"], ATT) for c in CASES]
                         + [(TABLE,) + CASES[1], (TABLE,) + CASES[2]])
def test_progress_bar_only_where_watched(bars, monkeypatch, args, flags, terminal, want):
    monkeypatch.setattr(progress_mod, "_stderr_is_terminal", lambda: terminal)
    res = CliRunner().invoke(main, args + flags)
    assert res.exit_code == 0, res.output
    assert bars and all(b is want for b in bars), bars
    assert "\r" not in res.output


def test_sweep_and_grid_follow_the_flag(bars, monkeypatch):
    monkeypatch.setattr(progress_mod, "_stderr_is_terminal", lambda: False)
    res = CliRunner().invoke(main, ["check", "attention", "--beta", "1", "--gamma-k", "1",
                                    "--n-grid", "40,60", "--draws", "1", "--workers", "1"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["check", "attention", "--gamma-k", "1", "--beta-grid",
                                    "0.5,1", "--n-grid", "40,60", "--draws", "1", "--workers",
                                    "1", "--progress"])
    assert res.exit_code == 0, res.output
    assert bars == [False, False] + [True] * 4


def _redirected(tmp_path, args):
    out = tmp_path / "out.txt"
    with open(out, "w") as fh:
        proc = subprocess.run([sys.executable, "-m", "freeattn"] + args, stdout=fh,
                              stderr=subprocess.PIPE, text=True, timeout=300)
    text = out.read_text()
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # no bar: stderr is a pipe
    assert "\r" not in text and "it/s" not in text and "s/it" not in text
    return text


@pytest.mark.slow
def test_redirected_table_d2_is_a_clean_table_file(tmp_path):
    """The issue's command (stdout to a file, stderr a pipe here): a table file and no bar
    anywhere, for a run longer than tqdm's 0.5 s delay (~6 s with the start-up)."""
    text = _redirected(tmp_path, ["reproduce", "table-d2", "--rows", "bert-base", "--draws",
                                  "2", "--workers", "1"])
    assert any(line.startswith("bert-base") for line in text.splitlines())


def test_redirected_check_is_clean(tmp_path):
    text = _redirected(tmp_path, MHA[:-4] + ["--no-law", "--ks-tol", "1", "--w1-tol", "10"])
    assert "softmax vs Gaussian" in text


def test_python_m_freeattn_is_the_cli():
    proc = subprocess.run([sys.executable, "-m", "freeattn", "--help"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Usage: freeattn ")
    assert "check" in proc.stdout and "density" in proc.stdout


def test_json_output_is_valid_with_a_bar(bars, monkeypatch):
    monkeypatch.setattr(progress_mod, "_stderr_is_terminal", lambda: True)
    res = CliRunner().invoke(main, MHA + ["--json", "--progress"])
    assert res.exit_code == 0 and bars == [True]
    json.loads(res.output)


def test_library_default_is_no_bar(bars):
    from freeattn.montecarlo import AttentionModel, run_draws

    run_draws(AttentionModel(beta=1.0, n=20, d_k=5), 1, workers=1)
    assert bars == [False]


