"""Discrete laws Σ_i w_i δ_{a_i}: exact Cauchy transform, atoms, cdf and quantiles."""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np

from .._context import TINY, mp_route
from .._validation import Param, dps_or_none
from .base import Law

__all__ = ["Discrete"]

#: pair (point, atom) budget of one block of the direct sum (keeps the temporaries in cache)
_BLOCK = 1 << 15
#: the tree code of :class:`_CauchySum` serves calls with at least this many atoms and this
#: many (point, atom) pairs (below, its fixed cost of a few ms exceeds the direct sum's)
_TREE_MIN_ATOMS = 512
_TREE_MIN_PAIRS = 400_000
#: atoms per leaf of the tree
_LEAF = 32
#: Laurent terms per cluster and the acceptance ratio R/|z − c| ≤ _RHO: the truncation error
#: of a cluster of weight W is ≤ W ρ^p/((1 − ρ)|z − c|) for G and ≤ W (p + 1) ρ^p/((1 − ρ)²
#: |z − c|²) for G′, i.e. ≤ 3e-18 and ≤ 4e-16 relative to Σ w_i/|z − a_i| and Σ w_i/|z − a_i|²
_TERMS = 44
_RHO = 0.4
#: geometric bisection steps of the per-order ratio thresholds of :func:`_order_thresholds`
#: (from TINY to ρ, a factor e^690: 690/2^64 ≈ 4e-17 relative, a float64's resolution)
_THRESHOLD_BISECTIONS = 64
#: bits of a float64 mantissa: a float atom or weight converts to mpmath exactly at this precision
_FLOAT64_BITS = 53


def _direct_block(x, y, a, w):
    """(G, G′) of Σ w_j/(z − a_j) at z = x + iy (x, y of shape (m,); a, w of shape (m, L) or
    (L,); no z equal to an atom) in real arithmetic: with d = x − a, q = 1/(d² + y²),
    G = Σ w d q − i y Σ w q and G′ = −Σ w/(z − a)² = −Σ w q + 2y² Σ w q² + 2i y Σ w d q²
    (using d² q = 1 − y² q).  The sums are ``einsum`` loops, not BLAS: the threaded BLAS
    matrix–vector product costs up to 10× more on a busy machine (thread start-up)."""
    d = x[:, None] - a
    sub = "ij,j->i" if w.ndim == 1 else "ij,ij->i"
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        q = d * d
        q += (y * y)[:, None]
        np.reciprocal(q, out=q)
        gq = np.einsum(sub, q, w)
        d *= q
        gs = np.einsum(sub, d, w)
        d *= q
        gsq = np.einsum(sub, d, w)
        q *= q
        gqq = np.einsum(sub, q, w)
        g = gs - 1j * (y * gq)
        dg = (2 * y * y * gqq - gq) + 2j * (y * gsq)
    bad = ~(np.isfinite(g) & np.isfinite(dg))
    if np.any(bad):
        # |z − a_j|² under- or overflows (z within ~1e-154 of an atom): complex division
        # there, exact to 1e-308 (G = ∞, G′ = −∞ on an atom itself)
        zb = x[bad] + 1j * y[bad]
        ab = a if a.ndim == 1 else a[bad]
        wb = w if w.ndim == 1 else w[bad]
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            r = 1.0 / (zb[:, None] - ab)
            gb = np.einsum(sub, r, wb)
            dgb = -np.einsum(sub, r * r, wb)
        on_atom = np.isinf(r).any(axis=1)
        gb[on_atom], dgb[on_atom] = np.inf, -np.inf
        g[bad], dg[bad] = gb, dgb
    return g, dg


@functools.lru_cache(maxsize=None)
def _order_thresholds():
    """r_p for p = 1 … :data:`_TERMS`: the largest ratio r = R/|z − c| at which p Laurent
    terms keep both truncation bounds of :data:`_TERMS` terms at r = :data:`_RHO`, i.e.
    r^p/(1 − r) ≤ ρ^P/(1 − ρ) (G) and (p + 1) r^p/(1 − r)² ≤ (P + 1) ρ^P/(1 − ρ)² (G′),
    P = :data:`_TERMS`; both sides increase with r, so each r_p is found by bisection
    (r_P = ρ).  A cluster accepted at ratio r needs the least p with r ≤ r_p.  Computed once
    (the array is shared: read only)."""
    P, rho = _TERMS, _RHO
    p = np.arange(1, P + 1, dtype=float)
    lg = P * math.log(rho) - math.log1p(-rho)
    ld = math.log(P + 1) + P * math.log(rho) - 2 * math.log1p(-rho)
    lo, hi = np.full(P, TINY), np.full(P, rho)
    for _ in range(_THRESHOLD_BISECTIONS):
        r = np.sqrt(lo * hi)  # geometric: r_1 ≈ 5e-18 to full relative accuracy too
        lr = np.log(r)
        ok = (p * lr - np.log1p(-r) <= lg) & (np.log(p + 1) + p * lr - 2 * np.log1p(-r) <= ld)
        lo, hi = np.where(ok, r, lo), np.where(ok, hi, r)
    lo[-1] = rho
    lo.flags.writeable = False
    return lo


class _CauchySum:
    """G(z) = Σ_j w_j/(z − a_j) and G′(z) together, at many points, for many atoms.

    Up to :data:`_TREE_MIN_ATOMS` atoms: the direct sum in real arithmetic, in blocks of
    :data:`_BLOCK` pairs (matrix–vector products for the sums).  Above: a one-dimensional tree
    code (Barnes & Hut 1986; the Laurent expansions of Greengard & Rokhlin's fast multipole
    method, 1987, without the local expansions): the sorted atoms are cut into leaves of
    :data:`_LEAF`, merged pairwise up to one root; each cluster of centre c and radius R keeps
    its moments μ_k = Σ w_j (a_j − c)^k, k < p (leaves directly, parents by the binomial
    shift), and contributes Σ_k μ_k/(z − c)^{k+1} wherever R ≤ ρ|z − c|; clusters too close
    are opened, leaves too close summed directly.  Cost O(log n) expansions + O(1) leaves per
    point instead of n atoms; truncation error stated at :data:`_TERMS` (below rounding).

    Points on an atom (y = 0, x = a_j) give G = ∞ and G′ = −∞; infinite points give 0.
    """

    def __init__(self, points, weights):
        self.a = np.ascontiguousarray(points, dtype=float)
        self.w = np.ascontiguousarray(weights, dtype=float)
        self.n = self.a.size
        self._tree = None
        self._flat = None
        self._last = None

    # ---------------------------------------------------------- tree
    def _build(self):
        a, w, n, p = self.a, self.w, self.n, _TERMS
        nleaf = -(-n // _LEAF)
        pad = nleaf * _LEAF - n
        A = np.concatenate([a, np.full(pad, a[-1])]).reshape(nleaf, _LEAF)
        W = np.concatenate([w, np.zeros(pad)]).reshape(nleaf, _LEAF)
        lo, hi = A[:, 0], A[:, -1]
        c = 0.5 * (lo + hi)
        R = 0.5 * (hi - lo)
        d = A - c[:, None]
        mom = np.empty((nleaf, p))
        pw = W.copy()
        for k in range(p):
            mom[:, k] = pw.sum(axis=1)
            pw *= d
        levels = [(c, R, mom)]
        binom = np.array([[math.comb(k, j) for j in range(p)] for k in range(p)], dtype=float)
        while levels[-1][0].size > 1:
            c0, R0, m0 = levels[-1]
            nc = c0.size
            np_ = -(-nc // 2)
            left = np.arange(np_) * 2
            right = np.minimum(left + 1, nc - 1)
            lo_p = np.minimum(c0[left] - R0[left], c0[right] - R0[right])
            hi_p = np.maximum(c0[left] + R0[left], c0[right] + R0[right])
            cp = 0.5 * (lo_p + hi_p)
            Rp = 0.5 * (hi_p - lo_p)
            mp_ = self._shift(m0[left], c0[left] - cp, binom)
            has_right = right != left
            mp_[has_right] += self._shift(m0[right[has_right]], c0[right[has_right]] - cp[has_right], binom)
            levels.append((cp, Rp, mp_))
        self._tree = (A, W, levels[::-1])  # root first

    @staticmethod
    def _shift(m, delta, binom):
        """Moments about c_child → about c_parent (delta = c_child − c_parent):
        Σ w (a − c_p)^k = Σ_j C(k, j) μ_j δ^{k−j}."""
        p = m.shape[1]
        dp = np.ones((delta.size, p))
        for e in range(1, p):
            dp[:, e] = dp[:, e - 1] * delta
        out = np.empty_like(m)
        for k in range(p):
            out[:, k] = (m[:, :k + 1] * dp[:, k::-1] * binom[k, :k + 1]).sum(axis=1)
        return out

    def _tree_eval(self, z):
        if self._tree is None:
            self._build()
        A, W, levels = self._tree
        if self._flat is None:
            offs = np.cumsum([0] + [lv[0].size for lv in levels])
            self._flat = (offs, np.ascontiguousarray(np.concatenate([lv[2] for lv in levels]).T),
                          np.concatenate([lv[1] for lv in levels]), _order_thresholds())
        offs, allmomT, allR, thr = self._flat
        m = z.size
        g = np.zeros(m, dtype=complex)
        dg = np.zeros(m, dtype=complex)
        pt = np.arange(m)
        cl = np.zeros(m, dtype=np.intp)
        acc_pt, acc_cl, acc_t = [], [], []
        for depth, (c, R, _) in enumerate(levels):
            t = z[pt] - c[cl]
            acc = R[cl] <= _RHO * np.abs(t)
            if np.any(acc):
                acc_pt.append(pt[acc])
                acc_cl.append(cl[acc] + offs[depth])
                acc_t.append(t[acc])
                keep = ~acc
                pt, cl = pt[keep], cl[keep]
            if pt.size == 0 or depth + 1 == len(levels):
                break
            nxt = levels[depth + 1][0].size
            right = 2 * cl + 1
            ok = right < nxt
            pt = np.concatenate([pt, pt[ok]])
            cl = np.concatenate([2 * cl, right[ok]])
        if acc_pt:
            # all accepted clusters of all levels in one Horner pass, each with the fewest
            # terms p that keep the stated truncation bounds at its own ratio r = R|u|
            # (:func:`_order_thresholds`; p = _TERMS at r = ρ, a few far away), the pairs
            # sorted by p so that term k is a prefix: Q = Σ_{k<p} μ_k u^k and Q′ by Horner,
            # G += u Q, G′ −= u² (Q + u Q′)
            u = 1.0 / np.concatenate(acc_t)
            ca = np.concatenate(acc_cl)
            order = np.minimum(np.searchsorted(thr, allR[ca] * np.abs(u)), _TERMS - 1)
            srt = np.argsort(-order, kind="stable")
            pa, u, ca = np.concatenate(acc_pt)[srt], u[srt], ca[srt]
            count = np.searchsorted(-order[srt], -np.arange(_TERMS), side="right")
            q = np.zeros(pa.size, dtype=complex)
            dq = np.zeros(pa.size, dtype=complex)
            for k in range(_TERMS - 1, -1, -1):
                c = count[k]
                if c == 0:
                    continue
                dk, qk, uk = dq[:c], q[:c], u[:c]
                dk *= uk
                dk += qk
                qk *= uk
                qk += allmomT[k].take(ca[:c])
            self._accumulate(g, pa, u * q)
            dq *= u
            dq += q
            dq *= u * u
            self._accumulate(dg, pa, -dq)
        if pt.size == 0:
            return g, dg
        # leaves left: direct sums, in blocks of pairs
        step = max(1, _BLOCK // _LEAF)
        for i in range(0, pt.size, step):
            pb, cb = pt[i:i + step], cl[i:i + step]
            gb, db = _direct_block(z.real[pb], z.imag[pb], A[cb], W[cb])
            self._accumulate(g, pb, gb)
            self._accumulate(dg, pb, db)
        return g, dg

    @staticmethod
    def _accumulate(out, idx, val):
        m = out.size
        out += np.bincount(idx, weights=val.real, minlength=m) + 1j * np.bincount(idx, weights=val.imag, minlength=m)

    # ---------------------------------------------------------- front
    def both(self, z):
        """(G(z), G′(z)) for a complex array ``z`` (any shape); the last result is kept, so
        that G′ right after G at the same points costs nothing."""
        z = np.asarray(z, dtype=complex)
        last = self._last
        if last is not None and last[0].shape == z.shape and np.array_equal(last[0], z):
            return last[1], last[2]
        flat = z.reshape(-1)
        g = np.zeros(flat.shape, dtype=complex)
        dg = np.zeros(flat.shape, dtype=complex)
        fin = np.isfinite(flat)
        nan = np.isnan(flat.real) | np.isnan(flat.imag)
        hit = fin & (flat.imag == 0)
        if np.any(hit):
            k = np.searchsorted(self.a, flat.real[hit])
            k = np.minimum(k, self.n - 1)
            on = self.a[k] == flat.real[hit]
            idx = np.flatnonzero(hit)[on]
            hit[:] = False
            hit[idx] = True
        todo = fin & ~hit
        zz = flat[todo]
        if zz.size:
            if self.n < _TREE_MIN_ATOMS or zz.size * self.n < _TREE_MIN_PAIRS:
                gv = np.empty(zz.size, dtype=complex)
                dv = np.empty(zz.size, dtype=complex)
                step = max(1, _BLOCK // self.n)
                for i in range(0, zz.size, step):
                    gv[i:i + step], dv[i:i + step] = _direct_block(
                        zz.real[i:i + step], zz.imag[i:i + step], self.a, self.w)
            else:
                gv, dv = self._tree_eval(zz)
            g[todo], dg[todo] = gv, dv
        g[hit] = complex(np.inf, 0)
        dg[hit] = complex(-np.inf, 0)
        g[nan] = dg[nan] = complex(np.nan, np.nan)
        g, dg = g.reshape(z.shape), dg.reshape(z.shape)
        self._last = (z.copy(), g, dg)
        return g, dg


class Discrete(Law):
    """The discrete law μ = Σ_i w_i δ_{a_i}.

    Parameters
    ----------
    points : array_like of float, shape (n,)
        Atom locations a_i (finite; repeated points are merged, their weights added).
    weights : array_like of float, shape (n,), optional
        w_i ≥ 0 summing to 1 (to 1e-9; nothing is renormalised); default 1/n each.

    Notes
    -----
    G(z) = Σ_i w_i/(z − a_i) exactly, G′(z) = −Σ_i w_i/(z − a_i)² (float64: both in one
    pass, directly for few atoms, by a tree code of Laurent expansions for many, truncation
    ≤ 4e-16 relative to Σ w_i/|z − a_i|^k, see :class:`_CauchySum`); no density (``pdf`` is 0,
    ``support()`` is empty); cdf and quantiles are exact step functions; moments are the
    sums Σ_i w_i a_i^k (``math.fsum``, or ``mpmath.fsum`` at ``dps`` from the binary values).

    Raises
    ------
    ParameterError
        For empty, non-finite or multi-dimensional points, or weights that are negative, of
        the wrong length, or do not sum to 1.

    Examples
    --------
    >>> law = Discrete([0.0, 1.0], [0.25, 0.75])
    >>> law.atoms()
    [(0.0, 0.25), (1.0, 0.75)]
    >>> complex(law.cauchy_transform(2.0))
    (0.875+0j)
    """

    parameters = (Param("points", "real_vector", "a_i", "atom locations"),
                  Param("weights", "probability_vector", "w_i", "atom masses", optional=True))

    def __init__(self, points, weights=None):
        points_p, weights_p = Discrete.parameters  # (Empirical declares its own)
        pts = points_p.validate(points)
        w = weights_p.validate(weights, size=pts.size)
        if w is None:
            w = np.full(pts.size, 1.0 / pts.size)
        order = np.argsort(pts, kind="stable")
        pts, w = pts[order], w[order]
        uniq, start = np.unique(pts, return_index=True)
        if uniq.size == pts.size:  # no repeated point: nothing to merge
            wsum = w
        else:
            wsum = np.array([math.fsum(v) for v in np.split(w, start[1:])])
        keep = wsum > 0
        self.points = uniq[keep]
        self.weights = wsum[keep]
        self._cum = np.cumsum(self.weights)
        self._cum[-1] = 1.0  # the total is 1 by validation: no rounding beyond the last atom
        self.name = f"Discrete({self.points.size} atoms)"

    def _key(self):
        return (Discrete, self.points.tobytes(), self.weights.tobytes())

    # ------------------------------------------------------------ Cauchy
    @property
    def _cauchy_engine(self):
        eng = self.__dict__.get("_cauchy_sum")
        if eng is None:
            eng = self.__dict__["_cauchy_sum"] = _CauchySum(self.points, self.weights)
        return eng

    def _cauchy_float(self, z):
        return self._cauchy_engine.both(z)[0].copy()

    def _cauchy_derivative_float(self, z):
        return self._cauchy_engine.both(z)[1].copy()

    @mp_route
    def _cauchy_mp(self, z, dps):
        z = mpmath.mpc(z)
        if mpmath.im(z) == 0 and any(mpmath.re(z) == a for a in self._points_mp()):
            return mpmath.mpc(mpmath.inf, 0)
        return mpmath.fsum(w / (z - a) for a, w in zip(self._points_mp(), self._weights_mp()))

    @mp_route
    def _cauchy_derivative_mp(self, z, dps):
        z = mpmath.mpc(z)
        return -mpmath.fsum(w / (z - a) ** 2 for a, w in zip(self._points_mp(), self._weights_mp()))

    def _points_mp(self):
        # binary values: exact at every precision, so converted once
        if "_points_mp_v" not in self.__dict__:
            with mpmath.workprec(_FLOAT64_BITS):
                self.__dict__["_points_mp_v"] = [mpmath.mpf(float(a)) for a in self.points]
        return self.__dict__["_points_mp_v"]

    def _weights_mp(self):
        if "_weights_mp_v" not in self.__dict__:
            with mpmath.workprec(_FLOAT64_BITS):
                self.__dict__["_weights_mp_v"] = [mpmath.mpf(float(w)) for w in self.weights]
        return self.__dict__["_weights_mp_v"]

    # ------------------------------------------------------------ structure
    def _support(self, dps):
        return []

    @mp_route
    def _atoms(self, dps):
        if dps is None:
            # floats, built once (10⁵ tuples cost ~30 ms; a convolution asks for them for its
            # hull and twice for its atom rule), a fresh list each call
            if "_atoms_v" not in self.__dict__:
                self.__dict__["_atoms_v"] = tuple(zip(self.points.tolist(), self.weights.tolist()))
            return list(self.__dict__["_atoms_v"])
        return list(zip(self._points_mp(), self._weights_mp()))

    def hull(self, dps=None):
        """(a, b) = (smallest atom, largest atom) (floats; mpf with ``dps``)."""
        if dps_or_none(dps) is None:
            return float(self.points[0]), float(self.points[-1])
        return super().hull(dps)

    def _pdf_float(self, x):
        return np.zeros(np.shape(x))

    def _pdf_mp(self, x, dps):
        return mpmath.mpf(0)

    def _cdf_float(self, x):
        k = np.searchsorted(self.points, x, side="right")
        return np.where(k > 0, self._cum[np.maximum(k - 1, 0)], 0.0)

    def _sf_float(self, x):
        k = np.searchsorted(self.points, x, side="right")  # number of atoms ≤ x
        upper = np.concatenate([np.cumsum(self.weights[::-1])[::-1], [0.0]])  # Σ_{i ≥ k} w_i
        upper[0] = 1.0  # left of every atom exactly 1 (the rounded sum can be 1 − ulps)
        return np.minimum(upper[k], 1.0)

    def _ppf_float(self, q):
        k = np.searchsorted(self._cum, q, side="left")
        return self.points[np.minimum(k, self.points.size - 1)]

    @mp_route
    def _ppf_mp(self, q, dps):
        cum = mpmath.mpf(0)
        for a, w in zip(self._points_mp(), self._weights_mp()):
            cum += w
            if q <= cum:
                return a
        return self._points_mp()[-1]

    # ------------------------------------------------------------ moments
    def _moment_hook(self, k, dps):
        if dps is None:
            with np.errstate(over="ignore"):
                return math.fsum(self.weights * self.points**k)
        return self._moment_mp(k, dps)

    @mp_route
    def _moment_mp(self, k, dps):
        return mpmath.fsum(w * a ** int(k) for a, w in zip(self._points_mp(), self._weights_mp()))

    def _moment_quad(self, k, dps):
        return self._moment_hook(k, dps)
