"""One precision mechanism: every numeric method at ``dps`` computes at that precision (plus
guard digits) and never touches mpmath's global precision.

Each case evaluates its law's methods at dps = 30 while the global precision is set to an
unusual 17 digits: a route that forgot to scope its precision would leave the global value
changed (checked after every call) or compute at 17 digits (caught by the comparison with a
closed form or a second algorithm at 1e-25).  References:

* Semicircle(v): G(z) = (z − sqrt(z − 2σ) sqrt(z + 2σ))/(2σ²), density sqrt(4σ² − x²)/(2πσ²),
  cdf 1/2 + x sqrt(4σ² − x²)/(4πσ²) + arcsin(x/(2σ))/π (Wigner 1958);
* MP_y and π_t = D_t MP_{1/t}: G = 2/(z + y − 1 + sqrt(z − a) sqrt(z − b)), a, b = (1 ∓ √y)²
  (Marchenko & Pastur 1967);
* point masses and discrete laws: G = Σ w_i/(z − a_i);
* the push-forward of Semicircle(1) by x² is π₁ (free Poisson of rate 1);
* Semicircle(1) ⊞ Semicircle(1) = Semicircle(2), Semicircle(1)^{⊞2} = Semicircle(2),
  π(δ₁, t) = π_t (Nica & Speicher 2006, Lectures 2 and 12);
* MP ⊠ MP and its powers by subordination against the exact algebraic route at 30 digits.
"""
import math
from decimal import Decimal as D  # exact parameters: numbers only, no strings

import mpmath
import numpy as np
import pytest

from freeattn import (FreePoisson, MarchenkoPastur, PointMass, Semicircle, compound_free_poisson,
                      free_additive_convolution, free_multiplicative_convolution)
from freeattn.convolution import free_additive_power, free_multiplicative_power
from freeattn.laws import Discrete, Empirical, Mixture, NumericalLaw, Transformed

DPS = 30
TOL = mpmath.mpf(10) ** -25


def sc_g(z, v=1):
    """Semicircle G at the current mpmath precision (or float64 for numpy input)."""
    r = 2 * mpmath.sqrt(v)
    return 2 / (z + mpmath.sqrt(z - r) * mpmath.sqrt(z + r))


def sc_pdf(x, v=1):
    return mpmath.sqrt(4 * v - x * x) / (2 * mpmath.pi * v) if x * x < 4 * v else mpmath.mpf(0)


def sc_cdf(x, v=1):
    r = 2 * mpmath.sqrt(v)
    return 0.5 + x * mpmath.sqrt(r * r - x * x) / (4 * mpmath.pi * v) + mpmath.asin(x / r) / mpmath.pi


def mp_g(z, y):
    r = mpmath.sqrt(y)
    a, b = (1 - r) ** 2, (1 + r) ** 2
    return 2 / (z + y - 1 + mpmath.sqrt(z - a) * mpmath.sqrt(z - b))


def fp_g(z, t):
    return mp_g(z / t, 1 / mpmath.mpf(t)) / t


def _sc_numerical():
    return NumericalLaw(lambda z: (z - np.sqrt(z - 2) * np.sqrt(z + 2)) / 2,
                        cauchy_mp=lambda z, dps: sc_g(mpmath.mpc(z)),
                        support=[(-2.0, 2.0)], atoms=[], name="semicircle by G")


# (id, law factory, reference G at the current mpmath precision, real point inside the
# support or None, reference pdf there or None, methods to run at dps)
_FAST = ("cauchy_transform", "cauchy_transform_derivative", "pdf", "support", "atoms", "mean")
#: the rest of the scipy.stats-like vocabulary, for the laws with closed forms
_MORE = ("logpdf", "logcdf", "isf", "median", "std", "interval", "expect")
CASES = [
    ("Semicircle", lambda: Semicircle(D("0.5")), lambda z: sc_g(z, mpmath.mpf("0.5")), "0.3",
     lambda x: sc_pdf(x, mpmath.mpf("0.5")), _FAST + _MORE + ("cdf", "sf", "ppf", "var", "moment")),
    ("MarchenkoPastur", lambda: MarchenkoPastur(D("0.5")), lambda z: mp_g(z, mpmath.mpf("0.5")),
     "1.1", None, _FAST + _MORE + ("cdf", "ppf", "var", "moment")),
    ("MarchenkoPastur>1", lambda: MarchenkoPastur(2), lambda z: mp_g(z, 2), "2.0", None,
     _FAST + ("cdf", "moment")),
    ("FreePoisson", lambda: FreePoisson(D("0.25")), lambda z: fp_g(z, mpmath.mpf("0.25")), "0.5",
     None, _FAST + ("cdf", "moment")),
    ("PointMass", lambda: PointMass(D("0.75")), lambda z: 1 / (z - mpmath.mpf("0.75")), None, None,
     _FAST + ("cdf", "ppf", "var", "moment", "median", "expect")),
    ("Discrete", lambda: Discrete([0.25, 1.5, 4.0], [0.125, 0.375, 0.5]),
     lambda z: (mpmath.mpf(0.125) / (z - mpmath.mpf(0.25)) + mpmath.mpf(0.375) / (z - mpmath.mpf(1.5))
                + mpmath.mpf(0.5) / (z - 4)), None, None,
     _FAST + ("ppf", "var", "moment", "median", "std", "expect")),
    ("Empirical", lambda: Empirical([1.0, 2.0, 2.0, 5.0]),
     lambda z: (1 / (z - 1) + 2 / (z - 2) + 1 / (z - 5)) / 4, None, None, _FAST + ("moment",)),
    ("NumericalLaw", _sc_numerical, sc_g, "-0.7", sc_pdf, _FAST),
    ("Mixture", lambda: Mixture([Semicircle(1), PointMass(3)], [0.75, 0.25]),
     lambda z: mpmath.mpf(0.75) * sc_g(z) + mpmath.mpf(0.25) / (z - 3), "0.4",
     lambda x: mpmath.mpf(0.75) * sc_pdf(x), _FAST + ("cdf", "moment")),
    ("Transformed.affine", lambda: Semicircle(1).affine(1.0, 2.0),
     lambda z: sc_g((z - 1) / 2) / 2, "1.5", lambda x: sc_pdf((x - 1) / 2) / 2, _FAST),
    ("Transformed.square", lambda: Transformed(Semicircle(1), [0, 0, 1.0]),
     lambda z: fp_g(z, 1), "1.3", lambda x: mpmath.sqrt((4 - x) / x) / (2 * mpmath.pi),
     ("cauchy_transform", "pdf", "support", "atoms")),
    ("AdditiveConvolution", lambda: free_additive_convolution(Semicircle(1), Semicircle(1),
                                                              method="subordination"),
     lambda z: sc_g(z, 2), "0.9", lambda x: sc_pdf(x, 2), ("cauchy_transform", "pdf", "atoms")),
    ("AdditivePower", lambda: free_additive_power(Semicircle(1), 2, method="subordination"),
     lambda z: sc_g(z, 2), "-1.1", lambda x: sc_pdf(x, 2), ("cauchy_transform", "pdf", "atoms")),
    ("CompoundFreePoisson", lambda: compound_free_poisson(PointMass(1), 0.5, method="subordination"),
     lambda z: fp_g(z, mpmath.mpf("0.5")), "1.2", None, ("cauchy_transform", "pdf", "atoms")),
]


def _call(law, method, dps, x_in):
    if method in ("cauchy_transform", "cauchy_transform_derivative"):
        return getattr(law, method)(mpmath.mpc("0.37", "0.61"), dps=dps)
    if method in ("pdf", "cdf", "sf"):
        return getattr(law, method)(mpmath.mpf(x_in or "0.5"), dps=dps)
    if method == "ppf":
        return law.ppf(mpmath.mpf("0.3"), dps=dps)
    if method == "moment":
        return law.moment(2, dps=dps)
    if method in ("logpdf", "logcdf"):
        return getattr(law, method)(mpmath.mpf(x_in or "0.5"), dps=dps)
    if method == "isf":
        return law.isf(mpmath.mpf("0.3"), dps=dps)
    if method == "interval":
        return law.interval(mpmath.mpf("0.5"), dps=dps)
    if method == "expect":
        return law.expect(lambda x: x * x, dps=dps)
    return getattr(law, method)(dps=dps)


def _close(a, b, tol):
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_close(u, v, tol) for u, v in zip(a, b))
    return abs(complex(a) - complex(b)) <= tol * (1 + abs(complex(b)))


@pytest.fixture
def global_17_digits():
    saved = mpmath.mp.prec
    mpmath.mp.dps = 17
    yield
    mpmath.mp.prec = saved


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_every_method_scopes_its_precision(case, global_17_digits):
    """Each method at dps=30 leaves the global precision (17 digits here) as it found it,
    returns mpmath numbers, and agrees with its own float64 route."""
    _, make, _, x_in, _, methods = case
    law = make()
    for method in methods:
        prec = mpmath.mp.prec
        hi = _call(law, method, DPS, x_in)
        assert mpmath.mp.prec == prec, f"{method} changed the global precision"
        lo = _call(law, method, None, x_in)
        assert mpmath.mp.prec == prec, f"{method} (float64) changed the global precision"
        flat = hi if isinstance(hi, (list, tuple)) else [hi]
        for v in (e for item in flat for e in (item if isinstance(item, tuple) else (item,))):
            assert isinstance(v, (mpmath.mpf, mpmath.mpc)), f"{method} at dps returned {type(v)}"
        assert _close(hi, lo, 1e-9), f"{method}: dps=30 {hi} vs float64 {lo}"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_thirty_digits_match_the_reference(case, global_17_digits):
    """G (and the density where known) at dps=30 equal the closed form / second algorithm to
    1e-25 although the global precision is 17 digits."""
    _, make, g_ref, x_in, pdf_ref, _ = case
    law = make()
    with mpmath.workdps(40):  # the arguments themselves exact to 40 digits
        z = mpmath.mpc("0.37", "0.61")
        x = mpmath.mpf(x_in) if x_in else None
        want = g_ref(z)
        want_pdf = pdf_ref(x) if pdf_ref is not None else None
    got = law.cauchy_transform(z, dps=DPS)
    assert abs(got - want) <= TOL * abs(want)
    if want_pdf is not None:
        got = law.pdf(x, dps=DPS)
        assert abs(got - want_pdf) <= TOL * abs(want_pdf)


def test_closed_form_edges_atoms_and_cdf_at_30_digits(global_17_digits):
    """Structure at 30 digits: MP edges (1 ∓ √y)² and atom 1 − 1/y, the semicircle's cdf,
    the support of the x² push-forward [0, 4] and the free Poisson atom 1 − t."""
    with mpmath.workdps(40):
        r = mpmath.sqrt(2)
        edges = [((1 - r) ** 2, (1 + r) ** 2)]
        x = mpmath.mpf("0.3")
        cdf_ref = sc_cdf(x, mpmath.mpf("0.5"))
    assert _close(MarchenkoPastur(2).support(dps=DPS), edges, TOL)
    (loc, mass), = MarchenkoPastur(2).atoms(dps=DPS)
    assert loc == 0 and abs(mass - mpmath.mpf(1) / 2) <= TOL
    assert abs(Semicircle(D("0.5")).cdf(x, dps=DPS) - cdf_ref) <= TOL
    (a, b), = Transformed(Semicircle(1), [0, 0, 1.0]).support(dps=DPS)
    assert abs(a) <= TOL and abs(b - 4) <= TOL
    (loc, mass), = FreePoisson(D("0.25")).atoms(dps=DPS)
    assert abs(mass - mpmath.mpf("0.75")) <= TOL


@pytest.mark.parametrize("op", ["boxtimes", "power"])
def test_multiplicative_subordination_at_30_digits_equals_algebraic(op, global_17_digits):
    """⊠ by subordination at 30 digits = the exact algebraic route (a second algorithm)."""
    mu, nu = MarchenkoPastur(D("0.5")), MarchenkoPastur(D("0.25"))
    if op == "boxtimes":
        sub = free_multiplicative_convolution(mu, nu, method="subordination")
        alg = free_multiplicative_convolution(mu, nu, method="algebraic")
    else:
        sub = free_multiplicative_power(mu, 2, method="subordination")
        alg = free_multiplicative_power(mu, 2, method="algebraic")
    with mpmath.workdps(40):
        z = mpmath.mpc("1.3", "0.2")
    prec = mpmath.mp.prec
    got, want = sub.cauchy_transform(z, dps=DPS), alg.cauchy_transform(z, dps=DPS)
    assert mpmath.mp.prec == prec
    assert abs(got - want) <= TOL * abs(want)
    assert _close(sub.support(dps=DPS), alg.support(dps=DPS), TOL)


def test_mp_route_passes_float64_through_and_rounds_back():
    """The decorator itself: dps=None is the float route; at dps the body sees dps + guard
    digits and the result is rounded to dps digits."""
    from freeattn._context import GUARD_DPS, inner_dps, mp_route

    class Probe:
        @mp_route
        def hook(self, x, dps):
            return (mpmath.mp.dps, x, mpmath.mpf(1) / 3)

    prec = mpmath.mp.prec
    assert Probe().hook(0.5, None) == (mpmath.mp.dps, 0.5, mpmath.mpf(1) / 3)
    seen, x, third = Probe().hook(0.5, 20)
    assert seen == 20 + GUARD_DPS and isinstance(x, mpmath.mpf)
    with mpmath.workdps(60):
        assert abs(third - mpmath.mpf(1) / 3) > mpmath.mpf(10) ** -40  # rounded to 20 digits
        assert abs(third - mpmath.mpf(1) / 3) < mpmath.mpf(10) ** -19
    assert mpmath.mp.prec == prec
    assert inner_dps(20) == 20 + GUARD_DPS
    assert not math.isnan(float(third))


def test_exact_rate_and_power_reach_the_dps_routes(global_17_digits):
    """A rate or exponent given exactly (Decimal("0.1"), 3/2) enters the 30-digit routes exactly, not
    as its float64 value (0.1 + 5.6e-18 would show at 1e-17)."""
    import sympy as sp

    law = compound_free_poisson(PointMass(1), D("0.1"), method="subordination")
    with mpmath.workdps(40):
        z = mpmath.mpc("0.37", "0.61")
        want = fp_g(z, mpmath.mpf(1) / 10)
        nine_tenths = mpmath.mpf(9) / 10
    assert abs(law.cauchy_transform(z, dps=DPS) - want) <= TOL * abs(want)
    (loc, mass), = law.atoms(dps=DPS)
    assert abs(mass - nine_tenths) <= TOL
    power = free_additive_power(Semicircle(1), sp.Rational(3, 2), method="subordination")
    with mpmath.workdps(40):
        want = sc_g(z, mpmath.mpf(3) / 2)  # SC(1)^{⊞t} = SC(t)
    assert abs(power.cauchy_transform(z, dps=DPS) - want) <= TOL * abs(want)
    assert power.exact_moments(2)[1] == sp.Rational(3, 2)
