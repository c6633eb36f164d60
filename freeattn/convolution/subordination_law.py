"""The solver common to every subordination law (see :mod:`freeattn.convolution.subordination`).

Solution (float64, vectorised over points): fixed-point iteration far above the axis (where
the maps are strict contractions), then Newton's method continued down a geometric ladder of
heights Im z, and finally at the target itself — for real x that is the on-axis limit
G(x + i0): the system is solved at real z directly (u stays in the upper half-plane inside the
support), never at a fixed ε.  Newton's residual is checked at the end.  Edges are the real
critical points of the system, f(u, x) = 0 and det ∂_u f(u, x) = 0 with u real (Im ω → 0),
solved by Newton from a bracketing scan.  Atoms come from the Bercovici–Voiculescu and
Belinschi rules.  The mpmath route polishes the float64 solution by Newton at ``dps`` digits.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from .._context import (FLOAT_EPS, FLOAT_REFERENCE_DPS, MASS_TOL, TINY, inner_dps, mp_route,
                        tolerance, workdps)
from ..laws.base import Law
from ..laws.generic import SideRule, density_interval
from ..quadrature.tables import Interval, Side, cdf_sf, cdf_sf_at_distance, monotone, quantile
from ..quadrature.theta import theta_of_x, x_of_theta
from .subordination_edges import SupportEdges
from .subordination_inputs import (_DIFF_FLOOR, _DIFF_STEP, _LADDER_FLOOR,  # noqa: F401
                                   _NEWTON_STEP_RTOL, _POLISH_RTOL, _WARM_SLACK, _Input,
                                   _put_state, _solve2, _sub_state)

__all__ = ["SubordinationLaw"]

#: distinct abscissae whose density a law keeps (_pdf_frame's memo; cleared when full)
_PDF_MEMO_SIZE = 1 << 16
#: θ-nodes per support interval of the on-axis warm-start table
_TABLE_NODES = 257
#: ratio between successive heights of the continuation ladder, of the finer one that
#: stragglers and wrong-sheet points are solved again on, and the fixed-point sweeps there
_LADDER_RATIO = 0.25
_FINE_RATIO = 0.7
_FINE_FIXED_ITERS = 400
#: Gauss–Legendre nodes per u-panel of the cdf tables, and their refinement (_cdf_table)
_GL_NODES = 16
_HALF_PANELS = 16
_PANEL_ATOL = 1e-14
_PANEL_RTOL = 1e-11
_PANEL_LEVELS = 20
_PANEL_SPLIT = 4096
#: a table panel touching a critical-point edge is not split below this width in u
_EDGE_PANEL = 2e-3
#: a half-line law's left edge this close to 0 (× the interval's width) is graded toward,
#: like an edge at 0: the density changes shape on the scale of the distance to 0 (π(ν, t)
#: at t = 1 + 2⁻¹³: edge 2.8e-9, width 3.33, the frozen end panel lost 1.4e-6 of mass)
_NEAR_ZERO_EDGE = 1e-4
#: Gauss–Legendre nodes on that panel: the innermost node stays at 7 % of its width from the
#: edge (16 nodes: 0.5 %), where the density is still well-conditioned; the integrand is
#: smooth in u there, so 4 nodes integrate the panel to ~(width)^8
_EDGE_NODES = 4

#: Newton on a rung of the continuation ladder (not the target) stops at this relative step:
#: the rung only starts the next one, and the error after such a step is its square
_RUNG_RTOL = 1e-6
#: the system's residual, relative to the size of its terms, at which a point has converged
_RESIDUAL_RTOL = 1e-12
#: the fixed-point sweeps stop once no point moves by more than this × the scale
_FIXED_POINT_TOL = 1e-13
#: a nested input's warm Newton takes its last step below this (relative): the error after
#: it is its square, far below rounding
_WARM_LAST = 1e-9
#: the mpmath Newton on the subordination system stops at tolerance(dps, this): quadratic,
#: its last step is far below it
_MP_NEWTON_TOL = 1e-3
#: nodes of the mpmath trapezoid rule on a circle (the gap mean): 2^-n below the working
#: precision, n = _CIRCLE_BITS_PER_DIGIT × digits + _CIRCLE_EXTRA_NODES
_CIRCLE_BITS_PER_DIGIT = 3.33
_CIRCLE_EXTRA_NODES = 16
#: inside the support ⟺ some subordination function has Im u above this × Σ|u|
_OFF_AXIS_RTOL = 1e-11
#: reference distance (fraction of the local scale) of the end fit at a hard end (_hard_end_fit)
_END_FIT_REF = 1e-12
#: the same at a square-root edge, tried in turn (a fold of the system: its Jacobian is
#: singular there, so the on-axis density carries rounding ~ 0.1·eps·ℓ/δ, while the fit's
#: omitted term grows like δ_r⁴ on the scale of the corrections, which ℓ only bounds)
_SQRT_FIT_REFS = (1e-3, 1e-4, 1e-5, 1e-6)
#: a square-root fit is accepted when it predicts the on-axis density at δ_r/16 to this
#: (relative), or to ``_SQRT_FIT_ROUNDING`` × eps·ℓ/δ there where that is larger
_SQRT_FIT_RTOL = 1e-11
_SQRT_FIT_ROUNDING = 4.0
#: an end whose fitted exponent (ρ ∝ δ^q) is within this of q = 1/2 is a square-root edge
_SQRT_EXPONENT_TOL = 1e-4
#: fraction of an interval's width from a square-root edge within which cdf and sf take the
#: edge's sub-ulp excess into account (one 30-digit polish of the edge, on the first query
#: there): in full below half of it, tapering to none at it (and never beyond the end fit)
_EDGE_EXCESS_ZONE = 1e-4
#: a polished edge further than this many ulps from the float edge is not used (the float
#: edge is within an ulp of the true one; a larger move is another root of the system)
_EDGE_EXCESS_ULPS = 4
#: trapezoidal nodes of the mean-value circle of G at a singular gap point (error 2^-n)
_GAP_NODES = 64
#: on a gap, G is real: an on-axis solution with |Im G| above this × |G| is on a wrong sheet
_GAP_IMAG_RTOL = 1e-8


def _frozen_at_edge(lo, hi):
    """A u-panel touching its end (lo = 0) below ``_EDGE_PANEL``: accepted (see _cdf_table)."""
    return (lo == 0.0) & (hi - lo <= _EDGE_PANEL)


def _sqrt_fit_density(coef, dist):
    """ρ = √δ·exp(c₀ + c₁δ + c₂δ² + c₃δ³): a square-root edge's end fit
    (:meth:`SubordinationLaw._sqrt_end_fit`) at distances δ from the end."""
    return np.sqrt(dist) * np.exp(coef[0] + dist * (coef[1] + dist * (coef[2] + dist * coef[3])))


def _power_fit_density(coef, dist):
    """ρ = exp(c₀ + c₁ log δ + c₂δ + c₃δ²): a hard end's fit (:meth:`SubordinationLaw.
    _hard_end_fit`) at distances δ from the end."""
    return np.exp(coef[0] + coef[1] * np.log(dist) + coef[2] * dist + coef[3] * dist * dist)


# --------------------------------------------------------------------------- operations
#: masses below this are rounding, not atoms (the rules below subtract numbers near 1)
_ATOM_TOL = 1e-14


class _FitSideIntegrand:
    """The integrand in u of one side of the cdf tables (:class:`~freeattn.laws.generic.
    SideIntegrand`, ``base``) with the square-root end fit taken at the node's exact distance
    δ = w·sin²(u/2) from the end below the fit's reach (``below``): the fit is a function of
    the distance, while a node through its double x = e ± δ carries the rounding of e, ulp(e)/δ
    of relative noise (1.3e-8 at 1e-8 of the width from an end at 5 widths from 0, and as much
    in the tail mass there).  Picklable."""

    def __init__(self, base, coef, below):
        self.base, self.coef, self.below = base, coef, below

    def __call__(self, u):
        u = np.asarray(u, dtype=float)
        w = self.base.b - self.base.a
        d = w * np.sin(0.5 * u) ** 2
        near = (d > 0) & (d < self.below)
        out = np.empty(u.shape)
        if np.any(~near):
            out[~near] = self.base(u[~near])
        if np.any(near):
            dn = d[near]
            out[near] = _sqrt_fit_density(self.coef, dn) * (np.sqrt(dn) * np.sqrt(w - dn))
        return out


def _atom_tol(dps):
    """The atom threshold at a precision: 1e-14 in float64 (~45 ulp), 10^(2 − dps) at dps."""
    return _ATOM_TOL if dps is None else tolerance(dps, 100)


def _moments_of(law, order):
    """m₁..m_order of an input: exact where the law knows them, else its own (float) route —
    e.g. the exact sums of an empirical law."""
    try:
        return list(law.exact_moments(order))
    except NotImplementedError:
        return [law.moment(k) for k in range(1, order + 1)]


def _mass_at_zero(atoms):
    return sum((m for a, m in atoms if a == 0), 0 * sum((m for _, m in atoms), 0))


def _f_of(g, dg):
    """F = 1/G and F′ = −G′/G²."""
    F = 1 / g
    return F, -dg * F * F


# --------------------------------------------------------------------------- base law
class SubordinationLaw(SupportEdges, Law):
    """A law defined by a subordination system (see the module docstring).

    Subclasses define ``_n`` (number of subordination functions), ``_eqs`` (residual and
    Jacobian), ``_fixed`` (one fixed-point sweep), ``_start``, ``_G_from_solution`` (G from the solution; not Law._G, the generic G evaluator),
    ``_fz`` (∂f/∂z), ``_hull`` (an interval containing the support), ``_atom_rule`` and
    ``exact_moments``.  Everything else — the on-axis limit, edges, atoms, cdf, quantiles,
    the mpmath route — lives here.
    """

    _n = 2
    #: True for laws on [0, ∞) (⊠, ⊠-powers, π(μ, t) with μ on [0, ∞))
    _half_line = False

    def __init__(self, inputs, name):
        self._inputs = [_Input(law) for law in inputs]
        self.name = name

    # ------------------------------------------------------------- system
    def _ev(self, i, w, st, mp_dps=None):
        if mp_dps is not None:
            return self._inputs[i].value_mp(w, mp_dps)
        g, dg, st[i] = self._inputs[i].value_state(w, st.get(i))
        return g, dg

    @property
    def _scale(self):
        if "_scale_v" not in self.__dict__:
            lo, hi = self._hull()
            self._scale_v = max(abs(lo), abs(hi), hi - lo, TINY)
        return self._scale_v

    # own Newton, not scipy.optimize.root: vectorised over thousands of points of a 1×1/2×2
    # system, each keeping its best iterate, with the inputs' warm-start states threaded through
    def _newton(self, u, z, st, maxit, tol=_NEWTON_STEP_RTOL):
        """Vectorised Newton on the system; returns (u, converged mask, residual).

        Each point keeps its best iterate (smallest residual).  A point is done when its
        step is at rounding level, or when its residual stops decreasing at rounding level
        (near an edge the Jacobian is almost singular and the step is rounding noise
        amplified; near a hard edge F → 0 and the residual keeps shrinking, so Newton goes
        on there until the relative accuracy of F is reached).  Only points not yet done are
        evaluated."""
        N = z.shape[0]
        u = [ui.copy() for ui in u]
        best = [ui.copy() for ui in u]
        best_res = np.full(N, np.inf)
        done = np.zeros(N, bool)
        act = np.arange(N)
        with np.errstate(all="ignore"):
            for it in range(maxit + 1):
                ua = [ui[act] for ui in u]
                za = z[act]
                sa = _sub_state(st, act, N)
                f, J = self._eqs(ua, za, sa)
                _put_state(st, sa, act, N)
                size = self._res_scale(ua, za)
                res = sum(np.abs(fi) for fi in f)
                better = res < best_res[act]
                for bi, ui in zip(best, ua):
                    bi[act] = np.where(better, ui, bi[act])
                stalled = ~better & (best_res[act] <= 32 * tol * size)
                best_res[act] = np.where(better, res, best_res[act])
                if it == maxit:
                    break
                d = _solve2(J, f)
                dn = sum(np.abs(di) for di in d)
                bad = ~np.isfinite(dn)
                fin = stalled | ((dn <= tol * (sum(np.abs(ui) for ui in ua) + TINY)) & ~bad
                                 & better)
                move = ~fin & ~bad
                for ui, uai, di in zip(u, ua, d):
                    ui[act] = np.where(move, self._project(uai - di, uai), uai)
                done[act] = fin
                act = act[~fin]
                if act.size == 0:
                    break
            size = self._res_scale(best, z)
            conv = best_res <= _RESIDUAL_RTOL * size
            if act.size:  # leave the inputs' states at the best iterates
                sa = _sub_state(st, act, N)
                self._eqs([bi[act] for bi in best], z[act], sa)
                _put_state(st, sa, act, N)
            return best, conv, best_res

    def _ladder_floor(self, z):
        """Lowest rung of the continuation ladder per point (then the target itself)."""
        return np.full(z.shape, _LADDER_FLOOR * self._scale)

    def _res_scale(self, u, z):
        """Size of the terms of the equations (residuals are judged relative to it)."""
        return sum(np.abs(ui) for ui in u) + np.abs(z) + TINY

    @staticmethod
    def _project(u, old=None):
        """Keep a subordination function in the closed upper half-plane: a step that lands
        clearly below the axis goes half-way down from the previous iterate instead (so an
        iterate inside the support never gets stuck on the real line); rounding-level
        negative imaginary parts (a real solution, outside the support) are set to 0."""
        below = u.imag < 0
        if old is None:
            return np.where(below, u.real + 0j, u)
        far = below & (u.imag < -_POLISH_RTOL * np.abs(u))
        return np.where(far, u.real + 0.5j * old.imag, np.where(below, u.real + 0j, u))

    def _fixed_point(self, u, z, st, iters):
        """Fixed-point sweeps (Denjoy–Wolff iteration), stopped once they settle."""
        with np.errstate(all="ignore"):
            for _ in range(iters):
                new = [self._project(v) for v in self._fixed(u, z, st)]
                change = max(float(np.nanmax(np.abs(a - b), initial=0)) for a, b in zip(new, u))
                u = new
                if change <= _FIXED_POINT_TOL * self._scale:
                    break
        return u

    def _solve_float(self, z, ratio=_LADDER_RATIO, fixed_iters=60, states=None):
        """Subordination functions at complex z (Im z ≥ 0), on-axis limits for real z.

        Returns (u, G, converged); ``states`` (a dict) receives the inputs' last values."""
        z = np.asarray(z, dtype=complex)
        Y = 4.0 * self._scale + 1.0
        top = z.real + 1j * np.maximum(z.imag, Y)
        st = {} if states is None else states
        u = self._start(top)
        u = self._fixed_point(u, top, st, fixed_iters)
        u, conv, _ = self._newton(u, top, st, 12, tol=_RUNG_RTOL)
        h = Y
        floor = self._ladder_floor(z)
        N = z.shape[0]
        while True:
            h *= ratio
            # a point whose rung is below its floor, or below its own height, has reached its
            # target: only the final Newton is left for it (it was re-solved at the target on
            # every lower rung before: 6 of the 22 rungs of a half-line scan, whose floor at
            # the graded points next to 0 is 1e-9 |x|)
            live = np.flatnonzero((h >= floor) & (z.imag < h))
            if live.size == 0:
                break
            zk = z.real[live] + 1j * h
            sa = _sub_state(st, live, N)
            ul, _, _ = self._newton([ui[live] for ui in u], zk, sa, 10, tol=_RUNG_RTOL)
            _put_state(st, sa, live, N)
            for ui, v in zip(u, ul):
                ui[live] = v
        u, conv, res = self._newton(u, z, st, 30)
        with np.errstate(all="ignore"):
            G = self._G_from_solution(u, z, st)
        ok = conv & np.isfinite(G)
        if not np.all(ok):
            if ratio < _FINE_RATIO:  # retry the stragglers on a finer ladder
                idx = np.flatnonzero(~ok)
                u2, G2, ok2 = self._solve_float(z[idx], ratio=_FINE_RATIO,
                                                fixed_iters=_FINE_FIXED_ITERS)
                for a, b in zip(u, u2):
                    a[idx] = b
                G[idx] = G2
                ok[idx] = ok2
                self._ev(0, u[0], st)  # inputs' states at the final solution
                if self._n == 2 or len(self._inputs) == 2:
                    self._ev(1, u[-1], st)
        return u, G, ok

    # ------------------------------------------------------------- as an input (nesting)
    def _fz(self, u, z, f):
        """∂f/∂z of the system's equations at (u, z) (``f``: their values there); the
        subclasses' closed forms (f depends on z only explicitly)."""
        raise NotImplementedError

    def _G_dG(self, u, du, z, st):
        """(G(z), G′(z)) from the solution u, its derivative du = u′(z) and the inputs'
        states (their values at u)."""
        raise NotImplementedError

    def _state_len(self):
        """Length of the warm state beyond (w, G, G′): u, u′ and the inputs' own states."""
        return 2 * self._n + sum(inp.state_len for inp in self._inputs)

    def _warm_newton(self, start, z, st, ok, u, du, maxit=6):
        """Newton's method from a predicted solution (see :meth:`_value_warm`), in place on
        ``u``, ``du`` and the inputs' states ``st`` for the points ``ok``; returns the points
        that converged near their start.  The last step (below ``_WARM_LAST`` relative: the
        error after it is its square) is applied to u and, to first order, to the inputs'
        values, so a converged point costs one system evaluation more than its steps."""
        act = np.flatnonzero(ok)
        done = np.zeros(z.shape, bool)
        cur = [a[act] for a in start]
        size0 = sum(np.abs(a) for a in cur) + _WARM_SLACK * self._scale
        for _ in range(maxit):
            if act.size == 0:
                break
            za = z[act]
            sa = _sub_state(st, act, z.size)
            f, J = self._eqs(cur, za, sa)
            d = _solve2(J, f)
            dn = sum(np.abs(di) for di in d)
            fin = np.isfinite(dn)
            last = fin & (dn <= _WARM_LAST * (sum(np.abs(a) for a in cur) + TINY))
            new = [a - di for a, di in zip(cur, d)]
            if np.any(last):
                deriv = [-x for x in _solve2(J, self._fz(cur, za, f))]
                for i, v in sa.items():  # the inputs' values moved to the last iterate
                    j = min(i, self._n - 1)  # input i is evaluated at u_i (u₀ when n = 1)
                    step = np.where(last, new[j] - cur[j], 0)
                    sa[i] = (np.where(last, new[j], v[0]), v[1] + v[2] * step, *v[2:])
                near = sum(np.abs(a - b) for a, b in zip(new, [s_[act] for s_ in start])) \
                    <= 0.1 * size0
                good = last & near
                for a, b in zip(u, new):
                    a[act[good]] = b[good]
                for a, b in zip(du, deriv):
                    a[act[good]] = b[good]
                done[act[good]] = True
            _put_state(st, sa, act, z.size)
            keep = fin & ~last
            act, size0 = act[keep], size0[keep]
            cur = [self._project(a[keep], c[keep]) for a, c in zip(new, cur)]
        return done

    def _value_warm(self, w, guess):
        """(G(w), G′(w), state) for this law as the input of another subordination system
        (a nested convolution such as (μ ⊞ μ) ⊞ μ), vectorised over w, Im w ≥ 0 (real w: the
        limit from above).

        The outer solver evaluates its inputs at slowly moving points (its fixed-point,
        ladder and Newton iterates); a full solve per evaluation (fixed point, ladder, Newton:
        ~10² system evaluations) made one outer step cost as much as a whole one-level law and
        the nested law did not return in 560 s (issue 21 item 10).  Here ``guess`` — the state
        of the previous call at nearby points w₀ — holds the solution u(w₀) and u′(w₀): Newton
        starts from the prediction u(w₀) + u′(w₀)(w − w₀) and is accepted where it converges
        near it (as the on-axis warm start, :meth:`_on_axis`); the other points are solved in
        full.  G′ = dG/du · u′ with u′ = −(∂f/∂u)⁻¹ ∂f/∂z (implicit differentiation, no
        difference quotient)."""
        w = np.asarray(w, dtype=complex)
        shape = w.shape
        w = w.reshape(-1)
        N, n = w.size, self._n
        lower = w.imag < 0
        wq = np.where(lower, w.conj(), w)
        st = {}
        ok = np.zeros(N, bool)
        u = [np.full(N, np.nan + 0j) for _ in range(n)]
        du = [np.full(N, np.nan + 0j) for _ in range(n)]
        if guess is not None and len(guess) == 3 + self._state_len() and guess[0].shape == (N,):
            w0, u0, du0 = guess[0], guess[3:3 + n], guess[3 + n:3 + 2 * n]
            off = 3 + 2 * n
            for i, inp in enumerate(self._inputs):
                st[i] = tuple(c.copy() for c in guess[off:off + inp.state_len])
                off += inp.state_len
            with np.errstate(all="ignore"):
                start = [np.where(np.isfinite(d) & np.isfinite(w0), a + d * (wq - w0), a)
                         for a, d in zip(u0, du0)]
                ok = np.isfinite(sum(start))
                ok = self._warm_newton(start, wq, st, ok, u, du)
        if not np.all(ok):
            idx = np.flatnonzero(~ok)
            st2 = {}
            u2, _, ok2 = self._solve_float(wq[idx], states=st2)
            with np.errstate(all="ignore"):
                f, J = self._eqs(u2, wq[idx], st2)
                d2 = [-d for d in _solve2(J, self._fz(u2, wq[idx], f))]
            for a, b in zip(u + du, u2 + d2):
                a[idx] = b
            ok[idx] = ok2
            _put_state(st, st2, idx, N)
        with np.errstate(all="ignore"):
            G, dG = self._G_dG(u, du, wq, st)
        ok &= np.isfinite(G) & np.isfinite(dG)
        real = ok & (wq.imag == 0)
        if np.any(real):  # G is real on a gap: a non-real value is a wrong sheet there
            gap = np.zeros(N, bool)
            gap[real] = self._spectrum_distance(wq.real[real]) > 0
            ok &= ~(gap & (np.abs(G.imag) > _GAP_IMAG_RTOL * np.abs(G)))
        if not np.all(ok):  # the one-point route (gap means, its errors) for the rest
            bad = np.flatnonzero(~ok)
            wb = wq[bad]
            G[bad] = self._cauchy_float(wb)
            h = _DIFF_STEP * np.maximum(np.abs(wb.imag), _DIFF_FLOOR * (1 + np.abs(wb)))
            dG[bad] = (self._cauchy_float(wb + h) - self._cauchy_float(wb - h)) / (2 * h)
            for a in u + du:
                a[bad] = np.nan
        state = (wq, G, dG, *u, *du)
        for i, inp in enumerate(self._inputs):
            state += tuple(st[i]) if i in st and len(st[i]) == inp.state_len else tuple(
                np.full(N, np.nan + 0j) for _ in range(inp.state_len))
        G = np.where(lower, G.conj(), G).reshape(shape)
        dG = np.where(lower, dG.conj(), dG).reshape(shape)
        return G, dG, state

    def _cauchy_float(self, zz):
        zz = np.asarray(zz, dtype=complex)
        out = np.empty(zz.shape, dtype=complex)
        if zz.size == 0:
            return out
        fin = np.isfinite(zz)
        out[~fin] = 0.0
        lower = zz.imag < 0
        zq = np.where(lower, zz.conj(), zz)
        if np.any(fin):
            zf = zq[fin]
            _, G, ok = self._solve_float(zf)
            real = zf.imag == 0
            if np.any(real):  # G is real on a gap: a non-real value is a wrong sheet there
                gap = np.zeros(zf.shape, bool)
                gap[real] = self._spectrum_distance(zf.real[real]) > 0
                ok &= ~(gap & (np.abs(G.imag) > _GAP_IMAG_RTOL * np.abs(G)))
                G = np.where(gap, G.real + 0j, G)  # rounding-level Im G of a real solution
            if not np.all(ok):
                G[~ok], ok[~ok] = self._gap_mean(zf[~ok])
            if not np.all(ok):
                raise ArithmeticError(
                    f"{self.name}: subordination did not converge at z = {zf[~ok][:3]}")
            out[fin] = G
        out[lower] = out[lower].conj()
        return out

    def _spectrum_distance(self, x):
        """Distance from real points x to the support and the atoms (float64)."""
        d = np.full(x.shape, np.inf)
        for a, b in self._support_float:
            d = np.minimum(d, np.maximum(np.maximum(a - x, x - b), 0.0))
        for loc, _ in self._atom_list:
            d = np.minimum(d, np.abs(x - loc))
        return d

    def _gap_mean(self, z):
        """G at real points of a gap (outside the support and the atoms) where the system
        itself is singular — G(x) = 0, so F = 1/G and the subordination functions are infinite
        there, e.g. between two components of equal pull — by the mean value property: G is
        analytic on the disc of radius d (the distance to the spectrum) around x, so
        G(x) = (1/n) Σ_k G(x + r e^{iφ_k}), r = d/2, φ_k = 2π(k + ½)/n, exact up to (r/d)^n.
        Returns (G, ok); points off the axis or inside the spectrum stay not ok."""
        G = np.full(z.shape, np.nan + 0j)
        ok = np.zeros(z.shape, bool)
        real = z.imag == 0
        if not np.any(real):
            return G, ok
        x = z.real[real]
        d = self._spectrum_distance(x)
        gap = np.isfinite(d) & (d > 0)
        if not np.any(gap):
            return G, ok
        phi = 2 * math.pi * (np.arange(_GAP_NODES) + 0.5) / _GAP_NODES
        nodes = x[gap][:, None] + 0.5 * d[gap][:, None] * np.exp(1j * phi)[None, :]
        upper = nodes.imag > 0
        flat = np.where(upper, nodes, nodes.conj()).reshape(-1)
        _, g, conv = self._solve_float(flat)
        g = np.where(upper, g.reshape(nodes.shape), g.reshape(nodes.shape).conj())
        good = conv.reshape(nodes.shape).all(axis=1) & np.isfinite(g).all(axis=1)
        val = g.mean(axis=1).real + 0j  # G is real on a gap
        idx = np.flatnonzero(real)[gap]
        G[idx] = val
        ok[idx] = good
        return G, ok

    # ------------------------------------------------------------- density
    @property
    def _axis_tables(self):
        """Per support interval [a, b]: the solution on a θ-grid, x = a + (b − a) sin²(θ/2)
        (smooth in θ at square-root edges), to warm-start on-axis Newton solves."""
        if "_axis_v" not in self.__dict__:
            tables = []
            theta = np.linspace(0.0, math.pi, _TABLE_NODES)[1:-1]  # edges excluded
            for a, b in self._support_float:
                x = x_of_theta(a, b, theta)
                st = {}
                u, _, ok = self._solve_float(x + 0j, states=st)
                tables.append({"a": a, "b": b, "theta": theta, "u": u, "ok": ok, "st": st})
            self._axis_v = tables
        return self._axis_v

    def _on_axis(self, x, t):
        """G(x + i0) for real x inside the support interval of table ``t``: Newton at real x
        from the interpolated table; points that do not confirm go down the full ladder."""
        a, b = t["a"], t["b"]
        th = theta_of_x(a, b, x)

        def interp(arr):
            return np.interp(th, t["theta"], arr.real) + 1j * np.interp(th, t["theta"], arr.imag)

        u0 = [interp(ui) for ui in t["u"]]
        st = {i: tuple(interp(c) for c in v) for i, v in t["st"].items()}
        z = x + 0j
        u, conv, _ = self._newton([v.copy() for v in u0], z, st, 12)
        G = self._G_from_solution(u, z, st)
        with np.errstate(all="ignore"):
            near = sum(np.abs(ui - vi) for ui, vi in zip(u, u0)) <= 0.1 * (
                sum(np.abs(vi) for vi in u0) + _WARM_SLACK * self._scale)
        ok = conv & near & np.isfinite(G) & self._inside(G, u)
        if not np.all(ok):
            idx = np.flatnonzero(~ok)
            u2, G2, ok2 = self._solve_float(z[idx])
            G[idx] = G2
            ok[idx] = ok2
            # x lies inside a support interval: a converged solution on the real axis there is
            # a wrong sheet (a ladder step landed on the axis and Newton stayed real: issue 21
            # item 19, Semicircle(1.625) ⊞ Discrete(3 atoms) had ρ ≈ 1e-22 for ρ = 0.03 on
            # x ∈ [−1.7733, −1.7645] and lost 2.6e-5 of mass) — solved again on the finer
            # ladder, taken where it is off the axis
            wrong = ok2 & ~self._inside(G2, u2)
            if np.any(wrong):
                j = idx[wrong]
                u3, G3, ok3 = self._solve_float(z[j], ratio=_FINE_RATIO,
                                                fixed_iters=_FINE_FIXED_ITERS)
                fix = ok3 & self._inside(G3, u3)
                G[j[fix]] = G3[fix]
        return G, ok

    def _pdf_float(self, x):
        """The density at real x (:meth:`_pdf_frame`), next to a square-root edge (within
        :meth:`_excess_zone`) the end fit at the distance from the true edge (the edge's
        sub-ulp excess, tapered as in :meth:`_cdf_sf_at_distance`): measured from the float
        edge the density was off by c/(2δ), 1.35e-8 at 1e-8 of the width from an end at 5
        widths from 0, and a quadrature of it from the float edge by 1.5 c/δ in the tail."""
        x = np.asarray(x, dtype=float)
        out = self._pdf_frame(x)
        for i, (a, b) in enumerate(self._support_float):
            for end, d in (("a", x - a), ("b", b - x)):
                zone = self._excess_zone(i, end)
                m = (d > 0) & (d < (zone or 0.0)) & (x > a) & (x < b)
                if not np.any(m):
                    continue
                c = self._edge_excess(i, end)
                if c == 0:
                    continue
                coef, _ = self._sqrt_end_fit(self._axis_tables[i], end)
                tau = np.clip(2.0 - 2.0 * d[m] / zone, 0.0, 1.0)
                dt = d[m] - c * tau if end == "a" else d[m] + c * tau
                out[m] = np.where(dt > 0, _sqrt_fit_density(coef, np.maximum(dt, TINY)), 0.0)
        return out

    def _pdf_frame(self, x):
        """The density at real x, the end fits at the distance from the float edges (the
        cdf tables' integrand: :class:`_FitSideIntegrand`); each distinct x is solved once
        per law (a memo by value):
        the cdf/ppf tables and their inversion ask for the same abscissae again and again
        (the ppf walks of issue 21's N15 points: 2804 points asked, 76 distinct), and an
        on-axis solve next to an end costs a full continuation ladder."""
        x = np.asarray(x, dtype=float)
        uniq, inv = np.unique(x.reshape(-1), return_inverse=True)
        memo = self.__dict__.setdefault("_pdf_memo", {})
        keys = uniq.tolist()
        vals = np.array([memo.get(k, np.nan) for k in keys])
        new = np.isnan(vals)
        if np.any(new):
            vals[new] = self._pdf_solve(uniq[new])
            if len(memo) > _PDF_MEMO_SIZE:
                memo.clear()
            memo.update(zip(uniq[new].tolist(), vals[new].tolist()))
        return vals[inv].reshape(x.shape)

    def _pdf_solve(self, x):
        out = np.zeros(x.shape)
        for t in self._axis_tables:
            a, b = t["a"], t["b"]
            m = (x > a) & (x < b)
            if not np.any(m):
                continue
            xm = x[m]
            G, ok = self._on_axis(xm, t)
            rho = np.maximum(-G.imag / math.pi, 0.0)
            # next to an end, below the end fit's reference points: at a square-root edge
            # always (the on-axis value there is rounding-limited), at a hard end where the
            # on-axis solve did not converge
            for end, dist in (("a", xm - a), ("b", b - xm)):
                scale = self._end_scale(t, end)
                if not np.any(dist < _SQRT_FIT_REFS[0] * scale / 8):
                    continue
                sqrt_fit = self._sqrt_end_fit(t, end)
                if sqrt_fit is not None:
                    coef, below = sqrt_fit
                    deep = dist < below
                    if np.any(deep):
                        rho[deep] = _sqrt_fit_density(coef, dist[deep])
                else:  # a hard end: the fit only where the on-axis solve failed
                    deep = ~ok & (dist < _END_FIT_REF * scale / 8)
                    if np.any(deep):
                        rho[deep] = _power_fit_density(self._hard_end_fit(t, end), dist[deep])
                ok |= deep
            if not np.all(ok):
                raise ArithmeticError(f"{self.name}: subordination did not converge at "
                                      f"x = {xm[~ok][:3]}")
            out[m] = rho
        return out

    def _end_scale(self, t, end):
        """The local scale ℓ at an end of a support interval: the distance from it to the
        interval's other end, to the other intervals' ends and to the atoms (an atom at the end
        itself aside)."""
        e = t["a"] if end == "a" else t["b"]
        others = [v for ab in self._support_float for v in ab] + [p for p, _ in self._atom_list]
        dist = [abs(v - e) for v in others if v != e]
        return min(dist + [t["b"] - t["a"]])

    def _end_values(self, t, end, d):
        """On-axis density at distances ``d`` from an end, and whether each converged."""
        G, ok = self._on_axis(t["a"] + d if end == "a" else t["b"] - d, t)
        rho = -G.imag / math.pi
        return rho, ok & (rho > 0)

    def _sqrt_end_fit(self, t, end):
        """The end fits: the density next to an end of a support interval from on-axis
        values where those are accurate.  Returns (coefficients of log(ρ/√δ) in 1, δ, δ², δ³
        (:func:`_sqrt_fit_density`), the distance δ_r/8 below which it replaces the on-axis
        value) of the first accepted δ_r, or None when the end is not a confirmed square-root
        edge (then :meth:`_hard_end_fit`).  δ is the distance to the end, ℓ the local scale
        (:meth:`_end_scale`: the distance to the nearest other singular point).  Cached per
        end (coefficients only: the law pickles).

        Every end is a power law in δ with analytic corrections.  At a **square-root edge**
        (a real critical point of the system) G(x + i0) = g₀ + g₁√(−δ) + g₂δ + g₃(−δ)^{3/2} + …,
        so ρ = δ^{1/2}(a₀ + a₁δ + a₂δ² + …) exactly; but the system's Jacobian is singular
        there, so the on-axis density carries rounding ~ eps·ℓ/δ (3e-6 relative at 1e-10 of
        the width, 2e-5 at 1e-12: the sf 1e-8 of the width from the edge was 3.8e-6 off).
        For δ_r = ``_SQRT_FIT_REFS``·ℓ in turn the on-axis values at δ = δ_r·(1/16, …, 1) are
        taken; log ρ = log c + q log δ + c₁δ + c₂δ² through the outer four gives q; where
        |q − 1/2| < ``_SQRT_EXPONENT_TOL``, log(ρ/√δ) = c₀ + c₁δ + c₂δ² + c₃δ³ through them
        (q exact: no error growing with log δ) must predict the value at δ_r/16 to
        ``_SQRT_FIT_RTOL`` (or to rounding there); the first that does is the density below
        δ_r/8.  The check at δ_r/16 measures the fit's truncation where ℓ overstates the
        scale of the corrections (an edge at 0.12 of a law on [0.12, 15.6]: 8.7e-7 off at
        1e-6 of the width with δ_r = 1e-3·ℓ).

        Any **other end** (a hard end: ρ ~ δ^(−1/2) where μ({a}) + ν({b}) = 1, δ^(−2/3) at 0 of
        MP₁ ⊠ MP₁, …, or a square-root edge no δ_r confirms) may have fractional-power
        corrections, so the fit is taken at δ_r = ``_END_FIT_REF``·ℓ (there float64 resolves
        the density: next to a hard edge at 0 with an atom the atom dominates G, |G| ~ m₀/x,
        and the free Jacobi law Discrete([0, 1]) ⊠ Discrete([0, 1]) did not converge below
        1e-30) with q free, and used below δ_r/8 only where the on-axis solve does not
        converge."""
        key = ("_sqrt_end_fit", t["a"], t["b"], end)
        if key in self.__dict__:
            return self.__dict__[key]
        scale = self._end_scale(t, end)
        frac = np.array([1.0, 2.0, 4.0, 8.0, 16.0]) / 16
        refs = np.array(_SQRT_FIT_REFS) * scale
        rho, ok = self._end_values(t, end, (refs[:, None] * frac).ravel())
        found = None
        for k, ref in enumerate(refs):
            d, r, good = ref * frac, rho[5 * k:5 * k + 5], ok[5 * k:5 * k + 5]
            if not np.all(good):
                continue
            q = np.linalg.solve(np.column_stack([np.ones(4), np.log(d[1:]), d[1:], d[1:] ** 2]),
                                np.log(r[1:]))[1]
            if abs(q - 0.5) >= _SQRT_EXPONENT_TOL:
                continue
            coef = np.linalg.solve(np.vander(d[1:], 4, increasing=True),
                                   np.log(r[1:] / np.sqrt(d[1:])))
            tol = max(_SQRT_FIT_RTOL, _SQRT_FIT_ROUNDING * FLOAT_EPS * scale / d[0])
            if abs(_sqrt_fit_density(coef, d[0]) / r[0] - 1) <= tol:
                found = (coef, ref / 8)
                break
        self.__dict__[key] = found
        return found

    def _hard_end_fit(self, t, end):
        """Coefficients of log ρ in (1, log δ, δ, δ²) (:func:`_power_fit_density`) through the
        on-axis values at δ = ``_END_FIT_REF``·ℓ·(1/8, …, 1) (:meth:`_sqrt_end_fit`), cached
        per end."""
        key = ("_hard_end_fit", t["a"], t["b"], end)
        if key in self.__dict__:
            return self.__dict__[key]
        d = _END_FIT_REF * self._end_scale(t, end) * np.array([1.0, 2.0, 4.0, 8.0]) / 8
        rho, ok = self._end_values(t, end, d)
        if not np.all(ok):
            raise ArithmeticError(f"{self.name}: subordination did not converge next to "
                                  f"the end {t['a'] if end == 'a' else t['b']!r}")
        coef = np.linalg.solve(np.column_stack([np.ones(4), np.log(d), d, d * d]), np.log(rho))
        self.__dict__[key] = coef
        return coef

    @mp_route
    def _pdf_mp(self, x, dps):
        if not any(a < x < b for a, b in self._support(inner_dps(dps))):
            return mpmath.mpf(0)
        return max(-mpmath.im(self._cauchy_mp(x, inner_dps(dps))) / mpmath.pi, mpmath.mpf(0))

    # ------------------------------------------------------------- atoms
    @mp_route
    def _atoms(self, dps):
        if dps is None:
            return list(self._atom_list)
        return [(mpmath.mpf(a), mpmath.mpf(m)) for a, m in self._atoms_exact(inner_dps(dps))]

    def _atom_rule(self, dps):
        """(location, mass) from the operation's atom rule (Bercovici–Voiculescu, Belinschi,
        Belinschi–Bercovici) for every pair of input atoms, masses ≤ 0 included."""
        raise NotImplementedError

    def _atoms_exact(self, dps):
        return sorted((a, m) for a, m in self._atom_rule(dps) if m > _atom_tol(dps))

    @property
    def _borderline(self):
        """Points where the atom rule gives mass 0 exactly (to rounding), e.g. μ({b}) + ν({c})
        = 1 for ⊞: G diverges there without an atom (a hard edge, density ~ |x − p|^{-1/2},
        both subordination functions at input atoms).  An edge found next to one is that
        point: its inside/outside test is ill-conditioned there."""
        if "_borderline_v" not in self.__dict__:
            self._borderline_v = sorted(float(a) for a, m in self._atom_rule(None)
                                        if abs(m) <= _ATOM_TOL)
        return self._borderline_v

    @property
    def _atom_list(self):
        if "_atom_v" not in self.__dict__:
            self._atom_v = [(float(a), float(m)) for a, m in self._atoms_exact(None)]
        return self._atom_v

    # ------------------------------------------------------------- edges
    @property
    def _support_float(self):
        if "_support_v" not in self.__dict__:
            self._support_v = self._find_support()
        return self._support_v

    @mp_route
    def _support(self, dps):
        if dps is None:
            return list(self._support_float)
        cache = self.__dict__.setdefault("_support_mp_v", {})
        if dps not in cache:  # edges by mpmath Newton: computed once per precision
            cache[dps] = [(self._edge_mp(a, dps), self._edge_mp(b, dps))
                          for a, b in self._support_float]
        return list(cache[dps])

    def _inside(self, G, u):
        """On the real axis: inside the support ⟺ a subordination function is off the axis
        (Im u ~ sqrt(distance to the edge); G alone is ill-conditioned next to a hard edge,
        where it diverges) and Im G < 0."""
        size = sum(np.abs(ui) for ui in u) + TINY
        off = np.zeros(G.shape, bool)
        for ui in u:
            off |= ui.imag > _OFF_AXIS_RTOL * size
        return off & (G.imag < 0)

    # ------------------------------------------------------------- mpmath
    def _eqs_mp(self, u, z, dps):
        return self._eqs(u, z, {}, mp_dps=dps)

    @mp_route
    def _cauchy_mp(self, zv, dps):
        zv = mpmath.mpc(zv)
        conj = mpmath.im(zv) < 0
        zq = mpmath.conj(zv) if conj else zv
        u, G0, ok = self._solve_float(np.array([complex(zq)]))
        wrong = not ok[0] or abs(G0[0].imag) > _GAP_IMAG_RTOL * abs(G0[0])
        if wrong and mpmath.im(zq) == 0:
            d = float(self._spectrum_distance(np.array([float(mpmath.re(zq))]))[0])
            if math.isfinite(d) and d > 0:  # a singular gap point: see _gap_mean
                return self._gap_mean_mp(mpmath.re(zq), mpmath.mpf(d) / 2, dps)
        uu = [mpmath.mpc(complex(ui[0])) for ui in u]
        tol = tolerance(dps, _MP_NEWTON_TOL)
        for _ in range(80):
            f, J = self._eqs_mp(uu, zq, inner_dps(dps))
            d = _solve2(J, f)
            uu = [a - b for a, b in zip(uu, d)]
            if sum(abs(x) for x in d) <= tol * (sum(abs(x) for x in uu) + 1):
                break
        val = self._G_mp(uu, zq, inner_dps(dps))
        return mpmath.conj(val) if conj else val

    def _gap_mean_mp(self, x, r, dps):
        """:meth:`_gap_mean` at ``dps`` digits: n ≈ 3.3 × working digits nodes, so that
        2^-n is below the working precision."""
        n = int(_CIRCLE_BITS_PER_DIGIT * inner_dps(dps)) + _CIRCLE_EXTRA_NODES
        total = mpmath.mpc(0)
        for k in range(n):
            total += self._cauchy_mp(x + r * mpmath.expjpi(2 * (k + mpmath.mpf(1) / 2) / n),
                                     inner_dps(dps))
        return mpmath.mpc(mpmath.re(total / n), 0)

    # ------------------------------------------------------------- cdf / ppf
    @property
    def _cdf_table(self):
        """The float64 :class:`~freeattn.quadrature.tables.Interval` s of the support (two
        sides per interval: adaptive u-panels of the density from each end,
        :func:`freeattn.laws.generic.density_interval`), checked: the total mass with the
        atoms must be 1 to ``MASS_TOL`` (else ArithmeticError).  cdf, sf, ppf and isf are read
        from them by :mod:`freeattn.quadrature.tables`.

        A side is split until 16-point Gauss–Legendre on a panel agrees with its two halves to
        1e-14 + 1e-11 of the panel mass (above the density's rounding noise), at most 4096
        panels per round and 20 halvings; a panel at a critical-point edge is not split below
        2e-3 in u: there the integrand is smooth but the density is ill-conditioned (rounding in
        G grows like eps/distance next to a hard edge), so deeper nodes only add noise.  The
        side at an edge at 0 of a half-line law (a power singularity there, e.g. x^(−2/3)), or
        within _NEAR_ZERO_EDGE of the width from 0, is graded toward it instead."""
        if "_cdf_v" in self.__dict__:
            return self._cdf_v
        atoms_mass = sum(m for _, m in self._atom_list)
        intervals = []
        for a, b in self._support_float:
            zero_edge = self._half_line and 0 <= a <= _NEAR_ZERO_EDGE * (b - a)
            intervals.append(density_interval(
                self._pdf_frame, a, b, nodes=_GL_NODES, atol=_PANEL_ATOL, rtol=_PANEL_RTOL,
                max_levels=_PANEL_LEVELS, max_split=_PANEL_SPLIT, uniform=_HALF_PANELS,
                graded=(zero_edge, False),
                frozen=(None if zero_edge else _frozen_at_edge, _frozen_at_edge),
                end_nodes=(None if zero_edge else _EDGE_NODES, _EDGE_NODES),
                end_width=_EDGE_PANEL))
            intervals[-1] = self._fit_sides(len(intervals) - 1, intervals[-1])
        total = atoms_mass + math.fsum(iv.mass for iv in intervals)
        if abs(total - 1) > MASS_TOL:
            raise ArithmeticError(f"{self.name}: total mass {total!r} ≠ 1 (atoms "
                                  f"{atoms_mass!r}); the support scan missed a component")
        self._cdf_v = (intervals, total)
        return self._cdf_v

    def _fit_sides(self, i, iv):
        """``iv`` with each side at a square-root edge integrating the end fit at the nodes'
        exact distances (:class:`_FitSideIntegrand`): the panels as found, the masses of those
        reaching into the fit's range taken again with it."""
        sides = []
        for end, side in (("a", iv.left), ("b", iv.right)):
            fit = None if (self._half_line and end == "a" and iv.a == 0) else \
                self._sqrt_end_fit(self._axis_tables[i], end)
            if fit is None or not isinstance(side.rule, SideRule):
                sides.append(side)
                continue
            integrand = _FitSideIntegrand(side.density, *fit)
            rule = SideRule(integrand, side.rule.nodes, side.rule.end_nodes)
            top = 2.0 * math.asin(math.sqrt(min(fit[1] / iv.width, 1.0)))
            idx = np.flatnonzero(side.edges[:-1] < top)
            masses = side.masses.copy()
            masses[idx] = rule(side.edges[idx], side.edges[idx + 1])
            sides.append(Side(side.edges, masses, rule, integrand))
        return Interval(iv.a, iv.b, *sides)

    # ------------------------------------------------ the edges' sub-ulp excess (cdf, sf)
    def _excess_zone(self, i, end):
        """The distance from end ``end`` ("a" or "b") of support interval i below which cdf and
        sf correct for the edge's sub-ulp excess, or None (not a square-root edge with an end
        fit).  The tables integrate the end fit ρ = √δ·exp(cubic) in the distance δ from the
        float edge, fitted on on-axis values where the excess is far below their accuracy: as
        a function of the distance it is the density's shape at the true edge, so the true tail
        mass within δ of the true edge e = a + c is the tables' at δ (from a: at (x − a) − c)."""
        key = (i, end)
        zones = self.__dict__.setdefault("_excess_zone_v", {})
        if key not in zones:
            a, b = self._support_float[i]
            fit = None
            if not (self._half_line and end == "a" and a == 0):
                fit = self._sqrt_end_fit(self._axis_tables[i], end)
            zones[key] = None if fit is None else min(fit[1], _EDGE_EXCESS_ZONE * (b - a))
        return zones[key]

    def _edge_excess(self, i, end):
        """e − fl(e) of an end of support interval i: the edge polished to
        ``FLOAT_REFERENCE_DPS`` digits (:meth:`_edge_mp`, ~0.2 s), computed on the first query
        within :meth:`_excess_zone` of it; 0 where the polish fails or moves the edge by more
        than ``_EDGE_EXCESS_ULPS`` ulps."""
        key = (i, end)
        cache = self.__dict__.setdefault("_edge_excess_v", {})
        if key not in cache:
            e = self._support_float[i][0 if end == "a" else 1]
            try:
                with workdps(FLOAT_REFERENCE_DPS):
                    c = float(self._edge_mp(e, FLOAT_REFERENCE_DPS) - e)
            except ArithmeticError:
                c = 0.0
            cache[key] = c if abs(c) <= _EDGE_EXCESS_ULPS * np.spacing(abs(e)) else 0.0
        return cache[key]

    def _exact_ends(self):
        """The float edges (excess 0 here: :meth:`_cdf_sf_at_distance` takes a distance from
        them and applies the excess itself, in the zone where it is known)."""
        return [(a, 0.0, b, 0.0) for a, b in self._support_float]

    def _cdf_sf_at_distance(self, i, from_right, d):
        """(cdf, sf) at distance d from the float edge of support interval i: the tables at
        the distance from the true edge, (x − a) − c·τ (from b: (b − x) + c·τ), τ = 1 below
        half of :meth:`_excess_zone`, 0 from it on, linear between (the distance stays a
        monotone function of x, and beyond the zone nothing needs the polish)."""
        d = np.maximum(np.asarray(d, dtype=float), 0.0)
        end = "b" if from_right else "a"
        zone = self._excess_zone(i, end)
        if zone is not None and np.any(d < zone):
            c = self._edge_excess(i, end)
            tau = np.clip(2.0 - 2.0 * d / zone, 0.0, 1.0)
            d = np.maximum(d + c * tau if from_right else d - c * tau, 0.0)
        return cdf_sf_at_distance(d, i, from_right, self._atom_list, self._cdf_table[0])

    def _partial_float(self, x, upper):
        """cdf (sf with ``upper``) from the tables; within :meth:`_excess_zone` of an edge by
        :meth:`_cdf_sf_at_distance` (the edge as a double is within an ulp of the true one:
        the tail 1e-8 of the width from an edge at |e| ~ width moved by ~1e-8 of itself)."""
        x = np.asarray(x, dtype=float)
        out = cdf_sf(x, self._atom_list, self._cdf_table[0], upper=upper)
        near = False
        for i, (a, b) in enumerate(self._support_float):
            for end, d in (("a", x - a), ("b", b - x)):
                zone = self._excess_zone(i, end)
                m = (d > 0) & (d < (zone or 0.0)) & (x > a) & (x < b)
                if np.any(m):
                    F, S = self._cdf_sf_at_distance(i, end == "b", d[m])
                    out[m] = S if upper else F
                    near = True
        return monotone(x, out, increasing=not upper) if near else out

    def _cdf_float(self, x):
        return self._partial_float(x, False)

    def _sf_float(self, x):
        return self._partial_float(x, True)

    def _ppf_float(self, q):
        q = np.asarray(q, dtype=float)
        x = quantile(q, self._atom_list, self._cdf_table[0])
        return self._polished(x, q, self._cdf_float, lambda f, t: f >= t)

    def _isf_float(self, q):
        q = np.asarray(q, dtype=float)
        x = quantile(q, self._atom_list, self._cdf_table[0], upper=True)
        return self._polished(x, q, self._sf_float, lambda f, t: f <= t)

    def _polished(self, x, q, F, reached):
        """The tables' quantile moved to the smallest double with ``reached(F(x), q)`` where
        it lies within :meth:`_excess_zone` of an edge: there cdf and sf measure from the true
        edge, at most ``_EDGE_EXCESS_ULPS`` ulps of it from the float edge the tables'
        inversion measures from (ppf(1e-300) was a double where the cdf is 0)."""
        x = np.array(x, dtype=float)
        todo = np.zeros(x.shape, bool)
        for i, (a, b) in enumerate(self._support_float):
            for end, d in (("a", x - a), ("b", b - x)):
                zone = self._excess_zone(i, end)
                todo |= (d >= 0) & (d < (zone or 0.0)) & (x >= a) & (x <= b)
        todo &= (q > 0) & (q < 1)
        for step_up in (True, False):
            live = todo.copy()
            for _ in range(2 * _EDGE_EXCESS_ULPS + 2):
                idx = np.flatnonzero(live)
                if not idx.size:
                    break
                if step_up:  # up while F(x) has not reached q
                    move = ~reached(F(x[idx]), q[idx])
                    x[idx[move]] = np.nextafter(x[idx[move]], np.inf)
                else:        # down while F(x⁻) still reaches q
                    prev = np.nextafter(x[idx], -np.inf)
                    move = reached(F(prev), q[idx])
                    x[idx[move]] = prev[move]
                live[idx[~move]] = False
        return x

    # ------------------------------------------------------------- moments
    def exact_moments(self, order):
        """First ``order`` moments, exact in the arithmetic of the inputs' exact moments."""
        raise NotImplementedError
