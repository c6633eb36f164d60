"""Derivation: θ₁, θ₂ and the Hermite expansion behind the Gaussian equivalent.

Run:  PYTHONPATH=. python derivations/thetas_hermite.py     (prints and asserts; ~2 s)

Sources: Hayase & Karakida 2026 (arXiv 2610.10033), §4.1 and eq. (4.11); Hayase, Collins &
Karakida (AISTATS 2026), §3 (Hermite expansion of the softmax numerator).

With χ ~ N(0, 1), f(x) = e^{βx − β²/2} − 1:
1. E f(χ) = 0, θ₁ = E f(χ)² = e^{β²} − 1, θ₂ = (E f′(χ))² = β²   (Gaussian integrals, exact).
2. e^{βs − β²/2} = Σ_k β^k He_k(s)/k!   (probabilists' Hermite polynomials; coefficient of β^k
   of the generating function, checked for k ≤ 10), with E[He_j He_k] = k! δ_jk.
3. Orders ≥ 2 carry the variance Σ_{k≥2} β^{2k}/k! = θ₁ − θ₂ (the independent-noise part),
   order 1 carries θ₂ = β², order 0 is the rank-one mean.
4. (4.11): for jointly Gaussian scores X, Y with variances ρ_ii, ρ_jj and covariance ρ_ij,
   Cov(e^{βX−β²/2}, e^{βY−β²/2}) = e^{β²(ρ_ii+ρ_jj−2)/2}(e^{β²ρ_ij} − 1); at unit variances
   this is Σ_{k≥1} β^{2k} ρ^k/k! (Mehler), whose k = 1 term θ₂ ρ is the linear part.
All integrals are done by sympy in closed form (no numerics).
"""
import sympy as sp

x, s = sp.symbols("x s", real=True)
beta = sp.Symbol("beta", positive=True)
rho, a, b = sp.symbols("rho a b", positive=True)
k = sp.Symbol("k", integer=True, nonnegative=True)

tt = sp.Symbol("t", real=True)
phi = sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)  # standard Gaussian density
# The one integral done by sympy: the Gaussian moment generating function E e^{tχ} = e^{t²/2}.
MGF = sp.simplify(sp.integrate(sp.exp(tt * x) * phi, (x, -sp.oo, sp.oo), conds="none"))
assert sp.simplify(MGF - sp.exp(tt**2 / 2)) == 0
print("0. E e^{t chi} =", MGF, " (sympy integral)")


def E(expr):
    """E[expr(χ)], χ ~ N(0, 1), exactly: expr is expanded into terms x^n e^{t x + c}, and
    E[χ^n e^{tχ}] = d^n/dt^n e^{t²/2} (derivatives of the MGF above)."""
    total = sp.Integer(0)
    for term in sp.Add.make_args(sp.expand(sp.powsimp(sp.expand(expr), combine="exp"))):
        expo = sum((fac.args[0] for fac in sp.Mul.make_args(term) if isinstance(fac, sp.exp)),
                   sp.Integer(0))
        lin = sp.Poly(sp.expand(expo), x)
        assert lin.degree() <= 1, term
        t_coef, const = lin.coeff_monomial(x), lin.coeff_monomial(1)
        for (n,), c in sp.Poly(sp.simplify(term * sp.exp(-expo)), x).terms():
            total += c * sp.exp(const) * sp.diff(MGF, tt, n).subs(tt, t_coef)
    return sp.simplify(total)


f = sp.exp(beta * x - beta**2 / 2) - 1
theta1 = sp.exp(beta**2) - 1
theta2 = beta**2

print("1. Gaussian integrals")
mean = E(f)
print("   E f(chi)     =", mean)
assert mean == 0
t1 = E(f**2)
print("   E f(chi)^2   =", t1)
assert sp.simplify(t1 - theta1) == 0
t2 = E(sp.diff(f, x)) ** 2
print("   (E f'(chi))^2 =", sp.simplify(t2))
assert sp.simplify(t2 - theta2) == 0
print("   theta1 = e^{beta^2} - 1, theta2 = beta^2  OK")

print("2. Hermite expansion e^{beta s - beta^2/2} = sum_k beta^k He_k(s)/k!")
K = 10
gen = sp.series(sp.exp(beta * s - beta**2 / 2), beta, 0, K + 1).removeO()
for kk in range(K + 1):
    he = sp.hermite_prob(kk, s)
    assert sp.expand(gen.coeff(beta, kk) - he / sp.factorial(kk)) == 0, kk
print(f"   coefficients of beta^0..beta^{K} equal He_k(s)/k!  OK")
for i in range(5):
    for j in range(5):
        val = E(sp.hermite_prob(i, x) * sp.hermite_prob(j, x))
        assert val == (sp.factorial(i) if i == j else 0), (i, j, val)
print("   E[He_i He_j] = i! delta_ij for i, j <= 4  OK")

print("3. Variance by Hermite order")
# order-k component beta^k He_k/k! has variance beta^{2k} k!/k!^2 = beta^{2k}/k!
total = sp.summation(beta ** (2 * k) / sp.factorial(k), (k, 1, sp.oo))
high = sp.summation(beta ** (2 * k) / sp.factorial(k), (k, 2, sp.oo))
print("   sum_{k>=1} beta^{2k}/k! =", sp.simplify(total))
print("   sum_{k>=2} beta^{2k}/k! =", sp.simplify(high))
assert sp.simplify(total - theta1) == 0
assert sp.simplify(high - (theta1 - theta2)) == 0
print("   orders >= 2 have variance theta1 - theta2; order 1 has theta2  OK")

print("4. Covariance of two features, eq. (4.11)")
# X = p ξ1, Y = q ξ1 + r ξ2 (ξ independent N(0,1)): ρ_ii = p², ρ_jj = q² + r², ρ_ij = p q --
# every covariance matrix of (X, Y) with positive entries arises this way.  Independence of
# ξ1, ξ2 factorises E e^{βX + βY} = E e^{β(p+q)ξ1} · E e^{βrξ2}.
p_, q_, r_ = sp.symbols("p q r", positive=True)
exy = E(sp.exp(beta * (p_ + q_) * x)) * E(sp.exp(beta * r_ * x)) * sp.exp(-beta**2)
mx = E(sp.exp(beta * p_ * x - beta**2 / 2))
my = E(sp.exp(beta * q_ * x - beta**2 / 2)) * E(sp.exp(beta * r_ * x))
cov = sp.simplify(exy - mx * my)
paper = sp.exp(beta**2 * (a + b - 2) / 2) * (sp.exp(beta**2 * rho) - 1)
paper_pqr = paper.subs({a: p_**2, b: q_**2 + r_**2, rho: p_ * q_})
print("   Cov =", sp.factor(cov))
assert sp.simplify(sp.expand(cov - paper_pqr)) == 0
print("   (4.11) Cov = e^{beta^2(rho_ii + rho_jj - 2)/2}(e^{beta^2 rho_ij} - 1)  OK")
mehler = sp.summation((beta**2 * rho) ** k / sp.factorial(k), (k, 1, sp.oo))
assert sp.simplify(mehler - paper.subs({a: 1, b: 1})) == 0
lin = sp.series(paper.subs({a: 1, b: 1}), rho, 0, 2).removeO()
assert sp.expand(lin - theta2 * rho) == 0
print("   unit variances: sum_k (beta^2 rho)^k/k!, linear term theta2*rho  OK")
print("All checks passed.")
