"""ParameterError: the declared-domain error carries the parameter's name."""
import click
import numpy as np
import pytest

from freeattn._validation import ParameterError, in_closed_interval, positive, positive_integer
from freeattn.cli._errors import usage_error


@pytest.mark.parametrize("call, name", [
    (lambda: positive("gamma_k", -1.0), "gamma_k"),
    (lambda: positive("rate", float("nan")), "rate"),
    (lambda: in_closed_interval("beta", 7.0, 0.01, 4.0), "beta"),
    (lambda: positive_integer("heads", 0), "heads"),
])
def test_parameter_error_names_the_parameter(call, name):
    with pytest.raises(ParameterError) as info:
        call()
    assert info.value.param == name
    assert isinstance(info.value, ValueError)
    assert str(info.value).startswith(name)


def test_cli_maps_the_parameter_to_its_flag_without_parsing():
    err = usage_error(ParameterError("gamma_k", "value must be > 0, got -1"))
    assert isinstance(err, click.UsageError)
    assert err.message == "--gamma-k: value must be > 0, got -1"
    err = usage_error(ParameterError("beta", "beta must lie in [0.01, 4], got 9"))
    assert err.message == "--beta must lie in [0.01, 4], got 9"


# ---------------------------------------------------------------- declared parameters
from freeattn._validation import (Param, check_method, declare, probability_vector,  # noqa: E402
                                  real_vector)


def test_declared_parameters_validate_once_and_name_themselves():
    params = (Param("rate", "positive", "t"), Param("beta", ("closed", 0.01, 4.0), "β"),
              Param("heads", "positive_integer", "h"))
    assert declare(params, rate=2.0, beta=1.0, heads=3) == {"rate": 2.0, "beta": 1.0, "heads": 3}
    with pytest.raises(ParameterError) as info:
        declare(params, rate=2.0, beta=9.0, heads=3)
    assert info.value.param == "beta" and "[0.01, 4]" in str(info.value)
    with pytest.raises(TypeError):
        declare(params, rate=2.0, beta=1.0)
    assert params[1].describe() == "beta β: in [0.01, 4]"
    with pytest.raises(ValueError):
        Param("x", "bogus")


def test_method_check_lists_the_choices():
    assert check_method(None, ("a", "b")) is None and check_method("b", ("a", "b")) == "b"
    with pytest.raises(ParameterError) as info:
        check_method("c", ("a", "b"))
    assert info.value.param == "method" and "'a', 'b'" in str(info.value)


def test_vectors():
    np.testing.assert_array_equal(real_vector("points", [1, 2]), [1.0, 2.0])
    for bad in ([], [[1.0]], [np.inf], "ab"):
        with pytest.raises(ParameterError) as info:
            real_vector("points", bad)
        assert info.value.param == "points"
    assert probability_vector("weights", [0.25, 0.75], 2).sum() == 1.0
    with pytest.raises(ParameterError, match="sum to 1"):
        probability_vector("weights", [1, 3], 2)  # counts are not renormalised silently


# --- one rule for strings: numbers only (issue: MarchenkoPastur('2') was accepted while
# attention_law(beta='1') was refused) ---------------------------------------------------
def _string_calls():
    from freeattn import FreePoisson, MarchenkoPastur, PointMass, Semicircle
    from freeattn.attention import attention_law, mha_output_law

    return [
        (lambda: MarchenkoPastur("2"), "ratio"),
        (lambda: MarchenkoPastur("abc"), "ratio"),
        (lambda: Semicircle("0.5"), "variance"),
        (lambda: FreePoisson("0.25"), "rate"),
        (lambda: PointMass("1"), "location"),
        (lambda: attention_law(beta="1", gamma_k=1), "beta"),
        (lambda: attention_law(1, "0.5"), "gamma_k"),
        (lambda: attention_law(1, 1, heads="2"), "heads"),
        (lambda: mha_output_law(1, 4, 1.5, 2, "0.5"), "gamma_o"),
        (lambda: positive("n", "2"), "n"),
        (lambda: positive_integer("heads", b"2"), "heads"),
    ]


@pytest.mark.parametrize("index", range(11))
def test_strings_are_refused_everywhere_with_the_parameter_named(index):
    from freeattn._validation import ParameterTypeError

    call, name = _string_calls()[index]
    with pytest.raises(ParameterTypeError) as info:
        call()
    assert info.value.param == name
    assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)
    msg = str(info.value)
    assert msg.startswith(name) and "not a string" in msg
    # a numeric string gets the way to write it (Decimal for an exact decimal); 'abc' not
    assert ("numbers only: pass" in msg) is (index != 1)
    if index == 2:
        assert "pass 0.5 itself, or decimal.Decimal('0.5')" in msg
    if index == 0:
        assert msg.endswith("(numbers only: pass 2 itself)")


def test_exact_numbers_are_the_exact_route():
    from decimal import Decimal
    from fractions import Fraction

    import sympy as sp

    from freeattn import MarchenkoPastur
    from freeattn.attention import attention_law

    assert list(MarchenkoPastur(Decimal("0.1")).values.values()) == [sp.Rational(1, 10)]
    assert list(MarchenkoPastur(Fraction(1, 10)).values.values()) == [sp.Rational(1, 10)]
    # the same law as from floats where the float is exact (beta = 1, gamma_K = 1/2)
    assert attention_law(Decimal("1"), Decimal("0.5")).mean() == \
        pytest.approx(attention_law(1.0, 0.5).mean(), rel=1e-15)


def test_cli_parses_its_own_strings():
    from click.testing import CliRunner

    from freeattn.cli import main

    res = CliRunner().invoke(main, ["density", "attention", "--beta", "1", "--gamma-k", "0.5",
                                    "--points", "3"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["density", "attention", "--beta", "one", "--gamma-k", "1"])
    assert res.exit_code == 2 and "--beta" in res.output


# --- every public method of Law: bad arguments give a ParameterError naming the argument ---
def _law():
    from freeattn import MarchenkoPastur

    return MarchenkoPastur(0.5)


_BAD_POINTS = {
    "None": None, "string": "1", "bytes": b"1", "bool": True, "dict": {},
    "string array": np.array(["1.0"]), "bool array": np.array([True]),
    "object array with None": [1.0, None], "ragged": [[1.0], [2.0, 3.0]],
    "datetime": np.datetime64("2020-01-01"), "nan": float("nan"),
}
_REAL_METHODS = ("pdf", "logpdf", "cdf", "logcdf", "sf")


@pytest.mark.parametrize("dps", [None, 20])
@pytest.mark.parametrize("method", _REAL_METHODS + ("ppf", "isf", "cauchy_transform",
                                                    "cauchy_transform_derivative"))
@pytest.mark.parametrize("kind", sorted(_BAD_POINTS))
def test_every_pointwise_method_names_a_bad_argument(method, kind, dps):
    import warnings

    name = {"ppf": "q", "isf": "q", "cauchy_transform": "z",
            "cauchy_transform_derivative": "z"}.get(method, "x")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning (ComplexWarning, RuntimeWarning)
        with pytest.raises(ParameterError) as info:
            getattr(_law(), method)(_BAD_POINTS[kind], dps=dps)
    assert info.value.param == name
    assert str(info.value).startswith(name)


@pytest.mark.parametrize("dps", [None, 20])
@pytest.mark.parametrize("method", _REAL_METHODS)
@pytest.mark.parametrize("z", [1 + 1j, np.array([1.0 + 0.5j, 2.0]), "mpc"])
def test_complex_points_on_real_axis_methods_point_to_the_cauchy_transform(method, z, dps):
    import mpmath

    from freeattn._validation import ParameterTypeError

    z = mpmath.mpc(1, 1) if isinstance(z, str) else z
    with pytest.raises(ParameterTypeError) as info:
        getattr(_law(), method)(z, dps=dps)
    msg = str(info.value)
    assert info.value.param == "x" and isinstance(info.value, TypeError)
    assert "real axis" in msg and "cauchy_transform" in msg and method in msg


@pytest.mark.parametrize("q", [-0.1, 1.5, [0.5, 2.0], np.array([0.2, np.nan]), 1 + 0j])
@pytest.mark.parametrize("method", ["ppf", "isf"])
def test_probabilities_outside_zero_one_are_refused(method, q):
    with pytest.raises(ParameterError) as info:
        getattr(_law(), method)(q)
    assert info.value.param == "q"


@pytest.mark.parametrize("size, cls", [
    (-1, ParameterError), (2.5, TypeError), ("3", TypeError), ((2, -1), ParameterError),
    ((2.5,), TypeError), (True, TypeError), ([2, None], TypeError)])
def test_rvs_size_must_be_a_non_negative_integer_or_tuple(size, cls):
    with pytest.raises(ParameterError) as info:
        _law().rvs(size)
    assert info.value.param == "size" and isinstance(info.value, cls)
    assert "size must" in str(info.value)


@pytest.mark.parametrize("state", ["seed", -1, 1.5, object()])
def test_rvs_random_state_is_validated(state):
    with pytest.raises(ParameterError) as info:
        _law().rvs(3, random_state=state)
    assert info.value.param == "random_state"


def test_valid_arguments_keep_their_values():
    """The filter refuses nothing a number is: ints, numpy ints/floats, Fraction, Decimal,
    mpf, sympy numbers, int arrays; rvs of shape () / (0,) / (2, 3) / numpy ints."""
    import math
    from decimal import Decimal
    from fractions import Fraction

    import mpmath
    import sympy as sp

    law = _law()
    a, b = (1 - math.sqrt(0.5)) ** 2, (1 + math.sqrt(0.5)) ** 2
    ref = math.sqrt((b - 1) * (1 - a)) / (2 * math.pi * 0.5)  # MP_{1/2} density at 1
    for x in (1, np.int64(1), np.float32(1), Fraction(1), Decimal(1), mpmath.mpf(1),
              sp.Integer(1)):
        assert float(law.pdf(x)) == pytest.approx(ref, rel=1e-13), x
    np.testing.assert_allclose(law.pdf(np.array([1, 1], dtype=np.int32)), [ref, ref], rtol=1e-13)
    # any array_like, not only ndarray/list/tuple (a range, a 0-d array, a memoryview)
    np.testing.assert_allclose(law.pdf(range(1, 2)), [ref], rtol=1e-13)
    assert float(law.pdf(np.array(1.0))) == pytest.approx(ref, rel=1e-13)
    np.testing.assert_allclose(law.pdf(memoryview(np.array([1.0]))), [ref], rtol=1e-13)
    with pytest.raises(ParameterError, match="generator"):
        law.pdf(v for v in [1.0])
    assert abs(law.pdf(mpmath.mpf(1), dps=30) - ref) < 1e-14
    np.testing.assert_allclose(law.ppf(np.array([0, 1])), [a, b], rtol=1e-12)
    assert law.cauchy_transform(2 + 1j) == pytest.approx(
        law.cauchy_transform(np.array([2 + 1j]))[0])
    assert law.rvs(0, random_state=1).shape == (0,)
    assert law.rvs((2, 3), random_state=np.int64(1)).shape == (2, 3)
    assert law.rvs([4], random_state=np.random.default_rng(0)).shape == (4,)
    assert np.ndim(law.rvs(random_state=np.random.SeedSequence(2))) == 0
    x = law.rvs(np.int64(2000), random_state=0)
    assert a <= x.min() and x.max() <= b


@pytest.mark.parametrize("func, match", [
    # None is scipy's default (the identity, issue 18): tests/laws/test_vocabulary.py
    ("x**2", "callable"), (3, "callable"),
    (lambda x: "a", "return real numbers"), (lambda x: x + 1j, "return real numbers"),
    (lambda x: [None] * np.size(x), "return real numbers")])
def test_expect_names_func(func, match):
    with pytest.raises(ParameterError, match=match) as info:
        _law().expect(func)
    assert info.value.param == "func"


def test_expect_keeps_its_values():
    law = _law()
    assert law.expect(np.square) == pytest.approx(1.5, rel=1e-12)  # m2 of MP_{1/2} = 1 + y
    assert law.expect(lambda x: 1.0) == pytest.approx(1.0, rel=1e-12)  # broadcast constant


@pytest.mark.parametrize("method, arg, name", [
    ("moment", None, "k"), ("moment", "2", "k"), ("moment", 2.5, "k"), ("moment", 1j, "k"),
    ("interval", "0.5", "confidence"), ("interval", 1.5, "confidence"),
    ("r_transform", None, "g"), ("r_transform", "1", "g"), ("r_transform", np.array(["a"]), "g"),
    ("s_transform", None, "w"), ("s_transform", "0.5", "w"),
    ("free_cumulants", "3", "order"), ("support", "x", "dps"), ("pdf", 1.0, "dps")])
def test_other_methods_name_their_argument(method, arg, name):
    law = _law()
    with pytest.raises(ParameterError) as info:
        if method == "pdf":
            law.pdf(arg, dps="20")
        else:
            getattr(law, method)(arg)
    assert info.value.param == name


@pytest.mark.parametrize("call, name", [
    (lambda L: L.Discrete(["0", "1"], [0.5, 0.5]), "points"),
    (lambda L: L.Discrete([0, 1], ["0.5", "0.5"]), "weights"),
    (lambda L: L.Empirical(["1", "2", "3"]), "samples"),
    (lambda L: L.Empirical([1.0, "2"]), "samples"),
    (lambda L: L.Empirical(np.array([True, False])), "samples"),
])
def test_vector_parameters_refuse_strings_too(call, name):
    """real_vector parsed ['0', '1'] as numbers while scalar parameters refused '1'."""
    from freeattn import laws
    from freeattn._validation import ParameterTypeError

    with pytest.raises(ParameterTypeError) as info:
        call(laws)
    assert info.value.param == name


def test_vector_parameters_keep_numbers():
    from freeattn.laws import Discrete, Empirical

    law = Discrete(np.array([0, 2], dtype=np.int64), [0.25, 0.75])
    assert law.mean() == pytest.approx(1.5, rel=1e-15)
    assert Empirical(range(1, 4)).mean() == pytest.approx(2.0, rel=1e-15)


@pytest.mark.parametrize("call, name", [
    (lambda mc, law: mc.ks_distance(["1", "2"], law), "samples"),
    (lambda mc, law: mc.ks_distance([], law), "samples"),
    (lambda mc, law: mc.ks_distance([np.nan, 1.0], law), "samples"),
    (lambda mc, law: mc.rel_w1([1.0, "2"], law), "samples"),
    (lambda mc, law: mc.t_interval(["1", "2"]), "values"),
    (lambda mc, law: mc.t_interval([]), "values"),
    (lambda mc, law: mc.ks_two_sample([1.0, 2.0], ["1"]), "b"),
])
def test_monte_carlo_metrics_name_bad_samples(call, name):
    """ks_distance(['1', '2'], law) returned a number; errors now name the argument."""
    from freeattn import MarchenkoPastur
    from freeattn import montecarlo as mc

    with pytest.raises(ParameterError) as info:
        call(mc, MarchenkoPastur(0.5))
    assert info.value.param == name


def test_monte_carlo_metrics_keep_their_values():
    from freeattn import MarchenkoPastur
    from freeattn import montecarlo as mc

    law = MarchenkoPastur(0.5)
    x = np.array([[1.0], [2.0]])  # any shape, flattened
    # KS of {1, 2} against the law: max over the two steps of |F_n − F|
    f1, f2 = float(law.cdf(1.0)), float(law.cdf(2.0))
    want = max(f1, abs(0.5 - f1), abs(0.5 - f2), abs(1.0 - f2))
    assert mc.ks_distance(x, law) == pytest.approx(want, rel=1e-12)
    iv = mc.t_interval([1, 3])
    assert iv.mean == 2.0 and iv.high - iv.mean == pytest.approx(12.706204736174698, rel=1e-9)


@pytest.mark.parametrize("x", [None, "1", 1 + 1j, float("nan"), [1.0, float("inf")]])
def test_density_limit_names_x(x):
    """density_limit(None) returned (array([0.]), array([0.])) (None became NaN)."""
    from freeattn import Semicircle

    with pytest.raises(ParameterError) as info:
        Semicircle(1.0).density_limit(x)
    assert info.value.param == "x"


def test_density_limit_keeps_its_value():
    import math

    from freeattn import Semicircle

    val, err = Semicircle(1.0).density_limit([0.5])
    assert val[0] == pytest.approx(math.sqrt(4 - 0.25) / (2 * math.pi), rel=1e-6)


@pytest.mark.parametrize("heads", [0, 1.5, -3, 20000, float("nan")])
def test_heads_out_of_its_domain_states_both_bounds(heads):
    # was "an integer >= 1" for 0 and 1.5 but "[1, 10000]" for 20000 (fresh-user trial)
    from freeattn import attention_law

    with pytest.raises(ParameterError, match=r"heads must be an integer in \[1, 10000\]") as info:
        attention_law(1, 1, heads)
    assert info.value.param == "heads"
