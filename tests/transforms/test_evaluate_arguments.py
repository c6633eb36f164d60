"""Arguments of the transform functions: the Law methods' filter, and exact input kept exact."""
import decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

from freeattn import MarchenkoPastur, Semicircle
from freeattn._validation import ParameterError, ParameterTypeError
from freeattn.transforms import chi_transform, psi_transform, r_transform, s_transform

SC = Semicircle(Fraction(1, 3))       # R(g) = g/3
MP = MarchenkoPastur(Fraction(1, 2))  # S(w) = 1/(1 + w/2)

BAD = [("0.1", "not a string"), (None, "got None"), (True, "boolean"), ([0.1, "a"], "not strings"),
       (object(), "got object")]


@pytest.mark.parametrize("value, words", BAD)
@pytest.mark.parametrize("name, law, fn", [("g", SC, r_transform), ("w", MP, s_transform),
                                           ("u", MP, psi_transform), ("w", MP, chi_transform)])
def test_function_refuses_non_numbers_naming_the_argument(name, law, fn, value, words):
    # formerly: a string was parsed by numpy ('0.1' gave a value) or raised a raw TypeError
    with pytest.raises(ParameterTypeError, match=words) as err:
        fn(law, value)
    assert err.value.param == name
    assert str(err.value).startswith(f"{name} must be a complex number")


@pytest.mark.parametrize("name, law, fn", [("g", SC, r_transform), ("w", MP, s_transform)])
@pytest.mark.parametrize("value", ["0.1", None, True])
def test_function_and_method_give_the_same_error(name, law, fn, value):
    with pytest.raises(ParameterTypeError) as by_function:
        fn(law, value)
    with pytest.raises(ParameterTypeError) as by_method:
        getattr(law, fn.__name__)(value)
    assert str(by_function.value) == str(by_method.value)


@pytest.mark.parametrize("fn, law, name", [(r_transform, SC, "g"), (s_transform, MP, "w"),
                                           (psi_transform, MP, "u")])
def test_non_finite_arguments(fn, law, name):
    for v in (float("nan"), mpmath.inf, sp.oo):
        with pytest.raises(ParameterError, match="finite") as err:
            fn(law, v)
        assert err.value.param == name


@pytest.mark.parametrize("g", [Fraction(1, 10), sp.Rational(1, 10), decimal.Decimal("0.1")])
@pytest.mark.parametrize("method", [None, "inverse"])
def test_exact_argument_stays_exact_at_dps(g, method):
    # formerly converted to the float 0.1 before the mpmath route: error ~2e-18
    value = r_transform(SC, g, dps=40, method=method)
    with mpmath.workdps(40):
        assert abs(value - mpmath.mpf(1) / 30) < mpmath.mpf(10) ** -39


def test_s_psi_chi_exact_arguments_at_dps():
    w = Fraction(-1, 10)
    with mpmath.workdps(40):
        s_ref = 1 / (1 - mpmath.mpf(1) / 20)                  # S(w) = 1/(1 + y w)
        chi_ref = mpmath.mpf(-1) / 10 * s_ref / (mpmath.mpf(9) / 10)
        tol = mpmath.mpf(10) ** -38
        assert abs(s_transform(MP, w, dps=40) - s_ref) < tol
        assert abs(chi_transform(MP, w, dps=40) - chi_ref) < tol
        # ψ(χ(w)) = w
        assert abs(psi_transform(MP, chi_ref, dps=40) - w.numerator / mpmath.mpf(w.denominator)) < tol


def test_values_at_zero_at_dps():
    # R(0) = m₁, S(0) = 1/m₁ at the working precision (formerly the float m₁)
    law = Semicircle(Fraction(1, 3)).affine(Fraction(1, 3), 1)
    with mpmath.workdps(40):
        assert abs(r_transform(law, 0, dps=40) - mpmath.mpf(1) / 3) < mpmath.mpf(10) ** -39
    assert s_transform(MP, 0, dps=40) == 1


def test_complex_arguments_of_every_kind():
    ref = (0.1 + 0.1j) / 3
    for g in (0.1 + 0.1j, np.complex64(0.1 + 0.1j), mpmath.mpc(0.1, 0.1),
              sp.Rational(1, 10) + sp.I / 10):
        assert complex(r_transform(SC, g)) == pytest.approx(ref, rel=1e-6)
    value = r_transform(SC, sp.Rational(1, 10) + sp.I / 10, dps=40)
    with mpmath.workdps(40):
        assert abs(value - mpmath.mpc(1, 1) / 30) < mpmath.mpf(10) ** -39


def test_chi_float_route_on_arrays_and_exact_input():
    np.testing.assert_allclose(chi_transform(MP, [-0.1, -0.2]),
                               [w / (1 + w) / (1 + w / 2) for w in (-0.1, -0.2)], rtol=1e-12)
    assert chi_transform(MP, Fraction(-1, 5)) == pytest.approx(-0.2 / 0.8 / 0.9, rel=1e-12)


def test_messages_show_numbers_not_numpy_reprs():
    with pytest.raises(ParameterError, match=r"got nan$"):
        r_transform(SC, np.float64("nan"))
    with pytest.raises(ParameterError, match=r"got 0\.5$"):
        s_transform(MP, np.float64(0.5))
    with pytest.raises(ParameterError, match=r"got \[0\.0, 0\.0\]$"):
        psi_transform(MP, np.array([0.0, 0.0]))
    from freeattn.transforms.cumulants import moments_from_s_transform_series
    with pytest.raises(ParameterError, match=r"got 0\.0$"):
        moments_from_s_transform_series([np.float64(0.0), 1.0])
