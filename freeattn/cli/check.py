"""``freeattn check``: limit laws against simulation of finite softmax attention."""
from __future__ import annotations

import contextlib
import json

import click

from .. import _validation as v
from ._errors import RunError
from ._errors import usage_error as _usage
from ._paths import check_output_path, write_or_fail
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


def _report(as_json, data, text, plot, draw_plot):
    """Print the results, then write the plot, so that a failed write does not lose them.

    ``draw_plot(module)`` draws with :mod:`freeattn.plotting.check` (imported only here).
    """
    click.echo(json.dumps(data, indent=2) if as_json else text)
    if plot:
        from ..plotting import check as mc_plot

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
              help="γ_K = h d_K / n; d_K = γ_K n / h is rounded to an integer within 0.5 %.")
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
@progress_option
@click.pass_context
def attention(ctx, beta, gamma_k, heads, kv_heads, n, d, draws, seed, workers, scheduler,
              exclude_top, ks_tol, rel_w1_tol, target, beta_grid, n_grid, factor, plot,
              as_json, progress):
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
    progress = show_progress(progress, as_json)
    if beta_grid is not None:
        _grid_mode(beta_grid, n_grid or str(n), gamma_k, heads, draws, seed,
                   workers, scheduler, exclude_top, factor, plot, as_json, options, progress)
        return
    if n_grid is not None:
        _sweep_mode(law_for(beta), beta, _grid(n_grid, "--n-grid", int), gamma_k, heads, draws,
                    seed, workers, scheduler, exclude_top, plot, as_json, options, progress)
        return
    law = law_for(beta)
    with _run_errors(scheduler):
        model = AttentionModel.from_ratios(beta, n, gamma_k, heads, **options)
        result = run_check(law, model, draws=draws, seed=seed, workers=workers,
                           scheduler=scheduler, exclude_top=exclude_top, ks_tol=ks_tol,
                           rel_w1_tol=rel_w1_tol, target=target, progress=progress)
    title = (f"beta={beta:g}, gamma_K={gamma_k:g}, h={heads}, n={n}, "
             f"{draws} draw{'s' if draws != 1 else ''}")
    _report(as_json, result.to_dict(), result.summary(), plot,
            lambda mc_plot: mc_plot.plot_check(law, [s.softmax for s in result.samples],
                                               [s.gaussian for s in result.samples], plot,
                                               title=title))
    if not result.passed:
        raise SystemExit(1)


def _sweep_mode(law, beta, ns, gamma_k, heads, draws, seed, workers, scheduler, exclude_top,
                plot, as_json, options, progress):
    from ..montecarlo import finite_size_sweep

    with _run_errors(scheduler, ns="--n-grid", n="--n-grid"):
        result = finite_size_sweep(law, ns, beta=beta, gamma_k=gamma_k, heads=heads,
                                   draws=draws, seed=seed, workers=workers,
                                   scheduler=scheduler, exclude_top=exclude_top,
                                   progress=progress, **options)
    _report(as_json, result.to_dict(),
            result.table() + "\nrate: least-squares fit of distance ~ C n^-rate", plot,
            lambda mc_plot: mc_plot.plot_sweep(result, plot))


def _grid_mode(beta_grid, n_grid, gamma_k, heads, draws, seed, workers, scheduler,
               exclude_top, factor, plot, as_json, options, progress):
    from ..montecarlo import linearization_grid

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
            lambda mc_plot: mc_plot.plot_linearization(result, plot))


_SHARING_CHOICE = click.Choice(["none", "gqa", "mqa", "tied_kv"])


def layer_options(f):
    """The click options that describe one layer (shared by ``check mha`` and ``density mha``)."""
    opts = [
        click.option("--preset", default=None,
                     help="A published layer (Table D.2): bert-base, modernbert-large, "
                          "dinov3-l16, llada-8b, gpt3-175b, falcon-7b, kayyam-1.2b, "
                          "mistral-7b; other flags override its values."),
        click.option("--beta", type=float, default=None, help="Inverse temperature β (default 1)."),
        click.option("--n", "n", type=int, default=None, help="Context length."),
        click.option("--d", "d", type=int, default=None, help="Input width d >= n (default n)."),
        click.option("--heads", type=int, default=None, help="Number of query heads h."),
        click.option("--kv-heads", type=int, default=None,
                     help="K/V heads h_KV (1 = MQA; default from --sharing)."),
        click.option("--sharing", type=_SHARING_CHOICE, default=None,
                     help="K/V sharing across heads (gqa, mqa) or tying W^V = W^K (tied_kv).  "
                          "Default none (gqa/mqa when --kv-heads < --heads)."),
        click.option("--tied", is_flag=True, help="Same as --sharing tied_kv."),
        click.option("--d-k", "d_k", type=int, default=None, help="Query/key width per head."),
        click.option("--d-v", "d_v", type=int, default=None,
                     help="Value width per head (default d_K)."),
        click.option("--d-o", "d_o", type=int, default=None, help="Output width (default d)."),
        click.option("--gamma-k", "gamma_k", type=float, default=None,
                     help="γ_K = h d_K / n instead of --d-k (rounded to an integer width "
                          "within 0.5 %)."),
        click.option("--gamma-v", "gamma_v", type=float, default=None,
                     help="γ_V = h d_V / n instead of --d-v."),
        click.option("--gamma-o", "gamma_o", type=float, default=None,
                     help="γ_O = d_O / n instead of --d-o."),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


_LAYER_FLAGS = dict(preset="--preset", sharing="--sharing", gamma_k="--gamma-k",
                    gamma_v="--gamma-v", gamma_o="--gamma-o", rho="--rho")


def preset_kv_heads(row, heads, kv_heads, sharing):
    """h_KV of a preset layer after the user's overrides (None: the pattern's default).

    ``--kv-heads`` wins; else the preset's h_KV is kept only where it still describes the
    layer: independent heads (h_KV = h in the preset) follow an overridden ``--heads``,
    ``--sharing none`` means h_KV = h and ``--sharing mqa`` h_KV = 1.  (Before, ``--preset
    bert-base --heads 8`` kept h_KV = 12 and failed with "--kv-heads must divide heads=8".)
    """
    if kv_heads is not None:
        return kv_heads
    final = sharing if sharing is not None else row["sharing"]
    if final == "none":
        return None
    if final == "mqa":
        return 1
    if row["kv_heads"] == row["heads"]:
        return None if heads is not None else row["kv_heads"]
    return row["kv_heads"]


def config_from_flags(preset, beta, n, d, heads, kv_heads, sharing, tied, d_k, d_v, d_o,
                      gamma_k, gamma_v, gamma_o, rho=None):
    """An :class:`freeattn.attention.MHAConfig` from the layer flags (usage errors name flags)."""
    from ..attention.config import PRESETS, MHAConfig, width_from_ratio

    if tied:
        if sharing not in (None, "tied_kv"):
            raise click.UsageError("--tied means --sharing tied_kv; give one of them")
        sharing = "tied_kv"
    for width, ratio in (("d_k", "gamma_k"), ("d_v", "gamma_v"), ("d_o", "gamma_o")):
        if locals()[width] is not None and locals()[ratio] is not None:
            raise click.UsageError(f"give either --{width.replace('_', '-')} or "
                                   f"--{ratio.replace('_', '-')}, not both")
    fields = {}
    try:
        if preset is not None:
            if preset not in PRESETS:
                raise v.ParameterError("preset", f"preset must be one of {tuple(PRESETS)}, "
                                                  f"got {preset!r}")
            fields = {k: val for k, val in PRESETS[preset].items() if k != "source"}
            if heads is not None:
                v.positive_integer("heads", heads)
            fields["kv_heads"] = preset_kv_heads(fields, heads, kv_heads, sharing)
            if fields["kv_heads"] is None:
                del fields["kv_heads"]
        given = dict(beta=beta, n=n, d=d, heads=heads, kv_heads=kv_heads, sharing=sharing,
                     d_k=d_k, d_v=d_v, d_o=d_o, rho=rho)
        if n is not None and preset is not None and d is None and fields.get("d", 0) < n:
            fields["d"] = None
        fields.update({k: val for k, val in given.items() if val is not None})
        if "n" not in fields:
            raise click.UsageError("give --n (or --preset)")
        fields.setdefault("heads", 1)
        if sharing is None and preset is None and kv_heads is not None \
                and kv_heads != fields["heads"]:
            fields["sharing"] = "mqa" if kv_heads == 1 else "gqa"
        nn = v.integer_at_least("n", fields["n"], 2)
        h = v.positive_integer("heads", fields["heads"])
        if gamma_k is not None:
            fields["d_k"] = width_from_ratio("gamma_k", gamma_k, nn, h)
        if gamma_v is not None:
            fields["d_v"] = width_from_ratio("gamma_v", gamma_v, nn, h)
        if gamma_o is not None:
            fields["d_o"] = width_from_ratio("gamma_o", gamma_o, nn, 1)
        if "d_k" not in fields:
            raise click.UsageError("give --d-k or --gamma-k (or --preset)")
        return MHAConfig(**fields)
    except (TypeError, ValueError) as exc:
        raise _usage(preset_note(exc, preset, kv_heads, fields.get("kv_heads")),
                     **_LAYER_FLAGS) from None


def preset_note(exc, preset, kv_flag, kv_used):
    """Say where an h_KV that the user did not give came from (the preset)."""
    if preset is None or kv_flag is not None or getattr(exc, "param", None) != "kv_heads":
        return exc
    return v.ParameterError("kv_heads", f"{exc} (h_KV = {kv_used} comes from --preset "
                                        f"{preset}; give --kv-heads or --sharing)")


@check.command("mha")
@layer_options
@click.option("--rho", type=float, default=None,
              help="Within-head K–V correlation ρ in [0, 1]: W^V = ρW^K + sqrt(1 − ρ²)W̃ "
                   "(d_V = d_K; beyond the paper, derivations/partial_kv.py).")
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
@click.option("--ks-tol", type=float, default=0.02, show_default=True,
              help="Tolerance on the mean KS distance (to the law; with --no-law, softmax vs "
                   "Gaussian).")
@click.option("--w1-tol", "rel_w1_tol", type=float, default=0.05, show_default=True,
              help="Tolerance on the mean relative W1 distance.")
@click.option("--target", type=click.Choice(["softmax", "gaussian", "both"]), default="both",
              show_default=True, help="Which model must meet the tolerances against the law.")
@click.option("--no-law", "no_law", is_flag=True,
              help="Only compare softmax with the Gaussian model (Table D.2); no limit law.")
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="Write histograms over the limit density (.png, .pdf, .svg, ...).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@progress_option
def mha(preset, beta, n, d, heads, kv_heads, sharing, tied, d_k, d_v, d_o, gamma_k, gamma_v,
        gamma_o, rho, draws, seed, workers, scheduler, method, exclude_top, ks_tol, rel_w1_tol,
        target, no_law, plot, as_json, progress):
    """Full layer MHA^⊥(X): softmax, Gaussian model and the limit law (C.15)/(C.21).

    Draws the true softmax layer and its finite Gaussian equivalent with the same weights and
    compares all n eigenvalues of each Gram with the limit law (KS, relative W1, moments with
    95% t-intervals) and with each other (Table D.2's metrics, relative W1 divided by the
    limiting mean).  Widths come from --preset, --d-k/--d-v/--d-o or --gamma-k/-v/-o.
    Exit status: 0 pass, 1 the check failed, 2 bad input, 3 the run could not finish.
    """
    from ..montecarlo import check as run_check
    from ..montecarlo import compare_draws, run_draws
    from ..montecarlo.check import check_exclude_top

    _require_dask(scheduler)
    check_output_path(plot, "--plot", plot=True)
    if no_law and plot:
        raise click.UsageError("--plot draws the limit density: not with --no-law")
    ks_tol = _positive_flag("--ks-tol", ks_tol)
    rel_w1_tol = _positive_flag("--w1-tol", rel_w1_tol)
    progress = show_progress(progress, as_json)
    cfg = config_from_flags(preset, beta, n, d, heads, kv_heads, sharing, tied, d_k, d_v, d_o,
                            gamma_k, gamma_v, gamma_o, rho=rho)
    try:
        model = cfg.model("mha")
        law = None if no_law else cfg.law("mha")
    except (TypeError, ValueError) as exc:
        raise _usage(exc, **_LAYER_FLAGS) from None
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
        out = {"softmax_vs_gaussian": pair.to_dict(), "limit_mean": limit_mean,
               "top_singular_values": {"softmax": [r.softmax_top.tolist() for r in results],
                                       "gaussian": [r.gaussian_top.tolist() for r in results]},
               "model": model.to_dict(), "config": cfg.to_dict(), "draws": draws, "seed": seed,
               "method": method, "tolerance": {"ks": ks_tol, "rel_w1": rel_w1_tol}, "passed": passed}
        text = "\n".join([head + f" draws={draws} seed={seed} method={method}",
                           _pair_line(pair, draws,
                                                                             limit_mean),
                           f"tolerance KS <= {ks_tol:g}, rel W1 <= {rel_w1_tol:g} (softmax vs "
                           f"Gaussian): " + ("PASS" if passed else "FAIL")])
        _report(as_json, out, text, None, None)
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
                                                   title=title))
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
    import numpy as np

    return float(np.std(values, ddof=1))
