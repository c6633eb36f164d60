"""Derivation: the compound free Poisson law π(ν, t), its moments (C.5) and S-transform (C.6),
and the S-transform chains of §C.1.2, Prop. C.5 and §C.2.1.

Run:  PYTHONPATH=. python derivations/compound_poisson.py     (prints and asserts; ~3 s)

Source: Hayase & Karakida 2026 (arXiv 2610.10033), (C.3)–(C.6), §C.1.2, Prop. C.5, §C.2.1.
Nica & Speicher (2006), Prop. 12.11, Lectures 11 and 18.

For a jump law ν with *generic* moments m_1, …, m_N (independent symbols), π(ν, t) has free
cumulants κ_q = t m_q.  Checked as formal power series to order N (exact, symbolic):
1. (C.5) m₁(π(ν,t)) = t m₁, m₂(π(ν,t)) = t m₂ + t² m₁²;
2. R_{π(ν,t)}(z) = t ψ_ν(z)/z;
3. (C.6) S_{π(ν,t)}(w) = S_ν(w/t)/(t + w);
4. MP_y = D_y π_{1/y} and S_{D_a μ}(w) = S_μ(w)/a;
5. §C.1.2: D_{1/h} π(ρ_{γ/h}, h) has S-transform S_{ρ_γ}(w)/(1 + w/h) (= ρ_γ ⊠ MP_{1/h}) and
   κ₂ = m₂(ρ_{γ/h})/h = θ₁²/h + θ₂²/γ;
6. Prop. C.5: S_{μ_V}(w/γ_V)/(γ_V + w) = S_{ν_{∞,h}}(w) S_{π_{γ_V}}(w) for
   μ_V = D_{γ_V/h} π(ρ_{γ/h}, h/γ_V);
   Prop. C.6: π(ν, 1) = ν ⊠ π₁ (the head-average law ρ_{γ_K} ⊠ π₁);
7. §C.2.1: S of D_{1/(γ_K m)}(π(μ, h) ⊠ π_{γ_O}) is γ_K m S_μ(z/h)/((h + z)(γ_O + z)).
"""
import sympy as sp

from freeattn.transforms.cumulants import (compound_free_poisson_cumulants, dilate_cumulants,
                                           moments_from_free_cumulants, s_transform_series)

N = 5
t, y, a, h, gam, gV, gO, th1, th2, mm = sp.symbols(
    "t y a h gamma_K gamma_V gamma_O theta_1 theta_2 m", positive=True)
zz, w = sp.symbols("z w")
m = list(sp.symbols(f"m1:{N + 1}", positive=True))


def series_of(coeffs, var):
    return sum(cf * var**k for k, cf in enumerate(coeffs))


def same_series(f, g, var, order, label):
    d = sp.series(sp.together(f - g), var, 0, order).removeO()
    assert sp.simplify(d) == 0, (label, d)
    print(f"   {label}  OK (to {var}^{order - 1})")


kap = compound_free_poisson_cumulants(m, t)
mom = moments_from_free_cumulants(kap)
print("1. (C.5)")
assert sp.expand(mom[0] - t * m[0]) == 0
assert sp.expand(mom[1] - (t * m[1] + t**2 * m[0] ** 2)) == 0
print("   m1 = t m1(nu), m2 = t m2(nu) + t^2 m1(nu)^2  OK")

print("2. R-transform")
psi = series_of([0] + m, zz)
same_series(series_of(kap, zz), t * psi / zz, zz, N, "R_pi(z) = t psi_nu(z)/z")

print("3. (C.6)")
S_nu = series_of(s_transform_series(m), w)
S_pi = series_of(s_transform_series(mom), w)
same_series(S_pi, S_nu.subs(w, w / t) / (t + w), w, N, "S_pi(nu,t)(w) = S_nu(w/t)/(t + w)")

print("4. Dilations and MP")
S_dil = series_of(s_transform_series(moments_from_free_cumulants(dilate_cumulants(kap, a))), w)
same_series(S_dil, S_pi / a, w, N, "S_{D_a mu}(w) = S_mu(w)/a")
mp = [y ** (q - 1) for q in range(1, N + 1)]
pi_inv = dilate_cumulants(compound_free_poisson_cumulants([1] * N, 1 / y), y)
assert all(sp.simplify(p - q) == 0 for p, q in zip(pi_inv, mp))
print("   kappa(D_y pi_{1/y}) = kappa(MP_y) = y^{q-1}  OK")
same_series(series_of(s_transform_series(moments_from_free_cumulants(mp)), w), 1 / (1 + y * w),
            w, N, "S_MP_y(w) = 1/(1 + y w)")


def rho_cumulants(tt, n=N):
    """κ of ρ_t: κ₁ = θ₁, κ_q = θ₂^q t^{1−q} (from R_{ρ_t}, see affine_mp_transforms.py)."""
    return [th1] + [th2**q / tt ** (q - 1) for q in range(2, n + 1)]


def S_of_cumulants(k):
    return series_of(s_transform_series(moments_from_free_cumulants(k)), w)


print("5. Section C.1.2: D_{1/h} pi(rho_{gamma/h}, h) = rho_gamma boxtimes MP_{1/h}")
m_rho_h = moments_from_free_cumulants(rho_cumulants(gam / h))
k_att = dilate_cumulants(compound_free_poisson_cumulants(m_rho_h, h), 1 / h)
S_rho = S_of_cumulants(rho_cumulants(gam))
same_series(S_of_cumulants(k_att), S_rho / (1 + w / h), w, N - 1,
            "S = S_rho_gamma(w)/(1 + w/h)")
assert sp.simplify(k_att[1] - m_rho_h[1] / h) == 0
assert sp.simplify(k_att[1] - (th1**2 / h + th2**2 / gam)) == 0
print("   kappa_2 = m2(rho_{gamma/h})/h = theta1^2/h + theta2^2/gamma_K  OK")

print("6. Prop. C.5: values without output weights")
m_muV = moments_from_free_cumulants(
    dilate_cumulants(compound_free_poisson_cumulants(m_rho_h, h / gV), gV / h))
S_muV = series_of(s_transform_series(m_muV), w)
lhs = S_muV.subs(w, w / gV) / (gV + w)
S_att = S_rho / (1 + w / h)
same_series(lhs, S_att / (gV + w), w, N - 1, "S_muV(w/gV)/(gV + w) = S_nu_inf,h(w) S_pi_gV(w)")

print("   Prop. C.6: pi(nu, 1) = nu boxtimes pi_1")
same_series(S_nu / (1 + w), S_nu * S_of_cumulants([sp.Integer(1)] * N), w, N,
            "S_pi(nu,1) = S_nu S_pi_1")

print("7. Section C.2.1: tied K = V with Gaussian output weights")
m_mu = list(sp.symbols(f"mu1:{N + 1}", positive=True))
m_pih = moments_from_free_cumulants(compound_free_poisson_cumulants(m_mu, h))
# pi(mu, h) boxtimes pi_gO: multiply S-series, then dilate by 1/(gamma_K m)
S_prod = series_of(s_transform_series(m_pih), w) * (1 / (gO + w))
S_nu_tied = sp.expand(S_prod * gam * mm)
S_mu = series_of(s_transform_series(m_mu), w)
same_series(S_nu_tied, gam * mm * S_mu.subs(w, w / h) / ((h + w) * (gO + w)), w, N - 1,
            "S_nu(z) = gamma_K m S_muKV(z/h)/((h + z)(gamma_O + z))")
print("All checks passed.")
