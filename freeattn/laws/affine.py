"""The exact affine image of a law, x ↦ shift + scale·x, answered from the law itself.

A law and its affine image agree exactly up to the map, at any scale float64 represents:
every functional of the image is the base law's at the mapped argument (issue 21, item 14),
so no numerical method ever runs at the image's scale.  With φ(x) = a + s x, s ≠ 0, and
w = φ⁻¹(y) = (y − a)/s:

* ρ_φ(y) = ρ(w)/|s|;  F_φ(y) = F(w) for s > 0, P(X ≥ w) = S(w) + μ{w} for s < 0 (and
  S_φ the other way round); quantiles a + s·ppf(q) (s > 0) or a + s·isf(q) (s < 0);
* support and atoms are φ of the base law's;
* G_φ(z) = G((z − a)/s)/s (on the real axis for s < 0: the conjugate of G(w + i0), the upper
  limit of the image being the lower one of the base law), G′_φ(z) = G′(w)/s²;
* m_k = Σ_j C(k, j) a^{k−j} s^j m_j(μ) (exact for exact moments), central moments s^k μ_k,
  entropy H(μ) + log|s| for a density (a purely atomic law keeps its Shannon entropy),
  E f(φ(X)) by the base law's expectation of f∘φ;
* the polynomial of an algebraic image (for ⊞/⊠ eliminations and symbolic use) is the
  substituted one, built only when asked for (:class:`freeattn.laws.algebraic.AlgebraicLaw`'s
  ``affine``).

A composition of affine maps collapses into one (φ₂∘φ₁ of the base law), and two images are
equal when their base laws, shifts and scales are (exact values: 1 and 1.0 alike).

:class:`AffineImage` is a mixin: :class:`freeattn.laws.base.AffineLaw` (any base law) and
:class:`freeattn.laws.algebraic.AlgebraicAffineImage` (an algebraic base) put it in front of
their law class, so that this module needs nothing of either.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp

from .._context import FLOAT_REFERENCE_DPS, inner_dps, mp_route, round_back, to_mp, workdps
from .._messages import shown
from .._validation import (ParameterError, dps_or_none, exact, finite_real, integer_at_least,
                           positive)
from ..quadrature.tables import monotone
from ._closed import bisect_doubles
from ._identity import _DESCRIPTION_ATTRIBUTES, _Unkeyable, _canonical

__all__ = ["AffineImage", "affine_arguments", "dilation_argument"]

#: ulps by which a float64 quantile of the image may move from the mapped base quantile
#: (double rounding of a + s·w and (y − a)/s: one or two ulps; a few for safety)
_QUANTILE_ULPS = 4


#: a point within this many ulps of the base law's end outside its interval is taken at
#: distance 0 (its mapped double may still round inside: the old route's value there)
_COLLAR_ULPS = 4
#: Dekker's splitter 2^27 + 1 (two-product without fma)
_SPLITTER = 134217729.0
#: magnitude below which Dekker's split of s, of the base law's ends and of their product
#: cannot overflow (the two-product is exact there)
_EXACT_PRODUCT_BELOW = 2.0 ** 1000


def _two_sum(a, b):
    """(s, e) with s = fl(a + b) and a + b = s + e exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a, b):
    """(p, e) with p = fl(a·b) and a·b = p + e exactly (Dekker; no overflow below ~1e300)."""
    p = a * b
    t = _SPLITTER * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLITTER * b
    bh = t - (t - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _exact_real(name, v):
    """An exact (sympy) finite real value of ``v``, the error naming ``name``."""
    if isinstance(v, sp.Basic):
        if not (v.is_number and v.is_real and v.is_finite):
            raise ParameterError(name, f"{name} must be a finite real number, got {v}")
        return v
    finite_real(name, v)  # the one argument filter: None, text, complex, ±inf, NaN refused
    return exact(v, name)


def affine_arguments(shift, scale):
    """(shift, scale) of x ↦ shift + scale·x as exact sympy numbers (floats at their binary
    values), scale ≠ 0.

    Raises
    ------
    ParameterError
        Naming ``shift`` or ``scale``: a value that is not a finite real number (a
        :class:`ParameterTypeError` for None, text or complex numbers), or scale = 0.
    """
    shift, scale = _exact_real("shift", shift), _exact_real("scale", scale)
    if scale == 0:
        raise ParameterError("scale", "scale must be a non-zero finite real number, got 0")
    return shift, scale


def dilation_argument(t):
    """The factor t > 0 of the dilation D_t (x ↦ t x), exact.

    Raises
    ------
    ParameterError
        Naming ``t``: not a finite number > 0 (a :class:`ParameterTypeError` for non-numbers).
    """
    if isinstance(t, sp.Basic):
        if not (t.is_number and t.is_positive and t.is_finite):
            raise ParameterError("t", f"t must be a finite number > 0, got {t}")
        return t
    positive("t", t)
    return exact(t, "t")


def _over_real(g, s):
    """g/s for complex g and real s, part by part (numpy's complex division turns ±inf/s
    into inf + nan·i: G at a hard edge is a real ±inf)."""
    out = np.empty(np.shape(g), dtype=complex)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        out.real = np.real(g) / s
        out.imag = np.imag(g) / s
    return out


def _display(v):
    """A short display of an exact number (a float's binary value prints as the float)."""
    if isinstance(v, sp.Rational) and not v.is_Integer:
        f = float(v)
        if sp.Rational(f) == v:
            return repr(f)
    return str(v)


class AffineImage:
    """The law of shift + scale·X, X ~ ``base``, answered exactly from ``base`` (mixin).

    Attributes
    ----------
    base : Law
        The law of X (never itself an affine image: compositions collapse).
    shift, scale : sympy numbers
        a and s ≠ 0 of φ(x) = a + s x, exact.

    Notes
    -----
    Every hook maps its argument by w = (y − a)/s (float64, or at the working precision of a
    ``dps`` route) and calls the base law's public method there; see the module docstring for
    the formulas.  Points the float64 map sends beyond ±inf give the base law's values at
    ±inf (G: its far-field 1/(z − m₁)).
    """

    def _init_affine(self, base, shift, scale):
        if isinstance(base, AffineImage):  # φ₂∘φ₁: one map of the innermost law
            shift, scale = shift + scale * base.shift, scale * base.scale
            base = base.base
        self.base = base
        self.shift, self.scale = shift, scale
        self._a, self._s = float(shift), float(scale)
        if not (math.isfinite(self._a) and math.isfinite(self._s) and self._s != 0):
            raise ParameterError("scale", f"shift {shown(self._a)} and scale {shown(self._s)} "
                                          "must be finite in float64 and the scale non-zero")
        self.name = f"{_display(shift)} + {_display(scale)}·({base.name})"

    # ------------------------------------------------------------ identity
    def _key(self):
        try:
            key = (AffineImage, self.base, _canonical(self.shift), _canonical(self.scale))
            return key + tuple((k, _canonical(self.__dict__[k])) for k in _DESCRIPTION_ATTRIBUTES
                               if k in self.__dict__)
        except _Unkeyable:
            return None

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"

    def affine(self, shift, scale):
        """Push-forward by x ↦ shift + scale·x: one affine image of the base law
        (composition collapses)."""
        shift, scale = affine_arguments(shift, scale)
        return self.base.affine(shift + scale * self.shift, scale * self.scale)

    def dilate(self, t):
        """Dilation D_t (x ↦ t x), t > 0: one affine image of the base law."""
        t = dilation_argument(t)
        return self.base.affine(t * self.shift, t * self.scale)

    # ------------------------------------------------------------ the map
    def _mp_map(self):
        """(a, s) at the current mpmath precision."""
        return to_mp(self.shift), to_mp(self.scale)

    def _to_base(self, y):
        """w = (y − a)/s in float64 (beyond the float range: ±inf)."""
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            return (np.asarray(y, dtype=float) - self._a) / self._s

    def _to_image(self, w):
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            return self._a + self._s * np.asarray(w, dtype=float)

    def _geometry(self):
        """Float64 data of the image, computed once: (support, image atoms, [(base atom,
        its image location, mass)], lo, hi)."""
        geo = self.__dict__.get("_affine_geometry")
        if geo is None:
            support = self._support(None)
            pairs = [(float(c), float(self._to_image(float(c))), float(m))
                     for c, m in self.base.atoms()]
            atoms = self._atoms(None)
            ends = [e for ab in support for e in ab] + [y for y, _ in atoms]
            lo, hi = (min(ends), max(ends)) if ends else (math.inf, -math.inf)
            geo = (support, atoms, pairs, lo, hi)
            self.__dict__["_affine_geometry"] = geo
        return geo

    def _distance_map(self):
        """(a − fl(a), s − fl(s), pieces): per piece of the base law's support (its support
        intervals, or the pieces its tables split them into) (j, (E_a, c_a), (E_b, c_b),
        collar) with the exact ends E + c of :meth:`Law._exact_ends`; None where the base law
        has none or the map leaves the range where a two-product is exact.  Computed once."""
        dm = self.__dict__.get("_affine_distance_map", False)
        if dm is False:
            dm = None
            ends = self.base._exact_ends()
            if ends:
                with workdps(FLOAT_REFERENCE_DPS):
                    a_lo = float(to_mp(self.shift) - self._a)
                    s_lo = float(to_mp(self.scale) - self._s)
                top = max(1.0, abs(self._s)) * max(max(abs(A), abs(B), 1.0)
                                                   for A, _, B, _ in ends)
                if _SPLITTER * top < _EXACT_PRODUCT_BELOW:
                    atoms = [float(c) for c, _ in self.base.atoms()]
                    pieces = []
                    for j, (A, cA, B, cB) in enumerate(ends):
                        collar = _COLLAR_ULPS * float(np.spacing(max(abs(A), abs(B))))
                        if any(min(abs(c - A), abs(c - B)) <= 2 * collar for c in atoms):
                            collar = 0.0  # an atom at the end: the snapped route places it
                        pieces.append((j, (A, cA), (B, cB), collar))
                    dm = (a_lo, s_lo, pieces)
            self.__dict__["_affine_distance_map"] = dm
        return dm

    def _offset(self, y, end, a_lo, s_lo):
        """y − φ(e) for the exact base end e = E + c, in double-double arithmetic (y − a and
        s·E exact as pairs; the sub-ulp terms a − fl(a), s·c, (s − fl(s))·E added once)."""
        E, c = end
        t, te = _two_sum(y, -self._a)
        p, pe = _two_prod(self._s, E)
        u, ue = _two_sum(t, -p)
        return u + (((ue + te) - pe) - (a_lo + self._s * c + s_lo * E))

    def _by_distance(self, y, upper):
        """(mask, values): the image's cdf (``upper``: sf) at the points y inside a support
        interval (within a collar of a few ulps of it), from the base law's cdf/sf at the
        distance to its nearer exact end (:meth:`Law._cdf_sf_at_distance`), the distance
        formed in double-double arithmetic: the double (y − a)/s rounds at the ulp of the base
        law's end, which moved the tail 1e-8 of the width from an end at |end| ≫ width by up
        to 1e-6 of itself (issue 21, the end-rounding kind).  mask is None where the base law
        has no distance form."""
        dm = self._distance_map()
        if dm is None:
            return None, None
        a_lo, s_lo, ivs = dm
        y = np.asarray(y, dtype=float)
        mask = np.zeros(y.shape, bool)
        out = np.zeros(y.shape)
        with np.errstate(over="ignore", invalid="ignore"):
            dists = [(self._offset(y, ea, a_lo, s_lo) / self._s,       # w − a
                      -self._offset(y, eb, a_lo, s_lo) / self._s)      # b − w
                     for _, ea, eb, _ in ivs]
        # first the points strictly inside a piece, then those in a piece's collar (taken at
        # distance 0 from its end: outside the exact end, though (y − a)/s may round inside)
        for strict in (True, False):
            for (j, _, _, collar), (da, db) in zip(ivs, dists):
                if not strict and collar == 0:
                    continue
                floor = 0.0 if strict else -collar
                m = (da > floor) & (db > floor) & ~mask & np.isfinite(da) & np.isfinite(db)
                if not np.any(m):
                    continue
                da_m, db_m = da[m], db[m]
                left = da_m <= db_m
                vals = np.empty(da_m.shape)
                for from_right, sel in ((False, left), (True, ~left)):
                    if np.any(sel):
                        d = np.maximum((db_m if from_right else da_m)[sel], 0.0)
                        F, S = self.base._cdf_sf_at_distance(j, from_right, d)
                        # s > 0: cdf from the base law's cdf; s < 0 the other way round (no
                        # atom inside a support interval: the distance form has none)
                        vals[sel] = (S if upper else F) if self._s > 0 else (F if upper else S)
                out[m] = vals
                mask |= m
        return mask, out

    def _exact_ends(self):
        return None  # the base law's (an image of an image collapses into one map)

    def _snapped(self, y):
        """w = (y − a)/s with each base atom c on the side of w that y is of its image
        location (F jumps exactly where :meth:`atoms` puts the atom)."""
        w = self._to_base(y)
        for c, loc, _ in self._geometry()[2]:
            past = y >= loc
            if self._s > 0:
                w = np.where(past & (w < c), c, np.where(~past & (w >= c),
                                                         np.nextafter(c, -np.inf), w))
            else:
                w = np.where(past & (w > c), c, np.where(~past & (w <= c),
                                                         np.nextafter(c, np.inf), w))
        return w

    def _atom_mass_at(self, w):
        out = np.zeros(np.shape(w))
        for c, _, m in self._geometry()[2]:
            out = out + np.where(w == c, m, 0.0)
        return out

    # ------------------------------------------------------------ structure
    @mp_route
    def _support(self, dps):
        if dps is None:
            out = [tuple(sorted((float(self._to_image(a)), float(self._to_image(b)))))
                   for a, b in self.base.support()]
            return sorted(out)
        a, s = self._mp_map()
        out = [tuple(sorted((a + s * lo, a + s * hi))) for lo, hi in
               self.base.support(inner_dps(dps))]
        return sorted(out)

    @mp_route
    def _atoms(self, dps):
        if dps is None:
            pts = [(float(self._to_image(float(c))), float(m)) for c, m in self.base.atoms()]
        else:
            a, s = self._mp_map()
            pts = [(a + s * c, m) for c, m in self.base.atoms(inner_dps(dps))]
        merged = {}
        for y, m in pts:
            merged[y] = merged.get(y, 0) + m
        return sorted(merged.items(), key=lambda p: p[0])

    def _declares(self, hook):
        return hook in ("_support", "_atoms") or super()._declares(hook)

    # ------------------------------------------------------------ density
    def _pdf_float(self, y):
        y = np.asarray(y, dtype=float)
        support = self._geometry()[0]
        inside = np.zeros(y.shape, bool)
        for lo, hi in support:
            inside |= (y >= lo) & (y <= hi)
        out = np.zeros(y.shape)
        if inside.any():
            out[inside] = np.asarray(self.base.pdf(self._to_base(y[inside])), dtype=float) \
                / abs(self._s)
        return out

    @mp_route
    def _pdf_mp(self, y, dps):
        a, s = self._mp_map()
        return self.base.pdf((y - a) / s, dps=inner_dps(dps)) / abs(s)

    def _pdf_limit_float(self, y):
        return np.asarray(self.base.pdf(self._to_base(y), method="limit"), dtype=float) \
            / abs(self._s)

    @mp_route
    def _pdf_limit_mp(self, y, dps):
        a, s = self._mp_map()
        return self.base.pdf((y - a) / s, dps=inner_dps(dps), method="limit") / abs(s)

    # ------------------------------------------------------------ distribution
    def _clamped(self, y, values, below, above):
        """``values`` with the points left of the hull set to ``below`` and those at or right
        of its right end to ``above`` (exactly 0 and 1 beyond the law, item 5)."""
        _, _, _, lo, hi = self._geometry()
        values = np.asarray(values, dtype=float)
        return np.where(y < lo, below, np.where(y >= hi, above, values))

    def _cdf_float(self, y):
        y = np.asarray(y, dtype=float)
        w = self._snapped(y)
        if self._s > 0:
            F = np.asarray(self.base.cdf(w), dtype=float)
        else:
            F = np.minimum(np.asarray(self.base.sf(w), dtype=float) + self._atom_mass_at(w), 1.0)
        mask, near = self._by_distance(y, False)
        if mask is not None and np.any(mask):
            F = np.where(mask, near, F)
            F = monotone(y, F, increasing=True)
        return self._clamped(y, F, 0.0, 1.0)

    def _sf_float(self, y):
        y = np.asarray(y, dtype=float)
        w = self._snapped(y)
        if self._s > 0:
            S = np.asarray(self.base.sf(w), dtype=float)
        else:
            S = np.maximum(np.asarray(self.base.cdf(w), dtype=float) - self._atom_mass_at(w), 0.0)
        mask, near = self._by_distance(y, True)
        if mask is not None and np.any(mask):
            S = np.where(mask, near, S)
            S = monotone(y, S, increasing=False)
        return self._clamped(y, S, 1.0, 0.0)

    def _mp_atom_side(self, y, dps):
        """w = (y − a)/s at the working precision, snapped onto a base atom c where y sits
        at its image location but w rounds past c; with the mass of the atom at w."""
        a, s = self._mp_map()
        w = (y - a) / s
        mass = mpmath.mpf(0)
        for c, m in self.base.atoms(inner_dps(dps)):
            loc = a + s * c
            if y >= loc and ((s > 0 and w < c) or (s < 0 and w > c)):
                w = +c
            if w == c:
                mass += m
        return w, mass

    @mp_route
    def _cdf_mp(self, y, dps):
        w, mass = self._mp_atom_side(y, dps)
        if self._s > 0:
            return self.base.cdf(w, dps=inner_dps(dps))
        return min(self.base.sf(w, dps=inner_dps(dps)) + mass, mpmath.mpf(1))

    @mp_route
    def _sf_mp(self, y, dps):
        w, mass = self._mp_atom_side(y, dps)
        if self._s > 0:
            return self.base.sf(w, dps=inner_dps(dps))
        return max(self.base.cdf(w, dps=inner_dps(dps)) - mass, mpmath.mpf(0))

    def _ppf_float(self, q):
        q = np.asarray(q, dtype=float)
        inv = self.base.ppf if self._s > 0 else self.base.isf
        return self._polished(self._to_image(inv(q)), q, self._cdf_float, lambda f, q: f >= q)

    def _isf_float(self, q):
        q = np.asarray(q, dtype=float)
        inv = self.base.isf if self._s > 0 else self.base.ppf
        return self._polished(self._to_image(inv(q)), q, self._sf_float, lambda f, q: f <= q)

    def _polished(self, y, q, F, reached):
        """The smallest float y with ``reached(F(y), q)`` (cdf ≥ q for ppf, sf ≤ q for isf),
        searched within :data:`_QUANTILE_ULPS` ulps of the mapped base quantile: a + s·w
        and its map back (y − a)/s round twice, so the image's own F decides the last ulp."""
        y = np.array(y, dtype=float)
        todo = np.isfinite(y) & (q > 0) & (q < 1)
        for _ in range(_QUANTILE_ULPS):  # up while F(y) has not reached q
            idx = np.flatnonzero(todo)
            if not idx.size:
                break
            low = ~reached(F(y[idx]), q[idx])
            y[idx[low]] = np.nextafter(y[idx[low]], np.inf)
            todo[idx[~low]] = False
        todo = np.isfinite(y) & (q > 0) & (q < 1)
        for _ in range(_QUANTILE_ULPS):  # down while F(y⁻) still reaches q
            idx = np.flatnonzero(todo)
            if not idx.size:
                break
            prev = np.nextafter(y[idx], -np.inf)
            high = reached(F(prev), q[idx])
            y[idx[high]] = prev[high]
            todo[idx[~high]] = False
        # where the image's own F (by the distance to the exact end) is resolved more finely
        # than the mapped base quantile (an end a + s·e much smaller than s·e: many image
        # ulps per ulp of the base law), bisection on the doubles of F itself
        ok = np.isfinite(y) & (q > 0) & (q < 1)
        idx = np.flatnonzero(ok)
        if idx.size:
            good = reached(F(y[idx]), q[idx]) & ~reached(F(np.nextafter(y[idx], -np.inf)), q[idx])
            bad = idx[~good]
            if bad.size:
                _, _, _, lo, hi = self._geometry()
                upper = reached(0.0, 0.5)  # isf: sf ≤ q
                y[bad] = bisect_doubles(q[bad], F, lo, hi, upper=upper)
        return y

    @mp_route
    def _ppf_mp(self, q, dps):
        a, s = self._mp_map()
        inv = self.base.ppf if self._s > 0 else self.base.isf
        return a + s * inv(q, dps=inner_dps(dps))

    @mp_route
    def _isf_mp(self, q, dps):
        a, s = self._mp_map()
        inv = self.base.isf if self._s > 0 else self.base.ppf
        return a + s * inv(q, dps=inner_dps(dps))

    # ------------------------------------------------------------ Cauchy transform
    def _far_mean(self):
        m = self.__dict__.get("_affine_mean")
        if m is None:
            m = self.__dict__["_affine_mean"] = float(self.mean())
        return m

    def _cauchy_float(self, z):
        z = np.asarray(z, dtype=complex)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            w = (z - self._a) / self._s
        g = np.asarray(self.base.cauchy_transform(w), dtype=complex)
        if self._s < 0:  # the upper limit on the axis is the base law's lower one
            g = np.where(z.imag == 0, np.conj(g), g)
        g = _over_real(g, self._s)
        far = ~(np.isfinite(w.real) & np.isfinite(w.imag))
        if far.any():  # |w| beyond float64: G = 1/(z − m₁) to far below the rounding
            g[far] = 1.0 / (z[far] - self._far_mean())
        return g

    def _cauchy_derivative_float(self, z):
        z = np.asarray(z, dtype=complex)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            w = (z - self._a) / self._s
        d = np.asarray(self.base.cauchy_transform_derivative(w), dtype=complex)
        if self._s < 0:
            d = np.where(z.imag == 0, np.conj(d), d)
        d = _over_real(_over_real(d, self._s), self._s)
        far = ~(np.isfinite(w.real) & np.isfinite(w.imag))
        if far.any():
            d[far] = -1.0 / (z[far] - self._far_mean()) ** 2
        return d

    @mp_route
    def _cauchy_mp(self, z, dps):
        a, s = self._mp_map()
        z = mpmath.mpc(z)
        g = self.base.cauchy_transform((z - a) / s, dps=inner_dps(dps))
        if s < 0 and mpmath.im(z) == 0:
            g = mpmath.conj(g)
        return g / s

    @mp_route
    def _cauchy_derivative_mp(self, z, dps):
        a, s = self._mp_map()
        z = mpmath.mpc(z)
        d = self.base.cauchy_transform_derivative((z - a) / s, dps=inner_dps(dps))
        if s < 0 and mpmath.im(z) == 0:
            d = mpmath.conj(d)
        return d / (s * s)

    @property
    def _value_warm(self):
        """The base law's warm subordination evaluator mapped (a nested convolution's affine
        image stays on its warm route): G(y) = G_base((y − a)/s)/s, G′ = G′_base/s²; None when
        the base law has none."""
        warm = getattr(self.base, "_value_warm", None)
        if warm is None:
            return None
        a, s = self._a, self._s

        def value_warm(y, guess):
            g, dg, state = warm((np.asarray(y, dtype=complex) - a) / s, guess)
            return g / s, dg / (s * s), state
        return value_warm

    # ------------------------------------------------------------ moments
    def _exact_moments_known(self):
        return self.base._exact_moments_known()

    def exact_moments(self, order):
        """m₁..m_order exactly: Σ_j C(k, j) a^{k−j} s^j m_j(base) from the base law's exact
        moments (sympy).

        Raises
        ------
        NotImplementedError
            When the base law has no exact moments.
        """
        ms = [sp.Integer(1)] + list(self.base.exact_moments(order))
        a, s = self.shift, self.scale
        return [sp.expand(sum(sp.binomial(k, j) * a ** (k - j) * s ** j * ms[j]
                              for j in range(k + 1))) for k in range(1, order + 1)]

    def _mapped_moment(self, k, dps, method):
        """Σ_j C(k, j) a^{k−j} s^j m_j(base) from the base law's moments at ``dps`` plus
        guard digits (float64: at ``FLOAT_REFERENCE_DPS`` where the base law's moments are
        exact or series, else its float64 moments)."""
        if dps is None and not self.base._exact_moments_known():
            ms = [1.0] + [float(self.base.moment(j, method=method)) for j in range(1, k + 1)]
            return math.fsum(math.comb(k, j) * self._a ** (k - j) * self._s ** j * ms[j]
                             for j in range(k + 1))
        work = FLOAT_REFERENCE_DPS if dps is None else inner_dps(dps)
        ms = [self.base.moment(j, dps=work, method=method) for j in range(1, k + 1)]
        with workdps(work):
            a, s = self._mp_map()
            ms = [mpmath.mpf(1)] + [mpmath.mpf(m) for m in ms]
            value = mpmath.fsum(math.comb(k, j) * a ** (k - j) * s ** j * ms[j]
                                for j in range(k + 1))
        return float(value) if dps is None else round_back(value, dps)

    def moment(self, k, dps=None, method=None):
        """k-th moment of the image from the base law's (the binomial formula; ``method``
        is passed to the base law: "exact", "quad" or its own route)."""
        self._check_method(method, ("exact", "quad"))
        if k == 0:
            return 1.0 if dps is None else self._mp_number(1, dps)
        if method == "exact":
            value = self.exact_moments(k)[k - 1]
            return self._mp_number(value, dps)
        return self._mapped_moment(k, dps, method)

    def _moment_quad(self, k, dps):
        return self._mapped_moment(k, dps, "quad")

    def _central_moments(self, n, dps):
        """[m₁, μ₂, …, μ_n] of the image: a + s m₁ and s^j μ_j of the base law (no
        cancellation at any shift)."""
        base = self.base._central_moments(n, None if dps is None else inner_dps(dps))
        with workdps(FLOAT_REFERENCE_DPS if dps is None else inner_dps(dps)):
            a, s = self._mp_map()
            base = [mpmath.mpf(v) for v in base]
            out = [a + s * base[0]] + [s ** j * base[j - 1] for j in range(2, n + 1)]
        if dps is None:
            return [float(v) for v in out]
        return [round_back(v, dps) for v in out]

    # ------------------------------------------------------------ functionals
    def entropy(self, dps=None):
        """Entropy: the base law's differential entropy + log|s| (a purely atomic law: its
        Shannon entropy, which a bijection keeps)."""
        h = self.base.entropy(None if dps is None else inner_dps(dps))
        if not self.base.support():
            return h if dps is None else round_back(h, dps)
        if dps is None:
            return float(h) + math.log(abs(self._s))
        with workdps(dps):
            return round_back(h + mpmath.log(abs(to_mp(self.scale))), dps)

    def expect(self, func=None, dps=None, *, lb=None, ub=None, conditional=False):
        """E[f(a + s X)] over lb ≤ a + s X ≤ ub, by the base law's expectation of f∘φ over
        φ⁻¹([lb, ub]) (see :meth:`freeattn.laws.Law.expect` for the arguments)."""
        if func is not None and not callable(func):
            return self.base.expect(func, dps)  # the base law's error names func
        lo = None if lb is None else self._bound("lb", lb)
        hi = None if ub is None else self._bound("ub", ub)
        if lo is not None and hi is not None and lo > hi:
            raise ParameterError("lb", f"lb must be <= ub, got lb={lb!r}, ub={ub!r}")
        if dps is None:
            wl = None if lo is None else float(self._to_base(lo))
            wh = None if hi is None else float(self._to_base(hi))
            g = self._to_image if func is None else (lambda w: func(self._to_image(w)))
        else:
            with workdps(dps):
                a, s = self._mp_map()
                wl = None if lo is None else (mpmath.mpf(lo) - a) / s
                wh = None if hi is None else (mpmath.mpf(hi) - a) / s

            def g(w):
                with workdps(dps):
                    a, s = self._mp_map()
                    v = a + s * w
                return v if func is None else func(v)
        if self._s < 0:
            wl, wh = wh, wl
        return self.base.expect(g, dps, lb=wl, ub=wh, conditional=conditional)
