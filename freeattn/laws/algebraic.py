"""Algebraic laws: a law whose Cauchy transform solves P(G, z) = 0 (Rao & Edelman 2008)."""
from __future__ import annotations

import math
from functools import cached_property

import mpmath
import numpy as np
import sympy as sp

from .._context import FLOAT_REFERENCE_DPS, to_mp, workdps
from .._validation import positive
from ..algebraic.numeric import _TABLE_NODES, BranchData, NumericPolynomial
from ..algebraic.polynomial import (affine_polynomial, r_relation, s_relation,
                                    series_moments, stieltjes_factor)
from .base import Law

__all__ = ["AlgebraicLaw"]

# θ-panels for the cdf: geometric grading toward both ends handles any power-law edge.
_GL_X, _GL_W = np.polynomial.legendre.leggauss(12)
_GRADE_LEVELS = 24
_GRADE_RATIO = 0.25
_UNIFORM_PANELS = 48
_PANEL_TOL = 1e-16
#: relative width of the zone next to a square-root edge solved by the local expansion
_EDGE_ZONE = 1e-3


def _theta_panels():
    """Panel boundaries in θ ∈ [0, π]: uniform inside, geometrically graded at both ends."""
    h = math.pi / _UNIFORM_PANELS
    left = [0.0] + [h * _GRADE_RATIO**k for k in range(_GRADE_LEVELS, 0, -1)]
    inner = [h * i for i in range(1, _UNIFORM_PANELS)]
    right = [math.pi - v for v in reversed(left[1:])] + [math.pi]
    return np.array(left + inner + right)


_PANELS = _theta_panels()


def _x_of_theta(a, b, th):
    """x(θ) = a + (b − a)(1 − cos θ)/2, written to keep x − a and b − x accurate."""
    half = 0.5 * np.asarray(th)
    return np.where(half <= math.pi / 4, a + (b - a) * np.sin(half) ** 2,
                    b - (b - a) * np.cos(half) ** 2)


def _theta_of_x(a, b, x):
    """Inverse of :func:`_x_of_theta` on [a, b], accurate near both ends."""
    u = np.clip((np.asarray(x) - a) / (b - a), 0.0, 1.0)
    v = np.clip((b - np.asarray(x)) / (b - a), 0.0, 1.0)
    return np.where(u <= 0.5, 2 * np.arcsin(np.sqrt(u)), math.pi - 2 * np.arcsin(np.sqrt(v)))



class AlgebraicLaw(Law):
    """A probability law given by its Cauchy-transform polynomial P(G, z) = 0.

    Parameters
    ----------
    polynomial : sympy expression
        P(G, z) in the symbols ``freeattn.algebraic.polynomial.G`` and ``z``; parameter
        symbols allowed if ``values`` gives them.  The irreducible factor carrying the branch
        G ~ 1/z at infinity is selected automatically.
    values : dict, optional
        Parameter symbol → exact value (sympy number or expression such as ``exp(1) - 1``).
        Kept exact so that every method can evaluate at any precision.
    name : str, optional
        Display name.

    Notes
    -----
    The branch is G ~ 1/z at infinity with Im G < 0 on the upper half-plane.  Edges are the
    real roots of the discriminant of P in G, atoms sit at real roots of the leading
    coefficient of P in G with mass lim (z − a) G(z) (Rao & Edelman 2008, §5).
    """

    def __init__(self, polynomial, values=None, name="algebraic law"):
        self.values = dict(values or {})
        self.symbolic_polynomial = sp.expand(polynomial)
        self.name = name

    # ----------------------------------------------------------- structure
    @cached_property
    def _factor(self):
        """The irreducible factor of the symbolic polynomial that carries G ~ 1/z."""
        return stieltjes_factor(self.symbolic_polynomial)

    @property
    def polynomial(self):
        """P(G, z) with the parameter values substituted exactly (irreducible factor)."""
        return self._factor.xreplace(self.values)

    @cached_property
    def _reduced(self):
        """The factor with its rational-valued parameters substituted exactly.

        Keeps symbolic only the parameters with transcendental values (e.g. θ₁ = e^{β²} − 1),
        so that the discriminant stays cheap however many affine maps and convolutions
        built the law, while no large exact expression ever enters sympy's algebra."""
        rational = {p: v for p, v in self.values.items() if getattr(v, "is_Rational", False)}
        return sp.expand(self._factor.xreplace(rational))

    @cached_property
    def _num(self):
        return NumericPolynomial(self._reduced, {p: v for p, v in self.values.items()
                                                 if p in self._reduced.free_symbols})

    def _branch(self, dps):
        dps = FLOAT_REFERENCE_DPS if dps is None else max(int(dps), FLOAT_REFERENCE_DPS)
        cache = self.__dict__.setdefault("_branch_cache", {})
        if dps not in cache:
            cache[dps] = BranchData(self._num, self._reduced, dps)
        return cache[dps]

    # ------------------------------------------------------ moments / transforms
    def exact_moments(self, order):
        """First ``order`` moments as exact sympy expressions, from the series of G at ∞."""
        cache = self.__dict__.setdefault("_moment_cache", [])
        if len(cache) < order:
            ms = series_moments(self._factor, order)
            cache[:] = [sp.expand(m.xreplace(self.values)) for m in ms]
        return cache[:order]

    def s_relation(self):
        """Polynomial relation Σ(w, S) = 0 satisfied by the S-transform S(w) (sympy)."""
        return s_relation(self.polynomial)

    def r_relation(self):
        """Polynomial relation C(w, R) = 0 satisfied by the R-transform R(w) (sympy; the
        returned expression uses the symbols ``w`` for the argument and ``S`` for R)."""
        return r_relation(self.polynomial)

    # ------------------------------------------------------------- support
    def _support(self, dps):
        bd = self._branch(dps)
        out = []
        with workdps(dps or FLOAT_REFERENCE_DPS):
            bps = bd.breakpoints
            for i, info in enumerate(bd.intervals):
                if info["support"]:
                    a, b = bps[i - 1], bps[i]
                    if out and out[-1][1] == a and a not in self._atom_locations(dps):
                        out[-1] = (out[-1][0], b)  # touching intervals (interior cusp)
                    else:
                        out.append((a, b))
            if dps is None:
                return [(float(a), float(b)) for a, b in out]
            return [(+a, +b) for a, b in out]

    def _atom_locations(self, dps):
        return [loc for loc, _ in self._atoms_raw(dps)]

    def _atoms_raw(self, dps):
        cache = self.__dict__.setdefault("_atom_cache", {})
        key = dps or FLOAT_REFERENCE_DPS
        if key in cache:
            return cache[key]
        bd = self._branch(dps)
        atoms = []
        with workdps(key):
            for a in sorted(bd.poles):
                mass = self._pole_mass(a)
                if mass > mpmath.mpf(10) ** (-(key // 2)):
                    atoms.append((a, mass))
        cache[key] = atoms
        return atoms

    def _pole_mass(self, a):
        """Mass of the atom at a pole a: lim_{ε↓0} iε G(a + iε).

        The limit is read off the Newton polygon: with G = H/(z − a), the lowest power of
        s = z − a in s^deg P(H/s, a + s) is a polynomial in H whose roots are the candidate
        masses; the branch's value iε G(a + iε) at a small ε picks the candidate (0 if G stays
        bounded, i.e. a hard edge or a pole of another sheet)."""
        eps = np.array([1e-8, 1e-10]) * (1 + abs(float(a)))
        g = self._cauchy_float(float(a) + 1j * eps)
        far, approx = 1j * eps * g
        # an atom makes iεG(a + iε) converge to its mass; a hard edge makes it vanish like ε^p
        if abs(approx) < 1e-12 or abs(far - approx) > 0.05 * abs(approx):
            return mpmath.mpf(0)
        # s^d P(H/s, a + s) = Σ_k Σ_j c_kj H^k s^{d-k} (a + s)^j, collected by powers of s
        c = self._num.coefficients_mp()
        d = self._num.deg
        tol = mpmath.mpf(10) ** (-(mpmath.mp.dps - 8))
        by_power = {}
        for k, row in enumerate(c):
            for j, ckj in enumerate(row):
                if ckj == 0:
                    continue
                for i in range(j + 1):  # (a + s)^j = Σ_i C(j, i) s^i a^{j-i}
                    ps = d - k + i
                    by_power.setdefault(ps, {})
                    by_power[ps][k] = by_power[ps].get(k, 0) + ckj * mpmath.binomial(j, i) * a ** (j - i)
        for ps in sorted(by_power):
            coeffs = by_power[ps]
            size = max(abs(v) for v in coeffs.values())
            if size <= tol:
                continue
            degH = max(coeffs)
            cl = [coeffs.get(k, mpmath.mpf(0)) for k in range(degH, -1, -1)]
            cl = [c if abs(c) > tol * size else mpmath.mpf(0) for c in cl]
            while cl and cl[-1] == 0:  # factor H^k: the candidate 0
                cl.pop()
            while len(cl) > 1 and cl[0] == 0:
                cl.pop(0)
            if len(cl) < 2:
                break
            try:
                cands = mpmath.polyroots(cl, maxsteps=400, extraprec=4 * mpmath.mp.prec)
            except mpmath.libmp.libhyper.NoConvergence:
                break
            best = min(cands, key=lambda c: abs(complex(c) - approx))
            if abs(complex(best) - approx) < 1e-3:
                return mpmath.re(best)
            break
        return mpmath.mpf(approx.real)  # no exact candidate matched: the numerical limit

    def _atoms(self, dps):
        atoms = self._atoms_raw(dps)
        if dps is None:
            return [(float(a), float(m)) for a, m in atoms]
        with workdps(dps):
            return [(+a, +m) for a, m in atoms]

    # ----------------------------------------------------- float64 tables
    @cached_property
    def _tables(self):
        """Per support interval: θ-grid branch table (for Newton starts) and cdf panels."""
        bd = self._branch(None)
        bps = [float(b) for b in bd.breakpoints]
        tables = []
        theta = np.linspace(0, math.pi, _TABLE_NODES)[1:-1]
        for i, info in enumerate(bd.intervals):
            if not info["support"]:
                continue
            a, b = bps[i - 1], bps[i]
            x = _x_of_theta(a, b, theta)
            r = self._num.roots(x)
            g = bd.select(r, info, x)
            g, _ = self._num.newton(g, x, steps=2)
            tables.append({"a": a, "b": b, "info": info, "theta": theta, "g": g})
        poles = {float(p) for p in bd.poles}
        for t in tables:
            t["edges"] = []
            for end, g_end in ((t["a"], t["g"][0]), (t["b"], t["g"][-1])):
                if end in poles:
                    continue
                e_mp = next(b for b in bd.breakpoints if float(b) == end)
                # branch value just inside the support: picks the right double root at e
                inside = end + (1e-7 if end == t["a"] else -1e-7) * (t["b"] - t["a"])
                g_in = bd.select(self._num.roots(np.array([inside])), t["info"], np.array([inside]))[0]
                t["edges"].append(self._edge_expansion(e_mp, g_in))
        for t in tables:
            t["panels"], t["panel_mass"] = self._adaptive_panels(t)
            t["cum"] = np.concatenate([[0.0], np.cumsum(t["panel_mass"])])
        return tables

    def _branch_in_table(self, t, x):
        """Branch G(x + i0) for x strictly inside the support interval of table ``t``."""
        a, b = t["a"], t["b"]
        th = _theta_of_x(a, b, x)
        guess = np.interp(th, t["theta"], t["g"].real) + 1j * np.interp(th, t["theta"], t["g"].imag)
        g, step = self._num.newton(guess.copy(), x, steps=3)
        bad = ~(np.isfinite(g) & (step <= 1e-10 * np.abs(g))
                & (np.abs(g - guess) <= 1e-2 * np.abs(guess)) & (g.imag <= 0))
        bad |= (th < t["theta"][1]) | (th > t["theta"][-2])
        if np.any(bad):
            r = self._num.roots(x[bad])
            gb = self._branch(None).select(r, t["info"], x[bad])
            gb, _ = self._num.newton(gb, x[bad], steps=2)
            g[bad] = gb
        for edge in t["edges"]:
            m = np.abs(x - edge["x"]) <= _EDGE_ZONE * (b - a)
            if np.any(m):
                g[m] = self._edge_local(edge, x[m], g[m])
        return g

    def _edge_expansion(self, e, g_guess):
        """Re-expansion of P at a square-root edge: P(G_e + u, e + δ) = Σ p_ij u^i δ^j with
        p_00 = p_10 = 0 set exactly, so that u(δ) ~ sqrt(δ) keeps full relative accuracy."""
        with workdps(FLOAT_REFERENCE_DPS):
            c = self._num.coefficients_mp()
            dP = [[(k + 1) * c[k + 1][j] for j in range(len(c[0]))] for k in range(len(c) - 1)]
            # G_e is the double root: the real root of ∂P/∂G(·, e) nearest the branch
            dcoef = [sum(dP[k][j] * e**j for j in range(len(dP[0]))) for k in range(len(dP) - 1, -1, -1)]
            while len(dcoef) > 1 and dcoef[0] == 0:
                dcoef.pop(0)
            cands = mpmath.polyroots(dcoef, maxsteps=200, extraprec=60) if len(dcoef) > 1 else []
            ge = mpmath.mpf(g_guess.real)
            if cands:
                ge = mpmath.re(min(cands, key=lambda r: abs(complex(r) - complex(g_guess))))
            for _ in range(100):
                f = sum(dP[k][j] * ge**k * e**j for k in range(len(dP)) for j in range(len(dP[0])))
                df = sum(k * dP[k][j] * ge ** (k - 1) * e**j for k in range(1, len(dP))
                         for j in range(len(dP[0])))
                step = f / df
                ge -= step
                if abs(step) <= mpmath.mpf(10) ** (-FLOAT_REFERENCE_DPS) * (1 + abs(ge)):
                    break
            deg, degz = len(c) - 1, len(c[0]) - 1
            p = np.zeros((deg + 1, degz + 1))
            for i in range(deg + 1):
                for j in range(degz + 1):
                    acc = mpmath.mpf(0)
                    for k in range(i, deg + 1):
                        for jj in range(j, degz + 1):
                            acc += (c[k][jj] * mpmath.binomial(k, i) * ge ** (k - i)
                                    * mpmath.binomial(jj, j) * e ** (jj - j))
                    p[i, j] = float(acc)
            p[0, 0] = 0.0
            p[1, 0] = 0.0
            ef = float(e)
            return {"x": ef, "corr": float(ef - e), "g": float(ge), "p": p}

    @staticmethod
    def _edge_local(edge, x, g_fallback):
        """Branch near a square-root edge from the local expansion (see _edge_expansion)."""
        delta = (x - edge["x"]) + edge["corr"]
        p = edge["p"]
        q = np.array([np.polyval(p[i, ::-1], delta) for i in range(p.shape[0])]) + 0j
        disc = np.sqrt(q[1] ** 2 - 4 * q[2] * q[0])
        u1 = (-q[1] + disc) / (2 * q[2])
        u2 = (-q[1] - disc) / (2 * q[2])
        u = np.where(u1.imag <= u2.imag, u1, u2)
        step = np.full(u.shape, np.inf)
        for _ in range(30):
            val = np.zeros_like(u)
            der = np.zeros_like(u)
            for qi in q[::-1]:
                der = der * u + val
                val = val * u + qi
            delta = np.where(der != 0, val / np.where(der != 0, der, 1), 0)
            u = u - delta
            step = np.abs(delta)
            if np.all(step <= 1e-15 * np.abs(u)):
                break
        g = edge["g"] + u
        # accept the local root when Newton converged on the same sheet as the global solve
        ok = (np.isfinite(g) & (g.imag <= 0) & (step <= 1e-13 * np.abs(u))
              & (np.abs(g - g_fallback) <= 1e-3 * np.abs(g_fallback)))
        return np.where(ok, g, g_fallback)

    def _pdf_float(self, x):
        out = np.zeros(x.shape)
        for t in self._tables:
            m = (x > t["a"]) & (x < t["b"])
            if np.any(m):
                out[m] = np.maximum(-self._branch_in_table(t, x[m]).imag / math.pi, 0.0)
        for p in self._hard_edges:
            out[x == p] = np.inf
        return out

    @cached_property
    def _hard_edges(self):
        """Breakpoints where the density diverges: poles adjacent to the support with no atom."""
        bd = self._branch(None)
        atoms = {float(a) for a, _ in self._atoms_raw(None)}
        out = []
        bps = [float(b) for b in bd.breakpoints]
        for i, p in enumerate(bd.breakpoints):
            if p not in bd.poles or float(p) in atoms:
                continue
            if bd.intervals[i]["support"] or bd.intervals[i + 1]["support"]:
                out.append(bps[i])
        return out

    # cdf: Gauss–Legendre on θ-panels, x(θ) = a + (b − a)(1 − cos θ)/2
    def _theta_integrand(self, t, th):
        a, b = t["a"], t["b"]
        x = _x_of_theta(a, b, th)
        inside = (x > a) & (x < b)
        f = np.zeros(th.shape)
        if np.any(inside):
            g = self._branch_in_table(t, x[inside])
            f[inside] = -g.imag / math.pi * (b - a) * 0.5 * np.sin(th[inside])
        return f

    def _gl(self, t, lo, hi):
        """∫_lo^hi of the θ-integrand, vectorised over arrays lo, hi."""
        half = 0.5 * (hi - lo)
        nodes = (0.5 * (hi + lo))[:, None] + half[:, None] * _GL_X[None, :]
        vals = self._theta_integrand(t, nodes.reshape(-1)).reshape(nodes.shape)
        return half * (vals @ _GL_W)

    def _adaptive_panels(self, t):
        """θ-panels refined until 12-point Gauss–Legendre agrees with its two halves to
        1e-16 absolute (sharp features, e.g. a shifted hard edge at small β, get resolved)."""
        lo, hi = _PANELS[:-1], _PANELS[1:]
        keep_lo, keep_mass = [], []
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            whole = self._gl(t, lo, hi)
            left, right = self._gl(t, lo, mid), self._gl(t, mid, hi)
            ok = (np.abs(whole - (left + right)) <= _PANEL_TOL) | (hi - lo <= 1e-15 * math.pi)
            keep_lo += [lo[ok], mid[ok]]
            keep_mass += [left[ok], right[ok]]
            lo, hi = np.concatenate([lo[~ok], mid[~ok]]), np.concatenate([mid[~ok], hi[~ok]])
            if lo.size == 0:
                break
        starts = np.concatenate(keep_lo)
        masses = np.concatenate(keep_mass)
        order = np.argsort(starts)
        return np.append(starts[order], math.pi), masses[order]

    def _cdf_float(self, x):
        out = np.zeros(x.shape)
        for loc, mass in self._atoms_raw(None):
            out += np.where(x >= float(loc), float(mass), 0.0)
        for t in self._tables:
            a, b = t["a"], t["b"]
            out += np.where(x >= b, t["cum"][-1], 0.0)
            m = (x > a) & (x < b)
            if np.any(m):
                th = _theta_of_x(a, b, x[m])
                panels = t["panels"]
                k = np.clip(np.searchsorted(panels, th, side="right") - 1, 0, len(panels) - 2)
                out[m] += t["cum"][k] + self._gl(t, panels[k], th)
        return np.clip(out, 0.0, 1.0)

    def _ppf_float(self, q):
        """Quantiles: locate the θ-panel from the cumulative table, then Newton in θ."""
        out = np.empty(q.shape)
        pieces = []  # (start mass, kind, payload) in increasing x
        for loc, mass in self._atoms_raw(None):
            pieces.append((float(loc), "atom", float(mass)))
        for t in self._tables:
            pieces.append((t["a"], "ac", t))
        pieces.sort(key=lambda p: p[0])
        cum = 0.0
        done = np.zeros(q.shape, bool)
        for loc, kind, payload in pieces:
            mass = payload if kind == "atom" else payload["cum"][-1]
            m = (~done) & (q <= cum + mass)
            if kind == "atom":
                out[m] = loc
            elif np.any(m):
                out[m] = self._ppf_interval(payload, q[m] - cum)
            done |= m
            cum += mass
        if np.any(~done):  # rounding: q = 1 beyond the accumulated mass
            out[~done] = max(p[0] if p[1] == "atom" else p[2]["b"] for p in pieces)
        return out

    def _ppf_interval(self, t, r):
        a, b = t["a"], t["b"]
        cumt = t["cum"]
        panels = t["panels"]
        k = np.clip(np.searchsorted(cumt, r, side="left") - 1, 0, len(panels) - 2)
        lo, hi = panels[k].copy(), panels[k + 1].copy()
        target = r - cumt[k]
        pm = t["panel_mass"][k]
        frac = np.where(pm > 0, target / np.where(pm > 0, pm, 1), 0.5)
        th = lo + np.clip(frac, 0, 1) * (hi - lo)
        for _ in range(40):
            F = self._gl(t, panels[k], th) - target
            lo = np.where(F < 0, th, lo)
            hi = np.where(F >= 0, th, hi)
            f = self._theta_integrand(t, th)
            with np.errstate(divide="ignore", invalid="ignore"):
                nt = th - F / f
            bad = ~np.isfinite(nt) | (nt <= lo) | (nt >= hi)
            nt = np.where(bad, 0.5 * (lo + hi), nt)
            conv = np.abs(nt - th) <= 1e-15 * math.pi
            th = nt
            if np.all(conv):
                break
        return _x_of_theta(a, b, th)

    # ------------------------------------------------------------ Cauchy
    def _cauchy_float(self, zz):
        out = np.empty(zz.shape, dtype=complex)
        lower = zz.imag < 0
        zq = np.where(lower, zz.conj(), zz)
        real = zq.imag == 0
        if np.any(real):
            out[real] = self._cauchy_real(zq[real].real)
        if np.any(~real):
            out[~real] = self._cauchy_upper(zq[~real])
        out[lower] = out[lower].conj()
        return out

    def _cauchy_real(self, x):
        bd = self._branch(None)
        out = np.empty(x.shape, dtype=complex)
        tables = {id(t["info"]): t for t in self._tables}
        done = np.zeros(x.shape, bool)
        for info in bd.intervals:
            m = (x > info["lo"]) & (x < info["hi"])
            if not np.any(m):
                continue
            if info["support"]:
                out[m] = self._branch_in_table(tables[id(info)], x[m])
            else:
                r = self._num.roots(x[m])
                g = bd.select(r, info, x[m])
                out[m] = self._num.newton(g, x[m] + 0j, steps=2)[0].real + 0j
            done |= m
        for i in np.flatnonzero(~done):  # x is a breakpoint: limit from above
            eps = 1e-9 * (1 + abs(x[i]))
            g = self._cauchy_upper(np.array([complex(x[i], eps)]))[0]
            out[i] = np.inf if abs(g) > 1e6 else g
        return out

    def _cauchy_upper(self, zz):
        """Vectorised continuation from Re z + iY (G ~ 1/z there) down to each target."""
        bd = self._branch(None)
        R = bd._scale()
        Y = 8.0 * (R + np.abs(zz) + 1.0)
        target = zz.imag
        g = 1.0 / (zz.real + 1j * Y)
        g, _ = self._num.newton(g, zz.real + 1j * Y, steps=8)
        s = np.geomspace(1.0, 1e-12, 90)
        for sk in list(s[1:]) + [0.0]:
            zk = zz.real + 1j * (target + (Y - target) * sk)
            r = self._num.roots(zk)
            g = r[np.arange(len(r)), np.argmin(np.abs(r - g[:, None]), axis=1)]
        g, _ = self._num.newton(g, zz, steps=2)
        return g

    # ------------------------------------------------------------- mpmath
    def _locate_mp(self, x, dps):
        bd = self._branch(dps)
        for info in bd.intervals:
            if info["lo"] < float(x) < info["hi"]:
                return bd, info
        return bd, None

    def _branch_real_mp(self, x, dps):
        """G(x + i0) at the working precision for real x off the breakpoints."""
        bd, info = self._locate_mp(x, dps)
        guess = complex(self._cauchy_float(np.array([complex(float(x))]))[0])
        if info is None:
            return mpmath.mpc(guess)
        roots = self._num.roots_mp(x)
        g = bd.select_mp(roots, info, mpmath.mpc(guess))
        g = self._num.newton_mp(g, x)
        if not info["support"]:
            g = mpmath.mpc(mpmath.re(g), 0)
        return g

    def _pdf_mp(self, x, dps):
        with workdps(dps):
            x = to_mp(x)
            bd = self._branch(dps)
            if any(abs(x - b) == 0 for b in bd.breakpoints):
                val = mpmath.inf if float(x) in self._hard_edges else mpmath.mpf(0)
            else:
                _, info = self._locate_mp(x, dps)
                if info is None or not info["support"]:
                    val = mpmath.mpf(0)
                else:
                    val = max(-mpmath.im(self._branch_real_mp(x, dps)) / mpmath.pi, mpmath.mpf(0))
        with mpmath.workdps(dps):
            return +val

    def _cdf_mp(self, x, dps):
        with workdps(dps):
            x = to_mp(x)
            total = mpmath.mpf(0)
            for loc, mass in self._atoms_raw(dps):
                if x >= loc:
                    total += mass
            for a, b in self._support(dps):
                if x <= a:
                    continue
                upper = mpmath.pi if x >= b else mpmath.acos(1 - 2 * (x - a) / (b - a))

                def f(th, a=a, b=b):
                    xx = a + (b - a) * (1 - mpmath.cos(th)) / 2
                    if xx <= a or xx >= b:
                        return mpmath.mpf(0)
                    return self._pdf_mp(xx, dps + 5) * (b - a) / 2 * mpmath.sin(th)

                total += mpmath.quad(f, [0, upper])
        with mpmath.workdps(dps):
            return +total

    def _cauchy_mp(self, zv, dps):
        with workdps(dps):
            zv = mpmath.mpc(to_mp(zv))
            if mpmath.im(zv) == 0:
                val = self._branch_real_mp(mpmath.re(zv), dps)
            else:
                conj = mpmath.im(zv) < 0
                zq = mpmath.conj(zv) if conj else zv
                guess = complex(self._cauchy_float(np.array([complex(zq)]))[0])
                roots = self._num.roots_mp(zq)
                g = min(roots, key=lambda r: abs(r - guess))
                g = self._num.newton_mp(g, zq)
                val = mpmath.conj(g) if conj else g
        with mpmath.workdps(dps):
            return +val

    # ------------------------------------------------------------ mapping
    def affine(self, shift, scale):
        """Push-forward by x ↦ shift + scale·x (scale ≠ 0), as a new :class:`AlgebraicLaw`.

        G_new(z) = G((z − shift)/scale)/scale.  ``shift`` and ``scale`` may be floats (taken
        exactly) or exact sympy expressions.

        Raises
        ------
        ValueError
            If ``scale`` is zero or a parameter is not finite.
        """
        from ._params import exact, fresh

        for name, v in (("shift", shift), ("scale", scale)):
            if not isinstance(v, sp.Basic) and not math.isfinite(float(v)):
                raise ValueError(f"{name} must be finite, got {v!r}")
        shift, scale = exact(shift), exact(scale)
        if scale == 0:
            raise ValueError("scale must be non-zero, got 0")
        a_s, b_s = fresh("shift"), fresh("scale")
        P = affine_polynomial(self.symbolic_polynomial, a_s, b_s)
        return AlgebraicLaw(P, {**self.values, a_s: shift, b_s: scale},
                            name=f"{shift} + {scale}·({self.name})")

    def dilate(self, t):
        """Dilation D_t (push-forward by x ↦ t x), t > 0."""
        positive("t", float(t))
        return self.affine(0, t)



    def pushforward(self, coefficients):
        """Push-forward φ#μ by the real polynomial map φ(x) = c_0 + c_1 x + … + c_d x^d.

        Parameters
        ----------
        coefficients : sequence of float or sympy expression
            c_0, …, c_d, low to high, finite, c_d ≠ 0 (d ≥ 1).  Floats are taken at their
            exact binary value; sympy expressions (e.g. ``exp(1) - 1``) stay exact.

        Returns
        -------
        AlgebraicLaw
            The law of φ(X), X ~ μ, with G_{φ#μ}(z) = ∫ dμ(x)/(z − φ(x)) (G ~ 1/z, mass 1).

        Raises
        ------
        ParameterError
            If a coefficient is not finite, or d < 1, or c_d = 0.

        Notes
        -----
        Exact by elimination (:func:`freeattn.algebraic.polynomial.pushforward_polynomial`):
        G_{φ#μ}(z) = Σ_{φ(x_i) = z} G_μ(x_i)/φ′(x_i).  Zero coefficients are structural (the
        elimination is cached per structure); the others become parameter symbols.  The
        tied K = V law μ_KV = φ_KV#π_{γ_K/h} (Hayase & Karakida 2026, eq. (C.17)) is
        ``FreePoisson(γ_K/h).pushforward([0, θ₁ − θ₂, h θ₂/γ_K])``.

        Examples
        --------
        >>> from freeattn.laws import Semicircle
        >>> law = Semicircle(1).pushforward([0, 0, 1])   # X² of a semicircular X
        >>> [float(m) for m in law.exact_moments(3)]     # Catalan numbers
        [1.0, 2.0, 5.0]
        """
        from .._validation import ParameterError
        from ..algebraic.polynomial import pushforward_polynomial
        from ._params import exact, fresh

        coefficients = list(coefficients)
        if len(coefficients) < 2:
            raise ParameterError("coefficients", "need c_0, …, c_d with degree d >= 1, got "
                                 f"{len(coefficients)} coefficient(s)")
        for v in coefficients:
            if not isinstance(v, sp.Basic) and not math.isfinite(float(v)):
                raise ParameterError("coefficients", f"coefficients must be finite, got {v!r}")
        coefficients = [exact(v) for v in coefficients]
        if coefficients[-1] == 0:
            raise ParameterError("coefficients", "the leading coefficient c_d must be non-zero")
        syms, values = [], {}
        for j, c in enumerate(coefficients):
            if c == 0:
                syms.append(sp.Integer(0))
            else:
                s = fresh(f"c{j}")
                syms.append(s)
                values[s] = c
        P = pushforward_polynomial(self.symbolic_polynomial, syms)
        terms = " + ".join(f"{c}·x^{j}" for j, c in enumerate(coefficients) if c != 0)
        return AlgebraicLaw(P, {**self.values, **values}, name=f"({terms})#({self.name})")
