"""``freeattn density residual`` and ``freeattn check residual``: the residual stream
R = X + α √n MHA(X) (squared singular values of R/√d, λ = n/d; Benaych-Georges 2009).

``freeattn.cli`` adds both commands to the ``density`` and ``check`` groups.
"""
from __future__ import annotations

import json

import click
import numpy as np

from ..attention.config import MHAConfig
from ..attention.residual import residual_law, residual_outlier
from ..montecarlo.residual import check_residual
from ._errors import usage_error
from ._output import write_curve
from ._paths import check_curve_outputs, write_or_fail
from .plotting import plot_density

__all__ = ["density_residual", "check_residual_command"]


def _config(preset, n, d, heads, kv_heads, d_k, sharing, rho, beta):
    over = {k: v for k, v in dict(n=n, d=d, heads=heads, kv_heads=kv_heads, d_k=d_k,
                                  sharing=sharing, rho=rho, beta=beta).items() if v is not None}
    if "d" in over:
        over["d_o"] = over["d"]
    if preset is not None:
        if "d_k" in over:
            over["d_v"] = over["d_k"]
        return MHAConfig.preset(preset, **over)
    missing = [f"--{k.replace('_', '-')}" for k in ("n", "d", "d_k") if k not in over]
    if missing:
        raise click.UsageError(f"give --preset or {', '.join(missing)}")
    over.setdefault("d_o", over["d"])
    return MHAConfig(**over)


def _layer_options(f):
    for opt in reversed([
        click.option("--preset", default=None, help="A published layer (Table D.2 names)."),
        click.option("--alpha", type=float, required=True,
                     help="Weight of the attention branch: R = X + α √n MHA(X) (α > 0)."),
        click.option("--n", type=int, default=None, help="Context length n (override)."),
        click.option("--d", type=int, default=None, help="Width d = d_O (override; n ≤ d)."),
        click.option("--heads", type=int, default=None, help="Query heads h (override)."),
        click.option("--kv-heads", type=int, default=None, help="K/V heads (override)."),
        click.option("--d-k", "d_k", type=int, default=None, help="d_K = d_V (override)."),
        click.option("--sharing", type=click.Choice(["none", "gqa", "mqa", "tied_kv"]),
                     default=None, help="K/V sharing (override)."),
        click.option("--rho", type=float, default=None, help="K–V correlation ρ in [0, 1]."),
        click.option("--beta", type=float, default=None, help="Inverse temperature β."),
    ]):
        f = opt(f)
    return f


@click.command("residual")
@_layer_options
@click.option("--points", type=int, default=400, show_default=True,
              help="Number of grid points across the support.")
@click.option("--out", type=click.Path(dir_okay=False), help="Write the curve (JSON or CSV).")
@click.option("--plot", type=click.Path(dir_okay=False), help="Write a plot of the density.")
def density_residual(preset, alpha, n, d, heads, kv_heads, d_k, sharing, rho, beta, points,
                     out, plot):
    """Density of the squared singular values of R/√d, R = X + α √n MHA(X):
    δ₁ ⊞_λ D_{α²λ} ν_MHA with λ = n/d (Benaych-Georges 2009), and the outlier of the
    uncentred R (Benaych-Georges & Nadakuditi 2012)."""
    check_curve_outputs(points, out, plot)
    try:
        cfg = _config(preset, n, d, heads, kv_heads, d_k, sharing, rho, beta)
        law = residual_law(cfg, alpha)
        support, atoms = law.support(), law.atoms()
        outlier = residual_outlier(cfg, alpha, law=law)
    except (TypeError, ValueError) as exc:
        raise usage_error(exc, preset="--preset", alpha="--alpha", rho="--rho",
                          d_o="--d") from None
    except ArithmeticError as exc:
        raise click.ClickException(f"the law could not be resolved: {exc}") from None
    lines = [f"law       : {law.name}",
             f"layer     : n={cfg.n} d={cfg.d} heads={cfg.heads} kv_heads={cfg.kv_heads} "
             f"d_k={cfg.d_k} sharing={cfg.sharing} beta={cfg.beta:g} lambda={cfg.n / cfg.d:.6g}",
             "support   : " + ", ".join(f"[{a:.12g}, {b:.12g}]" for a, b in support),
             "atoms     : " + (", ".join(f"{m:.12g} at {a:.12g}" for a, m in atoms)
                              if atoms else "none")]
    for k in (1, 2):
        lines.append(f"moment {k}  : {law.moment(k):.12g}")
    lines.append(f"outlier   : s1(R/sqrt(d)) = {outlier:.10g} (spike alpha*sqrt(n) = "
                 f"{alpha * np.sqrt(cfg.n):.10g})")
    click.echo("\n".join(lines))
    a, b = float(support[0][0]), float(support[-1][1])
    x = np.linspace(a, b, points)
    pdf = law.pdf(x)
    if out:
        params = dict(kind="residual", preset=preset, alpha=alpha, **cfg.to_dict(),
                      outlier=outlier)
        write_or_fail(lambda: write_curve(out, law, params, support, atoms, x, pdf), out,
                      "--out")
        click.echo(f"wrote {out}")
    if plot:
        xs = np.linspace(a, b, max(points, 800))
        write_or_fail(lambda: plot_density(law, xs, law.pdf(xs), plot), plot, "--plot")
        click.echo(f"wrote {plot}")


@click.command("residual")
@_layer_options
@click.option("--draws", type=int, default=10, show_default=True, help="Independent draws.")
@click.option("--seed", type=int, default=0, show_default=True, help="Root seed.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def check_residual_command(preset, alpha, n, d, heads, kv_heads, d_k, sharing, rho, beta,
                           draws, seed, as_json):
    """Monte Carlo of the true softmax residual stream and its Gaussian equivalent against
    the residual law: KS, relative W₁ (bulk, outlier removed) and the outlier, with 95 %
    Student-t intervals over draws."""

    try:
        cfg = _config(preset, n, d, heads, kv_heads, d_k, sharing, rho, beta)
        res = check_residual(cfg, alpha, draws=draws, seed=seed)
    except (TypeError, ValueError) as exc:
        raise usage_error(exc, preset="--preset", alpha="--alpha", draws="--draws",
                          seed="--seed", d_o="--d") from None
    data = res.to_dict()
    if as_json:
        click.echo(json.dumps(data, indent=1, default=float))
        return

    def iv(x):
        half = "" if x.get("high") is None else f" ± {x['high'] - x['mean']:.2g}"
        return f"{x['mean']:.4g}{half}"

    lines = [f"residual check: n={cfg.n} d={cfg.d} heads={cfg.heads} sharing={cfg.sharing} "
             f"alpha={alpha:g} draws={draws}"]
    for model in data["ks"]:
        lines.append(f"{model:20s} KS {iv(data['ks'][model])}   rel W1 "
                     f"{iv(data['rel_w1'][model])}")
    o = data["outlier"]
    lines.append(f"outlier s1: softmax {iv(o['softmax'])}, predicted {o['predicted']:.6g}; "
                 f"s1 − prediction at each draw's spike {iv(o['conditional'])}")
    click.echo("\n".join(lines))
