"""AlgebraicLaw.affine/dilate take their arguments through the one argument filter."""
import numpy as np
import pytest
import sympy as sp

from freeattn._validation import ParameterError, ParameterTypeError, positive
from freeattn.attention import attention_law

LAW = attention_law(1, 1, 1)


@pytest.mark.parametrize("shift, scale, param, kind", [
    (None, 1, "shift", ParameterTypeError), ("a", 1, "shift", ParameterTypeError),
    (1j, 1, "shift", ParameterTypeError), (np.inf, 1, "shift", ParameterError),
    (0, np.nan, "scale", ParameterError), (0, 0, "scale", ParameterError)])
def test_affine_refuses(shift, scale, param, kind):
    with pytest.raises(kind) as err:
        LAW.affine(shift, scale)
    assert err.value.param == param


@pytest.mark.parametrize("t, kind", [(None, ParameterTypeError), ("2", ParameterTypeError),
                                     (-1, ParameterError), (0, ParameterError),
                                     (sp.Integer(-1), ParameterError)])
def test_dilate_refuses(t, kind):
    with pytest.raises(kind) as err:
        LAW.dilate(t)
    assert err.value.param == "t"


def test_dilate_and_affine_means():
    m = LAW.mean()
    assert LAW.dilate(2).mean() == pytest.approx(2 * m, rel=1e-12)
    assert LAW.dilate(sp.Rational(1, 2)).mean() == pytest.approx(m / 2, rel=1e-12)
    assert LAW.affine(1, sp.sqrt(2)).mean() == pytest.approx(1 + np.sqrt(2) * m, rel=1e-12)


def test_messages_show_numbers_not_numpy_reprs():
    with pytest.raises(ParameterError, match=r"got -1\.0$"):
        positive("x", np.float64(-1.0))
