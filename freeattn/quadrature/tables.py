"""θ-tables + atoms → cdf, sf, ppf, isf: the one implementation, float64 and mpmath.

A law with atoms (location, mass) and a density on disjoint support intervals [a, b] is
described here by

- :class:`Side`: one half of an interval, in the distance coordinate u ∈ [0, π/2] from its own
  end (u = θ at a, u = φ = π − θ at b; x = a + (b − a) sin²(u/2) or x = b − (b − a) sin²(u/2)),
  with its adaptive panels, their masses and the rule that integrates the density in u;
- :class:`Interval` (float64 tables: two sides) or :class:`MpInterval` (mpmath: the law's
  θ-integral at the working precision);
- the atoms.

From these, for x (float64 array, or an object array of mpf at the working precision):

    L(x) = μ((−∞, x]) and R(x) = μ((x, ∞)),  each summed from its own end of the support,

and cdf = L/T, sf = R/T with T the law's total mass (fixed).  Hence by construction

- cdf(x) + sf(x) = 1 to rounding, in every support component (one code path for both);
- cdf is exactly 0 left of the support and exactly 1 right of it (R = 0 there), sf
  symmetrically, in float64 and at any precision;
- sf keeps full relative accuracy in the upper tail (R is summed from the right end in
  φ, never formed as 1 − cdf), as cdf does in the lower tail;
- L is a non-decreasing function of the double x by construction (monotone terms summed in
  a fixed order; inside a panel the rule is read on a dyadic tree of clipped node values
  per binade of the panel position and interpolated in a leaf by a monotone quadratic,
  :meth:`Side.integral`, so the rule's error, rounding or a noisy density, cannot make L
  decrease; the two sides meet at the left side's mass), and every value is a function of
  its own x alone: never of the other points of the call or of earlier calls (issue 21,
  items 6 and 17).

Quantiles invert L (ppf, q ≤ 1/2) or R (isf, and ppf for q > 1/2 through 1 − q, exact in
float64) side by side, each side by descending the same tree (:meth:`Side.inverse`): they
invert exactly the function cdf and sf evaluate, down to targets of the smallest doubles
in the panel touching the end, where F ~ u^p spans hundreds of decades.

The law supplies the densities, the panels and the rules (e.g. :mod:`freeattn.quadrature.ends`
at a hard end); nothing here depends on how the density is computed.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

__all__ = ["Side", "Interval", "MpInterval", "partial_masses", "cdf_sf", "quantile",
           "newton_mp", "atom_quantile_mp", "compensated_cumsum", "TREE_LEVELS"]


def compensated_cumsum(values):
    """[0, v₀, v₀ + v₁, …] with Neumaier's compensated summation (each entry correctly
    rounded up to a few ulps however many panels a table has)."""
    out = np.empty(len(values) + 1)
    out[0] = 0.0
    s = c = 0.0
    for i, v in enumerate(np.asarray(values, dtype=float).tolist()):
        t = s + v
        c += (s - t) + v if abs(s) >= abs(v) else (v - t) + s
        s = t
        out[i + 1] = s + c
    return out


def _u_of(d, width):
    """u = 2 arcsin √(d/width) for a distance d ∈ [0, width/2] to an end, formed as
    √d/√width (d/width underflows, or loses digits, for a subnormal d: MP(1).cdf(5e-324) was
    0, right 1.415e-162)."""
    return 2.0 * np.arcsin(np.clip(np.sqrt(np.maximum(d, 0.0)) / math.sqrt(width), 0.0, 1.0))


#: depth of the dyadic tree on which :meth:`Side.integral` reads the rule inside one binade
#: [2^e, 2^(e+1)) of a panel's position τ (leaves 2^-TREE_LEVELS of the binade, ≤ 3.8e-6 of τ
#: itself: relative spacing, so the panel at the end keeps full relative resolution down to
#: the smallest u; the quadratic interpolation's error in a leaf, ≲ p(p − 1)(p − 2)/40 ·
#: 8^-TREE_LEVELS ≈ 1e-17 of the value for F ~ u^p, p ≤ 3, is below rounding; a linear one
#: would need 26 levels, 1.4× the rule evaluations)
TREE_LEVELS = 18
#: the least binade exponent of τ searched by :meth:`Side.inverse` (2^-1074: the smallest
#: positive double)
TREE_MIN_EXP = -1074
#: steps of the galloping and of the bisection of the binade search in :meth:`Side.inverse`
#: (2^11 > 1074 binades)
TREE_EXP_STEPS = 11
#: bounds of the power p in F ~ C·u^p fitted on a panel's upper binade (the start of the
#: binade search); TREE_DEFAULT_POWER when the binade gives no estimate
TREE_POWER_BOUNDS = (0.25, 8.0)
TREE_DEFAULT_POWER = 3.0


class Side:
    """One half of a support interval in the distance coordinate u ∈ [0, π/2] from its end.

    Parameters
    ----------
    edges : ndarray (n + 1,), increasing from 0.0 to π/2
        Panel boundaries in u.
    masses : ndarray (n,)
        ∫ of the density over each panel (≥ 0).
    rule : callable (lo, hi) → ndarray
        ∫_lo^hi of the density in u, vectorised over arrays lo, hi (lo = 0: the panel at the
        end, e.g. :func:`freeattn.quadrature.ends.end_rule`).
    density : callable u → ndarray
        The integrand in u (ρ(x(u))·|x′(u)|), vectorised: the slope of the quadratic in a
        leaf of the tree (read at the leaf's low node only; its error moves the value by
        ~1e-6 of itself times the density's relative error).

    A law that must pickle after evaluation passes picklable callables (a
    ``functools.partial`` of a bound method, not a closure).

    **The tree.**  Inside panel k = [e_k, e_{k+1}] (mass m_k) a position τ ∈ (0, 1) lies in
    one binade [2^e, 2^(e+1)), e < 0.  Its nodes are the binade's ends and, below them, the
    dyadic midpoints of TREE_LEVELS bisections of the binade; each node's value is the rule
    ∫_{e_k} to the node, clipped to [0, m_k] at a binade end and to the values of the two
    nodes that bound it at a midpoint (its parent cell's ends).  A node's value is a
    function of the node alone, and the values along the tree are non-decreasing *whatever
    the rule's error*: a noisy density (1e-10 relative from a converged subordination, 5e-4
    deep in the tail of an affine image of an algebraic law) can no longer make the cdf
    decrease between two doubles.  (Across binades the rule's own increase, a factor ~2^p ≥
    √2 per binade for F ~ u^p at the end and ~2 inside a panel, orders the ends.)  Between
    the two nodes of a leaf the value is interpolated by a quadratic non-decreasing for any
    slope (its slope at the leaf's start from the density there), each operation monotone
    under rounding, and :meth:`inverse` descends the same tree, so ppf/isf invert exactly the
    function cdf/sf evaluate (a quantile iteration on the bare rule misses the tabulated
    cdf by the rule's noise: isf 1.75e-10 off on free_multiplicative_power(FreePoisson(3),
    3), 2.6e-5 on an mha_output_law with ρ = 0.74).

    Cost: each value reads the rule at TREE_LEVELS + 2 nodes (one vectorised call) and the
    density once, against one rule read without the tree: a vectorised cdf of 401 fresh
    points of an algebraic or subordination law takes 10–50× longer (60–370 ms), a scalar
    call, dominated by overheads, 1–3×; a quantile descends ~TREE_LEVELS + 3 reads."""

    def __init__(self, edges, masses, rule, density):
        self.edges = np.asarray(edges, dtype=float)
        self.masses = np.maximum(np.asarray(masses, dtype=float), 0.0)
        self.rule, self.density = rule, density
        self.cum = compensated_cumsum(self.masses)
        self.mass = float(self.cum[-1])

    # ------------------------------------------------------------------ the tree's nodes
    def _node_values(self, k, tau):
        """The rule ∫_{e_k}^{u(τ)} at positions τ ∈ [0, 1] of panels k, clipped to [0, m_k]
        (τ = 1: m_k exactly, τ = 0: 0); one vectorised call of the rule."""
        tau = np.asarray(tau, dtype=float)
        lo, hi = self.edges[k], self.edges[k + 1]
        top = self.masses[k]
        u = np.minimum(lo + tau * (hi - lo), hi)
        inner = (tau > 0.0) & (tau < 1.0) & (u > lo)
        out = np.where(tau >= 1.0, top, 0.0)
        if np.any(inner):
            out[inner] = np.clip(self.rule(lo[inner], u[inner]), 0.0, top[inner])
        return out

    def _binade_ends(self, k, ex):
        """(value at 2^ex, value at 2^(ex + 1)) of panels k: the low end clipped to at most
        the high end."""
        vals = self._node_values(np.concatenate([k, k]),
                                 np.concatenate([np.ldexp(1.0, ex), np.ldexp(1.0, ex + 1)]))
        low, high = vals[:k.size], vals[k.size:]
        return np.minimum(low, high), high

    def _part(self, k, tau):
        """∫_{e_k} to position τ ∈ [0, 1] of panel k, read on the tree (see the class
        notes): non-decreasing in τ, a function of (k, τ) alone."""
        top = self.masses[k]
        out = np.where(tau >= 1.0, top, 0.0)
        inner = (tau > 0.0) & (tau < 1.0)
        if not np.any(inner):
            return out
        kk, t = k[inner], tau[inner]
        mant, ex = np.frexp(t)                     # τ = mant·2^ex, mant ∈ [1/2, 1)
        ex = ex - 1                                # τ ∈ [2^ex, 2^(ex + 1))
        s = 2.0 * mant - 1.0                       # position in the binade, exact, [0, 1)
        n, D = kk.size, TREE_LEVELS
        bits = np.floor(np.ldexp(s, D))            # the first D bits of s (exact)
        # the D midpoints on the path of s (level l: the prefix of l − 1 bits, then 1)
        levels = np.arange(1, D + 1)
        prefix = np.floor(np.ldexp(bits[:, None], levels[None, :] - 1 - D))
        mids = np.ldexp(2.0 * prefix + 1.0, -levels[None, :])          # (n, D), exact
        go_right = s[:, None] >= mids
        base = np.ldexp(1.0, ex)
        nodes = np.concatenate([base, np.ldexp(1.0, ex + 1),
                                (base[:, None] * (1.0 + mids)).T.reshape(-1)])
        vals = self._node_values(np.tile(kk, D + 2), nodes)
        low, high = vals[:n], vals[n:2 * n]
        low = np.minimum(low, high)
        mv = vals[2 * n:].reshape(D, n)
        for lev in range(D):
            v = np.clip(mv[lev], low, high)
            r = go_right[:, lev]
            low = np.where(r, v, low)
            high = np.where(r, high, v)
        c = np.ldexp(bits, -D)                     # the leaf's start in s
        t = np.ldexp(s - c, D)                     # position in the leaf, exact, [0, 1)
        b = self._leaf_weight(kk, base, c, low, high)
        # g(t) = b·(1 − (1 − t)²) + (1 − b)·t²: two non-negative multiples of functions
        # increasing in t, each formed by operations monotone under rounding
        g = b * (1.0 - (1.0 - t) ** 2) + (1.0 - b) * (t * t)
        out[inner] = np.minimum(low + (high - low) * g, high)
        return out

    def _leaf_weight(self, k, base, c, low, high):
        """b ∈ [0, 1] of the leaf [c, c + 2^-TREE_LEVELS] of binade base = 2^ex (positions s
        in the binade) of panels k, node values low ≤ high: the quadratic g(t) = b·(1 − (1 −
        t)²) + (1 − b)·t² from 0 to 1 (non-decreasing for every b ∈ [0, 1]) with slope 2b
        at its start = the density at the leaf's low node × the leaf's width in u / its
        increment (a function of the leaf alone; 1/2, the straight line, where the leaf is
        flat or the density not finite)."""
        lo, hi = self.edges[k], self.edges[k + 1]
        t0 = base * (1.0 + c)
        t1 = base * (1.0 + (c + math.ldexp(1.0, -TREE_LEVELS)))
        u0 = np.minimum(lo + t0 * (hi - lo), hi)
        u1 = np.minimum(lo + t1 * (hi - lo), hi)
        gap = high - low
        b = np.full(k.shape, 0.5)
        m = (gap > 0) & (u1 > u0)
        if np.any(m):
            f = np.asarray(self.density(u0[m]), dtype=float)
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                bm = 0.5 * f * ((u1[m] - u0[m]) / gap[m])
            b[m] = np.where(np.isfinite(bm), np.clip(bm, 0.0, 1.0), 0.5)
        return b

    def integral(self, u):
        """∫_0^u of the density, vectorised over u ∈ [0, π/2]: the panel's cumulative mass
        plus :meth:`_part` at the position τ = (u − e_k)/(e_{k+1} − e_k) in its panel, the
        sum clipped to the next panel's cumulative mass.  Non-decreasing in the double u by
        construction (issue 21, item 6): τ is monotone in u under rounding, the tree's values
        monotone in τ, the sum monotone; each value a function of u alone."""
        shape = np.shape(u)
        u = np.asarray(u, dtype=float).reshape(-1)
        n = len(self.masses)
        e = self.edges
        k = np.clip(np.searchsorted(e, u, side="right") - 1, 0, n - 1)
        lo, hi = e[k], e[k + 1]
        tau = np.clip((np.minimum(u, e[-1]) - lo) / (hi - lo), 0.0, 1.0)
        part = self._part(k, tau)
        return np.minimum(self.cum[k] + part, self.cum[k + 1]).reshape(shape)

    def inverse(self, r):
        """u with :meth:`integral` (u) = r, vectorised over r ∈ [0, mass]: the smallest
        position whose tree value reaches the target, found by descending the tree of
        :meth:`integral` (the binade by :meth:`_binade_of`, then TREE_LEVELS bisections of
        the binade, each reading the same clipped node values), then solved for in the leaf's
        quadratic.  Each target is a function of its own value
        alone (issue 21, item 17)."""
        r = np.clip(np.asarray(r, dtype=float), 0.0, self.mass)
        shape = r.shape
        r = r.reshape(-1)
        n = len(self.masses)
        e, cum, pm = self.edges, self.cum, self.masses
        k = np.clip(np.searchsorted(cum, r, side="left") - 1, 0, n - 1)
        target = np.minimum(r - cum[k], pm[k])
        lo, hi = e[k], e[k + 1]
        tau = np.where(target > 0, 1.0, 0.0)
        live = (target > 0) & (target < pm[k])
        if np.any(live):
            kk, tg = k[live], target[live]
            ex = self._binade_of(kk, tg)
            t_out = np.empty(kk.shape)
            under = ex < TREE_MIN_EXP          # below the first binade: its low end
            t_out[under] = np.ldexp(1.0, TREE_MIN_EXP)
            ok = ~under
            if np.any(ok):
                t_out[ok] = self._descend(kk[ok], ex[ok], tg[ok])
            tau[live] = t_out
        u = np.where(tau >= 1.0, hi, np.minimum(lo + tau * (hi - lo), hi))
        u = np.where(target <= 0, lo, u)
        return u.reshape(shape)

    def _binade_of(self, k, target):
        """The exponent ex of the binade [2^ex, 2^(ex + 1)) of τ holding the target, value(2^ex)
        < target ≤ value(2^(ex + 1)) (TREE_MIN_EXP − 1 below the first binade): from the power
        law F ~ u^p fitted on the panel's upper binade, galloped then bisected (the probes
        stay next to the answer: the density is not read at distances that underflow)."""
        top = self.masses[k]
        half = self._node_values(k, np.full(k.shape, 0.5))
        with np.errstate(divide="ignore", invalid="ignore"):
            pw = np.where((half > 0) & (half < top), np.log2(top / half), TREE_DEFAULT_POWER)
            pw = np.clip(pw, *TREE_POWER_BOUNDS)
            guess = np.log2(target / top) / pw
        g = np.clip(np.floor(np.nan_to_num(guess, nan=-1.0)), TREE_MIN_EXP, -1).astype(int)
        below = self._node_values(k, np.ldexp(1.0, g)) < target
        up = below
        elo = np.where(up, g, TREE_MIN_EXP - 1)     # value(2^elo) < target (or below all)
        ehi = np.where(up, 0, g)                    # value(2^ehi) ≥ target (2^0: m_k)
        live = np.ones(k.shape, bool)
        step = 1
        for _ in range(TREE_EXP_STEPS):             # gallop away from the guess
            e = np.where(up, elo + step, ehi - step)
            live &= np.where(up, e < ehi, e > elo)
            i = np.flatnonzero(live)
            if not i.size:
                break
            b = self._node_values(k[i], np.ldexp(1.0, e[i])) < target[i]
            elo[i] = np.where(b, e[i], elo[i])
            ehi[i] = np.where(b, ehi[i], e[i])
            live[i] = np.where(up[i], b, ~b)
            step *= 2
        for _ in range(TREE_EXP_STEPS):             # bisect the bracket
            i = np.flatnonzero(ehi - elo > 1)
            if not i.size:
                break
            mid = (elo[i] + ehi[i]) // 2
            b = self._node_values(k[i], np.ldexp(1.0, mid)) < target[i]
            elo[i] = np.where(b, mid, elo[i])
            ehi[i] = np.where(b, ehi[i], mid)
        return elo

    def _descend(self, k, ex, target):
        """Position τ in binade ex of panels k with tree value = target (value(2^ex) <
        target ≤ value(2^(ex + 1))): TREE_LEVELS bisections reading the tree's midpoints as
        :meth:`_part` does, then the leaf's quadratic solved for."""
        low, high = self._binade_ends(k, ex)
        base = np.ldexp(1.0, ex)
        c = np.zeros(k.shape)                  # the current cell's start in s
        for lev in range(1, TREE_LEVELS + 1):
            mid = c + math.ldexp(1.0, -lev)
            v = np.clip(self._node_values(k, base * (1.0 + mid)), low, high)
            right = v < target
            c = np.where(right, mid, c)
            low = np.where(right, v, low)
            high = np.where(right, high, v)
        gap = high - low                       # > 0: low < target ≤ high
        phi = np.clip((target - low) / np.where(gap > 0, gap, 1.0), 0.0, 1.0)
        b = self._leaf_weight(k, base, c, low, high)
        # g(t) = phi: (1 − 2b)t² + 2bt − phi = 0, the root in [0, 1] in its stable form
        den = b + np.sqrt(b * b + (1.0 - 2.0 * b) * phi)
        t = np.clip(phi / np.where(den > 0, den, 1.0), 0.0, 1.0)
        t = np.where(gap > 0, t, 1.0)
        s = np.minimum(c + t * math.ldexp(1.0, -TREE_LEVELS), 1.0)
        return base * (1.0 + s)


class Interval:
    """A support interval [a, b] of float64 tables: two :class:`Side` s, from a and from b.

    ``corr`` = (a − a_exact, b − b_exact): the rounding of the ends as doubles, so that the
    distances x − a_exact = (x − a) + corr[0] and b_exact − x = (b − x) − corr[1] keep their
    relative accuracy next to an end at a ≠ 0 (the sides' densities measure u from the exact
    ends)."""

    def __init__(self, a, b, left, right, corr=(0.0, 0.0)):
        self.a, self.b = float(a), float(b)
        self.width = self.b - self.a
        self.ca, self.cb = float(corr[0]), float(corr[1])
        self.left, self.right = left, right
        self.mass = self.left.mass + self.right.mass
        # the first doubles strictly inside the exact ends (distance > 0 after the correction)
        self._inside_a = np.nextafter(self.a, math.inf)
        while (self._inside_a - self.a) + self.ca <= 0:
            self._inside_a = np.nextafter(self._inside_a, math.inf)
        self._inside_b = np.nextafter(self.b, -math.inf)
        while (self.b - self._inside_b) - self.cb <= 0:
            self._inside_b = np.nextafter(self._inside_b, -math.inf)

    def split(self, x):
        """(∫_a^x ρ, ∫_x^b ρ) for x inside (a, b) (ndarray), each summed from its own end."""
        x = np.asarray(x, dtype=float)
        dl = (x - self.a) + self.ca
        dr = (self.b - x) - self.cb
        on_left = dl <= dr
        lower, upper = np.empty(x.shape), np.empty(x.shape)
        if np.any(on_left):
            # at most the left side's mass, the least value the right branch gives: monotone
            # across the switch between the two sides
            lo = np.minimum(self.left.integral(_u_of(dl[on_left], self.width)), self.left.mass)
            lower[on_left] = lo
            upper[on_left] = self.right.mass + np.maximum(self.left.mass - lo, 0.0)
        on_right = ~on_left
        if np.any(on_right):
            up = self.right.integral(_u_of(dr[on_right], self.width))
            upper[on_right] = up
            lower[on_right] = self.left.mass + np.maximum(self.right.mass - up, 0.0)
        return lower, upper

    # the distance as (√width·sin(u/2))²: one rounding into the subnormal range where
    # sin²(u/2) alone underflows (MP(1).ppf(1e-160) was 2 subnormal ulps high)
    def x_from_left(self, u):
        return self.a + ((math.sqrt(self.width) * np.sin(0.5 * u)) ** 2 - self.ca)

    def x_from_right(self, u):
        return self.b - ((math.sqrt(self.width) * np.sin(0.5 * u)) ** 2 + self.cb)

    def quantile(self, s, upper):
        """x inside [a, b] with ∫_a^x ρ = s (``upper``: ∫_x^b ρ = s), vectorised."""
        s = np.clip(np.asarray(s, dtype=float), 0.0, self.mass)
        first, second = (self.right, self.left) if upper else (self.left, self.right)
        near = s <= first.mass
        out = np.empty(s.shape)
        to_first = self.x_from_right if upper else self.x_from_left
        to_second = self.x_from_left if upper else self.x_from_right
        if np.any(near):
            out[near] = to_first(first.inverse(s[near]))
        if np.any(~near):
            out[~near] = to_second(second.inverse(np.maximum(self.mass - s[~near], 0.0)))
        # a positive mass from an end lies strictly inside it: where a + δ rounds onto a (a
        # soft edge at a ≠ 0, ppf(1e-300) of FreePoisson(13.25)), the first double inside
        # (cdf(a) is 0 there, the quantile is the smallest x with cdf(x) ≥ q)
        from_a = s < self.mass if upper else s > 0
        from_b = s > 0 if upper else s < self.mass
        lo = np.where(from_a, self._inside_a, self.a)
        hi = np.where(from_b, self._inside_b, self.b)
        return np.minimum(np.maximum(out, lo), hi)


class MpInterval:
    """A support interval at the working mpmath precision.

    Parameters
    ----------
    a, b : mpf
    mass : mpf
    lower : callable θ → ∫_0^θ of the θ-integrand (mpf)
    upper : callable θ → ∫_θ^π (mpf; θ next to π taken as π − φ with φ from b − x)
    upper_phi : callable φ → ∫_{π−φ}^π, optional
        The same in the distance coordinate φ = π − θ from b, used where given: θ = π − φ
        rounds onto π for φ below 10^-dps (sf(−1e-100) of the reflected MP(1) at dps=30 was 0,
        isf(1e-100) 0.0).
    """

    def __init__(self, a, b, mass, lower, upper, upper_phi=None):
        self.a, self.b, self.mass = a, b, mass
        self.lower_integral, self.upper_integral = lower, upper
        self.upper_phi = upper_phi

    def theta(self, x):
        """θ(x), from the nearer end: next to b, π − 2 asin √((b − x)/(b − a)) (the form from
        a, asin near 1, keeps only half the digits of π − θ: 1e-29 of sf(2 − 1e-12) of the
        semicircle at dps=30)."""
        w = self.b - self.a
        if x - self.a <= self.b - x:
            return 2 * mpmath.asin(mpmath.sqrt((x - self.a) / w))
        return mpmath.pi - 2 * mpmath.asin(mpmath.sqrt((self.b - x) / w))

    def split(self, x):
        lower, upper = [], []
        w = self.b - self.a
        for v in x:
            th = self.theta(v)
            if th <= mpmath.pi / 2:
                lo = self.lower_integral(th)
                lower.append(lo)
                upper.append(max(self.mass - lo, mpmath.mpf(0)))
            else:
                if self.upper_phi is not None:
                    up = self.upper_phi(2 * mpmath.asin(mpmath.sqrt((self.b - v) / w)))
                else:
                    up = self.upper_integral(th)
                upper.append(up)
                lower.append(max(self.mass - up, mpmath.mpf(0)))
        return np.array(lower, dtype=object), np.array(upper, dtype=object)


def partial_masses(x, atoms, intervals):
    """(L, R) = (μ((−∞, x]), μ((x, ∞))) at points x, each summed from its own end.

    Parameters
    ----------
    x : ndarray of float (float64 tables) or of mpf (dtype object, :class:`MpInterval` s)
    atoms : sequence of (location, mass)
    intervals : sequence of :class:`Interval` or :class:`MpInterval`
    """
    zero = mpmath.mpf(0) if x.dtype == object else 0.0
    L = np.full(x.shape, zero, dtype=x.dtype)
    R = np.full(x.shape, zero, dtype=x.dtype)
    for loc, w in atoms:
        at_or_left = x >= loc
        L = L + np.where(at_or_left, w, zero)
        R = R + np.where(at_or_left, zero, w)
    for iv in intervals:
        L = L + np.where(x >= iv.b, iv.mass, zero)
        R = R + np.where(x <= iv.a, iv.mass, zero)
        inner = (x > iv.a) & (x < iv.b)
        if np.any(inner):
            lo, up = iv.split(x[inner])
            L[inner] = L[inner] + lo
            R[inner] = R[inner] + up
    return L, R


def cdf_sf(x, atoms, intervals, upper=False, ends=None):
    """cdf (or sf with ``upper``) at points x: L/(L + R) (R/(L + R)), see the module notes.

    ``x``: 1-D ndarray of float (returns float, each value a function of its own x) or of mpf
    (dtype object; returns an object array at the working precision).  ``ends``: the
    support's (left, right) end as the law reports them (a closed form may round them
    differently from the tables): the cdf is 0 left of the left end and 1 from the right end
    on exactly (sf 1 and 0)."""
    L, R = partial_masses(x, atoms, intervals)
    # divided by the fixed total, not by L(x) + R(x): L is a monotone function of x in floating
    # point (sums of monotone terms in a fixed order), L + R is not (its rounding varies from
    # point to point), so L/(L + R) could decrease by an ulp between neighbouring doubles;
    # R = 0 (right of everything) is exactly 1, L = 0 exactly 0
    zero = mpmath.mpf(0) if x.dtype == object else 0.0
    one = mpmath.mpf(1) if x.dtype == object else 1.0
    total = (mpmath.fsum([w for _, w in atoms] + [iv.mass for iv in intervals])
             if x.dtype == object else math.fsum([float(w) for _, w in atoms]
                                                 + [iv.mass for iv in intervals]))
    out = (R if upper else L) / total
    out = np.where((L if upper else R) == 0, one, out)
    out = np.where((R if upper else L) == 0, zero, out)
    if ends is not None:
        out = np.where(x < ends[0], one if upper else 0 * one, out)
        out = np.where(x >= ends[1], 0 * one if upper else one, out)
    if x.dtype == object:
        return out
    # no running max over the call's points: each value is a function of its own x alone
    # (issue 21, item 17), monotone by construction (Side.integral, Interval.split)
    out = np.clip(out, 0.0, 1.0)
    out[np.isnan(x)] = np.nan
    return out


def _pieces(atoms, intervals):
    pieces = [(float(loc), float(loc), 0, float(w), None) for loc, w in atoms]
    pieces += [(iv.a, iv.b, 1, iv.mass, iv) for iv in intervals]
    return pieces


def quantile(q, atoms, intervals, upper=False, ends=None):
    """ppf (smallest x with cdf(x) ≥ q) or, with ``upper``, isf (smallest x with sf(x) ≤ q),
    float64, vectorised over q ∈ [0, 1].

    Targets beyond 1/2 are taken from the other end through 1 − q (exact in float64 for
    q ≥ 1/2), so each tail is inverted from its own end of the support: ppf(q) and isf(1 − q)
    are the same computation.  q = 0 and q = 1 give the ends of the support exactly
    (``ends``, as in :func:`cdf_sf`, or those of the pieces)."""
    q = np.asarray(q, dtype=float)
    pieces = _pieces(atoms, intervals)
    if not pieces:
        raise ArithmeticError("a law with neither atoms nor a support interval")
    total = math.fsum(p[3] for p in pieces)
    left_end, right_end = ends if ends is not None else (min(p[0] for p in pieces),
                                                          max(p[1] for p in pieces))
    out = np.empty(q.shape)
    from_right = (q > 0.5) if not upper else (q <= 0.5)
    p_right = np.where(from_right, q if upper else 1.0 - q, 0.0)
    p_left = np.where(from_right, 0.0, 1.0 - q if upper else q)
    m = ~from_right
    if np.any(m):
        out[m] = _walk_left(p_left[m] * total, pieces, left_end, right_end)
    if np.any(from_right):
        out[from_right] = _walk_right(p_right[from_right] * total, pieces, left_end, right_end)
    lo_q, hi_q = (q >= 1.0, q <= 0.0) if upper else (q <= 0.0, q >= 1.0)
    out[lo_q] = left_end
    out[hi_q] = right_end
    return out


def _walk_left(r, pieces, left_end, right_end):
    """Smallest x with L(x) ≥ r."""
    out = np.full(r.shape, right_end)
    done = np.zeros(r.shape, bool)
    c = 0.0
    for start, _, kind, mass, iv in sorted(pieces, key=lambda p: (p[0], p[2])):
        m = ~done & (r <= c + mass)
        if np.any(m):
            out[m] = start if kind == 0 else iv.quantile(r[m] - c, upper=False)
        done |= m
        c += mass
    out[r <= 0] = left_end
    return out


def _walk_right(r, pieces, left_end, right_end):
    """Smallest x with R(x) ≤ r."""
    out = np.full(r.shape, left_end)
    done = np.zeros(r.shape, bool)
    c = 0.0
    for _, end, kind, mass, iv in sorted(pieces, key=lambda p: (p[1], -p[2]), reverse=True):
        m = ~done & (r < c + mass)
        if np.any(m):
            out[m] = end if kind == 0 else iv.quantile(r[m] - c, upper=True)
        done |= m
        c += mass
    out[r <= 0] = right_end
    return out


# ----------------------------------------------------------------------------- mpmath
def atom_quantile_mp(q, x0, atoms, value, loc_tol, q_tol, upper=False):
    """The atom whose jump holds q (ppf: cdf(loc) − mass < q ≤ cdf(loc); isf: sf(loc) ≤ q <
    sf(loc) + mass, each with slack ``q_tol``), for an atom within ``loc_tol``·(1 + |loc|) of
    the float64 quantile x0; else None.  ``value``: the cdf (sf with ``upper``) at the
    working precision."""
    for loc, w in atoms:
        if abs(x0 - loc) <= loc_tol * (1 + abs(loc)):
            v = value(loc)
            if upper and v - q_tol <= q < v + w:
                return +loc
            if not upper and v - w < q <= v + q_tol:
                return +loc
    return None


# own Newton, not mpmath.findroot: each step adds the mass between two iterates to the cdf
# (an integral over [x₀, x₁] only) instead of recomputing the cdf from the end of the support
def newton_mp(target, x, value, density, between, lo, hi, tol, upper=False, max_iter=30):
    """Solve cdf(x) = target (sf with ``upper``) at the working precision by Newton's method
    from x, the cdf evaluated once and then updated by the mass ``between(x₀, x₁)`` of each
    step (an integral over [x₀, x₁] only); steps clipped to [lo, hi].

    Parameters
    ----------
    value : callable x → cdf (or sf) at x
    density : callable x → ρ(x)
    between : callable (x₀, x₁) → ∫_{x₀}^{x₁} ρ, x₀ < x₁
    tol : mpf, relative tolerance on the target
    """
    F = value(x)
    sign = -1 if upper else 1
    for _ in range(max_iter):
        if abs(F - target) <= tol * abs(target):
            break
        f = density(x)
        if f == 0 or not mpmath.isfinite(f):
            break
        xn = min(max(x - sign * (F - target) / f, lo), hi)
        if xn == x:
            break
        piece = between(min(x, xn), max(x, xn))
        F = F + sign * piece if xn > x else F - sign * piece
        x = xn
    return x
