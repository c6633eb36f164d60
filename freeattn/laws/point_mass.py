"""Point mass δ_c."""
from __future__ import annotations

import mpmath
import numpy as np

from .._context import FLOAT_REFERENCE_DPS, mp_route, to_mp
from .._validation import Param
from ..algebraic.polynomial import G, z
from ._params import fresh
from .algebraic import AlgebraicLaw

__all__ = ["PointMass"]


class PointMass(AlgebraicLaw):
    """Dirac law δ_c: G(z) = 1/(z − c), polynomial (z − c) G − 1 = 0.

    Parameters
    ----------
    location : float, or an exact number (kept exact)
        The point c (finite).

    Raises
    ------
    ParameterError
        If ``location`` is NaN or infinite (``.param == "location"``; a
        ``ParameterTypeError`` for a non-number).
    """

    parameters = (Param("location", "real", "c"),)

    def __init__(self, location=1.0):
        c_exact = self.parameters[0].exact(location)
        self.location = float(c_exact)
        c = fresh("c")
        self._c_symbol = c
        super().__init__((z - c) * G - 1, {c: c_exact}, name=f"PointMass({self.location:g})")

    def _c_mp(self):
        return to_mp(self.values[self._c_symbol])

    def _atoms_raw(self, dps):
        # AlgebraicLaw's raw atoms: dps=None means the float64 reference precision
        return self._atoms_mp(dps or FLOAT_REFERENCE_DPS)

    @mp_route
    def _atoms_mp(self, dps):
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

    @mp_route
    def _pdf_mp(self, x, dps):
        return mpmath.nan if mpmath.isnan(x) else mpmath.mpf(0)

    @mp_route
    def _cdf_mp(self, x, dps):
        return mpmath.nan if mpmath.isnan(x) else mpmath.mpf(1 if x >= self._c_mp() else 0)

    @mp_route
    def _cauchy_mp(self, zv, dps):
        zv = mpmath.mpc(zv)
        if mpmath.isnan(zv.real) or mpmath.isnan(zv.imag):
            return mpmath.mpc(mpmath.nan, mpmath.nan)
        if not mpmath.isfinite(zv):
            return mpmath.mpc(0)
        d = zv - self._c_mp()
        return mpmath.mpc(mpmath.inf) if d == 0 else 1 / d
