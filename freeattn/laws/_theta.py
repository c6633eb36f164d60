"""The θ-parametrisation of a support interval [a, b]: x(θ) = a + (b − a)(1 − cos θ)/2.

Square-root edges are analytic in θ and x′(θ) = (b − a) sin θ/2 cancels an inverse-square-root
divergence, so quadrature and tables of the branch are taken in θ (Rao & Edelman 2008 use the
same change of variables for algebraic densities)."""
from __future__ import annotations

import math

import numpy as np

__all__ = ["x_of_theta", "theta_of_x"]


def x_of_theta(a, b, th):
    """x(θ) = a + (b − a)(1 − cos θ)/2, written to keep x − a and b − x accurate."""
    half = 0.5 * np.asarray(th)
    return np.where(half <= math.pi / 4, a + (b - a) * np.sin(half) ** 2,
                    b - (b - a) * np.cos(half) ** 2)


def theta_of_x(a, b, x):
    """Inverse of :func:`x_of_theta` on [a, b], accurate near both ends."""
    u = np.clip((np.asarray(x) - a) / (b - a), 0.0, 1.0)
    v = np.clip((b - np.asarray(x)) / (b - a), 0.0, 1.0)
    return np.where(u <= 0.5, 2 * np.arcsin(np.sqrt(u)), math.pi - 2 * np.arcsin(np.sqrt(v)))
