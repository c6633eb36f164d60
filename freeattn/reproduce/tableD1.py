"""Table D.1: the largest error bars of the learning figures 2(a), 2(c), 2(d), 3(a), 3(b).

Hayase & Karakida 2026 (arXiv 2610.10033), App. D, "Uncertainty conventions": an error bar is
measured by the largest distance from a plotted estimate to either end of its 95 % interval
(the half-width of a Student-t interval; asymmetric Fieller and bootstrap intervals as they
are); the table gives the maximum over the plotted points, absolute and relative (each
distance divided by its own estimate before the maximum).  Both 3(a) rows include the common
unshared baseline.  The intervals are those of the figures' own Monte Carlo results
(:mod:`freeattn.reproduce.fig2a` … ``fig3b``), at whatever size they were run: the paper's
maxima are for its sizes (n = 4096 or 8192), so at reduced sizes the numbers differ.
"""
from __future__ import annotations

import importlib
from .fig2a import MARKERS

__all__ = ["PUBLISHED", "EXTRA", "FIGURES", "error_bar", "rows", "compute", "summary"]

#: (figure, quantity) -> (absolute, relative %): the paper's Table D.1
PUBLISHED = {
    ("2(a)", "Relative training loss"): (0.00513, 13.314),
    ("2(c)", "Coefficient error"): (0.02381, 0.562),
    ("2(d)", "Coefficient-error ratio"): (0.00168, 0.108),
    ("3(a)", "Arrival time, fixed widths"): (4.43476, 10.425),
    ("3(a)", "Arrival time, fixed parameter count"): (2.75124, 6.486),
    ("3(b)", "Coefficient error"): (0.03015, 1.182),
}
#: the text below the table: 3(a)'s six shared fixed-count configurations alone, and the
#: largest relative interval of 2(a) (h = 128, t = 100: mean 7.39e-5, half-width 5.84e-6)
EXTRA = {"fig3a_shared_fixed_count": (0.40314, 3.365),
         "fig2a_largest_relative": {"h": 128, "t": 100, "mean": 7.39e-5, "half_width": 5.84e-6}}
FIGURES = ("fig2a", "fig2c", "fig2d", "fig3a", "fig3b")


def error_bar(point, value="mean", low="low", high="high"):
    """max(estimate − low, high − estimate): the paper's measure of one error bar."""
    return max(point[value] - point[low], point[high] - point[value])


def _maxima(points, value="mean", **where):
    best_abs = best_rel = 0.0
    at = None
    for p, w in points:
        e = error_bar(p, value)
        rel = e / abs(p[value])
        best_abs = max(best_abs, e)
        if rel > best_rel:
            best_rel, at = rel, w
    return best_abs, 100 * best_rel, at


def rows(results):
    """Table D.1's rows from the figures' results (dicts as returned by ``figX.compute``).

    Parameters
    ----------
    results : dict
        ``'fig2a'`` … ``'fig3b'`` → result with a ``'monte_carlo'`` entry (missing figures
        are left out).

    Returns
    -------
    list of dict
        figure, quantity, absolute, relative (%), where (the point of the largest relative
        bar), published (absolute, relative %), and ``extra`` rows for the text's numbers.
    """
    out = []

    def add(fig, quantity, pts, value="mean"):
        a, r, at = _maxima(pts, value)
        out.append({"figure": fig, "quantity": quantity, "absolute": a, "relative": r,
                    "where": at, "published": PUBLISHED.get((fig, quantity))})

    mc = {k: r["monte_carlo"] for k, r in results.items() if r.get("monte_carlo")}
    if "fig2a" in mc:
        t = results["fig2a"]["t"]
        pts = [(p, {"h": int(h), "t": t[j]}) for h, c in mc["fig2a"]["curves"].items()
               for j, p in list(enumerate(c))[MARKERS]]
        add("2(a)", "Relative training loss", pts)
    if "fig2c" in mc:
        pts = [(p, {"path": path, "h": p["h"]}) for path in ("fixed_output", "fixed_budget")
               for p in mc["fig2c"][path]]
        add("2(c)", "Coefficient error", pts)
    if "fig2d" in mc:
        add("2(d)", "Coefficient-error ratio",
            [(p, {"beta": p["beta"]}) for p in mc["fig2d"]["points"]], value="ratio")
    if "fig3a" in mc:
        m = mc["fig3a"]
        base = (m["baseline"], {"kv_heads": m["baseline"]["kv_heads"]})
        for key, name in (("fixed_widths", "Arrival time, fixed widths"),
                          ("fixed_count", "Arrival time, fixed parameter count")):
            add("3(a)", name, [base] + [(p, {"kv_heads": p["kv_heads"]}) for p in m[key]],
                value="arrival")
        a, r, at = _maxima([(p, {"kv_heads": p["kv_heads"]}) for p in m["fixed_count"]],
                           "arrival")
        out.append({"figure": "3(a)", "quantity": "shared configurations, fixed parameter "
                    "count (text)", "absolute": a, "relative": r, "where": at,
                    "published": EXTRA["fig3a_shared_fixed_count"]})
    if "fig3b" in mc:
        pts = [(p[s], {"scheme": s, "h": p["h"]}) for p in mc["fig3b"]["points"]
               for s in ("gqa", "tied")]
        add("3(b)", "Coefficient error", pts)
    return out


def compute(results=None, mc="reduced", draws=10, seed=0):
    """Table D.1 from given figure results; the missing figures are computed at ``mc`` size."""
    results = dict(results or {})
    for name in FIGURES:
        if name not in results and mc != "none":
            results[name] = importlib.import_module(f"{__package__}.{name}").compute(
                mc=mc, draws=draws, seed=seed)
    sizes = {k: r["monte_carlo"]["n"] for k, r in results.items() if r.get("monte_carlo")}
    return {"table": "tableD1", "rows": rows(results), "sizes": sizes, "extra": EXTRA}


def summary(res):
    lines = ["Table D.1: largest error bars (distance from an estimate to its 95 % interval's "
             "farther end), here vs paper",
             f"{'figure':7s}{'quantity':52s}{'absolute':>11s}{'paper':>10s}{'rel. %':>9s}"
             f"{'paper':>9s}   n here"]
    for r in res["rows"]:
        pa, pr = r["published"] if r["published"] else (float("nan"), float("nan"))
        key = {"2(a)": "fig2a", "2(c)": "fig2c", "2(d)": "fig2d", "3(a)": "fig3a",
               "3(b)": "fig3b"}[r["figure"]]
        lines.append(f"{r['figure']:7s}{r['quantity']:52s}{r['absolute']:11.5f}{pa:10.5f}"
                     f"{r['relative']:9.3f}{pr:9.3f}   {res['sizes'].get(key, '-')}")
    e = res["extra"]["fig2a_largest_relative"]
    lines.append(f"paper: largest relative 2(a) interval at h = {e['h']}, t = {e['t']} "
                 f"(mean {e['mean']:.3g}, half-width {e['half_width']:.3g}); here: "
                 + "; ".join(f"{r['figure']} at {r['where']}" for r in res["rows"]
                             if r["figure"] == "2(a)"))
    return lines
