"""The scipy.stats vocabulary of every law beyond the pointwise methods: median, interval,
rvs, moments and their statistics (mean, var, std, stats, nnlf), expect and entropy.

:class:`StatsVocabulary` is a mixin of :class:`freeattn.laws.base.Law` (which installs the one
argument filter on these methods too); every method here is written against the Law hooks
(``ppf``, ``moment``, ``pdf``, ``atoms``, ``support``, the quadrature hooks).  The table of
the vocabulary beside scipy's is docs/scipy-vocabulary.md.
"""
from __future__ import annotations

import decimal
import math
import numbers

import mpmath
import numpy as np

from .._context import FLOAT_REFERENCE_DPS, GUARD_DPS, inner_dps, round_back, to_mp, workdps
from .._validation import (MAX_DPS, ParameterError, ParameterTypeError, dps_or_none,
                           in_closed_interval, integer_at_least)
from .generic import adaptive_theta_quad
from ..quadrature.theta import theta_of_x as _theta_of_x

__all__ = ["StatsVocabulary"]


_CENTRAL_MOMENT_TRIES = 3


def _identity(x):
    """E[X]: the default function of :meth:`Law.expect` (scipy's)."""
    return x


def _cut_panels(panels, lo, hi):
    """θ-panel boundaries cut to [lo, hi] (None when empty)."""
    lo, hi = float(lo), float(hi)
    if not hi > lo:
        return None
    inner = [float(p) for p in np.asarray(panels, dtype=float) if lo < p < hi]
    return np.array([lo] + inner + [hi])


def _theta_mp(a, b, x):
    """θ of x on [a, b] at the working precision: x = a + (b − a) sin²(θ/2)."""
    u = (x - a) / (b - a)
    return 2 * mpmath.asin(mpmath.sqrt(min(max(u, mpmath.mpf(0)), mpmath.mpf(1))))



class StatsVocabulary:
    """The scipy.stats vocabulary built on the Law hooks (a mixin of :class:`~freeattn.laws.base.Law`)."""

    def median(self, dps=None):
        """ppf(1/2)."""
        return self.ppf(0.5) if dps is None else self.ppf(mpmath.mpf(1) / 2, dps=dps)

    def interval(self, confidence, dps=None):
        """Equal-tail interval (ppf((1 − c)/2), ppf((1 + c)/2)) holding mass ``confidence``.

        Raises
        ------
        ParameterError
            If ``confidence`` is not in [0, 1].
        """
        c = in_closed_interval("confidence", confidence, 0, 1)
        if dps is None:
            return float(self.ppf((1 - c) / 2)), float(self.ppf((1 + c) / 2))
        with workdps(dps):
            c = to_mp(c)
            lo, hi = (1 - c) / 2, (1 + c) / 2
        return self.ppf(lo, dps=dps), self.ppf(hi, dps=dps)

    def rvs(self, size=None, random_state=None):
        """Random variates by exact inverse-cdf sampling: ppf(U), U uniform on [0, 1).

        Parameters
        ----------
        size : int or tuple of int, optional
            Output shape (``None``: one float).
        random_state : None, int, numpy.random.Generator or numpy.random.RandomState
            As scipy.stats accepts it.  A ``Generator`` or ``RandomState`` is used as given
            (U = ``random_state.uniform(size=size)``, the draw scipy's inverse-cdf sampling
            makes, so that the same generator gives scipy's variates); ``None`` is numpy's
            global ``RandomState`` (``numpy.random.seed`` applies), as in scipy.  An integer
            seeds ``numpy.random.default_rng`` (scipy seeds a ``RandomState``: an int seed
            gives other numbers than scipy's, and the same numbers as freeattn always did);
            a ``BitGenerator`` or ``SeedSequence`` also seeds a ``Generator``.

        Returns
        -------
        float or ndarray of shape ``size``

        Raises
        ------
        ParameterError
            If ``size`` is not None, a non-negative integer or a tuple of them (naming
            ``size``), or ``random_state`` is none of the above (naming ``random_state``).
        """
        size = self._check_size(size)
        if isinstance(random_state, (np.random.Generator, np.random.RandomState)):
            rng = random_state
        elif random_state is None:
            rng = np.random.mtrand._rand  # numpy's global RandomState, as scipy's None
        elif isinstance(random_state, (np.random.BitGenerator, np.random.SeedSequence)):
            rng = np.random.default_rng(random_state)
        else:
            try:
                seed = integer_at_least("random_state", random_state, 0)
            except ParameterError:
                raise ParameterTypeError(
                    "random_state", f"random_state must be None, an integer >= 0, a "
                                    f"numpy.random.Generator or RandomState (or a BitGenerator/"
                                    f"SeedSequence), got {random_state!r}"[:300]) from None
            rng = np.random.default_rng(seed)
        u = rng.uniform(size=size)
        return self.ppf(u)

    @staticmethod
    def _check_size(size):
        """``size`` of :meth:`rvs`: None, an integer >= 0 or a tuple/list of them."""
        if size is None:
            return None

        def dim(v):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
                raise ParameterTypeError(
                    "size", f"size must be None, a non-negative integer or a tuple of "
                            f"non-negative integers, got {size!r}")
            if v < 0:
                raise ParameterError("size", f"size must be non-negative (a count or a shape), "
                                             f"got {size!r}")
            return int(v)

        if isinstance(size, (tuple, list)):
            return tuple(dim(v) for v in size)
        return dim(size)

    def cauchy_transform(self, z, dps=None):
        """Cauchy transform G(z) = ∫ dμ(x)/(z − x) (G ~ 1/z, Im G < 0 on Im z > 0).

        Parameters
        ----------
        z : complex or array_like of complex, any shape
            Evaluation points.  On the real axis inside the support the value is the limit
            from the upper half-plane, G(x + i0); G(z̄) = conj G(z); G(∞) = 0.
        dps : int, optional
            As in :meth:`pdf`.

        Returns
        -------
        complex or ndarray of complex

        Raises
        ------
        ParameterError
            For NaN arguments.
        """
        return self._apply(z, dps, self._cauchy_float, self._cauchy_mp, dtype=complex, name="z",
                           at_inf=lambda s: 0j)

    def cauchy_transform_derivative(self, z, dps=None):
        """G′(z) = −∫ dμ(x)/(z − x)².

        Parameters
        ----------
        z : complex or array_like of complex, any shape
            On the real axis inside the support: the limit from the upper half-plane.
        dps : int, optional
            As in :meth:`pdf`.

        Returns
        -------
        complex or ndarray of complex, shape of ``z``; G′(∞) = 0.

        Notes
        -----
        Generic route (laws may override ``_cauchy_derivative_float`` / ``_mp`` with an exact
        one): Cauchy's integral formula G′(z) = (1/2π) ∫₀^{2π} G(z + r e^{iφ}) e^{−iφ}/r dφ on a
        circle of radius r = half the distance to the support and the atoms, by the trapezoidal
        rule (geometric convergence, ratio 1/2 per node); on the support, the limit ε → 0 of
        G′(x + iε) by Richardson extrapolation.
        """
        return self._apply(z, dps, self._cauchy_derivative_float, self._cauchy_derivative_mp,
                           dtype=complex, name="z", at_inf=lambda s: 0j)

    # ------------------------------------------------------------- moments
    def moment(self, k, dps=None, method=None):
        """k-th moment m_k = ∫ x^k dμ(x) (atoms included), k ≥ 0.

        Parameters
        ----------
        k : int ≥ 0
        dps : int, optional
        method : {None, "exact", "quad"}, optional
            ``"exact"``: the law's exact moments (:meth:`exact_moments`), evaluated in float64
            or at ``dps``; ``"quad"``: quadrature of x^k against the density plus the atoms.
            ``None``: the law's own route, exact where it knows its moments.

        Raises
        ------
        ParameterError
            If k is not an integer ≥ 0, or ``method`` is unknown.
        NotImplementedError
            For ``method="exact"`` on a law without exact moments.
        """
        # k and dps arrive validated (laws/base.py: _filter_arguments, the entry)
        method = self._check_method(method, ("exact", "quad"))
        if k == 0:
            return 1.0 if dps is None else self._mp_number(1, dps)
        if method == "quad":
            return self._moment_quad(k, dps)
        if method == "exact" or self._overrides("exact_moments"):
            value = self.exact_moments(k)[k - 1]
            return self._mp_number(value, dps)
        return self._moment_hook(k, dps)

    def _moment_hook(self, k, dps):
        """Moment route of a law without exact moments (default: quadrature)."""
        return self._moment_quad(k, dps)

    def mean(self, dps=None):
        """First moment m₁."""
        return self.moment(1, dps)

    def var(self, dps=None):
        """Variance μ₂ = m₂ − m₁² (from raw moments at 30 digits where the law knows its
        moments exactly or by series, so that a law far from 0 keeps its variance)."""
        return self._central_moments(2, dps)[1]

    def std(self, dps=None):
        """Standard deviation sqrt(var)."""
        v = self.var(dps)
        if dps is None:
            return math.sqrt(max(float(v), 0.0))
        with mpmath.workdps(dps):
            return mpmath.sqrt(v)

    def _central_moments(self, n, dps):
        """[m₁, μ₂, …, μ_n]: the mean and the central moments μ_j = Σ_i C(j, i) m_i (−m₁)^{j−i}.

        The raw moments are taken at ``dps`` plus guard digits, or, in float64, at
        ``FLOAT_REFERENCE_DPS`` digits where the law has exact moments (series or sums: cheap
        at any precision) and combined there, so that μ_j does not lose the digits that
        cancel when |m₁| ≫ σ; a law whose moments are quadratures combines its float64
        moments (scipy's rule for ``stats``)."""
        if dps is None and not self._exact_moments_known():
            m = [1.0] + [float(self.moment(k)) for k in range(1, n + 1)]
            return [m[1]] + [math.fsum(math.comb(j, i) * m[i] * (-m[1]) ** (j - i)
                                       for i in range(j + 1)) for j in range(2, n + 1)]
        target = FLOAT_REFERENCE_DPS if dps is None else inner_dps(dps)
        work = target
        for _ in range(_CENTRAL_MOMENT_TRIES):
            m = [mpmath.mpf(1)] + [self.moment(k, dps=work) for k in range(1, n + 1)]
            with mpmath.workdps(work):
                m = [mpmath.mpf(v) for v in m]
                terms = [[math.comb(j, i) * m[i] * (-m[1]) ** (j - i) for i in range(j + 1)]
                         for j in range(2, n + 1)]
                out = [m[1]] + [mpmath.fsum(t) for t in terms]
                # the digits that cancel in Σ_i (far from 0, |m₁| ≫ σ): redo with them added
                lost = max((mpmath.log10(max(abs(u) for u in t) / abs(v)) if v else work
                            for t, v in zip(terms, out[1:])), default=0)
            if lost <= work - target or work >= MAX_DPS:
                break
            work = min(MAX_DPS, target + int(lost) + GUARD_DPS)
        if dps is None:
            return [float(v) for v in out]
        return [round_back(v, dps) for v in out]

    def _exact_moments_known(self):
        """Whether the law knows its moments exactly (series, sums, closed forms), so that
        moments at any precision are cheap (no mpmath quadrature)."""
        return self._overrides("exact_moments")

    #: the letters of :meth:`stats` (scipy's)
    _STATS = "mvsk"

    def stats(self, moments="mv", dps=None):
        """Mean ('m'), variance ('v'), skewness ('s') and excess kurtosis ('k'), as
        ``scipy.stats.rv_continuous.stats``.

        Parameters
        ----------
        moments : str, default 'mv'
            Letters from 'mvsk', in any order; one value per letter, in scipy's order m, v,
            s, k.
        dps : int, optional

        Returns
        -------
        float (one letter) or tuple of floats (mpf with ``dps``)
            s = μ₃/μ₂^{3/2}, k = μ₄/μ₂² − 3 (Fisher's excess kurtosis, scipy's convention),
            from the central moments of :meth:`var`'s route.

        Raises
        ------
        ParameterError
            For a ``moments`` string with other letters (naming ``moments``).
        ArithmeticError
            For skewness or kurtosis of a law with zero variance (a point mass: undefined;
            scipy returns NaN there).
        """
        if (not isinstance(moments, str) or not moments
                or any(c not in self._STATS for c in moments)):
            raise ParameterError("moments", f"moments must be a non-empty string of letters "
                                            f"from 'mvsk', got {moments!r}")
        n = 4 if "k" in moments else 3 if "s" in moments else 2
        cm = self._central_moments(n, dps)
        mean, mu = cm[0], [None, None] + cm[1:]
        out = []
        ctx = mpmath.workdps(FLOAT_REFERENCE_DPS if dps is None else dps)
        with ctx:
            for letter in self._STATS:
                if letter not in moments:
                    continue
                if letter == "m":
                    out.append(mean)
                elif letter == "v":
                    out.append(mu[2])
                else:
                    if not mu[2] > 0:
                        raise ArithmeticError(f"{self.name} has variance 0: its "
                                              f"{'skewness' if letter == 's' else 'kurtosis'} "
                                              f"is undefined")
                    if dps is None:
                        out.append(mu[3] / mu[2] ** 1.5 if letter == "s"
                                   else mu[4] / mu[2] ** 2 - 3.0)
                    else:
                        v2 = mpmath.mpf(mu[2])
                        out.append(+(mu[3] / v2 ** mpmath.mpf(1.5)) if letter == "s"
                                   else +(mu[4] / v2 ** 2 - 3))
        return out[0] if len(out) == 1 else tuple(out)

    def nnlf(self, x):
        """Negative log-likelihood −Σ_i log f(x_i) of the sample ``x`` (scipy's ``nnlf`` at
        the law's own parameters).

        f is the density with respect to Lebesgue measure plus counting measure on the
        atoms: a point at an atom contributes log of the atom's mass, any other point
        log ρ(x).  ``inf`` when some point has f = 0 (outside the support), as scipy.

        Parameters
        ----------
        x : array_like of float
            The sample (any shape; NaN refused).

        Returns
        -------
        float
        """
        self._check_points(x, "x", method="nnlf")
        xs = np.asarray(x, dtype=float).reshape(-1)
        if np.any(np.isnan(xs)):
            raise ParameterError("x", "x must not be NaN")
        atoms = dict(self.atoms())
        at = np.isin(xs, np.array(list(atoms), dtype=float)) if atoms else np.zeros(xs.shape, bool)
        logs = np.empty(xs.shape)
        if (~at).any():
            logs[~at] = np.asarray(self.logpdf(xs[~at]), dtype=float).reshape(-1)
        logs[at] = [math.log(atoms[float(v)]) for v in xs[at]]
        if np.any(logs == -np.inf):
            return math.inf
        return -math.fsum(logs)

    def expect(self, func=None, dps=None, *, lb=None, ub=None, conditional=False):
        """E[f(X)] = Σ_atoms w f(a) + ∫ f(x) ρ(x) dx, over [lb, ub] if given.

        Parameters
        ----------
        func : callable, optional
            Float route: a vectorised real function of a float ndarray (numpy ufunc style);
            ``dps`` route: a function of one mpf.  Default: the identity (E[X]), as scipy.
        dps : int, optional
        lb, ub : float, optional
            Integrate over lb ≤ x ≤ ub only (atoms at lb or ub included), as scipy's
            ``expect(lb=, ub=)``; default the whole line.
        conditional : bool, default False
            Divide by the mass of [lb, ub] (E[f(X) | lb ≤ X ≤ ub]), as scipy.

        Notes
        -----
        Quadrature in θ with x = a + (b − a)(1 − cos θ)/2 on each support interval, which
        removes square-root and inverse-square-root edge singularities: float64, adaptive
        12-point Gauss–Legendre on θ-panels graded toward both ends, every panel checked
        against its two halves (interior cusps, steep edges next to a pole and narrow
        components are refined where they sit); ``dps``: ``mpmath.quad``.  With lb/ub the
        same panels, cut at θ(lb) and θ(ub).

        Raises
        ------
        ParameterTypeError
            If ``func`` is not callable, or returns something that is not real numbers (one
            per point, naming ``func``); ``conditional`` not a bool.
        ParameterError
            For NaN bounds, lb > ub, or ``conditional=True`` on an interval without mass.
        """
        if func is None:
            func = _identity
        if not callable(func):
            raise ParameterTypeError("func", f"func must be a callable f(x), got "
                                             f"{type(func).__name__} {func!r}"[:200])
        if not isinstance(conditional, (bool, np.bool_)):
            raise ParameterTypeError("conditional", f"conditional must be True or False, got "
                                                    f"{conditional!r}"[:200])
        lo = -math.inf if lb is None else self._bound("lb", lb)
        hi = math.inf if ub is None else self._bound("ub", ub)
        if lo > hi:
            raise ParameterError("lb", f"lb must be <= ub, got lb={lb!r}, ub={ub!r}")
        total = self._expect_between(func, dps, lo, hi)
        if not conditional:
            return total
        mass = self._expect_between(None, dps, lo, hi)
        if not mass > 0:
            raise ParameterError("lb", f"[lb, ub] = [{lo!r}, {hi!r}] holds no mass of "
                                       f"{self.name}: the conditional expectation is undefined")
        if dps is None:
            return total / mass
        with mpmath.workdps(dps):
            return +(total / mass)

    @staticmethod
    def _bound(name, v):
        if isinstance(v, (str, bytes, bool, np.bool_)) or not isinstance(
                v, (numbers.Real, mpmath.mpf, decimal.Decimal)):
            raise ParameterTypeError(name, f"{name} must be a real number, got {v!r}"[:200])
        f = float(v)
        if f != f:
            raise ParameterError(name, f"{name} must not be NaN")
        return f

    def _expect_between(self, func, dps, lo, hi):
        """Σ_{lo ≤ a ≤ hi} w f(a) + ∫_{[lo, hi]} f ρ (func None: the mass)."""
        if dps is None:
            if func is None:
                values = None
            else:
                def values(x):
                    out = func(x)
                    try:
                        arr = np.asarray(out)
                        if arr.dtype.kind not in "fiu" and not (
                                arr.dtype.kind == "O" and all(isinstance(v, (numbers.Real,
                                                                             mpmath.mpf))
                                                              and not isinstance(v, bool)
                                                              for v in arr.reshape(-1))):
                            raise TypeError
                        arr = np.broadcast_to(arr.astype(float), np.shape(x))
                    except (TypeError, ValueError):
                        raise ParameterTypeError(
                            "func", f"func must return real numbers, one per point of the "
                                    f"float64 array it is given (shape {np.shape(x)}); got "
                                    f"{out!r}"[:300]) from None
                    return arr

            total = math.fsum(float(w) * (1.0 if values is None else
                                          float(values(np.array([float(a)]))[0]))
                              for a, w in self.atoms() if lo <= a <= hi)
            for a, b, panels, density in self._quad_pieces():
                if b <= lo or a >= hi:
                    continue
                if lo > a or hi < b:
                    panels = _cut_panels(panels, _theta_of_x(a, b, max(lo, a)),
                                         _theta_of_x(a, b, min(hi, b)))
                    if panels is None:
                        continue
                total += self._quad_theta(a, b, panels, density, values)
            return total
        f = (lambda x: mpmath.mpf(1)) if func is None else func
        with workdps(dps):
            total = mpmath.fsum(w * f(a) for a, w in self.atoms(dps) if lo <= a <= hi)
            for a, b in self.support(dps):
                if b <= lo or a >= hi:
                    continue
                whole = self._quad_interval_mp(a, b, f, dps) if hi >= b else None
                if hi < b:
                    whole = self._quad_interval_mp(a, b, f, dps, upper=_theta_mp(a, b, hi))
                if lo > a:
                    whole -= self._quad_interval_mp(a, b, f, dps, upper=_theta_mp(a, b, lo))
                total += whole
        return round_back(total, dps)

    def entropy(self, dps=None):
        """Entropy: differential entropy −∫ ρ log ρ of a law without atoms, Shannon entropy
        −Σ w log w of a purely atomic law.

        Raises
        ------
        ValueError
            For a law with both atoms and a density (neither entropy is defined).
        """
        atoms = self.atoms(dps)
        support = self.support(dps)
        if atoms and support:
            raise ValueError(f"{self.name} has atoms and a density: no entropy is defined")
        if atoms:
            if dps is None:
                return -math.fsum(w * math.log(w) for _, w in atoms)
            with mpmath.workdps(dps):
                return -mpmath.fsum(w * mpmath.log(w) for _, w in atoms)

        if dps is None:
            # −ρ log ρ · x′(θ) from the θ-density d = ρ x′ of the quadrature pieces (the same
            # adaptive θ-panels as the moments): −d log(d / x′)
            total = []
            for a, b, panels, density in self._quad_pieces():
                def f(th, a=a, b=b, density=density):
                    d = np.asarray(density(th), dtype=float)
                    xp = 0.5 * (b - a) * np.sin(th)
                    pos = (d > 0) & (xp > 0)
                    with np.errstate(divide="ignore", invalid="ignore"):
                        rho = np.where(pos, d, 1.0) / np.where(pos, xp, 1.0)
                        return np.where(pos, -d * np.log(rho), 0.0)
                total.append(adaptive_theta_quad(f, np.asarray(panels, dtype=float))[0])
            return math.fsum(total)
        with workdps(dps):
            def hmp(x):
                rho = self._pdf_mp(x, dps)
                return -rho * mpmath.log(rho) if rho > 0 else mpmath.mpf(0)
            total = mpmath.fsum(self._quad_interval_mp(a, b, hmp, dps, weight=False) for a, b in support)
        return round_back(total, dps)
