"""freeattn: free-probability calculator for the spectra of self-attention.

Conventions: G(z) = ∫ dμ(x)/(z − x) (G ~ 1/z, Im G < 0 on the upper half-plane);
Marchenko–Pastur ratio = rows/columns, mean one; total mass 1 including atoms;
``dps=None`` is float64, ``dps=int`` is mpmath at that precision.
"""
from .attention import (MHAConfig, attention_law, c_beta, head_average_law, mha_output_law,
                        rho_law, theta1, theta2, values_law)
from .convolution import (boxplus, boxtimes, compound_free_poisson, free_additive_convolution,
                          free_additive_power, free_multiplicative_convolution,
                          free_multiplicative_power, rectangular_free_convolution)
from .laws import AlgebraicLaw, FreePoisson, Law, MarchenkoPastur, PointMass, Semicircle
from .laws import CauchyLaw, Discrete, Empirical, Mixture, NumericalLaw, Transformed
from .sweeps import LawGrid, sweep

from . import display as _display

_display.register_formatters()  # rich notebook display of laws, when an IPython shell runs

__version__ = "0.1.0"

__all__ = [
    "Law", "AlgebraicLaw", "Semicircle", "MarchenkoPastur", "FreePoisson", "PointMass",
    "free_multiplicative_convolution", "boxtimes", "compound_free_poisson",
    "free_additive_convolution", "boxplus", "free_additive_power", "free_multiplicative_power",
    "rectangular_free_convolution",
    "attention_law", "rho_law", "theta1", "theta2", "c_beta", "head_average_law", "values_law",
    "mha_output_law", "MHAConfig",
    "Discrete", "Empirical", "NumericalLaw", "CauchyLaw", "Mixture", "Transformed",
    "sweep", "LawGrid",
]
