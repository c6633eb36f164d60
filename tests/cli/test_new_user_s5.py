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
