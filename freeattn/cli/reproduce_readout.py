"""``freeattn reproduce fig2a|fig2c|fig2d|fig3a|fig3b``: the paper's readout experiments."""
from __future__ import annotations

import json
import os

import click

from ..reproduce import fig2a, fig2c, fig2d, fig3a, fig3b
from ._paths import OUT_HELP, check_output_path, split_out, write_or_fail

__all__ = ["FIGURES", "COMMANDS"]

FIGURES = {
    "fig2a": "Training loss for h ∈ {32, 64, 128} (Fig. 2(a), §D.2).",
    "fig2c": "Ridge error along the fixed-output and fixed-budget paths (Fig. 2(c), §D.3).",
    "fig2d": "Error ratio (64,192)/(128,128) against β and the crossover β_c (Fig. 2(d), §D.4).",
    "fig3a": "Arrival times under across-head K/V sharing (Fig. 3(a), §D.5).",
    "fig3b": "GQA versus within-head K = V tying against h (Fig. 3(b), §D.6).",
}


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
    @click.option("--plot", type=click.Path(dir_okay=False), default=f"{name}.png",
                  show_default=True, help="Figure file (format from the extension).")
    @click.option("--no-plot", is_flag=True, help="Do not write the figure.")
    @click.option("--out", type=click.Path(dir_okay=False), default=None,
                  help=OUT_HELP.format(more=": all the numbers"))
    def cmd(mc, draws, seed, plot, no_plot, out):
        mod = _MODULES[name]
        if out is not None and os.path.splitext(out)[1].lower() != ".json":
            out, plot = split_out(out, None)  # --out FIG.png: the figure
            no_plot = False
        if not no_plot:
            check_output_path(plot, "--plot", plot=True)
        check_output_path(out, "--out")
        res = mod.compute(mc=mc, draws=draws, seed=seed)
        click.echo("\n".join(mod.summary(res)))
        if out:
            def write():
                with open(out, "w") as fh:
                    json.dump(res, fh, indent=1, default=float)
            write_or_fail(write, out, "--out")
            click.echo(f"wrote {out}")
        if not no_plot:
            write_or_fail(lambda: mod.plot(res, plot), plot, "--plot")
            click.echo(f"wrote {plot}")

    return cmd


#: one command per figure (registered by :mod:`freeattn.cli.reproduce`)
COMMANDS = [_make(_name, _doc) for _name, _doc in FIGURES.items()]
