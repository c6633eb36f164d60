"""single_threaded_blas: one BLAS thread while any draw runs, also across threads."""
import threading
import time

import pytest

from freeattn.montecarlo._blas import _openblas_controls, single_threaded_blas


def _threads():
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        controls = _openblas_controls()
        if not controls:
            pytest.skip("no OpenBLAS control in this process")
        return [get() for get, _ in controls]
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


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
