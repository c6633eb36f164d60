"""Many parameter points of ONE algebraic structure at once: edges, atoms, moments, pdf.

A sweep over (β, γ_K) of :func:`freeattn.attention_law` meets one polynomial P(G, z) in
parameter symbols, with different values at each point.  :class:`BatchStructure` evaluates
all points together in float64 (numpy arrays over points, and over (point, x) pairs):

* P's coefficients at every point (its terms' exponent table, one matrix product);
* breakpoints: the real roots of the structure's discriminant and leading-coefficient factors
  (:func:`~freeattn.algebraic.discriminant.discriminant_tables`, computed once), support edges
  polished as real double roots of P (Newton on P = ∂_G P = 0 in (G, x));
* the Stieltjes branch at every (point, x) pair by a vectorised ladder from x + iH (G ~ 1/z)
  down to the axis: Newton steps on P from a predictor, each accepted only where the root it
  reaches is the unique root near the predictor (a Fujiwara bound on the other roots'
  distance) and obeys the Nevanlinna conditions, the last step a jump onto the axis;
* each interval between breakpoints classified by the branch's density at its midpoint;
* atoms at the poles from the Newton-polygon candidates and the law's exact atom at 0;
* moments m_1..m_K from the series of P at infinity (Rao & Edelman 2008, §5), vectorised.

Every point carries its own verification: colliding breakpoints, a ladder pair that fails,
a classification unlike a reference law's, an ambiguous atom, or a total mass (atoms + the
support intervals by a cheap quadrature on solved nodes) other than 1 mark the point for the
full :class:`~freeattn.laws.algebraic.AlgebraicLaw` route (``fallback``).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from scipy.linalg import eigvals

from .._context import FLOAT_EPS, TINY, to_mp
from .discriminant import discriminant_tables
from .exact import free_symbols
from .ladder import _horner_z, ladder, ladder_along
from .numeric_polynomial import NumericPolynomial
from .polynomial import G, parameter_order, substitute_polynomial, z
from .series import _SERIES_LEAD_TOL, moments_of_terms

__all__ = ["BatchStructure", "evaluate_laws", "varying_parameters", "BATCH_MASS_TOL"]

#: the cheap mass check (atoms + each support interval's mass as the contour integral of G
#: on an ellipse about it, trapezoid on _CONTOUR_NODES + 1 nodes of its upper half:
#: geometric convergence away from the axis, where the density's end singularities and
#: near-singularities do not slow it) must give 1 to this, else the point falls back: it
#: detects a missed or spurious component, not rounding
BATCH_MASS_TOL = 1e-6
_CONTOUR_NODES = 64
#: the largest crowding κ of the contour's nodes at its axis crossings
_CONTOUR_CROWD = 0.98
#: the nodes' spacing at a crossing is its distance δ to the nearest breakpoint over this:
#: that breakpoint is a singularity at distance δ/A from the crossing in θ (circle of radius
#: A), so the trapezoid's error is ~exp(−2π × this); at 2 (spacing δ/2) the mass of a wide
#: interval whose crossing is close to its edge was off by 1.1e-6 (bert-base, β = 1, h = 1:
#: [3.007, 78.83] beside a breakpoint at 0.106), above BATCH_MASS_TOL
_CROSSING_RESOLUTION = 4
#: an ellipse whose crossings are too close to a breakpoint for _CONTOUR_NODES at the
#: largest crowding gets more nodes, up to this many
_CONTOUR_MAX_NODES = 1024
#: a root of a factor is real when |Im r| ≤ this × (1 + |r|)
_REAL_ROOT = 1e-7
#: roots of several factors within this (relative) are one breakpoint (BranchData merges
#: within 10^-35 at 30 digits; float64 factors round a vanishing constant term to ~1e-17)
_SAME_POINT = 1e-12
#: two breakpoints closer than this × (1 + scale) collide (ambiguous: fall back)
_COLLIDE = 1e-9
#: eigenvalues of the Sylvester pencil closer than this × (1 + scale) are one (multiple) root
_PENCIL_MERGE = 1e-9
#: on the pencil route every bounded support interval is also probed at these fractions of
#: its width from each end (the density must be positive there too)
_PENCIL_PROBES = (1e-1, 1e-2, 1e-3)
#: row/column equilibration sweeps of the Sylvester pencil
_PENCIL_BALANCE_SWEEPS = 4
#: each real eigenvalue of the pencil is computed again with the pencil's entries perturbed
#: by this relative amount (fixed seed): a simple eigenvalue moves by ~ its condition × this,
#: a member of the cluster that a many-fold root (the layer's pole at 0) scatters into moves
#: by about its own distance from the root (bert-base widths: genuine breakpoints ≤ 1e-8 of
#: their distance from 0, cluster members 2e-2 to 1)
_PENCIL_PERTURB = 1e-14
#: a pencil eigenvalue that moves by more than this × its distance from a pole, with only such
#: eigenvalues between it and the pole, is that pole's cluster, not a breakpoint: dropped
#: (midpoints between cluster members sat ~1e-6 from the pole, where the ladder cannot reach
#: the axis: 5 of 25 bert-base map points fell back, and their creeping pairs held the
#: lockstep ladder for ~1000 rungs)
_PENCIL_UNSTABLE = 1e-3
#: an interval is support where −Im G ≥ _SUPPORT × |G| at its midpoint, a gap where it is
#: ≤ _GAP × |G|; in between the point falls back
_SUPPORT = 1e-8
_GAP = 1e-11
#: Newton steps of the edge polish and its acceptance (relative move of x)
_EDGE_STEPS = 6
_EDGE_MATCH = 1e-6
#: digits of the parameter values handed to long double (its 64-bit mantissa: ~19.3)
_LONG_DIGITS = 22
#: mass candidates of a pole: real within this, in (0, 1 + _MASS_SLACK]
_CANDIDATE_REAL = 1e-8
_MASS_SLACK = 1e-9
#: an atom is kept when its mass exceeds this (AtomsMixin: tolerance(15))
_ATOM_FLOOR = 1e-15
#: the law's exact atom at 0 matches a candidate within this
_ATOM_MATCH = 1e-8
#: roots of the polygon's row closer than this (relative) are one multiple root, their mean:
#: float64 splits a k-fold root ~ eps^{1/k} apart (bert-base, β = 1.5, h = 1: the mass 7/8
#: a double root, read 0.875 ± 1.9e-8, outside _ATOM_MATCH: the point fell back), and the
#: mean is the root to ~eps (as AtomsMixin._pole_mass merges within 10^{-dps/4})
_ROOT_MERGE = 1e-4
#: float64 Newton-polygon coefficients below this (relative) count as lost to cancellation
_POLYGON_LOST = 1e3 * FLOAT_EPS
#: a pole within this (× (1 + scale)) of 0 is the pole at 0
_POLE_AT_ZERO = 1e-12


# ------------------------------------------------------------------ the structure
class BatchStructure:
    """One algebraic structure P(G, z) (parameters symbolic) and its float64 machinery.

    Parameters
    ----------
    P : sympy expression
        The Stieltjes factor of a law (``law._factor``), parameters symbolic.
    fixed : dict
        Parameter symbol → exact rational value shared by every point (substituted).
    template_values : dict
        Exact values of the remaining parameters at one point (to build the term table).
    pencil : bool
        When the symbolic discriminant is too large (:func:`discriminant_tables` raises),
        find each point's breakpoints from its Sylvester pencil (:meth:`_pencil_roots`)
        instead of raising (default False: on the full layer most points still fall back
        and the ladder costs more than the points route; see docs/howto-sweep.md).
    """

    def __init__(self, P, fixed, template_values, pencil=False):
        self.P = substitute_polynomial(P, fixed) if fixed else P
        self.params = sorted(free_symbols(self.P) - {G, z}, key=parameter_order)
        num = NumericPolynomial(self.P, {s: template_values[s] for s in self.params})
        arr = num.row_arrays()
        if arr is None or list(num._params) != self.params:
            raise ValueError("the structure has no rational term table")
        kk, jj, coef, ex = arr
        self.deg, self.deg_z = num.deg, num.deg_z
        self._coef, self._ex = coef, ex
        # terms -> flat (G-row, z-column) of cf (G^deg first, z^deg_z first)
        self._scatter = np.zeros((coef.size, (self.deg + 1) * (self.deg_z + 1)))
        self._scatter[np.arange(coef.size), kk * (self.deg_z + 1) + jj] = coef
        self.factors = []
        self.balance = True  # equilibrate the Sylvester pencil (:meth:`_pencil_roots`)
        try:
            tables = discriminant_tables(self.P)
        except ValueError:
            if not pencil:
                raise
            # the symbolic discriminant is too large (the full layer (C.15) with β, h
            # symbolic): breakpoints per point from P's float64 coefficients instead
            # (:meth:`_pencil_roots`)
            tables, self.factors = [], None
        for table, kind in tables:
            idx = [self.params.index(s) for s in table.symbols]
            rows = []
            for row in table.terms:
                e = np.zeros((len(row), len(self.params)))
                for r, (ex_, _) in enumerate(row):
                    for i, k in zip(idx, ex_):
                        e[r, i] = k
                rows.append((e, np.array([float(c) for _, c in row])))
            self.factors.append((rows, kind))

    # ------------------------------------------------------------------ per point values
    def coefficient_tables(self, V):
        """cf (N, deg + 1, deg_z + 1) at parameter rows V (N, p), float64; summed in V's
        precision (long double from :func:`evaluate_laws`: a coefficient is a sum of terms
        that cancel, and the law rounds its exact coefficient once; summed in float64 the
        batch's density next to an edge was 1.8e-13 of the peak off, the law's 1e-16)."""
        with np.errstate(over="ignore", invalid="ignore"):
            mono = np.prod(V[:, None, :] ** self._ex[None, :, :].astype(V.dtype), axis=2)
            cf = mono @ self._scatter.astype(V.dtype)
        return cf.astype(float).reshape(V.shape[0], self.deg + 1, self.deg_z + 1)

    def factor_coefficients(self, V):
        """Per factor: (coefficients of z^0..z^d, shape (N, d + 1), kind)."""
        out = []
        if self.factors is None:
            # only the leading coefficient in G (poles); the discriminant's roots come
            # from :meth:`_pencil_roots`
            lead = self.coefficient_tables(V)[:, 0, ::-1]
            return [(lead, "lead")]
        for rows, kind in self.factors:
            cols = []
            for e, c in rows:
                if not c.size:
                    cols.append(np.zeros(V.shape[0]))
                    continue
                with np.errstate(over="ignore", invalid="ignore"):
                    cols.append(np.prod(V[:, None, :].astype(float) ** e[None, :, :], axis=2)
                                @ c)
            out.append((np.stack(cols, axis=1), kind))
        return out

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, V, x=None, moments=4, zero_atoms=None):
        """Everything of the points V (N, p).

        ``zero_atoms``: per point the law's exact mass of its atom at 0 (float) or None.

        Returns a dict of per-point lists/arrays: ``breakpoints``, ``flags`` (support per
        interval), ``support`` (merged intervals), ``atoms``, ``moments`` (N, K), ``pdf``
        (N, nx), ``fallback`` (bool, N) with ``why`` (reason per fallen point) and ``pencil``
        (True where the breakpoints came from each point's Sylvester pencil)."""
        N = V.shape[0]
        cf = self.coefficient_tables(V)
        fall = ~np.all(np.isfinite(cf.reshape(N, -1)), axis=1)
        why = {int(i): "coefficients not finite" for i in np.flatnonzero(fall)}
        # the leading coefficient in G must not vanish identically (degree drop)
        lead_zero = np.all(cf[:, 0, :] == 0, axis=1)
        for i in np.flatnonzero(lead_zero & ~fall):
            why[int(i)] = "degree in G drops"
        fall |= lead_zero
        bps, poles, unpolished = self._breakpoints(V, cf, fall, why)
        scale = np.array([max([abs(b) for b in bp], default=1.0) for bp in bps])
        # classification at the midpoints
        pid, xs, slot = [], [], []
        for i in range(N):
            if fall[i]:
                continue
            bp = bps[i]
            if not bp:
                fall[i] = True
                why[i] = "no breakpoint"
                continue
            mids = [bp[0] - (1 + abs(bp[0]))] + [0.5 * (a + b) for a, b in zip(bp[:-1], bp[1:])] \
                + [bp[-1] + (1 + abs(bp[-1]))]
            for k, m in enumerate(mids):
                pid.append(i)
                xs.append(m)
                slot.append(k)
        pid, xs = np.array(pid, int), np.array(xs, float)
        g, ok = ladder(cf[pid], xs, scale[pid], near=_nearest(xs, pid, bps))
        flags = [[] for _ in range(N)]
        for i, xv, gv, okv in zip(pid, xs, g, ok):
            if fall[i]:
                continue
            if not okv:
                fall[i] = True
                why[int(i)] = f"ladder failed at the midpoint {xv!r}"
                continue
            rel = -gv.imag / max(abs(gv), TINY)
            if rel >= _SUPPORT:
                flags[i].append(True)
            elif abs(rel) <= _GAP:
                flags[i].append(False)
            else:
                fall[i] = True
                why[int(i)] = f"interval at {xv!r} neither support nor gap (Im G/|G| = {-rel!r})"
        if self.factors is None:
            self._probe_support(cf, bps, flags, scale, fall, why)
        support = [None] * N
        atoms = [None] * N
        for i in range(N):
            if fall[i]:
                continue
            fl, bp = flags[i], bps[i]
            if fl[0] or fl[-1]:
                fall[i] = True
                why[i] = "unbounded support"
                continue
            at = self._atoms(cf[i], bp, poles[i], zero_atoms[i] if zero_atoms else None,
                             scale[i])
            if at is None:
                fall[i] = True
                why[i] = "atom mass ambiguous"
                continue
            atoms[i] = at
            locs = {a for a, _ in at}
            out = []
            for k in range(1, len(bp)):
                if fl[k]:
                    a, b = bp[k - 1], bp[k]
                    if out and out[-1][1] == a and a not in locs:
                        out[-1] = (out[-1][0], b)
                    else:
                        out.append((a, b))
            support[i] = out
            if self.factors is None:
                # a pencil eigenvalue is only as good as its polish: a support edge must be
                # a pole or polished as a real double root of P (the Sylvester pencil's
                # eigenvalues near the many-fold root at 0 can be off by far more than 1e-13)
                ends = {v for ab in out for v in ab}
                if ends & unpolished[i]:
                    fall[i] = True
                    why[i] = (f"support edge {min(ends & unpolished[i])!r} not polished as a "
                              "real double root (pencil)")
        # the mass check and the pdf on x: one ladder call
        xg = None if x is None else np.asarray(x, float)
        pid, xs, ys, wq, chain = [], [], [], [], []
        nchain = 0  # path ids of the pairs (ladder_along)
        outside = [list(at) if at is not None else [] for at in atoms]
        for i in range(N):
            if fall[i]:
                continue
            bp = bps[i]
            for a, b in support[i]:
                # an ellipse about [a, b] crossing the axis halfway to the next breakpoints
                # (in gaps): (1/π) ∫_0^π Im(G(z) z′) dθ is the mass inside (G(z̄) = conj G(z))
                lo = [v for v in bp if v < a]
                hi = [v for v in bp if v > b]
                L = a - 0.5 * ((a - lo[-1]) if lo else (b - a))
                R = b + 0.5 * ((hi[0] - b) if hi else (b - a))
                c, A = 0.5 * (L + R), 0.5 * (R - L)
                # nodes crowded at the axis crossings, a distance δ from the nearest
                # breakpoint: θ = π(s − κ sin(2πs)/(2π)) spaces them ~πA(1 − κ)/n there;
                # where κ ≤ _CONTOUR_CROWD cannot bring that down to δ/_CROSSING_RESOLUTION,
                # more nodes n
                delta = min(a - L, R - b)
                n = _CONTOUR_NODES
                res = _CROSSING_RESOLUTION
                if delta > 0:
                    need = (1.0 - _CONTOUR_CROWD) * res * math.pi * A / delta
                    n = int(min(_CONTOUR_MAX_NODES, max(n, math.ceil(need))))
                sn = np.linspace(0.0, 1.0, n + 1)
                ends = np.full(sn.size, 1.0 / n)
                ends[[0, -1]] *= 0.5
                kappa = min(_CONTOUR_CROWD, max(0.0, 1.0 - n * delta / (res * math.pi * A)))
                th = math.pi * (sn - kappa / (2 * math.pi) * np.sin(2 * math.pi * sn))
                wt = ends * math.pi * (1 - kappa * np.cos(2 * math.pi * sn))
                zz = c + A * np.cos(th) + 1j * A * np.sin(th)
                dz = -A * np.sin(th) + 1j * A * np.cos(th)
                pid.append(np.full(th.size, i))
                xs.append(zz.real)
                ys.append(np.where((sn == 0) | (sn == 1), 0.0, np.abs(zz.imag)))
                wq.append(wt * dz)
                chain.append(np.full(th.size, nchain))  # one contour: one path
                nchain += 1
                outside[i] = [(u, m) for u, m in outside[i] if not L < u < R]
            if xg is not None:
                inside = np.zeros(xg.size, bool)
                for a, b in support[i]:
                    inside |= (xg > a) & (xg < b)
                on = np.isin(xg, bps[i])
                if np.any(on & inside):
                    fall[i] = True
                    why[i] = "an x sits on a breakpoint inside the support"
                pid.append(np.full(int(inside.sum()), i))
                xs.append(xg[inside])
                ys.append(np.zeros(int(inside.sum())))
                wq.append(np.full(int(inside.sum()), np.nan + 0j))  # pdf pairs: no weight
                # the x between two breakpoints: one path along the axis (the branch is
                # analytic there); paths never cross a breakpoint
                chain.append(nchain + np.searchsorted(bps[i], xg[inside]))
                nchain += len(bps[i]) + 1
        if pid:
            pid, xs, ys, wq, chain = (np.concatenate(pid), np.concatenate(xs),
                                      np.concatenate(ys), np.concatenate(wq),
                                      np.concatenate(chain))
        else:
            pid, xs, ys, wq = np.zeros(0, int), np.zeros(0), np.zeros(0), np.zeros(0, complex)
            chain = np.zeros(0, int)
        g, ok = ladder_along(cf[pid], xs, scale[pid], ys, chain,
                             near=_nearest(xs + 1j * ys, pid, bps))
        dens = np.maximum(-g.imag / math.pi, 0.0)
        bad = np.zeros(N, bool)
        np.logical_or.at(bad, pid, ~ok)
        for i in np.flatnonzero(bad & ~fall):
            fall[i] = True
            why[int(i)] = "ladder failed on a node or an x"
        isq = ~np.isnan(wq)
        mass = np.zeros(N)
        np.add.at(mass, pid[isq], np.where(ok[isq], (g[isq] * wq[isq]).imag / math.pi, 0.0))
        pdf = None
        if xg is not None:
            pdf = np.zeros((N, xg.size))
            ip = ~isq
            # vectorised placement: rank of each pdf pair within its point
            pp, vv, xx = pid[ip], dens[ip], xs[ip]
            col = np.searchsorted(xg, xx) if np.all(np.diff(xg) > 0) else None
            if col is None:
                order = {float(v): k for k, v in enumerate(xg)}
                col = np.array([order[float(v)] for v in xx], int)
            pdf[pp, col] = vv
        for i in range(N):
            if fall[i]:
                continue
            total = mass[i] + math.fsum(m for _, m in outside[i])
            if not abs(total - 1.0) <= BATCH_MASS_TOL:
                fall[i] = True
                why[i] = f"mass check: atoms and support carry {total!r}"
        mom = self._moments(cf, moments)
        if mom is not None:
            fall |= ~np.all(np.isfinite(mom), axis=1)
        for i in np.flatnonzero(fall):
            why.setdefault(int(i), "moments not finite")
        return {"breakpoints": bps, "flags": flags, "support": support, "atoms": atoms,
                "moments": mom, "pdf": pdf, "fallback": fall, "why": why,
                "pencil": self.factors is None}

    def _probe_support(self, cf, bps, flags, scale, fall, why):
        """Pencil route: every bounded support interval is probed at _PENCIL_PROBES of its
        width from each end, where the density must be positive too.  A breakpoint the
        pencil missed inside a support interval (a gap there, e.g. a missed edge next to a
        pole) would pass the midpoint and the mass check (the contour encloses the whole
        interval); a gap's missed support lacks mass and fails the mass check."""
        pid, xs = [], []
        for i in np.flatnonzero(~fall):
            bp, fl = bps[i], flags[i]
            for k in range(1, len(bp)):
                if fl[k]:
                    a, b = bp[k - 1], bp[k]
                    for f in _PENCIL_PROBES:
                        pid += [i, i]
                        xs += [a + f * (b - a), b - f * (b - a)]
        if not pid:
            return
        pid, xs = np.array(pid, int), np.array(xs, float)
        g, ok = ladder(cf[pid], xs, scale[pid], near=_nearest(xs, pid, bps))
        for i, xv, gv, okv in zip(pid, xs, g, ok):
            if fall[i]:
                continue
            if not okv:
                fall[i] = True
                why[int(i)] = f"ladder failed at the support probe {xv!r}"
            elif -gv.imag < _SUPPORT * abs(gv):
                fall[i] = True
                why[int(i)] = (f"the support probe {xv!r} is not support (Im G/|G| = "
                               f"{gv.imag / max(abs(gv), TINY)!r}): a breakpoint missed")

    def _breakpoints(self, V, cf, fall, why):
        """Sorted real roots of the factors per point (edges polished), and the poles."""
        N = V.shape[0]
        bps = [[] for _ in range(N)]
        poles = [[] for _ in range(N)]
        found = []  # (point, root, is_lead)
        for coeffs, kind in self.factor_coefficients(V):
            zero = np.all(coeffs == 0, axis=1) & ~fall
            for i in np.flatnonzero(zero):
                fall[i] = True
                why[int(i)] = "a discriminant factor vanishes identically"
            # effective degree: the highest nonzero coefficient (exact zeros only)
            nzc = coeffs != 0
            top = coeffs.shape[1] - 1 - np.argmax(nzc[:, ::-1], axis=1)
            for d in np.unique(top[~fall]):
                if d < 1:
                    continue
                rows = np.flatnonzero((top == d) & ~fall)
                c = coeffs[rows, :d + 1]  # z^0..z^d
                comp = np.zeros((rows.size, d, d))
                comp[:, 0, :] = -c[:, d - 1::-1] / c[:, d:d + 1]
                if d > 1:
                    comp[:, np.arange(1, d), np.arange(d - 1)] = 1.0
                with np.errstate(all="ignore"):
                    r = np.linalg.eigvals(comp)
                real = np.abs(r.imag) <= _REAL_ROOT * (1 + np.abs(r))
                ri, rk = np.nonzero(real & np.isfinite(r))
                vals = _polish_rows(c[ri][:, ::-1], r[ri, rk].real)
                for i, v in zip(rows[ri], vals):
                    found.append((int(i), float(v), kind == "lead"))
        moved = [{} for _ in range(N)]  # per point: pencil eigenvalue -> its move
        if self.factors is None:
            for i, v, d in self._pencil_roots(cf, fall):
                found.append((i, v, False))
                moved[i][v] = d
        for i, v, lead in found:
            bps[i].append(v)
            if lead:
                poles[i].append(v)
        todo = []  # (point, index in its breakpoints) of the roots to polish as edges
        for i in range(N):
            if fall[i]:
                continue
            pol = set(poles[i])
            # one breakpoint from several factors (a pole at 0 that is also a root of a
            # discriminant factor whose constant term cancels to ~1e-17): the pole stands
            merged = []
            for b in sorted(bps[i]):
                if merged and b - merged[-1] <= _SAME_POINT * (1 + abs(b)):
                    if b in pol:
                        merged[-1] = b
                    continue
                merged.append(b)
            bp = _drop_pole_clusters(merged, pol, moved[i])
            sc = 1 + max([abs(b) for b in bp], default=0.0)
            if any(b - a <= _COLLIDE * sc for a, b in zip(bp[:-1], bp[1:])):
                # a pole on a branch point (or a repeated root): the full law decides
                fall[i] = True
                why[i] = "breakpoints collide"
                continue
            bps[i] = bp
            poles[i] = sorted(pol & set(bp))
            todo += [(i, k) for k, b in enumerate(bp) if b not in pol]
        unpolished = [set() for _ in range(N)]
        if todo:
            ii = np.array([i for i, _ in todo])
            x0 = np.array([bps[i][k] for i, k in todo])
            x1, good = self._polish_edges(cf[ii], x0)
            for (i, k), v, gd in zip(todo, x1, good):
                bps[i][k] = float(v)
                if not gd:
                    unpolished[i].add(float(v))
        for i in range(N):
            if not fall[i] and any(b <= a for a, b in zip(bps[i][:-1], bps[i][1:])):
                fall[i] = True
                why[i] = "edge polish reordered the breakpoints"
        return bps, poles, unpolished

    def _pencil_roots(self, cf, fall):
        """Per point, the real z at which P(·, z) and ∂_G P(·, z) share a root: the finite
        real eigenvalues of the Sylvester pencil S(z) = Σ_j z^j S_j (det S = Res_G(P, ∂_G P),
        the discriminant times the leading coefficient), linearised as a block companion
        pencil (scipy.linalg.eigvals, QZ).  Eigenvalues of the pencil are far better
        conditioned than the roots of the expanded resultant's float64 coefficients.
        Real roots are polished afterwards as edges (:meth:`_polish_edges`).

        Returns [(point, real eigenvalue, its move)]: the move is the distance to the nearest
        eigenvalue of the pencil with its entries perturbed by :data:`_PENCIL_PERTURB`
        (relative, a fixed seed), which tells a many-fold root's scattered cluster from
        breakpoints (:func:`_drop_pole_clusters`)."""
        D, m = self.deg, self.deg_z
        n = 2 * D - 1
        out = []
        rng = np.random.default_rng(0)
        for i in np.flatnonzero(~fall):
            c = cf[i][::-1, ::-1]  # c[k, j]: coefficient of G^k z^j
            dc = c[1:] * np.arange(1, D + 1)[:, None]
            S = np.zeros((m + 1, n, n))
            for r in range(D - 1):  # rows of P (degree D), G^D first
                S[:, r, r:r + D + 1] = c[::-1].T
            for r in range(D):  # rows of ∂_G P (degree D - 1)
                S[:, D - 1 + r, r:r + D] = dc[::-1].T
            # two-sided equilibration by powers of 2 (exact; the same row and column scales
            # for every S_j keep det S(z) up to a constant): P's coefficients span many
            # orders (1e-9 .. 1 on the layer at h = 100), where the unscaled pencil is
            # numerically singular at every z and QZ returns spurious real eigenvalues
            for _ in range(_PENCIL_BALANCE_SWEEPS if self.balance else 0):
                for ax, sh in (((0, 2), (1, -1, 1)), ((0, 1), (1, 1, -1))):
                    big = np.abs(S).max(axis=ax)
                    big[big == 0] = 1.0
                    S = S / np.exp2(np.round(np.log2(big))).reshape(sh)
            top = m
            while top > 0 and not np.any(S[top]):
                top -= 1
            if top == 0:
                continue
            A = np.zeros((top * n, top * n))
            B = np.eye(top * n)
            A[:-n, n:] = np.eye((top - 1) * n)
            A[-n:, :] = -np.concatenate(S[:top], axis=1)
            B[-n:, -n:] = S[top]
            with np.errstate(all="ignore"):
                r = eigvals(A, B)
            ok = np.isfinite(r) & (np.abs(r.imag) <= _REAL_ROOT * (1 + np.abs(r)))
            real = np.sort(r[ok].real)
            if not real.size:
                continue
            with np.errstate(all="ignore"):
                rp = eigvals(A * (1 + _PENCIL_PERTURB * rng.standard_normal(A.shape)),
                             B * (1 + _PENCIL_PERTURB * rng.standard_normal(B.shape)))
            rp = rp[np.isfinite(rp)]
            move = (np.min(np.abs(real[:, None] - rp[None, :]), axis=1) if rp.size
                    else np.full(real.size, np.inf))
            # a multiple root of the resultant (z = 0 of the layer, many-fold) comes back
            # as a cluster of eigenvalues: one breakpoint, the cluster's median
            cut = np.flatnonzero(np.diff(real) > _PENCIL_MERGE * (1 + np.max(np.abs(real))))
            out += [(int(i), float(np.median(g)), float(np.max(d)))
                    for g, d in zip(np.split(real, cut + 1), np.split(move, cut + 1))]
        return out

    def _polish_edges(self, cf, x0):
        """Breakpoints at which P(·, x0) has a real double root: Newton on P = ∂_G P = 0 in
        (G, x) (the discriminant's float64 coefficients cancel; P's far less), vectorised.
        The others (complex double roots: branch points of other sheets) stay as they are.
        Returns (x, polished)."""
        D = self.deg
        ck, _ = _horner_z(cf, x0.astype(complex))
        ck = ck.real
        comp = np.zeros((x0.size, D, D))
        with np.errstate(all="ignore"):
            comp[:, 0, :] = -ck[:, 1:] / ck[:, :1]
            if D > 1:
                comp[:, np.arange(1, D), np.arange(D - 1)] = 1.0
            r = np.linalg.eigvals(np.where(np.isfinite(comp), comp, 0.0))
        d = np.abs(r[:, :, None] - r[:, None, :]) + np.diag(np.full(D, np.inf))[None]
        flat = np.argmin(d.reshape(x0.size, -1), axis=1)
        a, b = flat // D, flat % D
        rows = np.arange(x0.size)
        g = 0.5 * (r[rows, a] + r[rows, b])
        real = (np.abs(g.imag) <= _REAL_ROOT * (1 + np.abs(g))) & np.isfinite(ck[:, 0]) \
            & (ck[:, 0] != 0)
        g, x = g.real.copy(), x0.copy()
        J = cf.shape[2] - 1
        zp = np.arange(J, -1, -1, dtype=float)  # powers of z of cf's columns
        gp = np.arange(D, -1, -1, dtype=float)
        with np.errstate(all="ignore"):
            for _ in range(_EDGE_STEPS):
                xz = x[:, None] ** zp[None, :]
                dxz = np.where(zp[None, :] > 0, zp[None, :] * x[:, None] ** (zp[None, :] - 1), 0)
                c = np.einsum("nkj,nj->nk", cf, xz)
                cz = np.einsum("nkj,nj->nk", cf, dxz)
                gk = g[:, None] ** gp[None, :]
                dgk = np.where(gp > 0, gp * g[:, None] ** (gp - 1), 0)
                ddgk = np.where(gp > 1, gp * (gp - 1) * g[:, None] ** (gp - 2), 0)
                p, pg, pgg = (c * gk).sum(1), (c * dgk).sum(1), (c * ddgk).sum(1)
                pz, pgz = (cz * gk).sum(1), (cz * dgk).sum(1)
                det = pg * pgz - pz * pgg
                dg = (p * pgz - pz * pg) / det
                dx = (pg * pg - p * pgg) / det
                step = np.isfinite(dg) & np.isfinite(dx) & real
                g = np.where(step, g - dg, g)
                x = np.where(step, x - dx, x)
        good = real & np.isfinite(x) & (np.abs(x - x0) <= _EDGE_MATCH * (1 + np.abs(x0)))
        return np.where(good, x, x0), good

    def _atoms(self, cf, bp, poles, zero_mass, scale):
        """[(location, mass)] at the poles, or None where a mass is ambiguous: the candidates
        are the roots of the lowest power of s in s^deg P(H/s, a + s) (as
        :meth:`~freeattn.algebraic.atoms.AtomsMixin._pole_mass`); a single candidate 0 is no
        atom; at 0 the law's exact atom decides when it is a candidate; else the full law."""
        out = []
        d = self.deg
        c = cf[::-1, ::-1]  # c[k][j]: G^k z^j
        for a in poles:
            by_power = {}
            for k in range(d + 1):
                for j in range(self.deg_z + 1):
                    v = c[k, j]
                    if v == 0:
                        continue
                    for i in range(j + 1):
                        ps = d - k + i
                        by_power.setdefault(ps, {})
                        by_power[ps][k] = by_power[ps].get(k, 0.0) + v * math.comb(j, i) * a ** (j - i)
            cands = []
            for ps in sorted(by_power):
                co = by_power[ps]
                size = max(abs(v) for v in co.values())
                if size <= _POLYGON_LOST * np.abs(cf).max() * (1 + abs(a)) ** self.deg_z:
                    continue
                degH = max(co)
                cl = np.array([co.get(k, 0.0) for k in range(degH, -1, -1)])
                cl[np.abs(cl) <= _POLYGON_LOST * size] = 0.0
                while cl.size and cl[-1] == 0:
                    cl = cl[:-1]
                while cl.size > 1 and cl[0] == 0:
                    cl = cl[1:]
                if cl.size >= 2:
                    r = _root_clusters(np.roots(cl))
                    cands = [float(v.real) for v in r
                             if abs(v.imag) <= _CANDIDATE_REAL * (1 + abs(v))
                             and 0 < v.real <= 1 + _MASS_SLACK]
                break
            if not cands:
                continue  # only the candidate 0: no atom
            if abs(a) <= _POLE_AT_ZERO * (1 + scale) and zero_mass is not None:
                if zero_mass == 0:
                    continue
                if any(abs(m - zero_mass) <= _ATOM_MATCH * (1 + m) for m in cands):
                    if zero_mass > _ATOM_FLOOR:
                        out.append((0.0 if a == 0 else float(a), float(zero_mass)))
                    continue
            return None
        return out

    def _moments(self, cf, order):
        """m_1..m_order at every point (N, order): the series recursion
        (:func:`~freeattn.algebraic.series.moments_of_terms`) over arrays of points, on the
        structure's pattern of terms; NaN at points where G ~ 1/z is not a simple root."""
        N = cf.shape[0]
        if order == 0:
            return np.zeros((N, 0))
        deg, degz = self.deg, self.deg_z
        c = cf[:, ::-1, ::-1]  # c[:, k, j]: G^k z^j
        pattern = np.any(c != 0, axis=0)
        terms = [(k, k - j + degz, c[:, k, j]) for k in range(deg + 1) for j in range(degz + 1)
                 if pattern[k, j]]
        s0 = min(s for _, s, _ in terms)
        lead = sum(cv for k, s, cv in terms if s == s0)
        dq = sum(k * cv for k, s, cv in terms if s == s0)
        scl = np.max(np.abs(c.reshape(N, -1)), axis=1)
        bad = (np.abs(lead) > _SERIES_LEAD_TOL * scl) | (dq == 0)
        with np.errstate(all="ignore"):
            m = moments_of_terms(terms, s0, dq, deg, order, np.zeros(N), np.ones(N))
        out = np.stack(m, axis=1)
        out[bad] = np.nan
        return out


def _root_clusters(r):
    """The roots ``r`` with each cluster closer than :data:`_ROOT_MERGE` (relative, chained
    in order of the real part) replaced by its mean: one multiple root."""
    out, group = [], []
    for v in sorted(r, key=lambda u: (u.real, u.imag)):
        if group and abs(v - group[-1]) > _ROOT_MERGE * (1 + abs(v)):
            out.append(sum(group) / len(group))
            group = []
        group.append(v)
    if group:
        out.append(sum(group) / len(group))
    return np.array(out)


def _drop_pole_clusters(bp, poles, moved):
    """Sorted breakpoints ``bp`` without the pencil eigenvalues that belong to a pole's
    cluster: walking out from each pole, those whose move under the perturbation
    (``moved``: eigenvalue → move; absent for the discriminant factors' roots) exceeds
    :data:`_PENCIL_UNSTABLE` × their distance from the pole, up to the first that does not.
    A breakpoint dropped here is no support edge (an edge is a stable simple eigenvalue,
    polished as a real double root of P); the intervals it split are classified at their
    joint midpoint and the point is still verified by the support probes and the mass
    check."""
    drop = set()
    for p in poles:
        k = bp.index(p)
        for side in (range(k - 1, -1, -1), range(k + 1, len(bp))):
            for j in side:
                b = bp[j]
                if b in poles or not moved.get(b, 0.0) > _PENCIL_UNSTABLE * abs(b - p):
                    break
                drop.add(j)
    return [b for j, b in enumerate(bp) if j not in drop]


def _nearest(zs, pid, bps):
    """Per pair, the distance from its target zs to its point's nearest breakpoint."""
    out = np.full(len(pid), np.inf)
    order = np.argsort(pid, kind="stable")
    ps = pid[order]
    starts = np.searchsorted(ps, np.arange(len(bps) + 1))
    for i in np.unique(ps):
        sel = order[starts[i]:starts[i + 1]]
        if bps[i]:
            out[sel] = np.min(np.abs(zs[sel][:, None] - np.asarray(bps[i])[None, :]), axis=1)
    return out


def _polish_rows(c, r):
    """Newton on real polynomials (rows of c, highest power first) from real roots r."""
    dc = c[:, :-1] * np.arange(c.shape[1] - 1, 0, -1)[None, :]
    with np.errstate(all="ignore"):
        for _ in range(3):
            p = np.zeros(r.shape)
            for k in range(c.shape[1]):
                p = p * r + c[:, k]
            d = np.zeros(r.shape)
            for k in range(dc.shape[1]):
                d = d * r + dc[:, k]
            step = p / d
            r = np.where(np.isfinite(step), r - step, r)
    return r


def _exact_values(law):
    """The law's parameter symbols (in :func:`parameter_order`) and their exact values."""
    syms = sorted(free_symbols(law._factor) - {G, z}, key=parameter_order)
    return syms, [law.values[s] for s in syms]


def varying_parameters(laws):
    """Positions (in :func:`parameter_order`; each law has its own symbols) of the
    parameters whose exact values differ among ``laws`` (of one structure): what
    :func:`evaluate_laws` keeps as the batch's columns."""
    syms0, vals0 = _exact_values(laws[0])
    rows = [_exact_values(law)[1] for law in laws]
    return {k for k in range(len(syms0))
            if any(len(r) != len(syms0) or r[k] != vals0[k] for r in rows)}


def evaluate_laws(laws, x=None, moments=4, pencil=False, keep=()):
    """:meth:`BatchStructure.evaluate` for ``laws``, AlgebraicLaws of one structure (equal
    :func:`~freeattn.algebraic.numeric.structure_key`): the parameters whose exact value is
    one rational at every point are substituted, the others are the batch's columns.

    Raises ValueError when the structure has no rational term table or discriminant tables
    (then the caller evaluates the laws one by one); ``pencil=True``: breakpoints from each
    point's Sylvester pencil when the discriminant tables are too large (BatchStructure).
    ``keep``: positions of parameters that stay columns even where these laws share their value
    (so that the parts of one grid evaluated apart meet one structure and its cached tables;
    :func:`varying_parameters` of the whole grid)."""
    syms0, vals0 = _exact_values(laws[0])
    rows = [_exact_values(law)[1] for law in laws]
    if any(len(r) != len(syms0) for r in rows):
        raise ValueError("the laws do not share one structure")
    fixed = {s: v for k, (s, v) in enumerate(zip(syms0, vals0))
             if getattr(v, "is_Rational", False) and all(r[k] == v for r in rows)
             and k not in keep}
    keep = [k for k, s in enumerate(syms0) if s not in fixed]
    st = BatchStructure(laws[0]._factor, fixed, {syms0[k]: vals0[k] for k in keep},
                        pencil=pencil)
    if [syms0[k] for k in keep] != st.params:
        raise ValueError("the substituted structure lost a parameter")
    # the exact values to long double (x86: 64-bit mantissa; float64 where the platform's
    # long double is double): what coefficient_tables sums in
    with mpmath.workdps(_LONG_DIGITS):
        V = np.array([[np.longdouble(mpmath.nstr(to_mp(r[k]), _LONG_DIGITS)) for k in keep]
                      for r in rows], dtype=np.longdouble).reshape(len(laws), len(keep))
    zero = [law._exact_atom_at_zero(30) for law in laws]
    zero = [None if m is None else float(m) for m in zero]
    out = st.evaluate(V, x=x, moments=moments, zero_atoms=zero)
    redo = np.flatnonzero(out["fallback"])
    if st.factors is None and redo.size:
        # the equilibrated and the plain pencil miss or add different eigenvalues near the
        # many-fold root at 0 (either alone verifies fewer points); each evaluation is
        # verified on its own, so a point either one verifies is kept
        st.balance = False
        try:
            more = st.evaluate(V[redo], x=x, moments=moments, zero_atoms=[zero[i] for i in redo])
        finally:
            st.balance = True
        for k, i in enumerate(redo):
            if more["fallback"][k]:
                continue
            for name in ("breakpoints", "flags", "support", "atoms"):
                out[name][i] = more[name][k]
            for name in ("moments", "pdf"):
                if out[name] is not None:
                    out[name][i] = more[name][k]
            out["fallback"][i] = False
            del out["why"][int(i)]
    return out
