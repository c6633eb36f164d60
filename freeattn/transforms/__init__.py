"""Transforms: Cauchy, R, S, ψ, χ (numeric) and moments ↔ free cumulants (exact)."""
from .cumulants import (free_cumulants_from_moments, moments_from_free_cumulants,
                        r_transform_series, s_transform_series)
from .evaluate import (cauchy_transform, chi_transform, free_cumulants, psi_transform,
                       r_transform, s_transform)
from .symbolic import r_transform_expr, s_transform_expr

__all__ = ["cauchy_transform", "r_transform", "s_transform", "psi_transform", "chi_transform",
           "free_cumulants", "free_cumulants_from_moments", "moments_from_free_cumulants",
           "r_transform_series", "s_transform_series", "r_transform_expr", "s_transform_expr"]
