"""What a user sees in a REPL or notebook (issue 18, display part): numbers at the requested
digits, exact rationals only for exact input, imports of freeattn.display at module level."""
from __future__ import annotations

import ast
import copy
import pathlib
import pickle
from fractions import Fraction

import mpmath
import sympy as sp

from freeattn import MarchenkoPastur, attention_law
from freeattn import display
from freeattn.display import law_latex, number_text


def test_support_at_dps_prints_its_digits_and_still_computes():
    law = attention_law(1.0, 0.5)
    (a, b), = law.support(dps=30)
    ref = law.support(dps=45)[0][1]  # an independent, more precise evaluation
    assert repr(b) == f"mpf('{mpmath.nstr(ref, 30)}')" and len(mpmath.nstr(ref, 30)) == 31
    assert str(b) == mpmath.nstr(ref, 30) and repr(law.support(dps=30)).count("mpf(") == 2
    # an mpf in every other way: arithmetic, float, comparisons, hashing, pickle, deepcopy
    assert isinstance(b, mpmath.mpf) and type(2 * b) is mpmath.mpf
    with mpmath.workdps(30):
        assert mpmath.almosteq(b * b, ref * ref, rel_eps=mpmath.mpf(10) ** -29)
    plain = mpmath.mpmathify(b)  # the same value as a plain mpf
    assert type(plain) is mpmath.mpf and plain == b and hash(plain) == hash(b)
    assert float(b) == float(ref) and b > a
    assert pickle.loads(pickle.dumps(b)) == b and repr(copy.deepcopy(b)) == repr(b)
    mass = MarchenkoPastur(0.5).atoms(dps=25)
    assert all(repr(m).count("mpf(") == 1 for _, m in mass)
    assert law.support() == [(0.0, float(b))]  # the float route unchanged


def test_exact_rationals_only_for_exact_input():
    """γ = 0.1 (a float) printed 3602879701896397/36028797018963968; its shortest decimal is
    the same number.  An exact 1/10 stays 1/10."""
    assert number_text(sp.Rational(0.1)) == "0.1"
    assert sp.Rational(float("0.1")) == sp.Rational(0.1)  # the text is the same number
    assert number_text(sp.Rational(1, 10)) == "1/10"
    assert number_text(sp.Rational(1, 2)) == "1/2" and number_text(sp.Integer(4)) == "4"
    assert number_text(sp.E - 1) == "-1 + E"
    assert law_latex(MarchenkoPastur(0.1)).endswith(r"y = 0.1$$")
    assert law_latex(MarchenkoPastur(Fraction(1, 10))).endswith(r"y = \frac{1}{10}$$")


def test_display_imports_inside_functions_only_matplotlib_and_symbolic():
    """matplotlib (optional, heavy) and freeattn.symbolic, which ``import freeattn`` must not
    load (tests/symbolic/test_symbolic_api.py) although it imports this module; sympy and
    freeattn.plotting are imported at module level."""
    tree = ast.parse(pathlib.Path(display.__file__).read_text(encoding="utf-8"))
    inner = [(n.lineno, alias.name if isinstance(n, ast.Import) else n.module)
             for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
             for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))
             for alias in n.names]
    assert {m for _, m in inner} <= {"matplotlib", "symbolic"}, inner
    lines = pathlib.Path(display.__file__).read_text(encoding="utf-8").splitlines()
    assert all("#" in lines[i - 1] or "#" in lines[i - 2] for i, _ in inner)  # a reason


def test_pointwise_values_at_dps_print_their_digits():
    """pdf/cdf/ppf at dps= print the dps digits they carry (they printed 15 before), and agree
    with an independent evaluation at more digits."""
    law = attention_law(1.0, 0.5)
    for name, x in (("pdf", 1.0), ("cdf", 0.5), ("ppf", 0.5)):
        value = getattr(law, name)(x, dps=30)
        ref = getattr(law, name)(x, dps=45)
        assert str(value) == mpmath.nstr(ref, 30), name
    values = law.pdf([1.0, 2.0], dps=20)
    assert [str(v) for v in values] == [mpmath.nstr(law.pdf(x, dps=35), 20) for x in (1.0, 2.0)]
