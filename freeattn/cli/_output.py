"""How the density commands print numbers and write curves (JSON or CSV)."""
from __future__ import annotations

import csv
import json

import mpmath
import numpy as np

from ._paths import OUT_HELP

#: --out of the density commands
CURVE_OUT_HELP = OUT_HELP.format(more=", .csv or any other name (CSV: columns x, pdf, "
                                      "atom_mass)")

__all__ = ["fmt", "num", "write_curve", "curve_payload", "CURVE_OUT_HELP"]


def fmt(v):
    return f"{float(v):.15g}"


def num(v, dps):
    """Print a float with 15 significant digits or an mpf with ``dps`` digits."""
    if dps is None:
        return f"{float(v):.15g}"
    return mpmath.nstr(v, dps)


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
    if out.endswith(".json"):
        with open(out, "w") as fh:
            json.dump(curve_payload(law, params, support, atoms, x, pdf), fh, indent=1,
                      allow_nan=False)
        return
    with open(out, "w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(["x", "pdf", "atom_mass"])
        for xi, pi in zip(x, pdf):
            wr.writerow([fmt(xi), fmt(pi), ""])
        for a, m in atoms:
            wr.writerow([fmt(a), "", fmt(m)])
