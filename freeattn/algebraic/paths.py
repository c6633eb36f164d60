"""Continuation of the Stieltjes branch along the real axis toward an end of its interval.

Next to a square-root end the two roots that meet there are ~√δ apart and nearest-root
continuity from the interval's midpoint can jump sheets; the branch is continued once per end
on a log-spaced grid of δ = x − e (tracked down from far above the axis at the outer point,
then step by step with predictors, sub-divided where a step is ambiguous), and every point of
the zone takes the root nearest that path.

:class:`PathsMixin` is a part of :class:`freeattn.laws.AlgebraicLaw`.
"""
from __future__ import annotations

import math

import numpy as np

from .branch import _EDGE_ZONE, _REAL_ROOT_IM
from .local import _SAME_SHEET, _local_coefficients, edge_root_scaled

__all__ = ["PathsMixin"]

#: final tracker height (× |δ|) at the outer point of an end's path
_PATH_TRACK_HEIGHT = 1e-3
#: innermost |δ| of an end's path (× (|e| + width)), below which double precision does not
#: separate the two roots meeting at e; and of the path toward an end shared with the next
#: interval (× width)
_PATH_INNERMOST = 1e-10
_INNER_PATH_INNERMOST = 1e-40
#: the first Newton step of an inner path kept within this of the table's node (relative)
_INNER_START_MATCH = 1e-8
#: a step's corrector slack: ≤ a quarter of the predicted move + _STEP_SLACK·|G| (rounding)
_STEP_SLACK = 1e-12
#: Newton from a path's value: converged step (× |G|)
_PATH_NEWTON_RTOL = 1e-10
#: the smallest normal double: a |δ| below it (subnormal, or 0 where (b − a)·sin²(θ/2)
#: underflowed next to a hard end at 0) keeps too few bits for a path's ln|δ| or an edge
#: expansion, and log 0 would warn; such points keep the general route
_NORMAL_MIN = float(np.finfo(float).tiny)
#: Newton on P from the path kept within this fraction of the separation to the next root
#: (and the edge expansion from the path's value likewise, :meth:`_edge_from_path`)
_PATH_SHEET_FRACTION = 0.2
#: below an edge's path (|δ| < δ₀, its innermost point, u₀ = G(δ₀) − G_e there) the edge
#: expansion's root is kept within this × |u₀|·√(|δ|/δ₀) of G_e (on top of _SAME_SHEET·|G_e|):
#: u ~ √δ to leading order, and a path that stops early (roots |G| ~ 1e4 a few units apart
#: next to an atom) leaves |u| far above _SAME_SHEET·|G_e| at its end
_BELOW_PATH_SLACK = 2.0


def _path_span(path, j, lq):
    """The points ``j`` (log-distances ``lq`` to the end) inside the span of a continued
    ``path`` (log-distances, branch values, root separations), with the path's value and the
    root separation interpolated there: (jj, ref, gap), or None when none is inside."""
    ld, gp, sep = path
    on = (lq >= ld[0]) & (lq <= ld[-1])
    if not np.any(on):
        return None
    jj, lo_ = j[on], lq[on]
    ref = np.interp(lo_, ld, gp.real) + 1j * np.interp(lo_, ld, gp.imag)
    gap = np.minimum(np.interp(lo_, ld, sep),
                     sep[np.clip(np.searchsorted(ld, lo_), 0, len(ld) - 1)])
    return jj, ref, gap


class PathsMixin:
    """Paths of the branch toward the ends (a part of AlgebraicLaw)."""

    #: grid points per decade of the path toward a square-root end (_edge_path); the branch
    #: moves by a factor e^{ln 10/(2·20)} ≈ 1.06 in u ~ √δ per step, its partner root is 2|u|
    #: away
    _PATH_PER_DECADE = 20

    @staticmethod
    def _edge_path_span(t, edge):
        """(e, δ, h) of the point where an end's path starts: x = e + δ at the outer end of
        the edge zone, tracked down to the height h."""
        hi = _EDGE_ZONE * (t["b"] - t["a"]) * 1.5
        return edge["x"], (hi if edge["end"] == "a" else -hi), _PATH_TRACK_HEIGHT * hi

    def _edge_path(self, t, edge, sh):
        """The branch on a log-spaced grid of δ = x − e from the outer end of the edge zone
        (|δ| = _EDGE_ZONE·(b − a)) toward the end e (|δ| = 1e-10·(|e| + b − a)): tracked down
        from far above the axis at the outer point, then continued inward point by point
        (:meth:`_axis_steps`: a predictor, unambiguous roots, sub-steps where needed).  Returns
        (ln|δ| ascending, branch values, distance to the nearest other root), truncated before
        the first point the continuation cannot resolve or that lies on the axis, or None
        where fewer than two points remain; cached on the edge."""
        if "path" in edge:
            return edge["path"]
        a, b = t["a"], t["b"]
        sgn = 1.0 if edge["end"] == "a" else -1.0
        hi = _EDGE_ZONE * (b - a) * 1.5
        lo = _PATH_INNERMOST * (abs(edge["x"]) + (b - a)) * 0.5
        n = max(2, int(math.ceil(math.log10(hi / lo) * self._PATH_PER_DECADE)) + 1)
        mag = np.geomspace(hi, lo, n)  # outer point first
        d = sgn * mag
        e = edge["x"]
        path = None
        if "anchor" in edge:  # tracked already, together with the other ends (_tables)
            g0, ok = np.array([edge["anchor"][0]]), [edge["anchor"][1]]
        else:
            g0, ok = self._num.track(np.array([e + d[0]]), np.array([_PATH_TRACK_HEIGHT * mag[0]]))
        if ok[0]:
            g0, _ = sh.newton(g0, d[:1], steps=3)
            r = sh.roots(d)
            k = 0
            if np.isfinite(g0[0]):
                k, gs = self._axis_steps(sh, d, r, g0[0], t[edge["end"]])
            if k >= 2:
                gs, _ = sh.newton(gs, d[:k], steps=2)
                # distance from the branch to the nearest other root at each grid point
                sep = np.abs(r[:k] - gs[:, None])
                sep = np.where(np.isfinite(sep), sep, np.inf)
                sep = np.sort(sep, axis=1)[:, 1] if r.shape[1] > 1 else np.full(k, np.inf)
                # inside the support the branch has Im G < 0: a value on the axis is another
                # sheet's real root (see _tables) or the two roots meeting at the edge no
                # longer separated by doubles (their split ~ √δ drowns in the rounding of the
                # companion eigenvalues when |G| spans 1e6: mha_output_law(0.2734, 14, 1.7284,
                # 0.3307, 0.3346) at 1.4e-6 below δ ~ 1e-13); the path ends before the first
                # such value and the edge expansion takes over below it (_edge_zone_guess).
                # Dropping the whole path sent the zone to the point-by-point tracker (100 s).
                inside = np.isfinite(gs) & (gs.imag < -_REAL_ROOT_IM * np.abs(gs))
                k = int(np.argmin(inside)) if not np.all(inside) else k
                if k >= 2:
                    path = (np.log(mag[:k][::-1]), gs[:k][::-1], sep[:k][::-1])
        edge["path"] = path
        return path

    def _edge_zone_guess(self, t, g, bad, left, delta, sha, shb):
        """In place: the branch at ``bad`` points of the zones next to square-root ends
        without companion eigenvalues.  Where the end's path (_edge_path) covers |δ|: Newton
        on the re-expanded P from the path's value, kept when it settles within a fifth of
        the distance to the next root there.  Below the path (|δ| < 1e-10·(|e| + b − a),
        where double precision cannot separate the two roots meeting at e): the edge
        expansion, kept when it agrees with the double root G_e to 1e-3 (as the sheet check
        of _edge_local).  Points kept are cleared from ``bad``; the others keep the general
        route, as do points whose |δ| is not a normal double (_NORMAL_MIN: next to a hard end
        at 0 without Puiseux data there, where the tiny-z route cannot take them)."""
        a, b = t["a"], t["b"]
        # an end shared with the next support interval (a branch point of other sheets or a
        # cusp): beyond the table's first node, the path continued from that node
        for is_a, end in ((True, t["a_mp"]), (False, t["b_mp"])):
            if end not in t["inner"] or t.get("pole_" + ("a" if is_a else "b")):
                continue
            side = left if is_a else ~left
            sh = sha if is_a else shb
            j = np.flatnonzero(bad & side & (np.abs(delta) >= _NORMAL_MIN))
            if not j.size:  # (the path, cached on the table, built only when a point needs it)
                continue
            path = self._inner_path(t, "a" if is_a else "b", sh)
            if path is None:
                continue
            self._newton_from_path(path, sh, delta, j, np.log(np.abs(delta[j])), g, bad)
        # t["edges"] (built on first read, with 30-digit re-expansions) only for points left
        # in an end's zone: those off it (an unresolved bulk feature) keep the general route
        zone = bad & (np.abs(delta) <= _EDGE_ZONE * (b - a)) & (np.abs(delta) >= _NORMAL_MIN)
        for edge in (t["edges"] if np.any(zone) else ()):
            if edge.get("pole") or "p" not in edge:
                continue
            is_a = edge["end"] == "a"
            side = left if is_a else ~left
            j = np.flatnonzero(bad & side & (np.abs(delta) <= _EDGE_ZONE * (b - a))
                               & (np.abs(delta) >= _NORMAL_MIN))
            if not j.size:
                continue
            sh = sha if is_a else shb
            path = edge["path"] if "path" in edge else self._edge_path(t, edge, sh)
            if path is None:
                continue
            ld = path[0]
            lq = np.log(np.abs(delta[j]))
            self._newton_from_path(path, sh, delta, j, lq, g, bad)
            left_ = bad[j]
            if np.any(left_):  # Newton on P unsettled: the edge expansion from the path
                self._edge_from_path(edge, path, delta, j[left_], lq[left_], g, bad)
            below = lq < ld[0]
            if np.any(below):
                jj = j[below]
                ge = np.full(jj.size, complex(edge["g"]))
                gl = self._edge_local(edge, delta[jj], np.full(jj.size, np.nan + 0j), ref=ge)
                keep = np.isfinite(gl)
                g[jj[keep]] = gl[keep]
                bad[jj[keep]] = False
                rest = ~keep
                if np.any(rest):
                    self._edge_below_path(edge, path, delta, jj[rest], g, bad)

    def _inner_path(self, t, side, sh):
        """The branch on a log-spaced grid of δ toward an end shared with the next support
        interval, from the table's first node (|δ| ≈ 4e-5·(b − a)) down to 1e-40·(b − a):
        steps of the re-expanded P (:meth:`_axis_steps`: a predictor, unambiguous roots,
        sub-steps where needed), truncated at the first unresolved step (roots that meet
        at the end, a cusp, are not separated by doubles below some |δ|).  Returns
        (ln|δ| ascending, branch values, distance to the nearest other root) or None;
        cached on the table."""
        key = "inner_path_" + side
        if key in t:
            return t[key]
        a, b = t["a"], t["b"]
        k0 = 1 if side == "a" else len(t["theta"]) - 2
        th0 = t["theta"][k0]
        mag0 = (b - a) * (math.sin(0.5 * th0) ** 2 if side == "a" else math.cos(0.5 * th0) ** 2)
        lo = (b - a) * _INNER_PATH_INNERMOST
        # 5 points a decade: a root moving like |δ|^p, p ≥ 1/3, moves by < 17 % of its
        # distance to its partner per step
        n = int(math.ceil(math.log10(mag0 / lo) * 5)) + 1
        mag = np.geomspace(mag0, lo, n)
        d = (1.0 if side == "a" else -1.0) * mag
        path = None
        g0, _ = sh.newton(np.array([t["g"][k0]]), d[:1], steps=3)
        if np.isfinite(g0[0]) and abs(g0[0] - t["g"][k0]) <= _INNER_START_MATCH * abs(t["g"][k0]):
            r = sh.roots(d)
            k, gs = self._axis_steps(sh, d, r, g0[0], t[side])
            if k >= 2:
                gs, _ = sh.newton(gs[:k], d[:k], steps=2)
                sep = np.abs(r[:k] - gs[:, None])
                sep = np.where(np.isfinite(sep), sep, np.inf)
                sep = np.sort(sep, axis=1)[:, 1] if r.shape[1] > 1 else np.full(k, np.inf)
                # truncated before the first value on the axis (Im G < 0 inside the support;
                # at a cusp the branch meets the axis at the end)
                inside = np.isfinite(gs) & (gs.imag < -_REAL_ROOT_IM * np.abs(gs))
                k = int(np.argmin(inside)) if not np.all(inside) else len(gs)
                if k >= 2:
                    path = (np.log(mag[:k][::-1]), gs[:k][::-1], sep[:k][::-1])
        t[key] = path
        return path

    #: most sub-steps into which :meth:`_axis_steps` splits one ambiguous grid step
    _AXIS_MAX_SUBSTEPS = 1024

    @classmethod
    def _axis_steps(cls, sh, d, r, g0, e):
        """Continue the branch along the real axis over the grid δ = ``d`` (toward an end
        e = ``e``; ``r`` the roots of the re-expanded P ``sh`` there) from its value ``g0`` at
        d[0].

        Each step takes the root next to a predictor (:meth:`_axis_step`), unambiguous and
        with a corrector small against the predicted move; where a grid step is not, it is
        retried in 2, 4, …, ``_AXIS_MAX_SUBSTEPS`` geometric sub-steps.  Nearest-root
        continuity from the previous value is not enough on either count:
        next to an end shared by two support intervals G moves fast
        (mha_output_law(1.0516, 1, 0.4303, 0.9061, 1.3459): the first of 5 steps a decade
        from 23.2 − 21.4i to 28.8 − 26.4i has its next root at 27.4 against a move of 7.4; the
        path was dropped and the cdf lost 1.1e-7 next to x = 0.002223), and where the branch
        grows like mass/(x − p) next to an atom p the roots of nearly equal masses are ~1 %
        apart (mha_output_law(0.2734, 14, 1.7284, 0.3307, 0.3346) at 1.4e-6 above the atom at
        0: the nearest root to 342097 − 595i one step on was the real 340150, not the branch
        352076 − 578i; the zone went to the point-by-point tracker, 100 s).

        Returns
        -------
        (k, gs) : the number of grid points reached and the branch at ``d[:k]``; the walk
        stops at the first step no sub-division resolves (roots that meet at the end)."""
        n = len(d)
        gs = np.empty(n, complex)
        gs[0] = g0
        poles = np.asarray(getattr(sh, "pole_hint", ()), dtype=float) - e
        # fast pass: nearest roots to the previous values, then every step checked against
        # the predictors at once (vectorised); the step-by-step route starts at the first
        # step that fails
        k0 = n
        for k in range(1, n):
            dist = np.abs(r[k] - gs[k - 1])
            dist = np.where(np.isfinite(dist), dist, np.inf)
            o = np.argsort(dist)
            if not (len(o) == 1 or dist[o[0]] <= 0.25 * dist[o[1]]):
                k0 = k
                break
            gs[k] = r[k, o[0]]
        if k0 > 1:
            bad = np.flatnonzero(~cls._axis_check(sh, d[:k0], gs[:k0], r[:k0], poles))
            if bad.size:
                k0 = int(bad[0]) + 1
        if k0 == n:
            return n, gs
        with np.errstate(all="ignore"):
            for k in range(k0, n):
                g = cls._axis_step(sh, d[k - 1], gs[k - 1], d[k], r[k], poles)
                m = 2
                while g is None and m <= cls._AXIS_MAX_SUBSTEPS:
                    ds = d[k - 1] * (d[k] / d[k - 1]) ** (np.arange(1, m + 1) / m)
                    rs = sh.roots(ds)
                    g, dc = gs[k - 1], d[k - 1]
                    for j in range(m):
                        g = cls._axis_step(sh, dc, g, ds[j], rs[j], poles)
                        if g is None:
                            break
                        dc = ds[j]
                    m *= 2
                if g is None:
                    return k, gs[:k]
                gs[k] = g
        return n, gs

    @staticmethod
    def _axis_check(sh, d, gs, r, poles):
        """Whether each step gs[k − 1] → gs[k] of a walk along δ = ``d`` (``r`` the roots there)
        is the one :meth:`_axis_step` takes (vectorised over the steps)."""
        with np.errstate(all="ignore"):
            dc, dn, g = d[:-1], d[1:], gs[:-1]
            dg = sh.derivative(g, dc)
            preds = [(g + dg * (dn - dc), np.ones(len(g), bool))]
            if len(poles):
                p = poles[np.argmin(np.abs(dc[:, None] - poles[None, :]), axis=1)]
                near = (np.abs(dn - dc) <= 8 * np.abs(dc - p)) & (dn != p)
                preds.append((((dc - p) * g + (g + (dc - p) * dg) * (dn - dc)) / (dn - p), near))
            rows = np.arange(len(g))
            agree = np.ones(len(g), bool)
            some = np.zeros(len(g), bool)
            for pred, use in preds:
                dist = np.abs(r[1:] - pred[:, None])
                dist = np.where(np.isfinite(dist), dist, np.inf)
                o = np.argsort(dist, axis=1)
                d1 = dist[rows, o[:, 0]]
                d2 = dist[rows, o[:, 1]] if r.shape[1] > 1 else np.full(len(g), np.inf)
                ok = (use & np.isfinite(pred) & np.isfinite(d1) & (d1 <= 0.25 * d2)
                      & (d1 <= 0.25 * np.abs(pred - g) + _STEP_SLACK * np.abs(g)))
                agree &= ~ok | (r[1:][rows, o[:, 0]] == gs[1:])
                some |= ok
        return some & agree

    @staticmethod
    def _axis_step(sh, dc, g, dn, rn, poles):
        """One step of :meth:`_axis_steps` from (δ = ``dc``, branch ``g``) to ``dn`` among the
        roots ``rn`` there, or None.  Predictors: g + G′·Δδ (G′ = −∂_δP/∂_GP), and next to a
        pole p (offsets ``poles`` in δ, within 8 |δ − p| of the step) H = (δ − p)·G linear in
        δ, exact for G ~ mass/(δ − p).  A pick is kept when it is the nearest root to a
        predictor by a factor 4, its corrector is at most a quarter of the predicted move, and
        no two such picks differ."""
        cf = sh.__dict__.get("_cf_rows")
        if cf is None or cf[0] is not sh.cf:
            cf = sh.__dict__["_cf_rows"] = (sh.cf, sh.cf.tolist())
        p_ = pg = pz = 0j  # P, ∂_GP, ∂_δP at (g, dc): scalar Horner (Python complex)
        for row in cf[1]:
            ck = dck = 0j
            for c in row:
                dck = dck * dc + ck
                ck = ck * dc + c
            pg = pg * g + p_
            p_ = p_ * g + ck
            pz = pz * g + dck
        if pg == 0:
            return None
        dg = -pz / pg
        preds = [g + dg * (dn - dc)]
        if len(poles):
            p = poles[np.argmin(np.abs(poles - dc))]
            if abs(dn - dc) <= 8 * abs(dc - p) and dn != p:
                preds.append(((dc - p) * g + (g + (dc - p) * dg) * (dn - dc)) / (dn - p))
        picks = set()
        for pred in preds:
            if not np.isfinite(pred):
                continue
            dist = np.abs(rn - pred)
            dist = np.where(np.isfinite(dist), dist, np.inf)
            o = np.argsort(dist)
            if (np.isfinite(dist[o[0]]) and (len(o) == 1 or dist[o[0]] <= 0.25 * dist[o[1]])
                    and dist[o[0]] <= 0.25 * abs(pred - g) + _STEP_SLACK * abs(g)):
                picks.add(int(o[0]))
        return rn[picks.pop()] if len(picks) == 1 else None

    @staticmethod
    def _newton_from_path(path, sh, delta, j, lq, g, bad):
        """Points ``j`` (log-distance ``lq`` to the end) inside the span of a continued
        ``path`` (log-distances, branch values, root separations): Newton from the path's
        value; a result is kept in ``g`` (and cleared from ``bad``) only on the branch's sheet
        (Im G < 0), converged, and within a fifth of the separation from the path."""
        span = _path_span(path, j, lq)
        if span is None:
            return
        jj, ref, gap = span
        gn, stp = sh.newton(ref.copy(), delta[jj], steps=4)
        with np.errstate(invalid="ignore"):
            keep = (np.isfinite(gn) & (gn.imag < -_REAL_ROOT_IM * np.abs(gn))
                    & (stp <= _PATH_NEWTON_RTOL * np.abs(gn))
                    & (np.abs(gn - ref) <= _PATH_SHEET_FRACTION * gap))
        g[jj[keep]] = gn[keep]
        bad[jj[keep]] = False

    @staticmethod
    def _edge_from_path(edge, path, delta, j, lq, g, bad):
        """Points ``j`` inside the span of an edge's ``path`` where Newton on P from the path
        did not settle (:meth:`_newton_from_path`; two roots |G| ~ 1e4 a few units apart are
        below the rounding of P in doubles): Newton on the edge expansion, in its scaled
        variables (:func:`~.local.edge_root_scaled`), from the path's value; kept on the same
        criterion (converged, Im G < 0, within _PATH_SHEET_FRACTION of the separation)."""
        span = _path_span(path, j, lq)
        if span is None:
            return
        jj, ref, gap = span
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            u, conv = edge_root_scaled(edge, delta[jj], 1.0, seed=ref - edge["g"])
            gn = edge["g"] + u
            keep = (conv & np.isfinite(gn) & (gn.imag < -_REAL_ROOT_IM * np.abs(gn))
                    & (np.abs(gn - ref) <= _PATH_SHEET_FRACTION * gap))
        g[jj[keep]] = gn[keep]
        bad[jj[keep]] = False

    @staticmethod
    def _edge_below_path(edge, path, delta, j, g, bad):
        """Points ``j`` below an edge's path whose expansion root is beyond _SAME_SHEET·|G_e|
        of G_e (:meth:`_edge_zone_guess`): kept where it converged with Im G < 0 within
        _BELOW_PATH_SLACK·|u₀|·√(|δ|/δ₀) of G_e (u₀ = G − G_e at the path's innermost point
        δ₀), the size the √δ law gives u from the path's end."""
        ld, gp, _ = path
        ge = complex(edge["g"])
        u0 = abs(complex(gp[0]) - ge)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            u, conv = edge_root_scaled(edge, delta[j], 1.0)
            # where Newton from the local quadratic's root did not settle: Newton from the
            # smallest root with Im u < 0 of the local polynomial (of the pair ±c√δ meeting at
            # e, the branch's; the other sheets' roots stay away from G_e)
            for k in np.flatnonzero(~conv & np.isfinite(delta[j])):
                start = PathsMixin._smallest_lower_root(edge, delta[j][k])
                if start is not None:
                    uk, ck = edge_root_scaled(edge, delta[j][k:k + 1], 1.0,
                                              seed=np.array([start]))
                    u[k], conv[k] = uk[0], ck[0]
            gn = ge + u
            bound = (_SAME_SHEET * abs(ge)
                     + _BELOW_PATH_SLACK * u0 * np.sqrt(np.abs(delta[j]) / math.exp(ld[0])))
            keep = (conv & np.isfinite(gn) & (gn.imag < -_REAL_ROOT_IM * np.abs(gn))
                    & (np.abs(u) <= bound))
        g[j[keep]] = gn[keep]
        bad[j[keep]] = False

    @staticmethod
    def _smallest_lower_root(edge, d):
        """The root u with Im u < 0 of smallest |u| of the edge expansion at δ = ``d``
        (companion eigenvalues of the scaled local polynomial, :func:`~.local.edge_root_scaled`),
        or None."""
        p, U, D = edge["p"], edge.get("U", 1.0), edge.get("D", 1.0)
        tq = d / D
        q = np.array(_local_coefficients(p, tq))
        nz = np.flatnonzero(q)
        if not nz.size:
            return None
        r = np.roots(q[: nz[-1] + 1][::-1]) * U
        r = r[np.isfinite(r) & (r.imag < 0)]
        return complex(r[np.argmin(np.abs(r))]) if r.size else None

    @staticmethod
    def _on_path(path, sh, d):
        """The root of the re-expanded P (``sh``) at δ = ``d`` nearest the path's value there
        (unambiguous: at most a quarter of the distance to the next root), polished; or None."""
        if path is None:
            return None
        ld, gp, _ = path
        lq = math.log(abs(d))
        if not ld[0] <= lq <= ld[-1]:
            return None
        ref = np.interp(lq, ld, gp.real) + 1j * np.interp(lq, ld, gp.imag)
        r = sh.roots(np.array([d]))[0]
        dist = np.abs(r - ref)
        dist = np.where(np.isfinite(dist), dist, np.inf)
        o = np.argsort(dist)
        if len(o) > 1 and not dist[o[0]] <= 0.25 * dist[o[1]]:
            return None
        g, _ = sh.newton(r[o[:1]], np.array([d]), steps=3)
        return g[0] if np.isfinite(g[0]) and g[0].imag < -_REAL_ROOT_IM * abs(g[0]) else None
