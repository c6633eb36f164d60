"""discriminant.table_coefficients: a discriminant table evaluated exactly (FLINT fmpq_mpoly)
at mpf parameter values, rounded once, equals the exact value of the table's polynomial at
those binary rationals (sympy, exact) — negative, fractional and tiny values included — and
table.evaluate (mpmath arithmetic) to its rounding."""
import mpmath
import pytest
import sympy as sp

from freeattn import attention_law
from freeattn.algebraic.discriminant import discriminant_tables, table_coefficients
from freeattn.laws import MarchenkoPastur

LAWS = {
    "attention": lambda: attention_law(1.3, 0.7, 2),
    "negative scale": lambda: MarchenkoPastur(0.5).pushforward([1.0, -2.0]),
}


@pytest.mark.parametrize("name", sorted(LAWS))
@pytest.mark.parametrize("values", [None, (-2.5, 0.375, -1e-30, 3.0)])
def test_exact_evaluation_equals_the_exact_value(name, values):
    law = LAWS[name]()
    with mpmath.workdps(50):
        for table, _ in discriminant_tables(law._factor):
            if values is None:
                vals = [mpmath.mpf(sp.N(law.values[s], 60)) for s in table.symbols]
            else:
                vals = [mpmath.mpf(v) for v in values[:len(table.symbols)]]
            got = table_coefficients(table, vals)
            # the binary rationals the mpf values are (their mantissas fit 200 bits at 50 digits
            # and the values' exponents here are ≥ −200), exactly
            exact_vals = {s: sp.Rational(int(v * 2**400), 2**400) for s, v in zip(table.symbols, vals)}
            for j, row in enumerate(table.terms):
                want = sum(int(c) * sp.Mul(*[exact_vals[s]**int(k) for s, k in zip(table.symbols, e)])
                           for e, c in row)
                want = mpmath.mpf(sp.Rational(want).p) / sp.Rational(want).q
                scale = sum(abs(int(c)) * mpmath.mpf(1) * mpmath.fprod(abs(v)**int(k) for v, k in zip(vals, e))
                            for e, c in row) or 1
                assert abs(got[j] - want) <= mpmath.mpf(2)**-160 * scale, (j, got[j], want)
                ref = table.evaluate(vals, mpmath.mpf(1))[j]
                assert abs(ref - want) <= mpmath.mpf(10)**-40 * scale
