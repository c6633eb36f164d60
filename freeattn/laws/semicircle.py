"""Wigner's semicircle law: closed forms beside the polynomial method."""
from __future__ import annotations

import mpmath
import numpy as np

from .._context import FLOAT64, FLOAT_REFERENCE_DPS, MPMATH, mp_route, to_mp, tolerance, workdps
from ..algebraic.polynomial import G, z
from .._validation import Param, integer_at_least
from ._params import fresh
from ._closed import (LD, PI_LD, NearEnds, cauchy_mp_upper, complex_array as _complex,
                      bisect_doubles, lost_digits, newton_closed_mp, psi_minus_sin)
from .algebraic import AlgebraicLaw


__all__ = ["Semicircle"]

#: extra digits of the Newton tolerance of the mpmath quantile (as in laws/algebraic.py)
_NEWTON_EXTRA_DPS = 2



def _end_mass(w):
    """Mass of the semicircle within the fraction w ≤ 1/2 of the width from an end:
    (θ − sin θ cos θ)/π = (ψ − sin ψ)/(2π) with ψ = 2θ = 4 asin √w (x = −r cos θ), in long
    double without cancellation (:func:`~freeattn.laws._closed.psi_minus_sin`), with
    sin ψ = 4 sin(θ/2) cos(θ/2) cos θ = 4 √w √(1 − w) (1 − 2w) algebraic (no long double sine)."""
    w = np.asarray(w, dtype=LD)
    s = np.sqrt(w)
    return psi_minus_sin(4 * np.arcsin(s), 4 * s * np.sqrt(1 - w) * (1 - 2 * w)) / (2 * PI_LD)


# closed forms, written once against a precision context (freeattn._context.FLOAT64 / MPMATH)
def _density(ctx, x, r, c, v):
    """sqrt((r − x)(r + x))/(2πσ²) on (−r, r), 0 outside, NaN at NaN; r = 2σ with r ∓ x
    computed as (r_f ∓ x) + c (c = r − r_f: edge-accurate in float64, 0 in mpmath)."""
    inside = (x > -r) & (x < r)
    val = ctx.sqrt(ctx.guard(inside, ((r - x) + c) * ((r + x) + c), 0)) / (2 * ctx.pi * v)
    return ctx.where(ctx.isnan(x), ctx.nan, ctx.where(inside, val, ctx.number(0)))


def _cauchy_upper(ctx, zq, r):
    """G(z) = 2/(z + sqrt(z − r) sqrt(z + r)) on the closed upper half-plane (principal roots:
    the branch with G ~ 1/z)."""
    return 2 / (zq + ctx.sqrt(zq - r) * ctx.sqrt(zq + r))


class Semicircle(AlgebraicLaw):
    """Centred semicircle law of variance σ², support [−2σ, 2σ].

    Density sqrt(4σ² − x²)/(2πσ²); polynomial σ² G² − z G + 1 = 0; only non-zero free
    cumulant κ₂ = σ²; even moments σ^{2k} Catalan(k) (Wigner 1958; Nica & Speicher 2006,
    Lecture 2).  pdf, G = 2/(z + sqrt(z − 2σ) sqrt(z + 2σ)) and the float64 cdf and sf,
    F(x) = (θ − sin θ cos θ)/π = (ψ − sin ψ)/(2π) (x = −2σ cos θ, ψ = 2θ) summed from the
    nearer end in long double without cancellation, use these closed forms; ppf and isf bisect
    them on the doubles.

    Parameters
    ----------
    variance : float > 0, or an exact number (kept exact: int, Fraction, Decimal, decimal
        string, sympy Rational, mpf)

    Raises
    ------
    ParameterError
        If ``variance`` is not a finite number > 0 (``.param == "variance"``; a ``ParameterTypeError``
        for a non-number).
    """

    parameters = (Param("variance", "positive", "σ²"),)

    def __init__(self, variance=1.0):
        v_exact = self.parameters[0].exact(variance)
        self.variance = float(v_exact)
        v = fresh("v")
        self._v_symbol = v
        super().__init__(v * G**2 - z * G + 1, {v: v_exact},
                         name=f"Semicircle(variance={self.variance:g})")

    def _radius(self):
        return self._radius_data[0]

    @property
    def _radius_data(self):
        """(float(2σ), 2σ − float(2σ)) from reference-precision arithmetic, for edge-accurate
        r ∓ x."""
        d = self.__dict__.get("_radius_data_")
        if d is None:
            with workdps(FLOAT_REFERENCE_DPS):
                r = self._radius_mp()
                d = self.__dict__["_radius_data_"] = (float(r), float(r - float(r)))
        return d

    def _radius_mp(self):
        """2σ at the current mpmath precision."""
        return 2 * mpmath.sqrt(to_mp(self.values[self._v_symbol]))

    @mp_route
    def _support(self, dps):
        if dps is None:
            r = self._radius()
            return [(-r, r)]
        r = self._radius_mp()
        return [(-r, r)]

    def _atoms_raw(self, dps):
        return []

    def _pdf_float(self, x):
        r, c = self._radius_data
        with np.errstate(invalid="ignore", over="ignore"):  # outside: discarded
            return _density(FLOAT64, x, r, c, self.variance)

    def _cauchy_float(self, zz):
        r = self._radius()
        lower = (zz.imag < 0) | ((zz.imag == 0) & np.signbit(zz.imag))
        zq = np.where(lower, zz.conj(), zz)
        zq = _complex(zq.real, np.abs(zq.imag))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            g = _cauchy_upper(FLOAT64, zq, r)
        g = np.where(np.isinf(zq), 0j, g)
        g = np.where(lower, g.conj(), g)
        g[np.isnan(zz.real) | np.isnan(zz.imag)] = np.nan
        return g

    @property
    def _near_ends(self):
        """[−2σ, 2σ] as :class:`~freeattn.laws._closed.NearEnds` (reference-precision ends)."""
        d = self.__dict__.get("_near_ends_")
        if d is None:
            with workdps(FLOAT_REFERENCE_DPS):
                r = self._radius_mp()
                d = self.__dict__["_near_ends_"] = NearEnds(-r, r, 1, _end_mass, _end_mass)
        return d

    def _partial_float(self, x, upper):
        """cdf (sf with ``upper``): the closed form from the nearer end in long double,
        rounded once (monotone to the ulp; sf keeps its relative accuracy up to b; exactly 0
        and 1 beyond the ends)."""
        x = np.asarray(x, dtype=float)
        ne = self._near_ends
        out = np.where(x <= ne.A, 1.0, 0.0) if upper else np.where(x >= ne.B, 1.0, 0.0)
        inside = (x > ne.A) & (x < ne.B)
        if np.any(inside):
            L, R, _ = ne.split(x[inside])
            out[inside] = (R if upper else L).astype(float)
        out[np.isnan(x)] = np.nan
        return out

    def _exact_ends(self):
        return [self._near_ends.exact_ends()]

    def _cdf_sf_at_distance(self, i, from_right, d):
        """The closed-form (cdf, sf) of :meth:`_partial_float` at the distance d from an end."""
        L, R, _ = self._near_ends.split_at(d, from_right)
        return L.astype(float), R.astype(float)

    def _cdf_float(self, x):
        return self._partial_float(x, False)

    def _sf_float(self, x):
        return self._partial_float(x, True)

    def _ppf_float(self, q):
        """Smallest double x with cdf(x) ≥ q: bisection on the doubles of the closed-form cdf
        (:func:`~freeattn.laws._closed.bisect_doubles`), so ppf inverts the reported cdf to
        the ulp in either tail, without the θ-tables."""
        ne = self._near_ends
        return bisect_doubles(q, self._cdf_float, ne.A, ne.B)

    def _isf_float(self, q):
        """Smallest double x with sf(x) ≤ q (bisection on the closed-form sf)."""
        ne = self._near_ends
        return bisect_doubles(q, self._sf_float, ne.A, ne.B, upper=True)

    def _partial_mp(self, x, dps, upper):
        """cdf (sf with ``upper``) at the working precision: (ψ − sin ψ)/(2π) from the nearer
        end, with the digits its cancellation costs added."""
        if mpmath.isnan(x):
            return mpmath.nan
        one, zero = mpmath.mpf(1), mpmath.mpf(0)
        r = self._radius_mp()
        if x <= -r:
            return one if upper else zero
        if x >= r:
            return zero if upper else one
        with mpmath.extradps(lost_digits(min(x + r, r - x) / (2 * r))):
            r = self._radius_mp()
            near_left = x + r <= r - x
            d = x + r if near_left else r - x
            psi = 4 * mpmath.asin(mpmath.sqrt(d / (2 * r)))
            m = (psi - mpmath.sin(psi)) / (2 * mpmath.pi)
            out = (m if near_left != upper else 1 - m)
        return +out

    def _quantile_newton_mp(self, q, x, dps, upper):
        (a, b), = self._support(dps)
        return newton_closed_mp(self, q, x, dps, a, b, tolerance(dps + _NEWTON_EXTRA_DPS), upper)

    @mp_route
    def _pdf_mp(self, x, dps):
        return _density(MPMATH, x, self._radius_mp(), 0, to_mp(self.values[self._v_symbol]))

    @mp_route
    def _cauchy_mp(self, zv, dps):
        r = self._radius_mp()
        return cauchy_mp_upper(zv, lambda zq: _cauchy_upper(MPMATH, zq, r))

    def moment(self, k, dps=None, method=None):
        """k-th moment: σ^k Catalan(k/2) for even k, exactly 0 for odd k (``method`` as in
        :meth:`AlgebraicLaw.moment`)."""

        if k % 2 and method is None:
            return 0.0 if dps is None else self._mp_number(0, dps)
        return super().moment(k, dps, method)
