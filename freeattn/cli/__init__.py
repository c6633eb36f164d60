"""Command-line interface (click): a thin layer over the public API."""
from __future__ import annotations

import sys

import click

from .check import check as _check
from .density import density
from .readout import readout as _readout
from .reproduce import reproduce as _reproduce
from .residual import check_residual_command, density_residual
from .sweep import sweep as _sweep
from .symbolic import register as _register_symbolic
from . import check_chain, reproduce_paper  # noqa: F401,E402  (add chain, uncentered to check; fig2b, figD1, tableD1 to reproduce)

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


density.add_command(density_residual)
_check.add_command(check_residual_command)
main.add_command(density)
main.add_command(_check)
main.add_command(_reproduce)
main.add_command(_readout)
main.add_command(_sweep)
_register_symbolic(main)  # equation, moments, edges


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
