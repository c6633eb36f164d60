"""Theorem 3.1 of the multi-head paper on one finite draw: the output spectrum of MHA is
π(μ_VO, γ_O), with μ_VO the eigenvalue law of Σ_VO = (1/n) W^Oᵀ V_⊕ᵀ Σ_G V_⊕ W^O of the same
keys, values and output weights (MATH.md §2)."""
import math

import numpy as np
import pytest
from scipy import stats

from freeattn import compound_free_poisson
from freeattn.laws.empirical import Empirical
from freeattn.montecarlo.metrics import ks_distance
from freeattn.montecarlo.samplers import AttentionModel, draw_seed, sample


def _replay(model, seed):
    """Σ_VO of draw ``seed`` of ``model`` and the Gaussian-model output eigenvalues rebuilt
    from the same weights.

    Replays the sampler's generator (weights from child 0: Q, K, V by heads, then W^O; the
    Gaussian noise W_r from child 1); the rebuilt output spectrum is compared with the
    sampler's so that a change of the sampler's draw order fails loudly here.
    """
    n, h, dk, dv, do, beta = model.n, model.heads, model.d_k, model.d_v, model.d_o, model.beta
    ss = np.random.SeedSequence(seed)
    rng = np.random.default_rng(draw_seed(ss, 0))
    q, k, v = (rng.standard_normal((n, h * dk)), rng.standard_normal((n, h * dk)),
               rng.standard_normal((n, h * dv)))
    w_o = rng.standard_normal((h * dv, do)) / math.sqrt(h * dv)
    noise = np.random.default_rng(draw_seed(ss, 1))
    th1, th2 = math.expm1(beta**2), beta**2
    blocks, vsv = [], np.zeros((h * dv, h * dv))
    for r in range(h):
        kr, vr = k[:, r * dk:(r + 1) * dk], v[:, r * dv:(r + 1) * dv]
        y = (beta / math.sqrt(dk) * q[:, r * dk:(r + 1) * dk] @ kr.T
             + math.sqrt(th1 - th2) * noise.standard_normal((n, n))) / n  # Y_r^G / sqrt(n)
        blocks.append(y @ vr)
        sigma_g = th2 * kr @ kr.T / dk + (th1 - th2) * np.eye(n)  # Σ_{G,r}
        vsv[r * dv:(r + 1) * dv, r * dv:(r + 1) * dv] = vr.T @ sigma_g @ vr
    sigma_vo = w_o.T @ vsv @ w_o / n
    out = np.hstack(blocks) @ w_o
    return np.linalg.eigvalsh(sigma_vo), np.linalg.eigvalsh(out @ out.T)


def _check(model, seed, ks_gauss, ks_soft, mean_tol):
    draw = sample(model, seed)
    eigs, gauss = _replay(model, seed)
    np.testing.assert_allclose(np.sort(gauss), draw.gaussian, rtol=0,
                               atol=1e-12 * draw.gaussian.max())
    law = compound_free_poisson(Empirical(eigs), model.gamma_o)
    # γ_O = 1/2: the n × n output Gram has rank d_O = n/2, and π(μ, 1/2) an atom 1/2 at 0
    assert law.atoms() == [(0.0, 0.5)]
    assert abs(law.cdf(1e3) - 1) <= 1e-10
    # KS distance with the atom handled (left limits), Gaussian and softmax models of the draw
    assert ks_distance(draw.gaussian, law) < ks_gauss
    assert ks_distance(draw.softmax, law) < ks_soft
    # scipy's one-sample KS on the continuous part: F_ac = (F − 1/2)/(1/2) on (0, ∞)
    pos = draw.gaussian[draw.gaussian > 0]
    assert pos.size == model.d_o
    ks = stats.kstest(pos, lambda x: (law.cdf(x) - 0.5) / 0.5)
    assert ks.statistic < 2 * ks_gauss
    # first moment: m₁(π(μ, t)) = t m₁(μ) = γ_O tr(Σ_VO)/d_O against the draw's mean eigenvalue
    assert abs(float(law.mean()) - float(np.mean(draw.gaussian))) < mean_tol * float(law.mean())


def test_output_spectrum_is_compound_poisson_of_sigma_vo_small():
    model = AttentionModel(beta=1.0, n=60, d_k=18, heads=2, kind="mha", d_v=18, d_o=30)
    _check(model, 3, ks_gauss=0.06, ks_soft=0.08, mean_tol=0.1)


@pytest.mark.slow
def test_output_spectrum_is_compound_poisson_of_sigma_vo():
    model = AttentionModel(beta=1.0, n=200, d_k=60, heads=2, kind="mha", d_v=60, d_o=100)
    _check(model, 7, ks_gauss=0.03, ks_soft=0.04, mean_tol=0.05)
