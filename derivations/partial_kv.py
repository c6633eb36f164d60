"""Derivation: partial key–value correlation W^V_r = ρ W^K_r + sqrt(1 − ρ²) W̃_r (beyond the paper).

Run:  PYTHONPATH=. python derivations/partial_kv.py     (prints and asserts; ~1 min)

Source: beyond Hayase & Karakida 2026 (arXiv 2610.10033), in their Gaussian-equivalent model
(Theorem 3.1, Prop. C.5, Cor. C.7, (C.15), (C.21)); deterministic equivalent of
Hachem, Loubaton & Najim (2007, Ann. Appl. Probab. 17, Thm 2.4) for the jump law.

Setting.  d_V = d_K, W̃_r an independent copy of W^K_r, so V_r = ρ K_r + s K̃_r with
s = sqrt(1 − ρ²) and K_r, K̃_r independent n × d_K matrices with N(0, 1) entries.  Theorem 3.1
applies (V_⊕ W^O is measurable in keys and independent weights, with bounded norm): the
Gaussian rows of Z^G = Y^G V_⊕/sqrt(n) have the block covariance Σ_V = ⊕_r Σ_{V,r},
Σ_{V,r} = V_rᵀ Σ_{G,r} V_r / n, Σ_{G,r} = θ₂ K_r K_rᵀ/d_K + (θ₁ − θ₂) I_n, so that
(Lemma C.1, as in Prop. C.5 and Cor. C.7)

    Z_V = [A_1^⊥ V_1, …]  →  π(μ_ρ, γ_K),    MHA^⊥(X)  →  D_{1/γ_K}(π(μ_ρ, γ_K) ⊠ π_{γ_O}),

μ_ρ the limit eigenvalue law of Σ_{V,r} (the same for every head, any across-head sharing).
Dividing by c = θ₁ − θ₂ and writing K̂ = K/sqrt(n), V̂ = V/sqrt(n), t = d_K/n = γ_K/h:

    Σ̂ = Σ_{V,r}/c = V̂ᵀ (I + κ K̂ K̂ᵀ) V̂,    κ = θ₂/(t c),    μ̂ = D_{1/c} μ_ρ.

Steps checked here:
1. Jump law.  Given K, Σ_G^{1/2} V̂ = ρ Σ_G^{1/2} K̂ + s Σ_G^{1/2} K̃/sqrt(n) is "signal plus
   noise with a variance profile" whose profile Σ_G commutes with the signal's Gram; the
   deterministic equivalent (HLN 2007) gives G_μ̂(z) = −δ̃ with, f(λ) = 1 + κλ,
   L = MP_t (law of K̂ᵀK̂), π_t (law of K̂K̂ᵀ):
       δ̃ = ∫ dL(λ) (1 + s²tδ̃ f) / Q(λ),   δ = s²(1 + δ) ∫ dπ_t(λ) f / Q(λ),
       Q(λ) = −z(1 + δ)(1 + s²tδ̃ f(λ)) + ρ²λ f(λ).
   Q is quadratic in λ; by partial fractions both integrals are rational in the values of
   G_L (t x G² − (x + t − 1)G + 1 = 0) at its two roots.  Solving the two equations for
   those values, imposing the MP relation at both roots and eliminating the roots and δ
   leaves one irreducible polynomial: JUMP_POLYNOMIAL of freeattn/attention/partial_kv.py
   (degree 7 in G, 4 in z; κ, t, r = ρ² symbolic).  Here the elimination is re-done at two
   rational parameter points and compared with JUMP_POLYNOMIAL there (equal up to a
   constant), and at one complex z the HLN system is solved at 30 digits by quadrature and
   JUMP_POLYNOMIAL vanishes at its solution.
2. Moments by Wick's theorem.  m_q(μ̂) = lim tr_d E Σ̂^q is a sum over pairings of the
   Gaussian letters (E V̂V̂ = E K̂K̂ = 1/n, E V̂K̂ = ρ/n entrywise); the limit keeps the
   pairings with #n-cycles + #d-cycles = (letters)/2 + 1 and weighs them t^{#d − 1}.
   All pairings are enumerated for q ≤ 3 (crossing ones are checked to be of lower order),
   the non-crossing ones for q = 4; m₁..m₄ equal the series of JUMP_POLYNOMIAL exactly
   (symbolic in κ, t, ρ).
3. End points: m₁..m₄ at ρ = 0 equal those of D_t π(ρ_t, 1/t) (μ_V in the proof of
   Prop. C.5), at ρ = 1 those of (λ ↦ λ + κλ²)_# MP_t (μ_KV of (C.18) on d_K × d_K).
4. Not a mixture: m₂(μ_ρ) − [ρ² m₂(μ_1) + (1 − ρ²) m₂(μ_0)] = −ρ²(1 − ρ²)(1 + 2t)θ₂²/t²
   (= c²κ² times the printed value; non-zero for 0 < ρ < 1): the jump law, hence the layer
   law, is not the mixture ρ²·tied + (1 − ρ²)·independent; only m₁ is linear in ρ².
5. Layer laws: m₁ of Z_V is γ_Kθ₁ + ρ²hθ₂, the readout normalisation
   m(ρ) = lim ‖MHA^⊥‖_F²/n = γ_O(θ₁ + ρ²hθ₂/γ_K); m₁..m₃ of the layer reduce to (C.15)
   (γ_V = γ_K) at ρ = 0 and to (C.21) at ρ = 1; the normalised variance m₂/m₁² − 1 is printed
   (at ρ = 0 it is (C.16)).
6. Atom at 0: μ_ρ({0}) = max{0, 1 − 1/t} (Σ̂ ≥ V̂ᵀV̂ has rank min(n, d_K)), so
   π(μ_ρ, γ_K)({0}) = max{0, 1 − γ_K} and the layer atom is 1 − min{1, γ_K, γ_O} for every ρ
   (case analysis on a rational grid; Belinschi's 2003 ⊠ zero-atom rule taken as given).
"""
import itertools
import time

import flint
import mpmath
import sympy as sp

from freeattn.algebraic.polynomial import G, series_moments, z
from freeattn.attention.partial_kv import KAPPA, R, T, jump_polynomial
from freeattn.transforms.cumulants import (boxtimes_free_cumulants, compound_free_poisson_cumulants,
                                           dilate_cumulants, free_cumulants_from_moments,
                                           moments_from_free_cumulants)

t0 = time.time()
kap, t, rho = sp.symbols("kappa t rho", positive=True)
r = rho**2
P = jump_polynomial()
print("JUMP_POLYNOMIAL: degrees (G, z) =", sp.Poly(P, G, z).degree_list(), ",",
      len(P.args), "terms")


# ----------------------------------------------------------------- 1. the elimination
def eliminate(kv, tv, rv):
    """The eliminant of the HLN system at rational κ, t, r = ρ² (c = 1, b = κ)."""
    g, e, zz, l1, l2, G1, G2 = sp.symbols("g e zz l1 l2 G1 G2")
    s2 = 1 - rv
    u = s2 * tv * g  # s² t δ̃
    A, B, C = rv * kv, rv - zz * (1 + e) * u * kv, -zz * (1 + e) * (1 + u)  # Q = Aλ² + Bλ + C
    D = A * (l1 - l2)
    I0 = -(G1 - G2) / D                   # ∫ dL / Q          (partial fractions)
    I1 = -(l1 * G1 - l2 * G2) / D         # ∫ dL λ / Q
    E1 = sp.numer(sp.together(g - ((1 + u) * I0 + u * kv * I1)))
    E2 = sp.numer(sp.together(e - s2 * (1 + e) * ((1 - tv) / C + tv * (I0 + kv * I1))))
    sol = sp.solve([E1, E2], [G1, G2], dict=True)[0]  # linear in G(λ₁), G(λ₂)

    def mp_rel(x, gg):  # G_L(x) of L = MP_t (mean 1, ratio t)
        return tv * x * gg**2 - (x + tv - 1) * gg + 1

    Ql = sp.Poly(A * l1**2 + B * l1 + C, l1)
    lin = []
    for rel in (mp_rel(l1, sol[G1]), mp_rel(l2, sol[G2])):
        num = sp.numer(sp.together(sp.numer(sp.together(rel)).subs(l2, -B / A - l1)))
        lin.append(sp.rem(sp.Poly(num, l1), Ql))   # α + β λ₁ modulo Q(λ₁)
    (a1, b1), (a2, b2) = [[p.coeff_monomial(l1**k) for k in (0, 1)] for p in lin]
    R1 = sp.expand(a1 * b2 - a2 * b1)                       # common root λ₁ = −α/β
    R2 = sp.expand(sp.numer(sp.together(Ql.as_expr().subs(l1, -a1 / b1))))
    ctx = flint.fmpq_mpoly_ctx.get(("g", "e", "zz"), "lex")

    def tof(expr):
        p = sp.Poly(expr, g, e, zz)
        return ctx.from_dict({m: flint.fmpq(int(sp.fraction(c)[0]), int(sp.fraction(c)[1]))
                              for m, c in p.terms()})

    f1 = [f for f, _ in tof(R1).factor()[1] if f.degrees()[1] > 0 and f.degrees()[0] > 0]
    f2 = [f for f, _ in tof(R2).factor()[1] if f.degrees()[1] > 0 and f.degrees()[0] > 0]
    cands = []
    for a in f1:
        for b in f2:
            res = a.resultant(b, "e")
            cands += [f for f, _ in res.factor()[1] if f.degrees()[0] > 1]
    uniq = {str(f): f for f in cands}  # several factor pairs give the same eliminant
    return list(uniq.values()), (g, zz)


for pt in [(sp.Integer(2), sp.Rational(1, 2), sp.Rational(9, 25)),
           (sp.Rational(3, 7), sp.Rational(5, 3), sp.Rational(1, 4))]:
    cands, (g, zz) = eliminate(*pt)
    target = sp.Poly(P.xreplace({KAPPA: pt[0], T: pt[1], R: pt[2]}).subs(G, -g).subs(z, zz), g, zz)
    hits = []
    for f in cands:
        fp = sp.Poly(sp.sympify(str(f).replace("^", "**"), locals={"g": g, "zz": zz}), g, zz)
        q, rem = sp.div(target, fp)
        if rem.is_zero and q.total_degree() == 0:
            hits.append(fp.degree_list())
    print(f"1. elimination at (kappa, t, r) = {pt}: irreducible eliminant factors "
          f"{[sp.Poly(sp.sympify(str(f).replace('^', '**'), locals={'g': g, 'zz': zz}), g, zz).degree_list() for f in cands]};"
          f" JUMP_POLYNOMIAL = const x factor of degrees {hits}")
    assert len(hits) == 1
print("   JUMP_POLYNOMIAL is the eliminant at 2 rational points  OK")

# HLN system at 30 digits by quadrature (independent of the partial-fraction algebra)
with mpmath.workdps(30):
    kv, tv, rv = mpmath.mpf(2), mpmath.mpf(1) / 2, mpmath.mpf(9) / 25
    s2 = 1 - rv
    lo, hi = (1 - mpmath.sqrt(tv))**2, (1 + mpmath.sqrt(tv))**2

    def dL(fun):  # ∫ fun dMP_t (t < 1: no atom)
        dens = lambda x: mpmath.sqrt((hi - x) * (x - lo)) / (2 * mpmath.pi * tv * x)  # noqa: E731
        return mpmath.quad(lambda x: fun(x) * dens(x), [lo, 1, hi])

    f = lambda lam: 1 + kv * lam  # noqa: E731
    zv = mpmath.mpc(3, 1)

    def hln(gg, ee):
        Q = lambda lam: -zv * (1 + ee) * (1 + s2 * tv * gg * f(lam)) + rv * lam * f(lam)  # noqa: E731
        e1 = gg - dL(lambda lam: (1 + s2 * tv * gg * f(lam)) / Q(lam))
        e2 = ee - s2 * (1 + ee) * ((1 - tv) * f(0) / Q(0) + tv * dL(lambda lam: f(lam) / Q(lam)))
        return e1, e2

    gg, ee = -1 / zv, mpmath.mpc(0)
    with mpmath.workdps(15):
        for _ in range(60):  # damped fixed point to a starting guess
            d1, d2 = hln(gg, ee)
            gg, ee = gg - d1 / 2, ee - d2 / 2
    gg, ee = mpmath.findroot(hln, (gg, ee))
    Pval = complex(sp.N(P.xreplace({KAPPA: 2, T: sp.Rational(1, 2), R: sp.Rational(9, 25)})
                         .subs({G: sp.sympify(str(-gg)), z: sp.sympify(str(zv))}), 30))
    scale = max(abs(complex(sp.N(c * (-gg)**i * zv**j))) for (i, j), c in
                sp.Poly(P.xreplace({KAPPA: 2, T: sp.Rational(1, 2), R: sp.Rational(9, 25)}),
                        G, z).terms())
    print(f"   HLN system at z = 3 + i, 30 digits: G = {mpmath.nstr(-gg, 20)}, "
          f"|P(G, z)|/max|term| = {abs(Pval) / scale:.2e}")
    assert abs(Pval) / scale < 1e-20
print("   JUMP_POLYNOMIAL vanishes at the HLN solution  OK")


# ------------------------------------------------------------------- 2. Wick moments
def word(q_choice):
    """Letters of tr(Σ̂^q) for a choice per factor: 0 → V̂ᵀV̂, 1 → κ V̂ᵀK̂K̂ᵀV̂."""
    letters = []
    for ch in q_choice:
        letters += [("V", True), ("V", False)] if ch == 0 else \
            [("V", True), ("K", False), ("K", True), ("V", False)]
    return letters


def slots(letters):
    """(n-index slot, d-index slot) of each letter; slot k sits between letters k and k+1."""
    m = len(letters)
    out = []
    for k, (_, tr) in enumerate(letters):
        prev, nxt = (k - 1) % m, k
        out.append((nxt, prev) if tr else (prev, nxt))  # Xᵀ_{ab} = X_{ba}
    return out


def pairings(idx, noncrossing):
    if not idx:
        yield []
        return
    a = idx[0]
    for j in range(1, len(idx), 2 if noncrossing else 1):
        b = idx[j]
        rest = idx[1:j] + idx[j + 1:]
        if noncrossing:
            for p1 in pairings(idx[1:j], True):
                for p2 in pairings(idx[j + 1:], True):
                    yield [(a, b)] + p1 + p2
        else:
            for p in pairings(rest, False):
                yield [(a, b)] + p


def cycles(m, unions, space):
    parent = list(range(m))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in unions:
        parent[find(a)] = find(b)
    return len({find(s) for s in space})


def wick_moment(q, noncrossing):
    total = 0
    for choice in itertools.product((0, 1), repeat=q):
        letters = word(choice)
        m = len(letters)
        sl = slots(letters)
        # slot spaces: slot k is the column index of letter k
        n_space = [k for k in range(m) if letters[k][1]]       # Xᵀ (d × n): column in n
        d_space = [k for k in range(m) if not letters[k][1]]
        coeff = kap ** sum(choice)
        for p in pairings(list(range(m)), noncrossing):
            nn = cycles(m, [(sl[a][0], sl[b][0]) for a, b in p], n_space)
            dd = cycles(m, [(sl[a][1], sl[b][1]) for a, b in p], d_space)
            order = nn + dd - m // 2 - 1
            assert order <= 0
            if order == 0:
                w_ = sp.Integer(1)
                for a, b in p:
                    w_ *= 1 if letters[a][0] == letters[b][0] else rho
                total += coeff * w_ * t ** (dd - 1)
    return sp.expand(total)


ser = [sp.expand(m.xreplace({KAPPA: kap, T: t, R: r})) for m in series_moments(P, 4)]
wick = [wick_moment(q, noncrossing=q > 3) for q in range(1, 5)]
for q in range(4):
    assert sp.expand(ser[q] - wick[q]) == 0, q
print("2. m1..m4 of JUMP_POLYNOMIAL = Wick expansion of tr E(V'(I + kappa KK')V)^q (exact)  OK")
print("   m1(mu_hat) =", sp.factor(ser[0]), "   m2(mu_hat) =", sp.collect(ser[1], rho))
assert sp.expand(ser[0] - (1 + kap * (rho**2 + t))) == 0

# ------------------------------------------------------------------- 3. end points
# ρ = 0: D_t π(ρ̂_t, 1/t), ρ̂_t = (x ↦ 1 + κ t x)_# MP_{1/t} (= ρ_t / c); moments via cumulants
rho_hat = [1 + kap * t] + [(kap * t) ** q / t ** (q - 1) for q in range(2, 6)]  # κ_q of ρ̂_t
m_rho_hat = moments_from_free_cumulants(rho_hat)
indep = moments_from_free_cumulants(dilate_cumulants(
    compound_free_poisson_cumulants(m_rho_hat[:4], 1 / t), t))
# ρ = 1: (λ ↦ λ + κλ²)_# MP_t, MP_t moments from free cumulants κ_q = t^{q-1}
mp_t = moments_from_free_cumulants([t ** (q - 1) for q in range(1, 9)])
x = sp.Symbol("x")
tied = []
for q in range(1, 5):
    poly = sp.Poly(sp.expand((x + kap * x**2) ** q), x)
    tied.append(sp.expand(sum(c * mp_t[k - 1] for (k,), c in poly.terms())))
for q in range(4):
    assert sp.expand(ser[q].subs(rho, 0) - indep[q]) == 0
    assert sp.expand(ser[q].subs(rho, 1) - tied[q]) == 0
print("3. m1..m4 reduce to D_t pi(rho_t, 1/t) at rho = 0 and to (x + kappa x^2)# MP_t at rho = 1  OK")

# ------------------------------------------------------------------- 4. not a mixture
mix = sp.factor(ser[1] - (rho**2 * tied[1] + (1 - rho**2) * indep[1]))
print("4. m2(mu_hat) - [rho^2 m2(tied) + (1 - rho^2) m2(indep)] =", mix)
assert sp.expand(mix + kap**2 * rho**2 * (1 - rho**2) * (1 + 2 * t)) == 0
print("   the jump law is not the mixture rho^2 tied + (1 - rho^2) independent  OK")

# ------------------------------------------------------------------- 5. layer laws
th1, th2, h, gO = sp.symbols("theta_1 theta_2 h gamma_O", positive=True)
gK = h * t
c = th1 - th2
sub = {kap: th2 / (t * c)}
m_jump = [sp.expand(sp.simplify(c ** (q + 1) * m.subs(sub))) for q, m in enumerate(ser[:3])]
values = moments_from_free_cumulants(compound_free_poisson_cumulants(m_jump, gK))
kz = free_cumulants_from_moments(values)
layer = moments_from_free_cumulants(dilate_cumulants(boxtimes_free_cumulants(kz, [gO] * 3),
                                                     1 / gK))
assert sp.simplify(values[0] - (gK * th1 + rho**2 * h * th2)) == 0
m_norm = sp.simplify(layer[0])
assert sp.simplify(m_norm - gO * (th1 + rho**2 * h * th2 / gK)) == 0
print("5. m1(Z_V) = gamma_K theta1 + rho^2 h theta2;  readout normalisation m(rho) =",
      m_norm, "  OK")
# (C.15) with γ_V = γ_K: ν_{∞,h} ⊠ MP_{1/γ_K} ⊠ π_{γ_O}; ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h}
rho_c = [th1] + [th2 ** q / gK ** (q - 1) for q in range(2, 4)]
mpk = lambda y: [y ** (q - 1) for q in range(1, 4)]  # noqa: E731  (MP_y: κ_q = y^{q−1})
c15 = moments_from_free_cumulants(boxtimes_free_cumulants(boxtimes_free_cumulants(
    boxtimes_free_cumulants(rho_c, mpk(1 / h)), mpk(1 / gK)), [gO] * 3))
# (C.21): D_{1/γ_K}(π(μ_KV, h) ⊠ π_{γ_O}), μ_KV = φ_KV# π_{γ_K/h}
pi_t = moments_from_free_cumulants([t] * 6)
phi = (th1 - th2) * x + (th2 / t) * x**2
mkv = [sp.expand(sum(cf * pi_t[k - 1] for (k,), cf in sp.Poly(sp.expand(phi**q), x).terms()))
       for q in range(1, 4)]
c21 = moments_from_free_cumulants(dilate_cumulants(boxtimes_free_cumulants(
    compound_free_poisson_cumulants(mkv, h), [gO] * 3), 1 / gK))
for q in range(3):
    assert sp.simplify(layer[q].subs(rho, 0) - c15[q]) == 0
    assert sp.simplify(layer[q].subs(rho, 1) - c21[q]) == 0
print("   m1..m3 of the layer law reduce to (C.15) at rho = 0 and to (C.21) at rho = 1  OK")
nvar = sp.simplify(layer[1] / layer[0] ** 2 - 1)
c16 = 1 / h + 1 / gK + 1 / gO + th2**2 / (gK * th1**2)  # (C.16), γ_V = γ_K
assert sp.simplify(nvar.subs(rho, 0) - c16) == 0
print("   m2/m1^2 - 1 =", sp.factor(sp.simplify(nvar - 1 / gO)), "+ 1/gamma_O"
      "   (rho = 0: (C.16) with gamma_V = gamma_K)  OK")

# ------------------------------------------------------------------- 6. atoms at zero
for gk in (sp.Rational(1, 3), sp.Rational(1, 2), 1, sp.Rational(5, 2), 7):
    for hh in (1, 2, 4, 8):
        tt = sp.Rational(gk) / hh
        mu0 = max(1 - 1 / tt, 0)                       # rank of Σ_{V,r}: min(n, d_K)
        pi0 = max(1 - gk * (1 - mu0), 0)               # π(μ, γ_K)({0})
        assert pi0 == max(1 - sp.Rational(gk), 0), (gk, hh)
        for go in (sp.Rational(1, 4), 1, 3):
            assert max(pi0, max(1 - go, 0)) == 1 - min(1, gk, go)
print("6. mu_rho({0}) = max(0, 1 - h/gamma_K); layer atom 1 - min(1, gamma_K, gamma_O) for all rho  OK")
print(f"All checks passed ({time.time() - t0:.0f} s).")
