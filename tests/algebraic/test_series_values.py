"""AlgebraicLaw.exact_moments by the FLINT recursion with the parameter values substituted
before it starts (freeattn.algebraic.series.series_moments_at): irrational values read as
polynomials over Q in generators (E, exp(r), sqrt(2), …), checked against closed forms, the
sympy expansion in every parameter (the former route), the numeric recursion at 60 digits
(independent arithmetic), and bounded in memory where the former reading of exp(p/q) as
exp(1/q)^p (sympy.Poly) built a polynomial of degree 10^31."""
import os
import subprocess
import sys

import mpmath
import pytest
import sympy as sp

from freeattn import MarchenkoPastur, MHAConfig, attention_law, boxtimes
from freeattn.algebraic import polynomial as pm
from freeattn.algebraic import series
from freeattn.algebraic.polynomial import G, z
from freeattn.algebraic.series import series_moments_at, series_moments_numeric
from freeattn.attention.tied import kv_law, kv_values_law
from freeattn.convolution import compound_free_poisson
from freeattn.laws import FreePoisson
from freeattn.laws.algebraic import AlgebraicLaw


def narayana(n, y):
    return sum(sp.binomial(n, k) * sp.binomial(n, k - 1) / n * y ** (k - 1) for k in range(1, n + 1))


def agree_with_numeric(law, ms, digits=40):
    """The exact moments evaluated at 60 digits equal the 60-digit numeric recursion."""
    with mpmath.workdps(60):
        num = series_moments_numeric(law._num.coefficients_mp(), len(ms))
        for k, (m, ref) in enumerate(zip(ms, num), start=1):
            v = mpmath.mpf(sp.N(m, 60))
            assert abs(v - ref) <= mpmath.mpf(10) ** -digits * abs(ref), (law.name, k)


LAWS = {
    "single head, float beta (exp(p/q), q = 2^104)": lambda: attention_law(0.8, 0.5, 3),
    "single head beta = 1": lambda: attention_law(1.0, 1.0),
    "values law (boxtimes MP)": lambda: boxtimes(attention_law(0.8, 0.5, 3), MarchenkoPastur(2 / 3)),
    "values law boxtimes free Poisson": lambda: boxtimes(
        boxtimes(attention_law(0.8, 0.5, 3), MarchenkoPastur(2 / 3)), FreePoisson(1.5)),
    "affine image exp(1/4)": lambda: MarchenkoPastur(2).affine(
        sp.exp(sp.Rational(1, 4)) - sp.Rational(5, 4), sp.Rational(1, 4)),
    "compound free Poisson of the tied law": lambda: compound_free_poisson(kv_law(1.0, 4, 2.0), 4),
    "tied values law, float beta": lambda: kv_values_law(0.7, 8, 2.0),
    "full layer bert-base": lambda: MHAConfig.preset("bert-base").law(),
}


@pytest.mark.parametrize("name", list(LAWS))
def test_exact_moments_equal_the_symbolic_route_and_the_numeric_recursion(name):
    law = LAWS[name]()
    ms = law.exact_moments(20)
    old = [sp.expand(m.xreplace(law.values)) for m in pm.series_moments(law._factor, 3)]
    assert [sp.expand(a - b) for a, b in zip(ms, old)] == [0] * 3
    agree_with_numeric(law, ms)


def test_rational_values_give_exact_rationals():
    """MP(1) ⊠ MP(1): Fuss–Catalan binom(3n, n)/(2n + 1), exact rationals."""
    law = boxtimes(MarchenkoPastur(1), MarchenkoPastur(1))
    ms = law.exact_moments(40)
    assert ms == [sp.binomial(3 * n, n) / (2 * n + 1) for n in range(1, 41)]
    assert all(m.is_Rational for m in ms)


def test_fifty_moments_single_head():
    law = attention_law(1.0, 1.0)
    assert law.moment(50, method="exact") == pytest.approx(float(law._moments_mp(50, 30)[-1]),
                                                           rel=1e-14)
    agree_with_numeric(law, law.exact_moments(50))


def test_generator_power_boundary():
    """A value read as a polynomial in generators up to the power _MAX_GENERATOR_POWER of one
    generator (substituted before the recursion); above it the value stays a symbol through
    the recursion and is substituted after (sympy's expand).  Both sides give Narayana's
    polynomials at the value exactly."""
    top = series._MAX_GENERATOR_POWER
    y = sp.Symbol("y")
    P = y * z * G**2 + (1 - y - z) * G + 1
    for e in (top, top + 1):
        v = sp.pi**e + sp.Rational(1, 3)
        gens = []
        poly = series._generator_polynomial(v, gens)
        assert (poly is not None) == (e <= top)
        ms = series_moments_at(P, {y: v}, 8)
        assert [sp.expand(m - narayana(n, v)) for n, m in enumerate(ms, start=1)] == [0] * 8


def test_generator_reading():
    gens = []
    v = 3 * sp.E**2 - sp.exp(sp.Rational(1, 4)) * sp.sqrt(2) + sp.Rational(5, 7)
    poly = series._generator_polynomial(v, gens)
    back = sum(c_to_sympy(c) * sp.Mul(*[g**e for g, e in zip(gens, m)]) for m, c in poly.items())
    assert sp.expand(back - v) == 0 and len(gens) == 3
    # exp of a rational with a large numerator and denominator is one generator, power 1
    big = sp.exp(sp.Rational(12980742146337070512478121581609, 20282409603651670423947251286016))
    gens = []
    assert series._generator_polynomial(big - 1, gens) == {(0,): -1, (1,): 1} and gens == [big]
    # floats and symbols are not read
    assert series._generator_polynomial(sp.Float(0.5) * sp.E, []) is None
    assert series._generator_polynomial(sp.Symbol("t") + 1, []) is None


def c_to_sympy(c):
    return sp.Rational(int(c.p), int(c.q))


def test_divisor_vanishing_at_dependent_generators():
    """exp(1/2)² = e: the recursion's divisor a − b² is a non-zero polynomial in the
    generators e, exp(1/2) and zero at their values — refused; a divisor 10^-20 away from
    zero is a valid division: P = d(Gz − 1) − G² is the semicircle of variance 1/d,
    m_2k = Catalan(k) d^-k."""
    a, b = sp.symbols("a b")
    P = (a - b**2) * (G * z - 1) - G**2
    with pytest.raises(ValueError, match="simple root"):
        series_moments_at(P, {a: sp.E, b: sp.exp(sp.Rational(1, 2))}, 4)
    d = sp.Rational(1, 10**20)
    ms = series_moments_at(P, {a: sp.E + d, b: sp.exp(sp.Rational(1, 2))}, 8)
    for n, m in enumerate(ms, start=1):
        ref = 0 if n % 2 else sp.catalan(n // 2) * d ** -(n // 2)
        assert sp.simplify(m - ref) == 0


def test_fallback_without_flint_equals_the_recursion(monkeypatch):
    """Where FLINT is off (FREEATTN_FLINT=0) exact_moments takes the sympy expansion in every
    parameter: same values."""
    fast = attention_law(1.5, 0.75, 2).exact_moments(6)
    monkeypatch.setattr("freeattn.laws.algebraic.flint_enabled", lambda: False)
    slow = attention_law(1.5, 0.75, 2)
    assert [sp.expand(a - b) for a, b in zip(slow.exact_moments(6), fast)] == [0] * 6


def test_exact_moments_under_a_memory_cap():
    """The laws of tests/laws/test_speed_cold.py (positivity by construction), whose exact
    moments took > 18 GB through sympy.Poly's reading of exp(p/q), in a child process
    limited to 2.5 GB of address space beyond the imports."""
    code = """
import resource, sympy as sp
from freeattn import attention_law, MarchenkoPastur
from freeattn.convolution import free_multiplicative_convolution as boxtimes
from freeattn.attention.tied import kv_values_law
peak = int(open('/proc/self/status').read().split('VmPeak:')[1].split()[0]) * 1024
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
cap = peak + 2500 * 2**20
resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
att = attention_law(0.8, 0.5, 3)
for law in (att, boxtimes(att, MarchenkoPastur(2 / 3)), kv_values_law(0.7, 8, 2.0)):
    assert float(law.exact_moments(12)[0]) > 0
print('ok')
"""
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600, env=env)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
