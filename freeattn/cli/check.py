"""``freeattn check``: limit laws against simulation of finite softmax attention."""
from __future__ import annotations

import contextlib

import click
import numpy as np
from click.core import ParameterSource

from .. import _validation as v
from ..attention import attention_law
from ..attention.domains import BETA, GAMMA_K, HEADS, KV_HEADS, RHO
from ..montecarlo import (AttentionModel, compare_draws, finite_size_sweep, linearization_grid,
                          run_draws)
from ..montecarlo import check as run_check
from ..montecarlo.check import check_exclude_top
from ..plotting import check as mc_plot
from ._domains import REAL, param_option
from ._errors import RunError
from ._errors import usage_error as _usage
from ._output import json_text, write_json
from ._layer import config_from_flags, layer_options, preset_kv_heads, preset_note  # noqa: F401
from ._paths import OUT_HELP, check_output_path, split_out, write_or_fail
from ._progress import progress_option, show_progress

__all__ = ["check", "layer_options", "config_from_flags"]

@contextlib.contextmanager
def _run_errors(scheduler, **flags):
    """Errors of a run as CLI errors.

    The library validates every input before the first draw; its ValueError (exit 2) is
    reported with the parameter spelled as its flag (``flags`` as in ``usage_error``),
    MemoryError as bad input too, and a cluster that fails as a RunError (exit 3).
    """
    try:
        yield
    except ValueError as exc:
        raise _usage(exc, **flags) from None
    except MemoryError as exc:
        raise click.UsageError(str(exc) or "out of memory") from None
    except (OSError, TimeoutError) as exc:
        if scheduler is None:
            raise
        raise RunError(f"could not run on the Dask scheduler {scheduler!r}: {exc}") from None


def _report(as_json, data, text, plot, draw_plot, out=None):
    """Print the results, write them to ``out`` (JSON), then the plot, so that a failed
    write does not lose them.

    ``draw_plot(module)`` draws with :mod:`freeattn.plotting.check` (imported with the module; it loads matplotlib only when drawing).
    """
    click.echo(json_text(data) if as_json else text)
    if out:
        write_json(out, data)
        if not as_json:
            click.echo(f"results written to {out}")
    if plot:
        write_or_fail(lambda: draw_plot(mc_plot), plot, "--plot")
        if not as_json:
            click.echo(f"plot written to {plot}")


def _explicit(ctx, *names):
    """The options among ``names`` that the user gave on the command line."""
    return [n for n in names if ctx.get_parameter_source(n) is ParameterSource.COMMANDLINE]


def _positive_flag(flag, value):
    try:
        return v.positive(flag, value)
    except (TypeError, ValueError) as exc:
        raise click.BadParameter(str(exc).replace(f"{flag} ", "", 1), param_hint=flag) from None


def _grid(text, name, cast):
    try:
        values = [cast(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise click.BadParameter(f"must be a comma-separated list, got {text!r}",
                                 param_hint=name) from None
    if not values:
        raise click.BadParameter("must not be empty", param_hint=name)
    return values


def _law_factory(gamma_k, heads, beta_flag="--beta"):
    def make(beta):
        try:
            return attention_law(beta, gamma_k, heads)
        except (TypeError, ValueError) as exc:
            raise _usage(exc, beta=beta_flag) from None

    return make


def _require_dask(scheduler):
    if scheduler is None:
        return
    try:
        import dask.distributed  # noqa: F401  (optional: freeattn[dask])
    except ImportError:
        raise click.UsageError(
            "--scheduler needs dask.distributed, which is not installed; "
            "install it with: pip install 'freeattn[dask]'") from None


@click.group()
def check():
    """Check predicted laws against Monte Carlo simulation (softmax and Gaussian models)."""


@check.command("attention")
@param_option(BETA)
@param_option(GAMMA_K, required=True,
              extra="d_K = γ_K n / h is rounded to an integer within 0.5 %, and the law is "
                    "taken at the rounded ratio.")
@param_option(HEADS, default=1, show_default=True)
@param_option(KV_HEADS, default_help="h (independent heads)", extra="1 = MQA.")
@click.option("--n", "n", type=int, default=1000, show_default=True, help="Context length.")
@click.option("--d", "d", type=int, default=None, help="Input width d >= n (default n).")
@click.option("--draws", type=int, default=10, show_default=True, help="Independent draws.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed (>= 0).")
@click.option("--workers", type=int, default=None,
              help="Worker processes (default: all cores). Results do not depend on it.")
@click.option("--scheduler", default=None,
              help="Dask scheduler ADDRESS to run draws on (needs freeattn[dask]).")
@click.option("--exclude-top", type=int, default=0, show_default=True,
              help="Remove this many top eigenvalues (outliers) before comparing.")
@click.option("--ks-tol", type=REAL, default=0.02, show_default=True,
              help="Tolerance on the mean KS distance to the law.")
@click.option("--w1-tol", "rel_w1_tol", type=REAL, default=0.05, show_default=True,
              help="Tolerance on the mean relative W1 distance to the law.")
@click.option("--target", type=click.Choice(["softmax", "gaussian", "both"]), default="both",
              show_default=True, help="Which model must meet the tolerances.")
@click.option("--beta-grid", default=None,
              help="Comma-separated β values: linearization-threshold table instead of a check.")
@click.option("--n-grid", default=None,
              help="Comma-separated n values: with --beta-grid a threshold table, with --beta "
                   "a finite-size sweep (distances per n and fitted rates).")
@click.option("--factor", type=REAL, default=10.0, show_default=True,
              help="Grid: mark cells where softmax rel W1 > factor x the Gaussian model's.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help=OUT_HELP.format(more=""))
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="Write a plot (histograms over the density, the sweep, or the grid); "
                   "the format follows the extension (.png, .pdf, .svg, ...).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@progress_option
@click.pass_context
def attention(ctx, beta, gamma_k, heads, kv_heads, n, d, draws, seed, workers, scheduler,
              exclude_top, ks_tol, rel_w1_tol, target, beta_grid, n_grid, factor, out, plot,
              as_json, progress):
    """Single-head / concatenated-heads attention sqrt(n/h)[A_1^⊥, …, A_h^⊥] vs ν_{∞,h}.

    Draws the true softmax model and the finite Gaussian model with the same weights and
    compares all n eigenvalues of each Gram with the limit law and with each other
    (KS, relative W1, moments with 95% t-intervals). Exit status: 0 pass, 1 the check
    failed, 2 bad input, 3 the run could not finish.
    """
    _require_dask(scheduler)
    out, plot = split_out(out, plot)
    check_output_path(out, "--out")
    check_output_path(plot, "--plot", plot=True)
    if beta_grid is not None and beta is not None:
        raise click.UsageError("give either --beta (a check or a sweep) or --beta-grid "
                               "(a threshold table), not both")
    if beta_grid is None and beta is None:
        raise click.UsageError("give --beta (a check) or --beta-grid (a threshold table)")
    single_check = beta_grid is None and n_grid is None
    if not single_check:
        given = _explicit(ctx, "ks_tol", "rel_w1_tol", "target")
        if given:
            flags = ", ".join("--" + g.replace("_", "-").replace("rel-w1-tol", "w1-tol")
                              for g in given)
            raise click.UsageError(f"{flags} set the verdict of a single check (--beta "
                                   f"without --n-grid); sweeps and grids report distances")
    if beta_grid is None and _explicit(ctx, "factor"):
        raise click.UsageError("--factor applies to the --beta-grid threshold table only")
    if n_grid is not None and _explicit(ctx, "n"):
        raise click.UsageError("give either --n (one context length) or --n-grid, not both")
    law_for = _law_factory(gamma_k, heads)
    options = dict(d=d, kv_heads=kv_heads)
    progress = show_progress(progress, as_json)
    if beta_grid is not None:
        _grid_mode(beta_grid, n_grid or str(n), gamma_k, heads, draws, seed,
                   workers, scheduler, exclude_top, factor, plot, as_json, options, progress,
                   out)
        return
    if n_grid is not None:
        _sweep_mode(law_for(beta), beta, _grid(n_grid, "--n-grid", int), gamma_k, heads, draws,
                    seed, workers, scheduler, exclude_top, plot, as_json, options, progress,
                    out)
        return
    with _run_errors(scheduler):
        model = AttentionModel.from_ratios(beta, n, gamma_k, heads, **options)
    # the law of the model's own (rounded) ratio γ_K = h d_K / n, as `check mha` does
    law = law_for(beta) if model.gamma_k == gamma_k else _model_law(model)
    if model.gamma_k != gamma_k and not as_json:
        click.echo(f"note: --gamma-k {gamma_k:g} gives d_K = {model.d_k} at n = {n}; the law is "
                   f"taken at the model's ratio gamma_K = h d_K / n = {model.gamma_k:.6g}")
    with _run_errors(scheduler):
        result = run_check(law, model, draws=draws, seed=seed, workers=workers,
                           scheduler=scheduler, exclude_top=exclude_top, ks_tol=ks_tol,
                           rel_w1_tol=rel_w1_tol, target=target, progress=progress)
    title = (f"beta={beta:g}, gamma_K={gamma_k:g}, h={heads}, n={n}, "
             f"{draws} draw{'s' if draws != 1 else ''}")
    _report(as_json, result.to_dict(), result.summary(), plot,
            lambda mc_plot: mc_plot.plot_check(law, [s.softmax for s in result.samples],
                                               [s.gaussian for s in result.samples], plot,
                                               title=title, exclude_top=exclude_top), out)
    if not result.passed:
        raise SystemExit(1)


def _model_law(model):
    try:
        return model.law()
    except (TypeError, ValueError) as exc:
        raise _usage(exc) from None


def _sweep_mode(law, beta, ns, gamma_k, heads, draws, seed, workers, scheduler, exclude_top,
                plot, as_json, options, progress, out=None):
    with _run_errors(scheduler, ns="--n-grid", n="--n-grid"):
        result = finite_size_sweep(law, ns, beta=beta, gamma_k=gamma_k, heads=heads,
                                   draws=draws, seed=seed, workers=workers,
                                   scheduler=scheduler, exclude_top=exclude_top,
                                   progress=progress, **options)
    _report(as_json, result.to_dict(),
            result.table() + "\nrate: least-squares fit of distance ~ C n^-rate", plot,
            lambda mc_plot: mc_plot.plot_sweep(result, plot), out)


def _grid_mode(beta_grid, n_grid, gamma_k, heads, draws, seed, workers, scheduler,
               exclude_top, factor, plot, as_json, options, progress, out=None):
    betas = _grid(beta_grid, "--beta-grid", float)
    ns = _grid(n_grid, "--n-grid", int)
    flags = dict(beta="--beta-grid", betas="--beta-grid", ns="--n-grid", n="--n-grid")
    with _run_errors(scheduler, **flags):
        result = linearization_grid(_law_factory(gamma_k, heads, beta_flag="--beta-grid"),
                                    betas, ns, gamma_k=gamma_k, heads=heads, draws=draws,
                                    seed=seed, factor=factor, workers=workers,
                                    scheduler=scheduler, exclude_top=exclude_top,
                                    progress=progress, **options)
    _report(as_json, result.to_dict(), result.table(), plot,
            lambda mc_plot: mc_plot.plot_linearization(result, plot), out)


@check.command("mha")
@layer_options
@param_option(RHO, extra="Needs d_V = d_K; beyond the paper, derivations/partial_kv.py.")
@click.option("--draws", type=int, default=10, show_default=True, help="Independent draws.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed (>= 0).")
@click.option("--workers", type=int, default=None,
              help="Worker processes (default: all cores). Results do not depend on it.")
@click.option("--scheduler", default=None, help="Dask scheduler ADDRESS.")
@click.option("--method", type=click.Choice(["reduced", "direct"]), default="reduced",
              show_default=True,
              help="How draws are computed: 'reduced' samples the same joint law of the two "
                   "spectra with less work (the Gaussian noise through the values, W^O "
                   "through the joint row space; the softmax spectrum is the literal one to "
                   "rounding); 'direct' forms every matrix of the paper.")
@click.option("--exclude-top", type=int, default=0, show_default=True,
              help="Remove this many top eigenvalues (outliers) before comparing.")
@click.option("--ks-tol", type=REAL, default=0.02, show_default=True,
              help="Tolerance on the mean KS distance (to the law; with --no-law, softmax vs "
                   "Gaussian).")
@click.option("--w1-tol", "rel_w1_tol", type=REAL, default=0.05, show_default=True,
              help="Tolerance on the mean relative W1 distance.")
@click.option("--target", type=click.Choice(["softmax", "gaussian", "both"]), default="both",
              show_default=True, help="Which model must meet the tolerances against the law.")
@click.option("--no-law", "no_law", is_flag=True,
              help="Only compare softmax with the Gaussian model (Table D.2); no limit law.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help=OUT_HELP.format(more=""))
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="Write histograms over the limit density (.png, .pdf, .svg, ...).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@progress_option
def mha(preset, beta, n, d, heads, kv_heads, sharing, tied, d_k, d_v, d_o, gamma_k, gamma_v,
        gamma_o, rho, draws, seed, workers, scheduler, method, exclude_top, ks_tol, rel_w1_tol,
        target, no_law, out, plot, as_json, progress):
    """Full layer MHA^⊥(X): softmax, Gaussian model and the limit law (C.15)/(C.21).

    Draws the true softmax layer and its finite Gaussian equivalent with the same weights and
    compares all n eigenvalues of each Gram with the limit law (KS, relative W1, moments with
    95% t-intervals) and with each other (Table D.2's metrics, relative W1 divided by the
    limiting mean).  Widths come from --preset, --d-k/--d-v/--d-o or --gamma-k/-v/-o.
    Exit status: 0 pass, 1 the check failed, 2 bad input, 3 the run could not finish.
    """
    _require_dask(scheduler)
    out, plot = split_out(out, plot)
    check_output_path(out, "--out")
    check_output_path(plot, "--plot", plot=True)
    if no_law and plot:
        raise click.UsageError("--plot draws the limit density: not with --no-law")
    ks_tol = _positive_flag("--ks-tol", ks_tol)
    rel_w1_tol = _positive_flag("--w1-tol", rel_w1_tol)
    progress = show_progress(progress, as_json)
    cfg = config_from_flags(preset, beta, n, d, heads, kv_heads, sharing, tied, d_k, d_v, d_o,
                            gamma_k, gamma_v, gamma_o, rho=rho)
    try:
        model = AttentionModel.from_config(cfg, "mha")
        law = None if no_law else cfg.law("mha")
    except (TypeError, ValueError) as exc:
        raise _usage(exc) from None
    m = model
    head = (f"mha: beta={m.beta:g} n={m.n} d={m.d} heads={m.heads}/{m.kv_heads} "
            f"d_k={m.d_k} d_v={m.d_v} d_o={m.d_o} sharing={cfg.sharing} "
            + ("" if cfg.rho is None else f"rho={cfg.rho:g} ") +
            f"(gamma_K={cfg.gamma_k:.6g}, gamma_V={cfg.gamma_v:.6g}, gamma_O={cfg.gamma_o:.6g})")
    if no_law:
        limit_mean = cfg.table_d2_mean()
        with _run_errors(scheduler):
            check_exclude_top(exclude_top, model.n)  # before the draws, as check() does
            results = run_draws(model, draws, seed, workers=workers, scheduler=scheduler,
                                progress=progress, method=method)
            _, _, pair = compare_draws(None, results, exclude_top=exclude_top, orders=(),
                                       limit_mean=limit_mean)
        passed = pair.ks <= ks_tol and pair.rel_w1 <= rel_w1_tol
        data = {"softmax_vs_gaussian": pair.to_dict(), "limit_mean": limit_mean,
               "top_singular_values": {"softmax": [r.softmax_top.tolist() for r in results],
                                       "gaussian": [r.gaussian_top.tolist() for r in results]},
               "model": model.to_dict(), "config": cfg.to_dict(), "draws": draws, "seed": seed,
               "method": method, "tolerance": {"ks": ks_tol, "rel_w1": rel_w1_tol}, "passed": passed}
        text = "\n".join([head + f" draws={draws} seed={seed} method={method}",
                           _pair_line(pair, draws,
                                                                             limit_mean),
                           f"tolerance KS <= {ks_tol:g}, rel W1 <= {rel_w1_tol:g} (softmax vs "
                           f"Gaussian): " + ("PASS" if passed else "FAIL")])
        _report(as_json, data, text, None, None, out)
    else:
        with _run_errors(scheduler):
            result = run_check(law, model, draws=draws, seed=seed, workers=workers,
                               scheduler=scheduler, exclude_top=exclude_top, ks_tol=ks_tol,
                               rel_w1_tol=rel_w1_tol, target=target, progress=progress,
                               method=method)
        passed = result.passed
        data = result.to_dict()
        data["config"] = cfg.to_dict()
        data["limit_mean"] = float(law.mean())
        text = "\n".join([head, result.summary(),
                           _pair_line(result.softmax_vs_gaussian, draws, float(law.mean()))])
        title = (f"{preset or 'MHA'}: h={m.heads}, n={m.n}, {cfg.sharing}, {draws} "
                 f"draw{'s' if draws != 1 else ''}")
        _report(as_json, data, text, plot,
                lambda mc_plot: mc_plot.plot_check(law, [s.softmax for s in result.samples],
                                                   [s.gaussian for s in result.samples], plot,
                                                   title=title, exclude_top=exclude_top),
                out)
    if not passed:
        raise SystemExit(1)


def _pair_line(pair, draws, limit_mean):
    ks_i, w1_i = pair.ks_interval, pair.rel_w1_interval
    if draws > 1:
        spread_w1 = f" ± {100 * (w1_i.high - w1_i.mean):.2f}% (95% t; sd {100 * _sd(w1_i.values):.2f}%)"
        spread_ks = f" ± {ks_i.high - ks_i.mean:.4f} (95% t; sd {_sd(ks_i.values):.4f})"
    else:
        spread_w1 = spread_ks = " (one draw: no sd)"
    return (f"softmax vs Gaussian: rel W1 = {100 * pair.rel_w1:.2f}%{spread_w1}, "
            f"KS = {pair.ks:.4f}{spread_ks}; limiting mean {limit_mean:.5g}")


def _sd(values):
    return float(np.std(values, ddof=1))
