"""``freeattn sweep``: a parameter grid of laws (:func:`freeattn.sweep`) written as CSV/JSON/PNG.

Axes are given as ``A:B:N`` (N points from A to B), ``v1,v2,...`` or one value, e.g.

    freeattn sweep attention --beta 0.5:2:16 --gamma-k 0.5,1,2 --out grid.csv --plot map.png
    freeattn sweep mha --preset bert-base --beta 0.5:1.5:8 --heads 1,2,4,8,12 --out map.json
"""
from __future__ import annotations

import click
import numpy as np

from ._domains import REAL
from ._errors import usage_error
from ._output import json_text, write_json
from ._paths import OUT_HELP, check_output_path, split_out, write_or_fail
from ._progress import progress_option, show_progress
from ..attention import MHAConfig, attention_law
from ..sweeps import sweep as run_sweep

__all__ = ["sweep"]


def _value(text):
    """One grid value, read as every real flag is (``1/10`` accepted; ``1e-400`` refused
    rather than taken as 0); a ValueError with the reason otherwise."""
    try:
        return float(REAL.convert(text.strip(), None, None))
    except click.BadParameter as exc:
        raise ValueError(exc.message) from None


def _axis(text, flag, integer=False):
    """``A:B:N`` | ``v1,v2,...`` | ``v`` → list of numbers (a click usage error otherwise)."""
    if text is None:
        return None
    try:
        if ":" in text:
            a, b, n = text.split(":")
            n = int(n)
            if n < 1:
                raise ValueError("N must be ≥ 1")
            vals = np.linspace(_value(a), _value(b), n).tolist()
        else:
            vals = [_value(v) for v in text.split(",") if v.strip()]
    except ValueError as exc:
        raise click.UsageError(f"{flag}: expected A:B:N, a comma list or a number, got "
                               f"{text!r} ({exc})") from None
    if not vals:
        raise click.UsageError(f"{flag}: no values in {text!r}")
    if integer:
        if any(v != int(v) for v in vals):
            raise click.UsageError(f"{flag}: integers only, got {text!r}")
        vals = [int(v) for v in vals]
    return vals


class _Layer:
    """``MHAConfig.preset(preset, **point, **fixed).law(kind)`` (picklable, for workers)."""

    def __init__(self, preset, kind, fixed):
        self.preset, self.kind, self.fixed = preset, kind, fixed

    def __call__(self, **point):
        over = {**self.fixed, **point}
        if "heads" in point and "kv_heads" not in self.fixed:
            over["kv_heads"] = point["heads"]
        return MHAConfig.preset(self.preset, **over).law(self.kind)


def _common(f):
    opts = [
        click.option("--moments", type=click.IntRange(0, 50), default=4, show_default=True,
                     help="Moments m1..mK per point."),
        click.option("--x", "x", default=None,
                     help="x-grid of the pdf (A:B:N or a comma list); none: no pdf."),
        click.option("--cdf", is_flag=True, help="Also the cdf on the x-grid."),
        click.option("--workers", type=click.IntRange(1, 256), default=1, show_default=True,
                     help="Processes."),
        click.option("--out", type=click.Path(dir_okay=False),
                     help=OUT_HELP.format(more=": everything, with the atoms; .csv or any "
                                               "other name: one row per point with the "
                                               "scalars (atom_mass among them)")),
        click.option("--json", "as_json", is_flag=True,
                     help="Print everything as JSON (the --out FILE.json content) instead of "
                          "the table."),
        click.option("--plot", type=click.Path(dir_okay=False),
                     help="Write a heat map (two axes) or a curve (one axis) of --quantity."),
        click.option("--quantity", default="right_edge", show_default=True,
                     help="Plotted quantity: left_edge, right_edge, atom_mass, intervals, mK."),
        progress_option,
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def _run(build, axes, moments, x, cdf, workers, out, as_json, plot, quantity, progress, flags):
    out, plot = split_out(out, plot, data=("json", "csv"), default="csv")
    check_output_path(out, "--out")
    check_output_path(plot, "--plot", plot=True)
    xs = _axis(x, "--x")
    try:
        res = run_sweep(build, moments=moments, x=xs, cdf=cdf, workers=workers,
                        progress=show_progress(progress, as_json), **axes)
        if plot:
            res._quantity(quantity)  # a bad --quantity fails before any file is written
    except (TypeError, ValueError) as exc:
        raise usage_error(exc, **flags) from None
    if out:
        if out.lower().endswith(".json"):
            write_json(out, res.to_dict(), allow_nan=False)
        else:
            write_or_fail(lambda: res.to_csv(out), out, "--out")
        if not as_json:
            click.echo(f"wrote {out}")
    if plot:
        write_or_fail(lambda: res.plot(quantity, plot), plot, "--plot")
        if not as_json:
            click.echo(f"wrote {plot}")
    if as_json:
        click.echo(json_text(res.to_dict(), allow_nan=False))
    elif not out and not plot:
        cols = res.scalar_columns()
        click.echo("\t".join(cols))
        for row in zip(*cols.values()):
            click.echo("\t".join(f"{v:.10g}" if isinstance(v, float) else str(v) for v in row))


@click.group()
def sweep():
    """Evaluate a law over a parameter grid (edges, atoms, moments, pdf)."""


@sweep.command("attention")
@click.option("--beta", required=True, help="β values: A:B:N, a comma list or a number.")
@click.option("--gamma-k", "gamma_k", required=True, help="γ_K = h d_K / n values.")
@click.option("--heads", default="1", show_default=True, help="Head counts h (integers).")
@_common
def sweep_attention(beta, gamma_k, heads, moments, x, cdf, workers, out, as_json, plot, quantity,
                    progress):
    """ν_{∞,h} = attention_law(β, γ_K, h) over a grid (axes in the order β, γ_K, h)."""
    axes = {"beta": _axis(beta, "--beta"), "gamma_k": _axis(gamma_k, "--gamma-k"),
            "heads": _axis(heads, "--heads", integer=True)}
    _run(attention_law, axes, moments, x, cdf, workers, out, as_json, plot, quantity,
         progress, {})


@sweep.command("mha")
@click.option("--preset", default="bert-base", show_default=True,
              help="The layer whose widths are kept (Table D.2 names).")
@click.option("--beta", required=True, help="β values: A:B:N, a comma list or a number.")
@click.option("--heads", default=None,
              help="Head counts h (integers; K/V heads follow h); default: the preset's.")
@click.option("--kind", type=click.Choice(["mha", "values", "head_average", "attention"]),
              default="mha", show_default=True, help="Which matrix's law.")
@_common
def sweep_mha(preset, beta, heads, kind, moments, x, cdf, workers, out, as_json, plot, quantity,
                    progress):
    """The layer law of a preset over β (and h), its widths n, d, d_K, d_V, d_O kept."""
    try:
        MHAConfig.preset(preset)
    except (TypeError, ValueError, KeyError) as exc:
        raise click.UsageError(f"--preset: {exc}") from None
    axes = {"beta": _axis(beta, "--beta")}
    if heads is not None:
        axes["heads"] = _axis(heads, "--heads", integer=True)
    _run(_Layer(preset, kind, {}), axes, moments, x, cdf, workers, out, as_json, plot,
         quantity, progress, {})
