"""Output paths of CLI options, checked before any work is done."""
from __future__ import annotations

import os
import tempfile

import click

from ._errors import RunError

__all__ = ["check_output_path", "check_curve_outputs", "write_or_fail", "split_out",
           "OUT_HELP"]

#: --help of every --out option: one convention across the commands
OUT_HELP = ("Write the results to FILE, the format from its extension: .json (JSON){more}, or an "
            "image extension (.png, .svg, .pdf, ...: the figure, as --plot).")


# formats that need an external program (pgf: a LaTeX install) are not offered
_NEEDS_TOOLS = {"pgf"}


def _plot_formats():
    from matplotlib.figure import Figure  # optional heavy: only when an output is checked

    return sorted(set(Figure().canvas.get_supported_filetypes()) - _NEEDS_TOOLS)


def _writable(folder):
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def check_output_path(path, hint, *, plot=False):
    """Raise click.BadParameter unless ``path`` can be written.

    The directory must exist and accept a new file; a plot needs an extension matplotlib
    can write without external programs (png, pdf, svg, ...).
    """
    if path is None:
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise click.BadParameter(f"directory of {path!r} does not exist", param_hint=hint)
    if os.path.isdir(path):
        raise click.BadParameter(f"{path!r} is a directory, not a file", param_hint=hint)
    if not _writable(folder):
        raise click.BadParameter(f"cannot write files in the directory of {path!r}",
                                 param_hint=hint)
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if plot:
        formats = _plot_formats()
        if ext not in formats:
            raise click.BadParameter(
                f"{path!r} needs an image extension, one of: {', '.join(formats)}",
                param_hint=hint)
    return path


def write_or_fail(write, path, hint):
    """Run ``write()``; an OS or matplotlib failure becomes a RunError (exit code 3)."""
    try:
        return write()
    except (OSError, RuntimeError, ValueError) as exc:
        raise RunError(f"could not write {hint} {path!r}: {exc}") from None


#: Largest --points of a density command: 10⁶ points take ~8 s and a 37 MB CSV here; 10⁸
#: ran for minutes before printing anything.
MAX_POINTS = 10**6


def _extension(path):
    return os.path.splitext(path)[1].lower().lstrip(".")


def split_out(out, plot, data=("json",), default=None):
    """(data file, figure file) of a command's --out and --plot (the one --out convention).

    ``--out FILE.png`` (any image extension matplotlib writes) is the figure, as ``--plot``;
    ``--out FILE.json`` (or another extension of ``data``) the numbers.  ``default`` is the
    data format of any other extension (the density commands write CSV there); without one,
    another extension is refused naming --out.
    """
    if out is None:
        return None, plot
    if plot is not None and os.path.abspath(out) == os.path.abspath(plot):
        raise click.BadParameter("--out and --plot must be different files", param_hint="--plot")
    ext = _extension(out)
    if ext in data:
        return out, plot
    if ext in _plot_formats():
        if plot is not None:
            raise click.BadParameter("give the figure once: --out FILE.png or --plot FILE.png",
                                     param_hint="--out")
        return None, out
    if default is not None:
        return out, plot
    choices = ", ".join("." + d for d in data)
    raise click.BadParameter(f"{out!r}: the extension sets the format: {choices} or an image "
                             f"extension (.png, .svg, .pdf, ...)", param_hint="--out")


def check_curve_outputs(points, out, plot):
    """The shared checks of a density command's --points, --out and --plot, before any work:
    2 to MAX_POINTS points, writable paths, and a table and a plot that are not the same file."""
    if not 2 <= points <= MAX_POINTS:
        raise click.BadParameter(f"must be an integer in [2, {MAX_POINTS}], got {points}",
                                 param_hint="--points")
    check_output_path(out, "--out")
    check_output_path(plot, "--plot", plot=True)
    if out and plot and os.path.abspath(out) == os.path.abspath(plot):
        raise click.BadParameter("--out and --plot must be different files", param_hint="--plot")
