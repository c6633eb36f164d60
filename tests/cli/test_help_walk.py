"""One convention across the commands (issue 18, CLI part), checked by walking every command.

Every command's --help runs; every option says what it does; a default is shown the same way
everywhere (click's ``[default: …]`` or "(default …)" in the text); one Python parameter has
one flag in every command and one flag one meaning; commands that compute results offer
``--out FILE`` (format from the extension) and ``--json``.
"""
import click
import pytest
from click.testing import CliRunner

from freeattn.cli import main

UNSET = getattr(click.core, "UNSET", None)  # click >= 8.2: "no default given"


def _commands(group=main, path=()):
    for name, cmd in sorted(group.commands.items()):
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, path + (name,))
        else:
            yield path + (name,), cmd


COMMANDS = list(_commands())
IDS = [" ".join(p) for p, _ in COMMANDS]
#: commands that print derived views only: no results file (none left: equation has --json)
PRINT_ONLY = set()


def _options(cmd):
    return [p for p in cmd.params if isinstance(p, click.Option) and p.name != "help"]


@pytest.mark.parametrize("path, cmd", COMMANDS, ids=IDS)
def test_help_runs_and_every_option_is_explained(path, cmd):
    res = CliRunner().invoke(main, [*path, "--help"])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("Usage: ")
    for opt in _options(cmd):
        assert opt.help and len(opt.help) > 8, f"{' '.join(path)} {opt.opts[0]} has no help"


@pytest.mark.parametrize("path, cmd", COMMANDS, ids=IDS)
def test_defaults_are_shown_the_same_way(path, cmd):
    for opt in _options(cmd):
        if opt.is_flag or opt.default in (None, UNSET) or opt.multiple:
            continue
        assert opt.show_default or "(default" in (opt.help or ""), \
            f"{' '.join(path)} {opt.opts[0]}: default {opt.default!r} not shown"


def test_one_flag_per_parameter_and_one_parameter_per_flag():
    flags, names = {}, {}
    for path, cmd in COMMANDS:
        for opt in _options(cmd):
            main_flag = next(o for o in opt.opts if o.startswith("--"))
            flags.setdefault(opt.name, set()).add(main_flag)
            for o in opt.opts:
                names.setdefault(o, set()).add(opt.name)
    assert {n: f for n, f in flags.items() if len(f) > 1} == {}
    assert {o: n for o, n in names.items() if len(n) > 1} == {}


@pytest.mark.parametrize("path, cmd", COMMANDS, ids=IDS)
def test_result_commands_offer_out_and_json(path, cmd):
    if path in PRINT_ONLY:
        return
    opts = {o for p in _options(cmd) for o in p.opts}
    assert "--out" in opts, f"{' '.join(path)} has no --out"
    assert "--json" in opts, f"{' '.join(path)} has no --json"


def test_tied_is_an_alias_of_sharing_tied_kv_wherever_it_exists():
    for path, cmd in COMMANDS:
        opts = {o for p in _options(cmd) for o in p.opts}
        if "--tied" in opts:
            assert "--sharing" in opts, f"{' '.join(path)}: --tied without --sharing"
