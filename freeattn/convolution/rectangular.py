r"""Rectangular free additive convolution ⊞_λ (Benaych-Georges 2009) of laws of squared
singular values.

For n × p matrices A, B with n/p → λ ∈ (0, 1], asymptotically free in the rectangular sense
(e.g. one of them bi-orthogonally invariant and independent of the other), the law of the
squared singular values of A + B (the n eigenvalues of (A + B)(A + B)ᵀ) is ν_A ⊞_λ ν_B.
Everything here is written in the variable of those laws (on [0, ∞), zeros included); the
transforms are those of :mod:`freeattn.transforms.rectangular`:

    D(y) = G(y)(λ y G(y) + 1 − λ),   C(D(y)) = y G(y) − 1,   C_{μ⊞_λν} = C_μ + C_ν.

Two routes:

* **algebraic** (both inputs :class:`~freeattn.laws.AlgebraicLaw`): with g = h/(λc + 1),
  y = (c + 1)(λc + 1)/h, each input's polynomial gives the relation K(h, c) = 0 of its
  rectangular R-transform; K_{μ⊞_λν}(h, c) = Res_{c₁}(K_μ(h, c₁), K_ν(h, c − c₁)) (FLINT), and
  back P(G, y) = K(G(λyG + 1 − λ), yG − 1), Stieltjes factor selected by m₁ and m₂.
* **subordination** (any laws on [0, ∞): empirical, numeric, …): additivity of C means that at
  h = D(y) the inputs are evaluated at points u₁, u₂ with D_μ(u₁) = D_ν(u₂) = D(y) and
  y G(y) − 1 = (u₁G_μ(u₁) − 1) + (u₂G_ν(u₂) − 1) (the rectangular analogue of Biane's
  subordination; Belinschi, Benaych-Georges & Guionnet 2009, Thm 2.?; derived in
  ``derivations/rectangular_subordination.py``).  With gᵢ = Gᵢ(uᵢ), s = u₁g₁ + u₂g₂ − 1:

      f₁ = D_μ(u₁) − D_ν(u₂) = 0,     f₂ = s(λ s + 1 − λ) − y D_μ(u₁) = 0,    G(y) = s/y.

  Solved by Newton's method continued down a ladder of heights Im y from far above the axis
  (where uᵢ ≈ y), and at real y directly (on-axis limit, never a fixed ε); edges are real
  critical points (f = 0, det ∂_u f = 0) refined by Newton from a bracketing scan.

Atoms (both routes): (μ ⊞_λ ν)({0}) = max(0, μ({0}) + ν({0}) − 1) (rank of a sum), and for
x > 0, max(0, μ({x}) + 2ν({0}) − 2) (and μ ↔ ν): an eigenvector of AAᵀ at x survives when it
meets the kernels of both Bᵀ and B A ᵀ (2 rank(B) conditions); at λ = 1 this is the
Bercovici–Voiculescu rule for the symmetrised laws.  δ₀ is the identity of ⊞_λ.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp

from .._context import MASS_TOL, TINY, inner_dps, mp_route, to_mp, tolerance
from .._validation import Param, ParameterError, declare
from ..algebraic import exact as _exact
from ._dispatch import hull  # the convolutions' one hull (no cdf tables of the inputs)
from .rectangular_inputs import _LOCATION_TOL, _NEGATIVE_TOL, _Input, _mass_at
from ..algebraic.polynomial import (G, rename_symbols, series_moments, stieltjes_factor,
                                    substitute_polynomial, z)
from ..laws._params import exact as _exact_value, fresh
from ..laws.algebraic import AlgebraicLaw
from ..laws.base import Law
from ..transforms.rectangular import (check_ratio, moments_from_rectangular_cumulants,
                                      rectangular_cumulants_from_moments)

__all__ = ["rectangular_free_convolution", "boxplus_rectangular", "RectangularConvolution",
           "rectangular_polynomial", "METHODS"]

METHODS = ("algebraic", "subordination")

_MU = Param("mu", "law", "μ", "law of squared singular values on [0, ∞)")
_NU = Param("nu", "law", "ν", "law of squared singular values on [0, ∞)")
_RATIO = Param("ratio", lambda name, v: check_ratio(v, name), "λ",
               "λ = n/p in (0, 1] (n × p matrices, n ≤ p)")

#: continuation ladder: ratio between successive heights, lowest rung (× scale)
_LADDER_RATIO = 0.25
_LADDER_FLOOR = 1e-9
#: a ladder step whose solution has Im G > −_SHEET_FRACTION·Im y/(|y| + b)² above the axis
#: (not a Stieltjes value) is redone in _SUBRUNGS geometric sub-steps, deflated, at most
#: _SUBRUNG_DEPTH levels deep
_SHEET_FRACTION = 0.5
_SUBRUNGS = 4
_SUBRUNG_DEPTH = 3
#: scan points for the support: a coarse scan (_SCAN_COARSE) whose intervals are then
#: checked on their θ-tables (_TABLE_NODES θ-nodes per interval, the pdf's warm starts, so
#: the check is free) for gaps, and for the mass: a scan whose intervals and atoms hold less
#: than 1 − _SCAN_MASS_TOL (a component between two coarse points) is redone densely
#: (_SCAN_POINTS); at most _GAP_PASSES rounds of splitting at gaps found in the tables
_SCAN_COARSE = 129
_SCAN_POINTS = 1601
_TABLE_NODES = 257
_SCAN_MASS_TOL = 1e-7
#: … beyond _MASS_ERR_FACTOR × the θ-rule's own error estimate (singular edges)
_MASS_ERR_FACTOR = 4.0
_GAP_PASSES = 4
#: masses below this are rounding of the atom rule, not atoms
_ATOM_TOL = 1e-14
#: Newton on the subordination system: relative step at rounding (_STEP_ROUND), residual at
#: which a non-improving iterate stops (_RESIDUAL_STOP) and below which it has converged
#: (_RESIDUAL_OK)
_STEP_ROUND = 8e-16
#: Newton on a rung of the ladder (not the target) stops after a relative step below this:
#: the rung only starts the next one, and the error after such a step is its square (as in
#: subordination_law's ladder); the target's Newton runs to rounding (_STEP_ROUND)
_RUNG_STEP = 1e-6
_RESIDUAL_STOP = 1e-13
_RESIDUAL_OK = 1e-11
#: the on-axis solution may move at most _JUMP·scale from the lowest rung's; retry ladder
_JUMP = 1e-3
_RETRY_RATIO = 0.5
_RETRY_FLOOR = 1e-15
#: a point is inside the support when Im u > _INSIDE_U·(|u₁| + |u₂|) and
#: Im G < −_INSIDE_G·|G|; Stieltjes sign screen at the target: Im G ≤ _SHEET_G·|G|
_INSIDE_U = 1e-10
_INSIDE_G = 1e-13
_SHEET_G = 1e-12
#: support scan: padding past the hull's end (relative, absolute) and the distance kept from
#: an atom (× scale); probe at _ZERO_PROBE·x of whether the density reaches 0
_SCAN_PAD = 1e-3
_SCAN_PAD_ABS = 1e-12
_ATOM_GAP = 1e-9
_ZERO_PROBE = 1e-12
#: edge refinement: complex-step size (× scale), Newton stop (relative to the edge, floor
#: _EDGE_FLOOR × scale), slack for accepting it inside the bracket (relative, × scale), the
#: rounding width of a shrunk bracket
_COMPLEX_STEP = 1e-30
_EDGE_STOP = 1e-15
_EDGE_FLOOR = 1e-3
_EDGE_SLACK = 1e-9
_EDGE_SLACK_ABS = 1e-14
_BRACKET_ROUND = 4e-16
#: a point within _FOLD_NEAR (× scale) of an edge whose on-axis G has |Im G| ≤ _FOLD_NOISE·|G|
#: of either sign is at the edge's fold to rounding (G exact to √ε there): density 0
_FOLD_NEAR = 1e-6
_FOLD_NOISE = 1e-7
#: sub-grid rounds (31 points, ÷32 each) shrinking a scan bracket before that Newton, for an
#: edge whose Newton from the scan point itself left the bracket or whose probe at
#: _EDGE_CHECK × the bracket outside it is inside the support
_EDGE_ROUNDS = 2
_EDGE_CHECK = 1e-3
#: the direct Newton's residual (f₁, f₂, scaled det J) where its step stopped
_CRIT_RESIDUAL = 1e-9
#: the mpmath polish stops at tolerance(dps, _MP_FACTOR)
_MP_FACTOR = 1e-3


# --------------------------------------------------------------------------- the law
class RectangularConvolution(Law):
    """μ ⊞_λ ν by subordination (see :func:`rectangular_free_convolution`).

    Convention: G(y) = ∫ dν(x)/(y − x) of the law of squared singular values (on [0, ∞),
    mass 1 with atoms).  ``u_solution(y)`` gives the subordination points (u₁, u₂).
    """

    parameters = (_MU, _NU, _RATIO)

    def __init__(self, mu, nu, ratio, name=None):
        declare(self.parameters, mu=mu, nu=nu, ratio=ratio)
        self.mu, self.nu = mu, nu
        self._ratio_exact = _exact_value(ratio, "ratio")
        self.ratio = float(self._ratio_exact)
        self._in = [_Input(mu, "mu"), _Input(nu, "nu")]
        self.name = name or f"({mu.name}) ⊞_{self.ratio:g} ({nu.name})"
        (_, b1), (_, b2) = self._in[0].hull, self._in[1].hull
        self._hi = (math.sqrt(b1) + math.sqrt(b2)) ** 2
        self._sc = max(self._hi, TINY)

    # ------------------------------------------------------------ the system
    def _eval(self, i, u, st):
        g, dg = self._in[i].value(u, st.get(i))
        st[i] = (u, g, dg)
        return g, dg

    def _eqs(self, u1, u2, y, st, deflate=False):
        lam = self.ratio
        g1, d1 = self._eval(0, u1, st)
        g2, d2 = self._eval(1, u2, st)
        # an iterate on an input atom has G = ∞: its residuals come out non-finite and the
        # solver's isfinite screen drops that point (no warning for it)
        with np.errstate(invalid="ignore", over="ignore"):
            return self._residuals(lam, u1, u2, y, g1, d1, g2, d2, deflate)

    @staticmethod
    def _residuals(lam, u1, u2, y, g1, d1, g2, d2, deflate=False):
        D1 = g1 * (lam * u1 * g1 + 1 - lam)
        D2 = g2 * (lam * u2 * g2 + 1 - lam)
        dD1 = d1 * (2 * lam * u1 * g1 + 1 - lam) + lam * g1 * g1
        dD2 = d2 * (2 * lam * u2 * g2 + 1 - lam) + lam * g2 * g2
        s = u1 * g1 + u2 * g2 - 1
        e1, e2 = g1 + u1 * d1, g2 + u2 * d2
        q = 2 * lam * s + 1 - lam
        f1 = (D1 - D2) * y
        if not deflate:
            # both terms of f₂ are O(1) far out (s ~ 1, y D ~ 1)
            f2 = s * (lam * s + 1 - lam) - y * D1
            J = [[dD1 * y, -dD2 * y], [q * e1 - y * dD1, q * e2]]
            return (f1, f2), J, s
        # deflated: f₂ = s(λs + 1 − λ)/(y D_μ) − 1.  The division removes the exact spurious
        # solutions of the plain system (D_μ = D_ν = 0 with u₁ or u₂ = ∞ and
        # s(λs + 1 − λ) = 0, at every y; see _rung), at the price of a worse-conditioned
        # system where D_μ is large (u₁ next to an atom of μ), so it is the fallback only
        yD = y * D1
        f2 = s * (lam * s + 1 - lam) / yD - 1
        J = [[dD1 * y, -dD2 * y], [(q * e1 - (f2 + 1) * y * dD1) / yD, q * e2 / yD]]
        return (f1, f2), J, s

    def _newton(self, u1, u2, y, st, maxit, deflate=False, tol=_STEP_ROUND):
        """Newton on the system at y from (u₁, u₂): (u₁, u₂, converged), the inputs' states
        in ``st`` at the returned points.  A point stops at a relative step ≤ ``tol``; above
        rounding (a rung's ``tol``) that last step is taken (its error is the step squared)."""
        N = y.shape[0]
        best1, best2 = u1.copy(), u2.copy()
        best = np.full(N, np.inf)
        act = np.arange(N)
        with np.errstate(all="ignore"):
            for it in range(maxit + 1):
                sa = {i: tuple(c[act] for c in v) for i, v in st.items() if v[0].shape == (N,)}
                (f1, f2), J, _ = self._eqs(u1[act], u2[act], y[act], sa, deflate)
                for i, v in sa.items():
                    if i in st and st[i][0].shape == (N,):
                        for full, part in zip(st[i], v):
                            full[act] = part
                    else:
                        st[i] = tuple(np.full(N, np.nan, dtype=complex) for _ in v)
                        for full, part in zip(st[i], v):
                            full[act] = part
                res = np.abs(f1) + np.abs(f2)
                better = res < best[act]
                best1[act] = np.where(better, u1[act], best1[act])
                best2[act] = np.where(better, u2[act], best2[act])
                best[act] = np.where(better, res, best[act])
                if it == maxit:
                    break
                # far out (|u| beyond the hull) the step is taken in w = 1/u: a
                # subordination point may pass through ∞ (G = 0 there: D = 0), where w = 0
                # is an ordinary point
                ua1, ua2 = u1[act], u2[act]
                far1, far2 = np.abs(ua1) > 2 * self._sc, np.abs(ua2) > 2 * self._sc
                c1 = np.where(far1, -ua1 * ua1, 1.0)
                c2 = np.where(far2, -ua2 * ua2, 1.0)
                J00, J01, J10, J11 = J[0][0] * c1, J[0][1] * c2, J[1][0] * c1, J[1][1] * c2
                det = J00 * J11 - J01 * J10
                d1 = (J11 * f1 - J01 * f2) / det
                d2 = (J00 * f2 - J10 * f1) / det
                n1 = np.where(far1, 1 / (1 / ua1 - d1), ua1 - d1)
                n2 = np.where(far2, 1 / (1 / ua2 - d2), ua2 - d2)
                step = np.abs(d1) / np.where(far1, np.abs(1 / ua1), np.abs(ua1)) \
                    + np.abs(d2) / np.where(far2, np.abs(1 / ua2), np.abs(ua2))
                small = step <= tol
                fin = ~np.isfinite(step) | small | (~better & (best[act] <= _RESIDUAL_STOP))
                if tol > _STEP_ROUND:
                    # the last step from the best iterate is taken (states re-evaluated below)
                    take = small & better & np.isfinite(n1) & np.isfinite(n2)
                    best1[act] = np.where(take, n1, best1[act])
                    best2[act] = np.where(take, n2, best2[act])
                u1[act] = np.where(fin | ~np.isfinite(n1), u1[act], n1)
                u2[act] = np.where(fin | ~np.isfinite(n2), u2[act], n2)
                act = act[~fin]
                if act.size == 0:
                    break
            # the inputs' states at the returned (best) iterates, from which G is read
            stale = np.flatnonzero((st[0][0] != best1) | (st[1][0] != best2))
            if stale.size:
                for i, b in ((0, best1), (1, best2)):
                    part = tuple(c[stale] for c in st[i])
                    g, dg = self._in[i].value(b[stale], part)
                    st[i][0][stale], st[i][1][stale], st[i][2][stale] = b[stale], g, dg
        return best1, best2, best <= _RESIDUAL_OK

    def _predict(self, u1, u2, y0, y1, st, deflate=False):
        """First-order continuation step: u(y₁) ≈ u(y₀) + u′(y₀)(y₁ − y₀), u′ = −J⁻¹ ∂f/∂y
        (∂f₁/∂y = D_μ − D_ν; ∂f₂/∂y = −D_μ, deflated −(f₂ + 1)/y)."""
        with np.errstate(all="ignore"):
            lam = self.ratio
            g1, g2 = st[0][1], st[1][1]
            D1 = g1 * (lam * u1 * g1 + 1 - lam)
            D2 = g2 * (lam * u2 * g2 + 1 - lam)
            (f1, f2), J, _ = self._eqs(u1, u2, y0, {i: v for i, v in st.items()}, deflate)
            fy1, fy2 = D1 - D2, (-(f2 + 1) / y0) if deflate else -D1
            det = J[0][0] * J[1][1] - J[0][1] * J[1][0]
            d1 = -(J[1][1] * fy1 - J[0][1] * fy2) / det
            d2 = -(J[0][0] * fy2 - J[1][0] * fy1) / det
            dy = y1 - y0
            far1, far2 = np.abs(u1) > 2 * self._sc, np.abs(u2) > 2 * self._sc
            n1 = np.where(far1, 1 / (1 / u1 - d1 * dy / (u1 * u1)), u1 + d1 * dy)
            n2 = np.where(far2, 1 / (1 / u2 - d2 * dy / (u2 * u2)), u2 + d2 * dy)
            good = np.isfinite(n1) & np.isfinite(n2)
        return np.where(good, n1, u1 + dy), np.where(good, n2, u2 + dy)

    def _rung(self, u1, u2, y0, y1, st, depth=0, deflate=False):
        """One step of the ladder from heights y₀ to y₁ (predictor + Newton), with a sheet
        check: at Im y > 0 a law on [0, b] has Im G(y) ≤ −Im y/(|y| + b)², and a point whose
        Newton landed elsewhere is redone from y₀ in ``_SUBRUNGS`` finer geometric steps
        with the deflated system (up to ``_SUBRUNG_DEPTH`` levels).

        The plain system has exact spurious solutions at every y: u₁ = ∞ (D_μ = 0) with u₂ a
        zero of λ u G_ν(u) + 1 − λ gives D = 0 and G(y) = −(1 − λ)/(λ y) (Im G > 0 above
        the axis), and u₂ a zero of G_ν gives G ≡ 0 (and μ ↔ ν).  A step next to a point
        where the true D(y) is small is attracted there, and on the axis the wrong G is real
        and looks like a gap: two-point(11/8, 11/4, 3/4) ⊞_{7/8} δ_{9/4} had its left edge
        at 0.067025 instead of 0.066652, and (½δ₀ + ½δ₁) ⊞_{1/2} (0.95δ₀ + 0.05δ₂) a false
        gap at 0.9116 whose edge refinement did not return."""
        saved = {i: tuple(c.copy() for c in v) for i, v in st.items()}
        p1, p2 = self._predict(u1, u2, y0, y1, st, deflate)
        n1, n2, _ = self._newton(p1, p2, y1, st, 12, deflate, tol=_RUNG_STEP)
        if depth >= _SUBRUNG_DEPTH:
            return n1, n2
        with np.errstate(all="ignore"):
            Gv = (n1 * st[0][1] + n2 * st[1][1] - 1) / y1
            # a law on [0, b] has Im G(y) = −Im y ∫ dν(x)/|y − x|² ≤ −Im y/(|y| + b)²
            bound = -_SHEET_FRACTION * y1.imag / (np.abs(y1) + self._hi) ** 2
            bad = (y1.imag > 0) & ~(Gv.imag <= bound)
        if not np.any(bad):
            return n1, n2
        idx = np.flatnonzero(bad)
        sub = {i: tuple(c[idx] for c in v) for i, v in saved.items()}
        a1, a2 = u1[idx], u2[idx]
        prev = y0[idx]
        heights = np.geomspace(y0[idx].imag, y1[idx].imag, _SUBRUNGS + 1, axis=-1)
        for k in range(1, _SUBRUNGS + 1):
            yk = y1[idx].real + 1j * heights[:, k]
            a1, a2 = self._rung(a1, a2, prev, yk, sub, depth + 1, deflate=True)
            prev = yk
        n1[idx], n2[idx] = a1, a2
        for i, v in sub.items():
            for full, part in zip(st[i], v):
                full[idx] = part
        return n1, n2

    def _solve(self, y, ratio=_LADDER_RATIO, states=None, floor=_LADDER_FLOOR):
        """(u₁, u₂, G, converged) at complex y (Im y ≥ 0; real y: the on-axis limit).

        A solution at the target must continue the one at the lowest rung (a jump there is
        Newton landing on another root of the system next to an edge); points that fail
        go down a finer and deeper ladder once more."""
        y = np.asarray(y, dtype=complex)
        Y = 4.0 * self._sc + 1.0
        st = {} if states is None else states
        top = y.real + 1j * np.maximum(y.imag, Y)
        u1, u2 = top.copy(), top.copy()
        u1, u2, _ = self._newton(u1, u2, top, st, 40)
        h = Y
        floor = floor * self._sc
        prev = top
        while True:
            h *= ratio
            if h < floor:
                break
            yk = y.real + 1j * np.maximum(y.imag, h)
            u1, u2 = self._rung(u1, u2, prev, yk, st)
            prev = yk
        r1, r2 = u1.copy(), u2.copy()
        u1, u2 = self._predict(u1, u2, prev, y, st)
        u1, u2, conv = self._newton(u1, u2, y, st, 40)
        with np.errstate(all="ignore"):
            def dist(a, b):  # on the Riemann sphere's scale: in w = 1/u far out
                far = np.abs(b) > 2 * self._sc
                return np.where(far, np.abs(1 / a - 1 / b) * self._sc ** 2, np.abs(a - b))

            jump = dist(u1, r1) + dist(u2, r2)
            conv &= ~(jump > _JUMP * self._sc)
        with np.errstate(all="ignore"):
            g1 = st[0][1]
            g2 = st[1][1]
            s = u1 * g1 + u2 * g2 - 1
            Gv = s / y
        ok = conv & np.isfinite(Gv) & ~(Gv.imag > _SHEET_G * np.abs(Gv))
        if not np.all(ok) and ratio < _RETRY_RATIO:
            idx = np.flatnonzero(~ok)
            a, b, c, d = self._solve(y[idx], ratio=_RETRY_RATIO, floor=_RETRY_FLOOR)
            sub = self._last_states
            u1[idx], u2[idx], Gv[idx], ok[idx] = a, b, c, d
            for i, v in sub.items():
                for full, part in zip(st[i], v):
                    full[idx] = part
        self._last_states = st
        return u1, u2, Gv, ok

    def u_solution(self, y):
        """Subordination points (u₁, u₂) at y (array_like, Im y ≥ 0): G_μ, G_ν are evaluated
        there, D_μ(u₁) = D_ν(u₂) = D(y) (float64)."""
        u1, u2, _, ok = self._solve(np.atleast_1d(np.asarray(y, dtype=complex)))
        return u1, u2

    def _cauchy_float(self, zz):
        zz = np.asarray(zz, dtype=complex)
        out = np.empty(zz.shape, dtype=complex)
        if zz.size == 0:
            return out
        fin = np.isfinite(zz)
        out[~fin] = 0.0
        lower = zz.imag < 0
        zq = np.where(lower, zz.conj(), zz)
        pts = zq[fin]
        res = np.empty(pts.shape, dtype=complex)
        on_axis = pts.imag == 0
        if np.any(~on_axis):
            _, _, g, ok = self._solve(pts[~on_axis])
            self._raise_unless(ok, pts[~on_axis])
            res[~on_axis] = g
        if np.any(on_axis):
            res[on_axis] = self._axis_G(pts[on_axis].real)
        out[fin] = res
        out[lower] = out[lower].conj()
        return out

    def _raise_unless(self, ok, pts):
        if not np.all(ok):
            raise ArithmeticError(f"{self.name}: subordination did not converge at "
                                  f"y = {pts[~ok][:3]}")

    # ------------------------------------------------------------ atoms
    def _atom_rule(self):
        """(location, mass) pairs from the input atoms (masses may be ≤ 0)."""
        A, B = self.mu.atoms(), self.nu.atoms()
        a0, b0 = _mass_at(A, 0.0), _mass_at(B, 0.0)
        out = [(0.0, a0 + b0 - 1)]
        out += [(float(x), m + 2 * b0 - 2) for x, m in A if abs(x) > _LOCATION_TOL * (1 + abs(x))]
        out += [(float(x), m + 2 * a0 - 2) for x, m in B if abs(x) > _LOCATION_TOL * (1 + abs(x))]
        return out

    @property
    def _atom_list(self):
        if "_atom_v" not in self.__dict__:
            merged = {}
            for x, m in self._atom_rule():
                merged[x] = merged.get(x, 0.0) + m if x != 0.0 else m
            self._atom_v = sorted((x, m) for x, m in merged.items() if m > _ATOM_TOL)
        return self._atom_v

    @mp_route
    def _atoms(self, dps):
        if dps is None:
            return list(self._atom_list)
        return [(mpmath.mpf(a), mpmath.mpf(m)) for a, m in self._atom_list]

    # ------------------------------------------------------------ support
    def _inside(self, u1, u2, g):
        size = np.abs(u1) + np.abs(u2) + TINY
        return ((np.abs(u1.imag) > _INSIDE_U * size) | (np.abs(u2.imag) > _INSIDE_U * size)) & \
            (g.imag < -_INSIDE_G * np.abs(g))

    def _find_support(self):
        """Intervals of the support and their θ-tables: the coarse scan, then the dense one
        when the coarse one's intervals and atoms miss mass (:data:`_SCAN_MASS_TOL`).

        The mass check binds: a dense scan whose intervals and atoms still miss mass raises
        (before, the support was returned and only a cdf's tables refused it).  It also
        stands for the inputs' hulls, which come from their breakpoints without their own
        cdf-level mass checks (:func:`~freeattn.convolution._dispatch.hull`): an input mass
        outside its hull would put mass of μ ⊞_λ ν outside the scanned [0, (√b₁ + √b₂)²]."""
        atoms = math.fsum(m for _, m in self._atom_list)
        for npts in (_SCAN_COARSE, _SCAN_POINTS):
            out, tabs = self._scan_support(npts)
            mass = math.fsum([t["mass"] for t in tabs]) + atoms
            err = math.fsum([t["mass_err"] for t in tabs])
            if mass >= 1 - _SCAN_MASS_TOL - _MASS_ERR_FACTOR * err:
                break
        else:
            raise ArithmeticError(f"{self.name}: the support's intervals and atoms carry mass "
                                  f"{mass!r} (θ-rule error {err:.2g}), not 1; the support "
                                  f"scan missed a component")
        self._tables_v = tabs
        return out

    def _scan_support(self, npts):
        hi = self._hi
        pad = _SCAN_PAD * hi + _SCAN_PAD_ABS
        th = np.linspace(0.0, math.pi, npts // 2)
        x = np.unique(np.concatenate([np.linspace(0.0, hi + pad, npts - th.size),
                                      (hi + pad) * (1 - np.cos(th)) / 2]))
        for a, _ in self._atom_list + [(0.0, 0.0)]:
            x = x[np.abs(x - a) > _ATOM_GAP * self._sc]
        u1, u2, g, ok = self._solve(x + 0j)
        inside = self._inside(u1, u2, g) & ok
        if inside[-1]:
            raise ArithmeticError(f"{self.name}: density does not vanish at the end of "
                                  f"the hull [0, {hi}]")
        todo = self._runs(x, inside, 0.0 if inside[0] else None, None,
                          (u1, u2, self._last_states))
        out, tabs = [], []
        for depth in range(_GAP_PASSES + 1):
            nxt = []
            for a, b, checks in todo:
                tab = self._table(a, b, checks)
                if tab["probe_failed"]:
                    # an edge from the scan point's Newton that its outside probe refutes:
                    # that end again by the bracket sub-grids, and its table anew
                    ends = [a, b]
                    for side, c in enumerate(checks):
                        if c is not None and tab["probe_failed"][side]:
                            (ends[side],), _ = self._refine_edges([c[:2]])
                    a, b = ends
                    tab = self._table(a, b)
                if tab["inside"].all() or depth == _GAP_PASSES:
                    out.append((a, b))
                    tabs.append(tab)
                    continue
                # a gap between two coarse points: the table's nodes are a finer scan
                nxt += self._runs(tab["x"], tab["inside"], a, b, (tab["u1"], tab["u2"], tab["st"]))
            todo = nxt
            if not todo:
                break
        order = np.argsort([a for a, _ in out])
        return [out[k] for k in order], [tabs[k] for k in order]

    def _runs(self, x, inside, left, right, sol):
        """(a, b, checks) of each run of inside points of the increasing scan ``x``, whose
        on-axis solutions are ``sol`` = (u₁, u₂, the inputs' states); a run at the first (last)
        point starts at ``left`` (ends at ``right``), already an edge.  ``checks``: per end,
        None, or (x_out, x_in, δ) for an edge that :meth:`_refine_edges` took by Newton from
        the scan point x_out and that the interval's table confirms by a probe at δ outside
        it (:meth:`_table`)."""
        runs = []
        i, n = 0, x.size
        while i < n:
            if not inside[i]:
                i += 1
                continue
            j = i
            while j + 1 < n and inside[j + 1]:
                j += 1
            runs.append((i, j))
            i = j + 1
        u1, u2, st = sol
        pairs, starts = [], []
        for i, j in runs:
            for q, r in ((i - 1, i), (j + 1, j)):
                if 0 <= q < n:
                    pairs.append((x[q], x[r]))
                    starts.append(tuple(((u1[p], u2[p]), {m: tuple(np.array([c[p]]) for c in v)
                                                          for m, v in st.items()})
                                        for p in (q, r)))
                else:
                    pairs.append(None)
                    starts.append(None)
        live = [k for k, p in enumerate(pairs) if p is not None]
        edges, direct = self._refine_edges([pairs[k] for k in live], [starts[k] for k in live])
        ends = [None] * len(pairs)
        checks = [None] * len(pairs)
        for k, e, d in zip(live, edges, direct):
            ends[k] = e
            if d:
                xo, xi = pairs[k]
                checks[k] = (xo, xi, _EDGE_CHECK * abs(xi - xo))
        return [(float(left if ends[2 * k] is None else ends[2 * k]),
                 float(right if ends[2 * k + 1] is None else ends[2 * k + 1]),
                 (checks[2 * k], checks[2 * k + 1]))
                for k in range(len(runs))]

    def _table(self, a, b, checks=(None, None)):
        """The on-axis θ-table of [a, b]: subordination points at x = a + (b − a)(1 − cos θ)/2,
        whether each is inside the support, and the interval's mass (trapezoid rule in θ,
        spectrally accurate for square-root edges).  ``checks`` (see :meth:`_runs`): an end
        with a check is probed at δ outside it in the same solve (``probe_failed`` per end:
        the probe is inside the support or did not converge; () without probes)."""
        theta = np.linspace(0.0, math.pi, _TABLE_NODES)[1:-1]
        x = a + (b - a) * (1 - np.cos(theta)) / 2
        probes = [(side, e) for side, (e, sgn, c) in enumerate(((a, -1.0, checks[0]),
                                                                 (b, 1.0, checks[1])))
                  if c is not None for e in (e + sgn * c[2],)]
        st = {}
        u1, u2, g, ok = self._solve(np.concatenate([x, [e for _, e in probes]]) + 0j, states=st)
        failed = ()
        if probes:
            m = x.size
            pin = ~ok[m:] | self._inside(u1[m:], u2[m:], g[m:])
            failed = [False, False]
            for (side, _), bad in zip(probes, pin):
                failed[side] = bool(bad)
            if not any(failed):
                failed = ()
            u1, u2, g, ok = u1[:m], u2[:m], g[:m], ok[:m]
            st = {i: tuple(c[:m] for c in v) for i, v in st.items()}
        inside = ok & self._inside(u1, u2, g)
        with np.errstate(all="ignore"):
            f = np.where(inside, np.maximum(-g.imag / math.pi, 0.0), 0.0)
        w = f * np.sin(theta) * (b - a) / 2
        h = theta[1] - theta[0]
        mass = float(np.sum(w) * h)
        # the rule's error, from the same rule on every other node: ~0 for square-root
        # edges, the size of the error where the density is singular at an edge
        err = abs(mass - float(np.sum(w[1::2]) * 2 * h))
        return dict(a=a, b=b, theta=theta, x=x, u1=u1, u2=u2, st=st, inside=inside, mass=mass,
                    mass_err=err, probe_failed=failed)

    def _refine_edges(self, pairs, starts=None):
        """Edges between the (x_out outside, x_in inside) ``pairs``, and per edge whether it
        came directly from the scan: with ``starts`` (per pair, the real subordination points
        and the inputs' states at x_out, or None) :meth:`_refine_edge`'s Newton on the real
        critical system runs from x_out itself, and an edge it puts inside the bracket is
        taken (the caller confirms it by a probe outside, :meth:`_table`); the other brackets
        are shrunk by sub-grids (all in one vectorised solve per round), then the same
        Newton.  The sub-grids' two solves were ~40 % of a residual law's support."""
        a = np.array([p[0] for p in pairs], dtype=float)
        b = np.array([p[1] for p in pairs], dtype=float)
        done = [None] * len(pairs)
        direct = [False] * len(pairs)
        zero = np.flatnonzero((a <= 0) & (0 < b))
        if zero.size:
            a1, a2, gp, okp = self._solve(_ZERO_PROBE * b[zero] + 0j)
            ins = okp & self._inside(a1, a2, gp)
            for k, hit in zip(zero, ins):
                if hit:
                    done[k] = 0.0
                a[k] = 0.0
        for k in range(len(pairs)):
            if done[k] is None and starts is not None and starts[k] is not None \
                    and k not in zero:
                done[k] = self._edge_from_scan(a[k], b[k], *starts[k])
                direct[k] = done[k] is not None
        live = [k for k in range(len(pairs)) if done[k] is None]
        start = {}
        for rnd in range(_EDGE_ROUNDS):
            if not live:
                break
            # each grid ordered from the outside end a toward b
            xs = np.concatenate([np.linspace(a[k], b[k], 33)[1:-1] for k in live])
            u1, u2, g, ok = self._solve(xs + 0j)
            ins = ok & self._inside(u1, u2, g)
            both = {}
            for r, k in enumerate(live):
                sl = slice(31 * r, 31 * (r + 1))
                hits = np.flatnonzero(ins[sl])
                j = int(hits[0]) if hits.size else 31
                pts = {}
                for side, q in (("out", 31 * r + j - 1), ("in", 31 * r + j)):
                    if 31 * r <= q < 31 * (r + 1):
                        pts[side] = ((u1[q], u2[q]), {i: tuple(np.array([c[q]]) for c in v)
                                                      for i, v in self._last_states.items()})
                if j > 0:
                    a[k] = xs[31 * r + j - 1]
                    (o1, o2), ost = pts["out"]
                    start[k] = ((o1.real, o2.real), ost)
                if j < 31:
                    b[k] = xs[31 * r + j]
                if len(pts) == 2:
                    both[k] = (pts["out"], pts["in"])
            if starts is not None and rnd < _EDGE_ROUNDS - 1:
                # the sub-grid's bracket, 32 times smaller, by the same direct Newton first
                for k in list(both):
                    e = self._edge_from_scan(a[k], b[k], *both[k])
                    if e is not None:
                        done[k], direct[k] = e, True
                live = [k for k in live if done[k] is None]
        for k in live:
            if k not in start:
                done[k] = 0.5 * (a[k] + b[k])
            else:
                self._crit_state = start[k][1]
                done[k] = self._refine_edge(a[k], b[k], start[k][0])
        return done, direct

    def _edge_from_scan(self, a, b, out, ins):
        """The edge in the scan bracket (a outside, b inside) by Newton on the critical system
        from the scan's own solutions ``out`` at a and ``ins`` at b (each ((u₁, u₂), the
        inputs' states)), or None.  Near a square-root edge e, u(x) ≈ u_e + c√(e − x): real at
        a, u_e + i|c|√(x − e) at b, so Re u(b) is u_e to O(b − a) (the outside point only to
        O(√(b − a))) and (u(a) − Re u(b))²/(Im u(b))² = (e − a)/(b − e) places e; Newton starts
        there (the states' real parts warm-start the inputs' polish), then from a itself."""
        (o1, o2), _ = out
        (i1, i2), sti = ins
        num = abs(o1.real - i1.real) ** 2 + abs(o2.real - i2.real) ** 2
        den = abs(i1.imag) ** 2 + abs(i2.imag) ** 2
        for inp in self._in:
            inp.strict = True
        try:
            if den > 0 and math.isfinite(num / den):
                t = (num / den) / (1 + num / den)
                self._crit_state = {m: tuple(c.real + 0j for c in v) for m, v in sti.items()}
                e = self._refine_edge(a, b, (i1.real, i2.real), shrink=False, y0=a + t * (b - a))
                if e is not None:
                    return e
            self._crit_state = out[1]
            return self._refine_edge(a, b, (o1.real, o2.real), shrink=False)
        finally:
            for inp in self._in:
                inp.strict = False

    def _refine_edge(self, a, b, ua, shrink=True, y0=None):
        """Edge in the bracket (a outside, b inside) from the real subordination points ``ua``
        at a (or at ``y0``): Newton on the real critical system (f = 0, det J = 0) with
        complex-step derivatives; when Newton leaves the bracket, the bracket shrunk to
        rounding (``shrink=False``: None instead, as soon as an iterate leaves the bracket,
        before Newton wanders where the inputs' G is dear)."""
        v = np.array([ua[0], ua[1], a if y0 is None else y0], dtype=float)
        hstep = _COMPLEX_STEP * self._sc
        good = False
        lo, hi = min(a, b), max(a, b)
        slack = _EDGE_SLACK * (hi - lo) + _EDGE_SLACK_ABS * self._sc
        for _ in range(30):
            # the residual and its complex-step Jacobian columns in one vectorised call
            FM = self._crit(v + np.vstack([np.zeros(3), 1j * hstep * np.eye(3)]))
            F, M = FM[0], (FM[1:] / hstep).imag.T
            try:
                d = np.linalg.solve(M, F.real)
            except np.linalg.LinAlgError:
                break
            if not np.all(np.isfinite(d)):
                break
            v = v - d
            if abs(d[2]) <= _EDGE_STOP * (abs(v[2]) + _EDGE_FLOOR * self._sc):
                # the direct route also wants the residual small where it stopped (its start
                # may leave a Jacobian that takes no step far from the solution)
                good = shrink or bool(np.all(np.abs(F.real) <= _CRIT_RESIDUAL))
                break
            if not shrink and not lo - slack <= v[2] <= hi + slack:
                return None
        if good and lo - slack <= v[2] <= hi + slack:
            return float(v[2])
        if not shrink:
            return None
        # Newton failed (e.g. an input's own square-root edge sits on the critical point):
        # shrink the bracket to rounding level
        for _ in range(12):
            if abs(b - a) <= _BRACKET_ROUND * max(abs(a), abs(b), TINY):
                break
            xs = np.linspace(a, b, 33)[1:-1]
            u1, u2, g, ok = self._solve(xs + 0j)
            ins = ok & self._inside(u1, u2, g)
            k = int(np.flatnonzero(ins)[0]) if np.any(ins) else xs.size
            if k > 0:
                a = xs[k - 1]
            if k < xs.size:
                b = xs[k]
        return 0.5 * (a + b)

    def _crit(self, v):
        """Rows (f₁, f₂, det J/(1 + |Re det J|)) of the critical system at the rows
        (u₁, u₂, y) of ``v`` (m × 3, complex)."""
        v = np.asarray(v, dtype=complex)
        u1, u2, y = v[:, 0].copy(), v[:, 1].copy(), v[:, 2].copy()
        # the inputs' values at the last outside point of the bracket start their polish
        st = {i: tuple(np.repeat(c, v.shape[0]) for c in w)
              for i, w in getattr(self, "_crit_state", {}).items()}
        (f1, f2), J, _ = self._eqs(u1, u2, y, st)
        with np.errstate(invalid="ignore"):  # NaN from a strict input (see _Input.strict)
            det = J[0][0] * J[1][1] - J[0][1] * J[1][0]
            return np.stack([f1, f2, det / (1 + np.abs(det.real))], axis=1)

    @property
    def _support_float(self):
        if "_support_v" not in self.__dict__:
            self._support_v = self._find_support()
        return self._support_v

    @mp_route
    def _support(self, dps):
        if dps is None:
            return list(self._support_float)
        return [(mpmath.mpf(a), mpmath.mpf(b)) for a, b in self._support_float]

    # ------------------------------------------------------------ density on the axis
    @property
    def _axis_tables(self):
        """θ-tables of the support's intervals (built with it by :meth:`_find_support`)."""
        if "_tables_v" not in self.__dict__:
            self._support_float
        return self._tables_v

    def _axis_G(self, x):
        """G(x + i0) at real x: inside the support by Newton from the θ-table, elsewhere by
        the full continuation."""
        out = np.empty(x.shape, dtype=complex)
        done = np.zeros(x.shape, bool)
        for t in self._axis_tables:
            m = (x > t["a"]) & (x < t["b"])
            if not np.any(m):
                continue
            xm = x[m]
            th = np.arccos(np.clip(1 - 2 * (xm - t["a"]) / (t["b"] - t["a"]), -1, 1))

            def interp(arr, th=th, t=t):
                return (np.interp(th, t["theta"], arr.real)
                        + 1j * np.interp(th, t["theta"], arr.imag))

            u1, u2 = interp(t["u1"]), interp(t["u2"])
            st = {i: tuple(interp(c) for c in v) for i, v in t["st"].items()}
            y = xm + 0j
            v1, v2, conv = self._newton(u1.copy(), u2.copy(), y, st, 15)
            with np.errstate(all="ignore"):
                g = (v1 * st[0][1] + v2 * st[1][1] - 1) / y
                near = (np.abs(v1 - u1) + np.abs(v2 - u2)) <= 0.1 * (np.abs(u1) + np.abs(u2))
            ok = conv & near & np.isfinite(g) & self._inside(v1, v2, g)
            if not np.all(ok):
                _, _, g2, ok2 = self._solve(y[~ok])
                # within rounding of an edge the on-axis solution sits on the fold of the
                # system, where G is exact only to √ε: the sign of its Im G (~1e-8 |G|, either
                # sign from one ulp of x to the next) is rounding, the density is 0 there
                xb = xm[~ok]
                fold = (~ok2 & np.isfinite(g2)
                        & (np.minimum(xb - t["a"], t["b"] - xb) <= _FOLD_NEAR * self._sc)
                        & (np.abs(g2.imag) <= _FOLD_NOISE * np.abs(g2)))
                g2 = np.where(fold, g2.real + 0j, g2)
                self._raise_unless(ok2 | fold, y[~ok])
                g[~ok] = g2
            out[m] = g
            done |= m
        if np.any(~done):
            _, _, g, ok = self._solve(x[~done] + 0j)
            self._raise_unless(ok, x[~done] + 0j)
            out[~done] = g
        return out

    def _pdf_float(self, x):
        x = np.asarray(x, dtype=float)
        out = np.zeros(x.shape)
        inside = np.zeros(x.shape, bool)
        for a, b in self._support_float:
            inside |= (x > a) & (x < b)
        if np.any(inside):
            g = self._axis_G(x[inside])
            out[inside] = np.maximum(-g.imag / math.pi, 0.0)
        out[np.isnan(x)] = np.nan
        return out

    # ------------------------------------------------------------ mass check
    def _tables(self):
        """The generic route's θ-tables (:meth:`freeattn.laws.generic.GenericRoutes._tables`),
        checked once: atoms plus the density's mass must be 1 to ``MASS_TOL``."""
        tables = super()._tables()
        cache = self._cache()
        if not cache.get("mass_checked"):
            total = math.fsum([iv.mass for iv in tables] + [m for _, m in self._atom_list])
            if abs(total - 1) > MASS_TOL:
                raise ArithmeticError(f"{self.name}: total mass {total!r} ≠ 1 (atoms "
                                      f"{self._atom_list}); the support scan missed a component")
            cache["mass_checked"] = True
        return tables

    def total_mass(self):
        """Density mass plus atoms (the mass check's sum; 1 to MASS_TOL or ArithmeticError)."""
        return math.fsum([iv.mass for iv in self._tables()] + [m for _, m in self._atom_list])

    # ------------------------------------------------------------ mpmath
    @mp_route
    def _cauchy_mp(self, zv, dps):
        zv = mpmath.mpc(zv)
        conj = mpmath.im(zv) < 0
        zq = mpmath.conj(zv) if conj else zv
        u1, u2, _, ok = self._solve(np.array([complex(zq)]))
        if not ok[0]:
            raise ArithmeticError(f"{self.name}: subordination did not converge at y = {zq}")
        u = [mpmath.mpc(complex(u1[0])), mpmath.mpc(complex(u2[0]))]
        lam = to_mp(self._ratio_exact)
        tol = tolerance(dps, _MP_FACTOR)
        inner = inner_dps(dps)
        s = None
        for _ in range(60):
            (g1, d1), (g2, d2) = self._in[0].value_mp(u[0], inner), self._in[1].value_mp(u[1], inner)
            D1 = g1 * (lam * u[0] * g1 + 1 - lam)
            D2 = g2 * (lam * u[1] * g2 + 1 - lam)
            dD1 = d1 * (2 * lam * u[0] * g1 + 1 - lam) + lam * g1 * g1
            dD2 = d2 * (2 * lam * u[1] * g2 + 1 - lam) + lam * g2 * g2
            s = u[0] * g1 + u[1] * g2 - 1
            q = 2 * lam * s + 1 - lam
            f1, f2 = D1 - D2, s * (lam * s + 1 - lam) - zq * D1
            J = mpmath.matrix([[dD1, -dD2], [q * (g1 + u[0] * d1) - zq * dD1, q * (g2 + u[1] * d2)]])
            d = mpmath.lu_solve(J, mpmath.matrix([f1, f2]))
            u = [u[0] - d[0], u[1] - d[1]]
            if abs(d[0]) + abs(d[1]) <= tol * (abs(u[0]) + abs(u[1])):
                break
        (g1, _), (g2, _) = self._in[0].value_mp(u[0], inner), self._in[1].value_mp(u[1], inner)
        val = (u[0] * g1 + u[1] * g2 - 1) / zq
        return mpmath.conj(val) if conj else val

    # ------------------------------------------------------------ moments
    def exact_moments(self, order):
        """m₁..m_order from the rectangular free cumulants (exact where the inputs' moments
        are exact): c(μ ⊞_λ ν) = c(μ) + c(ν)."""
        a = _moments_of(self.mu, order)
        b = _moments_of(self.nu, order)
        lam = self._ratio_exact
        ca = rectangular_cumulants_from_moments(a, lam)
        cb = rectangular_cumulants_from_moments(b, lam)
        return moments_from_rectangular_cumulants([x + y for x, y in zip(ca, cb)], lam)


def _moments_of(law, order):
    try:
        return list(law.exact_moments(order))
    except NotImplementedError:
        return [law.moment(k) for k in range(1, order + 1)]


# --------------------------------------------------------------------------- algebraic
def _fresh_copy(law):
    """The law's polynomial with its rational parameter values substituted exactly and the
    other (transcendental) parameters renamed apart, and their values.

    Rational values go in before the elimination: the rectangular R-relation of, e.g.,
    MP_y is linear only at y = λ, and an elimination generic in y and λ would give a factor
    that splits at the values (a wrong Stieltjes factor)."""
    rational = {s: v for s, v in law.values.items() if getattr(v, "is_Rational", False)}
    P = substitute_polynomial(law.symbolic_polynomial, rational) if rational else \
        law.symbolic_polynomial
    rest = {s: v for s, v in law.values.items() if s not in rational}
    ren = {s: fresh(s.name.rsplit("_", 1)[0]) for s in rest}
    P = rename_symbols(P, ren)
    return P, {ren[s]: v for s, v in rest.items()}


def rectangular_polynomial(P1, P2, ratio):
    """Polynomial of μ ⊞_λ ν from those of μ and ν (exact, FLINT resultant).

    Parameters
    ----------
    P1, P2 : sympy expressions in ``G``, ``z`` and parameter symbols (distinct between them)
    ratio : sympy symbol or exact number, λ

    Returns
    -------
    sympy expression
        The irreducible factor of K(G(λzG + 1 − λ), zG − 1) carrying the Stieltjes branch,
        K(h, c) = Res_{c₁}(K₁(h, c₁), K₂(h, c − c₁)), K_i(h, c) = numerator of
        P_i(h/(λc + 1), (c + 1)(λc + 1)/h) (the rectangular R-relation; Benaych-Georges
        2009), selected by m₁ = a₁ + b₁, m₂ = a₂ + b₂ + 2(1 + λ)a₁b₁.
    """
    lam = sp.sympify(ratio)
    syms = (_exact.free_symbols(P1) | _exact.free_symbols(P2) | lam.free_symbols) - {G, z}
    names = {s.name for s in syms} | {"G", "z", "w", "S", "S_1"}
    ctx = _exact.context(names)
    p1, p2 = _exact.to_flint(P1, ctx), _exact.to_flint(P2, ctx)
    Gv, zv, h, c, c1 = (ctx.gen(ctx.variable_to_index(n)) for n in ("G", "z", "w", "S", "S_1"))
    L = _exact.to_flint(lam, ctx) if lam.free_symbols else None
    if L is None:
        num, den = sp.fraction(sp.nsimplify(lam))
        Ln, Ld = ctx.constant(int(num)), ctx.constant(int(den))
    else:
        Ln, Ld = L, ctx.constant(1)
    one = ctx.constant(1)

    def relation(p, cc):
        # G = h/(λc + 1), z = (c + 1)(λc + 1)/h with λ = Ln/Ld
        lc1 = Ln * cc + Ld  # Ld (λc + 1)
        # no monomial stripping: for δ₀ the relation is c(λc + 1) = 0 and c is its root
        return _exact.subs_rational(p, {"G": (h * Ld, lc1), "z": ((cc + one) * lc1, h * Ld)},
                                    strip_monomials=False)

    k1 = relation(p1, c1)
    k2 = relation(p2, c - c1)
    res = k1.resultant(k2, "S_1")
    # back: h = G(λ z G + 1 − λ), c = zG − 1
    hb = Gv * (Ln * zv * Gv + Ld - Ln)
    back = _exact.subs_rational(res, {"w": (hb, Ld), "S": (zv * Gv - one, one)})
    expr = _exact.to_sympy(back, tuple(syms | {G, z}))
    a1, a2 = series_moments(P1, 2)
    b1, b2 = series_moments(P2, 2)
    return stieltjes_factor(expr, (a1 + b1, a2 + b2 + 2 * (1 + lam) * a1 * b1))


# --------------------------------------------------------------------------- public
def rectangular_free_convolution(mu, nu, ratio, method=None):
    """Rectangular free additive convolution μ ⊞_λ ν of two laws of squared singular values.

    If A, B are n × p matrices (n/p → λ ∈ (0, 1]), asymptotically free in the rectangular
    sense (e.g. independent with one of them bi-orthogonally invariant), and the squared
    singular values of A and B (the n eigenvalues of A Aᵀ, B Bᵀ, zeros included) have the
    limit laws μ and ν, then those of A + B have the limit law μ ⊞_λ ν (Benaych-Georges 2009,
    "Rectangular random matrices, related convolution", PTRF 144, Thm 3.?).

    Parameters
    ----------
    mu, nu : Law
        Laws on [0, ∞) (the squared singular values; e.g. ``MarchenkoPastur(λ)`` for a
        Gaussian n × p matrix with N(0, 1/p) entries, ``PointMass(1)`` for
        sqrt(p)⁻¹[√p I_n, 0]).
    ratio : float in (0, 1], or an exact number
        λ = n/p (rows/columns, n ≤ p).  λ = 1: ⊞ of the symmetrised laws; λ → 0: ⊞ of μ and
        ν themselves (Benaych-Georges 2009, §3.3).
    method : {None, "algebraic", "subordination"}
        ``"algebraic"`` (default when both inputs are :class:`AlgebraicLaw` of small degree):
        exact polynomial by a FLINT resultant on the rectangular R-relations (see
        :func:`rectangular_polynomial`).  ``"subordination"`` (default otherwise): the
        subordination system of :mod:`freeattn.convolution.rectangular`, on-axis limits.

    Returns
    -------
    Law
        An :class:`AlgebraicLaw` or a :class:`RectangularConvolution`, on [0, ∞), mass 1 with
        atoms: (μ ⊞_λ ν)({0}) = max(0, μ({0}) + ν({0}) − 1); at x > 0,
        max(0, μ({x}) + 2ν({0}) − 2) and the same with μ ↔ ν.  Convention: G(y) = ∫ dν(x)/(y − x).

    Raises
    ------
    ParameterError
        For ``ratio`` outside (0, 1] (``.param == "ratio"``), an input with mass on (−∞, 0),
        or a bad ``method``.
    ParameterTypeError
        If ``mu`` or ``nu`` is not a Law.

    Examples
    --------
    >>> from freeattn import MarchenkoPastur
    >>> law = rectangular_free_convolution(MarchenkoPastur(0.5), MarchenkoPastur(0.5), 0.5)
    >>> round(law.mean(), 12)        # D_2 MP_{1/2}: Gaussian variances add
    2.0
    """
    declare((_MU, _NU, _RATIO), mu=mu, nu=nu, ratio=ratio)
    ratio_x = _exact_value(ratio, "ratio")
    for name, law in (("mu", mu), ("nu", nu)):
        lo, _ = hull(law)
        if lo < -_NEGATIVE_TOL:
            raise ParameterError(name, f"{name} must be a law of squared singular values "
                                       f"(supported on [0, ∞)); its support starts at {lo:g}")
    if method not in (None,) + METHODS:
        raise ParameterError("method", f"method must be one of {METHODS!r} or None, got {method!r}")
    algebraic_inputs = isinstance(mu, AlgebraicLaw) and isinstance(nu, AlgebraicLaw)
    if method == "algebraic" and not algebraic_inputs:
        raise ParameterError("method", "method='algebraic' needs AlgebraicLaw inputs; use "
                                       "method='subordination'")
    if method is None:
        method = "algebraic" if algebraic_inputs and _small(mu) and _small(nu) else "subordination"
    name = f"({mu.name}) ⊞_{float(ratio_x):g} ({nu.name})"
    if method == "algebraic":
        P1, v1 = _fresh_copy(mu)
        P2, v2 = _fresh_copy(nu)
        P = rectangular_polynomial(P1, P2, ratio_x)
        return AlgebraicLaw(P, {**v1, **v2}, name=name)
    return RectangularConvolution(mu, nu, ratio_x, name=name)


#: the default route is algebraic only below this degree of P in G and z (beyond it the
#: eliminant's discriminant is too large for a fast law)
_SMALL_DEGREE = 3


def _small(law):
    P = sp.Poly(law.symbolic_polynomial, G, z)
    return max(P.degree(G), P.degree(z)) <= _SMALL_DEGREE


boxplus_rectangular = rectangular_free_convolution
