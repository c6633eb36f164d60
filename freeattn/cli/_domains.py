"""--help texts of the layer flags, written from the declared parameter domains.

One source: :mod:`freeattn.attention.config` (``BETA_LAW_RANGE``, ``GAMMA_RANGE``,
``MAX_HEADS``), the same constants the laws validate against, so a help text cannot state a
range the laws do not enforce.
"""
from __future__ import annotations

from ..attention.config import BETA_LAW_RANGE, GAMMA_RANGE, MAX_HEADS

__all__ = ["BETA_HELP", "GAMMA_HELP", "HEADS_HELP", "gamma_help"]


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

