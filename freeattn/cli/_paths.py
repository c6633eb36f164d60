"""Output paths of CLI options, checked before any work is done."""
from __future__ import annotations

import os

import click

__all__ = ["check_output_path"]


def _plot_formats():
    from matplotlib.figure import Figure

    return sorted(Figure().canvas.get_supported_filetypes())


def check_output_path(path, hint, *, plot=False, suffixes=None):
    """Raise click.BadParameter unless ``path`` can be written.

    The directory must exist; a plot needs an extension matplotlib can write (png, pdf,
    svg, ...); ``suffixes`` restricts other files (e.g. ``(".csv", ".json")``).
    """
    if path is None:
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise click.BadParameter(f"directory of {path!r} does not exist", param_hint=hint)
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if plot:
        formats = _plot_formats()
        if ext not in formats:
            raise click.BadParameter(
                f"{path!r} needs an image extension, one of: {', '.join(formats)}",
                param_hint=hint)
    elif suffixes is not None and "." + ext not in suffixes:
        raise click.BadParameter(f"{path!r} must end in one of {', '.join(suffixes)}",
                                 param_hint=hint)
    return path
