"""`freeattn density attention`: outputs, files and errors."""
import csv
import json

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
])
def test_density_attention_bad_input_is_a_usage_error(args, word):
    res = CliRunner().invoke(main, ["density", "attention", *args])
    assert res.exit_code == 2
    assert word in res.output
    assert "Traceback" not in res.output
