import mpmath
import pytest


@pytest.fixture(autouse=True)
def _restore_mpmath_precision():
    """No test may leak a change of the global mpmath precision."""
    prec = mpmath.mp.prec
    yield
    assert mpmath.mp.prec == prec, "global mpmath precision was changed"
    mpmath.mp.prec = prec
