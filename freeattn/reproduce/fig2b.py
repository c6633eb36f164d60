"""Figure 2(b): the coefficient-error map over head count h and output ratio γ_O.

Hayase & Karakida 2026 (arXiv 2610.10033), §5.2 and §D.3: d = n = 4096, d_K = d_V = 64, so
γ_K = γ_V = h/64; λ = 1e-4, σ² = 0.1, β = 1.  Colours: the limiting error E_λ of (5.1)–(5.2)
through (5.4) (continuous in h).  Paths: fixed output γ_O = 1/2 (blue) and fixed budget
N_par = 6n², γ_O = 6/γ_V − 3 (orange).  Dotted lines: the width boundaries where the smallest
of h d_V/n, d_O/n, 1 changes: γ_V = 1 (h = 64), γ_O = 1 and γ_O = γ_V (h d_V = d_O).  The
paths cross them at h = 32 (h d_V = d_O, fixed output), h = 64 (h d_V = n) and h = 96
(d_O = n) (fixed budget), where the error peaks (the paper's text and §D.3).
"""
from __future__ import annotations

import numpy as np

from ..plotting.figures import draw_legend, new_axes
from ..plotting.setup import mathtext, save
from .fig2c import LAM, PATHS, SIGMA2, error, gamma_o
from ..readout import IndependentKV, ridge_error

__all__ = ["PUBLISHED", "map_error", "compute", "summary", "plot"]

PUBLISHED = {"boundaries": {"hdv_eq_do_fixed_output": 32, "hdv_eq_n_fixed_budget": 64,
                            "do_eq_n_fixed_budget": 96},
             "fixed_output_gamma_o": 0.5, "fixed_budget": "gamma_O = 6/gamma_V - 3",
             "lambda": LAM, "sigma2": SIGMA2}
H_RANGE = (16.0, 128.0)
GAMMA_O_RANGE = (0.1, 10.0)


def map_error(h, g_o):
    """E_λ at γ_K = γ_V = h/64 and γ_O (β = 1, λ = 1e-4, σ² = 0.1)."""
    g = h / 64
    return float(ridge_error(IndependentKV(1.0, g, h, g, g_o), LAM, SIGMA2, g_o))


def _crossings():
    """Heads where each path meets a width boundary (exact, from the path formulas)."""
    # fixed output: γ_V = h/64 = γ_O = 1/2 -> h = 32; fixed budget: γ_V = 1 -> h = 64;
    # 6/γ_V − 3 = 1 -> γ_V = 3/2 -> h = 96
    return {"hdv_eq_do_fixed_output": 64 * gamma_o("fixed_output", 0),
            "hdv_eq_n_fixed_budget": 64.0,
            "do_eq_n_fixed_budget": 64 * 6 / (1 + 3)}


def compute(points_h=57, points_g=49, path_points=105):
    hs = np.linspace(*H_RANGE, points_h)
    gs = np.geomspace(*GAMMA_O_RANGE, points_g)
    grid = [[map_error(h, g) for h in hs] for g in gs]
    # the error's ridge in γ_O at each h against the boundary γ_O = min(1, γ_V)
    ridge = []
    for j, h in enumerate(hs):
        col = [row[j] for row in grid]
        peaks = [i for i in range(1, len(col) - 1) if col[i] > col[i - 1] and col[i] >= col[i + 1]]
        b = min(1.0, h / 64)
        best = min(peaks, key=lambda i: abs(np.log(gs[i] / b))) if peaks else None
        ridge.append({"h": float(h), "gamma_o_peaks": [float(gs[i]) for i in peaks],
                      "gamma_o_peak": None if best is None else float(gs[best]),
                      "boundary": float(b)})
    paths = {}
    for p, (lo, hi) in PATHS.items():
        hh = np.linspace(lo, hi, path_points)
        e = [error(p, h) for h in hh]
        fine = np.linspace(lo, hi, 20 * path_points)
        ef = [error(p, h) for h in fine]
        peaks = [float(fine[i]) for i in range(1, len(ef) - 1)
                 if ef[i] > ef[i - 1] and ef[i] >= ef[i + 1]]
        paths[p] = {"h": hh.tolist(), "gamma_o": [gamma_o(p, h) for h in hh], "error": e,
                    "peaks_h": peaks}
    return {"figure": "fig2b", "lambda": LAM, "sigma2": SIGMA2, "h": hs.tolist(),
            "gamma_o": gs.tolist(), "error": grid, "ridge": ridge, "paths": paths,
            "crossings": _crossings(), "published": PUBLISHED}


def summary(res):
    c, pub = res["crossings"], PUBLISHED["boundaries"]
    lines = [f"Figure 2(b): E_lambda map, gamma_K = gamma_V = h/64, lambda = {LAM:g}, "
             f"sigma^2 = {SIGMA2:g}; h in [{res['h'][0]:g}, {res['h'][-1]:g}], gamma_O in "
             f"[{res['gamma_o'][0]:g}, {res['gamma_o'][-1]:g}]",
             f" boundary crossings: h d_V = d_O at h = {c['hdv_eq_do_fixed_output']:g} (paper "
             f"{pub['hdv_eq_do_fixed_output']}), h d_V = n at h = {c['hdv_eq_n_fixed_budget']:g} "
             f"(paper {pub['hdv_eq_n_fixed_budget']}), d_O = n at h = "
             f"{c['do_eq_n_fixed_budget']:g} (paper {pub['do_eq_n_fixed_budget']})"]
    for p, d in res["paths"].items():
        lines.append(f" {p.replace('_', ' ')} path: error peaks at h = "
                     + ", ".join(f"{x:.1f}" for x in d["peaks_h"]))
    found = [r for r in res["ridge"] if r["gamma_o_peak"] is not None]
    worst = max(abs(np.log(r["gamma_o_peak"] / r["boundary"])) for r in found)
    step = np.log(res["gamma_o"][1] / res["gamma_o"][0])
    lines.append(f" the map's peak in gamma_O at fixed h lies on the boundary gamma_O = "
                 f"min(1, gamma_V) in {len(found)} of {len(res['ridge'])} columns: largest "
                 f"|log(peak/boundary)| {worst:.3f} (grid step {step:.3f})")
    return lines


def plot(res, path, dpi=150):
    fig, ax = new_axes(figsize=(5.4, 3.9))
    h, g = np.array(res["h"]), np.array(res["gamma_o"])
    im = ax.pcolormesh(h, g, np.log10(np.array(res["error"])), shading="auto", cmap="viridis")
    fig.colorbar(im, ax=ax, label=mathtext("log10 coefficient error E_λ", single=True))
    for i, (p, d) in enumerate(res["paths"].items()):
        ax.plot(d["h"], d["gamma_o"], color=("tab:blue", "tab:orange")[i], lw=1.8,
                label=p.replace("_", " "))
    # where the smallest of γ_V, γ_O, 1 changes: γ_O = γ_V below 1, then γ_V = 1 and γ_O = 1
    low = h[h <= 64]
    ax.plot(np.append(low, 64.0), np.append(low / 64, 1.0), ls=":", color="white", lw=1)
    ax.plot([64.0, 64.0], [1.0, g[-1]], ls=":", color="white", lw=1)
    ax.plot([64.0, h[-1]], [1.0, 1.0], ls=":", color="white", lw=1)
    ax.set_yscale("log")
    ax.set_ylim(g[0], g[-1])
    ax.set_xlabel(mathtext("heads h (d_K = d_V = 64, n = 4096)", single=True))
    ax.set_ylabel(mathtext("output ratio γ_O = d_O / n", single=True))
    ax.set_title("GE map; dotted: width boundaries", fontsize=8)
    draw_legend(ax, fontsize=7, loc="upper right")
    return save(fig, path, dpi)
