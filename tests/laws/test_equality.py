"""Equality and hashing by value for every law family (issue 18).

One mechanism (``Law._key`` in freeattn/laws/base.py): the constructor's arguments recorded at
construction, in exact canonical form (1.0 == 1; a float is its binary value, so 0.1 differs
from sympy.Rational(1, 10)); an AlgebraicLaw's polynomial with its parameter values
substituted; plus what a builder records (``describes``, ``params``).  Each family below is
built twice from equal parameters written differently (int vs float, Fraction vs float,
keyword vs positional), and once at another point: the two must be equal and hash alike, the
third unequal; a pickled and a deep-copied law equal the original and hash alike.
"""
from __future__ import annotations

import copy
import pickle
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from freeattn import (AlgebraicLaw, Discrete, Empirical, FreePoisson, MarchenkoPastur, MHAConfig,
                      Mixture, NumericalLaw, PointMass, Semicircle, Transformed, attention_law,
                      compound_free_poisson, free_additive_convolution, free_additive_power,
                      free_multiplicative_convolution, head_average_law, mha_output_law,
                      rectangular_free_convolution, values_law)
from freeattn.algebraic.polynomial import G, z
from freeattn.attention import kv_values_law, partial_kv_values_law, residual_law


def arcsine_g(zz):
    """G of the arcsine law on [−2, 2] (module level: pickles by reference)."""
    return 1 / (np.sqrt(zz - 2) * np.sqrt(zz + 2))


def _y_poly(name):
    y = sp.Symbol(name)
    return y * z * G**2 + (1 - y - z) * G + 1, y


def _algebraic(ratio, name):
    P, y = _y_poly(name)
    return AlgebraicLaw(P, {y: ratio})


#: family → (build at a point written one way, the same point written another way,
#: another point)
FAMILIES = {
    "semicircle": (lambda: Semicircle(2), lambda: Semicircle(variance=2.0), lambda: Semicircle(3)),
    "marchenko_pastur": (lambda: MarchenkoPastur(0.5), lambda: MarchenkoPastur(Fraction(1, 2)),
                         lambda: MarchenkoPastur(0.25)),
    "free_poisson": (lambda: FreePoisson(2), lambda: FreePoisson(2.0), lambda: FreePoisson(3)),
    "point_mass": (lambda: PointMass(1), lambda: PointMass(1.0), lambda: PointMass(-1)),
    "discrete": (lambda: Discrete([0, 1], [0.5, 0.5]), lambda: Discrete([1.0, 0.0]),
                 lambda: Discrete([0, 2])),
    "empirical": (lambda: Empirical([1, 2, 2]), lambda: Empirical([2.0, 1.0, 2.0]),
                  lambda: Empirical([1, 1, 2])),
    "mixture": (lambda: Mixture([Semicircle(1), PointMass(2)]),
                lambda: Mixture([Semicircle(1.0), PointMass(2.0)], [0.5, 0.5]),
                lambda: Mixture([Semicircle(1), PointMass(3)])),
    # two different symbols y_a, y_b for the parameter: the law is the polynomial at its values
    "algebraic": (lambda: _algebraic(sp.Rational(1, 2), "y_a"),
                  lambda: _algebraic(Fraction(1, 2), "y_b"),
                  lambda: _algebraic(sp.Rational(1, 4), "y_a")),
    "algebraic_text": (lambda: AlgebraicLaw("G**2 - z*G + 1"),
                       lambda: AlgebraicLaw("G**2 - z*G + 1", name="another name"),
                       lambda: AlgebraicLaw("2*G**2 - z*G + 1")),
    "numerical": (lambda: NumericalLaw(arcsine_g, support=[(-2, 2)], atoms=[]),
                  lambda: NumericalLaw(arcsine_g, support=[(-2.0, 2.0)], atoms=[], name="x"),
                  lambda: NumericalLaw(arcsine_g)),
    "transformed": (lambda: Transformed(Discrete([0, 1]), [1, 2]),
                    lambda: Transformed(Discrete([0.0, 1.0]), [1.0, 2.0, 0.0]),
                    lambda: Transformed(Discrete([0, 1]), [1, 3])),
    "affine_algebraic": (lambda: MarchenkoPastur(0.5).affine(1, 2),
                         lambda: MarchenkoPastur(0.5).affine(1.0, 2.0),
                         lambda: MarchenkoPastur(0.5).affine(1, 3)),
    "dilation": (lambda: Semicircle(1).dilate(2), lambda: Semicircle(1.0).dilate(2.0),
                 lambda: Semicircle(1).dilate(3)),
    "boxplus_algebraic": (lambda: free_additive_convolution(Semicircle(1), MarchenkoPastur(0.5)),
                          lambda: free_additive_convolution(Semicircle(1.0),
                                                            MarchenkoPastur(Fraction(1, 2))),
                          lambda: free_additive_convolution(Semicircle(2), MarchenkoPastur(0.5))),
    "boxplus_subordination": (
        lambda: free_additive_convolution(Discrete([0, 1]), Semicircle(1), method="subordination"),
        lambda: free_additive_convolution(Discrete([0.0, 1.0]), Semicircle(1.0),
                                          method="subordination"),
        lambda: free_additive_convolution(Discrete([0, 2]), Semicircle(1), method="subordination")),
    "boxtimes": (lambda: free_multiplicative_convolution(MarchenkoPastur(0.5), FreePoisson(2)),
                 lambda: free_multiplicative_convolution(MarchenkoPastur(0.5), FreePoisson(2.0)),
                 lambda: free_multiplicative_convolution(MarchenkoPastur(0.5), FreePoisson(3))),
    "compound_poisson": (lambda: compound_free_poisson(Discrete([1, 2]), 0.5),
                         lambda: compound_free_poisson(Discrete([1.0, 2.0]), Fraction(1, 2)),
                         lambda: compound_free_poisson(Discrete([1, 2]), 0.25)),
    "additive_power": (lambda: free_additive_power(Discrete([-1, 1]), 2),
                       lambda: free_additive_power(Discrete([-1.0, 1.0]), 2.0),
                       lambda: free_additive_power(Discrete([-1, 1]), 3)),
    "rectangular": (lambda: rectangular_free_convolution(PointMass(1), MarchenkoPastur(0.5), 0.5),
                    lambda: rectangular_free_convolution(PointMass(1.0), MarchenkoPastur(0.5),
                                                         Fraction(1, 2)),
                    lambda: rectangular_free_convolution(PointMass(1), MarchenkoPastur(0.5),
                                                         0.25)),
    "attention": (lambda: attention_law(1.0, 1.0, 2), lambda: attention_law(1, 1, heads=2),
                  lambda: attention_law(1, 2, 2)),
    "head_average": (lambda: head_average_law(1.0, 0.5, 4), lambda: head_average_law(1, 0.5, 4),
                     lambda: head_average_law(1, 0.5, 4, shared_key=True)),
    "values": (lambda: values_law(1.0, 2, 1.0, 1.5), lambda: values_law(1, 2, 1, 1.5),
               lambda: values_law(1, 2, 1, 2)),
    "mha": (lambda: mha_output_law(1.0, 4, 1.5, 2.0, 2.0), lambda: mha_output_law(1, 4, 1.5, 2, 2),
            lambda: mha_output_law(1, 4, 1.5, 2, 3)),
    "mha_mqa": (lambda: mha_output_law(1.0, 4, 1.5, 1.5, 2.0, sharing="mqa"),
                lambda: mha_output_law(1, 4, 1.5, 1.5, 2, sharing="mqa"),
                # the same law as sharing="none" (C.15), but it describes another layer
                lambda: mha_output_law(1, 4, 1.5, 1.5, 2)),
    "mha_gqa": (lambda: mha_output_law(1.0, 4, 1.5, 1.5, 2.0, sharing="gqa", kv_heads=2),
                lambda: mha_output_law(1, 4, 1.5, 1.5, 2, sharing="gqa", kv_heads=2),
                lambda: mha_output_law(1, 4, 1.5, 1.5, 2, sharing="mqa")),
    "mha_tied": (lambda: mha_output_law(1.0, 2, 1.0, 1.0, 1.5, sharing="tied_kv"),
                 lambda: mha_output_law(1, 2, 1, 1, 1.5, sharing="tied_kv"),
                 lambda: mha_output_law(1, 2, 1, 1, 2, sharing="tied_kv")),
    "mha_rho": (lambda: mha_output_law(1.0, 2, 1.0, 1.0, 1.5, rho=0.5),
                lambda: mha_output_law(1, 2, 1, 1, 1.5, rho=Fraction(1, 2)),
                lambda: mha_output_law(1, 2, 1, 1, 1.5, rho=0.25)),
    "tied_values": (lambda: kv_values_law(1.0, 2, 1.0), lambda: kv_values_law(1, 2, 1),
                    lambda: kv_values_law(1, 2, 2)),
    "partial_kv_values": (lambda: partial_kv_values_law(1.0, 2, 1.0, 0.5),
                          lambda: partial_kv_values_law(1, 2, 1, Fraction(1, 2)),
                          lambda: partial_kv_values_law(1, 2, 1, 0.75)),
    "config": (lambda: MHAConfig(n=64, heads=4, d_k=16, d=96).law(),
               lambda: mha_output_law(1, 4, 1, 1, 1.5),
               lambda: MHAConfig(n=64, heads=4, d_k=16, d=128).law()),
    "residual": (lambda: residual_law(dict(beta=1.0, heads=2, gamma_k=1.0, gamma_o=1.5), 0.5),
                 lambda: residual_law(dict(beta=1, heads=2, gamma_k=1, gamma_o=1.5), 0.5),
                 lambda: residual_law(dict(beta=1, heads=2, gamma_k=1, gamma_o=1.5), 0.25)),
}


@pytest.fixture(scope="module", params=sorted(FAMILIES))
def family(request):
    first, second, other = FAMILIES[request.param]
    return request.param, first(), second(), other()


def test_equal_parameters_compare_and_hash_equal(family):
    name, a, b, _ = family
    assert a == b and b == a, name
    assert hash(a) == hash(b), name
    assert len({a, b}) == 1


def test_other_parameters_compare_unequal(family):
    name, a, _, c = family
    assert a != c and not (a == c), name
    assert len({a, c}) == 2


def test_pickle_and_deepcopy_keep_equality_and_hash(family):
    name, a, _, _ = family
    copies = [copy.deepcopy(a)]
    try:
        copies.append(pickle.loads(pickle.dumps(a)))
    except (pickle.PicklingError, AttributeError, TypeError):  # pragma: no cover
        pytest.fail(f"{name} does not pickle")
    for c in copies:
        assert c is not a and c == a and a == c, name
        assert hash(c) == hash(a), name


def test_evaluation_does_not_change_the_key(family):
    # the key does not depend on caches filled by evaluation
    name, a, b, _ = family
    h = hash(a)
    a.cdf(float(a.ppf(0.5)))
    assert hash(a) == h and a == b, name


def test_the_issue_examples():
    assert mha_output_law(1.0, 4, 1.5, 2.0, 2.0) == mha_output_law(1, 4, 1.5, 2, 2)
    layer = MHAConfig.preset("bert-base").law()
    for c in (pickle.loads(pickle.dumps(layer)), copy.deepcopy(layer)):
        assert c == layer and hash(c) == hash(layer)
    # MHAConfig.law() caches (lru_cache); a fresh build from the same parameters is equal
    assert layer == mha_output_law(1, 12, Fraction(12 * 64, 512), Fraction(12 * 64, 512),
                                   Fraction(768, 512))


@pytest.mark.parametrize("build", [
    lambda v: Semicircle(v), lambda v: MarchenkoPastur(v), lambda v: PointMass(v),
    lambda v: attention_law(v, 1), lambda v: mha_output_law(1, 2, v, v, 1.5),
    lambda v: MHAConfig(n=64, heads=2, d_k=32, beta=v).law("attention")])
def test_an_exact_tenth_is_not_the_float_tenth(build):
    # 0.1 is the binary double 3602879701896397/2**55, not 1/10: different laws
    assert build(sp.Rational(1, 10)) != build(0.1)
    assert build(sp.Rational(1, 10)) == build(Fraction(1, 10))
    assert build(0.1) == build(0.1)


def test_structure_not_measure():
    # equality is by structure and parameters: the same measure built two ways differs
    assert MarchenkoPastur(1) != FreePoisson(1)
    assert Semicircle(1) != NumericalLaw(lambda w: 2 / (w + np.sqrt(w - 2) * np.sqrt(w + 2)))


def test_mutating_the_input_array_does_not_change_the_key():
    coefs = np.array([1.0, 2.0])
    law = Transformed(Discrete([0, 1]), coefs)
    h = hash(law)
    coefs[1] = 5.0
    assert hash(law) == h and law == Transformed(Discrete([0, 1]), [1, 2])
    support = [[-2, 2]]
    cauchy = NumericalLaw(arcsine_g, support=support, atoms=[])
    key = hash(cauchy)
    support[0][1] = 3
    support.append([4, 5])
    assert hash(cauchy) == key and cauchy == NumericalLaw(arcsine_g, support=[(-2, 2)], atoms=[])


def test_a_law_with_an_unhashable_parameter_compares_by_identity():
    class Odd(NumericalLaw):
        pass

    a = Odd(arcsine_g, support=[(-2, 2)], atoms=[])
    a.__dict__["_law_arguments"] = (({1},), {})  # a set: no canonical form
    a.__dict__.pop("_law_cache", None)
    assert a == a and hash(a) == id(a)
    assert a != Odd(arcsine_g, support=[(-2, 2)], atoms=[])
