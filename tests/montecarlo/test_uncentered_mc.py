"""Monte Carlo of Corollary C.3 and (C.14) (Hayase & Karakida 2026): the uncentered A."""
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from freeattn.cli import main
from freeattn.montecarlo import AttentionModel
from freeattn.montecarlo.uncentered import uncentered_check, uncentered_matrix


def test_uncentered_matrix_is_the_checkers_softmax():
    """Same seed, same attention matrices as the checker's softmax model (draw_seed(seed, 0))."""
    from freeattn.montecarlo import sample

    m = AttentionModel.from_ratios(1.0, 80, 1.0, 2, kind="attention")
    a = uncentered_matrix(m, 3)
    perp = (a - 1 / 80) * math.sqrt(80 / 2)
    ev = np.linalg.eigvalsh(perp @ perp.T)
    ref = sample(m, 3, gaussian=False).softmax
    assert np.allclose(np.sort(ev), ref, atol=1e-10)


def test_limits_at_moderate_n():
    """n = 400, h = 2, β = 1: the bounds hold in every draw; s1/sqrt(h) - 1 <= ||A^perp||^2/(2h);
    ||A||_F^2/h and the stable rank within 5 % of e (finite-n bias O(1/n))."""
    m = AttentionModel.from_ratios(1.0, 400, 1.0, 2, kind="attention")
    r = uncentered_check(m, draws=4, seed=0, law=False)
    assert r.bounds_hold and r.worst_identity_error < 1e-12
    s = r.statistics
    c = r.centred_norm.mean
    assert 0 <= s["s1/sqrt(h)"].mean - 1 <= c * c / 4 + 1e-12
    assert s["alignment |u^T x1|^2"].mean > 1 - c * c / 2
    for name in ("||A||_F^2/h", "stable rank ||A||_F^2/s1^2"):
        assert s[name].mean == pytest.approx(math.e, rel=0.05)
    assert 0 < s["s2"].mean <= c + 1e-12


def test_frobenius_bias_shrinks_with_n():
    """(C.14) is approached at rate 1/n: the relative error at n = 600 is below half of
    that at n = 150 (fixed seeds)."""
    errs = []
    for n in (150, 600):
        m = AttentionModel.from_ratios(1.0, n, 1.0, 1, kind="attention")
        r = uncentered_check(m, draws=4, seed=1, law=False)
        errs.append(abs(r.statistics["||A||_F^2/h"].mean / math.e - 1))
    assert errs[1] < errs[0] / 2


@pytest.mark.slow
def test_limits_at_large_n():
    m = AttentionModel.from_ratios(1.0, 2000, 1.0, 2, kind="attention")
    r = uncentered_check(m, draws=3, seed=0)
    s = r.statistics
    assert s["||A||_F^2/h"].mean == pytest.approx(math.e, rel=0.01)
    assert s["s1/sqrt(h)"].mean == pytest.approx(1, abs=1e-3)
    assert r.ks_uncentered.mean < 0.02 and r.bounds_hold


def test_cli_check_uncentered_and_chain(tmp_path):
    run = CliRunner().invoke(main, ["check", "uncentered", "--beta", "1", "--n", "100",
                                    "--draws", "2", "--no-law"])
    assert run.exit_code == 0, run.output
    assert "hold in every draw" in run.output and "(C.13)" in run.output
    out = tmp_path / "c.json"
    run = CliRunner().invoke(main, ["check", "chain", "--beta", "1", "--n-grid", "60,120",
                                    "--draws", "2", "--out", str(out)])
    assert run.exit_code == 0, run.output
    assert "normalizers" in run.output and out.exists()
    bad = CliRunner().invoke(main, ["check", "chain", "--beta", "1", "--n-grid", "60"])
    assert bad.exit_code == 2 and "--n-grid" in bad.output
    bad = CliRunner().invoke(main, ["check", "chain", "--beta", "0", "--n-grid", "60,120"])
    assert bad.exit_code == 2 and "--beta" in bad.output


def test_cli_check_uncentered_out_is_the_printed_json(tmp_path):
    """The --out convention: FILE.json holds what --json prints; an image extension is
    refused naming --out (no figure here)."""
    args = ["check", "uncentered", "--beta", "1", "--n", "60", "--draws", "2", "--no-law"]
    path = tmp_path / "u.json"
    run = CliRunner().invoke(main, args + ["--json", "--out", str(path)])
    assert run.exit_code == 0, run.output
    assert json.loads(path.read_text()) == json.loads(run.output)
    bad = CliRunner().invoke(main, args + ["--out", str(tmp_path / "u.png")])
    assert bad.exit_code == 2 and "--out" in bad.output and not (tmp_path / "u.png").exists()


def test_cli_check_chain_out_png_is_the_figure(tmp_path):
    fig = tmp_path / "c.png"
    run = CliRunner().invoke(main, ["check", "chain", "--beta", "1", "--n-grid", "60,120",
                                    "--draws", "2", "--out", str(fig)])
    assert run.exit_code == 0, run.output
    assert fig.read_bytes()[:4] == b"\x89PNG"

