"""A new parameter point of a known structure: the attention law from its cached polynomial,
and the mass self-check's own quadrature (issue 8, item 6)."""
import math

import numpy as np
import pytest
import sympy as sp

from freeattn import attention_law
from freeattn.attention import single_head
from freeattn.laws import MarchenkoPastur


def _by_creation(symbols):
    return sorted(symbols, key=lambda s: int(s.name.rsplit("_", 1)[1]))


@pytest.mark.parametrize("beta, gamma_k, heads", [
    (1.0, 1.0, 1), (0.0167, 0.0264, 1), (0.327, 0.00367, 10000), (2.9, 40.0, 12), (1.5, 2.5, 3),
])
def test_attention_law_from_structure_equals_the_exact_build(beta, gamma_k, heads):
    """Same polynomial (up to the symbols' names), same exact values, same support and pdf as
    ρ_{γ_K} ⊠ MP_{1/h} built by the affine map and the resultant at that point."""
    fast = attention_law(beta, gamma_k, heads)
    slow = single_head._exact_build(beta, gamma_k, heads)
    ren = dict(zip(_by_creation(fast.values), _by_creation(slow.values)))
    assert len(ren) == 4
    assert sp.expand(fast.symbolic_polynomial.xreplace(ren) - slow.symbolic_polynomial) == 0
    assert all(fast.values[s] == slow.values[ren[s]] for s in fast.values)
    assert fast.support() == slow.support()
    a, b = fast.support()[0]
    x = np.linspace(a, b, 7)[1:-1]
    assert np.array_equal(fast.pdf(x), slow.pdf(x))


def test_laws_of_one_structure_do_not_share_symbols():
    """Each law has its own parameter symbols (they combine by ⊠ without clashing)."""
    a, b = attention_law(0.5, 2.0), attention_law(0.7, 3.0)
    assert not set(a.values) & set(b.values)
    assert math.isclose(a.mean(), math.expm1(0.25), rel_tol=1e-14)
    assert math.isclose(b.mean(), math.expm1(0.49), rel_tol=1e-14)


LAWS = {
    "single": lambda: attention_law(1.0, 1.0),
    "two intervals": lambda: attention_law(1.152, 0.101),
    "small beta": lambda: attention_law(0.05, 0.02),
    "heads": lambda: attention_law(0.3, 5.0, 3),
    "shifted MP": lambda: MarchenkoPastur(sp.Rational(1, 2)).affine(1, 2),
    "MP with atom": lambda: MarchenkoPastur(3),
}


@pytest.mark.parametrize("name", sorted(LAWS))
def test_mass_check_quadrature_matches_the_cdf_tables(name):
    """The mass self-check's coarser quadrature gives each interval's mass to 1e-13 of the
    cdf table's (which refines every panel to 1e-16), far inside the check's 1e-9."""
    law = LAWS[name]()
    law.support()  # runs the check from _quick_interval_masses (no cdf tables yet)
    assert "_cdf_tables" not in law.__dict__
    coarse = law._quick_interval_masses
    fine = [t["cum"][-1] for t in law._cdf_tables]
    assert len(coarse) == len(fine) >= 1
    assert np.allclose(coarse, fine, rtol=0, atol=1e-13)
    atoms = sum(m for _, m in law.atoms())
    assert abs(atoms + sum(coarse) - 1) < 1e-12


def test_mass_check_without_cdf_tables_refuses_a_missing_component():
    """The check from _quick_interval_masses (before any cdf table) raises on lost mass too."""
    law = attention_law(0.8, 1.3)
    law.support()
    law.__dict__["_quick_interval_masses"] = [0.5 * m for m in law._quick_interval_masses]
    law.__dict__.pop("_mass_verdict")  # the check ran on the intact tables: run it again
    with pytest.raises(ArithmeticError, match="mass"):
        law._check_mass()


@pytest.mark.parametrize("name, used", [("single", True), ("two intervals", True),
                                        ("small beta", True), ("heads", False),
                                        ("shifted MP", False)])
def test_mass_from_the_branch_table(name, used, monkeypatch):
    """The trapezoid rule on the branch table's θ-grid (end values extrapolated in θ²) gives
    each interval's mass to 1e-13 where f is even-analytic at both ends (square-root edges,
    the hard edge ρ ~ x^{-1/2} of attention_law(1, 1)); where the two end extrapolations or
    the three trapezoid rules disagree it declines, and the adaptive quadrature it falls back
    to agrees too."""
    from freeattn.laws.algebraic import AlgebraicLaw

    law = LAWS[name]()
    law.support()
    fine = [t["cum"][-1] for t in law._cdf_tables]
    trap = [AlgebraicLaw._table_mass(t) for t in law._tables]
    assert all((m is not None) == used for m in trap)
    if used:
        assert np.allclose(trap, fine, rtol=0, atol=1e-13)
    monkeypatch.setattr(AlgebraicLaw, "_table_mass", staticmethod(lambda t: None))
    law.__dict__.pop("_quick_interval_masses", None)
    assert np.allclose(law._quick_interval_masses, fine, rtol=0, atol=1e-13)
