"""Algebraic laws: a law whose Cauchy transform solves P(G, z) = 0 (Rao & Edelman 2008)."""
from __future__ import annotations

import math
from functools import cached_property

import mpmath
import numpy as np
import sympy as sp

from .._context import FLOAT_REFERENCE_DPS, MASS_TOL, to_mp, tolerance, workdps
from .._messages import shown
from .._validation import ParameterError, exact, integer_at_least
from ..algebraic.atoms import AtomAtZero, AtomsMixin
from ..algebraic.branch import BranchMixin
from ..algebraic.density import _MAX_UNRESOLVED, DensityMixin
from ..algebraic.exact import NotConvertible, flint_enabled
from ..algebraic.exact import free_symbols as _free_symbols, is_expanded as _known_expanded
from ..algebraic.local import LocalMixin
from ..algebraic.numeric import BranchData, NumericPolynomial, structure_key
from ..algebraic.numeric_polynomial import ParameterValues
from ..algebraic.parse import as_polynomial
from ..algebraic.positivity import is_positive_by_construction, mark_positive
from ..algebraic.paths import PathsMixin
from ..algebraic.discriminant import discriminant_cost, discriminant_structure_seen
from ..algebraic.eliminations import pushforward_polynomial
from ..algebraic.polynomial import (G, affine_polynomial, r_relation, s_relation, series_moments,
                                    stieltjes_factor, substitute_polynomial, z)
from ..algebraic.series import series_moments_at, series_moments_numeric
from ..quadrature.tables import (Interval, atom_quantile_mp, cdf_sf, cdf_sf_at_distance,
                                 newton_mp, quantile)
from ._params import fresh
from .affine import AffineImage, affine_arguments, dilation_argument
from .base import Law, _coefficients

__all__ = ["AlgebraicLaw", "AlgebraicAffineImage", "AtomAtZero"]

#: the caches of a law built on its float64 branch classification (dropped by _reclassify)
_BRANCH_DEPENDENT = ("_branch_cache", "_breakpoints_float", "_tables", "_hard_edges",
                     "_cdf_tables", "_quick_interval_masses", "_zero_sheets_merge", "_bp_cache",
                     "_mass_mp_cache", "_atom_cache", "_tiny_cache", "_mass_verdict")

#: most parameter symbols for which the discriminant is taken with parameters symbolic
#: (FLINT: ~1 s once for 5 parameters; the full-layer law's 8 take minutes)
_SYMBOLIC_DISC_MAX_PARAMS = 5
#: a rational parameter value of more bits than this (numerator or denominator) is a float's
#: binary value, which :attr:`AlgebraicLaw._reduced` keeps symbolic when the discriminant's
#: cost measure (algebraic.discriminant.discriminant_cost) then stays at most
#: _SYMBOLIC_REDUCED_COST (milliseconds in FLINT)
_SUBSTITUTE_MAX_BITS = 32
_SYMBOLIC_REDUCED_COST = 10**6
#: digits beyond ``dps`` to which the quantile Newton iteration is converged
_NEWTON_EXTRA_DPS = 2
#: relative distance within which the float64 quantile is taken to sit at an atom (mpmath
#: quantiles then check the atom's jump)
_ATOM_MATCH = 1e-12

#: |z| (× (scale + 1)) beyond which G is the moment series at infinity
_FAR_FIELD = 1e8
#: digits on top of dps at which G′ evaluates G (and the local expansion) at tiny |z|
_DERIVATIVE_EXTRA_DPS = 5
#: the mpmath Newton step from the float64 value kept within this of it (relative)
_MP_NEWTON_MATCH = 1e-8
#: digits at which the sign of an exact shift or scale is decided, and the smallest
#: magnitude (× max(|v|, 1)) counted as shown ≥ 0
_SIGN_DPS = 30
_SIGN_FLOOR_DPS = 25


def _is_monomial(t):
    if t.is_Symbol or t.is_Rational:
        return True
    if t.is_Pow:
        return t.base.is_Symbol and t.exp.is_Integer and t.exp > 0
    if t.is_Mul:
        return all(f.is_Symbol or f.is_Rational
                   or (f.is_Pow and f.base.is_Symbol and f.exp.is_Integer and f.exp > 0)
                   for f in t.args)
    return False


def _is_expanded(P):
    """Whether P is a sum of monomials with rational coefficients (sympy's Add has combined
    like terms), i.e. sp.expand(P) == P."""
    return all(_is_monomial(t) for t in (P.args if P.is_Add else (P,)))


def _nonnegative(v):
    """Whether the exact real number ``v`` (sympy) is ≥ 0: a rational exactly, anything else
    (e.g. e^{β²} − 1 − β²) by its value at 30 digits, which decides the sign of a non-zero
    number of size ≫ 1e-30 (smaller magnitudes, and NaN, count as not shown ≥ 0)."""
    if v.is_Rational:
        return v >= 0
    with mpmath.workdps(_SIGN_DPS):
        x = to_mp(v)
        return bool(x >= tolerance(_SIGN_FLOOR_DPS) * max(abs(x), 1))


def _mpc(v):
    """A complex argument (Python, numpy, sympy or mpmath number) as mpc at the current
    precision."""
    if isinstance(v, (mpmath.mpf, mpmath.mpc)):
        return mpmath.mpc(v)
    return mpmath.mpc(to_mp(v))


class AlgebraicLaw(DensityMixin, BranchMixin, PathsMixin, LocalMixin, AtomsMixin, Law):
    """A probability law given by its Cauchy-transform polynomial P(G, z) = 0.

    Parameters
    ----------
    polynomial : sympy expression, or str
        P(G, z) in the symbols ``freeattn.algebraic.polynomial.G`` and ``z``; parameter
        symbols allowed if ``values`` gives them.  The irreducible factor carrying the branch
        G ~ 1/z at infinity is selected automatically.  Text (e.g. ``"z*G**2 - z*G + 1"``)
        is parsed by a restricted grammar (:func:`freeattn.algebraic.parse.parse_polynomial`:
        numbers, G, z, the parameters' names, + − * / **), never evaluated as Python.
    values : dict, optional
        Parameter symbol → exact value (sympy number or expression such as ``exp(1) - 1``).
        Kept exact so that every method can evaluate at any precision.
    name : str, optional
        Display name.

    Raises
    ------
    ParameterError
        (``.param == "polynomial"``) for text outside that grammar; a
        :class:`ParameterTypeError` for an object that is neither an expression, a number nor
        text.

    Notes
    -----
    The branch is G ~ 1/z at infinity with Im G < 0 on the upper half-plane.  Edges are the
    real roots of the discriminant of P in G, atoms sit at real roots of the leading
    coefficient of P in G with mass lim (z − a) G(z) (Rao & Edelman 2008, §5).
    """

    def __init__(self, polynomial, values=None, name="algebraic law"):
        self.values = dict(values or {})
        # text goes through a restricted grammar, never sympify (which evaluates strings with
        # eval): polynomials in G, z and the named parameters only
        polynomial = as_polynomial(polynomial, self.values, "polynomial")
        # the exact eliminations return expanded polynomials already (FLINT's terms): sympy's
        # expand would only re-walk them (~1 s for the tied K=V layer's dilation)
        expanded = _known_expanded(polynomial) or _is_expanded(polynomial)
        self.symbolic_polynomial = polynomial if expanded else sp.expand(polynomial)
        self.name = name

    # ----------------------------------------------------------- structure
    @cached_property
    def _factor(self):
        """The irreducible factor of the symbolic polynomial that carries G ~ 1/z."""
        return stieltjes_factor(self.symbolic_polynomial)

    @property
    def polynomial(self):
        """P(G, z) with the parameter values substituted exactly (irreducible factor)."""
        return self._factor.xreplace(self.values)

    @cached_property
    def _reduced(self):
        """The factor with its rational-valued parameters substituted exactly.

        Keeps symbolic only the parameters with transcendental values (e.g. θ₁ = e^{β²} − 1),
        so that the discriminant stays cheap however many affine maps and convolutions
        built the law, while no large exact expression ever enters sympy's algebra."""
        rational = {p: v for p, v in self.values.items() if getattr(v, "is_Rational", False)}
        # a float's binary value (a rational of many bits, e.g. β² for β = 0.7) stays
        # symbolic where the discriminant with it symbolic stays cheap: the next point of a
        # sweep then shares this polynomial and its cached discriminant, and the exact
        # elimination at a 100-bit value is dearer still (bert-base layer: 9 ms once against
        # 40 ms a point)
        long = {p for p, v in rational.items()
                if max(abs(v.p), v.q).bit_length() > _SUBSTITUTE_MAX_BITS}
        if long:
            candidate = substitute_polynomial(
                self._factor, {p: v for p, v in rational.items() if p not in long})
            cost = discriminant_cost(candidate)
            if cost is not None and cost <= _SYMBOLIC_REDUCED_COST:
                return candidate
        # in FLINT (up to a rational factor, which P = 0 does not see)
        return substitute_polynomial(self._factor, rational)

    @cached_property
    def _num(self):
        return NumericPolynomial(self._reduced, {p: v for p, v in self.values.items()
                                                 if p in _free_symbols(self._reduced)})

    @cached_property
    def _symbolic_discriminant_ok(self):
        """Whether the breakpoints come from the discriminant of the factor with *all*
        parameters symbolic (cached per structure on its canonical form, evaluated numerically
        at the working precision), so that a new parameter point (a β scan) redoes no exact
        algebra; laws with many parameter symbols keep the rational-substitution route, whose
        symbolic discriminant would be too large for sympy."""
        n = len(_free_symbols(self._factor) - {G, z})
        return 0 < n <= _SYMBOLIC_DISC_MAX_PARAMS

    @cached_property
    def _num_full(self):
        """The values of every parameter of :attr:`_factor` at any precision: the evaluator of
        the symbolic route's discriminant tables (no coefficient table of its own)."""
        return ParameterValues(self.values)

    @cached_property
    def _symbolic_route(self):
        """Breakpoints from the symbolic discriminant once the structure recurs (a scan),
        from the substituted one for the first law of a structure (cold start); decided
        once per law."""
        return self._symbolic_discriminant_ok and discriminant_structure_seen(self._factor)

    def _branch(self, dps):
        dps = FLOAT_REFERENCE_DPS if dps is None else max(int(dps), FLOAT_REFERENCE_DPS)
        cache = self.__dict__.setdefault("_branch_cache", {})
        if dps not in cache:
            before = {k for k in _BRANCH_DEPENDENT if k in self.__dict__}
            symbolic = self._symbolic_route
            # a new point of a structure met before starts from the last point's
            # classification (BranchData._classify_from), on the float64 route only: its mass
            # check confirms the carried-over classes (_confirm_reuse)
            key = structure_key(self._factor) if dps == FLOAT_REFERENCE_DPS else None
            reuse = None if key is None or self.__dict__.get("_fresh_classification") else key
            if symbolic:
                try:
                    cache[dps] = BranchData(self._num, self._factor, dps, evaluator=self._num_full,
                                            reuse=reuse, positive=is_positive_by_construction(self))
                except ValueError:  # a factor vanishes at these values: the exact route
                    symbolic = False
            if not symbolic:
                cache[dps] = BranchData(self._num, self._reduced, dps, reuse=reuse,
                                        positive=is_positive_by_construction(self))
            if getattr(cache[dps], "reused", False):
                self._confirm_reuse(dps, before)  # may drop it and classify afresh
                return self._branch(dps)
        return cache[dps]

    # ------------------------------------------------------ moments / transforms
    def exact_moments(self, order):
        """First ``order`` moments as exact sympy expressions, from the series of G at ∞."""
        cache = self.__dict__.setdefault("_moment_cache", [])
        if len(cache) < order:
            ms = None
            if flint_enabled():
                try:  # the FLINT recursion with the values substituted before it starts
                    ms = series_moments_at(self._factor, self.values, order)
                except NotConvertible:  # coefficients FLINT does not take
                    pass
            if ms is None:  # sympy's expansion in every parameter, then the values
                ms = [sp.expand(m.xreplace(self.values))
                      for m in series_moments(self._factor, order)]
            cache[:] = ms
        return cache[:order]

    def _moments_mp(self, order, dps):
        """m_1..m_order at ``dps`` digits by the numeric series recursion on P (cached)."""
        cache = self.__dict__.setdefault("_num_moment_cache", {})
        key = max(int(dps), FLOAT_REFERENCE_DPS)
        have = cache.get(key)
        if have is None or len(have) < order:
            with workdps(key):
                have = series_moments_numeric(self._num.coefficients_mp(), max(order, 2 * len(have or ())))
            cache[key] = have
        return have[:order]

    def moment(self, k, dps=None, method=None):
        """k-th moment m_k = ∫ x^k dμ(x) (atoms included), k ≥ 0.

        ``method=None``: the series recursion on P(G, z) at infinity (G = Σ m_k z^{-k-1}),
        evaluated at ``dps`` digits (float64: at 30 digits, then rounded; the first 50 moments
        in a fraction of a second); ``"exact"``: the exact sympy values of
        :meth:`exact_moments`, evaluated; ``"quad"``: quadrature against the law.

        Raises
        ------
        ParameterError
            If k is not an integer ≥ 0 or ``method`` is unknown.
        """
        if method is not None:
            return super().moment(k, dps, method)
        if k == 0:
            return 1.0 if dps is None else self._mp_number(1, dps)
        if dps is None:
            # the rounded values kept beside the reference-precision ones (a float moment is
            # asked in loops over k: no slice or mpf conversion per call)
            floats = self.__dict__.setdefault("_float_moments", [])
            if len(floats) < k:
                floats[:] = [float(v) for v in self._moments_mp(max(k, 2 * len(floats)),
                                                                 FLOAT_REFERENCE_DPS)]
            return floats[k - 1]
        value = self._moments_mp(k, dps)[k - 1]
        with mpmath.workdps(dps):
            return +value

    def s_relation(self):
        """Polynomial relation Σ(w, S) = 0 satisfied by the S-transform S(w) (sympy)."""
        return s_relation(self.polynomial)

    def r_relation(self):
        """Polynomial relation C(w, R) = 0 satisfied by the R-transform R(w) (sympy; the
        returned expression uses the symbols ``w`` for the argument and ``S`` for R)."""
        return r_relation(self.polynomial)

    # ------------------------------------------------------------- support
    def _support(self, dps):
        bd = self._branch(dps)
        out = []
        with workdps(dps or FLOAT_REFERENCE_DPS):
            bps = bd.breakpoints
            atoms = self._atom_locations(dps)
            for i, info in enumerate(bd.intervals):
                if info["support"]:
                    a, b = bps[i - 1], bps[i]
                    if out and out[-1][1] == a and a not in atoms:
                        out[-1] = (out[-1][0], b)  # touching intervals (interior cusp)
                    else:
                        out.append((a, b))
            if dps is None:
                self._check_mass()
                return [(float(a), float(b)) for a, b in out]
            return [(+a, +b) for a, b in out]

    def _check_mass(self):
        """Total mass (atoms + every support interval by quadrature) must be 1: a law never
        reports a support that misses a component.  The intervals' masses come from the cdf
        tables when they exist, else from :attr:`_quick_interval_masses` (a coarser quadrature of
        the same integrand, accurate far below ``MASS_TOL``), so that a new parameter point
        does not pay for cdf tables at 1e-16 before anyone asks for the cdf.

        Every float64 route that reads the tables (support, pdf, cdf, ppf) runs it first, and
        its outcome is kept: a law that failed it keeps refusing (before, only ``support``
        checked, so ``cdf`` or a second ``support`` call answered from unchecked tables)."""
        verdict = self.__dict__.get("_mass_verdict")
        if verdict is None:
            total = sum(float(m) for _, m in self._atoms_raw(None))
            if "_cdf_tables" in self.__dict__:
                total += sum(t["cum"][-1] for t in self._cdf_tables)
            else:
                total += sum(self._quick_interval_masses)
            verdict = "" if abs(total - 1.0) <= MASS_TOL else (
                f"{self.name}: atoms and support intervals carry mass {total!r}, not 1 "
                f"(a component is unresolved at float64 scales; evaluate with dps=...)"
                if math.isfinite(total) else
                f"{self.name}: the density next to a support end could not be resolved in "
                f"float64 (the branch continuation failed at more than {_MAX_UNRESOLVED} "
                f"nodes of the mass check)")
            self.__dict__["_mass_verdict"] = verdict
        if verdict:
            raise ArithmeticError(verdict)

    def _confirm_reuse(self, dps, before):
        """A classification carried over from the previous point of the structure stands
        only if atoms and support intervals then carry mass 1 (within ``MASS_TOL``); else
        it and every cache built on it since (those not in ``before``) are forgotten and the
        law classifies afresh (tracked from far above), once."""
        total = sum(float(m) for _, m in self._atoms_raw(None)) + sum(self._quick_interval_masses)
        if abs(total - 1.0) <= MASS_TOL:
            return
        self.__dict__["_branch_cache"].pop(dps, None)
        for key in _BRANCH_DEPENDENT:
            if key not in before and key != "_branch_cache":
                self.__dict__.pop(key, None)
        self.__dict__["_fresh_classification"] = True


    def _pdf_float(self, x):
        self._check_mass()
        out = np.zeros(x.shape)
        for t in self._tables:
            m = (x > t["a"]) & (x < t["b"])
            if np.any(m):
                out[m] = np.maximum(-self._branch_in_table(t, x[m]).imag / math.pi, 0.0)
        # x at a breakpoint (hard edges are breakpoints too, and probing for them costs
        # branch evaluations next to each pole: only then)
        if not np.any(np.isin(x, self._breakpoints_float)):
            return out
        # a breakpoint strictly inside the support (a pole or branch point of other sheets,
        # where the Stieltjes branch stays finite): the density is the limit G(x + i0) there
        bps = [t["b"] for t in self._tables[:-1]]
        inner = np.isin(x, bps) & ~np.isin(x, self._hard_edges)
        for a, b in self._support(None) if np.any(inner) else ():
            m = inner & (x > a) & (x < b)
            if np.any(m):
                out[m] = np.maximum(-self._cauchy_real(x[m]).imag / math.pi, 0.0)
        for p in self._hard_edges:
            out[x == p] = np.inf
        return out


    # ------------------------------------------------ cdf, sf, ppf, isf (quadrature/tables)
    def _float_pieces(self):
        """(atoms, intervals, ends) of the float64 tables for
        :mod:`freeattn.quadrature.tables`; ``ends``: the support's ends as :meth:`support`
        reports them (a closed form's), atoms included."""
        self._check_mass()
        atoms = [(float(a), float(m)) for a, m in self._atoms_raw(None)]
        pts = [e for ab in self._support(None) for e in ab] + [a for a, _ in atoms]
        return atoms, [t["interval"] for t in self._cdf_tables], (min(pts), max(pts))

    def _cdf_float(self, x):
        atoms, intervals, ends = self._float_pieces()
        return cdf_sf(np.asarray(x, dtype=float), atoms, intervals, ends=ends)

    def _sf_float(self, x):
        atoms, intervals, ends = self._float_pieces()
        return cdf_sf(np.asarray(x, dtype=float), atoms, intervals, upper=True, ends=ends)

    def _exact_ends(self):
        """The tables' exact ends (their ``corr``), for an affine image's tails by distance."""
        _, intervals, _ = self._float_pieces()
        if not all(type(iv) is Interval and math.isfinite(iv.width) for iv in intervals):
            return None
        return [iv.exact_ends() for iv in intervals]

    def _cdf_sf_at_distance(self, i, from_right, d):
        atoms, intervals, _ = self._float_pieces()
        return cdf_sf_at_distance(d, i, from_right, atoms, intervals)

    def _ppf_float(self, q):
        """Quantiles from the tables (:func:`~freeattn.quadrature.tables.quantile`): the tail
        beyond 1/2 inverted from the right end through 1 − q."""
        atoms, intervals, ends = self._float_pieces()
        return quantile(np.asarray(q, dtype=float), atoms, intervals, ends=ends)

    def _isf_float(self, q):
        atoms, intervals, ends = self._float_pieces()
        return quantile(np.asarray(q, dtype=float), atoms, intervals, upper=True, ends=ends)

    # ------------------------------------------------------------ Cauchy
    def _far_field(self, zz):
        """G(z) = Σ_k m_k z^{-k-1} for |z| ≫ the spectrum (moments from the series)."""
        m = [1.0] + [float(v) for v in self._moments_mp(6, FLOAT_REFERENCE_DPS)]
        w = 1.0 / zz
        acc = np.zeros_like(zz)
        for mk in reversed(m):
            acc = (acc + mk) * w
        return acc

    def _far_radius(self):
        return _FAR_FIELD * (self._branch(None)._scale() + 1.0)

    def _cauchy_float(self, zz):
        out = np.empty(zz.shape, dtype=complex)
        nan = np.isnan(zz.real) | np.isnan(zz.imag)
        inf = ~nan & ~np.isfinite(zz)
        out[nan] = np.nan + 0j
        out[inf] = 0j
        fin = ~nan & ~inf
        far = fin & (np.abs(np.where(fin, zz, 0)) >= self._far_radius())
        if np.any(far):
            out[far] = self._far_field(zz[far])
        near = fin & ~far
        lower = near & (zz.imag < 0)
        zq = np.where(lower, zz.conj(), zz)
        tiny = self._tiny_mask(zq, near)
        if np.any(tiny):  # next to z = 0: the polynomial rescaled there (_tiny_z)
            out[tiny] = self._cauchy_tiny(zq[tiny])
            near = near & ~tiny
        real = near & (zq.imag == 0)
        upper = near & (zq.imag > 0)
        if np.any(real):
            out[real] = self._cauchy_real(zq[real].real)
        if np.any(upper):
            out[upper] = self._cauchy_upper(zq[upper])
        out[lower] = out[lower].conj()
        return out


    # ------------------------------------------------------ G′ (readout)
    def _cauchy_derivative_float(self, zz):
        """G′(z) = −∂_zP/∂_GP at the branch value (implicit function theorem); series at
        infinity; ±∞ → 0; ∞ at a square-root edge or an atom."""
        zz = np.asarray(zz, dtype=complex)
        g = self._cauchy_float(zz)
        out = np.empty(zz.shape, dtype=complex)
        nan = np.isnan(zz.real) | np.isnan(zz.imag)
        inf = ~nan & ~np.isfinite(zz)
        out[nan] = np.nan
        out[inf] = 0
        fin = ~nan & ~inf
        far = fin & (np.abs(np.where(fin, zz, 0)) >= self._far_radius())
        if np.any(far):
            m = [1.0] + [float(v) for v in self._moments_mp(6, FLOAT_REFERENCE_DPS)]
            w = 1.0 / zz[far]
            acc = np.zeros_like(w)
            for k in reversed(range(len(m))):
                acc = acc * w - (k + 1) * m[k]
            out[far] = acc * w * w
        near = fin & ~far
        lower = near & (zz.imag < 0)
        zq = np.where(lower, zz.conj(), zz)
        tiny = self._tiny_mask(zq, near)
        if np.any(tiny):  # G′ = z^{α−1}(αH + zH′) from the rescaled polynomial
            d = self._cauchy_tiny(zq[tiny], derivative=True)
            out[tiny] = np.where(lower[tiny], d.conj(), d)
            near = near & ~tiny
        if np.any(near):
            gn = g[near]
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                d = self._num.derivative(gn, zz[near])
            d = np.where(np.isfinite(gn) & np.isfinite(d), d, np.inf + 0j)
            out[near] = d
        return out

    def _cauchy_derivative_mp(self, zv, dps):
        with workdps(dps):
            zv = _mpc(zv)
            if not mpmath.isfinite(zv):
                val = mpmath.mpc(0)
            elif zv != 0 and self._tiny_mp(zv):
                zq = mpmath.conj(zv) if mpmath.im(zv) < 0 else zv
                val = self._cauchy_tiny_mp(zq, dps + _DERIVATIVE_EXTRA_DPS, derivative=True)
                val = mpmath.conj(val) if mpmath.im(zv) < 0 else val
            else:
                g = self._cauchy_mp(zv, dps + _DERIVATIVE_EXTRA_DPS)
                if not mpmath.isfinite(g):
                    val = mpmath.mpc(mpmath.inf)
                else:
                    c = self._num.coefficients_mp()
                    pg = sum(k * c[k][j] * g ** (k - 1) * zv**j
                             for k in range(1, len(c)) for j in range(len(c[0])))
                    pz = sum(j * c[k][j] * g**k * zv ** (j - 1)
                             for k in range(len(c)) for j in range(1, len(c[0])))
                    val = -pz / pg if pg != 0 else mpmath.mpc(mpmath.inf)
        with mpmath.workdps(dps):
            return +val


    def _pdf_mp(self, x, dps):
        with workdps(dps):
            x = to_mp(x)
            if mpmath.isnan(x):
                val = mpmath.nan
            elif mpmath.isinf(x):
                val = mpmath.mpf(0)
            else:
                _, info = self._locate_mp(x, dps)
                if info is None:
                    bd = self._branch(dps)
                    e = min(bd.breakpoints, key=lambda b: abs(b - x))
                    if float(e) in self._hard_edges:
                        val = mpmath.inf
                    elif any(a < e < b for a, b in self._support(dps)):
                        # inside the support: the finite limit G(e + i0) (see _pdf_float)
                        # a finite simple root of P(·, e): Newton from the float64 limit
                        g0 = complex(self._cauchy_real(np.array([float(e)]))[0])
                        g = self._num.newton_mp(mpmath.mpc(g0), e)
                        val = max(-mpmath.im(g) / mpmath.pi, mpmath.mpf(0))
                    else:
                        val = mpmath.mpf(0)
                elif not info["support"]:
                    val = mpmath.mpf(0)
                else:
                    val = max(-mpmath.im(self._support_branch_mp(x, info, dps)) / mpmath.pi,
                              mpmath.mpf(0))
        with mpmath.workdps(dps):
            return +val


    def _partial_mp(self, x, dps, upper):
        """cdf (sf with ``upper``) at the working precision, not rounded back."""
        if mpmath.isnan(x):
            return mpmath.nan
        return cdf_sf(np.array([x], dtype=object), self._atoms_raw(dps),
                      self._mp_intervals(dps), upper=upper)[0]

    def _cdf_mp(self, x, dps):
        with workdps(dps):
            val = self._partial_mp(to_mp(x), dps, False)
        with mpmath.workdps(dps):
            return +val

    def _sf_mp(self, x, dps):
        with workdps(dps):
            val = self._partial_mp(to_mp(x), dps, True)
        with mpmath.workdps(dps):
            return +val

    def _ppf_mp(self, q, dps):
        """Quantile at ``dps`` digits: the float64 quantile refined by Newton on the mpmath
        cdf, each step adding only the θ-integral between the previous and the new point."""
        return self._quantile_mp(q, dps, upper=False)

    def _isf_mp(self, q, dps):
        """Inverse survival function at ``dps`` digits: the float64 isf refined by Newton on
        the mpmath sf (summed from the right end)."""
        return self._quantile_mp(q, dps, upper=True)

    def _quantile_mp(self, q, dps, upper):
        with workdps(dps):
            q = to_mp(q)
            ends = ([e for ab in self._support(dps) for e in ab]
                    + [loc for loc, _ in self._atoms_raw(dps)])
            if q <= 0 or q >= 1:
                x = min(ends) if (q <= 0) != upper else max(ends)
            else:
                fl = self._isf_float if upper else self._ppf_float
                x0 = mpmath.mpf(float(fl(np.array([float(q)]))[0]))
                x = atom_quantile_mp(q, x0, self._atoms_raw(dps),
                                     lambda v: self._partial_mp(v, dps, upper),
                                     _ATOM_MATCH, tolerance(dps), upper=upper)
                if x is None:
                    x = self._quantile_newton_mp(q, x0, dps, upper)
        with mpmath.workdps(dps):
            return +x

    def _quantile_newton_mp(self, q, x, dps, upper):
        _, info = self._locate_mp(x, dps)
        if info is None or not info["support"]:
            return x
        t = self._table_of(info)
        a, b = t["a_mp"], t["b_mp"]
        theta = lambda v: 2 * mpmath.asin(mpmath.sqrt((v - a) / (b - a)))  # noqa: E731
        phi = lambda v: 2 * mpmath.asin(mpmath.sqrt((b - v) / (b - a)))  # noqa: E731

        def between(u, v):  # in φ from b next to b (θ from a rounds onto π there)
            if v - a > b - v:
                return self._theta_integral_mp(info, phi(v), phi(u), dps, from_b=True)
            return self._theta_integral_mp(info, theta(u), theta(v), dps)

        return newton_mp(q, x, lambda v: self._partial_mp(v, dps, upper),
                         lambda v: self._pdf_mp(v, dps), between,
                         a, b, tolerance(dps + _NEWTON_EXTRA_DPS), upper=upper)

    def _cauchy_mp(self, zv, dps):
        with workdps(dps):
            zv = _mpc(zv)
            if mpmath.isnan(zv.real) or mpmath.isnan(zv.imag):
                val = mpmath.mpc(mpmath.nan, mpmath.nan)
            elif not mpmath.isfinite(zv):
                val = mpmath.mpc(0)
            elif zv != 0 and self._tiny_mp(zv):
                zq = mpmath.conj(zv) if mpmath.im(zv) < 0 else zv
                val = self._cauchy_tiny_mp(zq, dps)
                val = mpmath.conj(val) if mpmath.im(zv) < 0 else val
            elif mpmath.im(zv) == 0:
                val = self._branch_real_mp(mpmath.re(zv), dps)
            else:
                conj = mpmath.im(zv) < 0
                zq = mpmath.conj(zv) if conj else zv
                guess = complex(self._cauchy_float(np.array([complex(zq)]))[0])
                g = self._num.newton_mp(mpmath.mpc(guess), zq)
                if not (abs(g - guess) <= _MP_NEWTON_MATCH * abs(guess) and mpmath.im(g) < 0):
                    roots = self._num.roots_mp(zq)
                    g = self._num.newton_mp(min(roots, key=lambda r: abs(r - guess)), zq)
                val = mpmath.conj(g) if conj else g
        with mpmath.workdps(dps):
            return +val

    # ------------------------------------------------------------ mapping
    def affine(self, shift, scale):
        """Push-forward by x ↦ shift + scale·x (scale ≠ 0): the exact affine image
        (:class:`AlgebraicAffineImage`), every functional answered by this law at the mapped
        argument (G_new(z) = G((z − shift)/scale)/scale), and still an :class:`AlgebraicLaw`
        whose polynomial (built when first asked for) serves the exact ⊞/⊠ eliminations.
        ``shift`` and ``scale`` may be floats (taken exactly) or exact sympy expressions.

        Raises
        ------
        ParameterError
            If ``scale`` is zero or a parameter is not a finite real number (a
            :class:`ParameterTypeError` for None, strings or complex numbers).
        """
        shift, scale = affine_arguments(shift, scale)
        out = AlgebraicAffineImage(self, shift, scale)
        # x ↦ a + b x, a ≥ 0, b > 0 (b ≠ 0 was checked above) keeps [0, ∞) and m₁ > 0
        if is_positive_by_construction(out.base) and _nonnegative(out.shift) \
                and _nonnegative(out.scale):
            mark_positive(out, "x ↦ a + b x (a ≥ 0, b > 0) of a law on [0, ∞) with m₁ > 0")
        return out

    def dilate(self, t):
        """Dilation D_t (push-forward by x ↦ t x), t > 0: the exact affine image.

        Raises
        ------
        ParameterError
            If ``t`` is not a finite number > 0 (:class:`ParameterTypeError` for non-numbers).
        """
        return self.affine(0, dilation_argument(t))

    def pushforward(self, coefficients):
        """Push-forward φ#μ by the real polynomial map φ(x) = c_0 + c_1 x + … + c_d x^d.

        Parameters
        ----------
        coefficients : sequence of float or sympy expression
            c_0, …, c_d, low to high, finite, c_d ≠ 0 (d ≥ 1).  Floats are taken at their
            exact binary value; sympy expressions (e.g. ``exp(1) - 1``) stay exact.

        Returns
        -------
        AlgebraicLaw
            The law of φ(X), X ~ μ, with G_{φ#μ}(z) = ∫ dμ(x)/(z − φ(x)) (G ~ 1/z, mass 1).

        Raises
        ------
        ParameterError
            If a coefficient is not finite, or d < 1, or c_d = 0.

        Notes
        -----
        Exact by elimination (:func:`freeattn.algebraic.eliminations.pushforward_polynomial`):
        G_{φ#μ}(z) = Σ_{φ(x_i) = z} G_μ(x_i)/φ′(x_i).  Zero coefficients are structural (the
        elimination is cached per structure); the others become parameter symbols.  The
        tied K = V law μ_KV = φ_KV#π_{γ_K/h} (Hayase & Karakida 2026, eq. (C.17)) is
        ``FreePoisson(γ_K/h).pushforward([0, θ₁ − θ₂, h θ₂/γ_K])``.

        Examples
        --------
        >>> from freeattn.laws import Semicircle
        >>> law = Semicircle(1).pushforward([0, 0, 1])   # X² of a semicircular X
        >>> [float(m) for m in law.exact_moments(3)]     # Catalan numbers
        [1.0, 2.0, 5.0]
        """
        raw = coefficients.coef if isinstance(coefficients, np.polynomial.Polynomial) \
            else coefficients
        if not isinstance(raw, (str, bytes)):
            try:
                raw = list(raw)
            except TypeError:
                pass  # not a sequence: _coefficients names the argument
        # the argument filter of Transformed (ParameterError naming "coefficients" for None, a
        # string, complex or non-finite entries, degree < 1); the values stay the user's own
        # (exact sympy expressions are not rounded to floats)
        degree = len(_coefficients("coefficients", raw)) - 1
        if degree != len(raw) - 1:
            raise ParameterError("coefficients", "the leading coefficient c_d must be non-zero, "
                                                 f"got {shown(coefficients)}")
        coefficients = [exact(v, "coefficients") for v in raw]
        syms, values = [], {}
        for j, c in enumerate(coefficients):
            if c == 0:
                syms.append(sp.Integer(0))
            else:
                s = fresh(f"c{j}")
                syms.append(s)
                values[s] = c
        P = pushforward_polynomial(self.symbolic_polynomial, syms)
        terms = " + ".join(f"({c})·x^{j}" for j, c in enumerate(coefficients) if c != 0)
        return AlgebraicLaw(P, {**self.values, **values}, name=f"({terms})#({self.name})")


class AlgebraicAffineImage(AffineImage, AlgebraicLaw):
    """The affine image shift + scale·X of an algebraic law (:mod:`freeattn.laws.affine`):
    every functional from the base law at the mapped argument (exact up to the map at any
    scale float64 represents), and an :class:`AlgebraicLaw` whose polynomial
    P(s G, (z − a)/s)-substitution (:func:`freeattn.algebraic.polynomial.affine_polynomial`)
    is built only when asked for (⊞/⊠ eliminations, ``polynomial``, symbolic use)."""

    def __init__(self, base, shift, scale):
        if not isinstance(base, AlgebraicLaw):
            raise ParameterError("base", f"base must be an AlgebraicLaw, got {type(base).__name__}")
        self._init_affine(base, *affine_arguments(shift, scale))
        self._shift_symbol, self._scale_symbol = fresh("shift"), fresh("scale")
        self.values = {**self.base.values, self._shift_symbol: self.shift,
                       self._scale_symbol: self.scale}
        # the hull of the image is the affine image of the base law's (convolution domain
        # checks, the exact atom at 0 of a dilation)
        self._affine_source = (self.base, self.shift, self.scale)

    @cached_property
    def symbolic_polynomial(self):
        """P_base(s G, (z − a)/s) with a, s parameter symbols (their values in ``values``)."""
        P = affine_polynomial(self.base.symbolic_polynomial, self._shift_symbol,
                              self._scale_symbol)
        return P if (_known_expanded(P) or _is_expanded(P)) else sp.expand(P)
