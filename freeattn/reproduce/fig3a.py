"""Figure 3(a): arrival time at relative loss 0.1 under across-head K/V sharing.

Hayase & Karakida 2026, §5.3 and §D.5: h = 64, d = n = 4096, d_O = 2n; h_KV ∈ {64, …, 1} K/V
heads, each shared by h/h_KV query heads.  Fixed widths (d_K = d_V = 64): the law (C.15) and
hence the arrival time do not change.  Fixed parameter count N_par = 5n²: γ_K = γ_V =
5/(3 + 2 h_KV/h) (continuous), head widths rounded to integers for the sampled models.
Theory: (5.4) at λ = s/2, Laplace inversion of (C.31), Brent's method for L(t) = 0.1.
Markers: exact finite-matrix loss curves of a fixed centred target averaged over draws; the
arrival time of the mean curve with a 2000-resample bootstrap interval.  As in the paper, the
shared configurations (h_KV < h) are drawn on each path and the unshared h_KV = h draws are
one common baseline for both paths (the gray diamond).
"""
from __future__ import annotations

import numpy as np

from ..plotting.figures import errorbars, finish, new_axes
from ..montecarlo.samplers import AttentionModel
from ..readout import IndependentKV, arrival_time
from ..readout.finite import (bootstrap_arrival_interval, draw_spectra, fixed_target,
                               mean_curve_arrival)

__all__ = ["PUBLISHED", "SIZES", "KV_HEADS", "gamma_fixed_count", "rounded_width", "law",
           "arrival_time", "compute", "plot", "summary"]

PUBLISHED = {"fixed_widths": 41.22, "fixed_count_continuous_hkv1": 7.80,
             "fixed_count_rounded_hkv1": 7.76,
             "rounded_widths": [64, 80, 91, 98, 102, 104, 106],
             "measured_hkv1_fixed_widths": 39.11, "measured_hkv1_fixed_count": 7.57}
HEADS, LEVEL, GAMMA_O = 64, 0.1, 2.0
KV_HEADS = (64, 32, 16, 8, 4, 2, 1)
SIZES = {"paper": {"n": 4096, "head_width": 64}, "reduced": {"n": 512, "head_width": 8}}


def gamma_fixed_count(share):
    """γ_K = γ_V = 5/(3 + 2 h_KV/h) at N_par = 5n² (d = n, d_O = 2n), share = h/h_KV."""
    return 5.0 / (3.0 + 2.0 / share)


def rounded_width(kv_heads, n, heads=HEADS):
    """Integer head width nearest to γ n/h on the fixed-parameter-count path."""
    return int(round(gamma_fixed_count(heads / kv_heads) * n / heads))


def law(gamma):
    """Mean-one law (5.4) of the h = 64, γ_O = 2 readout at γ_K = γ_V = γ."""
    return IndependentKV(1.0, gamma, HEADS, gamma, GAMMA_O)


def compute(mc="reduced", draws=10, seed=0, points=25, bootstrap=2000):
    """Theory arrival times (fixed widths, continuous and rounded fixed count) and MC."""
    t_fixed = arrival_time(law(1.0), LEVEL)
    shares = np.geomspace(1, 64, points)
    cont = [arrival_time(law(gamma_fixed_count(s)), LEVEL) for s in shares]
    n_p = SIZES["paper"]["n"]
    widths = [rounded_width(k, n_p) for k in KV_HEADS]
    rounded = [arrival_time(law(HEADS * w / n_p), LEVEL) for w in widths]
    out = {"figure": "fig3a", "level": LEVEL, "heads": HEADS, "gamma_o": GAMMA_O,
           "theory": {"fixed_widths": t_fixed, "share": shares.tolist(),
                      "fixed_count_continuous": cont,
                      "fixed_count_continuous_hkv1": cont[-1],
                      "kv_heads": list(KV_HEADS), "rounded_widths": widths,
                      "fixed_count_rounded": rounded,
                      "max_rounding_change": max(abs(r - arrival_time(
                          law(gamma_fixed_count(HEADS / k)), LEVEL)) / r
                          for r, k in zip(rounded, KV_HEADS))},
           "published": PUBLISHED}
    if mc != "none":
        size = SIZES[mc]
        n = size["n"]
        y = fixed_target(n, seed=seed)

        def point(k, dk, i):
            model = AttentionModel(beta=1.0, n=n, d_k=dk, heads=HEADS, kind="mha",
                                   d_v=dk, d_o=2 * n, kv_heads=k)
            specs = [row[0] for row in draw_spectra(model, draws, seed + 1 + i)]
            t = mean_curve_arrival(specs, y, LEVEL)
            lo, hi = bootstrap_arrival_interval(specs, y, LEVEL, bootstrap, seed)
            return {"kv_heads": k, "head_width": dk, "arrival": t, "low": lo, "high": hi,
                    "theory": arrival_time(law(HEADS * dk / n), LEVEL)}

        # the unshared baseline (h_KV = h): both paths start there, since the fixed-count
        # width at h_KV = h, round(γ n/h) with γ = 5/(3 + 2) = 1, is the fixed head width
        base_width = size["head_width"]
        pts = {"baseline": point(HEADS, base_width, 0), "fixed_widths": [], "fixed_count": []}
        for path in ("fixed_widths", "fixed_count"):
            for i, k in enumerate(KV_HEADS):
                if k == HEADS:
                    continue
                dk = base_width if path == "fixed_widths" else rounded_width(k, n)
                pts[path].append(point(k, dk, i))
        out["monte_carlo"] = {"size": mc, "n": n, "draws": draws, "seed": seed, **pts}
    return out


def summary(res):
    th = res["theory"]
    lines = [f"Figure 3(a): arrival time at loss {LEVEL}, h = {HEADS}, gamma_O = {GAMMA_O:g}",
             f"fixed widths (any h_KV): {th['fixed_widths']:.4f}   "
             f"(paper: {PUBLISHED['fixed_widths']})",
             f"fixed parameter count, h_KV = 1: continuous {th['fixed_count_continuous_hkv1']:.4f}"
             f" (paper: {PUBLISHED['fixed_count_continuous_hkv1']}), rounded width "
             f"{th['rounded_widths'][-1]}: {th['fixed_count_rounded'][-1]:.4f} "
             f"(paper: {PUBLISHED['fixed_count_rounded_hkv1']})",
             f"rounded head widths: {th['rounded_widths']} (paper: {PUBLISHED['rounded_widths']})",
             f"largest change of the arrival time by rounding: {th['max_rounding_change']:.4%}"
             " (paper: at most 0.99%)"]
    mcr = res.get("monte_carlo")
    if mcr:
        lines.append(f"Monte Carlo ({mcr['size']}: n = {mcr['n']}, {mcr['draws']} draws): "
                     "h_KV  width  arrival [bootstrap 95%]  GE")
        b = mcr["baseline"]
        lines.append(f" unshared baseline (both paths):\n  {b['kv_heads']:3d}  {b['head_width']:4d}"
                     f"  {b['arrival']:.3f} [{b['low']:.3f}, {b['high']:.3f}]  {b['theory']:.3f}")
        for path in ("fixed_widths", "fixed_count"):
            lines.append(f" {path}:")
            for p in mcr[path]:
                lines.append(f"  {p['kv_heads']:3d}  {p['head_width']:4d}  {p['arrival']:.3f} "
                             f"[{p['low']:.3f}, {p['high']:.3f}]  {p['theory']:.3f}")
    return lines


def plot(res, path, dpi=150):
    th = res["theory"]
    fig, ax = new_axes()
    ax.axhline(th["fixed_widths"], color="C0", label="GE, fixed widths")
    ax.plot(th["share"], th["fixed_count_continuous"], color="C1",
            label="GE, fixed parameter count")
    mcr = res.get("monte_carlo")
    if mcr:
        for key, c in (("fixed_widths", "C0"), ("fixed_count", "C1")):
            p = mcr[key]
            errorbars(ax, [HEADS / q["kv_heads"] for q in p], p, value="arrival", color=c,
                      ms=4, label=f"softmax MHA, n = {mcr['n']}" if key == "fixed_widths"
                      else None)
        errorbars(ax, [1.0], [mcr["baseline"]], value="arrival", color="gray", ms=6,
                  marker="D", label="unshared (h_{KV} = h)")
    return finish(fig, ax, path, xlabel="query heads per K/V head, h / h_{KV}",
                  ylabel=f"time to loss {LEVEL}", xscale=("log", {"base": 2}), dpi=dpi)
