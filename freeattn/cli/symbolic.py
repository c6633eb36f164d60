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
from ..attention.domains import BETA, GAMMA_K, HEADS
from ..symbolic import (G, algebraic_equation, critical_point_edges, edge_series,
                        equation_parameters, free_cumulants, latex, z)
from ..symbolic import moments as sym_moments
from ._domains import DPS, MAX_DPS, param_option
from ._errors import usage_error

__all__ = ["equation", "moments", "edges", "register"]


def _attention_options(f):
    f = param_option(HEADS, default=1, show_default=True)(f)
    f = param_option(GAMMA_K, required=True)(f)
    return param_option(BETA, required=True)(f)


def _law(beta, gamma_k, heads):
    try:
        return attention_law(beta, gamma_k, heads)
    except (TypeError, ValueError) as exc:
        raise usage_error(exc) from None


@click.group()
def equation():
    """Print the algebraic equation P(G, z) = 0 of a law (sympy and LaTeX)."""


@equation.command("attention")
@_attention_options
@click.option("--symbolic", is_flag=True,
              help="Keep θ₁, θ₂, γ_K, h as symbols (the papers' names) instead of values.")
@click.option("--in-beta", is_flag=True, help="Write θ₁ = e^{β²} − 1, θ₂ = β² in terms of β.")
@click.option("--latex", "as_latex", is_flag=True, help="Print the LaTeX source only.")
def equation_attention(beta, gamma_k, heads, symbolic, in_beta, as_latex):
    """P(G, z) of ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h} (Hayase & Karakida 2026, (C.8)–(C.9))."""
    law = _law(beta, gamma_k, heads)
    P = algebraic_equation(law, symbolic=symbolic, in_beta=in_beta)
    P = sp.collect(P, G)
    if as_latex:
        click.echo(latex(P, equation=True))
        return
    click.echo(f"law      : {law.name}")
    click.echo(f"P(G, z)  : {sp.sstr(P)} = 0")
    if symbolic:
        vals = equation_parameters(law, in_beta=in_beta)
        click.echo("values   : " + ", ".join(f"{k} = {sp.sstr(v)}" for k, v in vals.items()))
    click.echo(f"degrees  : {sp.degree(P, G)} in G, {sp.degree(P, z)} in z")
    click.echo(f"LaTeX    : {latex(P, equation=True)}")


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
def moments_attention(beta, gamma_k, heads, order, symbolic, dps, cumulants, as_latex):
    """Moments m_1..m_K of ν_{∞,h}; m₂ = (1 + 1/h)θ₁² + θ₂²/γ_K (Hayase & Karakida 2026, (C.11))."""
    law = _law(beta, gamma_k, heads)
    fn = free_cumulants if cumulants else sym_moments
    label = "kappa" if cumulants else "m"
    exprs = fn(law, order, symbolic=symbolic)
    values = fn(law, order) if symbolic else exprs
    click.echo(f"law : {law.name}")
    for q, (ex, val) in enumerate(zip(exprs, values), start=1):
        line = f"{label}_{q} = {sp.sstr(ex)}"
        if dps is not None:
            with mpmath.workdps(dps + 10):
                num = mpmath.mpf(sp.N(val, dps + 10))
            line += f"\n      = {mpmath.nstr(num, dps)}"
        elif not symbolic:
            line += f"   ({float(val):.15g})"
        click.echo(line)
        if as_latex:
            click.echo(f"      LaTeX: {latex(ex)}")


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
def edges_attention(beta, gamma_k, heads, dps, method, series, order):
    """Edges of ν_{∞,h} to --dps digits (one line per support interval), and its atoms."""
    law = _law(beta, gamma_k, heads)
    click.echo(f"law : {law.name}")
    if series is not None:
        if series == "gamma_k":
            ser = edge_series(law, "gamma_k", order=order, symbolic=True)
        else:
            ser = edge_series(law, "beta", order=order + 1, dps=dps)
        for side, expr in ser.items():
            click.echo(f"{side} edge series: {sp.sstr(expr)}")
    routes = {}
    if method in ("discriminant", "both"):
        routes["discriminant"] = law.support(dps=dps)
    if method in ("critical", "both"):
        routes["critical"] = critical_point_edges(law, dps=dps)
    for name, sup in routes.items():
        click.echo(f"{name} route:")
        for a, b in sup:
            click.echo(f"  [{mpmath.nstr(a, dps)}, {mpmath.nstr(b, dps)}]")
    if len(routes) == 2:
        with mpmath.workdps(dps + 10):
            diff = max(max(abs(a - c), abs(b - d)) for (a, b), (c, d)
                       in zip(routes["discriminant"], routes["critical"]))
        click.echo(f"largest difference: {mpmath.nstr(diff, 3)}")
    atoms = law.atoms(dps=dps)
    click.echo("atoms: " + (", ".join(f"{mpmath.nstr(m, dps)} at {mpmath.nstr(a, dps)}"
                                      for a, m in atoms) if atoms else "none"))


def register(main):
    """Add the ``equation``, ``moments`` and ``edges`` groups to the CLI."""
    for group in (equation, moments, edges):
        main.add_command(group)
