"""The θ-parametrisation of a support interval [a, b]: x(θ) = a + (b − a)(1 − cos θ)/2.

Square-root edges are analytic in θ and x′(θ) = (b − a) sin θ/2 cancels an inverse-square-root
divergence, so quadrature and tables of the branch are taken in θ (Rao & Edelman 2008 use the
same change of variables for algebraic densities)."""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np

try:  # python-flint is a dependency (arb's certified Legendre roots); mpmath is the fallback
    import flint
except ImportError:  # pragma: no cover - exercised only without python-flint
    flint = None

__all__ = ["x_of_theta", "theta_of_x", "gauss_legendre", "gauss_legendre_mp", "graded_panels", "graded_half_panels",
           "panel_integrals", "adaptive_panels", "cumulative_in_panels", "mpf_to_arb", "arb_to_mpf"]


def x_of_theta(a, b, th):
    """x(θ) = a + (b − a)(1 − cos θ)/2, written to keep x − a and b − x accurate."""
    half = 0.5 * np.asarray(th)
    return np.where(half <= math.pi / 4, a + (b - a) * np.sin(half) ** 2,
                    b - (b - a) * np.cos(half) ** 2)


def theta_of_x(a, b, x):
    """Inverse of :func:`x_of_theta` on [a, b], accurate near both ends."""
    u = np.clip((np.asarray(x) - a) / (b - a), 0.0, 1.0)
    v = np.clip((b - np.asarray(x)) / (b - a), 0.0, 1.0)
    return np.where(u <= 0.5, 2 * np.arcsin(np.sqrt(u)), math.pi - 2 * np.arcsin(np.sqrt(v)))


# ------------------------------------------------------------------ θ-panel quadrature
# Adaptive Gauss–Legendre on panels in θ: the cumulative-mass tables behind the cdf (and the
# quantiles) of every law with a density on [a, b].  One implementation for the algebraic laws
# and the subordination laws.

@functools.lru_cache(maxsize=None)
def gauss_legendre(nodes):
    """Gauss–Legendre nodes and weights on [−1, 1] (numpy's ``leggauss``), cached."""
    x, w = np.polynomial.legendre.leggauss(int(nodes))
    x.flags.writeable = w.flags.writeable = False
    return x, w


#: extra bits of the mpmath Gauss–Legendre nodes above the working precision
GL_MP_GUARD_BITS = 20


def mpf_to_arb(v):
    """An mpf (finite) as an exact python-flint ``arb`` (its binary mantissa and exponent: no
    decimal string, no rounding)."""
    sign, man, exp, _ = v._mpf_
    if not man:
        if exp:  # ±inf, nan: mpmath's special values have a zero mantissa and exp ≠ 0
            raise ValueError(f"mpf_to_arb: v must be finite, got {v}")
        return flint.arb(0)
    return flint.arb((-man if sign else man, exp))


def arb_to_mpf(x):
    """The midpoint of an ``arb`` as an mpf, exactly (round it with ``+`` to the working
    precision)."""
    m, e = x.mid().man_exp()
    return mpmath.mpf((int(m), int(e)))


@functools.lru_cache(maxsize=None)
def gauss_legendre_mp(nodes, prec):
    """Gauss–Legendre nodes and weights on [−1, 1] as mpf at ``prec`` bits, cached per (nodes,
    prec): tuples (x, w), x decreasing.

    From arb's ``legendre_p_root`` (python-flint: each root and weight certified, computed at
    ``prec`` + :data:`GL_MP_GUARD_BITS` bits and converted exactly), else from numpy's float64
    roots polished by ``mpmath.findroot`` on ``mpmath.legendre``; either way any number of
    nodes, which mpmath's own rule (3·2^k nodes) does not offer."""
    n = int(nodes)
    work = int(prec) + GL_MP_GUARD_BITS
    out = []
    if flint is not None:
        old = flint.ctx.prec
        flint.ctx.prec = work
        try:
            with mpmath.workprec(work):
                for k in range(n):
                    x, w = flint.arb.legendre_p_root(n, k, weight=True)
                    out.append((arb_to_mpf(x), arb_to_mpf(w)))
        finally:
            flint.ctx.prec = old
    else:  # pragma: no cover - exercised only without python-flint
        with mpmath.workprec(work):
            for x0 in np.polynomial.legendre.leggauss(n)[0][::-1]:
                x = mpmath.findroot(lambda t: mpmath.legendre(n, t), mpmath.mpf(x0))
                d = mpmath.diff(lambda t: mpmath.legendre(n, t), x)
                out.append((x, 2 / ((1 - x * x) * d * d)))
    with mpmath.workprec(int(prec)):
        return tuple((+x, +w) for x, w in out)


def graded_panels(uniform, levels=24, ratio=0.25, left=True, right=True):
    """Panel boundaries in θ ∈ [0, π]: ``uniform`` equal panels, the first (``left``) and the
    last (``right``) graded geometrically toward the end with ``levels`` boundaries at
    h·ratio^j (h = π/uniform), so that a power-law singularity of the density at that end
    still gets exponential convergence.

    Returns
    -------
    ndarray of float, increasing, from 0.0 to π
    """
    h = math.pi / uniform
    lo = [h * ratio**j for j in range(levels, 0, -1)] if left else []
    inner = [h * i for i in range(1, uniform)]
    hi = [math.pi - h * ratio**j for j in range(1, levels + 1)] if right else []
    return np.array([0.0] + lo + inner + hi + [math.pi])


def graded_half_panels(uniform, levels=24, ratio=0.25):
    """Panel boundaries in u ∈ [0, π/2] (the distance coordinate from one end of an interval):
    ``uniform`` equal panels of width h = π/(2·uniform), the first graded geometrically toward
    u = 0 with ``levels`` boundaries at h·ratio^j: the half of
    ``graded_panels(2 * uniform, levels, ratio)`` next to an end, ending at π/2 exactly.

    Returns
    -------
    ndarray of float, increasing, from 0.0 to π/2
    """
    h = 0.5 * math.pi / uniform
    lo = [h * ratio**j for j in range(levels, 0, -1)]
    inner = [h * i for i in range(1, uniform)]
    return np.array([0.0] + lo + inner + [0.5 * math.pi])


def panel_integrals(integrand, lo, hi, nodes):
    """∫_lo^hi integrand(θ) dθ by ``nodes``-point Gauss–Legendre on each panel [lo_i, hi_i].

    ``integrand`` maps a 1-D array of θ to an array of the same shape (one vectorised call);
    ``lo`` and ``hi`` are arrays of the same shape."""
    return _rule(integrand, lo, hi, nodes)[0]


def _rule(integrand, lo, hi, nodes):
    """(∫ f, ∫ |f|) per panel from one evaluation of the integrand."""
    x, w = gauss_legendre(nodes)
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    half = 0.5 * (hi - lo)
    th = (0.5 * (hi + lo))[..., None] + half[..., None] * x
    vals = np.asarray(integrand(th.reshape(-1)), float).reshape(th.shape)
    return half * (vals @ w), half * (np.abs(vals) @ w)


# own code, not scipy.integrate.quad/quad_vec: one vectorised integrand call per level for all
# panels at once, and the accepted panel table itself is the product (cdf, ppf read from it)
def adaptive_panels(integrand, panels, *, nodes, atol=0.0, rtol, max_levels, abs_floor=None,
                    frozen=None, max_split=None, max_panels=None):
    """Split θ-panels until Gauss–Legendre on a panel agrees with the sum over its two halves.

    A panel is accepted when |I − (I_left + I_right)| ≤ max(atol, rtol·|I|) (QUADPACK's
    form; with ``abs_floor``, atol is raised to abs_floor · ∫|f| over all of ``panels``), when
    ``frozen(lo, hi)`` says so (e.g. a panel at an ill-conditioned edge below a width), or at
    the last of ``max_levels`` halvings; all panels are accepted at once when more than
    ``max_split`` would be split in one round, or when the table would exceed ``max_panels``
    (bounded time).  The halves of a split panel are the next level's wholes, so each level
    costs one vectorised call of the integrand (two rules per panel).

    Parameters
    ----------
    integrand : callable, 1-D ndarray of θ → ndarray of the same shape
    panels : ndarray, increasing boundaries (e.g. :func:`graded_panels`)
    nodes : int
        Gauss–Legendre nodes per panel.

    Returns
    -------
    (edges, masses) : ndarray (m + 1,), ndarray (m,)
        The accepted panels' boundaries (from panels[0] to panels[-1]) and their integrals
        (the sum of the two halves); ``math.fsum(masses)`` is the integral.
    """
    lo, hi = np.asarray(panels[:-1], float), np.asarray(panels[1:], float)
    whole, absval = _rule(integrand, lo, hi, nodes)
    if abs_floor is not None:
        atol = max(atol, abs_floor * float(np.sum(absval)))
    keep_lo, keep_mass = [], []
    kept = 0
    for level in range(max_levels):
        mid = 0.5 * (lo + hi)
        n = lo.size
        halves = _rule(integrand, np.concatenate([lo, mid]), np.concatenate([mid, hi]), nodes)[0]
        left, right = halves[:n], halves[n:]
        ok = np.abs(whole - (left + right)) <= np.maximum(atol, rtol * np.abs(whole))
        if frozen is not None:
            ok |= frozen(lo, hi)
        if (level == max_levels - 1 or max_split is not None and np.count_nonzero(~ok) > max_split
                or max_panels is not None and kept + 2 * lo.size > max_panels):
            ok[:] = True
        keep_lo += [lo[ok], mid[ok]]
        keep_mass += [left[ok], right[ok]]
        kept += 2 * np.count_nonzero(ok)
        lo, hi = np.concatenate([lo[~ok], mid[~ok]]), np.concatenate([mid[~ok], hi[~ok]])
        whole = np.concatenate([left[~ok], right[~ok]])
        if lo.size == 0:
            break
    starts = np.concatenate(keep_lo)
    masses = np.concatenate(keep_mass)
    order = np.argsort(starts)
    return np.append(starts[order], panels[-1]), masses[order]


def cumulative_in_panels(integrand, edges, cum, th, nodes):
    """∫_{edges[0]}^θ integrand for θ inside the table: the cumulative mass ``cum`` (length
    len(edges), cum[0] = 0) up to the panel containing θ plus Gauss–Legendre from that
    panel's start to θ (vectorised over θ)."""
    k = np.clip(np.searchsorted(edges, th, side="right") - 1, 0, len(edges) - 2)
    return cum[k] + panel_integrals(integrand, edges[k], th, nodes)
