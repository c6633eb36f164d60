"""Push-forward of a law by a real polynomial map, φ#μ (numeric, any law).

:class:`Transformed` lives beside :class:`~freeattn.laws.base.Law` in :mod:`freeattn.laws.base`
(``Law.pushforward`` and ``Law.affine`` build it); it stays importable from here."""
from __future__ import annotations

from .base import Transformed, _coefficients  # noqa: F401  (laws/algebraic.py reads _coefficients)

__all__ = ["Transformed"]
