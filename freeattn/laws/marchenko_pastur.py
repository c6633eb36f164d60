"""Marchenko–Pastur and free Poisson laws (closed forms beside the polynomial method)."""
from __future__ import annotations

import math

import mpmath

from .._context import workdps, to_mp
from .._validation import positive
from ..algebraic.polynomial import G, z
from ._params import exact, fresh
from .algebraic import AlgebraicLaw

__all__ = ["MarchenkoPastur", "FreePoisson"]


class MarchenkoPastur(AlgebraicLaw):
    """Mean-one Marchenko–Pastur law MP_y with ratio y = rows/columns.

    The limit of the eigenvalue law of X Xᵀ/p for X (n × p) with i.i.d. N(0, 1) entries and
    n/p → y.  MP_y = D_y π_{1/y} (Hayase & Karakida 2026, §C.1).

    Parameters
    ----------
    ratio : float > 0
        y = rows/columns.

    Notes
    -----
    Density sqrt((b − x)(x − a))/(2π y x) on [a, b] = [(1 − √y)², (1 + √y)²]; an atom of mass
    1 − 1/y at 0 when y > 1.  Polynomial: y z G² + (1 − y − z) G + 1 = 0.  Free cumulants
    κ_q = y^{q−1}; moments are Narayana polynomials.

    Raises
    ------
    ValueError
        If ``ratio`` is not a finite number > 0.
    """

    def __init__(self, ratio):
        self.ratio = float(positive("ratio", ratio))
        y = fresh("y")
        super().__init__(y * z * G**2 + (1 - y - z) * G + 1, {y: exact(ratio)},
                         name=f"MarchenkoPastur(ratio={self.ratio:g})")

    def _edges(self):
        r = math.sqrt(self.ratio)
        return (1 - r) ** 2, (1 + r) ** 2

    def _support(self, dps):
        if dps is None:
            return [self._edges()]
        with workdps(dps):
            r = mpmath.sqrt(to_mp(self.values[next(iter(self.values))]))
            a, b = (1 - r) ** 2, (1 + r) ** 2
        with mpmath.workdps(dps):
            return [(+a, +b)]

    def _atoms_raw(self, dps):
        with workdps(dps or 30):
            y = to_mp(next(iter(self.values.values())))
            return [(mpmath.mpf(0), 1 - 1 / y)] if y > 1 else []


class FreePoisson(AlgebraicLaw):
    """Free Poisson law π_t of rate t (jump size 1): free cumulants κ_q = t for all q.

    π_t = D_{1/y} MP_y with y = 1/t; mean t; atom 1 − t at 0 when t < 1.
    Polynomial: z G² + (t − 1 − z) G + 1 = 0 (Nica & Speicher 2006, Lecture 12).

    Parameters
    ----------
    rate : float > 0

    Raises
    ------
    ValueError
        If ``rate`` is not a finite number > 0.
    """

    def __init__(self, rate):
        self.rate = float(positive("rate", rate))
        t = fresh("t")
        super().__init__(z * G**2 + (t - 1 - z) * G + 1, {t: exact(rate)},
                         name=f"FreePoisson(rate={self.rate:g})")
