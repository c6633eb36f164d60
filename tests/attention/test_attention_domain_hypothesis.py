"""Property tests over attention_law's parameter domain (inside: a proper law; outside: errors)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from freeattn import attention_law, theta1

inside = st.tuples(st.floats(0.01, 4.0), st.floats(1e-3, 1e3), st.integers(1, 64))


@settings(max_examples=8, deadline=None, derandomize=True)
@given(inside)
def test_inside_the_domain_the_law_is_a_probability_law(params):
    beta, gamma_k, h = params
    law = attention_law(beta, gamma_k, h)
    supp = law.support()
    assert supp and all(a < b for a, b in supp)
    right = supp[-1][1]
    assert law.cdf(2 * right) == pytest.approx(1.0, abs=1e-10)
    assert law.moment(1) == pytest.approx(theta1(beta), rel=1e-12)
    x = np.linspace(-0.1 * right, 1.1 * right, 500)
    p = law.pdf(x)
    assert np.all(p >= 0) and np.all(p[(x < supp[0][0]) | (x > right)] == 0)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.one_of(st.floats(-10, 0.0099), st.floats(4.0001, 1e6), st.just(math.nan)))
def test_beta_outside_the_domain_raises(beta):
    with pytest.raises(ValueError, match="beta"):
        attention_law(beta, 1.0)
