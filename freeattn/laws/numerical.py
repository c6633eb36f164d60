"""A law given by a user's Cauchy-transform callable."""
from __future__ import annotations

import math

import mpmath
import numpy as np

from .._context import mp_route
from .._validation import Param, ParameterError, declare, positive, real_vector
from .base import Law
from .generic import SCAN_MASS_TOL, UnboundedHull, UnboundedScan, unbounded

__all__ = ["NumericalLaw", "CauchyLaw"]


class NumericalLaw(Law):
    """A probability law given by its Cauchy transform G(z) = ∫ dμ(x)/(z − x).

    Parameters
    ----------
    cauchy : callable
        ``cauchy(z)``: complex ndarray (1-D) → complex ndarray of the same shape, the branch
        with G ~ 1/z at infinity and Im G < 0 for Im z > 0.
    derivative : callable, optional
        ``derivative(z)`` = G′(z), same shapes (default: Cauchy's integral formula on G).
    cauchy_mp : callable, optional
        ``cauchy_mp(z, dps)`` → mpmath number, for ``dps=`` routes beyond 15 digits.
    support : list of (a, b), optional
        The support of the density if known (disjoint intervals a < b); default: found from G.
    atoms : list of (location, mass), optional
        The atoms if known; default: found from G.  Declaring ``support`` alone still finds
        the atoms (and the reverse).
    on_axis : bool, default True
        Whether ``cauchy`` at a real x inside the support returns the limit G(x + i0).  If
        False, the density is the Richardson-extrapolated limit ε → 0 of −Im G(x + iε)/π
        (``pdf(method="limit")``).
    name : str, optional

    Raises
    ------
    ParameterError
        If ``cauchy`` is not callable, maps i·s (s the scale) to Im G ≥ 0, or if ``support``
        or ``atoms`` are malformed.

    Examples
    --------
    >>> import numpy as np
    >>> law = NumericalLaw(lambda z: (z - np.sqrt(z - 2) * np.sqrt(z + 2)) / 2,
    ...                    support=[(-2.0, 2.0)], atoms=[], name="semicircle")
    >>> round(float(law.cdf(0.0)), 12)
    0.5
    """

    parameters = (
        Param("cauchy", "callable", "G"),
        Param("derivative", "callable", "G′", optional=True),
        Param("cauchy_mp", "callable", "G", "G at dps digits", optional=True),
        Param("support", lambda name, v: NumericalLaw._check_support(v), "supp μ",
              "disjoint intervals (a, b) with a < b", optional=True),
        Param("atoms", lambda name, v: NumericalLaw._check_atoms(v), "atoms",
              "pairs (location, mass > 0)", optional=True),
    )

    def __init__(self, cauchy, derivative=None, cauchy_mp=None, support=None, atoms=None,
                 on_axis=True, name="numerical law"):
        v = declare(self.parameters, cauchy=cauchy, derivative=derivative, cauchy_mp=cauchy_mp,
                    support=support, atoms=atoms)
        self.cauchy, self.derivative, self.cauchy_mp = cauchy, derivative, cauchy_mp
        self.on_axis = bool(on_axis)
        self.name = name
        self._declared_support, self._declared_atoms = v["support"], v["atoms"]
        with np.errstate(all="ignore"):
            probe = np.asarray(cauchy(np.array([1j * self._probe_scale()])), dtype=complex)
        if probe.shape != (1,) or not (probe[0].imag < 0):
            raise ParameterError("cauchy", "cauchy must return an array of the argument's shape "
                                           "with Im G(z) < 0 for Im z > 0 (the convention "
                                           "G(z) = ∫ dμ(x)/(z − x))")

    def _probe_scale(self):
        pts = [e for ab in (self._declared_support or []) for e in ab if np.isfinite(e)]
        pts += [a for a, _ in (self._declared_atoms or [])]
        return 1.0 + max([abs(p) for p in pts], default=0.0)

    @staticmethod
    def _check_support(support):
        out = []
        for item in support:
            item = list(item)
            # ±inf ends are allowed (heavy tails); everything else is a finite real
            infinite = [isinstance(v, (float, np.floating)) and np.isinf(v) for v in item]
            a, b = real_vector("support", [0.0 if i else v for v, i in zip(item, infinite)])
            a, b = (float(v) if i else w for v, i, w in zip(item, infinite, (a, b)))
            if a == np.inf or b == -np.inf or not a < b:
                raise ParameterError("support", f"support intervals need −∞ ≤ a < b ≤ ∞, got "
                                                f"({a}, {b})")
            out.append((float(a), float(b)))
        out.sort()
        for (a1, b1), (a2, b2) in zip(out, out[1:]):
            if a2 <= b1:
                raise ParameterError("support", "support intervals must be disjoint")
        return out

    @staticmethod
    def _check_atoms(atoms):
        out = []
        for item in atoms:
            loc, mass = real_vector("atoms", list(item))
            positive("atoms", mass)
            out.append((float(loc), float(mass)))
        return sorted(out)

    def _declares(self, hook):
        if hook == "_support":
            return self._declared_support is not None
        if hook == "_atoms":
            return self._declared_atoms is not None
        return Law._declares(self, hook)

    def _cauchy_float(self, z):
        return np.asarray(self.cauchy(np.asarray(z, dtype=complex)), dtype=complex)

    def _cauchy_derivative_float(self, z):
        if self.derivative is None:
            return Law._cauchy_derivative_float(self, z)
        return np.asarray(self.derivative(np.asarray(z, dtype=complex)), dtype=complex)

    def _cauchy_mp(self, z, dps):
        if self.cauchy_mp is None:
            return Law._cauchy_mp(self, z, dps)
        return self._user_cauchy_mp(z, dps)

    @mp_route
    def _user_cauchy_mp(self, z, dps):
        # the user's callable runs with guard digits, its value is rounded back to dps
        return mpmath.mpmathify(self.cauchy_mp(z, dps))

    def _pdf_float(self, x):
        if self.on_axis:
            return Law._pdf_float(self, x)
        x = np.asarray(x, dtype=float)
        out = np.zeros(x.shape)
        if self._declared_support is not None:
            inside = np.zeros(x.shape, bool)
            for a, b in self._declared_support:
                inside |= (x > a) & (x < b)
        else:
            inside = np.ones(x.shape, bool)
        if np.any(inside):
            out[inside] = self._pdf_limit_float(x[inside])
        return out

    def _pdf_mp(self, x, dps):
        return Law._pdf_mp(self, x, dps) if self.on_axis else self._pdf_limit_mp(x, dps)

    def _structure(self, open_ends=None):
        """The generic scan; where the density does not vanish at an end of the hull's scan
        (or the contour mass never reaches 1), a heavy tail (Cauchy): the scan again on the
        compactified grid with that side open (support reaching ±∞, mass-checked)."""
        try:
            try:
                return Law._structure(self, open_ends)
            except UnboundedScan as exc:
                if open_ends is not None:
                    raise
                sides = (exc.left, exc.right)
            except UnboundedHull:
                if open_ends is not None:
                    raise
                sides = (True, True)
            return Law._structure(self, sides)
        except ArithmeticError as exc:
            raise ArithmeticError(f"{exc}; the parameters: support=[(a, b), ...] (a = -inf "
                                  f"and/or b = inf for heavy tails) and atoms") from None

    def _tables(self):
        """The generic tables, checked when the support is declared: with the atoms they
        carry mass 1 to ``SCAN_MASS_TOL`` (a declared interval far wider than the density's
        bulk, e.g. (−1e300, 1e300) for a Cauchy law, would otherwise be read silently)."""
        fresh = "tables" not in self._cache()
        tables = Law._tables(self)
        if fresh and self._declared_support is not None:
            atoms = self._declared_atoms or []
            mass = math.fsum([iv.mass for iv in tables] + [w for _, w in atoms])
            if not abs(mass - 1) <= SCAN_MASS_TOL:
                self._cache().pop("tables", None)
                raise ParameterError(
                    "support", f"{self.name}: the declared support {self._declared_support} "
                               f"and atoms carry mass {mass:.12g} ≠ 1 (an interval far wider "
                               f"than the density's bulk, or a missing component): declare "
                               f"tight intervals, with a = -inf and/or b = inf for heavy tails")
        return tables

    def _support(self, dps):
        if self._declared_support is None:
            return Law._support(self, dps)
        if dps is None:
            return list(self._declared_support)
        return [(mpmath.mpf(a), mpmath.mpf(b)) for a, b in self._declared_support]

    def _atoms(self, dps):
        if self._declared_atoms is None and self._declared_support is not None \
                and any(unbounded(a, b) for a, b in self._declared_support):
            return self._unbounded_atoms(dps)
        if self._declared_atoms is None:
            return Law._atoms(self, dps)
        if dps is None:
            return list(self._declared_atoms)
        return [(mpmath.mpf(a), mpmath.mpf(w)) for a, w in self._declared_atoms]


    def _unbounded_atoms(self, dps):
        """No atoms on an unbounded declared support unless declared: checked by the mass of
        the density's tables (1 to ``SCAN_MASS_TOL``), the atom scan of a bounded law having no
        finite grid to run on."""
        mass = math.fsum(iv.mass for iv in self._tables())
        if not abs(mass - 1) <= SCAN_MASS_TOL:
            raise ArithmeticError(f"{self.name}: the density on the unbounded support "
                                  f"{self._declared_support} carries mass {mass:.12g} ≠ 1: "
                                  f"declare the atoms (atoms=[(location, mass), ...])")
        return []


#: alias: a law from its Cauchy transform
CauchyLaw = NumericalLaw
