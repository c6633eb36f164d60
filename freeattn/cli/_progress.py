"""``--progress/--no-progress``: progress bars on stderr, only where someone watches them."""
from __future__ import annotations

import sys

import click

__all__ = ["progress_option", "show_progress"]


def progress_option(f):
    """The ``--progress/--no-progress`` flag (default: automatic, see :func:`show_progress`)."""
    return click.option(
        "--progress/--no-progress", "progress", default=None,
        help="Progress bar on stderr. Default: shown only when stderr is a terminal and the "
             "output is not --json, so redirected output and logs stay clean.")(f)


def _stderr_is_terminal():
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # closed or replaced stream
        return False


def show_progress(progress, as_json=False):
    """Whether to draw the bar: the flag when given, else stderr is a TTY and not --json.

    The bar itself always goes to stderr (:func:`freeattn.montecarlo.runner.run_draws`),
    never into the table or JSON on stdout.
    """
    if progress is not None:
        return bool(progress)
    return _stderr_is_terminal() and not as_json
