"""The uncentered attention concatenation A = [A_1, …, A_h]: its outlier, bulk and norms.

Hayase & Karakida 2026 (arXiv 2610.10033), Corollary C.3, eqs. (C.13)–(C.14), and the
finite-size row-normalizer identity of Proposition B.9.

Row stochasticity (A_r 1 = 1) splits A exactly into a rank-one common mode and the centred
part, A = sqrt(h) u_n w_hᵀ + A^⊥ with u_n = 1/sqrt(n), w_h = h^{-1/2}(u_n; …; u_n) and
A^⊥ w_h = 0, hence (C.13)

    A Aᵀ = h P + A^⊥ A^⊥ᵀ,        ‖A‖_F² = h + ‖A^⊥‖_F²        (P = 1 1ᵀ/n),

and, with ‖A^⊥‖ ≤ n^{-1/2+o(1)} (Lemma B.8), the limits of Corollary C.3 and (C.14):
s₁(A)/sqrt(h) → 1, s₂(A) → 0, |u_nᵀ x₁|² → 1 (x₁ the top left singular vector),
‖A‖_F²/h → e^{β²} and the stable rank ‖A‖_F²/s₁(A)² → e^{β²}; the bulk of sqrt(n/h) A has
the same weak limit ν_{∞,h} as that of sqrt(n/h) A^⊥ (the rank-one part moves one
eigenvalue).  The finite-size inequalities behind these limits hold for every sample:

    h ≤ s₁(A)² ≤ h + ‖A^⊥‖²,   s₂(A) ≤ ‖A^⊥‖,   1 − |u_nᵀ x₁|² ≤ ‖A^⊥‖²/h.

:func:`uncentered_statistics` measures all of them on a sampled A;
:func:`uncentered_limits` gives the limits; :func:`normalizer_moments` the exact finite-size
moments of a row normalizer D_{r,ii} = (1/n) Σ_j e^{β S_ij − β²/2} (Proposition B.9).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import mpmath
import numpy as np

from .._context import round_back, workdps
from .._validation import Param, ParameterError, declare, dps_or_none
from .config import BETA_MODEL_RANGE
from .single_head import attention_law, theta1

__all__ = ["UncenteredLimits", "UncenteredStatistics", "uncentered_limits",
           "uncentered_statistics", "uncentered_law", "normalizer_moments", "PARAMETERS"]

#: parameters of the uncentered quantities (β over the finite models' range, h ≥ 1)
PARAMETERS = (
    Param("beta", ("closed", *BETA_MODEL_RANGE), "β", "inverse temperature"),
    Param("heads", "positive_integer", "h", "number of heads"),
)


@dataclass(frozen=True)
class UncenteredLimits:
    """Limits of the uncentered attention statistics (Corollary C.3, (C.14)).

    Attributes
    ----------
    beta, heads : float, int
    s1_over_sqrt_h : float
        lim s₁(A)/sqrt(h) = 1.
    s2 : float
        lim s₂(A) = 0.
    alignment : float
        lim |u_nᵀ x₁|² = 1 (top left singular vector against 1/sqrt(n)).
    frobenius_per_head : float
        lim ‖A‖_F²/h = e^{β²} = 1 + θ₁.
    centred_frobenius_per_head : float
        lim ‖A^⊥‖_F²/h = θ₁ = m₁(ν_{∞,h}).
    stable_rank : float
        lim ‖A‖_F²/s₁(A)² = e^{β²}.
    """

    beta: float
    heads: int
    s1_over_sqrt_h: float
    s2: float
    alignment: float
    frobenius_per_head: float
    centred_frobenius_per_head: float
    stable_rank: float

    def to_dict(self):
        return asdict(self)


def uncentered_limits(beta, heads=1, dps=None):
    """Limits of s₁, s₂, the outlier alignment, ‖A‖_F²/h and the stable rank of A.

    Parameters
    ----------
    beta : float in ``BETA_MODEL_RANGE`` = [1e-6, 20]
        Inverse temperature β (the logits β S have variance β²).
    heads : int >= 1
        Number of heads h (the limits do not depend on it, nor on γ_K).
    dps : int, optional
        Digits: the two e^{β²} limits as mpmath numbers at this precision.

    Returns
    -------
    UncenteredLimits

    Raises
    ------
    ParameterError
        For β outside [1e-6, 20] or h not a positive integer (``.param`` names it).

    Notes
    -----
    Hayase & Karakida 2026, Corollary C.3 (s₁(A)/sqrt(h) → 1, s₂(A) → 0, alignment) and
    (C.14): ‖A‖_F²/h = 1 + ‖A^⊥‖_F²/h → 1 + θ₁ = e^{β²}, with ‖A^⊥‖_F²/h =
    m₁(ν_{sqrt(n/h) A^⊥}) → θ₁.

    Examples
    --------
    >>> lim = uncentered_limits(1.0, heads=4)
    >>> round(lim.stable_rank, 12), lim.s1_over_sqrt_h, lim.s2
    (2.718281828459, 1.0, 0.0)
    """
    p = declare(PARAMETERS, beta=beta, heads=heads)
    b = p["beta"]
    if dps is None:
        e = math.exp(b * b)
        th1 = theta1(b)
    else:
        dps = dps_or_none(dps)
        with workdps(dps):
            bb = mpmath.mpf(b) ** 2
            e, th1 = round_back((mpmath.exp(bb), mpmath.expm1(bb)), dps)
    return UncenteredLimits(beta=b, heads=p["heads"], s1_over_sqrt_h=1.0, s2=0.0,
                            alignment=1.0, frobenius_per_head=e,
                            centred_frobenius_per_head=th1, stable_rank=e)


def uncentered_law(beta, gamma_k, heads=1):
    """Weak limit of the squared singular values of sqrt(n/h) A (uncentered): ν_{∞,h}.

    The same law as for sqrt(n/h) A^⊥ (:func:`freeattn.attention.attention_law`), because
    A − A^⊥ = sqrt(h) u_n w_hᵀ has rank one (Hayase & Karakida 2026, Corollary C.3); the
    finite matrix has one outlier eigenvalue n(1 + o(1)) of mass 1/n on top of the bulk.
    Parameters and errors as for ``attention_law``.
    """
    return attention_law(beta, gamma_k, heads)


@dataclass(frozen=True)
class UncenteredStatistics:
    """Statistics of one sampled uncentered attention concatenation A (n × h n).

    Attributes
    ----------
    n, heads : int
    s1, s2 : float
        The two largest singular values of A.
    alignment : float
        |u_nᵀ x₁|², x₁ the unit top left singular vector, u_n = 1/sqrt(n).
    frobenius_sq : float
        ‖A‖_F².
    centred_norm : float
        ‖A^⊥‖ (operator norm of A − [P, …, P]).
    centred_frobenius_sq : float
        ‖A^⊥‖_F².
    gram_identity_error : float
        max |A Aᵀ − h P − A^⊥ A^⊥ᵀ| entrywise (zero up to rounding, eq. (C.13)).
    """

    n: int
    heads: int
    s1: float
    s2: float
    alignment: float
    frobenius_sq: float
    centred_norm: float
    centred_frobenius_sq: float
    gram_identity_error: float

    @property
    def s1_over_sqrt_h(self):
        return self.s1 / math.sqrt(self.heads)

    @property
    def frobenius_per_head(self):
        return self.frobenius_sq / self.heads

    @property
    def stable_rank(self):
        """‖A‖_F²/s₁(A)²."""
        return self.frobenius_sq / self.s1 ** 2

    def bounds(self):
        """The finite-size inequalities of Corollary C.3's proof, each as (value, low, high).

        s₁² in [h, h + ‖A^⊥‖²]; s₂ in [0, ‖A^⊥‖]; 1 − alignment in [0, ‖A^⊥‖²/h];
        ‖A‖_F² − h − ‖A^⊥‖_F² in [0, 0] (an identity).  They hold for every sample (up to
        rounding); the limits follow from ‖A^⊥‖ → 0.
        """
        h, c = self.heads, self.centred_norm
        return {"s1_squared": (self.s1 ** 2, float(h), h + c * c),
                "s2": (self.s2, 0.0, c),
                "misalignment": (1.0 - self.alignment, 0.0, c * c / h),
                "frobenius_identity": (self.frobenius_sq - h - self.centred_frobenius_sq,
                                       0.0, 0.0)}

    def to_dict(self):
        d = asdict(self)
        d.update(s1_over_sqrt_h=self.s1_over_sqrt_h, frobenius_per_head=self.frobenius_per_head,
                 stable_rank=self.stable_rank)
        return d


def uncentered_statistics(a, heads):
    """Measure Corollary C.3's quantities on a sampled uncentered attention concatenation.

    Parameters
    ----------
    a : ndarray of shape (n, heads * n)
        A = [A_1, …, A_h], each block row-stochastic (non-negative, rows summing to one to
        1e-9), as produced by softmax rows; n >= 2.
    heads : int >= 1

    Returns
    -------
    UncenteredStatistics

    Raises
    ------
    ParameterError
        If ``a`` is not a finite 2-d array of shape (n, heads n) with n >= 2 and
        row-stochastic blocks (``.param`` is ``'a'``), or heads is not a positive integer.

    Notes
    -----
    Hayase & Karakida 2026, Corollary C.3 and (C.13)–(C.14).  The top two eigenpairs of the
    n × n Gram A Aᵀ give s₁, s₂ and x₁; A^⊥ is formed explicitly (not through (C.13)), so
    that ``gram_identity_error`` and :meth:`UncenteredStatistics.bounds` test the identities.
    """
    import scipy.linalg

    h = declare(PARAMETERS[1:], heads=heads)["heads"]
    a = np.asarray(a)
    if a.ndim != 2 or a.dtype.kind not in "fiu":
        raise ParameterError("a", f"a must be a real 2-d array, got shape {a.shape}, "
                                  f"dtype {a.dtype}")
    n = a.shape[0]
    if n < 2 or a.shape[1] != h * n:
        raise ParameterError("a", f"a must have shape (n, heads*n) = (n, {h}n) with n >= 2, "
                                  f"got {a.shape}")
    a = a.astype(float, copy=False)
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ParameterError("a", "a must be finite and non-negative (softmax rows)")
    sums = a.reshape(n, h, n).sum(axis=2)
    if np.max(np.abs(sums - 1.0)) > 1e-9:
        raise ParameterError("a", f"every block of a must be row-stochastic (rows summing to "
                                  f"one); largest deviation {np.max(np.abs(sums - 1.0)):.3g}")
    gram = a @ a.T
    w, x = scipy.linalg.eigh(gram, subset_by_index=[n - 2, n - 1])
    s1, s2 = math.sqrt(max(w[1], 0.0)), math.sqrt(max(w[0], 0.0))
    x1 = x[:, 1]
    alignment = float(x1.sum() ** 2 / n)
    perp = a - 1.0 / n
    gram_perp = perp @ perp.T
    c2 = scipy.linalg.eigh(gram_perp, eigvals_only=True, subset_by_index=[n - 1, n - 1])[0]
    ident = float(np.max(np.abs(gram - h / n - gram_perp)))
    return UncenteredStatistics(n=n, heads=h, s1=s1, s2=s2, alignment=alignment,
                                frobenius_sq=float(np.sum(a * a)),
                                centred_norm=math.sqrt(max(c2, 0.0)),
                                centred_frobenius_sq=float(np.sum(perp * perp)),
                                gram_identity_error=ident)


_NORMALIZER_PARAMS = (
    Param("beta", ("closed", *BETA_MODEL_RANGE), "β", "inverse temperature"),
    Param("n", "positive_integer", "n", "context length"),
    Param("d_k", "positive_integer", "d_K", "query/key width per head"),
)


def normalizer_moments(beta, n, d_k, dps=None):
    """Exact finite-size mean, second moment and variance of a row normalizer D_{r,ii}.

    D_{r,ii} = (1/n) Σ_j e^{β S_{r,ij} − β²/2} = Z_{r,i}/(n e^{β²/2}) (eq. (4.2)), with
    S = Q Kᵀ/sqrt(d_K) for i.i.d. N(0, 1) queries and keys.

    Parameters
    ----------
    beta : float in [1e-6, 20]
    n : int >= 1
        Number of keys per row.
    d_k : int with d_k > 4 β²
        Query/key width (the moments are infinite for d_k <= 4β²).
    dps : int, optional
        Return mpmath numbers at this many digits (float64 otherwise).

    Returns
    -------
    (mean, second_moment, variance) : tuple of floats (or mpf)
        E D = e^{−β²/2}(1 − β²/d_K)^{−d_K/2},
        E D² = e^{−β²}[(1 − 1/n)(1 − 2β²/d_K)^{−d_K/2} + (1/n)(1 − 4β²/d_K)^{−d_K/2}],
        Var D = E D² − (E D)² = (e^{β²} − 1)/n + β⁴/(2 d_K) + O(d_K^{−2} + (n d_K)^{−1}).

    Raises
    ------
    ParameterError
        For β, n or d_k outside their domains, or d_k <= 4β² (``.param`` ``'d_k'``).

    Notes
    -----
    Hayase & Karakida 2026, Proposition B.9: condition on the query row, v = ‖q‖²/d_K; the
    scores are then i.i.d. N(0, v), and E e^{t v} = (1 − 2t/d_K)^{−d_K/2}.

    Examples
    --------
    >>> m, m2, var = normalizer_moments(1.0, 1000, 1000)
    >>> round(m, 6), round(var * 1000, 4)
    (1.00025, 2.2296)
    """
    p = declare(_NORMALIZER_PARAMS, beta=beta, n=n, d_k=d_k)
    b, n, dk = p["beta"], p["n"], p["d_k"]
    if dk <= 4 * b * b:
        raise ParameterError("d_k", f"d_k must exceed 4 beta^2 = {4 * b * b:.6g} for finite "
                                    f"normalizer moments, got {dk}")
    if dps is None:
        b2 = b * b
        mgf = lambda t: math.exp(-0.5 * dk * math.log1p(-t * b2 / dk))  # noqa: E731
        mean = math.exp(-b2 / 2) * mgf(1)
        second = math.exp(-b2) * ((1 - 1 / n) * mgf(2) + mgf(4) / n)
        # E D² − (E D)² loses ~log10(1/Var) digits: ~13 correct digits for Var ≳ 1e-3
        return mean, second, second - mean * mean
    dps = dps_or_none(dps)
    with workdps(dps):  # guard digits cover the cancellation in Var (~log10(1/Var) digits)
        with mpmath.extradps(int(-mpmath.log10(max(b * b / n, 1e-300))) + 5):
            b2 = mpmath.mpf(b) ** 2
            mgf = lambda t: (1 - t * b2 / dk) ** (-mpmath.mpf(dk) / 2)  # noqa: E731
            mean = mpmath.exp(-b2 / 2) * mgf(1)
            second = mpmath.exp(-b2) * ((1 - mpmath.mpf(1) / n) * mgf(2) + mgf(4) / n)
            var = second - mean ** 2
        return round_back((mean, second, var), dps)
