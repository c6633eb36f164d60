"""The output convention (issue 18, CLI part): --out FILE takes its format from the extension,
--json prints the same numbers, the atoms are in every format, --sharing tied_kv = --tied."""
import csv
import json

import pytest
from click.testing import CliRunner

from freeattn import mha_output_law
from freeattn.cli import main

MHA = ["density", "mha", "--heads", "2", "--gamma-k", "1", "--gamma-o", "0.5", "--points", "20"]


def _run(args):
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    return res.output


def test_density_out_png_is_the_figure(tmp_path):
    fig = tmp_path / "nu.png"
    _run(["density", "attention", "--beta", "1", "--gamma-k", "1", "--points", "20",
          "--out", str(fig)])
    assert fig.read_bytes()[:4] == b"\x89PNG"


def test_density_json_csv_and_text_carry_the_same_atoms(tmp_path):
    """γ_O = 1/2: an atom 1 − min{1, γ_V, γ_O} = 1/2 at 0 (eq. (C.15))."""
    law = mha_output_law(1.0, 2, 1.0, 1.0, 0.5)
    (a0, m0), = law.atoms()
    assert (a0, m0) == (0.0, pytest.approx(0.5, abs=1e-12))
    printed = json.loads(_run(MHA + ["--json"]))
    assert printed["atoms"] == [[0.0, pytest.approx(0.5, abs=1e-12)]]
    path = tmp_path / "c.json"
    _run(MHA + ["--out", str(path)])
    assert json.loads(path.read_text()) == printed
    table = tmp_path / "c.csv"
    text = _run(MHA + ["--out", str(table)])
    assert "0.5 at 0" in text
    rows = list(csv.DictReader(table.open()))
    curve = [r for r in rows if r["atom_mass"] == ""]
    atoms = [r for r in rows if r["atom_mass"] != ""]
    assert len(curve) == 20 and [float(curve[0]["x"]), float(curve[-1]["x"])] == \
        [pytest.approx(v) for v in (printed["x"][0], printed["x"][-1])]
    assert [(float(r["x"]), float(r["atom_mass"])) for r in atoms] == \
        [(0.0, pytest.approx(0.5, abs=1e-12))]


def test_readout_sharing_tied_kv_is_tied_and_out_writes_the_table(tmp_path):
    layer = ["readout", "dof", "--gamma-k", "0.5", "--heads", "8", "--gamma-o", "0.5",
             "--lam", "0.1", "--lam", "1", "--json"]
    tied = json.loads(_run(layer + ["--tied"]))
    shared = json.loads(_run(layer + ["--sharing", "tied_kv"]))
    assert tied == shared and "TiedKV" in tied["law"]
    assert json.loads(_run(layer + ["--sharing", "gqa"]))["law"] == \
        json.loads(_run(layer))["law"]
    path = tmp_path / "w.csv"
    _run(layer + ["--sharing", "tied_kv", "--out", str(path)])
    rows = list(csv.reader(path.open()))
    assert rows[0] == ["lambda", "w", "w_prime"]
    assert [[float(v) for v in r] for r in rows[1:]] == tied["rows"]
    res = CliRunner().invoke(main, layer + ["--tied", "--sharing", "none"])
    assert res.exit_code == 2 and "--tied" in res.output


def test_edges_json_keeps_every_digit(tmp_path):
    data = json.loads(_run(["edges", "attention", "--beta", "1", "--gamma-k", "1", "--dps",
                            "30", "--json"]))
    right = data["routes"]["discriminant"][0][1]
    assert right.startswith("9.00954255037531") and len(right.replace(".", "")) >= 30
    path = tmp_path / "e.json"
    _run(["edges", "attention", "--beta", "1", "--gamma-k", "1", "--dps", "30", "--out",
          str(path)])
    assert json.loads(path.read_text()) == data
    res = CliRunner().invoke(main, ["edges", "attention", "--beta", "1", "--gamma-k", "1",
                                    "--out", str(tmp_path / "e.csv")])
    assert res.exit_code == 2 and "--out" in res.output


def test_check_out_json_is_the_printed_json(tmp_path):
    path = tmp_path / "r.json"
    args = ["check", "mha", "--n", "32", "--heads", "2", "--d-k", "16", "--draws", "1",
            "--workers", "1", "--no-law", "--ks-tol", "1", "--w1-tol", "10"]
    printed = json.loads(_run(args + ["--json", "--out", str(path)]))
    assert json.loads(path.read_text()) == printed
    res = CliRunner().invoke(main, args + ["--out", str(tmp_path / "r.txt")])
    assert res.exit_code == 2 and "--out" in res.output
