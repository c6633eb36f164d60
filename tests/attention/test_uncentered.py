"""The uncentered attention matrix: Corollary C.3, (C.13)-(C.14), Proposition B.9
(Hayase & Karakida 2026, arXiv 2610.10033)."""
import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

from freeattn._validation import ParameterError
from freeattn.attention import attention_law
from freeattn.attention.uncentered import (normalizer_moments, uncentered_law,
                                           uncentered_limits, uncentered_statistics)


@pytest.mark.parametrize("beta,heads", [(0.5, 1), (1.0, 4), (1.5, 2)])
def test_limits_against_the_attention_law_mean(beta, heads):
    """(C.14): ||A||_F^2/h -> 1 + m1(nu_inf,h); the engine's m1 is an independent route."""
    lim = uncentered_limits(beta, heads)
    m1 = float(attention_law(beta, 1.0, heads).moment(1))
    assert lim.frobenius_per_head == pytest.approx(1 + m1, rel=1e-12)
    assert lim.stable_rank == lim.frobenius_per_head
    assert lim.centred_frobenius_per_head == pytest.approx(m1, rel=1e-12)
    assert (lim.s1_over_sqrt_h, lim.s2, lim.alignment) == (1.0, 0.0, 1.0)


def test_limits_high_precision():
    lim = uncentered_limits(1.25, dps=40)
    with mpmath.workdps(50):
        ref = mpmath.exp(mpmath.mpf(1.25) ** 2)
    assert abs(lim.stable_rank - ref) < mpmath.mpf(10) ** -38 * ref


def test_limits_refuse_bad_parameters():
    with pytest.raises(ParameterError) as e:
        uncentered_limits(-1.0)
    assert e.value.param == "beta"
    with pytest.raises(ParameterError) as e:
        uncentered_limits(1.0, heads=0)
    assert e.value.param == "heads"


def test_uncentered_law_is_the_centred_limit():
    assert uncentered_law(1.0, 0.5, 2).moment(2) == attention_law(1.0, 0.5, 2).moment(2)


def _mean_by_quadrature(beta, d_k, power):
    """E e^{power beta^2 (v - 1)/2}, v ~ chi^2_dk/dk, by quadrature (second algorithm)."""
    def f(v):
        return math.exp(power * beta ** 2 * (v - 1) / 2 + stats.chi2.logpdf(v * d_k, d_k)
                        + math.log(d_k))
    return integrate.quad(f, 0, np.inf, limit=200, epsabs=0, epsrel=1e-12)[0]


@pytest.mark.parametrize("beta,n,d_k", [(1.0, 50, 20), (0.7, 300, 64), (1.5, 1000, 40)])
def test_normalizer_moments_against_quadrature(beta, n, d_k):
    """Prop. B.9 from its conditional moments: E[D|v] = e^{b^2(v-1)/2},
    E[D^2|v] = (1 - 1/n) e^{b^2(v-1)} + (1/n) e^{-b^2} e^{2 b^2 v}, integrated over v."""
    mean, second, var = normalizer_moments(beta, n, d_k)
    assert mean == pytest.approx(_mean_by_quadrature(beta, d_k, 1), rel=1e-10)
    e2 = (1 - 1 / n) * _mean_by_quadrature(beta, d_k, 2) \
        + math.exp(beta ** 2) * _mean_by_quadrature(beta, d_k, 4) / n
    assert second == pytest.approx(e2, rel=1e-9)
    assert var == pytest.approx(second - mean ** 2, rel=1e-12)


def test_normalizer_moments_float_and_mp_agree_and_the_expansion():
    f = normalizer_moments(1.0, 2000, 1000)
    m = normalizer_moments(1.0, 2000, 1000, dps=30)
    for a, b in zip(f, m):
        assert abs(a - float(b)) < 1e-13 * max(1.0, abs(a))
    # Var D = (e - 1)/n + 1/(2 d_K) + O(d_K^-2 + (n d_K)^-1)
    approx = (math.e - 1) / 2000 + 1 / 2000
    assert abs(float(m[2]) - approx) < 10 * (1 / 1000 ** 2 + 1 / (2000 * 1000))


def test_normalizer_moments_monte_carlo():
    rng = np.random.default_rng(5)
    beta, n, d_k, rows = 1.0, 200, 100, 4000
    q = rng.standard_normal((rows, d_k))
    k = rng.standard_normal((n, d_k))
    d = np.exp(beta * q @ k.T / math.sqrt(d_k) - beta ** 2 / 2).mean(axis=1)
    mean, _, var = normalizer_moments(beta, n, d_k)
    # the rows share the keys: the spread of the sample mean is sqrt(Var/rows) at most
    # about doubled by the common keys; 6 sigma
    assert abs(d.mean() - mean) < 6 * math.sqrt(var / rows) * 2
    assert d.var(ddof=1) == pytest.approx(var, rel=0.15)


def test_normalizer_moments_need_wide_keys():
    with pytest.raises(ParameterError) as e:
        normalizer_moments(2.0, 100, 16)
    assert e.value.param == "d_k"


def _softmax_blocks(rng, n, heads, beta=1.0, d_k=30):
    blocks = []
    for _ in range(heads):
        s = beta * rng.standard_normal((n, d_k)) @ rng.standard_normal((n, d_k)).T / math.sqrt(d_k)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        blocks.append(e / e.sum(axis=1, keepdims=True))
    return np.hstack(blocks)


def test_statistics_of_the_uniform_matrix():
    n, h = 7, 3
    st = uncentered_statistics(np.full((n, h * n), 1.0 / n), h)
    assert st.s1 == pytest.approx(math.sqrt(h), rel=1e-14)
    assert st.s2 == pytest.approx(0.0, abs=1e-7) and st.centred_norm == pytest.approx(0, abs=1e-7)
    assert st.alignment == pytest.approx(1.0, rel=1e-14)
    assert st.stable_rank == pytest.approx(1.0, rel=1e-14)


@pytest.mark.parametrize("heads", [1, 3])
def test_statistics_identities_and_bounds(heads):
    a = _softmax_blocks(np.random.default_rng(heads), 60, heads)
    st = uncentered_statistics(a, heads)
    sv = np.linalg.svd(a, compute_uv=False)
    assert st.s1 == pytest.approx(sv[0], rel=1e-12) and st.s2 == pytest.approx(sv[1], rel=1e-10)
    perp = a - 1 / 60
    assert st.centred_norm == pytest.approx(np.linalg.svd(perp, compute_uv=False)[0], rel=1e-12)
    assert st.gram_identity_error < 1e-13
    for name, (value, low, high) in st.bounds().items():
        assert low - 1e-12 <= value <= high + 1e-12, name
    u, _, _ = np.linalg.svd(a)
    assert st.alignment == pytest.approx(u[:, 0].sum() ** 2 / 60, rel=1e-12)


def test_statistics_refuse_bad_matrices():
    a = _softmax_blocks(np.random.default_rng(0), 10, 2)
    for bad in (a[:, :15], a * 1.1, -a, a[0]):
        with pytest.raises(ParameterError) as e:
            uncentered_statistics(bad, 2)
        assert e.value.param == "a"


def test_docstring_examples():
    import doctest

    import freeattn.attention.uncentered as mod

    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
