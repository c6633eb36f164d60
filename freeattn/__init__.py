"""freeattn: free-probability calculator for the spectra of self-attention.

Conventions: G(z) = ∫ dμ(x)/(z − x) (G ~ 1/z, Im G < 0 on the upper half-plane);
Marchenko–Pastur ratio = rows/columns, mean one; total mass 1 including atoms;
``dps=None`` is float64, ``dps=int`` is mpmath at that precision.

The names below are loaded on first use (PEP 562 module ``__getattr__``): ``import freeattn``
itself loads neither sympy, scipy nor matplotlib; ``freeattn.attention_law`` (or ``from
freeattn import attention_law``) imports the modules that define it.
"""
import importlib as _importlib
import sys as _sys

__version__ = "0.1.0"

#: public name → the module (relative to this package) that defines it
_EXPORTS = {
    **dict.fromkeys(("MHAConfig", "attention_law", "c_beta", "head_average_law",
                     "mha_output_law", "rho_law", "theta1", "theta2", "values_law"),
                    ".attention"),
    **dict.fromkeys(("boxplus", "boxtimes", "compound_free_poisson", "free_additive_convolution",
                     "free_additive_power", "free_multiplicative_convolution",
                     "free_multiplicative_power", "rectangular_free_convolution"),
                    ".convolution"),
    **dict.fromkeys(("AlgebraicLaw", "FreePoisson", "Law", "MarchenkoPastur", "PointMass",
                     "Semicircle", "CauchyLaw", "Discrete", "Empirical", "Mixture",
                     "NumericalLaw", "Transformed"), ".laws"),
    **dict.fromkeys(("LawGrid", "sweep"), ".sweeps"),
}

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


# Our own 10 lines rather than scientific-python's lazy_loader (the same PEP 562 pattern):
# no new dependency for a dict lookup.
def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'freeattn' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module, __name__), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


# rich notebook display of laws, when an IPython shell runs (a notebook loads the laws anyway)
if getattr(_sys.modules.get("IPython"), "get_ipython", lambda: None)() is not None:
    _importlib.import_module(".display", __name__).register_formatters()
