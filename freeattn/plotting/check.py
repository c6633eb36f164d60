"""Plots for Monte Carlo checks. matplotlib is imported only inside these functions."""
from __future__ import annotations

import numpy as np

from ..montecarlo.metrics import density_histogram, drop_top
from .density import _view_top, diverges_at
from .setup import mathtext
from .setup import pyplot as _pyplot
from .setup import save
from ..montecarlo.chain import END_TO_END, STEPS

__all__ = ["plot_check", "plot_linearization", "plot_sweep", "plot_chain"]


def plot_check(law, softmax, gaussian, path, *, title=None, bins=80, dpi=90, exclude_top=0):
    """Density-normalised histograms of softmax and Gaussian eigenvalues over ``law.pdf``.

    Parameters
    ----------
    law : law object or None
    softmax, gaussian : sequence of 1-d arrays (eigenvalues per draw; pooled here)
    path : str or None
        Output file (format from the extension, e.g. ``.png``); None: the open Figure is
        returned instead (for tests and notebooks).
    exclude_top : int, default 0
        The largest ``exclude_top`` eigenvalues of each draw (outliers) are left out, as in
        the comparison (:func:`freeattn.montecarlo.check.compare_draws`); the legend counts
        the eigenvalues drawn.

    Notes
    -----
    Eigenvalues at the law's atoms (e.g. exact zeros) are left out of the histograms and the
    remaining histogram is scaled by its share of the sample, so that its area matches the
    absolutely continuous mass 1 − Σ atoms drawn by the density; atoms are marked by
    vertical lines up to their mass, labelled with it.  The y-range holds both histograms,
    every atom and the whole density of every bounded component; only a density that
    diverges at a hard edge is cut (noted in the legend).
    """
    plt = _pyplot()
    soft = np.concatenate([drop_top(s, exclude_top) for s in softmax])
    gauss = np.concatenate([drop_top(g, exclude_top) for g in gaussian])
    atoms = [] if law is None else [(float(a), float(p)) for a, p in law.atoms()]
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    hi = max(np.max(soft), np.max(gauss))
    if law is not None:
        hi = max(hi, max(b for _, b in law.support()))
    lo = min(0.0, np.min(soft), np.min(gauss))
    edges = np.linspace(lo, hi * 1.02, bins + 1)
    top = max((p for _, p in atoms), default=0.0)
    for data, label, color in ((soft, "softmax", "tab:blue"), (gauss, "Gaussian", "tab:orange")):
        keep = np.ones(data.size, dtype=bool)
        for a, _ in atoms:
            keep &= np.abs(data - a) > 1e-12 * max(1.0, abs(a))
        if not keep.any():
            continue
        heights, e = density_histogram(data[keep], bins=edges)
        heights = heights * keep.mean()
        top = max(top, float(np.max(heights)))
        ax.stairs(heights, e, label=f"{label} ({data.size} eigenvalues)", color=color,
                  fill=label == "softmax", alpha=0.45 if label == "softmax" else 1.0)
    if law is not None:
        cut = False
        for i, (a, b) in enumerate(law.support()):
            a, b = float(a), float(b)
            th = np.linspace(0.0, np.pi, 600)
            xs = a + (b - a) * (1 - np.cos(th)) / 2  # graded toward the edges
            pdf = np.asarray(law.pdf(xs), dtype=float)
            divergent = diverges_at(law, a, b)
            cut = cut or any(divergent)
            top = max(top, _view_top(xs, pdf, a, b, divergent))
            ax.plot(xs, pdf, color="black", lw=1.4, label="limit law" if i == 0 else None)
        if cut:
            ax.plot([], [], " ", label="limit law → ∞ at a hard edge (cut)")
        for i, (a, p) in enumerate(atoms):
            ax.vlines(a, 0, p, color="black", ls=":", lw=1.5,
                      label="atoms of the law" if i == 0 else None)
            ax.annotate(f"atom {p:.3g}", (a, p), xytext=(3, 2), textcoords="offset points",
                        fontsize=8)
    if top > 0:
        ax.set_ylim(0, 1.1 * top)
    ax.set_xlabel("eigenvalue of M Mᵀ")
    ax.set_ylabel("density")
    if title:
        ax.set_title(mathtext(title, single=True), fontsize=10)
    ax.legend(fontsize=8)
    if path is None:
        fig.tight_layout()
        return fig
    return save(fig, path, dpi)


def plot_linearization(result, path, *, dpi=90):
    """Softmax and Gaussian rel W₁ to the law against β, one line per n (log scale).

    The x-axis is β; dashed vertical lines mark β = sqrt(log n) for each n.
    """
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ns = sorted({r["n"] for r in result.rows})
    for i, n in enumerate(ns):
        rows = [r for r in result.rows if r["n"] == n]
        b = [r["beta"] for r in rows]
        color = f"C{i}"
        ax.plot(b, [r["softmax_rel_w1"] for r in rows], "o-", color=color,
                label=f"softmax n={n}")
        ax.plot(b, [r["gaussian_rel_w1"] for r in rows], "s--", color=color, alpha=0.6,
                label=f"Gaussian n={n}")
        ax.axvline(np.sqrt(np.log(n)), color=color, ls=":", lw=1)
    ax.set_yscale("log")
    ax.set_xlabel("beta  (dotted: sqrt(log n))")
    ax.set_ylabel("relative W1 to the limit law")
    ax.legend(fontsize=7)
    return save(fig, path, dpi)


def plot_sweep(result, path, *, dpi=90):
    """Distances to the law against n (log–log), with the fitted C n^{−rate} lines.

    Parameters
    ----------
    result : SweepResult
    path : str
        Output file (format from the extension).
    """
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ns = np.array([r["n"] for r in result.rows], dtype=float)
    grid = np.geomspace(ns.min(), ns.max(), 50)
    styles = {"softmax_ks": ("C0", "o-"), "softmax_rel_w1": ("C0", "s--"),
              "gaussian_ks": ("C1", "o-"), "gaussian_rel_w1": ("C1", "s--")}
    for key, (color, style) in styles.items():
        ax.plot(ns, [r[key] for r in result.rows], style, color=color, lw=1,
                label=key.replace("_", " ").replace("rel w1", "rel W1").replace("ks", "KS"))
        fit = result.rates.get(key)
        if fit is not None:
            rate, prefactor = fit
            ax.plot(grid, prefactor * grid ** (-rate), color=color, lw=0.6, alpha=0.7)
            ax.annotate(f"{rate:.2f}", (grid[-1], prefactor * grid[-1] ** (-rate)),
                        fontsize=7, color=color)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n  (thin lines: fitted C n^-rate, rate labelled)")
    ax.set_ylabel("distance to the limit law")
    ax.legend(fontsize=7)
    return save(fig, path, dpi)


#: metric → (label, marker) of the chain plot
_CHAIN_METRICS = {"op": ("operator norm", "o"), "frob": ("Frobenius/sqrt(n)", "s"),
                  "ks": ("KS", "^"), "w1": ("rel. W1", "v")}


def plot_chain(results, path, *, dpi=110):
    """Log–log distances along the chain of Table 1 against n, one column per β.

    Parameters
    ----------
    results : sequence of ChainResult
        One column each (e.g. β = 0.5, 1, 1.5); rows: the four steps and the end-to-end pair.
    path : str
        Output file (format from the extension).

    Each panel shows, for one step, the mean distance over draws at each n for the operator
    norm and normalised Frobenius norm of the difference (paired steps) and the KS and
    relative W₁ distances of the spectra, the least-squares fit C n^{slope} (thin line,
    slope in the legend), and a dashed reference line n^{exponent} for the exponent the paper
    states (Table 1, Lemmas 4.2–4.5) through the fitted value at the smallest n.
    """
    plt = _pyplot()
    steps = STEPS + (END_TO_END,)
    cols = len(results)
    fig, axes = plt.subplots(len(steps), cols, figsize=(4.2 * cols, 2.6 * len(steps)),
                             squeeze=False, sharex=True)
    for j, res in enumerate(results):
        ns = np.array(res.ns, dtype=float)
        grid = np.geomspace(ns.min(), ns.max(), 20)
        for i, step in enumerate(steps):
            ax = axes[i][j]
            for k, (metric, (label, marker)) in enumerate(_CHAIN_METRICS.items()):
                vals = res.values[step.name].get(metric)
                fit = res.fits[step.name].get(metric)
                if vals is None or fit is None:
                    continue
                color = f"C{k}"
                ax.plot(ns, [np.mean(x) for x in vals], marker, color=color, ms=4,
                        label=f"{label}: {fit.slope:+.2f}±{fit.half_width:.2f}")
                ax.plot(grid, np.exp(fit.intercept) * grid ** fit.slope, color=color, lw=0.8)
                rate = step.rates.get(metric)
                if rate is not None:
                    y0 = np.exp(fit.intercept) * ns.min() ** fit.slope
                    ax.plot(grid, y0 * (grid / ns.min()) ** rate[0], ls="--", color=color,
                            lw=0.8, alpha=0.7)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xticks(ns, [str(int(n)) for n in ns])
            ax.xaxis.set_minor_locator(plt.NullLocator())
            ax.set_title(f"beta = {res.beta:g}: {step.name} ({step.lemma})", fontsize=8)
            ax.legend(fontsize=6, loc="lower left")
            ax.tick_params(labelsize=7)
            if i == len(steps) - 1:
                ax.set_xlabel("n")
            if j == 0:
                ax.set_ylabel("distance", fontsize=8)
    fig.suptitle("Chain of Table 1 (Hayase & Karakida 2026): points = mean over draws, "
                 "thin = fit, dashed = paper's exponent", fontsize=9)
    return save(fig, path, dpi)
