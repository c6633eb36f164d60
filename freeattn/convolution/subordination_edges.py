"""Support and edges of a subordination law (the mixin :class:`SupportEdges` of
:class:`~freeattn.convolution.subordination_law.SubordinationLaw`): the scan of the hull for
the inside of the support, the edges as real critical points of the system (f(u, x) = 0,
det ∂_u f(u, x) = 0, u real), all refined at once, spurious intervals at real zeros of G in a
gap, and the edges at ``dps`` digits."""
from __future__ import annotations

import math

import mpmath
import numpy as np

from .._context import TINY, inner_dps
from ..quadrature.theta import x_of_theta
from .subordination_inputs import _LADDER_FLOOR, _NEWTON_STEP_RTOL, _WARM_SLACK, _det

__all__ = ["SupportEdges"]

#: number of points of the support scan (the edges are then refined by Newton)
_SCAN_POINTS = 2001
#: margin of the support scan beyond the hull (fraction of its width)
_SCAN_PAD = 1e-3
#: distance (fraction of the scale) within which an edge is taken to be a borderline point,
#: and the probe of a hard edge at 0 (fraction of the first inside point)
_EDGE_SLACK = 1e-12
#: complex step of the edge Newton's derivatives (fraction of the scale)
_COMPLEX_STEP = 1e-30
#: the edge Newton stops at this relative step
_EDGE_NEWTON_RTOL = 1e-15
#: an edge from the critical-point Newton is confirmed at this fraction of its scan cell on
#: either side (outside, inside)
_EDGE_CHECK = 1e-6
#: trapezoidal nodes of the contour mass around a scanned interval inside a gap
_GAP_CONTOUR_NODES = 256
#: a scanned interval whose contour mass is below this is a zero of G in a gap, not support
_SPURIOUS_MASS = 1e-12


class SupportEdges:
    """The support search of a subordination law; uses the law's ``_solve_float``,
    ``_inside``, ``_eqs``, ``_hull``, ``_scale``, ``_atom_list``, ``_borderline``, ``_n`` and
    ``_half_line``."""

    def _find_support(self):
        """Scan the hull for sign changes of Im u, then refine each edge as a real critical
        point of the subordination system (f = 0, det ∂_u f = 0)."""
        lo, hi = self._hull()
        pad = _SCAN_PAD * (hi - lo) + _EDGE_SLACK * self._scale
        # uniform points plus points graded toward both ends of the hull (x = a + (b − a)
        # sin²(θ/2)), where narrow components and gaps next to the extreme edges hide
        th = np.linspace(0.0, math.pi, _SCAN_POINTS // 2)
        x = np.unique(np.concatenate([
            np.linspace(lo - pad, hi + pad, _SCAN_POINTS - th.size),
            x_of_theta(lo - pad, hi + pad, th)]))
        atoms = [a for a, _ in self._atom_list]
        keep = np.ones(x.shape, bool)
        for a in atoms + ([0.0] if self._half_line else []):
            keep &= np.abs(x - a) > _LADDER_FLOOR * self._scale
        x = x[keep]
        u, G, ok = self._solve_float(x + 0j)
        inside = self._inside(G, u) & ok
        cells = []
        i = 0
        n = x.size
        while i < n:
            if not inside[i]:
                i += 1
                continue
            j = i
            while j + 1 < n and inside[j + 1]:
                j += 1
            if i == 0 or j == n - 1:
                raise ArithmeticError(f"{self.name}: density does not vanish at the end of "
                                      f"the scanned hull [{lo}, {hi}]")
            cells += [(x[i - 1], x[i], [ui[i - 1] for ui in u], [ui[i] for ui in u]),
                      (x[j + 1], x[j], [ui[j + 1] for ui in u], [ui[j] for ui in u])]
            i = j + 1
        edges = self._refine_edges(cells)
        intervals = [(float(edges[k]), float(edges[k + 1])) for k in range(0, len(edges), 2)]
        return self._drop_spurious(intervals, atoms)

    def _refine_edges(self, cells):
        """All edges of the scan at once: ``cells`` holds (x_out, x_in, u(x_out)[, u(x_in)])
        per edge.

        Every edge is first polished as the real critical point of the system by one
        vectorised Newton iteration (:meth:`_crit_newton`) started from the scan's outside
        point, and confirmed by one vectorised solve on either side of it (outside at
        x_e − δ, inside at x_e + δ, δ = ``_EDGE_CHECK`` × the scan cell, toward x_in); one that
        does not confirm is retried from the scan's inside point, then re-polished from the
        outside (:meth:`_polish_from_outside`); an edge that still does not confirm, a hard
        edge at 0 of a half-line law and a cell holding a
        borderline point of the atom rule go through :meth:`_refine_edge` (bracket shrinking
        by sub-grids, then the same Newton).  Before, each edge shrank its bracket by three
        sequential 63-point solves first: 12 full solves for 4 edges, 80 % of the build of
        π(Empirical(1000 samples), 2) (issue 22)."""
        out = [None] * len(cells)
        slack = _EDGE_SLACK * self._scale
        fast = []
        for k, cell in enumerate(cells):
            xo, xi, uo = cell[:3]
            lo_, hi_ = min(xo, xi) - slack, max(xo, xi) + slack
            if (self._half_line and xo <= 0 < xi) or any(lo_ <= p <= hi_ for p in self._borderline):
                out[k] = self._refine_edge(xo, xi, uo)
            else:
                fast.append(k)
        if fast:
            # from the outside point; then, for the edges that did not confirm, from the
            # inside point (Re u there): in a gap holding a single scan point both its edges
            # start from that point and Newton finds one of them only
            starts = ([complex(cells[k][2][m]).real for m in range(self._n)] + [cells[k][0]]
                      for k in fast)
            self._confirm_edges(cells, fast, np.array(list(starts)).T, out)
            retry = [k for k in fast if out[k] is None and len(cells[k]) > 3]
            if retry:
                starts = ([complex(cells[k][3][m]).real for m in range(self._n)] + [cells[k][1]]
                          for k in retry)
                xe, good = self._confirm_edges(cells, retry, np.array(list(starts)).T, out)
                if np.any(good):
                    self._polish_from_outside([k for j, k in enumerate(retry) if good[j]],
                                              cells, xe[good], out)
            slow = [k for k in fast if out[k] is None]
            if slow:  # the brackets of the others shrunk together, then the same Newton
                a, b, u_a = self._bracket([cells[k][0] for k in slow], [cells[k][1] for k in slow], 3)
                for m, k in enumerate(slow):
                    if not np.all(np.isfinite([ua[m] for ua in u_a])):
                        for ua, c in zip(u_a, cells[k][2]):
                            ua[m] = c
                xe, good = self._crit_newton([ua.real for ua in u_a], a)
                good &= (xe >= np.minimum(a, b) - slack) & (xe <= np.maximum(a, b) + slack)
                for m, k in enumerate(slow):
                    lo_, hi_ = min(a[m], b[m]) - slack, max(a[m], b[m]) + slack
                    if any(lo_ <= p <= hi_ for p in self._borderline):
                        out[k] = self._refine_edge(*cells[k][:3])
                    else:
                        out[k] = float(xe[m]) if good[m] else self._refine_edge(*cells[k][:3])
        return out

    def _confirm_edges(self, cells, idx, v0, out):
        """Critical-point Newton for the edges ``idx`` of ``cells`` from the starts ``v0``
        ((u, x) per edge, shape (n + 1, len(idx))), then one vectorised solve on either side
        of each result (outside at x_e − δ, inside at x_e + δ, δ = ``_EDGE_CHECK`` × the
        scan cell, toward x_in); a confirmed edge inside its cell goes to ``out``.  Returns
        (x_e, confirmed)."""
        slack = _EDGE_SLACK * self._scale
        xo = np.array([cells[k][0] for k in idx], dtype=float)
        xi = np.array([cells[k][1] for k in idx], dtype=float)
        xe, good = self._crit_newton(list(v0[:-1]), v0[-1])
        good &= (xe >= np.minimum(xo, xi) - slack) & (xe <= np.maximum(xo, xi) + slack)
        step = _EDGE_CHECK * (xi - xo)
        probe = np.concatenate([xe - step, xe + step])
        with np.errstate(all="ignore"):
            up, Gp, okp = self._solve_float(np.where(np.isfinite(probe), probe, 0.0) + 0j)
        ins = okp & self._inside(Gp, up)
        E = xe.size
        good &= okp[:E] & ~ins[:E] & ins[E:]
        for j, k in enumerate(idx):
            if good[j]:
                out[k] = float(xe[j])
        return xe, good

    def _polish_from_outside(self, idx, cells, xe, out):
        """Re-polish edges found by Newton from the inside point as :meth:`_bracket` and
        :meth:`_crit_newton` would have (the 3-round sub-grid bracket replayed on the known
        edge x_e, without its solves: one solve at its outside end, then Newton from there).
        The endpoint of Newton on the critical system depends at the ulp on its start (the
        right edge of FreePoisson(2) ⊞ Semicircle(1), 6.232400917885496 rounded, from the
        inside point ends on ...497); so the edge is the bracket route's, for 3 solves of
        63 points per edge fewer."""
        a = np.array([cells[k][0] for k in idx], dtype=float)
        b = np.array([cells[k][1] for k in idx], dtype=float)
        frac = np.linspace(0.0, 1.0, 65)[1:-1]
        for _ in range(3):
            act = np.abs(b - a) > _NEWTON_STEP_RTOL * np.maximum(
                np.maximum(np.abs(a), np.abs(b)), TINY)
            xs = a[:, None] + (b - a)[:, None] * frac
            inside = (xs - xe[:, None]) * np.sign(b - a)[:, None] > 0
            k = np.where(inside.any(axis=1), inside.argmax(axis=1), frac.size)
            rows = np.arange(a.size)
            a = np.where(act & (k > 0), xs[rows, np.maximum(k - 1, 0)], a)
            b = np.where(act & (k < frac.size), xs[rows, np.minimum(k, frac.size - 1)], b)
        with np.errstate(all="ignore"):
            u, _, ok = self._solve_float(a + 0j)
        ok &= np.all(np.isfinite(u), axis=0)
        if not np.any(ok):
            return
        xp, conv = self._crit_newton([ui.real[ok] for ui in u], a[ok])
        near = conv & (np.abs(xp - xe[ok]) <= np.abs(xe[ok] - a[ok]))
        for j, k in enumerate(np.asarray(idx)[ok]):
            if near[j]:
                out[k] = float(xp[j])

    # own Newton on the real critical system, vectorised over edges, complex-step derivatives
    # (exact to rounding; scipy.optimize.fsolve differences its Jacobian forward, to ~√eps)
    def _crit_newton(self, u0, x0, maxit=40):
        """Newton's method on the real critical system (f(u, x) = 0, det ∂_u f = 0, u real)
        from (u0, x0) (arrays over edges); each iteration evaluates the system once, at the
        points and their n + 1 complex-step perturbations stacked.  Returns (x, converged)."""
        n, E = self._n, x0.size
        v = np.array([*u0, x0], dtype=float)  # (n + 1, E)
        h = _COMPLEX_STEP * self._scale
        done = np.zeros(E, bool)
        bad = np.zeros(E, bool)
        st = {}
        eye = np.vstack([np.zeros(n + 1), np.eye(n + 1)])  # base point, then each direction
        with np.errstate(all="ignore"):
            for _ in range(maxit):
                pts = v[:, None, :] + 1j * h * eye.T[:, :, None]  # (n + 1, n + 2, E)
                pts = pts.reshape(n + 1, -1)
                f, J = self._eqs([pts[m] for m in range(n)], pts[n], st)
                F = np.array([*f, _det(J)]).reshape(n + 1, n + 2, E)
                r = F[:, 0, :].real.T  # (E, n + 1)
                M = np.moveaxis(F[:, 1:, :].imag / h, 2, 0)  # (E, n + 1 eq, n + 1 var)
                act = ~done & ~bad
                d = np.zeros((E, n + 1))
                for e in np.flatnonzero(act):
                    try:
                        d[e] = np.linalg.solve(M[e], r[e])
                    except np.linalg.LinAlgError:
                        bad[e] = True
                bad |= act & ~np.all(np.isfinite(d), axis=1)
                move = act & ~bad
                v[:, move] -= d[move].T
                conv = move & (np.abs(d[:, -1]) <= _EDGE_NEWTON_RTOL * (
                    np.abs(v[-1]) + self._scale * _WARM_SLACK))
                done |= conv
                if np.all(done | bad):
                    break
        return v[-1].copy(), done & ~bad

    def _drop_spurious(self, intervals, atoms):
        """Drop a scanned "interval" that carries no mass: at a real zero of G inside a gap
        (F = 1/G = ∞, the subordination functions infinite) the system has nearby non-real
        solutions that look like the inside of the support.  Such a zero lies strictly between
        two pieces of the spectrum, so only interior candidates are tested, by the contour mass
        (1/2πi)∮G of a circle around the candidate that stays half-way inside the gaps on
        either side (trapezoidal rule, ``_GAP_CONTOUR_NODES`` nodes)."""
        if len(intervals) + len(atoms) < 3:
            return intervals
        phi = 2 * math.pi * (np.arange(_GAP_CONTOUR_NODES) + 0.5) / _GAP_CONTOUR_NODES
        circles = {}  # every candidate's circle, solved in one vectorised call
        for k, (a, b) in enumerate(intervals):
            left = [e for i, (_, e) in enumerate(intervals) if i != k and e < a]
            left += [p for p in atoms if p < a]
            right = [s_ for i, (s_, _) in enumerate(intervals) if i != k and s_ > b]
            right += [p for p in atoms if p > b]
            if not left or not right:
                continue
            gap = min(a - max(left), min(right) - b)
            c, r = 0.5 * (a + b), 0.5 * (b - a) + 0.5 * gap
            circles[k] = (c, c + r * np.exp(1j * phi))
        if not circles:
            return intervals
        zeta = np.concatenate([zk for _, zk in circles.values()])
        upper = zeta.imag > 0
        _, g, ok = self._solve_float(np.where(upper, zeta, zeta.conj()))
        g = np.where(upper, g, g.conj()).reshape(len(circles), -1)
        ok = ok.reshape(g.shape)
        kept = []
        for k, iv in enumerate(intervals):
            if k in circles:
                j = list(circles).index(k)
                c, zk = circles[k]
                mass = float(np.mean(g[j] * (zk - c)).real)
                if ok[j].all() and abs(mass) <= _SPURIOUS_MASS:
                    continue
            kept.append(iv)
        return kept

    def _crit(self, v, st):
        """Real critical system F(v) = (Re f(u, x), det ∂_u f(u, x)) for v = (u, x)."""
        u = [np.array([c]) for c in v[:-1]]
        zz = np.array([v[-1]])
        f, J = self._eqs(u, zz, st)
        return [fi[0] for fi in f] + [_det(J)[0]]

    def _bracket(self, a, b, rounds):
        """Shrink brackets (arrays: a outside, b inside the support) by sub-grids of 63
        points, every bracket's grid solved in one vectorised call per round; returns
        (a, b, u at a) — u at a is NaN where a never moved."""
        a, b = np.array(a, dtype=float), np.array(b, dtype=float)
        u_a = [np.full(a.shape, np.nan + 0j) for _ in range(self._n)]
        frac = np.linspace(0.0, 1.0, 65)[1:-1]
        for _ in range(rounds):
            act = np.flatnonzero(np.abs(b - a) > _NEWTON_STEP_RTOL * np.maximum(
                np.maximum(np.abs(a), np.abs(b)), TINY))
            if act.size == 0:
                break
            xs = a[act, None] + (b - a)[act, None] * frac  # (edges, 63)
            u, G, ok = self._solve_float(xs.reshape(-1) + 0j)
            inside = (ok & self._inside(G, u)).reshape(xs.shape)
            k = np.where(inside.any(axis=1), inside.argmax(axis=1), frac.size)
            rows = np.arange(act.size)
            moved = k > 0
            km = np.maximum(k - 1, 0)
            a[act[moved]] = xs[rows, km][moved]
            for ua, ui in zip(u_a, u):
                ua[act[moved]] = ui.reshape(xs.shape)[rows, km][moved]
            inb = k < frac.size
            b[act[inb]] = xs[rows, np.minimum(k, frac.size - 1)][inb]
        return a, b, u_a

    # own Newton on the real critical system with complex-step derivatives (exact to rounding;
    # scipy.optimize.fsolve differences its Jacobian forward, to ~√eps)
    def _refine_edge(self, x_out, x_in, u_out):
        """Edge between a point x_out off the support and a point x_in inside it: the bracket
        is shrunk by vectorised sub-grids, then the edge is polished as the real critical
        point of the system (f(u, x) = 0, det ∂_u f = 0, u real) by Newton's method with
        complex-step derivatives; if Newton leaves the bracket the bracket itself is shrunk
        to rounding level."""
        if self._half_line and x_out <= 0 < x_in:
            # the law lives on [0, ∞): 0 is a breakpoint of the system (z = 0) and the
            # edge lies in [0, x_in]; a density still positive at 1e-12·x_in has its edge at 0
            # (a hard edge, e.g. x^{-2/3} for MP₁ ⊠ MP₁)
            probe = np.array([_EDGE_SLACK * x_in + 0j])
            u_p, G_p, ok_p = self._solve_float(probe)
            if ok_p[0] and self._inside(G_p, u_p)[0]:
                return 0.0
            x_out = 0.0
        a, b, u_a = self._bracket([x_out], [x_in], 3)
        a, b, u_a = float(a[0]), float(b[0]), [ua[0] for ua in u_a]
        slack = _EDGE_SLACK * self._scale
        for p in self._borderline:  # a hard edge at a borderline point of the atom rule
            if min(a, b) - slack <= p <= max(a, b) + slack:
                return p
        if not np.all(np.isfinite(u_a)):
            u_a = u_out
        n = self._n
        v = np.array([complex(c).real for c in u_a] + [a], dtype=complex)
        st = {}
        h = _COMPLEX_STEP * self._scale
        good = False
        with np.errstate(all="ignore"):
            for _ in range(40):
                F = np.array(self._crit(v.real.astype(complex), st))
                M = np.zeros((n + 1, n + 1))
                for k in range(n + 1):
                    e = np.zeros(n + 1, dtype=complex)
                    e[k] = 1j * h
                    M[:, k] = (np.array(self._crit(v.real + e, dict(st))) / h).imag
                try:
                    d = np.linalg.solve(M, F.real)
                except np.linalg.LinAlgError:
                    break
                if not np.all(np.isfinite(d)):
                    break
                v = v.real - d
                if abs(d[-1]) <= _EDGE_NEWTON_RTOL * (abs(v[-1].real) + self._scale * _WARM_SLACK):
                    good = True
                    break
        xe = float(v[-1].real)
        if good and min(a, b) - slack <= xe <= max(a, b) + slack:
            return xe
        a, b, _ = self._bracket([a], [b], 12)
        return float(0.5 * (a[0] + b[0]))

    def _edge_mp(self, e, dps):
        """Edge at ``dps`` digits: mpmath Newton on the critical system from the float edge.

        The edge 0 of a law on [0, ∞) is exact (a breakpoint of the system, decided by
        :meth:`_refine_edge`); an edge the Newton iteration cannot refine raises rather than
        pass a float64 edge off as a ``dps``-digit one."""
        if self._half_line and e == 0.0:
            return mpmath.mpf(0)
        u, _, _ = self._solve_float(np.array([e + 0j]))
        start = [mpmath.mpf(float(ui[0].real)) for ui in u] + [mpmath.mpf(e)]

        def F(*v):
            uu = [mpmath.mpc(c) for c in v[:-1]]
            f, J = self._eqs_mp(uu, mpmath.mpc(v[-1]), inner_dps(dps))
            return [mpmath.re(fi) for fi in f] + [mpmath.re(_det(J))]

        try:
            sol = mpmath.findroot(F, start)
        except (ValueError, ZeroDivisionError) as exc:
            raise ArithmeticError(f"{self.name}: the edge near {e!r} could not be refined to "
                                  f"{dps} digits ({exc}); use dps=None") from None
        return sol[self._n]
