"""Series expansions of the attention law's moments and edges (sympy, exact coefficients).

* :func:`moment_series` — moments of ν_{∞,h} in small β (θ₁ = e^{β²} − 1, θ₂ = β²) or in
  1/γ_K (large key width).
* :func:`edge_series` — the support edges of ν_{∞,h} in 1/γ_K around the γ_K → ∞ limit
  θ₁(1 ± h^{−1/2})² (ρ_{γ_K} → δ_{θ₁}, so ν_{∞,h} → D_{θ₁} MP_{1/h}), exact; or in β² around
  β = 0, where c_β → 1 and ν_{∞,h}/θ₁ → MP_{1/γ_K} ⊠ MP_{1/h} (numeric coefficients).

Edges are critical values of the rational uniformisation z(ζ) = (1 + ζR)(1 + ζR/h)/ζ,
R(ζ) = θ₁ − θ₂ + θ₂/(1 − θ₂ζ/γ_K) (see ``derivations/attention_polynomial.py``); the critical
point ζ(ε) is expanded order by order from z′(ζ, ε) = 0 (implicit function theorem; the
second derivative at the limit is non-zero), then e(ε) = z(ζ(ε), ε).
Sources: Hayase & Karakida 2026 (arXiv 2610.10033), (C.8)–(C.12).
"""
from __future__ import annotations

import mpmath
import sympy as sp
from sympy.polys.domains import QQ
from sympy.polys.fields import field

from .._context import inner_dps
from .._messages import shown
from .._validation import (ParameterError, ParameterTypeError, dps_or_none, exact,
                           integer_at_least)
from ..convolution import free_multiplicative_convolution
from ..laws import MarchenkoPastur
from . import symbols as S
from .cumulants import moments as _moments
from .equations import algebraic_law, family

#: an edge of the limit law above this is a soft (square-root) edge, not the hard one at 0
_HARD_EDGE = 1e-12
#: the series' value at ε = 0 must match the limit law's edge to this (relative)
_SERIES_CHECK = 1e-8

__all__ = ["moment_series", "edge_series"]

_eps = sp.Symbol("epsilon", positive=True)
_VARIABLES = ("beta", "gamma_k")


def _check(law, variable, order):
    algebraic_law(law)
    if family(law) != "attention":
        raise ParameterTypeError("law", "series expansions are implemented for attention laws "
                                        "(freeattn.attention_law), got " + law.name)
    if not (isinstance(variable, str) and variable in _VARIABLES):
        raise ParameterError("variable", "variable must be 'beta' or 'gamma_k', got "
                                         f"{shown(variable)}")
    return integer_at_least("order", order, 1)


def _values(law, symbolic, keep):
    if symbolic:
        return {}
    p = law.params

    vals = {S.gamma_K: exact(p["gamma_k"]), S.h: sp.Integer(int(p["heads"])), S.beta: exact(p["beta"])}
    vals.pop(keep, None)
    return vals


def moment_series(law, k, variable="beta", order=8, symbolic=False):
    """Moments m₁..m_k of an attention law as series in β → 0 or in 1/γ_K → 0.

    Parameters
    ----------
    law : AlgebraicLaw from :func:`freeattn.attention_law`
    k : int ≥ 1
    variable : {"beta", "gamma_k"}
        Expansion variable: β at 0 (to O(β^order)) or 1/γ_K at 0 (to O(γ_K^{−order})).
    order : int ≥ 1
    symbolic : bool
        Keep the other parameters (γ_K, h or θ₁, θ₂, h) as symbols; False substitutes the law's
        values.

    Returns
    -------
    list of sympy.Expr
        Series with an ``O(...)`` term.

    Notes
    -----
    m₂ = (1 + 1/h)θ₁² + θ₂²/γ_K (Hayase & Karakida 2026, (C.11)); at small β both θ's are
    β² + O(β⁴), so m_q = O(β^{2q}).

    Examples
    --------
    >>> from freeattn import attention_law
    >>> moment_series(attention_law(1.0, 1.0, 1), 1, "beta", 6)
    [beta**2 + beta**4/2 + O(beta**6)]
    """
    order = _check(law, variable, order)
    if variable == "beta":
        ms = _moments(law, k, symbolic=True, in_beta=True)
        vals = _values(law, symbolic, S.beta)
        return [sp.series(sp.expand(m.xreplace(vals)), S.beta, 0, order) for m in ms]
    ms = _moments(law, k, symbolic=True, in_beta=False)
    vals = _values(law, symbolic, S.gamma_K)
    if vals:
        b = vals.pop(S.beta)
        vals.update({S.theta_1: sp.exp(b**2) - 1, S.theta_2: b**2})
    out = []
    for m in ms:
        e = sp.expand(m.xreplace(vals).xreplace({S.gamma_K: 1 / _eps}))
        ser = sp.series(e, _eps, 0, order).removeO()
        out.append(sp.expand(ser.xreplace({_eps: 1 / S.gamma_K}))
                   + sp.Order(S.gamma_K ** (-order), (S.gamma_K, sp.oo)))
    return out


class _MPField:
    """mpmath numbers with the interface of a sympy field used below (numeric coefficients)."""

    def __init__(self):

        self.zero, self.one = mpmath.mpf(0), mpmath.mpf(1)
        self._mp = mpmath

    def from_expr(self, e):
        return self._mp.mpf(sp.N(e, inner_dps(self._mp.mp.dps)))


def _critical_value_series(num, den, zeta, zeta0, order, gens=None, numeric=False):
    """e(ε) = z(ζ(ε), ε) for z = num/den (polynomials in ζ, ε), with ∂_ζ z(ζ(ε), ε) = 0 and
    ζ(0) = ζ0, to O(ε^{order+1}).

    Truncated power series in ε with coefficients in the rational function field QQ(gens)
    (sympy's sparse fields: exact and fast; returns [e_0, …, e_order] as sympy), or, with
    ``numeric=True``, in mpmath numbers at the current precision (ζ0 an mpf)."""
    if numeric:
        K = _MPField()
    else:

        K = field(list(gens), QQ)[0]
    n = order + 1

    def mul(a, b):
        return [sum((a[i] * b[k - i] for i in range(k + 1)), K.zero) for k in range(n)]

    def as_series(poly_expr, zs):
        """poly_expr(ζ(ε), ε) truncated, poly_expr a polynomial in ζ and ε."""
        P = sp.Poly(poly_expr, zeta, _eps)
        deg = P.degree(zeta)
        out = [K.zero] * n
        power = [K.one] + [K.zero] * (n - 1)
        for i in range(deg + 1):
            # a_i(ε) = Σ_j c_ij ε^j
            ai = [K.zero] * n
            for (pi, pj), c in P.terms():
                if pi == i and pj < n:
                    ai[pj] += K.from_expr(c)
            term = mul(ai, power)
            out = [x + y for x, y in zip(out, term)]
            power = mul(power, zs)
        return out

    dz = sp.expand(sp.diff(num, zeta) * den - num * sp.diff(den, zeta))
    z0 = zeta0 if numeric else K.from_expr(zeta0)
    zs = [z0] + [K.zero] * (n - 1)
    d2 = as_series(sp.expand(sp.diff(dz, zeta)), zs)[0]
    if d2 == 0:
        raise ValueError("degenerate critical point: the expansion is not a power series")
    for k in range(1, n):
        ck = as_series(dz, zs)[k]
        zs[k] = -ck / d2
    nn, dd = as_series(num, zs), as_series(den, zs)
    e = []
    for k in range(n):  # power-series division nn/dd
        acc = nn[k] - sum((e[j] * dd[k - j] for j in range(k)), K.zero)
        e.append(acc / dd[0])
    return e if numeric else [sp.factor(c.as_expr()) for c in e]


def edge_series(law, variable="gamma_k", order=2, symbolic=False, dps=30):
    """Support edges of an attention law ν_{∞,h} as series in 1/γ_K → 0 or in β → 0.

    Parameters
    ----------
    law : AlgebraicLaw from :func:`freeattn.attention_law`
    variable : {"gamma_k", "beta"}
        ``"gamma_k"``: expansion in ε = 1/γ_K around θ₁(1 ± h^{−1/2})², exact coefficients.
        ``"beta"``: expansion in β² at fixed γ_K, h around the soft edges of
        θ₁·(MP_{1/γ_K} ⊠ MP_{1/h}) (c_β → 1), coefficients as floats with ``dps`` digits
        (the β = 0 critical points are algebraic numbers).
    order : int ≥ 1
        ``"gamma_k"``: terms up to γ_K^{−order}; ``"beta"``: terms up to β^{2·order}.
    symbolic : bool
        ``"gamma_k"`` only: keep θ₁, θ₂, h as symbols; False substitutes the law's values.
    dps : int
        ``"beta"`` only: digits of the coefficients.

    Returns
    -------
    dict
        ``{"right": series, "left": series}`` (sympy, with an ``O(...)`` term).  A hard edge
        (the left edge 0 for h = 1) is not a critical value and is left out; for
        ``"beta"``, so are the edges of a component that only appears for β > 0 (the atom of
        MP_{1/γ_K} at 0, when γ_K < 1, spreads into an interval of width O(β²)).

    Raises
    ------
    ValueError
        If ``variable`` is not one of the two.

    Examples
    --------
    >>> from freeattn import attention_law
    >>> edge_series(attention_law(1.0, 1.0, 4), order=1, symbolic=True)["right"]
    theta_2**2*(sqrt(h) + 1)**2/(gamma_K*sqrt(h)*theta_1) + theta_1*(sqrt(h) + 1)**2/h + O(gamma_K**(-2), (gamma_K, oo))
    """
    order = _check(law, variable, order)
    if variable == "beta":
        dps = dps_or_none(dps)
        if dps is None:
            raise ParameterError("dps", "dps must be an integer >= 5 (the digits of the β² "
                                        "coefficients), got None")
        return _edge_series_beta(law, order, dps)
    zeta = sp.Symbol("zeta")
    s = sp.Symbol("s", positive=True)  # s = sqrt(h)
    th1, th2 = S.theta_1, S.theta_2
    # z(ζ) = (1 + ζR)(1 + ζR/h)/ζ with ζR = U/D, D = 1 − θ₂ζε, U = ζ((θ₁ − θ₂)D + θ₂)
    D = 1 - th2 * zeta * _eps
    U = zeta * ((th1 - th2) * D + th2)
    num = sp.expand((D + U) * (s**2 * D + U))
    den = sp.expand(s**2 * zeta * D**2)
    heads = int(law.params["heads"])
    out = {}
    sides = (("right", s / th1),) if heads == 1 else (("right", s / th1), ("left", -s / th1))
    for side, z0 in sides:
        coeffs = _critical_value_series(num, den, zeta, z0, order, (th1, th2, s))
        sub = {s: sp.sqrt(S.h)} if symbolic else {s: sp.sqrt(heads)}
        if not symbolic:

            b = exact(law.params["beta"])
            sub.update({th1: sp.exp(b**2) - 1, th2: b**2})
        coeffs = [sp.factor(c.xreplace(sub)) for c in coeffs]
        terms = sum(c * S.gamma_K ** (-k) for k, c in enumerate(coeffs))
        out[side] = terms + sp.Order(S.gamma_K ** (-(order + 1)), (S.gamma_K, sp.oo))
    return out


def _edge_series_beta(law, order, dps):
    """Soft edges e(β) = θ₁(β) F(δ(β)), δ = 1 − c_β, F the critical value of the mean-one
    z̃(ξ; δ) = (1 + ξR̃)(1 + ξR̃/h)/ξ, R̃ = δ + (1 − δ)/(1 − (1 − δ)ξ/γ_K) (ρ_{β,t} of §C.6.1)."""


    gam = exact(law.params["gamma_k"])
    heads = int(law.params["heads"])
    xi = sp.Symbol("xi")
    D = 1 - (1 - _eps) * xi / gam
    U = xi * (_eps * D + 1 - _eps)
    num = sp.expand((D + U) * (heads * D + U))
    den = sp.expand(heads * xi * D**2)
    limit = free_multiplicative_convolution(MarchenkoPastur(1 / float(gam)),
                                            MarchenkoPastur(1.0 / heads))
    soft = [e for ab in limit.support() for e in ab if e > _HARD_EDGE]
    x = sp.Symbol("x")  # x = β²
    out = {}
    with mpmath.workdps(inner_dps(dps, 2)):
        dz0 = sp.Poly(sp.expand((sp.diff(num, xi) * den - num * sp.diff(den, xi)).subs(_eps, 0)), xi)
        roots = mpmath.polyroots([mpmath.mpf(sp.N(c, inner_dps(dps, 3))) for c in dz0.all_coeffs()],
                                 maxsteps=400, extraprec=400)
        zf = sp.lambdify(xi, (num / den).subs(_eps, 0), "mpmath")
        crit = []
        for r in roots:
            if abs(mpmath.im(r)) > mpmath.mpf(10) ** (-dps) or mpmath.re(r) == 0:
                continue
            try:
                crit.append((zf(mpmath.re(r)), mpmath.re(r)))
            except ZeroDivisionError:
                continue
        # exact series of δ(x) = 1 − x/(eˣ − 1) and θ₁(x) = eˣ − 1, then composition
        dser = sp.series(1 - x / (sp.exp(x) - 1), x, 0, order + 1).removeO()
        tser = sp.series(sp.exp(x) - 1, x, 0, order + 1).removeO()
        dco = [mpmath.mpf(sp.N(dser.coeff(x, k), inner_dps(dps, 3))) for k in range(order + 1)]
        tco = [mpmath.mpf(sp.N(tser.coeff(x, k), inner_dps(dps, 3))) for k in range(order + 1)]
        n = order + 1

        def mul(a, b):
            return [mpmath.fsum(a[i] * b[k - i] for i in range(k + 1)) for k in range(n)]

        for side, target in (("left", min(soft)), ("right", max(soft))):
            if side == "left" and heads == 1:
                continue  # hard edge at 0
            val, r = min(crit, key=lambda c: abs(c[0] - target))
            if abs(val - target) > _SERIES_CHECK * (1 + abs(target)):
                raise ValueError(f"no critical value matches the β = 0 edge {target!r}")
            F = _critical_value_series(num, den, xi, r, order, numeric=True)
            comp = [mpmath.mpf(0)] * n  # F(δ(x)) truncated
            power = [mpmath.mpf(1)] + [mpmath.mpf(0)] * (n - 1)
            for k in range(n):
                comp = [a + F[k] * b for a, b in zip(comp, power)]
                power = mul(power, dco)
            e = mul(tco, comp)  # e_0 = 0 since θ₁(0) = 0
            expr = sum(sp.Float(e[k], dps) * S.beta ** (2 * k)
                       for k in range(1, n))
            out[side] = expr + sp.Order(S.beta ** (2 * (order + 1)), S.beta)
    return out
