"""Matplotlib figures for the CLI (imported only when a plot is asked for)."""
from __future__ import annotations

import numpy as np

from .._plotting import pyplot, save


def plot_density(law, x, pdf, path, mp_edge=None):
    """Save a plot of a density curve with its support edges (and the i.i.d. MP edge)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    finite = np.isfinite(pdf)
    ax.plot(x[finite], pdf[finite], lw=1.8, label=law.name)
    positive = pdf[finite & (pdf > 0)]
    if positive.size:  # clip the view of a divergent hard edge, not the data
        ax.set_ylim(0, 1.1 * min(positive.max(), 5 * np.median(positive)))
    for a, b in law.support():
        ax.axvline(b, color="k", ls=":", lw=1)
    if mp_edge is not None:
        ax.axvline(mp_edge, color="tab:red", ls="--", lw=1, label="i.i.d. MP edge 4θ₁")
    ax.set_xlabel("x (squared singular value)")
    ax.set_ylabel("density")
    ax.legend(fontsize=8)
    save(fig, path, dpi=120)
