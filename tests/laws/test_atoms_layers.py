"""Atoms at 0 of the full-layer laws and the tables next to them (always-on; the random sweeps
are in test_layer_random_slow.py and tests/attention/test_partial_kv.py).

References: (μ ⊠ ν)({0}) = max(μ({0}), ν({0})) for laws on [0, ∞) (Belinschi 2003), so the
layer law ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O} (Hayase & Karakida 2026, eq. (C.15)) has the atom
1 − min{1, γ_V, γ_O} at 0; its mean is γ_O θ₁ (eq. (C.16)).
"""
import math
import pickle

import mpmath
import numpy as np
import pytest

from freeattn.attention import _constructions as C
from freeattn.attention.domains import BETA, GAMMA_K, GAMMA_O, GAMMA_V, exact_value
from freeattn.attention.multi_head import mha_output_law
from freeattn.laws.algebraic import AtomAtZero


def _atom0(law):
    return dict(law.atoms()).get(0.0, 0.0)


def test_shared_end_of_two_support_intervals_keeps_its_mass():
    """h = 1 layer whose support intervals meet at e = 0.0022228 (a branch point of other
    sheets): the path toward e from the right took 5 fixed steps a decade and was dropped
    (first step's next root 27.4 away against a move of 7.4), the density right of e fell on a
    real root (0 instead of 15.196) and the mass was 1 − 1.1e-7."""
    beta, h, gk, gv, go = (1.0516125548525252, 1, 0.43027556854694415, 0.906090972203409,
                           1.3458874645900618)
    law = mha_output_law(beta, h, gk, gv, go)
    law.support()  # the law's own mass check (1e-9)
    assert _atom0(law) == pytest.approx(1 - gv, abs=1e-12)
    bd = law._branch(None)
    e = next(float(b) for i, b in enumerate(bd.breakpoints)
             if bd.intervals[i]["support"] and bd.intervals[i + 1]["support"])
    assert e == pytest.approx(0.0022227998596, rel=1e-9)
    # the density is continuous across e: both sides equal the value at e to the order of
    # the offset (left side from the other table, right side the one that was lost)
    left, right, tiny = law.pdf(np.array([e * (1 - 1e-6), e * (1 + 1e-6), e * (1 + 1e-9)]))
    assert right == pytest.approx(left, rel=1e-5) and tiny == pytest.approx(left, rel=1e-5)
    assert left == pytest.approx(15.19593518, rel=1e-8)
    # the intervals' masses add up to γ_V (1 minus the exact atom) to 1e-12
    assert sum(law._quick_interval_masses) == pytest.approx(gv, abs=1e-12)
    assert float(law.cdf(law.support()[-1][1])) == pytest.approx(1.0, abs=1e-12)
    assert law.moment(1, method="quad") == pytest.approx(go * math.expm1(beta**2), rel=1e-12)


def test_nearly_equal_atoms_at_zero_decided_by_continuation():
    """γ_V = 0.3307 ≈ γ_O = 0.3346: candidates 1 − γ_V = 0.669298 and 1 − γ_O = 0.665395 at 0.
    The continuation's heights were scaled by the nearest breakpoint (−1.5e-8, between two
    gaps) and never reached the axis ("ambiguous"); scaled by the nearest support end (1.4e-6)
    iεG reads 0.6692983."""
    beta, h, gk, gv, go = (0.2734357440296495, 14, 1.7283758959353133, 0.3307018170651536,
                           0.33460452498974197)
    law = mha_output_law(beta, h, gk, gv, go)
    del law.atom_at_zero  # the numerics alone decide here
    assert _atom0(law) == pytest.approx(1 - gv, abs=1e-12)
    # (mass 1 and moments at this point: test_layer_random_slow.py, KNOWN)


@pytest.fixture(scope="module")
def close_atoms():
    """γ_V = 0.5005, γ_O = 0.5: candidate masses 0.4995 and 0.5 at 0, too close for float64.
    Built from the construction: the public builder refuses these ratios (their gap at 0 is
    not resolved in float64, tests/attention/test_layer_corners.py); the atom rule is the
    operation's and is tested here."""
    return C.independent_output(exact_value(BETA, 1.0), 2, exact_value(GAMMA_K, 1.5),
                                exact_value(GAMMA_V, 0.5005), exact_value(GAMMA_O, 0.5))


def test_atom_at_zero_from_the_operation(close_atoms):
    law = close_atoms
    assert isinstance(law.atom_at_zero, AtomAtZero)
    bd = law._branch(None)
    with mpmath.workdps(30):
        assert law._pole_mass(mpmath.mpf(0), bd) == mpmath.mpf(1) / 2
        rule = law.__dict__.pop("atom_at_zero")
        try:
            with pytest.raises(ArithmeticError, match="ambiguous"):
                law._pole_mass(mpmath.mpf(0), bd)
            # an exact mass that is none of the Newton-polygon candidates is refused
            law.atom_at_zero = AtomAtZero("value", value=0.3)
            with pytest.raises(ArithmeticError, match="none of the Newton-polygon candidates"):
                law._pole_mass(mpmath.mpf(0), bd)
        finally:
            law.atom_at_zero = rule


def test_atom_rule_pickles_and_evaluates(close_atoms):
    rule = pickle.loads(pickle.dumps(close_atoms.atom_at_zero))
    assert rule.kind == "max"
    assert rule.mass(30) == mpmath.mpf(1) / 2  # max(0, 1 − 0.5): π_{1/2} carries the atom
    assert AtomAtZero("compound", (close_atoms,), 0.25).mass(20) == pytest.approx(
        1 - 0.25 * 0.5, abs=1e-18)
    with pytest.raises(ValueError):
        AtomAtZero("sum")
