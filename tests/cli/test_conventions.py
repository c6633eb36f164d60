"""The output convention (issue 18, CLI part): --out FILE takes its format from the extension,
--json prints the same numbers, the atoms are in every format, --sharing tied_kv = --tied."""
import csv
import json
import os

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


#: cheap commands with --json, one per group (reproduce: a figure and a table-like command)
JSON_COMMANDS = [
    ["density", "attention", "--beta", "1", "--gamma-k", "1", "--points", "5"],
    MHA,
    ["edges", "attention", "--beta", "1", "--gamma-k", "1"],
    ["moments", "attention", "--beta", "1", "--gamma-k", "1"],
    ["equation", "attention", "--beta", "1", "--gamma-k", "0.5", "--symbolic"],
    ["readout", "dof", "--gamma-k", "0.5", "--heads", "8", "--gamma-o", "0.5", "--lam", "1"],
    ["sweep", "attention", "--beta", "1", "--gamma-k", "0.5", "--gamma-k", "1"],
    ["check", "mha", "--n", "32", "--heads", "2", "--d-k", "16", "--draws", "1", "--workers",
     "1", "--no-law", "--ks-tol", "1", "--w1-tol", "10"],
    ["reproduce", "dof-expansion", "--heads", "2,8"],
    ["reproduce", "fig2d", "--mc", "none"],
]


@pytest.mark.parametrize("args", JSON_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_every_json_is_printed_with_the_one_indent(args):
    """One JSON layout (the issue: indent 1 in some commands, 2 in others)."""
    from freeattn.cli._output import JSON_INDENT

    text = _run(args + ["--json"]).strip()
    assert text == json.dumps(json.loads(text), indent=JSON_INDENT)


def test_equation_json_and_out_carry_the_equation(tmp_path):
    args = ["equation", "attention", "--beta", "1", "--gamma-k", "0.5", "--symbolic"]
    data = json.loads(_run(args + ["--json"]))
    assert data["equation"].endswith(" = 0") and data["degrees"] == {"G": 4, "z": 2}
    assert data["values"]["h"] == "1" and "theta_1" in data["values"]
    path = tmp_path / "p.json"
    text = _run(args + ["--out", str(path)])
    assert json.loads(path.read_text()) == data and data["equation"] in text


def test_dps_prints_the_iid_mp_edge_at_the_requested_digits():
    """--dps 20: 4θ₁ = 4(e^{β²} − 1) to 20 digits, like the edges (was 15 digits)."""
    import mpmath

    text = _run(["density", "attention", "--beta", "1", "--gamma-k", "0.5", "--points", "5",
                 "--dps", "20"])
    line, = [ln for ln in text.splitlines() if ln.startswith("i.i.d. Marchenko-Pastur")]
    with mpmath.workdps(40):
        want = mpmath.nstr(4 * mpmath.expm1(1), 20)
    assert line.split(": ", 1)[1].split()[0] == want == "6.8731273138361809414"
    theta2, = [ln for ln in text.splitlines() if ln.startswith("theta2")]
    assert theta2.split(":")[1].split()[0] == "1.0"
    plain = _run(["density", "attention", "--beta", "1", "--gamma-k", "0.5", "--points", "5"])
    assert "4*theta1: 6.87312731383618 " in plain


@pytest.mark.parametrize("args", [["fig2d", "--mc", "none"], ["fig2b", "--points", "5"]])
def test_reproduce_figures_write_nothing_unless_asked(tmp_path, monkeypatch, args):
    """No default file in the current folder (the issue: fig2d.png appeared there); the
    help says how to get the figure, and --plot/--out FILE.png write it where told."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    res = CliRunner().invoke(main, ["reproduce", *args])
    assert res.exit_code == 0, res.output
    assert "no figure written (give --plot FILE.png)" in res.output
    assert os.listdir(cwd) == []
    fig = tmp_path / "f.svg"
    res = CliRunner().invoke(main, ["reproduce", *args, "--out", str(fig)])
    assert res.exit_code == 0 and f"wrote {fig}" in res.output
    assert fig.read_text().lstrip().startswith("<?xml") and os.listdir(cwd) == []
    helptext = CliRunner().invoke(main, ["reproduce", args[0], "--help"]).output
    assert "Without it no figure is written" in " ".join(helptext.split())


def _lows(data, path=()):
    """(path, low) of every interval in a JSON result."""
    if isinstance(data, dict):
        if "low" in data and "high" in data:
            yield path, data["low"]
        for k, v in data.items():
            yield from _lows(v, path + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _lows(v, path + (i,))


def test_check_json_intervals_of_distances_and_moments_never_below_zero():
    """n = 40, two draws: the plain t-intervals of KS, rel. W1 and m3 reach below 0 here;
    every printed low is >= 0 (distances and moments of a non-negative spectrum)."""
    data = json.loads(_run(["check", "attention", "--beta", "1", "--gamma-k", "0.5",
                            "--n", "40", "--draws", "2", "--workers", "1", "--ks-tol", "1",
                            "--w1-tol", "10", "--json"]))
    lows = list(_lows(data))
    assert len(lows) >= 9 and all(low >= 0 for _, low in lows), lows
    assert any(low == 0.0 for _, low in lows)  # the bound is in force, not merely unneeded


def test_equation_values_print_a_float_input_as_the_float():
    text = _run(["equation", "attention", "--beta", "1", "--gamma-k", "0.1", "--symbolic"])
    values, = [ln for ln in text.splitlines() if ln.startswith("values")]
    assert "gamma_K = 0.1," in values and "36028797018963968" not in text
