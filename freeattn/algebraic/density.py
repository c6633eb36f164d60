"""The density of the Stieltjes branch as θ-integrands, and its tables for quadrature/.

ρ(x) = −Im G(x + i0)/π on each support interval, written in the distance coordinate from either
end (θ from a, φ = π − θ from b), with the power m of the rule in s at a hard end read off the
Newton polygon or the measured slope of log|G|; the cdf tables (two
:class:`~freeattn.quadrature.tables.Side` s per interval), the mass self-check's quadrature,
:meth:`expect`'s θ-quadrature and the mpmath θ-integral.

:class:`DensityMixin` is a part of :class:`freeattn.laws.AlgebraicLaw`.
"""
from __future__ import annotations

import cmath
import functools
import math
from fractions import Fraction
from functools import cached_property

import mpmath
import numpy as np
import sympy as sp

from .._context import FLOAT_EPS, FLOAT_REFERENCE_DPS, tolerance, workdps
from ..quadrature.ends import end_rule, end_zone, gregory_end, theta_integral_mp
from ..quadrature.tables import Interval, MpInterval, Side, compensated_cumsum
from ..quadrature.theta import (adaptive_panels, arb_to_mpf, flint, graded_half_panels,
                                graded_panels, mpf_to_arb, x_of_theta as _x_of_theta)
# the seeded polish's zone and acceptance, shared with the mpmath route it stands in for
from .branch import _EDGE_ZONE, _GUESS_RTOL, _MP_POLISHED_MATCH, _NEWTON_STEP_RTOL
from .numeric_polynomial import _POLISH_GUARD_BITS

__all__ = ["DensityMixin"]

#: the trapezoid mass of a table is used when the rules on every second and fourth node
#: agree to this, and its error estimate (ends' terms + |M_h − M_2h|) is at most
#: _TABLE_MASS_TOL (far inside the mass check's MASS_TOL = 1e-9)
_TRAPEZOID_AGREE = 1e-9
#: distances (× (1 + |e|)) between which the slope of log|G| at a hard end is measured
_SLOPE_PROBES = (1e-10, 1e-20)
#: |e|/δ beyond which x = e ± δ at the working precision is formed with extra digits:
#: 10^(dps // _FAR_DIVISOR)
_FAR_DIVISOR = 3

# θ-panels for the cdf: geometric grading toward both ends handles any power-law edge.
#: Gauss–Legendre nodes per θ-panel
_GL_NODES = 12

_GRADE_LEVELS = 24

_GRADE_RATIO = 0.25

_UNIFORM_PANELS = 48

#: the cdf panels' acceptance: |I − (I_left + I_right)| ≤ max(_PANEL_TOL, _PANEL_RTOL·|I|)
_PANEL_TOL = 1e-16

_PANEL_RTOL = 4 * FLOAT_EPS

#: panels narrower than this (in θ or φ) are accepted as they are (θ's own rounding)
_FROZEN_WIDTH = 1e-15 * math.pi

#: bounds on the cdf panel refinement (every law builds its table in bounded time)
_MAX_PANELS = 20000

_MAX_LEVELS = 48
#: the mass check's refinement stops (the interval's mass unresolved: NaN, so the check
#: refuses) once this many of its nodes next to an end had no branch value (the tracker gave
#: up): each level doubled both its panels and their failures there, values_law(0.02, 1,
#: 0.001, 0.001) ran > 600 s in support() (issue 21 item 18: never a hang)
_MAX_UNRESOLVED = 1000

#: digits beyond ``dps`` to which the mpmath θ-quadrature pieces and the quantile Newton
#: iteration are converged
_MP_QUAD_EXTRA_DPS = 3

#: guard digits on top of log10(|e|/δ) where P is solved at e ± δ next to a hard end e ≠ 0
_END_GUARD_DPS = 10

#: bits above the working precision of the arb/acb node polish (:meth:`_nodes_arb`)
_ARB_GUARD_BITS = 20

_PANELS = graded_panels(_UNIFORM_PANELS, _GRADE_LEVELS, _GRADE_RATIO)

#: the starting panels of each side of a cdf table (u ∈ [0, π/2] from its end)
_HALF_PANELS = graded_half_panels(_UNIFORM_PANELS // 2, _GRADE_LEVELS, _GRADE_RATIO)

#: starting θ-panels and per-panel tolerances of the mass self-check's quadrature
#: (:attr:`AlgebraicLaw._quick_interval_masses`; the cdf tables keep ``_PANELS`` and 1e-16)
_MASS_UNIFORM_PANELS = 4

_MASS_GRADE_LEVELS = 4

_MASS_PANELS = graded_panels(_MASS_UNIFORM_PANELS, _MASS_GRADE_LEVELS, _GRADE_RATIO)

_MASS_PANEL_ATOL = 1e-14

_MASS_PANEL_RTOL = 1e-12
#: error estimate below which the mass from the branch table itself is used (_table_mass)
_TABLE_MASS_TOL = 100 * _MASS_PANEL_ATOL
#: order of Gregory's end correction at an end shared by two support intervals (_table_mass)
_GREGORY_ORDER = 6
#: halvings of a table's grid tried by _refined_table_mass before the adaptive quadrature
_REFINE_LEVELS = 4
#: table nodes next to each end within which _refined_table_mass solves its new points as
#: the table's own (every root, the interval's rule), not by Newton from the table
_FIT_NODES = 6
#: _refined_table_mass: the near-end construction must reproduce the θ-integrand at the
#: grid's earlier nodes to this
_REPRODUCE_TOL = 1e-12

#: θ = θ₁·s^m on a θ-panel [0, θ₁] touching an end at a pole of P's leading coefficient (a hard
#: edge, or an atom with the support next to it): there ρ ~ δ^{-α} with α = p/q < 1 and the
#: θ-integrand ~ θ^{1−2α}·h(θ^{2/q}), singular at θ = 0 for α > 1/2 (three MP(1) factors:
#: α = 3/4); in s it is analytic for every q dividing 2m (m = 6: q = 1, 2, 3, 4, 6, 12) and
#: bounded for every α < 1.  Square-root edges keep m = 1 (their θ-integrand is analytic).
_END_POWER = 6

#: θ-width of the end zone at a hard end integrated in s (:meth:`AlgebraicLaw._end_zone`)
_END_ZONE = 1e-3

def _digits_between(e, d):
    """Digits lost in forming e ± d at the working precision (|e| ≫ d), plus guard digits."""
    return int(mpmath.log10(abs(e) / d)) + _END_GUARD_DPS

#: angle below which sin(u/2) is u/2 to rounding (u²/24 < FLOAT_EPS)
_SMALL_ANGLE = 1e-8


def _distance_split(width, u):
    """The distance width·sin²(u/2) to an end as (m, e) with distance = m·2^e (np.frexp's
    form: m ∈ [1/2, 1), e an integer array), formed from u: finite and to full relative
    accuracy where the distance itself underflows (u ~ 1e-160 next to a hard end at 0)."""
    u = np.asarray(u, dtype=float)
    small = u < _SMALL_ANGLE  # sin(u/2) = u/2 to rounding (u/2 itself may underflow)
    ms, es = np.frexp(np.where(small, u, np.sin(0.5 * u)))
    es = es - small  # u/2 = m·2^(e − 1)
    md, ed = np.frexp(width * ms * ms)
    return md, ed + 2 * es


def _log_of_split(m, e):
    return np.log(m) + e * math.log(2.0)


def _extrapolate_to_zero(u, y):
    """Value at u = 0 of the polynomial through the points (u_i, y_i) (Neville)."""
    p = [float(v) for v in y]
    for k in range(1, len(p)):
        for i in range(len(p) - k):
            p[i] = (u[i + k] * p[i] - u[i] * p[i + 1]) / (u[i + k] - u[i])
    return p[0]


class DensityMixin:
    """The branch density as θ-integrands and tables (a part of AlgebraicLaw)."""

    @cached_property
    def _cdf_tables(self):
        """The tables of :attr:`_tables` with their cdf sides (``"interval"``: a
        :class:`~freeattn.quadrature.tables.Interval` of two sides, θ-panels from a and
        φ-panels from b) and, for :meth:`expect` and the mass check, the θ-panels over [0, π]
        (``"panels"``), their masses and cumulative masses (``"cum"``)."""
        for t in self._tables:
            if "interval" not in t:
                left, right = self._side(t, "a"), self._side(t, "b")
                corr = (self._shifted(t, "a")[1], self._shifted(t, "b")[1])
                t["interval"] = Interval(t["a"], t["b"], left, right, corr=corr)
                t["panels"] = np.concatenate([left.edges, math.pi - right.edges[::-1][1:]])
                t["panel_mass"] = np.concatenate([left.masses, right.masses[::-1]])
                t["cum"] = compensated_cumsum(t["panel_mass"])
        return self._tables

    @cached_property
    def _quick_interval_masses(self):
        """The mass of each support interval of :attr:`_tables`, for the mass self-check.

        The θ-integrand of the cdf tables, by 12-point Gauss–Legendre on fewer starting panels
        (``_MASS_UNIFORM_PANELS`` uniform, ``_MASS_GRADE_LEVELS`` graded toward each end), a
        panel split in two until its rule agrees with the sum over its halves to 1e-14
        absolute or 1e-12 relative (so panels are refined wherever the integrand is not
        smooth, e.g. at a hard edge; at most ``_MAX_LEVELS`` halvings and ``_MAX_PANELS``
        panels); the accepted halves sum to ~1e-12, far inside the check's ``MASS_TOL`` =
        1e-9.  Unlike
        :func:`~freeattn.laws._theta.adaptive_panels` (two integrand calls at least) each
        level evaluates the panel and its halves in one call, so a smooth interval costs one
        vectorised branch solve (the integrand's cost is mostly per call: the edge zones)."""
        out = []
        for t in self._tables:
            mass = self._table_mass(t)
            if mass is None:
                mass = self._refined_table_mass(t)
            if mass is not None:
                out.append(mass)
                continue
            lo, hi = _MASS_PANELS[:-1], _MASS_PANELS[1:]
            parts = []
            failed0 = self.__dict__.get("_unresolved_nodes", 0)
            for level in range(_MAX_LEVELS):
                if self.__dict__.get("_unresolved_nodes", 0) - failed0 > _MAX_UNRESOLVED:
                    parts = [np.array([math.nan])]
                    break
                mid = 0.5 * (lo + hi)
                n = lo.size
                v = self._gl(t, np.concatenate([lo, lo, mid]), np.concatenate([hi, mid, hi]))
                whole, left, right = v[:n], v[n:2 * n], v[2 * n:]
                ok = ((np.abs(whole - (left + right))
                       <= np.maximum(_MASS_PANEL_ATOL, _MASS_PANEL_RTOL * np.abs(whole)))
                      | (hi - lo <= _FROZEN_WIDTH))
                kept = sum(p.size for p in parts)
                if level == _MAX_LEVELS - 1 or kept + 2 * n > _MAX_PANELS:  # bounded time
                    ok[:] = True
                parts += [left[ok], right[ok]]
                lo, hi = np.concatenate([lo[~ok], mid[~ok]]), np.concatenate([mid[~ok], hi[~ok]])
                if lo.size == 0:
                    break
            out.append(math.fsum(np.concatenate(parts)))
        return out

    @staticmethod
    def _table_mass(t):
        """The interval's mass from the branch table itself, or None.

        The θ-integrand f(θ) = ρ(x(θ)) x′(θ) is an even analytic function of θ at a square-root
        edge (ρ ~ sin(θ/2) there, x′ ~ sin θ) and at a hard edge ρ ~ δ^{-1/2} (f(0) ≠ 0), so
        the trapezoid rule on the table's uniform θ-grid (the nodes' branch values are already
        solved), with end values extrapolated in θ², converges geometrically there.  At an end
        shared with the next support interval (``t["inner"]``) where the density is smooth
        across the breakpoint, f(θ) = ρ(x(θ))·(b − a)/2·sin θ is odd (f(0) = 0) and the
        trapezoid's error is O(h²): there Gregory's end correction (:func:`gregory_end`, order
        ``_GREGORY_ORDER``) is added instead.  Its error estimate is the ends' terms (the two
        extrapolations' difference, Gregory's last term) plus |M_h − M_2h| for the rules on
        every node and on every second; the mass is used when that is at most
        ``_TABLE_MASS_TOL`` and the rule on every fourth node agrees with every second's to
        ``_TRAPEZOID_AGREE``, which fails at an atom, a cusp, a stronger divergence, an end
        where f is not analytic, or a feature the grid does not resolve; then
        :meth:`_refined_table_mass` halves the grid, and where it declines too
        :attr:`_quick_interval_masses` integrates adaptively."""
        f = DensityMixin._table_integrand(t)
        if f is None:
            return None
        return DensityMixin._trapezoid_mass(f, t["theta"][0], DensityMixin._inner_ends(t))

    @staticmethod
    def _table_integrand(t):
        """The θ-integrand at the table's nodes, or None (an atom at an end, a node unsolved)."""
        g = t["g"]
        if t["pole_a"] or t["pole_b"] or not np.all(np.isfinite(g)):
            return None
        return np.maximum(-g.imag / math.pi, 0.0) * (t["b"] - t["a"]) * 0.5 * np.sin(t["theta"])

    @staticmethod
    def _inner_ends(t):
        return (t["a_mp"] in t["inner"], t["b_mp"] in t["inner"])

    @staticmethod
    def _trapezoid_mass(f, h, inner, err=0.0):
        """The rule of :meth:`_table_mass` on the samples ``f`` at k·h, k = 1 … N − 1
        (N = π/h divisible by 4; ``inner``: whether each end is shared with the next
        interval; ``err``: error already committed in forming f), or None."""
        ends = []  # per end: f(end), or None where Gregory's correction is used
        for seq, shared in ((f, inner[0]), (f[::-1], inner[1])):
            if shared:
                ends.append(None)
                err += gregory_end(np.concatenate([[0.0], seq]), h, _GREGORY_ORDER)[1]
                continue
            # the end value (nonzero at a hard edge ρ ~ δ^{-1/2}, where f is still even and
            # analytic): polynomial extrapolation in θ² from the first 5 and 6 nodes, their
            # difference bounding the end term's error
            u = (h * np.arange(1, 7)) ** 2
            e5 = _extrapolate_to_zero(u[:5], seq[:5])
            e6 = _extrapolate_to_zero(u, seq[:6])
            err += 0.5 * h * abs(e6 - e5)
            ends.append(max(e6, 0.0))
        m = []
        for stride in (1, 2, 4):
            hs = stride * h
            nodes = f[stride - 1::stride]
            total = math.fsum(nodes)
            for seq, value in ((nodes, ends[0]), (nodes[::-1], ends[1])):
                if value is None:  # f(end) = 0: the trapezoid's end term vanishes
                    total += gregory_end(np.concatenate([[0.0], seq]), hs,
                                         _GREGORY_ORDER)[0] / hs
                else:
                    total += 0.5 * value
            m.append(hs * total)
        err += abs(m[0] - m[1])
        if err <= _TABLE_MASS_TOL and abs(m[1] - m[2]) <= _TRAPEZOID_AGREE:
            return m[0]
        return None

    def _refined_table_mass(self, t):
        """:meth:`_table_mass` where the table declines: the grid halved up to
        ``_REFINE_LEVELS`` times, each time checked by the same rule (for a feature of f the
        table's grid does not resolve: a sharp peak in the bulk, an edge next to a pole).
        New points from the table's ``_FIT_NODES``-th node inward are the branch there
        (Newton from the table); nearer an end (where the table's linear guesses miss a hard
        end's G ~ δ^{-1/2}, and the branch would read the edge expansions of
        :meth:`_table_edges`) they come from the table's own construction
        (:meth:`_near_end_branch`), whose values at the grid's earlier nodes must reproduce
        those nodes (else None).  None when the table declines even so."""
        f = self._table_integrand(t)
        if f is None:
            return None
        a, b = t["a"], t["b"]
        w = b - a
        inner = self._inner_ends(t)
        h0 = h = t["theta"][0]
        n = f.size + 1  # π/h
        reach = _FIT_NODES * h0
        for _ in range(_REFINE_LEVELS):
            th = 0.5 * h * np.arange(1, 2 * n)  # the halved grid's nodes (odd k: new ones)
            new = np.zeros(th.shape, bool)
            new[0::2] = True
            near_a, near_b = th < reach, th > math.pi - reach
            bulk = new & ~(near_a | near_b)
            fine = np.empty(th.shape)
            fine[1::2] = f
            g = self._bulk_branch(t, th[bulk])
            if not np.all(np.isfinite(g)):
                return None
            fine[bulk] = np.maximum(-g.imag / math.pi, 0.0) * w * 0.5 * np.sin(th[bulk])
            for near, side in ((near_a, "a"), (near_b, "b")):
                g = self._near_end_branch(t, th[near], side)
                if not np.all(np.isfinite(g)):
                    return None
                v = np.maximum(-g.imag / math.pi, 0.0) * w * 0.5 * np.sin(th[near])
                old = ~new[near]
                if not np.all(np.abs(v[old] - fine[near][old]) <= _REPRODUCE_TOL):
                    return None  # not the table's branch (another sheet's continuation)
                fine[near] = np.where(old, fine[near], v)
            f, h, n = fine, 0.5 * h, 2 * n
            mass = self._trapezoid_mass(f, h, inner)
            if mass is not None:
                return mass
        return None

    def _bulk_branch(self, t, th):
        """The branch at θ-points ``th`` between the table's nodes away from its ends: Newton
        on P(·, x) (as the table's nodes) from the table's linear interpolation, kept where it
        settles near that guess with Im G ≤ 0 (the acceptance of
        :meth:`_branch_in_table`), the others by :meth:`_branch_in_table`."""
        x = _x_of_theta(t["a"], t["b"], th)
        guess = (np.interp(th, t["theta"], t["g"].real)
                 + 1j * np.interp(th, t["theta"], t["g"].imag))
        g, step = self._num.newton(guess, x, steps=3)
        with np.errstate(invalid="ignore", over="ignore"):
            bad = ~(np.isfinite(g) & (step <= _NEWTON_STEP_RTOL * np.abs(g))
                    & (np.abs(g - guess) <= _GUESS_RTOL * np.abs(guess)) & (g.imag <= 0))
        if np.any(bad):
            g[bad] = self._branch_in_table(t, x[bad], th[bad])
        return g

    def _near_end_branch(self, t, th, side):
        """The branch at θ-points ``th`` within ``_FIT_NODES`` table nodes of the end
        ``side``, as the table's own nodes were solved (:attr:`_tables`: every root of P,
        the interval's rule — by continuity from the table's ``_FIT_NODES``-th node where
        several roots have Im < 0 —, two Newton steps)."""
        a, b = t["a"], t["b"]
        x = _x_of_theta(a, b, th)
        r = self._num.roots(x)
        info = t["info"]
        if info["rule"] != "unique":
            k = _FIT_NODES - 1 if side == "a" else len(t["theta"]) - _FIT_NODES
            info = dict(info, mid=float(_x_of_theta(a, b, t["theta"][k])), g_mid=t["g"][k])
        g = self._branch(None).select(r, info, x)
        g, _ = self._num.newton(g, x, steps=2)
        return g

    # cdf: Gauss–Legendre on θ-panels, x(θ) = a + (b − a)(1 − cos θ)/2
    def _theta_integrand_b(self, t, phi):
        """The θ-integrand at θ = π − φ with φ given exactly (nodes next to the end b: θ itself
        rounds to 4e-16 absolute there, which moved 2.5e-8 of the mass at a hard right end
        ρ ~ (b − x)^{-3/4} out of the cdf tables)."""
        a, b = t["a"], t["b"]
        inside = (phi > 0) & (phi < math.pi)
        f = np.zeros(phi.shape)
        if np.any(inside):
            ph = phi[inside]
            d = (b - a) * np.sin(0.5 * ph) ** 2
            if not self._tiny_ends(t):  # no end where G may leave float64's range
                g = self._branch_in_table(t, b - d, math.pi - ph, delta=-d)
                f[inside] = np.maximum(-g.imag / math.pi, 0.0) * (b - a) * 0.5 * np.sin(ph)
                return f
            f[inside] = self._scaled_density(t, b - d, math.pi - ph, -d,
                                             _distance_split(b - a, ph), np.sin(ph),
                                             np.zeros(ph.shape, bool))
        return f

    def _scaled_density(self, t, x, th, delta, split, sin_u, left):
        """ρ(x)·(b − a)/2·sin u, the θ-integrand at the distance δ = (b − a)·sin²(u/2) from
        the end (u = θ from a, φ from b; ``left``: from a; ``split``: |δ| as (m, e) with
        |δ| = m·2^e, ``sin_u``: sin u, each formed from the caller's exact coordinate),
        with the product formed from
        mantissas and binary exponents where G comes from the Puiseux data at a hard end 0
        alone (:meth:`_tiny_only_in_table`): there ρ and δ may over- or underflow while the
        integrand stays finite (ρ ~ δ^{-1/2}, δ ∝ u², at u ~ 1e-300), and exp(a log δ)
        would lose |a log δ|·ε (4e-14 of MarchenkoPastur(1).cdf(1e-300))."""
        w = t["b"] - t["a"]
        md, ed = split
        logd = _log_of_split(md, ed)
        only = self._tiny_only_in_table(t, delta, left, logd)
        out = np.empty(x.shape)
        rest = ~only
        if np.any(rest):
            g = self._branch_in_table(t, x[rest], th[rest], delta=delta[rest], logd=logd[rest])
            out[rest] = np.maximum(-g.imag / math.pi, 0.0) * w * 0.5 * sin_u[rest]
        if np.any(only):
            fm, fe = np.frexp(sin_u[only])
            fm, fe2 = np.frexp(fm * (0.5 * w / math.pi))
            g = self._cauchy_tiny(delta[only] + 0j,
                                  zsplit=(md[only], ed[only], ~left[only]),
                                  factor=(fm, fe + fe2))
            out[only] = np.maximum(-g.imag, 0.0)
        return out

    def _theta_integrand(self, t, th):
        a, b = t["a"], t["b"]
        x = _x_of_theta(a, b, th)
        inside = (th > 0) & (th < math.pi)  # not x: next to a ≠ 0, x rounds onto the end
        f = np.zeros(th.shape)
        if np.any(inside) and not self._tiny_ends(t):  # no end where G may leave float64's range
            g = self._branch_in_table(t, x[inside], th[inside])
            f[inside] = np.maximum(-g.imag / math.pi, 0.0) * (b - a) * 0.5 * np.sin(th[inside])
        elif np.any(inside):
            ti = th[inside]
            # the signed distance to the nearer end, as the table forms it from θ
            left = ti <= 0.5 * math.pi
            delta = np.where(left, (b - a) * np.sin(0.5 * ti) ** 2,
                             -(b - a) * np.cos(0.5 * ti) ** 2)
            # near a from θ (underflow-safe), near b as the table forms it from θ
            md, ed = _distance_split(b - a, np.where(left, ti, 1.0))
            mr, er = np.frexp(-delta)
            split = (np.where(left, md, mr), np.where(left, ed, er))
            f[inside] = self._scaled_density(t, x[inside], ti, delta, split, np.sin(ti), left)
        return f

    def _quad_pieces(self):
        """Quadrature pieces of :meth:`expect` (moments by ``method="quad"``): one per cdf
        table, starting from its refined θ-panels, with the table's θ-integrand (distance to
        the nearer end formed exactly from θ, edge expansions next to the ends)."""
        return [(t["a"], t["b"], t["panels"], lambda th, t=t: self._theta_integrand(t, th))
                for t in self._cdf_tables]

    def _end_powers(self, t):
        """(m_a, m_b): the power of the change of variables θ = θ₁·s^m used on θ-panels that
        touch the end a (θ = 0) or b (θ = π) of table ``t``.

        1 at a square-root edge and wherever G stays bounded.  At a hard edge (a pole of P's
        leading coefficient, G ~ δ^{-α}, ρ ~ δ^{-α}) with α = p/q: the θ-integrand is
        θ^{1−2α}·h(θ^{2/q}) (δ ∝ θ²), analytic in s for m = q (q odd) or q/2 (q even), so m = 1
        at the MP-like α = 1/2, 2 at α = 3/4, 3 at α = 2/3.  α is the exponent of a segment of
        the Newton polygon of P at z = 0 (exact) when the end is 0, the measured slope of
        log|G| between δ = 1e-10 and 1e-20 of the scale (rounded to p/q, q ≤ 12) elsewhere;
        ``_END_POWER`` when neither is conclusive and at an end carrying an atom."""
        if "end_powers" not in t:
            t["end_powers"] = tuple(self._end_power(t, e) for e in "ab")
        return t["end_powers"]

    def _end_power(self, t, end):
        e = t[end + "_mp"]
        if e not in set(self._branch(None).poles):
            return 1
        if t["pole_" + end]:
            return _END_POWER
        width = t["b"] - t["a"]
        d = np.array(_SLOPE_PROBES) * (1.0 + abs(float(e)))
        th = 2 * np.arcsin(np.sqrt(np.minimum(d / width, 1.0)))
        if end == "b":
            th = math.pi - th
        with np.errstate(all="ignore"):
            g = np.abs(self._branch_in_table(t, _x_of_theta(t["a"], t["b"], th), th))
            est = math.log(g[1] / g[0]) / math.log(d[0] / d[1])
        if not math.isfinite(est):
            return _END_POWER
        if est < 0.05:  # bounded: the θ-integrand is as smooth as at an interior point
            return 1
        alpha = None
        if e == 0:
            with workdps(FLOAT_REFERENCE_DPS):
                c = self._num.coefficients_mp()
                terms = {(k, sp.Integer(j)): v for k, row in enumerate(c)
                         for j, v in enumerate(row) if v != 0}
                cands = [-a for a, _, _ in self._newton_polygon(terms) if a < 0]
            if cands:
                best = min(cands, key=lambda v: abs(float(v) - est))
                if abs(float(best) - est) <= 0.05:
                    alpha = Fraction(int(best.p), int(best.q))
        if alpha is None:
            f = Fraction(est).limit_denominator(12)
            if abs(float(f) - est) > 0.01 or not 0 < f < 1:
                return _END_POWER
            alpha = f
        q = alpha.denominator
        return q if q % 2 else q // 2

    def _quad_theta(self, a, b, panels, density, func=None):
        """∫ func(x) ρ(x) dx over a support interval (:meth:`expect`): lawcore's adaptive
        θ-quadrature on the cdf table's panels, except in the end zones at a hard end
        (:meth:`_end_powers` m > 1), which take the rule in s of :meth:`_end_zone` (plain
        Gauss–Legendre in θ there left 1.2e-9 of MP(1)^⊠3's mass out)."""
        t = next((t for t in self._cdf_tables if t["a"] == a and t["b"] == b), None)
        if t is None or self._end_powers(t) == (1, 1):
            return super()._quad_theta(a, b, panels, density, func)
        ma, mb = self._end_powers(t)
        panels = np.asarray(panels, dtype=float)
        lo = _END_ZONE if ma > 1 else 0.0
        hi = math.pi - _END_ZONE if mb > 1 else math.pi
        inner = panels[(panels >= lo) & (panels <= hi)]
        inner = np.unique(np.concatenate([[lo], inner, [hi]]))
        weight = None if func is None else (
            lambda th: np.asarray(func(_x_of_theta(a, b, th)), dtype=float))
        parts = [super()._quad_theta(a, b, inner, density, func)]
        for end, m in (("a", ma), ("b", mb)):
            if m > 1:
                parts.append(math.fsum(self._end_zone(t, end, weight)[1]))
        return math.fsum(parts)

    def _side_integrand(self, t, end, weight=None):
        """The θ-integrand of table ``t`` in the distance coordinate u from the end ``end``
        (u = θ at a, u = φ = π − θ at b, both exact), times ``weight(θ)`` if given."""
        if end == "a":
            f = lambda u: self._theta_integrand(t, u)  # noqa: E731
        else:
            f = lambda u: self._theta_integrand_b(t, u)  # noqa: E731
        if weight is None:
            return f
        if end == "a":
            return lambda u: weight(u) * f(u)
        return lambda u: weight(math.pi - u) * f(u)

    def _side_rule(self, t, end, lo, hi, weight=None):
        """∫ over u ∈ [lo, hi] from the end ``end`` (vectorised): :func:`end_rule` with the
        end's power (:meth:`_end_powers`), i.e. in s at a hard end on panels touching it."""
        m = self._end_powers(t)[0 if end == "a" else 1]
        return end_rule(self._side_integrand(t, end, weight), lo, hi, m, _GL_NODES)

    def _gl(self, t, lo, hi, weight=None):
        """∫_lo^hi of the θ-integrand (θ-panels, vectorised over arrays lo, hi): the part in
        [0, π/2] in θ from a, the part in [π/2, π] in φ = π − θ from b (exact there), each by
        :meth:`_side_rule`."""
        lo, hi = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float))
        lo, hi = lo.reshape(-1), hi.reshape(-1)
        half = 0.5 * math.pi
        out = np.zeros(lo.shape)
        ml = lo < half
        if np.any(ml):
            out[ml] += self._side_rule(t, "a", lo[ml], np.minimum(hi[ml], half), weight)
        mr = hi > half
        if np.any(mr):
            out[mr] += self._side_rule(t, "b", math.pi - hi[mr],
                                       math.pi - np.maximum(lo[mr], half), weight)
        return out

    def _side(self, t, end):
        """The :class:`~freeattn.quadrature.tables.Side` of table ``t`` at ``end``: θ-panels
        (φ-panels at b) from the graded half grid refined until 12-point Gauss–Legendre
        agrees with its two halves to ``_PANEL_TOL`` absolute or ``_PANEL_RTOL`` relative
        (bounded: ``_MAX_LEVELS`` halvings, ``_MAX_PANELS`` panels), the zone
        [0, ``_END_ZONE``] at a hard end (m > 1) by :func:`end_zone` in s."""
        m = self._end_powers(t)[0 if end == "a" else 1]
        f = self._side_integrand(t, end)
        lo_u = _END_ZONE if m > 1 else 0.0
        start = _HALF_PANELS[(_HALF_PANELS > lo_u) & (_HALF_PANELS < 0.5 * math.pi)]
        start = np.concatenate([[lo_u], start, [0.5 * math.pi]])
        edges, mass = adaptive_panels(f, start, nodes=_GL_NODES, atol=_PANEL_TOL,
                                      rtol=_PANEL_RTOL, max_levels=_MAX_LEVELS,
                                      frozen=lambda lo, hi: hi - lo <= _FROZEN_WIDTH,
                                      max_panels=_MAX_PANELS // 2)
        if m > 1:
            e0, m0 = end_zone(f, m, _END_ZONE, _GL_NODES, _PANEL_TOL, _PANEL_RTOL, _MAX_LEVELS)
            edges, mass = np.concatenate([e0, edges[1:]]), np.concatenate([m0, mass])
        # bound methods in partials, not closures: a law still pickles after evaluation
        return Side(edges, mass, functools.partial(self._side_rule, t, end),
                    functools.partial(self._side_density, t, end))

    def _side_density(self, t, end, u):
        return self._side_integrand(t, end)(u)

    def _end_zone(self, t, end, weight=None):
        """θ-panels and masses of the zone [0, _END_ZONE] (end "a") or [π − _END_ZONE, π]
        (end "b") at a hard end, by :func:`end_zone` (expect: with ``weight``)."""
        m = self._end_powers(t)[0 if end == "a" else 1]
        edges, mass = end_zone(self._side_integrand(t, end, weight), m, _END_ZONE, _GL_NODES,
                               _PANEL_TOL, _PANEL_RTOL, _MAX_LEVELS)
        if end == "a":
            return edges, mass
        return math.pi - edges[::-1], mass[::-1]

    def _theta_integral_mp(self, info, th_lo, th_hi, dps, from_b=False):
        """∫ ρ(x(θ)) x′(θ) dθ over [th_lo, th_hi] at the working precision
        (:func:`~freeattn.quadrature.ends.theta_integral_mp`: Gauss–Legendre via mpmath.quad
        in θ, in which square-root edges are analytic, and in s at a hard end).

        ``from_b``: th_lo, th_hi are limits in φ = π − θ (the distance coordinate from b), the
        integral taken in φ with θ never formed (π − φ rounds onto π for φ < 10^-dps)."""
        t = self._table_of(info)
        a, b = t["a_mp"], t["b_mp"]
        ma, mb = self._end_powers(t)
        far = 1 / tolerance(dps // _FAR_DIVISOR)

        def f(th, phi=None, seed=None):
            # phi: π − θ given exactly (end pieces at b, where θ rounds next to π); seed: the
            # float64 branch value there (Newton's start), if known
            if phi is not None:
                dd = (b - a) * mpmath.sin(phi / 2) ** 2
                if dd <= 0:
                    return mpmath.mpf(0)
                if mb > 1 and b != 0 and abs(b) > dd * far:
                    g0 = complex(self._branch_in_table(
                        t, np.array([float(b - dd)]), np.array([float(th)]),
                        delta=np.array([-float(dd)]))[0])
                    with mpmath.workdps(mpmath.mp.dps + _digits_between(b, dd)):
                        g = self._num.newton_mp(mpmath.mpc(g0), b - dd)
                else:
                    g = self._support_branch_mp(b - dd, info, dps, seed, near=(b, -dd))
                return max(-mpmath.im(g), 0) / mpmath.pi * (b - a) / 2 * mpmath.sin(phi)
            # next to a hard end e ≠ 0, x = e ± δ at the working precision keeps only
            # ~dps − log10(|e|/δ) digits of δ (and rounds onto e below 10^-dps·|e|, where the
            # end zone in s puts nodes): there P is solved at x formed with that many extra
            # digits, from the float64 value (whose δ is exact from θ)
            left = th <= mpmath.pi / 2
            e = a if left else b
            dd = (b - a) * (mpmath.sin(th / 2) ** 2 if left else mpmath.cos(th / 2) ** 2)
            if dd <= 0:
                return mpmath.mpf(0)
            # x from the nearer end (a + (b − a) sin²(θ/2) next to b keeps only
            # dps − log10((b − a)/δ) digits of δ = b − x: 1e-27 of sf(b − 1e-12) at dps=30)
            xx = a + dd if left else b - dd
            if (ma if left else mb) > 1 and e != 0 and abs(e) > dd * far:
                g0 = complex(self._branch_in_table(t, np.array([float(xx)]),
                                                   np.array([float(th)]))[0])
                with mpmath.workdps(mpmath.mp.dps + _digits_between(e, dd)):
                    g = self._num.newton_mp(mpmath.mpc(g0), e + dd if left else e - dd)
                return max(-mpmath.im(g), 0) / mpmath.pi * (b - a) / 2 * mpmath.sin(th)
            if xx <= a or xx >= b:
                return mpmath.mpf(0)
            g = self._support_branch_mp(xx, info, dps, seed, near=(e, dd if left else -dd))
            return max(-mpmath.im(g), 0) / mpmath.pi * (b - a) / 2 * mpmath.sin(th)

        def f_nodes(ths, phis):
            """f at the nodes of one rule, Newton started from the float64 branch at all of
            them (one vectorised call of the table route, ~1e-15 instead of the table's
            interpolation: two Newton steps fewer)."""
            seeds = [None] * len(ths)
            try:
                with np.errstate(all="ignore"):
                    if phis is None:
                        thf = np.array([float(v) for v in ths])
                        g = self._branch_in_table(t, _x_of_theta(t["a"], t["b"], thf), thf)
                    else:
                        ph = np.array([float(v) for v in phis])
                        d = (t["b"] - t["a"]) * np.sin(0.5 * ph) ** 2
                        g = self._branch_in_table(t, t["b"] - d, math.pi - ph, delta=-d)
                seeds = [complex(v) for v in g]
            except (ArithmeticError, ValueError, IndexError):
                pass
            fast = self._nodes_arb(t, ths, phis, seeds, far)
            if phis is None:
                return [f(th, None, sd) if v is None else v
                        for th, sd, v in zip(ths, seeds, fast)]
            return [f(th, ph, sd) if v is None else v
                    for th, ph, sd, v in zip(ths, phis, seeds, fast)]

        # the pieces' error estimate meets the precision with QUAD_EXTRA_DIGITS to spare
        # (singularities of G near the support, e.g. the pole of 1/x next to MP's left edge,
        # slow the convergence of a long piece)
        def f_float(th, phi=None):  # the same integrand in float64 (sizes the mp rule)
            return self._theta_integrand(t, th) if phi is None else self._theta_integrand_b(t, phi)

        tol = tolerance(dps + _MP_QUAD_EXTRA_DPS)
        if from_b:  # in φ: the end b at φ = 0, the end a at φ = π
            def f_phi(u, phi=None, seed=None):
                return f(mpmath.pi - u, u, seed)

            def f_float_phi(u, phi=None):
                return self._theta_integrand_b(t, u)

            def f_nodes_phi(us, phis):
                return f_nodes([mpmath.pi - u for u in us], list(us))

            return theta_integral_mp(f_phi, th_lo, th_hi, tol, m_lo=mb, m_hi=ma,
                                     f_float=f_float_phi, f_nodes=f_nodes_phi, relative=True)
        return theta_integral_mp(f, th_lo, th_hi, tol, m_lo=ma, m_hi=mb, f_float=f_float,
                                 f_nodes=f_nodes, relative=True)

    def _interval_mass_mp(self, info, dps):
        """Mass of one support interval at ``dps`` digits: 1 − atoms for a law with one
        interval (total mass 1), else θ-quadrature (cached)."""
        cache = self.__dict__.setdefault("_mass_mp_cache", {})
        key = (info["lo"], info["hi"], dps)
        if key not in cache:
            if sum(1 for i in self._branch(dps).intervals if i["support"]) == 1:
                cache[key] = 1 - sum((m for _, m in self._atoms_raw(dps)), mpmath.mpf(0))
            else:
                cache[key] = self._theta_integral_mp(info, mpmath.mpf(0), mpmath.pi, dps)
        return cache[key]

    def _mp_intervals(self, dps):
        """The support intervals at the working precision as
        :class:`~freeattn.quadrature.tables.MpInterval` s (θ-integrals from either end)."""
        out = []
        for info in self._branch(dps).intervals:
            if not info["support"]:
                continue
            t = self._table_of(info)
            out.append(MpInterval(
                t["a_mp"], t["b_mp"], self._interval_mass_mp(info, dps),
                lambda th, info=info: self._theta_integral_mp(info, mpmath.mpf(0), th, dps),
                lambda th, info=info: self._theta_integral_mp(info, th, mpmath.pi, dps),
                lambda ph, info=info: self._theta_integral_mp(info, mpmath.mpf(0), ph, dps,
                                                              from_b=True)))
        return out

    def _nodes_arb(self, t, ths, phis, seeds, far):
        """The θ-integrand of :meth:`_theta_integral_mp` at the nodes of one rule where it is
        the seeded Newton polish of :meth:`_support_branch_mp` (a node outside the edge zones
        and off the hard-end route, its float64 seed finite), in python-flint's arb/acb at the
        working precision plus :data:`_ARB_GUARD_BITS`: each node's P(·, x) coefficients and
        Newton steps in C (mpmath's python arithmetic took ~1 ms a node, 90% of a 30-digit
        cdf).  Returns a list with an mpf per such node, None elsewhere (and for all nodes
        without python-flint): the caller evaluates those by the mpmath route.

        The polish and its acceptance are the mpmath route's (``newton_mp``'s stopping rule,
        Im G < 0, within ``_MP_POLISHED_MATCH`` of the seed), so the two agree to rounding."""
        n = len(ths)
        if flint is None or n == 0:
            return [None] * n
        a, b = t["a_mp"], t["b_mp"]
        ma, mb = self._end_powers(t)
        zone = _EDGE_ZONE * float(b - a)
        # edge and pole zones take the mpmath route's local expansions (next to an atom,
        # Newton on P itself keeps only dps − log10(|G|/|Im G|) digits of the density)
        edges = [float(e["e_mp"]) for e in t["edges"]]
        prec = mpmath.mp.prec
        old = flint.ctx.prec
        flint.ctx.prec = prec + _ARB_GUARD_BITS
        try:
            coeffs = [[mpf_to_arb(+v) for v in row] for row in self._num.coefficients_mp()]
            lo, hi = mpf_to_arb(a), mpf_to_arb(b)
            width = hi - lo
            scale = width / (2 * flint.arb.pi())
            tol = 2.0 ** (_POLISH_GUARD_BITS - prec)
            half = math.sqrt(tol)
            out = []
            for k in range(n):
                seed = seeds[k]
                if seed is None or not cmath.isfinite(seed):
                    out.append(None)
                    continue
                if phis is None:
                    th = ths[k]
                    left = th <= mpmath.pi / 2
                    e, m = (a, ma) if left else (b, mb)
                    s, c = (mpf_to_arb(th) / 2).sin_cos()
                    dd = width * (s * s if left else c * c)
                    x = lo + dd if left else hi - dd
                else:
                    e, m = b, mb
                    s, c = (mpf_to_arb(phis[k]) / 2).sin_cos()
                    dd = width * s * s
                    x = hi - dd
                ddf, xf = float(dd.mid()), float(x.mid())
                if (not ddf > 0 or not t["a"] < xf < t["b"]
                        or m > 1 and e != 0 and abs(float(e)) > ddf * float(far)
                        or any(abs(xf - v) <= zone for v in edges)):
                    out.append(None)  # the mpmath route: an end, the hard-end or edge route
                    continue
                g = _newton_arb(coeffs, x, flint.acb(seed.real, seed.imag), tol, half)
                gm = None if g is None else complex(float(g.real.mid()), float(g.imag.mid()))
                if (gm is None or not gm.imag < 0
                        or not abs(gm - seed) <= _MP_POLISHED_MATCH * abs(seed)):
                    out.append(None)
                    continue
                val = arb_to_mpf(-g.imag * scale * (2 * s * c))
                out.append(+val)
            return out
        finally:
            flint.ctx.prec = old


def _newton_arb(coeffs, x, g, tol, half, steps=60):
    """Newton polish (acb, midpoints) of a root of P(·, x) = Σ_k coeffs[k](x) G^k from ``g``,
    ``coeffs[k][j]`` the arb coefficient of G^k x^j: numeric_polynomial's ``newton_mp`` with
    its stopping rule (one step after |step| ≤ √tol·|G|) in python-flint, or None when a
    derivative vanishes."""
    C = []
    for row in coeffs[::-1]:
        acc = row[-1]
        for cj in row[-2::-1]:
            acc = acc * x + cj
        C.append(acc)

    def step(g):
        p, dp = C[0], 0
        for ck in C[1:]:
            dp = dp * g + p
            p = p * g + ck
        if dp == 0:
            return None
        return p / dp

    for _ in range(steps):
        d = step(g)
        if d is None:
            return None
        g = (g - d).mid()
        ad, ag = float(abs(d).mid()), float(abs(g).mid())
        if ad <= half * (ag + tol):
            if ad > tol * (ag + tol):
                d = step(g)
                if d is None:
                    return None
                g = (g - d).mid()
            break
    return g
