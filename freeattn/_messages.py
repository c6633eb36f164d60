"""How an error message shows a user's value.

``f"{x!r}"`` of a numpy scalar prints ``np.float64(-1.0)`` (numpy ≥ 2) and of an array
``array([ 1., -2.])``; a message should show the number the user typed: ``-1.0``,
``[1.0, -2.0]``.  :func:`shown` is that rule for the error messages of the readout, the
transforms and the symbolic side.
"""
from __future__ import annotations

import mpmath
import numpy as np

__all__ = ["shown"]

#: arrays longer than this are summarised by shape and dtype instead of listed
_MAX_LISTED = 8


def shown(value):
    """``value`` as an error message shows it.

    numpy scalars as Python numbers (``-1.0``, not ``np.float64(-1.0)``); arrays as lists
    (or, beyond 8 entries, ``an array of shape (…) and dtype …``); mpmath numbers by their
    digits (``-1.0``, not ``mpf('-1.0')``); lists and tuples entry by entry; anything else by
    its ``repr`` (strings keep their quotes).

    >>> import numpy as np
    >>> shown(np.float64(-1.0)), shown(np.array([1.0, -2.0])), shown([np.int64(3), 'a'])
    ('-1.0', '[1.0, -2.0]', "[3, 'a']")
    """
    if isinstance(value, np.ndarray):
        if value.size > _MAX_LISTED:
            return f"an array of shape {value.shape} and dtype {value.dtype}"
        if value.ndim == 0:
            return shown(value[()])
        return shown(value.tolist())
    if isinstance(value, np.generic):
        return repr(value.item())
    if isinstance(value, (mpmath.mpf, mpmath.mpc)):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(shown(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(shown(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return repr(value)
