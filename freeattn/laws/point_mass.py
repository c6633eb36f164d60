"""Point mass δ_c."""
from __future__ import annotations

from .._validation import _real
from ..algebraic.polynomial import G, z
from ._params import exact, fresh
from .algebraic import AlgebraicLaw

__all__ = ["PointMass"]


class PointMass(AlgebraicLaw):
    """Dirac law δ_c: G(z) = 1/(z − c), polynomial (z − c) G − 1 = 0.

    Parameters
    ----------
    location : float
        The point c (finite).
    """

    def __init__(self, location=1.0):
        loc = _real("location", location)
        if loc in (float("inf"), float("-inf")):
            raise ValueError(f"location must be finite, got {location!r}")
        self.location = float(loc)
        c = fresh("c")
        super().__init__((z - c) * G - 1, {c: exact(location)}, name=f"PointMass({loc:g})")

    def _atoms_raw(self, dps):
        from .._context import to_mp, workdps
        with workdps(dps or 30):
            import mpmath
            return [(to_mp(next(iter(self.values.values()))), mpmath.mpf(1))]
