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
  s as above;
- :func:`gregory_end`: Gregory's end correction to the trapezoid rule at one end of a uniform
  grid (an end where the integrand is smooth but not even, e.g. a breakpoint shared by two
  support intervals with the density smooth across it).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

from fractions import Fraction

from .._context import FLOAT_EPS
from .theta import gauss_legendre, gauss_legendre_mp

__all__ = ["end_rule", "end_zone", "theta_integral_mp", "COARSE_BREAKS", "MP_QUAD_DEPTH",
           "predicted_nodes", "gregory_end"]

#: break points of the mpmath θ-quadrature (smooth pieces in θ)
COARSE_BREAKS = tuple(math.pi * k / 8 for k in range(1, 8))
#: bisection depth of the mpmath θ-quadrature pieces
MP_QUAD_DEPTH = 12
#: Gauss–Legendre degree of mpmath.quad on each piece (3·2^maxdegree nodes)
MP_QUAD_MAXDEGREE = 4


#: float64 Gauss–Legendre sizes whose errors measure the convergence rate of a piece
#: (:func:`predicted_nodes`), and the size of the float64 reference they are measured against
FIT_SIZES = (4, 6, 8, 10, 12, 16, 20, 24)
FIT_REFERENCE_NODES = 48
#: an error of the float64 fit counts as measured when above this × ∫|f| (rounding beneath)
FIT_NOISE = 1e3 * FLOAT_EPS
#: the rate between the last two measured sizes may fall to this fraction of the one before
#: (convergence slowing down: not geometric, the prediction is not trusted)
FIT_RATE_DROP = 0.6
#: margin on the predicted number of nodes: MARGIN·n + EXTRA
MP_GL_MARGIN = 1.25
MP_GL_EXTRA = 2
#: mpmath Gauss–Legendre sizes (nodes cached per size and precision); a piece predicted to
#: need more than the last is bisected by the mpmath.quad route instead
MP_GL_SIZES = (4, 6, 8, 10, 12, 16, 20, 24, 28, 32, 40, 48, 64)
#: narrowest piece sized on its own (float64 nodes resolve it); a narrower one is sized on a
#: piece of this width around it
FIT_MIN_WIDTH = 1e-4
#: the mpmath rule must agree with the float64 reference to this × ∫|f| (a sanity check)
FIT_AGREE = 1e6 * FLOAT_EPS


#: Gregory's coefficients γ_k (k = 1, 2, …): ∫_0^{nh} f = h(f₀/2 + f₁ + … + f_n/2)
#: + h Σ_k (−1)^{k+1} γ_k Δ^k f₀ + (the same at the other end), exact rationals
GREGORY = (Fraction(1, 12), Fraction(1, 24), Fraction(19, 720), Fraction(3, 160),
           Fraction(863, 60480), Fraction(275, 24192), Fraction(33953, 3628800))


def _gregory_weights(order):
    """Weights w_j (j = 0 … order) with h Σ_j w_j f_j the end correction of that order."""
    w = [Fraction(0)] * (order + 1)
    for k in range(1, order + 1):
        c = (-1) ** (k + 1) * GREGORY[k - 1]
        for j in range(k + 1):  # Δ^k f₀ = Σ_j C(k, j) (−1)^{k−j} f_j
            w[j] += c * math.comb(k, j) * (-1) ** (k - j)
    return np.array([float(v) for v in w])


_GREGORY_WEIGHTS = {k: _gregory_weights(k) for k in range(1, len(GREGORY) + 1)}


def gregory_end(f, h, order=len(GREGORY)):
    """Gregory's correction (to add to the trapezoid rule with f₀/2) at the end where the
    uniform samples ``f`` = f₀, f₁, … (spacing ``h``, f₀ the end value) start, and its error
    estimate: the size of the last term (the difference from the rule one order lower).
    Exact for polynomials of degree ≤ ``order`` on the end's side; the error of the
    corrected rule is O(h^{order+2}) for a smooth f."""
    f = np.asarray(f[:order + 1], dtype=float)
    corr = h * float(_GREGORY_WEIGHTS[order] @ f)
    lower = h * float(_GREGORY_WEIGHTS[order - 1] @ f[:order])
    return corr, abs(corr - lower)


def predicted_nodes(f, u, v, tol, bounds=None):
    """Gauss–Legendre size for ∫_u^v f to the absolute tolerance ``tol`` at the working
    precision, predicted from float64 rules on the same piece, or None.

    For f analytic on a neighbourhood of [u, v] the error of the n-point rule falls like
    C·ρ^(−2n) (Trefethen, *Approximation Theory and Approximation Practice*, Thm 19.3): the
    errors of the :data:`FIT_SIZES` rules against the :data:`FIT_REFERENCE_NODES` rule (float64,
    one vectorised call of ``f``) give the rate down to rounding; the size reaching ``tol`` is
    extrapolated from the last measured error with the smaller of the last two measured rates
    (at least the rate that reaching the rounding floor implies, a lower bound of the true
    one).  None where the rate is not geometric (slowing down between the measured sizes),
    where the float64 integrand is not finite, or where more than the largest of
    :data:`MP_GL_SIZES` would be needed.

    A piece narrower than :data:`FIT_MIN_WIDTH` (float64 nodes do not resolve it) is sized
    from the piece of that width around it inside ``bounds``: ρ·(half-width) is at least
    |z − c| ≥ ρ_H·ℓ_H / 3 for the singularity z that limits ρ_H, so the rate per node on the
    narrow piece is at least the wide one's + 2·ln(ℓ_H / (3ℓ)), with ∫|f| at most the wide
    piece's; its reference is then None.

    Returns
    -------
    (n, reference) : the size (one of :data:`MP_GL_SIZES`) and the float64 integral, or None
    """
    width = float(v - u)  # formed before rounding the ends (a piece below their ulp)
    u, v = float(u), float(v)
    if width < FIT_MIN_WIDTH and bounds is not None:
        lo_h = max(min(0.5 * (u + v) - 0.5 * FIT_MIN_WIDTH, bounds[1] - FIT_MIN_WIDTH), bounds[0])
        hi_h = min(lo_h + FIT_MIN_WIDTH, bounds[1])
        wide = _fit(f, lo_h, hi_h)
        if wide is None:
            return None
        rate, _, _, _, scale = wide
        if width > 0:
            rate = max(rate, rate + 2 * math.log((hi_h - lo_h) / (3 * width)))
        n = _size(0, scale, rate, tol)
        return None if n is None else (n, None)
    fit = _fit(f, u, v)
    if fit is None:
        return None
    rate, n_last, err_last, ref, _ = fit
    n = _size(n_last, err_last, rate, tol)
    return None if n is None else (n, ref)


def _size(n_last, err_last, rate, tol):
    """The smallest of MP_GL_SIZES above the extrapolated size with its margin, or None."""
    if rate == math.inf or err_last == 0:
        return MP_GL_SIZES[0]
    need = n_last + max(math.log(err_last / float(tol)), 0.0) / rate
    need = MP_GL_MARGIN * need + MP_GL_EXTRA
    return next((s for s in MP_GL_SIZES if s >= need), None)


def _fit(f, u, v):
    """(rate per node, last measured size, its error, float64 reference, ∫|f|) of the
    float64 Gauss–Legendre errors on [u, v] (:func:`predicted_nodes`), or None."""
    half, mid = 0.5 * (v - u), 0.5 * (v + u)
    rules = [gauss_legendre(n) for n in FIT_SIZES + (FIT_REFERENCE_NODES,)]
    pts = np.concatenate([mid + half * x for x, _ in rules])
    with np.errstate(all="ignore"):
        vals = np.asarray(f(pts), dtype=float)
    if not np.all(np.isfinite(vals)):
        return None
    sums, k = [], 0
    for x, w in rules:
        sums.append(half * float(np.dot(w, vals[k:k + len(x)])))
        k += len(x)
    ref = sums[-1]
    xr, wr = rules[-1]
    scale = abs(half) * float(np.dot(wr, np.abs(vals[-len(xr):])))
    if scale == 0:
        return math.inf, 0, 0.0, ref, 0.0
    noise = FIT_NOISE * scale
    # the error of the empty rule is the integral itself, at most ∫|f|
    sizes = (0,) + FIT_SIZES
    errs = [scale] + [abs(s - ref) for s in sums[:-1]]
    measured = [i for i, e in enumerate(errs) if e > noise]
    last = measured[-1]
    rates = [math.log(errs[i - 1] / errs[i]) / (sizes[i] - sizes[i - 1])
             for i in measured[1:]]  # measured rates per node, between measured sizes
    if len(rates) >= 2 and rates[-1] < FIT_RATE_DROP * rates[-2]:
        return None  # slowing down: not (yet) geometric
    rate = min(rates[-2:]) if rates else 0.0
    if last + 1 < len(sizes):  # the next size is at the rounding floor: a lower bound
        rate = max(rate, math.log(errs[last] / noise) / (sizes[last + 1] - sizes[last]))
    if not rate > 0:
        return None
    return rate, sizes[last], errs[last], ref, scale


def _gl_mp(f, u, v, n):
    """n-point Gauss–Legendre on [u, v] at the working precision (nodes cached); ``f`` maps
    the list of nodes to the list of values (one call: the caller may seed all at once)."""
    half, mid = (v - u) / 2, (v + u) / 2
    rule = gauss_legendre_mp(n, mpmath.mp.prec)
    vals = f([mid + half * x for x, _ in rule])
    return half * mpmath.fsum(w * fv for (_, w), fv in zip(rule, vals))


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


def _magnitude(f_float, lo, hi):
    """|∫_lo^hi f_float| by one float64 Gauss–Legendre rule (a magnitude for a relative
    tolerance), or None where it is not a positive finite number."""
    x, w = gauss_legendre(FIT_REFERENCE_NODES)
    half, mid = 0.5 * (hi - lo), 0.5 * (hi + lo)
    with np.errstate(all="ignore"):
        vals = np.asarray(f_float(mid + half * x), dtype=float)
        est = abs(half * float(np.dot(w, vals)))
    return est if math.isfinite(est) and est > 0 else None


def theta_integral_mp(f, lo, hi, tol, m_lo=1, m_hi=1, breaks=COARSE_BREAKS, depth=MP_QUAD_DEPTH,
                      f_float=None, f_nodes=None, relative=False):
    """∫_lo^hi f(θ) dθ at the working mpmath precision, 0 ≤ lo ≤ hi ≤ π.

    With ``f_float`` (the same integrand in float64, vectorised): one Gauss–Legendre rule at
    the working precision on [lo, hi], its size predicted from float64 rules on the same piece
    (:func:`predicted_nodes`), so that the integrand is evaluated at the working precision only
    at the nodes the requested digits need; where no size is predicted (convergence not
    geometric, or too slow), the same on each piece of ``breaks``, and on a piece that still
    has none the route below.

    Otherwise, and on such pieces: Gauss–Legendre (``mpmath.quad``) on the pieces of ``breaks``
    inside [lo, hi], each bisected (at most ``depth`` times) until mpmath's error estimate is
    ≤ ``tol``.  Either way a piece [0, h] with ``m_lo`` > 1 is integrated in s with θ = h·s^m,
    a piece [h, π] with ``m_hi`` > 1 with θ = π − (π − h)·s^m, where ``f(θ, φ)`` is called with
    φ = π − θ formed exactly (points next to the right end keep the relative accuracy of their
    distance to it).

    Parameters
    ----------
    f : callable f(θ, phi=None) → mpf
    lo, hi : mpf
    tol : mpf, absolute tolerance per piece
    f_float : callable f_float(θ, phi=None) → ndarray, optional (θ, phi: 1-D ndarrays)
    f_nodes : callable f_nodes(θs, phis) → list of mpf, optional
        ``f`` at a list of nodes at once (phis None, or the list of φ = π − θ), used by the
        predicted rule (e.g. to start every node's root polish from one float64 call).
    relative : bool
        With ``f_float``: ``tol`` is relative to the integral where that is below 1 (its
        magnitude from one float64 rule on [lo, hi]): a tail integral keeps its own digits
        (sf(2 − 1e-12) of the semicircle, 2.1e-19, was 4.7e-30 off at dps=30 against an
        absolute 1e-33).
    """
    if relative and f_float is not None and hi > lo:
        est = _magnitude(f_float, float(lo), float(hi))
        if est is not None and est < 1:
            tol = tol * est
    if f_nodes is None:
        def f_nodes(ths, phis):
            return [f(th) for th in ths] if phis is None else [f(th, p) for th, p in zip(ths, phis)]

    def quad(g, u, v):
        return mpmath.quad(g, [u, v], method="gauss-legendre", error=True,
                           maxdegree=MP_QUAD_MAXDEGREE)

    def piece(g, u, v, level):
        val, err = quad(g, u, v)
        if err <= tol or level >= depth:
            return val
        c = (u + v) / 2
        return piece(g, u, c, level + 1) + piece(g, c, v, level + 1)

    def in_s(u, v, m, at_lo):
        """(mp, float64) integrands in s ∈ [0, 1] of the piece [u, v] at its end."""
        w = v - u
        wf = float(w)

        def fs(s):
            if at_lo:
                return f(u + w * s**m) * m * w * s ** (m - 1)
            phi = (mpmath.pi - v) + w * s**m
            return f(v - w * s**m, phi) * m * w * s ** (m - 1)

        def fs_float(s):
            if at_lo:
                return f_float(float(u) + wf * s**m) * (m * wf) * s ** (m - 1)
            phi = float(mpmath.pi - v) + wf * s**m
            return f_float(math.pi - phi, phi) * (m * wf) * s ** (m - 1)

        def fs_nodes(ss):
            jac = [m * w * sv ** (m - 1) for sv in ss]
            if at_lo:
                vals = f_nodes([u + w * sv**m for sv in ss], None)
            else:
                phis = [(mpmath.pi - v) + w * sv**m for sv in ss]
                vals = f_nodes([v - w * sv**m for sv in ss], phis)
            return [fv * j for fv, j in zip(vals, jac)]

        return fs, fs_float, fs_nodes

    def integrands(u, v):
        """(mp integrand, float64 integrand, mp integrand on a list of nodes, lower, upper)
        of the piece [u, v]."""
        if u == 0 and m_lo > 1:
            return in_s(u, v, m_lo, True) + (mpmath.mpf(0), mpmath.mpf(1))
        if v == mpmath.pi and m_hi > 1:
            return in_s(u, v, m_hi, False) + (mpmath.mpf(0), mpmath.mpf(1))
        return f, f_float, lambda ths: f_nodes(ths, None), u, v

    def fitted(u, v):
        """The piece by one predicted rule, or None."""
        _, g_float, g_nodes, s0, s1 = integrands(u, v)
        fit = predicted_nodes(g_float, s0, s1, tol, bounds=(0.0, math.pi))
        if fit is None:
            return None
        n, ref = fit
        val = _gl_mp(g_nodes, s0, s1, n)
        if ref is None:  # a piece float64 does not resolve: no reference to compare with
            return val
        # the rule must agree with the float64 reference (a wrong prediction that far off
        # would show here); else the piece goes to the bisection route
        scale = abs(ref) + abs(float(s1 - s0)) * FLOAT_EPS
        if not abs(float(val) - ref) <= FIT_AGREE * max(scale, abs(float(val))):
            return None
        return val

    if f_float is not None and hi > lo and not (lo == 0 and m_lo > 1 and hi == mpmath.pi and m_hi > 1):
        whole = fitted(lo, hi)
        if whole is not None:
            return whole
    grid = [lo] + [mpmath.mpf(v) for v in breaks if lo < v < hi] + [hi]
    parts = []
    for u, v in zip(grid[:-1], grid[1:]):
        val = fitted(u, v) if f_float is not None else None
        if val is None:
            g, _, _, s0, s1 = integrands(u, v)
            val = piece(g, s0, s1, 0)
        parts.append(val)
    return mpmath.fsum(parts)
