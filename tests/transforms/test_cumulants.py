"""Tests for freeattn.transforms.cumulants.

References used (independent of the code under test):
- Catalan numbers C_k = binom(2k, k)/(k + 1): moments of the standard semicircle
  (Nica & Speicher 2006, Lecture 2); also |NC(n)| = C_n (Lecture 9).
- Narayana numbers N(n, k) = binom(n, k) binom(n, k-1)/n: moments of the free Poisson law of
  rate t, m_n = sum_k N(n, k) t^k (Nica & Speicher 2006, Prop. 12.11 / Exercise 9.42).
- Fuss–Catalan numbers binom(3n, n)/(2n + 1): moments of MP_1 ⊠ MP_1 (Mingo & Speicher 2017).
- Bell-number enumeration of all set partitions filtered by the crossing condition.
- S_{MP_y}(w) = 1/(1 + y w) and (C.1–C.6), (C.8–C.11), (C.16), (C.29) of arXiv 2610.10033
  (via /work/shared/MATH.md §2).
"""
from __future__ import annotations

import doctest
import itertools
import math
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import freeattn.transforms.cumulants as cumulants_module
from freeattn.transforms.cumulants import (
    boxplus_free_cumulants,
    boxtimes_free_cumulants,
    compound_free_poisson_cumulants,
    dilate_cumulants,
    free_cumulants_from_moments,
    is_noncrossing,
    kreweras_complement,
    moments_from_free_cumulants,
    moments_from_s_transform_series,
    noncrossing_partitions,
    r_transform_series,
    s_transform_series,
)


@pytest.fixture(autouse=True)
def _restore_mpmath_precision():
    dps = mpmath.mp.dps
    yield
    mpmath.mp.dps = dps


# ---------------------------------------------------------------------------
# independent helpers
# ---------------------------------------------------------------------------

def catalan(k):
    return math.comb(2 * k, k) // (k + 1)


def series_mul(a, b):
    n = min(len(a), len(b))
    return [sum(a[i] * b[k - i] for i in range(k + 1)) for k in range(n)]


def all_set_partitions(elems):
    if not elems:
        yield []
        return
    first, rest = elems[0], elems[1:]
    for part in all_set_partitions(rest):
        yield [(first,)] + part
        for i in range(len(part)):
            yield part[:i] + [(first,) + part[i]] + part[i + 1:]


def crosses(p):
    for b1, b2 in itertools.permutations(p, 2):
        for a, c in itertools.combinations(b1, 2):
            for b, d in itertools.combinations(b2, 2):
                if a < b < c < d:
                    return True
    return False


def canonical(p):
    return tuple(sorted(tuple(sorted(b)) for b in p))


# symbols for the attention laws
T1, T2, GK, H, GV, GO = sp.symbols("theta1 theta2 gamma_K h gamma_V gamma_O", positive=True)
C = sp.Symbol("c", positive=True)


def rho_cumulants(theta1, theta2, t, N):
    """R(z) = θ1 − θ2 + θ2/(1 − θ2 z/t): κ1 = θ1, κ_q = θ2^q / t^(q−1)."""
    return [theta1] + [theta2**q / t ** (q - 1) for q in range(2, N + 1)]


def mp_cumulants(y, N):
    """Mean-one Marchenko–Pastur MP_y: κ_q = y^(q−1)."""
    return [y ** (q - 1) for q in range(1, N + 1)]


# ---------------------------------------------------------------------------
# non-crossing partitions and Kreweras
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n", range(1, 9))
def test_nc_count_is_catalan(n):
    parts = list(noncrossing_partitions(n))
    assert len(parts) == catalan(n)
    assert len(set(parts)) == len(parts)
    for p in parts:
        assert p == canonical(p)
        assert sorted(x for b in p for x in b) == list(range(1, n + 1))


@pytest.mark.parametrize("n", range(1, 7))
def test_nc_matches_bruteforce(n):
    brute = {canonical(p) for p in all_set_partitions(list(range(1, n + 1))) if not crosses(p)}
    assert set(noncrossing_partitions(n)) == brute


@pytest.mark.parametrize("n", range(1, 7))
def test_is_noncrossing_matches_bruteforce(n):
    for p in all_set_partitions(list(range(1, n + 1))):
        assert is_noncrossing(p) == (not crosses(p))


@pytest.mark.parametrize("n", range(1, 8))
def test_kreweras_properties(n):
    parts = list(noncrossing_partitions(n))
    images = set()
    for p in parts:
        k = kreweras_complement(p, n)
        assert len(p) + len(k) == n + 1
        assert is_noncrossing(k)
        images.add(k)
        # K^2 is the rotation i -> i - 1 (mod n) in permutation form π ↦ γ^{-1} π γ
        kk = kreweras_complement(k, n)
        rotated = canonical([[(x - 2) % n + 1 for x in b] for b in p])
        assert kk == rotated
    assert len(images) == len(parts)  # bijection of NC(n)


def test_kreweras_examples():
    assert kreweras_complement([(1,), (2,), (3,), (4,)], 4) == ((1, 2, 3, 4),)
    assert kreweras_complement([(1, 2, 3, 4)], 4) == ((1,), (2,), (3,), (4,))
    assert kreweras_complement([(1, 3), (2,)], 3) == ((1, 2), (3,))
    # Nica & Speicher Example 9.22-type check: interleaved union stays non-crossing
    for n in range(1, 7):
        for p in noncrossing_partitions(n):
            k = kreweras_complement(p, n)
            merged = [tuple(2 * x - 1 for x in b) for b in p] + [tuple(2 * x for x in b) for b in k]
            assert is_noncrossing(merged)


def test_kreweras_validation():
    with pytest.raises(ValueError, match="non-crossing"):
        kreweras_complement([(1, 3), (2, 4)], 4)
    with pytest.raises(ValueError, match="partition"):
        kreweras_complement([(1, 2)], 3)
    with pytest.raises(ValueError, match="partition"):
        kreweras_complement([(1, 2), (2, 3)], 3)
    with pytest.raises(ValueError, match="partition"):
        kreweras_complement([(0, 1)], 2)
    with pytest.raises(ValueError, match="n"):
        kreweras_complement([], 0)


@pytest.mark.parametrize("bad", [0, -1, 2.5])
def test_noncrossing_validation(bad):
    with pytest.raises(ValueError, match="n must be"):
        noncrossing_partitions(bad)  # raises eagerly, not on first next()


# ---------------------------------------------------------------------------
# moments <-> cumulants: closed forms
# ---------------------------------------------------------------------------

def test_semicircle_catalan():
    N = 12
    m = moments_from_free_cumulants([0, 1] + [0] * (N - 2))
    for n in range(1, N + 1):
        assert m[n - 1] == (catalan(n // 2) if n % 2 == 0 else 0)
    assert free_cumulants_from_moments(m) == [0, 1] + [0] * (N - 2)


def test_free_poisson_narayana():
    t = sp.Symbol("t")
    N = 7
    m = moments_from_free_cumulants([t] * N)
    for n in range(1, N + 1):
        narayana = sum(
            sp.Rational(math.comb(n, k) * math.comb(n, k - 1), n) * t**k for k in range(1, n + 1)
        )
        assert sp.expand(m[n - 1] - narayana) == 0
    assert [sp.expand(k - t) for k in free_cumulants_from_moments(m)] == [0] * N


def test_fuss_catalan_via_boxtimes():
    N = 7
    kappa = boxtimes_free_cumulants([1] * N, [1] * N)
    m = moments_from_free_cumulants(kappa)
    assert m[:5] == [1, 3, 12, 55, 273]
    assert m == [math.comb(3 * n, n) // (2 * n + 1) for n in range(1, N + 1)]


def test_roundtrip_symbolic():
    N = 6
    ks = sp.symbols("k1:%d" % (N + 1))
    m = moments_from_free_cumulants(ks)
    assert m[0] == ks[0]
    assert sp.expand(m[1] - (ks[1] + ks[0] ** 2)) == 0
    assert sp.expand(m[2] - (ks[2] + 3 * ks[1] * ks[0] + ks[0] ** 3)) == 0
    back = free_cumulants_from_moments(m)
    assert [sp.expand(a - b) for a, b in zip(back, ks)] == [0] * N
    ms = sp.symbols("m1:%d" % (N + 1))
    k = free_cumulants_from_moments(ms)
    assert sp.expand(k[1] - (ms[1] - ms[0] ** 2)) == 0
    # κ4 = m4 − 4 m3 m1 − 2 m2² + 10 m2 m1² − 5 m1⁴ (Nica & Speicher, Example 11.6 type)
    assert sp.expand(
        k[3] - (ms[3] - 4 * ms[2] * ms[0] - 2 * ms[1] ** 2 + 10 * ms[1] * ms[0] ** 2 - 5 * ms[0] ** 4)
    ) == 0
    assert [sp.expand(a - b) for a, b in zip(moments_from_free_cumulants(k), ms)] == [0] * N


def test_moments_equal_nc_sum():
    """Recursion agrees with the defining sum over NC(n) of κ_π (independent route)."""
    N = 7
    ks = sp.symbols("k1:%d" % (N + 1))
    m = moments_from_free_cumulants(ks)
    for n in range(1, N + 1):
        direct = sum(sp.Mul(*[ks[len(b) - 1] for b in p]) for p in noncrossing_partitions(n))
        assert sp.expand(m[n - 1] - direct) == 0


def test_sympy_rational_exact():
    k = [sp.Rational(1, 3), sp.Rational(-2, 7), sp.Rational(5, 2), sp.Integer(1)]
    m = moments_from_free_cumulants(k)
    assert all(isinstance(x, sp.Rational) for x in m)
    assert free_cumulants_from_moments(m) == k


def test_float_mpmath_fraction_agree():
    kf = [Fraction(1, 2), Fraction(3, 4), Fraction(-1, 5), Fraction(2, 3), Fraction(1, 7)]
    exact = moments_from_free_cumulants(kf)
    assert all(isinstance(x, Fraction) for x in exact)
    floats = moments_from_free_cumulants([float(x) for x in kf])
    with mpmath.workdps(50):
        mp = moments_from_free_cumulants([mpmath.mpf(x.numerator) / x.denominator for x in kf])
        for e, v in zip(exact, mp):
            assert isinstance(v, mpmath.mpf)
            assert abs(v - mpmath.mpf(e.numerator) / e.denominator) < mpmath.mpf(10) ** -45
        back = free_cumulants_from_moments(mp)
        for e, v in zip(kf, back):
            assert abs(v - mpmath.mpf(e.numerator) / e.denominator) < mpmath.mpf(10) ** -45
    for e, v in zip(exact, floats):
        assert math.isclose(v, float(e), rel_tol=1e-13, abs_tol=1e-14)


fractions = st.fractions(min_value=-3, max_value=3, max_denominator=20)


@settings(max_examples=40, deadline=None)
@given(st.lists(fractions, min_size=1, max_size=7))
def test_roundtrip_hypothesis(kappa):
    assert free_cumulants_from_moments(moments_from_free_cumulants(kappa)) == kappa
    assert moments_from_free_cumulants(free_cumulants_from_moments(kappa)) == kappa


@pytest.mark.parametrize(
    "func",
    [
        moments_from_free_cumulants,
        free_cumulants_from_moments,
        r_transform_series,
        s_transform_series,
        moments_from_s_transform_series,
    ],
)
def test_empty_raises(func):
    with pytest.raises(ValueError, match="non-empty"):
        func([])


def test_validation_names_parameters():
    with pytest.raises(ValueError, match="kappa_a"):
        boxtimes_free_cumulants([], [1])
    with pytest.raises(ValueError, match="kappa_b"):
        boxplus_free_cumulants([1], [])
    with pytest.raises(ValueError, match="moments_of_jump_law"):
        compound_free_poisson_cumulants([], 1)
    with pytest.raises(ValueError, match="rate"):
        compound_free_poisson_cumulants([1], -1)
    with pytest.raises(ValueError, match="rate"):
        compound_free_poisson_cumulants([1], 0)
    with pytest.raises(ValueError, match="moments"):
        s_transform_series([0, 1, 0])
    with pytest.raises(ValueError, match="moments"):
        s_transform_series([sp.Integer(0), sp.Integer(1)])
    with pytest.raises(ValueError, match="order"):
        s_transform_series([1, 2], order=3)
    with pytest.raises(ValueError, match="order"):
        s_transform_series([1, 2], order=0)
    with pytest.raises(ValueError, match="order"):
        r_transform_series([1, 2], order=5)
    with pytest.raises(ValueError, match="s_0|s:"):
        moments_from_s_transform_series([0, 1])
    with pytest.raises(TypeError, match="kappa"):
        moments_from_free_cumulants(None)


# ---------------------------------------------------------------------------
# operations on cumulants
# ---------------------------------------------------------------------------

def test_boxplus_semicircles():
    k = boxplus_free_cumulants([0, 1, 0, 0], [0, 1, 0, 0])
    assert k == [0, 2, 0, 0]
    assert moments_from_free_cumulants(k) == [0, 2, 0, 8]


def test_boxtimes_identity_and_symmetry():
    N = 6
    ka = sp.symbols("a1:%d" % (N + 1))
    kb = sp.symbols("b1:%d" % (N + 1))
    delta1 = [1] + [0] * (N - 1)
    assert [sp.expand(x - y) for x, y in zip(boxtimes_free_cumulants(ka, delta1), ka)] == [0] * N
    assert [sp.expand(x - y) for x, y in zip(boxtimes_free_cumulants(delta1, kb), kb)] == [0] * N
    ab = boxtimes_free_cumulants(ka, kb)
    ba = boxtimes_free_cumulants(kb, ka)
    assert [sp.expand(x - y) for x, y in zip(ab, ba)] == [0] * N
    # NC(2) = {0_2, 1_2} with K(0_2) = 1_2: κ2(ab) = κ1(a)²κ2(b) + κ2(a)κ1(b)²
    a1, a2, b1, b2 = ka[0], ka[1], kb[0], kb[1]
    assert sp.expand(ab[1] - (a2 * b1**2 + a1**2 * b2)) == 0


def test_boxtimes_truncates_to_shorter():
    assert len(boxtimes_free_cumulants([1, 1, 1], [1, 1])) == 2


def test_compound_poisson_and_dilation():
    t = sp.Symbol("t", positive=True)
    mu = sp.symbols("mu1:5")
    k = compound_free_poisson_cumulants(mu, t)
    m = moments_from_free_cumulants(k)
    assert sp.expand(m[0] - t * mu[0]) == 0
    assert sp.expand(m[1] - (t * mu[1] + t**2 * mu[0] ** 2)) == 0
    # π_{1/y} dilated by y is MP_y: κ_q = y^(q−1)
    y = sp.Symbol("y", positive=True)
    mp = dilate_cumulants(compound_free_poisson_cumulants([1] * 5, 1 / y), y)
    assert [sp.expand(a - b) for a, b in zip(mp, mp_cumulants(y, 5))] == [0] * 5
    # moments of cX are c^q m_q
    c = sp.Symbol("c")
    ks = sp.symbols("k1:6")
    m = moments_from_free_cumulants(ks)
    md = moments_from_free_cumulants(dilate_cumulants(ks, c))
    assert [sp.expand(a - c ** (q + 1) * b) for q, (a, b) in enumerate(zip(md, m))] == [0] * 5


def test_rho_is_affine_pushforward_of_mp():
    """ρ_t = (x ↦ θ1 − θ2 + θ2 x)_# MP_{1/t} has the cumulants read off R_{ρ_t}."""
    N = 5
    k = dilate_cumulants(mp_cumulants(1 / GK, N), T2)
    k[0] = k[0] + T1 - T2  # a shift only changes κ1
    assert [sp.expand(a - b) for a, b in zip(k, rho_cumulants(T1, T2, GK, N))] == [0] * N


# ---------------------------------------------------------------------------
# R- and S-transform series
# ---------------------------------------------------------------------------

def test_r_series():
    assert r_transform_series([1, 2, 3, 4], 2) == [1, 2]
    assert r_transform_series([1, 2, 3]) == [1, 2, 3]


def test_s_series_marchenko_pastur_closed_form():
    y = sp.Symbol("y", positive=True)
    N = 6
    s = s_transform_series(moments_from_free_cumulants(mp_cumulants(y, N)))
    w = sp.Symbol("w")
    ref = sp.series(1 / (1 + y * w), w, 0, N).removeO()
    assert [sp.expand(s[k] - ref.coeff(w, k)) for k in range(N)] == [0] * N


def test_s_series_exact_types():
    s = s_transform_series([2, 5, 14])
    assert s[0] == Fraction(1, 2) and all(isinstance(x, Fraction) for x in s)
    ms = sp.symbols("m1:4")
    s = s_transform_series(ms)
    assert sp.simplify(s[0] - 1 / ms[0]) == 0
    assert sp.simplify(s[1] - (1 / ms[0] - ms[1] / ms[0] ** 3)) == 0


def test_s_series_roundtrip_symbolic():
    ms = sp.symbols("m1:6")
    back = moments_from_s_transform_series(s_transform_series(ms))
    assert [sp.simplify(a - b) for a, b in zip(back, ms)] == [0] * 5


def test_s_r_functional_identity():
    """S(w) R(w S(w)) = 1 as formal power series (C.1–C.6)."""
    N = 4
    ks = [sp.Symbol("k1", positive=True)] + list(sp.symbols("k2:%d" % (N + 1)))
    s = s_transform_series(moments_from_free_cumulants(ks))
    r = r_transform_series(ks)
    w = sp.Symbol("w")
    S = sum(s[k] * w**k for k in range(N))
    R = sum(r[k] * (w * S) ** k for k in range(N))
    prod = sp.expand(sp.series(S * R, w, 0, N).removeO())
    assert sp.simplify(prod - 1) == 0


def test_s_of_compound_poisson():
    """S_{π(ν,t)}(w) = S_ν(w/t)/(t + w) (C.6), exact over Fractions."""
    N = 5
    nu = [Fraction(3, 2), Fraction(4), Fraction(-1, 3), Fraction(7), Fraction(2, 5)]
    t = Fraction(5, 3)
    s_pi = s_transform_series(moments_from_free_cumulants(compound_free_poisson_cumulants(nu, t)))
    s_nu = s_transform_series(nu)
    scaled = [s_nu[k] / t**k for k in range(N)]
    inv = [(-1) ** j / t ** (j + 1) for j in range(N)]  # 1/(t + w)
    ref = [sum(scaled[i] * inv[k - i] for i in range(k + 1)) for k in range(N)]
    assert s_pi == ref


@settings(max_examples=25, deadline=None)
@given(
    st.lists(fractions, min_size=5, max_size=5).filter(lambda k: k[0] != 0),
    st.lists(fractions, min_size=5, max_size=5).filter(lambda k: k[0] != 0),
)
def test_s_multiplicativity_hypothesis(ka, kb):
    """Kreweras enumeration and S-multiplicativity are independent routes to ⊠."""
    m_ab = moments_from_free_cumulants(boxtimes_free_cumulants(ka, kb))
    s_ab = s_transform_series(m_ab)
    s_a = s_transform_series(moments_from_free_cumulants(ka))
    s_b = s_transform_series(moments_from_free_cumulants(kb))
    prod = [sum(s_a[i] * s_b[k - i] for i in range(k + 1)) for k in range(5)]
    assert s_ab == prod
    assert moments_from_s_transform_series(prod) == m_ab


def test_s_series_float_and_mpmath():
    m = [1.5, 4.0, 11.0, 35.0]
    sf = s_transform_series(m)
    se = s_transform_series([Fraction(3, 2), 4, 11, 35])
    for a, b in zip(sf, se):
        assert math.isclose(a, float(b), rel_tol=1e-12)
    with mpmath.workdps(40):
        sm = s_transform_series([mpmath.mpf(x) for x in m])
        for a, b in zip(sm, se):
            assert abs(a - mpmath.mpf(b.numerator) / b.denominator) < mpmath.mpf(10) ** -35


# ---------------------------------------------------------------------------
# attention moments (MATH.md §2)
# ---------------------------------------------------------------------------

def _nu_inf_moments_two_routes(theta1, theta2, gamma, h, N):
    rho = rho_cumulants(theta1, theta2, gamma, N)
    mp = mp_cumulants(1 / h, N)
    route_kreweras = moments_from_free_cumulants(boxtimes_free_cumulants(rho, mp))
    s = series_mul(
        s_transform_series(moments_from_free_cumulants(rho)),
        s_transform_series(moments_from_free_cumulants(mp)),
    )
    route_s = moments_from_s_transform_series(s)
    return route_kreweras, route_s


def test_attention_moments_symbolic():
    mk, ms = _nu_inf_moments_two_routes(T1, T2, GK, H, 3)
    assert [sp.simplify(a - b) for a, b in zip(mk, ms)] == [0] * 3
    assert sp.simplify(mk[0] - T1) == 0
    assert sp.simplify(mk[1] - ((1 + 1 / H) * T1**2 + T2**2 / GK)) == 0


def test_attention_moments_mean_one():
    mk, ms = _nu_inf_moments_two_routes(sp.Integer(1), C, GK, H, 3)
    assert [sp.simplify(a - b) for a, b in zip(mk, ms)] == [0] * 3
    assert mk[0] == 1
    assert sp.simplify(mk[1] - (1 + 1 / H + C**2 / GK)) == 0
    m3 = 1 + 3 * (1 / H + C**2 / GK) + 1 / H**2 + 3 * C**2 / (GK * H) + C**3 / GK**2
    assert sp.simplify(mk[2] - m3) == 0


def test_attention_moments_at_beta_one_exact():
    """θ1 = e − 1, θ2 = 1 (β = 1), γ_K = 16/3, h = 4: both routes agree exactly.

    1/m1 = 1/(e − 1) is not a monomial, so the S-route returns a Laurent polynomial in
    (e − 1) that needs ``cancel`` to compare; m4 is compared to 60 digits.
    """
    theta1 = sp.E - 1
    mk, ms = _nu_inf_moments_two_routes(theta1, sp.Integer(1), sp.Rational(16, 3), sp.Integer(4), 4)
    assert [sp.cancel(a - b) for a, b in zip(mk[:3], ms[:3])] == [0] * 3
    assert abs(sp.N(mk[3] - ms[3], 60)) < sp.Float(10) ** -50
    assert sp.cancel(mk[1] - (sp.Rational(5, 4) * theta1**2 + sp.Rational(3, 16))) == 0


def test_full_layer_normalised_variance():
    """(C.16): m2/m1² − 1 = 1/h + 1/γ_V + 1/γ_O + θ2²/(γ_K θ1²) for ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O}."""
    N = 2
    k = boxtimes_free_cumulants(rho_cumulants(T1, T2, GK, N), mp_cumulants(1 / H, N))
    k = boxtimes_free_cumulants(k, mp_cumulants(1 / GV, N))
    k = boxtimes_free_cumulants(k, compound_free_poisson_cumulants([1] * N, GO))
    m = moments_from_free_cumulants(k)
    assert sp.simplify(m[0] - GO * T1) == 0
    target = 1 / H + 1 / GV + 1 / GO + T2**2 / (GK * T1**2)
    assert sp.simplify(m[1] / m[0] ** 2 - 1 - target) == 0


def test_doctests():
    result = doctest.testmod(cumulants_module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
