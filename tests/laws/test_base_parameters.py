"""Declared parameter domains: every public law constructor and function of the law core,
the convolution engine and the transforms refuses bad input with a ParameterError that names
the parameter (``.param``), and the CLI turns it into its flag without reading the message.

Bad values: NaN, ±∞, negative / zero where > 0 is required, out of range, wrong type.
"""
import math

import click
import numpy as np
import pytest

from freeattn import (FreePoisson, MarchenkoPastur, PointMass, Semicircle, compound_free_poisson,
                      free_additive_convolution, free_multiplicative_convolution)
from freeattn._validation import Param, ParameterError, ParameterTypeError
from freeattn.cli._errors import usage_error
from freeattn.convolution import free_additive_power, free_multiplicative_power
from freeattn.convolution.subordination import (AdditiveConvolution, AdditivePower,
                                                CompoundFreePoisson, MultiplicativeConvolution,
                                                MultiplicativePower)
from freeattn.laws import Discrete, Empirical, Mixture, NumericalLaw, Transformed
from freeattn.transforms import (cauchy_transform, chi_transform, free_cumulants,
                                 free_cumulants_from_moments, moments_from_free_cumulants,
                                 psi_transform, r_transform, s_transform)
from freeattn.transforms.cumulants import compound_free_poisson_cumulants

NAN, INF = float("nan"), float("inf")
WRONG_TYPE = [True, object(), 1 + 1j, [1.0]]


def sc_g(z):
    return (z - np.sqrt(z - 2) * np.sqrt(z + 2)) / 2


SC = Semicircle(1)
MP = MarchenkoPastur(0.5)

# (id, call taking the bad value, parameter name, bad values)
CASES = [
    ("MarchenkoPastur.ratio", lambda v: MarchenkoPastur(v), "ratio",
     [NAN, INF, -INF, 0, -0.5, "abc", "nan"] + WRONG_TYPE),
    ("FreePoisson.rate", lambda v: FreePoisson(v), "rate", [NAN, INF, 0, -2.0, "x"] + WRONG_TYPE),
    ("Semicircle.variance", lambda v: Semicircle(v), "variance",
     [NAN, INF, 0.0, -1, "-1"] + WRONG_TYPE),
    ("PointMass.location", lambda v: PointMass(v), "location", [NAN, INF, -INF, "1e400x"] + WRONG_TYPE),
    ("Discrete.points", lambda v: Discrete(v), "points", [[], [1.0, NAN], [INF], [[1.0, 2.0]], "ab"]),
    ("Discrete.weights", lambda v: Discrete([1.0, 2.0], v), "weights",
     [[0.5, 0.6], [1.5, -0.5], [1.0], [NAN, 1.0], [0.5, INF]]),
    ("Empirical.samples", lambda v: Empirical(v), "samples", [[], [NAN], [1.0, -INF]]),
    ("Empirical.bandwidth", lambda v: Empirical([1.0, 2.0], bandwidth=v), "bandwidth",
     [0, -1.0, NAN, INF] + WRONG_TYPE),
    ("NumericalLaw.cauchy", lambda v: NumericalLaw(v), "cauchy",
     [3, "G", lambda z: -sc_g(z)]),  # the last has Im G > 0 above the axis
    ("NumericalLaw.derivative", lambda v: NumericalLaw(sc_g, derivative=v), "derivative", [3, "G′"]),
    ("NumericalLaw.cauchy_mp", lambda v: NumericalLaw(sc_g, cauchy_mp=v), "cauchy_mp", [1.0]),
    ("NumericalLaw.support", lambda v: NumericalLaw(sc_g, support=v), "support",
     [[(2.0, -2.0)], [(-2.0, 1.0), (0.0, 2.0)], [(NAN, 1.0)]]),
    ("NumericalLaw.atoms", lambda v: NumericalLaw(sc_g, atoms=v), "atoms",
     [[(0.0, -0.5)], [(INF, 0.5)], [(0.0, 0.0)]]),
    ("Mixture.laws", lambda v: Mixture(v), "laws", [[], [SC, 3], 5]),
    ("Mixture.weights", lambda v: Mixture([SC, MP], v), "weights", [[0.5], [2.0, -1.0], [NAN, 1.0]]),
    ("Transformed.law", lambda v: Transformed(v, [0.0, 1.0]), "law", [3, "SC", None]),
    ("Transformed.coefficients", lambda v: Transformed(SC, v), "coefficients",
     [[1.0], [NAN, 1.0], [0.0, INF], [0.0, 0.0], "ab", 3]),
    ("Law.dilate.t", lambda v: SC.dilate(v), "t", [0, -1.0, NAN, INF]),
    ("AdditiveConvolution.mu", lambda v: AdditiveConvolution(v, SC), "mu", [3, None]),
    ("AdditiveConvolution.nu", lambda v: AdditiveConvolution(SC, v), "nu", [3, None]),
    ("MultiplicativeConvolution.nu", lambda v: MultiplicativeConvolution(MP, v), "nu", ["MP"]),
    ("CompoundFreePoisson.rate", lambda v: CompoundFreePoisson(SC, v), "rate",
     [NAN, INF, 0, -1.0] + WRONG_TYPE),
    ("AdditivePower.t", lambda v: AdditivePower(SC, v), "t", [0.5, -1, NAN, INF] + WRONG_TYPE),
    ("MultiplicativePower.t", lambda v: MultiplicativePower(MP, v), "t", [0.99, NAN, INF]),
    ("free_additive_convolution.mu", lambda v: free_additive_convolution(v, SC), "mu", [3, None]),
    ("free_additive_convolution.nu", lambda v: free_additive_convolution(SC, v), "nu", [3]),
    ("free_additive_convolution.method", lambda v: free_additive_convolution(SC, SC, method=v),
     "method", ["exact", 3]),
    ("free_additive_power.t", lambda v: free_additive_power(SC, v), "t",
     [0.5, NAN, INF, "0.5"] + WRONG_TYPE),
    ("free_multiplicative_convolution.mu", lambda v: free_multiplicative_convolution(v, MP), "mu",
     [SC, 3]),  # SC has mass on (−∞, 0)
    ("free_multiplicative_power.t", lambda v: free_multiplicative_power(MP, v), "t", [0.5, NAN, INF]),
    ("compound_free_poisson.rate", lambda v: compound_free_poisson(PointMass(1), v), "rate",
     [NAN, INF, 0, -1.0, "-0.1", "abc"] + WRONG_TYPE),
    ("compound_free_poisson.mu", lambda v: compound_free_poisson(v, 0.5), "mu", [1.0, None]),
    ("cauchy_transform.law", lambda v: cauchy_transform(v, 1j), "law", [3]),
    ("cauchy_transform.z", lambda v: cauchy_transform(SC, v), "z", [NAN, complex(NAN, 1)]),
    ("free_cumulants.law", lambda v: free_cumulants(v, 3), "law", ["SC"]),
    ("r_transform.law", lambda v: r_transform(v, 0.1), "law", [3]),
    ("r_transform.g", lambda v: r_transform(SC, v), "g", [NAN, INF]),
    ("r_transform.g.inverse", lambda v: r_transform(SC, v, method="inverse"), "g", [5.0]),
    ("r_transform.method", lambda v: r_transform(SC, 0.1, method=v), "method", ["newton"]),
    ("s_transform.w", lambda v: s_transform(MP, v), "w", [0.5, -1.0, NAN]),
    ("s_transform.law", lambda v: s_transform(v, -0.1), "law", [SC, 3]),
    ("psi_transform.u", lambda v: psi_transform(SC, v), "u", [0, NAN, INF, [0.1, 0.0]]),
    ("chi_transform.w", lambda v: chi_transform(MP, v), "w", [0.5]),
    ("Law.dps", lambda v: SC.pdf(0.1, dps=v), "dps", [2, 4.5, NAN, "30"]),
    ("Law.moment.k", lambda v: SC.moment(v), "k", [-1, 1.5, NAN]),
    ("Transformed.moment.k", lambda v: Transformed(SC, [0.0, 0.0, 1.0]).moment(v), "k", [-1, 2.5]),
    ("Law.ppf.q", lambda v: SC.ppf(v), "q", [1.5, -0.1, NAN]),
    ("Law.pdf.x", lambda v: SC.pdf(v), "x", [NAN]),
    ("free_cumulants_from_moments.m", lambda v: free_cumulants_from_moments(v), "m", [[], None, "ab"]),
    ("moments_from_free_cumulants.kappa", lambda v: moments_from_free_cumulants(v), "kappa", [[]]),
    ("compound_free_poisson_cumulants.rate", lambda v: compound_free_poisson_cumulants([1, 1], v),
     "rate", [0, -1, NAN, INF]),
]

FLAT = [(cid, call, param, bad) for cid, call, param, bads in CASES for bad in bads]


@pytest.mark.parametrize("cid,call,param,bad", FLAT,
                         ids=[f"{c}-{i}" for i, (c, *_rest) in enumerate(FLAT)])
def test_bad_input_raises_parameter_error_naming_the_parameter(cid, call, param, bad):
    with pytest.raises(ParameterError) as info:
        call(bad)
    assert info.value.param == param, f"{cid}: .param = {info.value.param!r}: {info.value}"
    # the message names the parameter
    assert param in str(info.value)


@pytest.mark.parametrize("cid,call,param,bad", FLAT[::7], ids=[c for c, *_ in FLAT[::7]])
def test_the_cli_maps_the_error_to_its_flag_from_param_alone(cid, call, param, bad):
    """usage_error takes the flag from ``.param``: a flag the message never mentions."""
    with pytest.raises(ParameterError) as info:
        call(bad)
    flag = "--flag-" + param.replace("_", "-")
    err = usage_error(info.value, **{param: flag})
    assert isinstance(err, click.UsageError) and flag in err.message


def test_wrong_types_are_also_type_errors():
    for call in (lambda: MarchenkoPastur(True), lambda: Transformed(3, [0, 1]),
                 lambda: compound_free_poisson(1.0, 0.5), lambda: NumericalLaw(3)):
        with pytest.raises(TypeError) as info:
            call()
        assert isinstance(info.value, ParameterTypeError)


def test_every_public_law_class_declares_its_parameters():
    """Each law class of the core lists its constructor's numeric parameters once, and the
    declaration is the validator the constructor uses (a value outside it is refused)."""
    import inspect

    classes = [MarchenkoPastur, FreePoisson, Semicircle, PointMass, Discrete, Empirical,
               NumericalLaw, Mixture, Transformed, AdditiveConvolution, MultiplicativeConvolution,
               CompoundFreePoisson, AdditivePower, MultiplicativePower]
    for cls in classes:
        declared = [p.name for p in cls.parameters]
        assert declared and all(isinstance(p, Param) for p in cls.parameters), cls
        sig = [n for n in inspect.signature(cls.__init__).parameters if n != "self"]
        assert set(declared) <= set(sig), (cls, declared, sig)
        for p in cls.parameters:
            assert p.describe().startswith(p.name)


def test_exact_declared_values_stay_exact_and_are_checked_exactly():
    import sympy as sp

    from decimal import Decimal

    rate = CompoundFreePoisson.parameters[1]
    assert rate.exact(Decimal("0.1")) == sp.Rational(1, 10)
    # positive, though 0.0 as a float
    assert rate.exact(Decimal("1e-400")) == sp.Rational(1, 10**400)
    with pytest.raises(ParameterError):
        rate.exact(Decimal("-1e-400"))
    assert MarchenkoPastur(Decimal("1e-400")).values  # accepted exactly
    assert math.isfinite(FreePoisson(Decimal("0.25")).rate)


@pytest.mark.parametrize("call,text", [
    (lambda: MarchenkoPastur(NAN), "> 0"), (lambda: FreePoisson(-1), "> 0"),
    (lambda: Semicircle("abc"), "> 0"), (lambda: PointMass(INF), "finite real"),
    (lambda: free_additive_power(SC, 0.5), ">= 1"), (lambda: AdditivePower(SC, INF), ">= 1"),
    (lambda: compound_free_poisson(PointMass(1), NAN), "> 0"), (lambda: SC.ppf(2), "[0, 1]"),
    (lambda: SC.pdf(0.0, dps=3), ">= 5"), (lambda: Empirical([1.0], bandwidth=-1), "> 0")])
def test_the_message_states_the_allowed_range(call, text):
    with pytest.raises(ParameterError) as info:
        call()
    assert text in str(info.value), str(info.value)


# --------------------------------------------------------------- hypothesis over the domains
from hypothesis import given, settings, strategies as st  # noqa: E402

_INSIDE = {"positive": lambda v: 0 < v < math.inf, "real": math.isfinite,
           "at_least_one": lambda v: 1 <= v < math.inf}
_SCALAR = [(MarchenkoPastur, "ratio", lambda v: MarchenkoPastur(v)),
           (FreePoisson, "rate", lambda v: FreePoisson(v)),
           (Semicircle, "variance", lambda v: Semicircle(v)),
           (PointMass, "location", lambda v: PointMass(v)),
           (Empirical, "bandwidth", lambda v: Empirical([1.0, 2.0], bandwidth=v)),
           (CompoundFreePoisson, "rate", lambda v: CompoundFreePoisson(PointMass(1), v)),
           (AdditivePower, "t", lambda v: AdditivePower(SC, v)),
           (MultiplicativePower, "t", lambda v: MultiplicativePower(MP, v))]


@pytest.mark.parametrize("cls,name,make", _SCALAR, ids=[f"{c.__name__}.{n}" for c, n, _ in _SCALAR])
@settings(max_examples=25, deadline=None)
@given(value=st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=64),
                       st.sampled_from([0.0, -0.0, 1.0, 1e-300, -1e-300, 1 - 1e-16, 1e300])))
def test_constructors_accept_exactly_their_declared_domain(cls, name, make, value):
    """Drawn on, inside and outside the declared domain: accepted iff the declaration says so
    (the declaration is the validator, not a description beside it)."""
    (param,) = [p for p in cls.parameters if p.name == name]
    inside = _INSIDE[param.domain](value)
    try:
        make(value)
    except ParameterError as exc:
        assert not inside, f"{cls.__name__}({name}={value!r}) refused inside the domain: {exc}"
        assert exc.param == name
    else:
        assert inside, f"{cls.__name__}({name}={value!r}) accepted outside the domain"
