"""``freeattn reproduce table-d2``: Table D.2 (softmax vs Gaussian model at public model sizes)."""
from __future__ import annotations

import click

from .. import _validation as v
from ..attention import MHAConfig
from ..montecarlo.runner import default_workers
from ..montecarlo.samplers import AttentionModel, _precision, available_memory
from ..reproduce import table_d2 as t
from ._errors import RunError
from ._errors import usage_error as _usage
from ._output import json_text, write_json
from ._paths import check_output_path
from ._progress import progress_option, show_progress

__all__ = ["table_d2"]


def _fmt(stat, scale_fmt):
    if stat.half_width is None:
        return f"{stat.mean:{scale_fmt}} (1 draw)"
    return f"{stat.mean:{scale_fmt}} ± {stat.half_width:{scale_fmt}} (sd {stat.sd:{scale_fmt}})"


#: the "agree" column: True/False, None (one draw: no interval, nothing to compare)
_AGREE = {True: "yes", False: "NO", None: "n/a"}


def _minutes(seconds):
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


@click.command("table-d2", short_help="Table D.2: softmax vs Gaussian model spectra")
@click.option("--rows", default=None,
              help="Comma-separated rows (default all): bert-base, modernbert-large, "
                   "dinov3-l16, llada-8b, gpt3-175b, falcon-7b, kayyam-1.2b.")
@click.option("--draws", type=int, default=10, show_default=True,
              help="Independent draws per row (the paper uses 10).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed (>= 0).")
@click.option("--workers", type=int, default=None,
              help="Worker processes (default: all cores). Results do not depend on it.")
@click.option("--scheduler", default=None,
              help="Dask scheduler ADDRESS to run the draws on (needs freeattn[dask]).")
@click.option("--method", type=click.Choice(["reduced", "direct"]), default="reduced",
              show_default=True,
              help="How draws are computed: 'reduced' samples the same joint law of the two "
                   "spectra as the literal 'direct' construction with less work.")
@click.option("--precision", type=click.Choice(["float64", "float32"]), default="float64",
              show_default=True,
              help="Arithmetic of the draws (the paper: float64); float32 needs --method "
                   "reduced, is 1.2-2.1x faster and moves the statistics by ~1e-5 (estimates "
                   "assume float64).")
@click.option("--estimate", is_flag=True,
              help="Only estimate each row's run time here (step rates measured now in "
                   "--workers processes, times the exact step counts of a draw).")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
@click.option("--out", "--json-out", "out", type=click.Path(dir_okay=False, writable=True),
              default=None,
              help="Also write the JSON to FILE, rewritten after every row (a partial run "
                   "keeps the rows done); --json-out is the same option.")
@progress_option
def table_d2(rows, draws, seed, workers, scheduler, method, precision, estimate, as_json,
             out, progress):
    """Table D.2 of Hayase & Karakida 2026: rel. W1 (%) and KS between the softmax and the
    Gaussian-model spectra of the centred layer output, β = 1, d_O = d.

    Each metric is the mean over draws ± the 95 % Student-t half-width (the paper's ±), with
    the standard deviation beside it; "agree" means the 95 % intervals of both metrics
    overlap the paper's.  Every row says how long it is estimated to take here (from step
    rates measured at the start, in --workers processes at the current load) and, when run,
    how long it took; a row that does not fit in memory says what it needs.  Rows are
    printed as they finish.  With one draw there is no interval: "agree" is "n/a" (JSON
    null).  Exit status 1 when a row run disagrees, else 0.
    """
    json_out = out
    try:
        names = t.ROWS if rows is None else tuple(r.strip() for r in rows.split(",") if r.strip())
        for r in names:
            t._row_name(r)
        draws = v.positive_integer("draws", draws)
        seed = v.integer_at_least("seed", seed, 0)
        if workers is not None:
            workers = v.positive_integer("workers", workers)
        _precision(precision, method)
    except (TypeError, ValueError) as exc:
        raise _usage(exc, rows="--rows", precision="--precision") from None
    if not names:
        raise click.BadParameter("must name at least one row", param_hint="--rows")
    check_output_path(json_out, "--json-out")  # before any work, not after the first row
    nworkers = min(workers or default_workers(), draws)
    # estimates are for this machine: with --scheduler only when asked for (--estimate)
    rates = t.measure_rates(nworkers) if (scheduler is None or estimate) else None
    results, skipped = [], []
    header = {"draws": draws, "seed": seed, "method": method, "precision": precision,
              "workers": nworkers,
              "scheduler": scheduler, "rates": None if rates is None else rates.to_dict()}

    def dump():
        data = dict(header, rows=[dict(r.to_dict(), estimated_seconds=est[r.name])
                                  for r in results], not_run=skipped)
        if json_out:
            write_json(json_out, data, "--out")
        return data

    if not as_json:
        where = f"on the Dask scheduler {scheduler}" if scheduler else \
            f"with {nworkers} worker{'s' if nworkers != 1 else ''} here"
        click.echo(f"Table D.2 (beta = 1, d_O = d), {draws} draw{'s' if draws != 1 else ''} "
                   f"per row, seed {seed}, method {method}, {precision}, {where}; "
                   f"mean ± 95% Student-t half-width (sd)")
        if rates is not None:
            click.echo(f"estimates from step rates measured now (load {rates.load:.1f}): "
                       f"GEMM {rates.gemm_flops_per_s / 1e9:.0f} GFLOP/s per worker")
        click.echo(f"{'row':18s}{'rel W1 (%) here':>30s}{'paper':>14s}{'KS here':>34s}"
                   f"{'paper':>18s}  agree  time (estimated)")
    est = {}
    for name in names:
        cfg = MHAConfig.preset(name)
        need = AttentionModel.from_config(cfg).draw_bytes(method=method)
        have = available_memory()
        too_big = scheduler is None and have is not None and need > have
        est[name] = None if rates is None else t.estimate_seconds(name, draws, nworkers, rates,
                                                                  method)
        if estimate or too_big:
            skipped.append({"row": name, "estimated_seconds": est[name], "bytes_per_draw": need,
                            "reason": "estimate only" if not too_big else
                            f"one draw needs {need / 2**30:.3g} GiB, {have / 2**30:.3g} GiB "
                            f"available"})
            if not as_json:
                click.echo(f"{name:18s} not run ({skipped[-1]['reason']}): about "
                           f"{_minutes(est[name])} for {draws} draws")
            dump()
            continue
        try:
            res = t.reproduce_row(name, draws, seed, workers=workers, scheduler=scheduler,
                                  progress=show_progress(progress, as_json), method=method,
                                  precision=precision)
        except MemoryError as exc:
            raise RunError(f"row {name}: {exc}") from None
        except (OSError, TimeoutError) as exc:
            if scheduler is None:
                raise
            raise RunError(f"could not run on the Dask scheduler {scheduler!r}: {exc}") from None
        results.append(res)
        dump()
        if not as_json:
            (w, dw), (k, dk) = res.paper
            guess = "" if est[name] is None else f" ({_minutes(est[name])})"
            click.echo(f"{name:18s}{_fmt(res.rel_w1, '.2f'):>30s}{f'{w:.2f} ± {dw:.2f}':>14s}"
                       f"{_fmt(res.ks, '.4f'):>34s}{f'{k:.4f} ± {dk:.4f}':>18s}  "
                       f"{_AGREE[res.agrees]:5s}  {_minutes(res.seconds)}{guess}")
    data = dump()
    if as_json:
        click.echo(json_text(data))
    elif results:
        total = sum(r.seconds for r in results)
        click.echo(f"total {_minutes(total)} for {len(results)} row"
                   f"{'s' if len(results) != 1 else ''}")
    if any(r.agrees is False for r in results):
        raise SystemExit(1)
