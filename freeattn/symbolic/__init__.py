"""Symbolic views of freeattn's laws (sympy): equations, exact moments and cumulants, series,
critical-point edges, LaTeX.  Imported on demand (``import freeattn.symbolic``), never by
``import freeattn``.

Parameters are named as in Hayase & Karakida 2026 (arXiv 2610.10033) and Hayase, Collins &
Karakida (AISTATS 2026): β, γ_K, h, θ₁ = e^{β²} − 1, θ₂ = β² (see
:mod:`freeattn.symbolic.symbols`).
"""
from . import symbols
from .cumulants import free_cumulants, moments
from .edges import critical_point_edges, stationary_equation
from .equations import G, algebraic_equation, attention_polynomial, equation_parameters, z
from .printing import latex
from .series import edge_series, moment_series

__all__ = ["algebraic_equation", "equation_parameters", "attention_polynomial", "moments",
           "free_cumulants", "moment_series", "edge_series", "critical_point_edges",
           "stationary_equation", "latex", "symbols", "G", "z"]
