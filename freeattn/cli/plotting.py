"""Matplotlib figures for the CLI (imported only when a plot is asked for)."""
from __future__ import annotations

from ..plotting.density import density_figure
from ..plotting.setup import save


def plot_density(law, x, pdf, path, mp_edge=None):
    """Save a plot of the law's density: one panel per support interval (each with its own
    scale and mass), atoms as stems, the i.i.d. MP edge 4θ₁ where it falls.

    ``x`` and ``pdf`` (the curve written with ``--out``) set the resolution: the figure uses
    ``len(x)`` points per interval on a grid graded toward the edges.
    """
    fig = density_figure(law, points=max(len(x), 200), mp_edge=mp_edge)
    save(fig, path, dpi=120)
