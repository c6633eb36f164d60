"""Derivation: effective degrees of freedom w_ν(λ) and the readout identities of §C.4–C.6.

Run:  PYTHONPATH=. python derivations/degrees_of_freedom.py     (prints and asserts; ~2 s)

Source: Hayase & Karakida 2026 (arXiv 2610.10033), §C.4 (w identities, (C.22), (C.23)),
(5.1)–(5.2) with (C.28), (C.30), (C.31).

For a law with generic moments m_1..m_N (independent symbols), as series in u = 1/λ:
1. w_ν(λ) = ∫ x/(x + λ) dν = 1 + λG(−λ) = −ψ(−1/λ), and λ = (1 − w)/(w S(−w)) (S from the
   moments by series reversion);
2. (C.22) w_ν̄ = 1/λ − m̄₂/λ² + O(λ⁻³) for the mean-one law; (C.23) the difference between two
   head counts is (1/h₁ − 1/h₂)/λ² + O(λ⁻³) with m̄₂ = 1 + 1/h + 1/γ_V + c_β²/γ_K;
3. pointwise in x (hence for every ν): the integrand identities that turn (5.1) into (5.2)
   and give the Laplace transform (C.31); (C.30) by implicit differentiation of λw = F(w).
"""
import sympy as sp

from freeattn.transforms.cumulants import s_transform_series

N = 6
lam, x, s, sig2, gam = sp.symbols("lambda x s sigma2 gamma", positive=True)
u, W = sp.symbols("u W")
m = list(sp.symbols(f"m1:{N + 1}", positive=True))

print("1. w = 1 + lambda G(-lambda) = -psi(-1/lambda);  lambda w S(-w) = 1 - w")
# x/(x + λ) = Σ_{q≥1} (−1)^{q+1} x^q/λ^q  ⇒  w = Σ (−1)^{q+1} m_q u^q
w_ser = sum((-1) ** (q + 1) * m[q - 1] * u**q for q in range(1, N + 1))
G_neg = sum(mk * (-1) ** (k + 1) * u ** (k + 1) for k, mk in enumerate([1] + m))  # Σ m_k/(−λ)^{k+1}
assert sp.expand(sp.series(1 + G_neg / u - w_ser, u, 0, N + 1).removeO()) == 0
psi = lambda zz: sum(m[q - 1] * zz**q for q in range(1, N + 1))  # noqa: E731
assert sp.expand(-psi(-u) - w_ser) == 0
print("   w = 1 + lambda G(-lambda) = -psi(-1/lambda)  OK (to lambda^-%d)" % N)
S_ser = sum(cf * W**k for k, cf in enumerate(s_transform_series(m)))
lhs = (S_ser.subs(W, -w_ser) * w_ser) - u * (1 - w_ser)  # λ w S(−w) − (1 − w), times u
assert sp.simplify(sp.series(lhs, u, 0, N + 1).removeO()) == 0
print("   lambda = (1 - w)/(w S(-w))  OK")

print("2. (C.22) and (C.23)")
mbar2 = sp.Symbol("mbar2")
w_bar = w_ser.subs(m[0], 1).subs(m[1], mbar2)
assert sp.expand(w_bar.coeff(u, 1) - 1) == 0 and sp.expand(w_bar.coeff(u, 2) + mbar2) == 0
print("   w_nubar = 1/lambda - mbar2/lambda^2 + O(lambda^-3)  OK")
h1, h2, gV, gK, c = sp.symbols("h1 h2 gamma_V gamma_K c_beta", positive=True)
mb = lambda hh: 1 + 1 / hh + 1 / gV + c**2 / gK  # noqa: E731  (C.16) / §C.4
diff = sp.expand(w_bar.subs(mbar2, mb(h2)) - w_bar.subs(mbar2, mb(h1)))
lead = sp.simplify(diff.coeff(u, 2))
print("   [lambda^-2](w_h2 - w_h1) =", lead)
assert sp.simplify(lead - (1 / h1 - 1 / h2)) == 0 and diff.coeff(u, 1) == 0
print("   (C.23) difference = (1/h1 - 1/h2)/lambda^2 + O(lambda^-3)  OK")

print("3. (5.1) -> (5.2), (C.31), (C.30)")
wx = x / (x + lam)                # integrand of w
dwx = sp.diff(wx, lam)            # integrand of w'
e51 = (lam**2 / gam + sig2 * x) / (x + lam) ** 2
e52 = -wx / gam + (lam / gam - sig2) * dwx + 1 / gam  # 1 − 1/γ + (…) = 1 − w/γ + …
assert sp.simplify(e51 - e52) == 0
assert sp.simplify(dwx + x / (x + lam) ** 2) == 0
print("   (5.1) = (5.2) integrand by integrand; w' = -int x/(x + lambda)^2  OK")
t = sp.Symbol("t", positive=True)
lap = sp.integrate(sp.exp(-s * t) * sp.exp(-2 * t * x), (t, 0, sp.oo), conds="none")
assert sp.simplify(lap - (1 - wx.subs(lam, s / 2)) / s) == 0
print("   (C.31) int_0^inf e^{-st} e^{-2tx} dt = (1 - x/(x + s/2))/s  OK")
F = sp.Function("F")
wf = sp.Function("w")(lam)
eq = sp.diff(lam * wf - F(wf), lam)
wprime = sp.solve(eq, sp.diff(wf, lam))[0]
Fp = sp.Subs(sp.diff(F(W), W), W, wf).doit()
assert sp.simplify(wprime - (-wf / (lam - Fp))) == 0
print("   (C.30) w' = -w/(lambda - F'(w)) for lambda w = F(w)  OK")
print("All checks passed.")
