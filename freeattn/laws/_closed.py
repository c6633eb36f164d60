"""Helpers shared by the closed-form laws (semicircle, Marchenko–Pastur / free Poisson):
complex assembly without 0·∞, and the symmetry G(z̄) = conj G(z) at the ends of the plane."""
from __future__ import annotations

import mpmath
import numpy as np

__all__ = ["complex_array", "cauchy_mp_upper"]


def complex_array(re, im):
    """re + i·im without the 0·∞ = NaN of a complex product."""
    out = np.empty(np.shape(re), dtype=complex)
    out.real = re
    out.imag = im
    return out


def cauchy_mp_upper(zv, g_upper):
    """G(z) at an mpmath point from ``g_upper(ζ)``, its formula on the closed upper half-plane:
    NaN → NaN, an infinite point → 0 (G ~ 1/z), Im z < 0 → conj G(z̄)."""
    zv = mpmath.mpc(zv)
    if mpmath.isnan(zv.real) or mpmath.isnan(zv.imag):
        return mpmath.mpc(mpmath.nan, mpmath.nan)
    if not mpmath.isfinite(zv):
        return mpmath.mpc(0)
    if zv.imag < 0:
        val = g_upper(mpmath.conj(zv))
        return mpmath.conj(val) if mpmath.isfinite(val) else val
    return g_upper(zv)
