"""`freeattn density attention`: outputs, files and errors."""
import csv
import json

import numpy as np

import pytest
from click.testing import CliRunner

from freeattn.cli import main


def test_density_attention_csv_json_plot(tmp_path):
    runner = CliRunner()
    out_csv, out_png = tmp_path / "d.csv", tmp_path / "d.png"
    res = runner.invoke(main, ["density", "attention", "--beta", "1", "--gamma-k", "1",
                               "--points", "50", "--out", str(out_csv), "--plot", str(out_png)])
    assert res.exit_code == 0, res.output
    assert "right edge: 9.00954255037531" in res.output
    assert "4*theta1: 6.87312731383618" in res.output
    rows = list(csv.DictReader(out_csv.open()))
    assert len(rows) == 50 and float(rows[-1]["x"]) == pytest.approx(9.00954255037531)
    assert all(float(r["pdf"]) >= 0 for r in rows)
    assert out_png.stat().st_size > 1000
    out_json = tmp_path / "d.json"
    res = runner.invoke(main, ["density", "attention", "--beta", "1", "--gamma-k", "1",
                               "--heads", "2", "--out", str(out_json), "--dps", "30"])
    assert res.exit_code == 0, res.output
    data = json.loads(out_json.read_text())
    assert data["heads"] == 2 and len(data["x"]) == 400
    # heads = 1 diverges at x = 0: strict JSON gets null there, never Infinity
    res2 = runner.invoke(main, ["density", "attention", "--beta", "1", "--gamma-k", "1",
                                "--points", "2", "--out", str(out_json)])
    assert res2.exit_code == 0 and "Infinity" not in out_json.read_text()
    pdf = json.loads(out_json.read_text())["pdf"]
    assert pdf[0] is None and 0.0 <= pdf[1] < 1e-6  # float(edge) may sit a hair inside
    # 30 digits printed for the edge
    edge_line = [ln for ln in res.output.splitlines() if ln.startswith("right edge")][0]
    assert len(edge_line.split(":")[1].strip().replace(".", "")) >= 30


@pytest.mark.parametrize("args,word", [
    (["--beta", "-1", "--gamma-k", "1"], "beta"),
    (["--beta", "1", "--gamma-k", "0"], "--gamma-k"),
    (["--beta", "1", "--gamma-k", "1", "--heads", "0"], "heads"),
    (["--beta", "1", "--gamma-k", "1", "--points", "1"], "points"),
    (["--beta", "1", "--gamma-k", "1", "--dps", "2"], "dps"),
    (["--beta", "1", "--gamma-k", "1", "--out", "/nonexistent/x.csv"], "--out"),
    (["--beta", "1", "--gamma-k", "1", "--plot", "/nonexistent/x.png"], "--plot"),
    (["--beta", "1", "--gamma-k", "1", "--plot", "x.xyz"], "image extension"),
    (["--beta", "1", "--gamma-k", "1", "--plot", "x.pgf"], "image extension"),  # needs LaTeX
    (["--beta", "1", "--gamma-k", "1", "--plot", "/proc/x.png"], "cannot write"),
    (["--beta", "1", "--gamma-k", "1", "--out", "c.png", "--plot", "c.png"], "different"),
    (["--beta", "5", "--gamma-k", "1"], "beta"),
    # 10^8 points ran for minutes before any output; the range is stated up front
    (["--beta", "1", "--gamma-k", "1", "--points", "100000000"], "[2, 1000000]"),
    (["--beta", "1", "--gamma-k", "1", "--dps", "3000"], "5<=x<=2000"),
])
def test_density_attention_bad_input_is_a_usage_error(args, word):
    res = CliRunner().invoke(main, ["density", "attention", *args])
    assert res.exit_code == 2
    assert word in res.output
    assert "Traceback" not in res.output


def test_saved_curves_are_self_describing(tmp_path):
    """density mha/attention --out x.json record every parameter that was computed (resolved:
    preset values and defaults filled in), so that a saved curve can be rebuilt from it."""
    from freeattn.attention import MHAConfig, mha_output_law

    path = tmp_path / "bert.json"
    res = CliRunner().invoke(main, ["density", "mha", "--preset", "bert-base", "--gamma-o", "2",
                                    "--points", "5", "--out", str(path)])
    assert res.exit_code == 0, res.output
    data = json.loads(path.read_text())
    cfg = MHAConfig.preset("bert-base")
    want = {"kind": "mha", "preset": "bert-base", "beta": 1.0, "heads": 12, "kv_heads": 12,
            "sharing": "none", "gamma_k": cfg.gamma_k, "gamma_v": cfg.gamma_v, "gamma_o": 2.0,
            "rho": None}
    assert {k: data[k] for k in want} == want
    assert data["gamma_k"] == pytest.approx(1.5, rel=1e-15)  # 12 · 64 / 512
    # the recorded parameters rebuild the saved curve
    law = mha_output_law(data["beta"], data["heads"], data["gamma_k"], data["gamma_v"],
                         data["gamma_o"], sharing=data["sharing"], kv_heads=data["kv_heads"],
                         rho=data["rho"])
    assert law.name == data["law"]
    np.testing.assert_allclose(law.pdf(np.array(data["x"][1:-1])), data["pdf"][1:-1],
                               rtol=1e-12)

    path = tmp_path / "gqa.json"
    res = CliRunner().invoke(main, ["density", "mha", "--heads", "4", "--kv-heads", "2",
                                    "--sharing", "gqa", "--gamma-k", "1", "--rho", "0.5",
                                    "--kind", "values", "--points", "3", "--out", str(path)])
    assert res.exit_code == 0, res.output
    data = json.loads(path.read_text())
    assert {k: data[k] for k in ("kind", "preset", "heads", "kv_heads", "sharing", "gamma_v",
                                 "gamma_o", "rho", "beta")} == {
        "kind": "values", "preset": None, "heads": 4, "kv_heads": 2, "sharing": "gqa",
        "gamma_v": 1.0, "gamma_o": 1.0, "rho": 0.5, "beta": 1.0}

    path = tmp_path / "att.json"
    res = CliRunner().invoke(main, ["density", "attention", "--beta", "0.5", "--gamma-k", "2",
                                    "--heads", "2", "--points", "3", "--out", str(path)])
    assert res.exit_code == 0, res.output
    data = json.loads(path.read_text())
    assert {k: data[k] for k in ("kind", "beta", "gamma_k", "heads")} == {
        "kind": "attention", "beta": 0.5, "gamma_k": 2.0, "heads": 2}


def test_density_grid_per_support_component(tmp_path):
    # a fresh user's find: β = 0.5, γ_K = 0.1, h = 4 has support [0.00895, 0.0727] ∪
    # [1.117, 4.692] with 90 % of the mass in the first component; one grid over the hull put
    # only its left edge on the 50-point curve (and 7 of 400 points, trapezoid mass 0.894)
    from freeattn import attention_law

    out = tmp_path / "g.csv"
    res = CliRunner().invoke(main, ["density", "attention", "--beta", "0.5", "--gamma-k", "0.1",
                                    "--heads", "4", "--points", "400", "--out", str(out)])
    assert res.exit_code == 0, res.output
    rows = [r for r in csv.DictReader(out.open()) if r["pdf"]]
    x = np.array([float(r["x"]) for r in rows])
    pdf = np.array([float(r["pdf"]) for r in rows])
    assert len(x) == 400 and np.all(np.diff(x) > 0)
    law = attention_law(0.5, 0.1, 4)
    (a1, b1), (a2, b2) = law.support()
    # the CSV prints 15 significant digits: the ends to that
    first = x < 0.5 * (b1 + a2)
    second = ~first
    np.testing.assert_allclose([x[first][0], x[first][-1], x[second][0], x[second][-1]],
                               [a1, b1, a2, b2], rtol=1e-14)
    # points by the mean of the mass and width shares: ~0.9/2 + 0.017/2 of them in the first
    assert 150 < first.sum() < 220
    mass = sum(np.trapezoid(pdf[m], x[m]) for m in (first, second))
    assert mass == pytest.approx(1.0, abs=2e-3)
