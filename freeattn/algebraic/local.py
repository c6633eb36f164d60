"""Local expansions of P(G, z) = 0: square-root edges, poles (atoms), and G at tiny |z|.

- at a square-root edge e: P(G_e + u, e + δ) = Σ p_ij u^i δ^j with p_00 = p_10 = 0 exactly, so
  u(δ) ~ √δ keeps full relative accuracy (the double root G_e from ∂P/∂G);
- at an atom a touching the support: H = (z − a)G, P̃(H, δ) = δ^deg P(H/δ, a + δ);
- at z = 0: the nested Puiseux data of the branch from the Newton polygon of P (segments,
  multiple roots shifted to the next level), matched to the branch at two moderate points.

Puiseux series and the Newton polygon: e.g. Walker, *Algebraic Curves* (1950), ch. IV.
:class:`LocalMixin` is a part of :class:`freeattn.laws.AlgebraicLaw`.
"""
from __future__ import annotations

import math
from functools import cached_property

import mpmath
import numpy as np
import sympy as sp

from .._context import FLOAT64, FLOAT_EPS, FLOAT_REFERENCE_DPS, MPMATH, tolerance, workdps
from .roots import newton_polish, newton_polish_array, polyroots

__all__ = ["LocalMixin"]

#: two roots of a Newton-polygon segment polynomial closer than this (× the largest) are one
#: multiple root (sheets of G sharing their leading term at z = 0)
_MERGED_ROOTS = 1e-6
#: guard bits of the mpmath Newton iterations' stopping tests
_NEWTON_GUARD_BITS = 4
#: most Newton steps of the double root at an edge, and of the other mpmath local roots
#: (Puiseux leading coefficients, G at tiny |z|)
_DOUBLE_ROOT_STEPS = 100
_LOCAL_NEWTON_STEPS = 200
#: extra bits of the roots of ∂P/∂G(·, e) at a square-root edge (the double root of P there is
#: an ill-conditioned root of P, a simple one of ∂P/∂G; the margin keeps its candidates sharp)
_DOUBLE_ROOT_EXTRA_BITS = 60
#: |∂P̃/∂H| at the mass below this (× the largest coefficient) makes the mass a double root
_DOUBLE_MASS = 1e-12
#: re-expanded coefficients below this (× the largest) are rounding residue of exact zeros
_RESIDUE = 1e-24
#: the same at the working precision: digits below it (30-digit rows: 1e-24)
_RESIDUE_GUARD_DPS = 6
#: float64 Newton on the edge expansion: stop at a step of _EDGE_STEP_STOP·|u|, accept at
#: _EDGE_STEP_OK·|u|; the expansion's root kept within _SAME_SHEET·|ref| of the global solve
_EDGE_STEP_STOP = 1e-15
_EDGE_STEP_OK = 1e-13
#: most Newton steps of the float64 edge-expansion root, and of the mpmath one (with its
#: stopping test's guard bits)
_EDGE_NEWTON_STEPS = 30
_EDGE_MP_NEWTON_STEPS = 60
_EDGE_GUARD_BITS = 6
_SAME_SHEET = 1e-3
#: stopping test of the 30-digit Newton polish of a float64 edge-expansion root that float64
#: cannot settle (:meth:`LocalMixin._edge_local_mp`): far below float64's rounding, above
#: the 30-digit coefficients' noise amplified by the cancellation next to an atom (~1e8)
_EDGE_MP_POLISH_RTOL = 1e-20
#: most steps of that polish (its start is the float64 root, ~1e-8 of G off at worst:
#: Newton doubles the digits each step)
_EDGE_MP_POLISH_STEPS = 8
#: a float64 edge-expansion root whose error bound from its coefficients' rounding
#: (:meth:`LocalMixin._edge_root_error`) exceeds this × |Im u| is polished at 30 digits
_EDGE_FLOAT_TRUST = 1e-12
#: an edge expansion whose nonzero float64 coefficients all lie within this factor of 1 is
#: kept unscaled; beyond it (squares in the seed's discriminant and Newton's powers of u
#: would overflow or lose range) it is stored in scaled variables (:func:`edge_root_scaled`)
_EDGE_FLOAT_RANGE = 1e100
#: |δ| below which the float64 expansion at an atom loses u = H − mass; the two distances
#: from which its power law is continued there
_POLE_EXPANSION_FLOOR = 1e-16
_POLE_POWER_PROBES = (1e-16, 1e-18)
#: digits below the working precision at which a Puiseux coefficient counts as zero
_PUISEUX_LOST_DPS = 12
#: relative distance of two Puiseux roots taken as one multiple root
_PUISEUX_MERGE = 1e-8
#: digits beyond the working precision of the mpmath Puiseux Newton steps
_PUISEUX_EXTRA_DPS = 5
#: float64 Newton of the rescaled polynomial at tiny |z|: stop at a step of this × |H|
_TINY_STEP_STOP = 1e-15
#: digits on top of dps of the mpmath G at tiny |z| (the nested data rebuilt there), and the
#: stopping test of its Newton iteration; the least precision of the nested data
_TINY_EXTRA_DPS = 30
_TINY_NEWTON_DPS = 20
_TINY_MIN_DPS = FLOAT_REFERENCE_DPS + 20
#: the scales of the tiny-z zone and of its match points are at most these × the distance
#: from 0 to the nearest other breakpoint (:attr:`LocalMixin._tiny_radius`: the zone
#: _TINY_Z × it within 1/20 of that distance, the first match point within 1/100)
_NEAR_ZONE = 5e3
_NEAR_MATCH = 1e2
#: where the branch has not settled on its leading Puiseux term at the match points (another
#: branch point close to 0 off the real support, or a large next term), the match is tried
#: again at points this much closer to 0, at most this many times (the tiny-z zone shrinks
#: with them): attention_law(0.05, 1, 1) has G·√z = 9.7 − 29i at i·1e-4, −105.40i at i·1e-14
_TINY_RETRY_SHRINK = 1e-3
_TINY_RETRIES = 3
#: decades of |G|^deg beyond which float64 P(G, z) is out of range (its coefficients and
#: companion roots overflow): there G at tiny |z| comes from the Puiseux data alone
_FLOAT_RANGE_DECADES = 250
#: the smallest subnormal, signed like the real part of a tiny z (never −0)
_SMALLEST = 5e-324



def _pow_split(m, e, a):
    """(m·2^e)^a as (mantissa, exponent) for m > 0, integer arrays e and rational a = p/q:
    m^a·2^{r/q} and n with e·p = n·q + r (an exact integer split, so the result keeps the
    relative accuracy of m^a: exp(a·log z) would lose |a log z|·ε, 4e-14 at z ~ 1e-300)."""
    p, q = int(sp.Rational(a).p), int(sp.Rational(a).q)
    ep = np.asarray(e, dtype=np.int64) * p
    n = np.floor_divide(ep, q)
    return np.asarray(m, dtype=float) ** (p / q) * np.exp2((ep - n * q) / q), n


def _lowest_powers(p):
    """j_i: the lowest power of δ with a non-zero coefficient in row i of a local expansion
    (None for a zero row)."""
    return [next((j for j, v in enumerate(row) if v != 0), None) for row in p]


def _seed_order(low):
    """The power k of u that balances the constant term as δ → 0: the end of the first
    segment of the Newton polygon of Σ p_ij u^i δ^j from (0, j₀) (``low``: the j_i of
    :func:`_lowest_powers`), where u ~ δ^{(j₀ − j_k)/k}.  2 (the local quadratic) unless the
    steepest segment ends beyond u²: a pole whose mass is a triple root of P̃(·, 0) has
    u ~ δ^{1/3} (free_multiplicative_power(MarchenkoPastur(3.875), 3): rows u⁰δ⁴, u³δ³, no u²)."""
    if low[0] is None:
        return 2
    slopes = {i: (low[0] - low[i]) / i for i in range(1, len(low)) if low[i] is not None}
    if not slopes:
        return 2
    best = max(slopes.values())
    on = [i for i, v in slopes.items() if v == best]
    # a segment through intermediate points (the tied K=V layer's u⁰δ⁸, u²δ⁷, u⁴δ⁶) keeps the
    # quadratic, from which Newton converges there; a two-point segment to u^k, k > 2, the
    # k-th root (the quadratic has no root when there is no u² term)
    return on[0] if len(on) == 1 and best > 0 and on[0] > 2 else 2


def edge_root_seed(q, sgn, ctx, k=2):
    """The root of the local quadratic q₀ + q₁ u + q₂ u² with sgn·Im u the smaller: the start
    of Newton on the full local polynomial Σ q_i u^i next to an edge (u = G − G_e; sgn = 1)
    or a pole (u = H − mass, sgn = sign δ).  ``k`` > 2 (:func:`_seed_order`): the k-th root
    of −q₀/q_k whose argument is nearest −sgn·π/(2k).  Written once against ``ctx``
    (:data:`~freeattn._context.FLOAT64`: arrays; :data:`~freeattn._context.MPMATH`: scalars).
    """
    if k > 2:
        # u ≈ c·δ^{1/k} is analytic in ℂ⁺ with sgn·Im u ≤ 0 on both sides of the end, so
        # arg u lies in [−π/k, 0] for δ > 0 ([0, π/k] for δ < 0): of the k roots (2π/k
        # apart) the one nearest the middle of that window (with sgn·Im u the smallest, the
        # ⊠-power MP(6)^⊠5 read its density 1.618× too high: arg −108° for −36°)
        root = (-q[0] / q[k] + 0j) ** (ctx.number(1) / k)
        mid = math.cos(math.pi / (2 * k)) + 1j * sgn * math.sin(math.pi / (2 * k))
        best, score = root, (root * mid).real
        for m in range(1, k):
            c = root * complex(math.cos(2 * math.pi * m / k), math.sin(2 * math.pi * m / k))
            closer = (c * mid).real > score
            best, score = ctx.where(closer, c, best), ctx.where(closer, (c * mid).real, score)
        return best
    disc = ctx.sqrt(q[1] ** 2 - 4 * q[2] * q[0] + 0j)
    u1 = (-q[1] + disc) / (2 * q[2])
    u2 = (-q[1] - disc) / (2 * q[2])
    return ctx.where(sgn * u1.imag <= sgn * u2.imag, u1, u2)


def _local_coefficients(p, delta):
    """q_i(δ) = Σ_j p_ij δ^j (Horner in δ) of a local expansion's rows ``p``: float64 rows
    and arrays δ, or mpf rows and an mpf δ."""
    q = []
    for row in p:
        acc = row[-1] + 0 * delta
        for c in row[-2::-1]:
            acc = acc * delta + c
        q.append(acc)
    return q


def edge_root(p, delta, sgn, ctx, seed=None):
    """The root u of the local polynomial Σ_i q_i(δ) u^i, q_i(δ) = Σ_j p_ij δ^j, next to an
    edge (u = G − G_e, sgn = 1) or a pole (u = H − mass, sgn = sign δ): the coefficients by
    Horner in δ, the start from the local quadratic (:func:`edge_root_seed`), then Newton.
    Written once against ``ctx``: :data:`~freeattn._context.FLOAT64` (``p`` an array, δ an
    array; Newton by :func:`~.roots.newton_polish_array`, stopped at a step of
    _EDGE_STEP_STOP·|u|) or :data:`~freeattn._context.MPMATH` (``p`` a list of rows of mpf, δ
    an mpf; :func:`~.roots.newton_polish` to the working precision).

    Returns
    -------
    (u, ok) : the root, and where Newton converged (step ≤ _EDGE_STEP_OK·|u| in float64)

    ``seed``: Newton's start instead of the local quadratic's root (a value of
    the branch continued along the axis: where the quadratic's roots are real, Newton from
    them stays on the axis).
    """
    # the common factor δ^m of every row (m: the lowest power of δ in any row) divides out
    # exactly; kept, it underflows: next to an atom whose P̃ starts at u⁰δ⁴, q₀ = 0 in double
    # below δ ~ 1e-77 and u came out 0 (the density 0 at 1e-100 from the atom)
    low = _lowest_powers(p)
    m = min((j for j in low if j is not None), default=0)
    if m:
        p = [row[m:] for row in p] if ctx is MPMATH else p[:, m:]
        low = [None if j is None else j - m for j in low]
    q = _local_coefficients(p, delta)
    if seed is None:
        u = edge_root_seed(q, sgn, ctx, _seed_order(low))
    else:
        u = seed if ctx is MPMATH else np.asarray(seed, dtype=complex)
    if ctx is MPMATH:
        tol = mpmath.mpf(2) ** (-mpmath.mp.prec + _EDGE_GUARD_BITS)
        return newton_polish(q[::-1], u, tol, _EDGE_MP_NEWTON_STEPS)
    u, step = newton_polish_array(q[::-1], u, _EDGE_NEWTON_STEPS, _EDGE_STEP_STOP)
    return u, step <= _EDGE_STEP_OK * np.abs(u)


def edge_root_scaled(edge, delta, sgn, seed=None):
    """float64 :func:`edge_root` of an edge (or pole) expansion stored in scaled variables:
    ``edge["p"]`` holds p̃_ij = p_ij·U^i·D^j/S (U, D, S powers of two, :meth:`LocalMixin.
    _edge_expansion`), the root s of Σ p̃_ij s^i t^j at t = δ/D, and u = U·s.  Powers of two
    scale every step of the root exactly (Horner, the seed's discriminant, Newton), so the
    result is the unscaled one bit for bit wherever that one stays in range; the scaled
    coefficients are O(1) where the unscaled ones overflow float64 (p_ij ~ 1e244 next to the
    atom at 0 of a ρ layer law, |G_e| ~ 1e4).  An expansion without ``"U"``/``"D"`` is
    unscaled.  ``seed``: Newton's start u₀ (:func:`edge_root`)."""
    U, D = edge.get("U", 1.0), edge.get("D", 1.0)
    s, ok = edge_root(edge["p"], delta / D, sgn, FLOAT64, None if seed is None else seed / U)
    return U * s, ok


def _pow2(v):
    """The power of two nearest a positive mpf ``v`` in log scale (as an mpf, exact)."""
    return mpmath.ldexp(mpmath.mpf(1), int(round(float(mpmath.log(v, 2)))))


def _float_rational(r):
    return float(r)


def _mp_rational(r):
    return mpmath.mpf(r.p) / r.q


def _puiseux_terms(terms, logz, zero, exp, rational, coef):
    """b_k = Σ_e q_{k,e} z^e and b_k^z = Σ_e e·q_{k,e} z^e (z·∂/∂z) of the rescaled
    polynomial Q_n(H, z) = Σ b_k H^k, z^e as exp(e log z).  Written once for float64 arrays
    (``zero`` an array of zeros, ``exp`` = numpy.exp, ``rational`` = float, ``coef`` =
    complex) and mpmath scalars (mpc(0), mpmath.exp, mpf(p)/q, mpc)."""
    deg = max(k for k, _ in terms)
    b = [zero] * (deg + 1)
    bz = [zero] * (deg + 1)
    for (k, e), v in terms.items():
        ef = rational(e)
        w = coef(v) * exp(ef * logz) if e else coef(v) + zero
        b[k] = b[k] + w
        bz[k] = bz[k] + ef * w
    return b, bz


def _puiseux_unwind(b, bz, h, levels, logz, exp, rational, coef):
    """(X₀, z X₀′) from H, the root of Σ b_k H^k: z H′ = −(Σ b_k^z H^k)/(Σ k b_k H^{k−1}),
    then X_{i−1} = C_{i−1} + z^{a_i}X_i and z X_{i−1}′ = z^{a_i}(a_i X_i + z X_i′) down to
    level 0 (Horner; written once, as :func:`_puiseux_terms`)."""
    p = dp = pz = 0 * h
    for k in range(len(b) - 1, -1, -1):
        dp = dp * h + p
        p = p * h + b[k]
        pz = pz * h + bz[k]
    x, zx = h, -pz / dp
    for i in range(len(levels) - 1, 0, -1):
        a = rational(levels[i][0])
        w = exp(a * logz)
        x, zx = coef(levels[i - 1][1]) + w * x, w * (a * x + zx)
    return x, zx


class LocalMixin:
    """Local expansions at edges, atoms and z = 0 (a part of AlgebraicLaw)."""

    @cached_property
    def _zero_sheets_merge(self):
        """Whether a segment polynomial of the Newton polygon of P(G, z) at z = 0 has a
        multiple nonzero root (sheets of G with the same leading term C·z^a at 0)."""
        c = self._num.coefficients_mp()
        terms = {(k, sp.Integer(j)): v for k, row in enumerate(c) for j, v in enumerate(row)
                 if v != 0}
        for _, _, seg in self._newton_polygon(terms):
            k0 = min(seg)
            coef = np.array([complex(seg.get(k, 0)) for k in range(max(seg), k0 - 1, -1)])
            if coef.size <= 2:
                continue
            r = np.roots(coef)
            scale = np.max(np.abs(r))
            d = np.abs(r[:, None] - r[None, :])
            np.fill_diagonal(d, np.inf)
            if np.min(d) <= _MERGED_ROOTS * scale:
                return True
        return False

    def _double_root(self, e, g_guess):
        """The double root G_e of P(·, e) at a square-root edge e (current precision): the root
        of ∂P/∂G(·, e) nearest ``g_guess``, polished by Newton (a simple root there)."""
        c = self._num.coefficients_mp()
        ep = [e**j for j in range(len(c[0]))]
        # P(·, e) (highest power last), and ∂P/∂G(·, e) from it (highest power first)
        pe = [sum(c[k][j] * ep[j] for j in range(len(c[0])) if c[k][j] != 0) for k in range(len(c))]
        dcoef = [k * pe[k] for k in range(len(pe) - 1, 0, -1)]
        while len(dcoef) > 1 and dcoef[0] == 0:
            dcoef.pop(0)
        cands = polyroots(dcoef, extraprec=_DOUBLE_ROOT_EXTRA_BITS) if len(dcoef) > 1 else []
        ge = mpmath.mpf(complex(g_guess).real)
        if cands:
            # a root of ∂P/∂G is the double root only where P vanishes too: among the
            # candidates that are roots of P(·, e) (relative residual), the nearest the guess
            def residual(r):
                num = abs(sum(pe[k] * r**k for k in range(len(pe))))
                return num / (sum(abs(pe[k] * r**k) for k in range(len(pe))) or 1)

            double = [r for r in cands if residual(r) <= tolerance(mpmath.mp.dps // 2)]
            ge = mpmath.re(min(double or cands, key=lambda r: abs(complex(r) - complex(g_guess))))
        tol = mpmath.mpf(2) ** (_NEWTON_GUARD_BITS - mpmath.mp.prec)
        if len(dcoef) > 1:  # ∂P/∂G(·, e) as a polynomial in G (constant: ge is the guess)
            ge, _ = newton_polish(dcoef, ge, tol, _DOUBLE_ROOT_STEPS, floor=1)
        return ge

    def _pole_polynomial(self, a):
        """Coefficients (mpf, c̃[k][n] of H^k δ^n) of P̃(H, δ) = δ^deg P(H/δ, a + δ): the
        polynomial of H = (z − a)G next to a pole a, whose value at δ = 0 is the atom's mass."""
        c = self._num.coefficients_mp()
        d = len(c) - 1
        dz = len(c[0]) - 1
        out = [[mpmath.mpf(0)] * (d + dz + 1) for _ in range(d + 1)]
        ap = [a**n for n in range(dz + 1)]
        for k in range(d + 1):
            for j in range(dz + 1):
                if c[k][j] == 0:
                    continue
                for i in range(j + 1):
                    out[k][d - k + i] += c[k][j] * math.comb(j, i) * ap[j - i]
        return out

    def _edge_coefficients(self, e, ge, c=None):
        """p_ij with P(G_e + u, e + δ) = Σ p_ij u^i δ^j at the current precision (mpf);
        ``c`` another coefficient table (default: P's own)."""
        if c is None:
            c = self._num.coefficients_mp()
        deg, degz = len(c) - 1, len(c[0]) - 1
        gp = [ge**n for n in range(deg + 1)]
        ep = [e**n for n in range(degz + 1)]
        # the Taylor shift in z, then in G (O(deg·degz² + deg²·degz) products, not their
        # product as a four-fold sum)
        q = [[mpmath.mpf(0)] * (degz + 1) for _ in range(deg + 1)]
        for k in range(deg + 1):
            for j in range(degz + 1):
                acc = mpmath.mpf(0)
                for jj in range(j, degz + 1):
                    if c[k][jj] != 0:
                        acc += c[k][jj] * math.comb(jj, j) * ep[jj - j]
                q[k][j] = acc
        p = [[mpmath.mpf(0)] * (degz + 1) for _ in range(deg + 1)]
        for i in range(deg + 1):
            for j in range(degz + 1):
                acc = mpmath.mpf(0)
                for k in range(i, deg + 1):
                    if q[k][j] != 0:
                        acc += q[k][j] * math.comb(k, i) * gp[k - i]
                p[i][j] = acc
        p[0][0] = mpmath.mpf(0)
        p[1][0] = mpmath.mpf(0)
        return p

    def _edge_expansion(self, e, g_guess):
        """Re-expansion of P at a square-root edge: P(G_e + u, e + δ) = Σ p_ij u^i δ^j with
        p_00 = p_10 = 0 set exactly, so that u(δ) ~ sqrt(δ) keeps full relative accuracy."""
        with workdps(FLOAT_REFERENCE_DPS):
            ge = self._double_root(e, g_guess)
            pm = self._edge_coefficients(e, ge)
            U, D, S = self._edge_scales(e, pm)
            p = np.array([[float(v * U**i * D**j / S) for j, v in enumerate(row)]
                          for i, row in enumerate(pm)])
            ef = float(e)
            return {"x": ef, "corr": float(ef - e), "g": float(ge), "p": p, "e_mp": e,
                    "U": float(U), "D": float(D), "p_mp": pm, "g_mp": ge}

    def _edge_scales(self, e, pm):
        """Powers of two (U, D, S) that make the edge expansion's coefficients O(1) in
        s = u/U, t = δ/D (:func:`edge_root_scaled`): D the distance from e to the nearest
        other breakpoint, U the size of u ~ √(−p₀₁δ/p₂₀) at δ = D, S the largest scaled
        coefficient.  Where every unscaled coefficient is within _EDGE_FLOAT_RANGE of 1 (and
        not 0 only) the expansion is kept unscaled (U = D = S = 1: the same float64 values
        as before the scaling existed)."""
        one = mpmath.mpf(1)
        nz = [abs(v) for row in pm for v in row if v != 0]
        if not nz or (max(nz) <= _EDGE_FLOAT_RANGE and min(nz) >= 1 / _EDGE_FLOAT_RANGE):
            return one, one, one
        bps = [abs(b - e) for b in self._branch(None).breakpoints if b != e]
        D = _pow2(min(bps)) if bps and min(bps) > 0 else one
        U = one
        if pm[0][1] != 0 and len(pm) > 2 and pm[2][0] != 0:
            U = _pow2(mpmath.sqrt(abs(pm[0][1]) * D / abs(pm[2][0])))
        S = _pow2(max(abs(v) * U**i * D**j for i, row in enumerate(pm)
                      for j, v in enumerate(row) if v != 0))
        return U, D, S

    def _pole_expansion(self, a, mass):
        """Local expansion at an atom a that touches the support: with H = (z − a)G and
        P̃(H, δ) = δ^deg P(H/δ, a + δ), H → mass as δ → 0.  When the mass is a multiple root
        of P̃(·, 0) (e.g. ⊠ of two laws with equal atoms, where the density next to the atom
        diverges like δ^{-1/2}) the roots merge there and float64 eigenvalues lose half the
        digits; P̃ re-expanded at (mass, 0) keeps u = H − mass to full relative accuracy."""
        with workdps(FLOAT_REFERENCE_DPS):
            ct = self._pole_polynomial(a)
            # P̃(·, 0) and its derivative at the mass: a double root makes both vanish
            p0 = [row[0] for row in ct]
            d1 = sum(k * p0[k] * mass ** (k - 1) for k in range(1, len(p0)))
            size = max(abs(v) for v in p0) or 1
            if abs(d1) > _DOUBLE_MASS * size:
                return None
            p = self._edge_coefficients(mpmath.mpf(0), mass, c=ct)
            p = np.array([[float(v) for v in row] for row in p])
            # coefficients that vanish exactly but come out of the 30-digit re-expansion as
            # rounding residue (1e-42 next to O(1) in the tied K=V layer) dominate the
            # expansion once δ is below ~1e-21 (there the root jumped to another sheet)
            p[np.abs(p) <= _RESIDUE * np.abs(p).max()] = 0.0
            return {"x": float(a), "corr": float(mpmath.mpf(float(a)) - a), "g": float(mass),
                    "p": p, "e_mp": a, "pole": True}

    @staticmethod
    def _edge_local(edge, delta, g_fallback, ref=None, extrapolate=True):
        """Branch near a square-root edge from the local expansion (see _edge_expansion);
        ``delta`` = x − e, measured from the exact edge.  The expansion's root is kept where
        it agrees with ``ref`` (default ``g_fallback``) to 1e-3 (same sheet), else
        ``g_fallback``.  At an edge, where the float64 root is unsettled, on another sheet or
        not resolved by its coefficients' rounding (:meth:`_edge_root_error`), it is polished
        at 30 digits from a finite ``g_fallback`` (:meth:`_edge_local_mp`).  ``extrapolate``
        False: no power-law continuation below the expansion's floor (the probes' own call)."""
        if ref is None:
            ref = g_fallback
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            # Im G < 0: Im u < 0 for an edge; for a pole G = (mass + u)/δ, so sign(δ)·Im u < 0
            sgn = np.sign(delta) if edge.get("pole") else 1.0
            u, conv = edge_root_scaled(edge, delta, sgn)
            if not edge.get("pole") and "p_mp" in edge:
                # where Newton from the local quadratic's root did not settle (its roots real,
                # or far from the branch once higher terms matter), settled on another sheet's
                # root than ``ref``'s, or is not resolved (P's float64 rounding
                # next to an atom: |G| ~ 1e4, G lost to ~1e-8, Im G to 1e-5, where float64
                # Newton "settles" on noise), Newton on the expansion's 30-digit coefficients
                # from the general route's value ``g_fallback`` (where it is one: finite):
                # the root of P nearest it
                again = ((~conv | (LocalMixin._edge_root_error(edge, delta, u)
                                   > _EDGE_FLOAT_TRUST * np.abs(u.imag))
                          | ~(np.abs(edge["g"] + u - ref) <= _SAME_SHEET * np.abs(ref)))
                         & np.isfinite(g_fallback) & np.isfinite(delta))
                if np.any(again):
                    u, conv = np.array(u, dtype=complex), conv.copy()
                    u[again] = g_fallback[again] - edge["g"]
                    LocalMixin._edge_local_mp(edge, delta, u, conv, again)
            g = edge["g"] + u
            if edge.get("pole"):
                g = g / delta
            # accept the local root when Newton converged on the same sheet as the global solve
            ok = np.isfinite(g) & (g.imag <= 0) & conv
            if not edge.get("pole"):  # at an atom the expansion is the better of the two
                ok &= np.abs(g - ref) <= _SAME_SHEET * np.abs(ref)
        if edge.get("pole") and extrapolate and not np.all(ok):
            # below ~1e-21 the float64 expansion loses u = H − mass (P̃'s coefficients span
            # δ^6…δ^8 in the tied K=V layer); there H − mass is continued by its power law
            # u ∝ |δ|^p, p and the phase from two points where the expansion still holds
            tiny = ~ok & (np.abs(delta) < _POLE_EXPANSION_FLOOR)
            if np.any(tiny):
                for sgn in (-1.0, 1.0):
                    m = tiny & (np.sign(delta) == sgn)
                    if not np.any(m):
                        continue
                    d12 = sgn * np.array(_POLE_POWER_PROBES)
                    # the probes themselves are not extrapolated: where the expansion fails
                    # at a probe too, the general route's value stays (it recursed without
                    # end: free_multiplicative_power(MarchenkoPastur(3.875), 3))
                    g12 = LocalMixin._edge_local(edge, d12, np.full(2, np.nan + 0j),
                                                 extrapolate=False)
                    u12 = g12 * d12 - edge["g"]
                    if np.all(np.isfinite(u12)) and np.all(np.abs(u12) > 0):
                        pw = (math.log(abs(u12[0]) / abs(u12[1]))
                              / math.log(_POLE_POWER_PROBES[0] / _POLE_POWER_PROBES[1]))
                        u = u12[1] * (np.abs(delta[m]) / _POLE_POWER_PROBES[1]) ** pw
                        g = np.array(g, dtype=complex)
                        g[m] = (edge["g"] + u) / delta[m]
                        ok = ok | m
        return np.where(ok, g, g_fallback)

    @staticmethod
    def _edge_root_error(edge, delta, u):
        """A bound on the error of the float64 root u of the edge expansion from the rounding
        of its coefficients: ε·Σ|p̃_ij||s|^i|t|^j / |∂_s Σ p̃_ij s^i t^j|·U (scaled variables of
        :func:`edge_root_scaled`; inf where the derivative vanishes)."""
        p, U, D = edge["p"], edge.get("U", 1.0), edge.get("D", 1.0)
        s, t = u / U, delta / D
        at, asb = np.abs(t), np.abs(s)
        mag = np.zeros(np.shape(s))
        der = np.zeros(np.shape(s), dtype=complex)
        for i in range(p.shape[0] - 1, -1, -1):
            qa = np.zeros(np.shape(s))
            qi = np.zeros(np.shape(s), dtype=complex)
            for c in p[i][::-1]:
                qa = qa * at + abs(c)
                qi = qi * t + c
            mag = mag * asb + qa
            if i:
                der = der * s + i * qi
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(der != 0, FLOAT_EPS * mag / np.abs(der) * U, np.inf)

    @staticmethod
    def _edge_local_mp(edge, delta, u, conv, which):
        """In place: u at the points ``which`` by Newton on the edge expansion's
        FLOAT_REFERENCE_DPS-digit coefficients from the float64 u there (its start), kept
        (``conv`` set) where a step falls to _EDGE_MP_POLISH_RTOL·(|u| + |G_e|) within
        _EDGE_MP_POLISH_STEPS steps."""
        with workdps(FLOAT_REFERENCE_DPS):
            ge = edge["g_mp"]
            rtol = mpmath.mpf(_EDGE_MP_POLISH_RTOL)
            for k in np.flatnonzero(which):
                q = _local_coefficients(edge["p_mp"], mpmath.mpf(float(delta[k])))
                # the step against |u| + |G_e|: G's relative accuracy is what counts
                uk, ok = newton_polish(q[::-1], mpmath.mpc(complex(u[k])) + (edge["g"] - ge),
                                       rtol, _EDGE_MP_POLISH_STEPS, floor=abs(ge))
                if ok:
                    u[k] = complex(uk + ge - edge["g"])
                    conv[k] = True

    # ------------------------------------------------- G at tiny |z| (z → 0)
    #: |z| below which G is evaluated from the Puiseux-rescaled polynomial (× the scale)
    _TINY_Z = 1e-5

    #: |z| (× the scale, on the upper imaginary axis) where the float route fixes the branch
    _TINY_MATCH = (1e-4, 1e-5)

    @staticmethod
    def _newton_polygon(terms):
        """Candidates (a, m, segment) of a polynomial Σ c_{k,e} X^k z^e (terms: {(k, e): c},
        e rational): X ~ C z^a on each lower-hull segment of the points (k, min e), with
        m = min_k (k a + e_k) and the segment polynomial {k: c} (Puiseux)."""
        val = {}
        for (k, e), v in terms.items():
            if k not in val or e < val[k]:
                val[k] = e
        ks = sorted(val)
        hull = []
        for k in ks:
            while len(hull) >= 2:
                (k1, v1), (k2, v2) = hull[-2], hull[-1]
                if (v2 - v1) * (k - k1) >= (val[k] - v1) * (k2 - k1):
                    hull.pop()
                else:
                    break
            hull.append((k, val[k]))
        out = []
        for (k1, v1), (k2, v2) in zip(hull, hull[1:]):
            a = -sp.Rational(v2 - v1) / (k2 - k1)
            m = k1 * a + v1
            out.append((a, m, {k: terms[(k, val[k])] for k in range(k1, k2 + 1)
                               if k in val and k * a + val[k] == m}))
        return out

    def _tiny_levels(self, wp):
        """Nested Puiseux data of the Stieltjes branch at z = 0 at wp digits, or None.

        G = z^{a_0}(C_0 + z^{a_1}(C_1 + … z^{a_n} H)), H the root near C_n of the exact
        rescaled polynomial Q_n(H, z) = Σ q_{k,e} H^k z^e (all e ≥ 0, Q_n(·, 0) has C_n as a
        simple root).  Level 0 is the Newton polygon of P(G, z); where its C is a multiple
        root (an atom whose mass is a double root, e.g. an atom at 0 on a support touching
        0) the polynomial is shifted to C + u (coefficients that cancel exactly are zeroed)
        and the next level is read off the polygon of u.  Each level's (a, C) is the
        candidate that the float route matches at two moderate z = i·r on the upper half
        axis; None where that match is not unambiguous (the general route stays)."""
        cache = self.__dict__.setdefault("_tiny_cache", {})
        if wp in cache:
            return cache[wp]
        if self.__dict__.get("_tiny_ref") is None:
            self._tiny_ref, cache[_TINY_MIN_DPS] = self._tiny_match()
            if wp in cache:
                return cache[wp]
        zs, gs, _ = self._tiny_ref
        result = None
        if gs is not None:
            with workdps(wp):
                result = self._build_levels(zs, gs, wp)
        cache[wp] = result
        return result

    def _tiny_match(self):
        """((zs, gs, shrink), data): the match points zs = i·r·scale·shrink (r in
        _TINY_MATCH) of the Puiseux data at 0, the float route's G there, and the data they
        give at _TINY_MIN_DPS (:meth:`_build_levels`, None where the match is not
        unambiguous).  Tried at shrink = 1, then _TINY_RETRY_SHRINK^k closer to 0
        (k ≤ _TINY_RETRIES) while the match fails: where the branch settles on its leading
        term only well inside the first scale (the values law of
        MHAConfig.preset('mistral-7b', beta=0.0197): G·√z = 60 − 278i at i·1e-8, −435.4i at
        i·1e-14, next to a branch point at −5.7e-7) the data exist, on a zone as much smaller
        (:attr:`_tiny_zone`).  No retry where P is regular at 0 (no level 0)."""
        scale = self._tiny_scale(_NEAR_MATCH)
        with workdps(_TINY_MIN_DPS):
            regular = all(e == 0 for (_, e) in self._level_terms(_TINY_MIN_DPS))
        first = None
        for k in range(_TINY_RETRIES + 1):
            shrink = _TINY_RETRY_SHRINK ** k
            zs = np.array([1j * r * scale * shrink for r in self._TINY_MATCH])
            try:
                gs = self._cauchy_upper(zs)
            except ArithmeticError:
                gs = None
            data = None
            if gs is not None and not regular:
                with workdps(_TINY_MIN_DPS):
                    data = self._build_levels(zs, gs, _TINY_MIN_DPS)
            if data is not None:
                return (zs, gs, shrink), data
            if first is None:
                first = ((zs, gs, shrink), None)
            if regular:
                break
        return first

    @property
    def _tiny_zone(self):
        """|z| ≤ this is the zone where the Puiseux data at 0 answer: _TINY_Z·_tiny_radius,
        times the shrink of the match points where they were matched closer to 0
        (:meth:`_tiny_match`); read once the data are built."""
        ref = self.__dict__.get("_tiny_ref")
        return self._TINY_Z * self._tiny_radius * (ref[2] if ref is not None else 1.0)

    def _level_terms(self, wp):
        """P's terms {(k, e): c} at z = 0 (current precision wp), those below the rounding
        of the largest coefficient at wp digits dropped: level 0 of :meth:`_build_levels`."""
        c = self._num.coefficients_mp()
        terms = {(k, sp.Integer(j)): v for k, row in enumerate(c) for j, v in enumerate(row)
                 if v != 0}
        size = max(abs(v) for v in terms.values())
        tiny = tolerance(wp - _PUISEUX_LOST_DPS) * size
        return {ke: v for ke, v in terms.items() if abs(v) > tiny}

    @cached_property
    def _tiny_bound(self):
        """[(a, log10 R)] per segment of level 0's Newton polygon (:meth:`_level_terms` at
        ``_TINY_MIN_DPS``): every sheet's leading term C·z^a at z = 0 has a the segment's
        slope and |C| ≤ R (the largest root of its segment polynomial, one decade added for
        rounding and for the Newton polish of a multiple root).  A bound on the leading term
        of the branch that :meth:`_tiny_levels` would pick, known without the match points
        (a branch continuation from far above): :meth:`_tiny_only` answers from it where no
        point can be out of float64's range."""
        with workdps(_TINY_MIN_DPS):
            terms = self._level_terms(_TINY_MIN_DPS)
            out = []
            for a, _, seg in self._newton_polygon(terms):
                k0 = min(seg)
                coef = np.array([complex(seg.get(k, 0)) for k in range(max(seg), k0 - 1, -1)])
                r = np.abs(np.roots(coef))  # both end coefficients ≠ 0: roots ≠ 0
                if not (r.size and np.all(np.isfinite(r)) and np.min(r) > 0):
                    return None  # roots not resolved in float64: no bound
                out.append((float(a), math.log10(np.max(r)) + 1.0))
        return out

    def _build_levels(self, zs, gs, wp):
        terms = self._level_terms(wp)
        if all(e == 0 for (_, e) in terms):
            return None  # no coefficient vanishes at 0: regular there on every sheet
        xs = [complex(g) for g in gs]  # the current level's variable at the match points
        levels = []
        for _ in range(6):
            cands = []
            for a, m, seg in self._newton_polygon(terms):
                kmin, kmax = min(seg), max(seg)
                coeffs = [seg.get(k, mpmath.mpf(0)) for k in range(kmax, kmin - 1, -1)]
                try:
                    roots = polyroots(coeffs, extraprec=3 * wp)
                except mpmath.libmp.libhyper.NoConvergence:
                    # a segment polynomial with a repeated root that no root finder isolates
                    # (MP(1/4)^⊠3, MP(2)^⊠6 at z = 0): no nested data, as for a failed match
                    return None
                # zero roots relative to the segment's largest root, not to the coefficients'
                # size (P scaled by 1e48: attention_law(0.03, 0.002, 1) lost its roots ~1569i)
                r_tiny = tolerance(wp - _PUISEUX_LOST_DPS) * max(abs(r) for r in roots)
                for r in roots:
                    if abs(r) > r_tiny:
                        cands.append((a, m, seg, r))
            if not cands:
                return None
            picks = []
            for zq, xq in zip(zs, xs):
                def dist(t, zq=zq, xq=xq):
                    return abs(xq * zq ** (-float(t[0])) - complex(t[3])) / abs(complex(t[3]))
                best = min(cands, key=dist)
                err = dist(best)
                others = [abs(complex(t[3] - best[3])) / abs(complex(best[3]))
                          for t in cands if t is not best and t[0] == best[0]]
                if err > 0.3:
                    return None
                picks.append((best, err, others))
            if picks[0][0] is not picks[1][0]:
                return None
            a, m, seg, C = picks[0][0]
            # multiplicity of C among its segment's roots (merging sheets at z = 0)
            near = [t for t in cands if t[0] == a and abs(t[3] - C) <= _PUISEUX_MERGE * abs(C)]
            mult = len(near)
            if mult > 1:  # C from the (mult−1)-th derivative: a simple root there
                poly = {k: v for k, v in seg.items()}
                for _ in range(mult - 1):
                    poly = {k - 1: k * v for k, v in poly.items() if k > 0}
                C = mpmath.mpc(C)
                top = max(poly)
                C, _ = newton_polish([poly.get(k, 0) for k in range(top, -1, -1)], C,
                                     tolerance(wp + _PUISEUX_EXTRA_DPS), _LOCAL_NEWTON_STEPS)
            elif any(o < 4 * err for (_, err, others) in picks for o in others):
                return None
            C = mpmath.mpc(C)  # a real or imaginary leading coefficient exactly so
            lim = tolerance(wp // 2) * abs(C)
            C = mpmath.mpc(0 if abs(mpmath.re(C)) <= lim else mpmath.re(C),
                           0 if abs(mpmath.im(C)) <= lim else mpmath.im(C))
            # rescale X = z^a Y: q_{k, k a + e − m}
            terms = {(k, k * a + e - m): v for (k, e), v in terms.items()}
            xs = [xq * zq ** (-float(a)) for zq, xq in zip(zs, xs)]
            levels.append((a, C))
            if mult == 1:
                return {"levels": levels, "terms": terms}
            # shift Y = C + u
            shifted = {}
            for (k, e), v in terms.items():
                for i in range(k + 1):
                    key = (i, e)
                    shifted[key] = shifted.get(key, 0) + v * math.comb(k, i) * C ** (k - i)
            size = max(abs(v) for v in shifted.values())
            tiny = tolerance(wp // 2) * size
            terms = {ke: v for ke, v in shifted.items() if abs(v) > tiny}
            xs = [xq - complex(C) for xq in xs]
        return None

    def _tiny_scale(self, near):
        """The law's scale, or ``near`` × the distance from 0 to the nearest other breakpoint
        where that is smaller."""
        bd = self._branch(None)
        return min([bd._scale()] + [near * abs(float(b)) for b in bd.breakpoints if b != 0])

    @cached_property
    def _tiny_radius(self):
        """The length scale R of the tiny-z zone |z| ≤ _TINY_Z·R at 0: the law's scale, or
        _NEAR_ZONE × the distance d from 0 to the nearest other breakpoint where that is
        smaller (the zone within d/20: the Puiseux branch at 0 holds only well inside d;
        the match points are likewise within d/100, :meth:`_tiny_levels`).
        attention_law(0.01, 0.001, 1) has a support component [0, 2e-8]: matched at i·1e-4
        the data failed, so cdf(1e-200) was 0 and ppf(1e-100) 7e-158."""
        return self._tiny_scale(_NEAR_ZONE)

    @property
    def _tiny_z(self):
        return self._tiny_levels(_TINY_MIN_DPS)

    def _cauchy_tiny(self, zq, derivative=False, zsplit=None, factor=None):
        """G (or G′) at tiny zq with Im zq ≥ 0 (real zq as zq + i0, principal powers) from
        the nested Puiseux data of :meth:`_tiny_levels`: H by Newton on Q_n from C_n, then
        X_i = C_i + z^{a_{i+1}}X_{i+1}, G = z^{a_0}X_0 and z X_i′ = z^{a_{i+1}}(a_{i+1}X_{i+1}
        + z X_{i+1}′), G′ = z^{a_0−1}(a_0 X_0 + z X_0′).
        ``zsplit`` (optional, real z): (m, e, neg) with |z| = m·2^e and z < 0 where ``neg``
        (a z that underflows, e.g. a quadrature node δ = w·sin²(θ/2) with θ ~ 1e-160, given
        in the form :func:`numpy.frexp` gives); then G = z^{a₀}X₀ is formed by
        :func:`_pow_split` and :func:`numpy.ldexp` (full relative accuracy wherever the result
        is a normal double), times ``factor`` = (m', e') (value m'·2^e') if given: the product
        may be finite where G overflows."""
        t = self._tiny_z
        zq = zq.real + 1j * np.where(zq.imag == 0, 0.0, zq.imag)  # z + i0, never −0
        if zsplit is None:
            logz = np.log(zq)
        else:
            logz = (np.log(zsplit[0]) + zsplit[1] * math.log(2.0)
                    + 1j * np.where(zsplit[2], math.pi, 0.0))
        with np.errstate(under="ignore"):
            b, bz = _puiseux_terms(t["terms"], logz, np.zeros(zq.size, dtype=complex), np.exp,
                                   _float_rational, complex)
        deg = len(b) - 1
        C = complex(t["levels"][-1][1])
        h = np.full(zq.size, C, dtype=complex)
        # not roots.newton_polish_array: a zero derivative must leave h non-finite here (the
        # point is then flagged below), where that polish leaves it in place
        for _ in range(100):
            p = np.zeros_like(h)
            dp = np.zeros_like(h)
            for k in range(deg, -1, -1):
                dp = dp * h + p
                p = p * h + b[k]
            step = p / dp
            h = h - step
            if np.all(np.abs(step) <= _TINY_STEP_STOP * np.abs(h)):
                break
        bad = ~np.isfinite(h) | (np.abs(h - C) > 0.5 * abs(C))
        if np.any(bad):
            raise ArithmeticError(f"{self.name}: the local expansion of G at z = 0 failed at "
                                  f"z = {zq[bad][0]!r}")
        levels = t["levels"]
        with np.errstate(under="ignore"):
            x, zx = _puiseux_unwind(b, bz, h, levels, logz, np.exp, _float_rational, complex)
        a0 = float(levels[0][0])
        if derivative:
            out = self._zpow_times(zq, logz, levels[0][0] - 1, a0 * x + zx)
        elif zsplit is not None:
            mag, n = _pow_split(zsplit[0], zsplit[1], levels[0][0])
            fm, fe = factor if factor is not None else (1.0, 0)
            # z^{a₀} = |z|^{a₀}·e^{iπa₀} for z < 0 (z + i0, principal branch)
            val = mag * fm * np.where(zsplit[2], complex(mpmath.expjpi(levels[0][0])), 1.0) * x
            with np.errstate(over="ignore", under="ignore"):
                out = np.ldexp(val.real, n + fe) + 1j * np.ldexp(val.imag, n + fe)
        else:
            out = self._zpow_times(zq, logz, levels[0][0], x)
        real = zq.imag == 0
        if np.any(real):
            gap = real & self._tiny_gap(zq.real)
            out[gap] = out[gap].real + 0j
        return out

    @classmethod
    def _zpow_times(cls, zq, logz, a, h):
        """z^a·h for rational a (principal branch, Im z ≥ 0): exact powers of z or √z where
        a's denominator is 1 or 2 (exp(a log z) would lose ~|log z|·ε), else through the log;
        an overflowing z^a gives ±inf parts, never nan."""
        a = sp.Rational(a)
        if a.q in (1, 2) and abs(a.p) <= 8:
            base = zq if a.q == 1 else np.sqrt(zq)
            with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
                w = np.ones_like(base)
                for _ in range(abs(a.p)):
                    w = w * base
                w = 1.0 / w if a.p < 0 else w
                out = w * h
            ok = np.isfinite(out)
            if np.all(ok):
                return out
            out[~ok] = cls._scaled(float(a) * logz[~ok], h[~ok])
            return out
        return cls._scaled(float(a) * logz, h)

    @staticmethod
    def _scaled(logw, h):
        """exp(logw)·h without inf·0 = nan where exp(logw) overflows (±inf keeps its sign)."""
        mag = np.exp(np.minimum(logw.real, 709.0))
        ph = np.exp(1j * logw.imag) * h
        over = logw.real > 709.0
        out = np.empty(h.shape, dtype=complex)
        with np.errstate(over="ignore", invalid="ignore"):
            out.real = np.where(ph.real == 0, 0.0,
                                np.where(over, np.sign(ph.real) * np.inf, mag * ph.real))
            out.imag = np.where(ph.imag == 0, 0.0,
                                np.where(over, np.sign(ph.imag) * np.inf, mag * ph.imag))
        return out

    def _tiny_gap(self, x):
        """Real points (tiny x) outside the support (G is real there)."""
        bd = self._branch(None)
        gap = np.zeros(x.shape, bool)
        for info in bd.intervals:
            if not info["support"]:
                gap |= (x > info["lo"]) & (x < info["hi"])
        return gap

    def _tiny_mask(self, zq, near):
        """Points of ``near`` in the tiny-z zone; the Puiseux data are built only when some
        point is there (no cost for a law never evaluated next to 0)."""
        radius = self._TINY_Z * self._tiny_radius
        az = np.abs(np.where(near, zq, 1.0))
        m = near & (az <= radius) & (zq != 0)
        if not m.any() or self._tiny_z is None:
            return np.zeros(zq.shape, bool)
        return m & (az <= self._tiny_zone)  # data matched closer to 0: a smaller zone

    def _tiny_only(self, zq, near, logz):
        """Points of ``near`` in the tiny-z zone where the leading Puiseux term C₀z^{a₀}
        predicts |G|^deg beyond 10^_FLOAT_RANGE_DECADES: float64 P(G, z) cannot be evaluated
        there (its roots overflow: MarchenkoPastur-like hard edges at x ≲ 1e-160, subnormal
        x), so G comes from :meth:`_cauchy_tiny` without trying the general route first.
        ``logz``: log z (real part) at each point, finite where z itself underflows to 0."""
        radius = self._TINY_Z * self._tiny_radius
        m = near & (logz < math.log(radius))
        if not m.any():
            return np.zeros(zq.shape, bool)
        deg = len(self._num.coefficients_mp()) - 1
        bound = self._tiny_bound
        if bound is not None:  # no sheet's leading term out of range: none is (no match)
            lz = logz[m] / math.log(10)
            top = np.max([lr + a * lz for a, lr in bound] or [np.full(lz.shape, -np.inf)], axis=0)
            if not np.any(deg * top > _FLOAT_RANGE_DECADES):
                return np.zeros(zq.shape, bool)
        if self._tiny_z is None:
            return np.zeros(zq.shape, bool)
        m &= logz < math.log(self._tiny_zone)
        a0, c0 = self._tiny_z["levels"][0]
        lg = math.log10(abs(complex(c0))) + float(a0) * logz[m] / math.log(10)
        out = np.zeros(zq.shape, bool)
        out[np.flatnonzero(m)[deg * lg > _FLOAT_RANGE_DECADES]] = True
        return out

    def _tiny_mp(self, zv):
        """Whether the mpmath value zv is in the tiny-|z| zone of :meth:`_tiny_levels`."""
        if abs(zv) > self._TINY_Z * self._tiny_radius:
            return False
        return self._tiny_z is not None and abs(zv) <= self._tiny_zone

    def _cauchy_tiny_mp(self, zq, dps, derivative=False):
        """mpmath version of :meth:`_cauchy_tiny` (zq: mpc with Im ≥ 0), the nested data
        rebuilt at ``dps + _TINY_EXTRA_DPS`` digits."""
        t = self._tiny_levels(max(dps + _TINY_EXTRA_DPS, _TINY_MIN_DPS))
        if t is None:
            raise ArithmeticError(f"{self.name}: no local expansion of G at z = 0 at "
                                  f"{dps} digits")
        with workdps(dps + _TINY_EXTRA_DPS):
            if mpmath.im(zq) == 0:
                zq = mpmath.mpc(mpmath.re(zq), 0)  # z + i0, never −0
            logz = mpmath.log(zq)
            b, bz = _puiseux_terms(t["terms"], logz, mpmath.mpc(0), mpmath.exp, _mp_rational,
                                   mpmath.mpc)
            h = mpmath.mpc(t["levels"][-1][1])
            h, _ = newton_polish(b[::-1], h, tolerance(dps + _TINY_NEWTON_DPS),
                                 _LOCAL_NEWTON_STEPS)
            levels = t["levels"]
            x, zx = _puiseux_unwind(b, bz, h, levels, logz, mpmath.exp, _mp_rational,
                                    mpmath.mpc)
            a0 = _mp_rational(levels[0][0])

            def zpow(r):  # exact powers of z or √z (principal), else through the log
                if r.q in (1, 2):
                    return (zq if r.q == 1 else mpmath.sqrt(zq)) ** int(r.p)
                return mpmath.exp(mpmath.mpf(r.p) / r.q * logz)

            if derivative:
                val = zpow(levels[0][0] - 1) * (a0 * x + zx)
            else:
                val = zpow(levels[0][0]) * x
            xr = float(mpmath.re(zq))
            xr = xr if xr != 0 else math.copysign(_SMALLEST, mpmath.re(zq))
            if mpmath.im(zq) == 0 and bool(self._tiny_gap(np.array([xr]))[0]):
                val = mpmath.mpc(mpmath.re(val), 0)
        return val

    def _pole_mp(self, edge, dps):
        """(atom, mass, rows of P̃(mass + u, δ)) at the working precision (cached per dps):
        the mpmath twin of :meth:`_pole_expansion`'s float64 rows, residue of exact zeros
        cut at _RESIDUE_GUARD_DPS digits below the working precision."""
        cache = edge.setdefault("mp_pole", {})
        if dps not in cache:
            a, mass = min(self._atoms_raw(dps), key=lambda am: abs(am[0] - edge["e_mp"]))
            p = self._edge_coefficients(mpmath.mpf(0), mass, c=self._pole_polynomial(a))
            cut = tolerance(mpmath.mp.dps - _RESIDUE_GUARD_DPS) * max(abs(v) for row in p for v in row)
            cache[dps] = (a, mass, [[v if abs(v) > cut else mpmath.mpf(0) for v in row] for row in p])
        return cache[dps]

    def _pole_local_mp(self, t, edge, x, near, seed, dps):
        """G(x + i0) at the working precision next to an atom a touching the support, from
        the pole expansion: G = (mass + u)/δ with u the root of P̃(mass + u, δ) (Newton on
        P(G, x) itself loses the digits of u ~ δ^{1/k}·mass to cancellation: 6e-6 of the
        density of MP(3.875)^⊠3 at 1e-30 from its atom at 0, at dps = 25).  None where the
        root is not the float64 route's sheet (by Im G, to _SAME_SHEET) or did not converge.
        ``near``: (e₀, d) with x = e₀ + d exactly (see :meth:`_support_branch_mp`)."""
        a, mass, p = self._pole_mp(edge, dps)
        delta = x - a if near is None else (near[0] - a) + near[1]
        if delta == 0:
            return None
        sgn = 1 if delta > 0 else -1
        u, converged = edge_root(p, delta, sgn, MPMATH)
        if not converged or sgn * mpmath.im(u) >= 0:
            return None
        g = (mass + u) / delta
        gf = seed if seed is not None else complex(self._branch_in_table(t, np.array([float(x)]))[0])
        if (np.isfinite(gf) and gf.imag < 0
                and abs(float(mpmath.im(g)) - gf.imag) > _SAME_SHEET * abs(gf.imag)):
            return None
        return g

    def _edge_mp(self, edge, dps):
        """Edge expansion coefficients and double root at the working precision (cached)."""
        cache = edge.setdefault("mp", {})
        if dps not in cache:
            bd = self._branch(dps)
            e = min(bd.breakpoints, key=lambda b: abs(b - edge["e_mp"]))
            ge = self._double_root(e, edge["g"])
            cache[dps] = (e, ge, self._edge_coefficients(e, ge))
        return cache[dps]
