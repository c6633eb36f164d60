"""The inputs of the rectangular free convolution ⊞_λ (:mod:`freeattn.convolution.rectangular`):
G and G′ of each input law at complex points, warm-started, with Newton's method on P(g, u) = 0
for an algebraic input (its float coefficient table, mapped from the base law's for an affine
image) and the law's own G where that polish fails."""
from __future__ import annotations

import mpmath
import numpy as np

from .._context import TINY, to_mp
from .._validation import ParameterError
from ..algebraic.numeric_polynomial import _FLOAT_TABLE_DPS
from ..laws.affine import AffineImage
from ..laws.algebraic import AlgebraicLaw
from ._dispatch import hull  # the convolutions' one hull (no cdf tables of the inputs)
from .subordination_inputs import _PolishRule, _PolyInput

#: an input whose support starts below −_NEGATIVE_TOL·(1 + b) is not on [0, ∞); atoms within
#: _LOCATION_TOL·(1 + |x|) of each other (or of 0) are one location
_NEGATIVE_TOL = 1e-12
_LOCATION_TOL = 1e-12
#: polishing G of an algebraic input: stop at a relative step _POLISH_STOP, accept at
#: _POLISH_ACCEPT, on the sheet Im g·Im u ≤ _POLISH_SHEET·|g|, within _POLISH_NEAR of the guess
_POLISH_STOP = 1e-14
_POLISH_ACCEPT = 1e-11
_POLISH_SHEET = 1e-12
_POLISH_NEAR = 0.25
_POLISH_STEPS = 12
#: a polish not accepted from the prediction is retried along the segment from the guess's
#: point in this many predicted and polished steps before the law's own G
_POLISH_SUBSTEPS = 4
#: Im u in (−_AXIS_SNAP·|u|, 0) is rounding of a point on the real axis
_AXIS_SNAP = 1e-13


def _poly_coefficients(law):
    """Float coefficient matrix of the law's P(G, z): rows G^deg..G^0, columns z^dz..z^0.

    The law's own float64 table (:class:`~freeattn.algebraic.numeric.NumericPolynomial`,
    evaluated at high precision and cached on the law, which its G builds anyway) instead of
    a second sympy expansion of P (0.23 s for the MHA law at a preset).  An affine image of
    an algebraic law whose table is not built yet (the dilated MHA law of a residual law)
    maps its base law's table (:func:`_affine_coefficients`) instead of building its own
    polynomial P(sG, (z − a)/s) exactly (0.1 s of sympy at a preset)."""
    src = law.__dict__.get("_affine_source")
    if src is not None and "_num" not in law.__dict__ and isinstance(src[0], AlgebraicLaw):
        cf = _affine_coefficients(src[0]._num, src[1], src[2])
    else:
        cf = np.asarray(law._num.cf, dtype=complex)
    return cf / np.max(np.abs(cf))


def _affine_coefficients(num, shift, scale):
    """The float table of P(sG, (z − a)/s)·s^dz from the base law's NumericPolynomial
    ``num`` (its coefficients at _FLOAT_TABLE_DPS digits, the precision of its own float
    table): the polynomial of x ↦ a + s x of the law (G_new(z) = G((z − a)/s)/s), up to a
    constant factor; rows G^deg..G^0, columns z^dz..z^0."""
    with mpmath.workdps(_FLOAT_TABLE_DPS):
        c = num.coefficients_mp()
        a, s = to_mp(shift), to_mp(scale)
        deg, dz = len(c) - 1, len(c[0]) - 1
        out = [[mpmath.mpf(0)] * (dz + 1) for _ in range(deg + 1)]
        for k in range(deg + 1):
            sk = s ** k
            for jp in range(dz + 1):
                if not c[k][jp]:
                    continue
                # c·(sG)^k ((z − a)/s)^j′ s^dz = c s^(k + dz − j′) Σ_j C(j′, j) z^j (−a)^(j′ − j)
                base = c[k][jp] * sk * s ** (dz - jp)
                for j in range(jp + 1):
                    out[k][j] += base * mpmath.binomial(jp, j) * (-a) ** (jp - j)
        return np.array([[complex(float(out[k][j])) for j in range(dz, -1, -1)]
                         for k in range(deg, -1, -1)])


class _Input(_PolyInput):
    """G and G′ of one input law at complex points, warm-started.

    For an :class:`AlgebraicLaw` without a closed form, Newton's method on P(g, u) = 0 polishes
    a guess (first-order prediction from the previous point, or 1/u far out), accepted when it
    converges near the guess on the sheet Im g · Im u ≤ 0 (points u lie on both sides of the
    axis); other points fall back to the law's own G.  G′ = −∂_zP/∂_GP there.  Any other
    law: its own hooks.  The polynomial machinery is the subordination solver's
    (:class:`~freeattn.convolution.subordination_inputs._PolyInput`), under this rule."""

    _rule = _PolishRule(steps=_POLISH_STEPS, stop=_POLISH_STOP, extra=0, accept=_POLISH_ACCEPT,
                        near=_POLISH_NEAR, sheet=_POLISH_SHEET, sheet_by_sign=True)

    #: the edges' direct Newton (:meth:`RectangularConvolution._edge_from_scan`) sets this:
    #: a point whose polish fails gives NaN instead of the law's own G (a dear tracked
    #: evaluation), and that Newton gives up at once
    strict = False

    def __init__(self, law, param="mu"):
        self.law = law
        self.poly = None
        #: the law has its own (closed-form) G: used as it is, G′ from the polynomial
        # (an affine image answers G from its base law: closed when the base law's G is)
        src = law.base if isinstance(law, AffineImage) else law
        self.closed = type(src)._cauchy_float is not AlgebraicLaw._cauchy_float
        if isinstance(law, AlgebraicLaw):
            cf = _poly_coefficients(law)
            dcf = np.array([np.polyder(r) if r.size > 1 else np.zeros(1) for r in cf])
            self.poly = (cf, dcf.reshape(cf.shape[0], -1))
        lo, hi = hull(law)
        if lo < -_NEGATIVE_TOL * (1 + abs(hi)):
            raise ParameterError(param, f"{param} = {law.name} must be a law of squared singular values "
                                       f"(supported on [0, ∞)); its support starts at {lo}")
        self.hull = (max(lo, 0.0), hi)
        self.mean = float(law.mean())

    def value(self, u, guess=None):
        """(G(u), G′(u)); ``guess`` = (u₀, G(u₀), G′(u₀)) at nearby points or None.

        A point within rounding of the real axis is taken on it (G(x + i0), the limit from
        above): a subordination point on the input's support (e.g. u₂ = y for δ₀ ⊞_λ ν) must
        not be evaluated on the conjugate sheet because of a −1e-17 imaginary part."""
        u = np.asarray(u, dtype=complex)
        tiny = (u.imag < 0) & (u.imag > -_AXIS_SNAP * (np.abs(u) + TINY))
        if np.any(tiny):
            u = np.where(tiny, u.real + 0j, u)
        if self.poly is None:
            with np.errstate(all="ignore"):
                g = self.law._cauchy_float(u)
                dg = self.law._cauchy_derivative_float(u)
            return g, dg
        C, dC = self._coeffs(u, deriv=True)
        if self.closed:
            with np.errstate(all="ignore"):
                g = self.law._cauchy_float(u)
            return g, self._derivative(g, C, dC)
        g0, _ = self._predict(u, guess, fill=True)
        g, ok = self._polish(g0, u, C)
        if self.strict:  # no fallback: NaN where the polish is not accepted
            g = np.where(ok, g, np.nan)
        else:
            if not np.all(ok) and guess is not None and guess[0].shape == u.shape:
                g, ok = self._substeps(g, ok, u, guess)
            g = self._fallback(g, ok, u)
        return g, self._derivative(g, C, dC)

    def _substeps(self, g, ok, u, guess):
        """Points whose polish from the first-order prediction was not accepted (a long step
        of the ladder's upper rungs: the prediction ~30 % off), continued from the guess's
        point u₀ to u in :data:`_POLISH_SUBSTEPS` equal steps, each predicted and polished
        under the same rule; the segment stays on one side of the axis, where G is analytic,
        so the branch continued is the guess's.  A point that fails a sub-step keeps
        ``ok`` False (the law's own G then).  Before, those points went to the law's G (all
        roots of P by eigenvalues, then the branch selection): ~40 % of the support's time."""
        u0, g0, d0 = guess
        with np.errstate(all="ignore"):
            idx = np.flatnonzero(~ok & np.isfinite(g0) & np.isfinite(d0) & np.isfinite(u0)
                                 & (np.sign(u0.imag) == np.sign(u.imag)) & (u.imag != 0))
            if idx.size == 0:
                return g, ok
            ua, ub, ga, da = u0[idx], u[idx], g0[idx], d0[idx]
            live = np.ones(idx.size, bool)
            for k in range(1, _POLISH_SUBSTEPS + 1):
                ut = ua + (ub - ua) * (k / _POLISH_SUBSTEPS)
                Ct, dCt = self._coeffs(ut, deriv=True)
                gt, okt = self._polish(ga + da * (ut - ua), ut, Ct)
                live &= okt
                ga, da, ua = gt, self._derivative(gt, Ct, dCt), ut
            g[idx[live]] = ga[live]
            ok[idx[live]] = True
        return g, ok

    def value_mp(self, u, dps):
        g = mpmath.mpc(self.law.cauchy_transform(u, dps=dps))
        dg = mpmath.mpc(self.law.cauchy_transform_derivative(u, dps=dps))
        return g, dg


def _mass_at(atoms, x, tol=_LOCATION_TOL):
    return sum((m for a, m in atoms if abs(a - x) <= tol * (1 + abs(x))), 0.0)
