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
