"""Pin the BLAS thread count while a Monte Carlo draw runs.

Multi-threaded BLAS kernels split sums differently for different thread counts, so the
same draw computed with 1 and with 2 threads differs in the last bits. To make results
bit-identical whatever the number of worker processes, every draw is computed with BLAS
limited to one thread, in the parent process and in workers alike.

The limit is set with ``threadpoolctl`` (a dependency), which finds every BLAS library
loaded in the process (OpenBLAS, MKL, BLIS, ...) and drives its own thread-count entry
points.
"""
from __future__ import annotations

import contextlib
import threading

import threadpoolctl
from threadpoolctl import threadpool_limits

__all__ = ["single_threaded_blas", "blas_env"]

# Environment variables read by BLAS/OpenMP runtimes when they load (used for workers).
blas_env = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "BLIS_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
}

# threadpoolctl >= 3.6 lets only one "controlling thread" set a pthreads OpenBLAS's
# process-wide pool (others are silently ignored); here the first context sets the limit
# and the last one, possibly in another thread, restores it, so control is handed over
# under our lock (its README: clear_controlling_thread(force=True)); older versions have
# no such rule.
_release = getattr(getattr(threadpoolctl, "OpenBLASController", None),
                   "clear_controlling_thread", lambda force=False: None)

_lock = threading.Lock()
_depth = 0          # contexts open in this process (nested or in several threads)
_limits = None      # the threadpool_limits of the first one (restores the old limits)


@contextlib.contextmanager
def single_threaded_blas():
    """Context manager limiting BLAS to one thread; yields True if the limit is in force.

    Yields False when threadpoolctl finds no BLAS library in this process (then the caller
    should run the draw in a worker process started with :data:`blas_env`).

    The limit is process-wide (BLAS has one thread pool per process), so contexts are
    counted: the first to enter sets it, the last to leave restores the old limits. Draws
    running at once in several threads of one process (a Dask worker with several threads,
    an in-process cluster) thus all keep one BLAS thread until the last one ends.
    (threadpoolctl's own context restores on each exit, which would lift the limit under a
    draw still running in another thread.)
    """
    global _depth, _limits
    with _lock:
        if _depth == 0:
            _release(force=True)
            _limits = threadpool_limits(limits=1, user_api="blas")
        _depth += 1
        pinned = _limits.get_original_num_threads().get("blas") is not None
    try:
        yield pinned
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                _release(force=True)
                _limits.restore_original_limits()
                _release(force=True)
                _limits = None
