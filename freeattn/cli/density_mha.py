"""``freeattn density mha``: the limit law of a multi-head layer (C.15)/(C.21) from a preset or
explicit ratios."""
from __future__ import annotations

from fractions import Fraction

import click

from .._validation import ParameterError, positive_integer
from ..attention.config import PRESETS
from ..attention.domains import (BETA, GAMMA_K, GAMMA_O, GAMMA_V, KINDS, KV_HEADS, RHO,
                                 check_rho_layer, check_sharing)
from ..attention.multi_head import head_average_law, mha_output_law, values_law
from ..attention.partial_kv import partial_kv_values_law
from ..attention.single_head import attention_law
from ..attention.tied import kv_values_law
from ._domains import DPS, exact, param_option
from ._errors import usage_error
from ._layer import SHARING_CHOICE, preset_kv_heads, preset_note
from ._output import CURVE_OUT_HELP, emit_curve, num
from ._paths import check_curve_outputs, split_out

__all__ = ["density_mha"]

#: the matrix kinds, from the declared kinds (the layer output first: the default)
_KINDS = click.Choice(["mha"] + [k for k in KINDS if k != "mha"])


def _exact_at_dps(p, preset, dps):
    """At --dps digits, the law's parameters as the exact rationals given (0.1 → 1/10, a
    preset's γ_K = h d_K / n as that fraction); float64 as they are."""
    if dps is None:
        return p
    q = {k: exact(v) for k, v in p.items()}
    if preset is not None:
        row = PRESETS[preset]
        for name, width in (("gamma_k", "d_k"), ("gamma_v", "d_v")):
            if p[name] == row["heads"] * row[width] / row["n"]:  # not overridden by a flag
                q[name] = Fraction(row["heads"] * row[width], row["n"])
        if p["gamma_o"] == row["d_o"] / row["n"]:
            q["gamma_o"] = Fraction(row["d_o"], row["n"])
    return q


@click.command("mha")
@click.option("--preset", default=None,
              help="A published layer (Table D.2 names, or mistral-7b): its β and ratios; "
                   "other flags override them.")
@param_option(BETA, default_help="1, or the preset's")
@click.option("--heads", type=int, default=None, help="Number of query heads h (default 1).")
@param_option(KV_HEADS, extra="Needed for gqa.")
@click.option("--sharing", type=SHARING_CHOICE, default=None,
              help="K/V sharing across heads or tying W^V = W^K (default none).")
@param_option(GAMMA_K)
@param_option(GAMMA_V, default_help="γ_K")
@param_option(GAMMA_O, default_help="1")
@param_option(RHO, extra="Needs γ_V = γ_K; beyond the paper, derivations/partial_kv.py.")
@click.option("--kind", type=_KINDS, default="mha", show_default=True,
              help="Which matrix: the layer output, Z_V, the head average or [A_r^⊥].")
@click.option("--points", type=int, default=400, show_default=True,
              help="Number of grid points across the support (2 to 10^6).")
@click.option("--out", type=click.Path(dir_okay=False), help=CURVE_OUT_HELP)
@click.option("--json", "as_json", is_flag=True,
              help="Print the curve as JSON (the --out FILE.json content) instead of text.")
@click.option("--plot", type=click.Path(dir_okay=False),
              help="Write a plot of the density (.png, .pdf, .svg, ...).")
@click.option("--dps", type=DPS, default=None,
              help="Digits (5 to 2000) for edges, atoms and moments (mpmath).")
def density_mha(preset, beta, heads, kv_heads, sharing, gamma_k, gamma_v, gamma_o, rho, kind,
                points, out, as_json, plot, dps):
    """Density of the limit law of a multi-head layer: ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O} (C.15),
    or D_{1/γ_K}(π(μ_KV, h) ⊠ π_{γ_O}) for tied K = V (C.21); MQA/GQA equal 'none'."""
    out, plot = split_out(out, plot, data=("json", "csv"), default="csv")
    check_curve_outputs(points, out, plot)
    try:
        p = {"beta": 1.0, "heads": 1, "sharing": "none", "kv_heads": None}
        if preset is not None:
            if preset not in PRESETS:
                raise ParameterError("preset", f"preset must be one of {tuple(PRESETS)}, "
                                               f"got {preset!r}")
            row = PRESETS[preset]
            p.update(beta=row["beta"], heads=row["heads"], sharing=row["sharing"],
                     kv_heads=preset_kv_heads(row, heads, kv_heads, sharing),
                     gamma_k=row["heads"] * row["d_k"] / row["n"],
                     gamma_v=row["heads"] * row["d_v"] / row["n"], gamma_o=row["d_o"] / row["n"])
        for name, val in dict(beta=beta, heads=heads, kv_heads=kv_heads, sharing=sharing,
                              gamma_k=gamma_k, gamma_v=gamma_v, gamma_o=gamma_o).items():
            if val is not None:
                p[name] = val
        p["heads"] = positive_integer("heads", p["heads"])  # before the sharing checks
        if "gamma_k" not in p:
            raise click.UsageError("give --gamma-k (or --preset)")
        p.setdefault("gamma_v", p["gamma_k"])
        p.setdefault("gamma_o", 1.0)
        kv = check_sharing(p["sharing"], p["heads"], p["kv_heads"])
        tied = p["sharing"] == "tied_kv"
        p = _exact_at_dps(p, preset, dps)
        rho_law = rho if dps is None else exact(rho)
        if kind == "mha":
            law = mha_output_law(p["beta"], p["heads"], p["gamma_k"], p["gamma_v"],
                                 p["gamma_o"], sharing=p["sharing"], kv_heads=p["kv_heads"],
                                 rho=rho_law)
        elif kind == "values" and rho is not None:
            check_rho_layer(rho, p["sharing"], p["gamma_k"], p["gamma_v"])
            law = partial_kv_values_law(p["beta"], p["heads"], p["gamma_k"], rho_law)
        elif kind == "values":
            law = (kv_values_law(p["beta"], p["heads"], p["gamma_k"]) if tied else
                   values_law(p["beta"], p["heads"], p["gamma_k"], p["gamma_v"]))
        elif kind == "head_average":
            law = head_average_law(p["beta"], p["gamma_k"], p["heads"], kv_heads=kv)
        else:
            law = attention_law(p["beta"], p["gamma_k"], p["heads"])
        support = law.support(dps=dps)
        atoms = law.atoms(dps=dps)
    except (TypeError, ValueError) as exc:
        raise usage_error(preset_note(exc, preset, kv_heads, p.get("kv_heads"))) from None
    except ArithmeticError as exc:
        raise click.ClickException(f"the law could not be resolved: {exc}") from None
    p = {k: float(v) if isinstance(v, Fraction) else v for k, v in p.items()}
    lines = [f"law       : {law.name}",
             f"ratios    : gamma_K={p['gamma_k']:.6g} gamma_V={p['gamma_v']:.6g} "
             f"gamma_O={p['gamma_o']:.6g} heads={p['heads']} kv_heads={kv} "
             f"sharing={p['sharing']} beta={p['beta']:g}"
             + ("" if rho is None else f" rho={rho:g}"),
             "support   : " + ", ".join(f"[{num(a, dps)}, {num(b, dps)}]" for a, b in support),
             "atoms     : " + (", ".join(f"{num(m, dps)} at {num(a, dps)}" for a, m in atoms)
                              if atoms else "none")]
    for k in (1, 2, 3):
        lines.append(f"moment {k}  : {num(law.moment(k, dps=dps), dps)}")
    lines.append(f"right edge: {num(support[-1][1], dps)}")
    params = {"kind": kind, "preset": preset, "beta": p["beta"], "heads": p["heads"],
              "kv_heads": kv, "sharing": p["sharing"], "gamma_k": p["gamma_k"],
              "gamma_v": p["gamma_v"], "gamma_o": p["gamma_o"], "rho": rho}
    emit_curve(click.echo, law, params, support, atoms, lines, points=points, out=out,
               as_json=as_json, plot=plot)
