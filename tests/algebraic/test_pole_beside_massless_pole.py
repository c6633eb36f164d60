"""An atom next to a pole of P's leading coefficient that carries no atom (a push-forward's
critical value in a gap): the branch is read at heights bounded by the atoms and support ends
only (issue 21, slow point pushforward-24: "the mass of the pole at 0.875 is ambiguous")."""
import math

import pytest

from freeattn import FreePoisson, MarchenkoPastur


def _phi(c, x):
    return c[0] + c[1] * x + c[2] * x * x


@pytest.mark.parametrize("base, coeffs, atom", [
    # pushforward-24: the atom 1 − t at φ(0) = 0.875, the critical value φ(−1/32) 0.002 away
    (FreePoisson(0.045400066330159375), [0.875, 0.125, 2.0], 1 - 0.045400066330159375),
    # second instance: MP with ratio 2 (atom 1/2 at 0), critical value 3.3e-5 from φ(0) = −1
    (MarchenkoPastur(2.0), [-1.0, 0.02, 3.0], 0.5),
])
def test_atom_beside_a_critical_value(base, coeffs, atom):
    law = base.pushforward(coeffs)
    (loc, mass), = law.atoms()
    assert loc == coeffs[0]
    assert mass == pytest.approx(atom, rel=1e-14)
    (a, b), = base.support()
    (lo, hi), = law.support()
    # φ is increasing on [0, ∞) (its critical point −c₁/(2c₂) < 0): the image of the support
    assert lo == pytest.approx(_phi(coeffs, a), rel=1e-14)
    assert hi == pytest.approx(_phi(coeffs, b), rel=1e-14)
    # cdf at φ(x) is μ's cdf at x (the closed form), inside the support and in the gap
    for x in (a + 0.3 * (b - a), a + 0.8 * (b - a)):
        assert law.cdf(_phi(coeffs, x)) == pytest.approx(base.cdf(x), abs=1e-12)
    assert law.cdf(0.5 * (coeffs[0] + lo)) == pytest.approx(atom, abs=1e-14)
    m1 = coeffs[0] + coeffs[1] * base.moment(1) + coeffs[2] * base.moment(2)
    assert law.moment(1) == pytest.approx(m1, rel=1e-12)
    assert math.isclose(law.cdf(hi * 2), 1.0)


@pytest.mark.parametrize("y", [17.187679854209254, 50.99227468807326, 99.715844712142])
def test_polygon_residue_row_is_relative(y):
    # pushforward-116: the re-expanded polygon's lowest row was rounding residue (1.2e-32
    # next to coefficients ~1e8) above the absolute cut: the candidates came out [0] and the
    # atom 1 − 1/y at φ(0) = −1.625 was lost (atoms() = [] silently, the mass check refused)
    c = [-1.625, 1.875, 1.25]
    law = MarchenkoPastur(y).pushforward(c)
    (loc, mass), = law.atoms()
    assert loc == -1.625 and mass == pytest.approx(1 - 1 / y, rel=1e-14)
    (a, b), = MarchenkoPastur(y).support()
    (lo, hi), = law.support()
    assert lo == pytest.approx(_phi(c, a), rel=1e-13) and hi == pytest.approx(_phi(c, b), rel=1e-13)
    # MP(y): m₁ = 1, m₂ = 1 + y (ratio = rows/columns, mean 1)
    assert law.moment(1) == pytest.approx(c[0] + c[1] + c[2] * (1 + y), rel=1e-12)
