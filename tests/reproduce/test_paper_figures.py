"""Fig. 2(b), Fig. D.1, Table D.1 and §C.4's (C.22)-(C.23) (Hayase & Karakida 2026)."""
import json
import os
import math
import runpy
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from click.testing import CliRunner

from freeattn.attention import attention_law, c_beta, kv_values_law, theta1, theta2, values_law
from freeattn.cli import main
from freeattn.readout import IndependentKV
from freeattn.reproduce import dof_expansion as dx
from freeattn.reproduce import fig2b, figD1, tableD1

DERIVATIONS = Path(__file__).resolve().parents[2] / "derivations"


@pytest.fixture(scope="module")
def derivation():
    """derivations/degrees_of_freedom.py, run (it asserts its own identities)."""
    return runpy.run_path(str(DERIVATIONS / "degrees_of_freedom.py"))


def test_c22_c23_against_the_derivation(derivation):
    g = derivation
    u, mbar2 = g["u"], g["mbar2"]
    h1, h2, gv, gk, c = g["h1"], g["h2"], g["gV"], g["gK"], g["c"]
    vals = {h1: 3, h2: 12, gv: 0.7, gk: 1.6, c: c_beta(1.2)}
    for h in (3, 12):
        ours = dx.normalised_moments(1.2, 1.6, h, 0.7)[1]
        assert ours == pytest.approx(float(g["mb"](h).subs(vals)), rel=1e-13)
    lam = 37.0
    two = g["w_bar"].subs(mbar2, 2.5)
    series = float(sum(two.coeff(u, k) * (1 / lam) ** k for k in (1, 2)))
    assert dx.dof_expansion(lam, 2.5)["two_term"] == pytest.approx(series, rel=1e-14)
    lead = float(g["lead"].subs(vals))
    assert dx.head_count_gap(lam, 3, 12) * lam ** 2 == pytest.approx(lead, rel=1e-14)


@pytest.mark.parametrize("beta,gk,h", [(1.0, 1.0, 4), (0.6, 0.5, 2), (1.4, 3.0, 8)])
def test_normalised_moments_against_the_laws(beta, gk, h):
    """Attention alone and the values Z_V: moments of the engine's laws, normalised."""
    att = attention_law(beta, gk, h)
    m = [float(att.moment(k)) for k in (1, 2, 3)]
    ours = dx.normalised_moments(beta, gk, h)
    assert ours[1] == pytest.approx(m[1] / m[0] ** 2, rel=1e-10)
    assert ours[2] == pytest.approx(m[2] / m[0] ** 3, rel=1e-10)
    vl = values_law(beta, h, gk, 0.8)
    mv = [float(vl.moment(k)) for k in (1, 2, 3)]
    ours = dx.normalised_moments(beta, gk, h, 0.8)
    assert ours[1] == pytest.approx(mv[1] / mv[0] ** 2, rel=1e-10)
    assert ours[2] == pytest.approx(mv[2] / mv[0] ** 3, rel=1e-10)


def test_c22_bounds_hold_for_the_exact_w():
    """0 <= w - (1/λ - m̄₂/λ²) <= m̄₃/λ³ for the scalar equation's w, and the remainder
    times λ³ tends to m̄₃."""
    m = dx.normalised_moments(1.0, 1.0, 4, 1.0, 2.0)
    law = IndependentKV(1.0, 1.0, 4, 1.0, 2.0)
    for lam in (3.0, 30.0, 300.0):
        w = float(law.w(lam))
        e = dx.dof_expansion(lam, m[1], m[2])
        assert e["low"] <= w <= e["high"]
    lam = 1e4
    r = (float(law.w(lam, dps=40)) - dx.dof_expansion(lam, m[1])["two_term"]) * lam ** 3
    assert r == pytest.approx(m[2], rel=2e-3)


def test_tied_versus_independent_closed_forms_and_law():
    """§C.4 at β = 1: m̄₂ = 1 + (2 + (e-1)^-2)/h (independent), 1 + (2 + 2/e + 2/e²)/h (tied);
    m₁(μ_KV) = e, m₂(μ_KV) = 2e² + 2e + 2; the tied values law's own moments."""
    e = math.e
    for h in (1, 4, 16):
        t = dx.tied_versus_independent(1.0, h, h)
        assert t["mbar2_ind"] == pytest.approx(1 + (2 + (e - 1) ** -2) / h, rel=1e-13)
        assert t["mbar2_tied"] == pytest.approx(1 + (2 + 2 / e + 2 / e ** 2) / h, rel=1e-13)
        assert t["m1_tied"] == pytest.approx(h * e, rel=1e-13)
        assert t["m1_mu_kv"] == pytest.approx(e, rel=1e-13)
        assert t["m2_mu_kv"] == pytest.approx(2 * e * e + 2 * e + 2, rel=1e-13)
    t = dx.tied_versus_independent(0.8, 2.0, 4)
    law = kv_values_law(0.8, 4, 2.0)
    m1, m2 = float(law.moment(1)), float(law.moment(2))
    assert t["m1_tied"] == pytest.approx(m1, rel=1e-10)
    assert t["m1_tied"] == pytest.approx(2.0 * theta1(0.8) + 4 * theta2(0.8), rel=1e-12)
    assert t["mbar2_tied"] == pytest.approx(m2 / m1 ** 2, rel=1e-10)


def test_fig2b_boundaries_and_peaks():
    res = fig2b.compute(points_h=15, points_g=13, path_points=41)
    c = res["crossings"]
    assert (c["hdv_eq_do_fixed_output"], c["hdv_eq_n_fixed_budget"],
            c["do_eq_n_fixed_budget"]) == (32, 64, 96)
    assert [round(p) for p in res["paths"]["fixed_output"]["peaks_h"]] == [32]
    assert [round(p) for p in res["paths"]["fixed_budget"]["peaks_h"]] == [64, 96]
    step = math.log(res["gamma_o"][1] / res["gamma_o"][0])
    for r in res["ridge"]:
        if r["gamma_o_peak"] is not None:
            assert abs(math.log(r["gamma_o_peak"] / r["boundary"])) <= step


def test_figD1_limits():
    """The panels' limits: (C.16) normalised variances in (a); γ_O θ₁ and the x^{-1/2}
    divergence at zero in (b); the tied mean γ_O(θ₁ + h θ₂/γ_K) in (c); sharing keeps the law."""
    th1, th2, c2 = theta1(1.0), theta2(1.0), c_beta(1.0) ** 2
    for name, h in (("attention h=4", 4), ("attention h=16", 16)):
        law = figD1.model(name).law()
        nv = float(law.moment(2)) / float(law.moment(1)) ** 2 - 1
        assert nv == pytest.approx(1 / h + c2 / 16, rel=1e-10)
    small = figD1.model("mha d_O=256").law()
    assert float(small.mean()) == pytest.approx(th1, rel=1e-10)
    p = np.asarray(small.pdf([1e-8, 1e-6]), dtype=float)
    assert p[0] / p[1] == pytest.approx(10.0, rel=1e-3)
    assert float(figD1.model("tied within heads").law().mean()) == pytest.approx(
        16 * (th1 + 16 * th2 / 16), rel=1e-10)
    shared = figD1.model("shared across heads").law()
    ind = figD1.model("independent").law()
    assert float(shared.moment(3)) == pytest.approx(float(ind.moment(3)), rel=1e-12)


def test_figD1_one_draw_against_its_limit():
    from freeattn.montecarlo import ks_distance, sample

    m = figD1.model("attention h=16")
    ev = sample(m, 0, gaussian=False).softmax
    assert ks_distance(ev, m.law()) < 0.1


def _pt(mean, lo, hi, **kw):
    return dict(mean=mean, low=lo, high=hi, **kw)


def test_tableD1_rows_from_results():
    res = {
        "fig2c": {"monte_carlo": {"n": 256, "fixed_output": [_pt(1.0, 0.9, 1.05, h=16)],
                                  "fixed_budget": [_pt(2.0, 1.97, 2.2, h=32)]}},
        "fig3a": {"monte_carlo": {"n": 512, "baseline": dict(arrival=40.0, low=35.0, high=41.0,
                                                             kv_heads=64),
                                  "fixed_widths": [dict(arrival=10.0, low=9.0, high=10.5,
                                                        kv_heads=1)],
                                  "fixed_count": [dict(arrival=8.0, low=7.9, high=8.3,
                                                       kv_heads=1)]}},
        "fig2d": {"monte_carlo": {"n": 1024, "points": [dict(ratio=0.9, low=0.88, high=0.95,
                                                             beta=1.0)]}},
    }
    rows = {(r["figure"], r["quantity"]): r for r in tableD1.rows(res)}
    r = rows[("2(c)", "Coefficient error")]
    assert r["absolute"] == pytest.approx(0.2) and r["relative"] == pytest.approx(10.0)
    assert r["published"] == (0.02381, 0.562)
    fw = rows[("3(a)", "Arrival time, fixed widths")]
    assert fw["absolute"] == pytest.approx(5.0)           # the baseline counts in both rows
    assert fw["relative"] == pytest.approx(12.5)
    fc = rows[("3(a)", "Arrival time, fixed parameter count")]
    assert fc["absolute"] == pytest.approx(5.0)
    assert rows[("3(a)", "shared configurations, fixed parameter count (text)")]["absolute"] \
        == pytest.approx(0.3)
    assert rows[("2(d)", "Coefficient-error ratio")]["absolute"] == pytest.approx(0.05)
    assert tableD1.error_bar(_pt(1.0, 0.5, 1.2)) == 0.5


def test_errorbars_draw_the_interval():
    from freeattn.plotting.figures import errorbars, new_axes

    fig, ax = new_axes()
    cont = errorbars(ax, [1.0, 2.0], [_pt(1.0, 0.8, 1.5), _pt(2.0, 1.9, 2.1)])
    segs = cont.lines[2][0].get_segments()
    assert np.allclose(segs[0], [[1.0, 0.8], [1.0, 1.5]])
    assert np.allclose(segs[1], [[2.0, 1.9], [2.0, 2.1]])


def test_cli_reproduce_new_commands(tmp_path):
    run = CliRunner().invoke(main, ["reproduce", "dof-expansion", "--heads", "2,8"])
    assert run.exit_code == 0, run.output
    assert "in bounds" in run.output and "OUT OF" not in run.output
    run = CliRunner().invoke(main, ["reproduce", "fig2b", "--points", "9"])
    assert run.exit_code == 0, run.output
    assert "(paper 96)" in run.output
    src = tmp_path / "fig2c.json"
    src.write_text(json.dumps({"figure": "fig2c", "monte_carlo": {
        "n": 256, "fixed_output": [_pt(1.0, 0.9, 1.05, h=16)], "fixed_budget": []}}))
    run = CliRunner().invoke(main, ["reproduce", "tableD1", "--mc", "none", "--from", str(src)])
    assert run.exit_code == 0, run.output
    assert "0.10000" in run.output and "0.02381" in run.output
    bad = CliRunner().invoke(main, ["reproduce", "dof-expansion", "--heads", "8,2"])
    assert bad.exit_code == 2 and "--heads" in bad.output


def test_cli_reproduce_out_convention(tmp_path, monkeypatch):
    """--json prints what --out FILE.json writes; a command without a figure refuses an
    image --out naming it; fig2b --out FILE.png writes the figure (not fig2b.png here)."""
    path = tmp_path / "d.json"
    run = CliRunner().invoke(main, ["reproduce", "dof-expansion", "--heads", "2,8", "--json",
                                    "--out", str(path)])
    assert run.exit_code == 0, run.output
    assert json.loads(path.read_text()) == json.loads(run.output)
    bad = CliRunner().invoke(main, ["reproduce", "dof-expansion", "--out",
                                    str(tmp_path / "d.png")])
    assert bad.exit_code == 2 and "--out" in bad.output
    fig = tmp_path / "map.png"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    run = CliRunner().invoke(main, ["reproduce", "fig2b", "--points", "9", "--out", str(fig)])
    assert run.exit_code == 0, run.output
    assert fig.read_bytes()[:4] == b"\x89PNG"
    assert os.listdir(cwd) == []


@pytest.mark.slow
def test_figD1_compute_panels():
    """Two draws of every condition: (a) concentration, (c) sharing keeps and tying moves
    the law (KS of the sampled spectra to the independent-heads limit)."""
    res = figD1.compute(draws=2)
    c = res["conditions"]
    assert c["attention h=16"]["normalised_variance"]["mean"] < \
        c["attention h=4"]["normalised_variance"]["mean"]
    assert c["shared across heads"]["ks_to_independent_limit"] < 0.06
    assert c["tied within heads"]["ks_to_independent_limit"] > 0.2
    for d in c.values():
        assert d["ks_to_limit"]["mean"] < 0.1
