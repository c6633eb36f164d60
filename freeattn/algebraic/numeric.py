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

import mpmath
import numpy as np
import sympy as sp

from .._context import to_mp, workdps
from .polynomial import G, discriminant_factors, z

__all__ = ["NumericPolynomial", "BranchData"]

_TABLE_NODES = 257


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
        params = sorted(self.values, key=lambda s_: s_.name)
        self._params = params
        self._fns = [[sp.lambdify(params, c, "mpmath") for c in row] for row in self._exact_c]
        self._mp_cache = {}
        with mpmath.workdps(40):
            c = self.coefficients_mp()
        # float64 coefficient polynomials in z, highest power first, for G^deg .. G^0
        self.cf = np.array([[float(c[k][j]) for j in range(self.deg_z, -1, -1)]
                            for k in range(self.deg, -1, -1)])

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
            self._mp_cache[key] = [[mpmath.mpmathify(f(*vals)) for f in row] for row in self._fns]
        return self._mp_cache[key]

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

        Companion-matrix eigenvalues, batched; a vanishing leading coefficient (x at a pole)
        drops the degree and the missing roots are returned as ``inf``.
        """
        x = np.asarray(x).reshape(-1)
        C = self.coeffs_at(x)
        out = np.full((x.size, self.deg), np.inf + 0j)
        lead = C[0]
        scale = np.max(np.abs(C), axis=0)
        regular = np.abs(lead) > 1e-14 * scale
        if np.any(regular):
            Cr = C[:, regular]
            M = np.zeros((Cr.shape[1], self.deg, self.deg), dtype=Cr.dtype)
            M[:, 0, :] = -(Cr[1:] / Cr[0]).T
            idx = np.arange(self.deg - 1)
            M[:, idx + 1, idx] = 1
            out[regular] = np.linalg.eigvals(M)
        for i in np.flatnonzero(~regular):
            r = np.roots(C[:, i])
            out[i, : r.size] = r
        return out

    def newton(self, g, x, steps=3):
        """Polish roots ``g`` of P(·, x) by Newton's method (vectorised); returns (g, |step|)."""
        C = self.coeffs_at(x)
        step = np.zeros(g.shape)
        for _ in range(steps):
            p = np.zeros_like(g) + C[0]
            dp = np.zeros_like(g)
            for c in C[1:]:
                dp = dp * g + p
                p = p * g + c
            ok = dp != 0
            delta = np.zeros_like(g)
            delta[ok] = p[ok] / dp[ok]
            g = g - delta
            step = np.abs(delta)
        return g, step

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
        extra = 20
        while True:
            try:
                return list(mpmath.polyroots(coeffs, maxsteps=200, extraprec=extra))
            except mpmath.libmp.libhyper.NoConvergence:
                if extra > 800:
                    raise
                extra *= 3

    def newton_mp(self, g, x, steps=60):
        """Newton polish of a root of P(·, x) at the current precision."""
        c = self.coefficients_mp()
        tol = mpmath.mpf(2) ** (-mpmath.mp.prec + 8)
        for _ in range(steps):
            p = mpmath.mpf(0)
            dp = mpmath.mpf(0)
            for k in range(self.deg, -1, -1):
                ck = mpmath.mpf(0)
                for j in range(self.deg_z, -1, -1):
                    ck = ck * x + c[k][j]
                dp = dp * g + p
                p = p * g + ck
            if dp == 0:
                break
            delta = p / dp
            g = g - delta
            if abs(delta) <= tol * (abs(g) + tol):
                break
        return g


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

    def __init__(self, numpoly, P, dps):
        self.numpoly = numpoly
        self.dps = dps
        # breakpoints at twice the precision: discriminants of laws with a wide range of
        # scales (large β) are ill-conditioned, and polyroots loses digits on them
        with mpmath.workdps(2 * dps + 20):
            pts, poles = self._breakpoints(P)
        with workdps(dps):
            self.breakpoints = [+p for p in pts]
            self.poles = {+p for p in poles}
            self.intervals = self._classify()

    # -------------------------------------------------------------- edges
    def _breakpoints(self, P):
        pts = []
        poles = []
        tol = mpmath.mpf(10) ** (-(self.dps + 5))
        scale_tol = mpmath.mpf(10) ** (-(mpmath.mp.dps - 8))
        for factor, kind in discriminant_factors(P):
            poly = sp.Poly(factor, z)
            coeffs = [self.numpoly.evaluate_mp(c) for c in poly.all_coeffs()]
            size = max(abs(c) for c in coeffs)
            if size == 0:
                raise ValueError("discriminant vanishes identically at these parameter values "
                                 "(non-squarefree polynomial); perturb the parameters")
            coeffs = [c if abs(c) > scale_tol * size else mpmath.mpf(0) for c in coeffs]
            while len(coeffs) > 1 and coeffs[0] == 0:
                coeffs.pop(0)
            if len(coeffs) == 1:
                continue
            extra = 30
            while True:
                try:
                    roots = mpmath.polyroots(coeffs, maxsteps=400, extraprec=extra)
                    break
                except mpmath.libmp.libhyper.NoConvergence:
                    if extra > 2000:
                        raise
                    extra *= 3
            scale = max(abs(r) for r in roots) + 1
            for r in roots:
                if abs(mpmath.im(r)) <= mpmath.mpf(10) ** (-(mpmath.mp.dps // 3)) * scale:
                    x = mpmath.re(r)
                    pts.append(x)
                    if kind == "lead":
                        poles.append(x)
        pts.sort()
        merged = []
        for x in pts:
            if merged and abs(x - merged[-1]) <= tol * (1 + abs(x)):
                continue
            merged.append(x)
        pole_set = set()
        for p in poles:
            for m in merged:
                if abs(p - m) <= tol * (1 + abs(p)):
                    pole_set.add(m)
        return merged, pole_set

    # ------------------------------------------------------- classification
    def _scale(self):
        return float(max([abs(b) for b in self.breakpoints] + [1]))

    def continue_down(self, x):
        """Branch value near the real point ``x`` by continuation from x + iY (float64).

        Returns G(x + i·ε_f) for a tiny ε_f, tracked from large Y where G ~ 1/z."""
        npoly = self.numpoly
        R = self._scale()
        Y = 8.0 * (R + abs(x) + 1.0)
        eps_f = 1e-9 * (R + 1.0)
        ts = list(np.geomspace(Y, eps_f, 160))
        z0 = complex(x, ts[0])
        g = 1.0 / z0
        g = npoly.newton(np.array([g]), np.array([z0]), steps=8)[0][0]
        k = 1
        while k < len(ts):
            zk = complex(x, ts[k])
            r = npoly.roots(np.array([zk]))[0]
            d = np.abs(r - g)
            order = np.argsort(d)
            if r.size > 1 and d[order[1]] < 3 * d[order[0]] and (ts[k - 1] - ts[k]) > 1e-3 * ts[k]:
                ts.insert(k, 0.5 * (ts[k - 1] + ts[k]))  # refine the step: ambiguous match
                continue
            g = r[order[0]]
            k += 1
        return g

    def _classify(self):
        npoly = self.numpoly
        bps = [float(b) for b in self.breakpoints]
        edges = [-math.inf] + bps + [math.inf]
        intervals = []
        for lo, hi in zip(edges[:-1], edges[1:]):
            if math.isinf(lo) and math.isinf(hi):
                mid = 0.0
            elif math.isinf(lo):
                mid = hi - (1.0 + abs(hi))
            elif math.isinf(hi):
                mid = lo + (1.0 + abs(lo))
            else:
                mid = 0.5 * (lo + hi)
            g_near = self.continue_down(mid)
            r = npoly.roots(np.array([mid + 0j]))[0]
            g = r[np.argmin(np.abs(r - g_near))]
            # refine at full precision
            g = complex(npoly.newton_mp(mpmath.mpc(g), mpmath.mpf(mid)))
            scale = abs(g) + 1e-300
            real_mask = np.abs(r.imag) <= 1e-8 * (np.abs(r) + 1)
            info = {"lo": lo, "hi": hi, "mid": mid, "g_mid": g, "nreal": int(real_mask.sum())}
            if -g.imag > 1e-7 * scale:
                info["support"] = True
                n_neg = int(np.sum(r.imag < -1e-8 * (np.abs(r) + 1)))
                info["rule"] = "unique" if n_neg == 1 else "track"
            else:
                info["support"] = False
                info["rule"] = "real"
                reals = np.sort(r[real_mask].real)
                info["index"] = int(np.argmin(np.abs(reals - g.real)))
            intervals.append(info)
        return intervals

    # ------------------------------------------------------------ select
    def select(self, roots, info, x=None):
        """Pick the branch among ``roots`` (N, deg) of points inside interval ``info``."""
        if info["support"]:
            if info["rule"] == "unique":
                return roots[np.arange(len(roots)), np.argmin(roots.imag, axis=1)]
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
            g = info["g_mid"]
            for i in seq:
                j = np.argmin(np.abs(roots[i] - g))
                g = roots[i, j]
                out[i] = g
        return out

    def select_mp(self, roots, info, guess):
        """Pick the branch among mpmath roots at a point inside interval ``info``."""
        if info["support"] and info["rule"] == "unique":
            return min(roots, key=lambda r: mpmath.im(r))
        if info["support"]:
            return min(roots, key=lambda r: abs(r - guess))
        nreal = info["nreal"]
        reals = sorted(roots, key=lambda r: abs(mpmath.im(r)))[:nreal]
        reals = sorted(reals, key=lambda r: mpmath.re(r))
        return mpmath.mpc(mpmath.re(reals[info["index"]]), 0)
