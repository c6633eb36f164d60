"""cdf, sf, ppf and isf of the classic laws (issue 21, items 1, 2 and 6): each tail from its
own end with full relative accuracy, the cdf monotone to the ulp, quantiles the smallest double
of their value.

References are independent of the library's route: the density integrated by ``mpmath.quad``
at 30 digits in the distance from the nearer end (x = end ± u², smooth in u), at the exact
double x."""
import math

import mpmath
import numpy as np
import pytest

from freeattn import FreePoisson, MarchenkoPastur, Mixture, Semicircle

REF_DPS = 30
#: digits of the ends and of the distances x − a, b − x (a double next to an end is within
#: 1e-16 of it: its distance must be exact far below that)
ENDS_DPS = 2 * REF_DPS
#: relative error allowed against the 30-digit reference: a few roundings of float64
REL = 4 * np.finfo(float).eps


def _mp_density(y=None, rate=None):
    """(a, b, ρ, atom) of MP_y, or of the free Poisson law π_t = t·MP_{1/t}: the ends at
    ENDS_DPS digits, ρ(x, x − a, b − x) written in the distances to the ends (exact in the
    quadrature's variable)."""
    with mpmath.workdps(ENDS_DPS):
        s = mpmath.mpf(1) if rate is None else mpmath.mpf(rate)
        y = mpmath.mpf(y) if rate is None else 1 / s
        r = mpmath.sqrt(y)
        a, b = s * (1 - r) ** 2, s * (1 + r) ** 2
        atom = 1 - 1 / y if y > 1 else mpmath.mpf(0)
    return a, b, (lambda x, da, db: mpmath.sqrt(da * db) / (2 * mpmath.pi * y * s * x)), atom


def _sc_density(v):
    with mpmath.workdps(ENDS_DPS):
        v = mpmath.mpf(v)
        r = 2 * mpmath.sqrt(v)
        a = -r  # inside: mpmath rounds even a negation to the working precision
    return a, r, (lambda x, da, db: mpmath.sqrt(da * db) / (2 * mpmath.pi * v)), mpmath.mpf(0)


def _reference(spec, x, upper, dps=REF_DPS):
    """cdf (sf with ``upper``) at the double x: distances to the ends at ENDS_DPS digits, the
    quadrature at ``dps``."""
    a, b, rho, atom = spec
    with mpmath.workdps(ENDS_DPS):
        x = mpmath.mpf(float(x))
        da, db, w = x - a, b - x, b - a
    with mpmath.workdps(dps):
        mass = 1 - atom
        if da <= 0 or db <= 0:  # a double next to an end, outside the exact support
            return (mass if upper else atom) if da <= 0 else (0 if upper else 1)
        if da <= db:
            low = mpmath.quad(lambda u: rho(a + u * u, u * u, w - u * u) * 2 * u, [0, mpmath.sqrt(da)])
            return mass - low if upper else atom + low
        up = mpmath.quad(lambda u: rho(b - u * u, w - u * u, u * u) * 2 * u, [0, mpmath.sqrt(db)])
        return up if upper else 1 - up


LAWS = {
    "semicircle-1": (lambda: Semicircle(1.0), lambda: _sc_density(1.0)),
    "semicircle-large": (lambda: Semicircle(235686.25197738336), lambda: _sc_density(235686.25197738336)),
    "semicircle-small": (lambda: Semicircle(1e-6), lambda: _sc_density(1e-6)),
    "mp-0.5": (lambda: MarchenkoPastur(0.5), lambda: _mp_density(0.5)),
    "mp-1": (lambda: MarchenkoPastur(1), lambda: _mp_density(1)),
    "mp-near1": (lambda: MarchenkoPastur(1 + 2.0 ** -40), lambda: _mp_density(1 + 2.0 ** -40)),
    "mp-1e-6": (lambda: MarchenkoPastur(1e-6), lambda: _mp_density(1e-6)),
    "mp-50": (lambda: MarchenkoPastur(50.0), lambda: _mp_density(50.0)),
    "mp-4e5": (lambda: MarchenkoPastur(4.0e5), lambda: _mp_density(4.0e5)),
    "freepoisson-3e-5": (lambda: FreePoisson(2.9763510424098393e-05),
                         lambda: _mp_density(rate=2.9763510424098393e-05)),
    "freepoisson-2": (lambda: FreePoisson(1.9657646925334742), lambda: _mp_density(rate=1.9657646925334742)),
}


def _tail_points(law):
    (a, b), = law.support()
    d = np.logspace(-15, -1, 15)
    x = np.concatenate([a + (b - a) * d, b - (b - a) * d, a + (b - a) * np.linspace(0.05, 0.95, 7)])
    return x[(x > a) & (x < b)]


# ---------------------------------------------------------------- issue values (item 1)
def test_issue_mp1_upper_tail():
    """MarchenkoPastur(1).sf(4 − 1e−12): 5.3052e-20 for δ = 1e-12 exactly; at the double
    4 − 1e-12 (δ = 1.0000889e-12) the value is 5.30587…e-20 (δ^{3/2}/(6π) to leading order)."""
    law = MarchenkoPastur(1)
    x = 4 - 1e-12
    ref = _reference(_mp_density(1), x, True)
    assert abs(law.sf(x) / float(ref) - 1) <= REL
    assert abs(float(mpmath.mpf(4 - x) ** 1.5 / (6 * mpmath.pi)) / float(ref) - 1) < 1e-12
    assert abs(law.logsf(x) - float(mpmath.log(ref))) <= REL * abs(float(mpmath.log(ref)))


def test_issue_mp1_isf():
    law = MarchenkoPastur(1)
    with mpmath.workdps(REF_DPS):
        right = mpmath.mpf("3.99999999999967124874804647831")
    x = law.isf(1e-20)
    # the smallest double with sf ≤ 1e-20, one ulp from the exact quantile at most
    assert abs(x - float(right)) <= math.ulp(float(right))
    assert law.sf(x) <= 1e-20 < law.sf(np.nextafter(x, 0))
    with mpmath.workdps(30):
        assert abs(law.isf(1e-20, dps=30) - right) < mpmath.mpf(10) ** -28


def test_semicircle_upper_tail_second_instance():
    """Second instance of item 1: Semicircle(1).sf(2 − 1e-12) and isf(1e-20) from the right end."""
    law = Semicircle(1.0)
    spec = _sc_density(1.0)
    x = 2 - 1e-12
    assert abs(law.sf(x) / float(_reference(spec, x, True)) - 1) <= REL
    xi = law.isf(1e-20)
    assert law.sf(xi) <= 1e-20 < law.sf(np.nextafter(xi, 0))


# ---------------------------------------------------------------- monotone (item 6)
def test_issue_mp_half_pair():
    law = MarchenkoPastur(0.5)
    x = 2.856400956850558
    c = law.cdf([x, np.nextafter(x, 3)])
    assert c[1] >= c[0]


def _pairs(law, n, seed):
    (a, b), = law.support()
    rng = np.random.default_rng(seed)
    x = np.concatenate([a + (b - a) * rng.random(n),
                        a + (b - a) * 10.0 ** rng.uniform(-15, -1, n // 4),
                        b - (b - a) * 10.0 ** rng.uniform(-15, -1, n // 4)])
    x = x[(x > a) & (x < b)]
    return x, np.nextafter(x, np.inf)


@pytest.mark.parametrize("name", sorted(LAWS))
def test_cdf_sf_monotone_to_the_ulp(name):
    """Every random neighbouring pair (x, nextafter(x)), each evaluated in its own call (the
    per-call running maximum cannot help): cdf never decreases, sf never increases; issue: MP(0.5)
    failed 83 of 200 pairs, Semicircle 27."""
    law = LAWS[name][0]()
    x, xp = _pairs(law, 4000, 7)
    assert np.all(law.cdf(xp) >= law.cdf(x))
    assert np.all(law.sf(xp) <= law.sf(x))


def test_mixture_monotone():
    """A mixture of classic laws (a weighted sum of monotone cdfs in a fixed order) is monotone
    too; second instance with an atom (MP_y, y > 1)."""
    law = Mixture([Semicircle(29.85415640753465), Semicircle(0.01610855274807784),
                   MarchenkoPastur(3088.4757406397734)], [0.5, 0.125, 0.375])
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-11, 11, 3000), rng.uniform(2978, 3201, 3000)])
    xp = np.nextafter(x, np.inf)
    assert np.all(law.cdf(xp) >= law.cdf(x))
    assert np.all(law.sf(xp) <= law.sf(x))
    q = np.array([1e-300, 1e-20, 0.3, 0.375, 0.7, 1 - 1e-12])
    xq = law.ppf(q)
    assert np.all(law.cdf(xq) >= q) and np.all(law.cdf(np.nextafter(xq, -np.inf)) < q)
    xs = law.isf(q)
    assert np.all(law.sf(xs) <= q) and np.all(law.sf(np.nextafter(xs, -np.inf)) > q)


# ---------------------------------------------------------------- accuracy in both tails
@pytest.mark.parametrize("name", sorted(LAWS))
def test_tails_against_mpmath(name):
    """cdf and sf at 1e-15 … 1e-1 of the width from either end and in the bulk, each against
    the 30-digit reference with relative error ≤ 4 eps (sf near b never from 1 − cdf)."""
    make, spec_of = LAWS[name]
    law, spec = make(), spec_of()
    x = _tail_points(law)
    c, s = law.cdf(x), law.sf(x)
    for xi, ci, si in zip(x, c, s):
        rc, rs = _reference(spec, xi, False), _reference(spec, xi, True)
        assert abs(ci - float(rc)) <= REL * float(rc), (xi, ci, rc)
        assert abs(si - float(rs)) <= REL * float(rs), (xi, si, rs)
    assert np.all(np.abs(c + s - 1) <= np.finfo(float).eps)


# ---------------------------------------------------------------- quantiles (item 2)
@pytest.mark.parametrize("name", sorted(LAWS))
def test_quantiles_are_the_smallest_double(name):
    """ppf(q) is the smallest double with cdf ≥ q and isf(q) the smallest with sf ≤ q, q down to
    1e-300 (before: StopIteration, or an end of the support where the cdf is 0 because the
    reported ends and the tables' ends differed by an ulp)."""
    law = LAWS[name][0]()
    q = np.array([1e-300, 1e-100, 1e-30, 1e-12, 1e-6, 1e-3, 0.05, 0.25, 0.5, 0.75, 0.95, 1 - 1e-9])
    x = law.ppf(q)
    assert np.all(law.cdf(x) >= q) and np.all(law.cdf(np.nextafter(x, -np.inf)) < q)
    xs = law.isf(q)
    assert np.all(law.sf(xs) <= q) and np.all(law.sf(np.nextafter(xs, -np.inf)) > q)
    (a, b), = law.support()
    atom_end = 0.0 if law.atoms() else a
    assert law.ppf(0.0) == atom_end and law.ppf(1.0) == b
    assert law.isf(1.0) == atom_end and law.isf(0.0) == b


def test_reported_ends_are_the_rounded_ends():
    """support() gives the correctly rounded ends (s·a, s·b) of FreePoisson / MP, so that cdf
    is 0 at the left end and positive one double right of it (before: 1–2 ulps off)."""
    for law, spec in [(FreePoisson(1.9657646925334742), _mp_density(rate=1.9657646925334742)),
                      (MarchenkoPastur(1.360168371394783e-06), _mp_density(1.360168371394783e-06))]:
        (a, b), = law.support()
        with mpmath.workdps(REF_DPS):
            assert a == float(spec[0]) and b == float(spec[1])
        assert law.cdf(np.nextafter(a, np.inf)) > 0 and law.sf(np.nextafter(b, -np.inf)) > 0


# ---------------------------------------------------------------- the same at dps = 30
#: digits of the reference for the dps = 30 routes
HIGH_DPS = 45


@pytest.mark.parametrize("name", ["mp-near1", "mp-0.5", "mp-4e5", "freepoisson-2", "semicircle-1"])
def test_tails_at_30_digits(name):
    """cdf and sf at dps=30 from the closed forms, 1e-15 … 0.3 of the width from either end,
    against a 45-digit reference: relative error < 1e-29.  Before, the θ-integral route lost
    1.3e-7 of MP(1 ± 2⁻⁴⁰).cdf(a + 1e-12·(b − a), dps=30) (a ≈ 2e-25 ≪ b − a)."""
    make, spec_of = LAWS[name]
    law, spec = make(), spec_of()
    (a, b), = law.support()
    for d in (1e-15, 1e-12, 1e-6, 1e-2, 0.3):
        for x in (a + (b - a) * d, b - (b - a) * d):
            for upper in (False, True):
                ref = _reference(spec, x, upper, HIGH_DPS)
                with mpmath.workdps(HIGH_DPS):
                    v = law.sf(x, dps=30) if upper else law.cdf(x, dps=30)
                    assert abs(v / ref - 1) < mpmath.mpf(10) ** -29, (x, upper, v, ref)


@pytest.mark.parametrize("name", ["mp-1", "mp-0.5", "freepoisson-2", "semicircle-1"])
def test_quantiles_at_30_digits(name):
    """ppf/isf at dps=30 invert the dps=30 cdf/sf (Newton on the closed form): the value at x
    misses q by no more than x's own 30-digit rounding moves it (pdf(x)·|x|·1e-29)."""
    law = LAWS[name][0]()
    with mpmath.workdps(HIGH_DPS):
        eps = mpmath.mpf(10) ** -29
        for q in (mpmath.mpf("1e-20"), mpmath.mpf("1e-6"), mpmath.mpf("0.3")):
            for x, v in ((law.ppf(q, dps=30), law.cdf), (law.isf(q, dps=30), law.sf)):
                slack = law.pdf(x, dps=30) * abs(x) * eps + q * eps
                assert abs(v(x, dps=30) - q) <= slack, (q, x)


# ---------------------------------------------------------------- route switches (item 6)
def _switch_fractions(law):
    """Fractions w of the width from an end where the cdf/sf change route: the nearer-end
    switch w = 1/2, the semicircle's series/difference switch ψ = 4 asin √w = 1, the MP series'
    radius bounds and head levels (each from the end it belongs to)."""
    from freeattn.laws import marchenko_pastur as mpm

    fr = [(0.5, False), (math.sin(0.25) ** 2, False), (math.sin(0.25) ** 2, True)]
    if isinstance(law, MarchenkoPastur):  # FreePoisson included (a dilation of MP_{1/t})
        ends = mpm._EndMasses(law._y_mp())
        for heads, right in ((getattr(ends, "left_heads", None), False), (ends.right_heads, True)):
            fr += [(float(bound), right) for bound, _ in (heads or [])]
    return fr


@pytest.mark.parametrize("name", sorted(LAWS))
def test_neighbouring_pairs_random_and_at_route_switches(name):
    """≥ 10⁴ neighbouring pairs (x, nextafter(x)) per law in one call each, uniform and
    log-uniform next to either end, plus a window of consecutive doubles around every route
    switch: cdf never decreases, sf never increases, cdf + sf = 1 to an ulp."""
    law = LAWS[name][0]()
    (a, b), = law.support()
    x, _ = _pairs(law, 8000, 11)
    win = np.arange(-200, 201)
    for w, right in _switch_fractions(law):
        x0 = b - (b - a) * w if right else a + (b - a) * w
        k = np.float64(x0).view(np.int64) + win
        x = np.concatenate([x, k.view(np.float64)])
    x = x[(x > a) & (x < b)]
    assert x.size >= 10_000
    xp = np.nextafter(x, np.inf)
    c, cp, s, sp = law.cdf(x), law.cdf(xp), law.sf(x), law.sf(xp)
    assert np.all(cp >= c) and np.all(sp <= s)
    assert np.all(np.abs(c + s - 1) <= np.finfo(float).eps)


@pytest.mark.parametrize("name", sorted(LAWS))
def test_quantile_arrays_are_the_smallest_double(name):
    """ppf / isf of 4000 random q at once (uniform and log-uniform down to 1e-300, the vectorised
    root finder's bulk and tails): each the smallest double of its value."""
    law = LAWS[name][0]()
    rng = np.random.default_rng(5)
    q = np.concatenate([rng.random(3000), 10.0 ** rng.uniform(-300, 0, 1000)])
    lo = 0.0 if law.atoms() else law.support()[0][0]
    x = law.ppf(q)
    assert np.all(law.cdf(x) >= q) and np.all((law.cdf(np.nextafter(x, -np.inf)) < q) | (x == lo))
    xs = law.isf(q)
    assert np.all(law.sf(xs) <= q) and np.all((law.sf(np.nextafter(xs, -np.inf)) > q) | (xs == lo))


@pytest.mark.parametrize("rate", [876.0818564105962, 912.1041805578151, 0.3])
def test_free_poisson_density_next_to_its_ends(rate):
    """FreePoisson(t) = D_t MP_{1/t}: its float64 density evaluated MP's at x/t, whose rounding
    is ~1e-16·b/(b − x) of the distance to the end b, 1e-7 at 1e-8 of the width for t = 876
    (b/w = 7.9: the property suite's freepoisson-516/-805 tails, 2e-8 off).  The distances
    now come from the dilated ends at reference precision: next to both ends and inside, the
    density equals the closed form √((b − x)(x − a))/(2π y x t) at 40 digits (y = 1/t, the
    ends t(1 ∓ √y)²) to 4 ulps."""
    law = FreePoisson(rate)
    (lo, hi), = law.support()
    w = hi - lo
    xs = [hi - 1e-8 * w, hi - 1e-5 * w, lo + 1e-8 * w, lo + 1e-12 * w, 0.5 * (lo + hi)]
    got = law.pdf(np.array(xs))
    with mpmath.workdps(40):
        t = mpmath.mpf(rate)
        y = 1 / t
        a, b = t * (1 - mpmath.sqrt(y)) ** 2, t * (1 + mpmath.sqrt(y)) ** 2
        for x, g in zip(xs, got):
            xm = mpmath.mpf(x)
            exact = mpmath.sqrt((b - xm) * (xm - a)) / (2 * mpmath.pi * y * xm * t)
            assert abs(g / float(exact) - 1) <= 4 * np.finfo(float).eps, (x, g, exact)
