"""How the CLI prints numbers and writes results: JSON (one indent everywhere), the density
curves (JSON or CSV) and the shared tail of the density commands (summary, curve, plot)."""
from __future__ import annotations

import csv
import json
import os

import mpmath
import numpy as np

from ._paths import OUT_HELP, write_or_fail
from .plotting import plot_density

#: --out of the density commands
CURVE_OUT_HELP = OUT_HELP.format(more=", .csv or any other name (CSV: columns x, pdf, "
                                      "atom_mass)")

#: indent of every JSON the CLI prints or writes (one convention across the commands)
JSON_INDENT = 2

__all__ = ["fmt", "num", "write_curve", "curve_payload", "CURVE_OUT_HELP", "JSON_INDENT",
           "json_text", "write_json", "emit_curve"]


def fmt(v):
    return f"{float(v):.15g}"


def num(v, dps):
    """Print a float with 15 significant digits or an mpf with ``dps`` digits."""
    if dps is None:
        return f"{float(v):.15g}"
    return mpmath.nstr(v, dps)


def json_text(data, **kw):
    """``data`` as the CLI's JSON text (indent :data:`JSON_INDENT`; other json.dumps
    keywords, e.g. ``default=float``, pass through)."""
    return json.dumps(data, indent=JSON_INDENT, **kw)


def write_json(path, data, hint="--out", **kw):
    """Write :func:`json_text` of ``data`` to ``path``; a failure is a RunError naming
    ``hint`` (:func:`._paths.write_or_fail`)."""
    def write():
        with open(path, "w") as fh:
            fh.write(json_text(data, **kw) + "\n")
    write_or_fail(write, path, hint)


def curve_payload(law, params, support, atoms, x, pdf):
    """The density curve as a JSON-able dict: ``law`` (its name), every parameter of
    ``params`` as a top-level key (the command's resolved values: kind, beta, gamma_k,
    heads, … — what was computed, defaults and preset values filled in), then support,
    atoms ([x, mass] pairs), x and pdf (strict JSON: a divergent density, e.g. at a hard
    edge, is null)."""
    return {"law": law.name, **params,
            "support": [[float(u), float(v)] for u, v in support],
            "atoms": [[float(u), float(v)] for u, v in atoms],
            "x": x.tolist(),
            "pdf": [float(p) if np.isfinite(p) else None for p in pdf]}


def write_curve(out, law, params, support, atoms, x, pdf):
    """The density curve as JSON (``*.json``, :func:`curve_payload`) or CSV (any other name).

    The CSV has the columns ``x, pdf, atom_mass``: one row per grid point (``atom_mass``
    empty), then one row per atom (its location, ``pdf`` empty, its mass), so that every
    output format carries the atoms.
    """
    if os.path.splitext(out)[1].lower() == ".json":  # as split_out reads it: a.JSON is JSON
        with open(out, "w") as fh:
            fh.write(json_text(curve_payload(law, params, support, atoms, x, pdf),
                               allow_nan=False) + "\n")
        return
    with open(out, "w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(["x", "pdf", "atom_mass"])
        for xi, pi in zip(x, pdf):
            wr.writerow([fmt(xi), fmt(pi), ""])
        for a, m in atoms:
            wr.writerow([fmt(a), "", fmt(m)])


def plot_grid(law, support, points):
    """Abscissae of a density plot: an even grid over the hull (gaps drawn at 0) joined with
    :func:`curve_grid`'s, so that a narrow component is drawn with its own points."""
    n = max(points, 800)
    hull = np.linspace(float(support[0][0]), float(support[-1][1]), n)
    return np.union1d(hull, curve_grid(law, support, n))


def curve_grid(law, support, points):
    """``points`` abscissae for the density curve: equally spaced across the support when it
    is one interval; with several, each interval gets its own equally spaced points (its ends
    included), in number by the mean of its share of the mass and of the width, at least 2
    each: a narrow component holding most of the mass is not left between two grid points
    (one grid over the hull gave a component of 90 % of the mass a single point).  Fewer
    points than 2 per interval: one grid over the hull."""
    ivs = [(float(lo), float(hi)) for lo, hi in support]
    if len(ivs) < 2 or points < 2 * len(ivs):
        return np.linspace(ivs[0][0], ivs[-1][1], points)
    widths = np.array([hi - lo for lo, hi in ivs])
    masses = np.array([float(law.cdf(hi)) - float(law.cdf(lo)) for lo, hi in ivs])
    masses = masses / masses.sum() if masses.sum() > 0 else np.full(len(ivs), 1 / len(ivs))
    share = 0.5 * (masses + widths / widths.sum())
    extra = points - 2 * len(ivs)
    counts = 2 + np.floor(share * extra).astype(int)
    # the points lost to rounding down go to the largest remainders
    rest = points - counts.sum()
    counts[np.argsort(-(share * extra - np.floor(share * extra)))[:rest]] += 1
    return np.concatenate([np.linspace(lo, hi, n) for (lo, hi), n in zip(ivs, counts)])


def emit_curve(echo, law, params, support, atoms, lines, *, points, out, as_json, plot,
               mp_edge=None):
    """The shared tail of ``density attention|mha|residual``.

    Prints the summary ``lines`` (unless ``as_json``), evaluates the density on ``points``
    points across the support (:func:`curve_grid`: equally spaced per support interval), prints the curve as JSON
    (:func:`curve_payload`) when ``as_json``, writes it to ``out`` (:func:`write_curve`) and
    the figure to ``plot`` (:func:`plot_grid`, at least 800 points; ``mp_edge``: the
    i.i.d. MP edge marked on it), saying ``wrote PATH`` for each file unless ``as_json``.
    ``echo`` prints one text (``click.echo``).
    """
    if not as_json:
        echo("\n".join(lines))
    x = curve_grid(law, support, points)
    pdf = law.pdf(x)
    if as_json:
        echo(json_text(curve_payload(law, params, support, atoms, x, pdf), allow_nan=False))
    if out:
        write_or_fail(lambda: write_curve(out, law, params, support, atoms, x, pdf), out,
                      "--out")
        if not as_json:
            echo(f"wrote {out}")
    if plot:
        xs = plot_grid(law, support, points)
        write_or_fail(lambda: plot_density(law, xs, law.pdf(xs), plot, mp_edge=mp_edge),
                      plot, "--plot")
        if not as_json:
            echo(f"wrote {plot}")
