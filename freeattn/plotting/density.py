"""Density figures that show every component of a law's support (one panel each)."""
from __future__ import annotations

import numpy as np

from .setup import mathtext, pyplot

__all__ = ["density_figure", "diverges_at", "DIVERGENCE_RATIO"]


#: at most this many support intervals get a panel each; more share one panel
_MAX_PANELS = 6


def _component_grid(a, b, points):
    """Points on [a, b] graded toward both edges (x = a + (b − a)(1 − cos θ)/2)."""
    th = np.linspace(0.0, np.pi, points)
    return a + (b - a) * (1 - np.cos(th)) / 2


#: pdf(edge ± 10⁻⁶ w) / pdf(edge ± 10⁻⁴ w) above this marks a divergent hard edge (w the
#: interval's width): x^(−1/2) gives 10, x^(−1/4) 3.2; a bounded edge value gives ≈ 1 and a
#: soft (square-root) edge 0.1
DIVERGENCE_RATIO = 2.0
#: the view of a divergent edge is cut at the largest density this share of the width away
_CUT_SHARE = 0.02


def diverges_at(law, a, b):
    """(left, right): whether the density of ``law`` diverges at the edges of [a, b].

    Judged by the growth of the pdf between 10⁻⁴ and 10⁻⁶ of the width from the edge
    (:data:`DIVERGENCE_RATIO`); a power x^(−p) with p ≥ 0.15 counts as divergent.
    """
    w = b - a
    out = []
    for edge, sign in ((a, 1.0), (b, -1.0)):
        near, nearer = (float(law.pdf(np.asarray([edge + sign * f * w]))[0])
                        for f in (1e-4, 1e-6))
        out.append(bool(near > 0 and (not np.isfinite(nearer)
                                      or nearer / near > DIVERGENCE_RATIO)))
    return tuple(out)


def _view_top(x, pdf, a, b, divergent):
    """Top of the density view on [a, b]: the largest sampled value (no bounded component
    is ever clipped), except within :data:`_CUT_SHARE` of the width of a divergent edge."""
    keep = np.isfinite(pdf)
    cut = _CUT_SHARE * (b - a)
    if divergent[0]:
        keep &= x > a + cut
    if divergent[1]:
        keep &= x < b - cut
    return float(pdf[keep].max()) if keep.any() else 0.0


def density_figure(law, points=400, mp_edge=None, label=None, figsize=None):
    """A figure of a law's density that shows *every* component of its support.

    One panel per support interval, each with its own x- and y-range and the interval's mass
    in its title (so a narrow interval holding most of the mass is never squeezed next to a
    wide one); atoms drawn as stems up to their mass, each labelled with it.  The y-range
    holds the whole density of every bounded component and every atom; only a density that
    diverges at a hard edge (:func:`diverges_at`) is cut, with a note in the panel.  The
    law's name is the figure's title (TeX-style subscripts as mathtext); the figure is laid
    out (``tight_layout``), so titles, ticks and the legend lie inside it.

    Parameters
    ----------
    law : Law
        Any law with ``support()``, ``atoms()``, ``pdf`` and ``cdf``.
    points : int
        Grid points per interval (graded toward the edges).
    mp_edge : float, optional
        Draw the i.i.d. Marchenko–Pastur edge 4θ₁ in the panel that contains it.
    label : str, optional
        Title of the figure (default ``law.name``; ``_{…}``/``^{…}`` as mathtext, wrapped
        at the figure's width when drawn).
    figsize : tuple, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = pyplot()
    support = [(float(a), float(b)) for a, b in law.support()]
    atoms = [(float(a), float(m)) for a, m in law.atoms()]
    if len(support) > _MAX_PANELS:  # many components (e.g. an empirical law): one panel
        support = [(support[0][0], support[-1][1])]
    isolated = [p for p, _ in atoms if not any(lo <= p <= hi for lo, hi in support)]
    panels = [("ac", a, b) for a, b in support]
    if isolated:  # all atoms off the continuous part share one panel of stems
        panels.append(("atoms", min(isolated), max(isolated)))
    panels.sort(key=lambda p: p[1])
    n = max(len(panels), 1)
    if figsize is None:
        figsize = (min(3.6 * n, 12.0), 3.4) if n > 1 else (6.4, 4.0)
    fig, axes = plt.subplots(1, n, figsize=figsize, squeeze=False)
    axes = axes[0]
    for ax, (kind, a, b) in zip(axes, panels):
        inside = [(p, m) for p, m in atoms if a <= p <= b]
        top = max((m for _, m in inside), default=0.0)
        if kind == "ac":
            x = _component_grid(a, b, points)
            pdf = np.asarray(law.pdf(x), dtype=float)
            finite = np.isfinite(pdf)
            ax.plot(x[finite], pdf[finite], lw=1.6, label="density")
            divergent = diverges_at(law, a, b)
            top = max(top, _view_top(x, pdf, a, b, divergent))
            for edge, div in zip((a, b), divergent):
                if div:  # the one cut view: a density that diverges at a hard edge
                    ax.annotate(f"density → ∞ at {edge:.4g} (cut)", (0.5, 0.97),
                                xycoords="axes fraction", ha="center", va="top", fontsize=7)
            mass = float(law.cdf(b)) - float(law.cdf(a)) + sum(m for p, m in atoms if p == a)
            ax.set_title(f"[{a:.4g}, {b:.4g}]  mass {mass:.3g}", fontsize=8)
            pad = 0.03 * (b - a)
            ax.set_xlim(a - pad, b + pad)
            for e in (a, b):
                ax.axvline(e, color="k", ls=":", lw=0.8)
        for i, (p, m) in enumerate(inside):
            ax.vlines(p, 0, m, color="tab:orange", lw=2.5, label="atoms" if i == 0 else None)
            ax.annotate(f"atom {m:.3g}", (p, m), xytext=(3, 2), textcoords="offset points",
                        fontsize=7, color="tab:orange")
        if kind == "atoms":
            total = sum(m for _, m in inside)
            where = f"at {a:.4g}" if len(inside) == 1 else f"on [{a:.4g}, {b:.4g}]"
            ax.set_title(f"{len(inside)} atom{'s' if len(inside) > 1 else ''} {where}  "
                         f"mass {total:.3g}", fontsize=8)
            pad = 1.0 if b == a else 0.05 * (b - a)
            ax.set_xlim(a - pad, b + pad)
        ax.set_ylim(0, 1.15 * top if top > 0 else 1.0)
        if mp_edge is not None and a <= mp_edge <= b + 0.2 * (b - a):
            ax.axvline(mp_edge, color="tab:red", ls="--", lw=1, label="i.i.d. MP edge 4θ₁")
        ax.set_xlabel("x")
        ax.tick_params(labelsize=7)
    axes[0].set_ylabel("density / atom mass")
    axes[-1].legend(fontsize=7, loc="best")
    # wrap=True: broken at the figure's width when drawn, also after a resize (notebooks)
    fig.suptitle(mathtext(label or law.name), fontsize=8, wrap=True)
    fig.tight_layout()
    return fig

