"""Probability laws on the real line, all with one interface (:class:`Law`)."""
from .algebraic import AlgebraicLaw
from .base import Law
from .discrete import Discrete
from .empirical import Empirical
from .marchenko_pastur import FreePoisson, MarchenkoPastur
from .mixture import Mixture
from .numerical import CauchyLaw, NumericalLaw
from .point_mass import PointMass
from .semicircle import Semicircle
from .transformed import Transformed

__all__ = ["Law", "AlgebraicLaw", "Semicircle", "MarchenkoPastur", "FreePoisson", "PointMass",
           "Discrete", "Empirical", "NumericalLaw", "CauchyLaw", "Mixture", "Transformed"]
