"""Marchenko–Pastur and free Poisson laws: closed forms beside the polynomial method.

Both are :class:`~freeattn.laws.algebraic.AlgebraicLaw` s (their polynomial drives ⊠, compound
free Poisson, transforms and the tails of cdf/ppf), with float64 and mpmath fast paths from the
closed forms (Marchenko & Pastur 1967; Nica & Speicher 2006, Lecture 12):

    ρ(x) = sqrt((b − x)(x − a)) / (2π y x),  a, b = (1 ∓ √y)²,
    G(z) = 2 / (z + y − 1 + sqrt(z − a) sqrt(z − b)),

the product of principal square roots being the branch with G ~ 1/z off [a, b].
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

from .._context import FLOAT64, FLOAT_REFERENCE_DPS, MPMATH, mp_route, to_mp, workdps
from ..algebraic.polynomial import G, z
from .._validation import Param
from ._params import fresh
from ._closed import cauchy_mp_upper, complex_array as _complex
from .algebraic import AlgebraicLaw


__all__ = ["MarchenkoPastur", "FreePoisson"]

#: the closed-form cdf is used where F and 1 − F are ≥ this (cancellation-free there); the
#: θ-quadrature of the algebraic route serves the tails to full relative accuracy
_CDF_BULK = 1e-3
#: ratios y for which the closed-form cdf bulk is cancellation-free (it subtracts O(1)
#: arcsines whose difference is O(min(y, 1/y)))
_CLOSED_CDF_RATIOS = (1e-2, 1e2)


# closed forms, written once against a precision context (freeattn._context.FLOAT64 / MPMATH)
def _edges(ctx, y):
    """(a, b) = ((1 − √y)², (1 + √y)²), a = (y − 1)²/(1 + √y)² without cancellation at y ≈ 1."""
    r = ctx.sqrt(y)
    return (y - 1) ** 2 / (1 + r) ** 2, (1 + r) ** 2


def _density(ctx, x, y, a, b, ca=0, cb=0):
    """sqrt((b − x)(x − a))/(2π y x) on (a, b), ∞ at x = 0 for y = 1, 0 elsewhere; b − x and
    x − a computed as (b_f − x) + cb and (x − a_f) − ca (edge-accurate in float64)."""
    inside = (x > a) & (x < b)
    # two square roots, not the root of a product, and x divided alone: (b − x)(x − a) and
    # 2πyx are subnormal, so rounded to a few bits, for x ~ 5e-324
    val = (ctx.sqrt(ctx.guard(inside, (b - x) + cb, 0))
           * ctx.sqrt(ctx.guard(inside, (x - a) - ca, 0))
           / ctx.guard(inside, x, 1) / (2 * ctx.pi * y))
    pole = (x == 0) & (y == 1)
    return ctx.where(pole, ctx.inf, ctx.where(inside, val, ctx.number(0)))


def _cauchy_upper(ctx, zq, y, a, b):
    """G(z) = 2/(z + y − 1 + sqrt(z − a) sqrt(z − b)) on the closed upper half-plane, taken as
    (s − r)/(2yz) where that root is the larger (no cancellation); ∞ at z = 0 for y ≥ 1."""
    rt = ctx.sqrt(zq - a) * ctx.sqrt(zq - b)
    sm = zq + (y - 1)  # y − 1 first: exact, no cancellation of z + y against 1 (|z| ≪ 1)
    big = abs(sm + rt) >= abs(sm - rt)
    pole = (zq == 0) & (y >= 1)
    # every denominator is made safe on the branch not taken (mpmath evaluates both)
    g = ctx.where(big, 2 / ctx.guard(big and not pole if ctx.mp else True, sm + rt, 1),
                  (sm - rt) / ctx.guard(not (big or pole) if ctx.mp else True, 2 * y * zq, 1))
    return ctx.where(pole, ctx.inf + 0 * zq, g) if (ctx.mp or y >= 1) else g


def _mp_pdf(x, y, a, b, ca=0.0, cb=0.0):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # outside the support: discarded
        return _density(FLOAT64, x, y, a, b, ca, cb)


def _mp_cauchy(zz, y, a, b):
    """G of MP_y on complex points (real points: the limit from above)."""
    lower = (zz.imag < 0) | ((zz.imag == 0) & np.signbit(zz.imag))
    zq = np.where(lower, zz.conj(), zz)
    zq = _complex(zq.real, np.abs(zq.imag))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        g = _cauchy_upper(FLOAT64, zq, y, a, b)
    g = np.where(np.isinf(zq), 0j, g)
    return np.where(lower, g.conj(), g)


def _mp_cdf_bulk(x, y, a, b):
    """Absolutely continuous part of the cdf from the antiderivative of sqrt((b−x)(x−a))/x."""
    sab = abs(1 - y)
    root = np.sqrt((b - x) * (x - a))
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.clip((2 * x - a - b) / (b - a), -1, 1)
        v = np.clip(((a + b) * x - 2 * a * b) / (x * (b - a)), -1, 1)
    A = root + 0.5 * (a + b) * np.arcsin(u) - sab * np.arcsin(v)
    A_a = -0.25 * (a + b) * math.pi + 0.5 * sab * math.pi
    return (A - A_a) / (2 * math.pi * y)


class MarchenkoPastur(AlgebraicLaw):
    """Mean-one Marchenko–Pastur law MP_y with ratio y = rows/columns.

    The limit of the eigenvalue law of X Xᵀ/p for X (n × p) with i.i.d. N(0, 1) entries and
    n/p → y.  MP_y = D_y π_{1/y} (Hayase & Karakida 2026, §C.1).

    Parameters
    ----------
    ratio : float > 0, or an exact number
        y = rows/columns.  Exact input (int, Fraction, Decimal, sympy
        Rational, mpf) stays exact; a float means its binary value.

    Notes
    -----
    Density sqrt((b − x)(x − a))/(2π y x) on [a, b] = [(1 − √y)², (1 + √y)²]; an atom of mass
    1 − 1/y at 0 when y > 1.  Polynomial: y z G² + (1 − y − z) G + 1 = 0.  Free cumulants
    κ_q = y^{q−1}; moments are Narayana polynomials.  pdf, G and the bulk of the cdf use
    these closed forms (vectorised float64; mpmath at ``dps``).

    Raises
    ------
    ParameterError
        If ``ratio`` is not a finite number > 0 (``.param == "ratio"``; a ``ParameterTypeError``
        for a non-number).
    """

    parameters = (Param("ratio", "positive", "y", "rows/columns"),)
    #: on [0, ∞) with mean 1 (free Poisson: mean t) for every ratio (rate) > 0
    _positive_by_construction = "Marchenko–Pastur / free Poisson law"

    def __init__(self, ratio):
        y_exact = self.parameters[0].exact(ratio)
        self.ratio = float(y_exact)
        y = fresh("y")
        self._y_symbol = y
        super().__init__(y * z * G**2 + (1 - y - z) * G + 1, {y: y_exact},
                         name=f"MarchenkoPastur(ratio={self.ratio:g})")

    # closed forms (π_t = D_t MP_{1/t} shares them through the dilation s) ------------
    _dil = 1.0

    def _y_mp(self):
        return to_mp(self.values[self._y_symbol])

    def _dil_mp(self):
        return mpmath.mpf(1)

    def _edges(self):
        a, b = _edges(FLOAT64, self.ratio)
        return a * self._dil, b * self._dil

    @mp_route
    def _support(self, dps):
        if dps is None:
            return [self._edges()]
        a, b = _edges(MPMATH, self._y_mp())
        s = self._dil_mp()
        return [(s * a, s * b)]

    def _atoms_raw(self, dps):
        # AlgebraicLaw's raw atoms: dps=None means the float64 reference precision
        return self._atoms_mp(dps or FLOAT_REFERENCE_DPS)

    @mp_route
    def _atoms_mp(self, dps):
        y = self._y_mp()
        return [(mpmath.mpf(0), 1 - 1 / y)] if y > 1 else []

    @property
    def _edge_data(self):
        """(a, b, a − float(a), b − float(b)) from reference-precision arithmetic: x − a and
        b − x then keep their relative accuracy next to the edges,
        (b − x) = (float(b) − x) + (b − float(b))."""
        d = self.__dict__.get("_edge_data_")
        if d is None:
            with workdps(FLOAT_REFERENCE_DPS):
                a, b = _edges(MPMATH, self._y_mp())
                af, bf = float(a), float(b)
                d = self.__dict__["_edge_data_"] = (af, bf, float(a - af), float(b - bf))
        return d

    def _pdf_float(self, x):
        s = self._dil
        a, b, ca, cb = self._edge_data
        out = _mp_pdf(x / s, self.ratio, a, b, ca, cb) / s
        out[np.isnan(x)] = np.nan
        return out

    def _cauchy_float(self, zz):
        s = self._dil
        a, b = _edges(FLOAT64, self.ratio)
        zs = zz if s == 1 else _complex(zz.real / s, zz.imag / s)
        out = _mp_cauchy(zs, self.ratio, a, b)
        if s != 1:
            out = _complex(out.real / s, out.imag / s)
        out[np.isnan(zz.real) | np.isnan(zz.imag)] = np.nan
        return out

    def _cdf_float(self, x):
        s = self._dil
        a, b = _edges(FLOAT64, self.ratio)
        y = self.ratio
        atom = max(0.0, 1 - 1 / y)
        mass = 1 - atom
        xs = x / s
        out = np.where(xs >= 0, atom, 0.0) + np.where(xs >= b, mass, 0.0)
        inside = (xs > a) & (xs < b)
        if not _CLOSED_CDF_RATIOS[0] <= y <= _CLOSED_CDF_RATIOS[1]:
            # the closed form subtracts O(1) arcsines whose difference is O(min(y, 1/y)):
            # outside this range the θ-quadrature route is the accurate one
            out[inside] = AlgebraicLaw._cdf_float(self, x[inside])
            inside[:] = False
        if np.any(inside):
            bulk = _mp_cdf_bulk(xs[inside], y, a, b)
            tail = (bulk < _CDF_BULK) | (bulk > mass - _CDF_BULK)
            val = bulk + atom
            if np.any(tail):  # cancellation in the closed form: the θ-quadrature route
                val[tail] = AlgebraicLaw._cdf_float(self, x[inside][tail])
            out[inside] = val
        out[np.isnan(x)] = np.nan
        return np.clip(out, 0.0, 1.0)

    @mp_route
    def _pdf_mp(self, x, dps):
        y, s = self._y_mp(), self._dil_mp()
        a, b = _edges(MPMATH, y)
        return _density(MPMATH, x / s, y, a, b) / s

    @mp_route
    def _cauchy_mp(self, zv, dps):
        y, s = self._y_mp(), self._dil_mp()
        a, b = _edges(MPMATH, y)
        return cauchy_mp_upper(mpmath.mpc(zv) / s, lambda zq: _cauchy_upper(MPMATH, zq, y, a, b) / s)


class FreePoisson(MarchenkoPastur):
    """Free Poisson law π_t of rate t (jump size 1): free cumulants κ_q = t for all q.

    π_t = D_t MP_{1/t}: mean t; atom 1 − t at 0 when t < 1; support
    [(1 − √t)², (1 + √t)²].  Polynomial: z G² + (t − 1 − z) G + 1 = 0 (Nica & Speicher
    2006, Lecture 12).  Closed forms as for :class:`MarchenkoPastur`, dilated by t.

    Parameters
    ----------
    rate : float > 0, or an exact number (kept exact, as for MarchenkoPastur)

    Raises
    ------
    ParameterError
        If ``rate`` is not a finite number > 0 (``.param == "rate"``; a ``ParameterTypeError``
        for a non-number).
    """

    parameters = (Param("rate", "positive", "t", "rate (free cumulants κ_q = t)"),)

    def __init__(self, rate):
        t_exact = self.parameters[0].exact(rate)
        self.rate = float(t_exact)
        self.ratio = 1 / self.rate
        self._dil = self.rate
        t = fresh("t")
        self._t_symbol = t
        AlgebraicLaw.__init__(self, z * G**2 + (t - 1 - z) * G + 1, {t: t_exact},
                              name=f"FreePoisson(rate={self.rate:g})")

    def _y_mp(self):
        return 1 / to_mp(self.values[self._t_symbol])

    def _dil_mp(self):
        return to_mp(self.values[self._t_symbol])
