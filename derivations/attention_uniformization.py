"""Derivation: a rational uniformisation of the attention law ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h}.

Run:  python derivations/attention_uniformization.py     (prints and asserts; ~10 s)

Steps (Hayase & Karakida 2026, §C.1–C.3 conventions):
1. ρ_t has R-transform R(ζ) = θ₁ − θ₂ + θ₂/(1 − θ₂ζ/t)  (eq. C.10).  From S(w)R(wS(w)) = 1,
   parametrise by ζ = w S_ρ(w):  w = ζ R(ζ),  S_ρ = 1/R(ζ).
2. S_{MP_y}(w) = 1/(1 + y w), so S_ν = S_ρ S_{MP_{1/h}} = 1/(R(ζ)(1 + w/h)).
3. With w = zG − 1 and z = (1 + w)/(w S):  z(ζ) = (1 + ζR)(1 + ζR/h)/ζ,  G = ζ/(1 + ζR/h).
4. Check that (z(ζ), G(ζ)) satisfies the polynomial freeattn derives by resultants, and the
   mean-one scalar equation (C.29).  Edges are then the critical values of z(ζ): the
   "stationary equation" of the single-head paper.
"""
import sympy as sp

from freeattn.algebraic.eliminations import boxtimes_polynomial
from freeattn.algebraic.polynomial import G, affine_polynomial, z

q = sp.Symbol("zeta")
th1, th2, t, h, lam = sp.symbols("theta1 theta2 gamma_K h lambda", positive=True)

R = th1 - th2 + th2 / (1 - th2 * q / t)
w = q * R
z_of_q = sp.together((1 + w) * (1 + w / h) / q)
g_of_q = sp.together(q / (1 + w / h))
print("z(zeta) =", sp.factor(z_of_q))
print("G(zeta) =", sp.factor(g_of_q))

# the polynomial from freeattn's generic elimination
y = sp.Symbol("y", positive=True)
mp = lambda ratio: ratio * z * G**2 + (1 - ratio - z) * G + 1  # noqa: E731  MP_ratio
P = boxtimes_polynomial(affine_polynomial(mp(1 / t), th1 - th2, th2), mp(1 / h))
print("P(G, z) =", sp.factor(P))
residual = sp.simplify(sp.together(P.subs({G: g_of_q, z: z_of_q}, simultaneous=True)))
assert residual == 0, residual
print("check 1: P(G(zeta), z(zeta)) == 0  OK")

# G ~ 1/z at infinity corresponds to zeta -> 0+
lead = sp.limit(g_of_q * z_of_q, q, 0)
assert sp.simplify(lead - 1) == 0
print("check 2: G(zeta) z(zeta) -> 1 as zeta -> 0 (the Stieltjes branch)  OK")

# (C.29), mean-one law (theta1 = 1, theta2 = c), w_C = 1 + lambda G(-lambda) = 1 - zG
c = sp.Symbol("c_beta", positive=True)
sub = {th1: 1, th2: c}
zq, gq = z_of_q.subs(sub), g_of_q.subs(sub)
wC = sp.together(1 - zq * gq)
lamq = -zq
Pi = lambda s: (1 + s) * (1 + s / h)  # noqa: E731
C29 = lamq**2 * wC - lamq * (1 - c * wC / t) * Pi(-wC) - (c * (1 - c) / t) * Pi(-wC) ** 2
assert sp.simplify(sp.together(C29)) == 0
print("check 3: the uniformisation solves the mean-one equation (C.29)  OK")

# single head, beta = 1, gamma_K = 1: right edge as a critical value of z(zeta), 30 digits
import mpmath  # noqa: E402

from freeattn import attention_law  # noqa: E402

with mpmath.workdps(40):
    vals = {th1: mpmath.e - 1, th2: 1, t: 1, h: 1}
    zf = sp.lambdify(q, z_of_q.subs(vals), "mpmath")
    dzf = sp.lambdify(q, sp.diff(z_of_q, q).subs(vals), "mpmath")
    root = mpmath.findroot(dzf, 0.3)
    edge = zf(root)
    ours = attention_law(1.0, 1.0).support(dps=30)[-1][1]
    print("right edge from dz/dzeta = 0 :", mpmath.nstr(edge, 30))
    print("right edge from discriminant :", mpmath.nstr(ours, 30))
    assert abs(edge - ours) < mpmath.mpf(10) ** -28
    print("check 4: edges agree to 28 digits  OK; 4 theta1 =", mpmath.nstr(4 * (mpmath.e - 1), 15))
