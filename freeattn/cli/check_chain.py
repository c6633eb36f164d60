"""``freeattn check chain`` and ``freeattn check uncentered``.

``chain``: the proof's chain of models (Hayase & Karakida 2026, Table 1) drawn from one set of
weights, distances between consecutive models on an n grid and their fitted rates.
``uncentered``: Corollary C.3 and (C.13)–(C.14) for the uncentered attention matrix.
"""
from __future__ import annotations

import click

from ._errors import usage_error as _usage
from ._output import json_text, write_json
from ._paths import OUT_HELP, check_output_path, split_out, write_or_fail
from .check import check
from ..montecarlo.chain_sweep import chain_rates
from ..plotting.check import plot_chain
from ..montecarlo import AttentionModel
from ..montecarlo.uncentered import uncentered_check

__all__ = ["chain", "uncentered"]


def _ints(text, hint):
    try:
        values = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise click.BadParameter(f"must be comma-separated integers, got {text!r}",
                                 param_hint=hint) from None
    if len(set(values)) < 2:
        raise click.BadParameter("must hold at least two distinct sizes", param_hint=hint)
    return values


def _write_json(data, out, as_json):
    """Write ``data`` to ``out`` (JSON, as printed by --json)."""
    if not out:
        return
    write_json(out, data)
    if not as_json:
        click.echo(f"results written to {out}")


@check.command("chain")
@click.option("--beta", type=float, required=True, help="Inverse temperature β > 0.")
@click.option("--n-grid", "n_grid", default="250,500,1000,2000", show_default=True,
              help="Comma-separated context lengths n (at least two).")
@click.option("--gamma-k", "gamma_k", type=float, default=1.0, show_default=True,
              help="γ_K = h d_K / n (d_K = γ_K n/h rounded within 0.5 %; d_K > 4β²).")
@click.option("--heads", type=int, default=2, show_default=True, help="Number of heads h.")
@click.option("--draws", type=int, default=4, show_default=True, help="Draws per n.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed (>= 0).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help=OUT_HELP.format(more=""))
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="Write the log-log plot of the distances against n (with the fits).")
def chain(beta, n_grid, gamma_k, heads, draws, seed, as_json, out, plot):
    """Walk the chain of Table 1: sqrt(n) A^perp -> Y^f -> Y°^f -> Y^G[Sigma_f] -> Y^G[Sigma_G].

    For each consecutive pair (paired: one draw of Q, K and the noise): the operator norm and
    normalised Frobenius norm of the difference (where the two are coupled by a matrix
    identity), the KS and relative W1 distances and the relative second-moment gap of their
    squared singular values; the fitted slope in log n with its 95 % interval against the
    rate that Table 1 and Lemmas 4.2-4.5 state.  "not converged" marks a step whose distance
    falls more slowly than the proof's control at these n.
    """
    ns = _ints(n_grid, "--n-grid")
    out, plot = split_out(out, plot)
    check_output_path(out, "--out")
    check_output_path(plot, "--plot", plot=True)
    try:
        res = chain_rates(beta, ns, gamma_k=gamma_k, heads=heads, draws=draws, seed=seed)
    except (TypeError, ValueError) as exc:
        raise _usage(exc, beta="--beta", ns="--n-grid", gamma_k="--gamma-k",
                     gamma_K="--gamma-k", heads="--heads", draws="--draws",
                     seed="--seed") from None
    data = res.to_dict()
    click.echo(json_text(data) if as_json else res.table())
    _write_json(data, out, as_json)
    if plot:
        write_or_fail(lambda: plot_chain([res], plot), plot, "--plot")
        if not as_json:
            click.echo(f"plot written to {plot}")


@check.command("uncentered")
@click.option("--beta", type=float, required=True, help="Inverse temperature β > 0.")
@click.option("--gamma-k", "gamma_k", type=float, default=1.0, show_default=True,
              help="γ_K = h d_K / n; d_K = γ_K n / h is rounded to an integer within 0.5 %.")
@click.option("--heads", type=int, default=1, show_default=True, help="Number of heads h.")
@click.option("--n", "n", type=int, default=500, show_default=True, help="Context length.")
@click.option("--draws", type=int, default=10, show_default=True, help="Independent draws.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed (>= 0).")
@click.option("--no-law", is_flag=True, help="Skip the bulk comparison with nu_inf,h.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Write the results to FILE.json (the --json content; the command draws "
                   "no figure).")
def uncentered(beta, gamma_k, heads, n, draws, seed, no_law, as_json, out):
    """Corollary C.3: s1(A)/sqrt(h) -> 1, s2(A) -> 0, top singular vector -> 1/sqrt(n),
    ||A||_F^2/h -> e^(beta^2), stable rank -> e^(beta^2), (C.13) A A^T = hP + A^perp A^perp^T,
    and the bulk of the uncentered sqrt(n/h) A against nu_inf,h."""
    out, fig = split_out(out, None)
    if fig is not None:
        raise click.BadParameter(f"{fig!r}: this command draws no figure; give FILE.json",
                                 param_hint="--out")
    check_output_path(out, "--out")
    try:
        model = AttentionModel.from_ratios(beta, n, gamma_k, heads, kind="attention")
        res = uncentered_check(model, draws=draws, seed=seed, law=not no_law)
    except (TypeError, ValueError) as exc:
        raise _usage(exc, beta="--beta", gamma_k="--gamma-k", heads="--heads", n="--n",
                     draws="--draws", seed="--seed") from None
    data = res.to_dict()
    click.echo(json_text(data) if as_json else res.summary())
    _write_json(data, out, as_json)
    if not res.bounds_hold:
        raise SystemExit(1)
