"""Atoms of an algebraic law: poles of P's leading coefficient with mass lim (z − a)G(z).

The mass is one of finitely many candidates read off the Newton polygon of P at the pole; the
branch continued to a + iε picks it (Rao & Edelman 2008, §5); where that reading is ambiguous
the exact mass from the operation that built the law (:class:`AtomAtZero`) decides.

:class:`AtomsMixin` is a part of :class:`freeattn.laws.AlgebraicLaw`.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

from .._context import FLOAT_REFERENCE_DPS, TINY, to_mp, tolerance, workdps
from .roots import polyroots

__all__ = ["AtomsMixin", "AtomAtZero"]

#: digits below the working precision at which a re-expanded coefficient counts as zero
#: (the Newton polygon's segments)
_POLYGON_LOST_DPS = 8
#: a polygon root is a candidate mass when real to _REAL_CANDIDATE·(1 + |r|) and in (0, 1]
#: (with _MASS_SLACK for rounding)
_REAL_CANDIDATE = 1e-10
_MASS_SLACK = 1e-9
#: a reading within _STRONG_READING of the distance to the next candidate decides alone
_STRONG_READING = 1e-3

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
        # an operand built by an operation with its own rule: that rule, recursively (the
        # operand's atoms() would continue its branch to read the pole's mass: the layer law
        # (ν ⊠ MP) ⊠ π built ν ⊠ MP's branch data for it, 0.23 of a 1.35 s cold build)
        exact = getattr(law, "_exact_atom_at_zero", None)
        exact = exact(dps) if exact is not None else None
        if exact is not None:
            return mpmath.mpf(exact)
        tiny = tolerance(dps // 2)
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


class AtomsMixin:
    """Atoms and their masses (a part of AlgebraicLaw)."""

    def _atom_locations(self, dps):
        return [loc for loc, _ in self._atoms_raw(dps)]

    def _atoms_raw(self, dps):
        cache = self.__dict__.setdefault("_atom_cache", {})
        key = dps or FLOAT_REFERENCE_DPS
        if key in cache:
            return cache[key]
        bd = self._branch(dps)
        atoms, masses = [], {}
        with workdps(key):
            poles = sorted(bd.poles)
            failed = {}
            for a in poles:
                try:
                    masses[a] = self._pole_mass(a, bd)
                except ArithmeticError as exc:
                    failed[a] = exc
            # a pole of P's leading coefficient that carries no atom (another sheet's pole, or
            # a push-forward's critical value in a gap) does not bound the heights at which the
            # branch is read next to a neighbouring atom: G is analytic there.  A pole left
            # ambiguous beside such a pole is read again without it (FreePoisson(0.0454)
            # pushed forward by 0.875 + 0.125x + 2x²: the atom 0.9546 at 0.875 sits 0.002 from
            # the critical value 0.873, and the tracker fails at heights below 2e-5 there)
            massless = frozenset(a for a, m in masses.items() if m <= tolerance(key // 2))
            for a, exc in failed.items():
                if not massless:
                    raise exc
                masses[a] = self._pole_mass(a, bd, massless)
            for a in poles:
                mass = masses[a]
                # an exact atom at 0 (from the operation) counts however small it is
                exact_zero = (abs(a) <= tolerance(key // 2) and mass > 0
                              and self._exact_atom_at_zero(mpmath.mp.dps) == mass)
                if mass > tolerance(key // 2) or exact_zero:
                    atoms.append((a, mass))
        cache[key] = atoms
        return atoms

    def _pole_mass(self, a, bd, massless=frozenset()):
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
        tol = tolerance(mpmath.mp.dps - _POLYGON_LOST_DPS)
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
        # a row is rounding residue relative to the whole re-expansion's size, not in absolute
        # terms (coefficients ~1e8: a residue row of 1.2e-32 read as the lowest power gave the
        # single candidate 0 and lost the atom 0.942 of MP(17.19) pushed forward, pushforward-116)
        scale = max((abs(v) for co in by_power.values() for v in co.values()), default=1)
        for ps in sorted(by_power):
            coeffs = by_power[ps]
            size = max(abs(v) for v in coeffs.values())
            if size <= tol * scale:
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
                          if abs(mpmath.im(r)) <= _REAL_CANDIDATE * (1 + abs(r))
                          and 0 < mpmath.re(r) <= 1 + _MASS_SLACK]
            break
        # at 0, the operation's exact atom (AtomAtZero) decides whenever it is one of the raw
        # candidates (0 always is): a mass far below the merging distance or any reading's
        # error (π(δ₁, 1 − 1e-12): 9.9998e-13 beside the candidate 0, merged into it and
        # lost) is found exactly from the operation's data, not by a numerical threshold
        if abs(a) <= tolerance(mpmath.mp.dps // 2):
            exact = self._exact_atom_at_zero(mpmath.mp.dps)
            if exact is not None and (exact == 0 or any(
                    abs(m - exact) <= tolerance(mpmath.mp.dps // 2) * (1 + abs(m))
                    for m in cands)):
                return exact
        # a multiple root of the polygon is one candidate: a root of multiplicity k is split
        # by rounding into k roots ~ eps^{1/k} apart (the tied K=V layer's mass 1/2 is a
        # triple root: 0.5 ± 4e-11 at 30 digits), so roots closer than 10^{-dps/4} form one
        # cluster, whose mean is the multiple root to full accuracy
        merge = tolerance(mpmath.mp.dps // 4)
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
        decision, strong, last = self._pole_decision(a, bd, cands, massless)
        if strong:
            return decision
        # the continuation could not separate the candidates (two atoms of nearly equal mass
        # meeting at 0: γ_V ≈ γ_O in the ⊠ layer): the operation's exact atom, if it is one of
        # the candidates
        exact = None
        if abs(a) <= tolerance(mpmath.mp.dps // 2):
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
            if src is None or src[1] != 0 or not isinstance(src[0], AtomsMixin):
                return None
            law = src[0]

    #: heights ε/s of the vertical line a + iε on which :meth:`_pole_decision` reads the mass
    #: (s: the distance from the pole to the nearest support end or other pole)
    _POLE_HEIGHTS = (1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-10)

    def _pole_decision(self, a, bd, cands, massless=frozenset()):
        """(candidate, strong, last reading): the candidate mass next to iεG(a + iε), the branch
        continued (float64, :meth:`NumericPolynomial.track`, all heights in one vectorised call)
        to heights ε far below the distance s from a to the nearest support end or other pole.

        Breakpoints between two gaps (branch points of other sheets only) do not bound ε: G is
        analytic across them (mha_output_law(0.2734, 14, 1.7284, 0.3307, 0.3346) has one at
        −1.5e-8 and its support starting at 1.4e-6; ε from the former never reached the axis;
        from the latter iεG = 0.6692983 at ε = 1.4e-8, candidates 0.6692982 and 0.6653955).
        Heights decrease until the first reading within 1e-3 of the distance to the next
        candidate ("strong"); else the last reading within a quarter of it decides (not strong),
        or none does (None).  ``massless``: poles already read as carrying no atom (they do
        not bound ε)."""
        ends = set()
        for i, info in enumerate(bd.intervals):
            if info["support"]:
                ends.update(x for x in (info["lo_mp"], info["hi_mp"]) if x is not None)
        ends |= set(bd.poles) - massless
        others = [abs(b - a) for b in ends if b != a]
        af = float(a)
        s = float(min(others)) if others else 1.0 + abs(af)
        s = min(s, 1.0 + abs(af))
        eps = np.maximum(np.array(self._POLE_HEIGHTS) * s, TINY)
        g, ok = self._num.track(np.full(eps.shape, af), eps)
        decision, strong, last = None, False, None
        for k in range(len(eps)):
            if not ok[k]:
                break
            last = (1j * eps[k] * g[k]).real
            dist = sorted((abs(float(m) - last), i) for i, m in enumerate(cands))
            if dist[0][0] <= 0.25 * dist[1][0]:
                decision = cands[dist[0][1]]
                strong = dist[0][0] <= _STRONG_READING * dist[1][0]
                if strong:
                    break
        return decision, strong, last

    def _atoms(self, dps):
        atoms = self._atoms_raw(dps)
        if dps is None:
            return [(float(a), float(m)) for a, m in atoms]
        with workdps(dps):
            return [(+a, +m) for a, m in atoms]
