"""``freeattn reproduce fig2b|figD1|tableD1|dof-expansion``: the rest of the multi-head paper."""
from __future__ import annotations

import json

import click

from ..attention.domains import BETA, GAMMA_K, GAMMA_O, GAMMA_V
from ._domains import param_option
from ._paths import OUT_HELP, check_output_path, split_out
from .reproduce import reproduce
from .reproduce_readout import JSON_HELP, PLOT_HELP, emit, figure_paths
from ..reproduce import dof_expansion as _dof_expansion
from ..reproduce import fig2b as _fig2b
from ..reproduce import figD1 as _figD1
from ..reproduce import tableD1 as _tableD1
from ._errors import usage_error

__all__ = ["fig2b", "figD1", "tableD1", "dof_expansion"]


def _json_out(out):
    """--out of a command without a figure: only FILE.json."""
    out, fig = split_out(out, None)
    if fig is not None:
        raise click.BadParameter(f"{fig!r}: this command draws no figure; give FILE.json",
                                 param_hint="--out")
    return check_output_path(out, "--out")


_plot = click.option("--plot", type=click.Path(dir_okay=False), default=None, help=PLOT_HELP)
_out = click.option("--out", type=click.Path(dir_okay=False), default=None,
                    help=OUT_HELP.format(more=": all the numbers"))
_out_json = click.option("--out", type=click.Path(dir_okay=False), default=None,
                         help="Write all the numbers to FILE.json (JSON; the command draws no "
                              "figure).")
_json = click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
_draws = click.option("--draws", type=click.IntRange(min=1), default=10, show_default=True,
                      help="Independent softmax draws.")
_seed = click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
                     help="Seed (>= 0) of the Monte Carlo draws.")


@reproduce.command("fig2b", short_help="Coefficient-error map over h and gamma_O (Fig. 2(b))")
@click.option("--points", type=click.IntRange(5, 400), default=57, show_default=True,
              help="Grid points in h (gamma_O gets 49 * points/57).")
@_plot
@_out
@_json
def fig2b(points, plot, out, as_json):
    """Fig. 2(b), §D.3: the limiting ridge error E_λ over h and γ_O (γ_K = γ_V = h/64,
    λ = 1e-4, σ² = 0.1), the two paths and the width boundaries, with the boundary
    crossings h = 32, 64, 96 and the map's peaks compared with them."""
    mod = _fig2b
    out, plot = figure_paths(plot, out)
    res = mod.compute(points_h=points, points_g=max(5, round(49 * points / 57)))
    emit(mod, res, plot, out, as_json)


@reproduce.command("figD1", short_help="Attention and MHA spectra at n = 256 (Fig. D.1)")
@_draws
@_seed
@_plot
@_out
@_json
def figD1(draws, seed, plot, out, as_json):
    """Fig. D.1, §D.7: head splitting (a), output width (b), K/V sharing and tying (c) at
    n = 256, β = 1; 64-bin histograms of the softmax spectra with the limits."""
    mod = _figD1
    out, plot = figure_paths(plot, out)
    res = mod.compute(draws=draws, seed=seed)
    emit(mod, res, plot, out, as_json)


@reproduce.command("tableD1", short_help="Largest error bars of the learning figures (Table D.1)")
@click.option("--from", "inputs", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="A JSON file written by 'freeattn reproduce figX --out' (repeatable); "
                   "figures not given are computed at --mc size.")
@click.option("--mc", type=click.Choice(["none", "reduced", "paper"]), default="reduced",
              show_default=True, help="Size of the figures computed here (none: only --from).")
@click.option("--draws", type=click.IntRange(min=2), default=10, show_default=True,
              help="Independent softmax draws per marker of the figures computed here.")
@_seed
@_out_json
@_json
def tableD1(inputs, mc, draws, seed, out, as_json):
    """Table D.1: for each learning figure, the largest distance from a plotted estimate to
    its 95 % interval's farther end, absolute and relative, beside the paper's."""
    mod = _tableD1
    out = _json_out(out)
    given = {}
    for path in inputs:
        with open(path) as fh:
            data = json.load(fh)
        name = data.get("figure")
        if name not in mod.FIGURES:
            raise click.BadParameter(f"{path!r} is not a figure result of {mod.FIGURES}",
                                     param_hint="--from")
        given[name] = data
    res = mod.compute(given, mc=mc, draws=draws, seed=seed)
    emit(mod, res, None, out, as_json)


@reproduce.command("dof-expansion", short_help="(C.22), (C.23): w at strong regularisation")
@param_option(BETA, default=1.0, show_default=True)
@param_option(GAMMA_K, default=1.0, show_default=True)
@param_option(GAMMA_V, default=1.0, show_default=True)
@param_option(GAMMA_O, default_help="none: no output projection",
              extra="Includes the output projection (adds 1/γ_O to m̄₂).")
@click.option("--heads", default="4,16", show_default=True, help="Two head counts h1,h2.")
@_out_json
@_json
def dof_expansion(beta, gamma_k, gamma_v, gamma_o, heads, out, as_json):
    """§C.4: (C.22) w = 1/λ − m̄₂/λ² + R, 0 <= R <= m̄₃/λ³, against the exact w of (5.4);
    (C.23) the head-count gap (1/h1 − 1/h2)/λ²; the β = 1 tied/independent comparison."""
    mod = _dof_expansion
    try:
        hs = tuple(int(h) for h in heads.split(","))
        if len(hs) != 2 or not 0 < hs[0] < hs[1]:
            raise ValueError
    except ValueError:
        raise click.BadParameter("must be two head counts 0 < h1 < h2, e.g. 4,16",
                                 param_hint="--heads") from None
    out = _json_out(out)
    try:
        res = mod.compute(beta=beta, gamma_k=gamma_k, heads=hs, gamma_v=gamma_v,
                          gamma_o=gamma_o)
    except (TypeError, ValueError) as exc:
        raise usage_error(exc, gamma_v="--gamma-v", gamma_o="--gamma-o") from None
    emit(mod, res, None, out, as_json)
