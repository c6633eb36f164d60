"""Mass and cdf at a hard end where the density diverges faster than x^{-1/2}.

The fault (new-user review): ``mha_output_law(1.0, 1, 1.0, 1.0, 1.0)`` (β = 1, h = 1,
γ_K = γ_V = γ_O = 1) refused itself with "atoms and support intervals carry mass
0.9999999983930968, not 1"; (1.0, 1, 1.5, 1.0, 1.0) likewise (0.99999999844); its cdf(18.2)
was 0.999999999536.  Its density diverges like x^{-3/4} at 0, so the θ-integrand
ρ(x(θ))x′(θ) ~ θ^{-1/2} of the mass/cdf quadrature is singular at θ = 0 (at an x^{-1/2} hard
edge, the MP case, it is analytic); the end panels are now integrated in s with θ = θ₁s⁶.
The tied K=V law at h = 1 gave mass 1.0000863–1.0001074: there two sheets share the leading
term C₀z^{-3/4} at 0 (± C₁z^{-1/2}) and the table route took the other sheet for
x < 1.2e-8; the branch there is now the Puiseux solution at 0.

Independent references: Fuss–Catalan numbers C(3k, k)/(2k + 1) and C(4k, k)/(3k + 1) (the
moments of MP(1)^⊠2 and MP(1)^⊠3), the closed-form Fuss–Catalan density of MP(1)⊠MP(1)
(Penson & Życzkowski 2011, eq. (8)), the laws' exact moments from the free-cumulant series,
an adaptive scipy quadrature of the pdf in u = x^{1/q} (a different rule and variable), and
the mass of [0, X] as −(1/π) Im ∫ G(z) dz along a half circle in the upper half-plane from
−s to X (Cauchy's theorem; G off the axis, not the density).
"""
import math

import numpy as np
import pytest
from scipy import integrate

from freeattn import MarchenkoPastur, free_multiplicative_convolution, mha_output_law


def _fuss_catalan_2(x):
    """Density of MP(1) ⊠ MP(1) on (0, 27/4] (Penson & Życzkowski 2011, s = 2)."""
    r = 27 + 3 * np.sqrt(81 - 12 * x)
    return (2 ** (1 / 3) * math.sqrt(3) / (12 * math.pi)
            * (2 ** (1 / 3) * r ** (2 / 3) - 6 * np.cbrt(x)) / (x ** (2 / 3) * r ** (1 / 3)))


def _pdf_mass(law, lo, hi, q):
    """∫_lo^hi pdf by adaptive scipy quadrature in u = x^{1/q} (lo ≥ 0)."""
    f = lambda u: float(law.pdf(u ** q)) * q * u ** (q - 1)  # noqa: E731
    return integrate.quad(f, lo ** (1 / q), hi ** (1 / q), epsabs=1e-15, epsrel=1e-13,
                          limit=300)[0]


def _contour_mass(law, lo, hi):
    """μ((lo, hi)) for lo outside the support: −(1/π) Im ∫ G along the upper half circle."""
    c, r = 0.5 * (lo + hi), 0.5 * (hi - lo)

    def f(t):
        e = np.exp(1j * (math.pi - t))
        return (complex(law.cauchy_transform(c + r * e)) * (-1j * r * e)).imag

    return -integrate.quad(f, 0.0, math.pi, epsabs=1e-14, epsrel=1e-13, limit=400)[0] / math.pi


@pytest.mark.parametrize("gamma_k, top", [(1.0, 18.2), (1.5, 17.6)])
def test_mha_one_head_x_to_minus_three_quarters(gamma_k, top):
    law = mha_output_law(1.0, 1, gamma_k, 1.0, 1.0)
    (a, b), = law.support()  # was: ArithmeticError, mass 0.99999999839 / 0.99999999844
    assert a == 0.0 and law.atoms() == []
    assert abs(math.fsum(law._quick_interval_masses) - 1.0) <= 1e-12
    assert abs(law.cdf(top) - 1.0) <= 1e-15  # was 1 - 4.6e-10 at γ_K = 1
    # the density diverges like x^{-3/4}: pdf·x^{3/4} tends to a constant
    x = np.array([1e-16, 1e-20, 1e-24])
    c = law.pdf(x) * x ** 0.75
    assert np.ptp(c) <= 1e-3 * c[-1]
    # cdf next to both ends: float, the 30-digit route and scipy in u = x^{1/4} agree
    for xv in (1e-20, 1e-3):
        ref = _pdf_mass(law, 0.0, xv, 4)
        assert law.cdf(xv) == pytest.approx(ref, rel=1e-8, abs=1e-13)
        assert float(law.cdf(xv, dps=30)) == pytest.approx(ref, rel=1e-10, abs=1e-15)
    xv = b * (1 - 1e-4)
    ref = 1.0 - _pdf_mass(law, xv, b, 1)
    assert law.cdf(xv) == pytest.approx(ref, abs=1e-13)
    assert float(law.cdf(xv, dps=30)) == pytest.approx(ref, abs=1e-13)
    exact = [float(v) for v in law.exact_moments(3)]
    assert [law.moment(k, method="quad") for k in (1, 2, 3)] == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize("gamma_o", [1.0, 2.0])
def test_tied_kv_one_head_sheet_at_zero(gamma_o):
    law = mha_output_law(1.0, 1, 1.0, 1.0, gamma_o, sharing="tied_kv")
    (a, _), = law.support()  # was: mass 1.0001074 (γ_O = 1), 1.0000863 (γ_O = 2)
    assert a == 0.0 and law.atoms() == []
    assert abs(math.fsum(law._quick_interval_masses) - 1.0) <= 1e-12
    # the density is the upper half-plane limit of G (the other sheet differs by ~2 %)
    for x in (1e-9, 1e-13):
        g = complex(law.cauchy_transform(x * (1 + 1e-8j)))
        assert float(law.pdf(x)) == pytest.approx(-g.imag / math.pi, rel=1e-6)
    # mass of [0, 1] against Cauchy's theorem (0.5087382603147206 at γ_O = 1; the table
    # route's density gave 0.5088456748 on [0, 0.2461])
    ref = _contour_mass(law, -0.1, 1.0)
    assert law.cdf(1.0) == pytest.approx(ref, abs=1e-12)
    assert _pdf_mass(law, 0.0, 1e-6, 4) == pytest.approx(_contour_mass(law, -1e-6, 1e-6),
                                                         abs=1e-12)


def test_fuss_catalan_two_x_to_minus_two_thirds():
    mp = MarchenkoPastur(1.0)
    law = free_multiplicative_convolution(mp, mp)
    assert law.support() == [(0.0, 6.75)]
    x = np.array([1e-12, 1e-6, 0.1, 3.0, 6.7])
    assert law.pdf(x) == pytest.approx(_fuss_catalan_2(x), rel=1e-12)
    assert abs(math.fsum(law._quick_interval_masses) - 1.0) <= 1e-12
    for xv in (1e-9, 0.3, 6.7):
        f = lambda u: _fuss_catalan_2(u ** 3) * 3 * u ** 2  # noqa: E731
        ref = integrate.quad(f, 0.0, xv ** (1 / 3), epsabs=1e-15, epsrel=1e-13, limit=200)[0]
        assert law.cdf(xv) == pytest.approx(ref, abs=1e-14)
        assert float(law.cdf(xv, dps=30)) == pytest.approx(ref, abs=1e-14)
    fc = [math.comb(3 * k, k) / (2 * k + 1) for k in (1, 2, 3)]
    assert [law.moment(k, method="quad") for k in (1, 2, 3)] == pytest.approx(fc, rel=1e-12)
    # the hard end shifted to 5: the 30-digit route forms x = 5 + δ with extra digits (it
    # gave 0.6858236211 at x = 6, and 0.685815883 before the end zone in s)
    shifted = law.affine(5.0, 1.0)
    for xv in (1e-3, 1.0):
        ref = integrate.quad(lambda u: _fuss_catalan_2(u ** 3) * 3 * u ** 2, 0.0,
                             xv ** (1 / 3), epsabs=1e-15, epsrel=1e-13, limit=200)[0]
        assert shifted.cdf(5.0 + xv) == pytest.approx(ref, abs=1e-14)
        assert float(shifted.cdf(5.0 + xv, dps=30)) == pytest.approx(ref, abs=1e-14)


def test_fuss_catalan_three_x_to_minus_three_quarters():
    mp = MarchenkoPastur(1.0)
    law = free_multiplicative_convolution(free_multiplicative_convolution(mp, mp), mp)
    (a, b), = law.support()  # was: mass 0.9999999985466121
    assert a == 0.0 and b == pytest.approx(4 ** 4 / 3 ** 3, rel=1e-15)
    assert abs(math.fsum(law._quick_interval_masses) - 1.0) <= 1e-12
    for xv in (1e-12, 0.5, 9.4):
        ref = _pdf_mass(law, 0.0, xv, 4)
        assert law.cdf(xv) == pytest.approx(ref, abs=1e-13)
        assert float(law.cdf(xv, dps=30)) == pytest.approx(ref, abs=1e-13)
    assert 1.0 - law.cdf(9.48) == pytest.approx(_pdf_mass(law, 9.48, b, 1), abs=1e-14)
    fc = [math.comb(4 * k, k) / (3 * k + 1) for k in (1, 2, 3)]
    assert [law.moment(k, method="quad") for k in (1, 2, 3)] == pytest.approx(fc, rel=1e-12)
    # expect's θ-quadrature at the hard end (was 1 − 1.2e-9 for the mass), also shifted
    assert law.expect(np.ones_like) == pytest.approx(1.0, abs=1e-14)
    shifted = law.affine(5.0, 1.0)
    assert shifted.expect(np.ones_like) == pytest.approx(1.0, abs=1e-14)
    assert shifted.moment(1, method="quad") == pytest.approx(5.0 + fc[0], rel=1e-14)
    assert shifted.moment(2, method="quad") == pytest.approx(25.0 + 10 * fc[0] + fc[1],
                                                             rel=1e-14)


@pytest.mark.parametrize("s", [6, 8])
def test_fuss_catalan_alpha_near_one(s):
    """MP(1)^⊠s, ρ ~ x^{-s/(s+1)}: the end zone in s with θ ∝ s^m from the exponent (m = 7,
    9) and, where float64 P(G, x) overflows (|G|^deg ≳ 1e250, x ≲ 1e-40 for s = 8: ρ was 0
    there, mass 0.99996), the Puiseux solution at 0."""
    mp = MarchenkoPastur(1.0)
    law = mp
    for _ in range(s - 1):
        law = free_multiplicative_convolution(law, mp)
    (a, b), = law.support()
    assert a == 0.0 and b == pytest.approx((s + 1) ** (s + 1) / s ** s, rel=1e-14)
    assert abs(math.fsum(law._quick_interval_masses) - 1.0) <= 1e-12
    x = np.array([1e-60, 1e-120, 1e-240])
    c = law.pdf(x) * x ** (s / (s + 1))
    assert c[-1] > 0 and np.ptp(c) <= 1e-6 * c[-1]
    ref = _pdf_mass(law, 0.0, 1e-30, s + 1)
    assert law.cdf(1e-30) == pytest.approx(ref, rel=1e-9)
    assert float(law.cdf(1e-30, dps=30)) == pytest.approx(ref, rel=1e-9)
    fc = [math.comb((s + 1) * k, k) / (s * k + 1) for k in (1, 2, 3)]
    assert [law.moment(k, method="quad") for k in (1, 2, 3)] == pytest.approx(fc, rel=1e-11)


def test_hard_end_on_the_right():
    """The mirror image x → −x of the h = 1 law: ρ ~ (0 − x)^{-3/4} at the right end, where
    θ = π − φ rounds to 4e-16 absolute; the end zone is taken in φ (the cdf tables held
    1 − 2.5e-8 before; MP(1)^⊠8 mirrored refused itself with mass 0.99955)."""
    law = mha_output_law(1.0, 1, 1.0, 1.0, 1.0)
    mirror = law.affine(0.0, -1.0)
    (a, b), = mirror.support()
    assert b == 0.0
    assert abs(mirror._cdf_tables[0]["cum"][-1] - 1.0) <= 1e-15
    for xv in (1e-20, 1e-3, 1.0):
        ref = 1.0 - law.cdf(xv)
        assert mirror.cdf(-xv) == pytest.approx(ref, abs=1e-14)
        assert float(mirror.cdf(-xv, dps=30)) == pytest.approx(ref, abs=1e-14)
    assert mirror.expect(np.ones_like) == pytest.approx(1.0, abs=1e-15)
    mp = MarchenkoPastur(1.0)
    m8 = mp
    for _ in range(7):
        m8 = free_multiplicative_convolution(m8, mp)
    (_, b8), = m8.affine(0.0, -1.0).support()
    assert b8 == 0.0
