"""A result must not depend on what else the process built (issue 21 item 17).

attention_law(4.0, 0.001, 1) built after another law of its structure takes its breakpoints
from the cached symbolic discriminant; a factor whose constant term vanishes at these values
was evaluated with cancellation and moved the pole at 0 (a double root of the leading
coefficient, ∝ z²) to −1.92e-79, so the law reported support [(−1.92e-79, 3.55e7)] and
pdf(−1e-100) = 5.45e55.  Right: the left end is 0 (float64 and dps=30), in any order."""
from __future__ import annotations

import subprocess
import sys

import pytest

from freeattn import attention_law

_PROBE = ("from freeattn import attention_law; L = attention_law({args}); "
          "print(repr(L.support()[0][0]), repr(float(L.support(dps=30)[0][0])))")


@pytest.mark.parametrize("args", [(4.0, 0.001, 1), (4.0, 0.01, 1)])
def test_left_end_is_zero_whatever_was_built_before(args):
    attention_law(1.0, 1.0, args[2]).support()  # a law of the same structure first
    law = attention_law(*args)
    assert law.support()[0][0] == 0.0
    assert law.support(dps=30)[0][0] == 0
    assert law.pdf(-1e-100) == 0.0 and law.cdf(-1e-100) == 0.0
    fresh = subprocess.run([sys.executable, "-c", _PROBE.format(args=", ".join(map(repr, args)))],
                           capture_output=True, text=True, timeout=300, check=True)
    assert fresh.stdout.split() == ["0.0", "0.0"]
