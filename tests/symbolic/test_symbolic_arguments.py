"""freeattn.symbolic refuses bad arguments with ParameterErrors naming them (a new user's
mistakes: a string or None as the law, an unknown series variable, a negative dps)."""
import pytest
import sympy as sp

from freeattn import Discrete, MarchenkoPastur, attention_law
from freeattn._validation import ParameterError, ParameterTypeError
from freeattn.symbolic import (algebraic_equation, critical_point_edges, edge_series,
                               free_cumulants, latex, moment_series, moments,
                               stationary_equation)

LAW = attention_law(1.0, 1.0, 2)


@pytest.mark.parametrize("fn", [
    lambda law: moments(law, 2), lambda law: free_cumulants(law, 2),
    lambda law: algebraic_equation(law), lambda law: critical_point_edges(law, 30),
    lambda law: edge_series(law), lambda law: moment_series(law, 2),
])
@pytest.mark.parametrize("law", ["attention", None, Discrete([0.0, 1.0], [0.5, 0.5])])
def test_non_algebraic_law_is_refused_naming_law(fn, law):
    # formerly AttributeError ('str' object has no attribute 'exact_moments') or a bare TypeError
    with pytest.raises(ParameterTypeError, match="law must be an AlgebraicLaw") as e:
        fn(law)
    assert e.value.param == "law"


def test_series_of_a_non_attention_law():
    with pytest.raises(ParameterTypeError, match="attention laws") as e:
        edge_series(MarchenkoPastur(0.5), "beta")
    assert e.value.param == "law"


@pytest.mark.parametrize("variable", ["foo", None, 1])
def test_unknown_series_variable(variable):
    # formerly a bare ValueError
    with pytest.raises(ParameterError, match="variable must be 'beta' or 'gamma_k'") as e:
        edge_series(LAW, variable)
    assert e.value.param == "variable"


@pytest.mark.parametrize("dps", [-3, 0, None, "30"])
def test_edge_series_in_beta_checks_dps(dps):
    # formerly dps=-3 returned the coefficients rounded to nothing: 0.e-1*beta**2 + ...
    with pytest.raises(ParameterError) as e:
        edge_series(LAW, "beta", dps=dps)
    assert e.value.param == "dps"


def test_critical_point_edges_needs_dps():
    with pytest.raises(ParameterError, match="dps must be an integer >= 5") as e:
        critical_point_edges(LAW, None)
    assert e.value.param == "dps"


@pytest.mark.parametrize("expr", ["G**2", LAW])
def test_latex_refuses_strings_and_laws(expr):
    # formerly latex('x') = '\\mathtt{\\text{x}}' and latex(law) printed the law's repr
    with pytest.raises(ParameterTypeError, match="algebraic_equation") as e:
        latex(expr)
    assert e.value.param == "expr"
    assert latex(algebraic_equation(MarchenkoPastur(sp.Rational(1, 2))), equation=True) \
        .endswith("= 0")


def test_stationary_equation_takes_no_law():
    # its unused ``symbolic`` flag silently accepted a law and returned the attention equation
    with pytest.raises(TypeError):
        stationary_equation(MarchenkoPastur(0.5))
    stat, z_of, g_of, zeta = stationary_equation()
    assert sp.Poly(stat, zeta).degree() == 5
