"""``freeattn density residual`` and ``freeattn check residual``: the residual stream
R = X + α √n MHA(X) (squared singular values of R/√d, λ = n/d; Benaych-Georges 2009).

``freeattn.cli`` adds both commands to the ``density`` and ``check`` groups.
"""
from __future__ import annotations

import json

import click
import numpy as np

from ..attention.residual import residual_law, residual_outlier
from ..montecarlo.residual import check_residual
from ..attention.domains import RHO
from ._domains import REAL, param_option
from ._errors import usage_error
from ._layer import config_from_flags, layer_options
from ._output import CURVE_OUT_HELP, emit_curve, fmt
from ._paths import check_curve_outputs, check_output_path, split_out, write_or_fail

__all__ = ["density_residual", "check_residual_command"]


def _config(preset, beta, n, d, heads, kv_heads, sharing, tied, d_k, d_v, d_o, gamma_k,
            gamma_v, gamma_o, rho):
    """The layer of the flags (:func:`._layer.config_from_flags`), with the residual's own
    defaults where a preset is overridden: d_V follows --d-k and d_O follows --d (the branch
    MHA(X) must have the width d of X), unless --d-v/--gamma-v or --d-o/--gamma-o are given."""
    if d_k is not None and d_v is None and gamma_v is None:
        d_v = d_k
    if d is not None and d_o is None and gamma_o is None:
        d_o = d
    return config_from_flags(preset, beta, n, d, heads, kv_heads, sharing, tied, d_k, d_v, d_o,
                             gamma_k, gamma_v, gamma_o, rho=rho)


def _layer_options(f):
    """The layer flags of ``check mha``/``density mha`` plus --rho and --alpha."""
    f = param_option(RHO, extra="Needs d_V = d_K.")(f)
    f = click.option("--alpha", type=REAL, required=True,
                     help="Weight of the attention branch: R = X + α √n MHA(X) (α > 0).")(f)
    return layer_options(f)


_FLAGS = dict(preset="--preset", alpha="--alpha", rho="--rho", draws="--draws", seed="--seed")


@click.command("residual")
@_layer_options
@click.option("--points", type=int, default=400, show_default=True,
              help="Number of grid points across the support.")
@click.option("--out", type=click.Path(dir_okay=False), help=CURVE_OUT_HELP)
@click.option("--json", "as_json", is_flag=True,
              help="Print the curve as JSON (the --out FILE.json content) instead of text.")
@click.option("--plot", type=click.Path(dir_okay=False),
              help="Write a plot of the density; the format follows the extension "
                   "(.png, .pdf, .svg, ...).")
def density_residual(preset, beta, n, d, heads, kv_heads, sharing, tied, d_k, d_v, d_o,
                     gamma_k, gamma_v, gamma_o, alpha, rho, points, out, as_json, plot):
    """Density of the squared singular values of R/√d, R = X + α √n MHA(X):
    δ₁ ⊞_λ D_{α²λ} ν_MHA with λ = n/d (Benaych-Georges 2009), and the outlier of the
    uncentred R (Benaych-Georges & Nadakuditi 2012)."""
    out, plot = split_out(out, plot, data=("json", "csv"), default="csv")
    check_curve_outputs(points, out, plot)
    cfg = _config(preset, beta, n, d, heads, kv_heads, sharing, tied, d_k, d_v, d_o, gamma_k,
                  gamma_v, gamma_o, rho)
    try:
        law = residual_law(cfg, alpha)
        support, atoms = law.support(), law.atoms()
        outlier = residual_outlier(cfg, alpha, law=law)
    except (TypeError, ValueError) as exc:
        raise usage_error(exc, **_FLAGS) from None
    except ArithmeticError as exc:
        raise click.ClickException(f"the law could not be resolved: {exc}") from None
    lines = [f"law       : {law.name}",
             f"layer     : n={cfg.n} d={cfg.d} heads={cfg.heads} kv_heads={cfg.kv_heads} "
             f"d_k={cfg.d_k} sharing={cfg.sharing} beta={cfg.beta:g} lambda={cfg.n / cfg.d:.6g}",
             "support   : " + ", ".join(f"[{fmt(a)}, {fmt(b)}]" for a, b in support),
             "atoms     : " + (", ".join(f"{fmt(m)} at {fmt(a)}" for a, m in atoms)
                              if atoms else "none")]
    for k in (1, 2):
        lines.append(f"moment {k}  : {fmt(law.moment(k))}")
    lines.append(f"outlier   : s1(R/sqrt(d)) = {outlier:.10g} (spike alpha*sqrt(n) = "
                 f"{alpha * np.sqrt(cfg.n):.10g})")
    params = dict(kind="residual", preset=preset, alpha=alpha, **cfg.to_dict(),
                  outlier=outlier)
    emit_curve(click.echo, law, params, support, atoms, lines, points=points, out=out,
               as_json=as_json, plot=plot)


@click.command("residual")
@_layer_options
@click.option("--draws", type=int, default=10, show_default=True, help="Independent draws.")
@click.option("--seed", type=int, default=0, show_default=True, help="Root seed.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Write the results to FILE.json (the --json content; the command draws "
                   "no figure).")
def check_residual_command(preset, beta, n, d, heads, kv_heads, sharing, tied, d_k, d_v, d_o,
                           gamma_k, gamma_v, gamma_o, alpha, rho, draws, seed, as_json, out):
    """Monte Carlo of the true softmax residual stream and its Gaussian equivalent against
    the residual law: KS, relative W₁ (bulk, outlier removed) and the outlier, with 95 %
    Student-t intervals over draws."""
    out, fig = split_out(out, None)
    if fig is not None:
        raise click.BadParameter(f"{fig!r}: this command draws no figure; give FILE.json",
                                 param_hint="--out")
    check_output_path(out, "--out")
    cfg = _config(preset, beta, n, d, heads, kv_heads, sharing, tied, d_k, d_v, d_o, gamma_k,
                  gamma_v, gamma_o, rho)
    try:
        res = check_residual(cfg, alpha, draws=draws, seed=seed)
    except (TypeError, ValueError) as exc:
        raise usage_error(exc, **_FLAGS) from None
    data = res.to_dict()
    if out:
        def write():
            with open(out, "w") as fh:
                json.dump(data, fh, indent=1, default=float)
        write_or_fail(write, out, "--out")
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
