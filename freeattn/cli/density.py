"""``freeattn density attention|mha``: limiting spectral densities."""
from __future__ import annotations

import json

import click
import numpy as np

from ..attention import attention_law, theta1, theta2
from ..attention.domains import BETA, GAMMA_K, HEADS
from ._domains import DPS, param_option
from ._errors import usage_error
from ._output import CURVE_OUT_HELP, curve_payload, num, write_curve
from ._paths import check_curve_outputs, split_out, write_or_fail
from .density_mha import density_mha
from .plotting import plot_density

__all__ = ["density"]


@click.group()
def density():
    """Evaluate a limiting spectral density."""


@density.command("attention")
@param_option(BETA, required=True)
@param_option(GAMMA_K, required=True)
@param_option(HEADS, default=1, show_default=True)
@click.option("--points", type=int, default=400, show_default=True,
              help="Number of grid points across the support (2 to 10^6).")
@click.option("--out", type=click.Path(dir_okay=False), help=CURVE_OUT_HELP)
@click.option("--json", "as_json", is_flag=True,
              help="Print the curve as JSON (the --out FILE.json content) instead of text.")
@click.option("--plot", type=click.Path(dir_okay=False),
              help="Write a plot of the density; the format follows the extension "
                   "(.png, .pdf, .svg, ...).")
@click.option("--dps", type=DPS, default=None,
              help="Digits (5 to 2000) for edges and moments (mpmath).")
def density_attention(beta, gamma_k, heads, points, out, as_json, plot, dps):
    """Density of ν_{∞,h}: squared singular values of sqrt(n/h)(A − 11ᵀ/n), n → ∞."""
    out, plot = split_out(out, plot, data=("json", "csv"), default="csv")
    check_curve_outputs(points, out, plot)
    try:
        law = attention_law(beta, gamma_k, heads)
    except (TypeError, ValueError) as exc:
        raise usage_error(exc) from None
    support = law.support(dps=dps)
    atoms = law.atoms(dps=dps)
    th1 = theta1(beta)
    lines = [
        f"law       : {law.name}",
        f"theta1    : {num(law.moment(1, dps=dps), dps)}   (e^(beta^2) - 1, the mean)",
        f"theta2    : {theta2(beta):.15g}   (beta^2)",
        "support   : " + ", ".join(f"[{num(a, dps)}, {num(b, dps)}]" for a, b in support),
        "atoms     : " + (", ".join(f"{num(m, dps)} at {num(a, dps)}" for a, m in atoms)
                          if atoms else "none"),
    ]
    for k in (1, 2, 3):
        lines.append(f"moment {k}  : {num(law.moment(k, dps=dps), dps)}")
    right = support[-1][1]
    lines.append(f"right edge: {num(right, dps)}")
    lines.append(f"i.i.d. Marchenko-Pastur edge 4*theta1: {4 * th1:.15g}"
                 f"  (attention edge is {float(right) / (4 * th1):.6f} x larger)")
    if not as_json:
        click.echo("\n".join(lines))

    a, b = float(support[0][0]), float(support[-1][1])
    x = np.linspace(a, b, points)
    pdf = law.pdf(x)
    params = {"kind": "attention", "beta": beta, "gamma_k": gamma_k, "heads": heads}
    if as_json:
        click.echo(json.dumps(curve_payload(law, params, support, atoms, x, pdf), indent=1,
                              allow_nan=False))
    if out:
        write_or_fail(lambda: write_curve(out, law, params, support, atoms, x, pdf), out,
                      "--out")
        if not as_json:
            click.echo(f"wrote {out}")
    if plot:
        xs = np.linspace(a, b, max(points, 800))  # the figure gets a fine grid of its own
        write_or_fail(lambda: plot_density(law, xs, law.pdf(xs), plot, mp_edge=4 * th1),
                      plot, "--plot")
        if not as_json:
            click.echo(f"wrote {plot}")


density.add_command(density_mha)
