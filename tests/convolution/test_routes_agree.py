"""method="subordination" equals method="algebraic" on the algebraic laws the package builds
(classic laws and attention laws) under ⊞, ⊠ and compound free Poisson: edges and densities to
1e-10, mass 1."""
import numpy as np
import pytest

from freeattn import (FreePoisson, MarchenkoPastur, Semicircle, attention_law, boxplus, boxtimes,
                      compound_free_poisson)


def _agree(sub, alg):
    s1, s2 = sub.support(), alg.support()
    assert len(s1) == len(s2)
    for (a, b), (a2, b2) in zip(s1, s2):
        assert abs(a - a2) <= 1e-10 * max(1, abs(a2)) and abs(b - b2) <= 1e-10 * max(1, abs(b2))
    x = np.concatenate([np.linspace(a2, b2, 23)[1:-1] for a2, b2 in s2])
    ps = sub.pdf(x)
    np.testing.assert_allclose(ps, alg.pdf(x), rtol=1e-10, atol=1e-10)
    assert np.all(ps >= 0)
    assert [(round(a, 12), round(m, 12)) for a, m in sub.atoms()] == \
        [(round(a, 12), round(m, 12)) for a, m in alg.atoms()]
    assert abs(sub.cdf(1e6) - 1) <= 1e-10


LAWS = {
    "MP(0.5)": lambda: MarchenkoPastur(0.5),
    "MP(2)": lambda: MarchenkoPastur(2),
    "FreePoisson(0.7)": lambda: FreePoisson(0.7),
    "Semicircle(2)": lambda: Semicircle(2),
    "attention(1, 0.5)": lambda: attention_law(1.0, 0.5),
    "attention(0.5, 2, h=4)": lambda: attention_law(0.5, 2.0, heads=4),
}
# The attention laws are left out of the two-route comparison for now: on main their *algebraic*
# ⊞/⊠ results fail AlgebraicLaw's own mass self-check (attention_law(1, 0.5) ⊠ MP(0.5): mass
# 0.99799; ⊞ Semicircle(1): 1.00009), while the subordination route gives mass 1 (tests
# below) — reported to the engine owner.  They agreed to 1e-16 before that merge.
CLASSIC = [k for k in LAWS if not k.startswith("attention")]
POSITIVE = [k for k in CLASSIC if not k.startswith("Semicircle")]


def test_attention_law_boxplus_semicircle_subordination_mass():
    """attention_law(1, 0.5) ⊞ Semicircle(1) by subordination: mass 1 and the first two
    moments of the density (quadrature) equal the exact ones (free cumulants add)."""
    law = boxplus(attention_law(1.0, 0.5), Semicircle(1), method="subordination")
    assert abs(law.cdf(1e6) - 1) <= 1e-10
    m = law.exact_moments(2)
    q1, q2 = law.moment(1, method="quad"), law.moment(2, method="quad")
    assert abs(q1 - float(m[0])) <= 1e-8 * float(m[0]) and abs(q2 - float(m[1])) <= 1e-8 * float(m[1])


@pytest.mark.slow
def test_attention_law_boxtimes_mp_subordination_mass():
    """attention_law(1, 0.5) ⊠ MP(0.5) by subordination: mass 1, exact first moments
    (m₁ = θ₁, m₂ = m₂(ν) + θ₁²/2 for ⊠ MP(1/2)) against the density by quadrature."""
    law = boxtimes(attention_law(1.0, 0.5), MarchenkoPastur(0.5), method="subordination")
    assert abs(law.cdf(1e6) - 1) <= 1e-10
    m = law.exact_moments(2)
    q1, q2 = law.moment(1, method="quad"), law.moment(2, method="quad")
    assert abs(q1 - float(m[0])) <= 1e-8 * float(m[0]) and abs(q2 - float(m[1])) <= 1e-8 * float(m[1])


@pytest.mark.slow
@pytest.mark.parametrize("name", CLASSIC)
def test_boxplus_semicircle(name):
    law = LAWS[name]()
    _agree(boxplus(law, Semicircle(1), method="subordination"), boxplus(law, Semicircle(1)))


@pytest.mark.slow
@pytest.mark.parametrize("name", POSITIVE)
def test_boxtimes_mp(name):
    law = LAWS[name]()
    mp = MarchenkoPastur(0.5)
    _agree(boxtimes(law, mp, method="subordination"), boxtimes(law, mp))


@pytest.mark.slow
@pytest.mark.parametrize("name", POSITIVE)
def test_compound_free_poisson(name):
    law = LAWS[name]()
    _agree(compound_free_poisson(law, 1.5, method="subordination"), compound_free_poisson(law, 1.5))
