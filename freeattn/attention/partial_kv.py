"""Partial key–value correlation W^V_r = ρ W^K_r + sqrt(1 − ρ²) W̃_r (beyond Hayase & Karakida 2026).

With d_V = d_K and W̃_r an independent copy of W^K_r (i.i.d. N(0, 1/d) entries), ρ ∈ [0, 1]
interpolates between independent values (ρ = 0, eq. (C.15)) and tied values W^V_r = W^K_r
(ρ = 1, eq. (C.21)).  Derived in ``derivations/partial_kv.py``; the notation is that of
Hayase & Karakida 2026 (arXiv 2610.10033): θ₁ = e^{β²} − 1, θ₂ = β², γ_K = h d_K/n = γ_V,
γ_O = d_O/n, and t = γ_K/h = d_K/n.

The jump law.  By Theorem 3.1 (and its values-stage form, Prop. C.5 / Cor. C.7) only the
per-head covariance Σ_{V,r} = V_rᵀ Σ_{G,r} V_r / n (d_K × d_K, Σ_{G,r} = θ₂ K_r K_rᵀ/d_K +
(θ₁ − θ₂) I_n) matters; its eigenvalue law μ_ρ is the jump law.  With V = ρK + sK̃
(s = sqrt(1 − ρ²)) and conditioning on K, V is a signal ρK plus an independent Gaussian noise
sK̃ seen through Σ_G — an information-plus-noise matrix with a variance profile that commutes
with the signal (Hachem, Loubaton & Najim 2007).  Its Cauchy transform is G_{μ_ρ}(z) = −δ̃
where, with f(λ) = θ₁ − θ₂ + (θ₂/t) λ, L = MP_t (the law of KᵀK/n, mean 1) and π_t (that of
KKᵀ/n),

    δ̃ = ∫ dL(λ) / [ −z(1 + δ) + ρ² λ f(λ) / (1 + s² t δ̃ f(λ)) ],
    δ = s² ∫ dπ_t(λ) f(λ) / [ −z(1 + s² t δ̃ f(λ)) + ρ² λ f(λ) / (1 + δ) ].

Eliminating δ (the integrals of rational functions against MP_t are rational in G_{MP_t} at
the two roots of a quadratic) leaves one irreducible polynomial (degree 7 in G, 4 in z) for
the dilated law μ̂ = D_{1/(θ₁−θ₂)} μ_ρ, whose coefficients involve only

    κ = θ₂ / (t (θ₁ − θ₂)),   t = γ_K / h,   r = ρ²

(:data:`JUMP_POLYNOMIAL`).  The layer laws then follow as in Prop. C.5 and (C.21):

    Z_V = [A_1^⊥ V_1, …, A_h^⊥ V_h]   →  π(μ_ρ, γ_K),                 mean γ_K θ₁ + ρ² h θ₂
    MHA^⊥(X), W^O = G_O/sqrt(h d_K)  →  D_{1/γ_K}(π(μ_ρ, γ_K) ⊠ π_{γ_O}), mean γ_O(θ₁ + ρ² h θ₂/γ_K)

atom at 0 of the layer law: 1 − min{1, γ_K, γ_O} for every ρ.  The first moment (and the
readout normalisation m = lim ‖MHA^⊥‖_F²/n) is linear in ρ², but the law is *not* a mixture
of the independent and tied laws: m₂(μ_ρ) has a ρ⁴ term (derivations/partial_kv.py).
"""
from __future__ import annotations

import ast
import math
import operator
from functools import lru_cache

import sympy as sp

from .._validation import ParameterError, in_closed_interval
from ..algebraic import exact as exact_alg
from ..algebraic.polynomial import G, S, from_s_relation, s_relation, w, z
from ..laws._params import exact, fresh
from ..laws.algebraic import AlgebraicLaw, AtomAtZero
from . import config as _cfg

__all__ = ["JUMP_POLYNOMIAL", "RHO_RANGE", "jump_polynomial", "check_rho", "check_rho_layer",
           "partial_kv_jump_law",
           "partial_kv_values_law", "partial_kv_output_law", "partial_kv_mean"]

#: the declared domain of ρ
RHO_RANGE = (0.0, 1.0)

#: P(G, z) = Σ c_ij(κ, t, r) G^i z^j of the dilated jump law μ̂ = D_{1/(θ₁−θ₂)} μ_ρ
#: (κ = θ₂/(t(θ₁ − θ₂)), t = γ_K/h, r = ρ²), derived in derivations/partial_kv.py
JUMP_POLYNOMIAL = {
    (7, 4): "-kappa**2*t**6*(r - 1)**3",
    (6, 4): "-kappa**2*t**5*(r - 1)**2",
    (6, 3): "4*kappa**2*t**5*(r - 1)**3*(t - 1)",
    (5, 3): "kappa*t**4*(r - 1)*(3*kappa*r*t - 3*kappa*r - 3*kappa*t + 3*kappa + 2*r + 2)",
    (5, 2): "-6*kappa**2*t**4*(r - 1)**3*(t - 1)**2",
    (4, 3): "2*kappa*t**3*(r + 1)",
    (4, 2): "-t**3*(3*kappa**2*r**2*t**2 - 6*kappa**2*r**2*t + 3*kappa**2*r**2"
            " - 6*kappa**2*r*t**2 + 12*kappa**2*r*t - 6*kappa**2*r + 3*kappa**2*t**2"
            " - 6*kappa**2*t + 3*kappa**2 + 6*kappa*r**2*t - 5*kappa*r**2 - kappa*r*t"
            " - kappa*r - 5*kappa*t + 6*kappa - r)",
    (4, 1): "4*kappa**2*t**3*(r - 1)**3*(t - 1)**3",
    (3, 2): "-t**2*(4*kappa*r*t - 4*kappa*r + 4*kappa*t - 4*kappa + r - 1)",
    (3, 1): "t**2*(t - 1)*(kappa**2*r**2*t**2 - 2*kappa**2*r**2*t + kappa**2*r**2"
            " - 2*kappa**2*r*t**2 + 4*kappa**2*r*t - 2*kappa**2*r + kappa**2*t**2"
            " - 2*kappa**2*t + kappa**2 + 6*kappa*r**2*t - 4*kappa*r**2 - 2*kappa*r*t"
            " - 2*kappa*r - 4*kappa*t + 6*kappa - 2*r)",
    (3, 0): "-kappa**2*t**2*(r - 1)**3*(t - 1)**4",
    (2, 2): "-t",
    (2, 1): "t*(2*kappa*r*t**2 - 5*kappa*r*t + 3*kappa*r + 3*kappa*t**2 - 5*kappa*t + 2*kappa"
            " + 2*r*t - r - t + 2)",
    (2, 0): "-t*(t - 1)**2*(2*kappa*r**2*t - kappa*r**2 - kappa*r*t - kappa*r - kappa*t"
            " + 2*kappa - r)",
    (1, 1): "t - 1",
    (1, 0): "(t - 1)*(kappa*r*t - kappa*r - kappa*t**2 + kappa*t - r*t - 1)",
    (0, 0): "1",
}

KAPPA, T, R = sp.symbols("kappa t r")


@lru_cache(maxsize=1)
def jump_polynomial():
    """P(G, z; κ, t, r) of μ̂ = D_{1/(θ₁−θ₂)} μ_ρ as a sympy expression (see the module
    docstring; G, z are :data:`freeattn.algebraic.polynomial.G`, ``z``)."""
    loc = {"kappa": KAPPA, "t": T, "r": R}
    return sp.expand(sum(sp.sympify(c, locals=loc) * G**i * z**j
                         for (i, j), c in JUMP_POLYNOMIAL.items()))


def check_rho(rho):
    """Validate ρ ∈ [0, 1]; return it as an exact sympy number (a float keeps its binary value).

    Raises
    ------
    ParameterError
        ('rho') if ρ is not a real number in the closed interval [0, 1] (NaN included).
    """
    try:
        in_closed_interval("rho", rho, *RHO_RANGE)
    except (TypeError, ParameterError):
        raise ParameterError("rho", f"rho must be a real number in the closed interval "
                                    f"[0, 1], got {rho!r}") from None
    return exact(rho, "rho")


def check_rho_layer(rho, sharing="none", gamma_k=None, gamma_v=None):
    """Validate ρ for a layer: ρ ∈ [0, 1], only ρ = 1 with sharing='tied_kv', γ_V = γ_K.

    Returns
    -------
    sympy number
        ρ exactly.

    Raises
    ------
    ParameterError
        ('rho') for ρ outside [0, 1] or ρ ≠ 1 with 'tied_kv'; ('gamma_v') if γ_V ≠ γ_K.
    """
    import math

    rho_x = check_rho(rho)
    if sharing == "tied_kv" and rho_x != 1:
        raise ParameterError("rho", f"sharing='tied_kv' is rho = 1; got rho={rho!r} (use "
                                    f"sharing='none', 'gqa' or 'mqa' with rho in [0, 1])")
    if gamma_k is not None and gamma_v is not None and \
            not math.isclose(float(gamma_v), float(gamma_k), rel_tol=1e-12):
        raise ParameterError("gamma_v", f"rho (W^V = ρW^K + sqrt(1 − ρ²)W̃) needs gamma_v == "
                                        f"gamma_k = {float(gamma_k):g}, got {float(gamma_v):g}")
    return rho_x


def _args(beta, heads, gamma_k, rho):
    from .tied import _args as tied_args

    beta, heads, gamma_k = tied_args(beta, heads, gamma_k)
    return beta, heads, gamma_k, check_rho(rho)


def _ratio(name, value):
    return float(in_closed_interval(name, value, *_cfg.GAMMA_RANGE))


def _exact_params(beta, heads, gamma_k, rho):
    """(θ₁ − θ₂, κ, t, r) exactly."""
    b2 = exact(beta) ** 2
    c = sp.exp(b2) - 1 - b2
    t = exact(gamma_k) / heads
    return c, b2 / (t * c), t, rho ** 2


def partial_kv_mean(beta, heads, gamma_k, gamma_o, rho):
    """Exact mean γ_O(θ₁ + ρ² h θ₂/γ_K) of the layer law: the readout normalisation
    m = lim ‖MHA^⊥(X)‖_F²/n (Hayase & Karakida 2026, eq. (C.24)) at correlation ρ.

    Raises
    ------
    ParameterError
        For a parameter outside its domain.
    """
    beta, heads, gamma_k, rho = _args(beta, heads, gamma_k, rho)
    gamma_o = _ratio("gamma_o", gamma_o)
    b2 = exact(beta) ** 2
    return exact(gamma_o) * (sp.exp(b2) - 1 + rho ** 2 * heads * b2 / exact(gamma_k))


def _jump_relation(kappa, t, r):
    """The S-relation Σ̂(w, S) of μ̂ with t, r substituted and κ a fresh symbol; (Σ̂, values)."""
    k = fresh("kappa")
    P = jump_polynomial().xreplace({KAPPA: k, T: t, R: r})
    return s_relation(P), {k: kappa}


def _law(poly, values, scale, name, atom0):
    law = AlgebraicLaw(poly, values=values, name=name).dilate(scale)
    law.name = name
    # the exact atom at 0 (from the compound free Poisson and ⊠ atom rules), which decides it
    # where the numerics cannot tell nearly equal candidate masses apart (AlgebraicLaw._pole_mass)
    law.atom_at_zero = AtomAtZero("value", value=atom0)
    return law


def partial_kv_jump_law(beta, heads, gamma_k, rho, *, _generic=False):
    """The jump law μ_ρ: eigenvalue law of Σ_{V,r} = V_rᵀ Σ_{G,r} V_r / n with partially tied
    values V_r = ρ K_r + sqrt(1 − ρ²) K̃_r.

    Parameters
    ----------
    beta : float in [0.01, 4]
    heads : int in [1, 10000]
    gamma_k : float in [1e-3, 1e3]
        γ_K = h d_K / n (= γ_V: d_V = d_K).
    rho : float in [0, 1]
        Key–value correlation ρ of W^V_r = ρ W^K_r + sqrt(1 − ρ²) W̃_r.

    Returns
    -------
    AlgebraicLaw
        μ_ρ (d_K × d_K eigenvalues, mass 1, atom max{0, 1 − h/γ_K} at 0); mean
        θ₁ + ρ² h θ₂/γ_K.  ρ = 0: D_t π(ρ_t, 1/t) (Hayase & Karakida 2026, proof of Prop. C.5);
        ρ = 1: (λ ↦ (θ₁ − θ₂)λ + (θ₂/t)λ²)_# MP_t (the d_K × d_K form of μ_KV, (C.18)).

    Raises
    ------
    ParameterError
        For a parameter outside its domain (``rho`` outside [0, 1] included).

    Notes
    -----
    0 < ρ < 1: the polynomial :data:`JUMP_POLYNOMIAL` (derived in derivations/partial_kv.py,
    beyond the paper), dilated by θ₁ − θ₂.  At ρ = 1 its leading coefficient vanishes, so the
    end points use the constructions of the paper.
    """
    beta, heads, gamma_k, rho = _args(beta, heads, gamma_k, rho)
    c, kappa, t, r = _exact_params(beta, heads, gamma_k, rho)
    name = f"partial_kv_jump_law(beta={beta:g}, heads={heads}, gamma_k={gamma_k:g}, rho={float(rho):g})"
    if r == 1:
        from ..laws import MarchenkoPastur

        law = MarchenkoPastur(t).pushforward((sp.Integer(0), c, exact(beta) ** 2 / t))
        law.name = name
        return law
    if r == 0 and not _generic:
        from ..convolution import compound_free_poisson
        from .single_head import rho_law

        law = compound_free_poisson(rho_law(beta, t), 1 / t).dilate(t)
        law.name = name
        return law
    k = fresh("kappa")
    P = jump_polynomial().xreplace({KAPPA: k, T: t, R: r})
    return _law(P, {k: kappa}, c, name, sp.Max(0, 1 - 1 / t))


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Pow: operator.pow}


def _evaluate(node, names):
    """Value of a parsed :data:`JUMP_POLYNOMIAL` coefficient (integers, the names κ, t, r,
    +, −, ×, integer powers) with ``names`` bound to FLINT numbers or polynomials."""
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, names)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_evaluate(node.left, names), _evaluate(node.right, names))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand, names)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    raise ValueError(f"unexpected term in JUMP_POLYNOMIAL: {ast.dump(node)}")


@lru_cache(maxsize=1)
def _jump_parsed():
    return {key: ast.parse(c, mode="eval") for key, c in JUMP_POLYNOMIAL.items()}


def _jump_flint(ctx, kname, t, r):
    """:func:`jump_polynomial` at rational t, r (κ the context's variable ``kname``) as an
    integer FLINT polynomial (denominators cleared), read straight off the coefficient
    strings: no sympy expansion of the degree-(7, 4) polynomial."""
    flint = exact_alg.flint
    qctx = flint.fmpq_mpoly_ctx.get(ctx.names(), "lex")
    gens = dict(zip(ctx.names(), qctx.gens()))
    names = {"kappa": gens[kname], "t": flint.fmpq(int(t.p), int(t.q)),
             "r": flint.fmpq(int(r.p), int(r.q))}
    total = qctx.constant(0)
    for (i, j), node in _jump_parsed().items():
        total += _evaluate(node, names) * gens["G"] ** i * gens["z"] ** j
    d = total.to_dict()
    den = math.lcm(*(int(v.q) for v in d.values()))
    return ctx.from_dict({m: int(v.p) * (den // int(v.q)) for m, v in d.items()})


def _with_free_poisson_flint(kappa, t, r, g, g_o):
    """:func:`_with_free_poisson`'s elimination in FLINT (t, r, γ_K, γ_O rational)."""
    from ..algebraic import polynomial as pm

    k = fresh("kappa")
    ctx = exact_alg.context({"G", "z", "w", "S", "S_1", "kappa_"})
    w_, S_ = pm._gens(ctx, "w", "S")
    sigma = pm._s_relation_flint(_jump_flint(ctx, "kappa_", t, r))
    # u ↦ u/γ_K and S ↦ S (γ_K + u)(γ_O + u), as numerator over denominator
    num = S_ * (int(g.p) + int(g.q) * w_)
    den = ctx.constant(int(g.q))
    if g_o is not None:
        num, den = num * (int(g_o.p) + int(g_o.q) * w_), den * int(g_o.q)
    sub = exact_alg.subs_rational(sigma, {"w": (int(g.q) * w_, ctx.constant(int(g.p))),
                                      "S": (num, den)})
    fq = exact_alg.flint.fmpq
    gq, goq = fq(int(g.p), int(g.q)), (1 if g_o is None else fq(int(g_o.p), int(g_o.q)))
    tq, rq = fq(int(t.p), int(t.q)), fq(int(r.p), int(r.q))

    def expected(probe):
        # m₁ = γ_K m₁(μ̂) (times γ_O after ⊠ π_{γ_O}), m₁(μ̂) = 1 + κ(r + t)
        return [gq * (1 + probe["kappa_"] * (rq + tq)) * goq]

    f = pm._select_flint(pm._from_s_relation_flint(sub), expected)
    return exact_alg.to_sympy(f, {"G": G, "z": z, "kappa_": k}), {k: kappa}


def _with_free_poisson(beta, heads, gamma_k, rho, gamma_o):
    """P(G, z) of π(μ̂, γ_K) (``gamma_o`` None) or π(μ̂, γ_K) ⊠ π_{γ_O}, by substitution in
    the S-relation: S_{π(μ,γ)}(u) = S_μ(u/γ)/(γ + u), S_{π_γ}(u) = 1/(γ + u) (eq. (C.4))."""
    c, kappa, t, r = _exact_params(beta, heads, gamma_k, rho)
    g_o = None if gamma_o is None else exact(gamma_o)
    if exact_alg.flint_enabled() and all(v.is_Rational for v in (t, r, exact(gamma_k))) \
            and (g_o is None or g_o.is_Rational):
        P, values = _with_free_poisson_flint(kappa, t, r, exact(gamma_k), g_o)
        return P, values, c
    sigma, values = _jump_relation(kappa, t, r)
    g = exact(gamma_k)
    factor = (g + w) * (1 if gamma_o is None else exact(gamma_o) + w)
    sub = sp.expand(sp.numer(sp.together(sigma.xreplace({w: w / g, S: S * factor}))))
    # moments fix the factor: m₁ = γ_K m₁(μ̂) (times γ_O after ⊠ π_{γ_O})
    m1 = g * (1 + kappa * (r + t)) * (1 if gamma_o is None else exact(gamma_o))
    k = next(iter(values))
    return from_s_relation(sub, (m1.xreplace({kappa: k}),)), values, c


def partial_kv_values_law(beta, heads, gamma_k, rho, *, _generic=False):
    """Limit law of the squared singular values of Z_V = [A_1^⊥ V_1, …, A_h^⊥ V_h] with
    V_r = X W^V_r, W^V_r = ρ W^K_r + sqrt(1 − ρ²) W̃_r.

    Parameters
    ----------
    beta : float in [0.01, 4]
    heads : int in [1, 10000]
    gamma_k : float in [1e-3, 1e3]
        γ_K = h d_K / n = γ_V.
    rho : float in [0, 1]

    Returns
    -------
    Law
        π(μ_ρ, γ_K) (mass 1, atom max{0, 1 − γ_K} at 0), mean γ_K θ₁ + ρ² h θ₂;
        ρ = 0 is :func:`values_law` (Prop. C.5), ρ = 1 :func:`kv_values_law` (eq. (C.19)).

    Raises
    ------
    ParameterError
        For a parameter outside its domain.

    Notes
    -----
    Beyond Hayase & Karakida 2026; derived in derivations/partial_kv.py.
    """
    beta, heads, gamma_k, rho = _args(beta, heads, gamma_k, rho)
    name = (f"partial_kv_values_law(beta={beta:g}, heads={heads}, gamma_k={gamma_k:g}, "
            f"rho={float(rho):g})")
    if rho == 1 or (rho == 0 and not _generic):
        from .multi_head import values_law
        from .tied import kv_values_law

        law = kv_values_law(beta, heads, gamma_k) if rho == 1 else \
            values_law(beta, heads, gamma_k, gamma_k)
    else:
        P, values, c = _with_free_poisson(beta, heads, gamma_k, rho, None)
        law = _law(P, values, c, name, sp.Max(0, 1 - exact(gamma_k)))
    law.name = name
    law.params = {"beta": beta, "heads": heads, "gamma_k": gamma_k, "gamma_v": gamma_k,
                  "tied": False, "rho": float(rho)}
    law.describes = "values"
    return law


def partial_kv_output_law(beta, heads, gamma_k, gamma_o, rho, *, _generic=False):
    """Limit law of the squared singular values of MHA^⊥(X) with partially tied values.

    Parameters
    ----------
    beta : float in [0.01, 4]
        Inverse temperature.
    heads : int in [1, 10000]
        Number of heads h.
    gamma_k, gamma_o : float in [1e-3, 1e3]
        γ_K = h d_K / n (= γ_V, d_V = d_K) and γ_O = d_O / n.
    rho : float in [0, 1]
        Correlation of W^V_r = ρ W^K_r + sqrt(1 − ρ²) W̃_r (W̃_r an independent copy).

    Returns
    -------
    Law
        D_{1/γ_K}(π(μ_ρ, γ_K) ⊠ π_{γ_O}) with Gaussian W^O = G_O/sqrt(h d_K): mass 1, atom
        1 − min{1, γ_K, γ_O} at 0, mean γ_O(θ₁ + ρ² h θ₂/γ_K) (the readout normalisation m).
        ρ = 0 is (C.15) with γ_V = γ_K, ρ = 1 is (C.21).

    Raises
    ------
    ParameterError
        For a parameter outside its domain (``rho`` outside [0, 1] included).

    Notes
    -----
    Beyond Hayase & Karakida 2026; derived in derivations/partial_kv.py (Gaussian-equivalent
    model of their Theorem 3.1; jump law from a Hachem–Loubaton–Najim (2007) deterministic
    equivalent, eliminated to :data:`JUMP_POLYNOMIAL`; first three moments checked against a
    Wick expansion of the Gaussian model).  Normalised variance and everything else follow
    from the law object.

    Examples
    --------
    >>> law = partial_kv_output_law(1.0, 4, 1.5, 2.0, 0.6)
    >>> round(float(law.mean()), 10)   # γ_O (θ₁ + ρ² h θ₂/γ_K) = 2 (e − 1 + 0.96)
    5.3565636569
    """
    beta, heads, gamma_k, rho = _args(beta, heads, gamma_k, rho)
    gamma_o = _ratio("gamma_o", gamma_o)
    name = (f"partial_kv_output_law(beta={beta:g}, heads={heads}, gamma_k={gamma_k:g}, "
            f"gamma_o={gamma_o:g}, rho={float(rho):g})")
    if rho == 1:
        from .tied import tied_output_law

        law = tied_output_law(beta, heads, gamma_k, gamma_o)
    elif rho == 0 and not _generic:
        from .multi_head import mha_output_law

        law = mha_output_law(beta, heads, gamma_k, gamma_k, gamma_o)
    else:
        P, values, c = _with_free_poisson(beta, heads, gamma_k, rho, gamma_o)
        law = _law(P, values, c / exact(gamma_k), name,
                   1 - sp.Min(1, exact(gamma_k), exact(gamma_o)))
    law.name = name
    return law
