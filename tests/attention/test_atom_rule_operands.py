"""The exact atom at 0 of a ⊠ built on attention laws, read from its operands' own rules."""
import freeattn.algebraic.numeric as numeric
from freeattn import attention_law
from freeattn.convolution import free_multiplicative_convolution as boxtimes
from freeattn.laws import FreePoisson, MarchenkoPastur


def test_layer_atom_reads_the_operands_rules(monkeypatch):
    """(ν ⊠ MP_2) ⊠ π_{0.8}: the atom at 0 is max(ν({0}), MP_2({0}), π_{0.8}({0})) =
    max(0, 1/2, 1/5) = 1/2 (Belinschi 2003, twice).  The rule of the outer ⊠ asks each operand
    for its atom at 0; an operand with a rule of its own answers by it (ν ⊠ MP_2 by max, ν by
    its exact 0), so that no operand's branch is continued (ν's 50-digit branch data cost 0.2
    of a 0.9 s cold build)."""
    nu = attention_law(1.0, 1.5, 12)
    built = []
    orig = numeric.BranchData.__init__

    def spy(self, num, P, *args, **kw):
        built.append(P)
        return orig(self, num, P, *args, **kw)

    monkeypatch.setattr(numeric.BranchData, "__init__", spy)
    law = boxtimes(boxtimes(nu, MarchenkoPastur(2)), FreePoisson(0.8))
    atoms = law.atoms()
    assert len(atoms) == 1 and atoms[0][0] == 0.0 and abs(atoms[0][1] - 0.5) <= 1e-15
    assert not any(P == nu._factor for P in built)
    assert nu._exact_atom_at_zero(30) == 0
    # the same law's mass sums to 1 with that atom
    (a, b), = law.support()
    assert abs(float(law.cdf(b * (1 + 1e-9))) - 1) == 0
