r"""Rectangular R-transform of Benaych-Georges (2009) on laws of squared singular values.

Setting: n × p matrices with n/p → λ ∈ (0, 1].  A law ν on [0, ∞) is the law of the
**squared** singular values (the n eigenvalues of A Aᵀ, zeros included); Benaych-Georges
works with the symmetrised law of the singular values, μ = ½(√·)_#ν + ½(−√·)_#ν, whose even
moments are the moments of ν.  In the variable of ν:

* moment series M(z) = Σ_{q≥1} m_q(ν) z^q = ψ_ν(z) = (1/z) G_ν(1/z) − 1;
* H(z) = z (λ M(z) + 1)(M(z) + 1);
* the rectangular R-transform C(h) = Σ_{q≥1} c_q h^q is defined by C(H(z)) = M(z)
  (Benaych-Georges 2009, PTRF 144, §3: C_μ(z) = U(z/H_μ^{-1}(z) − 1) with U the inverse of
  u ↦ λu² + (λ + 1)u, which is the same relation), and linearises the rectangular free
  convolution: C_{ν₁ ⊞_λ ν₂} = C_{ν₁} + C_{ν₂}.  The c_q are the *rectangular free cumulants*.

In the spectral variable y = 1/z (g = G_ν(y)) the relation reads

    h = D(y) := g (λ y g + 1 − λ),      C(h) = y g − 1,

where D is the (squared-variable) D-transform of Benaych-Georges & Nadakuditi (2012, eq. (7)):
D_μ(x) = φ(x)(λφ(x) + (1 − λ)/x) with φ(x) = ∫ x/(x² − t²) dμ(t) = x G_ν(x²).  Inverting:
g = h/(λc + 1), y = (c + 1)(λc + 1)/h — the substitution behind the algebraic route
(:func:`rectangular_r_relation`).

Limits: at λ = 1, C(w²) = w R_μ(w) with R_μ the (odd) R-transform of the symmetrised law, so
⊞₁ is ⊞ of the symmetrised laws; at λ → 0, H(z) = z(M + 1) and C is the free-cumulant series of
ν itself, so ⊞_λ → ⊞ of the squared-singular-value laws (Benaych-Georges 2009, §3.3).
Every relation is checked in ``derivations/rectangular_transform.py``.

Functions are generic in the scalar type (``int``, ``Fraction``, sympy, float, mpmath), as in
:mod:`freeattn.transforms.cumulants`.
"""
from __future__ import annotations

import numpy as np

from .._validation import ParameterError, positive_integer

__all__ = ["rectangular_cumulants_from_moments", "moments_from_rectangular_cumulants",
           "rectangular_d_transform", "rectangular_r_transform", "check_ratio"]


def check_ratio(ratio, name="ratio"):
    """Validate λ ∈ (0, 1] (n/p of n × p matrices with n ≤ p); returns it unchanged.

    Raises
    ------
    ParameterError
        (``.param == name``) for a value outside (0, 1], NaN or a non-number.
    """
    from .._validation import finite_real

    v = finite_real(name, ratio)
    if not 0 < v <= 1:
        raise ParameterError(name, f"{name} must lie in the half-open interval (0, 1] (λ = n/p "
                                   f"of n × p matrices, n ≤ p), got {ratio!r}")
    return ratio


def _expand(v):
    e = getattr(v, "expand", None)
    return e() if callable(e) else v


def _series_mul(a, b, order):
    """Product of two series given by coefficient lists a[0..], b[0..] up to z^order."""
    out = [0 * a[0]] * (order + 1)
    for i, ai in enumerate(a[:order + 1]):
        if ai == 0:
            continue
        for j, bj in enumerate(b[:order + 1 - i]):
            out[i + j] = out[i + j] + ai * bj
    return [_expand(v) for v in out]


def _h_series(m, ratio, order):
    """Coefficients [0, h_1, …, h_order] of H(z) = z(λM + 1)(M + 1) from m = [m_1, …]."""
    one = 1 + 0 * m[0]
    M = [0 * one] + list(m[:order])
    M += [0 * one] * (order + 1 - len(M))
    A = [one + ratio * M[0]] + [ratio * v for v in M[1:]]
    B = [one + M[0]] + M[1:]
    AB = _series_mul(A, B, order - 1)
    return [0 * one] + AB[:order]


def rectangular_cumulants_from_moments(moments, ratio):
    """Rectangular free cumulants c_1..c_N of a law of squared singular values.

    Parameters
    ----------
    moments : sequence [m_1, …, m_N]
        Moments of ν (the law of the squared singular values of n × p matrices).
    ratio : number in (0, 1] (λ = n/p), or a sympy symbol
        λ = 0 is accepted as a limit (then the c_q are the free cumulants of ν).

    Returns
    -------
    list [c_1, …, c_N]
        Coefficients of C(h) = Σ c_q h^q with C(H(z)) = M(z), H(z) = z(λM + 1)(M + 1)
        (Benaych-Georges 2009, PTRF, §3).  c_1 = m_1; c_2 = m_2 − (1 + λ) m_1².

    Examples
    --------
    >>> from fractions import Fraction
    >>> rectangular_cumulants_from_moments([1, Fraction(3, 2)], Fraction(1, 2))  # MP_{1/2}
    [1, Fraction(0, 1)]
    """
    m = list(moments)
    N = len(m)
    if N == 0:
        return []
    H = _h_series(m, ratio, N)
    c = []
    Hk = [[1 + 0 * m[0]] + [0 * m[0]] * N]  # H^0
    for k in range(1, N + 1):
        Hk.append(_series_mul(Hk[-1], H, N))
    for n in range(1, N + 1):
        # m_n = Σ_{k=1}^{n} c_k [z^n] H^k, and [z^n] H^n = 1 (H = z + …)
        s = m[n - 1]
        for k in range(1, n):
            s = s - c[k - 1] * Hk[k][n]
        c.append(_expand(s))
    return c


def moments_from_rectangular_cumulants(cumulants, ratio):
    """Moments m_1..m_N from rectangular free cumulants: the inverse of
    :func:`rectangular_cumulants_from_moments` (M = C(z(λM + 1)(M + 1)) solved order by
    order).

    Examples
    --------
    >>> from fractions import Fraction
    >>> moments_from_rectangular_cumulants([1, 0, 0], Fraction(1, 2))   # MP_{1/2}: 1, 1 + λ, …
    [Fraction(1, 1), Fraction(3, 2), Fraction(11, 4)]
    """
    c = list(cumulants)
    N = len(c)
    m = []
    for n in range(1, N + 1):
        # [z^n] of Σ_k c_k H^k with H built from the moments known so far (m_n enters only
        # through the k = 1 term as c_1·0: H's z^n coefficient needs m_{n-1} at most)
        trial = m + [0 * (c[0] + 0)]
        H = _h_series(trial, ratio, n)
        Hk = [1 + 0 * c[0]] + [0 * c[0]] * n
        total = 0 * c[0]
        for k in range(1, n + 1):
            Hk = _series_mul(Hk, H, n)
            total = total + c[k - 1] * Hk[n]
        m.append(_expand(total))
    return m


def rectangular_d_transform(law, y, ratio):
    """D(y) = G(y)(λ y G(y) + 1 − λ) of a law ν of squared singular values (float64).

    This is H(1/y), and Benaych-Georges & Nadakuditi's (2012, eq. (7)) D-transform at x = √y:
    D_μ(x) = φ(x)(λφ(x) + (1 − λ)/x), φ(x) = x G_ν(x²).

    Parameters
    ----------
    law : Law on [0, ∞)
    y : complex or array_like of complex (real y: the limit from the upper half-plane)
    ratio : float in (0, 1]

    Returns
    -------
    complex ndarray, shape of ``y``
    """
    check_ratio(ratio)
    y = np.asarray(y, dtype=complex)
    g = np.asarray(law.cauchy_transform(y), dtype=complex)
    return g * (ratio * y * g + 1 - ratio)


def rectangular_r_transform(law, h, ratio, max_iter=60):
    """Rectangular R-transform C(h) of ν (float64), on the branch C(h) = m_1 h + O(h²).

    Solves D(y) = h for y on the branch y ~ 1/h (Newton from y = 1/h + (1 + λ) m_1, with
    G′ from the law), then C = y G(y) − 1.  Valid for |h| small enough that the branch is
    defined (h = D(y) with y outside the support of ν).

    Parameters
    ----------
    law : Law on [0, ∞)
    h : complex or array_like, h ≠ 0
    ratio : float in (0, 1]

    Returns
    -------
    complex ndarray, shape of ``h``

    Raises
    ------
    ArithmeticError
        If Newton does not converge (h outside the domain of the branch).
    """
    check_ratio(ratio)
    positive_integer("max_iter", max_iter)
    h = np.asarray(h, dtype=complex)
    lam = float(ratio)
    m1 = float(law.mean())
    y = 1 / h + (1 + lam) * m1
    for _ in range(max_iter):
        g = np.asarray(law.cauchy_transform(y), dtype=complex)
        dg = np.asarray(law.cauchy_transform_derivative(y), dtype=complex)
        f = g * (lam * y * g + 1 - lam) - h
        df = dg * (2 * lam * y * g + 1 - lam) + lam * g * g
        step = f / df
        y = y - step
        if np.all(np.abs(step) <= 1e-15 * np.abs(y)):
            break
    else:
        raise ArithmeticError("rectangular_r_transform: Newton did not converge; |h| too large")
    g = np.asarray(law.cauchy_transform(y), dtype=complex)
    return y * g - 1
