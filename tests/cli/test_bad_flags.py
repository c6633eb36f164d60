"""Bad flags across the commands (issue 21, item 20): each is a usage error (exit 2) that
names the flag, before any work, within a time bound; never a traceback, never a silent 0."""
import importlib
import signal

import pytest
from click.testing import CliRunner

from freeattn.cli import main

TIME_BOUND = 20

ATT = ["--beta", "1", "--gamma-k", "1"]
LAYER = ["--beta", "1", "--gamma-k", "1", "--heads", "4", "--gamma-o", "1"]
CHECK_ATT = ["check", "attention", "--gamma-k", "1", "--draws", "2", "--workers", "1"]
CHECK_MHA = ["check", "mha", "--n", "64", "--heads", "2", "--d-k", "32", "--workers", "1"]

#: (command, bad flags, the flag the message must name)
BAD = [
    (["density", "attention", *ATT], ["--beta", "nan"], "--beta"),
    (["density", "attention", "--gamma-k", "1"], ["--beta", "1e-400"], "--beta"),
    (["density", "attention", "--beta", "1"], ["--gamma-k", "1e400"], "--gamma-k"),
    (["density", "attention", *ATT], ["--beta", "9"], "--beta"),
    (["density", "attention", *ATT], ["--heads", "0"], "--heads"),
    (["density", "attention", *ATT], ["--heads", "20000"], "--heads"),
    (["density", "attention", *ATT], ["--points", "1"], "--points"),
    (["density", "attention", *ATT], ["--dps", "3"], "--dps"),
    (["density", "mha", "--gamma-k", "1"], ["--rho", "1e-400"], "--rho"),
    (["density", "mha", "--gamma-k", "1"], ["--rho", "1.5"], "--rho"),
    (["density", "mha", "--gamma-k", "1"], ["--rho", "inf"], "--rho"),
    (["density", "mha", "--gamma-k", "1"], ["--gamma-v", "0"], "--gamma-v"),
    (["density", "mha", "--gamma-k", "1"], ["--gamma-o", "-1"], "--gamma-o"),
    (["density", "mha", "--gamma-k", "1", "--heads", "4"], ["--kv-heads", "3"], "--kv-heads"),
    (["density", "mha"], ["--preset", "bert"], "--preset"),
    (["density", "mha", "--gamma-k", "1"], ["--sharing", "tied"], "--sharing"),
    (["density", "mha", "--gamma-k", "1"], ["--kind", "layer"], "--kind"),
    (["equation", "attention", *ATT], ["--heads", "0"], "--heads"),
    (["moments", "attention", "--gamma-k", "1"], ["--beta", "-1"], "--beta"),
    (["edges", "attention", *ATT], ["--dps", "100000"], "--dps"),
    (["readout", "dof", *LAYER], ["--lam", "-1"], "--lam"),
    (["readout", "dof", *LAYER], ["--lam", "1e-400"], "--lam"),
    (["readout", "ridge", *LAYER, "--lam", "1"], ["--sigma2", "-1"], "--sigma2"),
    (["readout", "ridge", *LAYER, "--lam", "1"], ["--gamma-v", "nan"], "--gamma-v"),
    (["readout", "loss", *LAYER], ["--t", "-1"], "--t"),
    (["readout", "loss", *LAYER, "--t", "1"], ["--level", "2"], "--level"),
    (["readout", "loss", *LAYER, "--t", "1"], ["--method", "euler"], "--method"),
    (["readout", "ridge", "--lam", "1"], ["--preset", "bert"], "--preset"),
    (CHECK_ATT, ["--beta", "1", "--n", "1"], "--n"),
    (CHECK_ATT, ["--beta", "1", "--n", "100", "--draws", "0"], "--draws"),
    (CHECK_ATT, ["--beta", "1", "--n", "100", "--seed", "-1"], "--seed"),
    (CHECK_ATT, ["--beta", "1", "--n", "100", "--kv-heads", "0"], "--kv-heads"),
    (CHECK_ATT, ["--beta", "1", "--n", "100", "--ks-tol", "nan"], "--ks-tol"),
    (CHECK_ATT, ["--beta", "1e-400", "--n", "100"], "--beta"),
    (CHECK_MHA, ["--rho", "2"], "--rho"),
    (CHECK_MHA, ["--rho", "1e-400"], "--rho"),
    (CHECK_MHA, ["--d-o", "0"], "--d-o"),
    (CHECK_MHA, ["--d", "10"], "--d"),
    (CHECK_MHA, ["--gamma-v", "0.013"], "--gamma-v"),
    (CHECK_MHA, ["--sharing", "gqa"], "--kv-heads"),
    (["reproduce", "table-d2", "--estimate"], ["--rows", "bert"], "--rows"),
    (["reproduce", "table-d2", "--estimate"], ["--draws", "0"], "--draws"),
    (["reproduce", "fig2a"], ["--draws", "1"], "--draws"),
    (["reproduce", "fig2a"], ["--mc", "huge"], "--mc"),
]


@pytest.fixture
def no_work(monkeypatch):
    """A Monte Carlo draw or a figure computation fails the test: refusals come first."""
    def refuse(*args, **kwargs):
        raise AssertionError("work started before the bad flag was reported")

    monkeypatch.setattr(importlib.import_module("freeattn.montecarlo.runner"), "_draw_task",
                        refuse)
    for fig in ("fig2a",):
        monkeypatch.setattr(importlib.import_module(f"freeattn.reproduce.{fig}"), "compute",
                            refuse)


def _alarm(signum, frame):
    raise TimeoutError(f"no answer within {TIME_BOUND} s")


@pytest.mark.parametrize("command, bad, flag", BAD,
                         ids=[" ".join(c[:2] + b) for c, b, _ in BAD])
def test_bad_flag_is_a_usage_error_naming_it(no_work, command, bad, flag):
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_BOUND)
    try:
        res = CliRunner().invoke(main, command + bad)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert res.exit_code == 2, res.output
    assert flag in res.output, res.output
    assert "Traceback" not in res.output and not isinstance(res.exception, TimeoutError)
