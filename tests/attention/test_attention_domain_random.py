"""attention_law over its whole documented domain: 2000 random points (slow).

Log-uniform β ∈ [0.01, 4] and γ_K ∈ [1e-3, 1e3], heads log-uniform in [1, 10 000]. At each
point: mass 1 ± 1e-10 by quadrature of the density plus atoms, pdf ≥ 0 on a grid of the
support, and m₁, m₂ from quadrature of the density equal to the exact θ₁ and
(1 + 1/h)θ₁² + θ₂²/γ_K (Hayase & Karakida 2026, eq. (C.11)) to 1e-9.  The default suite covers
the same properties on a hypothesis sample (test_attention_domain_hypothesis.py) and the
heads = 10 000 point of components 1e5 apart (tests/attention/test_attention_law.py).
"""
import numpy as np
import pytest

from freeattn import attention_law, theta1, theta2

POINTS = 2000


def _check(beta, gamma_k, heads):
    law = attention_law(beta, gamma_k, heads)
    support, atoms = law.support(), law.atoms()
    mass = sum(m for _, m in atoms) + sum(law.cdf(b) - law.cdf(a) for a, b in support)
    x = np.concatenate([np.linspace(a, b, 41) for a, b in support])
    m1 = law.moment(1, method="quad")
    m2 = law.moment(2, method="quad")
    t1 = theta1(beta)
    e2 = (1 + 1 / heads) * t1**2 + theta2(beta) ** 2 / gamma_k
    return (abs(mass - 1) <= 1e-10 and bool(np.all(law.pdf(x) >= 0))
            and abs(m1 / t1 - 1) <= 1e-9 and abs(m2 / e2 - 1) <= 1e-9), (mass, m1 / t1, m2 / e2)


@pytest.mark.slow
def test_two_thousand_random_points_of_the_domain():
    rng = np.random.default_rng(20261130)
    failures = []
    for _ in range(POINTS):
        beta = float(np.exp(rng.uniform(np.log(0.01), np.log(4.0))))
        gamma_k = float(np.exp(rng.uniform(np.log(1e-3), np.log(1e3))))
        heads = int(np.exp(rng.uniform(0.0, np.log(1e4))))
        try:
            ok, values = _check(beta, gamma_k, heads)
        except ArithmeticError as exc:  # a law that refuses (mass check) is a failure here too
            ok, values = False, repr(exc)
        if not ok:
            failures.append((beta, gamma_k, heads, values))
    assert not failures, f"{len(failures)} of {POINTS} points fail: {failures[:5]}"


def test_three_points_of_the_same_check():
    # the always-on version of the check above, at three fixed corners of the domain
    for point in ((0.011, 75.79, 4477), (3.566, 12.98, 399), (0.0749, 0.008, 63)):
        ok, values = _check(*point)
        assert ok, (point, values)
