"""Numeric R- and S-transforms against closed forms and free-probability identities."""
import mpmath
import numpy as np
import pytest

from freeattn import (MarchenkoPastur, PointMass, Semicircle, attention_law, compound_free_poisson,
                      rho_law, theta1, theta2)
from freeattn.transforms import chi_transform, psi_transform, r_transform, s_transform


def test_marchenko_pastur_closed_forms():
    y = 0.5
    law = MarchenkoPastur(y)
    w = np.array([-0.4, -0.1, 0.0])
    np.testing.assert_allclose(s_transform(law, w), 1 / (1 + y * w), rtol=1e-12)
    g = np.array([-0.5, 0.1, 0.3])
    np.testing.assert_allclose(r_transform(law, g), 1 / (1 - y * g), rtol=1e-12)
    # ψ from the moments' series and χ = ψ^{-1}
    u = -0.05
    series = sum(float(m) * u ** (k + 1) for k, m in enumerate(law.exact_moments(25)))
    assert psi_transform(law, u) == pytest.approx(series, rel=1e-10)
    assert chi_transform(law, psi_transform(law, u).real) == pytest.approx(u, rel=1e-10)


def test_semicircle_r_transform():
    law = Semicircle(2.0)
    np.testing.assert_allclose(r_transform(law, [0.1, -0.2]), [0.2, -0.4], rtol=1e-12)


def test_rho_r_transform_eq_c10():
    beta, t = 1.0, 2.0
    rho = rho_law(beta, t)
    th1, th2 = theta1(beta), theta2(beta)
    g = np.array([-0.3, 0.05, 0.2])
    np.testing.assert_allclose(r_transform(rho, g), th1 - th2 + th2 / (1 - th2 * g / t), rtol=1e-12)


def test_s_multiplicativity_and_s_r_identity():
    law = attention_law(1.0, 2.0, 3)
    w = np.array([-0.6, -0.2])
    lhs = s_transform(law, w)
    rhs = s_transform(rho_law(1.0, 2.0), w) * s_transform(MarchenkoPastur(1 / 3), w)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-11)
    # S(w) R(w S(w)) = 1 (Hayase & Karakida 2026, eq. (C.3))
    for wi, si in zip(w, lhs):
        assert si * r_transform(law, wi * si) == pytest.approx(1.0, rel=1e-11)


def test_compound_free_poisson_s_identity():
    mu, t = MarchenkoPastur(0.5), 2.0
    law = compound_free_poisson(mu, t)
    w = np.array([-0.9, -0.3])
    np.testing.assert_allclose(s_transform(law, w), s_transform(mu, w / t) / (t + w), rtol=1e-11)


def test_high_precision_agrees_with_closed_form():
    with mpmath.workdps(40):
        val = s_transform(MarchenkoPastur(0.25), -0.5, dps=35)
        assert abs(val - 1 / (1 + mpmath.mpf(0.25) * mpmath.mpf(-0.5))) < mpmath.mpf(10) ** -33


def test_s_transform_domain_errors():
    law = MarchenkoPastur(2.0)  # atom 1/2 at zero: ψ((−∞, 0)) = (−1/2, 0)
    with pytest.raises(ValueError, match="w must lie"):
        s_transform(law, -0.7)
    with pytest.raises(ValueError, match="w must lie"):
        s_transform(law, 0.1)
    with pytest.raises(ValueError, match="mean"):
        s_transform(Semicircle(1.0), -0.1)
    with pytest.raises(ValueError, match="finite"):
        r_transform(law, float("nan"))
    assert s_transform(PointMass(2.0), -0.3) == pytest.approx(0.5)


def test_symbolic_transforms_match_numeric():
    import sympy as sp

    from freeattn.algebraic.polynomial import w
    from freeattn.transforms.symbolic import r_transform_expr, s_transform_expr

    rho = rho_law(1.0, 2.0)
    expr = r_transform_expr(rho)
    th1, th2 = sp.E - 1, 1
    assert sp.simplify(expr - (th1 - th2 + th2 / (1 - th2 * w / 2))) == 0
    law = attention_law(1.0, 1.0)
    s_expr = s_transform_expr(law)
    for wi in (-0.5, -0.2):
        assert float(s_expr.subs(w, wi)) == pytest.approx(s_transform(law, wi), rel=1e-12)


# ---------------------------------------------------------------- generic route: invert G
def test_inverse_route_equals_relation_route():
    law = MarchenkoPastur(0.5)
    w = np.array([-0.6, -0.2, -0.01])
    np.testing.assert_allclose(s_transform(law, w, method="inverse"),
                               s_transform(law, w, method="relation"), rtol=1e-12)
    g = np.array([-0.3, 0.05, 0.2])
    np.testing.assert_allclose(r_transform(law, g, method="inverse"), 1 / (1 - 0.5 * g), rtol=1e-11)
    gc = np.array([0.1 + 0.05j, -0.2 - 0.1j])
    np.testing.assert_allclose(r_transform(law, gc, method="inverse"), 1 / (1 - 0.5 * gc), rtol=1e-10)
    wc = np.array([-0.3 + 0.1j])
    np.testing.assert_allclose(s_transform(law, wc, method="inverse"), 1 / (1 + 0.5 * wc), rtol=1e-10)
    att = attention_law(1.0, 2.0, 3)
    np.testing.assert_allclose(s_transform(att, [-0.6, -0.2], method="inverse"),
                               s_transform(att, [-0.6, -0.2]), rtol=1e-10)


def test_inverse_route_with_an_atom_at_zero():
    law = MarchenkoPastur(2.0)  # atom 1/2 at 0: S(w) = 1/(1 + 2w) on (−1/2, 0]
    w = np.array([-0.45, -0.2])
    np.testing.assert_allclose(s_transform(law, w, method="inverse"), 1 / (1 + 2 * w), rtol=1e-10)


def test_inverse_route_at_high_precision():
    law = MarchenkoPastur(0.25)
    val = s_transform(law, -0.5, dps=30, method="inverse")
    with mpmath.workdps(40):
        ref = 1 / (1 + mpmath.mpf(0.25) * mpmath.mpf(-0.5))
    assert abs(val - ref) < mpmath.mpf(10) ** -28
    r = r_transform(Semicircle(2.0), 0.1, dps=30, method="inverse")
    assert abs(r - mpmath.mpf("0.2")) < mpmath.mpf(10) ** -28


def test_method_names_are_checked():
    from freeattn._validation import ParameterError

    with pytest.raises(ParameterError) as info:
        r_transform(MarchenkoPastur(0.5), 0.1, method="newton")
    assert info.value.param == "method" and "'inverse'" in str(info.value)
    with pytest.raises(ParameterError) as info:
        r_transform(MarchenkoPastur(0.5), 5.0, method="inverse")  # beyond G(b+)
    assert info.value.param == "g"


def test_psi_and_chi_of_a_generic_law():
    from freeattn.laws import NumericalLaw

    # arcsine on [0, 4]: ψ(u) + 1 = sqrt(z/(z − 4)) at z = 1/u, χ(w) = w(2 + w)/(4(1 + w)²)
    law = NumericalLaw(lambda z: 1 / (np.sqrt(z) * np.sqrt(z - 4)), name="arcsine(0, 4)")
    u = np.array([-0.5, -0.1])
    z = 1 / u
    np.testing.assert_allclose(psi_transform(law, u), np.sqrt(z / (z - 4)) - 1, rtol=1e-13)
    w = np.array([-0.7, -0.2])
    np.testing.assert_allclose(chi_transform(law, w), w * (2 + w) / (4 * (1 + w) ** 2), rtol=1e-10)
