"""Derivation: the polynomial method's change of variables for ⊠ and compound free Poisson.

Run:  python derivations/polynomial_method.py     (prints and asserts; a few seconds)

With ψ(u) = Σ_{q≥1} m_q u^q = (1/u)G(1/u) − 1, χ = ψ^{-1} and S(w) = (1 + w)/w · χ(w)
(Hayase & Karakida 2026, (C.1)–(C.3)), put w = ψ(1/z) = zG − 1.  Then χ(w) = 1/z, so
S = (1 + w)/(w z) = G/(zG − 1), i.e. G = S w and z = (1 + w)/(S w).  A law with P(G, z) = 0
therefore has the S-relation Σ(w, S) = numer P(S w, (1 + w)/(S w)).  freeattn eliminates
S₁ from Σ_μ(w, S₁) = 0 and Σ_ν(w, S/S₁) = 0 by a resultant to get μ ⊠ ν.

Checks:
1. Σ for MP_y is solved by S = 1/(1 + y w) (closed form);
2. MP₁ ⊠ MP₁ gives z²G³ − zG + 1 = 0, whose series has the Fuss–Catalan moments
   C(3k, k)/(2k + 1) = 1, 3, 12, 55, 273, …;
3. π(δ₁, t) (compound free Poisson of a point mass) is the free Poisson law π_t:
   zG² + (t − 1 − z)G + 1 = 0.
"""
import sympy as sp

from freeattn.algebraic.eliminations import boxtimes_polynomial, compound_free_poisson_polynomial
from freeattn.algebraic.polynomial import G, S, s_relation, series_moments, w, z

y, t = sp.symbols("y t", positive=True)
mp = lambda ratio: ratio * z * G**2 + (1 - ratio - z) * G + 1  # noqa: E731

sigma = s_relation(mp(y))
print("S-relation of MP_y:", sp.factor(sigma))
assert sp.simplify(sigma.subs(S, 1 / (1 + y * w))) == 0
print("check 1: S_{MP_y}(w) = 1/(1 + y w)  OK")

P = boxtimes_polynomial(mp(sp.Integer(1)), mp(sp.Integer(1)))
print("MP_1 ⊠ MP_1:", sp.factor(P), "= 0")
assert sp.expand(P - (G**3 * z**2 - G * z + 1)) == 0 or sp.expand(P + (G**3 * z**2 - G * z + 1)) == 0
moments = series_moments(P, 6)
fuss = [sp.binomial(3 * k, k) / (2 * k + 1) for k in range(1, 7)]
print("moments:", moments, "Fuss–Catalan:", fuss)
assert moments == fuss
print("check 2: Fuss–Catalan  OK")

point_mass = (z - 1) * G - 1
Q = compound_free_poisson_polynomial(point_mass, t)
print("π(δ₁, t):", sp.factor(Q), "= 0")
free_poisson = z * G**2 + (t - 1 - z) * G + 1
assert sp.simplify(sp.expand(Q) / sp.expand(free_poisson)).is_constant()
print("check 3: π(δ₁, t) = π_t  OK")
