"""Numeric side of the polynomial method: roots, branch selection, edges, atoms.

Given P(G, z) with exact coefficients, this module finds on the real axis

* the *breakpoints*: real roots of the discriminant of P in G (edges, branch points) and of
  its leading coefficient (poles: atoms or hard edges), refined at high precision;
* on every interval between breakpoints, which root of P(·, x) is the Stieltjes branch
  G(x + i0).  Between breakpoints roots never collide, so the answer is an invariant of the
  interval: in a gap, the index of the branch among the sorted real roots; in the support, the
  unique root with Im < 0 (or, when several exist, continuity from the midpoint).  It is found
  once per interval by continuation from z = m + iY, Y large (G ~ 1/z there), down to the axis.

Float64 evaluation of the density uses a per-interval table of the branch on a θ-grid
(x = a + (b − a)(1 − cos θ)/2, in which the branch is smooth at square-root edges) as the
starting point of a vectorised Newton polish of P(G, x) = 0; points where the polish does not
confirm the guess fall back to companion-matrix eigenvalues plus the interval's rule.

The evaluator underneath (P and its partials in float64 and mpmath, all roots at a point,
Newton, the tracker down from x + iY) is :class:`~freeattn.algebraic.numeric_polynomial.
NumericPolynomial`, re-exported here.  A new parameter point of a structure met before starts
from that structure's last classification of the same layout (:meth:`BranchData.
_classify_from`, the branch carried along a parameter path by :meth:`BranchData._carry`).
"""
from __future__ import annotations

import cmath
import math
from collections import OrderedDict
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp

from .._context import to_mp, tolerance, workdps
from .discriminant import (DISCRIMINANT_EXACT_COST, _disc_key, discriminant_cost,
                           discriminant_factors, discriminant_near, discriminant_tables,
                           table_coefficient_sizes, table_coefficients)
from .exact import NotConvertible, free_symbols
from .polynomial import G, canonicalize, z
from .numeric_polynomial import NumericPolynomial
from .roots import polyroots

__all__ = ["NumericPolynomial", "BranchData"]

_TABLE_NODES = 257


#: the mpmath trackers give up when their step in ln h falls below this
_TRACK_MP_MIN_DT = 1e-12
#: extra digits of the breakpoints (on top of twice the working precision: discriminants of
#: laws with a wide range of scales are ill-conditioned), and of the collision check
_BREAKPOINT_EXTRA_DPS = 20
#: bits per decimal digit (rounded up) and guard bits of the parameters given to
#: discriminant_near
_BITS_PER_DIGIT = 3.33
_NEAR_GUARD_BITS = 64
#: digits beyond the working precision within which two breakpoints (or a breakpoint and a
#: pole) are one
_SAME_POINT_EXTRA_DPS = 5
#: digits below the working precision at which a factor's coefficient counts as zero
_COEFF_LOST_DPS = 8
#: bits at which the sizes of the discriminant's coefficients (against which each
#: coefficient's rounding is measured) are evaluated: a scale, not a value
_SIZE_PREC = 64
#: extra bits of the breakpoint polynomials' root finder (clustered roots of a discriminant)
_BREAKPOINT_ROOT_EXTRA_BITS = 30
#: height (× (scale + 1)) of continue_down's end point
_CONTINUE_HEIGHT = 1e-9
#: an interval is resolved by doubles where its width exceeds this × its ends' magnitude;
#: the tracker then ends at min(_INTERVAL_HEIGHT·(R + 1), _WIDTH_HEIGHT·width), else at
#: _INTERVAL_HEIGHT·(|mid| + 1)
_RESOLVED_WIDTH = 1e-12
_INTERVAL_HEIGHT = 1e-9
_WIDTH_HEIGHT = 1e-3
#: |Im G| ≤ this × |G|: a root on (or just below) the axis, a candidate for a real branch
_AXIS_ROOT_IM = 1e-12
#: a reused classification (:meth:`BranchData._classify_from`) takes the root nearest the
#: previous point's branch value only when it is at most this fraction of the distance to
#: the next root
_REUSE_AMBIGUITY = 0.25
#: where the value tracked to an interval's test point is not within this fraction of the
#: distance to the next root of its nearest root, the continuation goes on down by
#: _CLASSIFY_DESCENT in height, at most _CLASSIFY_DESCENTS times
_CLASSIFY_AMBIGUITY = 0.25
_CLASSIFY_DESCENT = mpmath.mpf(10) ** -3
_CLASSIFY_DESCENTS = 4
#: the parameter path of :meth:`BranchData._carry` (t from 0 to 1): first, largest and
#: smallest step
_PATH_FIRST_STEP = 0.125
_PATH_MAX_STEP = 0.25
_PATH_MIN_STEP = 1e-6
#: the last classification of each structure and layout ((key given by the law: its
#: canonical polynomial), breakpoint count, pole positions) → (breakpoint count, pole
#: positions, intervals)
_REFERENCE = OrderedDict()
_REFERENCE_SIZE = 64


@lru_cache(maxsize=None)
def _discriminant_functions(Pc):
    """For a canonical P (parameters c0, c1, …): the factors of its discriminant and leading
    coefficient as (kind, f) with f(c0, c1, …) → coefficients in z (mpmath, highest first).

    Cached per structure: a new parameter point of an already-seen structure evaluates these
    numerically at the working precision and redoes no exact algebra."""
    # canonicalize's order c0, c1, …, c10 (the order of its parameter list), not by string
    syms = sorted(Pc.free_symbols - {G, z}, key=lambda s_: int(s_.name[1:]))
    out = []
    for factor, kind in discriminant_factors(Pc):
        coeffs = sp.Poly(factor, z).all_coeffs()
        out.append((kind, sp.lambdify(syms, coeffs, "mpmath")))
    return tuple(out)


def _coefficient_sizes(table, vals):
    """The sizes of a discriminant table's coefficients (highest power first) at ``vals``,
    evaluated at :data:`_SIZE_PREC` bits: a size is only the scale against which its
    coefficient's rounding is compared (:meth:`BranchData._roots_of_factors`), and FLINT's
    exact evaluation at 64-bit binary rationals costs a third of that at the breakpoints'
    ~300 bits (0.86 → 0.33 ms a point of attention_law)."""
    with mpmath.workprec(_SIZE_PREC):
        sizes = table_coefficient_sizes(table, [+v for v in vals])
    return list(reversed(sizes))


def structure_key(P):
    """Hashable key of P's structure: its canonical form (parameters renamed in
    :func:`~freeattn.algebraic.polynomial.parameter_order`), the same for every parameter
    point of one construction; None when P has no FLINT form."""
    try:
        return _disc_key(P)[0]
    except NotConvertible:
        return None


def relative_imag(roots):
    """|Im r|/|r| of float64 roots (∞ where a root is not finite): how far each is from the
    axis, scale-free (next to a pole a near-multiple root of size m/δ comes out of float64
    with an Im of ~cond·eps·|r|, absolutely larger than a genuine complex pair of modest size,
    not relatively)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.isfinite(roots), np.abs(roots.imag) / np.abs(roots), np.inf)


#: the steps of BranchData._across, as digits below the smaller width (the first decides
#: almost every crossing; the smaller ones separate sheets that share a pole's residue)
_ACROSS_STEP_DIGITS = (4, 8, 12)


class BranchData:
    """Breakpoints and per-interval branch rules of an algebraic law at one precision.

    Attributes
    ----------
    breakpoints : list of mpf
        Sorted real breakpoints.
    intervals : list of dict
        One per interval between breakpoints with keys ``lo``, ``hi`` (mpf or ±inf),
        ``support`` (bool), ``rule`` (``"unique"``, ``"track"`` or ``"real"``), ``index``
        (sorted-real-root index for gaps), ``nreal`` and ``mid``/``g_mid`` (test point and
        branch value there).
    poles : set
        Breakpoints that are roots of the leading coefficient.
    """

    def __init__(self, numpoly, P, dps, evaluator=None, reuse=None, positive=False):
        self.numpoly = numpoly
        self.dps = dps
        #: the law is on [0, ∞) by construction: every interval below 0 is a gap, whose branch
        #: is continued along the axis from −∞ (:meth:`_classify`)
        self.positive = positive
        #: evaluates the discriminant factors' coefficients (P may keep parameters symbolic
        #: that numpoly has substituted: the canonical symbolic discriminant is then
        #: evaluated numerically at the working precision)
        self.evaluator = evaluator or numpoly
        # breakpoints at twice the precision: discriminants of laws with a wide range of
        # scales (large β) are ill-conditioned, and polyroots loses digits on them
        with mpmath.workdps(2 * dps + _BREAKPOINT_EXTRA_DPS):
            pts, poles = self._breakpoints(P)
        with workdps(dps):
            self.breakpoints = [+p for p in pts]
            self.poles = {+p for p in poles}
            #: True when the classification was carried over from the previous point of the
            #: structure (``reuse``: its key) instead of tracked from far above
            self.reused = False
            # one reference per structure *and* layout (breakpoint count, poles among them):
            # a sweep crossing between layouts (an atom, a second component) finds each
            # layout's last classification instead of the other one's
            pole_at = frozenset(i for i, b in enumerate(self.breakpoints) if b in self.poles)
            slot = None if reuse is None else (reuse, len(self.breakpoints), pole_at)
            ref = _REFERENCE.get(slot) if slot is not None else None
            intervals = self._classify_from(ref) if ref is not None else None
            if intervals is None:
                intervals = self._classify()
            else:
                self.reused = True
            self.intervals = intervals
            if slot is not None:
                _, _, lengths = self._mids(hints=False)
                arrays = numpoly.row_arrays()
                path = None if arrays is None else (
                    arrays, self.__dict__.get("_p_float", None), [c["mid"] for c in intervals],
                    [c["g_mid"] for c in intervals])
                if path is not None and path[1] is None:
                    path = (arrays, numpoly.float_parameters()) + path[2:]
                _REFERENCE[slot] = (len(self.breakpoints), pole_at,
                                    [(c["support"], c["rule"], c["nreal"], c.get("index"),
                                      mpmath.mpc(c["g_mid"]) * length)
                                     for c, length in zip(intervals, lengths)], path)
                _REFERENCE.move_to_end(slot)
                while len(_REFERENCE) > _REFERENCE_SIZE:
                    _REFERENCE.popitem(last=False)

    # -------------------------------------------------------------- edges
    def _breakpoints(self, P):
        """Sorted real breakpoints and the set of poles among them, from the factors of the
        discriminant and of the leading coefficient (:meth:`_factor_coefficients`).

        Where the exact discriminant in P's symbolic parameters would be too costly
        (:func:`~freeattn.algebraic.discriminant.discriminant_cost` above
        :data:`~freeattn.algebraic.discriminant.DISCRIMINANT_EXACT_COST`), it is taken exactly
        at the parameter values rounded to the working precision plus 64 bits
        (:func:`~freeattn.algebraic.discriminant.discriminant_near`), and every root of it that
        is no pole is verified to be a collision of two roots of P(·, x) at the true values
        (closer than ~10^-(dps/4) of their size, where generic roots are O(1) apart); if one
        is not, the exact route decides (the check runs at dps + 20 digits, where a double
        root splits by ~10^-((dps + 20)/2), against 10^-((dps + 20)/4))."""
        cost = discriminant_cost(P) if len(free_symbols(P) - {G, z}) else None
        if cost is not None and cost > DISCRIMINANT_EXACT_COST:
            try:
                # parameters to the breakpoints' target digits plus guard digits and 64 bits
                near = discriminant_near(P, self.evaluator.values, int(_BITS_PER_DIGIT * (self.dps + _BREAKPOINT_EXTRA_DPS))
                                           + _NEAR_GUARD_BITS)
            except ValueError:
                near = None
            if near is not None:
                merged, pole_set, disc_roots = self._roots_of_factors(self._evaluated(near))
                if self._collisions_confirmed(disc_roots, pole_set):
                    self.route = "near"
                    return merged, pole_set
        self.route = "exact"
        merged, pole_set, _ = self._roots_of_factors(self._factor_coefficients(P))
        return merged, pole_set

    def _evaluated(self, factors):
        """:func:`~freeattn.algebraic.discriminant.discriminant_near`'s factors as (kind,
        coefficients highest first, their sizes) at the working precision (see
        :meth:`_factor_coefficients`; the "disc" factors' integers are exact: their own
        sizes)."""
        for entry, kind in factors:
            if kind == "disc":
                cs = [mpmath.mpf(c) for c in reversed(entry)]
                yield kind, cs, [abs(c) for c in cs]
            else:
                vals = self.evaluator.values_mp_of(entry.symbols)
                yield kind, list(reversed(table_coefficients(entry, vals))), \
                    _coefficient_sizes(entry, vals)

    def _collisions_confirmed(self, disc_roots, poles):
        """Whether P(·, x) has two roots within 10^-((dps + 20)/4) (relative) at every real
        root x of the discriminant that is no pole (a branch point or a crossing of two
        sheets)."""
        work = self.dps + _BREAKPOINT_EXTRA_DPS  # a double root splits by ~10^-(work/2) under rounding
        thr = tolerance(work // 4)
        tol = tolerance(self.dps + _SAME_POINT_EXTRA_DPS)
        for x in disc_roots:
            if any(abs(x - p) <= tol * (1 + abs(p)) for p in poles):
                continue
            with mpmath.workdps(work):
                r = self.numpoly.roots_mp(+x)
            if len(r) < 2:
                return False
            gap = min(abs(r[i] - r[j]) / (1 + abs(r[i]) + abs(r[j]))
                      for i in range(len(r)) for j in range(i))
            if not gap <= thr:
                return False
        return True

    def _roots_of_factors(self, factors):
        """(merged sorted breakpoints, poles among them, real roots of the "disc" factors) of
        ``factors``: (kind, coefficients highest first, their sizes or None)."""
        pts = []
        poles = []
        disc_roots = []
        tol = tolerance(self.dps + _SAME_POINT_EXTRA_DPS)
        scale_tol = tolerance(mpmath.mp.dps - _COEFF_LOST_DPS)
        for kind, coeffs, sizes in factors:
            size = max(abs(c) for c in coeffs)
            if size == 0:
                raise ValueError("discriminant vanishes identically at these parameter values "
                                 "(non-squarefree polynomial); perturb the parameters")
            # a coefficient counts as zero when it is below the rounding of its own terms (it
            # vanishes at the true values: a root at 0 or a lost degree), not against the
            # largest coefficient: a discriminant with roots over many decades has top
            # coefficients hundreds of orders below the largest that still decide its roots
            # (the mqa layer mha_output_law(3.58, 6754, 37.4, 0.0085, 760): z^9, z^8, z^7 at
            # 4e-118 … 3e-74 of it were zeroed at 30 digits and the right end moved by 4.1e-7
            # of the width).  Without sizes (the sympy route's values) the largest coefficient
            # stands in for them
            if sizes is None:
                sizes = [size] * len(coeffs)
            coeffs = [c if abs(c) > scale_tol * m else mpmath.mpf(0)
                      for c, m in zip(coeffs, sizes)]
            while len(coeffs) > 1 and coeffs[0] == 0:
                coeffs.pop(0)
            if len(coeffs) == 1:
                continue
            roots = polyroots(coeffs, extraprec=_BREAKPOINT_ROOT_EXTRA_BITS, maxsteps=400)
            scale = max(abs(r) for r in roots) + 1
            for r in roots:
                if abs(mpmath.im(r)) <= tolerance(mpmath.mp.dps // 3) * scale:
                    x = mpmath.re(r)
                    pts.append((x, kind == "lead"))
                    if kind == "lead":
                        poles.append(x)
                    else:
                        disc_roots.append(x)
        pts.sort(key=lambda p: p[0])
        # points within tol are one breakpoint; a root of the leading coefficient (a pole:
        # low-degree factors, evaluated without cancellation) represents its cluster, so that
        # a pole at 0 stays exactly 0 when a discriminant factor's constant term, zero at these
        # values, is evaluated with cancellation (attention_law(4.0, 0.001, 1) after a law of
        # its structure: left end −1.92e-79; issue 21 item 17)
        merged, lead = [], []
        for x, is_lead in pts:
            if merged and abs(x - merged[-1]) <= tol * (1 + abs(x)):
                if is_lead and not lead[-1]:
                    merged[-1], lead[-1] = x, True
                continue
            merged.append(x)
            lead.append(is_lead)
        pole_set = set()
        for p in poles:
            for m in merged:
                if abs(p - m) <= tol * (1 + abs(p)):
                    pole_set.add(m)
        return merged, pole_set, disc_roots

    def _factor_coefficients(self, P):
        """(kind, coefficients in z highest first, their sizes) of each factor of the
        discriminant and of the leading coefficient, evaluated at the working precision from
        the symbolic factors of the canonical form (FLINT tables when available, else sympy,
        cached per structure).  The sizes (Σ |term| of each coefficient, against which its
        rounding is measured: :func:`~freeattn.algebraic.discriminant.table_coefficient_sizes`)
        are None on the sympy route."""
        values = self.evaluator.values
        try:
            tables = discriminant_tables(P)
        except ValueError:
            tables = None
        if tables is not None:
            for table, kind in tables:
                vals = self.evaluator.values_mp_of(table.symbols)
                yield kind, list(reversed(table_coefficients(table, vals))), \
                    _coefficient_sizes(table, vals)
            return
        Pc, params = canonicalize(P)
        vals = [to_mp(values[p]) for p in params]
        for kind, fn in _discriminant_functions(Pc):
            yield kind, [mpmath.mpmathify(c) for c in fn(*vals)], None

    # ------------------------------------------------------- classification
    def _scale(self):
        return float(max([abs(b) for b in self.breakpoints] + [1]))

    def continue_down(self, x):
        """Branch value near the real point ``x`` by continuation from x + iY (float64):
        G(x + i·ε_f) for a tiny ε_f, tracked from large Y where G ~ 1/z."""
        eps_f = _CONTINUE_HEIGHT * (self._scale() + 1.0)
        return self.numpoly.track(np.array([float(x)]), eps_f)[0][0]

    def track_mp(self, x, h_from, g_from, h_end):
        """Scalar continuation at the working precision down x + ih from ``h_from`` (branch
        value ``g_from``) to ``h_end``; all roots at each step (roots.polyroots), adaptive steps.
        Used where float64 cannot resolve the point (intervals narrower than 1e-13, or the
        float64 tracker gave up).

        First nearest-root continuity from the previous value (unambiguous: a quarter of the
        distance to the next root; steps up to a factor e² in h); where that does not reach
        the axis in 500 steps, :meth:`_track_mp_predicted`."""
        npoly = self.numpoly
        t, t_end = mpmath.log(h_from), mpmath.log(h_end)
        g = mpmath.mpc(g_from)
        dt = mpmath.mpf(-0.5)
        # a continuation in h, not a root finder: no library has it (scipy/mpmath solve at
        # one point); each step's root comes from roots_mp
        for _ in range(500):
            if t <= t_end:
                return g
            tn = max(t + dt, t_end)
            r = npoly.roots_mp(mpmath.mpc(x, mpmath.exp(tn)))
            d = sorted((abs(ri - g), i) for i, ri in enumerate(r))
            if len(d) == 1 or d[0][0] <= 0.25 * d[1][0]:
                g = r[d[0][1]]
                t = tn
                dt = max(dt * 1.5, mpmath.mpf(-2))
            else:
                dt /= 2
                if abs(dt) < _TRACK_MP_MIN_DT:
                    break
        return self._track_mp_predicted(x, h_from, g_from, h_end)

    def _track_mp_predicted(self, x, h_from, g_from, h_end):
        """:meth:`track_mp` with the step control of :meth:`NumericPolynomial.track`:
        predictors linear in z (G′ = −∂_zP/∂_GP), linear in ln h for ih·G, and next to a pole p linear in z for
        (z − p)·G; a step is accepted when the root nearest a predictor is unambiguous (a
        quarter of the distance to the next), its corrector is small against the predicted
        move, and no two predictors disagree.  Nearest-root continuity from the previous value
        alone needs steps below the relative separation of the sheets: next to an atom at 0
        carrying two nearly equal candidate masses (mha_output_law(1, 2, 1.5, 0.5005, 0.5),
        masses 0.5 and 0.4995) that is 1e-3 a step, and 5000 steps did not reach the axis."""
        npoly = self.numpoly
        c = npoly.coefficients_mp()
        t, t_end = mpmath.log(h_from), mpmath.log(h_end)
        g = mpmath.mpc(g_from)
        dt = mpmath.mpf(-0.5)
        tiny = tolerance(mpmath.mp.dps * 3 // 4)
        pole = min(self.poles, key=lambda p_: abs(p_ - x)) if self.poles else None
        # our own predictor–corrector: an ODE solver (mpmath.odefun) bounds the local error,
        # not the distance to the next sheet next to a pole, which this step control checks
        for _ in range(5000):
            if t <= t_end:
                return g
            tn = max(t + dt, t_end)
            hc, hn = mpmath.exp(t), mpmath.exp(tn)
            zc, zn = mpmath.mpc(x, hc), mpmath.mpc(x, hn)
            # P_G and P_z at (g, zc)
            pg = pz = mpmath.mpc(0)
            for k in range(1, len(c)):
                ck = mpmath.mpc(0)
                for j in range(len(c[k]) - 1, -1, -1):
                    ck = ck * zc + c[k][j]
                pg += k * ck * g ** (k - 1)
            for k in range(len(c)):
                dck = mpmath.mpc(0)
                for j in range(len(c[k]) - 1, 0, -1):
                    dck = dck * zc + j * c[k][j]
                pz += dck * g**k
            preds = []
            if pg != 0:
                dg = -pz / pg
                preds.append(g + dg * (zn - zc))
                preds.append((hc / hn) * (g + (g + 1j * hc * dg) * (tn - t)))
                if pole is not None and abs(zc - pole) <= 8 * hc:
                    preds.append(((zc - pole) * g + (g + (zc - pole) * dg) * (zn - zc)) / (zn - pole))
            r = npoly.roots_mp(zn)
            picks = set()
            for pred in preds or [g]:
                d = sorted((abs(ri - pred), i) for i, ri in enumerate(r))
                if (len(d) == 1 or d[0][0] <= 0.25 * d[1][0]) and (
                        not preds or d[0][0] <= 0.25 * abs(pred - g) + tiny * abs(g)):
                    picks.add(d[0][1])
            if len(picks) == 1:
                g = r[picks.pop()]
                t = tn
                dt = max(dt * mpmath.mpf(1.5), mpmath.mpf(-0.5))
            else:
                dt /= 2
                if abs(dt) < _TRACK_MP_MIN_DT:
                    break
        raise ArithmeticError(f"branch continuation did not reach the real axis at x = {x}")

    def _mids(self, hints=True):
        """Test point and width of each interval between breakpoints (outer ones: one
        unit plus the end's size away); with ``hints=False`` (edges, mids, lengths): the
        length scale of G at each test point (the width of an inner interval, the distance
        |mid| of an outer one, where G ~ 1/mid), by which a branch value is carried from one
        parameter point to the next (:meth:`_classify_from`)."""
        if not hints:
            edges, mids, widths, _ = self._mids()
            lengths = [w if lo is not None and hi is not None else max(abs(m), 1)
                       for lo, hi, m, w in zip(edges[:-1], edges[1:], mids, widths)]
            return edges, mids, lengths
        npoly = self.numpoly
        R = self._scale()
        npoly.scale_hint = R
        npoly.pole_hint = tuple(float(p) for p in self.poles)
        edges = [None] + list(self.breakpoints) + [None]
        mids, widths = [], []
        for lo, hi in zip(edges[:-1], edges[1:]):
            if lo is None and hi is None:
                mid, width = mpmath.mpf(0), mpmath.mpf(1)
            elif lo is None:
                width = 1 + abs(hi)
                mid = hi - width
            elif hi is None:
                width = 1 + abs(lo)
                mid = lo + width
            else:
                mid, width = (lo + hi) / 2, hi - lo
            mids.append(mid)
            widths.append(width)
        return edges, mids, widths, R

    def _interval_info(self, i, mid, r, g, thr):
        """The classification of interval ``i`` from the branch value ``g`` (polished) among
        the roots ``r`` of P(·, mid)."""
        bps = self.breakpoints
        lo = -math.inf if i == 0 else float(bps[i - 1])
        hi = math.inf if i == len(bps) else float(bps[i])
        info = {"lo": lo, "hi": hi, "lo_mp": None if i == 0 else bps[i - 1],
                "hi_mp": None if i == len(bps) else bps[i], "mid": float(mid),
                "mid_mp": mid, "g_mid": complex(g)}
        reals = self._real_parts(r, thr)
        info["nreal"] = len(reals)
        if abs(mpmath.im(g)) > thr * (abs(g) + 1):
            info["support"] = True
            n_neg = sum(1 for ri in r if mpmath.im(ri) < -thr * (abs(ri) + 1))
            info["rule"] = "unique" if n_neg == 1 else "track"
        else:
            info["support"] = False
            info["rule"] = "real"
            info["index"] = min(range(len(reals)), key=lambda k: abs(reals[k] - mpmath.re(g)))
        return info

    def _classify_from(self, ref):
        """The classification carried over from the previous point of the structure, when
        the breakpoints and poles are as many and in the same places: at each interval's test
        point the branch is picked by the previous point's rule — in a support interval with
        one root of Im < 0 that root, in a gap the real root of the same rank among as many,
        else the root of Im < 0 nearest the previous branch value (scaled by the interval's
        length) if unambiguous among those (:data:`_REUSE_AMBIGUITY`) — and each interval must keep its kind (support
        or gap, rule, real-root count and rank); None otherwise (the caller tracks from far
        above).  Gaps are then checked by real-axis continuation from the outer gaps
        (:meth:`_continue_gaps`, as after tracking), and the law confirms the support by its
        mass check (``AlgebraicLaw._confirm_reuse``), falling back to tracking."""
        count, pole_at, ref_info, path = ref
        if len(self.breakpoints) != count or pole_at != frozenset(
                i for i, b in enumerate(self.breakpoints) if b in self.poles):
            return None
        npoly = self.numpoly
        edges, mids, lengths = self._mids(hints=False)
        self._mids()  # the tracker's hints
        thr = tolerance(mpmath.mp.dps * 3 // 5)
        # the roots at every test point from one batched float64 call where doubles resolve
        # the interval (the picked root is polished at the working precision below; a
        # near-collision that double blurs changes a count and falls back to tracking)
        ends = [max(abs(float(lo)) if lo is not None else 0.0,
                    abs(float(hi)) if hi is not None else 0.0)
                for lo, hi in zip(edges[:-1], edges[1:])]
        with np.errstate(all="ignore"):
            r_float = npoly.roots(np.array([float(m) for m in mids]))
        intervals = []
        for i, (mid, length, (support, rule, nreal, index, gl_ref)) in enumerate(
                zip(mids, lengths, ref_info)):
            lo, hi = edges[i], edges[i + 1]
            fine = (lo is None or hi is None or hi - lo > _RESOLVED_WIDTH * ends[i])
            if fine and np.all(np.isfinite(r_float[i])):
                r = [mpmath.mpc(complex(v)) for v in r_float[i]]
            else:
                r = npoly.roots_mp(mid)
            if support and rule == "unique":  # the one root with Im < 0
                pick = [k for k, ri in enumerate(r) if mpmath.im(ri) < -thr * (abs(ri) + 1)]
            elif not support:  # a gap: the real root of the same rank
                real = sorted((mpmath.re(ri), k) for k, ri in enumerate(r)
                              if abs(mpmath.im(ri)) <= thr * (abs(ri) + 1))
                pick = [real[index][1]] if len(real) == nreal else []
            else:
                # several roots with Im < 0 (on the support Im G(x + i0) = −πρ < 0: a real
                # root or a conjugate, Im > 0, is never the branch): the one the previous
                # point's branch value continues to along the straight path in parameters
                # and test point (:meth:`_carry`), else the nearest to G × (its length
                # scale) carried over (scale-free: a wider or shifted spectrum predicts the
                # same), if clear
                cand = [k for k, ri in enumerate(r) if mpmath.im(ri) < -thr * (abs(ri) + 1)]
                g_path = self._carry(i, float(mid), path) if path is not None else None
                if g_path is not None:
                    d = sorted((abs(r[k] - g_path), k) for k in cand)
                else:
                    d = sorted((abs(r[k] * length - gl_ref), k) for k in cand)
                clear = len(d) == 1 or (len(d) > 1 and d[0][0] <= _REUSE_AMBIGUITY * d[1][0])
                pick = [d[0][1]] if clear else []
            if len(pick) != 1:
                return None
            g = npoly.newton_mp(r[pick[0]], mid)
            info = self._interval_info(i, mid, r, g, thr)
            if (info["support"], info["rule"], info["nreal"], info.get("index")) != (
                    support, rule, nreal, index):
                return None
            intervals.append(info)
        self._continue_gaps(intervals)
        return intervals

    def _carry(self, i, mid, path):
        """The branch value at interval ``i``'s test point ``mid``, continued in float64 from
        the reference point's along the straight path t ↦ ((1 − t)p₀ + tp₁, (1 − t)m₀ + tm₁)
        in the parameters and the test point (t from 0 to 1); None where P's terms differ
        from the reference's or a step stays ambiguous.

        Between breakpoints the roots of P(·, x) never collide, so along a path on which the
        test point stays inside its interval the branch is continuous: each step takes the
        root nearest the linear predictor when it is at most :data:`_REUSE_AMBIGUITY` of the
        distance to the next root (else the step is halved).  Where the path leaves the
        interval the result is a root of another sheet; the caller's checks (kind and rule
        of every interval, then the law's mass check) catch it.  Our own continuation: a
        homotopy between two points of one structure, which no library offers for a branch
        chosen by its sheet."""
        arrays, p0, mids0, gs0 = path
        npoly = self.numpoly
        mine = npoly.row_arrays()
        if mine is None or not all(a.shape == b.shape and np.array_equal(a, b)
                                   for a, b in zip(mine, arrays)):
            return None
        p1 = self.__dict__.get("_p_float")
        if p1 is None:
            p1 = self.__dict__["_p_float"] = npoly.float_parameters()
        x0, x1 = mids0[i], mid

        def roots_at(t):
            cf = npoly.coefficient_table((1 - t) * p0 + t * p1)
            x = (1 - t) * x0 + t * x1
            with np.errstate(over="ignore", invalid="ignore"):
                c = np.array([np.polyval(row, x) for row in cf])
                r = npoly._roots_of(c[:, None])[0]
            return np.where(np.isfinite(r), r, np.inf)

        def nearest(r, pred):
            with np.errstate(invalid="ignore"):
                d = np.abs(r - pred)
            d = np.where(np.isfinite(d), d, np.inf)
            order = np.argsort(d)
            clear = len(d) == 1 or d[order[0]] <= _REUSE_AMBIGUITY * d[order[1]]
            return (r[order[0]] if clear and np.isfinite(d[order[0]]) else None)

        g = nearest(roots_at(0.0), gs0[i])  # the reference's branch among its roots
        if g is None:
            return None
        t, dt, prev = 0.0, _PATH_FIRST_STEP, None
        while t < 1.0:
            tn = min(t + dt, 1.0)
            pred = g if prev is None else g + (g - prev[1]) * (tn - t) / (t - prev[0])
            got = nearest(roots_at(tn), pred)
            if got is None:
                dt /= 2
                if dt < _PATH_MIN_STEP:
                    return None
                continue
            prev, t, g = (t, g), tn, got
            dt = min(dt * 1.5, _PATH_MAX_STEP)
        return complex(g)

    def _classify(self):
        npoly = self.numpoly
        edges, mids, widths, R = self._mids()
        # float64 continuation of all intervals at once, down to a height well below the
        # interval's width (so the nearest root on the axis is the branch's)
        mid_f = np.array([float(m) for m in mids])
        w_f = np.array([float(w) for w in widths])
        ends = np.array([max(abs(float(lo)) if lo is not None else 0.0,
                             abs(float(hi)) if hi is not None else 0.0)
                         for lo, hi in zip(edges[:-1], edges[1:])])
        fine = w_f > _RESOLVED_WIDTH * ends  # resolved by doubles (relative to the ends' magnitude)
        h_end = np.minimum(_INTERVAL_HEIGHT * (R + 1), _WIDTH_HEIGHT * w_f)
        h_float = np.where(fine, h_end, _INTERVAL_HEIGHT * (np.abs(mid_f) + 1))
        g_float, ok = npoly.track(mid_f, h_float)
        thr = tolerance(mpmath.mp.dps * 3 // 5)
        intervals = []
        for i, (mid, width) in enumerate(zip(mids, widths)):
            below = self._gap_below_zero(intervals, i, mid, thr)
            if below is not None:
                intervals.append(below)
                continue
            if fine[i] and ok[i]:
                g_near = mpmath.mpc(complex(g_float[i]))
            else:  # finish at the working precision
                g0 = g_float[i] if ok[i] else 1 / mpmath.mpc(mid, 8 * (R + abs(mid_f[i]) + 1))
                h0 = h_float[i] if ok[i] else 8 * (R + abs(mid_f[i]) + 1)
                g_near = self.track_mp(mid, mpmath.mpf(h0), g0, width / 1000)
            r = npoly.roots_mp(mid)
            h_at = mpmath.mpf(h_float[i]) if fine[i] and ok[i] else width / 1000
            for _ in range(_CLASSIFY_DESCENTS):
                dist = sorted(abs(ri - g_near) for ri in r)
                if len(dist) < 2 or dist[0] <= _CLASSIFY_AMBIGUITY * dist[1]:
                    break
                # not yet clearly at one root of P(·, mid): next to a pole G ~ m/(z − p) has
                # Im G ~ m h/δ² at height h, which at h = 1e-3·width still exceeds the distance
                # between the branch's real root and another sheet's complex pair of nearly the
                # same mass (the ρ layer: −1511 − 3i tracked beside −1511.0 − 0.77i and the real
                # root at δ = −4.8e-4 from the atom at 0, read as support); continued lower
                h_next = h_at * _CLASSIFY_DESCENT
                try:
                    g_near = self.track_mp(mid, h_at, g_near, h_next)
                except ArithmeticError:  # the lower continuation failed: the reading stands
                    break
                h_at = h_next
            g = min(r, key=lambda ri: abs(ri - g_near))
            g = npoly.newton_mp(g, mid)
            intervals.append(self._interval_info(i, mid, r, g, thr))
        self._continue_gaps(intervals)
        return intervals

    def _gap_below_zero(self, intervals, i, mid, thr):
        """Interval ``i`` (not the first) of a law on [0, ∞) (``positive``) that lies below 0:
        a gap, whose branch is continued along the axis from the gap on its left
        (:meth:`_across`), so that no continuation from the plane has to reach a tiny gap
        beside a pole (mha-34: (−3.3e-14, 0) next to the atom at 0, 40 decades below the
        start, where it did not reach the axis).  None where the continuation does not decide
        (then the interval is tracked from above as any other)."""
        bps = self.breakpoints
        if not (self.positive and intervals and 0 < i < len(bps) and bps[i] <= 0):
            return None
        a, e = intervals[-1], bps[i - 1]
        if a["support"] or e in self.poles:
            return None
        across = self._across(a, {"lo_mp": e, "hi_mp": bps[i]}, e, 1)
        if across is None:
            return None
        k, nreal = across
        r = self.numpoly.roots_mp(mid)
        reals = self._real_parts(r, thr)
        if len(reals) != nreal:
            return None
        g = self.numpoly.newton_mp(mpmath.mpc(reals[k]), mid)
        return self._interval_info(i, mid, r, g, thr)

    def _continue_gaps(self, intervals):
        """Check the 'real' rule of each gap against real-axis continuation from the outer
        gaps (−∞, first breakpoint) and (last breakpoint, ∞), where G ~ 1/x is certain.

        Off the support G is real-analytic, so across a breakpoint between two gaps that is no
        pole (a branch point of other sheets only) the branch is continuous: the root at
        e + δ nearest to G(e − δ) + 2δ·G′(e − δ) is the branch there.  Where that root is
        unambiguous (a quarter of the distance to the next) and differs from the midpoint
        tracking's, the continuation wins."""
        npoly = self.numpoly
        n = len(intervals)
        for order in (range(n - 1), range(n - 1, 0, -1)):
            for i in order:
                j = i + 1 if order.step == 1 else i - 1
                a, b = intervals[i], intervals[j]
                if a["support"] or b["support"]:
                    break
                e = a["hi_mp"] if j > i else a["lo_mp"]
                if e in self.poles:
                    break
                across = self._across(a, b, e, 1 if j > i else -1)
                if across is None:
                    break
                k, nreal = across
                if nreal != b["nreal"]:
                    break
                if k != b["index"]:
                    rm = self._real_parts(npoly.roots_mp(b["mid_mp"]),
                                          tolerance(mpmath.mp.dps * 3 // 5))
                    b["index"] = k
                    b["g_mid"] = complex(mpmath.re(rm[k]))

    @staticmethod
    def _real_parts(roots, thr):
        """The real parts, sorted, of the mpmath roots that are real to ``thr`` (relative)."""
        return sorted(mpmath.re(r) for r in roots if abs(mpmath.im(r)) <= thr * (abs(r) + 1))

    def _across(self, a, b, e, side):
        """(index among the sorted real roots, their number) of the branch just across the
        breakpoint e (no pole) from the gap ``a`` into the interval ``b`` on the ``side`` (+1:
        right) of e, by the Taylor step G(e − d) + 2d·G′(e − d) along the axis (G′ < 0 off the
        support); None where the step stays ambiguous (its root not within a quarter of the
        distance to the next) or G′ is not negative.

        d is 10^-4 of the smaller width, then 10^-8 and 10^-12: the step's error d²G″ must be
        below the distance to the next root, and two sheets with one pole residue are closer
        than 10^-4 allows (mha-34: two real roots 4.8e-10 apart (relative) beside the atom at
        0, where G ~ m/x puts the 10^-4 step's error at 1e-8 of G)."""
        npoly = self.numpoly
        ws = [abs(c["hi_mp"] - c["lo_mp"]) if None not in (c["hi_mp"], c["lo_mp"])
              else abs(e) + 1 for c in (a, b)]
        thr = tolerance(mpmath.mp.dps * 3 // 5)
        for digits in _ACROSS_STEP_DIGITS:
            d = tolerance(digits) * min(ws) * side
            xa, xb = e - d, e + d
            ra = npoly.roots_mp(xa)
            ga = mpmath.re(self.select_mp(ra, a, None))
            ga = mpmath.re(npoly.newton_mp(mpmath.mpc(ga), xa))
            with np.errstate(over="ignore", invalid="ignore"):  # huge x: not finite, below
                _, pg, pz = npoly.partials(np.array([complex(ga)]), np.array([complex(xa)]))
                gp = -pz[0] / pg[0] if pg[0] != 0 else 0
            if not (np.isfinite(gp) and gp.real < 0):  # G′ < 0 off the support
                return None
            pred = ga + mpmath.mpf(gp.real) * 2 * d
            reals = self._real_parts(npoly.roots_mp(xb), thr)
            if not reals:
                return None
            dist = sorted((abs(r - pred), k) for k, r in enumerate(reals))
            if len(dist) == 1 or dist[0][0] <= 0.25 * dist[1][0]:
                return dist[0][1], len(reals)
        return None

    # ------------------------------------------------------------ select
    def select(self, roots, info, x=None):
        """Pick the branch among ``roots`` (N, deg) of points inside interval ``info``."""
        if info["support"]:
            if info["rule"] == "unique":
                # the one root with Im < 0, judged relative to |root|: next to a pole the
                # other sheets' roots are huge (~ m/δ) and their rounding errors in Im exceed
                # the branch's own Im
                with np.errstate(invalid="ignore", divide="ignore"):
                    rel = np.where(np.isfinite(roots), roots.imag / np.abs(roots), np.inf)
                return roots[np.arange(len(roots)), np.argmin(rel, axis=1)]
            return self._track(roots, info, x)
        nreal = info["nreal"]
        # the real roots are those with the smallest relative |Im| (mha-34: 2.6e7 at 6e13
        # beside a genuine pair 1518 ± 3.6e7i)
        order = np.argsort(relative_imag(roots), axis=1)[:, :nreal]
        reals = np.take_along_axis(roots, order, axis=1)
        srt = np.sort(reals.real, axis=1)
        return srt[:, info["index"]] + 0j

    def _track(self, roots, info, x):
        """Continuity from the interval's midpoint (used when several roots have Im < 0)."""
        out = np.empty(len(roots), dtype=complex)
        order = np.argsort(x)
        mid = info["mid"]
        left = [i for i in order if x[i] < mid][::-1]
        right = [i for i in order if x[i] >= mid]
        for seq in (left, right):
            g, prev = info["g_mid"], None
            for i in seq:
                # geometric predictor and a log-scale distance: next to a pole the branch grows
                # like δ^{-p} and an absolute distance would jump to a finite root of a sheet.
                # Python complex arithmetic on the row (deg numbers; numpy's per-call cost
                # dominated this sequential loop), the first nearest root as argmin picks it
                pred = g * (g / prev) if prev is not None and prev != 0 else g
                best, k = math.inf, -1
                for j, r in enumerate(roots[i].tolist()):
                    if not (cmath.isfinite(r) and r.imag <= _AXIS_ROOT_IM * abs(r)):
                        continue
                    try:
                        d = abs(cmath.log(r / pred))
                    except (ZeroDivisionError, ValueError, OverflowError):
                        continue
                    if d < best:  # nan and inf never are
                        best, k = d, j
                if k < 0:
                    k = int(np.argmin(np.abs(roots[i] - g)))
                prev, g = g, roots[i, k]
                out[i] = g
        return out

    def select_mp(self, roots, info, guess):
        """Pick the branch among mpmath roots at a point inside interval ``info``."""
        if info["support"] and info["rule"] == "unique":
            return min(roots, key=lambda r: mpmath.im(r) / abs(r) if r != 0 else 0)
        if info["support"]:
            return min(roots, key=lambda r: abs(r - guess))
        nreal = info["nreal"]
        # relative |Im|, as in select
        reals = sorted(roots, key=lambda r: abs(mpmath.im(r)) / abs(r) if r != 0 else 0)[:nreal]
        reals = sorted(reals, key=lambda r: mpmath.re(r))
        return mpmath.mpc(mpmath.re(reals[info["index"]]), 0)
