"""Probability laws on the real line, all with one interface (:class:`Law`)."""
from .algebraic import AlgebraicLaw
from .base import Law
from .marchenko_pastur import FreePoisson, MarchenkoPastur
from .point_mass import PointMass
from .semicircle import Semicircle

__all__ = ["Law", "AlgebraicLaw", "Semicircle", "MarchenkoPastur", "FreePoisson", "PointMass"]
