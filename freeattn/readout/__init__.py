"""Readout learning predictions from a spectral law (Hayase & Karakida 2026, §5, §C.4–C.6).

w_ν(λ) (effective degrees of freedom), ridge coefficient error E_λ, gradient-flow training loss
∫ e^{−2tx} dν and arrival times, for any law object (general route through its Cauchy
transform) or through the paper's scalar equations (:class:`IndependentKV`, :class:`TiedKV`).
"""
from .dof import dof, dof_derivative
from .quadrature import QuadratureError, expect
from .ridge import ridge_error
from .scalar import IndependentKV, ScalarReadoutLaw, TiedKV, mean_one, readout_normalisation
from .training import arrival_time, loss_laplace_transform, training_loss

__all__ = ["dof", "dof_derivative", "ridge_error", "training_loss", "arrival_time",
           "loss_laplace_transform", "IndependentKV", "TiedKV", "ScalarReadoutLaw",
           "readout_normalisation", "mean_one", "expect", "QuadratureError"]
