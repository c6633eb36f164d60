"""μ^{⊞1} = μ^{⊠1} = μ on both routes (R_μ·1 = R_μ, S_μ¹ = S_μ).  By subordination the
equation degenerates at t = 1 (ω = z: no critical points, the subordination function never
leaves the axis) and the law came out empty: ``free_additive_power(MarchenkoPastur(3.25),
1.0, method='subordination').support()`` was [] (boxplus_power_alg-9 of the slow property
suite; ⊠: boxtimes_power_alg-18, MP(3.375))."""
import pytest
import sympy

from freeattn import MarchenkoPastur, Semicircle, free_additive_power, free_multiplicative_power


@pytest.mark.parametrize("method", [None, "subordination"])
@pytest.mark.parametrize("t", [1, 1.0, sympy.Integer(1)])
def test_additive_power_one_is_the_law(method, t):
    for mu in (MarchenkoPastur(3.25), Semicircle(2.0)):
        law = free_additive_power(mu, t, method=method)
        assert law.support() == mu.support() and law.atoms() == mu.atoms()
        assert law.cdf(1.5) == mu.cdf(1.5)


@pytest.mark.parametrize("method", [None, "subordination"])
def test_multiplicative_power_one_is_the_law(method):
    mu = MarchenkoPastur(3.375)
    law = free_multiplicative_power(mu, 1.0, method=method)
    (a, b), = law.support()
    assert (a, b) == mu.support()[0]
    assert abs(law.atoms()[0][1] - (1 - 1 / 3.375)) <= 1e-15  # the atom 1 − 1/λ at 0
    assert law.cdf(2.0) == mu.cdf(2.0)


def test_power_one_still_validates():
    with pytest.raises(Exception, match="method"):
        free_additive_power(MarchenkoPastur(0.5), 1, method="nope")
    with pytest.raises(Exception, match="t"):
        free_additive_power(MarchenkoPastur(0.5), 0.5)
