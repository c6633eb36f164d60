"""The one interface every probability law on the real line implements.

Conventions (stated once here, inherited by every law):

* Cauchy transform G_μ(z) = ∫ dμ(x)/(z − x), so G(z) ~ 1/z at infinity and Im G(z) < 0 for
  Im z > 0.  The density is ρ(x) = −(1/π) lim_{ε↓0} Im G(x + iε); the limit is taken
  exactly (roots of an algebraic equation on the real axis), never at a fixed ε.
* Total mass is 1 *including atoms*; ``cdf`` is right-continuous and includes atoms.
* ``dps=None`` → vectorised float64 (numpy arrays in, numpy arrays out, same shape);
  ``dps=int`` → mpmath numbers at that many significant digits (scalar in → mpf/mpc out,
  array in → numpy object array out).  The global mpmath precision is never changed.
"""
from __future__ import annotations

import numpy as np

from .._validation import dps_or_none, integer_at_least

__all__ = ["Law"]


class Law:
    """Abstract probability law on the real line (see module docstring for conventions).

    Concrete laws implement the private hooks ``_pdf_float``, ``_pdf_mp``, ``_cdf_float``,
    ``_cdf_mp``, ``_cauchy_float``, ``_cauchy_mp``, ``_support``, ``_atoms`` and
    ``exact_moments``.
    """

    #: short human-readable name, set by subclasses
    name = "law"

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _apply(x, dps, fl, mp_fn, dtype=float, name="x"):
        """Dispatch a pointwise evaluation to the float64 or the mpmath route; the one place
        that refuses NaN arguments."""
        dps = dps_or_none(dps)
        if dps is None:
            arr = np.asarray(x, dtype=dtype)
            if np.any(np.isnan(arr)):
                raise ValueError(f"{name} must not contain NaN")
            out = fl(arr.reshape(-1)).reshape(arr.shape)
            return out[()] if out.ndim == 0 else out
        if np.ndim(x) == 0:
            return mp_fn(x, dps)
        arr = np.asarray(x, dtype=object)
        flat = [mp_fn(v, dps) for v in arr.reshape(-1)]
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        return out.reshape(arr.shape)

    # --------------------------------------------------------------- interface
    def pdf(self, x, dps=None):
        """Density of the absolutely continuous part.

        Parameters
        ----------
        x : float or array_like of float, any shape
            Points on the real line.
        dps : int, optional
            ``None`` (default): float64, vectorised.  An integer: mpmath at that many digits.

        Returns
        -------
        float or ndarray
            ρ(x) = −(1/π) lim_{ε↓0} Im G(x + iε), same shape as ``x``; exactly 0 outside the
            support; ``inf`` at a hard edge where the density diverges.  Atoms are not
            included (see :meth:`atoms`).
        """
        return self._apply(x, dps, self._pdf_float, self._pdf_mp)

    def cdf(self, x, dps=None):
        """Cumulative distribution function μ((−∞, x]), atoms included (right-continuous).

        Parameters and return shape as in :meth:`pdf`; values in [0, 1].
        """
        return self._apply(x, dps, self._cdf_float, self._cdf_mp)

    def ppf(self, q):
        """Quantile function: the smallest x with cdf(x) ≥ q (float64 only).

        Parameters
        ----------
        q : float or array_like of float in [0, 1]

        Raises
        ------
        ValueError
            If some q lies outside [0, 1] or is NaN.
        """
        arr = np.asarray(q, dtype=float)
        if np.any(~((arr >= 0) & (arr <= 1))):
            raise ValueError("q must lie in the closed interval [0, 1]")
        out = self._ppf_float(arr.reshape(-1)).reshape(arr.shape)
        return out[()] if out.ndim == 0 else out

    def cauchy_transform(self, z, dps=None):
        """Cauchy transform G(z) = ∫ dμ(x)/(z − x) (G ~ 1/z, Im G < 0 on Im z > 0).

        Parameters
        ----------
        z : complex or array_like of complex, any shape
            Evaluation points.  On the real axis inside the support the value is the limit
            from the upper half-plane, G(x + i0); G(z̄) = conj G(z).
        dps : int, optional
            As in :meth:`pdf`.

        Returns
        -------
        complex or ndarray of complex
        """
        return self._apply(z, dps, self._cauchy_float, self._cauchy_mp, dtype=complex, name="z")

    def moment(self, k, dps=None):
        """k-th moment m_k = ∫ x^k dμ(x) (atoms included), k ≥ 0.

        Exact (from the law's transform, see :meth:`exact_moments`) then evaluated in
        float64 or at ``dps`` digits.

        Raises
        ------
        ValueError
            If k is not an integer ≥ 0.
        """
        k = integer_at_least("k", k, 0)
        if k == 0:
            return 1.0 if dps is None else self._mp_number(1, dps)
        value = self.exact_moments(k)[k - 1]
        return self._mp_number(value, dps)

    def mean(self, dps=None):
        """First moment m₁."""
        return self.moment(1, dps)

    def var(self, dps=None):
        """Variance m₂ − m₁²."""
        return self.moment(2, dps) - self.moment(1, dps) ** 2

    def support(self, dps=None):
        """Support of the absolutely continuous part: a list of closed intervals (a, b).

        Endpoints are exact edges (roots of the discriminant, refined at high precision),
        returned as floats or, with ``dps``, as mpf.  Atoms are listed by :meth:`atoms`.
        """
        return self._support(dps_or_none(dps))

    def atoms(self, dps=None):
        """Atoms as a list of ``(location, mass)`` with mass > 0, sorted by location."""
        return self._atoms(dps_or_none(dps))

    def exact_moments(self, order):
        """First ``order`` moments m₁..m_order as exact sympy expressions."""
        raise NotImplementedError

    def free_cumulants(self, order):
        """First ``order`` free cumulants κ₁..κ_order as exact sympy expressions.

        Computed from :meth:`exact_moments` by the moment–cumulant relation over non-crossing
        partitions (Nica & Speicher 2006, Lecture 11).
        """
        from ..transforms.cumulants import free_cumulants_from_moments

        return list(free_cumulants_from_moments(self.exact_moments(order)))

    def r_transform(self, g, dps=None):
        """R-transform R(g) (G(R(g) + 1/g) = g, R(0) = m₁); see
        :func:`freeattn.transforms.r_transform`."""
        from ..transforms.evaluate import r_transform

        return r_transform(self, g, dps)

    def s_transform(self, w, dps=None):
        """S-transform S(w) = (1 + w)/w · ψ^{-1}(w), S(0) = 1/m₁; see
        :func:`freeattn.transforms.s_transform`."""
        from ..transforms.evaluate import s_transform

        return s_transform(self, w, dps)

    # ------------------------------------------------------------ utilities
    @staticmethod
    def _mp_number(value, dps):

        from .._context import to_mp, workdps

        if dps is None:
            return float(value)
        with workdps(dps):
            v = to_mp(value)
        return v

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"
