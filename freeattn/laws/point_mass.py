"""Point mass δ_c."""
from __future__ import annotations

import mpmath
import numpy as np

from .._context import to_mp, workdps
from .._validation import _real
from ..algebraic.polynomial import G, z
from ._params import exact, fresh
from .algebraic import AlgebraicLaw, _mpc

__all__ = ["PointMass"]


class PointMass(AlgebraicLaw):
    """Dirac law δ_c: G(z) = 1/(z − c), polynomial (z − c) G − 1 = 0.

    Parameters
    ----------
    location : float, or an exact number (kept exact)
        The point c (finite).

    Raises
    ------
    ValueError
        If ``location`` is NaN or infinite.
    """

    def __init__(self, location=1.0):
        if not isinstance(location, str):
            loc = _real("location", location)
            if loc in (float("inf"), float("-inf")):
                raise ValueError(f"location must be finite, got {location!r}")
        c_exact = exact(location, "location")
        self.location = float(c_exact)
        c = fresh("c")
        self._c_symbol = c
        super().__init__((z - c) * G - 1, {c: c_exact}, name=f"PointMass({self.location:g})")

    def _c_mp(self):
        return to_mp(self.values[self._c_symbol])

    def _atoms_raw(self, dps):
        with workdps(dps or 30):
            return [(self._c_mp(), mpmath.mpf(1))]

    def _support(self, dps):
        return []

    def _pdf_float(self, x):
        out = np.zeros(x.shape)
        out[np.isnan(x)] = np.nan
        return out

    def _cdf_float(self, x):
        out = np.where(x >= self.location, 1.0, 0.0)
        out[np.isnan(x)] = np.nan
        return out

    def _ppf_float(self, q):
        return np.full(q.shape, self.location)

    def _cauchy_float(self, zz):
        with np.errstate(divide="ignore", invalid="ignore"):
            g = 1.0 / (zz - self.location)
        g = np.where(zz == self.location, np.inf + 0j, g)
        g = np.where(np.isinf(zz), 0j, g)
        return g

    def _pdf_mp(self, x, dps):
        with mpmath.workdps(dps):
            return mpmath.nan if mpmath.isnan(to_mp(x)) else mpmath.mpf(0)

    def _cdf_mp(self, x, dps):
        with workdps(dps):
            x = to_mp(x)
            val = mpmath.nan if mpmath.isnan(x) else mpmath.mpf(1 if x >= self._c_mp() else 0)
        with mpmath.workdps(dps):
            return +val

    def _cauchy_mp(self, zv, dps):
        with workdps(dps):
            zv = _mpc(zv)
            if not mpmath.isfinite(zv):
                val = mpmath.mpc(0) if not (mpmath.isnan(zv.real) or mpmath.isnan(zv.imag)) \
                    else mpmath.mpc(mpmath.nan, mpmath.nan)
            else:
                d = zv - self._c_mp()
                val = mpmath.mpc(mpmath.inf) if d == 0 else 1 / d
        with mpmath.workdps(dps):
            return +val
