"""Command-line interface (click): a thin layer over the public API."""
from __future__ import annotations

import csv
import json
import sys

import click
import numpy as np

from ._errors import usage_error
from ._paths import check_curve_outputs, write_or_fail

__all__ = ["main"]


#: First commands to try (printed under ``freeattn --help``; each is run by the tests).
EXAMPLES = (
    "freeattn density attention --beta 1 --gamma-k 1 --plot nu.png",
    "freeattn density mha --preset bert-base --out bert.json",
    "freeattn edges attention --beta 1 --gamma-k 0.5 --dps 40",
    "freeattn check mha --preset bert-base --draws 10",
    "freeattn reproduce table-d2 --rows bert-base > table.txt",
)


@click.group(epilog="\b\nExamples:\n" + "\n".join(f"  {e}" for e in EXAMPLES)
             + "\n\nEach command has --help; python -m freeattn works too.")
@click.version_option(package_name="freeattn")
def main():
    """freeattn: free-probability laws of self-attention spectra."""


@main.group()
def density():
    """Evaluate a limiting spectral density."""


def _fmt(v):
    return f"{float(v):.15g}"


def _num(v, dps):
    """Print a float with 15 significant digits or an mpf with ``dps`` digits."""
    if dps is None:
        return f"{float(v):.15g}"
    import mpmath

    return mpmath.nstr(v, dps)


from . import _domains as _dom  # noqa: E402  (help texts from the declared domains)


@density.command("attention")
@click.option("--beta", type=float, required=True, help=_dom.BETA_HELP)
@click.option("--gamma-k", "gamma_k", type=float, required=True,
              help=_dom.gamma_help("γ_K", "h d_K / n"))
@click.option("--heads", type=int, default=1, show_default=True, help=_dom.HEADS_HELP)
@click.option("--points", type=int, default=400, show_default=True,
              help="Number of grid points across the support (2 to 10^6).")
@click.option("--out", type=click.Path(dir_okay=False),
              help="Write the curve to FILE.json, or as CSV to any other name (FILE.csv).")
@click.option("--plot", type=click.Path(dir_okay=False),
              help="Write a plot of the density; the format follows the extension "
                   "(.png, .pdf, .svg, ...).")
@click.option("--dps", type=_dom.DPS, default=None,
              help="Digits (5 to 2000) for edges and moments (mpmath).")
def density_attention(beta, gamma_k, heads, points, out, plot, dps):
    """Density of ν_{∞,h}: squared singular values of sqrt(n/h)(A − 11ᵀ/n), n → ∞."""
    from ..attention import attention_law, theta1, theta2

    check_curve_outputs(points, out, plot)
    try:
        law = attention_law(beta, gamma_k, heads)
    except (TypeError, ValueError) as exc:
        raise usage_error(exc) from None
    support = law.support(dps=dps)
    atoms = law.atoms(dps=dps)
    th1 = theta1(beta)
    lines = [
        f"law       : {law.name}",
        f"theta1    : {_num(law.moment(1, dps=dps), dps)}   (e^(beta^2) - 1, the mean)",
        f"theta2    : {theta2(beta):.15g}   (beta^2)",
        "support   : " + ", ".join(f"[{_num(a, dps)}, {_num(b, dps)}]" for a, b in support),
        "atoms     : " + (", ".join(f"{_num(m, dps)} at {_num(a, dps)}" for a, m in atoms)
                          if atoms else "none"),
    ]
    for k in (1, 2, 3):
        lines.append(f"moment {k}  : {_num(law.moment(k, dps=dps), dps)}")
    right = support[-1][1]
    lines.append(f"right edge: {_num(right, dps)}")
    lines.append(f"i.i.d. Marchenko-Pastur edge 4*theta1: {4 * th1:.15g}"
                 f"  (attention edge is {float(right) / (4 * th1):.6f} x larger)")
    click.echo("\n".join(lines))

    a, b = float(support[0][0]), float(support[-1][1])
    x = np.linspace(a, b, points)
    pdf = law.pdf(x)
    if out:
        params = {"kind": "attention", "beta": beta, "gamma_k": gamma_k, "heads": heads}
        write_or_fail(lambda: _write_curve(out, law, params, support, atoms, x, pdf), out,
                      "--out")
        click.echo(f"wrote {out}")
    if plot:
        from .plotting import plot_density

        xs = np.linspace(a, b, max(points, 800))  # the figure gets a fine grid of its own
        write_or_fail(lambda: plot_density(law, xs, law.pdf(xs), plot, mp_edge=4 * th1),
                      plot, "--plot")
        click.echo(f"wrote {plot}")


def _write_curve(out, law, params, support, atoms, x, pdf):
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
            wr.writerow([_fmt(xi), _fmt(pi)])


try:  # the Monte Carlo checker registers its own command group
    from .check import check as _check

    main.add_command(_check)
except ImportError:  # pragma: no cover - optional while the checker is absent
    pass

from .reproduce import reproduce as _reproduce  # noqa: E402  (subcommands register themselves)

main.add_command(_reproduce)

from .readout import readout as _readout  # noqa: E402

main.add_command(_readout)
from .symbolic import register as _register_symbolic  # noqa: E402  (equation, moments, edges)

_register_symbolic(main)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

from .density_mha import density_mha as _density_mha  # noqa: E402

density.add_command(_density_mha)
from .sweep import sweep as _sweep  # noqa: E402

main.add_command(_sweep)
