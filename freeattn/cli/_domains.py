"""--help texts of the layer flags, written from the declared parameter domains.

One source: :mod:`freeattn.attention.config` (``BETA_LAW_RANGE``, ``GAMMA_RANGE``,
``MAX_HEADS``), the same constants the laws validate against, so a help text cannot state a
range the laws do not enforce.
"""
from __future__ import annotations

import click

from ..attention.config import BETA_LAW_RANGE, GAMMA_RANGE, MAX_HEADS

__all__ = ["BETA_HELP", "GAMMA_HELP", "HEADS_HELP", "gamma_help", "DPS", "MAX_DPS"]


def _interval(lo, hi):
    return f"[{lo:g}, {hi:g}]"


#: "β in [0.01, 4]"
BETA_HELP = f"Inverse temperature β in {_interval(*BETA_LAW_RANGE)}."
#: "in [0.001, 1000]"
GAMMA_HELP = f"in {_interval(*GAMMA_RANGE)}"
#: "1 ≤ h ≤ 10000"
HEADS_HELP = f"Number of heads h, an integer with 1 ≤ h ≤ {MAX_HEADS}."


def gamma_help(symbol, definition):
    """E.g. ``gamma_help("γ_K", "h d_K / n")`` → "γ_K = h d_K / n, in [0.001, 1000]."."""
    return f"{symbol} = {definition}, {GAMMA_HELP}."



#: Largest --dps the commands accept.  Conversions to mpmath are exact (no decimal-string
#: limit since ``_context.to_mp`` converts rationals directly), so the cap is one of cost:
#: the support of attention_law(1, 1, 2) took 16 s at 2000 digits and 67 s at 5000 on the
#: 2-core development machine.
MAX_DPS = 2000
#: click type of every --dps option: an integer in [5, MAX_DPS]
DPS = click.IntRange(5, MAX_DPS)
