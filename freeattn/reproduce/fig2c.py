"""Figure 2(c): ridge coefficient error along the fixed-output and fixed-budget paths.

Hayase & Karakida 2026, §5.2 and §D.3: d = n = 4096, d_K = d_V = 64 (γ_K = γ_V = h/64),
λ = 1e-4, σ² = 0.1.  Fixed output: γ_O = 1/2 (peak near h d_V = d_O, h = 32).  Fixed budget
N_par = 6n²: γ_O = 6/γ_V − 3 (peaks near h d_V = n at h = 64 and d_O = n at h = 96).
Theory: (5.4) + (5.2), h interpolated between integers.  Markers: exact finite-matrix ridge
errors of softmax features at integer h, mean over draws with Student-t 95 % intervals.
"""
from __future__ import annotations

import numpy as np

from ..plotting.figures import errorbars, finish, mc_title, new_axes
from ..montecarlo.samplers import AttentionModel
from ..readout import IndependentKV, ridge_error
from ..readout.finite import draw_spectra, finite_ridge_error, interval_dict

__all__ = ["PUBLISHED", "SIZES", "gamma_o", "error", "compute", "plot", "summary"]

PUBLISHED = {"fixed_output_peaks_near_h": [32], "fixed_budget_peaks_near_h": [64, 96],
             "max_relative_difference_mc_vs_ge": 0.0172}
LAM, SIGMA2 = 1e-4, 0.1
PATHS = {"fixed_output": (16, 120), "fixed_budget": (32, 120)}
MC_HEADS = {"fixed_output": (16, 24, 32, 48, 64, 96, 120),
            "fixed_budget": (32, 48, 64, 80, 96, 112, 120)}
SIZES = {"paper": {"n": 4096, "head_width": 64}, "reduced": {"n": 256, "head_width": 4}}


def gamma_o(path, h):
    """γ_O on a path: 1/2 (fixed output) or 6/γ_V − 3 with γ_V = h/64 (fixed budget)."""
    return 0.5 if path == "fixed_output" else 6 / (h / 64) - 3


def error(path, h):
    g, go = h / 64, gamma_o(path, h)
    return float(ridge_error(IndependentKV(1.0, g, h, g, go), LAM, SIGMA2, go))


def _local_maxima(h, e):
    return [float(h[i]) for i in range(1, len(e) - 1) if e[i] > e[i - 1] and e[i] >= e[i + 1]]


def compute(mc="reduced", draws=10, seed=0, points=105):
    out = {"figure": "fig2c", "lambda": LAM, "sigma2": SIGMA2, "theory": {},
           "published": PUBLISHED}
    for path, (lo, hi) in PATHS.items():
        hs = np.linspace(lo, hi, points)
        es = [error(path, h) for h in hs]
        # locate the peaks on a fine grid around each coarse local maximum
        fine = np.linspace(lo, hi, 20 * points)
        ef = [error(path, h) for h in fine]
        out["theory"][path] = {"h": hs.tolist(), "error": es, "peaks_h": _local_maxima(fine, ef)}
    if mc != "none":
        size = SIZES[mc]
        n, w = size["n"], size["head_width"]
        mcr = {"size": mc, "n": n, "draws": draws, "seed": seed}
        worst = 0.0
        for j, path in enumerate(PATHS):
            pts = []
            for i, h in enumerate(MC_HEADS[path]):
                d_o = int(round(gamma_o(path, h) * n))
                model = AttentionModel(beta=1.0, n=n, d_k=w, heads=h, kind="mha", d_v=w,
                                       d_o=d_o)
                specs = [row[0] for row in draw_spectra(model, draws, seed + 100 * j + i)]
                p = interval_dict([finite_ridge_error(s, LAM, SIGMA2) for s in specs])
                lw = IndependentKV(1.0, model.gamma_k, h, model.gamma_v, model.gamma_o)
                p.update(h=h, d_o=d_o, theory=float(ridge_error(lw, LAM, SIGMA2,
                                                                model.gamma_o)))
                worst = max(worst, abs(p["mean"] - p["theory"]) / p["theory"])
                pts.append(p)
            mcr[path] = pts
        mcr["max_relative_difference"] = worst
        out["monte_carlo"] = mcr
    return out


def summary(res):
    lines = [f"Figure 2(c): ridge error, lambda = {LAM:g}, sigma^2 = {SIGMA2:g}, "
             "gamma_K = gamma_V = h/64"]
    for path in PATHS:
        th = res["theory"][path]
        lines.append(f" {path}: peaks at h = " + ", ".join(f"{p:.1f}" for p in th["peaks_h"])
                     + f"  (paper: near h = {PUBLISHED[path + '_peaks_near_h']})")
    mcr = res.get("monte_carlo")
    if mcr:
        lines.append(f"Monte Carlo ({mcr['size']}: n = {mcr['n']}, {mcr['draws']} draws): "
                     "h  d_O  error [t 95%]  GE")
        for path in PATHS:
            lines.append(f" {path}:")
            for p in mcr[path]:
                lines.append(f"  {p['h']:4d} {p['d_o']:6d}  {p['mean']:.4f} "
                             f"[{p['low']:.4f}, {p['high']:.4f}]  {p['theory']:.4f}")
        lines.append(f"largest relative MC-GE difference: {mcr['max_relative_difference']:.4f}"
                     f" (paper, n = 4096: {PUBLISHED['max_relative_difference_mc_vs_ge']})")
    return lines


def plot(res, path, dpi=150):
    fig, ax = new_axes()
    mcr = res.get("monte_carlo")
    for i, p in enumerate(PATHS):
        th = res["theory"][p]
        ax.plot(th["h"], th["error"], color=f"C{i}", label=p.replace("_", " "))
        if mcr:
            errorbars(ax, [q["h"] for q in mcr[p]], mcr[p], color=f"C{i}")
    for x in (32, 64, 96):
        ax.axvline(x, ls=":", color="gray", lw=0.8)
    return finish(fig, ax, path, xlabel="heads h (d_K = d_V fixed)",
                  ylabel="coefficient error E_λ", yscale="log", title=mc_title(res), dpi=dpi)
