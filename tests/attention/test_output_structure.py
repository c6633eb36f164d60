"""The full-layer law (C.15) at a new point from its structure's cached polynomial equals the
two-resultant build at that point: same polynomial up to the symbols' names, same exact
values, same support, atoms and pdf (issue 22, a new full-layer point)."""
import numpy as np
import pytest
import sympy as sp

from freeattn import mha_output_law
from freeattn.attention import _constructions as C


def _by_creation(symbols):
    return sorted(symbols, key=lambda s: int(s.name.rsplit("_", 1)[1]))


@pytest.mark.parametrize("beta, heads, gamma_k, gamma_v, gamma_o", [
    (1.0, 12, 1.5, 1.5, 1.5),          # bert-base widths
    (0.7, 4, 0.5, 2.5, 1 / 3),         # an atom at 0 from π_{γ_O}
    (1.3, 1, 2.0, 0.4, 3.0),           # one head, an atom from MP_{1/γ_V}
    (0.45, 8, 0.8, 0.6, 0.6),          # γ_V = γ_O: two candidate masses equal
])
def test_output_law_from_structure_equals_the_exact_build(beta, heads, gamma_k, gamma_v, gamma_o):
    fast = mha_output_law(beta, heads, gamma_k, gamma_v, gamma_o)
    args = [sp.Rational(v) if isinstance(v, float) else v for v in (beta, gamma_k, gamma_v, gamma_o)]
    slow = C.exact_output(args[0], heads, *args[1:])
    ren = dict(zip(_by_creation(fast.values), _by_creation(slow.values)))
    assert len(ren) == 6
    assert sp.expand(fast.symbolic_polynomial.xreplace(ren) - slow.symbolic_polynomial) == 0
    assert all(fast.values[s] == slow.values[ren[s]] for s in fast.values)
    # equal by value (Law._key) to the exact build, before naming
    assert C.independent_output(args[0], heads, *args[1:]) == slow
    assert fast.support() == slow.support()
    assert fast.atoms() == slow.atoms()
    # the atom at 0: 1 − min(1, γ_V, γ_O) (Belinschi 2003, twice), from the law's own rule
    expect = max(0.0, 1 - min(1.0, gamma_v, gamma_o))
    assert float(fast.atom_at_zero.mass(30)) == pytest.approx(expect, abs=1e-15)
    for a, b in fast.support():
        x = np.linspace(a, b, 7)[1:-1]
        assert np.array_equal(fast.pdf(x), slow.pdf(x))


def test_structure_without_identifiable_symbols_builds_exactly(monkeypatch):
    """A template point whose values do not identify the symbols (two equal values) falls
    back to the exact build: the law is still right."""
    monkeypatch.setattr(C, "_STRUCTURES", {})
    monkeypatch.setattr(C, "_TEMPLATE_POINT", (sp.Rational(3, 2), sp.Rational(5, 2),
                                               sp.Rational(5, 2), sp.Rational(2, 5)))
    law = mha_output_law(0.9, 3, 1.2, 1.4, 0.8)
    assert C._STRUCTURES["output"] is None
    ref = C.exact_output(*[sp.Rational(v) for v in (0.9, 3)], *[sp.Rational(v) for v in (1.2, 1.4, 0.8)])
    assert law.support() == ref.support() and law.atoms() == ref.atoms()


def test_one_template_serves_every_head_count():
    """1/h is a parameter symbol of MP_{1/h}: the exact builds of ν_{∞,h} and of the layer at
    h = 1, 2, 12 and 100 meet one structure, so one template (at _TEMPLATE_HEADS) serves all
    (a template per h cost 46 ms a new h of the layer); the parametrised test above compares
    laws at h = 1, 4, 8, 12 from it with their exact builds."""
    from freeattn.algebraic.numeric import structure_key

    b0, g0, v0, o0 = C._TEMPLATE_POINT
    for build in (lambda h: C.exact_build(b0, g0, h), lambda h: C.exact_output(b0, h, g0, v0, o0)):
        keys = {structure_key(build(h)._factor) for h in (1, 2, 12, 100)}
        assert len(keys) == 1 and None not in keys
