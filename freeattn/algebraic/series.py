"""Moments of an algebraic law by a numeric power-series recursion on P(G, z) = 0.

With z = 1/u and G = u M(u), M(u) = 1 + Σ_{k≥1} m_k u^k is the moment series of the branch
G ~ 1/z (Rao & Edelman 2008, §4).  Substituting into P(G, z) = Σ_{k,j} c_kj G^k z^j and
multiplying by u^{deg_z} gives Q(M, u) = Σ_{k,j} c_kj M^k u^{k − j + deg_z}.  The coefficient
of u^{s₀ + n} of Q(M(u), u) (s₀ the lowest power of u in Q) is linear in m_n with the
coefficient Σ_{k: k − j + deg_z = s₀} k c_kj, so m_1, m_2, … follow one at a time from the
truncated powers M^k.  Cost O(deg_G · N²) multiplications for N moments, in any number type
(floats, mpmath numbers at any precision, exact fractions): the first 50 moments take
milliseconds where the exact sympy expansion (:func:`freeattn.algebraic.polynomial.series_moments`)
takes minutes.
"""
from __future__ import annotations

__all__ = ["series_moments_numeric"]


def series_moments_numeric(coefficients, order):
    """First ``order`` moments m_1..m_order of the branch G ~ 1/z of P(G, z) = 0.

    Parameters
    ----------
    coefficients : sequence of sequences
        ``coefficients[k][j]`` is the coefficient of G^k z^j in P (numbers of one type:
        float, mpmath mpf at the working precision, or fractions.Fraction for exact values).
    order : int ≥ 0

    Returns
    -------
    list
        [m_1, …, m_order] in the number type of the coefficients.

    Raises
    ------
    ValueError
        If G = 1/z + O(z^-2) is not a simple root of P at infinity (the recursion is not
        solvable: P does not describe a probability law with this branch).
    """
    c = coefficients
    deg = len(c) - 1
    degz = len(c[0]) - 1
    zero = c[0][0] * 0
    one = zero + 1
    terms = [(k, k - j + degz, c[k][j]) for k in range(deg + 1) for j in range(degz + 1)
             if c[k][j] != 0]
    if not terms:
        raise ValueError("P vanishes identically")
    s0 = min(s for _, s, _ in terms)
    lead = sum((cv for k, s, cv in terms if s == s0), zero)
    dq = sum((k * cv for k, s, cv in terms if s == s0), zero)
    scale = max(abs(cv) for _, _, cv in terms)
    if abs(lead) > 1e-8 * scale or dq == 0:
        raise ValueError("G ~ 1/z is not a simple root of P at infinity")
    m = [one]
    # powers[k][n] = coefficient of u^n in M(u)^k, k = 0..deg
    powers = [[one] for _ in range(deg + 1)]
    for k in range(1, deg + 1):
        powers[k] = [one]
    powers[0] = [one]
    for n in range(1, order + 1):
        # extend M^k to order n with m_n = 0 (the unknown enters linearly)
        m.append(zero)
        for k in range(1, deg + 1):
            prev = powers[k - 1]
            acc = zero
            for a in range(n + 1):
                if a < len(m) and n - a < len(prev):
                    acc += m[a] * prev[n - a]
            powers[k].append(acc)
        powers[0].append(zero)
        total = zero
        for k, s, cv in terms:
            idx = s0 + n - s
            if 0 <= idx <= n:
                total += cv * powers[k][idx]
        mn = -total / dq
        m[n] = mn
        # add the m_n contribution to the order-n coefficients of M^k: d(M^k)_n = k m_n
        for k in range(1, deg + 1):
            powers[k][n] += k * mn
    return m[1:]
