"""Full-layer laws ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O} (Hayase & Karakida 2026, eq. (C.15)) at 200
random points: h ≤ 16, γ_K, γ_V, γ_O log-uniform in [0.2, 5], β uniform in [0.1, 2] (slow:
~2 s a point; the always-on versions are in test_layer_random.py).

At every point: the law's own mass check passes (atoms + support intervals carry mass 1 to
1e-9, else ``support()`` raises), the atom at 0 is 1 − min{1, γ_V, γ_O} ((μ ⊠ η)({0}) =
max{μ({0}), η({0})}, Belinschi 2003), and m₁, m₂ by quadrature of the law agree with
m₁ = γ_O θ₁, m₂/m₁² − 1 = 1/h + 1/γ_V + 1/γ_O + θ₂²/(γ_K θ₁²) (eq. (C.16)) to 1e-7.
"""
import math

import numpy as np
import pytest

from freeattn.attention.multi_head import mha_output_law


def _draw(rng):
    beta = float(rng.uniform(0.1, 2.0))
    heads = int(rng.integers(1, 17))
    gk, gv, go = (float(v) for v in np.exp(rng.uniform(math.log(0.2), math.log(5.0), 3)))
    return beta, heads, gk, gv, go


def _check(beta, heads, gamma_k, gamma_v, gamma_o):
    """None if the law at this point is right, else a line saying what is wrong."""
    try:
        law = mha_output_law(beta, heads, gamma_k, gamma_v, gamma_o)
        law.support()
        atoms = dict(law.atoms())
        atom0 = 1 - min(1.0, gamma_v, gamma_o)
        if abs(atoms.get(0.0, 0.0) - atom0) > 1e-12 or set(atoms) - {0.0}:
            return f"atoms {atoms}, expected {{0: {atom0}}}"
        t1, t2 = math.expm1(beta**2), beta**2
        m1 = gamma_o * t1
        m2 = m1**2 * (1 + 1 / heads + 1 / gamma_v + 1 / gamma_o + t2**2 / (gamma_k * t1**2))
        err = max(abs(law.moment(1, method="quad") / m1 - 1),
                  abs(law.moment(2, method="quad") / m2 - 1))
        if err > 1e-7:
            return f"moments off by {err:.3g}"
    except ArithmeticError as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


#: 2 points that failed before session 3: the mass 0.99999989 (1.1e-7 short, h = 1: the path
#: toward the end shared by two support intervals was dropped, AlgebraicLaw._axis_steps), and
#: γ_V ≈ γ_O, whose two atom candidates at 0 (1 − γ_V, 1 − γ_O) lie 0.004 apart and whose
#: continuation heights were scaled by a breakpoint between two gaps (AlgebraicLaw._pole_decision)
KNOWN = [(1.0516125548525252, 1, 0.43027556854694415, 0.906090972203409, 1.3458874645900618),
         (0.2734357440296495, 14, 1.7283758959353133, 0.3307018170651536, 0.33460452498974197)]


@pytest.mark.slow
def test_layer_laws_at_200_random_points():
    rng = np.random.default_rng(20261130)
    bad = []
    for _ in range(200):
        p = _draw(rng)
        why = _check(*p)
        if why is not None:
            bad.append(f"{p}: {why}")
    assert not bad, f"{len(bad)} of 200 points fail:\n" + "\n".join(bad)


@pytest.mark.slow
@pytest.mark.parametrize("params", KNOWN)
def test_layer_laws_former_failures(params):
    why = _check(*params)
    assert why is None, why
