"""The cold-start shortcuts of the algebraic route give the same answers as the routes they
replace (issue 8 item 5); speed itself is measured by benchmarks/bench_coldstart.py."""
from collections import OrderedDict

import mpmath
import pytest
import numpy as np
import sympy as sp

from freeattn import attention_law
from freeattn.algebraic import discriminant as dm
from freeattn.algebraic import polynomial as pm
from freeattn.algebraic.numeric import NumericPolynomial
from freeattn.convolution import free_multiplicative_convolution as boxtimes
from freeattn.convolution._dispatch import hull
from freeattn.laws import MarchenkoPastur
from freeattn.laws.algebraic import AlgebraicLaw, _is_expanded


def test_first_law_of_a_structure_uses_the_substituted_discriminant_then_the_symbolic_one(
        monkeypatch):
    monkeypatch.setattr(dm, "_SEEN", OrderedDict())
    monkeypatch.setattr(pm, "_FLINT_CACHE", OrderedDict())
    calls = []
    real = dm.discriminant_tables
    monkeypatch.setattr("freeattn.algebraic.numeric.discriminant_tables",
                        lambda P: calls.append(P) or real(P))
    first = attention_law(0.7, 0.4, 3)
    first.support()
    # one law: the discriminant of its substituted polynomial (rational values in), not the
    # all-parameter symbolic one
    assert first._reduced in calls and first._factor not in calls
    del calls[:]
    second = attention_law(0.8, 0.6, 3)
    second.support()
    assert second._factor in calls  # the structure recurs: the symbolic discriminant
    # both routes give the same breakpoints (30 digits)
    for law, args in ((first, (0.7, 0.4, 3)), (second, (0.8, 0.6, 3))):
        other = attention_law(*args)
        other.__dict__["_symbolic_discriminant_ok"] = law is first
        a, b = law._branch(30).breakpoints, other._branch(30).breakpoints
        assert len(a) == len(b)
        for u, v in zip(a, b):
            assert abs(u - v) <= mpmath.mpf(10) ** -25 * (1 + abs(u))


def test_convolution_hull_from_breakpoints_equals_support_and_atoms():
    # MP(2) ⊠ MP(3) has the atom 2/3 at 0 (Belinschi 2003: max of the two masses)
    law = boxtimes(MarchenkoPastur(2), MarchenkoPastur(3))
    lo, hi = hull(law)
    assert "_cdf_tables" not in law.__dict__  # no mass-check tables for the domain check
    pts = [v for ab in law.support() for v in ab] + [a for a, _ in law.atoms()]
    assert (lo, hi) == (min(pts), max(pts))
    assert lo == 0.0 and abs(dict(law.atoms())[0.0] - 2 / 3) <= 1e-12
    # an affine image (ρ_t of the attention law): the image of the source's hull
    rho = MarchenkoPastur(2).affine(sp.exp(sp.Rational(1, 4)) - sp.Rational(5, 4), sp.Rational(1, 4))
    lo, hi = hull(rho)
    assert "_branch_cache" not in rho.__dict__  # not even breakpoints
    pts = [v for ab in rho.support() for v in ab] + [a for a, _ in rho.atoms()]
    assert abs(lo - min(pts)) <= 1e-14 and abs(hi - max(pts)) <= 1e-14 * max(pts)
    neg = MarchenkoPastur(2).affine(0, -1)  # a negative scale swaps the ends
    assert hull(neg) == (-hull(MarchenkoPastur(2))[1], -hull(MarchenkoPastur(2))[0])
    att = attention_law(1.0, 0.5, 3)
    lo, hi = hull(att)
    assert (lo, hi) == (att.support()[0][0], att.support()[-1][1])


def test_is_expanded_agrees_with_sympy_expand():
    x, y = sp.symbols("x y")
    for e in [x + y, (x + y) ** 2, x * (x + y), 2 * x**2 * y - 3, x / 3, 1 / x,
              sp.exp(x) + 1, sp.sqrt(2) * x, x**2 * (y + 1), sp.Integer(4)]:
        if _is_expanded(e):
            assert sp.expand(e) == e
    assert not _is_expanded((x + y) ** 2) and _is_expanded(2 * x**2 * y - 3)
    P = (pm.G * pm.z - 1) * (pm.G + 1)  # unexpanded input still gets expanded
    assert AlgebraicLaw(P).symbolic_polynomial == sp.expand(P)


def test_numeric_coefficients_term_route_equals_lambdify_route():
    law = boxtimes(attention_law(1.0, 1.5, 4), MarchenkoPastur(2 / 3))
    for P, values in ((law._reduced, law._num.values), (law._factor, law.values)):
        new = NumericPolynomial(P, values)
        assert new.__dict__.get("_rows") is not None
        old = NumericPolynomial.__new__(NumericPolynomial)
        old.values, old._params, old._mp_cache = new.values, new._params, {}
        old._init_sympy(P)
        assert (old.deg, old.deg_z) == (new.deg, new.deg_z)
        with mpmath.workdps(50):
            a, b = new.coefficients_mp(), old.coefficients_mp()
            for ra, rb in zip(a, b):
                for u, v in zip(ra, rb):
                    assert abs(u - v) <= mpmath.mpf(10) ** -44 * (abs(v) + mpmath.mpf(10) ** -300)


def test_edge_path_gives_the_per_point_tracked_branch(monkeypatch):
    """Zone points next to a square-root end take the root nearest one continued path
    (_edge_path) instead of a continuation from far above per point: same cdf and pdf."""
    args = (0.3, 0.1, 8)  # two support intervals, four square-root ends
    fast = attention_law(*args)
    fast.support()
    assert all(e.get("path") is not None for t in fast._tables for e in t["edges"]
               if not e.get("pole") and "path" in e)
    monkeypatch.setattr(AlgebraicLaw, "_edge_path", lambda self, t, edge, sh: None)
    slow = attention_law(*args)
    slow.support()
    for tf, ts in zip(fast._cdf_tables, slow._cdf_tables):
        assert np.array_equal(tf["panels"], ts["panels"])
        assert np.max(np.abs(tf["cum"] - ts["cum"])) <= 1e-15
    pts = []
    for a, b in fast.support():
        w = b - a
        pts += list(a + w * np.geomspace(1e-10, 1.4e-3, 15)) + list(b - w * np.geomspace(1e-10, 1.4e-3, 15))
    x = np.array(pts)
    assert np.max(np.abs(fast.pdf(x) - slow.pdf(x)) / slow.pdf(x)) <= 1e-12



def test_inner_end_path_gives_the_general_route_branch(monkeypatch):
    """Beyond the table's first node next to an end shared with the next support interval
    (ν_{∞,12} ⊠ MP_{2/3}: two tables meeting inside the support), Newton from the continued
    path (_inner_path) instead of companion eigenvalues: same cdf tables and pdf."""
    def law():
        return boxtimes(attention_law(1.0, 1.5, 12), MarchenkoPastur(2 / 3))

    fast = law()
    fast.support()
    assert len(fast._tables) == 2 and fast._tables[0]["b"] == fast._tables[1]["a"]
    fast._cdf_tables  # (the mass check takes the tables' own masses: no path needed there)
    assert fast._tables[0]["inner_path_b"] is not None
    monkeypatch.setattr(AlgebraicLaw, "_inner_path", lambda self, t, side, sh: None)
    monkeypatch.setattr(AlgebraicLaw, "_edge_path", lambda self, t, edge, sh: None)
    slow = law()
    slow.support()
    for tf, ts in zip(fast._cdf_tables, slow._cdf_tables):
        assert np.array_equal(tf["panels"], ts["panels"])
        assert np.max(np.abs(tf["cum"] - ts["cum"])) <= 1e-15
    e = fast._tables[0]["b"]
    x = np.concatenate([e - e * np.geomspace(1e-15, 1e-4, 12), e + e * np.geomspace(1e-15, 1e-4, 12)])
    assert np.max(np.abs(fast.pdf(x) - slow.pdf(x)) / slow.pdf(x)) <= 1e-12


def test_laws_marked_positive_by_construction_are_positive():
    """A law that skips ⊠'s domain check (on [0, ∞) with positive mean by construction) has
    that property: its hull from breakpoints starts at ≥ 0 and its exact mean is > 0; a law
    built by a map that can go negative is not marked."""
    from freeattn.attention.tied import kv_law, kv_values_law
    from freeattn.convolution import compound_free_poisson
    from freeattn.convolution._dispatch import is_positive_by_construction
    from freeattn.laws import FreePoisson

    att = attention_law(0.8, 0.5, 3)
    values = boxtimes(att, MarchenkoPastur(2 / 3))
    rho = MarchenkoPastur(2).affine(sp.exp(sp.Rational(1, 4)) - sp.Rational(5, 4), sp.Rational(1, 4))
    laws = [att, values, boxtimes(values, FreePoisson(1.5)), rho,
            compound_free_poisson(kv_law(1.0, 4, 2.0), 4), kv_values_law(1.0, 4, 2.0),
            kv_values_law(0.7, 8, 2.0), values.dilate(sp.Rational(2, 3)), MarchenkoPastur(3)]
    for law in laws:
        assert is_positive_by_construction(law), law.name
        lo, _ = hull(law)
        assert lo >= -1e-12 * (1 + abs(lo)) and float(law.exact_moments(1)[0]) > 0, law.name
    for law in (MarchenkoPastur(2).affine(-1, 1), MarchenkoPastur(2).affine(0, -1),
                rho.affine(-1, 1)):
        assert not is_positive_by_construction(law)
        assert hull(law)[0] < 0


def test_negative_law_still_refused_by_the_domain_check():
    from freeattn._validation import ParameterError

    neg = MarchenkoPastur(2).affine(-1, 1)
    with pytest.raises(ParameterError, match="mu must be supported on"):
        boxtimes(neg, MarchenkoPastur(2))
