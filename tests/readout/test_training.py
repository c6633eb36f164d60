"""Training loss ∫ e^{−2tx} dν: Laplace inversion (C.31) by two methods against quadrature."""
import mpmath
import numpy as np
import pytest

from freeattn import MarchenkoPastur
from freeattn.laws import NumericalLaw
from freeattn._validation import ParameterError
from freeattn.readout import IndependentKV, TiedKV, arrival_time, training_loss

TIMES = [1.0, 10.0, 100.0]


def _mp_closed_form(y):
    """MP_y (mean one, atom 1 − 1/y at 0 for y > 1) as a NumericalLaw from its closed-form G:
    G(z) = (z + y − 1 − sqrt(z − a) sqrt(z − b))/(2 y z), a, b = (1 ∓ √y)²."""
    a, b = (1 - y ** 0.5) ** 2, (1 + y ** 0.5) ** 2

    def g(z):
        return (z + y - 1 - np.sqrt(z - a + 0j) * np.sqrt(z - b + 0j)) / (2 * y * z)

    def g_mp(z, dps):
        with mpmath.workdps(dps + 10):
            z = mpmath.mpmathify(z)
            return (z + y - 1 - mpmath.sqrt(z - a) * mpmath.sqrt(z - b)) / (2 * y * z)

    atoms = [(0.0, 1 - 1 / y)] if y > 1 else []
    return NumericalLaw(g, cauchy_mp=g_mp, support=[(a, b)], atoms=atoms, name=f"MP_{y}")


def test_numerical_law_general_route():
    """Any Law: a NumericalLaw (closed-form G of MP_2, atom 1/2 at 0) through its Cauchy
    transform, Stehfest and Talbot against quadrature of its density + atom."""
    law = _mp_closed_form(2.0)
    quad = training_loss(law, TIMES, method="quadrature")
    np.testing.assert_allclose(training_loss(law, TIMES), quad, rtol=0, atol=1e-10)
    np.testing.assert_allclose(training_loss(law, TIMES, method="talbot"), quad, rtol=0,
                               atol=1e-10)
    assert quad[-1] == pytest.approx(0.5, abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["attention", "mp_atom"])
def test_inversion_methods_agree_with_quadrature(which, attention_mean_one):
    """General route through AlgebraicLaw's mpmath G (slow: 10-20 s each); the always-on
    twins are the NumericalLaw test above and the scalar-route test below."""
    law = attention_mean_one if which == "attention" else MarchenkoPastur(2.0)
    quad = training_loss(law, TIMES, method="quadrature")
    st = training_loss(law, TIMES, method="stehfest")
    ta = training_loss(law, TIMES, method="talbot")
    np.testing.assert_allclose(st, quad, rtol=0, atol=1e-10)
    np.testing.assert_allclose(ta, quad, rtol=0, atol=1e-10)
    if which == "mp_atom":  # mass 1/2 at zero: the plateau
        assert quad[-1] == pytest.approx(0.5, abs=1e-12)


def test_scalar_route_three_methods():
    """The Fig. 3(a) law (h = 64, γ_K = γ_V = 1, γ_O = 2): Stehfest, Talbot, de Hoog."""
    s = IndependentKV(1.0, 1.0, 64, 1.0, 2.0)
    st = training_loss(s, TIMES, method="stehfest")
    ta = training_loss(s, TIMES, method="talbot")
    dh = training_loss(s, TIMES[:2], method="dehoog")
    np.testing.assert_allclose(st, ta, rtol=0, atol=1e-10)
    np.testing.assert_allclose(dh, ta[:2], rtol=0, atol=1e-12)
    assert np.all(np.diff(st) < 0) and np.all(st > 0)


def test_scalar_route_matches_law_quadrature(attention_mean_one):
    """Second law: mean-one attention law (two support intervals), Stehfest and Talbot on the
    scalar equation against quadrature of the law's density."""
    s = IndependentKV(1.0, 0.5, 32)
    quad = training_loss(attention_mean_one, TIMES, method="quadrature")
    np.testing.assert_allclose(training_loss(s, TIMES), quad, rtol=0, atol=1e-10)
    np.testing.assert_allclose(training_loss(s, TIMES, method="talbot"), quad, rtol=0,
                               atol=1e-10)


def test_stehfest_32_vs_48_terms_and_dps_output():
    s = IndependentKV(1.0, 1.0, 64, 1.0, 2.0)
    a = training_loss(s, 10.0, degree=32)
    b = training_loss(s, 10.0, degree=48)
    assert abs(a - b) < 1e-10
    c = training_loss(s, 10.0, method="talbot", dps=25)
    assert isinstance(c, mpmath.mpf)
    assert abs(float(c) - b) < 1e-12


def test_shapes_and_t0():
    s = IndependentKV(1.0, 0.5, 32, 0.5, 2.0)
    out = training_loss(s, np.array([[0.0, 1.0], [2.0, 3.0]]))
    assert out.shape == (2, 2) and out[0, 0] == 1.0
    assert np.isscalar(training_loss(s, 1.0)) or np.ndim(training_loss(s, 1.0)) == 0


def test_arrival_time_reaches_level():
    s = IndependentKV(1.0, 1.0, 64, 1.0, 2.0)
    t = arrival_time(s, 0.1)
    assert float(training_loss(s, t)) == pytest.approx(0.1, abs=1e-9)


def test_arrival_time_below_plateau_refused():
    s = IndependentKV(1.0, 0.5, 32, 0.5, 2.0)  # ν({0}) = 1/2
    with pytest.raises(ParameterError) as exc:
        arrival_time(s, 0.1)
    assert exc.value.param == "level"


def test_bad_input():
    s = IndependentKV(1.0, 1.0, 2)
    for bad in (-1.0, float("nan")):
        with pytest.raises(ParameterError) as exc:
            training_loss(s, bad)
        assert exc.value.param == "t"
    with pytest.raises(ParameterError) as exc:
        training_loss(s, 1.0, method="euler")
    assert exc.value.param == "method"
    with pytest.raises(ParameterError):
        training_loss(TiedKV(1.0, 0.5, 4, 0.5), 1.0, method="talbot")
    with pytest.raises(ParameterError):
        training_loss(s, 1.0, method="quadrature")


def test_check_option_compares_two_methods():
    s = IndependentKV(1.0, 1.0, 64, 1.0, 2.0)
    a = training_loss(s, [1.0, 10.0], check=1e-10)
    np.testing.assert_allclose(a, training_loss(s, [1.0, 10.0]), rtol=0, atol=0)
    with pytest.raises(ArithmeticError):  # 8 Stehfest terms are far from Talbot
        training_loss(s, 1.0, degree=8, check=1e-12)


# ------------------------------------------------- laws not starting at 0 (review item 1)
def test_semicircle_default_route_is_right():
    """Semicircle on [−2, 2]: ∫ e^{−2tx} dν = I₁(4t)/(2t) (closed form, mpmath Bessel).  The
    default Gaver–Stehfest route used to return 19.30 at t = 1 (the transform has poles at
    s = −2x > 0 there); every method now gives 4.87973…"""
    from freeattn import Semicircle

    law = Semicircle()
    ts = [0.3, 1.0, 2.5]
    ref = [float(mpmath.besseli(1, 4 * t) / (2 * t)) for t in ts]
    assert ref[1] == pytest.approx(4.879732576852225, rel=1e-14)
    for method in ("stehfest", "talbot", "dehoog"):
        np.testing.assert_allclose(training_loss(law, ts, method=method), ref, rtol=1e-10)
    np.testing.assert_allclose(training_loss(law, ts[:2], method="quadrature"), ref[:2],
                               rtol=1e-10)
    with pytest.raises(ParameterError) as err:
        arrival_time(law, 0.1)
    assert err.value.param == "law"


def test_atoms_below_zero_at_zero_and_far_bulk():
    """Discrete law with atoms at −1, 0, 3 (exact: Σ m e^{−2ta}); a pure atom at 0 (L ≡ 1);
    MP_{1/2} dilated by 100 (bulk on [8.6, 291], loss down to 1e-41) against quadrature."""
    from freeattn import Discrete, PointMass

    ts = np.array([0.1, 1.0, 5.0])
    law = Discrete([-1.0, 0.0, 3.0], [0.2, 0.3, 0.5])
    exact = 0.2 * np.exp(2 * ts) + 0.3 + 0.5 * np.exp(-6 * ts)
    for method in ("stehfest", "talbot", "quadrature"):
        np.testing.assert_allclose(training_loss(law, ts, method=method), exact, rtol=1e-10)
    np.testing.assert_allclose(training_loss(PointMass(0.0), ts), 1.0, rtol=1e-12)
    far = MarchenkoPastur(0.5).dilate(100)
    quad = training_loss(far, ts, method="quadrature")
    assert quad[-1] < 1e-40
    np.testing.assert_allclose(training_loss(far, ts), quad, rtol=1e-8)
