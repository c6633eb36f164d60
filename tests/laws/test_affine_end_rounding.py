"""Issue 21, the "float64 end's own rounding" kind, affine images: cdf/sf 1e-8 of the width from
an end at |end| ≫ width.

An image a + s·X used to map y to its base law as the double (y − a)/s, which rounds at the
ulp of the base law's end: the distance to the end at 1e-8 of the width carried a relative
error ~ulp(end)/(1e-8·width), and the tail as much (dilate-465 of the property suite: sf
1.07e-6 off; 40 % of the slow affine/dilate points failed `tails` by 1.1e-8 … 1.2e-7).  The
image now forms y − (a + s·e) in double-double arithmetic and asks the base law for the mass at
that distance from its exact end (`Law._cdf_sf_at_distance`).

Right values: the base law's own 30-digit route at the exact preimage (y − a)/s (mpmath at 40
digits), and for the closed forms also a 40-digit mpmath quadrature of the density.
"""
import mpmath
import numpy as np
import pytest

import sympy as sp

from freeattn import FreePoisson, MarchenkoPastur, Semicircle, attention_law, mha_output_law

#: relative agreement required (the old route was 1.1e-8 … 1.1e-6 off at these points)
RTOL = 1e-11
#: the distances (fractions of the width) of the property suite's `tails` check
FRACTIONS = (1e-8, 1e-5, 1e-2)

# (id in the property suite, base law, shift, scale): every failing affine/dilate pair of the
# slow samples (`sweep.py slow every:50:25` on 0f0c818, and session 10's every:150 samples)
CASES = [
    ("dilate-65", lambda: FreePoisson(6531.167737555598), 0.0, 1.0709294694175059e-17),
    ("dilate-165", lambda: FreePoisson(0.0024235884178111316), 0.0, 9663989.624840712),
    ("dilate-415", lambda: attention_law(0.028384730047435646, 0.04679616844012702, 2), 0.0,
     2.0748385730638086e-15),
    ("dilate-465", lambda: FreePoisson(1.9276841133978108e-06), 0.0, 1.6886784879653418e-72),
    ("dilate-515", lambda: attention_law(0.01, 0.005454020692793975, 51), 0.0,
     4.774855878934301e-35),
    ("dilate-615", lambda: FreePoisson(126.27745890636311), 0.0, 5.917297643847753e-22),
    ("dilate-640", lambda: attention_law(2.035622827225906, 0.0017415007365854333, 5), 0.0,
     3.558310323787405e+96),
    ("dilate-765", lambda: attention_law(2.366465624086797, 0.001974336594814553, 1), 0.0,
     1.680162031053024e+35),
    ("affine-105", lambda: MarchenkoPastur(0.003055680376557647), -9.042695090964352e+80,
     9.457935125321835e+78),
    ("affine-155", lambda: attention_law(1.948524927606655, 0.023143884709256424, 7),
     1.7587765089879118e+61, 1.3848019165456258e+63),
    ("affine-180", lambda: attention_law(0.4903407279457459, 6.032433201687188, 9),
     -1.4543602896513015e+26, -1.839141048144738e+28),
    ("affine-305", lambda: attention_law(0.12825848956247557, 0.8042943472263931, 48),
     -3.689980697168403e-30, 3.0755208681242122e-28),
    ("affine-405", lambda: attention_law(0.3232464485770069, 417.92253311261794, 36),
     -3.504843497122943e-20, 1.2367844663197455e-18),
    ("affine-455", lambda: Semicircle(19.108281876489784), -1.0544808804442125e-36,
     3.200625405983504e-35),
    ("affine-555", lambda: attention_law(0.11171007970051602, 17.108529416613628, 47),
     9.524760869016258e+41, 1.7433802294485463e+43),
    ("affine-605", lambda: attention_law(2.507352215626636, 0.4963215700325378, 30),
     -1.2935058154648085e-71, -8.097917051224322e-71),
]


def _tail_points(law):
    pts = []
    for a, b in law.support():
        w = b - a
        pts += [(a + d * w, False) for d in FRACTIONS] + [(b - d * w, True) for d in FRACTIONS]
    return pts


def _check_against_base(law, base, shift, scale):
    """cdf at the left tail points and sf at the right ones against the base law's 30-digit
    cdf/sf at the exact preimage; returns the worst relative error."""
    worst = 0.0
    for y, upper in _tail_points(law):
        with mpmath.workdps(60):
            w = (mpmath.mpf(y) - mpmath.mpf(shift)) / mpmath.mpf(scale)
        # s > 0: cdf ↔ cdf, sf ↔ sf; s < 0 the other way round (no atom inside the support)
        base_upper = upper if scale > 0 else not upper
        ref = base.sf(w, dps=30) if base_upper else base.cdf(w, dps=30)
        got = law.sf(y) if upper else law.cdf(y)
        err = abs(got / float(ref) - 1)
        assert err <= RTOL, (y, upper, got, ref, err)
        worst = max(worst, err)
    return worst


@pytest.mark.parametrize("pid, make, shift, scale", CASES, ids=[c[0] for c in CASES])
def test_tails_of_the_failing_images(pid, make, shift, scale):
    base = make()
    law = base.affine(shift, scale) if shift else base.dilate(scale)
    _check_against_base(law, base, shift, scale)


def _mp_tail(density, e, dist, sign):
    """∫ of ``density`` over the distance ``dist`` from the end e (sign +1: rightwards), with
    x = e + sign·dist·sin²t (smooth at a square-root edge)."""
    f = lambda t: density(e + sign * dist * mpmath.sin(t) ** 2) * 2 * dist * mpmath.sin(t) * mpmath.cos(t)  # noqa: E731
    return mpmath.quad(f, [0, mpmath.pi / 4, mpmath.pi / 2])


def test_dilate_465_against_the_free_poisson_density():
    # the worst instance: sf(1.6933709014806044e-72) was 3.2634739838105843e-18,
    # right 3.2634704786956607062e-18 (40-digit quadrature of √((b − x)(x − a))/(2πx))
    t, s = 1.9276841133978108e-06, 1.6886784879653418e-72
    law = FreePoisson(t).dilate(s)
    y = 1.6933709014806044e-72
    with mpmath.workdps(40):
        tt = mpmath.mpf(t)
        a, b = (1 - mpmath.sqrt(tt)) ** 2, (1 + mpmath.sqrt(tt)) ** 2
        rho = lambda x: mpmath.sqrt((b - x) * (x - a)) / (2 * mpmath.pi * x)  # noqa: E731
        ref = _mp_tail(rho, b, b - mpmath.mpf(y) / mpmath.mpf(s), -1)
    assert abs(law.sf(y) / float(ref) - 1) <= 1e-13
    assert abs(float(ref) - 3.2634704786956607062e-18) <= 1e-30


def test_affine_455_against_the_semicircle_closed_form():
    # cdf(−2.8087248518736134e-34) was 1.2e-8 off: the semicircle's mass within δ of its end,
    # (ψ − sin ψ)/(2π), ψ = 4 asin √(δ/(2r)), at the exact preimage (40 digits)
    v, a0, s = 19.108281876489784, -1.0544808804442125e-36, 3.200625405983504e-35
    law = Semicircle(v).affine(a0, s)
    for y, upper in _tail_points(law):
        with mpmath.workdps(40):
            r = 2 * mpmath.sqrt(mpmath.mpf(v))
            w = (mpmath.mpf(y) - mpmath.mpf(a0)) / mpmath.mpf(s)
            dist = (r - w) if upper else (w + r)
            psi = 4 * mpmath.asin(mpmath.sqrt(dist / (2 * r)))
            ref = (psi - mpmath.sin(psi)) / (2 * mpmath.pi)
        got = law.sf(y) if upper else law.cdf(y)
        assert abs(got / float(ref) - 1) <= 1e-13, (y, upper, got, ref)


@pytest.mark.parametrize("scale", [1.0, -1.0, 3e-40, -7e45])
def test_attention_image_a_million_widths_from_zero(scale):
    # second instance: an attention law shifted by 10⁶ widths; the old map's relative error
    # at 1e-8 of the width was ~ulp(10⁶ w)/(1e-8 w) ≈ 2e-2
    base = attention_law(0.5, 0.1, 4)
    a, b = base.hull()  # two support intervals
    shift = 1e6 * (b - a) * abs(scale)
    law = base.affine(shift, scale)
    _check_against_base(law, base, shift, scale)
    # the quantiles invert the image's own cdf at the ulp (an end far from 0: many image
    # ulps per ulp of a + s·ppf_base)
    q = np.array([1e-300, 1e-30, 1e-12, 0.5])
    for f, inv, reach in ((law.cdf, law.ppf, lambda v, t: v >= t),
                          (law.sf, law.isf, lambda v, t: v <= t)):
        x = inv(q)
        assert np.all(reach(f(x), q)) and not np.any(reach(f(np.nextafter(x, -np.inf)), q))


def test_image_cdf_monotone_through_the_end_zone():
    # the distance form is a monotone function of y: neighbouring doubles next to an end far
    # from 0, and across the switch between the two ends
    base = attention_law(0.5, 0.1, 4)
    a, b = base.hull()
    law = base.affine(1e6 * (b - a), -1.0)
    lo, hi = law.hull()
    y = lo + (hi - lo) * np.array([1e-8, 1e-6, 1e-3, 0.5, 1 - 1e-6])
    pairs = np.concatenate([y + k * np.spacing(y) for k in range(-20, 21)])
    pairs.sort()
    F, S = law.cdf(pairs), law.sf(pairs)
    assert np.all(np.diff(F) >= 0) and np.all(np.diff(S) <= 0)
    # one value per call gives the same numbers
    np.testing.assert_array_equal([float(law.cdf(v)) for v in pairs[::37]], F[::37])


def test_partial_kv_layer_image_with_interior_breakpoints():
    # mha_rho-1 of the slow suite: an affine image of a layer law whose tables split the
    # support at interior branch points (pieces of the distance form); sf(5.29595088802621)
    # was 1.01e-8 off
    law = mha_output_law(0.04042542829959057, 23, 2.303955221132841, 2.303955221132841,
                         551.3920069786553, sharing="none", rho=0.20047380237894563)
    with mpmath.workdps(60):  # the exact map (a sympy expression) at 60 digits
        shift, scale = (mpmath.mpf(str(sp.N(v, 60))) for v in (law.shift, law.scale))
    _check_against_base(law, law.base, shift, scale)
