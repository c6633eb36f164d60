"""Derivation: the mean-one scalar equation (C.29) from the S-transform product, and (5.4).

Run:  PYTHONPATH=. python derivations/mean_one_equation.py     (prints and asserts; ~3 s)

Source: Hayase & Karakida 2026 (arXiv 2610.10033), §C.6.1 (C.29), (5.4), §C.6.1 moments.

Mean-one laws: ν = ρ_{β,γ_K} ⊠ MP_{1/h} [⊠ MP_{1/γ_V} ⊠ MP_{1/γ_O}], whose S-transform is
S(w) = S_ρ(w)/((1 + w/h)(1 + w/γ_V)(1 + w/γ_O)) (S_{MP_y}(w) = 1/(1 + yw)).
1. With w = w_ν(λ) = −ψ(−1/λ) and (C.3), χ(−w) = −1/λ gives s := S_ρ(−w) = Π(−w)/(λw),
   Π(z) = (1 + z)(1 + z/h)(1 + z/γ_V)(1 + z/γ_O) — this *is* (5.4); substituting it into the
   quadratic 1 = (1 − cw/γ)s + c(1 − c)ws²/γ of S_ρ (affine_mp_transforms.py) yields (C.29)
   exactly (λ²w times the quadratic plus (C.29) simplifies to 0).
2. The branch w ~ 1/λ of (C.29), solved as a series in 1/λ, reproduces the mean-one moments
   m₂ = 1 + 1/h + c²/γ_K and m₃ of §C.6.1 (attention, Π without V/O factors), and for the
   full layer m₂ − 1 = 1/h + 1/γ_V + 1/γ_O + c²/γ_K, i.e. (C.16) at θ₂/θ₁ = c.
   These come from (C.29) alone — independent of the Kreweras/S-series route of
   attention_moments.py, which they match.
3. freeattn's attention law (discriminant/branch route) satisfies (C.29): w = 1 + λG(−λ) of
   its mean-one version makes the left side vanish to 27 digits at three λ, two laws.
"""
import sympy as sp

lam, c, gK, h, gV, gO = sp.symbols("lambda c_beta gamma_K h gamma_V gamma_O", positive=True)
w, u, s = sp.symbols("w u s")


def Pi(zz, layer):
    out = (1 + zz) * (1 + zz / h)
    if layer:
        out *= (1 + zz / gV) * (1 + zz / gO)
    return out


def C29(layer):
    P = Pi(-w, layer)
    return lam**2 * w - lam * (1 - c * w / gK) * P - (c * (1 - c) / gK) * P**2


print("1. (C.29) from the S-transform product (and (5.4))")
for layer in (False, True):
    quad = (1 - c * w / gK) * s + c * (1 - c) * w * s**2 / gK - 1
    s54 = Pi(-w, layer) / (lam * w)  # (5.4): lambda w = Pi(-w)/S_rho(-w)
    diff = sp.simplify(sp.expand(lam**2 * w * quad.subs(s, s54) + C29(layer)))
    assert diff == 0, diff
    print(f"   {'MHA layer' if layer else 'attention'}: lambda^2 w * quadratic(s = Pi/(lambda w)) "
          "= -(C.29)  OK")

print("2. Moments from the branch w ~ 1/lambda of (C.29)")


def moments_from_C29(layer, n):
    """Solve (C.29) for w = Σ_{q≥1} a_q u^q, u = 1/λ; then m_q = (−1)^{q+1} a_q."""
    a = sp.symbols(f"a1:{n + 1}")
    ws = sum(a[q] * u ** (q + 1) for q in range(n))
    eq = sp.expand(C29(layer).subs(w, ws).subs(lam, 1 / u) * u)  # clear the λ² w ~ λ term
    sol = {}
    for k in range(0, n):
        cf = sp.expand(eq.coeff(u, k).subs(sol))
        var = a[k]
        assert sp.degree(cf, var) == 1, (k, cf)
        sol[var] = sp.solve(cf, var)[0]
    return [sp.simplify((-1) ** q * sol[a[q]]) for q in range(n)]


mom = moments_from_C29(False, 3)
print("   attention: m1 =", mom[0], "; m2 =", sp.expand(mom[1]))
assert mom[0] == 1
assert sp.simplify(mom[1] - (1 + 1 / h + c**2 / gK)) == 0
m3 = 1 + 3 * (1 / h + c**2 / gK) + 1 / h**2 + 3 * c**2 / (gK * h) + c**3 / gK**2
assert sp.simplify(mom[2] - m3) == 0
print("   m2 = 1 + 1/h + c^2/gamma_K and m3 of Section C.6.1  OK")
lay = moments_from_C29(True, 2)
assert lay[0] == 1
assert sp.simplify(lay[1] - 1 - (1 / h + 1 / gV + 1 / gO + c**2 / gK)) == 0
print("   MHA layer: m2 - 1 = 1/h + 1/gamma_V + 1/gamma_O + c^2/gamma_K  (C.16)  OK")

print("3. (C.29) against freeattn's attention law, 30 digits")
import mpmath  # noqa: E402

from freeattn import attention_law  # noqa: E402

for beta, gamma_k, heads in ((1.0, 0.5, 2), (0.7, 3.0, 1)):
    law = attention_law(beta, gamma_k, heads)
    with mpmath.workdps(40):
        th1 = mpmath.expm1(mpmath.mpf(beta) ** 2)
        cb = mpmath.mpf(beta) ** 2 / th1
        f = sp.lambdify([lam, w, c, gK, h], C29(False), "mpmath")
        for lam_v in (mpmath.mpf("0.3"), mpmath.mpf(2), mpmath.mpf(25)):
            # mean-one law D_{1/θ₁}ν: w = 1 + λ G(−λ) = 1 + λ θ₁ G_ν(−λθ₁)
            g = law.cauchy_transform(-lam_v * th1, dps=30)
            w_v = 1 + lam_v * th1 * mpmath.re(g)
            res = f(lam_v, w_v, cb, mpmath.mpf(gamma_k), heads)
            assert 0 < w_v < 1 and abs(res) < mpmath.mpf(10) ** -27 * (1 + lam_v**2), res
    print(f"   beta={beta}, gamma_K={gamma_k}, h={heads}: residual of (C.29) at w = 1 + lambda G(-lambda)"
          " < 1e-27 for lambda in (0.3, 2, 25)  OK")
print("All checks passed.")
