"""``freeattn reproduce NAME``: one subcommand per published table or figure."""
from __future__ import annotations

import click

__all__ = ["reproduce"]


@click.group()
def reproduce():
    """Reproduce a published table or figure (computed, compared with the paper's values)."""


from . import reproduce_readout  # noqa: E402,F401  (registers fig2a … fig3b)
from . import reproduce_table as _table_d2  # noqa: E402,F401  (registers ``table-d2``)
from . import reproduce_paper as _paper  # noqa: E402,F401  (fig2b, figD1, tableD1, dof-expansion)
