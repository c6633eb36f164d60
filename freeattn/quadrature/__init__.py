"""Quadrature of densities on support intervals (floor 3: imports only _context).

- :mod:`.theta`: x(θ) = a + (b − a)(1 − cos θ)/2, graded θ-panels, adaptive Gauss–Legendre;
- :mod:`.ends`: the rule at a hard end (θ = θ₁·s^m), the end zone, the mpmath θ-integral;
- :mod:`.tables`: θ-tables + atoms → cdf, sf, ppf, isf (float64 and mpmath), the one copy.
"""
