"""Wigner's semicircle law."""
from __future__ import annotations

from .._validation import positive
from ..algebraic.polynomial import G, z
from ._params import exact, fresh
from .algebraic import AlgebraicLaw

__all__ = ["Semicircle"]


class Semicircle(AlgebraicLaw):
    """Centred semicircle law of variance σ², support [−2σ, 2σ].

    Density sqrt(4σ² − x²)/(2πσ²); polynomial σ² G² − z G + 1 = 0; only non-zero free
    cumulant κ₂ = σ²; even moments σ^{2k} Catalan(k).

    Parameters
    ----------
    variance : float > 0

    Raises
    ------
    ValueError
        If ``variance`` is not a finite number > 0.
    """

    def __init__(self, variance=1.0):
        self.variance = positive("variance", variance)
        v = fresh("v")
        super().__init__(v * G**2 - z * G + 1, {v: exact(variance)},
                         name=f"Semicircle(variance={variance:g})")
