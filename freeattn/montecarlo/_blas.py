"""Pin the BLAS thread count while a Monte Carlo draw runs.

Multi-threaded BLAS kernels split sums differently for different thread counts, so the
same draw computed with 1 and with 2 threads differs in the last bits. To make results
bit-identical whatever the number of worker processes, every draw is computed with BLAS
limited to one thread, in the parent process and in workers alike.

``threadpoolctl`` is used when it is installed; otherwise the OpenBLAS libraries already
loaded in the process (numpy's and scipy's wheels ship OpenBLAS) are found through
``/proc/self/maps`` and driven through their ``*_set_num_threads`` entry points.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import threading

__all__ = ["single_threaded_blas", "blas_env"]

_SUFFIXES = ("", "64_")
_PREFIXES = ("openblas", "scipy_openblas")

# Environment variables read by BLAS/OpenMP runtimes when they load (used for workers).
blas_env = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "BLIS_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
}


def _openblas_controls():
    """Return ``[(get, set), ...]`` for every OpenBLAS library mapped in this process."""
    paths = []
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                path = line.rsplit(None, 1)[-1]
                if "openblas" in os.path.basename(path).lower() and path not in paths:
                    paths.append(path)
    except OSError:
        return []
    controls = []
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in _PREFIXES:
            for suffix in _SUFFIXES:
                get = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                put = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                if get is not None and put is not None:
                    get.restype = ctypes.c_int
                    put.argtypes = [ctypes.c_int]
                    put.restype = None
                    controls.append((get, put))
    return controls


def _limit_to_one():
    """Limit BLAS to one thread now; a function restoring the old limits, or None when no
    supported BLAS control was found."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    if threadpool_limits is not None:
        return threadpool_limits(limits=1, user_api="blas").restore_original_limits
    controls = _openblas_controls()
    if not controls:
        return None
    old = [get() for get, _ in controls]
    for _, put in controls:
        put(1)

    def restore():
        for (_, put), value in zip(controls, old):
            put(max(int(value), 1))
    return restore


_lock = threading.Lock()
_depth = 0          # contexts open in this process (nested or in several threads)
_restore = None     # restores the limits found by the first one


@contextlib.contextmanager
def single_threaded_blas():
    """Context manager limiting BLAS to one thread; yields True if the limit is in force.

    Yields False when no supported BLAS control was found (then the caller should run the
    draw in a worker process started with :data:`blas_env`).

    The limit is process-wide (BLAS has one thread pool per process), so contexts are
    counted: the first to enter sets it, the last to leave restores the old limits. Draws
    running at once in several threads of one process (a Dask worker with several threads,
    an in-process cluster) thus all keep one BLAS thread until the last one ends.
    """
    global _depth, _restore
    with _lock:
        if _depth == 0:
            _restore = _limit_to_one()
        _depth += 1
        pinned = _restore is not None
    try:
        yield pinned
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _restore is not None:
                _restore()
                _restore = None
