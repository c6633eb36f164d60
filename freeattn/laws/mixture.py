"""Mixtures Σ_i w_i μ_i of laws (classical mixtures, not free convolutions)."""
from __future__ import annotations

import math

import mpmath
import numpy as np

from .._context import round_back, to_mp, workdps
from .._validation import ParameterError, probability_vector
from .base import Law

__all__ = ["Mixture"]


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

    def __init__(self, laws, weights=None):
        laws = list(laws)
        if not laws:
            raise ParameterError("laws", "laws must hold at least one law")
        for law in laws:
            if not isinstance(law, Law):
                raise ParameterError("laws", f"laws must be Law instances, got {type(law).__name__}")
        w = np.full(len(laws), 1.0 / len(laws)) if weights is None else \
            probability_vector("weights", weights, len(laws))
        keep = w > 0
        self.laws = tuple(law for law, k in zip(laws, keep) if k)
        self.weights = w[keep]
        self.name = " + ".join(f"{wi:g}·{law.name}" for law, wi in zip(self.laws, self.weights))

    def _key(self):
        return (Mixture, self.laws, self.weights.tobytes())

    def _sum(self, fn, x):
        return sum(w * np.asarray(fn(law, x)) for law, w in zip(self.laws, self.weights))

    def _sum_mp(self, fn, x, dps):
        with workdps(dps):
            val = mpmath.fsum(mpmath.mpf(float(w)) * fn(law, x) for law, w in zip(self.laws, self.weights))
        return round_back(val, dps)

    def _cauchy_float(self, z):
        return self._sum(lambda law, v: law._G(v), np.asarray(z, dtype=complex))

    def _cauchy_derivative_float(self, z):
        return self._sum(lambda law, v: law._cauchy_derivative_float(v), np.asarray(z, dtype=complex))

    def _cauchy_mp(self, z, dps):
        return self._sum_mp(lambda law, v: law._cauchy_mp(v, dps + 5), to_mp(z), dps)

    def _cauchy_derivative_mp(self, z, dps):
        return self._sum_mp(lambda law, v: law._cauchy_derivative_mp(v, dps + 5), to_mp(z), dps)

    def _pdf_float(self, x):
        return self._sum(lambda law, v: law._pdf_float(v), np.asarray(x, dtype=float))

    def _pdf_mp(self, x, dps):
        return self._sum_mp(lambda law, v: law._pdf_mp(v, dps + 5), to_mp(x), dps)

    def _cdf_float(self, x):
        return np.clip(self._sum(lambda law, v: law._cdf_float(v), np.asarray(x, dtype=float)), 0.0, 1.0)

    def _sf_float(self, x):
        return np.clip(self._sum(lambda law, v: law._sf_float(v), np.asarray(x, dtype=float)), 0.0, 1.0)

    def _cdf_mp(self, x, dps):
        return self._sum_mp(lambda law, v: law._cdf_mp(v, dps + 5), to_mp(x), dps)

    def _sf_mp(self, x, dps):
        return self._sum_mp(lambda law, v: law._sf_mp(v, dps + 5), to_mp(x), dps)

    def _support(self, dps):
        ivs = sorted(iv for law in self.laws for iv in law.support(dps))
        merged = []
        for a, b in ivs:
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        return merged

    def _atoms(self, dps):
        merged = {}
        for law, w in zip(self.laws, self.weights):
            for loc, m in law.atoms(dps):
                if dps is None:
                    merged[loc] = merged.get(loc, 0.0) + float(w) * m
                else:
                    with workdps(dps):
                        merged[loc] = merged.get(loc, mpmath.mpf(0)) + mpmath.mpf(float(w)) * m
        out = sorted(merged.items(), key=lambda p: p[0])
        return out if dps is None else round_back(out, dps)

    def moment(self, k, dps=None, method=None):
        method = self._check_method(method, ("exact", "quad"))
        if method == "quad":
            return Law.moment(self, k, dps=dps, method="quad")
        vals = [law.moment(k, dps=dps, method=method) for law in self.laws]
        if dps is None:
            return math.fsum(float(w) * float(v) for w, v in zip(self.weights, vals))
        with workdps(dps):
            val = mpmath.fsum(mpmath.mpf(float(w)) * v for w, v in zip(self.weights, vals))
        return round_back(val, dps)
