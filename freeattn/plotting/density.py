"""Density figures that show every component of a law's support (one panel each)."""
from __future__ import annotations

from .setup import pyplot

__all__ = ["density_figure"]


#: at most this many support intervals get a panel each; more share one panel
_MAX_PANELS = 6


def _component_grid(a, b, points):
    """Points on [a, b] graded toward both edges (x = a + (b − a)(1 − cos θ)/2)."""
    import numpy as np

    th = np.linspace(0.0, np.pi, points)
    return a + (b - a) * (1 - np.cos(th)) / 2


def density_figure(law, points=400, mp_edge=None, label=None, figsize=None):
    """A figure of a law's density that shows *every* component of its support.

    One panel per support interval, each with its own x- and y-range and the interval's mass
    in its title (so a narrow interval holding most of the mass is never squeezed next to a
    wide one); atoms drawn as stems with their masses.  A divergent hard edge is clipped in
    the view only (the data are not changed).

    Parameters
    ----------
    law : Law
        Any law with ``support()``, ``atoms()``, ``pdf`` and ``cdf``.
    points : int
        Grid points per interval (graded toward the edges).
    mp_edge : float, optional
        Draw the i.i.d. Marchenko–Pastur edge 4θ₁ in the panel that contains it.
    label : str, optional
        Legend label of the curve (default ``law.name``).
    figsize : tuple, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    import numpy as np

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
        if kind == "ac":
            x = _component_grid(a, b, points)
            pdf = np.asarray(law.pdf(x), dtype=float)
            finite = np.isfinite(pdf)
            ax.plot(x[finite], pdf[finite], lw=1.6, label=label or law.name)
            positive = pdf[finite & (pdf > 0)]
            if positive.size:  # clip the view of a divergent hard edge, not the data
                ax.set_ylim(0, 1.1 * min(positive.max(), 5 * np.median(positive)))
            mass = float(law.cdf(b)) - float(law.cdf(a)) + sum(m for p, m in atoms if p == a)
            ax.set_title(f"[{a:.4g}, {b:.4g}]  mass {mass:.3g}", fontsize=8)
            pad = 0.03 * (b - a)
            ax.set_xlim(a - pad, b + pad)
            for e in (a, b):
                ax.axvline(e, color="k", ls=":", lw=0.8)
        inside = [(p, m) for p, m in atoms if a <= p <= b]
        top = ax.get_ylim()[1] if kind == "ac" else max(m for _, m in inside)
        for i, (p, m) in enumerate(inside):
            ax.vlines(p, 0, top if kind == "ac" else m, color="tab:orange", lw=2.5,
                      label="atoms" if i == 0 else None)
        if kind == "atoms":
            total = sum(m for _, m in inside)
            where = f"at {a:.4g}" if len(inside) == 1 else f"on [{a:.4g}, {b:.4g}]"
            ax.set_title(f"{len(inside)} atom{'s' if len(inside) > 1 else ''} {where}  "
                         f"mass {total:.3g}", fontsize=8)
            pad = 1.0 if b == a else 0.05 * (b - a)
            ax.set_xlim(a - pad, b + pad)
            ax.set_ylim(0, 1.1 * top)
        if mp_edge is not None and a <= mp_edge <= b + 0.2 * (b - a):
            ax.axvline(mp_edge, color="tab:red", ls="--", lw=1, label="i.i.d. MP edge 4θ₁")
        ax.set_xlabel("x")
        ax.tick_params(labelsize=7)
    axes[0].set_ylabel("density / atom mass")
    axes[-1].legend(fontsize=7)
    return fig
