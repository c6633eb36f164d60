"""G and G′ of algebraic laws at tiny |z| (next to an atom or a hard edge at z = 0).

Before the Puiseux route (``AlgebraicLaw._tiny_levels``) these were silently wrong: NaN for
attention_law(1, 1) at z = −1e-300, G′ = +inf left of the support, −8192 as the real part at
z = 1e-100, an atom's 0.5/z coming out as +3.82 at −1e-300 and 'branch continuation failed'
at 1e-10j.

Independent reference: the law's own polynomial P(G, z) at high mpmath precision (|log10 z| + 60
digits, so that sheets that merge at 0 are told apart), continued from the float
route at z = 1e-3·i down the imaginary axis and along the arc |ζ| = |z|, each step predicted from
G ≈ A z^α + B through the two previous points (α = −1 at an atom, −1/2 at a hard edge with
density ~ x^{-1/2}, fixed by the test, not by the code) and polished by Newton; G′ from
−∂_zP/∂_GP there.  Closed form: MarchenkoPastur(2) (atom ½ at 0).
"""
import math

import mpmath
import numpy as np
import pytest

from freeattn import MarchenkoPastur, attention_law, mha_output_law
from freeattn.laws.algebraic import AlgebraicLaw


def _reference(law, z, alpha, digits=30):
    """(G, G′) at z: P's root continued from the float route at i·1e-3 down the imaginary
    axis to i|z| (factors of 10), then along the arc |ζ| = |z| to arg z (steps of π/64)."""
    z = complex(z)
    if z.imag < 0:  # G(z̄) = conj G(z)
        g, gp = _reference(law, z.conjugate(), alpha, digits)
        with mpmath.workdps(digits):
            return mpmath.conj(g), mpmath.conj(gp)
    wp = int(max(0.0, -math.log10(abs(z)))) + 60
    with mpmath.workdps(wp):
        c = law._num.coefficients_mp()
        d = len(c)
        dz = len(c[0])
        r = mpmath.mpf(abs(z))
        n = int(round(math.log10(1e-3 / abs(z))))
        # factors of 10 first, then of 1e10 (the predictor's error is O(|ζ|^{1/2}) relative)
        ks = list(range(n, max(n - 4, 0), -1)) + list(range(max(n - 4, 0), -1, -10)) + [0]
        ks = sorted(set(ks), reverse=True)
        zs = [mpmath.mpc(0, r * mpmath.mpf(10) ** k) for k in ks]
        th = mpmath.mpf(math.atan2(z.imag, z.real))
        if z.imag == 0:
            th = mpmath.pi if z.real < 0 else mpmath.mpf(0)
        if z.real != 0:
            steps = int(abs(th - mpmath.pi / 2) / (mpmath.pi / 64)) + 1
            zs += [r * mpmath.expj(mpmath.pi / 2 + (th - mpmath.pi / 2) * k / steps)
                   for k in range(1, steps + 1)]
        zs[-1] = mpmath.mpc(z.real, z.imag)  # exactly the float z

        def newton(g, zk):
            coef = [sum(c[k][j] * zk**j for j in range(dz)) for k in range(d)]
            for _ in range(200):
                p = dp = mpmath.mpc(0)
                for k in range(d - 1, -1, -1):
                    dp = dp * g + p
                    p = p * g + coef[k]
                step = p / dp
                g -= step
                if abs(step) <= mpmath.mpf(10) ** (-wp + 10) * abs(g):
                    break
            return g

        gs = [newton(mpmath.mpc(complex(law.cauchy_transform(complex(zk)))), zk)
              for zk in zs[:2]]
        for k in range(2, len(zs)):
            z1, z2 = zs[k - 2], zs[k - 1]
            # G ≈ A ζ^α + B through the two previous points
            w1, w2 = z1**alpha, z2**alpha
            A = (gs[-2] - gs[-1]) / (w1 - w2)
            B = gs[-1] - A * w2
            gs.append(newton(A * zs[k] ** alpha + B, zs[k]))
        g = gs[-1]
        zt = zs[-1]
        pg = sum(k * c[k][j] * g ** (k - 1) * zt**j for k in range(1, d) for j in range(dz))
        pz = sum(j * c[k][j] * g**k * zt ** (j - 1) for k in range(d) for j in range(1, dz))
        gp = -pz / pg
        if z.imag == 0 and abs(mpmath.im(g)) <= mpmath.mpf(10) ** (-wp // 2) * abs(g):
            g, gp = mpmath.mpc(mpmath.re(g)), mpmath.mpc(mpmath.re(gp))
    with mpmath.workdps(digits):
        return +g, +gp


def _close(value, ref, rtol):
    ref = complex(ref)
    return abs(complex(value) - ref) <= rtol * abs(ref)


LAWS = {
    # hard edge at 0 (density ~ x^{-1/2}), support [0, 9.0095]
    "attn11": (lambda: attention_law(1, 1), -0.5),
    # attention law with γ_K < 1: also a hard edge at 0
    "attn1_05": (lambda: attention_law(1, 0.5), -0.5),
    # atom 1/2 at 0 whose mass is a double root of the rescaled polynomial
    "mha": (lambda: mha_output_law(1.0, 4, 1.5, 2.0, 0.5), -1),
    # atom 1/2 at 0 (the generic algebraic route of MP's polynomial, not its closed form)
    "mp2": (lambda: AlgebraicLaw(MarchenkoPastur(2).polynomial, MarchenkoPastur(2).values), -1),
}
_cache = {}


def _law(key):
    if key not in _cache:
        _cache[key] = LAWS[key][0]()
    return _cache[key]


def _cases():
    for key in sorted(LAWS):
        for z in (-1e-300, -1e-100, -1e-20, 1e-300, 1e-100, 1e-100j, -1e-250j, 1e-8 + 1e-8j,
                  1e-10j):
            # the atom laws' real-axis references at |z| ≤ 1e-100 need ~400-digit Newton
            # steps (5-15 s each): slow; their ±1e-20, ±i·1e-250 cases stay always-on
            slow = LAWS[key][1] == -1 and z.imag == 0 and abs(z) <= 1e-100
            yield pytest.param(key, z, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("key, z", list(_cases()))
def test_tiny_z_against_continued_polynomial(key, z):
    law = _law(key)
    g_ref, gp_ref = _reference(law, z, LAWS[key][1])
    g = law.cauchy_transform(z)
    gp = law.cauchy_transform_derivative(z)
    assert np.isfinite(g)
    assert _close(g, g_ref, 1e-13), (g, g_ref)
    if abs(complex(gp_ref)) < 1e300:
        assert _close(gp, gp_ref, 1e-13), (gp, gp_ref)
    else:  # overflows float64: ±inf with the right signs, never NaN
        assert not np.isnan(gp.real) and not np.isnan(gp.imag)
        ref = complex(gp_ref)
        if ref.real != 0 and abs(ref.real) > 1e-3 * abs(ref):
            assert np.sign(gp.real) == np.sign(ref.real)
    # mpmath route at 30 digits
    gm = law.cauchy_transform(z, dps=30)
    assert abs(gm - g_ref) <= mpmath.mpf(10) ** -27 * abs(g_ref)
    gpm = law.cauchy_transform_derivative(z, dps=30)
    assert abs(gpm - gp_ref) <= mpmath.mpf(10) ** -27 * abs(gp_ref)


@pytest.mark.parametrize("z", [-1e-300, 1e-300, 1e-100j, -1e-100j, -5e-324])
def test_mp2_atom_closed_form(z):
    """MP_2 = ½δ_0 + ½(…): G(z) = (z − 1 − sqrt((z − 1)² − 4z·2·…)) … as its closed form;
    the algebraic route of the same polynomial must agree with it at tiny z."""
    law = _law("mp2")
    closed = MarchenkoPastur(2)
    g = complex(law.cauchy_transform(z))
    gc = complex(closed.cauchy_transform(z))
    if math.isinf(abs(gc)):
        assert g.real == gc.real
    else:
        assert abs(g - gc) <= 1e-14 * abs(gc)
        assert abs(g * z - 0.5) <= 1e-14  # the atom's mass is the exact leading coefficient


def test_atom_leading_term_and_signs():
    law = _law("mha")
    for z in (-1e-300, -1e-100, -1e-20):
        g = complex(law.cauchy_transform(z))
        assert g.imag == 0 and abs(g * z - 0.5) <= 1e-12
        gp = complex(law.cauchy_transform_derivative(z))
        assert gp.real < 0  # G′ < 0 left of the support
    a = _law("attn11")
    for z in (-1e-300, -1e-200, -5e-324):
        g = complex(a.cauchy_transform(z))
        assert g.real < 0 and g.imag == 0
        assert complex(a.cauchy_transform_derivative(z)).real < 0
    # hard edge: density ~ x^{-1/2} on the support side, finite real part
    g = complex(a.cauchy_transform(1e-100))
    assert g.imag < 0 and abs(g.real) < 10


def test_atom_gap_next_to_zero_is_the_stieltjes_sheet():
    """G(x) − ½/x = −∫ρ(t)/(t − x) dt < 0 for x < 0 (the absolutely continuous part lives on
    [0.069, 7.8]) and is continuous across the edge of the tiny-z zone."""
    law = _law("mha")
    for x in (-0.01, -0.005, -1e-3, -1e-4, -1e-5):
        g_ac = complex(law.cauchy_transform(x)).real - 0.5 / x
        assert -1.0 < g_ac < -0.9, (x, g_ac)
    # the same just above the axis (the upper route continues down x + ih, passing the atom
    # at distance ~h: it took the sheet ½/z + 10.08 at x = −0.001 before the pole-centred
    # predictor of NumericPolynomial.track)
    xs = np.array([-0.011, -0.01, -0.005, -2e-3, -1e-3, -5e-4, -1e-4])
    for h in (1e-9, 1e-6, 1e-4):
        zs = xs + 1j * h
        g_ac = (law.cauchy_transform(zs) - 0.5 / zs).real
        ref = (law.cauchy_transform(xs) - 0.5 / xs).real
        assert np.all(np.abs(g_ac - ref) <= 1e-3), (h, g_ac, ref)


def test_atom_finite_part_against_density_quadrature():
    """G(x) − ½/x at x = −1e-8 (tiny-z route) against −∫ρ(t)/(t − x) dt by scipy quad over
    the law's density on its support [0.0690, 7.797] (a second, independent route)."""
    from scipy.integrate import quad

    law = _law("mha")
    (a, b), = [(lo, hi) for lo, hi in law._support(None) if hi > 0.05]
    inner = [p for p in (0.23336538465843137,) if a < p < b]
    x = -1e-8
    f = lambda t: float(law.pdf(t)) / (t - x)  # noqa: E731
    edges = [a] + inner + [b]
    ref = -sum(quad(f, lo, hi, limit=200, epsabs=1e-12)[0] for lo, hi in zip(edges, edges[1:]))
    g_ac = complex(law.cauchy_transform(x)).real - 0.5 / x
    assert abs(g_ac - ref) <= 1e-6 * abs(ref), (g_ac, ref)


def test_atom_gap_second_law_upper_route_against_quadrature():
    """mha_output_law(0.7, 3, 1.2, 1.5, 0.3): atom 0.7 at 0, density on [0.0550, 2.482],
    breakpoints −0.0072, −0.0063 on the negative axis.  G(x + 1e-9i) − 0.7/z and G(x) − 0.7/x
    against −∫ρ(t)/(t − x) dt by scipy quad (the upper route gave +21.3 for −1.075 at x =
    −0.003: the track down x + ih took the other sheet through the atom, ½/z-type sheets 22
    apart)."""
    from scipy.integrate import quad

    law = mha_output_law(0.7, 3, 1.2, 1.5, 0.3)
    (a0, m), = law._atoms(None)
    assert a0 == 0 and abs(float(m) - 0.7) < 1e-12
    m = float(m)
    (a, b), = [(float(lo), float(hi)) for lo, hi in law._support(None)]
    for x in (-0.008, -0.0067, -0.003, -1e-3):
        f = lambda t: float(law.pdf(t)) / (t - x)  # noqa: E731
        ref = -quad(f, a, b, limit=200, epsabs=1e-12)[0]
        g_real = complex(law.cauchy_transform(x)).real - m / x
        zq = x + 1e-9j
        g_up = (complex(law.cauchy_transform(zq)) - m / zq).real
        assert abs(g_real - ref) <= 1e-6 * abs(ref), (x, g_real, ref)
        assert abs(g_up - ref) <= 1e-6 * abs(ref), (x, g_up, ref)


def test_gap_rule_checked_by_real_axis_continuation():
    """BranchData._continue_gaps: a wrong 'real' index in the gap (−0.0105, 0) (the sheet
    ½/x + 9.8 that the midpoint tracking once picked) is overridden by continuation along the
    axis from (−∞, −0.340), across the breakpoints −0.340, −0.0668, −0.0105 (branch points
    of other sheets: G is analytic there)."""
    law = mha_output_law(1.0, 4, 1.5, 2.0, 0.5)
    bd = law._branch(None)
    gap = next(i for i in bd.intervals if i["hi"] == 0.0)
    right = gap["index"]
    gap["index"] = 1
    bd._continue_gaps(bd.intervals)
    assert gap["index"] == right
    x = gap["mid"]
    assert abs(gap["g_mid"].real - 0.5 / x + 0.965) < 0.01
