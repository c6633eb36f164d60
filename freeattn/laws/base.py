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
has a generic default built on it, in :mod:`freeattn.laws.generic` (its table says which route
each hook takes); overriding any of them is a fast path.  :class:`Transformed` (the push-forward
φ#μ by a polynomial) lives beside :class:`Law`, whose ``pushforward``/``affine`` build it.
"""
from __future__ import annotations

import functools
import html
import inspect
import math

import mpmath
import numpy as np
import sympy as sp

from .._context import inner_dps, mp_route, round_back, to_mp, tolerance, workdps
from ..algebraic.positivity import is_positive_by_construction, mark_positive  # noqa: F401 (re-exported)
from ..algebraic.roots import polyroots
from ..transforms.cumulants import free_cumulants_from_moments
from ..transforms.evaluate import r_transform as _r_transform, s_transform as _s_transform
from .._validation import (LawType, Param, ParameterError, check_method, check_points,
                           check_probabilities, dps_or_none, finite_real, integer_at_least,
                           moment_order)
from ._identity import _DESCRIPTION_ATTRIBUTES, _Unkeyable, ValueIdentity, _canonical
from ._closed import bisect_doubles
from .pushforward import PushforwardPieces
from .affine import AffineImage, affine_arguments, dilation_argument
from .generic import GenericRoutes, adaptive_mp_quad as _adaptive_mp_quad  # noqa: F401 (re-exported)
from .statistics import StatsVocabulary

__all__ = ["Law", "Transformed", "AffineLaw"]


#: public methods whose arguments the one filter (:func:`_filter_arguments`) checks first:
#: every method with a ``dps`` argument, and ``moment`` (its order)
def _filter_arguments(fn):
    """Wrap a public method so that ``dps`` (:func:`freeattn._validation.dps_or_none`: None
    or an integer in [5, MAX_DPS]) and a moment's order (:func:`~freeattn._validation.
    moment_order`; scipy's keyword ``order`` and our ``k`` both accepted) are checked before
    the method runs, whichever class defines it: an override cannot skip the filter."""
    if getattr(fn, "_filtered", False) or not inspect.isfunction(fn):
        return fn
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return fn
    is_moment = fn.__name__ == "moment" and len(names) > 1
    if "dps" not in names and not is_moment:
        return fn
    filter_slot = names.index("dps") - 1 if "dps" in names else None
    first = names[1] if is_moment else None

    @functools.wraps(fn)
    def filtered(self, *args, **kwargs):
        if is_moment:
            label = first
            for alias in ("order", "k"):
                if alias != first and alias in kwargs:
                    if args or first in kwargs:
                        raise TypeError(f"moment() got the order twice ({alias}= and {first})")
                    label = alias
                    args = (kwargs.pop(alias),) + args
            if args:
                args = (moment_order(label, args[0]),) + args[1:]
            elif first in kwargs:
                kwargs[first] = moment_order(first, kwargs[first])
            else:
                raise TypeError("moment() missing its order (order=, or k=)")
        if filter_slot is not None:
            if len(args) > filter_slot:
                args = args[:filter_slot] + (dps_or_none(args[filter_slot]),) + args[filter_slot + 1:]
            elif "dps" in kwargs:
                kwargs["dps"] = dps_or_none(kwargs["dps"])
        return fn(self, *args, **kwargs)

    filtered._filtered = True
    return filtered


def _install_filters(cls):
    """Put :func:`_filter_arguments` on every public method ``cls`` defines or takes from a
    mixin that is not a law (AlgebraicLaw's algebraic mixins)."""
    for name in dir(cls):
        if name.startswith("_"):
            continue
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is None or (owner is not cls and isinstance(owner, type)
                             and issubclass(owner, Law)):
            continue  # filtered where it is defined
        fn = vars(owner)[name]
        if inspect.isfunction(fn) and not getattr(fn, "_filtered", False):
            wrapped = _filter_arguments(fn)
            if wrapped is not fn:
                setattr(cls, name, wrapped)


class Law(ValueIdentity, StatsVocabulary, GenericRoutes):
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

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _install_filters(cls)

    # ------------------------------------------------------------------ helpers
    #: the type filter of every pointwise method (:func:`freeattn._validation.check_points`)
    _check_points = staticmethod(check_points)

    @staticmethod
    def _apply(x, dps, fl, mp_fn, dtype=float, name="x", at_inf=None, method="this method"):
        """Dispatch a pointwise evaluation to the float64 or the mpmath route.

        The one argument filter of every pointwise method: the types of :meth:`_check_points`
        (``dtype=float``: real points, ``complex``: complex ones); NaN raises
        :class:`ParameterError` (in both routes); ±∞ gives ``at_inf(sign)`` (sign +1, −1, or
        0 for a complex infinity) without calling the hook, or raises when ``at_inf`` is
        None."""
        Law._check_points(x, name, real=dtype is not complex, method=method)
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
        # rounded back to dps (idempotent for an mp_route hook) so the REPL shows dps digits
        return round_back(mp_fn(v, dps), dps)

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
        """log cdf(x): −inf below the support, 0 above it.

        Where cdf(x) > 1/2, log1p(−sf(x)) (sf computed from the right end), so that the upper
        tail keeps its relative accuracy (log cdf ≈ −sf there); log cdf(x) elsewhere.
        Shapes and ``dps`` as in :meth:`pdf`.
        """
        return self._log_tail(x, dps, "logcdf", self.cdf, self.sf, self._cdf_mp, self._sf_mp,
                              lambda s: 0.0 if s > 0 else -math.inf)

    def sf(self, x, dps=None):
        """Survival function μ((x, ∞)) = 1 − cdf(x), computed directly from the right end
        (accurate in the upper tail); sf(−inf) = 1, sf(+inf) = 0."""
        return self._apply(x, dps, self._sf_float, self._sf_mp,
                           at_inf=lambda s: 0.0 if s > 0 else 1.0, method="sf")

    def logsf(self, x, dps=None):
        """log sf(x) = log μ((x, ∞)) (scipy's ``logsf``): 0 below the support, −inf above.

        log sf(x) from the survival function itself (computed from the right end, so that
        the deep upper tail keeps its relative accuracy: MP(1).logsf(4 − 1e−12) = log
        5.305e−20, where log(1 − cdf) would be −inf or wrong); where sf(x) > 1/2,
        log1p(−cdf(x)), accurate in the lower tail.  Shapes and ``dps`` as in :meth:`pdf`.
        """
        return self._log_tail(x, dps, "logsf", self.sf, self.cdf, self._sf_mp, self._cdf_mp,
                              lambda s: -math.inf if s > 0 else 0.0)

    def _log_tail(self, x, dps, method, near, far, near_mp, far_mp, at_inf):
        """log near(x) with near + far = 1: log(near) where near ≤ 1/2, log1p(−far) else."""
        if dps is None:
            self._check_points(x, "x", method=method)
            p = np.asarray(near(x), dtype=float)
            out = np.empty(p.shape)
            flat, res = p.reshape(-1), out.reshape(-1)
            big = flat > 0.5
            with np.errstate(divide="ignore"):
                res[~big] = np.log(flat[~big])
            if big.any():
                xs = np.asarray(x, dtype=float).reshape(-1)[big]
                res[big] = np.log1p(-np.asarray(far(xs), dtype=float))
            return out[()] if out.ndim == 0 else out

        def one(v, d):
            p = near_mp(v, d)
            with mpmath.workdps(d):
                if p > mpmath.mpf(1) / 2:
                    return mpmath.log1p(-far_mp(v, d))
                return mpmath.log(p) if p > 0 else mpmath.ninf

        return self._apply(x, dps, None, one, at_inf=at_inf, method=method)

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
        if dps is None:
            arr = np.asarray(q, dtype=float)
            out = np.asarray(self._ppf_float(arr.reshape(-1))).reshape(arr.shape)
            return out[()] if out.ndim == 0 else out
        return self._apply(q, dps, None, self._ppf_mp, name="q")

    def isf(self, q, dps=None):
        """Inverse survival function: the smallest x with sf(x) ≤ q (= ppf(1 − q)), inverted
        from the right end of the support where the law's tables allow (hooks ``_isf_float``
        and ``_isf_mp``), so that small q keep their relative accuracy.

        Parameters
        ----------
        q : float or array_like of float in [0, 1]
        dps : int, optional
            As in :meth:`pdf`.

        Returns
        -------
        float or ndarray, shape of ``q``

        Raises
        ------
        ParameterError
            If some q lies outside [0, 1] or is NaN (ParameterTypeError for a non-number).
        """
        self._check_probabilities(q, "q", "isf")
        if dps is None:
            arr = np.asarray(q, dtype=float)
            out = np.asarray(self._isf_float(arr.reshape(-1))).reshape(arr.shape)
            return out[()] if out.ndim == 0 else out
        return self._apply(q, dps, None, self._isf_mp, name="q")

    #: probabilities in [0, 1] (:func:`freeattn._validation.check_probabilities`)
    _check_probabilities = staticmethod(check_probabilities)

    def support(self, dps=None):
        """Support of the absolutely continuous part: a sorted list of closed intervals (a, b).

        Endpoints are edges found as exactly as the law allows (declared, or refined by a
        root finder on the on-axis density), returned as floats or, with ``dps``, as mpf.
        Atoms are listed by :meth:`atoms`.
        """
        return self._support(None) if dps is None else round_back(self._support(dps), dps)

    def hull(self, dps=None):
        """The smallest closed interval (a, b) holding all of the law: scipy's ``support()``.

        :meth:`support` is a list of intervals (a law here may have gaps and atoms outside
        them: the bert-base layer law has two components); ``hull`` is scipy's single pair,
        from the first left end to the last right end of the support intervals and the
        atoms.  :meth:`bounds` is the same.

        Returns
        -------
        (a, b) : floats, or mpf with ``dps``
        """
        ends = [e for ab in self.support(dps) for e in ab] + [a for a, _ in self.atoms(dps)]
        if not ends:
            raise ArithmeticError(f"{self.name} has neither atoms nor a support")
        if dps is None:
            return float(min(ends)), float(max(ends))
        return min(ends), max(ends)

    def bounds(self, dps=None):
        """scipy's ``support()`` (a, b): the same as :meth:`hull`."""
        return self.hull(dps)

    # ------------------------------------------- cdf/sf by the distance to an exact end
    def _exact_ends(self):
        """The exact ends of the pieces of the support, for :meth:`_cdf_sf_at_distance`: a
        list, in increasing order, of (A, cA, B, cB), doubles A, B and the excesses of the
        exact ends over them (a = A + cA, b = B + cB, |cA|, |cB| of the order of an ulp); the
        pieces are the support intervals or a partition of them (the tables of an algebraic
        law break an interval at the branch points inside it); None (the default) where the
        law has no such form.  An affine image
        hands its argument down as a distance to these ends (:mod:`freeattn.laws.affine`):
        (y − a)/s as a double rounds at the ulp of the base law's end, which moves a tail 1e-8
        of the width from an end at |end| ≫ width by ~ulp(end)/(1e-8·width) of itself."""
        return None

    def _cdf_sf_at_distance(self, i, from_right, d):
        """(cdf, sf), float64 arrays, at the points of piece i of :meth:`_exact_ends` whose
        distance from its exact left end (``from_right``: right end) is d ≥ 0 (a float64 array, at most the
        width); defined where :meth:`_exact_ends` is not None."""
        raise NotImplementedError(f"{self.name}: no cdf/sf by the distance to an end")

    def atoms(self, dps=None):
        """Atoms as a list of ``(location, mass)`` with mass > 0, sorted by location."""
        return self._atoms(None) if dps is None else round_back(self._atoms(dps), dps)

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
        self._check_points(g, "g", real=False)
        return _r_transform(self, g, dps, method=method)

    def s_transform(self, w, dps=None, method=None):
        """S-transform S(w) = (1 + w)/w · ψ^{-1}(w), S(0) = 1/m₁; see
        :func:`freeattn.transforms.s_transform`."""
        self._check_points(w, "w", real=False)
        return _s_transform(self, w, dps, method=method)

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
        return Transformed(self, coefficients)

    def affine(self, shift, scale):
        """Push-forward by x ↦ shift + scale·x (scale ≠ 0): the exact affine image
        (:class:`AffineLaw`), every functional answered by this law at the mapped argument.

        Parameters
        ----------
        shift, scale : real numbers (floats at their binary values) or exact sympy numbers

        Raises
        ------
        ParameterError
            Naming ``shift`` or ``scale``: not a finite real number (a
            :class:`ParameterTypeError` for None, text or complex numbers), or scale = 0.
        """
        return AffineLaw(self, *affine_arguments(shift, scale))

    def dilate(self, t):
        """Dilation D_t (push-forward by x ↦ t x), t > 0: the exact affine image.

        Raises
        ------
        ParameterError
            If ``t`` is not a finite number > 0 (:class:`ParameterTypeError` for non-numbers).
        """
        return self.affine(0, dilation_argument(t))

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
        return self._pdf_limit_table(x)

    # ------------------------------------------------------------ display
    def _repr_html_(self):
        """Plain HTML table (:mod:`freeattn.display` registers the rich notebook formatter,
        table and density plot, with IPython itself)."""
        return "<pre>" + html.escape(self._summary_text()) + "</pre>"

    def _repr_latex_(self):
        """Plain LaTeX table (the rich one: :func:`freeattn.display.law_latex`)."""
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


LawType.register(Law)  # the argument filter (freeattn._validation.law_instance) knows a law
_install_filters(Law)  # the dps/order filter on Law's own methods (subclasses: __init_subclass__)


class AffineLaw(AffineImage, Law):
    """The affine image shift + scale·X of any law (:mod:`freeattn.laws.affine`): exact up
    to the map at any scale float64 represents.  Built by :meth:`Law.affine`/:meth:`Law.dilate`."""

    def __init__(self, base, shift, scale):
        self._init_affine(Param("base", "law", "μ").validate(base), *affine_arguments(shift, scale))


# ====================================================================== push-forward
#: a root of φ(x) = z (or of φ′) is real when |Im x| ≤ this × (1 + |x|) (float64)
_REAL_ROOT_RTOL = 1e-12
#: dps isf: Newton steps on sf(x) = q, and its relative tolerance on q (× 10^-dps)
_MP_NEWTON_STEPS = 30
_MP_QUANTILE_RTOL = 10.0


def _coefficients(name, coefficients):
    """Finite real coefficients (lowest degree first, trailing zeros dropped) of degree ≥ 1."""
    if isinstance(coefficients, np.polynomial.Polynomial):
        coefficients = coefficients.coef
    try:
        coefs = [finite_real(name, c) for c in list(coefficients)]
    except TypeError:
        raise ParameterError(name, f"{name} must be a sequence of real numbers, "
                                   f"got {coefficients!r}") from None
    while len(coefs) > 1 and coefs[-1] == 0:
        coefs.pop()
    if len(coefs) < 2:
        raise ParameterError(name, f"{name} must define a non-constant polynomial (degree ≥ 1), "
                                   f"got {coefficients!r}")
    return coefs


class Transformed(PushforwardPieces, Law):
    """The push-forward φ#μ of a law μ by a real polynomial φ(x) = Σ_k c_k x^k.

    Parameters
    ----------
    law : Law
        The law μ.
    coefficients : sequence of real numbers (lowest degree first) or numpy Polynomial
        (c₀, c₁, …, c_n), n ≥ 1, c_n ≠ 0.

    Notes
    -----
    Partial fractions over the n roots x_j(z) of φ(x) = z give, exactly,

    .. math:: G_{φ\\#μ}(z) = \\sum_j G_μ(x_j) / φ'(x_j),

    valid for z off the critical values of φ.  On the real axis, a real root is approached
    from above when φ′(x_j) > 0 and from below when φ′(x_j) < 0 (x_j(z + iε) ≈ x_j + iε/φ′),
    so the density is Σ_j ρ_μ(x_j)/|φ′(x_j)|.  Atoms map to atoms (merged where φ identifies
    them), the support is the image of μ's support, and moments are exact when μ's are
    (m_k(φ#μ) = ∫ φ^k dμ).  For an affine φ this is G((z − c₀)/c₁)/c₁.

    On a bounded support of μ, the float64 pdf, cdf and sf are read off the monotone pieces of
    φ between its critical points (:meth:`_pieces`): the preimage r of y on each piece by a
    safeguarded long double Newton iteration in φ's Taylor coefficients at the piece's end
    (:meth:`_piece_roots`), ρ_ν(y) = Σ ρ_μ(r)/|φ′(r)|, and cdf_ν(y) = μ{φ ≤ y}, sf_ν(y) =
    μ{φ > y} as μ-masses of the intervals between the preimages, each from μ's own cdf or sf
    measured from the end of μ it touches (:meth:`_partial_float`), so that both tails of ν
    keep μ's accuracy; ppf and isf bisect the doubles of that cdf and sf.

    Raises
    ------
    ParameterError
        If ``coefficients`` is constant, has a non-finite entry, or a zero leading coefficient.
    """

    parameters = (Param("law", "law", "μ"),
                  Param("coefficients", lambda name, v: _coefficients(name, v), "φ",
                        "real polynomial coefficients, lowest degree first, degree ≥ 1"))

    def __init__(self, law, coefficients):
        law = self.parameters[0].validate(law)
        coefs = self.parameters[1].validate(coefficients)
        self.law = law
        self.coefficients = tuple(coefs)
        self._c = np.array([float(c) for c in coefs])
        self._dc = np.polynomial.polynomial.polyder(self._c)
        self._ddc = np.polynomial.polynomial.polyder(self._dc) if len(self._c) > 2 else np.zeros(1)
        terms = " + ".join(f"{c:g}·x^{k}" if k else f"{c:g}" for k, c in enumerate(self._c) if c)
        self.name = f"({terms})#({law.name})"

    def _key(self):
        # the validated coefficients (trailing zeros dropped): [0, 1, 0] and [0, 1] are one map
        try:
            key = (Transformed, self.law, _canonical(self.coefficients))
        except _Unkeyable:
            return None
        return key + tuple((k, _canonical(self.__dict__[k])) for k in _DESCRIPTION_ATTRIBUTES
                           if k in self.__dict__)

    # ------------------------------------------------------------ preimages
    def _roots(self, z):
        """Roots x_j of φ(x) = z for each z: array (len(z), n), by companion eigenvalues."""
        n = len(self._c) - 1
        c = self._c / self._c[-1]
        if n == 1:
            return ((z - self._c[0]) / self._c[1])[:, None]
        comp = np.zeros((len(z), n, n), dtype=complex)
        comp[:, 1:, :-1] = np.eye(n - 1)
        comp[:, :, -1] = -c[:-1]
        comp[:, 0, -1] += z / self._c[-1]
        r = np.linalg.eigvals(comp)
        # one Newton step polishes each root on φ itself
        for _ in range(2):
            f = np.polynomial.polynomial.polyval(r, self._c) - z[:, None]
            d = np.polynomial.polynomial.polyval(r, self._dc)
            with np.errstate(all="ignore"):
                step = np.where(d != 0, f / np.where(d != 0, d, 1), 0)
            r = r - step
        return r

    def _cauchy_float(self, z):
        z = np.asarray(z, dtype=complex)
        x = self._roots(z)
        d = np.polynomial.polynomial.polyval(x, self._dc)
        # on the axis: real roots approached from the side given by sign φ′(x_j)
        onaxis = (z.imag == 0)[:, None] & (np.abs(x.imag) <= _REAL_ROOT_RTOL * (1 + np.abs(x)))
        xr = np.where(onaxis, x.real + 0j, x)
        g = self.law._G(xr.reshape(-1)).reshape(x.shape)
        g = np.where(onaxis & (d.real < 0), g.conj(), g)
        with np.errstate(all="ignore"):
            return (g / np.where(onaxis, d.real + 0j, d)).sum(axis=1)

    def _cauchy_derivative_float(self, z):
        z = np.asarray(z, dtype=complex)
        if np.any(z.imag == 0):
            return Law._cauchy_derivative_float(self, z)
        x = self._roots(z)
        d = np.polynomial.polynomial.polyval(x, self._dc)
        dd = np.polynomial.polynomial.polyval(x, self._ddc)
        g = self.law._G(x.reshape(-1)).reshape(x.shape)
        dg = np.asarray(self.law.cauchy_transform_derivative(x.reshape(-1))).reshape(x.shape)
        return (dg / d**2 - g * dd / d**3).sum(axis=1)

    @mp_route
    def _cauchy_mp(self, z, dps):
        z = mpmath.mpc(z)
        coefs = [mpmath.mpf(float(c)) for c in reversed(self.coefficients)]
        coefs[-1] -= z
        xs = polyroots(coefs)
        dcoef = [k * c for k, c in enumerate(mpmath.mpf(float(c)) for c in self.coefficients)][1:]
        total = mpmath.mpc(0)
        tol = tolerance(dps)
        for x in xs:
            d = mpmath.fsum(c * x**k for k, c in enumerate(dcoef))
            if mpmath.im(z) == 0 and abs(mpmath.im(x)) <= tol * (1 + abs(x)):
                g = self.law._cauchy_mp(mpmath.re(x), inner_dps(dps))
                if mpmath.re(d) < 0:
                    g = mpmath.conj(g)
                total += g / mpmath.re(d)
            else:
                total += self.law._cauchy_mp(x, inner_dps(dps)) / d
        return total

    # ------------------------------------------------------------ structure
    def _phi(self, x):
        return np.polynomial.polynomial.polyval(x, self._c)

    def _phi_mp(self, x):
        """φ(x) at the current mpmath precision (coefficients: their binary values)."""
        return mpmath.polyval([mpmath.mpf(float(c)) for c in reversed(self.coefficients)], x)

    def _critical_points(self, dps):
        """Real zeros of φ′, sorted (float64, or mpmath at the working precision)."""
        if len(self._dc) < 2:
            return []
        if dps is None:
            crit = np.polynomial.polynomial.polyroots(self._dc)
            return sorted(float(c.real) for c in crit if abs(c.imag) <= _REAL_ROOT_RTOL * (1 + abs(c)))
        dc = [mpmath.mpf(float(c)) for c in reversed(self._dc)]
        crit = polyroots(dc)
        tol = tolerance(dps)
        return sorted(mpmath.re(c) for c in crit if abs(mpmath.im(c)) <= tol * (1 + abs(c)))

    @mp_route
    def _support(self, dps):
        """φ of each support interval of μ: its image is [min, max] of φ over the ends and the
        critical points inside (exactly at ``dps`` when μ's edges are)."""
        phi = (lambda x: float(self._phi(np.array([float(x)]))[0])) if dps is None else self._phi_mp
        crit = self._critical_points(dps)
        images = []
        for a, b in self.law.support(None if dps is None else inner_dps(dps)):
            v = [phi(p) for p in [a, b] + [c for c in crit if a < c < b]]
            images.append((min(v), max(v)))
        images.sort()
        merged = []
        for a, b in images:
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        return merged

    @mp_route
    def _atoms(self, dps):
        merged = {}
        for a, w in self.law.atoms(None if dps is None else inner_dps(dps)):
            loc = float(self._phi(np.array([float(a)]))[0]) if dps is None else self._phi_mp(a)
            merged[loc] = merged.get(loc, 0) + w
        return sorted(merged.items(), key=lambda p: p[0])

    # ---------------------- cdf, sf, quantiles, pdf from the pieces (laws/pushforward.py)
    def _cdf_float(self, y):
        if self._pieces() is None:
            return Law._cdf_float(self, y)
        return self._partial_float(y, False)

    def _sf_float(self, y):
        if self._pieces() is None:
            return Law._sf_float(self, y)
        return self._partial_float(y, True)

    def _ppf_float(self, q):
        """Smallest double y with cdf(y) ≥ q: bisection on the doubles of :meth:`_cdf_float`
        (:func:`~freeattn.laws._closed.bisect_doubles`), exact in either tail and at atoms."""
        if self._pieces() is None or not self._pieces():
            return Law._ppf_float(self, q)
        return bisect_doubles(q, self._cdf_float, *self.hull())

    def _isf_float(self, q):
        """Smallest double y with sf(y) ≤ q (bisection on :meth:`_sf_float`'s doubles)."""
        if self._pieces() is None or not self._pieces():
            return Law._isf_float(self, q)
        return bisect_doubles(q, self._sf_float, *self.hull(), upper=True)

    def _pdf_float(self, y):
        """Σ over the monotone pieces of φ of ρ_μ(r)/|φ′(r)| at the root r of φ(r) = y there."""
        if self._pieces() is None:
            return self._pdf_companion(y)
        return self._pdf_pieces_float(y)

    # ------------------------------------------------------------ the dps routes
    def _cdf_mp(self, y, dps):
        if self._pieces() is None:
            return Law._cdf_mp(self, y, dps)
        return self._partial_mp(y, dps, False)

    def _sf_mp(self, y, dps):
        if self._pieces() is None:
            return Law._sf_mp(self, y, dps)
        return self._partial_mp(y, dps, True)

    def _pdf_mp(self, y, dps):
        """Σ ρ_μ(r)/|φ′(r)| over the preimages at ``dps`` digits (μ's own dps density)."""
        if self._pieces() is None:
            return Law._pdf_mp(self, y, dps)
        return self._pdf_pieces_mp(y, dps)

    @mp_route
    def _isf_mp(self, q, dps):
        """isf at ``dps`` digits: Newton's method on sf(x) = q (sf from the upper side, so small
        q keep their relative accuracy) from the float64 isf; an atom's location inside its
        jump; ``mpmath.findroot`` (Anderson, bracketing) if Newton leaves the support interval."""
        if self._pieces() is None or not self._pieces():
            return Law._isf_mp(self, q, inner_dps(dps))
        d = inner_dps(dps)
        lo_all, hi_all = self.hull(d)
        if q <= 0:
            return hi_all
        if q >= 1:
            return lo_all
        for a, w in self._atoms(d):
            sa = self._sf_mp(a, d)
            if sa <= q < sa + w:
                return a
        x = mpmath.mpf(float(self._isf_float(np.array([float(q)]))[0]))
        a, b = next(((a, b) for a, b in self.support(d) if a <= x <= b), (lo_all, hi_all))
        x = min(max(x, a), b)
        tol = tolerance(dps, _MP_QUANTILE_RTOL)
        for _ in range(_MP_NEWTON_STEPS):
            r = self._sf_mp(x, d) - q
            if abs(r) <= tol * q:
                return x
            rho = self._pdf_mp(x, d)
            if not (rho > 0) or mpmath.isinf(rho):
                break
            xn = x + r / rho
            if not (a < xn < b):
                break
            x = xn
        return mpmath.findroot(lambda t: self._sf_mp(t, d) - q, (a, b), solver="anderson")

    def _pdf_companion(self, y):
        y = np.asarray(y, dtype=float)
        out = np.zeros(y.shape)
        inside = np.zeros(y.shape, bool)
        for a, b in self._support(None):
            inside |= (y > a) & (y < b)
        if np.any(inside):
            x = self._roots(y[inside] + 0j)
            real = np.abs(x.imag) <= _REAL_ROOT_RTOL * (1 + np.abs(x))
            xr = np.where(real, x.real, 0.0)
            d = np.abs(np.polynomial.polynomial.polyval(xr, self._dc))
            rho = np.asarray(self.law.pdf(xr.reshape(-1))).reshape(x.shape)
            with np.errstate(all="ignore"):
                out[inside] = np.where(real & (rho > 0), rho / d, 0.0).sum(axis=1)
        return out

    def _exact_moments_known(self):
        return self.law._exact_moments_known()

    def exact_moments(self, order):
        """Exact moments ∫ φ(x)^k dμ from μ's exact moments (sympy), k = 1..order."""
        if not self.law._overrides("exact_moments"):
            raise NotImplementedError(f"{self.law.name} has no exact moments")
        ms = [sp.Integer(1)] + list(self.law.exact_moments(order * (len(self._c) - 1)))
        x = sp.Symbol("x")
        phi = sum(sp.Rational(float(c)) * x**k for k, c in enumerate(self.coefficients))
        out = []
        for k in range(1, order + 1):
            poly = sp.Poly(sp.expand(phi**k), x)
            out.append(sp.expand(sum(coef * ms[deg] for (deg,), coef in poly.terms())))
        return out

    def moment(self, k, dps=None, method=None):
        if method is None and not self.law._overrides("exact_moments"):
            method = "quad"
            if k >= 1 and len(self._c) * k < 60:
                # ∫ φ^k dμ from μ's moments (exact polynomial algebra, float moments)
                p = np.polynomial.polynomial.polypow(self._c, k)
                vals = [1.0 if d == 0 else float(self.law.moment(d)) for d in range(len(p))]
                if dps is None:
                    return math.fsum(c * v for c, v in zip(p, vals))
        return Law.moment(self, k, dps=dps, method=method)
