"""single_threaded_blas: one BLAS thread while any draw runs, also across threads."""
import threading
import time

import pytest

from threadpoolctl import threadpool_info

from freeattn.montecarlo import _blas
from freeattn.montecarlo._blas import single_threaded_blas


def _threads():
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_threadpoolctl_is_the_only_route():
    """The limit comes from threadpoolctl; the /proc/self/maps + ctypes route is gone."""
    import inspect

    src = inspect.getsource(_blas)
    assert "threadpool_limits" in src and "/proc" not in src and "ctypes" not in src
    assert _threads(), "numpy's BLAS is visible to threadpoolctl"


def test_overlapping_contexts_in_two_threads_keep_one_thread():
    """Thread A enters, B enters, A leaves while B still computes: B must still have one
    BLAS thread (the old context restored A's saved limit under B: a Dask worker with two
    threads drew with two BLAS threads, and its bits differed from the local run's)."""
    before = _threads()
    seen = []

    def work(delay):
        with single_threaded_blas() as pinned:
            assert pinned
            time.sleep(delay)
            seen.append(_threads())

    threads = [threading.Thread(target=work, args=(d,)) for d in (0.05, 0.25)]
    for t in threads:
        t.start()
        time.sleep(0.02)
    for t in threads:
        t.join()
    assert seen == [[1] * len(before)] * 2
    assert _threads() == before


def test_nested_contexts_restore_once():
    before = _threads()
    with single_threaded_blas():
        with single_threaded_blas():
            assert _threads() == [1] * len(before)
        assert _threads() == [1] * len(before)
    assert _threads() == before


def test_first_eigensolver_look_is_not_raced(monkeypatch):
    """Two threads diagonalising at once in a fresh process: the second must wait for the
    first look for LAPACK's two-stage driver, not take numpy's driver meanwhile (other last
    bits: a Dask worker with two threads differed from the local run)."""
    import numpy as np

    from freeattn.montecarlo import _lapack

    if not _lapack.two_stage_available():
        pytest.skip("no two-stage driver here")
    look = _lapack._candidate_libraries

    def slow_look():
        time.sleep(0.2)
        return look()

    _lapack._find_driver.cache_clear()
    monkeypatch.setattr(_lapack, "_candidate_libraries", slow_look)
    rng = np.random.default_rng(0)
    b = rng.standard_normal((150, 150))
    a = b @ b.T
    out = [None, None]

    def work(i):
        out[i] = _lapack.eigvalsh(a)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
        time.sleep(0.05)
    for t in threads:
        t.join()
    ref = _lapack.eigvalsh(a)
    # numpy's driver gives other last bits here, so taking it in a thread fails the test
    assert not np.array_equal(np.linalg.eigvalsh(a), ref)
    assert out[0].tobytes() == ref.tobytes() and out[1].tobytes() == ref.tobytes()


def test_threads_pin_after_the_main_thread_took_control():
    """threadpoolctl >= 3.6 ignores a pthreads OpenBLAS limit set from any thread but the
    first that set one (its "controlling thread"): after a draw in the main thread (and a
    user's standalone limit there), a draw in a worker thread still runs on one thread."""
    from threadpoolctl import threadpool_limits

    before = _threads()
    with single_threaded_blas():
        pass
    threadpool_limits(limits=before[0], user_api="blas")  # a standalone call: main controls
    seen = []

    def work():
        with single_threaded_blas() as pinned:
            seen.append((pinned, _threads()))

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert seen == [(True, [1] * len(before))]
    assert _threads() == before
