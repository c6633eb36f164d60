"""Figure 3(b): GQA (pairs of query heads share K/V) versus complete within-head K = V tying.

Hayase & Karakida 2026, §5.3 and §D.6: n = 4096, d = 8192, h d_K = h d_V = d_O = n/2
(γ_K = γ_V = γ_O = 1/2), h ∈ {2, 4, 8, 16, 32}; equal parameter counts h d_K (2d + d_O).
GQA: the independent-K/V law (C.15) through (5.4) (across-head sharing leaves it unchanged),
m = γ_O θ₁.  Tied: the law (C.21) through (5.5), m = γ_O(θ₁ + h θ₂/γ_K).  λ = 1e-4, σ² = 0.1.
GQA is better at h = 2, 4 and tying at h = 8, 16, 32.  Markers: exact finite-matrix ridge
errors (the two schemes drawn with the same seed: same queries), paired differences with
Student-t intervals.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from ..plotting.figures import errorbars, finish, mc_title, new_axes
from ..montecarlo.samplers import AttentionModel
from ..readout import IndependentKV, TiedKV, ridge_error
from ..readout.finite import draw_spectra, finite_ridge_error, interval_dict

__all__ = ["PUBLISHED", "SIZES", "HEADS", "errors", "crossover", "compute", "plot", "summary"]

PUBLISHED = {"gqa_better": [2, 4], "tied_better": [8, 16, 32],
             "paired_difference_h4": (0.04600, 0.00379),
             "max_relative_difference_mc_vs_ge": 0.0075}
LAM, SIGMA2, GAMMA = 1e-4, 0.1, 0.5
HEADS = (2, 4, 8, 16, 32)
SIZES = {"paper": {"n": 4096, "d": 8192}, "reduced": {"n": 1024, "d": 2048}}


def errors(h):
    """(E_GQA, E_tied) at γ_K = γ_V = γ_O = 1/2 and h heads (real h interpolates)."""
    gqa = float(ridge_error(IndependentKV(1.0, GAMMA, h, GAMMA, GAMMA), LAM, SIGMA2, GAMMA))
    tied = float(ridge_error(TiedKV(1.0, GAMMA, h, GAMMA), LAM, SIGMA2, GAMMA))
    return gqa, tied


def crossover(lo=2.0, hi=32.0):
    """Head count h_c in [lo, hi] where E_tied = E_GQA (Brent's method on a grid bracket)."""
    def f(h):
        g, t = errors(h)
        return t - g
    grid = np.geomspace(lo, hi, 17)
    vals = [f(h) for h in grid]
    for a, b, fa, fb in zip(grid[:-1], grid[1:], vals[:-1], vals[1:]):
        if fa * fb < 0:
            return brentq(f, a, b, xtol=1e-12)
    raise ArithmeticError("no crossover in [2, 32]")


def compute(mc="reduced", draws=10, seed=0, points=61):
    hs = np.geomspace(2, 32, points)
    pairs = [errors(h) for h in hs]
    at = {str(h): dict(zip(("gqa", "tied"), errors(h))) for h in HEADS}
    out = {"figure": "fig3b", "lambda": LAM, "sigma2": SIGMA2, "gamma": GAMMA,
           "theory": {"h": hs.tolist(), "gqa": [p[0] for p in pairs],
                      "tied": [p[1] for p in pairs], "at_heads": at,
                      "gqa_better": [h for h in HEADS if at[str(h)]["gqa"] < at[str(h)]["tied"]],
                      "tied_better": [h for h in HEADS if at[str(h)]["tied"] < at[str(h)]["gqa"]],
                      "crossover_h": crossover()},
           "published": PUBLISHED}
    if mc != "none":
        size = SIZES[mc]
        n, d = size["n"], size["d"]
        mcr = {"size": mc, "n": n, "draws": draws, "seed": seed, "points": []}
        worst = 0.0
        for i, h in enumerate(HEADS):
            dk = n // 2 // h
            res = {}
            for scheme in ("gqa", "tied"):
                model = AttentionModel(beta=1.0, n=n, d=d, d_k=dk, heads=h, kind="mha",
                                       d_v=dk, d_o=n // 2, kv_heads=h // 2 if scheme == "gqa"
                                       else None, tied=scheme == "tied")
                specs = [row[0] for row in draw_spectra(model, draws, seed + i)]
                res[scheme] = np.array([finite_ridge_error(s, LAM, SIGMA2) for s in specs])
            p = {"h": h, "d_k": dk, "gqa": interval_dict(res["gqa"]),
                 "tied": interval_dict(res["tied"]),
                 "tied_minus_gqa": interval_dict(res["tied"] - res["gqa"]),
                 "theory": at[str(h)]}
            for s in ("gqa", "tied"):
                worst = max(worst, abs(p[s]["mean"] - at[str(h)][s]) / at[str(h)][s])
            mcr["points"].append(p)
        mcr["max_relative_difference"] = worst
        out["monte_carlo"] = mcr
    return out


def summary(res):
    th = res["theory"]
    lines = [f"Figure 3(b): GQA vs tied K = V, gamma_K = gamma_V = gamma_O = {GAMMA}, "
             f"lambda = {LAM:g}, sigma^2 = {SIGMA2:g}",
             "  h   E_GQA     E_tied    tied - GQA"]
    for h in HEADS:
        a = th["at_heads"][str(h)]
        lines.append(f" {h:3d}  {a['gqa']:.5f}  {a['tied']:.5f}  {a['tied'] - a['gqa']:+.5f}")
    lines.append(f"GQA better at h = {th['gqa_better']} (paper: {PUBLISHED['gqa_better']}); "
                 f"tied better at h = {th['tied_better']} (paper: {PUBLISHED['tied_better']})")
    lines.append(f"preference reverses at h_c = {th['crossover_h']:.4f}")
    mcr = res.get("monte_carlo")
    if mcr:
        lines.append(f"Monte Carlo ({mcr['size']}: n = {mcr['n']}, {mcr['draws']} draws): "
                     "h  GQA  tied  tied-GQA [t 95%]")
        for p in mcr["points"]:
            dd = p["tied_minus_gqa"]
            lines.append(f"  {p['h']:3d}  {p['gqa']['mean']:.4f}  {p['tied']['mean']:.4f}  "
                         f"{dd['mean']:+.5f} ± {dd['high'] - dd['mean']:.5f}")
        m, hw = PUBLISHED["paired_difference_h4"]
        lines.append(f"paper, n = 4096, h = 4: tied - GQA = {m:+.5f} ± {hw:.5f}; largest "
                     f"relative MC-GE difference here {mcr['max_relative_difference']:.4f}")
    return lines


def plot(res, path, dpi=150):
    th = res["theory"]
    fig, ax = new_axes()
    ax.plot(th["h"], th["gqa"], color="C0", label="GQA (pairs), (5.4)")
    ax.plot(th["h"], th["tied"], color="C1", label="tied K = V, (5.5)")
    ax.axvline(th["crossover_h"], ls=":", color="gray", lw=0.8)
    mcr = res.get("monte_carlo")
    if mcr:
        pts = mcr["points"]
        for s, c in (("gqa", "C0"), ("tied", "C1")):
            errorbars(ax, [p["h"] for p in pts], [p[s] for p in pts], color=c)
    return finish(fig, ax, path, xlabel="heads h (h d_K = h d_V = d_O = n/2)",
                  ylabel="coefficient error E_λ", xscale=("log", {"base": 2}),
                  title=mc_title(res), dpi=dpi)
