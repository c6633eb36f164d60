"""Run many draws: in this process, in worker processes, or on a Dask cluster.

Draw i of a run with seed s uses ``SeedSequence(s).spawn(draws)[i]`` and is computed with
BLAS pinned to one thread, so results are bit-identical whatever the worker count or
scheduler.
"""
from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import os
import sys
import warnings

from tqdm.auto import tqdm

from .. import _validation as v
from ._blas import blas_env, single_threaded_blas
from .samplers import AttentionModel, _draw_task, _method, _precision, check_memory, draw_seed

__all__ = ["run_draws", "default_workers"]


def default_workers():
    """Number of usable cores (the default worker count)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # pragma: no cover - non-Linux
        return max(os.cpu_count() or 1, 1)


@contextlib.contextmanager
def _env(values):
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, val in old.items():
            if val is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = val


def _progress(total, enabled, desc):
    return tqdm(total=total, disable=not enabled, file=sys.stderr, desc=desc, leave=False,
                delay=0.5)


def _start_method(requested):
    methods = multiprocessing.get_all_start_methods()
    if requested is None:
        # fork: no re-import of the caller's main module and no start-up cost; the draw
        # task pins BLAS itself, and OpenBLAS shuts its thread pool down across fork.
        requested = "fork" if (sys.platform.startswith("linux") and "fork" in methods) \
            else "spawn"
    if requested not in methods:
        raise ValueError(f"start_method must be one of {methods}, got {requested!r}")
    return multiprocessing.get_context(requested)


def _pin_worker():
    # Entered once per worker; the draw task pins again around each draw.
    with single_threaded_blas():
        pass


def run_draws(model, draws, seed=0, *, workers=None, scheduler=None, gaussian=True,
              top_k=3, progress=False, desc="draws", start_method=None, method="direct",
              precision="float64"):
    """Draw ``draws`` independent samples of ``model`` (and its Gaussian equivalent).

    Parameters
    ----------
    model : AttentionModel
    draws : int >= 1
    seed : int >= 0 or numpy.random.SeedSequence
    workers : int >= 1, optional
        Worker processes (default: all usable cores), capped at ``draws`` and at the number
        of draws that fit in the available memory at once. With 1 worker the draws run in
        this process.
    scheduler : str or dask.distributed.Client, optional
        Run the draws on a Dask cluster at this address instead (needs ``freeattn[dask]``).
    gaussian : bool
        Also draw the Gaussian model with the same weights.
    top_k : int
        Number of top singular values reported per draw.
    progress : bool
        Show a tqdm progress bar on stderr (it appears only for runs longer than 0.5 s).
    start_method : {'fork', 'spawn', 'forkserver'}, optional
        How worker processes start (default 'fork' on Linux, else 'spawn'; with 'spawn'
        a calling script needs the ``if __name__ == "__main__":`` guard).
    method : {'direct', 'reduced'}, default 'direct'
        How each draw is computed (:func:`freeattn.montecarlo.sample`); the same joint law
        of the two spectra, 'reduced' with less work for kinds 'values' and 'mha'.
    precision : {'float64', 'float32'}, default 'float64'
        Arithmetic of 'reduced' draws (:func:`freeattn.montecarlo.sample`).

    Returns
    -------
    list of Draw, in draw order.

    Raises
    ------
    ValueError
        For invalid ``draws``/``workers``/``seed``.
    MemoryError
        Before any draw, when one draw needs more than the memory available.
    ImportError
        If ``scheduler`` is given and dask.distributed is not installed.
    """
    if not isinstance(model, AttentionModel):
        raise TypeError(f"model must be an AttentionModel, got {type(model).__name__}")
    draws = v.positive_integer("draws", draws)
    workers = default_workers() if workers is None else v.positive_integer("workers", workers)
    method = _method(method)
    _precision(precision, method, model)
    seeds = [draw_seed(seed, i) for i in range(draws)]
    if scheduler is not None:  # a cluster's workers may have more memory than this machine
        return _run_dask(scheduler, model, seeds, gaussian, top_k, progress, desc, method,
                         precision)
    ctx = _start_method(start_method)
    # as many workers as draws fit in memory at once (results do not depend on the count)
    workers = check_memory(model, gaussian, min(workers, draws), method=method)
    results = [None] * draws
    with _progress(draws, progress, desc) as bar:
        if workers == 1:
            with single_threaded_blas() as pinned:
                if pinned:
                    for i, s in enumerate(seeds):
                        results[i] = _draw_task(model, s, gaussian, top_k, method, precision)
                        bar.update()
                    return results
        with _env(blas_env), warnings.catch_warnings(), cf.ProcessPoolExecutor(
            max_workers=workers, mp_context=ctx, initializer=_pin_worker
        ) as pool:
            # Python >= 3.12 warns about fork in a process with (BLAS) threads.
            warnings.filterwarnings("ignore", message=".*use of fork\\(\\) may lead",
                                    category=DeprecationWarning)
            futures = {pool.submit(_draw_task, model, s, gaussian, top_k, method, precision): i
                       for i, s in enumerate(seeds)}
            for fut in cf.as_completed(futures):
                results[futures[fut]] = fut.result()
                bar.update()
    return results


def _run_dask(scheduler, model, seeds, gaussian, top_k, progress, desc, method, precision):
    try:  # dask is optional (freeattn[dask])
        from dask.distributed import Client, as_completed
    except ImportError as exc:
        raise ImportError(
            "running on a Dask scheduler needs dask.distributed: pip install 'freeattn[dask]'"
        ) from exc
    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    try:
        futures = [client.submit(_draw_task, model, s, gaussian, top_k, method, precision,
                                 pure=False)
                   for s in seeds]
        index = {f.key: i for i, f in enumerate(futures)}
        results = [None] * len(seeds)
        with _progress(len(seeds), progress, desc) as bar:
            for fut in as_completed(futures):
                results[index[fut.key]] = fut.result()
                bar.update()
        return results
    finally:
        if own:
            client.close()
