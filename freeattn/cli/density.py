"""``freeattn density attention|mha``: limiting spectral densities."""
from __future__ import annotations

import click
import mpmath

from ..attention import attention_law, theta1, theta2
from ..attention.domains import BETA, GAMMA_K, HEADS
from .._context import to_mp
from ._domains import DPS, exact, param_option
from ._errors import usage_error
from ._output import CURVE_OUT_HELP, emit_curve, num
from ._paths import check_curve_outputs, split_out
from .density_mha import density_mha

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
        law = (attention_law(beta, gamma_k, heads) if dps is None else  # --dps: 0.1 is 1/10
               attention_law(exact(beta), exact(gamma_k), heads))
    except (TypeError, ValueError) as exc:
        raise usage_error(exc) from None
    support = law.support(dps=dps)
    atoms = law.atoms(dps=dps)
    if dps is None:
        th1, th2 = theta1(beta), theta2(beta)
        mp_edge = 4 * th1
    else:  # the mean e^(β²) − 1, β² and 4θ₁ at the requested digits, as every other number
        th1 = law.moment(1, dps=dps)
        with mpmath.workdps(dps + 5):  # mpf arithmetic runs at the context's precision
            th2 = to_mp(exact(beta)) ** 2
            mp_edge = 4 * th1
    right = support[-1][1]
    lines = [
        f"law       : {law.name}",
        f"theta1    : {num(th1, dps)}   (e^(beta^2) - 1, the mean)",
        f"theta2    : {num(th2, dps)}   (beta^2)",
        "support   : " + ", ".join(f"[{num(a, dps)}, {num(b, dps)}]" for a, b in support),
        "atoms     : " + (", ".join(f"{num(m, dps)} at {num(a, dps)}" for a, m in atoms)
                          if atoms else "none"),
    ]
    for k in (1, 2, 3):
        lines.append(f"moment {k}  : {num(law.moment(k, dps=dps), dps)}")
    lines.append(f"right edge: {num(right, dps)}")
    ratio = float(right) / float(mp_edge)
    lines.append(f"i.i.d. Marchenko-Pastur edge 4*theta1: {num(mp_edge, dps)}  "
                 + (f"(attention edge is {ratio:.6f} x larger)" if ratio >= 1 else
                    f"(attention edge is smaller: {ratio:.6f} x the MP edge)"))
    params = {"kind": "attention", "beta": beta, "gamma_k": gamma_k, "heads": heads}
    emit_curve(click.echo, law, params, support, atoms, lines, points=points, out=out,
               as_json=as_json, plot=plot, mp_edge=float(mp_edge))


density.add_command(density_mha)
