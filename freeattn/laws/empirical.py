"""Empirical spectral laws: the discrete law of observed eigenvalues (or any samples)."""
from __future__ import annotations

import math

import mpmath
import numpy as np

from .._context import mp_route
from .._validation import Param, positive
from .discrete import Discrete

#: bandwidth of a degenerate sample (all values equal), relative to 1 + |λ|
_DEGENERATE_BANDWIDTH = 1e-3

__all__ = ["Empirical"]


class Empirical(Discrete):
    """Empirical law (1/n) Σ_i δ_{λ_i} of samples λ₁..λ_n (e.g. the eigenvalues of a trained
    model's Σ_VO).

    As a law it is exactly the discrete law of the samples: G(z) = (1/n) Σ_i 1/(z − λ_i), atoms
    of mass (multiplicity)/n, no density (``pdf`` is 0).  For a picture of a density use
    :meth:`smoothed_pdf`, which is a *smoothing*, not a limit.

    Parameters
    ----------
    samples : array_like of float, shape (n,)
        Finite real samples, n ≥ 1.
    bandwidth : float > 0, optional
        Default half-width η of :meth:`smoothed_pdf`; ``None``: Silverman's rule of thumb
        η = 0.9 min(σ̂, IQR/1.34) n^{-1/5} (Silverman 1986, eq. (3.31)).

    Raises
    ------
    ParameterError
        For empty or non-finite samples, or a non-positive bandwidth.

    Examples
    --------
    >>> law = Empirical([1.0, 2.0, 2.0, 5.0])
    >>> law.atoms()
    [(1.0, 0.25), (2.0, 0.5), (5.0, 0.25)]
    >>> law.mean()
    2.5
    """

    parameters = (Param("samples", "real_vector", "λ_i", "observed eigenvalues"),
                  Param("bandwidth", "positive", "η", "half-width of smoothed_pdf", optional=True))

    def __init__(self, samples, bandwidth=None):
        x = np.sort(self.parameters[0].validate(samples))
        self.samples = x
        self.n = x.size
        bandwidth = self.parameters[1].validate(bandwidth)
        self.bandwidth = None if bandwidth is None else float(bandwidth)
        uniq, counts = np.unique(x, return_counts=True)
        super().__init__(uniq, counts / x.size)
        self.name = f"Empirical(n={x.size})"

    def _key(self):
        return (Empirical, self.samples.tobytes(), self.bandwidth)

    def default_bandwidth(self):
        """Silverman's rule η = 0.9 min(σ̂, IQR/1.34) n^{-1/5} (or the declared bandwidth);
        a degenerate sample (all equal) gets 1e-3 (1 + |λ|)."""
        if self.bandwidth is not None:
            return self.bandwidth
        sd = float(np.std(self.samples, ddof=1)) if self.n > 1 else 0.0
        q75, q25 = np.percentile(self.samples, [75, 25])
        spread = min(sd, (q75 - q25) / 1.34) or sd
        if spread <= 0:
            return _DEGENERATE_BANDWIDTH * (1 + abs(float(self.samples[0])))
        return 0.9 * spread * self.n ** -0.2

    def smoothed_pdf(self, x, bandwidth=None, dps=None):
        """Density of μ ∗ Cauchy(η): −Im G(x + iη)/π = (1/n) Σ_i η/(π((x − λ_i)² + η²)).

        A smoothing at the fixed half-width η (the Poisson kernel of the upper half-plane), for
        plots and comparisons only; it integrates to 1 for every η.

        Parameters
        ----------
        x : float or array_like of float, any shape
        bandwidth : float > 0, optional
            η; default :meth:`default_bandwidth`.
        dps : int, optional
            None: float64; an integer: mpmath at that precision (η's binary value).

        Returns
        -------
        float or ndarray, shape of ``x`` (dtype object of mpf at ``dps``)

        Raises
        ------
        ParameterError
            For NaN or infinite ``x``, a non-positive ``bandwidth`` or a bad ``dps``.
        """
        eta = self.default_bandwidth() if bandwidth is None else float(positive("bandwidth", bandwidth))

        def fl(flat):
            return np.maximum(-self._cauchy_float(flat + 1j * eta).imag / math.pi, 0.0)

        return self._apply(x, dps, fl, lambda v, d: self._smoothed_mp(v, d, eta), name="x")

    @mp_route
    def _smoothed_mp(self, x, dps, eta):
        eta = mpmath.mpf(eta)
        return mpmath.fsum(w * eta / ((x - a) ** 2 + eta**2)
                           for a, w in zip(self._points_mp(), self._weights_mp())) / mpmath.pi
