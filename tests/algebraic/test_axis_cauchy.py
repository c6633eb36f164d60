"""G just above the real axis where the tracker's steps fail (issue 21 item 18, slow points
mha_rho-5, mha_rho-9, mha_rho-17, mha-41: "branch continuation failed at z" at heights
1e-12 … 1e-8 of the width): Newton at z from the on-axis limit G(x + i0).  References: the
density, −Im G(x + i0)/π, computed by the tables (G(x + iε) → G(x + i0) as ε → 0), and the
20-digit route at z."""
import numpy as np
import pytest

from freeattn import mha_output_law

CASES = [
    # mha_rho-5: inside the support, 1e-10 of the width above the axis
    ((0.1879522245477574, 3, 0.008689367759372813, 0.008689367759372813, 0.058315392310396466),
     dict(sharing="none", rho=0.0), 0.054530314033828464 + 1.0906062806765702e-10j),
    # mha-41 (second instance, another sharing): inside the support at 3e-12 of the width
    ((0.08846446782138938, 81, 0.0046903022317870335, 0.03485471388012255, 0.0035321371805615877),
     dict(sharing="mqa"), 0.0015175642626685587 + 3.0351285253371163e-12j),
]


@pytest.mark.parametrize("args, kw, z", CASES)
def test_cauchy_next_to_the_axis(args, kw, z):
    law = mha_output_law(*args, **kw)
    g = law.cauchy_transform(z)
    assert g.imag < 0
    assert law.cauchy_transform(np.conj(z)) == np.conj(g)
    # Im G(x + iε) → −π ρ(x): at ε ~ 1e-10 of the width they agree to ~ε·|G′|/|G|
    assert -g.imag / np.pi == pytest.approx(law.pdf(z.real), rel=1e-5)
    ref = complex(law.cauchy_transform(z, dps=20))
    assert abs(g - ref) <= 1e-12 * abs(ref)
