"""Algebraic laws: a law whose Cauchy transform solves P(G, z) = 0 (Rao & Edelman 2008)."""
from __future__ import annotations

import copy
import functools
import math
from functools import cached_property

import mpmath
import numpy as np
import sympy as sp

from .._context import FLOAT_EPS, FLOAT_REFERENCE_DPS, to_mp, tolerance, workdps
from .._validation import ParameterError, dps_or_none, finite_real, integer_at_least, positive
from ..algebraic.exact import free_symbols as _free_symbols, is_expanded as _known_expanded
from ..algebraic.numeric import _TABLE_NODES, BranchData, NumericPolynomial
from ..algebraic.parse import as_polynomial
from ..algebraic.polynomial import G, z
from ..algebraic.polynomial import (affine_polynomial, discriminant_structure_seen,
                                    r_relation, s_relation, series_moments, stieltjes_factor,
                                    substitute_polynomial)
from ..algebraic.roots import polyroots
from ..algebraic.series import series_moments_numeric
from ..quadrature.ends import end_rule, end_zone, theta_integral_mp
from ..quadrature.tables import (Interval, MpInterval, Side, atom_quantile_mp, cdf_sf,
                                 compensated_cumsum, newton_mp, quantile)
from ..quadrature.theta import (adaptive_panels, gauss_legendre, graded_half_panels,
                                graded_panels, theta_of_x as _theta_of_x,
                                x_of_theta as _x_of_theta)
from .base import Law

__all__ = ["AlgebraicLaw", "AtomAtZero"]

# θ-panels for the cdf: geometric grading toward both ends handles any power-law edge.
#: Gauss–Legendre nodes per θ-panel
_GL_NODES = 12
_GRADE_LEVELS = 24
_GRADE_RATIO = 0.25
_UNIFORM_PANELS = 48
#: the cdf panels' acceptance: |I − (I_left + I_right)| ≤ max(_PANEL_TOL, _PANEL_RTOL·|I|)
_PANEL_TOL = 1e-16
_PANEL_RTOL = 4 * FLOAT_EPS
#: panels narrower than this (in θ or φ) are accepted as they are (θ's own rounding)
_FROZEN_WIDTH = 1e-15 * math.pi
#: relative width of the zone next to a square-root edge solved by the local expansion
_EDGE_ZONE = 1e-3
#: bounds on the cdf panel refinement (every law builds its table in bounded time)
_MAX_PANELS = 20000
_MAX_LEVELS = 48
#: |Im G|/|G| below which a root on the axis is real (another sheet), not the support's
#: branch: inside the support Im G < 0, and at the closest point the tables use (1e-10 of the
#: scale from an edge) a square-root edge still leaves |Im G|/|G| ~ 1e-5
_REAL_ROOT_IM = 1e-13
#: largest accepted defect of the total mass (atoms + support intervals) in float64
_MASS_TOL = 1e-9
#: most parameter symbols for which the discriminant is taken with parameters symbolic
#: (FLINT: ~1 s once for 5 parameters; the full-layer law's 8 take minutes)
_SYMBOLIC_DISC_MAX_PARAMS = 5
#: digits beyond ``dps`` to which the mpmath θ-quadrature pieces and the quantile Newton
#: iteration are converged
_MP_QUAD_EXTRA_DPS = 3
_NEWTON_EXTRA_DPS = 2
#: relative distance within which the float64 quantile is taken to sit at an atom (mpmath
#: quantiles then check the atom's jump)
_ATOM_MATCH = 1e-12
#: guard digits on top of log10(|e|/δ) where P is solved at e ± δ next to a hard end e ≠ 0
_END_GUARD_DPS = 10


_PANELS = graded_panels(_UNIFORM_PANELS, _GRADE_LEVELS, _GRADE_RATIO)
#: the starting panels of each side of a cdf table (u ∈ [0, π/2] from its end)
_HALF_PANELS = graded_half_panels(_UNIFORM_PANELS // 2, _GRADE_LEVELS, _GRADE_RATIO)
#: starting θ-panels and per-panel tolerances of the mass self-check's quadrature
#: (:attr:`AlgebraicLaw._quick_interval_masses`; the cdf tables keep ``_PANELS`` and 1e-16)
_MASS_UNIFORM_PANELS = 4
_MASS_GRADE_LEVELS = 4
_MASS_PANELS = graded_panels(_MASS_UNIFORM_PANELS, _MASS_GRADE_LEVELS, _GRADE_RATIO)
_MASS_PANEL_ATOL = 1e-14
_MASS_PANEL_RTOL = 1e-12
#: θ = θ₁·s^m on a θ-panel [0, θ₁] touching an end at a pole of P's leading coefficient (a hard
#: edge, or an atom with the support next to it): there ρ ~ δ^{-α} with α = p/q < 1 and the
#: θ-integrand ~ θ^{1−2α}·h(θ^{2/q}), singular at θ = 0 for α > 1/2 (three MP(1) factors:
#: α = 3/4); in s it is analytic for every q dividing 2m (m = 6: q = 1, 2, 3, 4, 6, 12) and
#: bounded for every α < 1.  Square-root edges keep m = 1 (their θ-integrand is analytic).
_END_POWER = 6
#: θ-width of the end zone at a hard end integrated in s (:meth:`AlgebraicLaw._end_zone`)
_END_ZONE = 1e-3





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
    with mpmath.workdps(30):
        x = to_mp(v)
        return bool(x >= mpmath.mpf(10) ** -25 * max(abs(x), 1))


def _digits_between(e, d):
    """Digits lost in forming e ± d at the working precision (|e| ≫ d), plus guard digits."""
    return int(mpmath.log10(abs(e) / d)) + _END_GUARD_DPS


def _mpc(v):
    """A complex argument (Python, numpy, sympy or mpmath number) as mpc at the current
    precision."""
    if isinstance(v, (mpmath.mpf, mpmath.mpc)):
        return mpmath.mpc(v)
    return mpmath.mpc(to_mp(v))


def _extrapolate_to_zero(u, y):
    """Value at u = 0 of the polynomial through the points (u_i, y_i) (Neville)."""
    p = [float(v) for v in y]
    for k in range(1, len(p)):
        for i in range(len(p) - k):
            p[i] = (u[i + k] * p[i] - u[i] * p[i + 1]) / (u[i + k] - u[i])
    return p[0]


class AtomAtZero:
    """The exact mass of the atom at 0 of a law, known from the operation that built it.

    Attached to an :class:`AlgebraicLaw` as ``law.atom_at_zero`` by the operation (⊠, free
    multiplicative powers, compound free Poisson, the layer laws).  :meth:`AlgebraicLaw._pole_mass`
    consults it only where the float64 continuation cannot tell the Newton-polygon candidates
    apart (two atoms of nearly equal mass meeting at 0), and only after checking that it is one
    of them; it is evaluated lazily (the operands' own atoms are not computed otherwise).
    Holds data only (no closures), so a law carrying it still pickles.

    Parameters
    ----------
    kind : {"value", "max", "compound"}
        ``"value"``: ``value`` (an exact number) is the mass.  ``"max"``: max over ``laws`` of
        their atoms at 0 — (μ ⊠ ν)({0}) = max(μ({0}), ν({0})) for laws on [0, ∞) (Belinschi
        2003), and μ^{⊠t}({0}) = μ({0}).  ``"compound"``: π(μ, t)({0}) = max(0, 1 − t(1 −
        μ({0}))) with ``laws = (μ,)`` and ``value = t`` for μ on [0, ∞) (as π_t({0}) =
        max(0, 1 − t) for the free Poisson law; Nica & Speicher 2006, Lecture 12).
    """

    def __init__(self, kind, laws=(), value=None):
        if kind not in ("value", "max", "compound"):
            raise ValueError(f"unknown atom rule {kind!r}")
        self.kind, self.laws, self.value = kind, tuple(laws), value

    @staticmethod
    def _at_zero(law, dps):
        tiny = mpmath.mpf(10) ** (-(dps // 2))
        for loc, mass in law.atoms(dps):
            if abs(mpmath.mpf(loc)) <= tiny:
                return mpmath.mpf(mass)
        return mpmath.mpf(0)

    def mass(self, dps):
        """The mass at ``dps`` digits (mpf)."""
        with workdps(dps):
            if self.kind == "value":
                return to_mp(self.value)
            m = [self._at_zero(law, dps) for law in self.laws]
            if self.kind == "max":
                return max(m)
            return max(mpmath.mpf(0), 1 - to_mp(self.value) * (1 - m[0]))


class AlgebraicLaw(Law):
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
        return NumericPolynomial(self._factor, self.values)

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
            symbolic = self._symbolic_route
            if symbolic:
                try:
                    cache[dps] = BranchData(self._num, self._factor, dps, evaluator=self._num_full)
                except ValueError:  # a factor vanishes at these values: the exact route
                    symbolic = False
            if not symbolic:
                cache[dps] = BranchData(self._num, self._reduced, dps)
        return cache[dps]

    # ------------------------------------------------------ moments / transforms
    def exact_moments(self, order):
        """First ``order`` moments as exact sympy expressions, from the series of G at ∞."""
        cache = self.__dict__.setdefault("_moment_cache", [])
        if len(cache) < order:
            ms = series_moments(self._factor, order)
            cache[:] = [sp.expand(m.xreplace(self.values)) for m in ms]
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
        k = integer_at_least("k", k, 0)
        if k == 0:
            return 1.0 if dps is None else self._mp_number(1, dps)
        value = self._moments_mp(k, FLOAT_REFERENCE_DPS if dps is None else dps)[k - 1]
        if dps is None:
            return float(value)
        with mpmath.workdps(dps):
            return +value

    def s_relation(self):
        """Polynomial relation Σ(w, S) = 0 satisfied by the S-transform S(w) (sympy)."""
        return s_relation(self.polynomial)

    def r_relation(self):
        """Polynomial relation C(w, R) = 0 satisfied by the R-transform R(w) (sympy; the
        returned expression uses the symbols ``w`` for the argument and ``S`` for R)."""
        return r_relation(self.polynomial)

    def algebraic_equation(self, symbolic=False, in_beta=False):
        """P(G, z) with P(G_μ(z), z) = 0, parameters named as in the papers where the law's
        family is known (θ₁, θ₂, γ_K, h, …) and stable across calls; see
        :func:`freeattn.symbolic.algebraic_equation` for the arguments."""
        from ..symbolic import algebraic_equation

        return algebraic_equation(self, symbolic=symbolic, in_beta=in_beta)

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
        the same integrand, accurate far below ``_MASS_TOL``), so that a new parameter point
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
            verdict = "" if abs(total - 1.0) <= _MASS_TOL else (
                f"{self.name}: atoms and support intervals carry mass {total!r}, not 1 "
                f"(a component is unresolved at float64 scales; evaluate with dps=...)")
            self.__dict__["_mass_verdict"] = verdict
        if verdict:
            raise ArithmeticError(verdict)

    def _atom_locations(self, dps):
        return [loc for loc, _ in self._atoms_raw(dps)]

    def _atoms_raw(self, dps):
        cache = self.__dict__.setdefault("_atom_cache", {})
        key = dps or FLOAT_REFERENCE_DPS
        if key in cache:
            return cache[key]
        bd = self._branch(dps)
        atoms = []
        with workdps(key):
            for a in sorted(bd.poles):
                mass = self._pole_mass(a, bd)
                if mass > mpmath.mpf(10) ** (-(key // 2)):
                    atoms.append((a, mass))
        cache[key] = atoms
        return atoms

    def _pole_mass(self, a, bd):
        """Mass of the atom at a pole a: lim_{ε↓0} iε G(a + iε).

        The limit is one of finitely many candidates read off the Newton polygon: with
        G = H/(z − a), the lowest power of s = z − a in s^deg P(H/s, a + s) is a polynomial in
        H whose roots (and 0) are the candidate masses.  The branch itself, continued to
        a + iε with ε far below the distance to the nearest support end or other pole, picks
        the candidate (0: G stays bounded, or a hard edge; :meth:`_pole_decision`).  Where that
        reading is not clear-cut (two candidates closer than the reading's error), the exact
        mass from the operation that built the law (``atom_at_zero``, :class:`AtomAtZero`)
        decides, provided it is one of the candidates."""
        c = self._num.coefficients_mp()
        d = self._num.deg
        tol = mpmath.mpf(10) ** (-(mpmath.mp.dps - 8))
        by_power = {}
        ap = [a**n for n in range(len(c[0]))]
        for k, row in enumerate(c):
            for j, ckj in enumerate(row):
                if ckj == 0:
                    continue
                for i in range(j + 1):  # (a + s)^j = Σ_i C(j, i) s^i a^{j-i}
                    ps = d - k + i
                    by_power.setdefault(ps, {})
                    by_power[ps][k] = by_power[ps].get(k, 0) + ckj * math.comb(j, i) * ap[j - i]
        cands = [mpmath.mpf(0)]
        for ps in sorted(by_power):
            coeffs = by_power[ps]
            size = max(abs(v) for v in coeffs.values())
            if size <= tol:
                continue
            degH = max(coeffs)
            cl = [coeffs.get(k, mpmath.mpf(0)) for k in range(degH, -1, -1)]
            cl = [v if abs(v) > tol * size else mpmath.mpf(0) for v in cl]
            while cl and cl[-1] == 0:  # factor H^k: the candidate 0
                cl.pop()
            while len(cl) > 1 and cl[0] == 0:
                cl.pop(0)
            if len(cl) >= 2:
                try:
                    roots = polyroots(cl, extraprec=4 * mpmath.mp.prec, maxsteps=400)
                except mpmath.libmp.libhyper.NoConvergence:
                    roots = []
                cands += [mpmath.re(r) for r in roots
                          if abs(mpmath.im(r)) <= 1e-10 * (1 + abs(r)) and 0 < mpmath.re(r) <= 1 + 1e-9]
            break
        # a multiple root of the polygon is one candidate: a root of multiplicity k is split
        # by rounding into k roots ~ eps^{1/k} apart (the tied K=V layer's mass 1/2 is a
        # triple root: 0.5 ± 4e-11 at 30 digits), so roots closer than 10^{-dps/4} form one
        # cluster, whose mean is the multiple root to full accuracy
        merge = mpmath.mpf(10) ** (-(mpmath.mp.dps // 4))
        clusters = []
        for m in sorted(cands):
            if clusters and abs(m - clusters[-1][-1]) <= merge * (1 + abs(m)):
                clusters[-1].append(m)
            else:
                clusters.append([m])
        cands = [mpmath.mpf(0) if any(m == 0 for m in cl) else mpmath.fsum(cl) / len(cl)
                 for cl in clusters]
        if len(cands) == 1:
            return mpmath.mpf(0)
        decision, strong, last = self._pole_decision(a, bd, cands)
        if strong:
            return decision
        # the continuation could not separate the candidates (two atoms of nearly equal mass
        # meeting at 0: γ_V ≈ γ_O in the ⊠ layer): the operation's exact atom, if it is one of
        # the candidates
        exact = None
        if abs(a) <= mpmath.mpf(10) ** (-(mpmath.mp.dps // 2)):
            exact = self._exact_atom_at_zero(mpmath.mp.dps)
        if exact is not None:
            match = [m for m in cands if abs(m - exact) <= merge * (1 + abs(m))]
            if match:
                return exact
            if decision is None:
                raise ArithmeticError(
                    f"{self.name}: the exact atom at 0 ({float(exact)!r}, from the operation) is "
                    f"none of the Newton-polygon candidates {[float(m) for m in cands]}")
        if decision is None:
            raise ArithmeticError(f"{self.name}: the mass of the pole at {float(a)} is ambiguous "
                                  f"(limit {last!r}, candidates {[float(m) for m in cands]})")
        return decision

    def _exact_atom_at_zero(self, dps):
        """The exact mass of the atom at 0 from the operation that built this law (mpf at
        ``dps`` digits), or None: the law's own ``atom_at_zero`` (:class:`AtomAtZero`), else,
        for a dilation D_t (an :meth:`affine` image with shift 0, which keeps the atom at 0 and
        its mass), that of the dilated law."""
        law = self
        while True:
            rule = law.__dict__.get("atom_at_zero")
            if rule is not None:
                return rule.mass(dps)
            src = law.__dict__.get("_affine_source")
            if src is None or src[1] != 0 or not isinstance(src[0], AlgebraicLaw):
                return None
            law = src[0]

    #: heights ε/s of the vertical line a + iε on which :meth:`_pole_decision` reads the mass
    #: (s: the distance from the pole to the nearest support end or other pole)
    _POLE_HEIGHTS = (1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-10)

    def _pole_decision(self, a, bd, cands):
        """(candidate, strong, last reading): the candidate mass next to iεG(a + iε), the branch
        continued (float64, :meth:`NumericPolynomial.track`, all heights in one vectorised call)
        to heights ε far below the distance s from a to the nearest support end or other pole.

        Breakpoints between two gaps (branch points of other sheets only) do not bound ε: G is
        analytic across them (mha_output_law(0.2734, 14, 1.7284, 0.3307, 0.3346) has one at
        −1.5e-8 and its support starting at 1.4e-6; ε from the former never reached the axis;
        from the latter iεG = 0.6692983 at ε = 1.4e-8, candidates 0.6692982 and 0.6653955).
        Heights decrease until the first reading within 1e-3 of the distance to the next
        candidate ("strong"); else the last reading within a quarter of it decides (not strong),
        or none does (None)."""
        ends = set()
        for i, info in enumerate(bd.intervals):
            if info["support"]:
                ends.update(x for x in (info["lo_mp"], info["hi_mp"]) if x is not None)
        ends |= set(bd.poles)
        others = [abs(b - a) for b in ends if b != a]
        af = float(a)
        s = float(min(others)) if others else 1.0 + abs(af)
        s = min(s, 1.0 + abs(af))
        eps = np.maximum(np.array(self._POLE_HEIGHTS) * s, 1e-300)
        g, ok = self._num.track(np.full(eps.shape, af), eps)
        decision, strong, last = None, False, None
        for k in range(len(eps)):
            if not ok[k]:
                break
            last = (1j * eps[k] * g[k]).real
            dist = sorted((abs(float(m) - last), i) for i, m in enumerate(cands))
            if dist[0][0] <= 0.25 * dist[1][0]:
                decision = cands[dist[0][1]]
                strong = dist[0][0] <= 1e-3 * dist[1][0]
                if strong:
                    break
        return decision, strong, last

    def _atoms(self, dps):
        atoms = self._atoms_raw(dps)
        if dps is None:
            return [(float(a), float(m)) for a, m in atoms]
        with workdps(dps):
            return [(+a, +m) for a, m in atoms]

    # ----------------------------------------------------- float64 tables
    @cached_property
    def _tables(self):
        """Per support interval: θ-grid branch table (Newton starts) and edge expansions."""
        bd = self._branch(None)
        bps = [float(b) for b in bd.breakpoints]
        tables = []
        theta = np.linspace(0, math.pi, _TABLE_NODES)[1:-1]
        for i, info in enumerate(bd.intervals):
            if not info["support"]:
                continue
            a, b = bps[i - 1], bps[i]
            x = _x_of_theta(a, b, theta)
            r = self._num.roots(x)
            g = bd.select(r, info, x)
            # ends carrying an atom (G ~ mass/δ there; hard edges without an atom excluded)
            atom_a = any(bd.breakpoints[i - 1] == loc for loc, _ in self._atoms_raw(None))
            atom_b = any(bd.breakpoints[i] == loc for loc, _ in self._atoms_raw(None))
            if info["rule"] != "unique":
                g = self._pole_side_continuity(g, r, theta, a, b, atom_a, atom_b)
            g, _ = self._num.newton(g, x, steps=2)
            # ends shared with another support interval are not square-root edges (a branch
            # point of other sheets, or a cusp): no edge expansion there
            inner = {bd.breakpoints[i - 1] if bd.intervals[i - 1]["support"] else None,
                     bd.breakpoints[i] if bd.intervals[i + 1]["support"] else None} - {None}
            tables.append({"pole_a": atom_a, "pole_b": atom_b, "inner": inner,
                           "a": a, "b": b, "a_mp": bd.breakpoints[i - 1], "b_mp": bd.breakpoints[i],
                           "info": info, "theta": theta, "g": g})
        poles = set(bd.poles)
        atoms = dict(self._atoms_raw(None))
        # the anchors of all square-root ends' paths (_edge_path) in one vectorised track
        probes = {}
        for k, t in enumerate(tables):
            for side in ("a", "b"):
                end = t[side + "_mp"]
                if end in atoms or end in poles or end in t["inner"]:
                    continue
                probes[(k, side)] = {"x": float(end), "end": side}
        # In an interval with exactly one root of Im < 0 (rule "unique": the count cannot
        # change between breakpoints) the anchor is that root, when its sign is clear
        # (Im G/|G| < −1e-6 against > −1e-9 for every other root); else it is tracked.
        pending = []
        for key, probe in probes.items():
            t = tables[key[0]]
            if t["info"]["rule"] == "unique":
                _, d, _ = self._edge_path_span(t, probe)
                sh, _ = self._shifted(t, key[1])
                r = sh.roots(np.array([d]))[0]
                with np.errstate(invalid="ignore", divide="ignore"):
                    rel = np.where(np.isfinite(r), r.imag / np.abs(r), np.inf)
                o = np.argsort(rel)
                if rel[o[0]] < -1e-6 and (len(o) == 1 or rel[o[1]] > -1e-9):
                    g_, _ = sh.newton(r[o[:1]], np.array([d]), steps=2)
                    if np.isfinite(g_[0]) and g_[0].imag < -_REAL_ROOT_IM * abs(g_[0]):
                        probe["anchor"] = (g_[0], True)
                        continue
            pending.append(key)
        if pending:
            spans = [self._edge_path_span(tables[k], probes[(k, side)]) for k, side in pending]
            g0, ok0 = self._num.track(np.array([e + d for e, d, _ in spans]),
                                      np.array([h for _, _, h in spans]))
            for key, g_, ok_ in zip(pending, g0, ok0):
                probes[key]["anchor"] = (g_, bool(ok_))
        for k, t in enumerate(tables):
            t["edges"] = []
            for end in (t["a_mp"], t["b_mp"]):
                if end in atoms:  # an atom next to the support: local expansion of H = δ·G
                    edge = self._pole_expansion(end, atoms[end])
                    if edge is not None:
                        edge["end"] = "a" if end == t["a_mp"] else "b"
                        t["edges"].append(edge)
                    continue
                if end in poles or end in t["inner"]:
                    continue
                ef = float(end)
                # branch value just inside the support: picks the right double root at e.
                # Continued down from far above the axis (the tracker), not by nearest-root
                # continuity from the interval's midpoint: next to an edge where G moves fast
                # (a cusp-like hard rise of the density, e.g. the ⊠ layer's edge next to 0)
                # the midpoint's nearest root at e is another sheet's real root
                width = t["b"] - t["a"]
                side = "a" if end == t["a_mp"] else "b"
                d0 = (1e-7 if side == "a" else -1e-7) * width
                inside = ef + d0
                # the continued path toward the end (_edge_path: one tracked point, then
                # nearest-root steps along the axis) gives the branch at δ0 …
                sh, _ = self._shifted(t, side)
                probe = probes[(k, side)]
                g_in = self._on_path(self._edge_path(t, probe, sh), sh, d0)
                if g_in is None:  # … else the tracker at δ0 itself
                    g_tr, ok_tr = self._num.track(np.array([inside]), np.array([1e-5 * abs(d0)]))
                    if ok_tr[0]:
                        g_in, _ = self._num.newton(g_tr, np.array([inside]), steps=3)
                        g_in = g_in[0]
                # just inside the support the branch has Im G < 0: a value on the axis is
                # another sheet's real root (attention_law(3.0014, 0.0029955, 35): the tracker
                # ended on the real root 1.04e-3 beside the merging pair 3.3e-4 ± 1.4e-8i)
                if g_in is None or not (np.isfinite(g_in)
                                        and g_in.imag < -_REAL_ROOT_IM * abs(g_in)):
                    g_in = bd.select(self._num.roots(np.array([inside])), t["info"],
                                     np.array([inside]))[0]
                edge = self._edge_expansion(end, g_in)
                edge["end"] = side
                if "path" in probe:
                    edge["path"] = probe["path"]
                t["edges"].append(edge)
        return tables

    @staticmethod
    def _pole_side_continuity(g, r, theta, a, b, pole_a, pole_b):
        """Continuity of the θ-table toward an end at a pole, in H = δ·G (δ the distance to
        that end): next to a pole G ~ mass/δ, and nearest-root continuity in G jumps to a
        bounded root of another sheet (the tied K=V layer's atom 1/2 at 0: the table took
        −0.598 for 3105 − 23i); the predictor H = const picks the branch."""
        g = g.copy()
        n = len(theta)
        mid = n // 2
        for is_pole, seq, dist in ((pole_a, range(mid - 1, -1, -1),
                                    (b - a) * np.sin(0.5 * theta) ** 2),
                                   (pole_b, range(mid + 1, n),
                                    (b - a) * np.cos(0.5 * theta) ** 2)):
            if not is_pole:
                continue
            prev = mid
            for k in seq:
                pred = g[prev] * dist[prev] / dist[k]
                g[k] = r[k, np.argmin(np.abs(r[k] - pred))]
                prev = k
        return g

    @cached_property
    def _cdf_tables(self):
        """The tables of :attr:`_tables` with their cdf sides (``"interval"``: a
        :class:`~freeattn.quadrature.tables.Interval` of two sides, θ-panels from a and
        φ-panels from b) and, for :meth:`expect` and the mass check, the θ-panels over [0, π]
        (``"panels"``), their masses and cumulative masses (``"cum"``)."""
        for t in self._tables:
            if "interval" not in t:
                left, right = self._side(t, "a"), self._side(t, "b")
                corr = (self._shifted(t, "a")[1], self._shifted(t, "b")[1])
                t["interval"] = Interval(t["a"], t["b"], left, right, corr=corr)
                t["panels"] = np.concatenate([left.edges, math.pi - right.edges[::-1][1:]])
                t["panel_mass"] = np.concatenate([left.masses, right.masses[::-1]])
                t["cum"] = compensated_cumsum(t["panel_mass"])
        return self._tables

    @cached_property
    def _quick_interval_masses(self):
        """The mass of each support interval of :attr:`_tables`, for the mass self-check.

        The θ-integrand of the cdf tables, by 12-point Gauss–Legendre on fewer starting panels
        (``_MASS_UNIFORM_PANELS`` uniform, ``_MASS_GRADE_LEVELS`` graded toward each end), a
        panel split in two until its rule agrees with the sum over its halves to 1e-14
        absolute or 1e-12 relative (so panels are refined wherever the integrand is not
        smooth, e.g. at a hard edge; at most ``_MAX_LEVELS`` halvings and ``_MAX_PANELS``
        panels); the accepted halves sum to ~1e-12, far inside the check's ``_MASS_TOL`` =
        1e-9.  Unlike
        :func:`~freeattn.laws._theta.adaptive_panels` (two integrand calls at least) each
        level evaluates the panel and its halves in one call, so a smooth interval costs one
        vectorised branch solve (the integrand's cost is mostly per call: the edge zones)."""
        out = []
        for t in self._tables:
            mass = self._table_mass(t)
            if mass is not None:
                out.append(mass)
                continue
            lo, hi = _MASS_PANELS[:-1], _MASS_PANELS[1:]
            parts = []
            for level in range(_MAX_LEVELS):
                mid = 0.5 * (lo + hi)
                n = lo.size
                v = self._gl(t, np.concatenate([lo, lo, mid]), np.concatenate([hi, mid, hi]))
                whole, left, right = v[:n], v[n:2 * n], v[2 * n:]
                ok = ((np.abs(whole - (left + right))
                       <= np.maximum(_MASS_PANEL_ATOL, _MASS_PANEL_RTOL * np.abs(whole)))
                      | (hi - lo <= 1e-15 * math.pi))
                kept = sum(p.size for p in parts)
                if level == _MAX_LEVELS - 1 or kept + 2 * n > _MAX_PANELS:  # bounded time
                    ok[:] = True
                parts += [left[ok], right[ok]]
                lo, hi = np.concatenate([lo[~ok], mid[~ok]]), np.concatenate([mid[~ok], hi[~ok]])
                if lo.size == 0:
                    break
            out.append(math.fsum(np.concatenate(parts)))
        return out

    @staticmethod
    def _table_mass(t):
        """The interval's mass from the branch table itself, or None.

        The θ-integrand f(θ) = ρ(x(θ)) x′(θ) is an even analytic function of θ at a square-root
        edge (ρ ~ sin(θ/2) there, x′ ~ sin θ) and at a hard edge ρ ~ δ^{-1/2} (f(0) ≠ 0), so
        the trapezoid rule on the table's uniform θ-grid (the nodes' branch values are already
        solved), with end values extrapolated in θ², converges geometrically.  It is used only
        when two extrapolations of each end value agree and the rule on the grid, on every
        second and on every fourth node agree (|M_h − M_2h| ≤ 100·``_MASS_PANEL_ATOL``,
        |M_2h − M_4h| ≤ 1e-9), which fails at an atom, a cusp, a stronger divergence or any end
        where f is not analytic; then :attr:`_quick_interval_masses` integrates adaptively."""
        g = t["g"]
        if t["pole_a"] or t["pole_b"] or not np.all(np.isfinite(g)):
            return None
        th = t["theta"]  # interior nodes k·π/N, k = 1 … N − 1
        f = np.maximum(-g.imag / math.pi, 0.0) * (t["b"] - t["a"]) * 0.5 * np.sin(th)
        h = th[1] - th[0]
        # the end values f(0), f(π) (nonzero at a hard edge ρ ~ δ^{-1/2}, where f is still even
        # and analytic): polynomial extrapolation in θ² from the first 5 and 6 nodes, kept
        # when the two agree (their difference bounds the end terms' error)
        ends = []
        for seq in (f[:6], f[::-1][:6]):
            u = (h * np.arange(1, 7)) ** 2
            e5 = _extrapolate_to_zero(u[:5], seq[:5])
            e6 = _extrapolate_to_zero(u, seq)
            if not 0.5 * h * abs(e6 - e5) <= _MASS_PANEL_ATOL:
                return None
            ends.append(max(e6, 0.0))
        half = 0.5 * (ends[0] + ends[1])
        m = [h * (math.fsum(f) + half), 2 * h * (math.fsum(f[1::2]) + half),
             4 * h * (math.fsum(f[3::4]) + half)]
        if abs(m[0] - m[1]) <= 100 * _MASS_PANEL_ATOL and abs(m[1] - m[2]) <= 1e-9:
            return m[0]
        return None

    def _shifted(self, t, end):
        """P re-expanded at an end e of the interval, P(G, e + δ) = Σ c̃_ki G^k δ^i (float64
        coefficients from 30-digit arithmetic), so that points next to the end keep the
        relative accuracy of δ instead of that of x (hard edges at a ≠ 0, e.g. shifted MP)."""
        key = "shift_" + end
        if key not in t:
            e = t[end + "_mp"]
            with workdps(FLOAT_REFERENCE_DPS):
                c = self._num.coefficients_mp()
                dz = len(c[0]) - 1
                ep = [e**n for n in range(dz + 1)]
                cf = np.array([[float(sum(c[k][j] * math.comb(j, i) * ep[j - i]
                                          for j in range(i, dz + 1)))
                                for i in range(dz, -1, -1)] for k in range(len(c) - 1, -1, -1)])
                corr = float(mpmath.mpf(t[end]) - e)
            sh = copy.copy(self._num)
            sh.cf = cf
            t[key] = (sh, corr)
        return t[key]

    def _branch_in_table(self, t, x, th=None, delta=None):
        """Branch G(x + i0) for x strictly inside the support interval of table ``t``.

        ``th`` (optional): the θ of each point, from which the distance to the nearer end is
        formed exactly (cdf quadrature); otherwise it is x − e corrected by the rounding of e.
        ``delta`` (optional, with ``th``): that signed distance itself (next to the end b, where
        θ = π − φ rounds to 4e-16 absolute, it comes from φ)."""
        a, b = t["a"], t["b"]
        exact_th = th is not None
        if th is None:
            th = _theta_of_x(a, b, x)
        left = th <= 0.5 * math.pi
        sha, corr_a = self._shifted(t, "a")
        shb, corr_b = self._shifted(t, "b")
        if delta is not None:
            left = delta > 0
        elif exact_th:
            delta = np.where(left, (b - a) * np.sin(0.5 * th) ** 2, -(b - a) * np.cos(0.5 * th) ** 2)
        else:
            delta = np.where(left, (x - a) + corr_a, (x - b) + corr_b)
        guess = np.interp(th, t["theta"], t["g"].real) + 1j * np.interp(th, t["theta"], t["g"].imag)
        # next to an end at a pole G ~ mass/δ: interpolate H = δ·G there, not G
        pole_side = np.zeros(th.shape, bool)
        for end, side in (("a", left), ("b", ~left)):
            if t.get("pole_" + end) and np.any(side):
                tn = t["theta"]
                dn = ((b - a) * np.sin(0.5 * tn) ** 2 if end == "a"
                      else -(b - a) * np.cos(0.5 * tn) ** 2)
                hn = t["g"] * dn
                hs = np.interp(th[side], tn, hn.real) + 1j * np.interp(th[side], tn, hn.imag)
                with np.errstate(divide="ignore", invalid="ignore"):
                    guess[side] = hs / delta[side]
                pole_side |= side
        g = guess.copy()
        step = np.zeros(g.shape)
        for sh, side in ((sha, left), (shb, ~left)):
            if np.any(side):
                g[side], step[side] = sh.newton(guess[side], delta[side], steps=3)
        with np.errstate(invalid="ignore", over="ignore"):
            bad = ~(np.isfinite(g) & (step <= 1e-10 * np.abs(g))
                    & (np.abs(g - guess) <= 1e-2 * np.abs(guess)) & (g.imag <= 0))
        bad |= (th < t["theta"][1]) | (th > t["theta"][-2])
        if np.any(bad):
            self._edge_zone_guess(t, g, bad, left, delta, sha, shb)
        if np.any(bad):
            for sh, side in ((sha, left), (shb, ~left)):
                m = bad & side
                if np.any(m):
                    r = sh.roots(delta[m])
                    if t["info"]["rule"] == "track":
                        # several roots with Im < 0: continuity from the table, not from the
                        # interval's midpoint across a sparse set of points; beyond the last
                        # node the table's power law |G| ~ θ^p carries on (G may diverge at a
                        # pole end), so roots are compared on a log scale
                        ref = self._table_extrapolation(t, th[m], guess[m])
                        with np.errstate(divide="ignore", invalid="ignore"):
                            dist = np.abs(np.log(r / ref[:, None]))
                        dist = np.where((r.imag <= 0) & np.isfinite(dist), dist, np.inf)
                        gb = r[np.arange(len(r)), np.argmin(dist, axis=1)]
                        # where companion eigenvalues lose the diverging root (|G| ≳ 1e8 next to
                        # a pole), Newton from the power-law guess on the re-expanded P finds it
                        gn, stp = sh.newton(ref.copy(), delta[m], steps=8)
                        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                            near = (np.abs(np.log(gn / ref)) < 0.5) & (stp <= 1e-12 * np.abs(gn))
                            worse = ~(np.abs(np.log(gb / ref)) < 0.5)
                        use = near & worse & (gn.imag <= 0)
                        gb = np.where(use, gn, gb)
                    else:
                        gb = self._branch(None).select(r, t["info"], x[m])
                    # on a pole side the H-interpolated guess is the better judge of the sheet
                    ps = pole_side[m] & np.isfinite(guess[m])
                    if np.any(ps):
                        rp = r[ps]
                        dd = np.abs(rp - guess[m][ps][:, None])
                        dd = np.where(np.isfinite(dd), dd, np.inf)
                        gb[ps] = rp[np.arange(len(rp)), np.argmin(dd, axis=1)]
                    g[m], _ = sh.newton(gb, delta[m], steps=2)
            # next to an end the nearest-root continuity from the interval's midpoint
            # (select) can land on another sheet's root where G moves fast (the ⊠ layer's
            # edge next to 0: G from 0.15 − 1.8i to the double root −6.44 within 0.2); there
            # the branch is continued down from far above the axis (the tracker) to a height
            # far below the distance to the end, then polished on the real axis, so that the
            # sheet check of the edge expansion below compares with the right branch
            zone = np.zeros(bad.shape, bool)
            for edge in t["edges"]:
                if edge.get("pole"):
                    continue
                side = left if edge["end"] == "a" else ~left
                # only where x resolves the distance to the end (x − e exact enough to track)
                zone |= (bad & side & (np.abs(delta) <= _EDGE_ZONE * (b - a))
                         & (np.abs(delta) >= 1e-10 * (abs(edge["x"]) + (b - a))))
            # Each end's branch is first continued once, down from far above at the zone's
            # outer end and then along the real axis toward the end on a log-spaced grid
            # (_edge_path, cached per end); every point of the zone then takes the root of
            # P(·, x) nearest that path.  Only if the path is ambiguous are the points
            # tracked one by one.
            for edge in t["edges"]:
                if edge.get("pole") or not np.any(zone):
                    continue
                is_a = edge["end"] == "a"
                side = left if is_a else ~left
                j = np.flatnonzero(zone & side)
                if not j.size:
                    continue
                sh = sha if is_a else shb
                path = self._edge_path(t, edge, sh)
                if path is None:
                    continue
                ld, gp, _ = path
                lq = np.log(np.abs(delta[j]))
                ref = np.interp(lq, ld, gp.real) + 1j * np.interp(lq, ld, gp.imag)
                r = sh.roots(delta[j])
                with np.errstate(invalid="ignore", divide="ignore"):
                    dist = np.abs(r - ref[:, None])
                dist = np.where(np.isfinite(dist), dist, np.inf)
                srt = np.sort(dist, axis=1)
                pick = r[np.arange(len(j)), np.argmin(dist, axis=1)]
                gn, _ = sh.newton(pick, delta[j], steps=3)
                sure = (np.isfinite(gn) & (gn.imag < -_REAL_ROOT_IM * np.abs(gn))
                        & (srt[:, 0] <= 0.25 * (srt[:, 1] if r.shape[1] > 1 else np.inf)))
                g[j[sure]] = gn[sure]
                zone[j[sure]] = False
            if np.any(zone):
                idx = np.flatnonzero(zone)
                gt, okt = self._num.track(x[idx], 1e-3 * np.abs(delta[idx]))
                for sh, side in ((sha, left[idx]), (shb, ~left[idx])):
                    j = idx[side & okt]
                    if j.size:
                        gn, _ = sh.newton(gt[side & okt], delta[j], steps=3)
                        # a real root (Im at rounding level) is another sheet, not the branch
                        g[j] = np.where(np.isfinite(gn) & (gn.imag < -_REAL_ROOT_IM * np.abs(gn)),
                                        gn, g[j])
        for edge in t["edges"]:
            side = left if edge["end"] == "a" else ~left
            m = side & (np.abs(delta) <= _EDGE_ZONE * (b - a))
            if np.any(m):
                g[m] = self._edge_local(edge, delta[m], g[m])
        # a hard edge at 0 where two sheets share the leading power law (a multiple root of a
        # Newton-polygon segment polynomial of P at z = 0: the tied K=V law at h = 1, G ~
        # C₀z^{-3/4} ± C₁z^{-1/2}) differ there only by a relative ~z^{1/4}, below the
        # accuracy of the table's power-law guess, which took the other sheet for x < 1.2e-8
        # (1.07e-4 of mass too much): there the branch is the nested Puiseux solution at 0
        # (:meth:`_cauchy_tiny`, matched to the branch far from 0, as G off the axis)
        # The same route where float64 P(G, x) is out of range (|G|^deg ≳ 1e250: MP(1)^⊠8,
        # ρ ~ x^{-8/9}, gave ρ = 0 below x ~ 1e-40, and 4e-5 of the mass went missing).
        deg = sha.cf.shape[0] - 1
        with np.errstate(all="ignore"):
            risky = ~np.isfinite(g) | (g.imag >= 0) | (deg * np.log10(np.abs(g)) > 250)
        for end, side in (("a", left), ("b", ~left)):
            if (t[end + "_mp"] == 0 and not t["pole_" + end] and np.any(side)
                    and t[end + "_mp"] in self._branch(None).poles
                    and (np.any(risky & side) or self._zero_sheets_merge)):
                if not self._zero_sheets_merge:
                    side = side & risky
                zq = np.where(side, delta, 1.0) + 0j
                tiny = side & self._tiny_mask(zq, side)
                if np.any(tiny):
                    g[tiny] = self._cauchy_tiny(zq[tiny])
        return g

    @cached_property
    def _zero_sheets_merge(self):
        """Whether a segment polynomial of the Newton polygon of P(G, z) at z = 0 has a
        multiple nonzero root (sheets of G with the same leading term C·z^a at 0)."""
        c = self._num.coefficients_mp()
        terms = {(k, sp.Integer(j)): v for k, row in enumerate(c) for j, v in enumerate(row)
                 if v != 0}
        for _, _, seg in self._newton_polygon(terms):
            k0 = min(seg)
            coef = np.array([complex(seg.get(k, 0)) for k in range(max(seg), k0 - 1, -1)])
            if coef.size <= 2:
                continue
            r = np.roots(coef)
            scale = np.max(np.abs(r))
            d = np.abs(r[:, None] - r[None, :])
            np.fill_diagonal(d, np.inf)
            if np.min(d) <= 1e-6 * scale:
                return True
        return False

    @staticmethod
    def _table_extrapolation(t, th, guess):
        """Branch guess beyond the first/last θ-node of a table, from the two outermost nodes:
        linear in θ where G has a finite limit (square-root branch points are smooth in θ),
        |G| continued as a power law where it diverges (argument kept); the interpolated guess
        elsewhere."""
        out = guess.copy()
        nodes, g = t["theta"], t["g"]
        for m, (i0, i1), d in ((th < nodes[1], (0, 1), th), (th > nodes[-2], (-1, -2), math.pi - th)):
            if not np.any(m):
                continue
            d0 = nodes[i0] if i0 == 0 else math.pi - nodes[i0]
            d1 = nodes[i1] if i1 == 1 else math.pi - nodes[i1]
            p = math.log(abs(g[i0]) / abs(g[i1])) / math.log(d0 / d1)
            if abs(p) < 0.25:  # a finite limit: G is smooth in θ there, continue it linearly
                out[m] = g[i0] + (g[i0] - g[i1]) * (d0 - d[m]) / (d1 - d0)
                continue
            with np.errstate(divide="ignore", over="ignore"):
                out[m] = g[i0] * (np.maximum(d[m], 1e-300) / d0) ** p
        return out

    def _double_root(self, e, g_guess):
        """The double root G_e of P(·, e) at a square-root edge e (current precision): the root
        of ∂P/∂G(·, e) nearest ``g_guess``, polished by Newton (a simple root there)."""
        c = self._num.coefficients_mp()
        dP = [[(k + 1) * c[k + 1][j] for j in range(len(c[0]))] for k in range(len(c) - 1)]
        dcoef = [sum(dP[k][j] * e**j for j in range(len(dP[0]))) for k in range(len(dP) - 1, -1, -1)]
        while len(dcoef) > 1 and dcoef[0] == 0:
            dcoef.pop(0)
        cands = polyroots(dcoef, extraprec=60) if len(dcoef) > 1 else []
        ge = mpmath.mpf(complex(g_guess).real)
        if cands:
            # a root of ∂P/∂G is the double root only where P vanishes too: among the
            # candidates that are roots of P(·, e) (relative residual), the nearest the guess
            pe = [sum(c[k][j] * e**j for j in range(len(c[0]))) for k in range(len(c))]

            def residual(r):
                num = abs(sum(pe[k] * r**k for k in range(len(pe))))
                return num / (sum(abs(pe[k] * r**k) for k in range(len(pe))) or 1)

            double = [r for r in cands if residual(r) <= mpmath.mpf(10) ** (-mpmath.mp.dps // 2)]
            ge = mpmath.re(min(double or cands, key=lambda r: abs(complex(r) - complex(g_guess))))
        tol = mpmath.mpf(2) ** (-mpmath.mp.prec + 4)
        for _ in range(100):
            f = sum(dP[k][j] * ge**k * e**j for k in range(len(dP)) for j in range(len(dP[0])))
            df = sum(k * dP[k][j] * ge ** (k - 1) * e**j for k in range(1, len(dP))
                     for j in range(len(dP[0])))
            if df == 0:
                break
            step = f / df
            ge -= step
            if abs(step) <= tol * (1 + abs(ge)):
                break
        return ge

    def _pole_polynomial(self, a):
        """Coefficients (mpf, c̃[k][n] of H^k δ^n) of P̃(H, δ) = δ^deg P(H/δ, a + δ): the
        polynomial of H = (z − a)G next to a pole a, whose value at δ = 0 is the atom's mass."""
        c = self._num.coefficients_mp()
        d = len(c) - 1
        dz = len(c[0]) - 1
        out = [[mpmath.mpf(0)] * (d + dz + 1) for _ in range(d + 1)]
        ap = [a**n for n in range(dz + 1)]
        for k in range(d + 1):
            for j in range(dz + 1):
                if c[k][j] == 0:
                    continue
                for i in range(j + 1):
                    out[k][d - k + i] += c[k][j] * math.comb(j, i) * ap[j - i]
        return out

    def _edge_coefficients(self, e, ge, c=None):
        """p_ij with P(G_e + u, e + δ) = Σ p_ij u^i δ^j at the current precision (mpf);
        ``c`` another coefficient table (default: P's own)."""
        if c is None:
            c = self._num.coefficients_mp()
        deg, degz = len(c) - 1, len(c[0]) - 1
        p = [[mpmath.mpf(0)] * (degz + 1) for _ in range(deg + 1)]
        gp = [ge**n for n in range(deg + 1)]
        ep = [e**n for n in range(degz + 1)]
        for i in range(deg + 1):
            for j in range(degz + 1):
                acc = mpmath.mpf(0)
                for k in range(i, deg + 1):
                    for jj in range(j, degz + 1):
                        if c[k][jj] != 0:
                            acc += (c[k][jj] * (math.comb(k, i) * math.comb(jj, j))
                                    * gp[k - i] * ep[jj - j])
                p[i][j] = acc
        p[0][0] = mpmath.mpf(0)
        p[1][0] = mpmath.mpf(0)
        return p

    def _edge_expansion(self, e, g_guess):
        """Re-expansion of P at a square-root edge: P(G_e + u, e + δ) = Σ p_ij u^i δ^j with
        p_00 = p_10 = 0 set exactly, so that u(δ) ~ sqrt(δ) keeps full relative accuracy."""
        with workdps(FLOAT_REFERENCE_DPS):
            ge = self._double_root(e, g_guess)
            p = np.array([[float(v) for v in row] for row in self._edge_coefficients(e, ge)])
            ef = float(e)
            return {"x": ef, "corr": float(ef - e), "g": float(ge), "p": p, "e_mp": e}

    def _pole_expansion(self, a, mass):
        """Local expansion at an atom a that touches the support: with H = (z − a)G and
        P̃(H, δ) = δ^deg P(H/δ, a + δ), H → mass as δ → 0.  When the mass is a multiple root
        of P̃(·, 0) (e.g. ⊠ of two laws with equal atoms, where the density next to the atom
        diverges like δ^{-1/2}) the roots merge there and float64 eigenvalues lose half the
        digits; P̃ re-expanded at (mass, 0) keeps u = H − mass to full relative accuracy."""
        with workdps(FLOAT_REFERENCE_DPS):
            ct = self._pole_polynomial(a)
            # P̃(·, 0) and its derivative at the mass: a double root makes both vanish
            p0 = [row[0] for row in ct]
            d1 = sum(k * p0[k] * mass ** (k - 1) for k in range(1, len(p0)))
            size = max(abs(v) for v in p0) or 1
            if abs(d1) > 1e-12 * size:
                return None
            p = self._edge_coefficients(mpmath.mpf(0), mass, c=ct)
            p = np.array([[float(v) for v in row] for row in p])
            # coefficients that vanish exactly but come out of the 30-digit re-expansion as
            # rounding residue (1e-42 next to O(1) in the tied K=V layer) dominate the
            # expansion once δ is below ~1e-21 (there the root jumped to another sheet)
            p[np.abs(p) <= 1e-24 * np.abs(p).max()] = 0.0
            return {"x": float(a), "corr": float(mpmath.mpf(float(a)) - a), "g": float(mass),
                    "p": p, "e_mp": a, "pole": True}

    #: grid points per decade of the path toward a square-root end (_edge_path); the branch
    #: moves by a factor e^{ln 10/(2·20)} ≈ 1.06 in u ~ √δ per step, its partner root is 2|u|
    #: away
    _PATH_PER_DECADE = 20

    @staticmethod
    def _edge_path_span(t, edge):
        """(e, δ, h) of the point where an end's path starts: x = e + δ at the outer end of
        the edge zone, tracked down to the height h."""
        hi = _EDGE_ZONE * (t["b"] - t["a"]) * 1.5
        return edge["x"], (hi if edge["end"] == "a" else -hi), 1e-3 * hi

    def _edge_path(self, t, edge, sh):
        """The branch on a log-spaced grid of δ = x − e from the outer end of the edge zone
        (|δ| = _EDGE_ZONE·(b − a)) toward the end e (|δ| = 1e-10·(|e| + b − a)): tracked down
        from far above the axis at the outer point, then continued inward point by point
        (:meth:`_axis_steps`: a predictor, unambiguous roots, sub-steps where needed).  Returns
        (ln|δ| ascending, branch values, distance to the nearest other root), truncated before
        the first point the continuation cannot resolve or that lies on the axis, or None
        where fewer than two points remain; cached on the edge."""
        if "path" in edge:
            return edge["path"]
        a, b = t["a"], t["b"]
        sgn = 1.0 if edge["end"] == "a" else -1.0
        hi = _EDGE_ZONE * (b - a) * 1.5
        lo = 1e-10 * (abs(edge["x"]) + (b - a)) * 0.5
        n = max(2, int(math.ceil(math.log10(hi / lo) * self._PATH_PER_DECADE)) + 1)
        mag = np.geomspace(hi, lo, n)  # outer point first
        d = sgn * mag
        e = edge["x"]
        path = None
        if "anchor" in edge:  # tracked already, together with the other ends (_tables)
            g0, ok = np.array([edge["anchor"][0]]), [edge["anchor"][1]]
        else:
            g0, ok = self._num.track(np.array([e + d[0]]), np.array([1e-3 * mag[0]]))
        if ok[0]:
            g0, _ = sh.newton(g0, d[:1], steps=3)
            r = sh.roots(d)
            k = 0
            if np.isfinite(g0[0]):
                k, gs = self._axis_steps(sh, d, r, g0[0], t[edge["end"]])
            if k >= 2:
                gs, _ = sh.newton(gs, d[:k], steps=2)
                # distance from the branch to the nearest other root at each grid point
                sep = np.abs(r[:k] - gs[:, None])
                sep = np.where(np.isfinite(sep), sep, np.inf)
                sep = np.sort(sep, axis=1)[:, 1] if r.shape[1] > 1 else np.full(k, np.inf)
                # inside the support the branch has Im G < 0: a value on the axis is another
                # sheet's real root (see _tables) or the two roots meeting at the edge no
                # longer separated by doubles (their split ~ √δ drowns in the rounding of the
                # companion eigenvalues when |G| spans 1e6: mha_output_law(0.2734, 14, 1.7284,
                # 0.3307, 0.3346) at 1.4e-6 below δ ~ 1e-13); the path ends before the first
                # such value and the edge expansion takes over below it (_edge_zone_guess).
                # Dropping the whole path sent the zone to the point-by-point tracker (100 s).
                inside = np.isfinite(gs) & (gs.imag < -_REAL_ROOT_IM * np.abs(gs))
                k = int(np.argmin(inside)) if not np.all(inside) else k
                if k >= 2:
                    path = (np.log(mag[:k][::-1]), gs[:k][::-1], sep[:k][::-1])
        edge["path"] = path
        return path

    def _edge_zone_guess(self, t, g, bad, left, delta, sha, shb):
        """In place: the branch at ``bad`` points of the zones next to square-root ends
        without companion eigenvalues.  Where the end's path (_edge_path) covers |δ|: Newton
        on the re-expanded P from the path's value, kept when it settles within a fifth of
        the distance to the next root there.  Below the path (|δ| < 1e-10·(|e| + b − a),
        where double precision cannot separate the two roots meeting at e): the edge
        expansion, kept when it agrees with the double root G_e to 1e-3 (as the sheet check
        of _edge_local).  Points kept are cleared from ``bad``; the others keep the general
        route."""
        a, b = t["a"], t["b"]
        # an end shared with the next support interval (a branch point of other sheets or a
        # cusp): beyond the table's first node, the path continued from that node
        for is_a, end in ((True, t["a_mp"]), (False, t["b_mp"])):
            if end not in t["inner"] or t.get("pole_" + ("a" if is_a else "b")):
                continue
            side = left if is_a else ~left
            sh = sha if is_a else shb
            path = self._inner_path(t, "a" if is_a else "b", sh)
            j = np.flatnonzero(bad & side)
            if path is None or not j.size:
                continue
            self._newton_from_path(path, sh, delta, j, np.log(np.abs(delta[j])), g, bad)
        for edge in t["edges"]:
            if edge.get("pole") or "p" not in edge:
                continue
            is_a = edge["end"] == "a"
            side = left if is_a else ~left
            j = np.flatnonzero(bad & side & (np.abs(delta) <= _EDGE_ZONE * (b - a)))
            if not j.size:
                continue
            sh = sha if is_a else shb
            path = edge["path"] if "path" in edge else self._edge_path(t, edge, sh)
            if path is None:
                continue
            ld = path[0]
            lq = np.log(np.abs(delta[j]))
            self._newton_from_path(path, sh, delta, j, lq, g, bad)
            below = lq < ld[0]
            if np.any(below):
                jj = j[below]
                ge = np.full(jj.size, complex(edge["g"]))
                gl = self._edge_local(edge, delta[jj], np.full(jj.size, np.nan + 0j), ref=ge)
                keep = np.isfinite(gl)
                g[jj[keep]] = gl[keep]
                bad[jj[keep]] = False

    def _inner_path(self, t, side, sh):
        """The branch on a log-spaced grid of δ toward an end shared with the next support
        interval, from the table's first node (|δ| ≈ 4e-5·(b − a)) down to 1e-40·(b − a):
        steps of the re-expanded P (:meth:`_axis_steps`: a predictor, unambiguous roots,
        sub-steps where needed), truncated at the first unresolved step (roots that meet
        at the end, a cusp, are not separated by doubles below some |δ|).  Returns
        (ln|δ| ascending, branch values, distance to the nearest other root) or None;
        cached on the table."""
        key = "inner_path_" + side
        if key in t:
            return t[key]
        a, b = t["a"], t["b"]
        k0 = 1 if side == "a" else len(t["theta"]) - 2
        th0 = t["theta"][k0]
        mag0 = (b - a) * (math.sin(0.5 * th0) ** 2 if side == "a" else math.cos(0.5 * th0) ** 2)
        lo = (b - a) * 1e-40
        # 5 points a decade: a root moving like |δ|^p, p ≥ 1/3, moves by < 17 % of its
        # distance to its partner per step
        n = int(math.ceil(math.log10(mag0 / lo) * 5)) + 1
        mag = np.geomspace(mag0, lo, n)
        d = (1.0 if side == "a" else -1.0) * mag
        path = None
        g0, _ = sh.newton(np.array([t["g"][k0]]), d[:1], steps=3)
        if np.isfinite(g0[0]) and abs(g0[0] - t["g"][k0]) <= 1e-8 * abs(t["g"][k0]):
            r = sh.roots(d)
            k, gs = self._axis_steps(sh, d, r, g0[0], t[side])
            if k >= 2:
                gs, _ = sh.newton(gs[:k], d[:k], steps=2)
                sep = np.abs(r[:k] - gs[:, None])
                sep = np.where(np.isfinite(sep), sep, np.inf)
                sep = np.sort(sep, axis=1)[:, 1] if r.shape[1] > 1 else np.full(k, np.inf)
                # truncated before the first value on the axis (Im G < 0 inside the support;
                # at a cusp the branch meets the axis at the end)
                inside = np.isfinite(gs) & (gs.imag < -_REAL_ROOT_IM * np.abs(gs))
                k = int(np.argmin(inside)) if not np.all(inside) else len(gs)
                if k >= 2:
                    path = (np.log(mag[:k][::-1]), gs[:k][::-1], sep[:k][::-1])
        t[key] = path
        return path

    #: most sub-steps into which :meth:`_axis_steps` splits one ambiguous grid step
    _AXIS_MAX_SUBSTEPS = 1024

    @classmethod
    def _axis_steps(cls, sh, d, r, g0, e):
        """Continue the branch along the real axis over the grid δ = ``d`` (toward an end
        e = ``e``; ``r`` the roots of the re-expanded P ``sh`` there) from its value ``g0`` at
        d[0].

        Each step takes the root next to a predictor (:meth:`_axis_step`), unambiguous and
        with a corrector small against the predicted move; where a grid step is not, it is
        retried in 2, 4, …, ``_AXIS_MAX_SUBSTEPS`` geometric sub-steps.  Nearest-root
        continuity from the previous value is not enough on either count:
        next to an end shared by two support intervals G moves fast
        (mha_output_law(1.0516, 1, 0.4303, 0.9061, 1.3459): the first of 5 steps a decade
        from 23.2 − 21.4i to 28.8 − 26.4i has its next root at 27.4 against a move of 7.4; the
        path was dropped and the cdf lost 1.1e-7 next to x = 0.002223), and where the branch
        grows like mass/(x − p) next to an atom p the roots of nearly equal masses are ~1 %
        apart (mha_output_law(0.2734, 14, 1.7284, 0.3307, 0.3346) at 1.4e-6 above the atom at
        0: the nearest root to 342097 − 595i one step on was the real 340150, not the branch
        352076 − 578i; the zone went to the point-by-point tracker, 100 s).

        Returns
        -------
        (k, gs) : the number of grid points reached and the branch at ``d[:k]``; the walk
        stops at the first step no sub-division resolves (roots that meet at the end)."""
        n = len(d)
        gs = np.empty(n, complex)
        gs[0] = g0
        poles = np.asarray(getattr(sh, "pole_hint", ()), dtype=float) - e
        # fast pass: nearest roots to the previous values, then every step checked against
        # the predictors at once (vectorised); the step-by-step route starts at the first
        # step that fails
        k0 = n
        for k in range(1, n):
            dist = np.abs(r[k] - gs[k - 1])
            dist = np.where(np.isfinite(dist), dist, np.inf)
            o = np.argsort(dist)
            if not (len(o) == 1 or dist[o[0]] <= 0.25 * dist[o[1]]):
                k0 = k
                break
            gs[k] = r[k, o[0]]
        if k0 > 1:
            bad = np.flatnonzero(~cls._axis_check(sh, d[:k0], gs[:k0], r[:k0], poles))
            if bad.size:
                k0 = int(bad[0]) + 1
        if k0 == n:
            return n, gs
        with np.errstate(all="ignore"):
            for k in range(k0, n):
                g = cls._axis_step(sh, d[k - 1], gs[k - 1], d[k], r[k], poles)
                m = 2
                while g is None and m <= cls._AXIS_MAX_SUBSTEPS:
                    ds = d[k - 1] * (d[k] / d[k - 1]) ** (np.arange(1, m + 1) / m)
                    rs = sh.roots(ds)
                    g, dc = gs[k - 1], d[k - 1]
                    for j in range(m):
                        g = cls._axis_step(sh, dc, g, ds[j], rs[j], poles)
                        if g is None:
                            break
                        dc = ds[j]
                    m *= 2
                if g is None:
                    return k, gs[:k]
                gs[k] = g
        return n, gs

    @staticmethod
    def _axis_check(sh, d, gs, r, poles):
        """Whether each step gs[k − 1] → gs[k] of a walk along δ = ``d`` (``r`` the roots there)
        is the one :meth:`_axis_step` takes (vectorised over the steps)."""
        with np.errstate(all="ignore"):
            dc, dn, g = d[:-1], d[1:], gs[:-1]
            dg = sh.derivative(g, dc)
            preds = [(g + dg * (dn - dc), np.ones(len(g), bool))]
            if len(poles):
                p = poles[np.argmin(np.abs(dc[:, None] - poles[None, :]), axis=1)]
                near = (np.abs(dn - dc) <= 8 * np.abs(dc - p)) & (dn != p)
                preds.append((((dc - p) * g + (g + (dc - p) * dg) * (dn - dc)) / (dn - p), near))
            rows = np.arange(len(g))
            agree = np.ones(len(g), bool)
            some = np.zeros(len(g), bool)
            for pred, use in preds:
                dist = np.abs(r[1:] - pred[:, None])
                dist = np.where(np.isfinite(dist), dist, np.inf)
                o = np.argsort(dist, axis=1)
                d1 = dist[rows, o[:, 0]]
                d2 = dist[rows, o[:, 1]] if r.shape[1] > 1 else np.full(len(g), np.inf)
                ok = (use & np.isfinite(pred) & np.isfinite(d1) & (d1 <= 0.25 * d2)
                      & (d1 <= 0.25 * np.abs(pred - g) + 1e-12 * np.abs(g)))
                agree &= ~ok | (r[1:][rows, o[:, 0]] == gs[1:])
                some |= ok
        return some & agree

    @staticmethod
    def _axis_step(sh, dc, g, dn, rn, poles):
        """One step of :meth:`_axis_steps` from (δ = ``dc``, branch ``g``) to ``dn`` among the
        roots ``rn`` there, or None.  Predictors: g + G′·Δδ (G′ = −∂_δP/∂_GP), and next to a
        pole p (offsets ``poles`` in δ, within 8 |δ − p| of the step) H = (δ − p)·G linear in
        δ, exact for G ~ mass/(δ − p).  A pick is kept when it is the nearest root to a
        predictor by a factor 4, its corrector is at most a quarter of the predicted move, and
        no two such picks differ."""
        cf = sh.__dict__.get("_cf_rows")
        if cf is None or cf[0] is not sh.cf:
            cf = sh.__dict__["_cf_rows"] = (sh.cf, sh.cf.tolist())
        p_ = pg = pz = 0j  # P, ∂_GP, ∂_δP at (g, dc): scalar Horner (Python complex)
        for row in cf[1]:
            ck = dck = 0j
            for c in row:
                dck = dck * dc + ck
                ck = ck * dc + c
            pg = pg * g + p_
            p_ = p_ * g + ck
            pz = pz * g + dck
        if pg == 0:
            return None
        dg = -pz / pg
        preds = [g + dg * (dn - dc)]
        if len(poles):
            p = poles[np.argmin(np.abs(poles - dc))]
            if abs(dn - dc) <= 8 * abs(dc - p) and dn != p:
                preds.append(((dc - p) * g + (g + (dc - p) * dg) * (dn - dc)) / (dn - p))
        picks = set()
        for pred in preds:
            if not np.isfinite(pred):
                continue
            dist = np.abs(rn - pred)
            dist = np.where(np.isfinite(dist), dist, np.inf)
            o = np.argsort(dist)
            if (np.isfinite(dist[o[0]]) and (len(o) == 1 or dist[o[0]] <= 0.25 * dist[o[1]])
                    and dist[o[0]] <= 0.25 * abs(pred - g) + 1e-12 * abs(g)):
                picks.add(int(o[0]))
        return rn[picks.pop()] if len(picks) == 1 else None

    @staticmethod
    def _newton_from_path(path, sh, delta, j, lq, g, bad):
        """Points ``j`` (log-distance ``lq`` to the end) inside the span of a continued
        ``path`` (log-distances, branch values, root separations): Newton from the path's
        value; a result is kept in ``g`` (and cleared from ``bad``) only on the branch's sheet
        (Im G < 0), converged, and within a fifth of the separation from the path."""
        ld, gp, sep = path
        on = (lq >= ld[0]) & (lq <= ld[-1])
        if not np.any(on):
            return
        jj, lo_ = j[on], lq[on]
        ref = np.interp(lo_, ld, gp.real) + 1j * np.interp(lo_, ld, gp.imag)
        gap = np.minimum(np.interp(lo_, ld, sep),
                         sep[np.clip(np.searchsorted(ld, lo_), 0, len(ld) - 1)])
        gn, stp = sh.newton(ref.copy(), delta[jj], steps=4)
        with np.errstate(invalid="ignore"):
            keep = (np.isfinite(gn) & (gn.imag < -_REAL_ROOT_IM * np.abs(gn))
                    & (stp <= 1e-10 * np.abs(gn))
                    & (np.abs(gn - ref) <= 0.2 * gap))
        g[jj[keep]] = gn[keep]
        bad[jj[keep]] = False

    @staticmethod
    def _on_path(path, sh, d):
        """The root of the re-expanded P (``sh``) at δ = ``d`` nearest the path's value there
        (unambiguous: at most a quarter of the distance to the next root), polished; or None."""
        if path is None:
            return None
        ld, gp, _ = path
        lq = math.log(abs(d))
        if not ld[0] <= lq <= ld[-1]:
            return None
        ref = np.interp(lq, ld, gp.real) + 1j * np.interp(lq, ld, gp.imag)
        r = sh.roots(np.array([d]))[0]
        dist = np.abs(r - ref)
        dist = np.where(np.isfinite(dist), dist, np.inf)
        o = np.argsort(dist)
        if len(o) > 1 and not dist[o[0]] <= 0.25 * dist[o[1]]:
            return None
        g, _ = sh.newton(r[o[:1]], np.array([d]), steps=3)
        return g[0] if np.isfinite(g[0]) and g[0].imag < -_REAL_ROOT_IM * abs(g[0]) else None

    @staticmethod
    def _edge_local(edge, delta, g_fallback, ref=None):
        """Branch near a square-root edge from the local expansion (see _edge_expansion);
        ``delta`` = x − e, measured from the exact edge.  The expansion's root is kept where
        it agrees with ``ref`` (default ``g_fallback``) to 1e-3 (same sheet), else
        ``g_fallback``."""
        if ref is None:
            ref = g_fallback
        p = edge["p"]
        q = np.array([np.polyval(p[i, ::-1], delta) for i in range(p.shape[0])]) + 0j
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            disc = np.sqrt(q[1] ** 2 - 4 * q[2] * q[0])
            u1 = (-q[1] + disc) / (2 * q[2])
            u2 = (-q[1] - disc) / (2 * q[2])
            # Im G < 0: Im u < 0 for an edge; for a pole G = (mass + u)/δ, so sign(δ)·Im u < 0
            sgn = np.sign(delta) if edge.get("pole") else 1.0
            u = np.where(sgn * u1.imag <= sgn * u2.imag, u1, u2)
            step = np.full(u.shape, np.inf)
            for _ in range(30):
                val = np.zeros_like(u)
                der = np.zeros_like(u)
                for qi in q[::-1]:
                    der = der * u + val
                    val = val * u + qi
                d = np.where(der != 0, val / np.where(der != 0, der, 1), 0)
                u = u - d
                step = np.abs(d)
                if np.all(step <= 1e-15 * np.abs(u)):
                    break
            g = edge["g"] + u
            if edge.get("pole"):
                g = g / delta
            # accept the local root when Newton converged on the same sheet as the global solve
            ok = np.isfinite(g) & (g.imag <= 0) & (step <= 1e-13 * np.abs(u))
            if not edge.get("pole"):  # at an atom the expansion is the better of the two
                ok &= np.abs(g - ref) <= 1e-3 * np.abs(ref)
        if edge.get("pole") and not np.all(ok):
            # below ~1e-21 the float64 expansion loses u = H − mass (P̃'s coefficients span
            # δ^6…δ^8 in the tied K=V layer); there H − mass is continued by its power law
            # u ∝ |δ|^p, p and the phase from two points where the expansion still holds
            tiny = ~ok & (np.abs(delta) < 1e-16)
            if np.any(tiny):
                for sgn in (-1.0, 1.0):
                    m = tiny & (np.sign(delta) == sgn)
                    if not np.any(m):
                        continue
                    d12 = sgn * np.array([1e-16, 1e-18])
                    g12 = AlgebraicLaw._edge_local(edge, d12, np.full(2, np.nan + 0j))
                    u12 = g12 * d12 - edge["g"]
                    if np.all(np.isfinite(u12)) and np.all(np.abs(u12) > 0):
                        pw = math.log(abs(u12[0]) / abs(u12[1])) / math.log(100.0)
                        u = u12[1] * (np.abs(delta[m]) / 1e-18) ** pw
                        g = np.array(g, dtype=complex)
                        g[m] = (edge["g"] + u) / delta[m]
                        ok = ok | m
        return np.where(ok, g, g_fallback)

    def _pdf_float(self, x):
        self._check_mass()
        out = np.zeros(x.shape)
        for t in self._tables:
            m = (x > t["a"]) & (x < t["b"])
            if np.any(m):
                out[m] = np.maximum(-self._branch_in_table(t, x[m]).imag / math.pi, 0.0)
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

    @cached_property
    def _hard_edges(self):
        """Breakpoints where the density diverges: poles adjacent to the support with no atom."""
        bd = self._branch(None)
        atoms = {float(a) for a, _ in self._atoms_raw(None)}
        out = []
        bps = [float(b) for b in bd.breakpoints]
        for i, p in enumerate(bd.breakpoints):
            if p not in bd.poles or float(p) in atoms:
                continue
            side = [s for s, k in ((-1, i), (1, i + 1)) if bd.intervals[k]["support"]]
            if side and self._diverges_at(bps[i], side[0]):
                out.append(bps[i])
        return out

    def _diverges_at(self, p, side):
        """Whether the branch blows up at a pole p of the leading coefficient (a hard edge).

        A vanishing leading coefficient only says that *some* sheet is infinite there; the
        Stieltjes branch may stay finite (e.g. π(semicircle, 1.5) at 0: G(0) = −i√6).  Any
        divergence is at least logarithmic-free power-law here (|G| ~ δ^{-p}, p ≥ 1/3 for the
        laws the polynomial method builds), so |G| grows by > 3 over six decades of δ."""
        scale = 1.0 + abs(p)
        x = p + side * scale * np.array([1e-6, 1e-12])
        g = np.abs(self._cauchy_real(x))
        return not (np.all(np.isfinite(g)) and g[1] <= 3.0 * g[0])

    # cdf: Gauss–Legendre on θ-panels, x(θ) = a + (b − a)(1 − cos θ)/2
    def _theta_integrand_b(self, t, phi):
        """The θ-integrand at θ = π − φ with φ given exactly (nodes next to the end b: θ itself
        rounds to 4e-16 absolute there, which moved 2.5e-8 of the mass at a hard right end
        ρ ~ (b − x)^{-3/4} out of the cdf tables)."""
        a, b = t["a"], t["b"]
        inside = (phi > 0) & (phi < math.pi)
        f = np.zeros(phi.shape)
        if np.any(inside):
            ph = phi[inside]
            d = (b - a) * np.sin(0.5 * ph) ** 2
            g = self._branch_in_table(t, b - d, math.pi - ph, delta=-d)
            f[inside] = np.maximum(-g.imag / math.pi, 0.0) * (b - a) * 0.5 * np.sin(ph)
        return f

    def _theta_integrand(self, t, th):
        a, b = t["a"], t["b"]
        x = _x_of_theta(a, b, th)
        inside = (th > 0) & (th < math.pi)  # not x: next to a ≠ 0, x rounds onto the end
        f = np.zeros(th.shape)
        if np.any(inside):
            g = self._branch_in_table(t, x[inside], th[inside])
            f[inside] = np.maximum(-g.imag / math.pi, 0.0) * (b - a) * 0.5 * np.sin(th[inside])
        return f

    def _quad_pieces(self):
        """Quadrature pieces of :meth:`expect` (moments by ``method="quad"``): one per cdf
        table, starting from its refined θ-panels, with the table's θ-integrand (distance to
        the nearer end formed exactly from θ, edge expansions next to the ends)."""
        return [(t["a"], t["b"], t["panels"], lambda th, t=t: self._theta_integrand(t, th))
                for t in self._cdf_tables]

    def _end_powers(self, t):
        """(m_a, m_b): the power of the change of variables θ = θ₁·s^m used on θ-panels that
        touch the end a (θ = 0) or b (θ = π) of table ``t``.

        1 at a square-root edge and wherever G stays bounded.  At a hard edge (a pole of P's
        leading coefficient, G ~ δ^{-α}, ρ ~ δ^{-α}) with α = p/q: the θ-integrand is
        θ^{1−2α}·h(θ^{2/q}) (δ ∝ θ²), analytic in s for m = q (q odd) or q/2 (q even), so m = 1
        at the MP-like α = 1/2, 2 at α = 3/4, 3 at α = 2/3.  α is the exponent of a segment of
        the Newton polygon of P at z = 0 (exact) when the end is 0, the measured slope of
        log|G| between δ = 1e-10 and 1e-20 of the scale (rounded to p/q, q ≤ 12) elsewhere;
        ``_END_POWER`` when neither is conclusive and at an end carrying an atom."""
        if "end_powers" not in t:
            t["end_powers"] = tuple(self._end_power(t, e) for e in "ab")
        return t["end_powers"]

    def _end_power(self, t, end):
        from fractions import Fraction
        e = t[end + "_mp"]
        if e not in set(self._branch(None).poles):
            return 1
        if t["pole_" + end]:
            return _END_POWER
        width = t["b"] - t["a"]
        d = np.array([1e-10, 1e-20]) * (1.0 + abs(float(e)))
        th = 2 * np.arcsin(np.sqrt(np.minimum(d / width, 1.0)))
        if end == "b":
            th = math.pi - th
        with np.errstate(all="ignore"):
            g = np.abs(self._branch_in_table(t, _x_of_theta(t["a"], t["b"], th), th))
            est = math.log(g[1] / g[0]) / math.log(d[0] / d[1])
        if not math.isfinite(est):
            return _END_POWER
        if est < 0.05:  # bounded: the θ-integrand is as smooth as at an interior point
            return 1
        alpha = None
        if e == 0:
            with workdps(FLOAT_REFERENCE_DPS):
                c = self._num.coefficients_mp()
                terms = {(k, sp.Integer(j)): v for k, row in enumerate(c)
                         for j, v in enumerate(row) if v != 0}
                cands = [-a for a, _, _ in self._newton_polygon(terms) if a < 0]
            if cands:
                best = min(cands, key=lambda v: abs(float(v) - est))
                if abs(float(best) - est) <= 0.05:
                    alpha = Fraction(int(best.p), int(best.q))
        if alpha is None:
            f = Fraction(est).limit_denominator(12)
            if abs(float(f) - est) > 0.01 or not 0 < f < 1:
                return _END_POWER
            alpha = f
        q = alpha.denominator
        return q if q % 2 else q // 2

    def _quad_theta(self, a, b, panels, density, func=None):
        """∫ func(x) ρ(x) dx over a support interval (:meth:`expect`): lawcore's adaptive
        θ-quadrature on the cdf table's panels, except in the end zones at a hard end
        (:meth:`_end_powers` m > 1), which take the rule in s of :meth:`_end_zone` (plain
        Gauss–Legendre in θ there left 1.2e-9 of MP(1)^⊠3's mass out)."""
        t = next((t for t in self._cdf_tables if t["a"] == a and t["b"] == b), None)
        if t is None or self._end_powers(t) == (1, 1):
            return super()._quad_theta(a, b, panels, density, func)
        ma, mb = self._end_powers(t)
        panels = np.asarray(panels, dtype=float)
        lo = _END_ZONE if ma > 1 else 0.0
        hi = math.pi - _END_ZONE if mb > 1 else math.pi
        inner = panels[(panels >= lo) & (panels <= hi)]
        inner = np.unique(np.concatenate([[lo], inner, [hi]]))
        weight = None if func is None else (
            lambda th: np.asarray(func(_x_of_theta(a, b, th)), dtype=float))
        parts = [super()._quad_theta(a, b, inner, density, func)]
        for end, m in (("a", ma), ("b", mb)):
            if m > 1:
                parts.append(math.fsum(self._end_zone(t, end, weight)[1]))
        return math.fsum(parts)

    def _side_integrand(self, t, end, weight=None):
        """The θ-integrand of table ``t`` in the distance coordinate u from the end ``end``
        (u = θ at a, u = φ = π − θ at b, both exact), times ``weight(θ)`` if given."""
        if end == "a":
            f = lambda u: self._theta_integrand(t, u)  # noqa: E731
        else:
            f = lambda u: self._theta_integrand_b(t, u)  # noqa: E731
        if weight is None:
            return f
        if end == "a":
            return lambda u: weight(u) * f(u)
        return lambda u: weight(math.pi - u) * f(u)

    def _side_rule(self, t, end, lo, hi, weight=None):
        """∫ over u ∈ [lo, hi] from the end ``end`` (vectorised): :func:`end_rule` with the
        end's power (:meth:`_end_powers`), i.e. in s at a hard end on panels touching it."""
        m = self._end_powers(t)[0 if end == "a" else 1]
        return end_rule(self._side_integrand(t, end, weight), lo, hi, m, _GL_NODES)

    def _gl(self, t, lo, hi, weight=None):
        """∫_lo^hi of the θ-integrand (θ-panels, vectorised over arrays lo, hi): the part in
        [0, π/2] in θ from a, the part in [π/2, π] in φ = π − θ from b (exact there), each by
        :meth:`_side_rule`."""
        lo, hi = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float))
        lo, hi = lo.reshape(-1), hi.reshape(-1)
        half = 0.5 * math.pi
        out = np.zeros(lo.shape)
        ml = lo < half
        if np.any(ml):
            out[ml] += self._side_rule(t, "a", lo[ml], np.minimum(hi[ml], half), weight)
        mr = hi > half
        if np.any(mr):
            out[mr] += self._side_rule(t, "b", math.pi - hi[mr],
                                       math.pi - np.maximum(lo[mr], half), weight)
        return out

    def _side(self, t, end):
        """The :class:`~freeattn.quadrature.tables.Side` of table ``t`` at ``end``: θ-panels
        (φ-panels at b) from the graded half grid refined until 12-point Gauss–Legendre
        agrees with its two halves to ``_PANEL_TOL`` absolute or ``_PANEL_RTOL`` relative
        (bounded: ``_MAX_LEVELS`` halvings, ``_MAX_PANELS`` panels), the zone
        [0, ``_END_ZONE``] at a hard end (m > 1) by :func:`end_zone` in s."""
        m = self._end_powers(t)[0 if end == "a" else 1]
        f = self._side_integrand(t, end)
        lo_u = _END_ZONE if m > 1 else 0.0
        start = _HALF_PANELS[(_HALF_PANELS > lo_u) & (_HALF_PANELS < 0.5 * math.pi)]
        start = np.concatenate([[lo_u], start, [0.5 * math.pi]])
        edges, mass = adaptive_panels(f, start, nodes=_GL_NODES, atol=_PANEL_TOL,
                                      rtol=_PANEL_RTOL, max_levels=_MAX_LEVELS,
                                      frozen=lambda lo, hi: hi - lo <= _FROZEN_WIDTH,
                                      max_panels=_MAX_PANELS // 2)
        if m > 1:
            e0, m0 = end_zone(f, m, _END_ZONE, _GL_NODES, _PANEL_TOL, _PANEL_RTOL, _MAX_LEVELS)
            edges, mass = np.concatenate([e0, edges[1:]]), np.concatenate([m0, mass])
        # bound methods in partials, not closures: a law still pickles after evaluation
        return Side(edges, mass, functools.partial(self._side_rule, t, end),
                    functools.partial(self._side_density, t, end))

    def _side_density(self, t, end, u):
        return self._side_integrand(t, end)(u)

    def _end_zone(self, t, end, weight=None):
        """θ-panels and masses of the zone [0, _END_ZONE] (end "a") or [π − _END_ZONE, π]
        (end "b") at a hard end, by :func:`end_zone` (expect: with ``weight``)."""
        m = self._end_powers(t)[0 if end == "a" else 1]
        edges, mass = end_zone(self._side_integrand(t, end, weight), m, _END_ZONE, _GL_NODES,
                               _PANEL_TOL, _PANEL_RTOL, _MAX_LEVELS)
        if end == "a":
            return edges, mass
        return math.pi - edges[::-1], mass[::-1]

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

    def _ppf_float(self, q):
        """Quantiles from the tables (:func:`~freeattn.quadrature.tables.quantile`): the tail
        beyond 1/2 inverted from the right end through 1 − q."""
        atoms, intervals, ends = self._float_pieces()
        return quantile(np.asarray(q, dtype=float), atoms, intervals, ends=ends)

    def _isf_float(self, q):
        atoms, intervals, ends = self._float_pieces()
        return quantile(np.asarray(q, dtype=float), atoms, intervals, upper=True, ends=ends)

    def isf(self, q, dps=None):
        """Inverse survival function: the smallest x with sf(x) ≤ q (= ppf(1 − q)), inverted
        from the right end of the support, so that small q keep their relative accuracy
        (isf(1e-20) is not ppf(1.0)).

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
        dps = dps_or_none(dps)
        if dps is None:
            arr = np.asarray(q, dtype=float)
            out = np.asarray(self._isf_float(arr.reshape(-1))).reshape(arr.shape)
            return out[()] if out.ndim == 0 else out
        return self._apply(q, dps, None, self._isf_mp, name="q")

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
        return 1e8 * (self._branch(None)._scale() + 1.0)

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

    def _cauchy_real(self, x):
        bd = self._branch(None)
        out = np.empty(x.shape, dtype=complex)
        tables = {id(t["info"]): t for t in self._tables}
        done = np.zeros(x.shape, bool)
        for info in bd.intervals:
            m = (x > info["lo"]) & (x < info["hi"])
            if not np.any(m):
                continue
            if info["support"]:
                out[m] = self._branch_in_table(tables[id(info)], x[m])
            else:
                r = self._num.roots(x[m])
                g = bd.select(r, info, x[m])
                out[m] = self._num.newton(g, x[m] + 0j, steps=2)[0].real + 0j
            done |= m
        for i in np.flatnonzero(~done):  # x is a breakpoint (as a double)
            out[i] = complex(self._breakpoint_value(x[i], None))
        return out

    def _breakpoint_value(self, xb, dps):
        """G at a breakpoint (the limit from the upper half-plane): ∞ at an atom, the real
        double root at a square-root edge, the continuous limit elsewhere."""
        bd = self._branch(dps)
        key = FLOAT_REFERENCE_DPS if dps is None else dps
        cache = self.__dict__.setdefault("_bp_cache", {})
        with workdps(key):
            i = min(range(len(bd.breakpoints)), key=lambda k: abs(bd.breakpoints[k] - xb))
            if (i, key) in cache:
                return cache[(i, key)]
            e = bd.breakpoints[i]
            if e in bd.poles:
                atoms = [a for a, _ in self._atoms_raw(dps)]
                if e in atoms:
                    val = mpmath.mpc(mpmath.inf, 0)
                else:  # hard edge or a pole of another sheet: the limit along iε
                    ef = float(e)
                    hs = np.array([1e-10, 1e-13]) * (1 + abs(ef))
                    g, _ = self._num.track(np.full(2, ef), hs)
                    val = (mpmath.mpc(mpmath.inf, 0) if abs(g[1]) > 10 * abs(g[0]) + 1
                           else mpmath.mpc(complex(g[1])))
            else:
                # the branch's limit from the side: a point inside the neighbouring interval
                left, right = bd.intervals[i], bd.intervals[i + 1]
                side = right if right["support"] or not left["support"] else left
                w = min(abs(float(e)) + 1.0,
                        (side["hi"] - side["lo"]) if math.isfinite(side["hi"] - side["lo"]) else 1.0)
                xs = float(e) + (1e-7 if side is right else -1e-7) * w
                g_side = complex(self._cauchy_real(np.array([xs]))[0])
                c = self._num.coefficients_mp()
                dP = sum(k * c[k][j] * mpmath.mpc(g_side) ** (k - 1) * e**j
                         for k in range(1, len(c)) for j in range(len(c[0])))
                P = self._num
                roots = P.roots_mp(e)
                g = min(roots, key=lambda r: abs(complex(r) - g_side))
                near = [r for r in roots if abs(r - g) <= 1e-4 * (1 + abs(g))]
                if len(near) > 1 or abs(dP) <= 1e-6 * (1 + abs(g)):
                    val = mpmath.mpc(self._double_root(e, g), 0)
                else:
                    val = P.newton_mp(g, e)
                    if not side["support"]:
                        val = mpmath.mpc(mpmath.re(val), 0)
            cache[(i, key)] = val
            return val

    def _cauchy_upper(self, zz):
        """G on the upper half-plane.  The Stieltjes branch satisfies Im G < 0 and
        Im(1/G) ≥ Im z (1/G is a Nevanlinna function with F(z) − z ↦ ℂ⁺ ∪ ℝ); where exactly
        one root of P(·, z) does, that is G.  Elsewhere the branch is continued down from
        Re z + iY (G ~ 1/z) with adaptive steps (:meth:`NumericPolynomial.track`)."""
        bd = self._branch(None)
        self._num.scale_hint = bd._scale()
        self._num.pole_hint = tuple(float(p) for p in bd.poles)
        r = self._num.roots(zz)
        y = zz.imag[:, None]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            inv = 1.0 / r
            okc = (np.isfinite(r) & (r.imag < 0)
                   & (inv.imag >= y * (1 - 1e-9))
                   & (np.abs(r) * y <= 1 + 1e-9))
        n = okc.sum(axis=1)
        g = np.where(okc, r, 0).sum(axis=1)
        amb = n != 1
        if np.any(amb):
            gt, ok = self._num.track(zz.real[amb], zz.imag[amb])
            if not np.all(ok):
                raise ArithmeticError(f"{self.name}: branch continuation failed at z = "
                                      f"{zz[amb][~ok][0]!r}")
            g[amb] = gt
        g, _ = self._num.newton(g, zz, steps=2)
        return g

    # ------------------------------------------------- G at tiny |z| (z → 0)
    #: |z| below which G is evaluated from the Puiseux-rescaled polynomial (× the scale)
    _TINY_Z = 1e-5
    #: |z| (× the scale, on the upper imaginary axis) where the float route fixes the branch
    _TINY_MATCH = (1e-4, 1e-5)

    @staticmethod
    def _newton_polygon(terms):
        """Candidates (a, m, segment) of a polynomial Σ c_{k,e} X^k z^e (terms: {(k, e): c},
        e rational): X ~ C z^a on each lower-hull segment of the points (k, min e), with
        m = min_k (k a + e_k) and the segment polynomial {k: c} (Puiseux)."""
        val = {}
        for (k, e), v in terms.items():
            if k not in val or e < val[k]:
                val[k] = e
        ks = sorted(val)
        hull = []
        for k in ks:
            while len(hull) >= 2:
                (k1, v1), (k2, v2) = hull[-2], hull[-1]
                if (v2 - v1) * (k - k1) >= (val[k] - v1) * (k2 - k1):
                    hull.pop()
                else:
                    break
            hull.append((k, val[k]))
        out = []
        for (k1, v1), (k2, v2) in zip(hull, hull[1:]):
            a = -sp.Rational(v2 - v1) / (k2 - k1)
            m = k1 * a + v1
            out.append((a, m, {k: terms[(k, val[k])] for k in range(k1, k2 + 1)
                               if k in val and k * a + val[k] == m}))
        return out

    def _tiny_levels(self, wp):
        """Nested Puiseux data of the Stieltjes branch at z = 0 at wp digits, or None.

        G = z^{a_0}(C_0 + z^{a_1}(C_1 + … z^{a_n} H)), H the root near C_n of the exact
        rescaled polynomial Q_n(H, z) = Σ q_{k,e} H^k z^e (all e ≥ 0, Q_n(·, 0) has C_n as a
        simple root).  Level 0 is the Newton polygon of P(G, z); where its C is a multiple
        root (an atom whose mass is a double root, e.g. an atom at 0 on a support touching
        0) the polynomial is shifted to C + u (coefficients that cancel exactly are zeroed)
        and the next level is read off the polygon of u.  Each level's (a, C) is the
        candidate that the float route matches at two moderate z = i·r on the upper half
        axis; None where that match is not unambiguous (the general route stays)."""
        cache = self.__dict__.setdefault("_tiny_cache", {})
        if wp in cache:
            return cache[wp]
        ref = self.__dict__.get("_tiny_ref")
        if ref is None:
            scale = self._branch(None)._scale()
            zs = np.array([1j * r * scale for r in self._TINY_MATCH])
            try:
                ref = (zs, self._cauchy_upper(zs))
            except ArithmeticError:
                ref = (zs, None)
            self._tiny_ref = ref
        zs, gs = ref
        result = None
        if gs is not None:
            with workdps(wp):
                result = self._build_levels(zs, gs, wp)
        cache[wp] = result
        return result

    def _build_levels(self, zs, gs, wp):
        c = self._num.coefficients_mp()
        terms = {(k, sp.Integer(j)): v for k, row in enumerate(c) for j, v in enumerate(row)
                 if v != 0}
        size = max(abs(v) for v in terms.values())
        tiny = mpmath.mpf(10) ** (-(wp - 12)) * size
        terms = {ke: v for ke, v in terms.items() if abs(v) > tiny}
        if all(e == 0 for (_, e) in terms):
            return None  # no coefficient vanishes at 0: regular there on every sheet
        xs = [complex(g) for g in gs]  # the current level's variable at the match points
        levels = []
        for _ in range(6):
            cands = []
            for a, m, seg in self._newton_polygon(terms):
                kmin, kmax = min(seg), max(seg)
                coeffs = [seg.get(k, mpmath.mpf(0)) for k in range(kmax, kmin - 1, -1)]
                for r in polyroots(coeffs, extraprec=3 * wp):
                    if abs(r) > tiny:
                        cands.append((a, m, seg, r))
            if not cands:
                return None
            picks = []
            for zq, xq in zip(zs, xs):
                def dist(t, zq=zq, xq=xq):
                    return abs(xq * zq ** (-float(t[0])) - complex(t[3])) / abs(complex(t[3]))
                best = min(cands, key=dist)
                err = dist(best)
                others = [abs(complex(t[3] - best[3])) / abs(complex(best[3]))
                          for t in cands if t is not best and t[0] == best[0]]
                if err > 0.3:
                    return None
                picks.append((best, err, others))
            if picks[0][0] is not picks[1][0]:
                return None
            a, m, seg, C = picks[0][0]
            # multiplicity of C among its segment's roots (merging sheets at z = 0)
            near = [t for t in cands if t[0] == a and abs(t[3] - C) <= 1e-8 * abs(C)]
            mult = len(near)
            if mult > 1:  # C from the (mult−1)-th derivative: a simple root there
                poly = {k: v for k, v in seg.items()}
                for _ in range(mult - 1):
                    poly = {k - 1: k * v for k, v in poly.items() if k > 0}
                C = mpmath.mpc(C)
                for _ in range(200):
                    f = sum(v * C**k for k, v in poly.items())
                    df = sum(k * v * C ** (k - 1) for k, v in poly.items() if k > 0)
                    step = f / df
                    C -= step
                    if abs(step) <= mpmath.mpf(10) ** (-wp - 5) * abs(C):
                        break
            elif any(o < 4 * err for (_, err, others) in picks for o in others):
                return None
            C = mpmath.mpc(C)  # a real or imaginary leading coefficient exactly so
            lim = mpmath.mpf(10) ** (-(wp // 2)) * abs(C)
            C = mpmath.mpc(0 if abs(mpmath.re(C)) <= lim else mpmath.re(C),
                           0 if abs(mpmath.im(C)) <= lim else mpmath.im(C))
            # rescale X = z^a Y: q_{k, k a + e − m}
            terms = {(k, k * a + e - m): v for (k, e), v in terms.items()}
            xs = [xq * zq ** (-float(a)) for zq, xq in zip(zs, xs)]
            levels.append((a, C))
            if mult == 1:
                return {"levels": levels, "terms": terms}
            # shift Y = C + u
            shifted = {}
            for (k, e), v in terms.items():
                for i in range(k + 1):
                    key = (i, e)
                    shifted[key] = shifted.get(key, 0) + v * math.comb(k, i) * C ** (k - i)
            size = max(abs(v) for v in shifted.values())
            tiny = mpmath.mpf(10) ** (-(wp // 2)) * size
            terms = {ke: v for ke, v in shifted.items() if abs(v) > tiny}
            xs = [xq - complex(C) for xq in xs]
        return None

    @property
    def _tiny_z(self):
        return self._tiny_levels(FLOAT_REFERENCE_DPS + 20)

    def _cauchy_tiny(self, zq, derivative=False):
        """G (or G′) at tiny zq with Im zq ≥ 0 (real zq as zq + i0, principal powers) from
        the nested Puiseux data of :meth:`_tiny_levels`: H by Newton on Q_n from C_n, then
        X_i = C_i + z^{a_{i+1}}X_{i+1}, G = z^{a_0}X_0 and z X_i′ = z^{a_{i+1}}(a_{i+1}X_{i+1}
        + z X_{i+1}′), G′ = z^{a_0−1}(a_0 X_0 + z X_0′)."""
        t = self._tiny_z
        zq = zq.real + 1j * np.where(zq.imag == 0, 0.0, zq.imag)  # z + i0, never −0
        logz = np.log(zq)
        terms = [(k, complex(v), float(e)) for (k, e), v in t["terms"].items()]
        deg = max(k for k, _, _ in terms)
        b = np.zeros((deg + 1, zq.size), dtype=complex)
        bz = np.zeros_like(b)
        with np.errstate(under="ignore"):
            for k, v, e in terms:
                w = v * np.exp(e * logz) if e else np.full(zq.size, v)
                b[k] += w
                bz[k] += e * w
        C = complex(t["levels"][-1][1])
        h = np.full(zq.size, C, dtype=complex)
        for _ in range(100):
            p = np.zeros_like(h)
            dp = np.zeros_like(h)
            for k in range(deg, -1, -1):
                dp = dp * h + p
                p = p * h + b[k]
            step = p / dp
            h = h - step
            if np.all(np.abs(step) <= 1e-15 * np.abs(h)):
                break
        p = np.zeros_like(h)
        dp = np.zeros_like(h)
        pz = np.zeros_like(h)
        for k in range(deg, -1, -1):
            dp = dp * h + p
            p = p * h + b[k]
            pz = pz * h + bz[k]
        bad = ~np.isfinite(h) | (np.abs(h - C) > 0.5 * abs(C))
        if np.any(bad):
            raise ArithmeticError(f"{self.name}: the local expansion of G at z = 0 failed at "
                                  f"z = {zq[bad][0]!r}")
        x, zx = h, -pz / dp
        levels = t["levels"]
        for i in range(len(levels) - 1, 0, -1):
            a = float(levels[i][0])
            with np.errstate(under="ignore"):
                w = np.exp(a * logz)
            x, zx = complex(levels[i - 1][1]) + w * x, w * (a * x + zx)
        a0 = float(levels[0][0])
        if derivative:
            out = self._zpow_times(zq, logz, levels[0][0] - 1, a0 * x + zx)
        else:
            out = self._zpow_times(zq, logz, levels[0][0], x)
        real = zq.imag == 0
        if np.any(real):
            gap = real & self._tiny_gap(zq.real)
            out[gap] = out[gap].real + 0j
        return out

    @classmethod
    def _zpow_times(cls, zq, logz, a, h):
        """z^a·h for rational a (principal branch, Im z ≥ 0): exact powers of z or √z where
        a's denominator is 1 or 2 (exp(a log z) would lose ~|log z|·ε), else through the log;
        an overflowing z^a gives ±inf parts, never nan."""
        a = sp.Rational(a)
        if a.q in (1, 2) and abs(a.p) <= 8:
            base = zq if a.q == 1 else np.sqrt(zq)
            with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
                w = np.ones_like(base)
                for _ in range(abs(a.p)):
                    w = w * base
                w = 1.0 / w if a.p < 0 else w
                out = w * h
            ok = np.isfinite(out)
            if np.all(ok):
                return out
            out[~ok] = cls._scaled(float(a) * logz[~ok], h[~ok])
            return out
        return cls._scaled(float(a) * logz, h)

    @staticmethod
    def _scaled(logw, h):
        """exp(logw)·h without inf·0 = nan where exp(logw) overflows (±inf keeps its sign)."""
        mag = np.exp(np.minimum(logw.real, 709.0))
        ph = np.exp(1j * logw.imag) * h
        over = logw.real > 709.0
        out = np.empty(h.shape, dtype=complex)
        with np.errstate(over="ignore", invalid="ignore"):
            out.real = np.where(ph.real == 0, 0.0,
                                np.where(over, np.sign(ph.real) * np.inf, mag * ph.real))
            out.imag = np.where(ph.imag == 0, 0.0,
                                np.where(over, np.sign(ph.imag) * np.inf, mag * ph.imag))
        return out

    def _tiny_gap(self, x):
        """Real points (tiny x) outside the support (G is real there)."""
        bd = self._branch(None)
        gap = np.zeros(x.shape, bool)
        for info in bd.intervals:
            if not info["support"]:
                gap |= (x > info["lo"]) & (x < info["hi"])
        return gap

    def _tiny_mask(self, zq, near):
        """Points of ``near`` in the tiny-z zone; the Puiseux data are built only when some
        point is there (no cost for a law never evaluated next to 0)."""
        radius = self._TINY_Z * self._branch(None)._scale()
        m = near & (np.abs(np.where(near, zq, 1.0)) <= radius) & (zq != 0)
        if not m.any() or self._tiny_z is None:
            return np.zeros(zq.shape, bool)
        return m

    def _tiny_mp(self, zv):
        """Whether the mpmath value zv is in the tiny-|z| zone of :meth:`_tiny_levels`."""
        if abs(zv) > self._TINY_Z * self._branch(None)._scale():
            return False
        return self._tiny_z is not None

    def _cauchy_tiny_mp(self, zq, dps, derivative=False):
        """mpmath version of :meth:`_cauchy_tiny` (zq: mpc with Im ≥ 0), the nested data
        rebuilt at dps + 30 digits."""
        t = self._tiny_levels(max(dps + 30, FLOAT_REFERENCE_DPS + 20))
        if t is None:
            raise ArithmeticError(f"{self.name}: no local expansion of G at z = 0 at "
                                  f"{dps} digits")
        with workdps(dps + 30):
            if mpmath.im(zq) == 0:
                zq = mpmath.mpc(mpmath.re(zq), 0)  # z + i0, never −0
            logz = mpmath.log(zq)
            deg = max(k for k, _ in t["terms"])
            b = [mpmath.mpc(0)] * (deg + 1)
            bz = [mpmath.mpc(0)] * (deg + 1)
            for (k, e), v in t["terms"].items():
                ef = mpmath.mpf(e.p) / e.q
                w = v * mpmath.exp(ef * logz) if e else mpmath.mpc(v)
                b[k] += w
                bz[k] += ef * w
            h = mpmath.mpc(t["levels"][-1][1])
            tol = mpmath.mpf(10) ** (-(dps + 20))
            for _ in range(200):
                p = dp = mpmath.mpc(0)
                for k in range(deg, -1, -1):
                    dp = dp * h + p
                    p = p * h + b[k]
                step = p / dp
                h -= step
                if abs(step) <= tol * abs(h):
                    break
            p = dp = pz = mpmath.mpc(0)
            for k in range(deg, -1, -1):
                dp = dp * h + p
                p = p * h + b[k]
                pz = pz * h + bz[k]
            x, zx = h, -pz / dp
            levels = t["levels"]
            for i in range(len(levels) - 1, 0, -1):
                a = mpmath.mpf(levels[i][0].p) / levels[i][0].q
                w = mpmath.exp(a * logz)
                x, zx = levels[i - 1][1] + w * x, w * (a * x + zx)
            a0 = mpmath.mpf(levels[0][0].p) / levels[0][0].q

            def zpow(r):  # exact powers of z or √z (principal), else through the log
                if r.q in (1, 2):
                    return (zq if r.q == 1 else mpmath.sqrt(zq)) ** int(r.p)
                return mpmath.exp(mpmath.mpf(r.p) / r.q * logz)

            if derivative:
                val = zpow(levels[0][0] - 1) * (a0 * x + zx)
            else:
                val = zpow(levels[0][0]) * x
            xr = float(mpmath.re(zq))
            xr = xr if xr != 0 else math.copysign(5e-324, mpmath.re(zq))
            if mpmath.im(zq) == 0 and bool(self._tiny_gap(np.array([xr]))[0]):
                val = mpmath.mpc(mpmath.re(val), 0)
        return val

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
                val = self._cauchy_tiny_mp(zq, dps + 5, derivative=True)
                val = mpmath.conj(val) if mpmath.im(zv) < 0 else val
            else:
                g = self._cauchy_mp(zv, dps + 5)
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

    # ------------------------------------------------------------- mpmath
    def _locate_mp(self, x, dps):
        """(branch data, interval info or None if x is a breakpoint) at working precision."""
        bd = self._branch(dps)
        tol = mpmath.mpf(10) ** (-(dps + 5))
        for b in bd.breakpoints:
            if abs(x - b) <= tol * abs(b) or x == b:
                return bd, None
        k = sum(1 for b in bd.breakpoints if b < x)
        return bd, bd.intervals[k]

    def _table_of(self, info):
        """The float64 table of a support interval (``info`` from the branch data at any
        precision: matched by its ends as doubles)."""
        for t in self._tables:
            if t["info"] is info or (t["a"] == info["lo"] and t["b"] == info["hi"]):
                return t
        raise ArithmeticError(f"{self.name}: support interval ({info['lo']}, {info['hi']}) "
                              "is not resolved in float64")

    def _edge_mp(self, edge, dps):
        """Edge expansion coefficients and double root at the working precision (cached)."""
        cache = edge.setdefault("mp", {})
        if dps not in cache:
            bd = self._branch(dps)
            e = min(bd.breakpoints, key=lambda b: abs(b - edge["e_mp"]))
            ge = self._double_root(e, edge["g"])
            cache[dps] = (e, ge, self._edge_coefficients(e, ge))
        return cache[dps]

    def _support_branch_mp(self, x, info, dps):
        """G(x + i0) at the working precision for x inside the support interval ``info``:
        Newton from the float64 table value, or from the edge expansion next to an edge
        (where the two roots merging at the edge are closer than float64 resolves)."""
        t = self._table_of(info)
        a, b = t["a_mp"], t["b_mp"]
        for edge in t["edges"]:
            e = edge["e_mp"]
            if edge.get("pole"):  # atom next to the support: Newton from the float64 value
                continue
            if abs(x - e) <= _EDGE_ZONE * (b - a):
                e, ge, p = self._edge_mp(edge, dps)
                delta = x - e
                qs = [sum(p[i][j] * delta**j for j in range(len(p[i]))) for i in range(len(p))]
                disc = mpmath.sqrt(mpmath.mpc(qs[1] ** 2 - 4 * qs[2] * qs[0]))
                u = min(((-qs[1] + disc) / (2 * qs[2]), (-qs[1] - disc) / (2 * qs[2])),
                        key=lambda v: mpmath.im(v))
                tol = mpmath.mpf(2) ** (-mpmath.mp.prec + 6)
                for _ in range(60):
                    val = mpmath.mpc(0)
                    der = mpmath.mpc(0)
                    for qi in reversed(qs):
                        der = der * u + val
                        val = val * u + qi
                    if der == 0:
                        break
                    step = val / der
                    u -= step
                    if abs(step) <= tol * abs(u):
                        if mpmath.im(u) < 0:
                            return ge + u
                        break
                break
        xf = float(x)
        if t["a"] < xf < t["b"]:
            # start from the θ-table (linear interpolation, ~1e-5 relative): outside the edge
            # zones the roots are further apart than that, and Newton doubles the digits
            th = float(_theta_of_x(t["a"], t["b"], xf))
            g0 = complex(np.interp(th, t["theta"], t["g"].real), np.interp(th, t["theta"], t["g"].imag))
            if t["theta"][1] <= th <= t["theta"][-2]:
                g = self._num.newton_mp(mpmath.mpc(g0), x)
                if mpmath.im(g) < 0 and abs(g - g0) <= 1e-3 * abs(g0):
                    return g
            g0 = complex(self._branch_in_table(t, np.array([xf]))[0])
            g = self._num.newton_mp(mpmath.mpc(g0), x)
            if mpmath.im(g) < 0 and abs(g - g0) <= 1e-6 * abs(g0):
                return g
        else:
            g0 = complex(self._breakpoint_value(xf, None))
        roots = self._num.roots_mp(x)
        g = self._branch(dps).select_mp(roots, info, mpmath.mpc(g0))
        return self._num.newton_mp(g, x)

    def _branch_real_mp(self, x, dps):
        """G(x + i0) at the working precision for real x."""
        bd, info = self._locate_mp(x, dps)
        if info is None:
            return self._breakpoint_value(x, dps)
        if info["support"]:
            return self._support_branch_mp(x, info, dps)
        guess = complex(self._cauchy_float(np.array([complex(float(x))]))[0])
        if not np.isfinite(guess):
            guess = complex(info["g_mid"])
        g = self._num.newton_mp(mpmath.mpc(guess.real), x)
        if not abs(g - guess) <= 1e-6 * (1 + abs(guess)):
            g = bd.select_mp(self._num.roots_mp(x), info, mpmath.mpc(guess))
            g = self._num.newton_mp(g, x)
        return mpmath.mpc(mpmath.re(g), 0)

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

    def _theta_integral_mp(self, info, th_lo, th_hi, dps):
        """∫ ρ(x(θ)) x′(θ) dθ over [th_lo, th_hi] at the working precision
        (:func:`~freeattn.quadrature.ends.theta_integral_mp`: Gauss–Legendre via mpmath.quad
        in θ, in which square-root edges are analytic, and in s at a hard end)."""
        t = self._table_of(info)
        a, b = t["a_mp"], t["b_mp"]
        ma, mb = self._end_powers(t)
        far = mpmath.mpf(10) ** (dps // 3)

        def f(th, phi=None):
            # phi: π − θ given exactly (end pieces at b, where θ rounds next to π)
            if phi is not None:
                dd = (b - a) * mpmath.sin(phi / 2) ** 2
                if dd <= 0:
                    return mpmath.mpf(0)
                if mb > 1 and b != 0 and abs(b) > dd * far:
                    g0 = complex(self._branch_in_table(
                        t, np.array([float(b - dd)]), np.array([float(th)]),
                        delta=np.array([-float(dd)]))[0])
                    with mpmath.workdps(mpmath.mp.dps + _digits_between(b, dd)):
                        g = self._num.newton_mp(mpmath.mpc(g0), b - dd)
                else:
                    g = self._support_branch_mp(b - dd, info, dps)
                return max(-mpmath.im(g), 0) / mpmath.pi * (b - a) / 2 * mpmath.sin(phi)
            xx = a + (b - a) * mpmath.sin(th / 2) ** 2
            # next to a hard end e ≠ 0, x = e ± δ at the working precision keeps only
            # ~dps − log10(|e|/δ) digits of δ (and rounds onto e below 10^-dps·|e|, where the
            # end zone in s puts nodes): there P is solved at x formed with that many extra
            # digits, from the float64 value (whose δ is exact from θ)
            left = th <= mpmath.pi / 2
            e = a if left else b
            dd = (b - a) * (mpmath.sin(th / 2) ** 2 if left else mpmath.cos(th / 2) ** 2)
            if dd <= 0:
                return mpmath.mpf(0)
            if (ma if left else mb) > 1 and e != 0 and abs(e) > dd * far:
                g0 = complex(self._branch_in_table(t, np.array([float(xx)]),
                                                   np.array([float(th)]))[0])
                with mpmath.workdps(mpmath.mp.dps + _digits_between(e, dd)):
                    g = self._num.newton_mp(mpmath.mpc(g0), e + dd if left else e - dd)
                return max(-mpmath.im(g), 0) / mpmath.pi * (b - a) / 2 * mpmath.sin(th)
            if xx <= a or xx >= b:
                return mpmath.mpf(0)
            g = self._support_branch_mp(xx, info, dps)
            return max(-mpmath.im(g), 0) / mpmath.pi * (b - a) / 2 * mpmath.sin(th)

        # the pieces' error estimate meets the precision with QUAD_EXTRA_DIGITS to spare
        # (singularities of G near the support, e.g. the pole of 1/x next to MP's left edge,
        # slow the convergence of a long piece)
        return theta_integral_mp(f, th_lo, th_hi, tolerance(dps + _MP_QUAD_EXTRA_DPS),
                                 m_lo=ma, m_hi=mb)

    def _interval_mass_mp(self, info, dps):
        """Mass of one support interval at ``dps`` digits: 1 − atoms for a law with one
        interval (total mass 1), else θ-quadrature (cached)."""
        cache = self.__dict__.setdefault("_mass_mp_cache", {})
        key = (info["lo"], info["hi"], dps)
        if key not in cache:
            if sum(1 for i in self._branch(dps).intervals if i["support"]) == 1:
                cache[key] = 1 - sum((m for _, m in self._atoms_raw(dps)), mpmath.mpf(0))
            else:
                cache[key] = self._theta_integral_mp(info, mpmath.mpf(0), mpmath.pi, dps)
        return cache[key]

    def _mp_intervals(self, dps):
        """The support intervals at the working precision as
        :class:`~freeattn.quadrature.tables.MpInterval` s (θ-integrals from either end)."""
        out = []
        for info in self._branch(dps).intervals:
            if not info["support"]:
                continue
            t = self._table_of(info)
            out.append(MpInterval(
                t["a_mp"], t["b_mp"], self._interval_mass_mp(info, dps),
                lambda th, info=info: self._theta_integral_mp(info, mpmath.mpf(0), th, dps),
                lambda th, info=info: self._theta_integral_mp(info, th, mpmath.pi, dps)))
        return out

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
        return newton_mp(q, x, lambda v: self._partial_mp(v, dps, upper),
                         lambda v: self._pdf_mp(v, dps),
                         lambda u, v: self._theta_integral_mp(info, theta(u), theta(v), dps),
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
                if not (abs(g - guess) <= 1e-8 * abs(guess) and mpmath.im(g) < 0):
                    roots = self._num.roots_mp(zq)
                    g = self._num.newton_mp(min(roots, key=lambda r: abs(r - guess)), zq)
                val = mpmath.conj(g) if conj else g
        with mpmath.workdps(dps):
            return +val

    # ------------------------------------------------------------ mapping
    def affine(self, shift, scale):
        """Push-forward by x ↦ shift + scale·x (scale ≠ 0), as a new :class:`AlgebraicLaw`.

        G_new(z) = G((z − shift)/scale)/scale.  ``shift`` and ``scale`` may be floats (taken
        exactly) or exact sympy expressions.

        Raises
        ------
        ParameterError
            If ``scale`` is zero or a parameter is not a finite real number (a
            :class:`ParameterTypeError` for None, strings or complex numbers).
        """
        from ._params import exact, fresh

        for name, v in (("shift", shift), ("scale", scale)):
            if not isinstance(v, sp.Basic):
                finite_real(name, v)  # the one argument filter: names the parameter
        shift, scale = exact(shift), exact(scale)
        if scale == 0:
            raise ParameterError("scale", "scale must be non-zero, got 0")
        a_s, b_s = fresh("shift"), fresh("scale")
        P = affine_polynomial(self.symbolic_polynomial, a_s, b_s)
        out = AlgebraicLaw(P, {**self.values, a_s: shift, b_s: scale},
                           name=f"{shift} + {scale}·({self.name})")
        # the image's hull is the affine image of this law's (convolution domain checks)
        out._affine_source = (self, shift, scale)
        from ..convolution._dispatch import is_positive_by_construction, mark_positive

        # x ↦ a + b x, a ≥ 0, b > 0 (b ≠ 0 was checked above) keeps [0, ∞) and m₁ > 0
        if is_positive_by_construction(self) and _nonnegative(shift) and _nonnegative(scale):
            mark_positive(out, "x ↦ a + b x (a ≥ 0, b > 0) of a law on [0, ∞) with m₁ > 0")
        return out

    def dilate(self, t):
        """Dilation D_t (push-forward by x ↦ t x), t > 0.

        Raises
        ------
        ParameterError
            If ``t`` is not a finite number > 0 (:class:`ParameterTypeError` for non-numbers).
        """
        if not isinstance(t, sp.Basic):
            positive("t", t)
        elif not (t.is_positive and t.is_finite):
            raise ParameterError("t", f"t must be a finite number > 0, got {t}")
        return self.affine(0, t)



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
        Exact by elimination (:func:`freeattn.algebraic.polynomial.pushforward_polynomial`):
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
        from .._validation import ParameterError
        from ..algebraic.polynomial import pushforward_polynomial
        from ._params import exact, fresh
        from .._messages import shown
        from .transformed import _coefficients

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
