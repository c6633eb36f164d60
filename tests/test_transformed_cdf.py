"""cdf of a polynomial push-forward φ#μ against an independent reference (issue 21, N2 / item 1).

Reference: μ{φ ≤ y} summed over the monotone pieces of φ between the real roots of φ(x) = y
(mpmath polyroots, 30 digits), μ = Semicircle by its closed-form cdf
F(t) = 1/2 + (t√(1−t²) + asin t)/π, t = x/R.  Today `Transformed` integrates tables of its
numeric pdf; on pushforward-8 it misses this by up to 7.3e-8 absolute (session 9, helper
push9): strict xfail until cdf/sf are computed as μ-masses between the preimages (μ's own accuracy).
"""
import mpmath as mp
import pytest

from freeattn.laws import Semicircle, Transformed

CDF_ATOL = 1e-13  # float64 cdf of an exact mapping of μ's closed-form cdf


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


# pushforward-18: agrees to 1.1e-16 today; pushforward-8: 7.3e-8 off (strict xfail)
CASES = [
    pytest.param(0.10122375375502426, [-0.5, -0.75, -1.25, -1.0], [-0.5, -0.45, -0.4],
                 id="pushforward-18"),
    pytest.param(2.892957552169478, [0.125, 0.875, -0.75, -0.875], [-0.687051673943059, 0.0, 5.0],
                 id="pushforward-8", marks=pytest.mark.xfail(
                     strict=True, reason="N2: Transformed cdf from tables of its numeric pdf "
                     "(7.3e-8 off); fix: μ-masses between preimages")),
]


@pytest.mark.parametrize("param, coefs, ys", CASES)
def test_transformed_cdf_matches_preimage_masses(param, coefs, ys):
    law = Transformed(Semicircle(param), coefs)
    for y in ys:
        ref = float(_reference_cdf(param, coefs, y))
        assert abs(float(law.cdf(y)) - ref) <= CDF_ATOL, (y, float(law.cdf(y)), ref)
        assert abs(float(law.sf(y)) - (1 - ref)) <= CDF_ATOL, (y, float(law.sf(y)), 1 - ref)
