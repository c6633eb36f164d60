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
