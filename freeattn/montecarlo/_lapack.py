"""Eigenvalues of a real symmetric matrix with LAPACK's two-stage driver ``dsyevd_2stage``.

Why not ``numpy.linalg.eigvalsh``: for eigenvalues only, almost all of the time goes into
the reduction to tridiagonal form. The classic one-stage reduction (``dsytrd``, used by
numpy and by every driver scipy wraps) is half BLAS-2 and memory bound. The two-stage
reduction (dense → band → tridiagonal, LAPACK >= 3.7) is BLAS-3 for its first stage and
takes about 0.5 s instead of 0.75 s at n = 2000 on one core, with the same accuracy.
scipy does not wrap the ``_2stage`` drivers, but the OpenBLAS that numpy's and scipy's
wheels ship exports them through LAPACKE, so they are called here through ctypes; the
loaded BLAS/LAPACK libraries are the ones ``threadpoolctl`` lists.

When no such symbol is found (another BLAS, another platform), or the environment variable
``FREEATTN_LAPACK_2STAGE`` is ``0``/``false``/``no``/``off``, ``numpy.linalg.eigvalsh`` is
used. A self-test on a
small matrix guards against a library whose integer width differs from the symbol's name.
"""
from __future__ import annotations

import ctypes  # our own binding: scipy.linalg.lapack has no dsyevd_2stage (see above)
import functools
import glob
import os

import numpy as np
import numpy.linalg  # noqa: F401  (numpy's LAPACK loaded before the libraries are listed)
from threadpoolctl import threadpool_info

__all__ = ["eigvalsh", "two_stage_available", "solver_description"]

_COL_MAJOR = 102  # LAPACK_COL_MAJOR: a C-ordered array read column-major is its transpose,
_UPLO = b"U"      # so 'U' there reads the C array's lower triangle, as numpy.linalg.eigvalsh
# (symbol, C type of lapack_int); the 64_ suffix marks the ILP64 builds numpy ships.
_SYMBOLS = (
    ("scipy_LAPACKE_dsyevd_2stage64_", ctypes.c_int64),
    ("LAPACKE_dsyevd_2stage64_", ctypes.c_int64),
    ("scipy_LAPACKE_dsyevd_2stage", ctypes.c_int32),
    ("LAPACKE_dsyevd_2stage", ctypes.c_int32),
)
_LIB_HINTS = ("openblas", "lapack", "flexiblas", "mkl")


def _candidate_libraries():
    """Paths of the BLAS/LAPACK libraries loaded in this process (numpy's first)."""
    paths = []
    here = os.path.dirname(np.__file__)
    for pattern in ("../numpy.libs/*", ".dylibs/*"):
        paths += sorted(glob.glob(os.path.join(here, pattern)))
    for info in threadpool_info():  # every BLAS (and OpenMP) library loaded in the process
        if info.get("filepath") and info["filepath"] not in paths:
            paths.append(info["filepath"])
    return [p for p in paths if any(h in os.path.basename(p).lower() for h in _LIB_HINTS)]


def _bind(lib):
    for name, int_t in _SYMBOLS:
        fn = getattr(lib, name, None)
        if fn is None:
            continue
        fn.restype = int_t
        fn.argtypes = [ctypes.c_int, ctypes.c_char, ctypes.c_char, int_t, ctypes.c_void_p,
                       int_t, ctypes.c_void_p]
        return fn, int_t
    return None


def _call(driver, a):
    """Overwrite C-contiguous float64 ``a`` (n × n, symmetric); return (eigenvalues, info)."""
    fn, int_t = driver
    n = a.shape[0]
    w = np.empty(n)
    info = fn(_COL_MAJOR, b"N", _UPLO, int_t(n), a.ctypes.data, int_t(max(n, 1)),
              w.ctypes.data)
    return w, int(info)


def _self_test(driver):
    rng = np.random.default_rng(12345)
    b = rng.standard_normal((7, 7))
    a = b + b.T
    want = np.linalg.eigvalsh(a)
    got, info = _call(driver, np.ascontiguousarray(a))
    return info == 0 and np.allclose(got, want, rtol=0, atol=1e-12 * abs(want).max())


def _disabled():
    flag = os.environ.get("FREEATTN_LAPACK_2STAGE", "1").strip().lower()
    return flag in ("0", "false", "no", "off")


@functools.cache
def _find_driver():
    """(function, int type) of the two-stage driver, or False; looked up once per process.

    functools.cache stores only finished looks: a second thread calling during the first
    look does its own (same) look rather than seeing a provisional "not found" (with which
    it would diagonalise with numpy's driver and give other last bits than the local run).
    """
    if _disabled():
        return False
    for path in _candidate_libraries():
        try:
            driver = _bind(ctypes.CDLL(path))
        except OSError:
            continue
        if driver is not None and _self_test(driver):
            return driver
    return False


def two_stage_available():
    """True when :func:`eigvalsh` uses LAPACK's two-stage driver in this process."""
    return bool(_find_driver())


def solver_description():
    """Which eigensolver :func:`eigvalsh` uses here, and why, in a few words."""
    if two_stage_available():
        return "LAPACK dsyevd_2stage"
    if _disabled():
        return "numpy.linalg.eigvalsh (two-stage driver disabled by FREEATTN_LAPACK_2STAGE)"
    return "numpy.linalg.eigvalsh (two-stage driver not found)"


def eigvalsh(a, *, overwrite_a=False):
    """All eigenvalues of a real symmetric matrix, ascending.

    Parameters
    ----------
    a : ndarray of shape (n, n)
        Symmetric; as in ``numpy.linalg.eigvalsh`` only the lower triangle is read (symmetry
        is not checked). Complex (Hermitian) input is passed to ``numpy.linalg.eigvalsh``.
    overwrite_a : bool, default False
        Allow the routine to destroy ``a`` (saves one n × n copy).

    Returns
    -------
    ndarray of shape (n,), float64, ascending.

    Raises
    ------
    ValueError
        If ``a`` is not a square matrix.
    numpy.linalg.LinAlgError
        If ``a`` holds NaN or inf, or the eigenvalue iteration does not converge.
    """
    a = np.asarray(a)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"a must be a square matrix, got shape {a.shape}")
    if a.dtype.kind == "c":
        return np.linalg.eigvalsh(a)
    if a.size and not np.isfinite(a).all():
        raise np.linalg.LinAlgError("a contains NaN or inf; eigenvalues are undefined")
    driver = _find_driver()
    if not driver or a.shape[0] == 0:
        return np.linalg.eigvalsh(np.asarray(a, dtype=np.float64))
    work = a if (overwrite_a and a.dtype == np.float64 and a.flags.c_contiguous
                 and a.flags.writeable) else np.array(a, dtype=np.float64, order="C")
    w, info = _call(driver, work)
    if info != 0:
        raise np.linalg.LinAlgError(f"dsyevd_2stage failed (info = {info})")
    return w
