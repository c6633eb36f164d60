"""Finite-matrix readout measurements: exact formulas against direct linear algebra."""
import math

import numpy as np
import pytest
from scipy.linalg import expm

from freeattn.montecarlo import AttentionModel, sample
from freeattn.readout import IndependentKV, ridge_error, training_loss
from freeattn.readout.finite import (feature_spectrum, fieller_interval, finite_ridge_error,
                                     finite_training_loss, fixed_target, mha_features,
                                     mean_curve_arrival, t_interval)


@pytest.fixture(scope="module")
def small():
    model = AttentionModel(beta=1.0, n=64, d_k=4, heads=8, kind="mha", d_v=4, d_o=48)
    f = mha_features(model, 3)[0]
    return model, f, feature_spectrum(f)


def test_features_have_the_samplers_weights(small):
    """Centred features reproduce the sampler's MHA^⊥ spectrum (same seed, same weights), and
    the uncentred features differ from them by rank one (§C.5)."""
    model, f, _ = small
    draw = sample(model, 3, gaussian=False)
    m = model.gamma_o * math.expm1(1.0)
    fc = mha_features(model, 3, centred=True)[0] * math.sqrt(m)
    e = np.linalg.eigvalsh(fc @ fc.T)
    np.testing.assert_allclose(e[draw.softmax > 0], draw.softmax[draw.softmax > 0], rtol=1e-9)
    assert np.linalg.matrix_rank(f * math.sqrt(m) - fc, tol=1e-8) == 1


def test_ridge_error_matches_direct_covariance(small):
    _, f, spec = small
    n, p = f.shape
    lam, s2 = 0.05, 0.1
    c = f.T @ f
    inv = np.linalg.inv(c + lam * np.eye(p))
    direct = lam ** 2 / p * np.trace(inv @ inv) + s2 / n * np.trace(c @ inv @ inv)
    assert finite_ridge_error(spec, lam, s2) == pytest.approx(direct, rel=1e-10)


def test_ridge_error_monte_carlo_teacher(small):
    """Average over explicit teacher/noise draws agrees with the analytic average."""
    _, f, spec = small
    n, p = f.shape
    lam, s2 = 0.1, 0.2
    rng = np.random.default_rng(0)
    errs = []
    a = f.T @ f + lam * np.eye(p)
    for _ in range(4000):
        th = rng.standard_normal(p) / math.sqrt(p)
        y = math.sqrt(n) * f @ th + math.sqrt(s2) * rng.standard_normal(n)
        est = np.linalg.solve(a, f.T @ y / math.sqrt(n))
        errs.append(np.sum((est - th) ** 2))
    ci = t_interval(errs, 0.999)
    assert ci.low < finite_ridge_error(spec, lam, s2) < ci.high


def test_training_loss_matches_matrix_exponential(small):
    _, f, spec = small
    y = fixed_target(f.shape[0], seed=1)
    assert abs(y.sum()) < 1e-12 and y @ y == pytest.approx(f.shape[0])
    for t in (0.0, 0.3, 4.0):
        r = expm(-t * f @ f.T) @ y
        assert finite_training_loss(spec, y, t) == pytest.approx(r @ r / (y @ y), rel=1e-10)


def test_finite_vs_limit_small_model():
    """n = 128 draws against the limiting predictions at the same ratios (loose: finite n)."""
    model = AttentionModel(beta=1.0, n=128, d_k=8, heads=16, kind="mha", d_v=8, d_o=256)
    specs = [feature_spectrum(mha_features(model, s)[0]) for s in range(3)]
    law = IndependentKV(1.0, model.gamma_k, 16, model.gamma_v, model.gamma_o)
    e = np.mean([finite_ridge_error(s, 0.1, 0.1) for s in specs])
    assert e == pytest.approx(float(ridge_error(law, 0.1, 0.1, model.gamma_o)), rel=0.05)
    y = fixed_target(128)
    lt = np.mean([finite_training_loss(s, y, 2.0) for s in specs])
    assert lt == pytest.approx(float(training_loss(law, 2.0)), abs=0.03)
    t = mean_curve_arrival(specs, y, 0.3)
    assert np.mean([finite_training_loss(s, y, t) for s in specs]) == pytest.approx(0.3)


def test_fieller_interval():
    rng = np.random.default_rng(1)
    x = 2 + 0.01 * rng.standard_normal(10)
    y = 1 + 0.01 * rng.standard_normal(10)
    r, lo, hi = fieller_interval(y, x)
    assert lo < r < hi and r == pytest.approx(y.mean() / x.mean())
    # the endpoints satisfy |Ȳ − rX̄| = t s_{Y−rX}/sqrt(N)
    t975 = 2.262157162798205  # Student-t 0.975 quantile, 9 degrees of freedom
    for e in (lo, hi):
        d = y - e * x
        assert abs(d.mean()) == pytest.approx(t975 * d.std(ddof=1) / math.sqrt(10))
    # denominator not distinguishable from zero: unbounded
    r, lo, hi = fieller_interval(y, 0.01 * rng.standard_normal(10))
    assert lo == -math.inf and hi == math.inf


def test_limit_formulas_on_the_empirical_law_equal_finite_formulas(small):
    """(5.1)/(5.2) and (5.3) applied to the empirical law of F Fᵀ (a Discrete law, general
    route through its exact G and G′) equal the finite-matrix formulas: (C.28) before the
    limit and the trace form (C.27) of the mean loss."""
    from freeattn.laws import Discrete
    from freeattn.readout import ridge_error, training_loss

    _, f, spec = small
    n, p = f.shape
    law = Discrete(spec.ell)
    lams = [1e-3, 0.05, 2.0]
    np.testing.assert_allclose(ridge_error(law, lams, 0.1, p / n),
                               finite_ridge_error(spec, lams, 0.1), rtol=1e-10)
    # Σ_j e^{-2tℓ_j}/n: the loss averaged over targets uniform on the sphere
    for t in (0.5, 3.0):
        assert training_loss(law, t) == pytest.approx(np.mean(np.exp(-2 * t * spec.ell)),
                                                      abs=1e-10)


@pytest.mark.parametrize("rho", [0.0, 0.6, 1.0])
def test_features_with_partial_kv_correlation_have_the_samplers_weights(rho):
    """With W^V = ρW^K + sqrt(1 − ρ²)W̃ the centred features reproduce the sampler's MHA^⊥
    spectrum (same seed, same weights: before, ρ was ignored and V drawn independent), and
    they are normalised by m(ρ) = γ_O(θ₁ + ρ²hθ₂/γ_K) (derivations/partial_kv.py)."""
    from freeattn.readout.scalar import readout_normalisation

    model = AttentionModel(beta=1.0, n=64, d_k=4, heads=8, kind="mha", d_v=4, d_o=48, rho=rho)
    draw = sample(model, 5, gaussian=False)
    m = model.gamma_o * (math.expm1(1.0) + rho ** 2 * model.heads / model.gamma_k)
    assert readout_normalisation(1.0, model.gamma_k, model.heads, model.gamma_o,
                                 rho=rho) == pytest.approx(m, rel=1e-15)
    fc = mha_features(model, 5, centred=True)[0] * math.sqrt(m)
    e = np.linalg.eigvalsh(fc @ fc.T)
    np.testing.assert_allclose(e[draw.softmax > 0], draw.softmax[draw.softmax > 0], rtol=1e-9)


def test_readout_normalisation_refuses_rho_outside_its_range():
    from freeattn._validation import ParameterError
    from freeattn.readout.scalar import readout_normalisation

    with pytest.raises(ParameterError) as e:
        readout_normalisation(1.0, 1.0, 4, 1.0, rho=1.5)
    assert e.value.param == "rho"
    with pytest.raises(ParameterError) as e:
        readout_normalisation(1.0, 1.0, 4, 1.0, tied=True, rho=0.5)
    assert e.value.param == "rho"
