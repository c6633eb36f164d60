"""Scalar equations for the effective degrees of freedom w_ν(λ) of the multi-head readout laws.

For the mean-one law ν of F Fᵀ (F = MHA(X)/sqrt(m)) the paper reduces w = w_ν(λ) to one real
equation (Hayase & Karakida 2026, §5.1 and §C.6):

* independent (or across-head shared) Gaussian K/V and output weights, eq. (5.4) / (C.29)::

      λ² w − λ (1 − c_β w/γ_K) Π(−w) − (c_β (1 − c_β)/γ_K) Π(−w)² = 0,
      Π(z) = (1 + z)(1 + z/h)(1 + z/γ_V)(1 + z/γ_O),

  the root in 0 < w < min{1, h, γ_V, γ_O} (drop the V/O factors for attention alone, the O
  factor for the values Z_V);
* complete within-head tying W^V_r = W^K_r, eq. (5.5)::

      λ w = (1 − w)(h − w)(γ_O − w) / (γ_K m S_{μ_KV}(−w/h)),  0 < w < min{1, γ_K, γ_O},

  with μ_KV = φ_KV# π_{γ_K/h}, φ_KV(x) = (θ₁ − θ₂) x + (h θ₂/γ_K) x², m = γ_O(θ₁ + h θ₂/γ_K).
  Writing S_μ(−u) = (1 − u)/(u λ') with w_μ(λ') = u (eq. (C.3)) turns (5.5) into the single
  equation  w_μ(γ_K m λ / ((1 − w)(γ_O − w))) = w/h,  whose left side is a quadrature over the
  free Poisson law (Gauss–Legendre in the angle of the Marchenko–Pastur substitution, §D).

w′(λ) always comes from implicit differentiation of the same equation (eq. (C.30)), never
from a finite difference.  Complex λ (needed by Talbot/de Hoog Laplace inversion) is reached
by continuation along the ray from |λ| = ∞, where w ~ 1/λ, which never crosses the cut
λ ∈ (−∞, 0] of w.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath.calculus.quadrature import GaussLegendre
import sympy as sp
from scipy.optimize import brentq

from .._context import workdps
from .._messages import shown
from .._validation import (Param, ParameterError, ParameterTypeError, in_closed_interval,
                           law_instance, positive, positive_integer)
from ..attention.domains import (BETA_LAW_RANGE, BETA_MODEL_RANGE, GAMMA_RANGE, MAX_HEADS,
                                 check_flag)
from ..attention.single_head import theta1, theta2
from ..laws.base import Law

__all__ = ["ScalarReadoutLaw", "IndependentKV", "TiedKV", "readout_normalisation", "mean_one",
           "LAYER_PARAMS", "readout_law"]


def _heads_domain(name, value):
    """1 ≤ h ≤ MAX_HEADS; real values are allowed (the paper's curves interpolate between
    integer h)."""
    h = positive(name, value)
    if not (1 <= h <= MAX_HEADS):
        raise ParameterError(name, f"{name} must be in [1, {MAX_HEADS}], got {shown(value)}")
    return int(h) if float(h).is_integer() else float(h)


#: the readout laws' parameter domains, declared once from the attention laws' domains
#: (:mod:`freeattn.attention.config`: ``BETA_LAW_RANGE``, ``GAMMA_RANGE``, ``MAX_HEADS``)
LAYER_PARAMS = (
    Param("beta", ("closed", *BETA_LAW_RANGE), "β", "inverse temperature"),
    Param("gamma_k", ("closed", *GAMMA_RANGE), "γ_K", "γ_K = h d_K / n"),
    Param("heads", _heads_domain, "h", f"a number in [1, {MAX_HEADS}]"),
    Param("gamma_v", ("closed", *GAMMA_RANGE), "γ_V", "γ_V = h d_V / n", optional=True),
    Param("gamma_o", ("closed", *GAMMA_RANGE), "γ_O", "γ_O = d_O / n", optional=True),
)
_P = {p.name: p for p in LAYER_PARAMS}

#: above this λ, w = 1/λ and w′ = −1/λ² in float64 (mean-one law; m₂ ≤ ~1e4 on the declared
#: domain, so the next term is below 1e-26 relative), instead of solving with λ² overflowing
LAM_LARGE = 1e30


def _heads(heads):
    return _P["heads"].validate(heads)


def readout_normalisation(beta, gamma_k, heads, gamma_o, tied=False, rho=None):
    """Readout normalisation m = lim ‖MHA^⊥(X)‖_F²/n (so that F = MHA(X)/sqrt(m)).

    Parameters
    ----------
    beta : float in ``BETA_MODEL_RANGE`` = [1e-6, 20]
    gamma_k : float > 0
        γ_K = h d_K / n.
    heads : int ≥ 1
    gamma_o : float > 0
        γ_O = d_O / n.
    tied : bool
        Complete within-head tying W^V_r = W^K_r (d_V = d_K); True or False only (a string
        such as ``"no"`` is refused, not read as true).
    rho : float in [0, 1] or None
        Partial key–value correlation W^V_r = ρ W^K_r + sqrt(1 − ρ²) W̃_r (d_V = d_K);
        ``None`` means independent (or tied, with ``tied=True``).

    Returns
    -------
    float
        γ_O θ₁ for independent K/V (also MQA/GQA), γ_O (θ₁ + h θ₂/γ_K) for tied K = V,
        γ_O (θ₁ + ρ² h θ₂/γ_K) with partial correlation ρ.

    Notes
    -----
    Hayase & Karakida 2026, eq. (C.24), §5.1 and §C.2.1; the ρ case is derived in
    ``derivations/partial_kv.py`` (beyond the paper).
    """
    # β of a finite model (also used for simulated features): θ₁ = e^{β²} − 1 stays finite
    beta = in_closed_interval("beta", beta, *BETA_MODEL_RANGE)
    th1, th2 = theta1(beta), theta2(beta)
    positive("gamma_k", gamma_k)
    heads = _heads(heads)
    positive("gamma_o", gamma_o)
    if check_flag("tied", tied):
        if rho is not None and float(rho) != 1.0:
            raise ParameterError("rho", f"tied K = V means rho = 1, got rho={shown(rho)}")
        return gamma_o * (th1 + heads * th2 / gamma_k)
    if rho is not None:
        rho = in_closed_interval("rho", rho, 0.0, 1.0)
        return gamma_o * (th1 + rho ** 2 * heads * th2 / gamma_k)
    return gamma_o * th1


def mean_one(law, m=None):
    """The law of F Fᵀ for F = Φ/sqrt(m): the dilation D_{1/m} of the law of Φ Φᵀ.

    Parameters
    ----------
    law : Law
        Limiting law of the (centred) feature Gram, e.g. the layer law (C.15) or (C.21).
    m : float or sympy expression, optional
        Readout normalisation (:func:`readout_normalisation`); default the law's mean, which
        makes the result mean one.  An exact sympy value (e.g. ``2*(sp.E - 1)``) keeps an
        algebraic law exact.

    Returns
    -------
    Law
        ``law.dilate(1/m)``.

    Raises
    ------
    ParameterTypeError
        If ``law`` is not a Law; ParameterError ('m') for m not > 0.

    Notes
    -----
    Hayase & Karakida 2026, eq. (C.24): m = lim ‖Φ_⊥‖_F²/n is the mean of the limit law.
    """
    law = law_instance("law", law)
    if m is None:
        m = law.mean()
    try:
        inv = 1 / m if isinstance(m, sp.Basic) else 1 / positive("m", m)
    except ZeroDivisionError:
        raise ParameterError("m", f"m must be > 0, got {shown(m)}") from None
    return law.dilate(inv)


class ScalarReadoutLaw:
    """Base class: a mean-one readout law ν known through a scalar equation for w_ν(λ).

    Subclasses define ``w_max`` (= 1 − ν({0})), ``_res_float(w, lam)`` returning
    ``(f, ∂f/∂w, ∂f/∂λ)`` for real or complex float arguments, ``_res_mp`` the same in mpmath,
    and optionally ``_bracket_float(lam)`` for the real root.
    """

    name = "scalar readout law"
    supports_complex = True
    #: smallest real λ the solver resolves (w lies within ~λ of w_max; see TiedKV)
    lam_min = 0.0

    def _check_lam_min(self, lam):
        try:
            small = (not isinstance(lam, (complex, mpmath.mpc)) or lam.imag == 0) \
                and abs(lam) < self.lam_min
        except TypeError:
            return
        if small:
            raise ParameterError("lam", f"lam must be >= {self.lam_min:g} for {self.name} "
                                 f"(w is within ~lam of its limit 1 − ν({{0}}) and the "
                                 f"equation's float64 solution loses ~1e-16/lam), got {shown(lam)}")

    def mean(self, dps=None):
        """First moment: 1 (the readout law is normalised to mean one)."""
        return 1.0 if dps is None else mpmath.mpf(1)

    @property
    def zero_mass(self):
        """ν({0}) = 1 − w_max."""
        return 1.0 - self.w_max

    # ------------------------------------------------------------- solvers
    def _real_float(self, lam):
        if lam >= LAM_LARGE:  # w = m₁/λ − m₂/λ² + …, m₁ = 1, m₂/λ < 1e-26: w = 1/λ in float64
            return 1.0 / lam
        f = lambda w: self._res_float(w, lam)[0]  # noqa: E731
        w = brentq(f, 0.0, self.w_max, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
        return w

    def _gap_float(self, lam):
        """ε = 1 − w/w_max near w_max (small λ), resolved to full relative precision, or None
        where the law has no gap form (then w itself is accurate enough)."""
        return None

    def _complex_float(self, lam):
        """Continuation in complex128 along the ray {s λ : s ≥ 1} from far away (w ~ 1/λ)."""
        lam = complex(lam)
        r = abs(lam)
        big = 1e8 * max(1.0, r)
        u = lam / r
        s_vals = np.geomspace(big, r, int(math.ceil(math.log(big / r) / math.log(1.3))) + 2)
        lk = s_vals[0] * u
        w = 1.0 / lk
        w = self._newton_float(w, lk)
        for s in s_vals[1:]:
            lnew = s * u
            f, fw, fl = self._res_float(w, lk)
            guess = w - fl / fw * (lnew - lk)
            w = self._newton_float(guess, lnew)
            lk = lnew
        return w

    def _newton_float(self, w, lam, steps=30):
        for _ in range(steps):
            f, fw, _ = self._res_float(w, lam)
            dw = f / fw
            w = w - dw
            if abs(dw) <= 1e-15 * abs(w):
                break
        return w

    def _newton_mp(self, w, lam, dps):
        """Newton from a float64 root (simple root: quadratic convergence); the last step is
        taken once the correction is below the square root of the target accuracy."""
        tol = mpmath.mpf(10) ** (-(dps + 3))
        root_tol = mpmath.sqrt(tol) * 10
        for _ in range(100):
            f, fw, _ = self._res_mp(w, lam, dps)
            dw = f / fw
            w = w - dw
            if abs(dw) <= root_tol * abs(w):
                return w
        raise ArithmeticError(f"Newton iteration for w(λ) did not converge at λ = {lam}")

    def _newton_real_fast(self, w0, lam, dps):
        """Optional faster high-precision Newton for real λ (None: use mpmath)."""
        return None

    def w(self, lam, dps=None):
        """w_ν(λ) at one point λ (real > 0, or complex off (−∞, 0] where supported)."""
        self._check_lam_min(lam)
        if dps is None:
            if isinstance(lam, complex) and lam.imag != 0:
                return self._complex_float(lam)
            return self._real_float(float(lam.real if isinstance(lam, complex) else lam))
        with workdps(dps):
            lam_mp = mpmath.mpmathify(lam)
            if isinstance(lam_mp, mpmath.mpc) and lam_mp.imag != 0:
                w0 = self._complex_float(complex(lam_mp))
                w = self._newton_mp(mpmath.mpc(w0), lam_mp, dps)
            else:
                lam_mp = mpmath.re(lam_mp)
                eps = self._gap_float(float(lam_mp))
                if eps is not None and eps < 1e-3:
                    # w = w_max (1 − ε): Newton in w needs −log10 ε more digits to see ε
                    extra = int(-math.log10(eps)) + 5
                    with workdps(dps + extra):
                        w0 = mpmath.mpf(self.w_max) * (1 - mpmath.mpf(eps))
                        w = self._newton_real_fast(w0, lam_mp, dps + extra)
                        if w is None:
                            w = self._newton_mp(w0, lam_mp, dps + extra)
                else:
                    w0 = self._real_float(float(lam_mp))
                    w = self._newton_real_fast(w0, lam_mp, dps)
                    if w is None:
                        w = self._newton_mp(mpmath.mpf(w0), lam_mp, dps)
        with mpmath.workdps(dps):
            return +w

    def w_derivative(self, lam, w=None, dps=None):
        """w′_ν(λ) by implicit differentiation of the scalar equation: −(∂f/∂λ)/(∂f/∂w)."""
        self._check_lam_min(lam)
        if dps is None and not isinstance(lam, complex) and lam >= LAM_LARGE:
            return -1.0 / lam / lam  # w′ = −m₁/λ² + 2m₂/λ³ − …, as in _real_float
        if dps is None and not isinstance(lam, complex):
            eps = self._gap_float(float(lam))
            if eps is not None and eps < 1e-3:  # near w_max: differentiate the gap form
                return self._gap_derivative_float(eps, float(lam))
        if w is None:
            w = self.w(lam, dps)
        if dps is None:
            _, fw, fl = self._res_float(w, lam)
            return -fl / fw
        extra = 0
        if not isinstance(mpmath.mpmathify(lam), mpmath.mpc):
            eps = self._gap_float(float(lam))
            if eps is not None and eps < 1e-3:
                extra = int(-math.log10(eps)) + 5
                w = self.w(lam, dps + extra)
        with workdps(dps + extra):
            _, fw, fl = self._res_mp(mpmath.mpmathify(w), mpmath.mpmathify(lam), dps + extra)
            d = -fl / fw
        with mpmath.workdps(dps):
            return +d


class IndependentKV(ScalarReadoutLaw):
    """Mean-one readout law of independent (or across-head shared) Gaussian K/V, eq. (5.4).

    ν = D_{1/m}(ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O}), m = γ_O θ₁ (Hayase & Karakida 2026,
    eq. (C.15)); with ``gamma_o=None`` the values Z_V (ν_{∞,h} ⊠ π_{γ_V}, m = γ_V θ₁), with both
    ``None`` attention alone (ν_{∞,h}, m = θ₁).

    Parameters
    ----------
    beta : float in ``BETA_LAW_RANGE`` = [0.01, 4]
    gamma_k : float in ``GAMMA_RANGE`` = [1e-3, 1e3]
        γ_K = h d_K / n.
    heads : 1 ≤ h ≤ ``MAX_HEADS`` = 10 000
        h (a real h interpolates the formula between integer head counts).
    gamma_v, gamma_o : float in ``GAMMA_RANGE`` or None
        γ_V = h d_V / n, γ_O = d_O / n; None drops the factor (see above).

    Raises
    ------
    ParameterError
        If a parameter is outside its domain (the error names it).
    """

    def __init__(self, beta, gamma_k, heads, gamma_v=None, gamma_o=None):
        self.beta = float(_P["beta"].validate(beta))
        self.gamma_k = float(_P["gamma_k"].validate(gamma_k))
        self.heads = _heads(heads)
        if gamma_o is not None and gamma_v is None:
            raise ParameterError("gamma_v", "gamma_v is required when gamma_o is given")
        self.gamma_v = None if gamma_v is None else float(_P["gamma_v"].validate(gamma_v))
        self.gamma_o = None if gamma_o is None else float(_P["gamma_o"].validate(gamma_o))
        th1, th2 = theta1(self.beta), theta2(self.beta)
        self.c = th2 / th1
        self._rates = [1.0, float(self.heads)] + [g for g in (self.gamma_v, self.gamma_o)
                                                  if g is not None]
        self.w_max = min(self._rates)
        self.name = (f"IndependentKV(beta={self.beta:g}, gamma_k={self.gamma_k:g}, "
                     f"heads={self.heads}, gamma_v={self.gamma_v}, gamma_o={self.gamma_o})")

    def _pi(self, w):
        """Π(−w) and d/dw Π(−w)."""
        p = 1.0
        dp = 0.0
        for a in self._rates:
            f = 1 - w / a
            dp = dp * f - p / a
            p = p * f
        return p, dp

    def _res_float(self, w, lam):
        c, gk = self.c, self.gamma_k
        p, dp = self._pi(w)
        k = c * (1 - c) / gk
        a = 1 - c * w / gk
        f = lam * lam * w - lam * a * p - k * p * p
        fw = lam * lam - lam * (-c / gk * p + a * dp) - 2 * k * p * dp
        fl = 2 * lam * w - a * p
        return f, fw, fl

    def _consts_mp(self):
        """(c_β/γ_K, c_β(1 − c_β)/γ_K, 1/rates) at the current mpmath precision (cached)."""
        key = mpmath.mp.prec
        cache = self.__dict__.setdefault("_mp_consts", {})
        if key not in cache:
            b2 = mpmath.mpf(self.beta) ** 2
            c = b2 / mpmath.expm1(b2)
            gk = mpmath.mpf(self.gamma_k)
            cache[key] = (c / gk, c * (1 - c) / gk, [1 / mpmath.mpf(a) for a in self._rates])
        return cache[key]

    def _res_mp(self, w, lam, dps):
        cg, k, inv = self._consts_mp()
        p, dp = 1, 0
        for ia in inv:
            f = 1 - w * ia
            dp = dp * f - p * ia
            p = p * f
        a = 1 - cg * w
        lp = lam * p
        f = lam * (lam * w - a * p) - k * p * p
        fw = lam * lam + cg * lp - lam * a * dp - 2 * k * p * dp
        fl = 2 * lam * w - a * p
        return f, fw, fl

    def _newton_real_fast(self, w0, lam, dps):
        """Newton on (C.29) in python-flint's arb (ball arithmetic in C, ~10x mpmath) at
        dps + guard digits, from the float64 root; the result's midpoint is returned as mpf.
        python-flint's own precision is restored afterwards."""
        try:
            import flint
        except ImportError:  # pragma: no cover - python-flint is a dependency
            return None
        old = flint.ctx.prec
        prec = int((dps + 3) * 3.33) + 16
        try:
            flint.ctx.prec = prec
            key = ("arb", prec)
            cache = self.__dict__.setdefault("_mp_consts", {})
            if key not in cache:
                b2 = flint.arb(self.beta) ** 2
                c = b2 / flint.arb(b2).expm1()
                gk = flint.arb(self.gamma_k)
                cache[key] = (c / gk, c * (1 - c) / gk, [1 / flint.arb(a) for a in self._rates])
            cg, k, inv = cache[key]
            man, exp = lam.man_exp
            lm = flint.arb(man) * flint.arb(2) ** int(exp)
            w = flint.arb(w0)
            tol = flint.arb(10) ** (-(dps + 3) // 2 + 1)
            for _ in range(60):
                p, dp = flint.arb(1), flint.arb(0)
                for ia in inv:
                    f = 1 - w * ia
                    dp = dp * f - p * ia
                    p = p * f
                a = 1 - cg * w
                f = lm * (lm * w - a * p) - k * p * p
                fw = lm * lm + cg * lm * p - lm * a * dp - 2 * k * p * dp
                dw = (f / fw).mid()
                w = (w - dw).mid()
                if abs(dw) <= tol * abs(w):
                    m, e = w.man_exp()
                    return mpmath.mpf((int(m), int(e)))
        finally:
            flint.ctx.prec = old
        raise ArithmeticError(f"Newton iteration for w(λ) did not converge at λ = {lam}")

    def _gap_res(self, eps, lam):
        """(C.29) in the gap ε = 1 − w/r₀ (r₀ = w_max, of multiplicity k among the rates):
        Π(−w) = ε^k Q(w) computed without cancellation, and scaled by λ so that nothing
        under/overflows for tiny λ (v = Π/λ stays O(1)).  Returns (f/λ², f_ε/λ, f_λ/λ) of
        f = λ² w − λ a Π − k₂ Π²."""
        r0 = self.w_max
        w = r0 * (1 - eps)
        others = [a for a in self._rates if a != r0]
        kk = len(self._rates) - len(others)
        q, dq = 1.0, 0.0  # Q(w) and dQ/dw
        for a in others:
            f = 1 - w / a
            dq = dq * f - q / a
            q = q * f
        p = eps ** kk * q
        # dΠ/dε = k ε^{k−1} Q + ε^k Q′ dw/dε, dw/dε = −r₀
        dp = kk * eps ** (kk - 1) * q - eps ** kk * dq * r0
        c, gk = self.c, self.gamma_k
        k2 = c * (1 - c) / gk
        a = 1 - c * w / gk
        da = c * r0 / gk  # da/dε
        v = p / lam
        g = w - a * v - k2 * v * v
        ge = -lam * r0 - (da * p + a * dp) - 2 * k2 * v * dp
        gl = 2 * w - a * v
        return g, ge, gl

    def _gap_float(self, lam):
        if lam >= 1.0:
            return None
        g = lambda e: self._gap_res(e, lam)[0]  # noqa: E731
        # g(ε = 0) = r₀ > 0 > g(ε = 1); shrink the bracket geometrically first (ε ~ λ^{1/k})
        hi = 1.0
        while hi > 1e-300 and g(hi * 1e-2) < 0:
            hi *= 1e-2
        lo = hi * 1e-2 if hi > 1e-300 else 0.0
        # absolute tolerance: the smallest subnormal, so that ε ~ 1e-300 keeps all its digits
        return brentq(g, lo, hi, xtol=5e-324, rtol=4 * np.finfo(float).eps, maxiter=500)

    def _gap_derivative_float(self, eps, lam):
        _, ge, gl = self._gap_res(eps, lam)
        return self.w_max * gl / ge  # w′ = −r₀ dε/dλ = r₀ f_λ / f_ε

    def s_rho(self, z):
        """S-transform of ρ_{β,γ_K} (the paper's closed form, §5.1), for checks."""
        c, t = self.c, self.gamma_k
        return 2.0 / (1 + c * z / t + math.sqrt((1 - c * z / t) ** 2 + 4 * c * c * z / t))

    def second_moment(self):
        """m₂ of the mean-one law: 1 + 1/h + 1/γ_V + 1/γ_O + c_β²/γ_K (eq. (C.16))."""
        return 1 + sum(1 / a for a in self._rates[1:]) + self.c ** 2 / self.gamma_k


class TiedKV(ScalarReadoutLaw):
    """Mean-one readout law under complete within-head tying W^V_r = W^K_r, eq. (5.5).

    ν = D_{1/(γ_K m)}(π(μ_KV, h) ⊠ π_{γ_O}) with m = γ_O(θ₁ + h θ₂/γ_K)
    (Hayase & Karakida 2026, eq. (C.21)).  Real λ > 0 only (float64 or mpmath).

    Parameters
    ----------
    beta : float in ``BETA_LAW_RANGE`` = [0.01, 4]
    gamma_k : float in ``GAMMA_RANGE`` = [1e-3, 1e3]
        γ_K = γ_V = h d_K / n.
    heads : 1 ≤ h ≤ ``MAX_HEADS`` = 10 000
    gamma_o : float in ``GAMMA_RANGE``
    nodes : int, default 192
        Gauss–Legendre nodes for the free Poisson integral in float64 (the integrand is
        analytic in the angle; 96 is the paper's choice).

    Raises
    ------
    ParameterError
        If a parameter is outside its domain.
    """

    supports_complex = False
    #: below this λ the float64 root w = w_max − O(λ) of (5.5) loses ~1e-16/λ (relative
    #: 1e-10 at 1e-6; wrong by O(1) at 1e-16), so smaller λ are refused (ParameterError 'lam')
    lam_min = 1e-6

    def __init__(self, beta, gamma_k, heads, gamma_o, nodes=192):
        self.beta = float(_P["beta"].validate(beta))
        self.gamma_k = float(_P["gamma_k"].validate(gamma_k))
        self.heads = _heads(heads)
        if gamma_o is None:
            raise ParameterError("gamma_o", "gamma_o is required for TiedKV")
        self.gamma_o = float(_P["gamma_o"].validate(gamma_o))
        self.nodes = positive_integer("nodes", nodes)
        self.th1, self.th2 = theta1(self.beta), theta2(self.beta)
        self.m = readout_normalisation(self.beta, self.gamma_k, self.heads, self.gamma_o, True)
        self.w_max = min(1.0, self.gamma_k, self.gamma_o)
        t = self.gamma_k / self.heads
        self.t = t
        a, b = (1 - math.sqrt(t)) ** 2, (1 + math.sqrt(t)) ** 2
        self._ab = (a, b)
        xg, wg = np.polynomial.legendre.leggauss(self.nodes)
        th = 0.5 * math.pi * (xg + 1)
        x = a + (b - a) * np.sin(0.5 * th) ** 2
        # dπ_t = sqrt((b − x)(x − a))/(2π x) dx = (b − a)² sin²θ/(8π x) dθ; φ(x)/x is a polynomial
        self._x = x
        self._q = 0.5 * math.pi * wg * (b - a) ** 2 * np.sin(th) ** 2 / (8 * math.pi)
        self._phi = self._phi_over_x(x) * x
        self.name = (f"TiedKV(beta={self.beta:g}, gamma_k={self.gamma_k:g}, heads={self.heads},"
                     f" gamma_o={self.gamma_o:g})")
        self._mp_nodes = {}

    def _phi_over_x(self, x):
        return (self.th1 - self.th2) + self.heads * self.th2 / self.gamma_k * x

    def mu_kv_mean(self):
        """m₁(μ_KV) by the quadrature (exact value θ₁ γ_K/h + θ₂, §C.2.1)."""
        return float(np.sum(self._q * self._phi / self._x))

    def _wmu(self, lp, q, phi_x, x):
        """w_μ(λ') = ∫ φ/(φ + λ') dπ_t and its λ'-derivative, weights q include 1/x."""
        phi = phi_x * x
        den = phi + lp
        return (q * phi_x / den).sum(), -(q * phi_x / den / den).sum()

    def _res_float(self, w, lam):
        if isinstance(lam, complex) or isinstance(w, complex):
            raise ParameterError("lam", "TiedKV supports real lam > 0 only")
        gk, go, h = self.gamma_k, self.gamma_o, self.heads
        den = (1 - w) * (go - w)
        if den <= 0:  # w = w_max ∈ {1, γ_O}: λ' = ∞, w_μ = 0
            return -w / h, -1.0 / h, 0.0
        lp = gk * self.m * lam / den
        wm, dwm = self._wmu(lp, self._q, self._phi_over_x(self._x), self._x)
        dlp_dw = lp * (1 / (1 - w) + 1 / (go - w))
        return wm - w / h, dwm * dlp_dw - 1.0 / h, dwm * lp / lam

    def _nodes_mp(self, dps):
        if dps not in self._mp_nodes:
            with workdps(dps):
                # degree k gives 3·2^(k−1) nodes; the integrand is analytic in θ
                deg = 7 if dps <= 40 else 8 if dps <= 90 else 9
                nodes = GaussLegendre(mpmath.mp).calc_nodes(deg, mpmath.mp.prec)
                t = mpmath.mpf(self.gamma_k) / self.heads
                a, b = (1 - mpmath.sqrt(t)) ** 2, (1 + mpmath.sqrt(t)) ** 2
                xs, qs = [], []
                for xg, wg in nodes:
                    th = mpmath.pi / 2 * (xg + 1)
                    x = a + (b - a) * mpmath.sin(th / 2) ** 2
                    xs.append(x)
                    qs.append(mpmath.pi / 2 * wg * (b - a) ** 2 * mpmath.sin(th) ** 2
                              / (8 * mpmath.pi))
            self._mp_nodes[dps] = (xs, qs)
        return self._mp_nodes[dps]

    def _res_mp(self, w, lam, dps):
        if isinstance(lam, mpmath.mpc) or isinstance(w, mpmath.mpc):
            raise ParameterError("lam", "TiedKV supports real lam > 0 only")
        xs, qs = self._nodes_mp(dps)
        b2 = mpmath.mpf(self.beta) ** 2
        th1, th2 = mpmath.expm1(b2), b2
        h = self.heads
        gk, go = mpmath.mpf(self.gamma_k), mpmath.mpf(self.gamma_o)
        m = go * (th1 + h * th2 / gk)
        lp = gk * m * lam / ((1 - w) * (go - w))
        s, ds = mpmath.mpf(0), mpmath.mpf(0)
        for x, q in zip(xs, qs):
            px = (th1 - th2) + h * th2 / gk * x
            den = px * x + lp
            s += q * px / den
            ds -= q * px / den / den
        dlp_dw = lp * (1 / (1 - w) + 1 / (go - w))
        return s - w / h, ds * dlp_dw - mpmath.mpf(1) / h, ds * lp / lam


def readout_law(law, name="law"):
    """Return ``law`` if the readout functions can use it: a :class:`freeattn.laws.Law` (the
    general route through its Cauchy transform) or a :class:`ScalarReadoutLaw`
    (:class:`IndependentKV`, :class:`TiedKV`).

    Raises
    ------
    ParameterTypeError
        Naming ``name`` for anything else (None, a string, a number, an array).
    """
    if isinstance(law, (Law, ScalarReadoutLaw)):
        return law
    raise ParameterTypeError(name, f"{name} must be a freeattn Law or a ScalarReadoutLaw "
                                   f"(IndependentKV, TiedKV), got {shown(law)} of type "
                                   f"{type(law).__name__}")
