"""Figure 2(d): coefficient-error ratio (d_K, d_V) = (64, 192) over (128, 128) against β.

Hayase & Karakida 2026, §5.2 and §D.4: h = 96, n = 8192, d = d_O = 3n/2 (γ_O = 3/2), equal
parameter counts 2 d h (d_K + d_V); λ = 1e-4, σ² = 0.1.  Theory: (5.4) + (5.2) at
γ_K = h d_K/n, γ_V = h d_V/n; the crossover β_c solves (D.1).  Markers: exact finite-matrix
ridge errors of softmax features, the same weights across β within each draw, ratios of means
with Fieller 95 % intervals.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from ..montecarlo.samplers import AttentionModel
from ..plotting.figures import errorbars, finish, new_axes
from ..readout import IndependentKV, ridge_error
from ..readout.finite import draw_spectra, fieller_interval, finite_ridge_error

__all__ = ["PUBLISHED", "SIZES", "error", "ratio", "crossover", "compute", "plot"]

#: the paper's published values (comparison only, never used in a computation)
PUBLISHED = {"beta_c": 0.559, "max_relative_difference_mc_vs_ge": 0.0152}
LAM, SIGMA2, HEADS = 1e-4, 0.1, 96
BETAS_MC = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5)
#: n, d = d_O, and the two allocations (d_K, d_V) [equal (128,128)-type first]
SIZES = {"paper": {"n": 8192, "d": 12288, "alloc": ((128, 128), (64, 192))},
         "reduced": {"n": 1024, "d": 1536, "alloc": ((16, 16), (8, 24))}}
_N, _ALLOC = SIZES["paper"]["n"], SIZES["paper"]["alloc"]


def error(beta, d_k, d_v, n=_N, d_o=None):
    """E_λ(β; d_K, d_V) from (5.4) and (5.2) at γ_K = h d_K/n, γ_V = h d_V/n, γ_O = d_O/n."""
    d_o = 3 * n // 2 if d_o is None else d_o
    law = IndependentKV(beta, HEADS * d_k / n, HEADS, HEADS * d_v / n, d_o / n)
    return float(ridge_error(law, LAM, SIGMA2, d_o / n))


def ratio(beta):
    """E_λ(β; 64, 192)/E_λ(β; 128, 128) at the paper's ratios."""
    (k1, v1), (k2, v2) = _ALLOC
    return error(beta, k2, v2) / error(beta, k1, v1)


def crossover(lo=0.25, hi=1.5):
    """β_c in [lo, hi] with ratio(β_c) = 1 (eq. (D.1)); Brent's method after a grid scan."""
    grid = np.linspace(lo, hi, 26)
    vals = [ratio(b) - 1 for b in grid]
    for a, b, fa, fb in zip(grid[:-1], grid[1:], vals[:-1], vals[1:]):
        if fa == 0:
            return float(a)
        if fa * fb < 0:
            return brentq(lambda x: ratio(x) - 1, a, b, xtol=1e-14, rtol=1e-14)
    raise ArithmeticError("no crossover in the displayed range")


def compute(mc="reduced", draws=10, seed=0, points=121):
    """Theory curve, β_c and (unless ``mc='none'``) Monte Carlo ratios with Fieller intervals."""
    betas = np.linspace(0.2, 1.6, points)
    out = {"figure": "fig2d", "lambda": LAM, "sigma2": SIGMA2, "heads": HEADS,
           "theory": {"beta": betas.tolist(), "ratio": [ratio(b) for b in betas]},
           "beta_c": crossover(), "published": PUBLISHED}
    if mc != "none":
        size = SIZES[mc]
        n, d = size["n"], size["d"]
        errs = []
        for d_k, d_v in size["alloc"]:
            model = AttentionModel(beta=1.0, n=n, d_k=d_k, heads=HEADS, kind="mha", d=d,
                                   d_v=d_v, d_o=d)
            specs = draw_spectra(model, draws, seed, betas=BETAS_MC)
            errs.append(np.array([[finite_ridge_error(s, LAM, SIGMA2) for s in row]
                                  for row in specs]))  # (draws, betas)
        pts = []
        for j, b in enumerate(BETAS_MC):
            r, lo, hi = fieller_interval(errs[1][:, j], errs[0][:, j])
            ge = error(b, *size["alloc"][1], n=n, d_o=d) / error(b, *size["alloc"][0], n=n, d_o=d)
            pts.append({"beta": b, "ratio": r, "low": lo, "high": hi, "theory": ge,
                        "relative_difference": abs(r - ge) / ge})
        out["monte_carlo"] = {"size": mc, "n": n, "d": d, "draws": draws, "seed": seed,
                              "points": pts,
                              "max_relative_difference": max(p["relative_difference"]
                                                             for p in pts)}
    return out


def summary(res):
    lines = [f"Figure 2(d): error ratio (64,192)/(128,128), h = {HEADS}, gamma_O = 3/2, "
             f"lambda = {LAM:g}, sigma^2 = {SIGMA2:g}",
             f"crossover beta_c = {res['beta_c']:.6f}   (paper: {PUBLISHED['beta_c']})",
             f"ratio at beta = 1: {ratio(1.0):.6f}"]
    mcr = res.get("monte_carlo")
    if mcr:
        lines.append(f"Monte Carlo ({mcr['size']}: n = {mcr['n']}, {mcr['draws']} draws): "
                     "beta  ratio [Fieller 95%]  GE")
        for p in mcr["points"]:
            lines.append(f"  {p['beta']:.2f}  {p['ratio']:.5f} [{p['low']:.5f}, {p['high']:.5f}]"
                         f"  {p['theory']:.5f}")
        lines.append(f"largest relative MC-GE difference: {mcr['max_relative_difference']:.4f}"
                     f"  (paper, n = 8192: < {PUBLISHED['max_relative_difference_mc_vs_ge']})")
    return lines


def plot(res, path, dpi=150):
    fig, ax = new_axes()
    ax.plot(res["theory"]["beta"], res["theory"]["ratio"], "-", color="C0", label="GE (5.4)")
    ax.axhline(1.0, ls="--", color="gray", lw=0.8)
    ax.axvline(res["beta_c"], ls=":", color="C3", lw=0.8,
               label=f"β_c = {res['beta_c']:.3f}")
    mcr = res.get("monte_carlo")
    if mcr:
        p = mcr["points"]
        errorbars(ax, [q["beta"] for q in p], p, value="ratio", color="C1", ms=4,
                  label=f"softmax MHA (n = {mcr['n']})")
    return finish(fig, ax, path, xlabel="β", ylabel="E(64,192) / E(128,128)", dpi=dpi)
