"""Mixtures Σ_i w_i μ_i of laws (classical mixtures, not free convolutions)."""
from __future__ import annotations

import math

import mpmath
import numpy as np

from .._context import inner_dps, mp_route
from .._validation import Param, ParameterError, ParameterTypeError, dps_or_none
from ._closed import bisect_doubles
from .base import Law

__all__ = ["Mixture"]


def _law_list(name, laws):
    try:
        laws = list(laws)
    except TypeError:
        raise ParameterTypeError(name, f"{name} must be a sequence of laws") from None
    if not laws:
        raise ParameterError(name, f"{name} must hold at least one law")
    for law in laws:
        if not isinstance(law, Law):
            raise ParameterTypeError(name, f"{name} must be Law instances, got {type(law).__name__}")
    return laws


class Mixture(Law):
    """The mixture μ = Σ_i w_i μ_i (a random choice of law, then a draw from it).

    Parameters
    ----------
    laws : sequence of Law, length k ≥ 1
    weights : array_like of float, shape (k,), optional
        w_i ≥ 0 summing to 1 (to 1e-9; nothing is renormalised); default 1/k each.

    Notes
    -----
    Everything is linear in μ: G = Σ w_i G_i, G′ = Σ w_i G_i′, ρ = Σ w_i ρ_i, cdf = Σ w_i F_i,
    m_k = Σ w_i m_k(μ_i) (exact where the components' are); the support is the union of the
    components' supports, the atoms are merged by location.  Not to be confused with free
    additive convolution (:func:`freeattn.free_additive_convolution`).

    Raises
    ------
    ParameterError
        If ``laws`` is empty or holds a non-law, or the weights are invalid.
    """

    parameters = (Param("laws", lambda name, v: _law_list(name, v), "μ_i",
                        "a non-empty sequence of freeattn Laws"),
                  Param("weights", "probability_vector", "w_i", optional=True))

    def __init__(self, laws, weights=None):
        laws = self.parameters[0].validate(laws)
        w = self.parameters[1].validate(weights, size=len(laws))
        if w is None:
            w = np.full(len(laws), 1.0 / len(laws))
        keep = w > 0
        self.laws = tuple(law for law, k in zip(laws, keep) if k)
        self.weights = w[keep]
        self.name = " + ".join(f"{wi:g}·{law.name}" for law, wi in zip(self.laws, self.weights))

    def _key(self):
        return (Mixture, self.laws, self.weights.tobytes())

    def _sum(self, fn, x):
        return sum(w * np.asarray(fn(law, x)) for law, w in zip(self.laws, self.weights))

    def _sum_mp(self, fn, x):
        """Σ w_i fn(μ_i, x) at the current (working) precision."""
        return mpmath.fsum(mpmath.mpf(float(w)) * fn(law, x) for law, w in zip(self.laws, self.weights))

    def _cauchy_float(self, z):
        return self._sum(lambda law, v: law._G(v), np.asarray(z, dtype=complex))

    def _cauchy_derivative_float(self, z):
        return self._sum(lambda law, v: law._cauchy_derivative_float(v), np.asarray(z, dtype=complex))

    @mp_route
    def _cauchy_mp(self, z, dps):
        return self._sum_mp(lambda law, v: law._cauchy_mp(v, inner_dps(dps)), z)

    @mp_route
    def _cauchy_derivative_mp(self, z, dps):
        return self._sum_mp(lambda law, v: law._cauchy_derivative_mp(v, inner_dps(dps)), z)

    def _pdf_float(self, x):
        return self._sum(lambda law, v: law._pdf_float(v), np.asarray(x, dtype=float))

    @mp_route
    def _pdf_mp(self, x, dps):
        return self._sum_mp(lambda law, v: law._pdf_mp(v, inner_dps(dps)), x)

    def _cdf_float(self, x):
        return np.clip(self._sum(lambda law, v: law._cdf_float(v), np.asarray(x, dtype=float)), 0.0, 1.0)

    def _sf_float(self, x):
        return np.clip(self._sum(lambda law, v: law._sf_float(v), np.asarray(x, dtype=float)), 0.0, 1.0)

    def _span(self):
        """(left end, right end) of the support with the atoms."""
        pts = [e for iv in self._support(None) for e in iv] + [loc for loc, _ in self.atoms()]
        return min(pts), max(pts)

    def _ppf_float(self, q):
        """Smallest double x with cdf(x) ≥ q: bisection on the doubles of the mixture's own
        cdf (a weighted sum of the components' cdfs, monotone), so ppf inverts the cdf this
        law reports, to the ulp and in either tail."""
        lo, hi = self._span()
        return bisect_doubles(q, self._cdf_float, lo, hi)

    def _isf_float(self, q):
        """Smallest double x with sf(x) ≤ q (bisection on the mixture's own sf)."""
        lo, hi = self._span()
        return bisect_doubles(q, self._sf_float, lo, hi, upper=True)

    @mp_route
    def _cdf_mp(self, x, dps):
        return self._sum_mp(lambda law, v: law._cdf_mp(v, inner_dps(dps)), x)

    @mp_route
    def _sf_mp(self, x, dps):
        return self._sum_mp(lambda law, v: law._sf_mp(v, inner_dps(dps)), x)

    def _support(self, dps):
        ivs = sorted(iv for law in self.laws for iv in law.support(dps))
        merged = []
        for a, b in ivs:
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        return merged

    @mp_route
    def _atoms(self, dps):
        merged = {}
        for law, w in zip(self.laws, self.weights):
            for loc, m in law.atoms(None if dps is None else inner_dps(dps)):
                if dps is None:
                    merged[loc] = merged.get(loc, 0.0) + float(w) * m
                else:
                    merged[loc] = merged.get(loc, mpmath.mpf(0)) + mpmath.mpf(float(w)) * m
        return sorted(merged.items(), key=lambda p: p[0])

    def moment(self, k, dps=None, method=None):
        """k-th moment Σ w_i m_k(μ_i) (``method="quad"``: quadrature of the mixture itself)."""
        method = self._check_method(method, ("exact", "quad"))
        if method == "quad":
            return Law.moment(self, k, dps=dps, method="quad")
        return self._moment_sum(dps_or_none(dps), k, method)

    @mp_route
    def _moment_sum(self, dps, k, method):
        vals = [law.moment(k, dps=None if dps is None else inner_dps(dps), method=method)
                for law in self.laws]
        if dps is None:
            return math.fsum(float(w) * float(v) for w, v in zip(self.weights, vals))
        return mpmath.fsum(mpmath.mpf(float(w)) * v for w, v in zip(self.weights, vals))
