"""The shared tail of the reproduced figures: one axes, markers with 95 % bars, one legend.

Every ``freeattn.reproduce`` figure is GE curves plus Monte Carlo markers with (possibly
asymmetric) 95 % intervals, stored as dicts with a value and the interval's ends; this module
draws them once, so the figures differ only in their data and labels.
"""
from __future__ import annotations

from .setup import mathtext, pyplot, save

__all__ = ["new_axes", "errorbars", "finish", "draw_legend", "mc_title", "FIGSIZE"]

#: the size of a single-panel reproduced figure (inches)
FIGSIZE = (5, 3.6)


def new_axes(figsize=FIGSIZE, ncols=1):
    """A figure with ``ncols`` axes side by side: ``(fig, ax)`` (``ax`` a list if ncols > 1)."""
    plt = pyplot()
    fig, ax = plt.subplots(1, ncols, figsize=figsize)
    return fig, ax


def errorbars(ax, x, points, *, value="mean", low="low", high="high", color=None, label=None,
              ms=3, marker="o"):
    """Markers at ``points[i][value]`` with bars from ``points[i][low]`` to ``points[i][high]``.

    Parameters
    ----------
    ax : matplotlib Axes
    x : sequence of float
    points : sequence of dict
        Each with the keys ``value``, ``low``, ``high`` (an asymmetric interval is drawn as
        it is: the bar runs from ``low`` to ``high``).
    color, label, ms, marker : passed to ``Axes.errorbar``.
    """
    y = [p[value] for p in points]
    err = [[p[value] - p[low] for p in points], [p[high] - p[value] for p in points]]
    return ax.errorbar(list(x), y, yerr=err, fmt=marker, ms=ms, color=color, capsize=2,
                       label=label)


def mc_title(res, prefix="lines: GE; markers: softmax MHA"):
    """``prefix`` plus ``, n = …`` when the result ``res`` holds Monte Carlo markers.

    Without markers (``--mc none``) only the part of ``prefix`` before its first ``;`` (the
    lines) is kept: a figure never names markers it does not draw.
    """
    mcr = res.get("monte_carlo")
    if not mcr:
        return prefix.split(";")[0].strip()
    return prefix + f", n = {mcr['n']}"


def draw_legend(ax, **kwargs):
    """``ax.legend(**kwargs)`` with every entry's label as mathtext (``β_c``, ``d_O`` and
    ``h_{KV}`` render as subscripts, not raw underscores; :func:`.setup.mathtext`)."""
    handles, labels = ax.get_legend_handles_labels()
    return ax.legend(handles, [mathtext(t, single=True) for t in labels], **kwargs)


def finish(fig, ax, path, *, xlabel, ylabel, title=None, xscale=None, yscale=None,
           legend=True, dpi=150, legend_size=8):
    """Labels, scales, title and legend of ``ax``; then lay out, write and close ``fig``.

    ``xscale``/``yscale`` are passed to ``ax.set_xscale``/``set_yscale`` (a string, or a
    (name, kwargs) pair such as ``("log", {"base": 2})``).  Returns ``path``.
    """
    for setter, scale in ((ax.set_xscale, xscale), (ax.set_yscale, yscale)):
        if scale is None:
            continue
        name, kw = (scale, {}) if isinstance(scale, str) else scale
        setter(name, **kw)
    ax.set_xlabel(mathtext(xlabel, single=True))
    ax.set_ylabel(mathtext(ylabel, single=True))
    if title:
        ax.set_title(mathtext(title, single=True), fontsize=8)
    if legend:
        draw_legend(ax, fontsize=legend_size)
    return save(fig, path, dpi)
