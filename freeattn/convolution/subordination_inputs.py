"""The input laws of a subordination system: G and G′ in float64 (vectorised, warm-started)
and in mpmath, and the 1×1 / 2×2 linear algebra of the system's Newton steps."""
from __future__ import annotations

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
class _Input:
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

    # -------------------------------------------------------------- float64
    def _coeffs(self, w, deriv=False):
        """Coefficients of P(·, w) (rows G^deg..G^0) and, with ``deriv``, of ∂_zP(·, w)."""
        cf, dcf = self.poly
        C = cf[:, :1] * np.ones_like(w)
        for j in range(1, cf.shape[1]):
            C = C * w + cf[:, j:j + 1]
        if not deriv:
            return C, None
        dC = dcf[:, :1] * np.ones_like(w)
        for j in range(1, dcf.shape[1]):
            dC = dC * w + dcf[:, j:j + 1]
        return C, dC

    @staticmethod
    def _horner(C, g):
        """P(g) and ∂_GP(g) for coefficient rows C (Horner's scheme, vectorised)."""
        p = C[0] * np.ones_like(g)
        pg = np.zeros_like(p)
        for k in range(1, C.shape[0]):
            pg = pg * g + p
            p = p * g + C[k]
        return p, pg

    def _poly_eval(self, g, w):
        """P(g, w), ∂_G P and ∂_z P (vectorised over points)."""
        C, dC = self._coeffs(w, deriv=True)
        p, pg = self._horner(C, g)
        pz = dC[0] * np.ones_like(g)
        for k in range(1, dC.shape[0]):
            pz = pz * g + dC[k]
        return p, pg, pz

    def _polish(self, g, w):
        """Newton on P(g, w) = 0 from g; accepted where it converged near the start on the
        sheet Im g ≤ 0 (Im w ≥ 0).  Newton converges quadratically: once every step is below
        1e-9 relative, one more step reaches rounding level."""
        start = g.copy()
        C, _ = self._coeffs(w)
        with np.errstate(all="ignore"):
            step = np.full(w.shape, np.inf)
            last = False
            for _ in range(10):
                p, pg = self._horner(C, g)
                d = p / pg
                g = g - d
                step = np.abs(d)
                if last:
                    break
                last = bool(np.all(step <= _POLISH_LAST * np.abs(g)))
            ok = (np.isfinite(g) & (step <= _POLISH_RTOL * np.abs(g)) & (np.abs(w) > 0)
                  & (np.abs(g - start) <= 0.3 * np.abs(start))
                  & (g.imag <= _POLISH_RTOL * np.abs(g)))
        return g, ok

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
            if guess is None or guess[0].shape != w.shape:
                g, ok = self._polish(1.0 / w, w)
                w0 = g0 = d0 = None
            else:
                w0, g0, d0 = guess
                with np.errstate(all="ignore"):
                    g, ok = self._polish(g0 + d0 * (w - w0), w)
            if not np.all(ok) and w0 is not None:
                # local continuation along the segment from the previous point to w
                idx = np.flatnonzero(~ok)
                ww0, gg, dd = w0[idx], g0[idx], d0[idx]
                good = np.isfinite(gg) & np.isfinite(dd)
                steps = 16
                for k in range(1, steps + 1):
                    wk = ww0 + (w[idx] - ww0) * (k / steps)
                    with np.errstate(all="ignore"):
                        wprev = ww0 + (w[idx] - ww0) * ((k - 1) / steps)
                        gg, okk = self._polish(gg + dd * (wk - wprev), wk)
                        _, pg, pz = self._poly_eval(gg, wk)
                        dd = -pz / pg
                    good &= okk
                g[idx] = np.where(good, gg, g[idx])
                ok[idx] = good
            if not np.all(ok):
                g[~ok] = self.law._cauchy_float(w[~ok])
            with np.errstate(all="ignore"):
                _, pg, pz = self._poly_eval(g, w)
                dg = -pz / pg
            return g, dg
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
