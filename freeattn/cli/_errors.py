"""How the CLI reports errors, and its exit codes.

0: success (a check passed); 1: a check ran and failed; 2: bad input (click's usage error);
3: the tool could not finish (a cluster could not be reached, an output could not be written).
"""
from __future__ import annotations

import re

import click

__all__ = ["RunError", "usage_error", "EXIT_RUN_ERROR"]

EXIT_RUN_ERROR = 3

# Python parameter names that start library error messages, and their CLI flags.
_FLAGS = {"beta": "--beta", "n": "--n", "d": "--d", "heads": "--heads",
          "kv_heads": "--kv-heads", "gamma_k": "--gamma-k", "d_k": "--d-k", "d_v": "--d-v",
          "d_o": "--d-o", "draws": "--draws", "seed": "--seed", "workers": "--workers",
          "exclude_top": "--exclude-top", "ks_tol": "--ks-tol", "rel_w1_tol": "--w1-tol",
          "factor": "--factor", "tied": "--tied", "points": "--points", "dps": "--dps"}


class RunError(click.ClickException):
    """The work could not be finished (not a bad input, not a failed check): exit code 3."""

    exit_code = EXIT_RUN_ERROR


def usage_error(exc, **flags):
    """click.UsageError from a library error, its leading parameter name spelled as a flag.

    ``flags`` overrides or adds the flag of a name (e.g. ``beta="--beta-grid"`` in a grid).
    """
    msg = str(exc)
    param = getattr(exc, "param", None)  # ParameterError carries the name: no parsing
    m = re.match(r"(\w+)\b", msg)
    if param is None and m:
        param = m.group(1)
    flag = param and flags.get(param, _FLAGS.get(param))
    if flag:
        msg = flag + msg[m.end(1):] if m and m.group(1) == param else f"{flag}: {msg}"
    return click.UsageError(msg)
