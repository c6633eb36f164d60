"""PointMass at (or within float64's subnormal range of) 0: G(z) = 1/(z − c) exactly, conjugation
symmetric, at the property check's grid for a scale-free law (issue 21, N14; session 9)."""
import numpy as np
import pytest

from freeattn.laws import PointMass


@pytest.mark.parametrize("c", [0.0, 5e-320])
@pytest.mark.parametrize("z", [-0.25 + 1e-10j, 1.25 + 10j, 1e-200j, 0.5 - 1e-4j])
def test_point_mass_near_origin_cauchy_is_reciprocal(c, z):
    law = PointMass(c)
    g = complex(law.cauchy_transform(z))
    ref = 1 / (z - c)
    assert abs(g - ref) <= 4 * np.finfo(float).eps * abs(ref)
    assert complex(law.cauchy_transform(np.conj(z))) == pytest.approx(np.conj(g), rel=1e-15)
