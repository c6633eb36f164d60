"""θ-tables + atoms → cdf, sf, ppf, isf: the one implementation, float64 and mpmath.

A law with atoms (location, mass) and a density on disjoint support intervals [a, b] is
described here by

- :class:`Side`: one half of an interval, in the distance coordinate u ∈ [0, π/2] from its own
  end (u = θ at a, u = φ = π − θ at b; x = a + (b − a) sin²(u/2) or x = b − (b − a) sin²(u/2)),
  with its adaptive panels, their masses, the rule that integrates the density in u (the
  panel at the end) and the fixed per-panel fit read everywhere else;
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
- L is a monotone function of x in floating point (monotone terms summed in a fixed order,
  each side clipped at its panel and side masses), and inside a panel off the end a side reads
  a fixed function of u (the running mean of the density's interpolant at fixed points, built
  once), not a Gauss rule on [panel start, u] whose nodes move with u and carry the density's
  own noise into the cdf (1e-9 relative on multi-head layer laws: 1–2 ulps of a cdf near 1);
  so the float64 cdf is monotone across calls up to the rounding of one fixed polynomial (and,
  on the panel touching an end, of its rule); within one call :func:`monotone` removes even
  that.

Quantiles invert L (ppf, q ≤ 1/2) or R (isf, and ppf for q > 1/2 through 1 − q, exact in
float64) side by side: Newton in u with a bracket, in log u on the panel touching the end,
where F ~ u^p spans hundreds of decades.

The law supplies the densities, the panels and the rules (e.g. :mod:`freeattn.quadrature.ends`
at a hard end); nothing here depends on how the density is computed.
"""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np

from .._context import FLOAT_EPS

__all__ = ["Side", "Interval", "MpInterval", "partial_masses", "cdf_sf", "cdf_sf_at_distance",
           "monotone", "quantile", "newton_mp", "atom_quantile_mp", "compensated_cumsum", "PPF_MAX_ITER"]

#: most iterations of the float64 quantile iteration (Newton with bisection fallback: each
#: step at least halves the bracket, so 60 reach any target in double precision)
PPF_MAX_ITER = 60
#: relative step (in u) at which the float64 quantile iteration stops
PPF_RTOL = 4 * FLOAT_EPS
#: step in log u at which the iteration on the panel touching the end stops
PPF_LOG_TOL = 4 * FLOAT_EPS
#: bounds of the power p in F ~ C·u^p fitted on the panel touching an end (start of the
#: iteration in log u); PPF_DEFAULT_POWER when the panel's halves give no estimate
PPF_POWER_BOUNDS = (0.25, 8.0)
PPF_DEFAULT_POWER = 3.0
#: linear Newton steps polishing the iteration in log u, each accepted when it moves u by
#: at most PPF_POLISH_MAX·u (the log iteration has left it within ~1e-13 relative)
PPF_POLISH_STEPS = 2
PPF_POLISH_MAX = 1e-6
#: the smallest positive double, and its log (lower bracket of the iteration in log u)
SMALLEST = 5e-324
LOG_TINY = math.log(SMALLEST)
#: Chebyshev points (first kind) per panel of the fixed interpolant behind Side.integral on
#: the panels off the end (the adaptive panels resolve 12-point Gauss–Legendre against its
#: halves, i.e. the density to degree ~23 on each panel)
PANEL_FIT_NODES = 24
#: relative gap between a panel's fitted integral and its tabulated mass above which the
#: panel keeps the Gauss–Legendre rule on [panel start, u] (a density the fit does not
#: resolve); below it the fit is scaled to the mass (the gap is the density's own noise:
#: 1e-9 … 3.4e-8 relative on some layer laws, where the tables' Gauss rules differ as much)
PANEL_FIT_RTOL = 1e-6
#: panels per block of the fit (built together, in one density call, when first needed)
PANEL_FIT_BLOCK = 64
#: Newton steps polishing numpy's Gauss–Legendre nodes in long double
GL_POLISH_STEPS = 2


def _legendre_nodes_ld(n):
    """n-point Gauss–Legendre nodes and weights on [−1, 1] in long double (numpy's double
    nodes polished by Newton's method on the three-term recurrence)."""
    x = np.polynomial.legendre.leggauss(n)[0].astype(np.longdouble)
    for _ in range(GL_POLISH_STEPS + 1):
        p0, p1 = np.ones_like(x), x.copy()
        for m in range(2, n + 1):
            p0, p1 = p1, ((2 * m - 1) * x * p1 - (m - 1) * p0) / m
        dp = n * (x * p1 - p0) / (x * x - 1)
        x = x - p1 / dp
    p0, p1 = np.ones_like(x), x.copy()
    for m in range(2, n + 1):
        p0, p1 = p1, ((2 * m - 1) * x * p1 - (m - 1) * p0) / m
    dp = n * (x * p1 - p0) / (x * x - 1)
    return x, 2 / ((1 - x * x) * dp * dp)


@functools.lru_cache(maxsize=None)
def _running_mean_matrix(n):
    """(τ, K): the n Chebyshev points τ_j ∈ (0, 1) of the first kind (increasing) and the
    matrix K with q = K·f the Chebyshev coefficients (in t = 2τ − 1) of the running mean
    Q(τ) = (1/τ)∫_0^τ f̃ of the interpolant f̃ of the values f at τ_j.  Q is a polynomial of
    degree n − 1, so its values at the τ_j fix it; each value is an n-point Gauss–Legendre
    rule on [0, τ_j] of the barycentric interpolant (exact for f̃, and relative-accurate for
    small τ_j: no cancellation, no division by τ_j).  Formed in long double (in double K
    was 6e-15 of its largest entry off, 9 ulps of the cdf in a panel), rounded once."""
    ld = np.longdouble
    ang = np.arccos(ld(-1)) * (np.arange(n, dtype=ld) + ld(0.5)) / n
    tau = (1 - np.cos(ang)) / 2  # increasing
    lam = (-1.0) ** np.arange(n) * np.sin(ang)  # barycentric weights of the points −cos(ang)
    g, w = _legendre_nodes_ld(n)
    s = np.outer(tau, (1 + g) / 2).reshape(-1)  # GL points on [0, τ_j], per row j
    diff = s[:, None] - tau[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        c = lam[None, :] / diff
        ell = c / c.sum(axis=1, keepdims=True)
    hit = diff == 0
    rows = np.flatnonzero(hit.any(axis=1))
    ell[rows] = hit[rows].astype(ld)
    W = (ell.reshape(n, n, n) * (w / 2)[None, :, None]).sum(axis=1)  # Q(τ_j) = W f
    # Chebyshev coefficients from values at t_j = 2τ_j − 1 = cos(π − ang_j):
    # c_i = (2/n) Σ_j Q_j T_i(t_j), c_0 halved
    M = (ld(2) / n) * np.cos(np.outer(np.arange(n), np.arccos(ld(-1)) - ang))
    M[0] /= 2
    K = (M @ W).astype(float)
    tau = tau.astype(float)
    tau.flags.writeable = K.flags.writeable = False
    return tau, K


def _clenshaw(c, t):
    """Σ_i c[:, i] T_i(t) (Clenshaw), vectorised over the rows of c and the points t."""
    b1 = np.zeros(t.shape)
    b2 = np.zeros(t.shape)
    t2 = 2.0 * t
    for i in range(c.shape[1] - 1, 0, -1):
        b1, b2 = c[:, i] + t2 * b1 - b2, b1
    return c[:, 0] + t * b1 - b2


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
        The integrand in u (ρ(x(u))·|x′(u)|), vectorised; used by the quantile iteration.

    A law that must pickle after evaluation passes picklable callables (a
    ``functools.partial`` of a bound method, not a closure)."""

    def __init__(self, edges, masses, rule, density):
        self.edges = np.asarray(edges, dtype=float)
        self.masses = np.maximum(np.asarray(masses, dtype=float), 0.0)
        self.rule, self.density = rule, density
        self.cum = compensated_cumsum(self.masses)
        self.mass = float(self.cum[-1])

    def _fit(self, k):
        """The Chebyshev coefficients of the running mean Q_k of the panels ``k`` (rows; NaN
        rows: the panel keeps the rule), from the density at PANEL_FIT_NODES fixed points of
        each panel, built once per block of PANEL_FIT_BLOCK consecutive panels when a point
        first falls in it (a law with 9542 panels does not pay 5 s for its first point; a
        block is one density call of fixed composition, so the coefficients never depend on
        what was asked before); panel 0 (at the end) always keeps the rule (relative
        accuracy down to the smallest u)."""
        n = len(self.masses)
        coef = self.__dict__.get("_fit_coef")
        if coef is None:
            coef = self.__dict__["_fit_coef"] = np.full((n, PANEL_FIT_NODES), np.nan)
            self.__dict__["_fit_done"] = np.zeros(-(-n // PANEL_FIT_BLOCK), bool)
        done = self.__dict__["_fit_done"]
        blocks = np.unique(k // PANEL_FIT_BLOCK)
        for blk in blocks[~done[blocks]].tolist():
            panels = np.arange(max(blk * PANEL_FIT_BLOCK, 1), min((blk + 1) * PANEL_FIT_BLOCK, n))
            if panels.size:
                coef[panels] = self._fit_panels(panels)
            done[blk] = True
        return coef[k]

    def _fit_panels(self, panels):
        tau, K = _running_mean_matrix(PANEL_FIT_NODES)
        lo, hi = self.edges[panels], self.edges[panels + 1]
        h = hi - lo
        nodes = lo[:, None] + h[:, None] * tau[None, :]
        with np.errstate(all="ignore"):
            f = np.asarray(self.density(nodes.reshape(-1)), dtype=float).reshape(nodes.shape)
            q = f @ K.T
            full = h * _clenshaw(q, np.ones(panels.size))
        pm = self.masses[panels]
        good = (np.all(np.isfinite(f), axis=1) & np.all(f >= 0, axis=1) & (full > 0)
                & (np.abs(full - pm) <= PANEL_FIT_RTOL * pm))
        # scaled to the tabulated mass: the fit reaches the next panel's start
        out = np.full(q.shape, np.nan)
        out[good] = q[good] * (pm[good] / full[good])[:, None]
        return out

    def _part(self, k, u):
        """∫ from the start of panel k to u inside it (arrays k, u): the fixed function of
        :meth:`integral` on a fitted panel, the rule on the others."""
        part = np.empty(u.shape)
        c = self._fit(k)
        fitted = ~np.isnan(c[..., 0]) if c.size else np.zeros(u.shape, bool)
        if np.any(fitted):
            kf = k[fitted]
            lo = self.edges[kf]
            d = np.maximum(u[fitted] - lo, 0.0)
            tau = np.minimum(d / (self.edges[kf + 1] - lo), 1.0)
            part[fitted] = d * _clenshaw(c[fitted], 2.0 * tau - 1.0)
        if not np.all(fitted):
            rest = ~fitted
            part[rest] = self.rule(self.edges[k[rest]], u[rest])
        return part

    def integral(self, u):
        """∫_0^u of the density, vectorised over u ∈ [0, π/2], a fixed function of u: on
        each panel off the end (u − e_k)·Q_k(τ), τ = (u − e_k)/(e_{k+1} − e_k), Q_k the running
        mean of the density's interpolant at fixed points (:meth:`_fit`), not a Gauss rule on
        [e_k, u] whose nodes move with u (the density's own noise, 1e-9 relative on some
        layer laws, then made the cdf decrease by ulps between neighbouring doubles); the
        panel at the end (and one the fit does not resolve) by the rule.  Monotone across
        panels (the part inside a panel is clipped to [0, that panel's mass])."""
        u = np.asarray(u, dtype=float)
        n = len(self.masses)
        k = np.clip(np.searchsorted(self.edges, u, side="right") - 1, 0, n - 1)
        part = self._part(k, np.minimum(u, self.edges[-1]))
        # the rounded sum never passes the next panel's start (monotone across panels)
        return np.minimum(self.cum[k] + np.clip(part, 0.0, self.masses[k]), self.cum[k + 1])

    # own Newton-with-bracket, not scipy.optimize: vectorised over all targets at once and
    # each step re-evaluates only the panel's rule (scipy's vectorised newton has no bracket)
    def inverse(self, r):
        """u with :meth:`integral` (u) = r, vectorised over r ∈ [0, mass]."""
        r = np.clip(np.asarray(r, dtype=float), 0.0, self.mass)
        n = len(self.masses)
        e, cum, pm = self.edges, self.cum, self.masses
        k = np.clip(np.searchsorted(cum, r, side="left") - 1, 0, n - 1)
        target = r - cum[k]
        lo, hi = e[k].copy(), e[k + 1].copy()
        frac = np.where(pm[k] > 0, target / np.where(pm[k] > 0, pm[k], 1.0), 0.5)
        u = lo + np.clip(frac, 0.0, 1.0) * (hi - lo)
        # the panel at the end: F(u) ~ C u^p, p from the panel's two halves; start from the
        # power law and iterate in log u (targets down to the smallest double)
        first = (k == 0) & (target > 0) & (target < 0.5 * pm[0])
        if np.any(first):
            u[first] = self._inverse_first(target[first])
        rest = ~first & (target > 0)
        if np.any(rest):
            kk, lo_, hi_, tg, ur = k[rest], lo[rest], hi[rest], target[rest], u[rest]
            for _ in range(PPF_MAX_ITER):
                # the function integral reads (fixed on a fitted panel): isf/ppf invert the
                # tabulated sf/cdf, not a rule that differs from it by the density's noise
                F = self._part(kk, ur) - tg
                lo_ = np.where(F < 0, ur, lo_)
                hi_ = np.where(F >= 0, ur, hi_)
                f = self.density(ur)
                with np.errstate(divide="ignore", invalid="ignore"):
                    nu = ur - F / f
                bad = ~np.isfinite(nu) | (nu < lo_) | (nu > hi_)
                nu = np.where(bad, 0.5 * (lo_ + hi_), nu)
                conv = np.abs(nu - ur) <= PPF_RTOL * np.maximum(ur, SMALLEST)
                ur = nu
                if np.all(conv):
                    break
            u[rest] = ur
        u[target <= 0] = lo[target <= 0]
        return u

    def _inverse_first(self, tf):
        u1 = self.edges[1]
        Fh = float(self.rule(np.zeros(1), np.array([0.5 * u1]))[0])
        F1 = self.masses[0]
        pw = (min(max(math.log2(F1 / Fh), PPF_POWER_BOUNDS[0]), PPF_POWER_BOUNDS[1])
              if Fh > 0 and F1 > 0 else PPF_DEFAULT_POWER)
        with np.errstate(divide="ignore"):
            lt = math.log(u1) + (np.log(tf) - math.log(F1)) / pw
        llo = np.full(lt.shape, LOG_TINY)
        lhi = np.full(lt.shape, math.log(u1))
        lt = np.clip(lt, llo, lhi)
        for _ in range(PPF_MAX_ITER):
            uu = np.exp(lt)
            F = self.rule(np.zeros(uu.shape), uu)
            f = self.density(uu)
            with np.errstate(divide="ignore", invalid="ignore"):
                res = np.log(F) - np.log(tf)
                llo = np.where(res < 0, lt, llo)
                lhi = np.where(res >= 0, lt, lhi)
                nl = lt - res / (uu * f / F)
            bad = ~np.isfinite(nl) | (nl < llo) | (nl > lhi)
            nl = np.where(bad, 0.5 * (llo + lhi), nl)
            conv = np.abs(nl - lt) <= PPF_LOG_TOL
            lt = nl
            if np.all(conv):
                break
        # polished in u itself: the residual log F − log r carries |log r|·ε of rounding
        # (5e-14 of ppf(1e-100) next to a δ^{-1/2} edge), F − r does not
        u = np.exp(lt)
        for _ in range(PPF_POLISH_STEPS):
            F = self.rule(np.zeros(u.shape), u)
            f = self.density(u)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                nu = u - (F - tf) / f
            ok = np.isfinite(nu) & (nu > 0) & (np.abs(nu - u) <= PPF_POLISH_MAX * u)
            u = np.where(ok, nu, u)
        return u


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
        return self._split_distances((x - self.a) + self.ca, (self.b - x) - self.cb)

    def _split_distances(self, dl, dr):
        """:meth:`split` at the distances dl from the exact left end and dr from the right."""
        on_left = dl <= dr
        lower, upper = np.empty(dl.shape), np.empty(dl.shape)
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

    def exact_ends(self):
        """(a, ca, b, cb) with the exact ends a_exact = a + ca, b_exact = b + cb (the signs of
        an excess over the double: ca = −corr[0], cb = −corr[1])."""
        return self.a, -self.ca, self.b, -self.cb

    def split_at(self, d, from_right=False):
        """:meth:`split` at the points whose distance from the exact left end (``from_right``:
        right end) is d ≥ 0, the distance given instead of formed from a double x (an affine
        image maps its argument to this interval as a distance: (y − a)/s as a double rounds at
        the ulp of the end, 1e-6 of a tail 1e-8 of the width from an end at 100 widths)."""
        d = np.maximum(np.asarray(d, dtype=float), 0.0)
        exact_width = (self.width + self.ca) - self.cb
        dl, dr = (exact_width - d, d) if from_right else (d, exact_width - d)
        return self._split_distances(dl, dr)

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


def monotone(x, values, increasing=True):
    """``values`` made monotone in ``x`` over the call's points (running max, or min, in the
    order of x): the quadrature's rounding noise (a few ulps) never lets a cdf decrease (or an
    sf increase) between neighbouring points.  NaN points are left alone."""
    x = np.asarray(x)
    values = np.asarray(values, dtype=float)
    ok = ~np.isnan(x)
    if np.count_nonzero(ok) < 2:
        return values
    idx = np.flatnonzero(ok)
    order = idx[np.argsort(x[idx], kind="stable")]
    acc = np.maximum.accumulate if increasing else np.minimum.accumulate
    out = values.copy()
    out[order] = acc(values[order])
    return out


def cdf_sf(x, atoms, intervals, upper=False, ends=None):
    """cdf (or sf with ``upper``) at points x: L/(L + R) (R/(L + R)), see the module notes.

    ``x``: 1-D ndarray of float (returns float, monotone over the points) or of mpf
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
    out = np.clip(out, 0.0, 1.0)
    out[np.isnan(x)] = np.nan
    return monotone(x, out, increasing=not upper)


def cdf_sf_at_distance(d, i, from_right, atoms, intervals):
    """(cdf, sf) at the points of ``intervals[i]`` (an :class:`Interval` with finite ends) at
    distance d ≥ 0 from its exact left end (``from_right``: right end), d at most the width:
    :func:`cdf_sf` with the distance given (:meth:`Interval.split_at`).  Atoms and the other
    intervals are placed by the double nearest to the point (they lie outside the interval)."""
    d = np.asarray(d, dtype=float)
    iv = intervals[i]
    with np.errstate(over="ignore", invalid="ignore"):
        x = iv.b - (d + iv.cb) if from_right else iv.a + (d - iv.ca)
    L, R = np.zeros(d.shape), np.zeros(d.shape)
    for loc, w in atoms:
        at_or_left = x >= loc
        L = L + np.where(at_or_left, w, 0.0)
        R = R + np.where(at_or_left, 0.0, w)
    for k, other in enumerate(intervals):
        if k != i:
            L = L + np.where(x >= other.b, other.mass, 0.0)
            R = R + np.where(x <= other.a, other.mass, 0.0)
    lo, up = iv.split_at(d, from_right)
    L, R = L + lo, R + up
    total = math.fsum([float(w) for _, w in atoms] + [v.mass for v in intervals])
    cdf = np.where(L == 0, 0.0, np.where(R == 0, 1.0, L / total))  # as cdf_sf: exact 0 and 1
    sf = np.where(R == 0, 0.0, np.where(L == 0, 1.0, R / total))
    return np.clip(cdf, 0.0, 1.0), np.clip(sf, 0.0, 1.0)


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
