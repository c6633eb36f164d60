"""The monotone pieces of a polynomial map φ on the support of μ, and the push-forward φ#μ's
density, cdf and sf as μ-masses between the preimages of y (float64 and at ``dps``): the
mixin :class:`PushforwardPieces` of :class:`freeattn.laws.base.Transformed`, which hands it μ
(``law``), φ's coefficients (``_c``, ``coefficients``) and φ itself (``_phi``, ``_phi_mp``,
``_critical_points``).  Each mass is read from μ's own cdf or sf, from the end it touches, so
ν's tails keep μ's relative accuracy (issue 21 item 1)."""
from __future__ import annotations

import math

import mpmath
import numpy as np

from .._context import FLOAT_EPS, TINY, inner_dps, mp_route, tolerance

__all__ = ["PushforwardPieces"]

#: steps of the safeguarded Newton iteration for φ(x) = y on a monotone piece of φ (long
#: double): each step at worst bisects the bracket, and a long double bracket of any width
#: closes to its ulp well within this many
_PIECE_STEPS = 200
#: the iteration stops when the step is below this many long double ulps of x
_PIECE_STEP_ULPS = 4
#: the μ-mass of a short interval [e, r] at the end e of a monotone piece is a Gauss–Legendre
#: sum of μ's density (not a difference of μ's cdf values, which cancels where μ's cdf at e is
#: not 0: at a critical point of φ inside μ's support, or next to an atom of μ) when
#: |r − e| is at most this fraction of the distance from e to the next singular point of
#: μ's density (its support ends): the density is then analytic on a Bernstein ellipse of
#: parameter > 40 about the interval, and the sum exact to rounding
_SHORT_FRACTION = 0.05
#: nodes of that Gauss–Legendre sum, and of the coarser one that estimates its error; the
#: sum replaces the cdf difference where its estimated error (the two rules' difference, plus
#: the rounding of its nodes to doubles next to μ's end: ``_NODE_ROUNDING`` × spacing(e)/|r − e|,
#: relative) is below the difference's (FLOAT_EPS × μ's cdf there)
_SHORT_NODES = 20
_SHORT_CHECK_NODES = 10
#: relative error of the substituted sum per unit spacing(e)/|r − e| (a node x = e + h s² rounds
#: by half an ulp of e: relative error ulp/(4 h s²) of a square-root density, weighted ∝ s²
#: by the rule, 3/2 × ulp/h in all)
_NODE_ROUNDING = 1.5
#: next to an end e of μ's support from which μ's cdf (sf) is measured, the mass of [e, r] is
#: μ's value at the double r nearest the long double root plus ρ_μ(r)·(root − r) (first
#: order in the rounding of the root) where the rounding would cost more than this, relative
#: (spacing(r) > this × |r − e|): the tail of ν then keeps μ's accuracy rather than the
#: ulp(e)/|r − e| of a double preimage.  Where it applies, one ulp of r moves the mass by
#: ≥ 1/(this × FLOAT_EPS) ≈ 4096 of its ulps, so the correction keeps the cdf monotone
_ROUNDING_RTOL = 2.0 ** -40
#: dps routes: rounds of the cdf/sf evaluation, each at the digits the last one reported lost
_MP_REPEATS = 4


class PushforwardPieces:
    """φ#μ from the monotone pieces of φ on μ's support (a part of ``Transformed``)."""

    def _pieces(self):
        """The monotone pieces of φ on μ's support (float64, cached): a tuple of
        ``(u, v, sign, lo, hi, a, b)`` per piece [u, v] of the support interval [a, b] of μ cut
        at the real critical points of φ inside it, sign +1 where φ increases, (lo, hi) =
        φ([u, v]) (the same float64 values :meth:`_support` takes); None when μ's support is
        unbounded (the generic routes are used then)."""
        cache = self._cache()
        if "pieces" not in cache:
            support = self.law.support()
            if any(not (math.isfinite(a) and math.isfinite(b)) for a, b in support):
                cache["pieces"] = None
            else:
                crit = self._critical_points(None)
                pieces = []
                for a, b in support:
                    a, b = float(a), float(b)
                    pts = [a] + [c for c in crit if a < c < b] + [b]
                    for u, v in zip(pts[:-1], pts[1:]):
                        fu, fv = (float(t) for t in self._phi(np.array([u, v])))
                        if fu != fv:
                            pieces.append((u, v, 1 if fv > fu else -1, min(fu, fv), max(fu, fv),
                                           a, b))
                cache["pieces"] = tuple(pieces)
        return cache["pieces"]

    def _taylor(self, e):
        """Coefficients of φ(e + s) in s (long double, cached per point e): φ⁽ᵏ⁾(e)/k!, so that
        φ next to a critical point e is evaluated without the cancellation of the monomial
        basis (φ = (x − 1)² at x = 1 + 1e-10 loses 1e-19 absolute there, all of y = 1e-20)."""
        memo = self._cache().setdefault("taylor", {})
        if e not in memo:
            ld = np.longdouble
            c = self._c.astype(ld)
            out, fact = [], ld(1)
            for k in range(len(c)):
                if k:
                    c = np.polynomial.polynomial.polyder(c)
                    fact *= k
                out.append(np.polynomial.polynomial.polyval(ld(e), c) / fact)
            memo[e] = np.array(out, dtype=ld)
        return memo[e]

    def _piece_roots(self, y, u, v, sign):
        """The x in [u, v] with φ(x) = y on the monotone piece [u, v] (``sign`` +1: φ
        increasing), for each y of the float array ``y`` inside φ's range there.

        Solved for the distance s = |x − e| ≥ 0 from the end e of the piece nearer to y in
        φ-value, with φ(e ± s) in its Taylor coefficients at e (:meth:`_taylor`), by Newton's
        method in long double safeguarded by the bracket [0, v − u] (a bisection wherever a
        step leaves it or does not halve the last one), started at the smallest
        s_k = (|y − φ(e)| / |φ⁽ᵏ⁾(e)/k!|)^(1/k): a root next to a critical end (a double root of
        φ − y) starts at its scale and keeps its relative accuracy in s.

        Returns (x, φ′(x), e, s): x = e ± s and φ′ in long double, e (float) and s per y."""
        ld = np.longdouble
        yy = np.asarray(y, dtype=ld)
        tu, tv = self._taylor(u), self._taylor(v)
        near_v = np.abs(yy - tv[0]) < np.abs(yy - tu[0])
        e = np.where(near_v, v, u)
        direction = np.where(near_v, ld(-1), ld(1))        # x = e + direction · s
        coef = np.where(near_v[None, :], tv[:, None], tu[:, None])   # (n + 1, len(y))
        # signed Taylor coefficients in s: φ(e + direction s) − y = Σ_k coef_k direction^k s^k
        powers = direction[None, :] ** np.arange(len(tu), dtype=ld)[:, None]
        b = coef * powers
        b[0] = b[0] - yy
        # the orientation: g(s) = orient · (φ(e + direction s) − y) increases with s
        orient = sign * direction
        db = b[1:] * np.arange(1, len(tu), dtype=ld)[:, None]
        width = ld(v) - ld(u)
        lo, hi = np.zeros(yy.shape, dtype=ld), np.full(yy.shape, width)
        dy = np.abs(b[0])
        s = np.full(yy.shape, width)
        for k in range(1, len(tu)):
            with np.errstate(all="ignore"):
                step = (dy / np.abs(b[k])) ** (ld(1) / k)
            s = np.where(np.isfinite(step) & (step < s), step, s)
        s = np.where((s > lo) & (s < hi), s, (lo + hi) / 2)
        last = hi - lo
        eps = np.finfo(ld).eps
        todo = np.arange(yy.size)

        def horner(cf, t):
            out = np.zeros(t.shape, dtype=ld)
            for row in cf[::-1]:
                out = out * t + row
            return out

        for _ in range(_PIECE_STEPS):
            if not todo.size:
                break
            sa = s[todo]
            g = orient[todo] * horner(b[:, todo], sa)
            d = orient[todo] * horner(db[:, todo], sa)
            right = g < 0  # the root lies beyond sa
            lo[todo] = np.where(right, sa, lo[todo])
            hi[todo] = np.where(right, hi[todo], sa)
            with np.errstate(all="ignore"):
                sn = sa - g / d
            mid = (lo[todo] + hi[todo]) / 2
            newton = (d > 0) & np.isfinite(sn) & (sn >= lo[todo]) & (sn <= hi[todo]) \
                & (2 * np.abs(sn - sa) <= last[todo])
            snew = np.where(g == 0, sa, np.where(newton, sn, mid))
            step = np.abs(snew - sa)
            last[todo] = step
            s[todo] = snew
            scale = np.maximum(np.abs(snew), ld(TINY))
            done = (g == 0) | (step <= _PIECE_STEP_ULPS * eps * scale) \
                | (hi[todo] - lo[todo] <= _PIECE_STEP_ULPS * eps * scale)
            todo = todo[~done]
        x = e.astype(ld) + direction * s
        dphi = horner(db, s) * direction
        return x, dphi, e, s

    def _continuous_partial(self, x, upper):
        """μ's continuous part below x (μ((−∞, x]) minus its atoms there), or with ``upper``
        above x (μ((x, ∞)) minus its atoms there): from μ's own cdf/sf (float64 array)."""
        x = np.asarray(x, dtype=float)
        out = np.asarray(self.law.sf(x) if upper else self.law.cdf(x), dtype=float).copy()
        for a, w in self.law.atoms():
            out -= np.where(x < a, w, 0.0) if upper else np.where(x >= a, w, 0.0)
        return np.maximum(out, 0.0)

    def _partial_float(self, y, upper):
        """cdf_ν(y) = μ{φ ≤ y} (sf with ``upper``: μ{φ > y}) as μ-masses between the
        preimages of y: the atoms of ν, plus on each monotone piece [u, v] of φ the μ-mass of
        the part of it mapped below (above) y, an interval [u, r] or [r, v] at the root r of
        φ(r) = y.  The mass of an interval next to u is read from μ's cdf, next to v from μ's
        sf (each from its own end: the tails of ν keep μ's relative accuracy where the end is
        one of μ's), so every term is monotone in y and cdf and sf inherit μ's accuracy.

        Where that difference would cancel (the interval's end e is a critical point of φ
        inside μ's support, a local extremum of φ whose neighbourhood is a tail of ν; or an end
        of μ where μ's cdf or sf is not 0, an atom of μ before it) and |r − e| is short
        (``_SHORT_FRACTION``), the mass is a Gauss–Legendre sum of μ's density
        (:meth:`_short_mass`) wherever its error estimate is the smaller.  Next to an end of μ
        from which μ's cdf or sf is measured, the rounding of the long double root to a double
        is corrected to first order (``_ROUNDING_RTOL``)."""
        y = np.asarray(y, dtype=float)
        out = np.zeros(y.shape)
        for loc, w in self._atoms(None):
            out += np.where(y < loc, w, 0.0) if upper else np.where(y >= loc, w, 0.0)
        ends = self._cache().setdefault("piece_ends", {})
        for u, v, sign, lo, hi, a, b in self._pieces():
            # the part {φ ≤ y} (upper: {φ > y}) of the piece is [u, r] when it touches u
            at_u = (sign > 0) != upper
            key = (u, v, at_u)
            if key not in ends:
                uv = np.array([u, v])
                # μ's continuous part below (above) u and v, and μ's whole cdf (sf) at the end
                # the part touches: not 0 there (an atom or an earlier interval of μ, or a
                # critical point inside μ's support), the cdf difference cancels
                ends[key] = (tuple(self._continuous_partial(uv, not at_u)),
                             float((self.law.cdf(u) if at_u else self.law.sf(v))))
            (cu, cv), raw = ends[key]
            full = (y >= hi) if not upper else (y <= lo)
            out[full] += (cv - cu) if at_u else (cu - cv)
            inside = (y > lo) & (y < hi)
            if np.any(inside):
                x, _, near, dist = self._piece_roots(y[inside], u, v, sign)
                r = np.clip(x.astype(float), u, v)
                if at_u:
                    term = np.maximum(self._continuous_partial(r, False) - cu, 0.0)
                else:
                    term = np.maximum(self._continuous_partial(r, True) - cv, 0.0)
                e = u if at_u else v
                if e not in (a, b):    # a critical point of φ inside μ's support
                    reach, substitute = min(e - a, b - e), False
                elif raw > 0:          # μ's end, where μ's cdf (sf) is not 0: an atom or an interval before
                    reach, substitute = b - a, True
                else:                  # μ's end from which μ's cdf (sf) is measured: no cancellation
                    reach = None
                    off = (x - r.astype(np.longdouble)).astype(float)
                    fix = (np.spacing(np.abs(r)) > _ROUNDING_RTOL * np.abs(r - e)) & (r != e)
                    if np.any(fix):
                        rho = np.asarray(self.law.pdf(r[fix]), dtype=float)
                        d = np.where(np.isfinite(rho), rho * off[fix], 0.0)
                        term[fix] = np.maximum(term[fix] + (d if at_u else -d), 0.0)
                if reach is not None:
                    # |r − e| from the root's own distance to its nearer end where that is e
                    h = np.where(near == e, dist, np.abs(x - np.longdouble(e))).astype(float)
                    short = h <= _SHORT_FRACTION * reach
                    if np.any(short):
                        q, err = self._short_mass(e, 1.0 if at_u else -1.0, h[short], substitute)
                        better = err < FLOAT_EPS * (raw + term[short])
                        term[short] = np.where(better, q, term[short])
                out[inside] += term
        lo_all, hi_all = self.hull()
        out = np.clip(out, 0.0, 1.0)
        out[y >= hi_all] = 0.0 if upper else 1.0
        out[y < lo_all] = 1.0 if upper else 0.0
        return out

    def _short_mass(self, e, direction, h, substitute):
        """∫ ρ_μ over [e, e + h] (``direction`` +1) or [e − h, e] (−1) for each h of the float
        array ``h``, by Gauss–Legendre sums of μ's density (x = e ± h s² with ``substitute``,
        at an end of μ's support: the integrand is then smooth at a square-root or
        inverse-square-root edge).  Returns (value, estimated absolute error): the difference
        of the ``_SHORT_NODES`` and ``_SHORT_CHECK_NODES`` rules, plus with ``substitute`` the
        rounding of the nodes next to e (``_NODE_ROUNDING``); inf where not finite."""
        out = []
        for n in (_SHORT_NODES, _SHORT_CHECK_NODES):
            t, w = np.polynomial.legendre.leggauss(n)
            t, w = (t + 1) / 2, w / 2
            if substitute:
                nodes, weights = t ** 2, 2 * t * w
            else:
                nodes, weights = t, w
            xs = e + direction * h[:, None] * nodes[None, :]
            rho = np.asarray(self.law.pdf(xs.reshape(-1)), dtype=float).reshape(xs.shape)
            out.append(h * (rho * weights[None, :]).sum(axis=1))
        fine, coarse = out
        with np.errstate(all="ignore"):
            err = np.abs(fine - coarse)
            if substitute:
                err = err + _NODE_ROUNDING * np.spacing(abs(e)) / h * np.abs(fine)
        return fine, np.where(np.isfinite(fine) & np.isfinite(err), err, np.inf)

    def _pdf_pieces_float(self, y):
        """Σ over the monotone pieces of φ of ρ_μ(r)/|φ′(r)| at the root r of φ(r) = y there."""
        y = np.asarray(y, dtype=float)
        out = np.zeros(y.shape)
        for u, v, sign, lo, hi, a, b in self._pieces():
            inside = (y > lo) & (y < hi)
            if np.any(inside):
                r, d = self._piece_roots(y[inside], u, v, sign)[:2]
                rho = np.asarray(self.law.pdf(np.clip(r.astype(float), u, v)), dtype=float)
                with np.errstate(all="ignore"):
                    out[inside] += np.where(rho > 0, rho / np.abs(d).astype(float), 0.0)
        return out

    def _mp_pieces(self, d):
        """The monotone pieces of φ at ``d`` digits (the working precision): ``(u, v, sign, lo,
        hi, a, b)`` as in :meth:`_pieces`, from μ's support and φ's critical points at d."""
        crit = self._critical_points(d)
        pieces = []
        for a, b in self.law.support(d):
            a, b = mpmath.mpf(a), mpmath.mpf(b)
            pts = [a] + [c for c in crit if a < c < b] + [b]
            for u, v in zip(pts[:-1], pts[1:]):
                fu, fv = self._phi_mp(u), self._phi_mp(v)
                if fu != fv:
                    pieces.append((u, v, 1 if fv > fu else -1, min(fu, fv), max(fu, fv), a, b))
        return pieces

    def _taylor_mp(self, e):
        """φ⁽ᵏ⁾(e)/k! at the working precision (the coefficients' binary values, exact)."""
        c = [mpmath.mpf(float(ck)) for ck in self.coefficients]
        n = len(c) - 1
        return [mpmath.fsum(mpmath.binomial(j, k) * c[j] * e ** (j - k) for j in range(k, n + 1))
                for k in range(n + 1)]

    def _piece_root_mp(self, y, u, v, sign):
        """The x in [u, v] with φ(x) = y on a monotone piece at the working precision, as
        :meth:`_piece_roots` (the distance s from the nearer end e, Newton safeguarded by the
        bracket, in φ's Taylor coefficients at e).  Returns (x, φ′(x), e, s)."""
        tu, tv = self._taylor_mp(u), self._taylor_mp(v)
        near_v = abs(y - tv[0]) < abs(y - tu[0])
        e, t, direction = (v, tv, -1) if near_v else (u, tu, 1)
        b = [tk * direction ** k for k, tk in enumerate(t)]
        b[0] -= y
        db = [k * bk for k, bk in enumerate(b)][1:]
        orient = sign * direction
        width = v - u
        lo, hi = mpmath.mpf(0), width
        s = width
        for k in range(1, len(b)):
            if b[k] != 0:
                s = min(s, (abs(b[0]) / abs(b[k])) ** (mpmath.mpf(1) / k))
        if not (lo < s < hi):
            s = (lo + hi) / 2
        last = hi - lo
        eps = tolerance(mpmath.mp.dps)
        for _ in range(_PIECE_STEPS):
            g = orient * mpmath.polyval(b[::-1], s)
            d = orient * mpmath.polyval(db[::-1], s)
            if g == 0:
                break
            if g < 0:
                lo = s
            else:
                hi = s
            sn = s - g / d if d > 0 else None
            if sn is None or not (lo <= sn <= hi) or 2 * abs(sn - s) > last:
                sn = (lo + hi) / 2
            step = abs(sn - s)
            last, s = step, sn
            if step <= _PIECE_STEP_ULPS * eps * max(abs(s), mpmath.mpf(TINY)) \
                    or hi - lo <= _PIECE_STEP_ULPS * eps * max(abs(s), mpmath.mpf(TINY)):
                break
        return e + direction * s, direction * mpmath.polyval(db[::-1], s), e, s

    def _partial_mp_at(self, y, d, upper):
        """cdf (sf with ``upper``) at y as :meth:`_partial_float`, at the working precision of
        ``d`` digits with μ's routes at d, and the digits it lost: to the cancellation of a cdf
        difference (log10 of μ's value over the mass) and to the rounding of a root next to
        the end it is measured from (log10 |r| / |r − e|)."""
        atoms = self.law.atoms(d)
        total = mpmath.fsum(w for a, w in self._atoms(d) if (a > y if upper else a <= y))
        lost = 0

        def continuous(x, up):
            whole = self.law.sf(x, dps=d) if up else self.law.cdf(x, dps=d)
            return whole - mpmath.fsum(w for a, w in atoms if (a > x if up else a <= x))

        for u, v, sign, lo, hi, a, b in self._mp_pieces(d):
            at_u = (sign > 0) != upper
            if at_u:
                base, raw = continuous(u, False), self.law.cdf(u, dps=d)
            else:
                base, raw = continuous(v, True), self.law.sf(v, dps=d)
            if (y >= hi) if not upper else (y <= lo):
                total += (continuous(v, False) if at_u else continuous(u, True)) - base
            elif lo < y < hi:
                x, _, e, s = self._piece_root_mp(y, u, v, sign)
                term = max((continuous(x, False) if at_u else continuous(x, True)) - base, 0)
                end = u if at_u else v
                dist = s if e == end else abs(x - end)
                # all of it cancelled: the mass estimated as ρ_μ(x)·|x − e| (the interior of
                # μ's support), or the digits doubled where μ's density there is 0
                guess = term if term > 0 else self.law.pdf(x, dps=d) * dist
                if guess > 0:
                    lost = max(lost, int(mpmath.ceil(mpmath.log10((raw + guess) / guess)))
                               + int(mpmath.ceil(mpmath.log10(max(abs(x), dist) / dist))))
                elif raw > 0:
                    lost = max(lost, d)
                total += term
        return min(max(total, 0), 1), lost

    @mp_route
    def _partial_mp(self, y, dps, upper):
        """cdf/sf at ``dps`` digits: :meth:`_partial_mp_at` at the working precision, repeated
        (at most ``_MP_REPEATS`` times) with the digits it reports lost added."""
        lo_all, hi_all = self.hull(inner_dps(dps))
        if y >= hi_all:
            return mpmath.mpf(0) if upper else mpmath.mpf(1)
        if y < lo_all:
            return mpmath.mpf(1) if upper else mpmath.mpf(0)
        d = inner_dps(dps)
        extra = 0
        for _ in range(_MP_REPEATS):
            with mpmath.workdps(d + extra):
                val, lost = self._partial_mp_at(y, d + extra, upper)
            if lost <= extra:
                break
            extra = lost
        return val

    @mp_route
    def _pdf_pieces_mp(self, y, dps):
        d = inner_dps(dps)
        total = mpmath.mpf(0)
        for u, v, sign, lo, hi, a, b in self._mp_pieces(d):
            if lo < y < hi:
                x, dphi, _, _ = self._piece_root_mp(y, u, v, sign)
                rho = self.law.pdf(x, dps=d)
                if rho > 0:
                    total += rho / abs(dphi)
        return total
