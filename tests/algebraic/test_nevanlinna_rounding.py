"""The Nevanlinna test that singles out the Stieltjes branch among the roots of P(·, x + ih)
(Im G < 0, Im(1/G) ≥ h, |G| h ≤ 1) counts a root on the edge of a condition within float64
rounding (``numeric_polynomial.nevanlinna_ok``).

The kind: outside a narrow spectrum far from x, Im(1/G(x + ih)) = h·(1 + O(var/x²)) exceeds
h by h·1e-10 only, below a root's rounding at h ~ 1e-8.  Counted with a relative slack the
branch failed there, another sheet's complex root passed alone, and the tracker started
from it: the outer gap (last breakpoint, ∞) was read as support and ``support()`` raised
IndexError (24 values-law points of the slow property suite, values-37 among them)."""
import numpy as np
import pytest

from freeattn import mha_output_law, values_law
from freeattn.algebraic.numeric_polynomial import NumericPolynomial, nevanlinna_ok

# values-37 of the slow property suite and a second instance of the kind (three heads)
CASES = [
    (0.012642453366963912, 1, 0.00659477874762468, 0.0037075446111751154),
    (0.012642453366963912, 3, 0.00659477874762468, 0.0037075446111751154),
]


def test_a_branch_short_of_the_bound_by_rounding_still_counts():
    """G = 1/(x + ih − m) of a point mass m far from x meets Im(1/G) = h exactly; a root
    rounded to h(1 − 1e-7) below it at h = 1e-8 is still the branch, and a complex root of
    another sheet that passes clearly does not become unique."""
    x, h = 1.0, 1e-8
    branch = 1 / (x + 1j * h - 1e-4)
    branch = complex(branch.real, branch.imag * (1 - 1e-7))  # rounding of the root solve
    other = -1.41 - 2.97j
    g, n = NumericPolynomial.nevanlinna_root(np.array([[branch, other]]), np.array([h]))
    assert n[0] == 2
    assert nevanlinna_ok(np.array([branch]), np.array([h]))[0]
    # a root clearly outside the conditions still fails them
    assert not nevanlinna_ok(np.array([1 / (x + 1j * h) * 0.5 + 0.1j]), np.array([h]))[0]


@pytest.mark.parametrize("beta, heads, gamma_k, gamma_v", CASES)
def test_values_law_narrow_spectrum_support_and_atom(beta, heads, gamma_k, gamma_v):
    """One support interval whose ends match the 30-digit route to 1e-13; the atom at 0 is
    1 − γ_V (Z_V has rank γ_V n: the closed form); atoms + density mass = 1; the cdf is 1
    right of the support and the mean is θ₁ γ_V (θ₁ = e^{β²} − 1, Hayase & Karakida 2026,
    (C.16))."""
    law = values_law(beta, heads, gamma_k, gamma_v)
    (a, b), = law.support()
    (a30, b30), = law.support(dps=30)
    assert abs(a - float(a30)) <= 1e-13 * abs(a) and abs(b - float(b30)) <= 1e-13 * b
    (loc, mass), = law.atoms()
    assert loc == 0.0 and abs(mass - (1 - gamma_v)) <= 1e-15
    assert law.cdf(b * (1 + 1e-9)) == 1.0
    assert abs(law.cdf(b) - 1.0) <= 1e-13
    assert abs(law.mean() - np.expm1(beta ** 2) * gamma_v) <= 1e-12 * np.expm1(beta ** 2) * gamma_v


def test_layer_law_of_the_same_narrow_kind():
    """The layer law built on the same small-β head keeps its outer gap: the cdf is 1 beyond
    the support and the mean is γ_O θ₁ ((C.16))."""
    beta, heads, gamma_k, gamma_v = CASES[0]
    law = mha_output_law(beta, heads, gamma_k, gamma_v, 0.5)
    b = law.support()[-1][1]
    assert np.isfinite(b) and law.cdf(b * (1 + 1e-9)) == 1.0
    m1 = 0.5 * np.expm1(beta ** 2)
    assert abs(law.mean() - m1) <= 1e-12 * m1
