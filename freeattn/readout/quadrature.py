"""Expectations ∫ f dν against a law's density and atoms (Gauss–Legendre in the edge angle).

On each support interval [a, b] the substitution x = a + (b − a) sin²(θ/2), θ ∈ [0, π],
removes square-root (and x^{−1/2} hard-edge) endpoint singularities of the density, so that
Gauss–Legendre in θ converges fast.  The result is checked: total mass (density + atoms)
must be one, and a rule with half the nodes must agree.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from .._messages import shown
from .._validation import ParameterTypeError, law_instance, positive, positive_integer

__all__ = ["expect", "QuadratureError"]

class QuadratureError(ArithmeticError):
    """The density + atoms of a law do not resolve to the requested accuracy."""


@functools.cache
def _rule(n):
    return np.polynomial.legendre.leggauss(n)


def _nodes(law, n):
    """Nodes x and weights q with Σ q f(x) ≈ ∫ f dν_ac, over all support intervals."""
    key = ("nodes", n)
    cache = law.__dict__.setdefault("_readout_quadrature", {})
    if key not in cache:
        xg, wg = _rule(n)
        th = 0.5 * math.pi * (xg + 1)
        xs, qs = [], []
        for a, b in law.support():
            a, b = float(a), float(b)
            x = np.where(th <= math.pi / 2, a + (b - a) * np.sin(0.5 * th) ** 2,
                         b - (b - a) * np.cos(0.5 * th) ** 2)
            dx = 0.5 * (b - a) * np.sin(th) * 0.5 * math.pi * wg
            xs.append(x)
            qs.append(dx * np.asarray(law.pdf(x), dtype=float))
        cache[key] = ((np.concatenate(xs), np.concatenate(qs)) if xs  # pure atoms: no nodes
                      else (np.zeros(0), np.zeros(0)))
    return cache[key]


def expect(law, f, nodes=400, tol=1e-11):
    """∫ f(x) dν(x) = Σ_atoms mass·f(a) + ∫ f ρ dx for a law with a density and atoms.

    Parameters
    ----------
    law : Law
        Any law with ``support()``, ``pdf`` and ``atoms()``.
    f : callable
        Vectorised: ndarray x of shape (k,) → ndarray of shape (k, ...) (extra axes allowed,
        e.g. one per time t).
    nodes : int
        Gauss–Legendre nodes per support interval; the half rule is used as the check.
    tol : float
        Allowed disagreement between the two rules and allowed mass defect.

    Returns
    -------
    ndarray or float

    Raises
    ------
    QuadratureError
        If density + atoms do not sum to one within ``tol`` (e.g. a missing atom), or the
        two rules disagree by more than ``tol``.
    ParameterTypeError
        If ``law`` is not a Law or ``f`` is not callable; ParameterError for ``nodes`` < 1
        or ``tol`` not > 0.
    """
    law = law_instance("law", law)
    if not callable(f):
        raise ParameterTypeError("f", f"f must be callable, got {type(f).__name__}")
    nodes = positive_integer("nodes", nodes)
    tol = positive("tol", tol)
    atoms = [(float(a), float(m)) for a, m in law.atoms()]
    x, q = _nodes(law, nodes)
    xh, qh = _nodes(law, nodes // 2)
    mass = float(q.sum()) + sum(m for _, m in atoms)
    if abs(mass - 1) > tol:
        raise QuadratureError(
            f"density + atoms of {law.name} integrate to {shown(mass)}, not 1 (a missing atom or an "
            "unresolved density); use the Laplace-inversion route")
    if x.size == 0:  # pure atoms
        val = 0.0
        for a, m in atoms:
            val = val + m * np.asarray(f(np.array([a])), dtype=float)[0]
        return val
    fx = np.asarray(f(x), dtype=float)
    val = np.tensordot(q, fx, axes=(0, 0))
    valh = np.tensordot(qh, np.asarray(f(xh), dtype=float), axes=(0, 0))
    if np.max(np.abs(val - valh)) > tol:
        raise QuadratureError(f"quadrature against {law.name} not converged "
                              f"({np.max(np.abs(val - valh)):.2e} between {nodes} and "
                              f"{nodes // 2} nodes)")
    for a, m in atoms:
        val = val + m * np.asarray(f(np.array([a])), dtype=float)[0]
    return val
