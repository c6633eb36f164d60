"""Discrete laws Σ_i w_i δ_{a_i}: exact Cauchy transform, atoms, cdf and quantiles."""
from __future__ import annotations

import math

import mpmath
import numpy as np

from .._context import mp_route
from .._validation import Param
from .base import Law

__all__ = ["Discrete"]

#: evaluation points per block of the float64 Cauchy transform (bounds the n × m temporary)
_BLOCK = 1 << 20


class Discrete(Law):
    """The discrete law μ = Σ_i w_i δ_{a_i}.

    Parameters
    ----------
    points : array_like of float, shape (n,)
        Atom locations a_i (finite; repeated points are merged, their weights added).
    weights : array_like of float, shape (n,), optional
        w_i ≥ 0 summing to 1 (to 1e-9; nothing is renormalised); default 1/n each.

    Notes
    -----
    G(z) = Σ_i w_i/(z − a_i) exactly, G′(z) = −Σ_i w_i/(z − a_i)²; no density (``pdf`` is 0,
    ``support()`` is empty); cdf and quantiles are exact step functions; moments are the
    sums Σ_i w_i a_i^k (``math.fsum``, or ``mpmath.fsum`` at ``dps`` from the binary values).

    Raises
    ------
    ParameterError
        For empty, non-finite or multi-dimensional points, or weights that are negative, of
        the wrong length, or do not sum to 1.

    Examples
    --------
    >>> law = Discrete([0.0, 1.0], [0.25, 0.75])
    >>> law.atoms()
    [(0.0, 0.25), (1.0, 0.75)]
    >>> complex(law.cauchy_transform(2.0))
    (0.875+0j)
    """

    parameters = (Param("points", "real_vector", "a_i", "atom locations"),
                  Param("weights", "probability_vector", "w_i", "atom masses", optional=True))

    def __init__(self, points, weights=None):
        points_p, weights_p = Discrete.parameters  # (Empirical declares its own)
        pts = points_p.validate(points)
        w = weights_p.validate(weights, size=pts.size)
        if w is None:
            w = np.full(pts.size, 1.0 / pts.size)
        order = np.argsort(pts, kind="stable")
        pts, w = pts[order], w[order]
        uniq, start = np.unique(pts, return_index=True)
        wsum = np.array([math.fsum(v) for v in np.split(w, start[1:])])
        keep = wsum > 0
        self.points = uniq[keep]
        self.weights = wsum[keep]
        self._cum = np.cumsum(self.weights)
        self._cum[-1] = 1.0  # the total is 1 by validation: no rounding beyond the last atom
        self.name = f"Discrete({self.points.size} atoms)"

    def _key(self):
        return (Discrete, self.points.tobytes(), self.weights.tobytes())

    # ------------------------------------------------------------ Cauchy
    def _cauchy_float(self, z):
        z = np.asarray(z, dtype=complex)
        out = np.empty(z.shape, dtype=complex)
        step = max(1, _BLOCK // self.points.size)
        for i in range(0, z.size, step):
            zz = z[i:i + step, None]
            diff = zz - self.points[None, :]
            hit = np.any(diff == 0, axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                out[i:i + step] = (self.weights[None, :] / diff).sum(axis=1)
            out[i:i + step][hit] = complex(np.inf, 0)
        return out

    def _cauchy_derivative_float(self, z):
        z = np.asarray(z, dtype=complex)
        out = np.empty(z.shape, dtype=complex)
        step = max(1, _BLOCK // self.points.size)
        for i in range(0, z.size, step):
            diff = z[i:i + step, None] - self.points[None, :]
            with np.errstate(divide="ignore", invalid="ignore"):
                out[i:i + step] = -(self.weights[None, :] / diff**2).sum(axis=1)
        return out

    @mp_route
    def _cauchy_mp(self, z, dps):
        z = mpmath.mpc(z)
        if mpmath.im(z) == 0 and any(mpmath.re(z) == a for a in self._points_mp()):
            return mpmath.mpc(mpmath.inf, 0)
        return mpmath.fsum(w / (z - a) for a, w in zip(self._points_mp(), self._weights_mp()))

    @mp_route
    def _cauchy_derivative_mp(self, z, dps):
        z = mpmath.mpc(z)
        return -mpmath.fsum(w / (z - a) ** 2 for a, w in zip(self._points_mp(), self._weights_mp()))

    def _points_mp(self):
        return [mpmath.mpf(float(a)) for a in self.points]

    def _weights_mp(self):
        return [mpmath.mpf(float(w)) for w in self.weights]

    # ------------------------------------------------------------ structure
    def _support(self, dps):
        return []

    @mp_route
    def _atoms(self, dps):
        if dps is None:
            return [(float(a), float(w)) for a, w in zip(self.points, self.weights)]
        return list(zip(self._points_mp(), self._weights_mp()))

    def _pdf_float(self, x):
        return np.zeros(np.shape(x))

    def _pdf_mp(self, x, dps):
        return mpmath.mpf(0)

    def _cdf_float(self, x):
        k = np.searchsorted(self.points, x, side="right")
        return np.where(k > 0, self._cum[np.maximum(k - 1, 0)], 0.0)

    def _sf_float(self, x):
        k = np.searchsorted(self.points, x, side="right")  # number of atoms ≤ x
        upper = np.concatenate([np.cumsum(self.weights[::-1])[::-1], [0.0]])  # Σ_{i ≥ k} w_i
        return np.minimum(upper[k], 1.0)

    def _ppf_float(self, q):
        k = np.searchsorted(self._cum, q, side="left")
        return self.points[np.minimum(k, self.points.size - 1)]

    @mp_route
    def _ppf_mp(self, q, dps):
        cum = mpmath.mpf(0)
        for a, w in zip(self._points_mp(), self._weights_mp()):
            cum += w
            if q <= cum:
                return a
        return self._points_mp()[-1]

    # ------------------------------------------------------------ moments
    def _moment_hook(self, k, dps):
        if dps is None:
            with np.errstate(over="ignore"):
                return math.fsum(self.weights * self.points**k)
        return self._moment_mp(k, dps)

    @mp_route
    def _moment_mp(self, k, dps):
        return mpmath.fsum(w * a ** int(k) for a, w in zip(self._points_mp(), self._weights_mp()))

    def _moment_quad(self, k, dps):
        return self._moment_hook(k, dps)
