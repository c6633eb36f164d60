"""Free multiplicative convolution ⊠ and compound free Poisson laws of algebraic laws."""
from __future__ import annotations


from .._validation import positive
from ..algebraic.polynomial import boxtimes_polynomial, compound_free_poisson_polynomial
from ..laws._params import exact, fresh
from ..laws.algebraic import AlgebraicLaw

__all__ = ["free_multiplicative_convolution", "boxtimes", "compound_free_poisson"]


def _fresh_copy(law):
    """The law's symbolic polynomial and values with parameter symbols renamed apart."""
    ren = {s: fresh(s.name.rsplit("_", 1)[0]) for s in law.values}
    P = law.symbolic_polynomial.xreplace(ren)
    return P, {ren[s]: v for s, v in law.values.items()}


def _check_algebraic(name, law):
    if not isinstance(law, AlgebraicLaw):
        raise TypeError(f"{name} must be an AlgebraicLaw, got {type(law).__name__}")


def _check_nonnegative(name, law):
    m1 = law.mean()
    if not m1 > 0:
        raise ValueError(f"{name} must have a positive mean for the S-transform, got {m1}")
    supp = law.support()
    lo = min([a for a, _ in supp] + [a for a, _ in law.atoms()])
    if lo < -1e-12 * (1 + abs(lo)):
        raise ValueError(f"{name} must be supported on [0, ∞); its support starts at {lo}")


def free_multiplicative_convolution(mu, nu):
    """Free multiplicative convolution μ ⊠ ν of two laws on [0, ∞) with positive means.

    The law of a^{1/2} b a^{1/2} for free positive a ~ μ, b ~ ν; computed by the polynomial
    method: S_{μ⊠ν} = S_μ S_ν (Voiculescu), eliminated by a resultant (Rao & Edelman 2008).

    Parameters
    ----------
    mu, nu : AlgebraicLaw

    Returns
    -------
    AlgebraicLaw

    Raises
    ------
    TypeError
        If an argument is not an algebraic law.
    ValueError
        If an argument has non-positive mean or mass on (−∞, 0).

    Notes
    -----
    S-transform convention: ψ(z) = Σ_{q≥1} m_q z^q, χ = ψ^{-1}, S(w) = (1 + w)/w · χ(w),
    S(0) = 1/m₁ (Hayase & Karakida 2026, eqs. (C.1)–(C.3)).
    """
    for name, law in (("mu", mu), ("nu", nu)):
        _check_algebraic(name, law)
        _check_nonnegative(name, law)
    P1, v1 = _fresh_copy(mu)
    P2, v2 = _fresh_copy(nu)
    P = boxtimes_polynomial(P1, P2)
    return AlgebraicLaw(P, {**v1, **v2}, name=f"({mu.name}) ⊠ ({nu.name})")


boxtimes = free_multiplicative_convolution


def compound_free_poisson(mu, rate):
    """Compound free Poisson law π(μ, t) with jump law μ and rate t > 0.

    Free cumulants κ_q = t m_q(μ); S_{π(μ,t)}(w) = S_μ(w/t)/(t + w)
    (Hayase & Karakida 2026, eq. (C.4); Nica & Speicher 2006, Prop. 12.11).

    Parameters
    ----------
    mu : AlgebraicLaw
        Jump law, on [0, ∞) with positive mean.
    rate : float > 0

    Returns
    -------
    AlgebraicLaw

    Raises
    ------
    ValueError
        If ``rate`` is not a finite number > 0 or ``mu`` is not a positive law.
    """
    positive("rate", rate)
    _check_algebraic("mu", mu)
    _check_nonnegative("mu", mu)
    P1, v1 = _fresh_copy(mu)
    t = fresh("rate")
    P = compound_free_poisson_polynomial(P1, t)
    return AlgebraicLaw(P, {**v1, t: exact(rate)}, name=f"π({mu.name}, {rate:g})")
