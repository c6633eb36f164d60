"""One convolution engine for any laws: ⊞, ⊠, compound free Poisson and free powers.

Each operation takes ``method=None | "algebraic" | "subordination"``: the exact polynomial
route when every input is an :class:`~freeattn.laws.AlgebraicLaw`, analytic subordination
(:mod:`freeattn.convolution.subordination`) otherwise.
"""
from .additive import boxplus, free_additive_convolution, free_additive_power
from .compound_poisson import compound_free_poisson
from .multiplicative import boxtimes, free_multiplicative_convolution, free_multiplicative_power
from .rectangular import boxplus_rectangular, rectangular_free_convolution

__all__ = ["free_additive_convolution", "boxplus", "free_multiplicative_convolution", "boxtimes",
           "compound_free_poisson", "free_additive_power", "free_multiplicative_power",
           "rectangular_free_convolution", "boxplus_rectangular"]
