"""Issue 21 item 21: a polynomial given as text never executes code (restricted grammar)."""
from __future__ import annotations

import os

import pytest
import sympy as sp

from freeattn._validation import ParameterError, ParameterTypeError
from freeattn.algebraic.parse import as_polynomial, parse_polynomial
from freeattn.algebraic.polynomial import G, z
from freeattn.laws import AlgebraicLaw, MarchenkoPastur


@pytest.mark.parametrize("payload", [
    "__import__('os').system('touch {path}') or z*G - 1",
    "open('{path}', 'w').write('x') or z*G - 1",
    "(lambda: __import__('pathlib').Path('{path}').touch())() or z*G - 1",
    "z*G - 1 if __import__('os').system('touch {path}') else z*G - 1",
    "[c for c in ().__class__.__base__.__subclasses__()] and z*G - 1",
])
def test_text_that_would_run_code_is_refused_and_runs_nothing(tmp_path, payload):
    """The probe of the report (a shell command through sympify's eval) and four other ways to
    run code from text: each refused with a ParameterError naming ``polynomial``, and the file
    the code would create does not appear."""
    path = tmp_path / "executed"
    with pytest.raises(ParameterError) as err:
        AlgebraicLaw(payload.format(path=path))
    assert err.value.param == "polynomial"
    assert not os.path.exists(path)


def test_objects_that_sympify_would_stringify_are_refused(tmp_path):
    """sympify(obj) evaluates str(obj) for an unknown object: refused with a type error."""
    path = tmp_path / "executed"

    class Sneaky:
        def __str__(self):
            return f"__import__('os').system('touch {path}') or z*G - 1"

    for bad in (Sneaky(), b"z*G - 1", None, True, [z * G - 1]):
        with pytest.raises(ParameterTypeError) as err:
            AlgebraicLaw(bad)
        assert err.value.param == "polynomial"
    assert not os.path.exists(path)


def test_text_polynomials_parse_exactly_and_give_the_same_law():
    """Text in the grammar gives the expression itself: the semicircle and MP(1/2) from text
    equal the laws built from sympy expressions (edges, moments); decimals are exact."""
    assert parse_polynomial("G**2 - z*G + 1") == G**2 - z * G + 1
    assert parse_polynomial("0.1*z*G**2 + (1 - 0.1 - z)*G + 1") == (
        sp.Rational(1, 10) * z * G**2 + (sp.Rational(9, 10) - z) * G + 1)
    assert parse_polynomial("-(G/2)**2 + +z") == -(G**2) / 4 + z
    law = AlgebraicLaw("G**2 - z*G + 1")
    assert law.support() == [(-2.0, 2.0)]
    assert [float(m) for m in law.exact_moments(4)] == [0.0, 1.0, 0.0, 2.0]
    y = sp.Symbol("y")
    mp = AlgebraicLaw("y*z*G**2 + (1 - y - z)*G + 1", {y: sp.Rational(1, 2)})
    ref = MarchenkoPastur(0.5)
    assert mp.support()[0] == pytest.approx(ref.support()[0], rel=1e-15)
    assert float(mp.moment(3)) == pytest.approx(float(ref.moment(3)), rel=1e-15)
    assert as_polynomial(3) == 3 and as_polynomial(z * G) == z * G


@pytest.mark.parametrize("text, words", [
    ("z*G - 1 +", "cannot parse"),
    ("x*G - 1", "unknown name 'x'"),
    ("G**z - 1", "exponents"),
    ("G**100 - 1", "exponents"),
    ("G/z - 1", "division"),
    ("G.conjugate()", "not allowed"),
    ("'a'", "not a number"),
])
def test_text_outside_the_grammar_names_the_argument(text, words):
    with pytest.raises(ParameterError, match=words) as err:
        AlgebraicLaw(text)
    assert err.value.param == "polynomial"
