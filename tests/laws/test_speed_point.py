"""A new parameter point of a known structure: the attention law from its cached polynomial,
and the mass self-check's own quadrature (issue 8, item 6)."""
import math

import mpmath
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


def test_laws_of_one_structure_combine_without_clashing():
    """Laws of one structure share its polynomial and parameter symbols (one object per
    structure, issue 22), each with its own values; an operation on two of them renames its
    operands apart (convolution._fresh_copy), so a ⊠ b is the ⊠ of the exact builds, whose
    symbols are distinct: same support, atoms and moments (m₁ = m₁(a) m₁(b))."""
    from freeattn.convolution import free_multiplicative_convolution as boxtimes

    a, b = attention_law(0.5, 2.0), attention_law(0.7, 3.0)
    assert math.isclose(a.mean(), math.expm1(0.25), rel_tol=1e-14)
    assert math.isclose(b.mean(), math.expm1(0.49), rel_tol=1e-14)
    fast = boxtimes(a, b)
    slow = boxtimes(single_head._exact_build(0.5, 2.0, 1), single_head._exact_build(0.7, 3.0, 1))
    assert not set(single_head._exact_build(0.5, 2.0, 1).values) & set(
        single_head._exact_build(0.7, 3.0, 1).values)
    assert fast.support() == slow.support() and fast.atoms() == slow.atoms()
    for k in (1, 2, 3):
        assert math.isclose(fast.moment(k), slow.moment(k), rel_tol=1e-13)
    assert math.isclose(fast.mean(), math.expm1(0.25) * math.expm1(0.49), rel_tol=1e-13)


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
                                        ("small beta", True), ("heads", True),
                                        ("shifted MP", True)])
def test_mass_from_the_branch_table(name, used, monkeypatch):
    """The trapezoid rule on the branch table's θ-grid (end values extrapolated in θ²) gives
    each interval's mass to 1e-13 where f is even-analytic at both ends (square-root edges,
    the hard edge ρ ~ x^{-1/2} of attention_law(1, 1)); the adaptive quadrature it falls back
    to (where its error estimate is too large) agrees too."""
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


def _fallback_calls(monkeypatch):
    """Tables integrated by the mass check's adaptive fallback (calls of _gl, by interval)."""
    from freeattn.laws.algebraic import AlgebraicLaw

    calls = []
    orig = AlgebraicLaw._gl

    def counted(self, t, lo, hi, weight=None):
        calls.append((t["a"], t["b"]))
        return orig(self, t, lo, hi, weight)

    monkeypatch.setattr(AlgebraicLaw, "_gl", counted)
    return calls


def test_table_mass_at_a_hard_end_with_noisy_extrapolations(monkeypatch):
    """attention_law(0.355, 1.637): the two end extrapolations at the hard end 0 differ by
    6.7e-14 (more than the former 1e-14 per end) while the table's mass is right to 2e-15;
    the error budget (ends + |M_h − M_2h| ≤ 1e-12) accepts it, and the fallback is not run."""
    from freeattn.laws.algebraic import AlgebraicLaw

    calls = _fallback_calls(monkeypatch)
    law = attention_law(0.355, 1.637)
    law.support()
    assert calls == []
    (t,) = law._tables
    assert abs(AlgebraicLaw._table_mass(t) - 1.0) <= 1e-14  # closed form: no atom, mass 1


def _bert_base():
    """A bert-base layer law built afresh: ``MHAConfig.law`` is cached per configuration, and
    another test's cdf call on the cached law would build the edge expansions this file's
    assertions say the mass check does not need."""
    from freeattn import MHAConfig
    from freeattn.attention.config import _law

    cfg = MHAConfig.preset("bert-base")
    return _law.__wrapped__(cfg, "mha", cfg._exact)


def test_table_mass_at_an_end_shared_by_two_intervals(monkeypatch):
    """The bert-base layer's support [0.0131, 16.06] is two tables meeting at the breakpoint
    c = 7.1336 where the density is smooth (f odd in θ there, f(c) = 0): the trapezoid with
    Gregory's end correction at c gives the right table's mass to 1e-14 of an independent
    value (mpmath.quad of the 20-digit pdf over [c, b]).  The left table's edge sits 0.0089
    from the pole at 0 (its 255 nodes do not resolve it): the halved grids give its mass,
    1 − the right one's (no atoms) to 1e-14.  Neither the fallback nor the 30-digit edge
    expansions run."""
    from freeattn.laws.algebraic import AlgebraicLaw

    calls = _fallback_calls(monkeypatch)
    law = _bert_base()
    law.support()
    left, right = law._tables
    assert right["a_mp"] in right["inner"] and left["b_mp"] in left["inner"]
    assert AlgebraicLaw._table_mass(right) is not None
    assert AlgebraicLaw._table_mass(left) is None
    assert calls == []
    assert not any("edges" in dict.keys(t) for t in law._tables)
    with mpmath.workdps(20):
        ref = mpmath.quad(lambda x: law.pdf(x, dps=20), [right["b_mp"] - 1, right["b_mp"]])
        ref += mpmath.quad(lambda x: law.pdf(x, dps=20), [right["a_mp"], right["b_mp"] - 1])
    q_left, q_right = law._quick_interval_masses
    assert abs(q_right - float(ref)) <= 1e-14
    assert abs(q_left - float(1 - ref)) <= 1e-14


@pytest.mark.parametrize("name", ["single", "two intervals"])
def test_table_mass_refuses_a_wrong_stretch_of_the_table(name, monkeypatch):
    """A stretch of nodes on a wrong value (half the branch's Im G) makes the three trapezoid
    rules disagree: the table declines and the fallback runs; a table wrong everywhere by a
    smooth factor gives a wrong mass that the check refuses."""
    from freeattn.laws.algebraic import AlgebraicLaw

    law = LAWS[name]()
    law.support()
    for t in law._tables:
        bad = dict(t)
        g = t["g"].copy()
        g[100:110] = g[100:110].real + 0.5j * g[100:110].imag
        bad["g"] = g
        assert AlgebraicLaw._table_mass(bad) is None
    calls = _fallback_calls(monkeypatch)
    for t in law._tables:
        dict.__setitem__(t, "g", t["g"].real + 1.01j * t["g"].imag)
    for key in ("_quick_interval_masses", "_mass_verdict"):
        law.__dict__.pop(key, None)  # the check ran on the intact tables: run it again
    with pytest.raises(ArithmeticError, match="mass"):
        law._check_mass()
    assert calls == []  # the wrong tables' own masses were used (and refused)


@pytest.mark.parametrize("beta, gamma_k", [(0.601, 0.38), (0.95, 0.235), (0.331, 1.195),
                                           (0.34, 1.04)])
def test_refined_table_mass_where_the_grid_is_too_coarse(beta, gamma_k, monkeypatch):
    """A sharp density peak in the bulk (θ ≈ 0.4, 0.7: trapezoid rules differing by 2e-4,
    5e-5) or a hard end at 0 whose end value the 255 nodes extrapolate only to 6e-12, 2e-12:
    the grid halved (Newton from the table; next to the ends every root and the interval's
    rule) gives the mass to 1e-14 of the closed form 1, without the adaptive fallback and
    without the 30-digit edge expansions."""
    calls = _fallback_calls(monkeypatch)
    law = attention_law(beta, gamma_k)
    law.support()
    assert calls == []
    (t,) = law._tables
    assert "edges" not in dict.keys(t)
    assert abs(law._quick_interval_masses[0] - 1.0) <= 1e-14  # no atom: mass 1


def test_refined_table_mass_refuses_a_wrong_stretch_of_the_table():
    """The refinement keeps the table's own nodes: a stretch of them on a wrong value (half
    the branch's Im G) still makes the rules disagree in the bulk, and is not reproduced by
    the construction next to an end: it declines."""
    law = attention_law(0.601, 0.38)
    law.support()
    (t,) = law._tables
    good = t["g"]
    for stretch in (slice(100, 110), slice(0, 3), slice(-4, -1)):  # bulk, next to each end
        g = good.copy()
        g[stretch] = g[stretch].real + 0.5j * g[stretch].imag
        dict.__setitem__(t, "g", g)
        assert law._refined_table_mass(t) is None
