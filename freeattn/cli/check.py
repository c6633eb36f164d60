"""``freeattn check``: limit laws against simulation of finite softmax attention."""
from __future__ import annotations

import contextlib
import json

import click

from .. import _validation as v
from ._errors import RunError
from ._errors import usage_error as _usage
from ._paths import check_output_path, write_or_fail

__all__ = ["check"]

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


def _report(as_json, data, text, plot, draw_plot):
    """Print the results, then write the plot, so that a failed write does not lose them.

    ``draw_plot(module)`` draws with :mod:`freeattn.montecarlo.plot` (imported only here).
    """
    click.echo(json.dumps(data, indent=2) if as_json else text)
    if plot:
        from ..montecarlo import plot as mc_plot

        write_or_fail(lambda: draw_plot(mc_plot), plot, "--plot")
        if not as_json:
            click.echo(f"plot written to {plot}")


def _explicit(ctx, *names):
    """The options among ``names`` that the user gave on the command line."""
    from click.core import ParameterSource

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
    from ..attention import attention_law

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
        import dask.distributed  # noqa: F401
    except ImportError:
        raise click.UsageError(
            "--scheduler needs dask.distributed, which is not installed; "
            "install it with: pip install 'freeattn[dask]'") from None


@click.group()
def check():
    """Check predicted laws against Monte Carlo simulation (softmax and Gaussian models)."""


@check.command("attention")
@click.option("--beta", type=float, help="Inverse temperature β > 0.")
@click.option("--gamma-k", "gamma_k", type=float, required=True,
              help="γ_K = h d_K / n; d_K = γ_K n / h must be a positive integer.")
@click.option("--heads", type=int, default=1, show_default=True, help="Number of heads h.")
@click.option("--kv-heads", type=int, default=None,
              help="Key heads h_KV dividing h (1 = MQA); default h (independent heads).")
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
@click.option("--ks-tol", type=float, default=0.02, show_default=True,
              help="Tolerance on the mean KS distance to the law.")
@click.option("--w1-tol", "rel_w1_tol", type=float, default=0.05, show_default=True,
              help="Tolerance on the mean relative W1 distance to the law.")
@click.option("--target", type=click.Choice(["softmax", "gaussian", "both"]), default="both",
              show_default=True, help="Which model must meet the tolerances.")
@click.option("--beta-grid", default=None,
              help="Comma-separated β values: linearization-threshold table instead of a check.")
@click.option("--n-grid", default=None,
              help="Comma-separated n values: with --beta-grid a threshold table, with --beta "
                   "a finite-size sweep (distances per n and fitted rates).")
@click.option("--factor", type=float, default=10.0, show_default=True,
              help="Grid: mark cells where softmax rel W1 > factor x the Gaussian model's.")
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="Write a plot (histograms over the density, the sweep, or the grid); "
                   "the format follows the extension (.png, .pdf, .svg, ...).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
def attention(ctx, beta, gamma_k, heads, kv_heads, n, d, draws, seed, workers, scheduler,
              exclude_top, ks_tol, rel_w1_tol, target, beta_grid, n_grid, factor, plot,
              as_json):
    """Single-head / concatenated-heads attention sqrt(n/h)[A_1^⊥, …, A_h^⊥] vs ν_{∞,h}.

    Draws the true softmax model and the finite Gaussian model with the same weights and
    compares all n eigenvalues of each Gram with the limit law and with each other
    (KS, relative W1, moments with 95% t-intervals). Exit status: 0 pass, 1 the check
    failed, 2 bad input, 3 the run could not finish.
    """
    from ..montecarlo import AttentionModel, check as run_check

    _require_dask(scheduler)
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
    if beta_grid is not None:
        _grid_mode(beta_grid, n_grid or str(n), gamma_k, heads, draws, seed,
                   workers, scheduler, exclude_top, factor, plot, as_json, options)
        return
    if n_grid is not None:
        _sweep_mode(law_for(beta), beta, _grid(n_grid, "--n-grid", int), gamma_k, heads, draws,
                    seed, workers, scheduler, exclude_top, plot, as_json, options)
        return
    law = law_for(beta)
    with _run_errors(scheduler):
        model = AttentionModel.from_ratios(beta, n, gamma_k, heads, **options)
        result = run_check(law, model, draws=draws, seed=seed, workers=workers,
                           scheduler=scheduler, exclude_top=exclude_top, ks_tol=ks_tol,
                           rel_w1_tol=rel_w1_tol, target=target, progress=not as_json)
    title = (f"beta={beta:g}, gamma_K={gamma_k:g}, h={heads}, n={n}, "
             f"{draws} draw{'s' if draws != 1 else ''}")
    _report(as_json, result.to_dict(), result.summary(), plot,
            lambda mc_plot: mc_plot.plot_check(law, [s.softmax for s in result.samples],
                                               [s.gaussian for s in result.samples], plot,
                                               title=title))
    if not result.passed:
        raise SystemExit(1)


def _sweep_mode(law, beta, ns, gamma_k, heads, draws, seed, workers, scheduler, exclude_top,
                plot, as_json, options):
    from ..montecarlo import finite_size_sweep

    with _run_errors(scheduler, ns="--n-grid", n="--n-grid"):
        result = finite_size_sweep(law, ns, beta=beta, gamma_k=gamma_k, heads=heads,
                                   draws=draws, seed=seed, workers=workers,
                                   scheduler=scheduler, exclude_top=exclude_top,
                                   progress=not as_json, **options)
    _report(as_json, result.to_dict(),
            result.table() + "\nrate: least-squares fit of distance ~ C n^-rate", plot,
            lambda mc_plot: mc_plot.plot_sweep(result, plot))


def _grid_mode(beta_grid, n_grid, gamma_k, heads, draws, seed, workers, scheduler,
               exclude_top, factor, plot, as_json, options):
    from ..montecarlo import linearization_grid

    betas = _grid(beta_grid, "--beta-grid", float)
    ns = _grid(n_grid, "--n-grid", int)
    flags = dict(beta="--beta-grid", betas="--beta-grid", ns="--n-grid", n="--n-grid")
    with _run_errors(scheduler, **flags):
        result = linearization_grid(_law_factory(gamma_k, heads, beta_flag="--beta-grid"),
                                    betas, ns, gamma_k=gamma_k, heads=heads, draws=draws,
                                    seed=seed, factor=factor, workers=workers,
                                    scheduler=scheduler, exclude_top=exclude_top,
                                    progress=not as_json, **options)
    _report(as_json, result.to_dict(), result.table(), plot,
            lambda mc_plot: mc_plot.plot_linearization(result, plot))


@check.command("mha")
@click.option("--beta", type=float, default=1.0, show_default=True, help="Inverse temperature β.")
@click.option("--n", "n", type=int, required=True, help="Context length.")
@click.option("--d", "d", type=int, default=None, help="Input width d >= n (default n).")
@click.option("--heads", type=int, required=True, help="Number of heads h.")
@click.option("--kv-heads", type=int, default=None, help="Key/value heads (1 = MQA).")
@click.option("--d-k", "d_k", type=int, required=True, help="Query/key width per head.")
@click.option("--d-v", "d_v", type=int, default=None, help="Value width per head (default d_K).")
@click.option("--d-o", "d_o", type=int, default=None, help="Output width (default d).")
@click.option("--tied", is_flag=True, help="Tie W^V = W^K within each head.")
@click.option("--draws", type=int, default=10, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--workers", type=int, default=None)
@click.option("--scheduler", default=None, help="Dask scheduler ADDRESS.")
@click.option("--ks-tol", type=float, default=0.02, show_default=True)
@click.option("--w1-tol", "rel_w1_tol", type=float, default=0.05, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def mha(beta, n, d, heads, kv_heads, d_k, d_v, d_o, tied, draws, seed, workers, scheduler,
        ks_tol, rel_w1_tol, as_json):
    """Full layer MHA^⊥(X): softmax vs Gaussian eigenvalues of the same draw (Table D.2).

    Relative W1 is divided by the limiting mean (d_O/n)θ₁ ((d_O/n)(θ₁ + hθ₂/γ_K) when tied).
    The comparison with the limit law (C.15) is added once the law core provides it.
    Exit status 1 when KS or rel W1 exceed the tolerances (2 bad input, 3 could not finish).
    """
    from ..montecarlo import AttentionModel, compare_draws, run_draws

    _require_dask(scheduler)
    ks_tol = _positive_flag("--ks-tol", ks_tol)
    rel_w1_tol = _positive_flag("--w1-tol", rel_w1_tol)
    try:
        model = AttentionModel(beta=beta, n=n, d=d, heads=heads, kv_heads=kv_heads, d_k=d_k,
                               d_v=d_v, d_o=d_o, tied=tied, kind="mha")
    except (TypeError, ValueError) as exc:
        raise _usage(exc) from None
    with _run_errors(scheduler):
        results = run_draws(model, draws, seed, workers=workers, scheduler=scheduler,
                            progress=not as_json)
        _, _, pair = compare_draws(None, results, orders=(), limit_mean=model.limit_mean())
    passed = pair.ks <= ks_tol and pair.rel_w1 <= rel_w1_tol
    out = {"softmax_vs_gaussian": pair.to_dict(), "limit_mean": model.limit_mean(),
           "top_singular_values": {"softmax": [r.softmax_top.tolist() for r in results],
                                   "gaussian": [r.gaussian_top.tolist() for r in results]},
           "model": model.to_dict(), "draws": draws, "seed": seed,
           "tolerance": {"ks": ks_tol, "rel_w1": rel_w1_tol}, "passed": passed}
    if as_json:
        click.echo(json.dumps(out, indent=2))
    else:
        m = model
        click.echo(f"mha: beta={m.beta:g} n={m.n} d={m.d} heads={m.heads}/{m.kv_heads} "
                   f"d_k={m.d_k} d_v={m.d_v} d_o={m.d_o} tied={m.tied} draws={draws} "
                   f"seed={seed}")
        ks_i, w1_i = pair.ks_interval, pair.rel_w1_interval
        if draws > 1:
            spread_w1 = f" (sd {100 * _sd(w1_i.values):.2f}%)"
            spread_ks = f" (sd {_sd(ks_i.values):.4f})"
        else:
            spread_w1 = spread_ks = " (one draw: no sd)"
        click.echo(f"softmax vs Gaussian: rel W1 = {100 * pair.rel_w1:.2f}%{spread_w1}, "
                   f"KS = {pair.ks:.4f}{spread_ks}; limiting mean {m.limit_mean():.5g}")
        click.echo(f"tolerance KS <= {ks_tol:g}, rel W1 <= {rel_w1_tol:g}: "
                   + ("PASS" if passed else "FAIL"))
    if not passed:
        raise SystemExit(1)


def _sd(values):
    import numpy as np

    return float(np.std(values, ddof=1))
