"""Timing helper shared by the benchmark scripts."""
import time


def best_of(fn, repeat):
    """Smallest wall time of ``repeat`` calls of ``fn()`` (seconds)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def best_of_interleaved(fns, repeat):
    """Smallest wall time of each of ``fns`` over ``repeat`` rounds that call them in turn.

    Alternating the calls exposes every function to the same drift of a shared machine, so
    ratios of the results are steadier than those of separate ``best_of`` runs.
    """
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, out in zip(fns, times):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return [min(t) for t in times]
