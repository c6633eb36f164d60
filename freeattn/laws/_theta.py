"""Moved to :mod:`freeattn.quadrature.theta` (kept importable here for the modules that still
import it from laws/)."""
from ..quadrature.theta import (adaptive_panels, cumulative_in_panels, gauss_legendre,  # noqa: F401
                                graded_panels, panel_integrals, theta_of_x, x_of_theta)

__all__ = ["x_of_theta", "theta_of_x", "gauss_legendre", "graded_panels", "panel_integrals",
           "adaptive_panels", "cumulative_in_panels"]
