"""Faults a new user met in the CLI in session 5, each test with the right answer."""
import pytest
from click.testing import CliRunner

from freeattn.cli import main


def _run(args):
    return CliRunner().invoke(main, args)


@pytest.mark.parametrize("args, missing", [
    # click >= 8.2 took param_option's explicit default=None as a given value, so a required
    # flag left out reached the law as None ("--gamma-k must be a real number, got None")
    (["density", "attention", "--beta", "1"], "--gamma-k"),
    (["density", "attention", "--gamma-k", "1"], "--beta"),
    (["edges", "attention", "--beta", "1"], "--gamma-k"),
    (["moments", "attention", "--gamma-k", "1"], "--beta"),
    (["equation", "attention", "--beta", "1"], "--gamma-k"),
    (["check", "attention", "--beta", "1"], "--gamma-k"),
])
def test_a_required_flag_left_out_is_reported_missing(args, missing):
    res = _run(args)
    assert res.exit_code == 2, res.output
    assert f"Missing option '{missing}'" in res.output, res.output
    assert "None" not in res.output


def _line(output, label):
    return next(l for l in output.splitlines() if l.startswith(label)).split(":", 1)[1].split()[0]


@pytest.mark.parametrize("beta", ["0.1", "1/10"])
def test_dps_digits_are_those_of_the_decimal_written(beta):
    """--beta 0.1 --dps 40 is β = 1/10: θ₁ = e^(1/100) − 1 to all 40 digits (the float
    0.1000000000000000055… gave 0.01005016708416805866…, wrong from the 17th digit)."""
    import mpmath
    res = _run(["density", "attention", "--beta", beta, "--gamma-k", "1", "--dps", "40",
                "--points", "3"])
    assert res.exit_code == 0, res.output
    with mpmath.workdps(60):
        ref = mpmath.nstr(mpmath.expm1(mpmath.mpf(1) / 100), 40)
    assert _line(res.output, "theta1") == ref
    assert _line(res.output, "moment 1") == ref
    assert _line(res.output, "theta2") in ("0.01", "0.01000000000000000000000000000000000000000")


def test_edges_of_a_fraction_equal_those_of_its_decimal():
    outs = [_run(["edges", "attention", "--beta", b, "--gamma-k", "1/2", "--dps", "40"])
            for b in ("0.1", "1/10")]
    assert all(r.exit_code == 0 for r in outs), [r.output for r in outs]
    assert outs[0].output == outs[1].output
    assert "gamma_k=0.5" in outs[0].output


@pytest.mark.parametrize("value, reason", [("1/0", "divides by zero"),
                                           ("1/x", "not a real number"),
                                           ("1/1e999", "not a real number")])
def test_a_bad_fraction_is_a_usage_error_naming_the_flag(value, reason):
    res = _run(["density", "attention", "--beta", value, "--gamma-k", "1"])
    assert res.exit_code == 2, res.output
    assert "--beta" in res.output and reason in res.output, res.output
    assert "Traceback" not in res.output


def test_a_fraction_outside_the_range_names_the_range():
    res = _run(["density", "attention", "--beta", "9/2", "--gamma-k", "1"])
    assert res.exit_code == 2
    assert "--beta must lie in the closed interval [0.01, 4], got 4.5" in res.output


def test_an_upper_case_json_extension_writes_json(tmp_path):
    """--out a.JSON was taken as JSON by split_out but written as CSV."""
    import json
    out = tmp_path / "a.JSON"
    res = _run(["density", "attention", "--beta", "1", "--gamma-k", "1", "--points", "3",
                "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    assert data["x"][0] == 0.0 and data["pdf"][0] is None  # the hard edge at 0, one head
    assert len(data["x"]) == 3


def test_an_edge_below_the_mp_edge_is_not_called_larger():
    """h = 3, γ_K = 2: right edge 5.42 < 4θ₁ = 6.87 (was "0.788709 x larger")."""
    res = _run(["density", "attention", "--beta", "1", "--gamma-k", "2", "--heads", "3",
                "--points", "3"])
    assert res.exit_code == 0, res.output
    line = next(l for l in res.output.splitlines() if l.startswith("i.i.d."))
    assert "larger" not in line and "smaller: 0.788709 x the MP edge" in line, line


def test_sweep_axis_values_read_as_every_real_flag():
    """--beta 1/10,1 was refused ('could not convert string to float') although --beta 1/10
    is accepted; 1e-400 was silently 0."""
    import json
    res = _run(["sweep", "attention", "--beta", "1/10,1", "--gamma-k", "1", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["axes"]["beta"] == [0.1, 1.0]
    res = _run(["sweep", "attention", "--beta", "1/4:1/2:2", "--gamma-k", "1", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["axes"]["beta"] == [0.25, 0.5]
    res = _run(["sweep", "attention", "--beta", "1e-400,1", "--gamma-k", "1"])
    assert res.exit_code == 2 and "--beta" in res.output and "underflows" in res.output
