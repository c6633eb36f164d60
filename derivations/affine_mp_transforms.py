"""Derivation: R- and S-transforms of the affine Marchenko–Pastur laws ρ_t and ρ_{β,t}.

Run:  PYTHONPATH=. python derivations/affine_mp_transforms.py     (prints and asserts; ~3 s)

Sources: Hayase & Karakida 2026 (arXiv 2610.10033): (C.3), (C.4), (C.8), Lemma C.2 (C.12),
§5.1 (closed-form S-transform of ρ_{β,t}), §C.6.1 (its quadratic), §C.1.4 (S-series).

1. R_{ρ_t}(z) = θ₁ − θ₂ + θ₂/(1 − θ₂z/t): from κ_q(MP_{1/t}) = t^{1−q}, scaled by θ₂^q and
   shifted by θ₁ − θ₂ in κ₁ (exact cumulant lists to order 8), and independently from the
   polynomial P(G, z) of the push-forward (R-relation of freeattn's polynomial method).
2. S_{ρ_{β,t}}, ρ_{β,t} = D_{1/θ₁} ρ_t = (x ↦ 1 − c + c x)_# MP_{1/t}, c = c_β:
   S R(zS) = 1 gives c(1−c)(z/t) S² − (1 + cz/t) S + 1 = 0, and the root with S(0) = 1 is
   the paper's S(z) = 2/(1 + cz/t + sqrt((1 − cz/t)² + 4c²z/t)) (§5.1).  Checked: exact
   substitution into the quadratic, series against the S-series from the moments (order 7),
   and against the S-relation Σ(w, S) of the law's polynomial.
3. (C.12) S_{ρ_{γ/h}}(w/h) = S_{ρ_γ}(w); §C.6.1's 1 = (1 − cw/γ)s + c(1 − c)ws²/γ at
   s = S(−w); §C.1.4's S_μ(w) = (1 − (m₂/m₁² − 1)w + O(w²))/m₁.
4. §C.6.2: 1/S_{ρ_{β,γ}}(−w) is positive and nonincreasing in w > 0 (uniqueness of (5.4)).
"""
import sympy as sp

from freeattn.algebraic.polynomial import G, S, affine_polynomial, r_relation, s_relation, w, z
from freeattn.transforms.cumulants import (dilate_cumulants, moments_from_free_cumulants,
                                           s_transform_series)

th1, th2, t, c, gam, h = sp.symbols("theta_1 theta_2 t c_beta gamma_K h", positive=True)
u = sp.Symbol("u")
N = 8


def mp_cumulants(y, n=N):
    """κ_q(MP_y) = y^{q−1} (mean-one Marchenko–Pastur, ratio y)."""
    return [y ** (q - 1) for q in range(1, n + 1)]


print("1. R-transform of rho_t, (C.12) first identity")
kap = dilate_cumulants(mp_cumulants(1 / t), th2)
kap[0] = kap[0] + th1 - th2
R_paper = th1 - th2 + th2 / (1 - th2 * u / t)
ser = sp.series(R_paper, u, 0, N).removeO()
for q in range(N):
    assert sp.simplify(ser.coeff(u, q) - kap[q]) == 0, q
print(f"   kappa_1..kappa_{N} of the affine push-forward = coefficients of R_paper  OK")
# polynomial-method route: P of MP_{1/t}, pushed forward, R-relation C(g, R) = 0
P_mp = z * G**2 / t + (1 - 1 / t - z) * G + 1
P_rho = affine_polynomial(sp.expand(P_mp * t), th1 - th2, th2)
C = r_relation(P_rho)  # variables (w, S) stand for (g, R)
res = sp.simplify(sp.together(C.subs(S, R_paper.subs(u, w))))
print("   R-relation of P_rho at R = R_paper:", res)
assert res == 0
print("   R_rho_t(z) = theta1 - theta2 + theta2/(1 - theta2 z/t)  OK (two routes)")

print("2. Closed-form S-transform of the mean-one affine MP law (Section 5.1)")
R1 = 1 - c + c / (1 - c * u / t)  # R of rho_{beta,t}: theta1 -> 1, theta2 -> c
Ssym = sp.Symbol("s")
quad = sp.factor(sp.numer(sp.together(Ssym * R1.subs(u, z * Ssym) - 1)))
print("   S R(zS) = 1  <=>", quad, "= 0")
S_paper = 2 / (1 + c * z / t + sp.sqrt((1 - c * z / t) ** 2 + 4 * c**2 * z / t))
assert sp.simplify(sp.expand(quad.subs(Ssym, S_paper))) == 0
print("   the paper's S(z) = 2/(1 + cz/t + sqrt((1 - cz/t)^2 + 4c^2 z/t)) solves it  OK")
assert S_paper.subs(z, 0) == 1
print("   S(0) = 1 = 1/m1  OK")
kap1 = dilate_cumulants(mp_cumulants(1 / t), c)
kap1[0] = kap1[0] + 1 - c
s_ser = s_transform_series(moments_from_free_cumulants(kap1))
paper_ser = sp.series(S_paper, z, 0, N - 1).removeO()
for q in range(N - 1):
    assert sp.simplify(paper_ser.coeff(z, q) - s_ser[q]) == 0, q
print(f"   series to z^{N - 2} = S-series from the moments of rho_beta,t  OK")
P_rho1 = affine_polynomial(sp.expand(P_mp * t), 1 - c, c)
sig = s_relation(P_rho1)
res = sp.simplify(sp.expand(sig.subs(S, S_paper.subs(z, w))))
assert res == 0
print("   S-relation of the polynomial of rho_beta,t vanishes at S_paper  OK")

print("3. Scaling (C.12), the quadratic of C.6.1 and the S-series of C.1.4")
S_gen = S_paper.subs(t, gam)
S_h = S_paper.subs({t: gam / h, z: z / h})
assert sp.simplify(S_h - S_gen) == 0
print("   S_{rho_{gamma/h}}(w/h) = S_{rho_gamma}(w)  OK")
s_m = S_gen.subs(z, -w)
rel = (1 - c * w / gam) * s_m + c * (1 - c) * w * s_m**2 / gam - 1
assert sp.simplify(sp.expand(rel)) == 0
print("   1 = (1 - c w/gamma_K) s + c(1 - c) w s^2/gamma_K at s = S(-w)  OK")
m = sp.symbols("m1:4", positive=True)
ss = s_transform_series(list(m))
assert sp.simplify(ss[0] - 1 / m[0]) == 0
assert sp.simplify(ss[1] - (-(m[1] / m[0] ** 2 - 1) / m[0])) == 0
print("   S(w) = (1 - (m2/m1^2 - 1) w + O(w^2))/m1  OK")

print("4. Section C.6.2: 1/S_rho(-w) is positive and nonincreasing for 0 < w (c <= 1)")
# 1/S(−w) = (1 − cw/γ + sqrt((1 + cw/γ)² − 4c²w/γ))/2 (the paper's S at z = −w); its
# derivative is (c/γ)(−1 + (1 + cw/γ − 2c)/sqrt(·))/2 <= 0 iff (1 + cw/γ − 2c)² <= (·),
# and (·) − (1 + cw/γ − 2c)² = 4c(1 − c) ≥ 0 is checked exactly:
inv = sp.simplify(1 / S_gen.subs(z, -w))
root = (1 + c * w / gam) ** 2 - 4 * c**2 * w / gam
assert sp.simplify(inv - (1 - c * w / gam + sp.sqrt(root)) / 2) == 0
gap = sp.factor(sp.expand(root - (1 + c * w / gam - 2 * c) ** 2))
print("   (1 + cw/g)^2 - 4c^2 w/g - (1 + cw/g - 2c)^2 =", gap)
assert sp.simplify(gap - 4 * c * (1 - c)) == 0
assert sp.simplify(root - ((1 - c * w / gam) ** 2 + 4 * c * (1 - c) * w / gam)) == 0
print("   = 4c(1 - c) >= 0, and the radicand (1 - cw/g)^2 + 4c(1 - c)w/g > 0: 1/S decreases  OK")
print("All checks passed.")
