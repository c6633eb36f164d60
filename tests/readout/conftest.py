"""Shared laws for the readout tests (built once per session; each takes ~1-3 s)."""
import pytest
import sympy as sp

from freeattn import MarchenkoPastur, attention_law, free_multiplicative_convolution


@pytest.fixture(scope="session")
def attention_mean_one():
    """Mean-one attention law D_{1/θ₁} ν_{∞,h} at β = 1, γ_K = 0.5, h = 32 (two intervals)."""
    return attention_law(1.0, 0.5, 32).dilate(1 / (sp.E - 1))  # exact 1/θ₁


@pytest.fixture(scope="session")
def values_mean_one():
    """Mean-one values law D_{1/θ₁}(ν_{∞,h} ⊠ MP_{1/γ_V}) at β = 1, γ_K = γ_V = 0.5, h = 32:
    the paper's Fig. 2(a) h = 32 law without the output factor (atom 1/2 at zero)."""
    law = free_multiplicative_convolution(attention_law(1.0, 0.5, 32), MarchenkoPastur(2.0))
    return law.dilate(1 / (sp.E - 1))  # exact 1/θ₁
