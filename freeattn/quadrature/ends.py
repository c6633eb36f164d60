"""Rules at the end of a support interval, in the distance coordinate u from that end.

On a θ-panel [0, u₁] touching an end where the density diverges like δ^{−α} (a hard edge,
δ ∝ u²), the θ-integrand behaves like u^{1−2α}·h(u^{2/q}) (α = p/q) and plain Gauss–Legendre
converges slowly; with u = u₁·s^m it becomes analytic in s for every q dividing 2m, and bounded
for every α < 1.  ``m = 1`` is plain Gauss–Legendre (square-root edges: the θ-integrand is
analytic there).  The coordinate u is θ at the left end a and φ = π − θ at the right end b, so
that points next to either end keep the relative accuracy of their distance to it.

- :func:`end_rule`: the rule, vectorised over panels (float64);
- :func:`end_zone`: the zone [0, w] at a hard end, halved toward the end until the rule agrees
  with the sum over its halves (float64);
- :func:`theta_integral_mp`: ∫ f dθ at the working mpmath precision, pieces of a coarse grid
  bisected until mpmath's error estimate meets the tolerance, the pieces touching a hard end in
  s as above.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

from .theta import gauss_legendre

__all__ = ["end_rule", "end_zone", "theta_integral_mp", "COARSE_BREAKS", "MP_QUAD_DEPTH"]

#: break points of the mpmath θ-quadrature (smooth pieces in θ)
COARSE_BREAKS = tuple(math.pi * k / 8 for k in range(1, 8))
#: bisection depth of the mpmath θ-quadrature pieces
MP_QUAD_DEPTH = 12
#: Gauss–Legendre degree of mpmath.quad on each piece (3·2^maxdegree nodes)
MP_QUAD_MAXDEGREE = 4


def end_rule(f, lo, hi, m, nodes):
    """∫_lo^hi f(u) du by ``nodes``-point Gauss–Legendre, vectorised over arrays ``lo``, ``hi``
    (the panels).  Panels with lo == 0 and ``m`` > 1 are integrated in s with u = hi·s^m:
    ∫_0^hi f(u) du = ∫_0^1 f(hi·s^m)·m·hi·s^{m−1} ds.

    Parameters
    ----------
    f : callable, 1-D ndarray of u → ndarray of the same shape (one vectorised call)
    lo, hi : array_like of float, same shape (m,)
    m : int ≥ 1
    nodes : int

    Returns
    -------
    ndarray (m,)
    """
    lo, hi = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float))
    lo, hi = lo.reshape(-1), hi.reshape(-1)
    x, w = gauss_legendre(nodes)
    width = (hi - lo)[:, None]
    u = 0.5 * (hi + lo)[:, None] + 0.5 * width * x
    wt = 0.5 * width * w
    at_end = (lo == 0.0) & (m > 1)
    if np.any(at_end):
        s = 0.5 * (x + 1.0)
        u[at_end] = width[at_end] * s**m
        wt[at_end] = width[at_end] * (0.5 * m) * w * s ** (m - 1)
    if u.size == 0:
        return np.zeros(0)
    vals = np.asarray(f(u.reshape(-1)), dtype=float).reshape(u.shape)
    return np.sum(vals * wt, axis=1)


def end_zone(f, m, width, nodes, atol, rtol, max_levels):
    """Panels and masses of the zone [0, ``width``] at an end: the panel touching the end by
    :func:`end_rule` (power ``m``), halved (the outer half kept, by plain Gauss–Legendre: the
    singularity lies one panel width away) until the rule agrees with the sum over its halves
    to max(atol, rtol·|I|), at most ``max_levels`` times.

    Returns
    -------
    (edges, masses) : ndarray (k + 1,) increasing from 0.0 to ``width``, ndarray (k,)
    """
    w = width
    outer_edges, outer_mass = [], []
    inner = 0.0
    for level in range(max_levels):
        whole, inner, outer = end_rule(f, np.array([0.0, 0.0, 0.5 * w]),
                                       np.array([w, 0.5 * w, w]), m, nodes)
        done = abs(whole - (inner + outer)) <= max(atol, rtol * abs(whole))
        outer_edges.append(0.5 * w)
        outer_mass.append(outer)
        if done or level == max_levels - 1:
            break
        w *= 0.5
    edges = np.array([0.0] + outer_edges[::-1] + [width])
    return edges, np.array([inner] + outer_mass[::-1])


def theta_integral_mp(f, lo, hi, tol, m_lo=1, m_hi=1, breaks=COARSE_BREAKS, depth=MP_QUAD_DEPTH):
    """∫_lo^hi f(θ) dθ at the working mpmath precision, 0 ≤ lo ≤ hi ≤ π.

    Gauss–Legendre (``mpmath.quad``) on the pieces of ``breaks`` inside [lo, hi], each bisected
    (at most ``depth`` times) until mpmath's error estimate is ≤ ``tol``; a piece [0, h] with
    ``m_lo`` > 1 is integrated in s with θ = h·s^m, a piece [h, π] with ``m_hi`` > 1 with
    θ = π − (π − h)·s^m, where ``f(θ, φ)`` is called with φ = π − θ formed exactly (points next
    to the right end keep the relative accuracy of their distance to it).

    Parameters
    ----------
    f : callable f(θ, phi=None) → mpf
    lo, hi : mpf
    tol : mpf, absolute tolerance per piece
    """
    def quad(g, u, v):
        return mpmath.quad(g, [u, v], method="gauss-legendre", error=True,
                           maxdegree=MP_QUAD_MAXDEGREE)

    def piece(g, u, v, level):
        val, err = quad(g, u, v)
        if err <= tol or level >= depth:
            return val
        c = (u + v) / 2
        return piece(g, u, c, level + 1) + piece(g, c, v, level + 1)

    def end_piece(u, v, m, at_lo):
        w = v - u

        def fs(s):
            if at_lo:
                return f(u + w * s**m) * m * w * s ** (m - 1)
            phi = (mpmath.pi - v) + w * s**m
            return f(v - w * s**m, phi) * m * w * s ** (m - 1)

        return piece(fs, mpmath.mpf(0), mpmath.mpf(1), 0)

    grid = [lo] + [mpmath.mpf(v) for v in breaks if lo < v < hi] + [hi]
    parts = []
    for u, v in zip(grid[:-1], grid[1:]):
        if u == 0 and m_lo > 1:
            parts.append(end_piece(u, v, m_lo, True))
        elif v == mpmath.pi and m_hi > 1:
            parts.append(end_piece(u, v, m_hi, False))
        else:
            parts.append(piece(f, u, v, 0))
    return mpmath.fsum(parts)
