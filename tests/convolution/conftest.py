"""Shared laws for the convolution tests (built once per session: each subordination law
scans its support once)."""
import pytest

from freeattn import MarchenkoPastur, Semicircle, boxplus, boxtimes


@pytest.fixture(scope="session")
def sc_mp_pair():
    """Semicircle(1) ⊞ MarchenkoPastur(0.5) by both routes."""
    mu, nu = Semicircle(1), MarchenkoPastur(0.5)
    return boxplus(mu, nu, method="subordination"), boxplus(mu, nu, method="algebraic")


@pytest.fixture(scope="session")
def mp2_mp3_sub():
    return boxtimes(MarchenkoPastur(2), MarchenkoPastur(3), method="subordination")
