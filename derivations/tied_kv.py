"""Derivation: within-head K = V tying, (C.18)–(C.21), and the tied-value moments of §C.4.

Run:  PYTHONPATH=. python derivations/tied_kv.py     (prints and asserts; ~2 s)

Source: Hayase & Karakida 2026 (arXiv 2610.10033), (C.18)–(C.21), §C.4 (comparison of
independent and tied values at β = 1, γ_V = γ_K = h), (C.5), (C.16).

φ_KV(x) = (θ₁ − θ₂)x + (hθ₂/γ_K)x², μ_KV = φ_KV# π_{γ_K/h}, ν_tied = π(μ_KV, h).
1. m_q(μ_KV) = ∫ φ_KV(x)^q dπ_{γ_K/h} from the moments of π_s (free cumulants all s);
   (C.20) m₁(π(μ_KV, h)) = γ_Kθ₁ + hθ₂ (= lim ‖Z_KV‖_F²/n), and the readout mean
   m = γ_O(θ₁ + hθ₂/γ_K) of (C.21) after D_{1/γ_K} and ⊠ π_{γ_O}.
2. §C.4 at β = 1, γ_K = γ_V = h: moments 1, 2, 5, 14 of π₁; m₁(μ_KV) = e,
   m₂(μ_KV) = 2e² + 2e + 2; m_{1,tied} = he, m̄_{2,tied} = 1 + (2 + 2/e + 2/e²)/h;
   independent values: m_{1,ind} = h(e − 1), m̄_{2,ind} = 1 + (2 + (e − 1)^{−2})/h; the tied
   normalised second moment is the larger one for every h.
3. Atom at zero of μ_KV: φ_KV(x) > 0 for x > 0, so μ_KV({0}) = π_{γ_K/h}({0}) =
   max{1 − γ_K/h, 0}; then π(μ_KV, h)({0}) = max{1 − h(1 − μ_KV({0})), 0} = max{1 − γ_K, 0}
   (checked on a grid of (γ_K, h) exactly with rationals).
"""
import sympy as sp

from freeattn.transforms.cumulants import (boxtimes_free_cumulants, compound_free_poisson_cumulants,
                                           dilate_cumulants, moments_from_free_cumulants)

th1, th2, gK, h, gO, gV = sp.symbols("theta_1 theta_2 gamma_K h gamma_V gamma_O", positive=True)
x = sp.Symbol("x")
e = sp.E
N = 4


def pi_moments(s, n):
    """Moments of the free Poisson law π_s (free cumulants κ_q = s)."""
    return moments_from_free_cumulants([s] * n)


def pushforward_moments(poly, base_moments, n):
    """m_q(φ#μ) = ∫ φ(x)^q dμ for a polynomial φ, from the moments of μ (m_0 = 1)."""
    out = []
    for q in range(1, n + 1):
        p = sp.Poly(sp.expand(poly**q), x)
        out.append(sp.expand(sum(cf * (1 if k == 0 else base_moments[k - 1])
                                 for (k,), cf in p.terms())))
    return out


phi = (th1 - th2) * x + (h * th2 / gK) * x**2
print("1. (C.20) and the readout mean")
m_mu = pushforward_moments(phi, pi_moments(gK / h, 2 * N), N)
k_tied = compound_free_poisson_cumulants(m_mu, h)
m_tied = moments_from_free_cumulants(k_tied)
print("   m1(pi(mu_KV, h)) =", sp.factor(m_tied[0]))
assert sp.simplify(m_tied[0] - (gK * th1 + h * th2)) == 0
print("   (C.20) m1 = gamma_K theta1 + h theta2  OK")
layer = dilate_cumulants(boxtimes_free_cumulants(k_tied, [gO] * N), 1 / gK)
m_layer = moments_from_free_cumulants(layer)
assert sp.simplify(m_layer[0] - gO * (th1 + h * th2 / gK)) == 0
print("   (C.21) mean m = gamma_O (theta1 + h theta2/gamma_K)  OK")

print("2. Section C.4 comparison at beta = 1, gamma_K = gamma_V = h")
one = {th1: e - 1, th2: 1, gK: h}
pm1 = pi_moments(1, 4)
assert pm1 == [1, 2, 5, 14]
print("   moments of pi_1:", pm1, " OK")
mu1 = [sp.simplify(v.subs(one)) for v in m_mu[:2]]
print("   m1(mu_KV) =", mu1[0], ", m2(mu_KV) =", sp.expand(mu1[1]))
assert sp.simplify(mu1[0] - e) == 0
assert sp.simplify(mu1[1] - (2 * e**2 + 2 * e + 2)) == 0
mt = [sp.simplify(v.subs(one)) for v in m_tied[:2]]
assert sp.simplify(mt[0] - h * e) == 0
bar_tied = sp.simplify(mt[1] / mt[0] ** 2)
assert sp.simplify(bar_tied - (1 + (2 + 2 / e + 2 / e**2) / h)) == 0
print("   m1_tied = h e, m2bar_tied = 1 + (2 + 2/e + 2/e^2)/h  OK")
rho = [th1] + [th2**q / gK ** (q - 1) for q in range(2, N + 1)]
ind = boxtimes_free_cumulants(boxtimes_free_cumulants(rho, [(1 / h) ** (q - 1) for q in range(1, N + 1)]),
                              [gV] * N)
mi = [sp.simplify(v.subs(one).subs(gV, h)) for v in moments_from_free_cumulants(ind)[:2]]
assert sp.simplify(mi[0] - h * (e - 1)) == 0
bar_ind = sp.simplify(mi[1] / mi[0] ** 2)
assert sp.simplify(bar_ind - (1 + (2 + 1 / (e - 1) ** 2) / h)) == 0
print("   m1_ind = h(e - 1), m2bar_ind = 1 + (2 + (e - 1)^-2)/h  OK")
gap = sp.simplify((bar_tied - bar_ind) * h)
print("   h (m2bar_tied - m2bar_ind) =", gap, "=", sp.N(gap, 15))
assert gap.is_positive or sp.N(gap, 50) > 0
print("   tied normalised second moment larger for every h  OK")

print("3. Atoms at zero")
for gk in (sp.Rational(1, 3), sp.Rational(1, 2), 1, sp.Rational(5, 2), 7):
    for hh in (1, 2, 4, 8):
        mu0 = max(1 - sp.Rational(gk) / hh, 0)
        pi0 = max(1 - hh * (1 - mu0), 0)
        assert pi0 == max(1 - sp.Rational(gk), 0), (gk, hh)
        for go in (sp.Rational(1, 4), 1, 3):
            nu0 = max(pi0, max(1 - go, 0))  # Belinschi (2003) zero-atom rule under ⊠
            assert nu0 == 1 - min(1, gk, go)
print("   pi(mu_KV, h)({0}) = max(1 - gamma_K, 0); nu({0}) = 1 - min(1, gamma_K, gamma_O)  OK")
print("All checks passed.")
