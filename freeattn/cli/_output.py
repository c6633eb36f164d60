"""How the density commands print numbers and write curves (JSON or CSV)."""
from __future__ import annotations

import csv
import json

import mpmath
import numpy as np

__all__ = ["fmt", "num", "write_curve"]


def fmt(v):
    return f"{float(v):.15g}"


def num(v, dps):
    """Print a float with 15 significant digits or an mpf with ``dps`` digits."""
    if dps is None:
        return f"{float(v):.15g}"
    return mpmath.nstr(v, dps)


def write_curve(out, law, params, support, atoms, x, pdf):
    """The density curve as JSON (``*.json``) or CSV (any other name).

    The JSON is self-describing: ``law`` (its name), then every parameter of ``params`` as a
    top-level key (the command's resolved values: kind, beta, gamma_k, heads, … — what was
    computed, defaults and preset values filled in), then support, atoms, x and pdf.  The
    CSV holds the columns x, pdf only.
    """
    if out.endswith(".json"):
        with open(out, "w") as fh:
            json.dump({"law": law.name, **params,
                       "support": [[float(u), float(v)] for u, v in support],
                       "atoms": [[float(u), float(v)] for u, v in atoms],
                       # strict JSON: a divergent density (hard edge) is written as null
                       "x": x.tolist(),
                       "pdf": [float(p) if np.isfinite(p) else None for p in pdf]},
                      fh, indent=1, allow_nan=False)
        return
    with open(out, "w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(["x", "pdf"])
        for xi, pi in zip(x, pdf):
            wr.writerow([fmt(xi), fmt(pi)])
