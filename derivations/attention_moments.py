"""Moments of the multi-head attention law ν_{∞,h} and of the full MHA layer, two routes.

Executable derivation (prints and asserts). Run from the repository root:

    PYTHONPATH=. python3 derivations/attention_moments.py

Sources: Hayase & Karakida, "Gaussian Equivalence for Multi-Head Self-Attention",
arXiv 2610.10033, (C.1–C.11), (C.15), (C.16), (C.29).
Combinatorics: Nica & Speicher (2006), Lectures 11, 14, 16, 18; Mingo & Speicher (2017), §4.3.

Laws (free cumulants κ_1, κ_2, ...):
  ρ_t         R(z) = θ1 − θ2 + θ2/(1 − θ2 z/t)  ⇒  κ1 = θ1, κ_q = θ2^q / t^{q−1} (q ≥ 2)
  MP_y        mean-one Marchenko–Pastur, ratio y:  κ_q = y^{q−1}
  π_t         free Poisson of rate t:  κ_q = t
  ν_{∞,h}   = ρ_{γ_K} ⊠ MP_{1/h}                                   (C.8–C.11)
  MHA layer = ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O}                         (C.15)

Route A (combinatorial): κ(a b) = Σ_{π∈NC(n)} κ_π[a] κ_{K(π)}[b] (Kreweras), then moments
from cumulants. Route B (analytic): S-transform series of each factor from its moments,
multiply the series, invert S → moments. The routes share only the moment–cumulant map of
each *factor*, not of the product.
"""
from __future__ import annotations

import sympy as sp

from freeattn.transforms.cumulants import (
    boxtimes_free_cumulants,
    compound_free_poisson_cumulants,
    dilate_cumulants,
    moments_from_free_cumulants,
    moments_from_s_transform_series,
    s_transform_series,
)

theta1, theta2, gK, h, gV, gO, c = sp.symbols(
    "theta_1 theta_2 gamma_K h gamma_V gamma_O c_beta", positive=True
)
w = sp.Symbol("w")
N = 3  # orders m1, m2, m3


def rho(theta1, theta2, t, n=N):
    return [theta1] + [theta2**q / t ** (q - 1) for q in range(2, n + 1)]


def mp(y, n=N):
    return [y ** (q - 1) for q in range(1, n + 1)]


def series_mul(*series):
    out = series[0]
    for b in series[1:]:
        n = min(len(out), len(b))
        out = [sp.expand(sum(out[i] * b[k - i] for i in range(k + 1))) for k in range(n)]
    return out


def route_a(*cumulant_lists):
    k = cumulant_lists[0]
    for other in cumulant_lists[1:]:
        k = boxtimes_free_cumulants(k, other)
    return [sp.simplify(x) for x in moments_from_free_cumulants(k)]


def route_b(*cumulant_lists):
    s = series_mul(*(s_transform_series(moments_from_free_cumulants(k)) for k in cumulant_lists))
    return [sp.simplify(x) for x in moments_from_s_transform_series(s)]


def check(label, lhs, rhs):
    diff = sp.simplify(lhs - rhs)
    status = "ok" if diff == 0 else f"MISMATCH (difference {diff})"
    print(f"  {label}: {status}")
    assert diff == 0, label


def main():
    print("0. Building blocks")
    # ρ_t is the affine push-forward (x ↦ θ1 − θ2 + θ2 x) of MP_{1/t}: scale κ_q by θ2^q,
    # shift κ1 by θ1 − θ2; this matches the cumulants read off R_{ρ_t}.
    k = dilate_cumulants(mp(1 / gK, 5), theta2)
    k[0] += theta1 - theta2
    for q, (a, b) in enumerate(zip(k, rho(theta1, theta2, gK, 5)), start=1):
        check(f"κ_{q}(ρ_t) from R_ρ = affine push-forward of MP_{{1/t}}", a, b)
    # S_{MP_y}(w) = 1/(1 + y w)
    y = sp.Symbol("y", positive=True)
    s_mp = s_transform_series(moments_from_free_cumulants(mp(y, 5)))
    ref = sp.series(1 / (1 + y * w), w, 0, 5).removeO()
    for q in range(5):
        check(f"[w^{q}] S_MP_y = [w^{q}] 1/(1 + y w)", s_mp[q], ref.coeff(w, q))
    # MP_y = D_y π_{1/y}
    for q, (a, b) in enumerate(
        zip(dilate_cumulants(compound_free_poisson_cumulants([1] * 5, 1 / y), y), mp(y, 5)), start=1
    ):
        check(f"κ_{q}(D_y π_(1/y)) = κ_{q}(MP_y)", a, b)

    print("\n1. ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h}, general θ1, θ2")
    ma = route_a(rho(theta1, theta2, gK), mp(1 / h))
    mb = route_b(rho(theta1, theta2, gK), mp(1 / h))
    for q in range(N):
        print(f"  m{q + 1} = {sp.factor(ma[q])}")
        check(f"m{q + 1}: Kreweras route = S-transform route", ma[q], mb[q])
    check("m1 = θ1", ma[0], theta1)
    check("m2 = (1 + 1/h) θ1² + θ2²/γ_K   (C.10)", ma[1], (1 + 1 / h) * theta1**2 + theta2**2 / gK)

    print("\n2. Mean-one normalisation θ1 = 1, θ2 = c_β")
    ma1 = route_a(rho(1, c, gK), mp(1 / h))
    mb1 = route_b(rho(sp.Integer(1), c, gK), mp(1 / h))
    for q in range(N):
        check(f"m{q + 1}: Kreweras route = S-transform route", ma1[q], mb1[q])
        check(f"m{q + 1} = general m{q + 1} at θ1 = 1, θ2 = c_β", ma1[q], ma[q].subs({theta1: 1, theta2: c}))
    check("m1 = 1", ma1[0], 1)
    check("m2 = 1 + 1/h + c²/γ_K   (C.29 block)", ma1[1], 1 + 1 / h + c**2 / gK)
    m3 = 1 + 3 * (1 / h + c**2 / gK) + 1 / h**2 + 3 * c**2 / (gK * h) + c**3 / gK**2
    check("m3 = 1 + 3(1/h + c²/γ) + 1/h² + 3c²/(γh) + c³/γ²   (C.29 block)", ma1[2], m3)

    print("\n3. Full layer ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O}   (C.15)")
    layer = [rho(theta1, theta2, gK), mp(1 / h), mp(1 / gV), compound_free_poisson_cumulants([1] * N, gO)]
    la = route_a(*layer)
    lb = route_b(*layer)
    for q in range(N):
        check(f"m{q + 1}: Kreweras route = S-transform route", la[q], lb[q])
    print(f"  m1 = {sp.factor(la[0])}")
    print(f"  m2 = {sp.factor(la[1])}")
    check("m1 = γ_O θ1", la[0], gO * theta1)
    nv = sp.simplify(la[1] / la[0] ** 2 - 1)
    print(f"  m2/m1² − 1 = {sp.expand(nv)}")
    check(
        "m2/m1² − 1 = 1/h + 1/γ_V + 1/γ_O + θ2²/(γ_K θ1²)   (C.16)",
        nv,
        1 / h + 1 / gV + 1 / gO + theta2**2 / (gK * theta1**2),
    )
    # m2/m1² − 1 is invariant under dilation, and MP_{1/γ_O} = D_{1/γ_O} π_{γ_O}: replacing
    # π_{γ_O} by the mean-one MP_{1/γ_O} must leave the normalised variance unchanged
    layer_mp = layer[:3] + [mp(1 / gO)]
    lm = route_a(*layer_mp)
    check("normalised variance unchanged with MP_{1/γ_O} in place of π_{γ_O}", lm[1] / lm[0] ** 2 - 1, nv)
    print("\nAll checks passed.")


if __name__ == "__main__":
    main()
