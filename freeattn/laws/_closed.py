"""Helpers shared by the closed-form laws (semicircle, Marchenko–Pastur / free Poisson):
complex assembly without 0·∞, the symmetry G(z̄) = conj G(z) at the ends of the plane, and
the cdf/sf of a support interval from its nearer end in extended precision (:class:`NearEnds`)."""
from __future__ import annotations

import math

import mpmath
import numpy as np

from .._context import FLOAT_REFERENCE_DPS
from ..quadrature.tables import newton_mp

__all__ = ["complex_array", "cauchy_mp_upper", "LD", "to_ld", "NearEnds", "half_angle", "psi_minus_sin",
           "PI_LD", "bisect_doubles",
           "MP_CDF_GUARD_DPS", "lost_digits", "newton_closed_mp"]


def complex_array(re, im):
    """re + i·im without the 0·∞ = NaN of a complex product."""
    out = np.empty(np.shape(re), dtype=complex)
    out.real = re
    out.imag = im
    return out


def cauchy_mp_upper(zv, g_upper):
    """G(z) at an mpmath point from ``g_upper(ζ)``, its formula on the closed upper half-plane:
    NaN → NaN, an infinite point → 0 (G ~ 1/z), Im z < 0 → conj G(z̄)."""
    zv = mpmath.mpc(zv)
    if mpmath.isnan(zv.real) or mpmath.isnan(zv.imag):
        return mpmath.mpc(mpmath.nan, mpmath.nan)
    if not mpmath.isfinite(zv):
        return mpmath.mpc(0)
    if zv.imag < 0:
        val = g_upper(mpmath.conj(zv))
        return mpmath.conj(val) if mpmath.isfinite(val) else val
    return g_upper(zv)


# ------------------------------------------------------------ cdf and sf from the nearer end
#: extended precision of the closed-form cdf/sf (x87 80-bit on x86-64 Linux: 64-bit
#: significand, unit roundoff 5.4e-20).  The value is computed there and rounded once to
#: float64: rounding is monotone, so the float64 cdf is monotone to the ulp wherever the
#: extended value is, i.e. wherever its error (≈ 1e-19 of the value) is below the step of the
#: exact cdf between neighbouring doubles (ρ(x)·ulp(x)).  Where numpy's long double is plain
#: float64 (Windows, macOS arm) the same code runs in float64, accurate but not monotone to
#: the ulp.
LD = np.longdouble
#: digits of a reference-precision number passed to long double (64-bit significand: 20)
_LD_DIGITS = 24


def to_ld(v):
    """An mpmath number (or float) as a long double, rounded from ``_LD_DIGITS`` digits."""
    return LD(mpmath.nstr(mpmath.mpf(v), _LD_DIGITS, strip_zeros=False))


class NearEnds:
    """One support interval [a, b] of a closed-form law, with the ends known to reference
    precision: float ends A, B (correctly rounded) and their excesses e_A = A − a,
    e_B = b − B, so that the distances x − a = (x − A) + e_A and b − x = (B − x) + e_B are
    formed in long double from the float64 x (x − A is exact there while the exponents of x
    and A differ by at most 11) and keep their relative accuracy next to either end.

    ``split(x)`` gives (L, R) = (∫_a^x ρ, ∫_x^b ρ) in long double, each from its own end:
    ``left(w)`` / ``right(w)`` is the mass within the fraction w ∈ [0, 1/2] of the width
    from a / from b, the other one is ``mass`` minus it (exact complement, one code path for
    cdf and sf).  The switch is at x − a = b − x."""

    def __init__(self, a, b, mass, left, right):
        """a, b: mpf at (at least) the reference precision; mass: the interval's mass;
        left, right: callables w → mass (long double arrays)."""
        # a, b as given (not rounded again here): the excesses are differences of a, b and
        # their doubles, as accurate as a and b themselves
        with mpmath.workdps(FLOAT_REFERENCE_DPS):
            self.A, self.B = float(a), float(b)
            self.eA, self.eB = to_ld(self.A - a), to_ld(b - self.B)
            self.width = to_ld(b - a)
            self.mass = to_ld(mass)
        self.left, self.right = left, right

    def distances(self, x):
        """(x − a, b − x) in long double (each ≥ 0 inside [a, b])."""
        xl = np.asarray(x, dtype=float).astype(LD)
        return (xl - LD(self.A)) + self.eA, (LD(self.B) - xl) + self.eB

    def exact_ends(self):
        """(A, cA, B, cB): the exact ends a = A + cA, b = B + cB (excesses as doubles)."""
        return self.A, float(-self.eA), self.B, float(self.eB)

    def split(self, x):
        return self._split(*self.distances(x))

    def split_at(self, d, from_right=False):
        """:meth:`split` at the points whose distance from a (``from_right``: from b) is the
        float64 d ≥ 0, the distance given instead of formed from a double x (an affine image
        maps its argument here as a distance, :mod:`freeattn.laws.affine`)."""
        d = np.maximum(np.asarray(d, dtype=float), 0.0).astype(LD)
        return self._split(*((self.width - d, d) if from_right else (d, self.width - d)))

    def _split(self, dl, dr):
        on_left = dl <= dr
        zero, half = LD(0), LD(0.5)
        L, R = np.empty(dl.shape, dtype=LD), np.empty(dl.shape, dtype=LD)
        if np.any(on_left):
            lo = np.minimum(self.left(np.clip(dl[on_left] / self.width, zero, half)), self.mass)
            L[on_left], R[on_left] = lo, self.mass - lo
        on_right = ~on_left
        if np.any(on_right):
            up = np.minimum(self.right(np.clip(dr[on_right] / self.width, zero, half)), self.mass)
            R[on_right], L[on_right] = up, self.mass - up
        return L, R, on_left


with mpmath.workdps(FLOAT_REFERENCE_DPS):
    #: π in long double
    PI_LD = to_ld(mpmath.pi)


def half_angle(w):
    """(θ, sin θ, tan(θ/2)) for w = sin²(θ/2) ∈ [0, 1/2] in long double (x = a + (b − a)w)."""
    s = np.sqrt(w)
    c = np.sqrt(1 - w)
    return 2 * np.arcsin(s), 2 * s * c, s / c


#: ψ below which ψ − sin ψ is summed from its Taylor series (no cancellation); above, the
#: difference loses at most a factor 1/(1 − sin 1/1) ≈ 6 of the long double precision
_SERIES_BELOW = 1.0
#: terms of that series: ψ^(2k+3)/(2k+3)! < 1e-24 of ψ³/6 at ψ = 1 for k < 12
_SERIES_TERMS = 12


def psi_minus_sin(psi, sin_psi=None):
    """ψ − sin ψ in long double, relative accuracy ~1e-19 for ψ ∈ [0, π] (Taylor series
    ψ³/3! − ψ⁵/5! + … below ψ = 1, the difference itself above).  ``sin_psi``: sin ψ where
    the caller has it algebraically (the long double ``np.sin`` is ~10x its arcsine's cost);
    it is used above ψ = 1 only."""
    psi = np.asarray(psi, dtype=LD)
    small = psi < _SERIES_BELOW
    out = np.empty(psi.shape, dtype=LD)
    big = ~small
    if np.any(big):
        out[big] = psi[big] - (np.sin(psi[big]) if sin_psi is None else np.asarray(sin_psi, dtype=LD)[big])
    if np.any(small):
        p = psi[small]
        p2 = p * p
        acc = np.full(p.shape, _SERIES_COEFFS[0], dtype=LD)
        # Horner in ψ² of Σ (−1)^k ψ^(2k)/(2k+3)!, innermost term first (in place)
        for c in _SERIES_COEFFS[1:]:
            acc *= p2
            np.subtract(c, acc, out=acc)
        acc *= p2
        acc *= p
        out[small] = acc
    return out


#: 1/(2k+3)! for k = _SERIES_TERMS − 1 … 0, the Horner order of psi_minus_sin
_SERIES_COEFFS = [LD(1) / LD(math.factorial(2 * k + 3)) for k in range(_SERIES_TERMS - 1, -1, -1)]


_SIGN_BIT = np.int64(-(2 ** 63))
_LOW_BITS = np.int64(2 ** 63 - 1)


def _order_key(x):
    """Doubles → int64 keys in the same order (consecutive doubles: consecutive keys)."""
    i = np.asarray(x, dtype=float).view(np.int64)
    return np.where(i >= 0, i, -(i & _LOW_BITS))


def _from_key(k):
    k = np.asarray(k, dtype=np.int64)
    return np.where(k >= 0, k, (-k) | _SIGN_BIT).view(float)


#: exponent of the edge-flattening transform of the interpolation steps of bisect_doubles:
#: next to a square-root edge a mass goes as (distance)^(3/2), so its 2/3 power is linear there
_EDGE_POWER = 2.0 / 3.0
#: points of the table that gives bisect_doubles its first brackets
_TABLE_POINTS = 2049
#: safety factor of the predicted error of an interpolation step of bisect_doubles
_SECANT_MARGIN = 16.0
#: the secant of the previous call's two points is used where they are this far apart
#: (relative to the bracket's magnitude), the bracket's ends elsewhere
_SECANT_MIN_SPAN = 2.0 ** -30
#: an interpolation step halves the bracket when it leaves at most this fraction of it (in
#: doubles); after _SLOW_CALLS calls in a row that did not, the next is a bisection
#: (the worst case stays ≤ (_SLOW_CALLS + 1)·64 calls)
_MIN_SHRINK = 0.5
_SLOW_CALLS = 3
#: calls after which the points still open are bisected to the end (≤ 64 more calls: a
#: bound whatever the interpolation does, e.g. on a span of ±1e308)
_INTERP_CALLS = 64


def _edge_flat(v, q, upper):
    """A transform of the values v (cdf or, with ``upper``, sf) that increases with x and is
    ~linear in x next to the end the target q is nearer to (square-root edges)."""
    v = np.asarray(v, dtype=float)
    low = q <= 0.5
    with np.errstate(invalid="ignore"):
        near = np.where(low, v, 1 - v).clip(0, None) ** _EDGE_POWER
    return np.where(low != upper, near, -near)


# own root finder, not scipy.optimize: vectorised over all q at once and exact on the doubles
# (scipy's root finders stop at a tolerance in x, not at the smallest double of the value)
def bisect_doubles(q, value, lo, hi, upper=False):
    """Smallest double x in [lo, hi] with value(x) ≥ q (``upper``: value(x) ≤ q) for a
    monotone ``value`` (a cdf; with ``upper`` an sf) that reaches q at hi, exact at every scale
    and in every tail (ppf(1e-300) next to an end included).  q = 1 (``upper``: q = 0) gives
    hi, the right end, as ppf(1) and isf(0) are defined.

    A bracket [x_lo, x_hi] of doubles (value not reached at x_lo, reached at x_hi), first
    from a table of ``value`` on ``_TABLE_POINTS`` doubles, shrinks until they are
    neighbours.  Each vectorised call of ``value`` takes two points per q: the
    interpolated root of a transform of the values linear next to a square-root edge
    (:func:`_edge_flat`) minus and plus the size of the last correction (so that a
    converging sequence brackets the root from both sides and closes in a few calls), the
    interpolation through the two points of the previous call (a secant: a Newton step) or,
    at first, the bracket's ends; after ``_SLOW_CALLS`` calls that did not halve the bracket
    one bisects (in x, or on the doubles' order keys where the bracket spans scales), and
    after ``_INTERP_CALLS`` calls only bisects, so the worst case is ≤ _INTERP_CALLS + 64 calls."""
    q = np.asarray(q, dtype=float)
    reach = (lambda v, t: v <= t) if upper else (lambda v, t: v >= t)
    shape = q.shape
    q = q.ravel()
    n = q.size
    # the first bracket from a table of the value on doubles from lo to hi, denser next to
    # the ends (x = lo + (hi − lo) sin²(πj/2N)): exact, as the table holds the reported values
    lo, hi = float(lo), float(hi)
    s2 = np.sin(np.linspace(0.0, 0.5 * np.pi, _TABLE_POINTS)) ** 2
    tx = lo * (1 - s2) + hi * s2 if np.isfinite(lo) and np.isfinite(hi) else np.empty(0)  # no overflow
    tx = np.unique(np.clip(np.concatenate([[lo, hi], tx]), lo, hi))
    tv = np.asarray(value(tx), dtype=float)
    j = np.searchsorted(-tv, -q) if upper else np.searchsorted(tv, q)  # first reached
    j = np.minimum(j, tx.size - 1)  # hi: reached by assumption
    at_lo = j == 0
    jl = np.maximum(j - 1, 0)
    klo, khi = _order_key(tx[jl]), _order_key(tx[j])
    vlo, vhi = tv[jl], tv[j]
    prev = np.full(n, np.nan)  # the previous interpolated point (NaN: none yet)
    # the two points of the previous call (close to each other and to the root: their secant
    # is a Newton step), NaN at first
    px, pv = np.full((2, n), np.nan), np.full((2, n), np.nan)
    slow = np.zeros(n, dtype=np.int64)  # calls in a row that did not halve the bracket
    active = np.flatnonzero(~at_lo & (khi > klo + 1))
    calls = 0
    while active.size:
        a, b, qa = klo[active], khi[active], q[active]
        xa, xb = _from_key(a), _from_key(b)
        # bisection point: the middle in x within a factor 2 of scale, elsewhere the middle in
        # the doubles' order (so both the width and the scale of the root converge)
        kmid = a // 2 + b // 2 + (a % 2 + b % 2) // 2  # no int64 overflow
        with np.errstate(invalid="ignore", over="ignore"):
            xm = 0.5 * xa + 0.5 * xb
        one_scale = ((xa > 0) & (xb <= 2 * xa)) | ((xb < 0) & (xa >= 2 * xb))
        km = np.where(one_scale & np.isfinite(xm), _order_key(np.where(one_scale, xm, 0.0)), kmid)
        km = np.where((km > a) & (km < b), km, kmid)
        x1, x2, v1, v2 = px[0, active], px[1, active], pv[0, active], pv[1, active]
        g1, g2, gq = (_edge_flat(v, qa, upper) for v in (v1, v2, qa))
        # (only where the two are far enough apart for their values' rounding not to matter)
        own = np.isfinite(g1) & np.isfinite(g2) & (g1 != g2) & \
            (np.abs(x2 - x1) > _SECANT_MIN_SPAN * np.maximum(np.abs(xa), np.abs(xb)))
        ga = np.where(own, g1, _edge_flat(vlo[active], qa, upper))
        gb = np.where(own, g2, _edge_flat(vhi[active], qa, upper))
        ya, yb = np.where(own, x1, xa), np.where(own, x2, xb)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            xi = np.clip(ya + (gq - ga) / (gb - ga) * (yb - ya), xa, xb)
            pa = prev[active]
            # ± the error an interpolation step leaves, ~ c²/(hi − lo) after a correction
            # (at first: a bracket) c, with a margin (_SECANT_MARGIN)
            c = np.where(np.isnan(pa), xb - xa, np.abs(xi - pa))
            d = _SECANT_MARGIN * c * np.minimum(c / (hi - lo), 1)
        ok_i = np.isfinite(xi) & np.isfinite(d) & (slow[active] < _SLOW_CALLS) & (calls < _INTERP_CALLS)
        calls += 1
        xi, d = np.where(ok_i, xi, xm), np.where(ok_i, d, 0.0)
        ki = _order_key(xi)
        k1 = np.where(ok_i, np.minimum(_order_key(xi - d), ki - 1), km)
        k2 = np.where(ok_i, np.maximum(_order_key(xi + d), ki + 1), km)
        k1, k2 = np.clip(k1, a + 1, b - 1), np.clip(k2, a + 1, b - 1)
        e1, e2 = _from_key(k1), _from_key(k2)
        v = np.asarray(value(np.concatenate([e1, e2])), dtype=float)
        v1, v2 = v[:k1.size], v[k1.size:]
        r1, r2 = reach(v1, qa), reach(v2, qa)
        # new bracket: the largest point not reached, the smallest reached (k1 ≤ k2)
        na = np.where(r1, a, np.where(r2, k1, k2))
        nva = np.where(r1, vlo[active], np.where(r2, v1, v2))
        nb = np.where(r1, k1, np.where(r2, k2, b))
        nvb = np.where(r1, v1, np.where(r2, v2, vhi[active]))
        # halved in the doubles' order (in x alone a root next to 0 is approached a factor 2 a
        # call from 1e308): at most 64 halvings, so the bound below holds
        halved = (nb - na) <= _MIN_SHRINK * (b - a)
        slow[active] = np.where(halved, 0, slow[active] + 1)
        prev[active] = np.where(ok_i, xi, pa)
        px[0, active], px[1, active], pv[0, active], pv[1, active] = e1, e2, v1, v2
        klo[active], khi[active], vlo[active], vhi[active] = na, nb, nva, nvb
        active = active[khi[active] > klo[active] + 1]
    out = np.where(at_lo, float(lo), _from_key(khi))
    return np.where((q <= 0) if upper else (q >= 1), float(hi), out).reshape(shape)


# ------------------------------------------------------------ the same at mpmath precision
#: guard digits of the mpmath closed-form cdf/sf beyond the digits its cancellation costs
MP_CDF_GUARD_DPS = 10


def lost_digits(w, *scales):
    """Digits a closed-form mass loses to cancellation at the fraction w of the width from
    its end (terms O(θ), value O(θ³): log10(1/w)) and at the scales given (a ratio y or 1/y:
    |log10 scale|); the mpmath routes add them to the working precision."""
    out = int(mpmath.ceil(-mpmath.log10(w))) if w > 0 else 0
    for v in scales:
        out += int(mpmath.ceil(abs(mpmath.log10(v))))
    return out + MP_CDF_GUARD_DPS


def newton_closed_mp(law, q, x, dps, lo, hi, tol, upper):
    """:func:`freeattn.quadrature.tables.newton_mp` on a closed-form law's own ``_partial_mp``
    (the mass between two iterates is the difference of two closed-form values, accurate to
    the working precision of each), for ``_quantile_newton_mp``."""
    if upper:
        between = lambda u, v: law._partial_mp(u, dps, True) - law._partial_mp(v, dps, True)  # noqa: E731
    else:
        between = lambda u, v: law._partial_mp(v, dps, False) - law._partial_mp(u, dps, False)  # noqa: E731
    return newton_mp(q, x, lambda v: law._partial_mp(v, dps, upper), lambda v: law._pdf_mp(v, dps),
                     between, lo, hi, tol, upper=upper)
