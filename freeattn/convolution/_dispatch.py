"""The one dispatch point for ``method=`` of the convolution engine, and shared checks."""
from __future__ import annotations

import numpy as np

from .._context import to_mp
from ..algebraic.positivity import is_positive_by_construction, mark_positive  # noqa: F401 (re-exported)
from .._validation import ParameterError
from ..laws.algebraic import AlgebraicLaw

METHODS = ("algebraic", "subordination")

#: a law "on [0, ∞)" may start this far below 0 (relative): rounding of a computed edge
_NEGATIVE_RTOL = 1e-12


def choose_method(method, laws, algebraic_possible=True, why=""):
    """``None`` → "algebraic" when every input is an :class:`AlgebraicLaw` (and the
    operation has an exact elimination), else "subordination"; a named method is checked."""
    if method is None:
        alg = all(isinstance(m, AlgebraicLaw) for m in laws) and algebraic_possible
        return "algebraic" if alg else "subordination"
    if method not in METHODS:
        raise ParameterError("method", f"method must be one of {', '.join(map(repr, METHODS))}"
                                       f" or None, got {method!r}")
    if method == "algebraic":
        bad = [type(m).__name__ for m in laws if not isinstance(m, AlgebraicLaw)]
        if bad:
            raise ParameterError("method", "method='algebraic' needs AlgebraicLaw inputs, got "
                                           f"{', '.join(bad)}; use method='subordination'")
        if not algebraic_possible:
            raise ParameterError("method", f"method='algebraic' is not available here: {why}; "
                                           "use method='subordination'")
    return method


def fmt(value):
    """Short display of a parameter (exact values too: sympy Rational, Fraction, mpf)."""
    try:
        return f"{float(value):g}"
    except (TypeError, ValueError):
        return str(value)


def hull(law):
    """(min, max) over the support and atoms of a law.

    For an :class:`AlgebraicLaw` on the generic route the ends come straight from its
    breakpoints and their classification (support intervals, atoms at poles), without the
    cdf tables of :meth:`~freeattn.laws.Law.support`'s mass self-check: a convolution checks
    its inputs' domain, and building their cdf tables cost more than the convolution."""
    pts = _algebraic_hull_points(law)
    if pts is None:  # any other law: its own hull (a Discrete's from its sorted atoms)
        return law.hull()
    if not pts:
        raise ValueError(f"{law.name} has neither support nor atoms")
    return min(pts), max(pts)


def _algebraic_hull_points(law):
    """Support ends and atom locations of an AlgebraicLaw from its breakpoints (float64), or
    None for any other law (or a subclass with its own support)."""
    if not isinstance(law, AlgebraicLaw):
        return None
    source = law.__dict__.get("_affine_source")
    if source is not None:  # x ↦ shift + scale·x of another law: map that law's hull
        # (before the check below: AlgebraicAffineImage has AffineImage's _support, which
        # reads the base law's support() and so its cdf-level mass check)
        base, shift, scale = source
        shift, scale = to_mp(shift), to_mp(scale)
        return sorted(float(shift + scale * v) for v in hull(base))
    if type(law)._support is not AlgebraicLaw._support:
        return None
    bd = law._branch(None)
    bps, iv = bd.breakpoints, bd.intervals
    pts = []
    for i, info in enumerate(iv):
        if info["support"]:
            if i == 0 or i == len(iv) - 1:  # unbounded: not a law; let support() raise
                return None
            pts += [float(bps[i - 1]), float(bps[i])]
    return pts + [float(a) for a, _ in law._atoms_raw(None)]


def mean_of(law):
    """m₁ (exact where the law knows it, else read off G far from the support)."""
    try:
        return float(law.mean())
    except (NotImplementedError, AttributeError):
        lo, hi = hull(law)
        zz = np.array([1e7j * (1 + max(abs(lo), abs(hi)))])
        return float((zz * (zz * law.cauchy_transform(zz) - 1)).real[0])


def check_positive_law(name, law):
    """A law on [0, ∞) with positive mean (the domain of ⊠ and the S-transform).

    A law marked by :func:`mark_positive` (built from positive laws by an operation that
    keeps them positive) passes without computing its hull."""
    if is_positive_by_construction(law):
        return
    lo, _ = hull(law)
    if lo < -_NEGATIVE_RTOL * (1 + abs(lo)):
        raise ParameterError(name, f"{name} must be supported on [0, ∞); its support starts at {lo}")
    m1 = mean_of(law)
    if not m1 > 0:
        raise ParameterError(name, f"{name} must have a positive mean, got {m1}")

