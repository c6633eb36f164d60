"""Marchenko–Pastur and free Poisson laws: closed forms beside the polynomial method.

Both are :class:`~freeattn.laws.algebraic.AlgebraicLaw` s (their polynomial drives ⊠, compound
free Poisson, transforms and the cdf/ppf at ``dps``), with float64 and mpmath fast paths from
the closed forms (Marchenko & Pastur 1967; Nica & Speicher 2006, Lecture 12):

    ρ(x) = sqrt((b − x)(x − a)) / (2π y x),  a, b = (1 ∓ √y)²,
    G(z) = 2 / (z + y − 1 + sqrt(z − a) sqrt(z − b)),

the product of principal square roots being the branch with G ~ 1/z off [a, b].  The float64
cdf and sf are the masses of :class:`_EndMasses` from the nearer end (series or closed form,
in long double, rounded once: monotone to the ulp, full relative accuracy in both tails, issue
21 items 1 and 6); ppf and isf bisect them on the doubles.
"""
from __future__ import annotations

import mpmath
import numpy as np

from .._context import FLOAT64, FLOAT_REFERENCE_DPS, MPMATH, mp_route, to_mp, tolerance, workdps
from ..algebraic.polynomial import G, z
from .._validation import Param
from ._params import fresh
from ._closed import (LD, PI_LD, NearEnds, cauchy_mp_upper, complex_array as _complex, half_angle,
                      bisect_doubles, lost_digits, newton_closed_mp, to_ld)
from .algebraic import AlgebraicLaw


__all__ = ["MarchenkoPastur", "FreePoisson"]



# closed forms, written once against a precision context (freeattn._context.FLOAT64 / MPMATH)
def _edges(ctx, y):
    """(a, b) = ((1 − √y)², (1 + √y)²), a = (y − 1)²/(1 + √y)² without cancellation at y ≈ 1."""
    r = ctx.sqrt(y)
    return (y - 1) ** 2 / (1 + r) ** 2, (1 + r) ** 2


def _density(ctx, x, y, a, b, ca=0, cb=0):
    """sqrt((b − x)(x − a))/(2π y x) on (a, b), ∞ at x = 0 for y = 1, 0 elsewhere; b − x and
    x − a computed as (b_f − x) + cb and (x − a_f) − ca (edge-accurate in float64)."""
    inside = (x > a) & (x < b)
    # two square roots, not the root of a product, and x divided alone: (b − x)(x − a) and
    # 2πyx are subnormal, so rounded to a few bits, for x ~ 5e-324
    val = (ctx.sqrt(ctx.guard(inside, (b - x) + cb, 0))
           * ctx.sqrt(ctx.guard(inside, (x - a) - ca, 0))
           / ctx.guard(inside, x, 1) / (2 * ctx.pi * y))
    pole = (x == 0) & (y == 1)
    return ctx.where(pole, ctx.inf, ctx.where(inside, val, ctx.number(0)))


def _cauchy_upper(ctx, zq, y, a, b):
    """G(z) = 2/(z + y − 1 + sqrt(z − a) sqrt(z − b)) on the closed upper half-plane, taken as
    (s − r)/(2yz) where that root is the larger (no cancellation); at z = 0: −∞ for y = 1,
    ∞ for y > 1."""
    rt = ctx.sqrt(zq - a) * ctx.sqrt(zq - b)
    sm = zq + (y - 1)  # y − 1 first: exact, no cancellation of z + y against 1 (|z| ≪ 1)
    big = abs(sm + rt) >= abs(sm - rt)
    pole = (zq == 0) & (y >= 1)
    # every denominator is made safe on the branch not taken (mpmath evaluates both)
    g = ctx.where(big, 2 / ctx.guard(big and not pole if ctx.mp else True, sm + rt, 1),
                  (sm - rt) / ctx.guard(not (big or pole) if ctx.mp else True, 2 * y * zq, 1))
    # at z = 0: y > 1 has an atom there (∞, as an atom of Discrete); y = 1 has a hard edge with
    # no atom, where the limit from outside the support, G(0⁻) = −∞, is the value (as at the
    # hard edge of an algebraic law, issue 21 item 8)
    at0 = -ctx.inf if y == 1 else ctx.inf
    return ctx.where(pole, at0 + 0 * zq, g) if (ctx.mp or y >= 1) else g


def _mp_pdf(x, y, a, b, ca=0.0, cb=0.0):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # outside the support: discarded
        return _density(FLOAT64, x, y, a, b, ca, cb)


def _mp_cauchy(zz, y, a, b):
    """G of MP_y on complex points (real points: the limit from above)."""
    lower = (zz.imag < 0) | ((zz.imag == 0) & np.signbit(zz.imag))
    zq = np.where(lower, zz.conj(), zz)
    zq = _complex(zq.real, np.abs(zq.imag))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        g = _cauchy_upper(FLOAT64, zq, y, a, b)
    g = np.where(np.isinf(zq), 0j, g)
    return np.where(lower, g.conj(), g)


#: extra digits of the Newton tolerance of the mpmath quantile (as in laws/algebraic.py)
_NEWTON_EXTRA_DPS = 2
#: terms of the end series of _EndMasses; each is used where w ≤ R/2 (R its radius of
#: convergence), so the tail is below 2^-72 ≈ 2e-22 of the sum
_END_SERIES_TERMS = 72


def _end_series(y, a, b, from_left):
    """Coefficients d_n (long double) with mass = w^{3/2} Σ d_n w^n within the fraction w of
    the width from a (``from_left``) or from b, and the radius R of the series.

    With x = a + (b − a)v (from b: x = b − (b − a)v) and h = 2√y the mass is
    (8/π) ∫_0^w √v q(v) dv, q = √(1 − v)/(a + 2hv) (from b: √(1 − v)/(b − 2hv)); q = Σ c_n v^n
    from (a + 2hv) q = √(1 − v) (a c_n + 2h c_{n−1} = s_n, s_n of √(1 − v)), computed at
    reference precision.  R = min(1, a/(2h)) from a, min(1, b/(2h)) = 1 from b."""
    h = 2 * mpmath.sqrt(y)
    end, step = (a, -2 * h) if from_left else (b, 2 * h)
    s_n, c = mpmath.mpf(1), mpmath.mpf(0)
    out = []
    for n in range(_END_SERIES_TERMS):
        if n:
            s_n = s_n * (n - mpmath.mpf(3) / 2) / n
        c = (s_n + step * c) / end
        out.append(to_ld(8 * c / (mpmath.pi * (n + mpmath.mpf(3) / 2))))
    return np.array(out, dtype=LD), min(mpmath.mpf(1), end / (2 * h))


#: beyond this fraction of the width from b the mass from b is the mirror closed form
#: [(1 + y)ψ − 2√y sin ψ − 2√(ab) atan(√(a/b) tan(ψ/2))]/(2πy) for the ratios where the closed
#: form from a is used (0.17 < y < 34): long-double error ≤ 2e-17 relative there (measured
#: against 40-digit quadrature for y = 0.17 … 100, w = 1/64 … 1/2; the series: ≤ 1e-19), far
#: below the step ρ(x)·ulp(x) of the cdf between neighbouring doubles, at a third of the
#: series' ~70 long-double terms at w = 1/2
_RIGHT_SERIES_UPTO = mpmath.mpf(1) / 16
#: the series of _EndMasses is summed with as few terms as the point's w needs: points with
#: w ≤ upto·2^−k (k = 0 … _SERIES_LEVELS − 1) share the shortest head whose neglected tail
#: is below _SERIES_TAIL of the sum at that bound
_SERIES_LEVELS = 6
_SERIES_TAIL = 2.0 ** -70


def _series_heads(coeffs, upto):
    """[(bound_k, n_k)]: w ≤ bound_k = upto·2^−k needs the first n_k coefficients (the
    neglected Σ_{n ≥ n_k} |d_n| bound_k^n is below _SERIES_TAIL of |Σ d_n bound_k^n|)."""
    # in long double: next to y = 1 the coefficients from a grow like (2h/a)^n beyond float64
    c = np.asarray(coeffs, dtype=LD)
    d = np.abs(c)
    heads = []
    for k in range(_SERIES_LEVELS):
        bound = LD(upto) / LD(2) ** k
        terms = d * bound ** np.arange(d.size)
        total = abs(np.sum(c * bound ** np.arange(d.size)))
        tail = np.cumsum(terms[::-1])[::-1]  # tail[n] = Σ_{m ≥ n} |d_m| bound^m
        short = np.flatnonzero(tail <= LD(_SERIES_TAIL) * total)
        heads.append((bound, int(short[0]) if short.size else d.size))
    return heads


def _series_mass(coeffs, heads, w):
    """w^{3/2} Σ d_n w^n (long double), each point with the head its w needs (Horner)."""
    level = np.zeros(w.shape, dtype=int)
    for k, (bound, _) in enumerate(heads):
        level[w <= bound] = k
    out = np.empty(w.shape, dtype=LD)
    for k, (_, n) in enumerate(heads):
        m = level == k
        if np.any(m):
            ws = w[m]
            head = coeffs[:max(n, 1)][::-1]
            acc = np.full(ws.shape, head[0], dtype=LD)
            for c in head[1:]:  # in place: no temporaries per term
                acc *= ws
                acc += c
            acc *= ws
            acc *= np.sqrt(ws)
            out[m] = acc
    return out


class _EndMasses:
    """Mass of MP_y within the fraction w ≤ 1/2 of the width from either end, in long double
    (picklable: plain attributes), by one of two cancellation-free forms:

    - the series of :func:`_end_series` where w ≤ R/2 (from b always: R = 1; from a for
      y ≤ 0.17 or y ≥ 34, where R ≥ 1, or next to a);
    - from b beyond w = 1/16 where the next form is used from a, its mirror (see
      ``_RIGHT_SERIES_UPTO``);
    - from a beyond that, the closed form (x = a + (b − a) sin²(θ/2), c = 1 + y, h = 2√y,
      F(θ) = (2/π) ∫_0^θ sin²φ/(c − h cos φ) dφ, √(ab) = |1 − y|):

        [(1 + y) θ + 2√y sin θ − 2√(ab) atan(√(b/a) tan(θ/2))] / (2πy),

      whose terms cancel at most to w ~ a/(2h) of their size there (y = 1, a = 0: no arctangent
      and no cancellation at all).
    """

    def __init__(self, y):
        with mpmath.workdps(FLOAT_REFERENCE_DPS):
            y = mpmath.mpf(y)
            r = mpmath.sqrt(y)
            sa, sb = abs(1 - r), 1 + r
            a, b = sa * sa, sb * sb
            self.y, self.sy = to_ld(y), to_ld(r)
            self.sab = to_ld(sa * sb)
            self.k_left = to_ld(sb / sa) if sa != 0 else None
            if a > 0:
                self.left_series, rad = _end_series(y, a, b, True)
                self.left_upto = to_ld(rad / 2)
                self.left_heads = _series_heads(self.left_series, rad / 2)
            else:
                self.left_series, self.left_upto = None, LD(-1)
            self.right_series, rad = _end_series(y, a, b, False)
            # where the closed form from a is used (R < 1 there), its mirror from b is as safe
            # beyond _RIGHT_SERIES_UPTO and much cheaper than the series' long tail
            mirror = a > 0 and self.left_upto < to_ld(mpmath.mpf(1) / 2)
            upto = min(rad / 2, _RIGHT_SERIES_UPTO) if mirror or a == 0 else rad / 2
            self.right_upto = to_ld(upto)
            self.right_heads = _series_heads(self.right_series, upto)
            self.k_right = to_ld(sa / sb)

    def left(self, w):
        w = np.asarray(w, dtype=LD)
        out = np.empty(w.shape, dtype=LD)
        ser = w <= self.left_upto
        if np.any(ser):
            out[ser] = _series_mass(self.left_series, self.left_heads, w[ser])
        if np.any(~ser):
            th, sn, t = half_angle(w[~ser])
            val = (1 + self.y) * th + 2 * self.sy * sn
            if self.k_left is not None:
                val = val - 2 * self.sab * np.arctan(self.k_left * t)
            out[~ser] = val / (2 * PI_LD * self.y)
        return out

    def right(self, w):
        w = np.asarray(w, dtype=LD)
        out = np.empty(w.shape, dtype=LD)
        ser = w <= self.right_upto
        if np.any(ser):
            out[ser] = _series_mass(self.right_series, self.right_heads, w[ser])
        if np.any(~ser):
            # the mirror of the closed form from a: ψ the angle from b
            ps, sn, t = half_angle(w[~ser])
            val = (1 + self.y) * ps - 2 * self.sy * sn - 2 * self.sab * np.arctan(self.k_right * t)
            out[~ser] = val / (2 * PI_LD * self.y)
        return out


class MarchenkoPastur(AlgebraicLaw):
    """Mean-one Marchenko–Pastur law MP_y with ratio y = rows/columns.

    The limit of the eigenvalue law of X Xᵀ/p for X (n × p) with i.i.d. N(0, 1) entries and
    n/p → y.  MP_y = D_y π_{1/y} (Hayase & Karakida 2026, §C.1).

    Parameters
    ----------
    ratio : float > 0, or an exact number
        y = rows/columns.  Exact input (int, Fraction, Decimal, sympy
        Rational, mpf) stays exact; a float means its binary value.

    Notes
    -----
    Density sqrt((b − x)(x − a))/(2π y x) on [a, b] = [(1 − √y)², (1 + √y)²]; an atom of mass
    1 − 1/y at 0 when y > 1.  Polynomial: y z G² + (1 − y − z) G + 1 = 0.  Free cumulants
    κ_q = y^{q−1}; moments are Narayana polynomials.  pdf, G, cdf, sf, ppf and isf use
    these closed forms (vectorised float64; pdf and G also in mpmath at ``dps``).

    Raises
    ------
    ParameterError
        If ``ratio`` is not a finite number > 0 (``.param == "ratio"``; a ``ParameterTypeError``
        for a non-number).
    """

    parameters = (Param("ratio", "positive", "y", "rows/columns"),)
    #: on [0, ∞) with mean 1 (free Poisson: mean t) for every ratio (rate) > 0
    _positive_by_construction = "Marchenko–Pastur / free Poisson law"

    def __init__(self, ratio):
        y_exact = self.parameters[0].exact(ratio)
        self.ratio = float(y_exact)
        y = fresh("y")
        self._y_symbol = y
        super().__init__(y * z * G**2 + (1 - y - z) * G + 1, {y: y_exact},
                         name=f"MarchenkoPastur(ratio={self.ratio:g})")

    # closed forms (π_t = D_t MP_{1/t} shares them through the dilation s) ------------
    _dil = 1.0

    def _y_mp(self):
        return to_mp(self.values[self._y_symbol])

    def _dil_mp(self):
        return mpmath.mpf(1)

    @property
    def _float_support(self):
        """(s·a, s·b) correctly rounded from reference-precision arithmetic: the ends the cdf
        tables use (float64 arithmetic on (1 ∓ √y)²·s was an ulp or two off, so that ppf/isf
        answered from the tables' ends fell outside the reported support)."""
        return self._edge_data[:2]

    @mp_route
    def _support(self, dps):
        if dps is None:
            return [self._float_support]
        a, b = _edges(MPMATH, self._y_mp())
        s = self._dil_mp()
        return [(s * a, s * b)]

    def _atoms_raw(self, dps):
        # AlgebraicLaw's raw atoms: dps=None means the float64 reference precision
        return self._atoms_mp(dps or FLOAT_REFERENCE_DPS)

    @mp_route
    def _atoms_mp(self, dps):
        y = self._y_mp()
        return [(mpmath.mpf(0), 1 - 1 / y)] if y > 1 else []

    @property
    def _edge_data(self):
        """(A, B, A − float(A), B − float(B)) for the ends A, B = s·a, s·b of the law (s its
        dilation) from reference-precision arithmetic: x − A and B − x then keep their
        relative accuracy next to the edges, (B − x) = (float(B) − x) + (B − float(B)), with
        no rounding of x/s (FreePoisson(876): x/s rounded by 1e-7 of the distance at 1e-8 of
        the width from the end, and the density with it)."""
        d = self.__dict__.get("_edge_data_")
        if d is None:
            with workdps(FLOAT_REFERENCE_DPS):
                a, b = _edges(MPMATH, self._y_mp())
                s = self._dil_mp()
                a, b = s * a, s * b
                af, bf = float(a), float(b)
                d = self.__dict__["_edge_data_"] = (af, bf, float(a - af), float(b - bf))
        return d

    def _pdf_float(self, x):
        # ρ_s(x) = ρ(x/s)/s = √((B − x)(x − A))/(2π y x s) at the dilated ends A, B
        a, b, ca, cb = self._edge_data
        out = _mp_pdf(x, self.ratio, a, b, ca, cb) / self._dil
        out[np.isnan(x)] = np.nan
        return out

    def _cauchy_float(self, zz):
        s = self._dil
        a, b = _edges(FLOAT64, self.ratio)
        zs = zz if s == 1 else _complex(zz.real / s, zz.imag / s)
        out = _mp_cauchy(zs, self.ratio, a, b)
        if s != 1:
            out = _complex(out.real / s, out.imag / s)
        out[np.isnan(zz.real) | np.isnan(zz.imag)] = np.nan
        return out

    @property
    def _near_ends(self):
        """(NearEnds of [s·a, s·b], atom mass at 0 in long double): the closed-form cdf/sf."""
        d = self.__dict__.get("_near_ends_")
        if d is None:
            with workdps(FLOAT_REFERENCE_DPS):
                y, s = self._y_mp(), self._dil_mp()
                a, b = _edges(MPMATH, y)
                ends = _EndMasses(y)
                atom = 1 - 1 / y if y > 1 else mpmath.mpf(0)
                ne = NearEnds(s * a, s * b, 1 - atom, ends.left, ends.right)
                d = self.__dict__["_near_ends_"] = (ne, to_ld(atom))
        return d

    def _partial_float(self, x, upper):
        """cdf (sf with ``upper``) in float64: the masses of :class:`_EndMasses` from the nearer
        end in long double, the atom added there and the sum rounded once, so that the cdf is
        monotone to the ulp and sf keeps its relative accuracy up to b (module notes of
        laws/_closed.py); exactly 0 and 1 beyond the ends."""
        x = np.asarray(x, dtype=float)
        ne, atom = self._near_ends
        nonneg = x >= 0
        # below 0: cdf 0, sf 1; [0, A]: the atom; from B on: cdf 1, sf 0
        if upper:
            out = np.where(nonneg, float(ne.mass), 1.0)
            out[x >= ne.B] = 0.0
        else:
            out = np.where(nonneg, float(atom), 0.0)
            out[x >= ne.B] = 1.0
        inside = (x > ne.A) & (x < ne.B)
        if np.any(inside):
            L, R, _ = ne.split(x[inside])
            out[inside] = (R if upper else atom + L).astype(float)
        out[np.isnan(x)] = np.nan
        return out

    def _exact_ends(self):
        return [self._near_ends[0].exact_ends()]

    def _cdf_sf_at_distance(self, i, from_right, d):
        """The closed-form (cdf, sf) of :meth:`_partial_float` at the distance d from an end."""
        ne, atom = self._near_ends
        L, R, _ = ne.split_at(d, from_right)
        return (atom + L).astype(float), R.astype(float)

    def _cdf_float(self, x):
        return self._partial_float(x, False)

    def _sf_float(self, x):
        return self._partial_float(x, True)

    def _ppf_float(self, q):
        """Smallest double x with cdf(x) ≥ q: bisection on the doubles of the closed-form cdf
        (:func:`~freeattn.laws._closed.bisect_doubles`), so ppf inverts the reported cdf to
        the ulp in either tail, without the θ-tables."""
        return bisect_doubles(q, self._cdf_float, *self._span())

    def _isf_float(self, q):
        """Smallest double x with sf(x) ≤ q (bisection on the closed-form sf)."""
        return bisect_doubles(q, self._sf_float, *self._span(), upper=True)

    def _span(self):
        """(left end, right end) of the law: the atom at 0 (y > 1) or a, and b."""
        ne, atom = self._near_ends
        return (0.0 if atom > 0 else ne.A), ne.B

    def _partial_mp(self, x, dps, upper):
        """cdf (sf with ``upper``) at the working precision from the closed form of
        :class:`_EndMasses` (from a: the arctangent form; from b: its mirror
        [(1 + y)ψ − 2√y sin ψ − 2√(ab) atan(√(a/b) tan(ψ/2))]/(2πy)), evaluated with the digits
        its cancellation costs added (:func:`~freeattn.laws._closed.lost_digits`).  The
        θ-integral route it replaces lost 1e-7 of cdf(a + 1e-12·(b − a), dps=30) for
        y = 1 ± 2⁻⁴⁰, where a ≪ b − a puts a scale a inside the first θ-panel."""
        if mpmath.isnan(x):
            return mpmath.nan
        one, zero = mpmath.mpf(1), mpmath.mpf(0)
        y, s = self._y_mp(), self._dil_mp()
        atom = 1 - 1 / y if y > 1 else zero
        if x < 0:
            return one if upper else zero
        a, b = _edges(MPMATH, y)
        xs = x / s
        if xs <= a:
            return 1 - atom if upper else atom
        if xs >= b:
            return zero if upper else one
        w0 = min(xs - a, b - xs) / (b - a)
        with mpmath.extradps(lost_digits(w0, y)):
            y, s = self._y_mp(), self._dil_mp()
            a, b = _edges(MPMATH, y)
            xs = x / s
            dl, dr, width = xs - a, b - xs, b - a
            r, sab = mpmath.sqrt(y), abs(1 - y)
            if dl <= dr:
                th = 2 * mpmath.asin(mpmath.sqrt(dl / width))
                val = (1 + y) * th + 2 * r * mpmath.sin(th)
                if a > 0:
                    val -= 2 * sab * mpmath.atan(mpmath.sqrt(b / a) * mpmath.tan(th / 2))
                low = val / (2 * mpmath.pi * y)
                out = (1 - atom) - low if upper else atom + low
            else:
                psi = 2 * mpmath.asin(mpmath.sqrt(dr / width))
                val = (1 + y) * psi - 2 * r * mpmath.sin(psi)
                val -= 2 * sab * mpmath.atan(mpmath.sqrt(a / b) * mpmath.tan(psi / 2))
                up = val / (2 * mpmath.pi * y)
                out = up if upper else 1 - up
        return +out

    def _quantile_newton_mp(self, q, x, dps, upper):
        (a, b), = self._support(dps)
        return newton_closed_mp(self, q, x, dps, a, b, tolerance(dps + _NEWTON_EXTRA_DPS), upper)

    @mp_route
    def _pdf_mp(self, x, dps):
        y, s = self._y_mp(), self._dil_mp()
        a, b = _edges(MPMATH, y)
        return _density(MPMATH, x / s, y, a, b) / s

    @mp_route
    def _cauchy_mp(self, zv, dps):
        y, s = self._y_mp(), self._dil_mp()
        a, b = _edges(MPMATH, y)
        return cauchy_mp_upper(mpmath.mpc(zv) / s, lambda zq: _cauchy_upper(MPMATH, zq, y, a, b) / s)


class FreePoisson(MarchenkoPastur):
    """Free Poisson law π_t of rate t (jump size 1): free cumulants κ_q = t for all q.

    π_t = D_t MP_{1/t}: mean t; atom 1 − t at 0 when t < 1; support
    [(1 − √t)², (1 + √t)²].  Polynomial: z G² + (t − 1 − z) G + 1 = 0 (Nica & Speicher
    2006, Lecture 12).  Closed forms as for :class:`MarchenkoPastur`, dilated by t.

    Parameters
    ----------
    rate : float > 0, or an exact number (kept exact, as for MarchenkoPastur)

    Raises
    ------
    ParameterError
        If ``rate`` is not a finite number > 0 (``.param == "rate"``; a ``ParameterTypeError``
        for a non-number).
    """

    parameters = (Param("rate", "positive", "t", "rate (free cumulants κ_q = t)"),)

    def __init__(self, rate):
        t_exact = self.parameters[0].exact(rate)
        self.rate = float(t_exact)
        self.ratio = 1 / self.rate
        self._dil = self.rate
        t = fresh("t")
        self._t_symbol = t
        AlgebraicLaw.__init__(self, z * G**2 + (t - 1 - z) * G + 1, {t: t_exact},
                              name=f"FreePoisson(rate={self.rate:g})")

    def _y_mp(self):
        return 1 / to_mp(self.values[self._t_symbol])

    def _dil_mp(self):
        return to_mp(self.values[self._t_symbol])
