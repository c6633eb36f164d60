"""cdf/sf/ppf/isf/pdf of a polynomial push-forward φ#μ against independent references (issue 21,
N2 / item 1).

`Transformed` computes cdf and sf as μ-masses between the real preimages of y (on each monotone
piece of φ, from μ's own cdf or sf, each from the end of μ it is measured from), pdf as
Σ ρ_μ(r)/|φ′(r)|, and ppf/isf by bisection on the doubles of that cdf/sf.

References (mpmath, 30–40 digits, none from the library's own routes):

* μ{φ ≤ y} summed over the monotone pieces of φ between the real roots of φ(x) = y (mpmath
  polyroots), μ = Semicircle by its closed-form cdf F(t) = 1/2 + (t√(1−t²) + asin t)/π,
  t = x/R;
* Semicircle pushed by x² and x³: cdf 2F(√y) − 1 and F(∛y), with the semicircle's mass from
  its nearer end in closed form, (ψ − sin ψ)/(2π), ψ = 4 asin √(d/(2R)) (no cancellation in
  either tail);
* FreePoisson(t) pushed by (x − 1)²: its atom at 0 goes to an atom at 1 inside the support; the
  continuous part by mpmath.quad of the closed-form density √((b − x)(x − a))/(2πx) between the
  preimages.
"""
import math

import mpmath as mp
import numpy as np
import pytest

from freeattn.laws import FreePoisson, Semicircle, Transformed

CDF_ATOL = 1e-13  # float64 cdf of an exact mapping of μ's closed-form cdf
#: relative error of cdf/sf in the bulk and in the tails where the preimage is not next to a
#: support end of μ (μ's closed form at a long double root: a few ulps)
BULK_RTOL = 1e-14
#: relative error allowed in a tail next to an end e of μ, per unit of the conditioning
#: spacing(r)/|r − e| of the preimage r: the mass is μ's value at the double next to the root
#: plus the first-order term of its rounding (base.py, _ROUNDING_RTOL = 2^-40), or the
#: rounding itself (3/2 × spacing/|r − e| for a square-root edge) where that is below 2^-40
TAIL_COND = 1.5
#: relative error of a tail mass once the first-order term applies: the long double root
#: (2^-64 relative) over |r − e|, at most this at the points below
TAIL_LD_RTOL = 1e-8
PDF_RTOL = 1e-13  # ρ_μ(r)/|φ′(r)| at a long double root, against 40-digit roots
DPS = 40


def _reference_cdf(radius_param, coefs, y):
    with mp.workdps(30):
        law = Semicircle(radius_param)
        (a, b), = law.support(dps=30)
        a, b, y = mp.mpf(a), mp.mpf(b), mp.mpf(y)
        R = (b - a) / 2
        c = [mp.mpf(ci) for ci in coefs]

        def phi(x):
            return sum(ck * x**k for k, ck in enumerate(c))

        def F(x):
            if x <= a:
                return mp.mpf(0)
            if x >= b:
                return mp.mpf(1)
            t = x / R
            return mp.mpf(1) / 2 + (t * mp.sqrt(1 - t * t) + mp.asin(t)) / mp.pi

        poly = list(reversed([c[0] - y] + c[1:]))
        roots = [mp.re(r) for r in mp.polyroots(poly, maxsteps=200, extraprec=200)
                 if abs(mp.im(r)) < mp.mpf(10) ** -25]
        pts = [a] + sorted(r for r in roots if a < r < b) + [b]
        return sum(F(v) - F(u) for u, v in zip(pts[:-1], pts[1:]) if phi((u + v) / 2) <= y)


# pushforward-18 and pushforward-8 of the property suite (pushforward-8 was 7.3e-8 off when
# the cdf was integrated from tables of the numeric pdf)
CASES = [
    pytest.param(0.10122375375502426, [-0.5, -0.75, -1.25, -1.0], [-0.5, -0.45, -0.4],
                 id="pushforward-18"),
    pytest.param(2.892957552169478, [0.125, 0.875, -0.75, -0.875], [-0.687051673943059, 0.0, 5.0],
                 id="pushforward-8"),
]


@pytest.mark.parametrize("param, coefs, ys", CASES)
def test_transformed_cdf_matches_preimage_masses(param, coefs, ys):
    law = Transformed(Semicircle(param), coefs)
    for y in ys:
        ref = float(_reference_cdf(param, coefs, y))
        assert abs(float(law.cdf(y)) - ref) <= CDF_ATOL, (y, float(law.cdf(y)), ref)
        assert abs(float(law.sf(y)) - (1 - ref)) <= CDF_ATOL, (y, float(law.sf(y)), 1 - ref)


def _semicircle_end_mass(R, d):
    """Mass of a semicircle of radius R within d of one end, closed form."""
    psi = 4 * mp.asin(mp.sqrt(d / (2 * R)))
    return (psi - mp.sin(psi)) / (2 * mp.pi)


def _semicircle_centre_mass(s):
    """μ[−s, s] for the semicircle of radius 2: (s√(4 − s²)/2 + 2 asin(s/2))/π (no
    cancellation at small s)."""
    return (s * mp.sqrt(4 - s * s) / 2 + 2 * mp.asin(s / 2)) / mp.pi


def _rel(value, ref):
    return abs(mp.mpf(float(value)) - ref) / ref


def test_square_of_semicircle_cdf_sf_closed_form():
    """X², X ~ Semicircle(1) (R = 2): cdf(y) = μ[−√y, √y], around the critical point 0 inside
    μ's support (short Gauss–Legendre sums: no cancellation of μ's cdf values 1/2), sf(y) =
    2 μ(√y, 2] from μ's right end (tail accuracy, item 1)."""
    law = Transformed(Semicircle(1.0), [0.0, 0.0, 1.0])
    with mp.workdps(DPS):
        R = mp.mpf(2)
        for y in [1e-300, 1e-30, 1e-10, 0.5, 2.0, 3.9]:
            s = mp.sqrt(mp.mpf(y))
            cdf = _semicircle_centre_mass(s)
            assert _rel(law.cdf(y), cdf) <= BULK_RTOL, (y, float(law.cdf(y)), cdf)
            sf = 2 * _semicircle_end_mass(R, R - s)
            assert _rel(law.sf(y), sf) <= BULK_RTOL, (y, float(law.sf(y)), sf)
        for d in [1e-6, 1e-9, 1e-12]:  # the right tail, next to μ's end 2
            y = 4.0 * (1 - d)
            s = mp.sqrt(mp.mpf(y))
            sf = 2 * _semicircle_end_mass(R, R - s)
            r = math.sqrt(y)
            cond = np.spacing(r) / (2 - r)
            tol = TAIL_LD_RTOL if cond > 2.0 ** -40 else TAIL_COND * cond + BULK_RTOL
            assert _rel(law.sf(y), sf) <= tol, (y, float(law.sf(y)), sf)


def test_cube_of_semicircle_cdf_pdf_closed_form():
    """X³ (monotone, φ′(0) = 0 inside the support): cdf F(∛y), pdf ρ(∛y)/(3∛y²)."""
    law = Transformed(Semicircle(1.0), [0.0, 0.0, 0.0, 1.0])
    with mp.workdps(DPS):
        R = mp.mpf(2)
        for y in [-7.9, -0.3, -1e-30, 1e-200, 1e-30, 0.3, 7.99999]:
            x = mp.cbrt(abs(mp.mpf(y))) * (1 if y > 0 else -1)
            lower = _semicircle_end_mass(R, x + R)
            upper = _semicircle_end_mass(R, R - x)
            r = float(x)
            for got, ref, e in ((law.cdf(y), lower, -2.0), (law.sf(y), upper, 2.0)):
                cond = np.spacing(abs(r)) / abs(r - e)
                tol = TAIL_LD_RTOL if cond > 2.0 ** -40 else TAIL_COND * cond + BULK_RTOL
                assert _rel(got, ref) <= tol, (y, float(got), ref)
            rho = mp.sqrt(4 - x * x) / (2 * mp.pi) / (3 * x * x)
            # μ's density at the double next to the root: its rounding costs
            # spacing(r)/(4|r − e|) next to μ's end e (a square-root edge)
            cond = np.spacing(abs(r)) / (2 - abs(r))
            assert _rel(law.pdf(y), rho) <= TAIL_COND * cond + PDF_RTOL, (y, float(law.pdf(y)), rho)


def test_square_of_semicircle_quantiles_in_both_tails():
    """ppf/isf are the quantiles of the closed forms: y = ppf(q) has F(y⁻) < q ≤ F(y) and
    y = isf(q) has S(y) ≤ q < S(y⁻) (y⁻ the double below y), F = μ[−√y, √y] and S = 2 μ(√y, 2]
    in closed form, to BULK_RTOL in q (the law's cdf/sf are that accurate there), from
    q = 1e-300 (ppf: the first doubles above 0) to 1/2."""
    law = Transformed(Semicircle(1.0), [0.0, 0.0, 1.0])
    with mp.workdps(DPS):
        R = mp.mpf(2)

        def F(y):
            return _semicircle_centre_mass(mp.sqrt(mp.mpf(y)))

        def S(y):
            return 2 * _semicircle_end_mass(R, R - mp.sqrt(mp.mpf(y)))

        for q in [1e-300, 1e-30, 1e-12, 1e-6, 0.25, 0.5]:
            y = float(law.ppf(q))
            below = np.nextafter(y, -np.inf)
            assert F(y) >= q * (1 - BULK_RTOL), (q, y, F(y))
            assert y == 0 or F(below) < q * (1 + BULK_RTOL), (q, y, F(below))
        # isf down to 1e-20: below S(3.9999999999999996) = 5.0e-25 (the last double before μ's
        # end 2 maps the root to within half an ulp of 2, where μ's float64 sf is 0) the law's
        # sf is 0 and isf(q) is that double, not 4
        for q in [1e-20, 1e-12, 1e-6, 0.25, 0.5]:
            y = float(law.isf(q))
            below = np.nextafter(y, -np.inf)
            r = math.sqrt(y)
            cond = np.spacing(r) / (2 - r)
            tol = TAIL_LD_RTOL if cond > 2.0 ** -40 else TAIL_COND * cond + BULK_RTOL
            assert S(y) <= q * (1 + tol), (q, y, S(y))
            assert S(below) > q * (1 - tol), (q, y, S(below))


def test_atom_mapped_inside_the_support():
    """FreePoisson(1/4) (atom 3/4 at 0, density on [1/4, 9/4]) pushed by (x − 1)²: the atom goes
    to 1, inside the image support [0, 25/16]; cdf = 3/4·[y ≥ 1] + μ_c[1 − √y, 1 + √y];
    ppf inside the atom's jump is 1 exactly."""
    t = 0.25
    law = Transformed(FreePoisson(t), [1.0, -2.0, 1.0])
    assert [(float(a), float(w)) for a, w in law.atoms()] == [(1.0, 0.75)]
    with mp.workdps(30):
        a, b = mp.mpf(1) / 4, mp.mpf(9) / 4

        def rho(x):
            return mp.sqrt((b - x) * (x - a)) / (2 * mp.pi * x)

        for y in [1e-20, 1e-6, 0.3, 0.999, 1.0, 1.2, 1.5]:
            s = mp.sqrt(mp.mpf(y))
            cont = mp.quad(rho, [max(a, 1 - s), 1, min(b, 1 + s)])
            ref = cont + (mp.mpf(3) / 4 if y >= 1 else 0)
            assert _rel(law.cdf(y), ref) <= BULK_RTOL, (y, float(law.cdf(y)), ref)
            assert abs(float(law.sf(y)) - float(1 - ref)) <= CDF_ATOL, (y, float(law.sf(y)), 1 - ref)
    F1 = float(law.cdf(1.0))
    assert float(law.ppf(F1 - 0.5)) == 1.0 and float(law.ppf(F1)) == 1.0


MP_DPS = 30
#: relative error of the dps=30 routes against the 40–60 digit references (a few units of
#: the last of 30 digits)
MP_RTOL = 1e-28


def _mp(v):
    with mp.workdps(MP_DPS):
        return mp.mpf(v)


def test_dps_cdf_sf_of_square_of_semicircle_both_tails():
    """dps=30: cdf next to 0 (the mass of [−√y, √y] around the critical point, where μ's cdf
    values 1/2 cancel: computed again with the digits lost) and sf next to 4 (from μ's right
    end), against the closed forms at 60 digits."""
    law = Transformed(Semicircle(1.0), [0.0, 0.0, 1.0])
    for y in ["1e-200", "1e-30", "0.5", "3.9"]:
        yv = _mp(y)
        got = law.cdf(yv, dps=MP_DPS)
        with mp.workdps(60):
            ref = _semicircle_centre_mass(mp.sqrt(yv))
            assert abs(got - ref) <= MP_RTOL * ref, (y, got, ref)
    for d in ["1e-25", "1e-10", "0.1"]:
        with mp.workdps(MP_DPS):
            yv = 4 - mp.mpf(d)
        got = law.sf(yv, dps=MP_DPS)
        with mp.workdps(60):
            ref = 2 * _semicircle_end_mass(mp.mpf(2), 2 - mp.sqrt(yv))
            assert abs(got - ref) <= MP_RTOL * ref, (d, got, ref)


def test_dps_cdf_of_a_cubic_pushforward():
    """pushforward-8 at dps=30 against the 30-digit preimage masses (the θ-table route of the
    generic mpmath cdf was 7.7e-3 off here and took 14 s)."""
    param, coefs = 2.892957552169478, [0.125, 0.875, -0.75, -0.875]
    law = Transformed(Semicircle(param), coefs)
    for y in [-0.687051673943059, 0.0, 5.0]:
        got = law.cdf(_mp(y), dps=MP_DPS)
        ref = _reference_cdf(param, coefs, y)
        assert abs(got - ref) <= MP_RTOL, (y, got, ref)


def test_dps_quantiles_of_square_of_semicircle():
    """ppf(1e-40) and isf(1e-40) at dps=30 are the closed-form quantiles to 30 digits (isf
    from the upper side: 4 − 1.5e-26, whose distance to 4 a ppf(1 − q) could not resolve)."""
    law = Transformed(Semicircle(1.0), [0.0, 0.0, 1.0])
    q = _mp("1e-40")
    y = law.ppf(q, dps=MP_DPS)
    yi = law.isf(q, dps=MP_DPS)
    with mp.workdps(60):
        qq = mp.mpf(q)
        s = mp.findroot(lambda t: _semicircle_centre_mass(t) - qq, qq * mp.pi / 2)
        assert abs(y - s * s) <= MP_RTOL * s * s, (y, s * s)
        d = mp.findroot(lambda t: 2 * _semicircle_end_mass(mp.mpf(2), t) - qq,
                        (mp.mpf(0), mp.mpf("1e-10")), solver="anderson")
        ref = (2 - d) ** 2
        assert abs(yi - ref) <= MP_RTOL * ref, (yi, ref)
        assert 4 - yi > 0


def test_dps_atom_mapped_inside_the_support():
    """FreePoisson(1/4) by (x − 1)² at dps=30: atom 3/4 at 1 plus μ_c[1 − √y, 1 + √y]."""
    law = Transformed(FreePoisson(0.25), [1.0, -2.0, 1.0])
    with mp.workdps(40):
        a, b = mp.mpf(1) / 4, mp.mpf(9) / 4

        def rho(x):
            return mp.sqrt((b - x) * (x - a)) / (2 * mp.pi * x)

    for y in ["1e-20", "0.3", "1.2"]:
        yv = _mp(y)
        got = law.cdf(yv, dps=MP_DPS)
        with mp.workdps(40):
            s = mp.sqrt(yv)
            ref = mp.quad(rho, [max(a, 1 - s), 1, min(b, 1 + s)]) + (mp.mpf(3) / 4 if yv >= 1 else 0)
            assert abs(got - ref) <= MP_RTOL * ref, (y, got, ref)


@pytest.mark.parametrize("make", [
    pytest.param(lambda: Transformed(Semicircle(1.0), [0.0, 0.0, 1.0]), id="x2"),
    pytest.param(lambda: Transformed(Semicircle(1.0), [0.0, 0.0, 0.0, 1.0]), id="x3"),
    pytest.param(lambda: Transformed(FreePoisson(0.25), [1.0, -2.0, 1.0]), id="atom-inside"),
    pytest.param(lambda: Transformed(Semicircle(2.892957552169478), [0.125, 0.875, -0.75, -0.875]),
                 id="pushforward-8"),
    pytest.param(lambda: Transformed(FreePoisson(0.01870616277728156), [0.5, 1.875, -1.25, -1.25]),
                 id="pushforward-13"),
])
def test_cdf_sf_monotone_to_the_ulp(make):
    """cdf non-decreasing and sf non-increasing between y and its next 1–3 doubles, at points
    spread in log distance (1e-15 … 0.3 of the width) from both ends and from each critical
    value, and uniformly: the switches between the cdf difference, the short Gauss–Legendre
    sum and the first-order rounding term do not break monotonicity."""
    law = make()
    rng = np.random.default_rng(7)
    lo, hi = law.hull()
    w = hi - lo
    d = 10.0 ** rng.uniform(-15, -0.5, 500)
    ys = [lo + d * w, hi - d * w, lo + rng.random(500) * w]
    for x in law._critical_points(None):
        v = float(law._phi(np.array([x]))[0])
        ys += [v + d * w, v - d * w]
    ys = np.concatenate(ys)
    ys = ys[(ys > lo) & (ys < hi)]
    F, S = np.asarray(law.cdf(ys)), np.asarray(law.sf(ys))
    up = ys
    for _ in range(3):
        up = np.nextafter(up, np.inf)
        F2, S2 = np.asarray(law.cdf(up)), np.asarray(law.sf(up))
        assert np.all(F2 >= F), ys[F2 < F][:3]
        assert np.all(S2 <= S), ys[S2 > S][:3]
