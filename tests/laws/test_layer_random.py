"""Full-layer laws ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O} at random parameter points (small γ's, an atom
at 0): mass, atom, moments and density against independent values.

The float64 branch continuation (``NumericPolynomial.track`` in algebraic/numeric.py) used to
step by up to a factor e² in h and accept any root unambiguously nearest its predictor; where
the branch bends on a scale shorter than the step (G ~ m/(z − a) from the atom at 0, with
h ~ x) it landed on another sheet.  The interval classification then took a support interval
for a gap (mha_output_law(0.4683, 10, 0.2024, 0.4281, 0.5555): mass 0.8039), an edge anchor
took another sheet's double root (mha_output_law(0.5874, 6, 0.5305, 0.5395, 0.8360): density
8.77 for 0.570 at x = 0.00304, mass 1.0010), or a gap on the negative axis came out as support
(mha_output_law(1.7093, 13, 2.1210, 0.3661, 0.7075): mass 1.19).

Right values, each computed independently of the algebraic route under test:
* atom at 0: (μ ⊠ η)({0}) = max{μ({0}), η({0})} (Belinschi 2003) with ν_{∞,h}({0}) = 0,
  MP_{1/γ_V}({0}) = 1 − min{1, γ_V}, π_{γ_O}({0}) = 1 − min{1, γ_O};
* m₁ = γ_O θ₁ and m₂/m₁² − 1 = 1/h + 1/γ_V + 1/γ_O + θ₂²/(γ_K θ₁²) (Hayase & Karakida 2026,
  eq. (C.16)), θ₁ = e^{β²} − 1, θ₂ = β²; m₁, m₂ by quadrature of the law (atoms included);
* density: the subordination route ν_{∞,h} ⊠ (MP_{1/γ_V} ⊠ π_{γ_O}) (Biane 1998; Belinschi &
  Bercovici 2007; method="subordination"), a fixed point on the axis instead of a root of the
  resultant polynomial.
"""
import functools
import math

import numpy as np
import pytest

from freeattn.attention.multi_head import mha_output_law
from freeattn.attention.single_head import attention_law
from freeattn.convolution import free_multiplicative_convolution
from freeattn.laws.marchenko_pastur import FreePoisson, MarchenkoPastur

# (β, h, γ_K, γ_V, γ_O) and points x where the density was wrong (or zero) before
POINTS = [
    ((0.4683, 10, 0.2024, 0.4281, 0.5555), [0.005, 0.0169, 0.03, 0.5]),
    ((0.5874, 6, 0.5305, 0.5395, 0.8360), [0.00304, 0.0031, 0.01, 0.5]),
    ((1.7092969042040862, 13, 2.12102335761442, 0.3660983048064032, 0.7074731341153215),
     [1.3, 2.0, 50.0]),
]


@functools.lru_cache(maxsize=None)
def _law(params):
    beta, heads, gamma_k, gamma_v, gamma_o = params
    return mha_output_law(beta, heads, gamma_k, gamma_v, gamma_o)


def _exact_m1_m2(beta, heads, gamma_k, gamma_v, gamma_o):
    t1, t2 = math.expm1(beta**2), beta**2
    m1 = gamma_o * t1
    return m1, m1**2 * (1 + 1 / heads + 1 / gamma_v + 1 / gamma_o + t2**2 / (gamma_k * t1**2))


@pytest.mark.parametrize("params, xs", POINTS)
def test_layer_mass_atom_and_moments(params, xs):
    beta, heads, gamma_k, gamma_v, gamma_o = params
    law = _law(params)
    support = law.support()  # raises ArithmeticError unless atoms + intervals carry mass 1
    assert support[0][0] > 0.0
    atoms = law.atoms()
    assert [a for a, _ in atoms] == [0.0]
    assert abs(atoms[0][1] - (1 - min(1.0, gamma_v, gamma_o))) <= 1e-12
    # the cdf: the atom at 0, then all the mass by the top of the support
    lo, hi = support[0][0], support[-1][1]
    assert abs(law.cdf(0.5 * lo) - atoms[0][1]) <= 1e-12
    assert abs(law.cdf(hi) - 1.0) <= 1e-9
    m1, m2 = _exact_m1_m2(beta, heads, gamma_k, gamma_v, gamma_o)
    assert abs(law.moment(1) / m1 - 1) <= 1e-12
    assert abs(law.moment(2) / m2 - 1) <= 1e-12
    assert abs(law.moment(1, method="quad") / m1 - 1) <= 1e-9
    assert abs(law.moment(2, method="quad") / m2 - 1) <= 1e-9


@pytest.mark.parametrize("params, xs", POINTS)
def test_layer_density_against_subordination(params, xs):
    beta, heads, gamma_k, gamma_v, gamma_o = params
    law = _law(params)
    values = free_multiplicative_convolution(MarchenkoPastur(1 / gamma_v), FreePoisson(gamma_o))
    sub = free_multiplicative_convolution(attention_law(beta, gamma_k, heads), values,
                                          method="subordination")
    x = np.array(xs)
    ref = -sub.cauchy_transform(x).imag / math.pi
    assert np.all(ref > 0)
    np.testing.assert_allclose(law.pdf(x), ref, rtol=1e-8)


def test_layer_support_starts_at_the_discriminant_edge():
    # the gap (0.000401, 0.0334) of the first point was support: the density there is positive
    law = _law(POINTS[0][0])
    (a, b), = law.support()
    assert abs(a - 0.000401001302304) <= 1e-12 and abs(b - 2.94399060825) <= 1e-10
    assert np.all(law.pdf(np.array([0.0005, 0.001, 0.0169])) > 1.0)
