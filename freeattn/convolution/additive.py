"""Free additive convolution ⊞ and free additive powers μ^{⊞t} of any laws."""
from __future__ import annotations

from .._validation import declare
from ..algebraic.eliminations import boxplus_polynomial, boxplus_power_polynomial
from ..laws._params import fresh
from ..laws.algebraic import AlgebraicLaw
from ._dispatch import choose_method, fmt
from .multiplicative import _fresh_copy
from .subordination import AdditiveConvolution, AdditivePower

__all__ = ["free_additive_convolution", "boxplus", "free_additive_power"]


def free_additive_convolution(mu, nu, method=None):
    """Free additive convolution μ ⊞ ν: the law of a + b for free self-adjoint a ~ μ, b ~ ν.

    Parameters
    ----------
    mu, nu : Law
        Any two laws on the real line (algebraic, numeric, empirical, …).
    method : {None, "algebraic", "subordination"}
        ``"algebraic"`` (default when both inputs are :class:`AlgebraicLaw`): exact
        polynomial P(G, z) of μ ⊞ ν from R_{μ⊞ν} = R_μ + R_ν, eliminated by a resultant, and
        the factor with the Stieltjes branch selected by its first two moments
        (Rao & Edelman 2008).  ``"subordination"`` (default otherwise): analytic
        subordination, G(z) = G_μ(ω₁(z)) = G_ν(ω₂(z)) with ω₁ + ω₂ = z + 1/G(z) (Biane 1998;
        Belinschi & Bercovici 2007), solved by a fixed point in the upper half-plane then
        Newton with a residual check; densities are on-axis limits.

    Returns
    -------
    Law
        An :class:`AlgebraicLaw` (algebraic route) or an
        :class:`~freeattn.convolution.subordination.AdditiveConvolution`.  Either has mass
        1 including atoms; atoms follow (μ ⊞ ν)({a}) = max(0, μ({b}) + ν({a − b}) − 1)
        (Bercovici & Voiculescu 1998).  Convention: G(z) = ∫ dμ(x)/(z − x).

    Raises
    ------
    ParameterTypeError
        If an input is not a :class:`~freeattn.laws.Law` (``.param`` "mu" or "nu"; also a
        ``TypeError``).
    ParameterError
        If ``method`` is not one of the names above, or "algebraic" with a non-algebraic
        input.

    Examples
    --------
    >>> from freeattn import Semicircle, free_additive_convolution
    >>> law = free_additive_convolution(Semicircle(1), Semicircle(1))
    >>> [round(e, 12) for e in law.support()[0]]   # Semicircle(2): edges ±2√2
    [-2.828427124746, 2.828427124746]
    """
    declare(AdditiveConvolution.parameters, mu=mu, nu=nu)
    method = choose_method(method, (mu, nu))
    if method == "algebraic":
        P1, v1 = _fresh_copy(mu)
        P2, v2 = _fresh_copy(nu)
        return AlgebraicLaw(boxplus_polynomial(P1, P2), {**v1, **v2},
                            name=f"({mu.name}) ⊞ ({nu.name})")
    return AdditiveConvolution(mu, nu)


boxplus = free_additive_convolution


def free_additive_power(mu, t, method=None):
    """Free additive power μ^{⊞t} for real t ≥ 1: R_{μ^{⊞t}} = t R_μ (free cumulants times t).

    For an integer t it is μ ⊞ … ⊞ μ (t times).  Nica & Speicher 1996; Belinschi &
    Bercovici 2004 (subordination F_{μ^{⊞t}}(z) = F_μ(ω(z)), t ω − (t − 1) F_μ(ω) = z).

    Parameters
    ----------
    mu : Law
    t : float ≥ 1, or an exact number (kept exact on the algebraic route)
    method : {None, "algebraic", "subordination"}
        As in :func:`free_additive_convolution`.

    Returns
    -------
    Law
        Mass 1; atoms μ^{⊞t}({t a}) = max(0, t μ({a}) − (t − 1)).  ``mu`` itself when t = 1.

    Raises
    ------
    ParameterError
        If ``t`` is not a finite number ≥ 1, or for a bad ``method``.
    """
    mu_p, t_p = AdditivePower.parameters
    mu_p.validate(mu)
    t_exact = t_p.exact(t)
    method = choose_method(method, (mu,))
    if t_exact == 1:  # R_μ itself; the subordination equation degenerates to ω = z (no edges)
        return mu
    if method == "algebraic":
        P, v = _fresh_copy(mu)
        ts = fresh("t")
        return AlgebraicLaw(boxplus_power_polynomial(P, ts), {**v, ts: t_exact},
                            name=f"({mu.name})^⊞{fmt(t)}")
    return AdditivePower(mu, t_exact, name=f"({mu.name})^⊞{fmt(t)}")
