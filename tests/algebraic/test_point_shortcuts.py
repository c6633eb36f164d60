"""The shortcuts of a new parameter point (issue 22 rows 1–2): the parameter values evaluated
once and rounded down (numeric_polynomial.value_mp), the symbolic route's evaluator without a
coefficient table (ParameterValues), and the discriminant coefficients' sizes at 64 bits
(numeric._coefficient_sizes).  Each gives what the longer route gave: values to the last bit
of the working precision against mpmath at 40 more digits, and the same breakpoints."""
import mpmath
import numpy as np
import pytest
import sympy as sp

from freeattn import attention_law, mha_output_law
from freeattn.algebraic import numeric, numeric_polynomial
from freeattn.algebraic.numeric import BranchData
from freeattn.algebraic.numeric_polynomial import NumericPolynomial, ParameterValues, value_mp

B2 = sp.Rational(3006360163501268987300449844881, 5070602400912917605986812821504)  # 0.77²'s binary value


def _theta_gap(b2):
    """θ₁ − θ₂ = e^{β²} − 1 − β² computed independently in mpmath (at the current precision)."""
    b = mpmath.mpf(b2.p) / b2.q
    return mpmath.exp(b) - 1 - b


@pytest.mark.parametrize("order", [(15, 30, 90, 250, 40), (250, 15, 90), (90, 30)])
def test_value_mp_is_correct_to_the_last_bit_in_any_order(order, monkeypatch):
    """Asked at rising and falling precisions, each value is within one unit in the last
    place of the current precision of e^{β²} − 1 − β² (mpmath at 40 more digits): a higher
    precision than the memo's re-evaluates, a lower one rounds the memo's value."""
    monkeypatch.setattr(numeric_polynomial, "_VALUE_MEMO", {})
    v = sp.exp(B2) - 1 - B2
    for dps in order:
        with mpmath.workdps(dps):
            got = value_mp(v)
            assert got.context.prec == mpmath.mp.prec
            ulp = mpmath.mpf(2) ** (mpmath.mag(got) - mpmath.mp.prec)
            with mpmath.workdps(dps + 40):
                ref = _theta_gap(B2)
                assert abs(got - ref) <= ulp, (dps, got, ref)


def test_value_mp_of_plain_numbers_is_to_mp():
    with mpmath.workdps(50):
        assert value_mp(sp.Rational(1, 3)) == mpmath.mpf(1) / 3
        assert value_mp(0.1) == mpmath.mpf(0.1)
        assert value_mp(3) == 3


def test_parameter_values_equal_the_full_numeric_polynomial_values():
    """The symbolic route's evaluator gives the values the NumericPolynomial of the full P
    gave (the discriminant tables read nothing else of it)."""
    law = attention_law(0.77, 1.3, 2)
    pv = law._num_full
    assert isinstance(pv, ParameterValues)
    full = NumericPolynomial(law._factor, law.values)
    syms = sorted(law.values, key=lambda s_: s_.name)
    for dps in (15, 40, 90):
        with mpmath.workdps(dps):
            assert pv.values_mp_of(syms) == full.values_mp_of(syms)


@pytest.mark.parametrize("make", [
    lambda: attention_law(1.0, 1.0),
    lambda: attention_law(4.0, 0.001, 1),  # a pole at 0, a constant term that cancels
    lambda: attention_law(0.3, 0.05, 8),
    lambda: mha_output_law(0.9, 4, 1.2, 1.5, 2.0),
])
def test_sizes_at_64_bits_give_the_same_breakpoints(make, monkeypatch):
    """The breakpoints (to every digit of the 30-digit branch data) and poles with the sizes
    at 64 bits equal those with the sizes at the breakpoints' full precision."""
    law = make()
    law.support()
    bd = law._branch(None)
    with monkeypatch.context() as m:
        m.setattr(numeric, "_SIZE_PREC", 4000)
        ref = make()
        ref.__dict__["_fresh_classification"] = True  # no reuse: the classification tracked
        rb = ref._branch(None)
    assert rb.breakpoints == bd.breakpoints
    assert rb.poles == bd.poles
    assert np.array_equal(np.ravel(ref.support()), np.ravel(law.support()))


def test_output_laws_of_one_width_share_their_atom_rule():
    """The layer law's atom rule at 0 (max of MP_{1/γ_V}'s and π_{γ_O}'s atoms) is built once
    per (γ_V, γ_O) and shared by a β sweep; its mass is π_{1/2}({0}) = 1 − 1/2 (Nica &
    Speicher 2006, Lecture 12; MP_{2/3} has no atom)."""
    a = mha_output_law(0.9, 4, 1.2, 1.5, 0.5)
    b = mha_output_law(1.1, 4, 1.2, 1.5, 0.5)
    assert a.atom_at_zero.laws is b.atom_at_zero.laws
    assert a.atom_at_zero.mass(30) == mpmath.mpf(1) / 2


@pytest.mark.parametrize("make", [lambda: attention_law(0.77, 1.3, 2),
                                  lambda: mha_output_law(0.9, 4, 1.2, 1.5, 0.5)])
def test_a_built_law_s_factor_set_by_its_builder_is_its_stieltjes_factor(make):
    """The builders set ``_factor`` to the renamed structure polynomial (the template's own
    Stieltjes factor); recomputed by stieltjes_factor it is the same polynomial."""
    from freeattn.algebraic.polynomial import stieltjes_factor

    law = make()
    assert "_factor" in law.__dict__
    assert stieltjes_factor(law.symbolic_polynomial) == law._factor == law.symbolic_polynomial
