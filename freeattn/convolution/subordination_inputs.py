"""The input laws of a subordination system: G and G′ in float64 (vectorised, warm-started)
and in mpmath, and the 1×1 / 2×2 linear algebra of the system's Newton steps."""
from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np

from ..laws.algebraic import AlgebraicLaw
from ..laws.base import Law, Transformed
from ..laws.mixture import Mixture
from ._dispatch import hull, mean_of

__all__ = []  # private to the subordination solver

#: float64 Newton polish of an input's G: all steps below this (relative) → one last step;
#: accepted at this relative step, and Im g ≤ this × |g| (the sheet Im g ≤ 0)
_POLISH_LAST = 1e-9
_POLISH_RTOL = 1e-12
#: ... within this fraction of the start, in at most this many steps
_POLISH_NEAR = 0.3
_POLISH_STEPS = 10
#: Newton on the subordination system (subordination_law, subordination_edges): a step below this (relative) is rounding level
_NEWTON_STEP_RTOL = 4e-16
#: lowest rung of the continuation ladder (fraction of the scale); points closer than this
#: to an atom are left out of the support scan
_LADDER_FLOOR = 1e-9
#: a warm start confirms when the solution stays within 10 % of it plus this × the scale
_WARM_SLACK = 1e-3
#: central difference of G for an input without G′: step and its floor (relative)
_DIFF_STEP = 1e-5
_DIFF_FLOOR = 1e-6


# --------------------------------------------------------------------------- inputs
@dataclass(frozen=True)
class _PolishRule:
    """How :meth:`_PolyInput._polish` runs Newton's method on P(g, w) = 0 and what it accepts.

    At most ``steps`` steps; once every step is below ``stop`` relative, ``extra`` more steps
    (Newton converges quadratically: after a 1e-9 step one more reaches rounding level).  A
    point is accepted when its last step is below ``accept`` relative, it moved at most
    ``near`` × |start|, it lies on the Stieltjes sheet Im g · s ≤ ``sheet`` · |g| (s = 1:
    points with Im w ≥ 0; ``sheet_by_sign``: s = sign(Im w), points on either side), and
    (``nonzero``) w ≠ 0."""

    steps: int
    stop: float
    extra: int
    accept: float
    near: float
    sheet: float
    sheet_by_sign: bool = False
    nonzero: bool = False


#: the subordination solver's inputs (Im w ≥ 0)
_UPPER_RULE = _PolishRule(steps=_POLISH_STEPS, stop=_POLISH_LAST, extra=1, accept=_POLISH_RTOL,
                          near=_POLISH_NEAR, sheet=_POLISH_RTOL, nonzero=True)


class _PolyInput:
    """Float64 G and G′ of an algebraic input from its polynomial P(G, w): the coefficient
    rows at the points (Horner in w), Horner in g, the Newton polish of a guess and the
    first-order warm start; one copy for the subordination solvers (:class:`_Input` here,
    ``rectangular_inputs._Input``).  A subclass sets ``self.law``, ``self.poly = (cf, dcf)`` (rows
    G^deg..G^0, columns z^deg_z..z^0, and their z-derivatives) and ``_rule``."""

    _rule = _UPPER_RULE

    def _coeffs(self, w, deriv=False):
        """Coefficients of P(·, w) (rows G^deg..G^0) and, with ``deriv``, of ∂_zP(·, w).

        Horner in w on all rows at once, in place, not a matrix product with the powers of w:
        a (deg × deg_z) @ (deg_z × N) product is threaded by OpenBLAS at N ~ 10³ and was 20×
        slower than this on a loaded 2-core machine (1 s of the rectangular support scan)."""
        cf, dcf = self.poly
        C = self._rows(cf, w)
        return C, (self._rows(dcf, w) if deriv else None)

    @staticmethod
    def _rows(cf, w):
        col = (-1,) + (1,) * w.ndim
        C = np.empty((cf.shape[0],) + w.shape, dtype=np.result_type(cf, w))
        C[...] = cf[:, 0].reshape(col)
        for j in range(1, cf.shape[1]):
            C *= w
            C += cf[:, j].reshape(col)
        return C

    @staticmethod
    def _horner(C, g):
        """P(g) and ∂_GP(g) for coefficient rows C (Horner's scheme, vectorised)."""
        p = C[0] * np.ones_like(g)
        pg = np.zeros_like(p)
        for k in range(1, C.shape[0]):
            pg = pg * g + p
            p = p * g + C[k]
        return p, pg

    def _derivative(self, g, C, dC):
        """G′ = −∂_zP/∂_GP at g (C, dC: the rows of P and ∂_zP at the points)."""
        with np.errstate(all="ignore"):
            _, pg = self._horner(C, g)
            return -self._horner(dC, g)[0] / pg

    def _polish(self, g, w, C=None):
        """Newton on P(g, w) = 0 from g under ``self._rule``: (g, accepted)."""
        r = self._rule
        start = g.copy()
        if C is None:
            C, _ = self._coeffs(w)
        with np.errstate(all="ignore"):
            step = np.full(w.shape, np.inf)
            left = None
            for _ in range(r.steps):
                p, pg = self._horner(C, g)
                d = p / pg
                g = g - d
                step = np.abs(d)
                if left is None and np.all(step <= r.stop * np.abs(g)):
                    left = r.extra
                if left is not None:
                    if left == 0:
                        break
                    left -= 1
            side = np.sign(w.imag) if r.sheet_by_sign else 1.0
            ok = (np.isfinite(g) & (step <= r.accept * np.abs(g))
                  & (np.abs(g - start) <= r.near * np.abs(start))
                  & (g.imag * side <= r.sheet * np.abs(g)))
            if r.nonzero:
                ok &= np.abs(w) > 0
        return g, ok

    @staticmethod
    def _predict(w, guess, fill=False):
        """Starting values at w: the first-order prediction G(w₀) + G′(w₀)(w − w₀) from
        ``guess`` = (w₀, G(w₀), G′(w₀)), or 1/w without a guess of w's shape (``fill``: also
        where the guess is not finite).  Returns (start, guess or None)."""
        with np.errstate(all="ignore"):
            if guess is None or guess[0].shape != w.shape:
                return 1.0 / w, None
            w0, g0, d0 = guess
            g = g0 + d0 * (w - w0)
            if fill:
                g = np.where(np.isfinite(g0) & np.isfinite(d0), g, 1.0 / w)
        return g, guess

    def _fallback(self, g, ok, w):
        """The law's own G where the polish was not accepted (in place)."""
        if not np.all(ok):
            with np.errstate(all="ignore"):
                g[~ok] = self.law._cauchy_float(w[~ok])
        return g


class _Input(_PolyInput):
    """G and G′ of one input law in float64 (vectorised, warm-started) and in mpmath.

    For an :class:`AlgebraicLaw` the float64 route polishes a guess (the value at the
    previous continuation step) by Newton's method on P(g, w) = 0 and takes
    G′ = −∂_zP/∂_GP; guesses that do not confirm fall back to the law's own
    ``_cauchy_float``.  Any other law is evaluated through its hooks ``_cauchy_float`` and
    ``_cauchy_derivative_float`` (a central difference of G where the law has no G′ hook).
    """

    def __init__(self, law):
        if not isinstance(law, Law):
            raise TypeError(f"expected a Law, got {type(law).__name__}")
        self.law = law
        # a law solved by its own subordination system (a nested convolution): evaluated by
        # Newton's method from its solution at the previous call's points, G′ by implicit
        # differentiation (SubordinationLaw._value_warm), not by a full solve per call
        self.warm, self._warm_law = getattr(law, "_value_warm", None), law
        if (self.warm is None and isinstance(law, Transformed) and len(law._c) == 2
                and hasattr(law.law, "_value_warm")):
            # an affine image c₀ + c₁x of one: G(w) = G_base((w − c₀)/c₁)/c₁
            base, (c0, c1) = law.law, law._c
            self._warm_law = base

            def warm(w, guess):
                g, dg, st = base._value_warm((np.asarray(w, dtype=complex) - c0) / c1, guess)
                return g / c1, dg / (c1 * c1), st
            self.warm = warm
        # a mixture Σ p_k μ_k: G = Σ p_k G_k, each component through its own input (warm
        # polish of an algebraic component instead of its branch tracking per call: the
        # quantiles of π(mixture of semicircles, t) spent 93 % in the components' G)
        self.parts = None
        if self.warm is None and isinstance(law, Mixture):
            self.parts = ([_Input(c) for c in law.laws], [float(p) for p in law.weights])
        self.poly = None
        if isinstance(law, AlgebraicLaw):
            cf = law._num.cf  # (deg + 1, deg_z + 1): rows G^deg..G^0, columns z^deg_z..z^0
            dcf = np.array([np.polyder(r) if r.size > 1 else np.zeros(1) for r in cf])
            self.poly = (cf, dcf.reshape(cf.shape[0], -1))

    @property
    def state_len(self):
        """Length of this input's warm-start state tuple (w, G, G′, …)."""
        if self.parts is not None:
            return 3 + sum(c.state_len for c in self.parts[0])
        return 3 if self.warm is None else 3 + self._warm_law._state_len()

    def value_state(self, w, guess=None):
        """(G(w), G′(w), state): ``state`` is the tuple of arrays the next call at nearby
        points takes as ``guess`` ((w, G, G′) and, for a subordination law, its solution;
        for a mixture, its components' states)."""
        if self.warm is not None:
            return self.warm(np.asarray(w, dtype=complex), guess)
        if self.parts is not None:
            w = np.asarray(w, dtype=complex)
            whole = guess is not None and len(guess) == self.state_len
            g = dg = 0
            state, off = [], 3
            for c, p in zip(*self.parts):
                sub = guess[off:off + c.state_len] if whole else None
                off += c.state_len
                gc, dgc, stc = c.value_state(w, sub)
                g, dg = g + p * gc, dg + p * dgc
                state += list(stc)
            return g, dg, (w, g, dg, *state)
        g, dg = self.value(w, guess)
        return g, dg, (np.asarray(w, dtype=complex), g, dg)

    def value(self, w, guess=None):
        """(G(w), G′(w)) for complex w with Im w ≥ 0 (real w: the limit from above).

        ``guess``: None or (w₀, G(w₀), G′(w₀)) at nearby points; the first-order prediction
        G(w₀) + G′(w₀)(w − w₀) starts the polynomial Newton polish."""
        w = np.asarray(w, dtype=complex)
        if self.parts is not None:
            return self.value_state(w, guess)[:2]
        if self.poly is not None:
            C, dC = self._coeffs(w, deriv=True)
            g, guess = self._predict(w, guess)
            g, ok = self._polish(g, w, C)
            if not np.all(ok) and guess is not None:
                # local continuation along the segment from the previous point to w
                w0, g0, d0 = guess
                idx = np.flatnonzero(~ok)
                ww0, gg, dd = w0[idx], g0[idx], d0[idx]
                good = np.isfinite(gg) & np.isfinite(dd)
                steps = 16
                for k in range(1, steps + 1):
                    wk = ww0 + (w[idx] - ww0) * (k / steps)
                    with np.errstate(all="ignore"):
                        wprev = ww0 + (w[idx] - ww0) * ((k - 1) / steps)
                        Ck, dCk = self._coeffs(wk, deriv=True)
                        gg, okk = self._polish(gg + dd * (wk - wprev), wk, Ck)
                        dd = self._derivative(gg, Ck, dCk)
                    good &= okk
                g[idx] = np.where(good, gg, g[idx])
                ok[idx] = good
            g = self._fallback(g, ok, w)
            return g, self._derivative(g, C, dC)
        if self.warm is not None:
            g, dg, _ = self.warm(w, guess)
            return g, dg
        g = self.law._cauchy_float(w)
        hook = getattr(self.law, "_cauchy_derivative_float", None)
        if hook is not None:
            try:
                return g, hook(w)
            except NotImplementedError:
                pass
        h = _DIFF_STEP * np.maximum(np.abs(w.imag), _DIFF_FLOOR * (1 + np.abs(w)))
        dg = (self.law._cauchy_float(w + h) - self.law._cauchy_float(w - h)) / (2 * h)
        return g, dg

    # -------------------------------------------------------------- mpmath
    def value_mp(self, w, dps):
        """(G(w), G′(w)) at the current mpmath precision; ``dps`` is the caller's working
        precision (:func:`~freeattn._context.inner_dps`), so the law's rounded-back values keep
        the caller's guard digits."""
        w = mpmath.mpc(w)
        if isinstance(self.law, AlgebraicLaw):
            # float64 branch value (warm path above), polished on P(g, w) = 0 at full precision
            g0, _ = self.value(np.array([complex(w)]))
            num = self.law._num
            g = num.newton_mp(mpmath.mpc(complex(g0[0])), w)
            c = num.coefficients_mp()
            pg = pz = mpmath.mpc(0)
            for k, row in enumerate(c):
                for j, ckj in enumerate(row):
                    if ckj == 0:
                        continue
                    if k:
                        pg += k * ckj * g ** (k - 1) * w**j
                    if j:
                        pz += j * ckj * g**k * w ** (j - 1)
            return g, -pz / pg
        g = mpmath.mpc(self.law.cauchy_transform(w, dps=dps))
        deriv = getattr(self.law, "cauchy_transform_derivative", None)
        if deriv is not None:
            try:
                return g, mpmath.mpc(deriv(w, dps=dps))
            except NotImplementedError:
                pass
        return g, mpmath.diff(lambda s: mpmath.mpc(self.law.cauchy_transform(s, dps=dps)), w)

    def mean(self):
        """m₁ (for starting guesses), computed once."""
        if not hasattr(self, "_mean"):
            self._mean = mean_of(self.law)
        return self._mean

    def hull(self):
        """Smallest interval containing the support and atoms, computed once."""
        if not hasattr(self, "_hull"):
            self._hull = hull(self.law)
        return self._hull


def _sub_state(st, idx, N):
    """The inputs' warm-start states restricted to the points ``idx`` (of N)."""
    return {i: tuple(c[idx] for c in v) for i, v in st.items() if v[0].shape == (N,)}


def _put_state(st, sub, idx, N):
    for i, v in sub.items():
        if i in st and st[i][0].shape == (N,):
            for full, part in zip(st[i], v):
                full[idx] = part
        else:
            st[i] = tuple(np.full(N, np.nan, dtype=complex) for _ in v)
            for full, part in zip(st[i], v):
                full[idx] = part


def _solve2(J, f):
    """Solve J δ = f for stacks of n × n systems (n = 1, 2) given as nested lists."""
    if len(f) == 1:
        return [f[0] / J[0][0]]
    det = J[0][0] * J[1][1] - J[0][1] * J[1][0]
    return [(J[1][1] * f[0] - J[0][1] * f[1]) / det, (J[0][0] * f[1] - J[1][0] * f[0]) / det]


def _det(J):
    return J[0][0] if len(J) == 1 else J[0][0] * J[1][1] - J[0][1] * J[1][0]
