"""Rectangular R-transform (Benaych-Georges 2009) in the variable of the squared singular
values, and the relations freeattn uses (transforms/rectangular.py, convolution/rectangular.py).

Checked here with sympy:

1. The moment-generating form M = C(z(λM + 1)(M + 1)) and Benaych-Georges' definition
   C = U(z/H^{-1}(z) − 1), U the inverse of u ↦ λu² + (λ + 1)u, are the same relation.
2. In the spectral variable (y = 1/z, g = G(y), M = yg − 1): H(1/y) = g(λ y g + 1 − λ) = D(y),
   and inverting, g = h/(λc + 1), y = (c + 1)(λc + 1)/h  (the algebraic route's substitution).
3. Gaussian n × p matrices with N(0, σ²/p) entries: the law D_{σ²} MP_λ has C(h) = σ² h
   (only the first rectangular cumulant), so Gaussian variances add under ⊞_λ.
4. δ_a: C solves c(λc + 1) = a h; δ₀ has C = 0 (the identity of ⊞_λ).
5. λ = 1: C(w²) = w R_sym(w) with R_sym the R-transform of the symmetrised law (series check);
   λ → 0: C = free-cumulant series of ν itself.
6. The subordination system: with h = D_μ(u₁) = D_ν(u₂) and C additive, yG(y) − 1 =
   (u₁G_μ(u₁) − 1) + (u₂G_ν(u₂) − 1) and D(y) = h; for μ = δ₀ it gives u₂ = y (identity).
7. Spiked model: D(y) = 1/y + (1 + λ) m₁/y² + O(y⁻³), so the outlier of θuvᵀ has
   ρ² = θ² + (1 + λ) m₁ + O(θ⁻²).
"""
import sympy as sp

from freeattn.transforms.cumulants import free_cumulants_from_moments
from freeattn.transforms.rectangular import (moments_from_rectangular_cumulants,
                                             rectangular_cumulants_from_moments)

lam, zz, h, c, y, g, a, s2 = sp.symbols("lambda z h c y g a sigma2", positive=True)
N = 6

# 1. M = C(H(z)), H = z(λM+1)(M+1)  ⇔  C(x) = U(x/H^{-1}(x) − 1)
#    with x = H(z): x/H^{-1}(x) − 1 = H(z)/z − 1 = (λM+1)(M+1) − 1 = λM² + (λ+1)M, U of it is M.
M = sp.Symbol("M")
T = lam * M**2 + (lam + 1) * M
assert sp.expand((lam * M + 1) * (M + 1) - 1 - T) == 0
Ufun = (-(lam + 1) + sp.sqrt((lam + 1) ** 2 + 4 * lam * T)) / (2 * lam)
assert sp.simplify(Ufun.subs(M, sp.Rational(3, 7)).subs(lam, sp.Rational(2, 5)) - sp.Rational(3, 7)) == 0
print("1. M = C(z(λM+1)(M+1)) is Benaych-Georges' C = U(z/H^{-1}(z) − 1): ok")

# 2. spectral variable
Mexpr = y * g - 1
Hexpr = (1 / y) * (lam * Mexpr + 1) * (Mexpr + 1)
D = g * (lam * y * g + 1 - lam)
assert sp.simplify(Hexpr - D) == 0
gsol = h / (lam * c + 1)
ysol = (c + 1) * (lam * c + 1) / h
assert sp.simplify(D.subs({g: gsol, y: ysol}) - h) == 0
assert sp.simplify((y * g - 1).subs({g: gsol, y: ysol}) - c) == 0
print("2. D(y) = g(λyg + 1 − λ) = H(1/y); g = h/(λc+1), y = (c+1)(λc+1)/h: ok")

# 3. D_{σ²} MP_λ: σ² λ y G² − (y − σ²(1 − λ)) G + σ² ... check: polynomial of D_{σ²}MP_λ
Gm = sp.Symbol("G")
P_mp = lam * y * Gm**2 - (y + lam - 1) * Gm + 1          # MP_λ (mean 1, ratio λ)
P_dil = sp.expand(P_mp.subs({y: y / s2, Gm: s2 * Gm}))   # D_{σ²}: G_D(y) = G(y/σ²)/σ²
K = sp.factor(sp.numer(sp.together(P_dil.subs({Gm: gsol, y: ysol}))))
assert sp.simplify(K.subs(c, s2 * h)) == 0
print("3. C_{D_σ² MP_λ}(h) = σ² h (Gaussian variances add under ⊞_λ): ok")
# the moment recursion agrees: MP_λ moments from c = (1, 0, 0, …) are the Narayana polynomials
mom = moments_from_rectangular_cumulants([sp.Integer(1)] + [sp.Integer(0)] * (N - 1), lam)
narayana = [sum(sp.binomial(k, j) * sp.binomial(k, j - 1) / k * lam ** (j - 1)
                for j in range(1, k + 1)) for k in range(1, N + 1)]
assert all(sp.expand(m - nk) == 0 for m, nk in zip(mom, narayana))
print("   MP_λ moments from c = (1, 0, …) are Narayana polynomials: ok")

# 4. δ_a and δ₀
P_delta = (y - a) * Gm - 1
Kd = sp.factor(sp.numer(sp.together(P_delta.subs({Gm: gsol, y: ysol}))))
assert sp.expand(Kd.subs(h, c * (lam * c + 1) / a)) == 0
cums0 = rectangular_cumulants_from_moments([sp.Integer(0)] * N, lam)
assert all(v == 0 for v in cums0)
print("4. δ_a: c(λc + 1) = a h; δ₀: C = 0: ok")

# 5. limits, on generic moments
ms = sp.symbols("m1:%d" % (N + 1))
c1 = rectangular_cumulants_from_moments(list(ms), sp.Integer(1))
sym_moments = []
for k in range(1, 2 * N + 1):
    sym_moments.append(ms[k // 2 - 1] if k % 2 == 0 else sp.Integer(0))
kappa = free_cumulants_from_moments(sym_moments)
assert all(sp.expand(c1[k] - kappa[2 * k + 1]) == 0 for k in range(N))
c0 = rectangular_cumulants_from_moments(list(ms), sp.Integer(0))
k0 = free_cumulants_from_moments(list(ms))
assert all(sp.expand(x - w) == 0 for x, w in zip(c0, k0))
print("5. λ = 1: c_k = κ_{2k}(symmetrised law); λ = 0: c_k = κ_k(ν): ok")

# 6. subordination: δ₀ as the first input gives u₂ = y
u1, u2, g2 = sp.symbols("u1 u2 g2")
g1 = 1 / u1                                   # δ₀
D1 = g1 * (lam * u1 * g1 + 1 - lam)
D2 = g2 * (lam * u2 * g2 + 1 - lam)
ssum = u1 * g1 + u2 * g2 - 1
f2 = ssum * (lam * ssum + 1 - lam) - y * D1
sol_u1 = sp.solve(sp.Eq(D1, D2), u1)[0]
assert sp.simplify(sp.factor(f2.subs(u1, sol_u1)).subs(u2, y)) == 0
print("6. subordination: δ₀ ⊞_λ ν has u₂ = y, G = G_ν: ok")
# and the system is C-additivity: at a solution, C(h) = yG − 1 = (u₁g₁ − 1) + (u₂g₂ − 1)
Gv = ssum / y
assert sp.simplify((y * Gv - 1) - ((u1 * g1 - 1) + (u2 * g2 - 1))) == 0

# 7. spiked model expansion
m1 = sp.Symbol("m1")
t = sp.Symbol("t")  # t = 1/y
Gser = t + m1 * t**2 + sp.Symbol("m2") * t**3
Dser = sp.series((Gser * (lam * Gser / t + 1 - lam)), t, 0, 4).removeO()
assert sp.expand(Dser - (t + (1 + lam) * m1 * t**2) - sp.expand(Dser).coeff(t, 3) * t**3) == 0
print("7. D(y) = 1/y + (1 + λ) m₁/y² + …: outlier ρ² = θ² + (1 + λ) m₁ + O(θ⁻²): ok")
print("OK")
