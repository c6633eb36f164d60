"""The one interface every probability law on the real line implements, centred on G.

Conventions (stated once here, inherited by every law):

* Cauchy transform G_μ(z) = ∫ dμ(x)/(z − x), so G(z) ~ 1/z at infinity and Im G(z) < 0 for
  Im z > 0.  The density is ρ(x) = −(1/π) lim_{ε↓0} Im G(x + iε): a limit onto the axis,
  never a value at a fixed ε.
* Total mass is 1 *including atoms*; ``cdf`` is right-continuous and includes atoms.
* ``dps=None`` → vectorised float64 (numpy arrays in, numpy arrays out, same shape);
  ``dps=int`` → mpmath numbers at that many significant digits (scalar in → mpf/mpc out,
  array in → numpy object array out).  The global mpmath precision is never changed
  (see :mod:`freeattn._context`).

The hook contract
-----------------
A concrete law implements **at least** ``_cauchy_float(z)``: a 1-D complex ndarray in, the same
shape out, where a real z means the limit from the upper half-plane G(x + i0).  Every other hook
has a generic default built on it (and overriding any of them is a fast path):

==========================  ===============================================================
hook                        generic default
==========================  ===============================================================
``_cauchy_mp(z, dps)``      ``_cauchy_float`` evaluated with mpmath numbers when it accepts
                            them; the float64 value when ``dps`` ≤ 15; else an error
``_cauchy_derivative_*``    Cauchy integral G′(z) = (1/2πi)∮ G(ζ)/(ζ − z)² dζ on a circle
                            inside the domain of analyticity (on the support: its ε → 0 limit)
``_pdf_float/_pdf_mp``      −Im G(x + i0)/π from the on-axis hook (``method="limit"``:
                            Richardson extrapolation ε → 0 of −Im G(x + iε)/π)
``_support(dps)``           a bounding interval from the contour mass (1/2πi)∮G = 1, a scan of
                            the on-axis density, edges refined by ``scipy.optimize.brentq``
``_atoms(dps)``             poles of G found by bisection on the upward jumps of the real
                            G(x) between the support intervals; mass lim iεG(a + iε)
``_cdf_*``, ``_sf_*``       adaptive Gauss–Legendre θ-panels of the density (the mass check's),
                            x = a + (b − a)(1 − cos θ)/2, plus atoms; mpmath: Gauss–Legendre
                            pieces (``mpmath.quad``) bisected to the precision
``_ppf_*``                  ``scipy.optimize.elementwise.find_root`` on the cdf (atoms exactly)
``exact_moments(order)``    none: :meth:`moment` then integrates x^k against the law
                            (:meth:`expect`: adaptive Gauss–Legendre θ-panels, each checked
                            against its halves; pieces from ``_quad_pieces``)
==========================  ===============================================================

Every found support is checked: the density's mass plus the atoms must be 1 to 1e-9, else the
scan is refined and, if it still fails, an error is raised (a law never returns a support that
misses mass).
"""
from __future__ import annotations

import math
import numbers

import mpmath
import numpy as np

from .._context import FLOAT_EPS, GUARD_DPS, mp_route, round_back, to_mp, tolerance, workdps
from .._validation import (ParameterError, ParameterTypeError, check_method, dps_or_none,
                           integer_at_least)
from ._theta import (adaptive_panels, cumulative_in_panels, graded_panels, panel_integrals,
                     theta_of_x as _theta_of_x, x_of_theta as _x_of_theta)

__all__ = ["Law"]

#: points of the on-axis scan used to find the support when a law does not declare it
_SCAN_POINTS = 4096
#: trapezoidal nodes on the circles of the contour integrals
_CONTOUR_NODES = 256
#: mass tolerance of a found support (density mass + atoms must be 1 to this).  In float64 an
#: edge is known to one ulp, and at an inverse-square-root edge one ulp holds mass ~ sqrt(ulp)/π
#: ~ 1e-8: the tolerance sits above that floor and far below any missed component it guards.
_MASS_TOL = 1e-7
#: Richardson table depth for the ε → 0 limits
_RICHARDSON_LEVELS = 7
#: Gauss–Legendre nodes on each θ-panel of the adaptive quadrature of :meth:`Law.expect`
_GL_NODES = 12
#: a panel is accepted when its value and the sum of its two halves agree to 4 ulp relative
#: or to this fraction of ∫|f| over the whole interval (absolute)
_QUAD_REL_FLOOR = 1e-16
#: bounds on the refinement (every quadrature ends in bounded time)
_QUAD_MAX_PANELS = 40000
_QUAD_MAX_LEVELS = 48
#: bisection depth of the mpmath θ-quadrature (:func:`_adaptive_mp_quad`)
_MP_QUAD_DEPTH = 12
#: node sets whose θ-density a law keeps for its next quadrature (moments of several orders)
_DENSITY_MEMO = 16
#: starting θ-panels: uniform inside, graded geometrically toward both ends (any power-law
#: edge: square-root, inverse-square-root, cusp exponents 1/3, 2/3, ...)
_PANELS = graded_panels(48, levels=24, ratio=0.25)


def _adaptive_theta_quad(f, panels):
    """∫ f(θ) dθ over the span of ``panels`` by Gauss–Legendre on θ-panels
    (:func:`freeattn.laws._theta.adaptive_panels`), each panel halved until its value and the
    sum of its halves agree to 4 ulp relative or ``_QUAD_REL_FLOOR`` · ∫|f| (absolute).

    ``f`` maps a 1-D array of θ ∈ (0, π) (never the ends) to real values.  Unlike a single
    tanh-sinh rule over [0, π], whose error estimate is a heuristic from successive levels,
    every accepted panel carries its own two-rule check: an interior cusp, a steep edge next
    to a pole, or a component far narrower than the interval is refined where it sits instead
    of being stepped over.
    Returns (integral, accepted panel boundaries, their values).
    """
    panels = np.asarray(panels, dtype=float)
    scale = float(np.sum(panel_integrals(lambda th: np.abs(f(th)), panels[:-1], panels[1:],
                                         _GL_NODES)))
    edges, vals = adaptive_panels(
        f, panels, nodes=_GL_NODES, atol=_QUAD_REL_FLOOR * scale, rtol=4 * FLOAT_EPS,
        max_levels=_QUAD_MAX_LEVELS, max_panels=_QUAD_MAX_PANELS,
        frozen=lambda lo, hi: hi - lo <= 1e-15 * math.pi)
    return math.fsum(vals), edges, vals


def _richardson(values):
    """Richardson extrapolation to ε → 0 of f(ε_k), ε_k = ε₀ 2^{-k} (k along axis 0).

    Returns (value, error estimate): the last diagonal entry and its distance to the previous
    one (f is assumed smooth in ε, i.e. analytic at the limit point, as G is off the edges)."""
    T = [np.asarray(v) for v in values]
    prev_diag = T[0]
    diag = T[0]
    for j in range(1, len(T)):
        T = [T[k] + (T[k] - T[k - 1]) / (2.0**j - 1) for k in range(1, len(T))]
        prev_diag, diag = diag, T[-1]
    return diag, np.abs(diag - prev_diag)


def _adaptive_mp_quad(f, lo, hi, dps):
    """∫_lo^hi f(θ) dθ at ``dps`` digits (θ ⊂ [0, π]): Gauss–Legendre (``mpmath.quad``) on the
    pieces of a grid π/8 apart, each bisected (depth ≤ ``_MP_QUAD_DEPTH``) until mpmath's error
    estimate is below 10^-(dps+3) of ∫|f| (a single tanh-sinh rule over [0, π] stepped over
    an interior dip of the density: m₁ of attention_law(1.117, 0.2697, 3) off by 1.6e-4 at 20
    digits)."""
    grid = [lo] + [mpmath.pi * k / 8 for k in range(1, 8) if lo < mpmath.pi * k / 8 < hi] + [hi]

    def rule(a, b):
        return mpmath.quad(f, [a, b], method="gauss-legendre", error=True, maxdegree=4)

    first = [(a, b) + tuple(rule(a, b)) for a, b in zip(grid[:-1], grid[1:])]
    tol = mpmath.mpf(10) ** (-(dps + 1)) * (mpmath.fsum(abs(v) for *_, v, _ in first) or 1)

    def piece(a, b, v, err, depth):
        if err <= tol or depth >= _MP_QUAD_DEPTH:
            return v
        m = (a + b) / 2
        return piece(a, m, *rule(a, m), depth + 1) + piece(m, b, *rule(m, b), depth + 1)

    return mpmath.fsum(piece(a, b, v, err, 0) for a, b, v, err in first)


def _comparable(v):
    """A hashable stand-in for a parameter value (TypeError for anything else)."""
    if v is None or isinstance(v, (str, Law)):
        return v
    if isinstance(v, numbers.Number):
        hash(v)
        return v
    if isinstance(v, np.ndarray):
        return (v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, (list, tuple)):
        return tuple(_comparable(u) for u in v)
    if isinstance(v, dict):
        return tuple(sorted((str(k), _comparable(u)) for k, u in v.items()))
    raise TypeError(type(v).__name__)


class Law:
    """Abstract probability law on the real line (see the module docstring for conventions
    and the hook contract).

    A subclass that implements only ``_cauchy_float`` gets every method below; a subclass that
    knows more (closed-form density, exact moments, declared support) overrides the hooks.

    Class attributes
    ----------------
    name : str
        Short human-readable name.
    parameters : tuple of :class:`freeattn._validation.Param`
        Declared parameters (name, domain, symbol).  Their values, read from the attributes of
        the same names, define equality and hashing: two laws of the same class with equal
        parameters compare and hash equal.
    """

    #: short human-readable name, set by subclasses
    name = "law"
    #: declared parameters (see :class:`freeattn._validation.Param`)
    parameters = ()

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _check_points(x, name, real=True, method="this method", domain="the real axis"):
        """The type filter of every pointwise method, before any conversion.

        Accepts a number (int, float, numpy number, mpf/mpc, Fraction, Decimal, a sympy
        number) or an array_like of them; refuses with :class:`ParameterTypeError` naming
        ``name``: None, strings (numbers only, as for parameters), booleans, non-numeric
        objects, ragged sequences, and — where ``real`` — complex values (``method`` is
        defined on the real axis; complex z goes to :meth:`cauchy_transform`)."""
        word = "real" if real else "complex"

        def refuse(detail):
            raise ParameterTypeError(name, f"{name} must be a {word} number or an array_like "
                                           f"of {word} numbers, {detail}")

        def complex_refused(value):
            hint = "; for complex z use law.cauchy_transform(z)" if name == "x" else ""
            raise ParameterTypeError(
                name, f"{name} must be real: {method} is defined on {domain}, got "
                      f"{value!r}{hint}")

        def scalar(v):
            if v is None:
                refuse("got None")
            if isinstance(v, (str, bytes, np.str_, np.bytes_)):
                refuse(f"not a string: got {v!r}")
            if isinstance(v, (bool, np.bool_)):
                refuse(f"got the boolean {v!r}")
            if isinstance(v, (mpmath.mpc, complex, np.complexfloating)):
                if real:
                    complex_refused(v)
                return
            if isinstance(v, (numbers.Number, mpmath.mpf)):
                return
            if hasattr(v, "is_number") and hasattr(v, "evalf"):  # a sympy expression
                if not v.is_number:
                    refuse(f"got the symbolic expression {v!r}")
                if real and v.is_real is False:
                    complex_refused(v)
                return
            refuse(f"got {type(v).__name__} {v!r}"[:200])

        if x is None or isinstance(x, (numbers.Number, mpmath.mpf, mpmath.mpc, str, bytes,
                                       np.generic)) or hasattr(x, "evalf"):
            scalar(x)
            return
        # any array_like (ndarray, list, tuple, pandas Series, ...)
        try:
            arr = np.asarray(x)
        except (TypeError, ValueError):
            refuse("got a ragged or malformed sequence")
        if arr.ndim == 0 and arr.dtype.kind == "O":
            scalar(arr.item())
            return
        kind = arr.dtype.kind
        if kind in "fiu":
            return
        if kind == "c":
            if real:
                complex_refused(x if arr.size <= 4 else f"an array of dtype {arr.dtype}")
            return
        if kind == "O":
            for v in arr.reshape(-1):
                scalar(v)
            return
        if kind in "US":
            refuse(f"not strings: got an array of dtype {arr.dtype}")
        refuse(f"got an array of dtype {arr.dtype}")

    @staticmethod
    def _apply(x, dps, fl, mp_fn, dtype=float, name="x", at_inf=None, method="this method"):
        """Dispatch a pointwise evaluation to the float64 or the mpmath route.

        The one argument filter of every pointwise method: the types of :meth:`_check_points`
        (``dtype=float``: real points, ``complex``: complex ones); NaN raises
        :class:`ParameterError` (in both routes); ±∞ gives ``at_inf(sign)`` (sign +1, −1, or
        0 for a complex infinity) without calling the hook, or raises when ``at_inf`` is
        None."""
        Law._check_points(x, name, real=dtype is not complex, method=method)
        dps = dps_or_none(dps)
        if dps is None:
            arr = np.asarray(x, dtype=dtype)
            flat = arr.reshape(-1)
            if np.any(np.isnan(flat)):
                raise ParameterError(name, f"{name} must not be NaN")
            finite = np.isfinite(flat)
            if finite.all():
                out = np.asarray(fl(flat))
            else:
                if at_inf is None:
                    raise ParameterError(name, f"{name} must be finite, got {x!r}")
                vals = [at_inf(Law._inf_sign(v)) for v in flat[~finite]]
                inner = np.asarray(fl(flat[finite])) if finite.any() else np.empty(0, dtype=dtype)
                out = np.empty(flat.shape, dtype=np.result_type(inner.dtype, *[np.asarray(v).dtype for v in vals]))
                out[finite] = inner
                out[~finite] = vals
            out = out.reshape(arr.shape)
            return out[()] if out.ndim == 0 else out
        if np.ndim(x) == 0:
            return Law._apply_mp(x, dps, mp_fn, name, at_inf)
        arr = np.asarray(x, dtype=object)
        flat = [Law._apply_mp(v, dps, mp_fn, name, at_inf) for v in arr.reshape(-1)]
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        return out.reshape(arr.shape)

    @staticmethod
    def _inf_sign(v):
        v = complex(v)
        if math.isinf(v.real):
            return 1 if v.real > 0 else -1
        return 0

    @staticmethod
    def _apply_mp(v, dps, mp_fn, name, at_inf):
        try:
            m = to_mp(v)
        except (TypeError, ValueError):
            raise ParameterError(name, f"{name} must be a number, got {v!r}") from None
        if mpmath.isnan(m) if isinstance(m, mpmath.mpf) else (mpmath.isnan(m.real) or mpmath.isnan(m.imag)):
            raise ParameterError(name, f"{name} must not be NaN")
        if mpmath.isinf(m):
            if at_inf is None:
                raise ParameterError(name, f"{name} must be finite, got {v!r}")
            sign = 0
            if isinstance(m, mpmath.mpf) or not mpmath.isinf(m.imag):
                sign = 1 if mpmath.re(m) > 0 else -1
            val = at_inf(sign)
            return mpmath.mpc(val) if isinstance(val, complex) else mpmath.mpf(val)
        return mp_fn(v, dps)

    @staticmethod
    def _check_method(method, allowed):
        """The one ``method=`` dispatch check: None or a name in ``allowed``."""
        return check_method(method, tuple(allowed))

    def _overrides(self, hook):
        """Whether this law's class replaces the generic default of ``hook``."""
        return getattr(type(self), hook) is not getattr(Law, hook)

    def _declares(self, hook):
        """Whether this law knows ``hook`` itself ("_support", "_atoms") rather than finding it
        generically; laws that declare per instance (NumericalLaw) override this."""
        return self._overrides(hook)

    def _cache(self):
        return self.__dict__.setdefault("_law_cache", {})

    # --------------------------------------------------------------- interface
    def pdf(self, x, dps=None, method=None):
        """Density of the absolutely continuous part.

        Parameters
        ----------
        x : float or array_like of float, any shape
            Points on the real line; ±inf give 0.
        dps : int, optional
            ``None`` (default): float64, vectorised.  An integer: mpmath at that many digits.
        method : {None, "axis", "limit"}, optional
            ``None``: the law's own route (a closed form where it has one).  ``"axis"``:
            −Im G(x + i0)/π from the law's on-axis Cauchy transform.  ``"limit"``: Richardson
            extrapolation ε → 0 of −Im G(x + iε)/π (for a G known only off the axis).

        Returns
        -------
        float or ndarray
            ρ(x) = −(1/π) lim_{ε↓0} Im G(x + iε) ≥ 0, same shape as ``x``; exactly 0 outside the
            support; ``inf`` at a hard edge where the density diverges.  Atoms are not
            included (see :meth:`atoms`).

        Raises
        ------
        ParameterError
            For NaN arguments or an unknown ``method``.
        """
        method = self._check_method(method, ("axis", "limit"))
        if method is None:
            fl, mp_fn = self._pdf_float, self._pdf_mp
        elif method == "axis":
            fl, mp_fn = Law._pdf_float.__get__(self), Law._pdf_mp.__get__(self)
        else:
            fl, mp_fn = self._pdf_limit_float, self._pdf_limit_mp
        return self._apply(x, dps, fl, mp_fn, at_inf=lambda s: 0.0, method="pdf")

    def logpdf(self, x, dps=None):
        """log ρ(x) (−inf where the density is 0); shapes as in :meth:`pdf`."""
        if dps is None:
            self._check_points(x, "x", method="logpdf")
            p = np.asarray(self.pdf(x))
            with np.errstate(divide="ignore"):
                out = np.log(p)
            return out[()] if out.ndim == 0 else out
        return self._apply(x, dps, None, lambda v, d: self._log_mp(self._pdf_mp(v, d), d),
                           at_inf=lambda s: -math.inf, method="logpdf")

    def cdf(self, x, dps=None):
        """Cumulative distribution function μ((−∞, x]), atoms included (right-continuous).

        Parameters and return shape as in :meth:`pdf`; values in [0, 1]; cdf(−inf) = 0 and
        cdf(+inf) = 1 exactly.
        """
        return self._apply(x, dps, self._cdf_float, self._cdf_mp,
                           at_inf=lambda s: 1.0 if s > 0 else 0.0, method="cdf")

    def logcdf(self, x, dps=None):
        """log cdf(x) (−inf below the support)."""
        if dps is None:
            self._check_points(x, "x", method="logcdf")
            c = np.asarray(self.cdf(x))
            with np.errstate(divide="ignore"):
                out = np.log(c)
            return out[()] if out.ndim == 0 else out
        return self._apply(x, dps, None, lambda v, d: self._log_mp(self._cdf_mp(v, d), d),
                           at_inf=lambda s: 0.0 if s > 0 else -math.inf, method="logcdf")

    def sf(self, x, dps=None):
        """Survival function μ((x, ∞)) = 1 − cdf(x), computed directly (accurate in the
        upper tail); sf(−inf) = 1, sf(+inf) = 0."""
        return self._apply(x, dps, self._sf_float, self._sf_mp,
                           at_inf=lambda s: 0.0 if s > 0 else 1.0, method="sf")

    @staticmethod
    def _log_mp(v, dps):
        with mpmath.workdps(dps):
            return mpmath.log(v) if v > 0 else mpmath.ninf

    def ppf(self, q, dps=None):
        """Quantile function: the smallest x with cdf(x) ≥ q.

        Parameters
        ----------
        q : float or array_like of float in [0, 1]
        dps : int, optional
            As in :meth:`pdf`.

        Returns
        -------
        float or ndarray, shape of ``q``
            ppf(0) is the left end of the support, ppf(1) the right end; inside an atom's
            jump the atom's location exactly.

        Raises
        ------
        ParameterError
            If some q lies outside [0, 1] or is NaN.
        """
        self._check_probabilities(q, "q", "ppf")
        dps = dps_or_none(dps)
        if dps is None:
            arr = np.asarray(q, dtype=float)
            out = np.asarray(self._ppf_float(arr.reshape(-1))).reshape(arr.shape)
            return out[()] if out.ndim == 0 else out
        return self._apply(q, dps, None, self._ppf_mp, name="q")

    def isf(self, q, dps=None):
        """Inverse survival function: ppf(1 − q).

        Raises
        ------
        ParameterError
            If some q lies outside [0, 1] or is NaN (ParameterTypeError for a non-number).
        """
        self._check_probabilities(q, "q", "isf")
        if dps is None:
            return self.ppf(1.0 - np.asarray(q, dtype=float))
        with workdps(dps):
            qq = (1 - to_mp(q)) if np.ndim(q) == 0 else [1 - to_mp(v) for v in np.ravel(q)]
        out = self.ppf(qq, dps=dps)
        return out if np.ndim(q) == 0 else np.asarray(out, dtype=object).reshape(np.shape(q))

    @staticmethod
    def _check_probabilities(q, name, method="ppf"):
        """Probabilities: real numbers in [0, 1] (NaN refused), numeric arrays checked
        vectorised."""
        Law._check_points(q, name, method=method, domain="probabilities in [0, 1]")
        arr = np.asarray(q)
        if arr.dtype.kind in "fiu":
            flat = arr.reshape(-1)
            bad = ~((flat >= 0) & (flat <= 1))  # NaN fails both comparisons
            if bad.any():
                raise ParameterError(name, f"{name} must lie in the closed interval [0, 1], "
                                           f"got {flat[bad][0]!r}")
            return
        for v in np.asarray(q, dtype=object).reshape(-1):
            m = to_mp(v)
            if not isinstance(m, mpmath.mpf) or mpmath.isnan(m) or not (0 <= m <= 1):
                raise ParameterError(name, f"{name} must lie in the closed interval [0, 1], got {v!r}")

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
        from .._validation import in_closed_interval

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
        random_state : None, int or numpy.random.Generator
            Seed or generator (``numpy.random.default_rng`` semantics).

        Returns
        -------
        float or ndarray of shape ``size``

        Raises
        ------
        ParameterError
            If ``size`` is not None, a non-negative integer or a tuple of them (naming
            ``size``), or ``random_state`` is not None, an integer >= 0, a
            ``numpy.random.Generator``/``BitGenerator``/``SeedSequence``.
        """
        size = self._check_size(size)
        if isinstance(random_state, np.random.Generator):
            rng = random_state
        elif random_state is None or isinstance(
                random_state, (np.random.BitGenerator, np.random.SeedSequence)):
            rng = np.random.default_rng(random_state)
        else:
            rng = np.random.default_rng(integer_at_least("random_state", random_state, 0))
        u = rng.random(size)
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
        k = integer_at_least("k", k, 0)
        method = self._check_method(method, ("exact", "quad"))
        dps = dps_or_none(dps)
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
        """Variance m₂ − m₁²."""
        return self.moment(2, dps) - self.moment(1, dps) ** 2

    def std(self, dps=None):
        """Standard deviation sqrt(var)."""
        v = self.var(dps)
        if dps is None:
            return math.sqrt(max(float(v), 0.0))
        with mpmath.workdps(dps):
            return mpmath.sqrt(v)

    def expect(self, func, dps=None):
        """E[f(X)] = Σ_atoms w f(a) + ∫ f(x) ρ(x) dx.

        Parameters
        ----------
        func : callable
            Float route: a vectorised real function of a float ndarray (numpy ufunc style);
            ``dps`` route: a function of one mpf.
        dps : int, optional

        Notes
        -----
        Quadrature in θ with x = a + (b − a)(1 − cos θ)/2 on each support interval, which
        removes square-root and inverse-square-root edge singularities: float64, adaptive
        12-point Gauss–Legendre on θ-panels graded toward both ends, every panel checked
        against its two halves (interior cusps, steep edges next to a pole and narrow
        components are refined where they sit); ``dps``: ``mpmath.quad``.

        Raises
        ------
        ParameterTypeError
            If ``func`` is not callable, or returns something that is not real numbers (one
            per point, naming ``func``).
        """
        if not callable(func):
            raise ParameterTypeError("func", f"func must be a callable f(x), got "
                                             f"{type(func).__name__} {func!r}"[:200])
        dps = dps_or_none(dps)
        if dps is None:
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

            total = math.fsum(float(w) * float(values(np.array([float(a)]))[0])
                              for a, w in self.atoms())
            for a, b, panels, density in self._quad_pieces():
                total += self._quad_theta(a, b, panels, density, values)
            return total
        with workdps(dps):
            total = mpmath.fsum(w * func(a) for a, w in self.atoms(dps))
            for a, b in self.support(dps):
                total += self._quad_interval_mp(a, b, func, dps)
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
                total.append(_adaptive_theta_quad(f, np.asarray(panels, dtype=float))[0])
            return math.fsum(total)
        with workdps(dps):
            def hmp(x):
                rho = self._pdf_mp(x, dps)
                return -rho * mpmath.log(rho) if rho > 0 else mpmath.mpf(0)
            total = mpmath.fsum(self._quad_interval_mp(a, b, hmp, dps, weight=False) for a, b in support)
        return round_back(total, dps)

    def support(self, dps=None):
        """Support of the absolutely continuous part: a sorted list of closed intervals (a, b).

        Endpoints are edges found as exactly as the law allows (declared, or refined by a
        root finder on the on-axis density), returned as floats or, with ``dps``, as mpf.
        Atoms are listed by :meth:`atoms`.
        """
        return self._support(dps_or_none(dps))

    def atoms(self, dps=None):
        """Atoms as a list of ``(location, mass)`` with mass > 0, sorted by location."""
        return self._atoms(dps_or_none(dps))

    def exact_moments(self, order):
        """First ``order`` moments m₁..m_order as exact sympy expressions.

        Raises
        ------
        NotImplementedError
            For a law that does not know its moments exactly (use :meth:`moment`, which then
            integrates).
        """
        raise NotImplementedError(f"{self.name} has no exact moments; moment() integrates")

    def free_cumulants(self, order):
        """First ``order`` free cumulants κ₁..κ_order.

        Exact sympy expressions (moment–cumulant relation over non-crossing partitions, Nica &
        Speicher 2006, Lecture 11) when the law knows its moments exactly, else floats from
        the quadrature moments.
        """
        from ..transforms.cumulants import free_cumulants_from_moments

        order = integer_at_least("order", order, 1)
        if self._overrides("exact_moments"):
            try:
                return list(free_cumulants_from_moments(self.exact_moments(order)))
            except NotImplementedError:
                pass
        return [float(v) for v in free_cumulants_from_moments(
            [self.moment(k) for k in range(1, order + 1)])]

    def r_transform(self, g, dps=None, method=None):
        """R-transform R(g) (G(R(g) + 1/g) = g, R(0) = m₁); see
        :func:`freeattn.transforms.r_transform`."""
        from ..transforms.evaluate import r_transform

        self._check_points(g, "g", real=False)
        return r_transform(self, g, dps, method=method)

    def s_transform(self, w, dps=None, method=None):
        """S-transform S(w) = (1 + w)/w · ψ^{-1}(w), S(0) = 1/m₁; see
        :func:`freeattn.transforms.s_transform`."""
        from ..transforms.evaluate import s_transform

        self._check_points(w, "w", real=False)
        return s_transform(self, w, dps, method=method)

    # ------------------------------------------------------------ push-forwards
    def pushforward(self, coefficients):
        """Push-forward φ#μ by the real polynomial φ(x) = Σ_k c_k x^k.

        Parameters
        ----------
        coefficients : sequence of real numbers, lowest degree first, or numpy Polynomial
            (c₀, c₁, …, c_n) with c_n ≠ 0, n ≥ 1 (the ``numpy.polynomial`` order).

        Returns
        -------
        Law
            A :class:`freeattn.laws.Transformed` law, G_{φ#μ}(z) = Σ_j G_μ(x_j)/φ′(x_j) over the
            roots x_j of φ(x) = z (exact algebraic laws override this with an exact
            elimination).

        Raises
        ------
        ParameterError
            For a constant, non-finite or non-real polynomial.
        """
        from .transformed import Transformed

        return Transformed(self, coefficients)

    def affine(self, shift, scale):
        """Push-forward by x ↦ shift + scale·x (scale ≠ 0)."""
        from .transformed import Transformed

        return Transformed(self, [shift, scale])

    def dilate(self, t):
        """Dilation D_t (push-forward by x ↦ t x), t > 0."""
        from .._validation import positive

        return self.affine(0.0, positive("t", t))

    # ============================================================ generic hooks
    def _G(self, z):
        """``_cauchy_float`` with numpy's floating-point warnings silenced (G is evaluated on
        purpose at poles and edges by the generic routes, where ±inf is the right value)."""
        with np.errstate(all="ignore"):
            return self._cauchy_float(np.asarray(z, dtype=complex))

    def _G_mp(self, z, dps):
        """``_cauchy_mp`` with a pole hit exactly (ZeroDivisionError) read as G = ∞."""
        try:
            return self._cauchy_mp(z, dps)
        except ZeroDivisionError:
            return mpmath.mpc(mpmath.inf, 0)

    def _cauchy_float(self, z):
        raise NotImplementedError(f"{type(self).__name__} must implement _cauchy_float(z)")

    def _cauchy_mp(self, z, dps):
        """Generic mpmath route: ``_cauchy_float`` evaluated on mpmath numbers when it accepts
        them (arithmetic-only formulas), else the float64 value when dps ≤ 15."""
        with workdps(dps):
            zz = mpmath.mpc(to_mp(z))
            arr = np.empty(1, dtype=object)
            arr[0] = zz
            try:
                with np.errstate(all="ignore"):
                    val = np.asarray(self._cauchy_float(arr), dtype=object).reshape(-1)[0]
            except (TypeError, AttributeError, ValueError):
                val = None
            if not isinstance(val, (mpmath.mpc, mpmath.mpf)):
                if dps > 15:
                    raise NotImplementedError(
                        f"{self.name}: G is known only in float64; define _cauchy_mp(z, dps) "
                        f"for dps = {dps} > 15")
                val = mpmath.mpc(complex(self._G(np.array([complex(zz)]))[0]))
            val = mpmath.mpc(val)
        return round_back(val, dps)

    # ---- G′
    def _cauchy_derivative_float(self, z):
        z = np.asarray(z, dtype=complex)
        out = np.empty(z.shape, dtype=complex)
        off = z.imag != 0
        if np.any(off):
            out[off] = self._contour_derivative(z[off], 0.5 * np.abs(z.imag[off]))
        if np.any(~off):
            x = z.real[~off]
            dist, inside = self._distance_to_spectrum(x)
            res = np.empty(x.shape, dtype=complex)
            if np.any(~inside):
                res[~inside] = self._contour_derivative(x[~inside] + 0j, 0.5 * dist[~inside])
            if np.any(inside):
                xi = x[inside]
                h = self._limit_step(xi)
                vals = [self._contour_derivative(xi + 1j * h * 2.0**-k, 0.5 * h * 2.0**-k)
                        for k in range(_RICHARDSON_LEVELS)]
                res[inside] = _richardson(vals)[0]
            out[~off] = res
        return out

    def _contour_derivative(self, z, r, n=64):
        phi = 2 * math.pi * (np.arange(n) + 0.5) / n
        e = np.exp(1j * phi)
        pts = z[:, None] + r[:, None] * e[None, :]
        vals = self._G(pts.reshape(-1)).reshape(pts.shape)
        return (vals * e.conj()[None, :]).mean(axis=1) / r

    @mp_route
    def _cauchy_derivative_mp(self, z, dps):
        zz = mpmath.mpc(z)
        if mpmath.im(zz) != 0:
            return self._contour_derivative_mp(zz, abs(mpmath.im(zz)) / 2, dps)
        x = float(mpmath.re(zz))
        dist, inside = self._distance_to_spectrum(np.array([x]))
        if inside[0]:
            h = mpmath.mpf(float(self._limit_step(np.array([x]))[0]))
            return mpmath.limit(lambda t: self._contour_derivative_mp(
                zz + 1j * h * t, h * t / 2, dps), 0, direction=1)
        return self._contour_derivative_mp(zz, mpmath.mpf(float(dist[0])) / 2, dps)

    def _contour_derivative_mp(self, z, r, dps):
        n = int(3.33 * (dps + 10)) + 16
        total = mpmath.mpc(0)
        for k in range(n):
            e = mpmath.expjpi(2 * (k + mpmath.mpf(1) / 2) / n)
            total += self._G_mp(z + r * e, dps + 10) / e
        return total / (n * r)

    def _distance_to_spectrum(self, x):
        """Distance from real x to the support ∪ atoms, and whether x is inside the support."""
        pts = [a for a, _ in self.atoms()]
        dist = np.full(x.shape, np.inf)
        inside = np.zeros(x.shape, bool)
        for a, b in self.support():
            inside |= (x >= a) & (x <= b)
            dist = np.minimum(dist, np.maximum(np.maximum(a - x, x - b), 0.0))
        for p in pts:
            dist = np.minimum(dist, np.abs(x - p))
        return dist, inside | (dist == 0)

    def _scale(self):
        lo, hi = self._hull()
        return max(hi - lo, 1e-300)

    def _limit_step(self, x):
        """Initial ε of an ε → 0 extrapolation at x: a fraction of the distance to the
        nearest edge or atom (the radius in which G(x + iε) is analytic in ε)."""
        edges = [e for ab in self.support() for e in ab] + [a for a, _ in self.atoms()]
        d = np.full(np.shape(x), 0.05 * self._scale())
        for e in edges:
            d = np.minimum(d, 0.25 * np.abs(np.asarray(x) - e))
        return np.maximum(d, 1e-300)

    # ---- density
    def _pdf_float(self, x):
        with np.errstate(invalid="ignore"):
            g = self._G(np.asarray(x, dtype=float) + 0j)
            rho = -g.imag / math.pi
        out = np.where(np.isfinite(g), np.maximum(rho, 0.0), np.inf)
        return out

    @mp_route
    def _pdf_mp(self, x, dps):
        g = self._G_mp(mpmath.mpc(x), dps + 5)
        return mpmath.inf if mpmath.isinf(g) else max(-mpmath.im(g) / mpmath.pi, mpmath.mpf(0))

    def _pdf_limit_float(self, x):
        x = np.asarray(x, dtype=float)
        h = 1e-2 * self._scale() * np.ones(x.shape)
        vals = [-self._G(x + 1j * h * 2.0**-k).imag / math.pi
                for k in range(_RICHARDSON_LEVELS)]
        val, _ = _richardson(vals)
        return np.maximum(val, 0.0)

    @mp_route
    def _pdf_limit_mp(self, x, dps):
        h = mpmath.mpf(1e-2 * self._scale())
        val = mpmath.limit(lambda t: -mpmath.im(self._G_mp(x + 1j * h * t, dps + 5)) / mpmath.pi,
                           0, direction=1)
        return max(val, mpmath.mpf(0))

    def density_limit(self, x):
        """The ε → 0 limit of −Im G(x + iε)/π with its error estimate (float64).

        Richardson extrapolation over ε_k = ε₀ 2^{−k} (ε₀ = 1 % of the law's scale).

        Returns
        -------
        (ndarray, ndarray)
            The extrapolated density and the difference of the last two extrapolants.

        Raises
        ------
        ParameterError
            For points that are not finite real numbers (naming ``x``).
        """
        self._check_points(x, "x", method="density_limit")
        x = np.atleast_1d(np.asarray(x, dtype=float))
        if not np.all(np.isfinite(x)):
            raise ParameterError("x", f"x must be finite real numbers, got {x!r}"[:200])
        h = 1e-2 * self._scale() * np.ones(x.shape)
        vals = [-self._G(x + 1j * h * 2.0**-k).imag / math.pi
                for k in range(_RICHARDSON_LEVELS)]
        return _richardson(vals)

    # ---- support and atoms
    def _hull(self):
        """A bounding interval [c − r, c + r] of the law (support and atoms).

        Declared support and atoms give it directly; otherwise the contour mass
        (1/2πi)∮_{|z−c|=r} G(z) dz = μ(disc) is 1 exactly when the disc holds the law: r grows
        until it is, the centre moves to the contour mean, and r shrinks back while it stays."""
        cache = self._cache()
        if "hull" in cache:
            return cache["hull"]
        pts = []
        if self._declares("_support"):
            pts += [e for ab in self._support(None) for e in ab]
        if self._declares("_atoms"):
            pts += [a for a, _ in self._atoms(None)]
        if pts and self._declares("_support") and self._declares("_atoms"):
            lo, hi = min(pts), max(pts)
            pad = 1e-3 * max(hi - lo, abs(lo), abs(hi), 1e-300)
            cache["hull"] = (lo - pad, hi + pad)
            return cache["hull"]
        c, r = 0.0, 1.0
        for _ in range(120):
            if abs(self._contour_mass(c, r) - 1) < 1e-11:
                break
            r *= 4.0
        else:
            raise ValueError(f"{self.name}: no bounded support found (contour mass ≠ 1 up to "
                             f"radius {r:g}); declare _support")
        c = self._contour_moment1(c, r)
        r *= 2
        for _ in range(2000):
            if abs(self._contour_mass(c, r / 1.25) - 1) < 1e-11 and r > 1e-250:
                r /= 1.25
            else:
                break
        r *= 1.25  # keep a margin: the density must vanish at both ends of the scan
        cache["hull"] = (c - r, c + r)
        return cache["hull"]

    def _contour_nodes(self, c, r):
        phi = 2 * math.pi * (np.arange(_CONTOUR_NODES) + 0.5) / _CONTOUR_NODES
        zeta = c + r * np.exp(1j * phi)
        return zeta, self._G(zeta)

    def _contour_mass(self, c, r):
        zeta, g = self._contour_nodes(c, r)
        return complex(np.mean(g * (zeta - c))).real

    def _contour_moment1(self, c, r):
        zeta, g = self._contour_nodes(c, r)
        return complex(np.mean(g * (zeta - c) * zeta)).real

    def _structure(self):
        """Float64 support and atoms of a law that does not declare them (cached)."""
        cache = self._cache()
        if "structure" in cache:
            return cache["structure"]
        lo, hi = self._hull()
        err = None
        for n in (_SCAN_POINTS, 4 * _SCAN_POINTS, 16 * _SCAN_POINTS):
            x = np.linspace(lo, hi, n)
            support = (self._support(None) if self._declares("_support")
                       else self._scan_support(x))
            atoms = (self._atoms(None) if self._declares("_atoms")
                     else self._scan_atoms(x, support))
            mass = math.fsum(w for _, w in atoms) + math.fsum(
                self._quad_theta(a, b, _PANELS, lambda th, a=a, b=b: self._theta_density(a, b, th))
                for a, b in support)
            err = abs(mass - 1)
            if err <= _MASS_TOL:
                cache["structure"] = (support, atoms)
                return cache["structure"]
        raise ArithmeticError(f"{self.name}: the support and atoms found carry mass "
                              f"{1 - err:.12g} ≠ 1 (a component narrower than the scan, or an "
                              f"atom inside the support): declare _support/_atoms")

    def _scan_support(self, x):
        rho = self._pdf_float(x)
        big = np.max(rho[np.isfinite(rho)], initial=0.0)
        if big == 0:
            return []
        floor = 64 * FLOAT_EPS * big
        inside = rho > floor
        if inside[0] or inside[-1]:
            raise ArithmeticError(f"{self.name}: density non-zero at the end of the scan")

        from scipy.optimize import brentq

        def f(t):
            return float(self._pdf_float(np.array([t]))[0]) - floor

        def edge(out, inn):
            """The first float inside the support next to the edge between ``out`` and ``inn``:
            brentq to a few ulps, then bisection down to adjacent floats."""
            lo, hi = min(out, inn), max(out, inn)
            tol = 2 * FLOAT_EPS * max(abs(lo), abs(hi))
            r = brentq(f, lo, hi, xtol=max(tol, 1e-300), rtol=4 * FLOAT_EPS, maxiter=200)
            sgn = 1.0 if inn > out else -1.0
            o, i_ = r - sgn * 4 * tol, r + sgn * 4 * tol
            if not (f(o) <= 0 and sgn * (o - out) >= 0):
                o = out
            if not (f(i_) > 0 and sgn * (inn - i_) >= 0):
                i_ = inn
            for _ in range(1100):
                mid = 0.5 * (o + i_)
                if mid == o or mid == i_:
                    break
                if f(mid) > 0:
                    i_ = mid
                else:
                    o = mid
            return i_

        d = np.diff(inside.astype(int))
        starts = np.flatnonzero(d == 1)  # inside from index s + 1
        ends = np.flatnonzero(d == -1)   # inside up to index e
        return [(edge(x[s], x[s + 1]), edge(x[e + 1], x[e])) for s, e in zip(starts, ends)]

    def _scan_atoms(self, x, support):
        outside = np.ones(x.shape, bool)
        for a, b in support:
            outside &= (x < a) | (x > b)
        with np.errstate(all="ignore"):
            g = self._G(x + 0j).real
        atoms = []
        spacing = x[1] - x[0]
        i = 0
        while i < len(x) - 1:
            if outside[i] and outside[i + 1] and not any(x[i] < a < x[i + 1] for a, _ in support):
                gl, gr = g[i], g[i + 1]
                if not np.isfinite(gl):
                    loc = x[i]
                elif gr > gl + 1e-12 * (abs(gl) + abs(gr)) or not np.isfinite(gr):
                    loc = self._bisect_pole(x[i], x[i + 1], gl)
                else:
                    i += 1
                    continue
                edges = [e for ab in support for e in ab] + [p for p, _ in atoms]
                d = min([spacing] + [abs(loc - e) for e in edges if e != loc])
                mass = self._atom_mass(loc, 0.25 * d)
                if mass > 0:
                    atoms.append((float(loc), float(mass)))
                i += 2 if not np.isfinite(gl) else 1
                continue
            i += 1
        return atoms

    def _bisect_pole(self, lo, hi, glo):
        """Pole of the real, decreasing-between-poles G in (lo, hi), given G(lo) < G(hi).

        Bisection to adjacent floats; a pole at 0 (the commonest atom: MP, ⊠ products) is
        recognised exactly when the final bracket straddles 0."""
        for _ in range(1100):
            mid = 0.5 * (lo + hi)
            if mid == lo or mid == hi:
                break
            with np.errstate(all="ignore"):
                gm = self._G(np.array([mid + 0j]))[0].real
            if not np.isfinite(gm):  # G overflows within ~1e-308 of the pole
                return 0.0 if lo <= 0.0 <= hi else mid
            if gm > glo:
                hi = mid
            else:
                lo, glo = mid, gm
        if lo <= 0.0 <= hi:
            return 0.0
        return 0.5 * (lo + hi)

    def _atom_mass(self, a, h):
        """lim_{ε↓0} iε G(a + iε) by Richardson extrapolation from ε = h."""
        eps = h * 2.0 ** -np.arange(_RICHARDSON_LEVELS)
        vals = [(1j * e * self._G(np.array([a + 1j * e]))[0]).real for e in eps]
        return float(_richardson(vals)[0])

    def _support(self, dps):
        support = self._structure()[0]
        if dps is None:
            return list(support)
        return [(self._refine_edge_mp(a, dps, left=True), self._refine_edge_mp(b, dps, left=False))
                for a, b in support]

    def _refine_edge_mp(self, e, dps, left):
        """Edge at ``dps`` digits: bisection on ρ > 10^(−dps)·scale around the float edge."""
        with workdps(dps):
            e = mpmath.mpf(e)
            w = mpmath.mpf(1e-12) * (1 + abs(e))
            lo, hi = e - w, e + w
            floor = tolerance(dps + 5)

            def inside(t):
                return self._pdf_mp(t, dps + 5) > floor

            if inside(lo if left else hi) or not inside(hi if left else lo):
                raise ArithmeticError(f"{self.name}: the float edge {float(e)!r} does not bracket "
                                      f"the {dps}-digit edge")
            tol = tolerance(dps + 3) * (1 + abs(e))
            while hi - lo > tol:
                mid = (lo + hi) / 2
                if inside(mid) == left:
                    hi = mid
                else:
                    lo = mid
            val = (lo + hi) / 2
        return round_back(val, dps)

    def _atoms(self, dps):
        atoms = self._structure()[1]
        if dps is None:
            return list(atoms)
        out = []
        with workdps(dps):
            for a, w in atoms:
                loc = mpmath.mpf(a)
                h = mpmath.mpf(1e-3) * (1 + abs(loc))
                mass = mpmath.limit(lambda t: mpmath.re(1j * h * t * self._G_mp(loc + 1j * h * t, dps + 5)),
                                    0, direction=1)
                out.append((loc, mass))
        return round_back(out, dps)

    # ---- cdf / sf / ppf
    def _theta_density(self, a, b, th):
        """ρ(x(θ)) x′(θ) on the support interval [a, b] at θ ∈ (0, π) (1-D float array).

        Nodes whose x rounds onto an edge take the value at the nearest resolvable θ (the
        θ-integrand is bounded at square-root and inverse-square-root edges); x′(θ) = (b − a)
        sin θ / 2 = sqrt((x − a)(b − x)) is taken at the rounded x so that ρ·x′ stays exact at
        an inverse-square-root edge."""
        pad = 8 * FLOAT_EPS * max(abs(a), abs(b))
        t = np.clip(th, float(_theta_of_x(a, b, a + pad)), float(_theta_of_x(a, b, b - pad)))
        x = _x_of_theta(a, b, t)
        return self._pdf_float(x) * np.sqrt((x - a) * (b - x))

    def _quad_pieces(self):
        """The pieces of the float64 quadrature of :meth:`expect`: (a, b, starting θ-panels,
        θ-density ρ(x(θ)) x′(θ)) per support interval.  A law with its own θ-tables (refined
        panels, a density accurate next to the edges) overrides this."""
        return [(a, b, _PANELS, lambda th, a=a, b=b: self._theta_density(a, b, th))
                for a, b in self.support()]

    def _quad_theta(self, a, b, panels, density, func=None):
        """∫ func(x) ρ(x) dx over [a, b] (func None: the mass) from the θ-density, by
        :func:`_adaptive_theta_quad` starting from ``panels``.  The density at a set of nodes
        is kept (a few sets per law), so that m₁, m₂, … on the same panels evaluate it once."""
        memo = self._cache().setdefault("theta_density", {})

        def dens(th):
            key = (a, b, th.tobytes())
            if key not in memo:
                if len(memo) >= _DENSITY_MEMO:
                    memo.pop(next(iter(memo)))
                memo[key] = np.asarray(density(th), dtype=float)
            return memo[key]

        if func is None:
            f = dens
        else:
            def f(th):
                return np.asarray(func(_x_of_theta(a, b, th)), dtype=float) * dens(th)
        return _adaptive_theta_quad(f, np.asarray(panels, dtype=float))[0]

    def _mass_tables(self):
        """Per support interval (generic route): the adaptive θ-panels of its mass and their
        cumulative masses (cached), from which cdf, sf and ppf are read, so that cdf(b) is
        the same sum as the mass check's."""
        cache = self._cache()
        if "mass_tables" not in cache:
            tables = []
            for a, b, panels, density in self._quad_pieces():
                _, bounds, vals = _adaptive_theta_quad(density, np.asarray(panels, dtype=float))
                cum = np.concatenate([[0.0], np.cumsum(vals)])
                # no callable in the cache: a law pickles after evaluation
                tables.append({"a": a, "b": b, "panels": bounds, "cum": cum,
                               "mass": math.fsum(vals)})
            cache["mass_tables"] = tables
        return cache["mass_tables"]

    def _table_partial(self, t, th, upper):
        """∫ of the θ-density of table ``t`` over [0, θ] (or [θ, π] with ``upper``)."""
        density = next(d for a, b, _, d in self._quad_pieces() if a == t["a"] and b == t["b"])
        panels = t["panels"]
        if upper:
            k = np.clip(np.searchsorted(panels, th, side="right") - 1, 0, len(panels) - 2)
            return (t["mass"] - t["cum"][k + 1]) + panel_integrals(density, th, panels[k + 1],
                                                                   _GL_NODES)
        return cumulative_in_panels(density, panels, t["cum"], th, _GL_NODES)

    def _quad_interval_mp(self, a, b, func, dps, upper=None, weight=True):
        # x is rounded to the precision at which ρ is evaluated and kept a few ulps off the
        # edges; dx/dθ = sqrt((x − a)(b − x)) is taken at that x (bounded ρ·dx/dθ at
        # inverse-square-root edges), as in the float route
        tiny = tolerance(dps + GUARD_DPS) * (b - a)

        def f(th):
            xx = a + (b - a) * (1 - mpmath.cos(th)) / 2
            with mpmath.workdps(dps + GUARD_DPS):
                xx = min(max(+xx, a + tiny), b - tiny)
            v = func(xx)
            if weight:
                v = v * self._pdf_mp(xx, dps + 5)
            return v * mpmath.sqrt((xx - a) * (b - xx))

        return _adaptive_mp_quad(f, mpmath.mpf(0), mpmath.pi if upper is None else upper, dps)

    def _interval_masses(self):
        cache = self._cache()
        if "masses" not in cache:
            cache["masses"] = [t["mass"] for t in self._mass_tables()]
        return cache["masses"]

    def _cdf_float(self, x):
        return self._partial_mass(np.asarray(x, dtype=float), upper=False)

    def _sf_float(self, x):
        return self._partial_mass(np.asarray(x, dtype=float), upper=True)

    def _partial_mass(self, x, upper):
        out = np.zeros(x.shape)
        for loc, w in self.atoms():
            out += np.where(x < loc if upper else x >= loc, w, 0.0)
        for (a, b), m in zip(self.support(), self._interval_masses()):
            out += np.where(x <= a if upper else x >= b, m, 0.0)
            inner = (x > a) & (x < b)
            if np.any(inner):
                t = next(t for t in self._mass_tables() if t["a"] == a and t["b"] == b)
                out[inner] += self._table_partial(t, _theta_of_x(a, b, x[inner]), upper)
        return np.clip(out, 0.0, 1.0)

    def _cdf_mp(self, x, dps):
        return self._partial_mass_mp(x, dps, upper=False)

    def _sf_mp(self, x, dps):
        return self._partial_mass_mp(x, dps, upper=True)

    def _partial_mass_mp(self, x, dps, upper):
        with workdps(dps):
            x = to_mp(x)
            total = mpmath.mpf(0)
            for loc, w in self.atoms(dps):
                if (x < loc) if upper else (x >= loc):
                    total += w
            one = lambda t: mpmath.mpf(1)  # noqa: E731
            for a, b in self.support(dps):
                if (x <= a) if upper else (x >= b):
                    total += self._quad_interval_mp(a, b, one, dps)
                elif a < x < b:
                    th = mpmath.acos(1 - 2 * (x - a) / (b - a))
                    part = self._quad_interval_mp(a, b, one, dps, upper=th)
                    total += (self._quad_interval_mp(a, b, one, dps) - part) if upper else part
            total = min(max(total, mpmath.mpf(0)), mpmath.mpf(1))
        return round_back(total, dps)

    def _pieces(self):
        """Atoms and support intervals in increasing order with their cumulative masses."""
        pieces = [(loc, "atom", loc, w) for loc, w in self.atoms()]
        pieces += [(a, "ac", (a, b), m) for (a, b), m in zip(self.support(), self._interval_masses())]
        pieces.sort(key=lambda p: p[0])
        return pieces

    def _ppf_float(self, q):
        from scipy.optimize.elementwise import find_root

        q = np.asarray(q, dtype=float)
        out = np.full(q.shape, np.nan)
        pieces = self._pieces()
        if not pieces:
            raise ArithmeticError(f"{self.name} has neither atoms nor a support")
        if any(a < loc < b for loc, _ in self.atoms() for a, b in self.support()):
            return self._ppf_on_cdf(q)
        cum = 0.0
        done = np.zeros(q.shape, bool)
        first = pieces[0][2] if pieces[0][1] == "atom" else pieces[0][2][0]
        out[q <= 0] = first
        done |= q <= 0
        for _, kind, payload, mass in pieces:
            m = (~done) & (q <= cum + mass)
            if kind == "atom":
                out[m] = payload
            elif np.any(m):
                a, b = payload
                r = q[m] - cum

                t = next(t for t in self._mass_tables() if t["a"] == a and t["b"] == b)

                def F(th, r, t=t):
                    shape = th.shape
                    return self._table_partial(t, th.reshape(-1), False).reshape(shape) - r

                res = find_root(F, (np.zeros(r.shape), np.full(r.shape, math.pi)), args=(r,),
                                tolerances=dict(xatol=1e-300, xrtol=4 * FLOAT_EPS, fatol=0, frtol=0))
                th = np.where(r >= mass, math.pi, res.x)
                out[m] = _x_of_theta(a, b, th)
            done |= m
            cum += mass
        if np.any(~done):  # q = 1 beyond the accumulated mass (rounding)
            last = pieces[-1]
            out[~done] = last[2] if last[1] == "atom" else last[2][1]
        return out

    def _ppf_on_cdf(self, q):
        """Quantiles by root-finding on the cdf itself (atoms inside the support): exact at an
        atom's jump, ``find_root`` (Chandrupatla) on cdf(x) − q elsewhere."""
        from scipy.optimize.elementwise import find_root

        out = np.full(q.shape, np.nan)
        ends = [e for ab in self.support() for e in ab] + [a for a, _ in self.atoms()]
        lo, hi = min(ends), max(ends)
        out[q <= 0] = lo
        out[q >= 1] = hi
        todo = (q > 0) & (q < 1)
        for a, w in self.atoms():
            fa = float(self._cdf_float(np.array([a]))[0])
            m = todo & (q > fa - w) & (q <= fa)
            out[m] = a
            todo &= ~m
        if np.any(todo):
            def F(x, r):
                return self._cdf_float(x.reshape(-1)).reshape(x.shape) - r

            r = q[todo]
            res = find_root(F, (np.full(r.shape, lo), np.full(r.shape, hi)), args=(r,),
                            tolerances=dict(xatol=1e-300, xrtol=4 * FLOAT_EPS, fatol=0, frtol=0))
            out[todo] = res.x
        return out

    def _ppf_mp(self, q, dps):
        """Quantile at ``dps`` digits: exact at an atom's jump; otherwise Newton's method on
        F(x) = q with F′ = ρ, from the float64 quantile (quadratic convergence: two or three
        cdf evaluations), ``mpmath.findroot`` (Anderson, bracketing) if Newton leaves the
        support interval."""
        with workdps(dps):
            q = to_mp(q)
            atoms = self.atoms(dps)
            support = self.support(dps)
            ends = [e for ab in support for e in ab] + [a for a, _ in atoms]
            val = None
            if q <= 0:
                val = min(ends)
            elif q >= 1:
                val = max(ends)
            for a, w in atoms:
                if val is None:
                    fa = self._cdf_mp(a, dps + 5)
                    if fa - w < q <= fa:
                        val = a
            if val is None:
                x = mpmath.mpf(float(self._ppf_float(np.array([float(q)]))[0]))
                a, b = next(((a, b) for a, b in support if a <= x <= b), (min(ends), max(ends)))
                x = min(max(x, a), b)
                tol = tolerance(dps + 3) * (1 + abs(x))
                for _ in range(12):
                    r = self._cdf_mp(x, dps + 5) - q
                    d = self._pdf_mp(x, dps + 5)
                    if not (d > 0) or mpmath.isinf(d):
                        x = None
                        break
                    step = r / d
                    x -= step
                    if not (a < x < b):
                        x = None
                        break
                    if abs(step) <= tol:
                        break
                if x is None:
                    x = mpmath.findroot(lambda t: self._cdf_mp(t, dps + 5) - q, (a, b), solver="anderson")
                val = x
        return round_back(val, dps)

    def _moment_quad(self, k, dps):
        if dps is None:
            return self.expect(lambda x: x**k)
        return self.expect(lambda x: x**k, dps=dps)

    # ------------------------------------------------------------ equality, display
    #: attributes that restate the parameters (AlgebraicLaw's polynomial with fresh symbols)
    _KEY_EXCLUDED = frozenset({"name", "values", "symbolic_polynomial"})

    def _key(self):
        """(class, parameter values) for equality and hashing, or None (identity).

        The parameters are the declared ``parameters`` if any; otherwise every public
        attribute (less :attr:`_KEY_EXCLUDED`), when all of them are numbers, strings, laws,
        arrays, or tuples/dicts of those and at least one is a number, a law or a dict.  Any
        other attribute makes the law compare by identity (never equal by accident)."""
        if self.parameters:
            items = [(p.name, getattr(self, p.name)) for p in self.parameters]
        else:
            items = sorted((k, v) for k, v in vars(self).items()
                           if not k.startswith("_") and k not in self._KEY_EXCLUDED)
            if not any(isinstance(v, (numbers.Number, Law, dict)) and not isinstance(v, bool)
                       for _, v in items):
                return None
        try:
            return (type(self), tuple((k, _comparable(v)) for k, v in items))
        except TypeError:
            return None

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, Law):
            return NotImplemented
        k1, k2 = self._key(), other._key()
        return k1 is not None and k1 == k2

    def __hash__(self):
        k = self._key()
        return id(self) if k is None else hash(k)

    def _repr_html_(self):
        try:
            from .. import display
        except ImportError:
            display = None
        if display is not None and hasattr(display, "law_html"):
            return display.law_html(self)
        import html

        return "<pre>" + html.escape(self._summary_text()) + "</pre>"

    def _repr_latex_(self):
        try:
            from .. import display
        except ImportError:
            display = None
        if display is not None and hasattr(display, "law_latex"):
            return display.law_latex(self)
        rows = [r"\text{%s} & \text{%s}" % tuple(line.split(": ", 1))
                for line in self._summary_text().splitlines()[1:]]
        return r"$$\begin{array}{ll}\text{law} & \text{%s}\\ %s\end{array}$$" % (
            self.name.replace("_", r"\_"), r"\\ ".join(rows))

    def _summary_text(self):
        """Plain-text table: name, support, atoms, first moments."""
        lines = [f"name: {self.name}"]
        try:
            lines.append("support: " + (", ".join(f"[{a:.6g}, {b:.6g}]" for a, b in self.support())
                                        or "none"))
            lines.append("atoms: " + (", ".join(f"{w:.6g} at {a:.6g}" for a, w in self.atoms())
                                      or "none"))
            lines.append("mean: %.6g" % float(self.moment(1)))
            lines.append("variance: %.6g" % float(self.var()))
        except (ArithmeticError, NotImplementedError, ValueError) as exc:
            lines.append(f"unavailable: {exc}")
        return "\n".join(lines)

    # ------------------------------------------------------------ utilities
    @staticmethod
    def _mp_number(value, dps):
        if dps is None:
            return float(value)
        with workdps(dps):
            v = to_mp(value)
        return round_back(v, dps)

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"
