"""Breakpoints of laws whose exact discriminant in their symbolic parameters is too costly
(partial key–value correlation at a non-dyadic ρ): the discriminant at the parameter values
rounded to the working precision (discriminant.discriminant_near), verified root by root, gives
the breakpoints of the exact route; a root that fails the verification sends the law to the
exact route.  Speed itself is measured by benchmarks/bench_coldstart.py."""
import mpmath
import pytest

from freeattn import attention_law
from freeattn.algebraic import numeric
from freeattn.algebraic import discriminant as dm
from freeattn.attention.partial_kv import partial_kv_output_law


def _breakpoints(law, dps, route):
    bd = numeric.BranchData(law._num, law._reduced, dps)
    assert bd.route == route
    return bd.breakpoints, bd.poles


def _same(a, b, digits):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        assert abs(u - v) <= mpmath.mpf(10) ** -digits * (1 + abs(v))


@pytest.mark.parametrize("make", [
    lambda: partial_kv_output_law(1.0, 2, 1.0, 1.5, 0.5),
    lambda: partial_kv_output_law(0.7, 3, 0.5, 2.0, 0.25),   # atom at 0 (γ_K < 1)
    lambda: attention_law(0.3, 0.1, 8),                      # two support intervals
], ids=["pkv", "pkv-atom", "attention"])
@pytest.mark.parametrize("dps", [15, 30])
def test_near_route_gives_the_exact_breakpoints(monkeypatch, make, dps):
    law = make()
    monkeypatch.setattr(numeric, "DISCRIMINANT_EXACT_COST", float("inf"))  # the exact route
    exact_pts, exact_poles = _breakpoints(law, dps, "exact")
    monkeypatch.setattr(numeric, "DISCRIMINANT_EXACT_COST", 0)
    near_pts, near_poles = _breakpoints(law, dps, "near")
    _same(near_pts, exact_pts, dps + 3)
    assert len(near_poles) == len(exact_poles)
    _same(sorted(near_poles), sorted(exact_poles), dps + 3)


def test_a_root_that_is_no_collision_sends_the_law_to_the_exact_route(monkeypatch):
    law = partial_kv_output_law(1.0, 2, 1.0, 1.5, 0.5)
    monkeypatch.setattr(numeric, "DISCRIMINANT_EXACT_COST", float("inf"))  # the exact route
    exact_pts, _ = _breakpoints(law, 15, "exact")
    real = dm.discriminant_near

    def corrupted(P, values, prec):  # one disc factor with a spurious real root at 1/3
        out = list(real(P, values, prec))
        coeffs, kind = next((c, k) for c, k in out if k == "disc")
        out.append(([-1, 3], "disc"))
        return tuple(out)

    monkeypatch.setattr(numeric, "DISCRIMINANT_EXACT_COST", 0)
    monkeypatch.setattr(numeric, "discriminant_near", corrupted)
    pts, _ = _breakpoints(law, 15, "exact")
    _same(pts, exact_pts, 18)


def test_non_dyadic_rho_takes_the_near_route():
    """ρ = 0.6 is a 53-bit binary rational: the exact discriminant in (κ, scale) takes 20–30 s
    (discriminant_cost 2.8e8); the law builds from the near route with mass one."""
    law = partial_kv_output_law(1.0, 2, 1.0, 1.5, 0.6)
    assert dm.discriminant_cost(law._reduced) > numeric.DISCRIMINANT_EXACT_COST
    assert law._branch(None).route == "near"
    (a, b), = law.support()  # runs the mass self-check (atoms + intervals = 1)
    assert a == 0.0 and 30 < b < 40


@pytest.mark.slow
def test_non_dyadic_rho_near_route_equals_the_exact_one(monkeypatch):
    law = partial_kv_output_law(1.0, 2, 1.0, 1.5, 0.6)
    near_pts, _ = _breakpoints(law, 30, "near")
    monkeypatch.setattr(numeric, "DISCRIMINANT_EXACT_COST", float("inf"))
    exact_pts, _ = _breakpoints(law, 30, "exact")
    _same(near_pts, exact_pts, 33)


@pytest.mark.parametrize("args", [(1.0, 2, 1.0, 0.6, 1.5), (0.7, 3, 0.5, 0.25, None)])
def test_layer_elimination_in_flint_equals_the_sympy_route(monkeypatch, args):
    """The S-relation substitutions of the layer law (π(μ̂, γ_K) ⊠ π_{γ_O}) done in FLINT
    from the coefficient strings give sympy's polynomial (the same expression, the same
    values)."""
    import sympy as sp

    from freeattn.attention import partial_kv as pk

    beta, h, gk, rho, go = args
    args = (beta, h, gk, pk.check_rho(rho), go)
    P1, v1, c1 = pk._with_free_poisson(*args)
    monkeypatch.setenv("FREEATTN_FLINT", "0")
    P2, v2, c2 = pk._with_free_poisson(*args)
    (k1, x1), = v1.items()
    (k2, x2), = v2.items()
    assert x1 == x2 and c1 == c2
    assert sp.expand(P1.xreplace({k1: k2})) == P2


def test_second_law_of_a_structure_gets_the_first_ones_breakpoints():
    """The second law of a structure takes the symbolic route (the factor with every
    parameter symbolic, a scan's route); for a partial K/V layer law that discriminant is
    beyond the exact cost limit, so it is taken at the values too: the same breakpoints and
    atoms as the first law, mass one."""
    first = partial_kv_output_law(1.0, 2, 0.5, 2.0, 0.6)
    first.support()
    second = partial_kv_output_law(1.0, 2, 0.5, 2.0, 0.6)
    assert not first._symbolic_route and second._symbolic_route
    assert second._branch(None).route == "near"
    _same(second._branch(None).breakpoints, first._branch(None).breakpoints, 28)
    # support() runs the mass self-check (atoms + intervals = 1 to 1e-9)
    assert second.support() == first.support() and second.atoms() == first.atoms()
