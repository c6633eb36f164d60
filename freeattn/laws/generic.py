"""The generic routes of a law known by its Cauchy transform G alone.

Every :class:`~freeattn.laws.base.Law` inherits these hooks (``Law`` derives from
:class:`GenericRoutes`); a law that knows more (a closed-form density, declared support, exact
moments, its own θ-tables) overrides them.  What each generic hook does:

==========================  ===============================================================
hook                        generic route (this module)
==========================  ===============================================================
``_cauchy_mp(z, dps)``      ``_cauchy_float`` evaluated with mpmath numbers when it accepts
                            them; the float64 value when ``dps`` ≤ 15; else an error
``_cauchy_derivative_*``    Cauchy integral G′(z) = (1/2πi)∮ G(ζ)/(ζ − z)² dζ on a circle
                            inside the domain of analyticity (on the support: its ε → 0 limit
                            by Richardson extrapolation)
``_pdf_float/_pdf_mp``      −Im G(x + i0)/π from the on-axis hook; ``_pdf_limit_*``: Richardson
                            extrapolation ε → 0 of −Im G(x + iε)/π
``_support(dps)``           a bounding interval from the contour mass (1/2πi)∮G = 1
                            (:meth:`GenericRoutes._hull`), a scan of the on-axis density, edges
                            refined by ``scipy.optimize.brentq`` and bisection to adjacent floats
``_atoms(dps)``             poles of G found by bisection on the upward jumps of the real G(x)
                            between the support intervals; mass lim iεG(a + iε)
``_cdf_*``, ``_sf_*``       adaptive Gauss–Legendre θ-panels of the density (the mass check's),
                            x = a + (b − a)(1 − cos θ)/2, plus atoms; mpmath: Gauss–Legendre
                            pieces (``mpmath.quad``) bisected to the precision
``_ppf_*``                  ``scipy.optimize.elementwise.find_root`` on the cdf (atoms exactly);
                            mpmath: Newton on F(x) = q from the float64 quantile
``_moment_quad``            x^k against the law (:meth:`Law.expect`: adaptive θ-panels, each
                            checked against its halves)
==========================  ===============================================================

Every found support is checked: the density's mass plus the atoms must be 1 to
``SCAN_MASS_TOL`` (see there), else the scan is refined and, if it still fails, an error is
raised (a law never returns a support that misses mass).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

from .._context import (FLOAT_EPS, TINY, inner_dps, mp_route, round_back, to_mp,
                        tolerance, workdps)
from ..quadrature.ends import theta_integral_mp
from ..quadrature.tables import Interval, MpInterval, Side, cdf_sf, quantile
from ..quadrature.theta import (adaptive_panels, graded_half_panels, graded_panels,
                                panel_integrals, theta_of_x as _theta_of_x,
                                x_of_theta as _x_of_theta)
from ._tails import TailInterval, TailMap, TailSideIntegrand, unbounded

__all__ = ["GenericRoutes", "adaptive_theta_quad", "adaptive_mp_quad", "richardson",
           "RICHARDSON_LEVELS", "SCAN_MASS_TOL", "SideIntegrand", "SideRule", "density_interval",
           "mp_interval", "tail_interval", "UnboundedScan", "UnboundedHull"]
#: points of the on-axis scan used to find the support when a law does not declare it
_SCAN_POINTS = 4096
#: trapezoidal nodes on the circles of the contour integrals
_CONTOUR_NODES = 256
#: mass tolerance of a support found by the scan (density mass + atoms must be 1 to this).  The
#: scan knows an edge to one ulp, and at an inverse-square-root edge one ulp holds mass
#: ~ sqrt(ulp)/π ~ 1e-8, far above :data:`freeattn._context.MASS_TOL` (for edges known to the
#: reference precision): this tolerance sits above that floor and far below any missed
#: component it guards.
SCAN_MASS_TOL = 1e-7
#: the contour mass (1/2πi)∮G of a circle holding the whole law is 1 to this
_CONTOUR_MASS_TOL = 1e-11
#: an upward jump of the real G between two scan points (a pole), relative to |G|
_JUMP_RTOL = 1e-12
#: half-width of the bracket around a float64 edge refined at dps digits, relative to 1 + |e|
_EDGE_BRACKET = 1e-12
#: starting ε of the mpmath ε → 0 limit at an atom, relative to 1 + |a|
_ATOM_STEP = 1e-3
#: starting ε of the ε → 0 limit of the density, as a fraction of the law's scale
_LIMIT_STEP = 1e-2
#: margin of the contour-mass search, as a fraction of the scale
_HULL_PAD = 1e-3
#: the contour-mass search does not shrink its circle below this radius
_HULL_MIN_RADIUS = 1e-250
#: a θ-panel narrower than this fraction of π is not split further
_FROZEN_PANEL = 1e-15
#: Richardson table depth for the ε → 0 limits
RICHARDSON_LEVELS = 7
#: Gauss–Legendre nodes on each θ-panel of the adaptive quadrature of :meth:`Law.expect`
_GL_NODES = 12
#: a panel is accepted when its value and the sum of its two halves agree to 4 ulp relative
#: or to this fraction of ∫|f| over the whole interval (absolute)
_QUAD_REL_FLOOR = 1e-16
#: bounds on the refinement (every quadrature ends in bounded time)
_QUAD_MAX_PANELS = 40000
_QUAD_MAX_LEVELS = 48
#: bisection depth of the mpmath θ-quadrature (:func:`adaptive_mp_quad`)
_MP_QUAD_DEPTH = 12
#: node sets whose θ-density a law keeps for its next quadrature (moments of several orders)
_DENSITY_MEMO = 16
#: a node within this many ulps of an end takes the value at that distance (SideIntegrand)
_END_PAD = 8
#: the mpmath θ-integrals of the cdf are bisected to tolerance(dps, MP_QUAD_TOL), absolute
MP_QUAD_TOL = 1e-3
#: the mpmath quadrature of expect/entropy: pieces to this × 10^-dps of the integral, and the
#: power m of θ = h s^m on the pieces touching an end
_MP_REL_TOL = 1e-2
_MP_END_POWER = 8
#: the mpmath bisection of an edge and the mpmath ppf Newton stop at tolerance(dps, this)
#: (relative): three digits beyond the working precision
_MP_ROOT_TOL = 1e-3
#: nodes of the mpmath trapezoid rule on a circle (G′ by Cauchy's formula): 2^-n below the
#: working precision, n = _CONTOUR_BITS_PER_DIGIT × digits + _CONTOUR_EXTRA_NODES
_CONTOUR_BITS_PER_DIGIT = 3.33
_CONTOUR_EXTRA_NODES = 16
#: the float64 tables of the generic route: the panels and tolerances of its quadrature
_GENERIC_SIDES = dict(nodes=_GL_NODES, rtol=4 * FLOAT_EPS, abs_floor=_QUAD_REL_FLOOR,
                      max_levels=_QUAD_MAX_LEVELS, max_panels=_QUAD_MAX_PANELS, uniform=24,
                      frozen=(lambda lo, hi: hi - lo <= _FROZEN_PANEL * math.pi,) * 2)
#: starting θ-panels: uniform inside, graded geometrically toward both ends (any power-law
#: edge: square-root, inverse-square-root, cusp exponents 1/3, 2/3, ...)
_PANELS = graded_panels(48, levels=24, ratio=0.25)


def adaptive_theta_quad(f, panels):
    """∫ f(θ) dθ over the span of ``panels`` by Gauss–Legendre on θ-panels
    (:func:`freeattn.laws._theta.adaptive_panels`), each panel halved until its value and the
    sum of its halves agree to 4 ulp relative or ``_QUAD_REL_FLOOR`` · ∫|f| (absolute).

    ``f`` maps a 1-D array of θ ∈ (0, π) (never the ends) to real values.  Unlike a single
    tanh-sinh rule over [0, π], whose error estimate is a heuristic from successive levels,
    every accepted panel carries its own two-rule check: an interior cusp, a steep edge next
    to a pole, or a component far narrower than the interval is refined where it sits instead
    of being stepped over.
    Returns (integral, accepted panel boundaries, their values).
    """
    panels = np.asarray(panels, dtype=float)
    scale = float(np.sum(panel_integrals(lambda th: np.abs(f(th)), panels[:-1], panels[1:],
                                         _GL_NODES)))
    edges, vals = adaptive_panels(
        f, panels, nodes=_GL_NODES, atol=_QUAD_REL_FLOOR * scale, rtol=4 * FLOAT_EPS,
        max_levels=_QUAD_MAX_LEVELS, max_panels=_QUAD_MAX_PANELS,
        frozen=lambda lo, hi: hi - lo <= _FROZEN_PANEL * math.pi)
    return math.fsum(vals), edges, vals


# own code, not mpmath.richardson (scalar mpf sequences, unknown ratio): vectorised over numpy
# arrays of points with the known step ratio 2 (polynomial extrapolation in ε)
def richardson(values):
    """Richardson extrapolation to ε → 0 of f(ε_k), ε_k = ε₀ 2^{-k} (k along axis 0).

    Returns (value, error estimate): the last diagonal entry and its distance to the previous
    one (f is assumed smooth in ε, i.e. analytic at the limit point, as G is off the edges)."""
    T = [np.asarray(v) for v in values]
    prev_diag = T[0]
    diag = T[0]
    for j in range(1, len(T)):
        T = [T[k] + (T[k] - T[k - 1]) / (2.0**j - 1) for k in range(1, len(T))]
        prev_diag, diag = diag, T[-1]
    return diag, np.abs(diag - prev_diag)


# mpmath.quad (Gauss–Legendre) on each piece; only the bisection driver is ours (mpmath.quad's
# own subdivision is a fixed list of points, not refined where the error estimate is large)
def adaptive_mp_quad(f, lo, hi, dps):
    """∫_lo^hi f(θ) dθ at ``dps`` digits (θ ⊂ [0, π]): Gauss–Legendre (``mpmath.quad``) on the
    pieces of a grid π/8 apart, each bisected (depth ≤ ``_MP_QUAD_DEPTH``) until mpmath's error
    estimate is below 10^-(dps+1) of ∫|f| (a single tanh-sinh rule over [0, π] stepped over
    an interior dip of the density: m₁ of attention_law(1.117, 0.2697, 3) off by 1.6e-4 at 20
    digits)."""
    grid = [lo] + [mpmath.pi * k / 8 for k in range(1, 8) if lo < mpmath.pi * k / 8 < hi] + [hi]

    def rule(a, b):
        return mpmath.quad(f, [a, b], method="gauss-legendre", error=True, maxdegree=4)

    first = [(a, b) + tuple(rule(a, b)) for a, b in zip(grid[:-1], grid[1:])]
    tol = tolerance(dps, 0.1) * (mpmath.fsum(abs(v) for *_, v, _ in first) or 1)

    def piece(a, b, v, err, depth):
        if err <= tol or depth >= _MP_QUAD_DEPTH:
            return v
        m = (a + b) / 2
        return piece(a, m, *rule(a, m), depth + 1) + piece(m, b, *rule(m, b), depth + 1)

    return mpmath.fsum(piece(a, b, v, err, 0) for a, b, v, err in first)


# ------------------------------------------------------------ tables of a density known by x
class SideIntegrand:
    """u ↦ ρ(x(u))·sqrt((x − a)(b − x)) on [a, b] from one end (``end`` "a": x = a + w
    sin²(u/2); "b": x = b − w sin²(u/2); w = b − a), u ∈ [0, π/2]: the density in the distance
    coordinate of :mod:`freeattn.quadrature.tables`.  A node whose x rounds onto the end takes
    the value at the nearest resolvable point (the integrand is bounded at square-root and
    inverse-square-root ends), and sqrt((x − a)(b − x)) = x′(u) is taken at the rounded x so
    that ρ·x′ stays exact at an inverse-square-root end.  Picklable (``pdf``: a bound method)."""

    def __init__(self, pdf, a, b, end):
        self.pdf, self.a, self.b, self.end = pdf, float(a), float(b), end

    def __call__(self, u):
        a, b = self.a, self.b
        d = (b - a) * np.sin(0.5 * np.asarray(u, dtype=float)) ** 2
        x = a + d if self.end == "a" else b - d
        if math.isfinite(a):
            x = np.maximum(x, a + _END_PAD * FLOAT_EPS * abs(a))
        if math.isfinite(b):
            x = np.minimum(x, b - _END_PAD * FLOAT_EPS * abs(b))
        inside = (x > a) & (x < b)
        out = np.zeros(x.shape)
        if np.any(inside):
            xi = x[inside]
            # √(x − a)·√(b − x): the product overflows on an interval wider than ~1e154
            out[inside] = self.pdf(xi) * (np.sqrt(xi - a) * np.sqrt(b - xi))
        return out


class SideRule:
    """(lo, hi) ↦ ∫_lo^hi of a :class:`SideIntegrand` by Gauss–Legendre (picklable); on a
    panel touching the end (lo = 0) with ``end_nodes`` nodes when given (fewer nodes keep the
    innermost one away from an end where the density is ill-conditioned)."""

    def __init__(self, integrand, nodes, end_nodes=None):
        self.integrand, self.nodes, self.end_nodes = integrand, nodes, end_nodes

    def __call__(self, lo, hi):
        if self.end_nodes is None:
            return panel_integrals(self.integrand, lo, hi, self.nodes)
        lo, hi = np.broadcast_arrays(np.asarray(lo, dtype=float), np.asarray(hi, dtype=float))
        out = np.empty(lo.shape)
        at_end = lo == 0.0
        if np.any(at_end):
            out[at_end] = panel_integrals(self.integrand, lo[at_end], hi[at_end], self.end_nodes)
        if np.any(~at_end):
            out[~at_end] = panel_integrals(self.integrand, lo[~at_end], hi[~at_end], self.nodes)
        return out


def density_interval(pdf, a, b, *, nodes, rtol, max_levels, uniform, graded=(True, True),
                     atol=0.0, abs_floor=None, frozen=(None, None), max_split=None,
                     max_panels=None, end_nodes=(None, None), end_width=math.pi):
    """The float64 :class:`~freeattn.quadrature.tables.Interval` of a density known by x.

    ``pdf``: vectorised float64 density on (a, b).  Each side (from a, from b) starts from
    ``uniform`` equal u-panels on [0, π/2] (graded geometrically toward its end where
    ``graded``) and is refined by :func:`freeattn.quadrature.theta.adaptive_panels` (``nodes``,
    ``atol``/``abs_floor``, ``rtol``, ``max_levels``, ``frozen`` per side, ``max_split``,
    ``max_panels``); ``end_nodes`` per side: the Gauss–Legendre order of the panel touching
    that end (:class:`SideRule`) when that panel is at most ``end_width`` wide."""
    sides = []
    for end, grade, freeze, n_end in zip("ab", graded, frozen, end_nodes):
        integrand = SideIntegrand(pdf, a, b, end)
        panels = (graded_half_panels(uniform) if grade
                  else np.linspace(0.0, 0.5 * math.pi, uniform + 1))
        edges, masses = adaptive_panels(integrand, panels, nodes=nodes, atol=atol, rtol=rtol,
                                        max_levels=max_levels, abs_floor=abs_floor,
                                        frozen=freeze, max_split=max_split,
                                        max_panels=max_panels)
        if n_end is not None and edges[1] > end_width:
            n_end = None
        rule = SideRule(integrand, nodes, n_end)
        if n_end is not None:
            masses[0] = rule(np.zeros(1), edges[1:2])[0]
        sides.append(Side(edges, masses, rule, integrand))
    return Interval(a, b, *sides)


def tail_interval(pdf, tail_map, *, nodes, rtol, max_levels, uniform, atol=0.0, abs_floor=None,
                  frozen=(None, None), max_panels=None, **_):
    """The :class:`TailInterval` of a density on an unbounded interval: each side's u-panels
    graded toward its end and refined by :func:`freeattn.quadrature.theta.adaptive_panels`, as
    :func:`density_interval` does on a bounded one."""
    sides = []
    for end, freeze in zip("ab", frozen):
        integrand = TailSideIntegrand(pdf, tail_map, end)
        edges, masses = adaptive_panels(integrand, graded_half_panels(uniform), nodes=nodes,
                                        atol=atol, rtol=rtol, max_levels=max_levels,
                                        abs_floor=abs_floor, frozen=freeze,
                                        max_panels=max_panels)
        sides.append(Side(edges, masses, SideRule(integrand, nodes), integrand))
    return TailInterval(tail_map, *sides)


def mp_interval(pdf_mp, a, b, dps, cache=None):
    """The :class:`~freeattn.quadrature.tables.MpInterval` of a density at the working
    precision (``dps``: the caller's): θ-integrals of ρ(x(θ)) x′(θ) from either end by
    :func:`freeattn.quadrature.ends.theta_integral_mp` (Gauss–Legendre pieces bisected to
    ``tolerance(dps, MP_QUAD_TOL)``; points next to b keep their distance to b through φ),
    ``pdf_mp(x, dps)`` at :func:`~freeattn._context.inner_dps`.  The interval's mass is kept in
    ``cache`` (a dict; no callable is stored, so a law still pickles)."""
    inner = inner_dps(dps)
    w = b - a

    def f(th, phi=None):
        if phi is None:
            x = a + w * mpmath.sin(th / 2) ** 2
            xp = w * mpmath.sin(th) / 2
        else:
            x = b - w * mpmath.sin(phi / 2) ** 2
            xp = w * mpmath.sin(phi) / 2
        if not a < x < b:
            return mpmath.mpf(0)
        return pdf_mp(x, inner) * xp

    tol = tolerance(dps, MP_QUAD_TOL)
    key = ("mp_mass", a, b, dps)
    mass = None if cache is None else cache.get(key)
    if mass is None:
        mass = theta_integral_mp(f, mpmath.mpf(0), +mpmath.pi, tol)
        if cache is not None:
            cache[key] = mass
    return MpInterval(a, b, mass, lambda th: theta_integral_mp(f, mpmath.mpf(0), th, tol),
                      lambda th: theta_integral_mp(f, th, +mpmath.pi, tol))


class UnboundedScan(ArithmeticError):
    """The on-axis scan of the hull found the density non-zero at its ``left``/``right`` end:
    a heavy tail, or a hull too small."""

    def __init__(self, message, left, right):
        ArithmeticError.__init__(self, message)
        self.left, self.right = left, right


class UnboundedHull(ValueError):
    """The contour mass did not reach 1 up to ``radius``: no bounded support found."""

    def __init__(self, message, radius):
        ValueError.__init__(self, message)
        self.radius = radius


class GenericRoutes:
    """The hooks of a law known by G alone (mixed into :class:`~freeattn.laws.base.Law`).

    Reads from the law only its public interface (``support``, ``atoms``, ``_cauchy_float``
    and the other hooks, which a subclass may override) and its cache (``_cache()``)."""

    # ============================================================ generic hooks
    def _G(self, z):
        """``_cauchy_float`` with numpy's floating-point warnings silenced (G is evaluated on
        purpose at poles and edges by the generic routes, where ±inf is the right value)."""
        with np.errstate(all="ignore"):
            return self._cauchy_float(np.asarray(z, dtype=complex))

    def _G_mp(self, z, dps):
        """``_cauchy_mp`` with a pole hit exactly (ZeroDivisionError) read as G = ∞."""
        try:
            return self._cauchy_mp(z, dps)
        except ZeroDivisionError:
            return mpmath.mpc(mpmath.inf, 0)

    def _cauchy_float(self, z):
        raise NotImplementedError(f"{type(self).__name__} must implement _cauchy_float(z)")

    def _cauchy_mp(self, z, dps):
        """Generic mpmath route: ``_cauchy_float`` evaluated on mpmath numbers when it accepts
        them (arithmetic-only formulas), else the float64 value when dps ≤ 15."""
        with workdps(dps):
            zz = mpmath.mpc(to_mp(z))
            arr = np.empty(1, dtype=object)
            arr[0] = zz
            try:
                with np.errstate(all="ignore"):
                    val = np.asarray(self._cauchy_float(arr), dtype=object).reshape(-1)[0]
            except (TypeError, AttributeError, ValueError):
                val = None
            if not isinstance(val, (mpmath.mpc, mpmath.mpf)):
                if dps > 15:
                    raise NotImplementedError(
                        f"{self.name}: G is known only in float64; define _cauchy_mp(z, dps) "
                        f"for dps = {dps} > 15")
                val = mpmath.mpc(complex(self._G(np.array([complex(zz)]))[0]))
            val = mpmath.mpc(val)
        return round_back(val, dps)

    # ---- G′
    def _cauchy_derivative_float(self, z):
        z = np.asarray(z, dtype=complex)
        out = np.empty(z.shape, dtype=complex)
        off = z.imag != 0
        if np.any(off):
            out[off] = self._contour_derivative(z[off], 0.5 * np.abs(z.imag[off]))
        if np.any(~off):
            x = z.real[~off]
            dist, inside = self._distance_to_spectrum(x)
            res = np.empty(x.shape, dtype=complex)
            if np.any(~inside):
                res[~inside] = self._contour_derivative(x[~inside] + 0j, 0.5 * dist[~inside])
            if np.any(inside):
                xi = x[inside]
                h = self._limit_step(xi)
                vals = [self._contour_derivative(xi + 1j * h * 2.0**-k, 0.5 * h * 2.0**-k)
                        for k in range(RICHARDSON_LEVELS)]
                res[inside] = richardson(vals)[0]
            out[~off] = res
        return out

    def _contour_derivative(self, z, r, n=64):
        phi = 2 * math.pi * (np.arange(n) + 0.5) / n
        e = np.exp(1j * phi)
        pts = z[:, None] + r[:, None] * e[None, :]
        vals = self._G(pts.reshape(-1)).reshape(pts.shape)
        return (vals * e.conj()[None, :]).mean(axis=1) / r

    @mp_route
    def _cauchy_derivative_mp(self, z, dps):
        zz = mpmath.mpc(z)
        if mpmath.im(zz) != 0:
            return self._contour_derivative_mp(zz, abs(mpmath.im(zz)) / 2, dps)
        x = float(mpmath.re(zz))
        dist, inside = self._distance_to_spectrum(np.array([x]))
        if inside[0]:
            h = mpmath.mpf(float(self._limit_step(np.array([x]))[0]))
            return mpmath.limit(lambda t: self._contour_derivative_mp(
                zz + 1j * h * t, h * t / 2, dps), 0, direction=1)
        return self._contour_derivative_mp(zz, mpmath.mpf(float(dist[0])) / 2, dps)

    def _contour_derivative_mp(self, z, r, dps):
        n = int(_CONTOUR_BITS_PER_DIGIT * inner_dps(dps)) + _CONTOUR_EXTRA_NODES
        total = mpmath.mpc(0)
        for k in range(n):
            e = mpmath.expjpi(2 * (k + mpmath.mpf(1) / 2) / n)
            total += self._G_mp(z + r * e, inner_dps(dps)) / e
        return total / (n * r)

    def _distance_to_spectrum(self, x):
        """Distance from real x to the support ∪ atoms, and whether x is inside the support."""
        pts = [a for a, _ in self.atoms()]
        dist = np.full(x.shape, np.inf)
        inside = np.zeros(x.shape, bool)
        for a, b in self.support():
            inside |= (x >= a) & (x <= b)
            dist = np.minimum(dist, np.maximum(np.maximum(a - x, x - b), 0.0))
        for p in pts:
            dist = np.minimum(dist, np.abs(x - p))
        return dist, inside | (dist == 0)

    def _scale(self):
        # an unbounded support (once known: the scan itself may need the scale): the width
        # of the bulk, the tail map's s
        known = "structure" in self._cache() or self._declares("_support")
        if known and self._unbounded():
            return self._tail_map(-math.inf, math.inf).s
        lo, hi = self._hull()
        return max(hi - lo, TINY)

    def _limit_step(self, x):
        """Initial ε of an ε → 0 extrapolation at x: a fraction of the distance to the
        nearest edge or atom (the radius in which G(x + iε) is analytic in ε)."""
        edges = [e for ab in self.support() for e in ab] + [a for a, _ in self.atoms()]
        d = np.full(np.shape(x), 0.05 * self._scale())
        for e in edges:
            d = np.minimum(d, 0.25 * np.abs(np.asarray(x) - e))
        return np.maximum(d, TINY)

    # ---- density
    def _pdf_float(self, x):
        with np.errstate(invalid="ignore"):
            g = self._G(np.asarray(x, dtype=float) + 0j)
            rho = -g.imag / math.pi
        out = np.where(np.isfinite(g), np.maximum(rho, 0.0), np.inf)
        return out

    @mp_route
    def _pdf_mp(self, x, dps):
        g = self._G_mp(mpmath.mpc(x), inner_dps(dps))
        return mpmath.inf if mpmath.isinf(g) else max(-mpmath.im(g) / mpmath.pi, mpmath.mpf(0))

    def _pdf_limit_table(self, x):
        """(limit, error estimate) of −Im G(x + iε)/π as ε → 0 by Richardson extrapolation over
        ε_k = ε₀ 2^{−k}, ε₀ = ``_LIMIT_STEP`` × the law's scale (x: finite float ndarray)."""
        x = np.asarray(x, dtype=float)
        h = _LIMIT_STEP * self._scale() * np.ones(x.shape)
        vals = [-self._G(x + 1j * h * 2.0**-k).imag / math.pi
                for k in range(RICHARDSON_LEVELS)]
        return richardson(vals)

    def _pdf_limit_float(self, x):
        return np.maximum(self._pdf_limit_table(x)[0], 0.0)

    @mp_route
    def _pdf_limit_mp(self, x, dps):
        h = mpmath.mpf(_LIMIT_STEP * self._scale())
        val = mpmath.limit(lambda t: -mpmath.im(self._G_mp(x + 1j * h * t, inner_dps(dps))) / mpmath.pi,
                           0, direction=1)
        return max(val, mpmath.mpf(0))

    # ---- support and atoms
    def _hull(self):
        """A bounding interval [c − r, c + r] of the law (support and atoms).

        Declared support and atoms give it directly; otherwise the contour mass
        (1/2πi)∮_{|z−c|=r} G(z) dz = μ(disc) is 1 exactly when the disc holds the law: r grows
        until it is, the centre moves to the contour mean, and r shrinks back while it stays."""
        cache = self._cache()
        if "hull" in cache:
            return cache["hull"]
        pts = []
        if self._declares("_support"):
            pts += [e for ab in self._support(None) for e in ab]
        if self._declares("_atoms"):
            pts += [a for a, _ in self._atoms(None)]
        if pts and self._declares("_support") and self._declares("_atoms"):
            lo, hi = min(pts), max(pts)
            pad = _HULL_PAD * max(hi - lo, abs(lo), abs(hi), TINY)
            cache["hull"] = (lo - pad, hi + pad)
            return cache["hull"]
        c, r = 0.0, 1.0
        for _ in range(120):
            if abs(self._contour_mass(c, r) - 1) < _CONTOUR_MASS_TOL:
                break
            r *= 4.0
        else:
            raise UnboundedHull(f"{self.name}: no bounded support found (contour mass ≠ 1 up "
                                f"to radius {r:g}); declare _support", r)
        c = self._contour_moment1(c, r)
        r *= 2
        for _ in range(2000):
            if abs(self._contour_mass(c, r / 1.25) - 1) < _CONTOUR_MASS_TOL and r > _HULL_MIN_RADIUS:
                r /= 1.25
            else:
                break
        r *= 1.25  # keep a margin: the density must vanish at both ends of the scan
        cache["hull"] = (c - r, c + r)
        return cache["hull"]

    def _contour_nodes(self, c, r):
        phi = 2 * math.pi * (np.arange(_CONTOUR_NODES) + 0.5) / _CONTOUR_NODES
        zeta = c + r * np.exp(1j * phi)
        return zeta, self._G(zeta)

    def _contour_mass(self, c, r):
        zeta, g = self._contour_nodes(c, r)
        return complex(np.mean(g * (zeta - c))).real

    def _contour_moment1(self, c, r):
        zeta, g = self._contour_nodes(c, r)
        return complex(np.mean(g * (zeta - c) * zeta)).real

    def _structure(self, open_ends=None):
        """Float64 support and atoms of a law that does not declare them (cached).

        ``open_ends`` = (left, right): the law's density does not vanish far out on that side
        (:class:`UnboundedScan`, :class:`UnboundedHull`): the scan runs on the compactified
        grid x = c + s·tan y (:class:`TailMap`, y uniform in (−π/2, π/2)) and a component
        reaching that end of it extends to ±∞, its mass (the check below) taken from its
        :class:`TailInterval`."""
        cache = self._cache()
        if "structure" in cache:
            return cache["structure"]
        if open_ends is None:
            lo, hi = self._hull()
        err = None
        for n in (_SCAN_POINTS, 4 * _SCAN_POINTS, 16 * _SCAN_POINTS):
            if open_ends is None:
                x = np.linspace(lo, hi, n)
            else:
                tm = self._tail_map(-math.inf, math.inf)
                x = tm.c + tm.s * np.tan(np.linspace(-0.5 * math.pi, 0.5 * math.pi, n + 2)[1:-1])
            support = (self._support(None) if self._declares("_support")
                       else self._scan_support(x, open_ends or (False, False)))
            atoms = (self._atoms(None) if self._declares("_atoms")
                     else self._scan_atoms(x, support))
            mass = math.fsum(w for _, w in atoms) + math.fsum(
                tail_interval(self._pdf_float, self._tail_map(a, b), **_GENERIC_SIDES).mass
                if unbounded(a, b) else
                self._quad_theta(a, b, _PANELS, lambda th, a=a, b=b: self._theta_density(a, b, th))
                for a, b in support)
            err = abs(mass - 1)
            if err <= SCAN_MASS_TOL:
                cache["structure"] = (support, atoms)
                return cache["structure"]
        raise ArithmeticError(f"{self.name}: the support and atoms found carry mass "
                              f"{1 - err:.12g} ≠ 1 (a component narrower than the scan, or an "
                              f"atom inside the support): declare _support/_atoms")

    def _scan_support(self, x, open_ends=(False, False)):
        rho = self._pdf_float(x)
        big = np.max(rho[np.isfinite(rho)], initial=0.0)
        if big == 0:
            return []
        floor = 64 * FLOAT_EPS * big
        inside = rho > floor
        if inside[0] and not open_ends[0] or inside[-1] and not open_ends[1]:
            raise UnboundedScan(f"{self.name}: density non-zero at the end of the scan "
                                f"[{x[0]:.6g}, {x[-1]:.6g}]", bool(inside[0]), bool(inside[-1]))

        def f(t):
            return float(self._pdf_float(np.array([t]))[0]) - floor

        def edge(out, inn):
            """The first float inside the support next to the edge between ``out`` and ``inn``:
            brentq to a few ulps, then bisection down to adjacent floats."""
            from scipy.optimize import brentq  # scipy.optimize: ~0.7 s, kept out of `import freeattn`

            lo, hi = min(out, inn), max(out, inn)
            tol = 2 * FLOAT_EPS * max(abs(lo), abs(hi))
            r = brentq(f, lo, hi, xtol=max(tol, TINY), rtol=4 * FLOAT_EPS, maxiter=200)
            sgn = 1.0 if inn > out else -1.0
            o, i_ = r - sgn * 4 * tol, r + sgn * 4 * tol
            if not (f(o) <= 0 and sgn * (o - out) >= 0):
                o = out
            if not (f(i_) > 0 and sgn * (inn - i_) >= 0):
                i_ = inn
            for _ in range(1100):
                mid = 0.5 * (o + i_)
                if mid == o or mid == i_:
                    break
                if f(mid) > 0:
                    i_ = mid
                else:
                    o = mid
            return i_

        # padded by a point outside at either end: a component reaching an end of the scan
        # (open_ends only) starts at −∞ or ends at +∞
        d = np.diff(np.concatenate([[0], inside.astype(int), [0]]))
        starts = np.flatnonzero(d == 1) - 1  # inside from index s + 1
        ends = np.flatnonzero(d == -1) - 1   # inside up to index e
        return [(-math.inf if s < 0 else edge(x[s], x[s + 1]),
                 math.inf if e + 1 >= len(x) else edge(x[e + 1], x[e]))
                for s, e in zip(starts, ends)]

    def _scan_atoms(self, x, support):
        outside = np.ones(x.shape, bool)
        for a, b in support:
            outside &= (x < a) | (x > b)
        with np.errstate(all="ignore"):
            g = self._G(x + 0j).real
        atoms = []
        i = 0
        while i < len(x) - 1:
            if outside[i] and outside[i + 1] and not any(x[i] < a < x[i + 1] for a, _ in support):
                gl, gr = g[i], g[i + 1]
                if not np.isfinite(gl):
                    loc = x[i]
                elif gr > gl + _JUMP_RTOL * (abs(gl) + abs(gr)) or not np.isfinite(gr):
                    loc = self._bisect_pole(x[i], x[i + 1], gl)
                else:
                    i += 1
                    continue
                edges = [e for ab in support for e in ab] + [p for p, _ in atoms]
                d = min([x[i + 1] - x[i]] + [abs(loc - e) for e in edges if e != loc])
                mass = self._atom_mass(loc, 0.25 * d)
                if mass > 0:
                    atoms.append((float(loc), float(mass)))
                i += 2 if not np.isfinite(gl) else 1
                continue
            i += 1
        return atoms

    def _bisect_pole(self, lo, hi, glo):
        """Pole of the real, decreasing-between-poles G in (lo, hi), given G(lo) < G(hi).

        Bisection to adjacent floats; a pole at 0 (the commonest atom: MP, ⊠ products) is
        recognised exactly when the final bracket straddles 0."""
        for _ in range(1100):
            mid = 0.5 * (lo + hi)
            if mid == lo or mid == hi:
                break
            with np.errstate(all="ignore"):
                gm = self._G(np.array([mid + 0j]))[0].real
            if not np.isfinite(gm):  # G overflows within ~1e-308 of the pole
                return 0.0 if lo <= 0.0 <= hi else mid
            if gm > glo:
                hi = mid
            else:
                lo, glo = mid, gm
        if lo <= 0.0 <= hi:
            return 0.0
        return 0.5 * (lo + hi)

    def _atom_mass(self, a, h):
        """lim_{ε↓0} iε G(a + iε) by Richardson extrapolation from ε = h."""
        eps = h * 2.0 ** -np.arange(RICHARDSON_LEVELS)
        vals = [(1j * e * self._G(np.array([a + 1j * e]))[0]).real for e in eps]
        return float(richardson(vals)[0])

    def _support(self, dps):
        support = self._structure()[0]
        if dps is None:
            return list(support)
        return [(self._refine_edge_mp(a, dps, left=True) if math.isfinite(a) else mpmath.mpf(a),
                 self._refine_edge_mp(b, dps, left=False) if math.isfinite(b) else mpmath.mpf(b))
                for a, b in support]

    def _refine_edge_mp(self, e, dps, left):
        """Edge at ``dps`` digits: bisection on ρ > 10^(−dps)·scale around the float edge."""
        with workdps(dps):
            e = mpmath.mpf(e)
            w = _EDGE_BRACKET * (1 + abs(e))
            lo, hi = e - w, e + w
            floor = tolerance(inner_dps(dps))

            def inside(t):
                return self._pdf_mp(t, inner_dps(dps)) > floor

            if inside(lo if left else hi) or not inside(hi if left else lo):
                raise ArithmeticError(f"{self.name}: the float edge {float(e)!r} does not bracket "
                                      f"the {dps}-digit edge")
            tol = tolerance(dps, _MP_ROOT_TOL) * (1 + abs(e))
            while hi - lo > tol:
                mid = (lo + hi) / 2
                if inside(mid) == left:
                    hi = mid
                else:
                    lo = mid
            val = (lo + hi) / 2
        return round_back(val, dps)

    def _atoms(self, dps):
        atoms = self._structure()[1]
        if dps is None:
            return list(atoms)
        out = []
        with workdps(dps):
            for a, w in atoms:
                loc = mpmath.mpf(a)
                h = _ATOM_STEP * (1 + abs(loc))
                mass = mpmath.limit(lambda t: mpmath.re(1j * h * t * self._G_mp(loc + 1j * h * t, inner_dps(dps))),
                                    0, direction=1)
                out.append((loc, mass))
        return round_back(out, dps)

    # ---- cdf / sf / ppf
    def _theta_density(self, a, b, th):
        """ρ(x(θ)) x′(θ) on the support interval [a, b] at θ ∈ (0, π) (1-D float array).

        Nodes whose x rounds onto an edge take the value at the nearest resolvable θ (the
        θ-integrand is bounded at square-root and inverse-square-root edges); x′(θ) = (b − a)
        sin θ / 2 = sqrt((x − a)(b − x)) is taken at the rounded x so that ρ·x′ stays exact at
        an inverse-square-root edge."""
        pad = 8 * FLOAT_EPS * max(abs(a), abs(b))
        t = np.clip(th, float(_theta_of_x(a, b, a + pad)), float(_theta_of_x(a, b, b - pad)))
        x = _x_of_theta(a, b, t)
        return self._pdf_float(x) * (np.sqrt(x - a) * np.sqrt(b - x))  # no overflow

    def _quad_pieces(self):
        """The pieces of the float64 quadrature of :meth:`expect`: (a, b, starting θ-panels,
        θ-density ρ(x(θ)) x′(θ)) per support interval.  A law with its own θ-tables (refined
        panels, a density accurate next to the edges) overrides this."""
        self._refuse_unbounded("a quadrature against the density (moments, expect, entropy)")
        return [(a, b, _PANELS, lambda th, a=a, b=b: self._theta_density(a, b, th))
                for a, b in self.support()]

    def _quad_theta(self, a, b, panels, density, func=None):
        """∫ func(x) ρ(x) dx over [a, b] (func None: the mass) from the θ-density, by
        :func:`adaptive_theta_quad` starting from ``panels``.  The density at a set of nodes
        is kept (a few sets per law), so that m₁, m₂, … on the same panels evaluate it once."""
        memo = self._cache().setdefault("theta_density", {})

        def dens(th):
            key = (a, b, th.tobytes())
            if key not in memo:
                if len(memo) >= _DENSITY_MEMO:
                    memo.pop(next(iter(memo)))
                memo[key] = np.asarray(density(th), dtype=float)
            return memo[key]

        if func is None:
            f = dens
        else:
            def f(th):
                return np.asarray(func(_x_of_theta(a, b, th)), dtype=float) * dens(th)
        return adaptive_theta_quad(f, np.asarray(panels, dtype=float))[0]

    def _quad_interval_mp(self, a, b, func, dps, upper=None, weight=True):
        """∫ func(x) ρ(x) dx over [a, b] (``weight=False``: ∫ func(x) dx) at ``dps`` digits, in
        θ (x = a + (b − a) sin²(θ/2), up to θ = ``upper``): Gauss–Legendre pieces bisected
        to the precision, the pieces touching either end in s with θ = h s^m
        (:func:`freeattn.quadrature.ends.theta_integral_mp`, m = ``_MP_END_POWER``), so that
        an integrable singularity at an end — log ρ at a hard edge in the entropy, log x at 0 in
        E[log X] — is not stepped over by a single rule (MP(1).entropy(dps=20) was 6.4e-8 off,
        E[log X] 1.3e-7).  x is kept a few ulps of the evaluation precision off the ends (measured from the end
        itself, through φ = π − θ next to b; an end at 0 is not padded at all); dx/dθ = sqrt((x − a)(b − x)) is taken at that x
        (bounded ρ·dx/dθ at inverse-square-root edges), as in the float route."""
        w = b - a
        # a point may come as close to an end as the precision at which ρ reads it resolves
        # (ρ is evaluated at inner_dps, and mp_route takes x at inner_dps + GUARD_DPS digits)
        pad_a, pad_b = (tolerance(inner_dps(dps, 2)) * abs(e) for e in (a, b))

        def f(th, phi=None):
            with mpmath.workdps(inner_dps(dps, 3)):
                if phi is None:
                    d = w * mpmath.sin(th / 2) ** 2
                    xx = a + max(d, pad_a) if d <= w / 2 else b - max(w - d, pad_b)
                else:
                    xx = b - max(w * mpmath.sin(phi / 2) ** 2, pad_b)
            v = func(xx)
            if weight:
                v = v * self._pdf_mp(xx, inner_dps(dps))
            return v * mpmath.sqrt((xx - a) * (b - xx))

        hi = +mpmath.pi if upper is None else upper
        rough = mpmath.quad(f, [0, hi / 2, hi], method="gauss-legendre", maxdegree=3)
        tol = tolerance(dps, _MP_REL_TOL) * max(abs(rough), tolerance(dps))
        return theta_integral_mp(f, mpmath.mpf(0), hi, tol, m_lo=_MP_END_POWER,
                                 m_hi=_MP_END_POWER if upper is None else 1)

    def _tables(self):
        """The float64 :class:`~freeattn.quadrature.tables.Interval` s of the support
        (cached): two sides per interval, adaptive u-panels of the density from each end
        (:func:`density_interval`), from which cdf, sf, ppf and isf are read
        (:mod:`freeattn.quadrature.tables`, the one implementation)."""
        cache = self._cache()
        if "tables" not in cache:
            cache["tables"] = [tail_interval(self._pdf_float, self._tail_map(a, b),
                                             **_GENERIC_SIDES) if unbounded(a, b)
                               else density_interval(self._pdf_float, a, b, **_GENERIC_SIDES)
                               for a, b in self.support()]
        return cache["tables"]

    def _unbounded(self):
        """Whether a support interval reaches ±∞ (a heavy-tailed law, e.g. Cauchy)."""
        return any(unbounded(a, b) for a, b in self.support())

    def _tail_map(self, a, b):
        """The :class:`TailMap` of an unbounded interval (a, b): centre and scale from
        F = 1/G at i·t (t: the scale of the finite ends), c = −Re F(it), s = Im F(it) − t
        (Im F(z) ≥ Im z for every law, with equality only for a point mass; exact for a
        Cauchy law, F(z) = z − c + is), so that the law's bulk sits at |y| ~ 1."""
        ends = [abs(e) for e in (a, b) if math.isfinite(e)]
        t = 1.0 + max(ends, default=0.0)
        f = 1.0 / complex(self._G(np.array([1j * t]))[0])
        c, s = -f.real, f.imag - t
        if not (math.isfinite(c) and math.isfinite(s) and s > FLOAT_EPS * t):
            c, s = 0.0, t
        return TailMap(a, b, c, s)

    def _refuse_unbounded(self, what):
        if self._unbounded():
            raise ArithmeticError(
                f"{self.name}: {what} is not available for a law with unbounded support "
                f"{self.support()}: ∫ x^k dμ over an infinite interval need not be finite (it "
                f"diverges for the Cauchy law for every k ≥ 1) and is not computed")

    def _interval_masses(self):
        return [iv.mass for iv in self._tables()]

    def _cdf_float(self, x):
        return cdf_sf(np.asarray(x, dtype=float), self.atoms(), self._tables())

    def _sf_float(self, x):
        return cdf_sf(np.asarray(x, dtype=float), self.atoms(), self._tables(), upper=True)

    def _mp_tables(self, dps):
        """:class:`~freeattn.quadrature.tables.MpInterval` s at the working precision
        (``dps``: the caller's), their masses cached per precision."""
        if self._unbounded():
            raise NotImplementedError(f"{self.name}: cdf/sf/ppf at dps digits are not "
                                      f"implemented on an unbounded support (float64 only)")
        return [mp_interval(self._pdf_mp, a, b, dps, self._cache())
                for a, b in self.support(inner_dps(dps))]

    @mp_route
    def _cdf_mp(self, x, dps):
        return cdf_sf(np.array([x], dtype=object), self.atoms(inner_dps(dps)),
                      self._mp_tables(dps))[0]

    @mp_route
    def _sf_mp(self, x, dps):
        return cdf_sf(np.array([x], dtype=object), self.atoms(inner_dps(dps)),
                      self._mp_tables(dps), upper=True)[0]

    def _ppf_float(self, q):
        q = np.asarray(q, dtype=float)
        if not self.atoms() and not self.support():
            raise ArithmeticError(f"{self.name} has neither atoms nor a support")
        if any(a < loc < b for loc, _ in self.atoms() for a, b in self.support()):
            return self._ppf_on_cdf(q)
        return quantile(q, self.atoms(), self._tables())

    def _isf_float(self, q):
        q = np.asarray(q, dtype=float)
        if any(a < loc < b for loc, _ in self.atoms() for a, b in self.support()):
            return self._ppf_on_cdf(1.0 - q)
        return quantile(q, self.atoms(), self._tables(), upper=True)

    @mp_route
    def _isf_mp(self, q, dps):
        """isf at ``dps`` digits: ppf(1 − q) (q, 1 − q exact at the working precision)."""
        return self._ppf_mp(1 - q, inner_dps(dps))

    def _ppf_on_cdf(self, q):
        """Quantiles by root-finding on the cdf itself (atoms inside the support): exact at an
        atom's jump, ``find_root`` (Chandrupatla) on cdf(x) − q elsewhere."""
        out = np.full(q.shape, np.nan)
        ends = [e for ab in self.support() for e in ab] + [a for a, _ in self.atoms()]
        lo, hi = min(ends), max(ends)
        out[q <= 0] = lo
        out[q >= 1] = hi
        todo = (q > 0) & (q < 1)
        for a, w in self.atoms():
            fa = float(self._cdf_float(np.array([a]))[0])
            m = todo & (q > fa - w) & (q <= fa)
            out[m] = a
            todo &= ~m
        if np.any(todo):
            def F(x, r):
                return self._cdf_float(x.reshape(-1)).reshape(x.shape) - r

            from scipy.optimize.elementwise import find_root  # ~0.7 s: kept out of `import freeattn`

            r = q[todo]
            res = find_root(F, (np.full(r.shape, lo), np.full(r.shape, hi)), args=(r,),
                            tolerances=dict(xatol=TINY, xrtol=4 * FLOAT_EPS, fatol=0, frtol=0))
            out[todo] = res.x
        return out

    def _ppf_mp(self, q, dps):
        """Quantile at ``dps`` digits: exact at an atom's jump; otherwise Newton's method on
        F(x) = q with F′ = ρ, from the float64 quantile (quadratic convergence: two or three
        cdf evaluations), ``mpmath.findroot`` (Anderson, bracketing) if Newton leaves the
        support interval."""
        with workdps(dps):
            q = to_mp(q)
            atoms = self.atoms(dps)
            support = self.support(dps)
            ends = [e for ab in support for e in ab] + [a for a, _ in atoms]
            val = None
            if q <= 0:
                val = min(ends)
            elif q >= 1:
                val = max(ends)
            for a, w in atoms:
                if val is None:
                    fa = self._cdf_mp(a, inner_dps(dps))
                    if fa - w < q <= fa:
                        val = a
            if val is None:
                x = mpmath.mpf(float(self._ppf_float(np.array([float(q)]))[0]))
                a, b = next(((a, b) for a, b in support if a <= x <= b), (min(ends), max(ends)))
                x = min(max(x, a), b)
                tol = tolerance(dps, _MP_ROOT_TOL) * (1 + abs(x))
                for _ in range(12):
                    r = self._cdf_mp(x, inner_dps(dps)) - q
                    d = self._pdf_mp(x, inner_dps(dps))
                    if not (d > 0) or mpmath.isinf(d):
                        x = None
                        break
                    step = r / d
                    x -= step
                    if not (a < x < b):
                        x = None
                        break
                    if abs(step) <= tol:
                        break
                if x is None:
                    x = mpmath.findroot(lambda t: self._cdf_mp(t, inner_dps(dps)) - q, (a, b), solver="anderson")
                val = x
        return round_back(val, dps)

    def _moment_quad(self, k, dps):
        self._refuse_unbounded(f"the moment of order {k}")
        if dps is None:
            return self.expect(lambda x: x**k)
        return self.expect(lambda x: x**k, dps=dps)

