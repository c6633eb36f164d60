"""Figure 2(a): training loss of a linear readout for h ∈ {32, 64, 128} heads.

Hayase & Karakida 2026, §5.1 and §D.2: d = n = 4096, d_K = d_V = 64, d_O = 2n, so γ_K = γ_V =
h/64 and γ_O = 2; features scaled by 1/sqrt(2(e − 1)).  Theory: the law (C.15) through (5.4),
loss (5.3) by Laplace inversion of (C.31) (Gaver–Stehfest; Talbot and quadrature as checks at
t = 1, 10, 100).  h = 32 has mass 1/2 at zero (the plateau).  Markers: exact finite-matrix
losses of a fixed centred target, mean over draws with Student-t 95 % intervals.
"""
from __future__ import annotations

import numpy as np

from ..plotting.figures import errorbars, finish, mc_title, new_axes
from ..montecarlo.samplers import AttentionModel
from ..readout import IndependentKV, training_loss
from ..readout.finite import draw_spectra, finite_training_loss, fixed_target, interval_dict

__all__ = ["PUBLISHED", "SIZES", "HEADS", "MARKERS", "law", "compute", "plot", "summary"]

PUBLISHED = {"max_abs_difference_mc_vs_limit": 0.003, "zero_mass_h32": 0.5,
             "h128_t100_mean_loss": 7.39e-5}
HEADS = (32, 64, 128)
GAMMA_O = 2.0
SIZES = {"paper": {"n": 4096, "head_width": 64}, "reduced": {"n": 256, "head_width": 4}}
CHECK_TIMES = (1.0, 10.0, 100.0)
#: the Monte Carlo markers drawn (and counted in Table D.1): every 5th time, t = 100 included
MARKERS = slice(5, None, 5)


def law(h):
    """Mean-one law of F Fᵀ at γ_K = γ_V = h/64, γ_O = 2 (eq. (5.4))."""
    return IndependentKV(1.0, h / 64, h, h / 64, GAMMA_O)


def compute(mc="reduced", draws=10, seed=0, points=50):
    times = np.concatenate([[0.0], np.geomspace(0.1, 100, points)])
    out = {"figure": "fig2a", "gamma_o": GAMMA_O, "t": times.tolist(), "theory": {},
           "checks": {}, "published": PUBLISHED}
    for h in HEADS:
        lw = law(h)
        out["theory"][str(h)] = training_loss(lw, times).tolist()
        st = training_loss(lw, CHECK_TIMES, degree=32)
        st48 = training_loss(lw, CHECK_TIMES, degree=48)
        ta = training_loss(lw, CHECK_TIMES, method="talbot")
        out["checks"][str(h)] = {"t": list(CHECK_TIMES), "stehfest32": st.tolist(),
                                 "stehfest48": st48.tolist(), "talbot": ta.tolist(),
                                 "zero_mass": lw.zero_mass}
    if mc != "none":
        size = SIZES[mc]
        n, w = size["n"], size["head_width"]
        y = fixed_target(n, seed=seed)
        mcr = {"size": mc, "n": n, "draws": draws, "seed": seed, "curves": {}}
        worst = 0.0
        for i, h in enumerate(HEADS):
            model = AttentionModel(beta=1.0, n=n, d_k=w, heads=h, kind="mha", d_v=w,
                                   d_o=2 * n)
            specs = [row[0] for row in draw_spectra(model, draws, seed + 1 + i)]
            losses = np.array([finite_training_loss(s, y, times) for s in specs])
            pts = [interval_dict(losses[:, j]) for j in range(len(times))]
            mcr["curves"][str(h)] = pts
            worst = max(worst, max(abs(p["mean"] - th) for p, th in
                                   zip(pts, out["theory"][str(h)])))
        mcr["max_abs_difference"] = worst
        out["monte_carlo"] = mcr
    return out


def summary(res):
    lines = [f"Figure 2(a): training loss, gamma_K = gamma_V = h/64, gamma_O = {GAMMA_O:g}"]
    for h in HEADS:
        c = res["checks"][str(h)]
        lines.append(f" h = {h:3d}: zero mass {c['zero_mass']:.3g}; L(1), L(10), L(100) = "
                     + ", ".join(f"{v:.10g}" for v in c["stehfest48"]))
        d32 = max(abs(a - b) for a, b in zip(c["stehfest32"], c["stehfest48"]))
        dta = max(abs(a - b) for a, b in zip(c["talbot"], c["stehfest48"]))
        lines.append(f"        |Stehfest 32 - 48| <= {d32:.1e}, |Talbot - Stehfest 48| <= "
                     f"{dta:.1e}")
    mcr = res.get("monte_carlo")
    if mcr:
        lines.append(f"Monte Carlo ({mcr['size']}: n = {mcr['n']}, {mcr['draws']} draws): "
                     f"largest |mean loss - limit| = {mcr['max_abs_difference']:.4f} "
                     f"(paper, n = 4096: < {PUBLISHED['max_abs_difference_mc_vs_limit']})")
    return lines


def plot(res, path, dpi=150):
    t = np.array(res["t"])
    fig, ax = new_axes()
    mcr = res.get("monte_carlo")
    for i, h in enumerate(HEADS):
        c = f"C{i}"
        ax.plot(t[1:], res["theory"][str(h)][1:], color=c, label=f"h = {h}")
        if mcr:
            errorbars(ax, t[MARKERS], mcr["curves"][str(h)][MARKERS], color=c)
    return finish(fig, ax, path, xlabel="gradient-flow time t",
                  ylabel="relative training loss", xscale="log", yscale="log",
                  title=mc_title(res, "lines: GE (C.15); markers: softmax MHA"), dpi=dpi)
