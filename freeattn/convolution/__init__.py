"""Operations on laws: free multiplicative convolution and compound free Poisson."""
from .multiplicative import boxtimes, compound_free_poisson, free_multiplicative_convolution

__all__ = ["free_multiplicative_convolution", "boxtimes", "compound_free_poisson"]
