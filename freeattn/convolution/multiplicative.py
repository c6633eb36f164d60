"""Free multiplicative convolution ⊠ and free multiplicative powers μ^{⊠t} of any laws on
[0, ∞)."""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

from ..algebraic.eliminations import boxtimes_polynomial, boxtimes_power_polynomial
from ..algebraic.polynomial import rename_symbols
from ..laws._params import fresh
from ..laws.algebraic import AlgebraicLaw, AtomAtZero
from .._validation import declare
from ._dispatch import check_positive_law, choose_method, fmt, mark_positive
from .subordination import MultiplicativeConvolution, MultiplicativePower

__all__ = ["free_multiplicative_convolution", "boxtimes", "free_multiplicative_power"]


def _fresh_copy(law):
    """The law's symbolic polynomial and values with parameter symbols renamed apart.

    Floating-point coefficients of a user's polynomial (``AlgebraicLaw(0.1*z*G**2 + …)``) are
    taken as their binary values, exact rationals, as every float parameter is
    (:func:`freeattn._validation.exact`): sympy's eliminations over the domain RR cannot
    decide that a coefficient is zero and raised PolynomialDivisionFailed."""
    ren = {s: fresh(s.name.rsplit("_", 1)[0]) for s in law.values}
    P = rename_symbols(law.symbolic_polynomial, ren)
    P = P.xreplace({f: sp.Rational(f) for f in P.atoms(sp.Float)})
    return P, {ren[s]: v for s, v in law.values.items()}


def free_multiplicative_convolution(mu, nu, method=None):
    """Free multiplicative convolution μ ⊠ ν of two laws on [0, ∞) with positive means.

    The law of a^{1/2} b a^{1/2} for free positive a ~ μ, b ~ ν.

    Parameters
    ----------
    mu, nu : Law
        Laws on [0, ∞) with positive means (algebraic, numeric, empirical, …).
    method : {None, "algebraic", "subordination"}
        ``"algebraic"`` (default when both are :class:`AlgebraicLaw`): S_{μ⊠ν} = S_μ S_ν
        (Voiculescu) eliminated by a resultant (Rao & Edelman 2008).  ``"subordination"``
        (default otherwise): η_{μ⊠ν}(z) = η_μ(ω₁(z)) = η_ν(ω₂(z)), ω₁ω₂ = z η_{μ⊠ν}(z)
        (Biane 1998; Belinschi & Bercovici 2007), fixed point then Newton, on-axis limits.

    Returns
    -------
    Law
        Mass 1 including atoms; the atom at 0 is max(μ({0}), ν({0})) (Belinschi 2003).

    Raises
    ------
    ParameterTypeError
        If an argument is not a :class:`~freeattn.laws.Law` (``.param`` "mu" or "nu"; also a
        ``TypeError``).
    ParameterError
        If an argument has non-positive mean or mass on (−∞, 0) (``.param`` is "mu" or
        "nu"), or for a bad ``method``.

    Notes
    -----
    S-transform convention: ψ(z) = Σ_{q≥1} m_q z^q, χ = ψ^{-1}, S(w) = (1 + w)/w · χ(w),
    S(0) = 1/m₁ (Hayase & Karakida 2026, eqs. (C.1)–(C.3)).
    """
    declare(MultiplicativeConvolution.parameters, mu=mu, nu=nu)
    method = choose_method(method, (mu, nu))
    for name, law in (("mu", mu), ("nu", nu)):
        check_positive_law(name, law)
    if method == "algebraic":
        P1, v1 = _fresh_copy(mu)
        P2, v2 = _fresh_copy(nu)
        P = boxtimes_polynomial(P1, P2)
        law = AlgebraicLaw(P, {**v1, **v2}, name=f"({mu.name}) ⊠ ({nu.name})")
        # (μ ⊠ ν)({0}) = max(μ({0}), ν({0})) (Belinschi 2003): decides the atom at 0 where
        # two candidate masses are too close for the numerics (evaluated only then)
        law.atom_at_zero = AtomAtZero("max", (mu, nu))
    else:
        law = MultiplicativeConvolution(mu, nu)
    # both inputs passed the check: μ ⊠ ν is on [0, ∞) with m₁ = m₁(μ) m₁(ν) > 0
    return mark_positive(law, "⊠ of two laws on [0, ∞) with positive means")


boxtimes = free_multiplicative_convolution


def free_multiplicative_power(mu, t, method=None):
    """Free multiplicative power μ^{⊠t} of a law on [0, ∞), real t ≥ 1: S_{μ^{⊠t}} = S_μ^t.

    For an integer t it is μ ⊠ … ⊠ μ (t times).  Belinschi & Bercovici 2005; subordination
    in the spectral variable: Ω (Ω − F_μ(Ω))^{t−1} = z, G(z) = Ω G_μ(Ω)/z.

    Parameters
    ----------
    mu : Law on [0, ∞) with positive mean
    t : float ≥ 1
    method : {None, "algebraic", "subordination"}
        ``"algebraic"`` (default for an :class:`AlgebraicLaw` and an integer t): exact
        elimination Res_{S₁}(Σ_μ(w, S₁), S − S₁^t).  Non-integer t has no exact route here
        (see :mod:`freeattn.algebraic.eliminations`) and defaults to ``"subordination"``.

    Returns
    -------
    Law
        Mass 1; the atom at 0 is μ({0}).  ``mu`` itself when t = 1.

    Raises
    ------
    ParameterError
        If ``t`` is not a finite number ≥ 1, ``mu`` is not a positive law, or for a bad
        ``method`` (also "algebraic" with a non-integer t).
    """
    mu_p, t_p = MultiplicativePower.parameters
    mu_p.validate(mu)
    t = t_p.validate(t)
    integer = Fraction(float(t)).denominator == 1
    method = choose_method(method, (mu,), algebraic_possible=integer,
                           why=f"t = {t!r} is not an integer")
    check_positive_law("mu", mu)
    if t == 1:  # S_μ^1 = S_μ; the subordination equation degenerates to Ω = z (no edges)
        return mu
    name = f"({mu.name})^⊠{fmt(t)}"
    if method == "algebraic":
        P, v = _fresh_copy(mu)
        law = AlgebraicLaw(boxtimes_power_polynomial(P, int(t)), v, name=name)
        law.atom_at_zero = AtomAtZero("max", (mu,))  # μ^{⊠t}({0}) = μ({0})
        return law
    return MultiplicativePower(mu, t, name=name)
