"""The algebraic equation P(G, z) = 0 of a law, with parameters named as in the papers.

An :class:`~freeattn.laws.AlgebraicLaw` stores its polynomial in internal parameter symbols
(``y_4, shift_5, scale_6``, renumbered at every construction).  :func:`algebraic_equation`
shows it in stable names: for the attention laws of :func:`freeattn.attention_law` and the
multi-head laws (head average, values, layer output; recognised by their ``params``) in
θ₁, θ₂, γ_K, h, h_KV, γ_V, γ_O (or β); for any other algebraic law the internal
names lose their counters (``y``, ``a`` for a shift, ``b`` for a scale, ``t`` for a rate,
indexed in construction order when a name repeats).

Sources: Rao & Edelman (2008) for the polynomial method; Hayase & Karakida 2026
(arXiv 2610.10033), (C.8)–(C.9) for the attention law.
"""
from __future__ import annotations

from collections import Counter
from functools import lru_cache

import sympy as sp

from .._validation import ParameterTypeError, exact
from ..algebraic.eliminations import boxtimes_polynomial
from ..algebraic.polynomial import G, affine_polynomial, z
from . import symbols as S

__all__ = ["algebraic_equation", "equation_parameters", "attention_polynomial",
           "family_polynomial", "family", "G", "z"]

#: internal base names of law parameters → display names
_DISPLAY = {"y": "y", "shift": "a", "scale": "b", "rate": "t", "t": "t"}


def _mp(y):
    """Mean-one Marchenko–Pastur MP_y: y z G² + (1 − y − z) G + 1 = 0."""
    return y * z * G**2 + (1 - y - z) * G + 1


@lru_cache(maxsize=None)
def attention_polynomial():
    """P(G, z; θ₁, θ₂, γ_K, h) of ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h} (Hayase & Karakida 2026,
    (C.8)–(C.9)), denominators cleared; degree 4 in G and 2 in z.

    Derived by the resultant elimination of :func:`freeattn.algebraic.eliminations.boxtimes_polynomial`
    from ρ_t = (x ↦ θ₁ − θ₂ + θ₂x)_# MP_{1/t} and MP_{1/h}; checked against the rational
    uniformisation in ``derivations/attention_polynomial.py``.
    """
    rho = affine_polynomial(sp.expand(_mp(1 / S.gamma_K) * S.gamma_K), S.theta_1 - S.theta_2,
                            S.theta_2)
    P = boxtimes_polynomial(rho, _mp(1 / S.h))
    P = sp.expand(sp.numer(sp.together(P)))
    # sign convention: the constant term −γ_K h² < 0 as printed in the derivation
    return P


def _free_poisson(t):
    """Free Poisson π_t: z G² + (t − 1 − z) G + 1 = 0."""
    return z * G**2 + (t - 1 - z) * G + 1


@lru_cache(maxsize=None)
def family_polynomial(kind):
    """P(G, z) of a multi-head family in the papers' symbols (Hayase & Karakida 2026, App. C):

    * ``"attention"``: ν_{∞,h} = ρ_{γ_K} ⊠ MP_{1/h} (C.9), symbols θ₁, θ₂, γ_K, h;
    * ``"head_average"``: ρ_{γ_K h_KV/h} ⊠ π₁ (Prop. C.6, §C.1.5), symbols θ₁, θ₂, γ_K, h, h_KV;
    * ``"values"``: ν_{∞,h} ⊠ π_{γ_V} (Prop. C.5), adds γ_V;
    * ``"mha"``: ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O} (C.15), adds γ_V, γ_O.
    """
    if kind == "attention":
        return attention_polynomial()
    if kind == "head_average":
        t = S.gamma_K * S.h_KV / S.h
        rho = affine_polynomial(sp.expand(_mp(1 / t) * t), S.theta_1 - S.theta_2, S.theta_2)
        P = boxtimes_polynomial(sp.expand(sp.numer(sp.together(rho))), _free_poisson(1))
    elif kind == "values":
        P = boxtimes_polynomial(attention_polynomial(), _free_poisson(S.gamma_V))
    elif kind == "mha":
        P = boxtimes_polynomial(attention_polynomial(), _mp(1 / S.gamma_V))
        P = boxtimes_polynomial(sp.expand(sp.numer(sp.together(P))), _free_poisson(S.gamma_O))
    else:
        raise ValueError(f"unknown family {kind!r}")
    return sp.expand(sp.numer(sp.together(P)))


def algebraic_law(law, name="law"):
    """Return ``law`` if it has an algebraic equation (an :class:`AlgebraicLaw`), else raise
    :class:`~freeattn._validation.ParameterTypeError` naming ``name`` (the one check of every
    function of :mod:`freeattn.symbolic` that takes a law)."""
    if not hasattr(law, "symbolic_polynomial"):
        raise ParameterTypeError(name, f"{name} must be an AlgebraicLaw (a law with an algebraic "
                                       f"equation P(G, z) = 0, e.g. freeattn.attention_law(...)), "
                                       f"got {type(law).__name__}")
    return law


def family(law):
    """Name of the paper family a law belongs to (from its ``params``), or None.

    ``"attention"``, ``"head_average"``, ``"values"`` (independent values) and ``"mha"``
    (independent, GQA or MQA K/V: the same law) are recognised; tied K = V laws and anything
    else use the generic names of :func:`algebraic_equation`."""
    params = getattr(law, "params", None) or {}
    # the attention module records the family in ``law.describes`` (older laws: params["kind"])
    kind = getattr(law, "describes", None) or params.get("kind", "attention")
    keys = set(params) - {"kind"}
    if kind == "attention" and keys == {"beta", "gamma_k", "heads"}:
        return "attention"
    if kind == "head_average" and {"beta", "gamma_k", "heads", "kv_heads"} <= keys:
        return "head_average"
    if kind == "values" and not params.get("tied", False) and "gamma_v" in keys:
        return "values"
    if kind == "mha" and params.get("sharing", "none") in ("none", "gqa", "mqa") and "gamma_o" in keys:
        return "mha"
    return None


def _exact(v):

    return exact(v)


def _family_values(law, in_beta):
    p = law.params
    b = _exact(p["beta"])
    vals = {S.gamma_K: _exact(p["gamma_k"]), S.h: sp.Integer(int(p["heads"]))}
    kind = family(law)
    if kind == "head_average":
        vals[S.h_KV] = sp.Integer(int(p["kv_heads"]))
    if kind in ("values", "mha"):
        vals[S.gamma_V] = _exact(p["gamma_v"])
    if kind == "mha":
        vals[S.gamma_O] = _exact(p["gamma_o"])
    if in_beta:
        vals[S.beta] = b
    else:
        vals.update({S.theta_1: sp.exp(b**2) - 1, S.theta_2: b**2})
    return vals


def _generic_names(law):
    """Internal parameter symbol → stable display symbol (construction order)."""
    bases = [s.name.rsplit("_", 1)[0] for s in law.values]
    counts = Counter(bases)
    seen = Counter()
    out = {}
    for sym, base in zip(law.values, bases):
        name = _DISPLAY.get(base, base)
        seen[base] += 1
        out[sym] = sp.Symbol(name if counts[base] == 1 else f"{name}_{seen[base]}")
    return out


def equation_parameters(law, in_beta=False):
    """The parameter symbols of :func:`algebraic_equation` (``symbolic=True``) → their exact
    values for this law (a dict of sympy objects)."""
    if family(law) is not None:
        return _family_values(law, in_beta)
    names = _generic_names(law)
    return {names[s]: v for s, v in law.values.items()}


def algebraic_equation(law, symbolic=False, in_beta=False):
    """The polynomial P(G, z) with P(G_μ(z), z) = 0 for an algebraic law μ.

    Parameters
    ----------
    law : AlgebraicLaw
        Any law built by the polynomial method (``symbolic_polynomial`` and ``values``), e.g.
        :func:`freeattn.attention_law`, :class:`freeattn.MarchenkoPastur`, their ⊠ products.
    symbolic : bool, default False
        False: the parameter values substituted exactly (floats at their exact binary value,
        θ₁ = e^{β²} − 1 kept exact).  True: parameters kept as symbols named as in the papers
        (θ₁, θ₂, γ_K, h for attention laws; see :func:`equation_parameters` for their values).
    in_beta : bool, default False
        Attention laws only: write θ₁ = e^{β²} − 1, θ₂ = β² in terms of β.

    Returns
    -------
    sympy.Expr
        P in the symbols ``freeattn.algebraic.polynomial.G`` and ``z`` (irreducible, the factor
        carrying G ~ 1/z at infinity; defined up to a constant factor).  The same law gives the
        same expression on every call.

    Raises
    ------
    TypeError
        If ``law`` has no polynomial (not an AlgebraicLaw).

    Notes
    -----
    Convention G(z) = ∫ dμ(x)/(z − x), G ~ 1/z, Im G < 0 for Im z > 0.  Edges of the support are
    real roots of the discriminant of P in G; atoms sit at roots of its leading coefficient
    (Rao & Edelman 2008).  Attention law: Hayase & Karakida 2026, (C.8)–(C.9).

    Examples
    --------
    >>> from freeattn import MarchenkoPastur
    >>> algebraic_equation(MarchenkoPastur(0.5))
    G**2*z/2 - G*z + G/2 + 1
    >>> algebraic_equation(MarchenkoPastur(0.5), symbolic=True)
    G**2*y*z - G*y - G*z + G + 1
    """
    algebraic_law(law)
    kind = family(law)
    if kind is not None:
        P = family_polynomial(kind)
        if in_beta:
            P = sp.expand(P.xreplace({S.theta_1: sp.exp(S.beta**2) - 1, S.theta_2: S.beta**2}))
        if symbolic:
            return P
        return sp.expand(P.xreplace(_family_values(law, in_beta)))
    if symbolic:
        return sp.expand(law._factor.xreplace(_generic_names(law)))
    return sp.expand(law.polynomial)
