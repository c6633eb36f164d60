"""``freeattn reproduce fig2a|fig2c|fig2d|fig3a|fig3b``: the paper's readout experiments."""
from __future__ import annotations

import click

from ..reproduce import fig2a, fig2c, fig2d, fig3a, fig3b
from ._output import json_text, write_json
from ._paths import OUT_HELP, check_output_path, split_out, write_or_fail

__all__ = ["FIGURES", "COMMANDS", "PLOT_HELP", "JSON_HELP", "figure_paths", "emit"]

FIGURES = {
    "fig2a": "Training loss for h ∈ {32, 64, 128} (Fig. 2(a), §D.2).",
    "fig2c": "Ridge error along the fixed-output and fixed-budget paths (Fig. 2(c), §D.3).",
    "fig2d": "Error ratio (64,192)/(128,128) against β and the crossover β_c (Fig. 2(d), §D.4).",
    "fig3a": "Arrival times under across-head K/V sharing (Fig. 3(a), §D.5).",
    "fig3b": "GQA versus within-head K = V tying against h (Fig. 3(b), §D.6).",
}

#: --plot of every ``reproduce fig*``: nothing is written where it was not asked for
PLOT_HELP = ("Write the figure to FILE (format from the extension; --out FILE.png is the "
             "same).  Without it no figure is written: the command prints the numbers.")


#: --json of every ``reproduce`` command
JSON_HELP = ("Print all the numbers as JSON (the --out FILE.json content) instead of the "
             "summary.")


def figure_paths(plot, out):
    """(out, plot) after the --out convention: ``--out FIG.png`` is the figure, given once
    (``--plot`` or ``--out``); no default file: without either no figure is written.  Both
    paths are checked before any work."""
    out, fig = split_out(out, None)
    if fig is not None:
        if plot is not None:
            raise click.BadParameter("give the figure once: --out FILE.png or --plot FILE.png",
                                     param_hint="--out")
        plot = fig
    check_output_path(plot, "--plot", plot=True)
    check_output_path(out, "--out")
    return out, plot


def emit(mod, res, plot, out, as_json=False):
    """Print the summary (or the JSON), write ``out`` (JSON) and the figure ``plot``; say
    where each file went, and that no figure was written when ``plot`` is None for a module
    that draws one."""
    click.echo(json_text(res, default=float) if as_json else "\n".join(mod.summary(res)))
    if out:
        write_json(out, res, default=float)
        if not as_json:
            click.echo(f"wrote {out}")
    if plot:
        write_or_fail(lambda: mod.plot(res, plot), plot, "--plot")
        if not as_json:
            click.echo(f"wrote {plot}")
    elif hasattr(mod, "plot") and not as_json:
        click.echo("no figure written (give --plot FILE.png)")


#: the module that computes, summarises and plots each figure
_MODULES = {"fig2a": fig2a, "fig2c": fig2c, "fig2d": fig2d, "fig3a": fig3a, "fig3b": fig3b}


def _make(name, doc):
    @click.command(name, short_help=doc.split(" (")[0],
                       help=doc + " Theory at the paper's ratios; Monte Carlo markers "
                       "at reduced sizes by default (--mc paper: the paper's sizes, hours).")
    @click.option("--mc", type=click.Choice(["none", "reduced", "paper"]), default="reduced",
                  show_default=True, help="Monte Carlo markers: none, reduced or paper sizes.")
    @click.option("--draws", type=click.IntRange(min=2), default=10, show_default=True,
                  help="Independent softmax draws per marker.")
    @click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
                  help="Seed (>= 0) of the Monte Carlo markers.")
    @click.option("--plot", type=click.Path(dir_okay=False), default=None, help=PLOT_HELP)
    @click.option("--out", type=click.Path(dir_okay=False), default=None,
                  help=OUT_HELP.format(more=": all the numbers"))
    @click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
    def cmd(mc, draws, seed, plot, out, as_json):
        mod = _MODULES[name]
        out, plot = figure_paths(plot, out)
        res = mod.compute(mc=mc, draws=draws, seed=seed)
        emit(mod, res, plot, out, as_json)

    return cmd


#: one command per figure (registered by :mod:`freeattn.cli.reproduce`)
COMMANDS = [_make(_name, _doc) for _name, _doc in FIGURES.items()]
