"""Partial key–value correlation W^V_r = ρ W^K_r + sqrt(1 − ρ²) W̃_r (derivations/partial_kv.py).

References used here, each independent of the polynomial JUMP_POLYNOMIAL that the laws use:
* m₁, m₂ of the jump law by a free-probability computation by hand: with M = V̂ᵀV̂ ~ MP_t and
  a circular N free from M, Σ̂ = cM + b XXᵀ, X = ρM + σ M^{1/2}N, σ² = (1 − ρ²)t, b = θ₂/t;
* the layer moments from the jump moments through free cumulants (compound free Poisson,
  ⊠ π_{γ_O}, dilation; freeattn.transforms.cumulants);
* the paper's laws at the end points ρ = 0 ((C.15)) and ρ = 1 ((C.21)).
The density against Monte Carlo is in tests/montecarlo/test_partial_kv_mc.py.
"""
import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from freeattn import MHAConfig
from freeattn._validation import ParameterError
from freeattn.algebraic.polynomial import G, z
from freeattn.attention import mha_output_law
from freeattn.montecarlo import AttentionModel
from freeattn.attention.partial_kv import (check_rho, jump_polynomial, partial_kv_jump_law,
                                           partial_kv_mean, partial_kv_output_law,
                                           partial_kv_values_law)
from freeattn.transforms.cumulants import (boxtimes_free_cumulants,
                                           compound_free_poisson_cumulants, dilate_cumulants,
                                           free_cumulants_from_moments, moments_from_free_cumulants)

E = sp.E
TH1, TH2 = E - 1, sp.Integer(1)  # β = 1
C = TH1 - TH2


def _mp_moments(t, k):
    return moments_from_free_cumulants([t ** (q - 1) for q in range(1, k + 1)])


def _jump_m1_m2(t, rho):
    """m₁, m₂ of μ_ρ by freeness of M ~ MP_t and a circular N (see module docstring)."""
    r = rho**2
    sig2 = (1 - r) * t
    b = TH2 / t
    m1M, m2M, m3M, m4M = _mp_moments(t, 4)
    m1 = C * m1M + b * (r * m2M + sig2 * m1M)
    m2 = (C**2 * m2M + 2 * C * b * r * m3M + b**2 * r**2 * m4M
          + 2 * b * sig2 * (C * m2M + b * r * m3M)            # 2 φ(P R)
          + b**2 * sig2**2 * (m2M + 1)                         # φ(R²) = φ(M N N* M N N*)
          + 2 * b**2 * r * sig2 * m1M * m2M)                   # φ(Q²)
    return sp.expand(m1), sp.expand(m2)


def _close(a, b, digits=25):
    return abs(sp.N(a - b, 40)) <= 10 ** (-digits) * max(1, abs(sp.N(b, 40)))


@pytest.mark.parametrize("h, gk, rho", [(2, sp.Integer(1), sp.Rational(3, 5)),
                                        (4, sp.Rational(3, 2), sp.Rational(3, 10)),
                                        (1, sp.Rational(5, 2), sp.Rational(9, 10))])
def test_jump_law_moments_against_freeness(h, gk, rho):
    law = partial_kv_jump_law(1, h, gk, rho)
    m1, m2 = law.exact_moments(2)
    f1, f2 = _jump_m1_m2(gk / h, rho)
    assert _close(m1, f1) and _close(m2, f2)
    assert _close(m1, TH1 + rho**2 * h * TH2 / gk)


@pytest.mark.parametrize("h, gk, go, rho", [(2, sp.Integer(1), sp.Rational(3, 2), sp.Rational(3, 5)),
                                            (4, sp.Rational(1, 2), sp.Integer(2), sp.Rational(1, 5))])
def test_layer_moments_from_jump_moments(h, gk, go, rho):
    """m₁..m₃ of Z_V and of MHA^⊥ = the compound free Poisson / ⊠ π_{γ_O} / D_{1/γ_K} of the
    jump law's moments (free cumulants), exactly."""
    jump = partial_kv_jump_law(1, h, gk, rho).exact_moments(3)
    values = moments_from_free_cumulants(compound_free_poisson_cumulants(jump, gk))
    layer = moments_from_free_cumulants(dilate_cumulants(boxtimes_free_cumulants(
        free_cumulants_from_moments(values), [go] * 3), 1 / gk))
    got_v = partial_kv_values_law(1, h, gk, rho).exact_moments(3)
    got = partial_kv_output_law(1, h, gk, go, rho).exact_moments(3)
    for q in range(3):
        assert _close(got_v[q], values[q]) and _close(got[q], layer[q])
    assert _close(got[0], partial_kv_mean(1, h, gk, go, rho))
    assert _close(got[0], go * (TH1 + rho**2 * h * TH2 / gk))  # readout normalisation m(ρ)


def test_jump_polynomial_degrees_and_leading_coefficient():
    P = sp.Poly(jump_polynomial(), G, z)
    assert P.degree_list() == (7, 4)
    k, t, r = sp.symbols("kappa t r")
    assert sp.factor(P.coeff_monomial(G**7 * z**4)) == sp.factor(k**2 * t**6 * (1 - r) ** 3)


def test_generic_route_at_rho_zero_is_the_independent_law():
    """The polynomial route forced at ρ = 0 gives the moments of (C.15) with γ_V = γ_K."""
    h, gk, go = 2, sp.Integer(1), sp.Rational(3, 2)
    gen = partial_kv_output_law(1, h, gk, go, 0, _generic=True).exact_moments(4)
    ref = mha_output_law(1, h, gk, gk, go).exact_moments(4)
    assert all(_close(a, b) for a, b in zip(gen, ref))


def test_not_a_mixture_of_tied_and_independent():
    """m₂(μ_ρ) − [ρ² m₂(μ_1) + (1 − ρ²) m₂(μ_0)] = −ρ²(1 − ρ²)(1 + 2t)θ₂²/t² (derivation, step 4)."""
    h, gk, rho = 2, sp.Integer(1), sp.Rational(3, 5)
    t = gk / h
    m2 = [partial_kv_jump_law(1, h, gk, x).exact_moments(2)[1] for x in (0, rho, 1)]
    mix = rho**2 * m2[2] + (1 - rho**2) * m2[0]
    assert _close(m2[1] - mix, -rho**2 * (1 - rho**2) * (1 + 2 * t) * TH2**2 / t**2)


# --------------------------------------------------------------------- end points, equal laws
X = np.linspace(0.05, 12.0, 25)


def test_rho_zero_equals_sharing_none():
    a = mha_output_law(1.0, 2, 1.0, 1.0, 1.5, rho=0.0)
    b = mha_output_law(1.0, 2, 1.0, 1.0, 1.5, sharing="none")
    np.testing.assert_allclose(a.pdf(X), b.pdf(X), rtol=0, atol=1e-10)
    assert a.params["rho"] == 0.0


def test_rho_one_equals_tied_kv():
    a = mha_output_law(1.0, 2, 1.0, 1.0, 1.5, rho=1.0)
    b = mha_output_law(1.0, 2, 1.0, 1.0, 1.5, sharing="tied_kv")
    np.testing.assert_allclose(a.pdf(X), b.pdf(X), rtol=0, atol=1e-10)
    assert mha_output_law(1.0, 2, 1.0, 1.0, 1.5, sharing="tied_kv", rho=1).mean() == b.mean()


@pytest.mark.slow
def test_generic_route_density_at_rho_zero_equals_none():
    a = partial_kv_output_law(1.0, 2, 1.0, 1.5, 0.0, _generic=True)
    b = mha_output_law(1.0, 2, 1.0, 1.0, 1.5)
    np.testing.assert_allclose(a.pdf(X), b.pdf(X), rtol=0, atol=1e-10)


@pytest.mark.slow
@pytest.mark.parametrize("gk, go", [(0.5, 2.0), (1.5, 0.75)])
def test_layer_atom_at_zero(gk, go):
    law = partial_kv_output_law(1.0, 2, gk, go, 0.6)
    atoms = dict(law.atoms())
    assert atoms[0.0] == pytest.approx(1 - min(1, gk, go), abs=1e-12)


def _check_law_with_atom(law, atom0):
    """Mass 1 (atoms included) by the law's own check and by its cdf, the atom at 0, a
    non-negative density, and m₁..m₃ by quadrature of the law against its exact moments (the
    series of P at ∞, independent of the branch tables)."""
    law.support()  # the law's own check: atoms + support intervals carry mass 1 to 1e-9
    atoms = dict(law.atoms())
    assert set(atoms) <= {0.0} and atoms.get(0.0, 0.0) == pytest.approx(atom0, abs=1e-12)
    top = law.support()[-1][1]
    assert float(law.cdf(top)) == pytest.approx(1.0, abs=1e-9)
    assert np.all(law.pdf(np.linspace(0.0, top, 401)[1:]) >= 0)
    exact = [float(m) for m in law.exact_moments(3)]
    for k in (1, 2, 3):
        assert law.moment(k, method="quad") == pytest.approx(exact[k - 1], rel=1e-9)


def test_jump_law_with_an_atom():
    """d_K > n (γ_K/h = 3/2): atom 1 − h/γ_K = 1/3 at 0."""
    _check_law_with_atom(partial_kv_jump_law(1.0, 2, 3.0, 0.6), 1 / 3)


@pytest.mark.slow
@pytest.mark.parametrize("gk, go", [(0.5, 2.0), (1.5, 0.75)])
def test_layer_law_with_an_atom_has_mass_one(gk, go):
    """(Session 2: the cdf tables carried mass 1.0002 and 0.512 and the law refused.)"""
    _check_law_with_atom(partial_kv_output_law(1.0, 2, gk, go, 0.6), 1 - min(1, gk, go))


@pytest.mark.slow
def test_layer_law_near_tied_with_an_atom():
    """`freeattn density mha --heads 2 --gamma-k 1 --gamma-o 0.5 --rho 0.99` raised "pole mass
    ambiguous": a breakpoint between two gaps 2.1e-7 from the atom at 0 bounded the
    continuation's heights (AlgebraicLaw._pole_decision), which then never reached the axis."""
    _check_law_with_atom(partial_kv_output_law(1.0, 2, 1.0, 0.5, 0.99), 0.5)


@pytest.mark.slow
def test_layer_law_nearly_independent_with_an_atom():
    """ρ = 1e-9: breakpoints far out made numeric.track's and the gap check's float64
    evaluations overflow (RuntimeWarnings, errors under pytest); the law is ρ = 0's to 1e-18."""
    _check_law_with_atom(partial_kv_output_law(1.0, 2, 1.0, 0.5, 1e-9), 0.5)


def _random_atom_points(count):
    """β ∈ [0.5, 1.5], h ≤ 8, γ_K, γ_O log-uniform in [0.2, 5] with min(γ_K, γ_O) < 1 (an atom
    1 − min{1, γ_K, γ_O} at 0), ρ ∈ [0.05, 0.95]."""
    rng = np.random.default_rng(20261201)
    out = []
    while len(out) < count:
        beta = float(rng.uniform(0.5, 1.5))
        heads = int(rng.integers(1, 9))
        gk, go = (float(v) for v in np.exp(rng.uniform(math.log(0.2), math.log(5.0), 2)))
        rho = float(rng.uniform(0.05, 0.95))
        if min(gk, go) < 1:
            out.append((beta, heads, gk, go, rho))
    return out


#: the first 4 points of the random sweep (70-180 s each, mostly the exact discriminant); the
#: 4th still fails: the branch classification's continuation (BranchData.track_mp) does not
#: reach the axis in a narrow interval at x = 7.2e-11 next to the atom at 0
_SWEEP = _random_atom_points(4)
_SWEEP[3] = pytest.param(*_SWEEP[3], marks=pytest.mark.xfail(
    strict=True, raises=ArithmeticError,
    reason="BranchData.track_mp does not reach the axis at x = 7.2e-11 (atom at 0 nearby)"))


@pytest.mark.slow
@pytest.mark.parametrize("beta, heads, gk, go, rho", _SWEEP)
def test_layer_laws_with_an_atom_at_random_points(beta, heads, gk, go, rho):
    _check_law_with_atom(partial_kv_output_law(beta, heads, gk, go, rho), 1 - min(1, gk, go))


@pytest.mark.slow
def test_mp_density_next_to_the_left_end_of_the_sweep_point():
    """The 3rd sweep point (above): its layer m₁ by quadrature was 0.5608480 for the exact
    0.5608550 (m₁, m₂, m₃ by quadrature of a dilation take the base law's dps=30 route).  The
    base law (support [0.0069, 46.53], density peak ~2.1 at 0.0116, all inside the edge zone
    of 1e-3 of the width) had pdf(x, dps=d) = 0 at x = 0.0103593 for d = 20, 33, 35: Newton on
    the edge expansion converged to another sheet's real root (42.22, Im ±1e-93 of rounding)
    and was kept; its mpmath mass was 0.616051 for γ_K = 0.619252.  Reference: the root of
    P(·, x) at 50 digits (mpmath.polyroots of the exact polynomial) nearest G(x + 1e-20i),
    the float64 route off the axis (tracked from far above; the next root is ≥ 7.5 away)."""
    base = partial_kv_output_law(0.654917626505776, 1, 0.6192522091027077, 0.9859223973077468,
                                 0.2191644132504223).base
    poly = sp.Poly(sp.expand(base.polynomial), G, z)
    deg = poly.degree_list()[0]
    refs = {0.0103593256685: "2.07753021950834341267181217574",
            0.0169649352584: "1.9523472258376074012413779658",
            0.022609765543: "1.71483794943341532008819246051"}
    for x, pinned in refs.items():
        g_off = complex(base.cauchy_transform(x + 1e-20j))
        with mpmath.workdps(50):
            xm = mpmath.mpf(x)
            coeffs = [sum(mpmath.mpf(sp.N(c, 60)) * xm**j for (i, j), c in poly.terms() if i == k)
                      for k in range(deg, -1, -1)]
            roots = mpmath.polyroots(coeffs, extraprec=300, maxsteps=200)
            dist = sorted(abs(complex(r) - g_off) for r in roots)
            assert dist[0] <= 1e-10 * abs(g_off) and dist[1] >= 1.0
            g = min(roots, key=lambda r: abs(complex(r) - g_off))
            ref = -mpmath.im(g) / mpmath.pi
            assert abs(ref - mpmath.mpf(pinned)) <= mpmath.mpf(10) ** -27 * ref
        for dps in (20, 33, 35):
            with mpmath.workdps(dps):
                assert abs(base.pdf(x, dps=dps) - ref) <= mpmath.mpf(10) ** (3 - dps) * ref, (x, dps)


@pytest.mark.parametrize("gk, go", [(sp.Rational(3, 2), sp.Rational(3, 4)),
                                    (sp.Rational(1, 2), sp.Integer(2))])
def test_layer_moments_with_an_atom(gk, go):
    """Where the float64 tables fail (above), the law's exact moments are still right."""
    test_layer_moments_from_jump_moments(2, gk, go, sp.Rational(3, 5))


# --------------------------------------------------------------------------------- parameters
@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), float("inf")])
def test_rho_outside_its_domain(bad):
    for call in (lambda: check_rho(bad),
                 lambda: partial_kv_output_law(1.0, 2, 1.0, 1.5, bad),
                 lambda: mha_output_law(1.0, 2, 1.0, 1.0, 1.5, rho=bad),
                 lambda: MHAConfig(n=40, d_k=20, heads=2, rho=bad)):
        with pytest.raises(ParameterError) as err:
            call()
        assert err.value.param == "rho" and "[0, 1]" in str(err.value)


def test_rho_parameter_conflicts():
    with pytest.raises(ParameterError) as err:
        mha_output_law(1.0, 2, 1.0, 2.0, 1.5, rho=0.5)
    assert err.value.param == "gamma_v"
    with pytest.raises(ParameterError) as err:
        mha_output_law(1.0, 2, 1.0, 1.0, 1.5, sharing="tied_kv", rho=0.5)
    assert err.value.param == "rho"
    with pytest.raises(ParameterError) as err:
        MHAConfig(n=40, d_k=20, d_v=10, heads=2, rho=0.5)
    assert err.value.param == "d_v"
    with pytest.raises(ParameterError) as err:
        MHAConfig(n=40, d_k=20, heads=2, sharing="tied_kv", rho=0.5)
    assert err.value.param == "rho"


def test_config_law_and_model_agree():
    cfg = MHAConfig.from_ratios(120, heads=2, gamma_k=1.0, gamma_o=1.5, rho=0.6,
                                kv_heads=1, sharing="mqa")
    model = AttentionModel.from_config(cfg)
    assert model.rho == 0.6 and model.config == cfg
    mean = float(cfg.law().mean())
    assert mean == pytest.approx(1.5 * (math.e - 1 + 0.36 * 2), rel=1e-14)
    assert model.limit_mean() == mean
    assert cfg.table_d2_mean() == pytest.approx(mean, rel=1e-14)
    assert float(cfg.law("values").mean()) == pytest.approx(math.e - 1 + 0.36 * 2, rel=1e-14)
    assert cfg.to_dict()["rho"] == 0.6


# ------------------------------------------------------------------------------------- CLI
def test_cli_rho_flags():
    from click.testing import CliRunner

    from freeattn.cli import main

    res = CliRunner().invoke(main, ["check", "mha", "--n", "80", "--heads", "2", "--d-k", "40",
                                    "--d-o", "120", "--rho", "0.6", "--draws", "2", "--workers",
                                    "1", "--no-law", "--ks-tol", "0.2", "--w1-tol", "0.3"])
    assert res.exit_code == 0, res.output
    assert "rho=0.6" in res.output
    for cmd in (["check", "mha", "--n", "80", "--heads", "2", "--d-k", "40", "--no-law"],
                ["density", "mha", "--heads", "2", "--gamma-k", "1"]):
        res = CliRunner().invoke(main, cmd + ["--rho", "1.5"])
        assert res.exit_code == 2 and "--rho" in res.output and "[0, 1]" in res.output, res.output
    res = CliRunner().invoke(main, ["density", "mha", "--heads", "2", "--gamma-k", "1",
                                    "--sharing", "tied_kv", "--rho", "0.5"])
    assert res.exit_code == 2 and "--rho" in res.output, res.output


@pytest.mark.slow
def test_cli_density_mha_rho(tmp_path):
    from click.testing import CliRunner

    from freeattn.cli import main

    out = tmp_path / "c.json"
    res = CliRunner().invoke(main, ["density", "mha", "--heads", "2", "--gamma-k", "1",
                                    "--gamma-o", "1.5", "--rho", "0.6", "--points", "20",
                                    "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "rho=0.6" in res.output and out.exists()
    m1 = float(res.output.split("moment 1  :")[1].split()[0])
    assert m1 == pytest.approx(1.5 * (math.e - 1 + 0.36 * 2), rel=1e-9)
