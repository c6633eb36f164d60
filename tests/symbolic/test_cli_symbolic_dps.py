"""`freeattn edges|moments attention --dps`: the documented cap is the one enforced, and the
top of the range works (it failed above ~2150 digits when numbers went through strings)."""
import mpmath
from click.testing import CliRunner

from freeattn import attention_law
from freeattn.cli import main
from freeattn.cli._domains import MAX_DPS


def test_help_states_the_enforced_cap():
    for cmd in (["edges", "attention", "--help"], ["moments", "attention", "--help"]):
        out = CliRunner().invoke(main, cmd).output
        assert f"5 to {MAX_DPS}" in " ".join(out.split())


def test_edges_at_the_largest_dps():
    res = CliRunner().invoke(main, ["edges", "attention", "--beta", "1", "--gamma-k", "1",
                                    "--dps", str(MAX_DPS)])
    assert res.exit_code == 0, res.output
    (a, b), = attention_law(1.0, 1.0).support(dps=MAX_DPS)
    assert f"[{mpmath.nstr(a, MAX_DPS)}, {mpmath.nstr(b, MAX_DPS)}]" in res.output
    assert len(mpmath.nstr(b, MAX_DPS)) > MAX_DPS - 5  # every digit (nstr drops trailing zeros)
    over = CliRunner().invoke(main, ["edges", "attention", "--beta", "1", "--gamma-k", "1",
                                     "--dps", str(MAX_DPS + 1)])
    assert over.exit_code == 2 and "--dps" in over.output
