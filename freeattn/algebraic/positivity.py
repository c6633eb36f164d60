"""The mark "on [0, ∞) with a positive mean by construction" carried by a law.

⊠, the S-transform and compound free Poisson need laws on [0, ∞) with a positive mean; checking
that from the support costs the law's breakpoints.  Operations that provably keep the property
(μ ⊠ ν of two such laws, π(μ, t) of such a jump law, x ↦ a + b x with a ≥ 0, b > 0, and the
attention laws) record it on the law they build, and a class whose every instance has it (the
Marchenko–Pastur and free Poisson laws) declares it as a class attribute.  Kept here, below the
laws and the convolutions, so that both read and write the same mark without importing each
other.
"""
from __future__ import annotations

__all__ = ["POSITIVE_MARK", "mark_positive", "is_positive_by_construction"]

#: attribute holding the reason (a non-empty string) why a law is on [0, ∞) with m₁ > 0
POSITIVE_MARK = "_positive_by_construction"


def mark_positive(law, why):
    """Record on ``law`` that it is on [0, ∞) with a positive mean by construction, for the
    reason ``why`` (kept for inspection).  Returns ``law``."""
    law.__dict__[POSITIVE_MARK] = why
    return law


def is_positive_by_construction(law):
    """Whether ``law`` carries the mark (on the instance, or declared by its class)."""
    return bool(getattr(law, POSITIVE_MARK, None))
