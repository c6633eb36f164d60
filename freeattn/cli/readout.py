"""``freeattn readout ridge|loss|dof``: readout predictions from the multi-head laws (§5)."""
from __future__ import annotations

import csv
import functools
import os

import click
import numpy as np

from ..attention.config import PRESETS, MHAConfig
from ..attention.domains import BETA, GAMMA_K, GAMMA_O, GAMMA_V, HEADS
from ..readout import (IndependentKV, TiedKV, arrival_time, dof, dof_derivative, ridge_error,
                       training_loss)
from ._domains import REAL, param_option
from ._errors import RunError, usage_error
from ._layer import SHARING_CHOICE
from ._output import json_text
from ._paths import check_output_path, write_or_fail

__all__ = ["readout"]


@click.group()
def readout():
    """Readout learning predictions (Hayase & Karakida 2026, §5): w_ν(λ), ridge error, loss.

    The layer is given by --preset NAME (a published model's widths) or by explicit ratios
    --beta --gamma-k --heads --gamma-v --gamma-o [--sharing tied_kv].  The features are
    F = MHA(X)/sqrt(m), so the law of F Fᵀ has mean one.
    """


def _layer_options(f):
    opts = [
        click.option("--preset", default=None,
                     help="A published layer: " + ", ".join(PRESETS)
                          + "; its β and ratios."),
        param_option(BETA, default_help="1, or the preset's"),
        param_option(GAMMA_K),
        param_option(HEADS),
        param_option(GAMMA_V, default_help="γ_K"),
        param_option(GAMMA_O),
        click.option("--sharing", type=SHARING_CHOICE, default=None,
                     help="K/V sharing across heads (gqa, mqa: the same readout law as none) or "
                          "within-head tying W^V_r = W^K_r (tied_kv, eq. (5.5); γ_V = γ_K).  "
                          "Default none, or the preset's."),
        click.option("--tied", is_flag=True, default=False, help="Same as --sharing tied_kv."),
        click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text."),
        click.option("--out", type=click.Path(dir_okay=False), default=None,
                     help="Write the table to FILE, the format from its extension: .json "
                          "(as --json prints it) or .csv (the columns)."),
    ]
    for o in reversed(opts):
        f = o(f)
    return _with_layer(f)


def _with_layer(command):
    """Turn the layer flags into (law, γ_O) and check --out before any work: the command
    receives ``law``, ``gamma_o``, ``as_json`` and ``out`` besides its own flags."""
    @functools.wraps(command)
    def run(preset, beta, gamma_k, heads, gamma_v, gamma_o, sharing, tied, as_json, out,
            **rest):
        if tied:
            if sharing not in (None, "tied_kv"):
                raise click.UsageError("--tied means --sharing tied_kv; give one of them")
            sharing = "tied_kv"
        if out is not None:
            if os.path.splitext(out)[1].lower() not in (".json", ".csv"):
                raise click.BadParameter(f"{out!r}: the extension sets the format, .json or "
                                         f".csv", param_hint="--out")
            check_output_path(out, "--out")
        law, go = _layer(preset, beta, gamma_k, heads, gamma_v, gamma_o, sharing)
        return command(law=law, gamma_o=go, as_json=as_json, out=out, **rest)

    return run


def _layer(preset, beta, gamma_k, heads, gamma_v, gamma_o, sharing):
    """(scalar readout law, γ_O) from a preset or explicit ratios."""
    try:
        if preset is not None:
            cfg = MHAConfig.preset(preset)
            beta = cfg.beta if beta is None else beta
            gamma_k, heads, gamma_v, gamma_o = cfg.gamma_k, cfg.heads, cfg.gamma_v, cfg.gamma_o
            sharing = sharing or cfg.sharing
        else:
            missing = [f for f, v in (("--gamma-k", gamma_k), ("--heads", heads),
                                      ("--gamma-o", gamma_o)) if v is None]
            if missing:
                raise click.UsageError("give --preset NAME or " + ", ".join(missing))
            beta = 1.0 if beta is None else beta
        if sharing == "tied_kv":
            if gamma_v is not None and gamma_v != gamma_k:
                raise click.UsageError("--sharing tied_kv (--tied) needs --gamma-v equal to "
                                       "--gamma-k (d_V = d_K)")
            law = TiedKV(beta, gamma_k, heads, gamma_o)
        else:
            law = IndependentKV(beta, gamma_k, heads, gamma_k if gamma_v is None else gamma_v,
                                gamma_o)
    except (TypeError, ValueError) as exc:
        raise usage_error(exc) from None
    return law, gamma_o


def _grid(values, lo_hi_n, name):
    if values and lo_hi_n:
        raise click.UsageError(f"give either --{name} or --{name}-range, not both")
    if lo_hi_n:
        lo, hi, n = lo_hi_n
        if not (0 < lo < hi) or n < 2:
            raise click.BadParameter("needs 0 < LO < HI and POINTS >= 2",
                                     param_hint=f"--{name}-range")
        return np.geomspace(lo, hi, int(n))
    if not values:
        raise click.UsageError(f"give --{name} (repeatable) or --{name}-range LO HI POINTS")
    return np.array(values, dtype=float)


def _emit(as_json, header, cols, rows, extra=None, out=None):
    rows = [[float(v) for v in r] for r in rows]
    data = {"law": header, **(extra or {}), "columns": cols, "rows": rows}
    if out is not None:
        def write():
            with open(out, "w", newline="") as fh:
                if out.lower().endswith(".json"):
                    fh.write(json_text(data) + "\n")
                else:
                    wr = csv.writer(fh)
                    wr.writerow(cols)
                    wr.writerows([f"{v:.17g}" for v in r] for r in rows)

        write_or_fail(write, out, "--out")
    if as_json:
        click.echo(json_text(data))
        return
    click.echo(f"law: {header}")
    for k, v in (extra or {}).items():
        click.echo(f"{k}: {v}")
    click.echo("  ".join(f"{c:>22s}" for c in cols))
    for r in rows:
        click.echo("  ".join(f"{float(v):22.15g}" for v in r))


@readout.command("dof")
@_layer_options
@click.option("--lam", type=REAL, multiple=True, help="Penalty λ > 0 (repeatable).")
@click.option("--lam-range", type=(REAL, REAL, int), default=None,
              help="LO HI POINTS: a log-spaced grid of λ.")
def dof_cmd(law, gamma_o, as_json, out, lam, lam_range):
    """Effective degrees of freedom w_ν(λ) = 1 + λ G_ν(−λ) and w′_ν(λ) (§C.4, (C.30))."""
    lams = _grid(lam, lam_range, "lam")
    try:
        w, dw = dof(law, lams), dof_derivative(law, lams)
    except (TypeError, ValueError) as exc:
        raise usage_error(exc) from None
    _emit(as_json, law.name, ["lambda", "w", "w_prime"], zip(lams, w, dw),
          {"zero_mass": law.zero_mass}, out)


@readout.command("ridge")
@_layer_options
@click.option("--lam", type=REAL, multiple=True, help="Penalty λ > 0 (repeatable).")
@click.option("--lam-range", type=(REAL, REAL, int), default=None,
              help="LO HI POINTS: a log-spaced grid of λ.")
@click.option("--sigma2", type=REAL, default=0.1, show_default=True, help="Noise variance σ².")
def ridge_cmd(law, gamma_o, as_json, out, lam, lam_range, sigma2):
    """Ridge coefficient error E_λ = 1 − w/γ_O + (λ/γ_O − σ²) w′ (eqs. (5.1), (5.2))."""
    go = gamma_o
    lams = _grid(lam, lam_range, "lam")
    try:
        e = np.atleast_1d(ridge_error(law, lams, sigma2, go))
    except (TypeError, ValueError) as exc:
        raise usage_error(exc) from None
    _emit(as_json, law.name, ["lambda", "ridge_error"], zip(lams, e),
          {"sigma2": sigma2, "gamma_o": go}, out)


@readout.command("loss")
@_layer_options
@click.option("--t", "times", type=REAL, multiple=True, help="Time t >= 0 (repeatable).")
@click.option("--t-range", type=(REAL, REAL, int), default=None,
              help="LO HI POINTS: a log-spaced grid of t.")
@click.option("--method", type=click.Choice(["stehfest", "talbot", "dehoog"]),
              default="stehfest", show_default=True, help="Laplace inversion of (C.31).")
@click.option("--level", type=REAL, default=None,
              help="Also print the arrival time at this loss level (e.g. 0.1); with --t or "
                   "--t-range.")
@click.option("--check", type=REAL, default=None,
              help="Also invert with a second method; fail if they differ by more than this.")
def loss_cmd(law, gamma_o, as_json, out, times, t_range, method, level, check):
    """Gradient-flow training loss ∫ e^{−2tx} dν (5.3) and arrival times."""
    # the loss table needs times; --level alone would print an empty "t loss" table
    ts = _grid(times, t_range, "t")
    try:
        loss = np.atleast_1d(training_loss(law, ts, method=method, check=check))
        extra = {"method": method, "zero_mass": law.zero_mass}
        if level is not None:
            extra["arrival_time"] = arrival_time(law, level, method=method)
            extra["level"] = level
    except (TypeError, ValueError) as exc:
        raise usage_error(exc) from None
    except ArithmeticError as exc:  # --check failed: the methods disagree
        raise RunError(str(exc)) from None
    _emit(as_json, law.name, ["t", "loss"], zip(ts, loss), extra, out)
