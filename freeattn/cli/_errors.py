"""How the CLI reports errors, and its exit codes.

0: success (a check passed); 1: a check ran and failed; 2: bad input (click's usage error);
3: the tool could not finish (a cluster could not be reached, an output could not be written).

A library error names its parameter (:class:`freeattn._validation.ParameterError` carries
the Python name in ``.param``); the flag is derived, never kept in a table: the option of the
running command whose Python name is that parameter (``rel_w1_tol`` → ``--w1-tol``), else the
name spelled as a flag (``gamma_k`` → ``--gamma-k``, the rule by which
:func:`freeattn.cli._domains.param_option` names the flags of the declared parameters).
"""
from __future__ import annotations

import click

from ._domains import flag_of

__all__ = ["RunError", "usage_error", "EXIT_RUN_ERROR", "flag_for"]

EXIT_RUN_ERROR = 3


class RunError(click.ClickException):
    """The work could not be finished (not a bad input, not a failed check): exit code 3."""

    exit_code = EXIT_RUN_ERROR


def flag_for(param, ctx=None):
    """The flag of the running command that sets the Python parameter ``param``."""
    ctx = ctx or click.get_current_context(silent=True)
    if ctx is not None:
        for opt in ctx.command.params:
            if isinstance(opt, click.Option) and opt.name == param:
                longs = [o for o in opt.opts if o.startswith("--")]
                return (longs or opt.opts)[0]
    return flag_of(param)


def _option_names(ctx=None):
    ctx = ctx or click.get_current_context(silent=True)
    if ctx is None:
        return set()
    return {opt.name for opt in ctx.command.params if isinstance(opt, click.Option)}


def usage_error(exc, **flags):
    """click.UsageError from a library error, its parameter spelled as the command's flag.

    ``flags`` overrides the flag of a name (e.g. ``beta="--beta-grid"`` in a grid, where one
    flag sets many values of one parameter).  An error without ``.param`` is named by its
    first word only where that word is the Python name of one of the running command's
    options (or of ``flags``); otherwise it is reported as it reads.
    """
    msg = str(exc)
    param = getattr(exc, "param", None)
    if not param:  # a plain ValueError: named by its first word only if that is an option's
        first = msg.split(" ", 1)[0].rstrip(":,")
        if first not in flags and first not in _option_names():
            return click.UsageError(msg)
        param = first
    flag = flags.get(param) or flag_for(param)
    if msg.startswith(param + " ") or msg.startswith(param + ":"):
        msg = flag + msg[len(param):]
    else:
        msg = f"{flag}: {msg}"
    return click.UsageError(msg)
