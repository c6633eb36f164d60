"""Tables of a density on an unbounded support interval (heavy tails, e.g. Cauchy).

An interval (a, b) reaching ±∞ is mapped onto one of width π (the line) or π/2 (a half-line)
by y = arctan((x − c)/s) (:class:`TailMap`); its two sides are tabulated in the distance
coordinate of :mod:`freeattn.quadrature.tables` in y (:class:`TailSideIntegrand`), and
:class:`TailInterval` reads them as any :class:`~freeattn.quadrature.tables.Interval` (cdf, sf,
ppf, isf from the one implementation there), the distances to the ends formed by ``arctan2``
so that both tails keep full relative accuracy (sf(x) ≈ s/(πx) for a Cauchy law at x = 1e100).
"""
from __future__ import annotations

import math

import numpy as np

from .._context import FLOAT_EPS
from ..quadrature.tables import Interval, _u_of

__all__ = ["unbounded", "TailMap", "TailSideIntegrand", "TailInterval"]

#: a node within this many ulps of a finite end takes the value at that distance (as
#: :class:`freeattn.laws.generic.SideIntegrand`)
_TAIL_END_PAD = 8


def unbounded(a, b):
    """Whether the support interval (a, b) reaches ±∞."""
    return math.isinf(a) or math.isinf(b)


class TailMap:
    """The compactifying map of an unbounded support interval (a, b): y = arctan((x − c)/s)
    with c = a (a finite), b (b finite) or the centre ``c`` (the whole line), so that
    (a, b) ↦ an interval of width W = π (the line) or π/2 (a half-line) in y; each end's
    distance d in y is formed directly (``arctan2``: full relative accuracy in both tails,
    d ≈ s/|x| far out), and x back from d through s/tan d or s·tan d."""

    def __init__(self, a, b, c, s):
        self.a, self.b, self.s = float(a), float(b), float(s)
        self.c = self.a if math.isfinite(a) else self.b if math.isfinite(b) else float(c)
        self.width = math.pi if (math.isinf(a) and math.isinf(b)) else 0.5 * math.pi

    def distances(self, x):
        """(distance in y to the left end, to the right end) at x ∈ (a, b)."""
        x = np.asarray(x, dtype=float)
        s, c = self.s, self.c
        dl = np.arctan2(s, c - x) if math.isinf(self.a) else np.arctan2(x - self.a, s)
        dr = np.arctan2(s, x - c) if math.isinf(self.b) else np.arctan2(self.b - x, s)
        return dl, dr

    def x_of(self, d, end):
        """x at distance d ∈ (0, W) in y from ``end`` ("a" or "b"), and |dx/dd|."""
        d = np.asarray(d, dtype=float)
        s = self.s
        with np.errstate(divide="ignore", over="ignore"):
            if end == "a":
                x = self.c - s / np.tan(d) if math.isinf(self.a) else self.a + s * np.tan(d)
                jac = s / np.sin(d) ** 2 if math.isinf(self.a) else s / np.cos(d) ** 2
            else:
                x = self.c + s / np.tan(d) if math.isinf(self.b) else self.b - s * np.tan(d)
                jac = s / np.sin(d) ** 2 if math.isinf(self.b) else s / np.cos(d) ** 2
        return x, jac


class TailSideIntegrand:
    """u ↦ ρ(x)·|dx/dy|·dy/du on an unbounded interval from one end, y-distance
    d = W sin²(u/2) (dy/du = sqrt(d(W − d))): the :class:`SideIntegrand` of a
    :class:`TailMap`.  A density ρ ~ |x|^(−1−α) is ~ d^(α − 1/2) in u next to an infinite end
    (integrable for every α > 0); x beyond the doubles counts 0.  Picklable."""

    def __init__(self, pdf, tail_map, end):
        self.pdf, self.map, self.end = pdf, tail_map, end

    def __call__(self, u):
        w = self.map.width
        d = w * np.sin(0.5 * np.asarray(u, dtype=float)) ** 2
        x, jac = self.map.x_of(d, self.end)
        # a node whose x rounds onto a finite end takes the value a few ulps inside (as
        # SideIntegrand): the density is read at the nearest resolvable point
        a, b = self.map.a, self.map.b
        if math.isfinite(a):
            x = np.maximum(x, a + _TAIL_END_PAD * FLOAT_EPS * abs(a))
        if math.isfinite(b):
            x = np.minimum(x, b - _TAIL_END_PAD * FLOAT_EPS * abs(b))
        ok = np.isfinite(x) & np.isfinite(jac) & (x > self.map.a) & (x < self.map.b)
        out = np.zeros(d.shape)
        if np.any(ok):
            with np.errstate(over="ignore", invalid="ignore"):
                v = self.pdf(x[ok]) * jac[ok] * np.sqrt(d[ok] * (w - d[ok]))
            out[ok] = np.where(np.isfinite(v), v, 0.0)
        return out


class TailInterval(Interval):
    """A float64 :class:`~freeattn.quadrature.tables.Interval` on an unbounded support
    interval (a, b) (ends ±∞ as the law reports them), its two sides tabulated in the
    y-distance of a :class:`TailMap`: :func:`~freeattn.quadrature.tables.cdf_sf` and
    :func:`~freeattn.quadrature.tables.quantile` read it as any interval."""

    def __init__(self, tail_map, left, right):
        Interval.__init__(self, tail_map.a, tail_map.b, left, right)
        self.map = tail_map
        self.width = tail_map.width

    def split(self, x):
        dl, dr = self.map.distances(x)
        w = self.width
        on_left = dl <= dr
        lower, upper = np.empty(dl.shape), np.empty(dl.shape)
        if np.any(on_left):
            lo = np.minimum(self.left.integral(_u_of(dl[on_left], w)), self.left.mass)
            lower[on_left] = lo
            upper[on_left] = self.right.mass + np.maximum(self.left.mass - lo, 0.0)
        on_right = ~on_left
        if np.any(on_right):
            up = self.right.integral(_u_of(dr[on_right], w))
            upper[on_right] = up
            lower[on_right] = self.left.mass + np.maximum(self.right.mass - up, 0.0)
        return lower, upper

    def x_from_left(self, u):
        return self.map.x_of(self.width * np.sin(0.5 * np.asarray(u, dtype=float)) ** 2, "a")[0]

    def x_from_right(self, u):
        return self.map.x_of(self.width * np.sin(0.5 * np.asarray(u, dtype=float)) ** 2, "b")[0]
