"""The Stieltjes branch of P(G, z) = 0 on the real axis: θ-tables, selection, continuation.

Per support interval a table of the branch G(x + i0) on a θ-grid (Newton starts), P re-expanded
at each end (points next to an end keep the relative accuracy of their distance to it), and the
branch at any point of the interval from the table, the ends' local expansions
(:mod:`.local`) and the continued paths toward the ends (:mod:`.paths`); G on the axis off the
support and at breakpoints; G on the upper half-plane (unique root with Im G < 0 and
Im(1/G) ≥ Im z, else continued down from far above); the mpmath twins of each, from the
float64 value by Newton.  Rao & Edelman 2008, §5 (the branch and its breakpoints).

:class:`BranchMixin` is a part of :class:`freeattn.laws.AlgebraicLaw`: its methods read the
law's numeric polynomial (``_num``), branch data (``_branch``) and atoms.
"""
from __future__ import annotations

import cmath
import copy
import math
from functools import cached_property

import mpmath
import numpy as np

from .._context import FLOAT_EPS, FLOAT_REFERENCE_DPS, MPMATH, TINY, tolerance, workdps
from ..quadrature.theta import theta_of_x as _theta_of_x, x_of_theta as _x_of_theta
from .local import _FLOAT_RANGE_DECADES, _SAME_SHEET, edge_root, edge_root_scaled
from .numeric import _TABLE_NODES, relative_imag
from .roots import horner_with_derivative

__all__ = ["BranchMixin"]

#: relative width of the zone next to a square-root edge solved by the local expansion
_EDGE_ZONE = 1e-3
#: G at z = x + iε with ε ≤ this × the interval's width, x ≥ _AXIS_CLEAR·ε from its ends, may
#: come from the on-axis limit by Newton (:meth:`BranchMixin._axis_cauchy`) when the tracker
#: fails, accepted within _AXIS_MATCH (relative) of that limit
_AXIS_HEIGHT = 1e-6
_AXIS_CLEAR = 1e3
_AXIS_MATCH = 1e-3

#: |Im G|/|G| below which a root on the axis is real (another sheet), not the support's
#: branch: inside the support Im G < 0, and at the closest point the tables use (1e-10 of the
#: scale from an edge) a square-root edge still leaves |Im G|/|G| ~ 1e-5
_REAL_ROOT_IM = 1e-13

#: a root's |Im G|/|G| below which it counts as on the axis, and above which (in magnitude)
#: it is clearly the support's branch, where an interval has one root with Im < 0
_CLEAR_BRANCH_IM = 1e-6
_ON_AXIS_IM = 1e-9
#: on a gap, float64 roots decide the sheet only where the real ones are real to this
#: (|Im|/|root|; a simple root's rounding is ~1e-15, a near-double root's ~1e-8) and the
#: others clearly complex (above _CLEAR_BRANCH_IM), and the branch's root is good to
#: _GAP_ROOT_RTOL by its condition (Σ|c_k||g|^k / (|g||∂_G P|) × eps); elsewhere the point
#: is taken at the reference precision (sheets that share a pole's residue, 1e-10 apart next
#: to the pole: mha-34's gap beside 0, the float64 value 1e-3 to 1 off)
_GAP_REAL_CLEAR = 1e-11
_GAP_ROOT_RTOL = 1e-12
#: relative offset (× interval width) of the point just inside an end where the branch is
#: anchored, and the tracker's final height there (× that offset)
_INSIDE_OFFSET = 1e-7
_ANCHOR_HEIGHT = 1e-5
#: Newton accepted on the table's guess: step ≤ _NEWTON_STEP_RTOL·|G| and within
#: _GUESS_RTOL·|guess| of the interpolated table value
_NEWTON_STEP_RTOL = 1e-10
_GUESS_RTOL = 1e-2
#: Newton on a power-law guess next to a pole: converged step, |log(G/guess)| bound
_POLE_STEP_RTOL = 1e-12
_LOG_MATCH = 0.5
#: closest relative distance to an end (× (|e| + width)) at which x − e is formed exactly
#: enough to track (below: the edge expansion alone)
_TRACKABLE = 1e-10
#: final tracker height × |δ| for points tracked one by one
_TRACK_HEIGHT = 1e-3
#: relative distances (× (1 + |p|)) at which the growth of |G| next to a pole is read
_DIVERGENCE_PROBES = (1e-6, 1e-12)
#: heights (× (1 + |e|)) of the limit along iε at a breakpoint that is a pole
_POLE_LIMIT_HEIGHTS = (1e-10, 1e-13)

#: |G| growing by more than this factor (+ 1) between the two heights of
#: _POLE_LIMIT_HEIGHTS: the branch diverges at the pole (a hard edge)
_DIVERGING = 10
#: roots within _MERGE_RTOL·(1 + |G|) of each other at a breakpoint count as a double root,
#: as does |∂P/∂G| ≤ _DOUBLE_ROOT_DP·(1 + |G|)
_MERGE_RTOL = 1e-4
_DOUBLE_ROOT_DP = 1e-6
#: digits beyond dps within which x is taken to be a breakpoint (mpmath)
_BREAKPOINT_EXTRA_DPS = 5
#: mpmath Newton from the float64 table value kept within this of it (interpolated,
#: polished table value; off the support, relative to 1 + |G|)
_MP_TABLE_MATCH = 1e-3
_MP_POLISHED_MATCH = 1e-6


class _Table(dict):
    """A support interval's table (a dict: θ-nodes, branch values, ends, …) whose
    ``"edges"`` entry is built on its first read, for all tables of the law at once
    (:meth:`BranchMixin._table_edges`).  Holds its law for that (no closure: it pickles with
    the law)."""

    def __init__(self, owner, **items):
        super().__init__(**items)
        self.owner = owner

    def __missing__(self, key):
        if key != "edges":
            raise KeyError(key)
        self.owner._table_edges()
        return dict.__getitem__(self, "edges")


class BranchMixin:
    """The branch tables and their evaluation (a part of AlgebraicLaw)."""

    # ----------------------------------------------------- float64 tables
    @cached_property
    def _breakpoints_float(self):
        """The float64 breakpoints of the branch (built once: every pdf call tests x against them)."""
        return np.array([float(b) for b in self._branch(None).breakpoints])

    @cached_property
    def _tables(self):
        """Per support interval: θ-grid branch table (Newton starts); its edge expansions
        (``"edges"``) are built on first read (:meth:`_table_edges`)."""
        bd = self._branch(None)
        bps = list(self._breakpoints_float)
        tables = []
        theta = np.linspace(0, math.pi, _TABLE_NODES)[1:-1]
        for i, info in enumerate(bd.intervals):
            if not info["support"]:
                continue
            a, b = bps[i - 1], bps[i]
            x = _x_of_theta(a, b, theta)
            r = self._num.roots(x)
            g = bd.select(r, info, x)
            # ends carrying an atom (G ~ mass/δ there; hard edges without an atom excluded)
            atom_a = any(bd.breakpoints[i - 1] == loc for loc, _ in self._atoms_raw(None))
            atom_b = any(bd.breakpoints[i] == loc for loc, _ in self._atoms_raw(None))
            if info["rule"] != "unique":
                g = self._pole_side_continuity(g, r, theta, a, b, atom_a, atom_b)
            g, _ = self._num.newton(g, x, steps=2)
            # ends shared with another support interval are not square-root edges (a branch
            # point of other sheets, or a cusp): no edge expansion there
            inner = {bd.breakpoints[i - 1] if bd.intervals[i - 1]["support"] else None,
                     bd.breakpoints[i] if bd.intervals[i + 1]["support"] else None} - {None}
            tables.append(_Table(self, pole_a=atom_a, pole_b=atom_b, inner=inner,
                                 a=a, b=b, a_mp=bd.breakpoints[i - 1], b_mp=bd.breakpoints[i],
                                 info=info, theta=theta, g=g))
        return tables

    def _table_edges(self):
        """Every table's ``"edges"`` (its ends' local expansions with the continued paths'
        anchors), built together on the first read of any table's ``"edges"`` (:class:`_Table`):
        only points in an end's zone, off the θ-nodes' Newton start or an adaptive quadrature
        read them, so support, the mass check on the table's nodes and a pdf in the bulk do
        not pay for the anchors' tracking and the 30-digit re-expansions."""
        bd = self._branch(None)
        tables = self._tables
        for t in tables:  # each table's list, filled below (no read of "edges" re-enters)
            dict.__setitem__(t, "edges", [])
        poles = set(bd.poles)
        atoms = dict(self._atoms_raw(None))
        # the anchors of all square-root ends' paths (_edge_path) in one vectorised track
        probes = {}
        for k, t in enumerate(tables):
            for side in ("a", "b"):
                end = t[side + "_mp"]
                if end in atoms or end in poles or end in t["inner"]:
                    continue
                probes[(k, side)] = {"x": float(end), "end": side}
        # In an interval with exactly one root of Im < 0 (rule "unique": the count cannot
        # change between breakpoints) the anchor is that root, when its sign is clear
        # (Im G/|G| < −1e-6 against > −1e-9 for every other root); else it is tracked.
        pending = []
        for key, probe in probes.items():
            t = tables[key[0]]
            if t["info"]["rule"] == "unique":
                _, d, _ = self._edge_path_span(t, probe)
                sh, _ = self._shifted(t, key[1])
                r = sh.roots(np.array([d]))[0]
                with np.errstate(invalid="ignore", divide="ignore"):
                    rel = np.where(np.isfinite(r), r.imag / np.abs(r), np.inf)
                o = np.argsort(rel)
                if rel[o[0]] < -_CLEAR_BRANCH_IM and (len(o) == 1 or rel[o[1]] > -_ON_AXIS_IM):
                    g_, _ = sh.newton(r[o[:1]], np.array([d]), steps=2)
                    if np.isfinite(g_[0]) and g_[0].imag < -_REAL_ROOT_IM * abs(g_[0]):
                        probe["anchor"] = (g_[0], True)
                        continue
            pending.append(key)
        if pending:
            spans = [self._edge_path_span(tables[k], probes[(k, side)]) for k, side in pending]
            g0, ok0 = self._num.track(np.array([e + d for e, d, _ in spans]),
                                      np.array([h for _, _, h in spans]))
            for key, g_, ok_ in zip(pending, g0, ok0):
                probes[key]["anchor"] = (g_, bool(ok_))
        for k, t in enumerate(tables):
            for end in (t["a_mp"], t["b_mp"]):
                if end in atoms:  # an atom next to the support: local expansion of H = δ·G
                    edge = self._pole_expansion(end, atoms[end])
                    if edge is not None:
                        edge["end"] = "a" if end == t["a_mp"] else "b"
                        t["edges"].append(edge)
                    continue
                if end in poles or end in t["inner"]:
                    continue
                ef = float(end)
                # branch value just inside the support: picks the right double root at e.
                # Continued down from far above the axis (the tracker), not by nearest-root
                # continuity from the interval's midpoint: next to an edge where G moves fast
                # (a cusp-like hard rise of the density, e.g. the ⊠ layer's edge next to 0)
                # the midpoint's nearest root at e is another sheet's real root
                width = t["b"] - t["a"]
                side = "a" if end == t["a_mp"] else "b"
                d0 = (_INSIDE_OFFSET if side == "a" else -_INSIDE_OFFSET) * width
                inside = ef + d0
                # the continued path toward the end (_edge_path: one tracked point, then
                # nearest-root steps along the axis) gives the branch at δ0 …
                sh, _ = self._shifted(t, side)
                probe = probes[(k, side)]
                g_in = self._on_path(self._edge_path(t, probe, sh), sh, d0)
                if g_in is None:  # … else the tracker at δ0 itself
                    g_tr, ok_tr = self._num.track(np.array([inside]), np.array([_ANCHOR_HEIGHT * abs(d0)]))
                    if ok_tr[0]:
                        g_in, _ = self._num.newton(g_tr, np.array([inside]), steps=3)
                        g_in = g_in[0]
                # just inside the support the branch has Im G < 0: a value on the axis is
                # another sheet's real root (attention_law(3.0014, 0.0029955, 35): the tracker
                # ended on the real root 1.04e-3 beside the merging pair 3.3e-4 ± 1.4e-8i)
                if g_in is None or not (np.isfinite(g_in)
                                        and g_in.imag < -_REAL_ROOT_IM * abs(g_in)):
                    g_in = bd.select(self._num.roots(np.array([inside])), t["info"],
                                     np.array([inside]))[0]
                edge = self._edge_expansion(end, g_in)
                edge["end"] = side
                if "path" in probe:
                    edge["path"] = probe["path"]
                t["edges"].append(edge)

    @staticmethod
    def _pole_side_continuity(g, r, theta, a, b, pole_a, pole_b):
        """Continuity of the θ-table toward an end at a pole, in H = δ·G (δ the distance to
        that end): next to a pole G ~ mass/δ, and nearest-root continuity in G jumps to a
        bounded root of another sheet (the tied K=V layer's atom 1/2 at 0: the table took
        −0.598 for 3105 − 23i); the predictor H = const picks the branch."""
        g = g.copy()
        n = len(theta)
        mid = n // 2
        for is_pole, seq, dist in ((pole_a, range(mid - 1, -1, -1),
                                    (b - a) * np.sin(0.5 * theta) ** 2),
                                   (pole_b, range(mid + 1, n),
                                    (b - a) * np.cos(0.5 * theta) ** 2)):
            if not is_pole:
                continue
            prev = mid
            for k in seq:
                pred = g[prev] * dist[prev] / dist[k]
                g[k] = r[k, np.argmin(np.abs(r[k] - pred))]
                prev = k
        return g

    def _shifted(self, t, end):
        """P re-expanded at an end e of the interval, P(G, e + δ) = Σ c̃_ki G^k δ^i (float64
        coefficients from 30-digit arithmetic), so that points next to the end keep the
        relative accuracy of δ instead of that of x (hard edges at a ≠ 0, e.g. shifted MP)."""
        key = "shift_" + end
        if key not in t:
            e = t[end + "_mp"]
            with workdps(FLOAT_REFERENCE_DPS):
                c = self._num.coefficients_mp()
                dz = len(c[0]) - 1
                ep = [e**n for n in range(dz + 1)]
                cf = np.array([[float(sum(c[k][j] * math.comb(j, i) * ep[j - i]
                                          for j in range(i, dz + 1)))
                                for i in range(dz, -1, -1)] for k in range(len(c) - 1, -1, -1)])
                corr = float(mpmath.mpf(t[end]) - e)
            sh = copy.copy(self._num)
            sh.cf = cf
            t[key] = (sh, corr)
        return t[key]

    def _branch_in_table(self, t, x, th=None, delta=None, logd=None):
        """Branch G(x + i0) for x strictly inside the support interval of table ``t``.

        ``th`` (optional): the θ of each point, from which the distance to the nearer end is
        formed exactly (cdf quadrature); otherwise it is x − e corrected by the rounding of e.
        ``delta`` (optional, with ``th``): that signed distance itself (next to the end b, where
        θ = π − φ rounds to 4e-16 absolute, it comes from φ).  ``logd`` (optional, with
        ``th``): log |δ| (finite where δ itself underflows to 0: nodes of the quadrature next
        to a hard end at 0 with θ ~ 1e-160); by default log |δ|."""
        a, b = t["a"], t["b"]
        exact_th = th is not None
        if th is None:
            th = _theta_of_x(a, b, x)
        left = th <= 0.5 * math.pi
        sha, corr_a = self._shifted(t, "a")
        shb, corr_b = self._shifted(t, "b")
        if delta is not None:
            left = delta > 0
        elif exact_th:
            delta = np.where(left, (b - a) * np.sin(0.5 * th) ** 2, -(b - a) * np.cos(0.5 * th) ** 2)
        else:
            delta = np.where(left, (x - a) + corr_a, (x - b) + corr_b)
        # next to a hard end at 0 where float64 P is out of range (|G|^deg overflows: x ≲ 1e-160
        # at a δ^{-1/2} edge, subnormal x) the general route below cannot work (its roots
        # overflow): G from the Puiseux data at 0 alone, the rest by the general route
        only = None
        if self._tiny_ends(t):
            if logd is None:
                with np.errstate(divide="ignore"):
                    logd = np.log(np.abs(delta))
            only = self._tiny_only_in_table(t, delta, left, logd)
        if only is not None and np.any(only):
            g = np.empty(th.shape, dtype=complex)
            # z = δ + i0 at the end 0 (δ < 0 at the end b: arg z = π)
            md, ed = np.frexp(np.abs(delta[only]))
            zero = md == 0  # δ underflowed: its binary exponent from log |δ|
            ed = np.where(zero, np.floor(logd[only] / math.log(2.0)).astype(int), ed)
            md = np.where(zero, np.exp(logd[only] - ed * math.log(2.0)), md)
            g[only] = self._cauchy_tiny(delta[only] + 0j, zsplit=(md, ed, delta[only] < 0))
            rest = ~only
            if np.any(rest):
                g[rest] = self._branch_in_table(t, x[rest], th[rest], delta[rest], logd[rest])
            return g
        guess = np.interp(th, t["theta"], t["g"].real) + 1j * np.interp(th, t["theta"], t["g"].imag)
        # next to an end at a pole G ~ mass/δ: interpolate H = δ·G there, not G
        pole_side = np.zeros(th.shape, bool)
        for end, side in (("a", left), ("b", ~left)):
            if t.get("pole_" + end) and np.any(side):
                tn = t["theta"]
                dn = ((b - a) * np.sin(0.5 * tn) ** 2 if end == "a"
                      else -(b - a) * np.cos(0.5 * tn) ** 2)
                hn = t["g"] * dn
                hs = np.interp(th[side], tn, hn.real) + 1j * np.interp(th[side], tn, hn.imag)
                with np.errstate(divide="ignore", invalid="ignore"):
                    guess[side] = hs / delta[side]
                pole_side |= side
        g = guess.copy()
        step = np.zeros(g.shape)
        for sh, side in ((sha, left), (shb, ~left)):
            if np.any(side):
                g[side], step[side] = sh.newton(guess[side], delta[side], steps=3)
        with np.errstate(invalid="ignore", over="ignore"):
            bad = ~(np.isfinite(g) & (step <= _NEWTON_STEP_RTOL * np.abs(g))
                    & (np.abs(g - guess) <= _GUESS_RTOL * np.abs(guess)) & (g.imag <= 0))
        bad |= (th < t["theta"][1]) | (th > t["theta"][-2])
        if np.any(bad):
            self._edge_zone_guess(t, g, bad, left, delta, sha, shb)
        if np.any(bad):
            for sh, side in ((sha, left), (shb, ~left)):
                m = bad & side
                if np.any(m):
                    r = sh.roots(delta[m])
                    if t["info"]["rule"] == "track":
                        # several roots with Im < 0: continuity from the table, not from the
                        # interval's midpoint across a sparse set of points; beyond the last
                        # node the table's power law |G| ~ θ^p carries on (G may diverge at a
                        # pole end), so roots are compared on a log scale
                        ref = self._table_extrapolation(t, th[m], guess[m])
                        with np.errstate(divide="ignore", invalid="ignore"):
                            dist = np.abs(np.log(r / ref[:, None]))
                        dist = np.where((r.imag <= 0) & np.isfinite(dist), dist, np.inf)
                        gb = r[np.arange(len(r)), np.argmin(dist, axis=1)]
                        # where companion eigenvalues lose the diverging root (|G| ≳ 1e8 next to
                        # a pole), Newton from the power-law guess on the re-expanded P finds it
                        gn, stp = sh.newton(ref.copy(), delta[m], steps=8)
                        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                            near = (np.abs(np.log(gn / ref)) < _LOG_MATCH) & (stp <= _POLE_STEP_RTOL * np.abs(gn))
                            worse = ~(np.abs(np.log(gb / ref)) < _LOG_MATCH)
                        use = near & worse & (gn.imag <= 0)
                        gb = np.where(use, gn, gb)
                    else:
                        gb = self._branch(None).select(r, t["info"], x[m])
                    # on a pole side the H-interpolated guess is the better judge of the sheet
                    ps = pole_side[m] & np.isfinite(guess[m])
                    if np.any(ps):
                        rp = r[ps]
                        dd = np.abs(rp - guess[m][ps][:, None])
                        dd = np.where(np.isfinite(dd), dd, np.inf)
                        gb[ps] = rp[np.arange(len(rp)), np.argmin(dd, axis=1)]
                    g[m], _ = sh.newton(gb, delta[m], steps=2)
            # next to an end the nearest-root continuity from the interval's midpoint
            # (select) can land on another sheet's root where G moves fast (the ⊠ layer's
            # edge next to 0: G from 0.15 − 1.8i to the double root −6.44 within 0.2); there
            # the branch is continued down from far above the axis (the tracker) to a height
            # far below the distance to the end, then polished on the real axis, so that the
            # sheet check of the edge expansion below compares with the right branch
            zone = np.zeros(bad.shape, bool)
            in_zone = bad & (np.abs(delta) <= _EDGE_ZONE * (b - a))
            for edge in t["edges"] if np.any(in_zone) else ():  # built only where needed
                if edge.get("pole"):
                    continue
                side = left if edge["end"] == "a" else ~left
                # only where x resolves the distance to the end (x − e exact enough to track)
                zone |= (bad & side & (np.abs(delta) <= _EDGE_ZONE * (b - a))
                         & (np.abs(delta) >= _TRACKABLE * (abs(edge["x"]) + (b - a))))
            # Each end's branch is first continued once, down from far above at the zone's
            # outer end and then along the real axis toward the end on a log-spaced grid
            # (_edge_path, cached per end); every point of the zone then takes the root of
            # P(·, x) nearest that path.  Only if the path is ambiguous are the points
            # tracked one by one.
            for edge in t["edges"] if np.any(zone) else ():
                if edge.get("pole") or not np.any(zone):
                    continue
                is_a = edge["end"] == "a"
                side = left if is_a else ~left
                j = np.flatnonzero(zone & side)
                if not j.size:
                    continue
                sh = sha if is_a else shb
                path = self._edge_path(t, edge, sh)
                if path is None:
                    continue
                ld, gp, _ = path
                lq = np.log(np.abs(delta[j]))
                ref = np.interp(lq, ld, gp.real) + 1j * np.interp(lq, ld, gp.imag)
                r = sh.roots(delta[j])
                with np.errstate(invalid="ignore", divide="ignore"):
                    dist = np.abs(r - ref[:, None])
                dist = np.where(np.isfinite(dist), dist, np.inf)
                srt = np.sort(dist, axis=1)
                pick = r[np.arange(len(j)), np.argmin(dist, axis=1)]
                gn, _ = sh.newton(pick, delta[j], steps=3)
                sure = (np.isfinite(gn) & (gn.imag < -_REAL_ROOT_IM * np.abs(gn))
                        & (srt[:, 0] <= 0.25 * (srt[:, 1] if r.shape[1] > 1 else np.inf)))
                g[j[sure]] = gn[sure]
                zone[j[sure]] = False
            if np.any(zone):
                idx = np.flatnonzero(zone)
                gt, okt = self._num.track(x[idx], _TRACK_HEIGHT * np.abs(delta[idx]))
                # counted for the mass check's work bound (density._MAX_UNRESOLVED)
                self.__dict__["_unresolved_nodes"] = (self.__dict__.get("_unresolved_nodes", 0)
                                                      + int(np.count_nonzero(~okt)))
                for sh, side in ((sha, left[idx]), (shb, ~left[idx])):
                    j = idx[side & okt]
                    if j.size:
                        gn, _ = sh.newton(gt[side & okt], delta[j], steps=3)
                        # a real root (Im at rounding level) is another sheet, not the branch
                        g[j] = np.where(np.isfinite(gn) & (gn.imag < -_REAL_ROOT_IM * np.abs(gn)),
                                        gn, g[j])
        zone = np.abs(delta) <= _EDGE_ZONE * (b - a)
        for edge in t["edges"] if np.any(zone) else ():  # built only where a point needs them
            side = left if edge["end"] == "a" else ~left
            m = side & zone
            if np.any(m):
                g[m] = self._edge_local(edge, delta[m], g[m])
        # a hard edge at 0 where two sheets share the leading power law (a multiple root of a
        # Newton-polygon segment polynomial of P at z = 0: the tied K=V law at h = 1, G ~
        # C₀z^{-3/4} ± C₁z^{-1/2}) differ there only by a relative ~z^{1/4}, below the
        # accuracy of the table's power-law guess, which took the other sheet for x < 1.2e-8
        # (1.07e-4 of mass too much): there the branch is the nested Puiseux solution at 0
        # (:meth:`_cauchy_tiny`, matched to the branch far from 0, as G off the axis)
        # The same route where float64 P(G, x) is out of range (|G|^deg ≳ 1e250: MP(1)^⊠8,
        # ρ ~ x^{-8/9}, gave ρ = 0 below x ~ 1e-40, and 4e-5 of the mass went missing).
        deg = sha.cf.shape[0] - 1
        with np.errstate(all="ignore"):
            risky = (~np.isfinite(g) | (g.imag >= 0)
                     | (deg * np.log10(np.abs(g)) > _FLOAT_RANGE_DECADES))
        for end, side in (("a", left), ("b", ~left)):
            if (t[end + "_mp"] == 0 and not t["pole_" + end] and np.any(side)
                    and t[end + "_mp"] in self._branch(None).poles
                    # only points in the tiny-z zone are changed (_tiny_mask): none there,
                    # no Newton polygon for _zero_sheets_merge
                    and np.any(side & (np.abs(delta) <= self._TINY_Z * self._tiny_radius))
                    and (np.any(risky & side) or self._zero_sheets_merge)):
                if not self._zero_sheets_merge:
                    side = side & risky
                zq = np.where(side, delta, 1.0) + 0j
                tiny = side & self._tiny_mask(zq, side)
                if np.any(tiny):
                    g[tiny] = self._cauchy_tiny(zq[tiny])
        return g

    def _tiny_ends(self, t):
        """The ends of table ``t`` at 0 that are poles of P's leading coefficient without an
        atom (hard edges where G may leave float64 P's range), cached in the table."""
        if "tiny_ends" not in t:
            poles = self._branch(None).poles
            t["tiny_ends"] = tuple(e for e in "ab" if t[e + "_mp"] == 0 and not t["pole_" + e]
                                   and t[e + "_mp"] in poles)
        return t["tiny_ends"]

    def _tiny_only_in_table(self, t, delta, left, logd):
        """Points of table ``t`` next to an end at 0 that is a pole of P's leading coefficient
        (a hard edge, no atom) where G is out of float64 P's range (:meth:`_tiny_only`)."""
        out = np.zeros(delta.shape, bool)
        for end, side in (("a", left), ("b", ~left)):
            if end in self._tiny_ends(t) and np.any(side):
                zq = np.where(side, delta, 1.0) + 0j
                out |= self._tiny_only(zq, side, np.where(side, logd, 0.0))
        return out

    @staticmethod
    def _table_extrapolation(t, th, guess):
        """Branch guess beyond the first/last θ-node of a table, from the two outermost nodes:
        linear in θ where G has a finite limit (square-root branch points are smooth in θ),
        |G| continued as a power law where it diverges (argument kept); the interpolated guess
        elsewhere."""
        out = guess.copy()
        nodes, g = t["theta"], t["g"]
        for m, (i0, i1), d in ((th < nodes[1], (0, 1), th), (th > nodes[-2], (-1, -2), math.pi - th)):
            if not np.any(m):
                continue
            d0 = nodes[i0] if i0 == 0 else math.pi - nodes[i0]
            d1 = nodes[i1] if i1 == 1 else math.pi - nodes[i1]
            p = math.log(abs(g[i0]) / abs(g[i1])) / math.log(d0 / d1)
            if abs(p) < 0.25:  # a finite limit: G is smooth in θ there, continue it linearly
                out[m] = g[i0] + (g[i0] - g[i1]) * (d0 - d[m]) / (d1 - d0)
                continue
            with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
                ext = g[i0] * (np.maximum(d[m], TINY) / d0) ** p
            # a power law that overflows (|G| ~ 1e33 two nodes from a pole end: inf × the
            # argument's zero part is NaN, a RuntimeWarning that failed pushforward-30 and -146
            # of the slow suite in some orders) is no guess: the interpolated one stands
            out[m] = np.where(np.isfinite(ext), ext, guess[m])
        return out

    @cached_property
    def _hard_edges(self):
        """Breakpoints where the density diverges: poles adjacent to the support with no atom."""
        bd = self._branch(None)
        atoms = {float(a) for a, _ in self._atoms_raw(None)}
        out = []
        bps = list(self._breakpoints_float)
        for i, p in enumerate(bd.breakpoints):
            if p not in bd.poles or float(p) in atoms:
                continue
            side = [s for s, k in ((-1, i), (1, i + 1)) if bd.intervals[k]["support"]]
            if side and self._diverges_at(bps[i], side[0]):
                out.append(bps[i])
        return out

    def _diverges_at(self, p, side):
        """Whether the branch blows up at a pole p of the leading coefficient (a hard edge).

        A vanishing leading coefficient only says that *some* sheet is infinite there; the
        Stieltjes branch may stay finite (e.g. π(semicircle, 1.5) at 0: G(0) = −i√6).  Any
        divergence is at least logarithmic-free power-law here (|G| ~ δ^{-p}, p ≥ 1/3 for the
        laws the polynomial method builds), so |G| grows by > 3 over six decades of δ."""
        scale = 1.0 + abs(p)
        x = p + side * scale * np.array(_DIVERGENCE_PROBES)
        g = np.abs(self._cauchy_real(x))
        return not (np.all(np.isfinite(g)) and g[1] <= 3.0 * g[0])

    def _cauchy_real(self, x):
        bd = self._branch(None)
        out = np.empty(x.shape, dtype=complex)
        tables = {id(t["info"]): t for t in self._tables}
        done = np.zeros(x.shape, bool)
        for info in bd.intervals:
            m = (x > info["lo"]) & (x < info["hi"])
            if not np.any(m):
                continue
            if info["support"]:
                out[m] = self._branch_in_table(tables[id(info)], x[m])
            else:
                r = self._num.roots(x[m])
                g = bd.select(r, info, x[m])
                g = self._num.newton(g, x[m] + 0j, steps=2)[0].real + 0j
                rel = np.sort(relative_imag(r), axis=1)
                n = info["nreal"]
                unclear = rel[:, n - 1] > _GAP_REAL_CLEAR
                if n < rel.shape[1]:
                    unclear |= rel[:, n] < _CLEAR_BRANCH_IM
                unclear |= self._gap_root_condition(g.real, x[m]) * FLOAT_EPS > _GAP_ROOT_RTOL
                for k in np.flatnonzero(unclear):
                    with workdps(FLOAT_REFERENCE_DPS):
                        g[k] = complex(self._branch_real_mp(mpmath.mpf(float(x[m][k])),
                                                            FLOAT_REFERENCE_DPS))
                out[m] = g
            done |= m
        for i in np.flatnonzero(~done):  # x is a breakpoint (as a double)
            out[i] = complex(self._breakpoint_value(x[i], None))
        return out

    def _gap_root_condition(self, g, x):
        """Relative condition Σ_k |c_k(x)||g|^k / (|g|·|∂_G P(g, x)|) of the real roots g of
        P(·, x) (the relative error of a float64 root is about this × eps)."""
        C = self._num.coeffs_at(x)  # highest power of G first
        ag = np.abs(g)
        _, dp = horner_with_derivative(list(C.real), g)
        size, _ = horner_with_derivative(list(np.abs(C)), ag)
        with np.errstate(divide="ignore", invalid="ignore"):
            cond = size / (ag * np.abs(dp))
        return np.where(np.isfinite(cond), cond, np.inf)

    def _breakpoint_value(self, xb, dps):
        """G at a breakpoint (the limit from the upper half-plane): ∞ at an atom, the real
        double root at a square-root edge, the continuous limit elsewhere."""
        bd = self._branch(dps)
        key = FLOAT_REFERENCE_DPS if dps is None else dps
        cache = self.__dict__.setdefault("_bp_cache", {})
        with workdps(key):
            i = min(range(len(bd.breakpoints)), key=lambda k: abs(bd.breakpoints[k] - xb))
            if (i, key) in cache:
                return cache[(i, key)]
            e = bd.breakpoints[i]
            if e in bd.poles:
                atoms = [a for a, _ in self._atoms_raw(dps)]
                if e in atoms:
                    val = mpmath.mpc(mpmath.inf, 0)
                else:  # hard edge or a pole of another sheet: the limit along iε
                    ef = float(e)
                    hs = np.array(_POLE_LIMIT_HEIGHTS) * (1 + abs(ef))
                    g, _ = self._num.track(np.full(2, ef), hs)
                    if abs(g[1]) > _DIVERGING * abs(g[0]) + 1:
                        # the limit of the real G on the gap beside the hard edge: G(e − δ)
                        # → −∞ left of the support, G(e + δ) → +∞ right of it (issue 21
                        # item 8: attention_law(1, 1) at 0)
                        left, right = bd.intervals[i], bd.intervals[i + 1]
                        sign = -1 if right["support"] and not left["support"] else 1
                        val = mpmath.mpc(sign * mpmath.inf, 0)
                    else:
                        val = mpmath.mpc(complex(g[1]))
            else:
                # the branch's limit from the side: a point inside the neighbouring interval
                left, right = bd.intervals[i], bd.intervals[i + 1]
                side = right if right["support"] or not left["support"] else left
                w = min(abs(float(e)) + 1.0,
                        (side["hi"] - side["lo"]) if math.isfinite(side["hi"] - side["lo"]) else 1.0)
                xs = float(e) + (_INSIDE_OFFSET if side is right else -_INSIDE_OFFSET) * w
                g_side = complex(self._cauchy_real(np.array([xs]))[0])
                c = self._num.coefficients_mp()
                dP = sum(k * c[k][j] * mpmath.mpc(g_side) ** (k - 1) * e**j
                         for k in range(1, len(c)) for j in range(len(c[0])))
                P = self._num
                roots = P.roots_mp(e)
                g = min(roots, key=lambda r: abs(complex(r) - g_side))
                near = [r for r in roots if abs(r - g) <= _MERGE_RTOL * (1 + abs(g))]
                if len(near) > 1 or abs(dP) <= _DOUBLE_ROOT_DP * (1 + abs(g)):
                    val = mpmath.mpc(self._double_root(e, g), 0)
                else:
                    val = P.newton_mp(g, e)
                    if not side["support"]:
                        val = mpmath.mpc(mpmath.re(val), 0)
            cache[(i, key)] = val
            return val

    def _cauchy_upper(self, zz):
        """G on the upper half-plane.  The Stieltjes branch satisfies Im G < 0 and
        Im(1/G) ≥ Im z (1/G is a Nevanlinna function with F(z) − z ↦ ℂ⁺ ∪ ℝ); where exactly
        one root of P(·, z) does, that is G.  Elsewhere the branch is continued down from
        Re z + iY (G ~ 1/z) with adaptive steps (:meth:`NumericPolynomial.track`).

        Next to a singular point of the branch float64 roots of P(·, z) do not separate the
        sheets that meet there (issue 21 item 18: G at 1e-10 of the width above an atom or a
        square-root edge raised "branch continuation failed"): within the inner disc of an
        isolated atom G is its Laurent expansion (:meth:`_atom_disc_cauchy`), and next to a
        square-root edge where the continuation fails the edge expansion in δ = z − e
        (:meth:`_edge_zone_cauchy`)."""
        g = np.empty(zz.shape, dtype=complex)
        disc = self._atom_disc_cauchy(zz, g)
        rest = ~disc
        if np.any(rest):
            zr = zz[rest]
            gr, ok = self._cauchy_upper_plain(zr)
            if not np.all(ok):
                self._edge_zone_cauchy(zr, gr, ok)
            if not np.all(ok):
                self._axis_cauchy(zr, gr, ok)
            if not np.all(ok):
                raise ArithmeticError(f"{self.name}: branch continuation failed at z = "
                                      f"{zr[~ok][0]!r}")
            g[rest] = gr
        return g

    def _axis_cauchy(self, zz, g, ok):
        """In place, where ``ok`` is False: G at z = x + iε just above an interval between
        breakpoints (ε ≤ _AXIS_HEIGHT of its width, x at least _AXIS_CLEAR·ε from its ends) by
        Newton at z from the on-axis limit G(x + i0): the tables' branch on the support (the
        one the density is read from), the real branch on a gap (G changes by ~ε·G′).  The
        tracker's steps down to such heights failed where sheets crowd (issue 21 item 18:
        mha_output_law(0.188, 3, 0.00869, 0.00869, 0.0583, rho=0) at 1e-10 of the width, slow
        point mha_rho-5).  Accepted where Newton gives Im G < 0 within _AXIS_MATCH of the
        limit."""
        eps = zz.imag
        for info in self._branch(None).intervals:
            lo, hi = float(info["lo"]), float(info["hi"])
            m = (~ok & (eps <= _AXIS_HEIGHT * (hi - lo))
                 & (zz.real - lo >= _AXIS_CLEAR * eps) & (hi - zz.real >= _AXIS_CLEAR * eps))
            if not np.any(m):
                continue
            g0 = self._cauchy_real(zz.real[m])
            with np.errstate(all="ignore"):
                gn, _ = self._num.newton(g0, zz[m], steps=4)
                good = (np.isfinite(gn) & (gn.imag < 0)
                        & (np.abs(gn - g0) <= _AXIS_MATCH * np.abs(g0)))
            idx = np.flatnonzero(m)[good]
            g[idx] = gn[good]
            ok[idx] = True

    def _cauchy_upper_plain(self, zz):
        """(G, ok) on the upper half-plane by the unique Nevanlinna root or the tracker
        (:meth:`_cauchy_upper`); ok False where the continuation failed."""
        bd = self._branch(None)
        self._num.scale_hint = bd._scale()
        self._num.pole_hint = tuple(float(p) for p in bd.poles)
        g, n = self._num.nevanlinna_root(self._num.roots(zz), zz.imag)
        amb = n != 1
        ok = np.ones(zz.shape, bool)
        if np.any(amb):
            gt, okt = self._num.track(zz.real[amb], zz.imag[amb])
            g[amb] = gt
            ok[amb] = okt
        g, _ = self._num.newton(g, zz, steps=2)
        return g, ok

    #: points of the circle |z − a| = r about an isolated atom a on which G − mass/(z − a) is
    #: sampled (trapezoidal rule: its Taylor coefficients to (r/ρ)^N, ρ the distance to the
    #: rest of the spectrum), the circle's radius r and the inner disc's radius (× ρ)
    _ATOM_DISC_NODES = 32
    _ATOM_DISC_CIRCLE = 0.25
    _ATOM_DISC_INNER = 0.125

    @cached_property
    def _atom_discs(self):
        """Per atom a isolated from the rest of the spectrum: (a as a double, a − that double,
        mass, ρ = distance to the nearest support point or other atom); filled with the
        Laurent data on first use (:meth:`_atom_disc_cauchy`)."""
        bd = self._branch(None)
        atoms = [(a, m) for a, m in self._atoms_raw(None)]
        spans = [(float(i["lo"]), float(i["hi"])) for i in bd.intervals if i["support"]]
        out = []
        for a, m in atoms:
            af = float(a)
            near = [abs(float(b) - af) for b, _ in atoms if b != a]
            for lo, hi in spans:
                near.append(0.0 if lo <= af <= hi else min(abs(af - lo), abs(af - hi)))
            rho = min(near) if near else float(bd._scale()) + abs(af) + 1.0
            if rho > 0 and math.isfinite(rho):
                with workdps(FLOAT_REFERENCE_DPS):
                    corr = float(mpmath.mpf(af) - a)
                out.append({"a": af, "corr": corr, "mass": float(m), "rho": rho})
        return out

    def _atom_disc_cauchy(self, zz, g):
        """In place: G at the points of ``zz`` (Im > 0) inside the inner disc
        |z − a| ≤ _ATOM_DISC_INNER·ρ of an isolated atom a (mass m): G = m/(z − a) + R(z),
        R analytic on |z − a| < ρ, from its Taylor coefficients at a, read off R on the
        circle |z − a| = _ATOM_DISC_CIRCLE·ρ (values from the general route there, the lower
        half by G(z̄) = conj G(z); nodes off the axis).  Where sheets share the atom's mass the
        float64 roots of P(·, z) next to a carry an error ~√ε·|G| (8 roots in pairs split by
        ~1 at |G| ~ 1e10: mha_output_law(0.8717, 3, 0.5146, 1.0303, 0.003165) at 1.4e-10i);
        m/δ here carries the full relative accuracy of δ = z − a (a − fl(a) included).
        Returns the mask of the points so answered."""
        done = np.zeros(zz.shape, bool)
        discs = self._atom_discs
        if not discs:
            return done
        for d in discs:
            delta = (zz - d["a"]) + d["corr"]
            m = ~done & (np.abs(delta) <= self._ATOM_DISC_INNER * d["rho"])
            if not np.any(m):
                continue
            if "taylor" not in d:
                n = self._ATOM_DISC_NODES
                r = self._ATOM_DISC_CIRCLE * d["rho"]
                w = r * np.exp(2j * math.pi * (np.arange(n // 2) + 0.5) / n)  # upper half
                gw, ok = self._cauchy_upper_plain(d["a"] - d["corr"] + w)
                if not np.all(ok & np.isfinite(gw)):
                    d["taylor"] = None
                else:
                    rw = gw - d["mass"] / w
                    vals = np.concatenate([rw, np.conj(rw[::-1])])  # nodes k = 0 … n − 1
                    # c_j = (1/n) Σ_k R(w_k) w_k^{−j}: the discrete Fourier sum
                    nodes = r * np.exp(2j * math.pi * (np.arange(n) + 0.5) / n)
                    j = np.arange(n)
                    d["taylor"] = (vals[None, :] * nodes[None, :] ** (-j[:, None])).mean(axis=1)
            if d["taylor"] is None:
                continue
            dm = delta[m]
            acc = np.zeros(dm.shape, complex)
            for c in d["taylor"][::-1]:
                acc = acc * dm + c
            g[m] = d["mass"] / dm + acc
            done |= m
        return done

    def _edge_zone_cauchy(self, zz, g, ok):
        """In place: G at points of ``zz`` where the continuation failed (``ok`` False) that
        lie within _EDGE_ZONE·width of a square-root edge e: the root u of the edge
        expansion P(G_e + u, e + δ) = Σ p_ij u^i δ^j (δ = z − e, exact; p_00 = p_10 = 0)
        nearest the local quadratic's root with Im u < 0 (of the pair ±c√δ merging at e the
        branch is the one with Im G < 0).  Next to e ≠ 0 the pair splits by ~√(|δ|/|e|)·|G|,
        below float64's resolution of P(·, z) in powers of z (mha_output_law(0.1257, 94,
        0.00401, 0.001, 55.65, sharing='mqa') at b + 2e-7i, b = 1986.6)."""
        for t in self._tables:
            width = t["b"] - t["a"]
            for edge in t["edges"]:
                if edge.get("pole") or "p" not in edge:
                    continue
                idx = np.flatnonzero(~ok)
                if not idx.size:
                    return
                delta = (zz[idx] - edge["x"]) + edge["corr"]
                near = np.abs(delta) <= _EDGE_ZONE * width
                if not np.any(near):
                    continue
                j = idx[near]
                u, conv = edge_root_scaled(edge, delta[near], 1.0)
                gj = edge["g"] + u
                good = conv & np.isfinite(gj) & (gj.imag < 0)
                g[j[good]] = gj[good]
                ok[j[good]] = True

    # ------------------------------------------------------------- mpmath
    def _locate_mp(self, x, dps):
        """(branch data, interval info or None if x is a breakpoint) at working precision."""
        bd = self._branch(dps)
        tol = tolerance(dps + _BREAKPOINT_EXTRA_DPS)
        for b in bd.breakpoints:
            if abs(x - b) <= tol * abs(b) or x == b:
                return bd, None
        k = sum(1 for b in bd.breakpoints if b < x)
        return bd, bd.intervals[k]

    def _table_of(self, info):
        """The float64 table of a support interval (``info`` from the branch data at any
        precision: matched by its ends as doubles)."""
        for t in self._tables:
            if t["info"] is info or (t["a"] == info["lo"] and t["b"] == info["hi"]):
                return t
        raise ArithmeticError(f"{self.name}: support interval ({info['lo']}, {info['hi']}) "
                              "is not resolved in float64")

    def _support_branch_mp(self, x, info, dps, seed=None, near=None):
        """G(x + i0) at the working precision for x inside the support interval ``info``:
        Newton from the float64 table value, or from the edge expansion next to an edge
        (where the two roots merging at the edge are closer than float64 resolves).
        ``seed``: the float64 branch value at x if the caller has it (one vectorised call for
        the nodes of a quadrature rule), Newton's start outside the edge zones.  ``near``:
        (e₀, δ) with x = e₀ + δ, δ known to full relative accuracy (a θ-quadrature node's
        distance to the end e₀): the edge expansion then takes δ from it, not from x − e (x
        rounded at the working precision keeps only dps − log10(|e₀|/|δ|) digits of δ:
        3e-30 of the semicircle's sf(2 − 1e-12) at dps=30)."""
        t = self._table_of(info)
        a, b = t["a_mp"], t["b_mp"]
        for edge in t["edges"]:
            e = edge["e_mp"]
            if edge.get("pole"):  # atom next to the support: the pole expansion
                if x != e and abs(x - e) <= _EDGE_ZONE * (b - a):
                    g = self._pole_local_mp(t, edge, x, near, seed, dps)
                    if g is not None:
                        return g
                continue
            if abs(x - e) <= _EDGE_ZONE * (b - a):
                e, ge, p = self._edge_mp(edge, dps)
                delta = x - e if near is None else (near[0] - e) + near[1]
                u, converged = edge_root(p, delta, 1, MPMATH)
                if converged and mpmath.im(u) < 0 and self._edge_root_on_branch(t, x, ge + u, seed):
                    return ge + u
                break
        xf = float(x)
        if t["a"] < xf < t["b"]:
            if seed is not None and cmath.isfinite(seed):
                g = self._num.newton_mp(mpmath.mpc(seed), x)
                if mpmath.im(g) < 0 and abs(g - seed) <= _MP_POLISHED_MATCH * abs(seed):
                    return g
            # start from the θ-table (linear interpolation, ~1e-5 relative): outside the edge
            # zones the roots are further apart than that, and Newton doubles the digits
            th = float(_theta_of_x(t["a"], t["b"], xf))
            g0 = complex(np.interp(th, t["theta"], t["g"].real), np.interp(th, t["theta"], t["g"].imag))
            if t["theta"][1] <= th <= t["theta"][-2]:
                g = self._num.newton_mp(mpmath.mpc(g0), x)
                if mpmath.im(g) < 0 and abs(g - g0) <= _MP_TABLE_MATCH * abs(g0):
                    return g
            g0 = complex(self._branch_in_table(t, np.array([xf]))[0])
            g = self._num.newton_mp(mpmath.mpc(g0), x)
            if mpmath.im(g) < 0 and abs(g - g0) <= _MP_POLISHED_MATCH * abs(g0):
                return g
        else:
            g0 = complex(self._breakpoint_value(xf, None))
        roots = self._num.roots_mp(x)
        g = self._branch(dps).select_mp(roots, info, mpmath.mpc(g0))
        return self._num.newton_mp(g, x)

    def _edge_root_on_branch(self, t, x, g, seed):
        """Whether the edge expansion's root ``g`` at x (:meth:`_support_branch_mp`) is on the
        support's sheet: within _SAME_SHEET of the float64 branch value (``seed``, else the
        table's) where that is a support value (Im G < 0 off rounding), as
        :meth:`_edge_local` checks in float64.  The edge zone spans _EDGE_ZONE of the
        interval's width, which can hold the law's whole structure next to the end: in
        partial_kv_output_law(0.6549, 1, 0.6193, 0.9859, 0.2192) (base support
        [0.0069, 46.53], density peak ~2.1 at 0.0116) Newton on the expansion converged at
        0.0104 to another sheet's real root 42.22 (Im ~ ±1e-93 of rounding, the sign by chance
        with the precision), so pdf(0.0104, dps=d) was ~0 for 2.0775 at d = 20, 33, 35; the
        base law's mpmath mass came out 0.616051 for 0.619252, and the layer's m₁ by quadrature
        1.2e-5 low.  Where x rounds onto an end or float64 has no support value there
        (next to the edge, δ below the float64 route's resolution) the expansion stands."""
        xf = float(x)
        ref = seed if seed is not None and cmath.isfinite(seed) else None
        if ref is None and t["a"] < xf < t["b"]:
            ref = complex(self._branch_in_table(t, np.array([xf]))[0])
        if ref is None or not cmath.isfinite(ref) or not ref.imag < -_REAL_ROOT_IM * abs(ref):
            return True
        return abs(complex(g) - ref) <= _SAME_SHEET * abs(ref)

    def _branch_real_mp(self, x, dps):
        """G(x + i0) at the working precision for real x."""
        bd, info = self._locate_mp(x, dps)
        if info is None:
            return self._breakpoint_value(x, dps)
        if info["support"]:
            return self._support_branch_mp(x, info, dps)
        # the gap's rule picks the sheet among the roots at the working precision: the float64
        # value is no guide where two sheets are closer than its rounding (next to a pole,
        # sheets sharing the residue: mha-34's gap (−3.3e-14, 0), roots 4.8e-10 apart)
        guess = complex(info["g_mid"])
        g = bd.select_mp(self._num.roots_mp(x), info, mpmath.mpc(guess))
        g = self._num.newton_mp(g, x)
        return mpmath.mpc(mpmath.re(g), 0)
