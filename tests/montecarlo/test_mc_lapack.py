"""The two-stage LAPACK eigensolver of the samplers against numpy.linalg.eigvalsh."""
import numpy as np
import pytest

from freeattn.montecarlo import _lapack
from freeattn.montecarlo._lapack import eigvalsh, two_stage_available


@pytest.mark.parametrize("n", [1, 2, 5, 64, 333])
def test_matches_numpy_eigvalsh(n):
    rng = np.random.default_rng(n)
    b = rng.standard_normal((n, n + 3))
    gram = b @ b.T / n
    want = np.linalg.eigvalsh(gram)
    got = eigvalsh(gram)
    assert got.shape == (n,) and np.all(np.diff(got) >= 0)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-13 * want[-1] * max(n, 10))


def test_rank_deficient_gram_keeps_its_zeros():
    rng = np.random.default_rng(1)
    b = rng.standard_normal((40, 10))
    got = eigvalsh(b @ b.T)
    assert np.all(np.abs(got[:30]) < 1e-12 * got[-1])
    np.testing.assert_allclose(got[30:], np.linalg.eigvalsh(b.T @ b), rtol=1e-12)


def test_input_is_kept_unless_overwrite_is_allowed():
    rng = np.random.default_rng(2)
    b = rng.standard_normal((30, 30))
    a = b + b.T
    keep = a.copy()
    eigvalsh(a)
    np.testing.assert_array_equal(a, keep)
    single = a.astype(np.float32)
    eigvalsh(single, overwrite_a=True)  # other dtypes are copied, never worked on in place
    np.testing.assert_array_equal(single, keep.astype(np.float32))
    fortran = np.asfortranarray(a)
    eigvalsh(fortran, overwrite_a=True)
    np.testing.assert_array_equal(fortran, keep)


def test_reads_the_lower_triangle_like_numpy():
    rng = np.random.default_rng(4)
    b = rng.standard_normal((9, 9))
    lower = np.tril(b + b.T)
    np.testing.assert_allclose(eigvalsh(lower), np.linalg.eigvalsh(lower), rtol=0, atol=1e-12)


@pytest.mark.parametrize("where", ["diagonal", "lower", "upper"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_entries_raise(where, bad):
    a = np.eye(4)
    a[{"diagonal": (1, 1), "lower": (2, 0), "upper": (0, 2)}[where]] = bad
    with pytest.raises(np.linalg.LinAlgError, match="NaN or inf"):
        eigvalsh(a)


def test_complex_hermitian_and_float32_input():
    rng = np.random.default_rng(5)
    b = rng.standard_normal((6, 6)) + 1j * rng.standard_normal((6, 6))
    h = b + b.conj().T
    np.testing.assert_allclose(eigvalsh(h), np.linalg.eigvalsh(h), rtol=1e-12)
    f = (b.real + b.real.T).astype(np.float32)
    assert eigvalsh(f).dtype == np.float64


def test_bad_input_raises():
    with pytest.raises(ValueError, match="square"):
        eigvalsh(np.ones((2, 3)))
    a = np.eye(3)
    a[1, 1] = np.nan
    with pytest.raises(np.linalg.LinAlgError):
        eigvalsh(a)
    assert eigvalsh(np.zeros((0, 0))).shape == (0,)


def test_numpy_fallback_gives_the_same_spectrum(monkeypatch):
    rng = np.random.default_rng(3)
    b = rng.standard_normal((50, 50))
    a = b @ b.T
    fast = eigvalsh(a)
    monkeypatch.setattr(_lapack, "_find_driver", lambda: False)
    assert not two_stage_available()
    np.testing.assert_allclose(eigvalsh(a), fast, rtol=0, atol=1e-12 * fast[-1])
    assert eigvalsh(a.astype(np.float32)).dtype == np.float64


def test_two_stage_driver_found_on_numpy_openblas_wheels():
    # numpy's manylinux/macOS wheels bundle scipy-openblas with LAPACKE *_2stage exported; if
    # discovery breaks, draws silently lose their speed (benchmarks/bench_montecarlo.py).
    cfg = np.show_config(mode="dicts")
    lapack = cfg.get("Build Dependencies", {}).get("lapack", {}).get("name", "")
    if lapack != "scipy-openblas":
        pytest.skip(f"numpy built against {lapack!r}, not the wheel's scipy-openblas")
    assert two_stage_available()


def test_libraries_come_from_threadpoolctl_not_proc_maps():
    """The loaded libraries are threadpoolctl's list (no /proc/self/maps reading)."""
    import inspect

    from threadpoolctl import threadpool_info

    assert "/proc" not in inspect.getsource(_lapack)
    loaded = {i["filepath"] for i in threadpool_info() if i["user_api"] == "blas"}
    assert loaded and loaded <= set(_lapack._candidate_libraries())
