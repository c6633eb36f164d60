"""``freeattn reproduce NAME``: one subcommand per published table or figure."""
from __future__ import annotations

import click

from .reproduce_readout import COMMANDS as _FIGURES
from .reproduce_table import table_d2

__all__ = ["reproduce"]


@click.group()
def reproduce():
    """Reproduce a published table or figure (computed, compared with the paper's values)."""


for _command in (*_FIGURES, table_d2):
    reproduce.add_command(_command)
