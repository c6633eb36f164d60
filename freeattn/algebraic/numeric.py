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
"""
from __future__ import annotations

import math
from collections import OrderedDict
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp

from .._context import to_mp, tolerance, workdps
from .discriminant import (DISCRIMINANT_EXACT_COST, _disc_key, discriminant_cost,
                           discriminant_factors, discriminant_near, discriminant_tables)
from .exact import NotConvertible, _expanded_terms, free_symbols
from .polynomial import G, canonicalize, z
from .roots import horner_with_derivative, newton_polish_array, polyroots

__all__ = ["NumericPolynomial", "BranchData"]

_TABLE_NODES = 257

#: step control of :meth:`NumericPolynomial.track`: a step is accepted only where the root
#: picked lies within this fraction of the predicted move from the predictor (the step is
#: then shorter than the scale on which the branch bends)
_TRACK_BEND = 0.25
#: the largest step of :meth:`NumericPolynomial.track` in ln h
_TRACK_MAX_DT = -0.5

#: a tracker step's corrector slack: ≤ _TRACK_BEND × the predicted move + this × |G|
_TRACK_SLACK = 1e-12
#: the float64 tracker gives up on a point when its step in ln h falls below this
_TRACK_MIN_DT = 1e-9
#: the mpmath trackers give up when their step in ln h falls below this
_TRACK_MP_MIN_DT = 1e-12
#: guard bits of the mpmath Newton polish's stopping test
_POLISH_GUARD_BITS = 8
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
#: digits at which the float64 coefficient table is evaluated (well above float64's 17, so that
#: each entry is the exact coefficient rounded once)
_FLOAT_TABLE_DPS = 40
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
#: the last classification of each structure (key given by the law: its canonical
#: polynomial and the working precision) → (breakpoint count, pole positions, intervals)
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


class NumericPolynomial:
    """P(G, z) = Σ_k c_k(z) G^k with exact coefficients, evaluable in float64 and mpmath.

    Parameters
    ----------
    P : sympy expression in ``G``, ``z`` and parameter symbols.
    values : dict
        Parameter symbol → exact value.  Coefficients are kept as expressions in the
        parameters and evaluated numerically, so no symbolic work is ever done on large exact
        values (a float such as 0.7 is a 52-bit rational, e^{0.49} a transcendental).
    """

    def __init__(self, P, values=None):
        self.values = dict(values or {})
        params = sorted(self.values, key=lambda s_: s_.name)
        self._params = params
        self._mp_cache = {}
        rows = self._integer_terms(P, params)
        if rows is None:
            self._init_sympy(P)
        else:
            deg = max(k for k, _ in rows)

            def coeff_expr(key):
                return sp.Add(*[sp.Rational(n, d) * sp.Mul(*[s_**e for s_, e in zip(params, ex)])
                                for ex, n, d in rows[key]])

            # drop leading powers of G whose coefficients vanish identically at these values
            while deg > 0 and all(sp.expand(coeff_expr(key).xreplace(self.values)) == 0
                                  for key in rows if key[0] == deg):
                deg -= 1
            self.deg = deg
            self.deg_z = max(j for (k, j) in rows if k <= deg)
            self._rows = [[rows.get((k, j), []) for j in range(self.deg_z + 1)]
                          for k in range(self.deg + 1)]
        with mpmath.workdps(_FLOAT_TABLE_DPS):
            c = self.coefficients_mp()
        # float64 coefficient polynomials in z, highest power first, for G^deg .. G^0
        self.cf = np.array([[float(c[k][j]) for j in range(self.deg_z, -1, -1)]
                            for k in range(self.deg, -1, -1)])

    @staticmethod
    def _integer_terms(P, params):
        """{(k, j): [(exponents over params, num, den), …]} of the coefficient of G^k z^j, read
        term by term off an expanded P with rational coefficients (no sympy.Poly, no
        lambdify: evaluated per precision by :meth:`coefficients_mp`), or None for any other
        P (the sympy route)."""
        gens = [G, z] + list(params)
        if len({g.name for g in gens}) != len(gens) or not free_symbols(P) <= set(gens):
            return None
        try:
            terms = _expanded_terms(P, {g.name: i for i, g in enumerate(gens)}, len(gens))
        except NotConvertible:
            return None
        if not terms:
            return None
        rows = {}
        for m, (n, d) in terms.items():
            if n:
                rows.setdefault((m[0], m[1]), []).append((m[2:], n, d))
        return rows or None

    def _init_sympy(self, P):
        poly = sp.Poly(P, G, z)
        terms = {}
        for (k, j), c in poly.terms():
            terms[(k, j)] = c
        deg = max(k for k, _ in terms)
        # drop leading powers of G whose coefficients vanish identically at these values
        while deg > 0 and all(sp.expand(c.xreplace(self.values)) == 0
                              for (k, _), c in terms.items() if k == deg):
            deg -= 1
        self.deg = deg
        self.deg_z = max(j for (k, j) in terms if k <= deg)
        self._exact_c = [[sp.Integer(0)] * (self.deg_z + 1) for _ in range(self.deg + 1)]
        for (k, j), c in terms.items():
            if k <= deg:
                self._exact_c[k][j] = c

    # Lambdified coefficient functions (sympy route) are rebuilt on demand and never
    # pickled: a law must pickle (process pools, Dask) whether or not it has been evaluated.
    @property
    def _fns(self):
        fns = self.__dict__.get("_fns_")
        if fns is None:
            fns = [[sp.lambdify(self._params, c, "mpmath") for c in row] for row in self._exact_c]
            self.__dict__["_fns_"] = fns
        return fns

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_fns_", None)
        return state

    def param_values_mp(self):
        """Parameter values as mpmath numbers at the current precision."""
        return [to_mp(self.values[p]) for p in self._params]

    def evaluate_mp(self, expr):
        """An expression in the parameters, evaluated at the current mpmath precision."""
        fn = sp.lambdify(self._params, expr, "mpmath")
        return mpmath.mpmathify(fn(*self.param_values_mp()))

    def coefficients_mp(self):
        """Coefficient table c[k][j] (of G^k z^j) as mpf at the current mpmath precision."""
        key = mpmath.mp.prec
        if key not in self._mp_cache:
            vals = self.param_values_mp()
            rows = self.__dict__.get("_rows")
            if rows is None:
                self._mp_cache[key] = [[mpmath.mpmathify(f(*vals)) for f in row]
                                       for row in self._fns]
            else:
                self._mp_cache[key] = [[self._eval_terms(t, vals) for t in row] for row in rows]
        return self._mp_cache[key]

    @staticmethod
    def _eval_terms(terms, vals):
        """Σ n/d · Π vals^e at the current precision (one coefficient of P)."""
        acc = mpmath.mpf(0)
        for ex, n, d in terms:
            t = mpmath.mpf(n) / d if d != 1 else mpmath.mpf(n)
            for v, e in zip(vals, ex):
                if e:
                    t = t * (v if e == 1 else v**e)
            acc += t
        return acc

    # ------------------------------------------------------------ float64
    def coeffs_at(self, x):
        """Coefficients of P(·, x) for each x: array (deg + 1, N), highest power of G first."""
        x = np.asarray(x)
        out = np.empty((self.deg + 1, x.size), dtype=np.result_type(x, float))
        for i in range(self.deg + 1):
            acc = np.full(x.size, self.cf[i, 0], dtype=out.dtype)
            for c in self.cf[i, 1:]:
                acc = acc * x + c
            out[i] = acc
        return out

    def roots(self, x):
        """All roots in G of P(G, x) for each x: complex array (N, deg).

        Companion-matrix eigenvalues, batched, on coefficients scaled to unit size.  Where
        the leading coefficient is tiny against the others (x at or next to a pole) the
        roots of the reversed polynomial are inverted instead, so that the large roots come
        out as large numbers (``inf`` where the leading coefficient vanishes exactly) and the
        others keep full accuracy.
        """
        x = np.asarray(x).reshape(-1)
        return self._roots_of(self.coeffs_at(x))

    def _roots_of(self, C):
        """:meth:`roots` from the coefficients ``C`` (deg + 1, N) of P(·, x), highest first.

        All companion matrices go to one batched ``eigvals`` call (its cost is mostly per
        call at these sizes), the reversed polynomials' rows beside the regular ones; real
        coefficients (x on the axis) give real companion matrices, whose eigenvalues LAPACK
        finds about three times faster than those of complex ones."""
        n = C.shape[1]
        out = np.full((n, self.deg), np.inf + 0j)
        if self.deg == 0 or n == 0:
            return out
        scale = np.max(np.abs(C), axis=0)
        scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
        C = C / scale
        # next to a pole (tiny leading coefficient) the reversed polynomial, roots inverted
        reverse = np.abs(C[0]) < np.abs(C[-1])
        cc = np.where(reverse, C[::-1], C)
        M = np.zeros((n, self.deg, self.deg), dtype=C.dtype)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            M[:, 0, :] = -(cc[1:] / cc[0]).T
        idx = np.arange(self.deg - 1)
        M[:, idx + 1, idx] = 1
        good = np.all(np.isfinite(M[:, 0, :]), axis=1)
        if np.all(good):
            out[:] = np.linalg.eigvals(M)
        elif np.any(good):
            out[good] = np.linalg.eigvals(M[good])
        if np.any(reverse):  # invert the reversed polynomials' roots (0 -> inf)
            r = out[reverse]
            with np.errstate(divide="ignore", invalid="ignore"):
                out[reverse] = np.where(r == 0, np.inf + 0j, 1.0 / np.where(r == 0, 1, r))
        return out

    def newton(self, g, x, steps=3):
        """Polish roots ``g`` of P(·, x) by Newton's method (vectorised); returns (g, |step|)."""
        C = self.coeffs_at(x)
        with np.errstate(all="ignore"):  # far-off starts overflow; callers check the result
            return newton_polish_array(C, g, steps)

    def partials(self, g, x):
        """(P, ∂P/∂G, ∂P/∂z) at the points (g, x), vectorised (float64/complex128)."""
        g = np.asarray(g, dtype=complex)
        x = np.asarray(x, dtype=complex)
        p = np.zeros(g.shape, complex)
        pg = np.zeros(g.shape, complex)
        pz = np.zeros(g.shape, complex)
        for k in range(self.deg + 1):  # rows of cf: G^deg first
            row = self.cf[k]
            ck = np.full(x.shape, row[0], complex)
            dck = np.zeros(x.shape, complex)
            for c in row[1:]:
                dck = dck * x + ck
                ck = ck * x + c
            pg = pg * g + p
            p = p * g + ck
            pz = pz * g + dck
        return p, pg, pz

    def derivative(self, g, x):
        """G′(x) = −∂_zP/∂_GP at the branch value g (implicit function theorem)."""
        _, pg, pz = self.partials(g, x)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(pg != 0, -pz / np.where(pg != 0, pg, 1), np.inf + 0j)

    def track(self, x, h_end, g_start=None, h_start=None, max_steps=3000):
        """Continue the Stieltjes branch down the vertical lines x + ih, h from ``h_start``
        (default: far above the spectrum, where G ~ 1/z) to ``h_end`` > 0 (vectorised).

        Steps are geometric in h and adaptive per point: a step is accepted only when the
        root nearest the predictor g + G′·Δz is unambiguous (at most a quarter of the
        distance to the next root); otherwise it is halved.  This keeps the branch across
        near-collisions of roots (narrow gaps, poles, nearly degenerate parameters).

        Returns
        -------
        g : complex ndarray
            Branch values at x + i h_end.
        ok : bool ndarray
            False where the step control gave up (``max_steps`` or a step below 1e-9 of a
            decade); those entries hold the last tracked value.
        """
        x = np.asarray(x, dtype=float).reshape(-1)
        h_end = np.broadcast_to(np.asarray(h_end, dtype=float), x.shape).copy()
        if h_start is None:
            R = float(getattr(self, "scale_hint", 1.0))
            h_start = 8.0 * (R + np.abs(x) + 1.0)
        h_start = np.broadcast_to(np.asarray(h_start, dtype=float), x.shape).copy()
        h_start = np.maximum(h_start, h_end)
        z0 = x + 1j * h_start
        if g_start is None:
            g = 1.0 / z0
            # far-out starts (huge breakpoints: ρ = 1e-9) overflow P's coefficients; such
            # points end with ok False, silently (no warning spam)
            with np.errstate(over="ignore", invalid="ignore"):
                for _ in range(6):
                    g = self.newton(g, z0, steps=1)[0]
        else:
            g = np.asarray(g_start, dtype=complex).reshape(-1).copy()
        t = np.log(h_start)
        t_end = np.log(h_end)
        dt = np.full(x.shape, -0.5)
        ok = np.ones(x.shape, bool)
        poles = np.asarray(getattr(self, "pole_hint", ()), dtype=float)
        active = t > t_end
        steps = 0
        while np.any(active) and steps < max_steps:
            steps += 1
            ia = np.flatnonzero(active)
            tn = np.maximum(t[ia] + dt[ia], t_end[ia])
            hc, hn = np.exp(t[ia]), np.exp(tn)
            zc = x[ia] + 1j * hc
            zn = x[ia] + 1j * hn
            # predictors of points where the branch is huge or ∂_GP vanishes overflow or
            # come out nan (inf·0): they are screened by isfinite below, silently
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                dg = self.derivative(g[ia], zc)
                # two predictors: linear in z, and linear in log h for H = ih·G (exact next to
                # a pole, where G ~ m/(z − x) and the sheets of several masses nearly merge)
                pred1 = g[ia] + dg * (zn - zc)
                pred2 = (hc / hn) * (g[ia] + (g[ia] + 1j * hc * dg) * (tn - t[ia]))
                preds = [pred1, pred2]
                usable = [True, True]
                if len(poles):
                    # third predictor: H = (z − p)·G linear in z, p the nearest pole (an atom).
                    # Off the line's foot (|x − p| ~ h) neither predictor above follows
                    # G ~ m/(z − p), and when two sheets share the pole (the same mass, constant
                    # terms 11 apart) an error of ~10 on a move of ~500 landed unambiguously on
                    # the other sheet: mha_output_law(1, 4, 1.5, 2, 0.5) at x = −0.001 + 1e-9i
                    # gave G − ½/z = +10.08 for −0.984
                    pn = poles[np.argmin(np.abs(x[ia][:, None] - poles[None, :]), axis=1)]
                    hcur = (zc - pn) * g[ia]
                    pred3 = (hcur + (g[ia] + (zc - pn) * dg) * (zn - zc)) / (zn - pn)
                    preds.append(pred3)
                    usable.append(np.abs(zc - pn) <= 8 * hc)  # next to the pole only
            with np.errstate(over="ignore", invalid="ignore"):
                r = self.roots(zn)
            picks, good = [], []
            for pred, use in zip(preds, usable):
                pred = np.where(np.isfinite(pred), pred, g[ia])
                d = np.abs(r - pred[:, None])
                d = np.where(np.isfinite(d), d, np.inf)
                order = np.argsort(d, axis=1)
                d1 = np.take_along_axis(d, order[:, :1], axis=1)[:, 0]
                d2 = (np.take_along_axis(d, order[:, 1:2], axis=1)[:, 0] if self.deg > 1
                      else np.full(len(ia), np.inf))
                picks.append(order[:, 0])
                # the corrector must also be small against the predicted move: a step
                # longer than the scale on which G bends (G ~ m/(z − a) from an atom a
                # near x, with h ~ |x − a|) can land unambiguously on another sheet's root
                # (mha_output_law(0.4683, 10, 0.2024, 0.4281, 0.5555) at x = 0.0169: from
                # 6.50 − 19.8i to 2.10 − 11.2i, ending on a real root; the density there
                # was lost)
                with np.errstate(over="ignore", invalid="ignore"):
                    move = np.abs(pred - g[ia])
                    good.append(np.isfinite(d1) & (d1 <= 0.25 * d2) & use
                                & (d1 <= _TRACK_BEND * move + _TRACK_SLACK * np.abs(g[ia])))
            conflict = np.zeros(len(ia), bool)
            for a_ in range(len(preds)):
                for b_ in range(a_):
                    conflict |= good[a_] & good[b_] & (picks[a_] != picks[b_])
            acc = np.any(good, axis=0) & ~conflict
            pick = picks[-1]
            for a_ in range(len(preds) - 2, -1, -1):
                pick = np.where(good[a_], picks[a_], pick)
            ja = ia[acc]
            g[ja] = r[acc, pick[acc]]
            t[ja] = tn[acc]
            # at most a factor e^{1/2} in h a step: |Δz| ≤ 0.4 h stays well inside the disc
            # of radius h about x + ih on which the branch is analytic (a factor e² let the
            # predictor land on another sheet: mha_output_law(1.7093, 13, 2.1210, 0.3661,
            # 0.7075) took −0.68 − 1.76i for −1.10 − 1.08i at x = −0.293, h = 0.298, and
            # reported a support interval on the negative axis)
            dt[ja] = np.maximum(dt[ja] * 1.5, _TRACK_MAX_DT)
            jr = ia[~acc]
            dt[jr] *= 0.5
            dead = jr[np.abs(dt[jr]) < _TRACK_MIN_DT]
            ok[dead] = False
            active = (t > t_end) & ok
        ok &= ~active
        return g, ok

    # ------------------------------------------------------------ mpmath
    def roots_mp(self, x):
        """All roots in G of P(G, x) at the current mpmath precision (list of mpc)."""
        c = self.coefficients_mp()
        coeffs = []
        for k in range(self.deg, -1, -1):
            acc = mpmath.mpf(0)
            for j in range(self.deg_z, -1, -1):
                acc = acc * x + c[k][j]
            coeffs.append(acc)
        while len(coeffs) > 1 and coeffs[0] == 0:
            coeffs.pop(0)
        if len(coeffs) == 1:
            return []
        return polyroots(coeffs)

    def coeffs_at_mp(self, x):
        """Coefficients of P(·, x) at the current precision, highest power of G first."""
        c = self.coefficients_mp()
        out = []
        for k in range(self.deg, -1, -1):
            acc = mpmath.mpf(0)
            for j in range(self.deg_z, -1, -1):
                acc = acc * x + c[k][j]
            out.append(acc)
        return out

    def newton_mp(self, g, x, steps=60):
        """Newton polish of a root of P(·, x) at the current precision.

        The coefficients of P(·, x) are formed once; iteration stops one step after the
        update falls below the square root of the tolerance (quadratic convergence)."""
        C = self.coeffs_at_mp(x)
        tol = mpmath.mpf(2) ** (_POLISH_GUARD_BITS - mpmath.mp.prec)
        half = mpmath.sqrt(tol)
        # not roots.newton_polish: this hot path saves the last residual evaluation (one
        # step after |step| < √tol lands at full precision by quadratic convergence)
        for _ in range(steps):
            p, dp = horner_with_derivative(C, g)
            if dp == 0:
                break
            delta = p / dp
            g = g - delta
            a = abs(delta)
            if a <= half * (abs(g) + tol):
                if a > tol * (abs(g) + tol):
                    continue_once = True
                else:
                    continue_once = False
                if not continue_once:
                    break
                # one more step lands at full precision
                p, dp = horner_with_derivative(C, g)
                if dp != 0:
                    g = g - p / dp
                break
        return g


def structure_key(P):
    """Hashable key of P's structure: its canonical form (parameters renamed in
    :func:`~freeattn.algebraic.polynomial.parameter_order`), the same for every parameter
    point of one construction; None when P has no FLINT form."""
    try:
        return _disc_key(P)[0]
    except NotConvertible:
        return None


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

    def __init__(self, numpoly, P, dps, evaluator=None, reuse=None):
        self.numpoly = numpoly
        self.dps = dps
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
            ref = _REFERENCE.get(reuse) if reuse is not None else None
            intervals = self._classify_from(ref) if ref is not None else None
            if intervals is None:
                intervals = self._classify()
            else:
                self.reused = True
            self.intervals = intervals
            if reuse is not None:
                pole_at = frozenset(i for i, b in enumerate(self.breakpoints) if b in self.poles)
                _, _, lengths = self._mids(hints=False)
                _REFERENCE[reuse] = (len(self.breakpoints), pole_at,
                                     [(c["support"], c["rule"], c["nreal"], c.get("index"),
                                       mpmath.mpc(c["g_mid"]) * length)
                                      for c, length in zip(intervals, lengths)])
                _REFERENCE.move_to_end(reuse)
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
        coefficients highest first) at the working precision."""
        values = self.evaluator.values
        for entry, kind in factors:
            if kind == "disc":
                yield kind, [mpmath.mpf(c) for c in reversed(entry)]
            else:
                vals = [to_mp(values[s_]) for s_ in entry.symbols]
                yield kind, list(reversed(entry.evaluate(vals, mpmath.mpf(1))))

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
        """(merged sorted breakpoints, poles among them, real roots of the "disc" factors)."""
        pts = []
        poles = []
        disc_roots = []
        tol = tolerance(self.dps + _SAME_POINT_EXTRA_DPS)
        scale_tol = tolerance(mpmath.mp.dps - _COEFF_LOST_DPS)
        for kind, coeffs in factors:
            size = max(abs(c) for c in coeffs)
            if size == 0:
                raise ValueError("discriminant vanishes identically at these parameter values "
                                 "(non-squarefree polynomial); perturb the parameters")
            coeffs = [c if abs(c) > scale_tol * size else mpmath.mpf(0) for c in coeffs]
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
        """(kind, coefficients in z highest first) of each factor of the discriminant and of
        the leading coefficient, evaluated at the working precision from the symbolic factors
        of the canonical form (FLINT tables when available, else sympy, cached per structure)."""
        values = self.evaluator.values
        try:
            tables = discriminant_tables(P)
        except ValueError:
            tables = None
        if tables is not None:
            for table, kind in tables:
                vals = [to_mp(values[s_]) for s_ in table.symbols]
                yield kind, list(reversed(table.evaluate(vals, mpmath.mpf(1))))
            return
        Pc, params = canonicalize(P)
        vals = [to_mp(values[p]) for p in params]
        for kind, fn in _discriminant_functions(Pc):
            yield kind, [mpmath.mpmathify(c) for c in fn(*vals)]

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
        real = [ri for ri in r if abs(mpmath.im(ri)) <= thr * (abs(ri) + 1)]
        info["nreal"] = len(real)
        if abs(mpmath.im(g)) > thr * (abs(g) + 1):
            info["support"] = True
            n_neg = sum(1 for ri in r if mpmath.im(ri) < -thr * (abs(ri) + 1))
            info["rule"] = "unique" if n_neg == 1 else "track"
        else:
            info["support"] = False
            info["rule"] = "real"
            reals = sorted(mpmath.re(ri) for ri in real)
            info["index"] = min(range(len(reals)), key=lambda k: abs(reals[k] - mpmath.re(g)))
        return info

    def _classify_from(self, ref):
        """The classification carried over from the previous point of the structure, when
        the breakpoints and poles are as many and in the same places: at each interval's test
        point the branch is picked by the previous point's rule — in a support interval with
        one root of Im < 0 that root, in a gap the real root of the same rank among as many,
        else the root nearest the previous branch value (scaled by the interval's length) if
        unambiguous (:data:`_REUSE_AMBIGUITY`) — and each interval must keep its kind (support
        or gap, rule, real-root count and rank); None otherwise (the caller tracks from far
        above).  Gaps are then checked by real-axis continuation from the outer gaps
        (:meth:`_continue_gaps`, as after tracking), and the law confirms the support by its
        mass check (``AlgebraicLaw._confirm_reuse``), falling back to tracking."""
        count, pole_at, ref_info = ref
        if len(self.breakpoints) != count or pole_at != frozenset(
                i for i, b in enumerate(self.breakpoints) if b in self.poles):
            return None
        npoly = self.numpoly
        _, mids, lengths = self._mids(hints=False)
        self._mids()  # the tracker's hints
        thr = tolerance(mpmath.mp.dps * 3 // 5)
        intervals = []
        for i, (mid, length, (support, rule, nreal, index, gl_ref)) in enumerate(
                zip(mids, lengths, ref_info)):
            r = npoly.roots_mp(mid)
            if support and rule == "unique":  # the one root with Im < 0
                pick = [k for k, ri in enumerate(r) if mpmath.im(ri) < -thr * (abs(ri) + 1)]
            elif not support:  # a gap: the real root of the same rank
                real = sorted((mpmath.re(ri), k) for k, ri in enumerate(r)
                              if abs(mpmath.im(ri)) <= thr * (abs(ri) + 1))
                pick = [real[index][1]] if len(real) == nreal else []
            else:
                # several roots with Im < 0: the nearest to G × (its length scale) carried
                # over (scale-free: a wider or shifted spectrum predicts the same), if clear
                d = sorted((abs(ri * length - gl_ref), k) for k, ri in enumerate(r))
                clear = len(d) == 1 or d[0][0] <= _REUSE_AMBIGUITY * d[1][0]
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
            if fine[i] and ok[i]:
                g_near = mpmath.mpc(complex(g_float[i]))
            else:  # finish at the working precision
                g0 = g_float[i] if ok[i] else 1 / mpmath.mpc(mid, 8 * (R + abs(mid_f[i]) + 1))
                h0 = h_float[i] if ok[i] else 8 * (R + abs(mid_f[i]) + 1)
                g_near = self.track_mp(mid, mpmath.mpf(h0), g0, width / 1000)
            r = npoly.roots_mp(mid)
            g = min(r, key=lambda ri: abs(ri - g_near))
            g = npoly.newton_mp(g, mid)
            intervals.append(self._interval_info(i, mid, r, g, thr))
        self._continue_gaps(intervals)
        return intervals

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
                ws = [abs(c["hi_mp"] - c["lo_mp"]) if None not in (c["hi_mp"], c["lo_mp"])
                      else abs(e) + 1 for c in (a, b)]
                d = tolerance(4) * min(ws) * (1 if j > i else -1)
                xa, xb = e - d, e + d
                ra = npoly.roots_mp(xa)
                ga = mpmath.re(self.select_mp(ra, a, None))
                ga = mpmath.re(npoly.newton_mp(mpmath.mpc(ga), xa))
                with np.errstate(over="ignore", invalid="ignore"):  # huge x: not finite, below
                    _, pg, pz = npoly.partials(np.array([complex(ga)]), np.array([complex(xa)]))
                    gp = -pz[0] / pg[0] if pg[0] != 0 else 0
                if not (np.isfinite(gp) and gp.real < 0):  # G′ < 0 off the support
                    break
                pred = ga + mpmath.mpf(gp.real) * 2 * d
                thr = tolerance(mpmath.mp.dps * 3 // 5)
                rb = npoly.roots_mp(xb)
                reals = sorted(mpmath.re(r) for r in rb if abs(mpmath.im(r)) <= thr * (abs(r) + 1))
                if len(reals) != b["nreal"] or not reals:
                    break
                dist = sorted((abs(r - pred), k) for k, r in enumerate(reals))
                if len(dist) > 1 and dist[0][0] > 0.25 * dist[1][0]:
                    break
                k = dist[0][1]
                if k != b["index"]:
                    rm = sorted(mpmath.re(r) for r in npoly.roots_mp(b["mid_mp"])
                                if abs(mpmath.im(r)) <= thr * (abs(r) + 1))
                    b["index"] = k
                    b["g_mid"] = complex(mpmath.re(rm[k]))

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
        order = np.argsort(np.abs(roots.imag), axis=1)[:, :nreal]
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
                # like δ^{-p} and an absolute distance would jump to a finite root of a sheet
                pred = g * (g / prev) if prev is not None and prev != 0 else g
                with np.errstate(divide="ignore", invalid="ignore"):
                    dist = np.abs(np.log(roots[i] / pred))
                dist = np.where(np.isfinite(dist) & (roots[i].imag <= _AXIS_ROOT_IM * np.abs(roots[i])),
                                dist, np.inf)
                if not np.any(np.isfinite(dist)):
                    dist = np.abs(roots[i] - g)
                prev, g = g, roots[i, np.argmin(dist)]
                out[i] = g
        return out

    def select_mp(self, roots, info, guess):
        """Pick the branch among mpmath roots at a point inside interval ``info``."""
        if info["support"] and info["rule"] == "unique":
            return min(roots, key=lambda r: mpmath.im(r) / abs(r) if r != 0 else 0)
        if info["support"]:
            return min(roots, key=lambda r: abs(r - guess))
        nreal = info["nreal"]
        reals = sorted(roots, key=lambda r: abs(mpmath.im(r)))[:nreal]
        reals = sorted(reals, key=lambda r: mpmath.re(r))
        return mpmath.mpc(mpmath.re(reals[info["index"]]), 0)
