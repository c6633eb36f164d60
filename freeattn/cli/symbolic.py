"""`freeattn equation|moments|edges attention`: symbolic and high-precision views of ν_{∞,h}.

A thin layer over :mod:`freeattn.symbolic` and ``Law.support(dps=...)``; every mpmath number
is printed at the precision it was computed at (``mpmath.nstr(x, dps)``), never through a
15-digit float.
"""
from __future__ import annotations

import click
import mpmath
import sympy as sp

from ..attention import attention_law
from ..display import number_text
from ..attention.domains import BETA, GAMMA_K, HEADS
from ..symbolic import (G, algebraic_equation, critical_point_edges, edge_series,
                        equation_parameters, free_cumulants, latex, z)
from ..symbolic import moments as sym_moments
from ._domains import DPS, MAX_DPS, param_option
from ._errors import usage_error
from ._output import json_text, write_json
from ._paths import check_output_path

__all__ = ["equation", "moments", "edges", "register"]


def _attention_options(f):
    f = param_option(HEADS, default=1, show_default=True)(f)
    f = param_option(GAMMA_K, required=True)(f)
    return param_option(BETA, required=True)(f)


def _law(beta, gamma_k, heads):
    try:
        # not exact(beta): attention_law keeps float params, from which the critical-point
        # route and the sympy views are built; the exact rational would split the routes
        return attention_law(beta, gamma_k, heads)
    except (TypeError, ValueError) as exc:
        raise usage_error(exc) from None


def _result_options(f):
    """--json and --out FILE.json, as on every command that computes results."""
    f = click.option("--out", type=click.Path(dir_okay=False), default=None,
                     help="Write the results to FILE, the format from its extension: .json "
                          "(numbers as strings with every digit).")(f)
    return click.option("--json", "as_json", is_flag=True,
                        help="Print JSON (numbers as strings with every digit) instead of "
                             "text.")(f)


def _finish(as_json, out, lines, data):
    if out is not None:
        write_json(out, data)
    click.echo(json_text(data) if as_json else "\n".join(lines))


def _check_out(out):
    if out is not None:
        if not out.lower().endswith(".json"):
            raise click.BadParameter(f"{out!r}: the extension sets the format: .json",
                                     param_hint="--out")
        check_output_path(out, "--out")


@click.group()
def equation():
    """Print the algebraic equation P(G, z) = 0 of a law (sympy and LaTeX)."""


@equation.command("attention")
@_attention_options
@click.option("--symbolic", is_flag=True,
              help="Keep θ₁, θ₂, γ_K, h as symbols (the papers' names) instead of values.")
@click.option("--in-beta", is_flag=True, help="Write θ₁ = e^{β²} − 1, θ₂ = β² in terms of β.")
@click.option("--latex", "as_latex", is_flag=True, help="Print the LaTeX source only.")
@_result_options
def equation_attention(beta, gamma_k, heads, symbolic, in_beta, as_latex, as_json, out):
    """P(G, z) of ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h} (Hayase & Karakida 2026, (C.8)–(C.9))."""
    _check_out(out)
    law = _law(beta, gamma_k, heads)
    P = algebraic_equation(law, symbolic=symbolic, in_beta=in_beta)
    P = sp.collect(P, G)
    vals = equation_parameters(law, in_beta=in_beta) if symbolic else {}
    data = {"law": law.name, "equation": f"{sp.sstr(P)} = 0",
            "latex": latex(P, equation=True),
            "values": {str(k): number_text(v) for k, v in vals.items()},
            "degrees": {"G": int(sp.degree(P, G)), "z": int(sp.degree(P, z))}}
    if as_latex and not as_json:
        lines = [data["latex"]]
    else:
        lines = [f"law      : {law.name}", f"P(G, z)  : {data['equation']}"]
        if symbolic:
            lines.append("values   : " + ", ".join(f"{k} = {v}"
                                                   for k, v in data["values"].items()))
        lines += [f"degrees  : {data['degrees']['G']} in G, {data['degrees']['z']} in z",
                  f"LaTeX    : {data['latex']}"]
    _finish(as_json, out, lines, data)


@click.group()
def moments():
    """Print exact moments (and free cumulants) of a law."""


@moments.command("attention")
@_attention_options
@click.option("--order", type=click.IntRange(min=1, max=12), default=3, show_default=True,
              help="Number of moments K (1..12).")
@click.option("--symbolic", is_flag=True, help="Moments as formulas in θ₁, θ₂, γ_K, h.")
@click.option("--dps", type=DPS, default=None,
              help=f"Also print each value to this many digits (5 to {MAX_DPS}, mpmath).")
@click.option("--cumulants", is_flag=True, help="Print free cumulants instead of moments.")
@click.option("--latex", "as_latex", is_flag=True, help="Add the LaTeX source of each line.")
@_result_options
def moments_attention(beta, gamma_k, heads, order, symbolic, dps, cumulants, as_latex, as_json,
                      out):
    """Moments m_1..m_K of ν_{∞,h}; m₂ = (1 + 1/h)θ₁² + θ₂²/γ_K (Hayase & Karakida 2026, (C.11))."""
    _check_out(out)
    law = _law(beta, gamma_k, heads)
    fn = free_cumulants if cumulants else sym_moments
    label = "kappa" if cumulants else "m"
    exprs = fn(law, order, symbolic=symbolic)
    values = fn(law, order) if symbolic else exprs
    lines = [f"law : {law.name}"]
    data = {"law": law.name, "kind": "free_cumulants" if cumulants else "moments",
            "expressions": [], "values": []}
    for q, (ex, val) in enumerate(zip(exprs, values), start=1):
        line = f"{label}_{q} = {sp.sstr(ex)}"
        data["expressions"].append(sp.sstr(ex))
        if dps is not None:
            with mpmath.workdps(dps + 10):
                num = mpmath.mpf(sp.N(val, dps + 10))
            line += f"\n      = {mpmath.nstr(num, dps)}"
            data["values"].append(mpmath.nstr(num, dps))  # a string: every digit kept
        else:
            data["values"].append(float(val))
            if not symbolic:
                line += f"   ({float(val):.15g})"
        lines.append(line)
        if as_latex:
            lines.append(f"      LaTeX: {latex(ex)}")
    _finish(as_json, out, lines, data)


@click.group()
def edges():
    """Print the edges of the support at high precision."""


@edges.command("attention")
@_attention_options
@click.option("--dps", type=DPS, default=30, show_default=True,
              help=f"Digits of the edges (5 to {MAX_DPS}, mpmath).")
@click.option("--method", type=click.Choice(["discriminant", "critical", "both"]),
              default="discriminant", show_default=True,
              help="discriminant: real roots of disc_G P; critical: critical values of z(ζ) "
                   "(stationary equation); both: print both and their largest difference.")
@click.option("--series", type=click.Choice(["gamma_k", "beta"]), default=None,
              help="Also print the edges as a series: in 1/γ_K (exact, symbolic in θ₁, θ₂, h) "
                   "or in β² (coefficients to --dps digits).")
@click.option("--order", type=click.IntRange(min=1, max=8), default=2, show_default=True,
              help="Number of series terms after the leading one (with --series).")
@_result_options
def edges_attention(beta, gamma_k, heads, dps, method, series, order, as_json, out):
    """Edges of ν_{∞,h} to --dps digits (one line per support interval), and its atoms."""
    _check_out(out)
    law = _law(beta, gamma_k, heads)
    lines = [f"law : {law.name}"]
    data = {"law": law.name, "dps": dps}  # numbers as strings: every digit kept
    if series is not None:
        if series == "gamma_k":
            ser = edge_series(law, "gamma_k", order=order, symbolic=True)
        else:
            ser = edge_series(law, "beta", order=order + 1, dps=dps)
        data["series"] = {side: sp.sstr(expr) for side, expr in ser.items()}
        lines += [f"{side} edge series: {text}" for side, text in data["series"].items()]
    routes = {}
    if method in ("discriminant", "both"):
        routes["discriminant"] = law.support(dps=dps)
    if method in ("critical", "both"):
        routes["critical"] = critical_point_edges(law, dps=dps)
    data["routes"] = {name: [[mpmath.nstr(a, dps), mpmath.nstr(b, dps)] for a, b in sup]
                      for name, sup in routes.items()}
    for name, sup in data["routes"].items():
        lines.append(f"{name} route:")
        lines += [f"  [{a}, {b}]" for a, b in sup]
    if len(routes) == 2:
        with mpmath.workdps(dps + 10):
            diff = max(max(abs(a - c), abs(b - d)) for (a, b), (c, d)
                       in zip(routes["discriminant"], routes["critical"]))
        data["largest_difference"] = mpmath.nstr(diff, 3)
        lines.append(f"largest difference: {data['largest_difference']}")
    atoms = law.atoms(dps=dps)
    data["atoms"] = [[mpmath.nstr(a, dps), mpmath.nstr(m, dps)] for a, m in atoms]
    lines.append("atoms: " + (", ".join(f"{m} at {a}" for a, m in data["atoms"])
                              if atoms else "none"))
    _finish(as_json, out, lines, data)


def register(main):
    """Add the ``equation``, ``moments`` and ``edges`` groups to the CLI."""
    for group in (equation, moments, edges):
        main.add_command(group)
