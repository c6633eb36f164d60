"""Property checks of issue 21, each returning its measured error (so a failure says by how much).

Every check takes ``(law, point)`` and returns ``(error, detail)``; the test compares ``error``
with the check's tolerance in :data:`CHECKS`.  References are independent of the law's own
routes: closed-form moments (``families``), a vectorised adaptive Gauss–Legendre quadrature of
the density written here (:class:`Quadrature`: each half of an interval in φ from its own end,
so δ^{±1/2} ends are smooth), evaluated once per point and shared by ``mass``, ``moments``,
``stieltjes`` and ``tails`` (:class:`Reference`); where the float pdf is too noisy for a tail
mass (cancellation next to an end), mpmath.quad of the law's pdf at 20 digits; the other
convolution route, and the undilated law.  A reference whose own error estimate exceeds a
tenth of the check's tolerance fails the check (kind N2) instead of deciding it.

Each construction and each check runs under :func:`bounded`: a call that does not return in
time raises :class:`CallTimeout` (an ``AssertionError``), i.e. the test fails.
"""
from __future__ import annotations

import math
import signal
import time
from contextlib import contextmanager
from fractions import Fraction

import numpy as np

BUILD_S = 60.0   # construction + support() + atoms()
CHECK_S = 30.0   # one check (all its calls)
REF_S = 30.0     # the shared reference quadrature of one point (checks.Reference)

EPS = np.finfo(float).eps
TINY = np.finfo(float).tiny


class CallTimeout(AssertionError):
    """A call did not return within its bound: a failure (issue 21: 'a timeout is a failure')."""


@contextmanager
def bounded(seconds, what):
    """Run the block under a wall-clock bound (SIGALRM in the main thread)."""
    fired = []

    def handler(signum, frame):
        fired.append(True)
        raise CallTimeout(f"{what} did not return within {seconds:g} s")

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    t0 = time.perf_counter()
    try:
        yield
    except Exception as exc:
        if fired and not isinstance(exc, CallTimeout):  # the library caught ours and raised its own
            raise CallTimeout(f"{what} did not return within {seconds:g} s ({type(exc).__name__})") from exc
        raise
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    if fired:  # swallowed by the library
        raise CallTimeout(f"{what} did not return within {seconds:g} s "
                          f"(took {time.perf_counter() - t0:.1f} s)")


# ------------------------------------------------------------------ geometry of a law
class Geometry:
    """Support intervals, atoms and the range [lo, hi] that holds all of the mass."""

    def __init__(self, law):
        self.support = [(float(a), float(b)) for a, b in law.support()]
        self.atoms = [(float(x), float(m)) for x, m in law.atoms()]
        ends = [e for ab in self.support for e in ab] + [x for x, _ in self.atoms]
        if not ends:
            raise AssertionError("law has neither support intervals nor atoms")
        self.lo, self.hi = min(ends), max(ends)
        self.width = self.hi - self.lo
        if not self.width > 0:
            # a single point: 1e-3 of its distance from 0; a point mass at 0 has no length
            # scale at all (1e-3·tiny would ask for G at |z| below float64's normal range), any
            # width serves there, take 1
            self.width = max(abs(self.lo), TINY) * 1e-3 if self.lo != 0 else 1.0
        self.scale = max(abs(self.lo), abs(self.hi), self.width)

    def inside_grid(self, n=41):
        """Points inside each support interval (endpoints excluded), and at 1e-3…1e-9 from each end."""
        out = []
        for a, b in self.support:
            w = b - a
            out.append(np.linspace(a, b, n)[1:-1])
            for d in (1e-3, 1e-6, 1e-9):
                out.append([a + d * w, b - d * w])
        return np.unique(np.concatenate(out)) if out else np.array([])

    def full_grid(self, n=201):
        pad = 0.25 * self.width
        g = [np.linspace(self.lo - pad, self.hi + pad, n), self.inside_grid()]
        g.append([x for x, _ in self.atoms])
        return np.unique(np.concatenate(g))


# ------------------------------------------------------------------ quadrature
_X10, _W10 = np.polynomial.legendre.leggauss(10)
_X21, _W21 = np.polynomial.legendre.leggauss(21)


def _differentiation_matrix(nodes):
    """D with (D f)_i = p′(x_i) for the polynomial p through (x_j, f_j) (barycentric form)."""
    diff = nodes[:, None] - nodes[None, :]
    np.fill_diagonal(diff, 1.0)
    bary = 1.0 / np.prod(diff, axis=1)
    D = (bary[None, :] / bary[:, None]) / diff
    np.fill_diagonal(D, 0.0)
    np.fill_diagonal(D, -D.sum(1))
    return D


_D10, _D21 = _differentiation_matrix(_X10), _differentiation_matrix(_X21)

REF_REL = 1e-12        # the reference's own accuracy, relative to ∫|integrand| (mass tol 1e-10)
TAIL_REL = 1e-10       # a tail sub-integral's accuracy relative to itself (tails tol 1e-8)
REF_SHARE = 0.1        # a reference whose error estimate exceeds this share of a check's
                       # tolerance cannot decide the check: N2 (density not integrable)
TAIL_D = (1e-2, 1e-5, 1e-8)  # tails: cdf at a + d·w, sf at b − d·w
MAX_PANELS = 4000      # pending panels in one round of the adaptive rule
NOISE_PANELS = 128     # more pending panels than this whose estimates stopped falling: noise
TAIL_PENDING = 48      # tail panels refined per round before the tail is left to mpmath
MP_DPS = 20            # working precision of the mpmath tail reference


def tail_points(a, b):
    """The doubles at which ``tails`` evaluates cdf (left end) and sf (right end)."""
    w = b - a
    return [a + d * w for d in TAIL_D], [b - d * w for d in TAIL_D]


class Quadrature:
    """One adaptive vectorised Gauss–Legendre quadrature of a density on one support interval
    [a, b], shared by every functional a point's checks need (mass, m₁, m₂, the Stieltjes
    integrals, the tail masses): the pdf is evaluated once per node.

    Each half of [a, b] is integrated from its own end e in φ ∈ [0, π/2], x = e ± w sin²(φ/2)
    (w = b − a), so that x − e keeps full relative precision and δ^{±1/2} ends are smooth.
    Panels are 10/21-point Gauss–Legendre pairs (error estimate |I₂₁ − I₁₀|), 32 per half to
    start with (a narrow component of a mixture is not missed) and broken at the tail points.
    A panel is done when every component's estimate is below ``REF_REL``·∫|component| times
    the panel's share of [0, π]; a panel within the outermost tail point also when its mass
    is accurate to ``TAIL_REL`` of the mass from the end up to it.  Written here, not
    scipy.integrate.quad_vec: that calls f once per node (one law.pdf call per node).
    """

    def __init__(self, pdf, a, b, kernels, floor, left=(), right=(), n0=32, ea=0.0, eb=0.0):
        # the ends are a + ea and b + eb: doubles a, b and offsets ea, eb of a few ulps (a singular
        # point that is not a double, e.g. a push-forward's critical value, is the end of the
        # rule itself, not the double next to it)
        self.a, self.b, self.ea, self.eb = float(a), float(b), float(ea), float(eb)
        self.w = (self.b - self.a) + (self.eb - self.ea)
        # the doubles next to the true ends, inside [a + ea, b + eb] and (a, b) (the law's float
        # end may be an ulp or two off the true one: a node never lies outside either)
        self.x_lo, self.x_hi = self._inside(self.a, self.ea, np.inf), self._inside(self.b, self.eb, -np.inf)
        self.kernels = kernels          # x (array) -> (k, len(x)) real components, row 0 = 1
        self.pdf = pdf
        self.floor = floor              # per component: the scale the check compares against
        # φ of each tail point (cdf at ``left`` from a, sf at ``right`` from b), measured from
        # its end, so that the tail sums stop exactly there; outermost first
        self.tail_phi = [[self._phi((x - self.a) - self.ea) for x in left] or [0.0],
                         [self._phi((self.b - x) + self.eb) for x in right] or [0.0]]
        self.noisy = False
        self._run(n0)

    @staticmethod
    def _inside(x, e, toward):
        """The first double strictly inside both the true end x + e (|e| a few ulps) and the
        double x (the law's float end: its pdf is 0 beyond), toward ``toward``."""
        y = x + e
        sgn = 1 if toward > 0 else -1
        while sgn * (y - x) <= 0 or sgn * ((y - x) - e) <= 0:
            y = np.nextafter(y, toward)
        return y

    def _phi(self, t):
        return 2 * math.asin(math.sqrt(min(max(t / self.w, 0.0), 0.5)))

    def _values(self, side, phi):
        """The components times the density times dx/dφ at the nodes φ.  The node x is a
        double: dx/dφ = √(t(w − t)) is taken at the node's own offset t = |x − e| (exact), i.e.
        the smooth integrand in φ is sampled at the φ the double x stands for, so a δ^{-1/2}
        end keeps its mass down to the last ulp (a node on the end moves one ulp inside).  The
        offset is from the true end a + ea (b + eb), so a strip between the double a and a
        singular point a sub-ulp away is neither lost nor counted twice."""
        s = np.sin(phi / 2) ** 2 * self.w
        if side == 0:
            x = np.clip(self.a + (self.ea + s), self.x_lo, self.x_hi)
            t = (x - self.a) - self.ea
        else:
            x = np.clip(self.b - (s - self.eb), self.x_lo, self.x_hi)
            t = (self.b - x) + self.eb
        with np.errstate(all="ignore"):
            p = np.asarray(self.pdf(x), dtype=float)
            v = self.kernels(x) * (p * np.sqrt(t * np.maximum(self.w - t, 0.0)))[None, :]
        if not np.all(np.isfinite(v)):
            bad = x[~np.all(np.isfinite(v), 0)][0]
            raise AssertionError(f"density not finite at x = {bad!r} inside [{self.a!r}, {self.b!r}]")
        # the values are the integrand at φ(t), not at the rule's node φ: t·(relative rounding
        # of x) off, i.e. ulp(e)/t relative, 1e-7 at the 1e-8 tail of MP_0.004 (b/w = 4.3),
        # where the rule's sum kept 1.6e-8 of it; returned so that the rule moves each value
        # to its node to first order (Quadrature._run)
        shift = phi - 2 * np.arcsin(np.sqrt(np.clip(t / self.w, 0.0, 1.0)))
        return v, shift

    def _run(self, n0):
        edges = [np.unique(np.concatenate([np.linspace(0, np.pi / 2, n0 + 1), tp])) for tp in self.tail_phi]
        # pending panels: side, lo, hi
        side = np.concatenate([np.full(len(e) - 1, k) for k, e in enumerate(edges)])
        lo = np.concatenate([e[:-1] for e in edges])
        hi = np.concatenate([e[1:] for e in edges])
        tail_top = np.array([tp[0] for tp in self.tail_phi])   # the outermost tail point
        acc = dict(side=[], lo=[], hi=[], val=[], est=[], moved=[])
        guess = None
        last_pending = math.inf
        for _ in range(60):
            if not len(lo):
                break
            mid, half = (lo + hi) / 2, (hi - lo) / 2
            vals, ests = [], []
            for k in (0, 1):  # one pdf call per side and round
                m = side == k
                if not m.any():
                    empty = np.zeros((len(guess) if guess is not None else len(self.kernels(np.zeros(1))), 0))
                    vals.append((empty, empty, np.zeros(0)))
                    ests.append(empty)
                    continue
                t10 = (mid[m, None] + half[m, None] * _X10[None, :]).ravel()
                t21 = (mid[m, None] + half[m, None] * _X21[None, :]).ravel()
                v, shift = self._values(k, np.concatenate([t10, t21]))
                n = m.sum()
                v10 = v[:, :t10.size].reshape(-1, n, 10)
                v21 = v[:, t10.size:].reshape(-1, n, 21)
                # each value moved from φ(t) of its double node to the node: + F′·(φ − φ(t)),
                # F′ from the panel's interpolant (dφ = half·dξ)
                h = half[m][None, :, None]
                v10 = v10 + (v10 @ _D10.T) / h * shift[:t10.size].reshape(n, 10)[None]
                move21 = (v21 @ _D21.T) / h * shift[t10.size:].reshape(n, 21)[None]
                v21 = v21 + move21
                i10 = (v10 * _W10).sum(2) * half[m]
                i21 = (v21 * _W21).sum(2) * half[m]
                vals.append((i21, (np.abs(v21) * _W21).sum(2) * half[m],
                             np.abs((move21[0] * _W21).sum(1)) * half[m]))
                ests.append(np.abs(i21 - i10))
            order = np.concatenate([np.flatnonzero(side == 0), np.flatnonzero(side == 1)])
            i21 = np.concatenate([vals[0][0], vals[1][0]], 1)
            absint = np.concatenate([vals[0][1], vals[1][1]], 1)
            moved = np.concatenate([vals[0][2], vals[1][2]])
            est = np.concatenate([ests[0], ests[1]], 1)
            side, lo, hi, half = side[order], lo[order], hi[order], half[order]
            if guess is None:  # ∫|component| from the first pass (or the scale the check
                guess = np.maximum(absint.sum(1), self.floor)  # compares at): tolerances are relative to it
            tol = REF_REL * guess[:, None] * np.maximum(2 * half / np.pi, 1e-3)[None, :]
            ok = np.all(est <= tol, 0) | (half < 1e-12)
            if not self.noisy:
                # the tail criterion on the mass (row 0): relative to the mass from the end up
                # to the panel; given up when the float pdf is too noisy for it (then the tails
                # are taken by mpmath, Reference._tail), the global criterion stays
                in_tail = hi <= tail_top[side] * (1 + 1e-15)
                cum = self._cumulative(side, hi, np.abs(i21[0]), acc)
                tail_ok = ok & (~in_tail | (est[0] <= TAIL_REL * cum) | (half < 1e-12))
                if np.count_nonzero(~tail_ok) - np.count_nonzero(~ok) > TAIL_PENDING:
                    self.noisy = True
                else:
                    ok = tail_ok
            for key, val in (("side", side), ("lo", lo), ("hi", hi)):
                acc[key].append(val[ok])
            acc["val"].append(i21[:, ok])
            acc["est"].append(est[:, ok])
            acc["moved"].append(moved[ok])
            pending = float(est[:, ~ok].sum()) if (~ok).any() else 0.0
            left_over = (side[~ok], lo[~ok], hi[~ok], i21[:, ~ok], est[:, ~ok], moved[~ok])
            side, lo, hi = side[~ok], lo[~ok], hi[~ok]
            # noise (the float pdf's own rounding) does not shrink under bisection: many
            # panels whose estimates stopped falling, or too many panels, end the refinement;
            # what is left over then counts with its estimate as the error
            if len(lo) > MAX_PANELS or (len(lo) > NOISE_PANELS and pending > 0.5 * last_pending):
                self.noisy = True
                break
            last_pending = pending
            m = (lo + hi) / 2
            side, lo, hi = np.repeat(side, 2), np.ravel(np.stack([lo, m], 1)), np.ravel(np.stack([m, hi], 1))
        if len(lo):  # left over (noise): their 21-point sums, with the estimates as the error
            acc["side"].append(left_over[0]); acc["lo"].append(left_over[1]); acc["hi"].append(left_over[2])
            acc["val"].append(left_over[3]); acc["est"].append(left_over[4])
            acc["moved"].append(left_over[5])
        self.side = np.concatenate(acc["side"])
        self.lo = np.concatenate(acc["lo"])
        self.hi = np.concatenate(acc["hi"])
        self.val = np.concatenate(acc["val"], 1)
        self.est = np.concatenate(acc["est"], 1)
        #: per panel: |the mass's first-order move of the values to their nodes| (row 0)
        self.moved = np.concatenate(acc["moved"])
        self.npanels = len(self.lo)

    @staticmethod
    def _cumulative(side, hi, absval, acc):
        """∫ from the panel's end up to its outer boundary (accepted panels and this round's)."""
        if acc["side"]:
            s0, h0 = np.concatenate(acc["side"]), np.concatenate(acc["hi"])
            v0 = np.abs(np.concatenate(acc["val"], 1)[0])
        else:
            s0 = h0 = v0 = np.zeros(0)
        s_all = np.concatenate([s0, side])
        h_all = np.concatenate([h0, hi])
        v_all = np.concatenate([v0, absval])
        out = np.empty(len(side))
        for k in (0, 1):
            m_all = s_all == k
            srt = np.sort(h_all[m_all])
            csum = np.cumsum(v_all[m_all][np.argsort(h_all[m_all], kind="stable")])
            m = side == k
            if m.any():
                idx = np.searchsorted(srt, hi[m], side="right") - 1
                out[m] = csum[idx]
        return out

    def total(self, row=None):
        """(value, error estimate) of ∫ component ``row`` over [a, b] (all rows if None)."""
        v, e = self.val.sum(1), self.est.sum(1)
        return (v, e) if row is None else (float(v[row]), float(e[row]))

    def tail(self, side, j):
        """(mass, error estimate) from the end ``side`` (0: a, 1: b) to its tail point j."""
        m = (self.side == side) & (self.hi <= self.tail_phi[side][j] * (1 + 1e-15))
        # the move to the nodes counts as error here: a tail next to an end that is no double
        # (boxplus_num-5: 8.2e-17 beside it, 1.6e-10 from the tail point) keeps a bias the
        # move does not see, which its size flags for the mpmath route (Reference._tail)
        return float(self.val[0, m].sum()), float(self.est[0, m].sum() + self.moved[m].sum())


def _kernels(zs):
    """Components ∫ ρ·k(x): 1, x, x², Re and Im of 1/(z − x) for each z of ``zs``."""
    def k(x):
        rows = [np.ones_like(x), x, x * x]
        for zz in zs:
            d = zz - x
            q = 1 / (d.real ** 2 + d.imag ** 2)
            rows += [d.real * q, d.imag * q]
        return np.stack(rows)
    return k


def stieltjes_points(geo):
    return [x0 + 1j * y * geo.width for x0 in np.linspace(geo.lo, geo.hi, 5) for y in (0.05, 1.0)]


END_ULPS = 4   # a support end within this many ulps of a known singular point c + e is that point


def _end_offset(x, breaks):
    """The offset from the double support end ``x`` to the singular point it stands for (the
    law's float end of an exact end c + e, e.g. a push-forward's critical value), else 0;
    and whether the density is ∝ δ^{-1/2} there."""
    for c, e, inv_sqrt in breaks:
        if abs(x - c) <= END_ULPS * np.spacing(abs(c)):
            return (c - x) + e, inv_sqrt
    return 0.0, False


class Reference:
    """The independent references of one law, computed once per point and shared by its
    checks: the geometry, and :class:`Quadrature` pieces per support interval (the interval
    cut at the point's known interior singular points ``pt.breaks``, e.g. the critical values of
    a push-forward's polynomial, where the density has a δ^{-1/2} or √δ point)."""

    def __init__(self, law, pt=None):
        self.law = law
        self.geo = Geometry(law)
        self.zs = stieltjes_points(self.geo)
        kern = _kernels(self.zs)
        f = pdf_of(law)
        if self.geo.atoms:  # the tolerances of the checks are relative to the whole law
            locs = np.array([x for x, _ in self.geo.atoms])
            masses = np.array([m for _, m in self.geo.atoms])
            with np.errstate(all="ignore"):  # an atom under a Stieltjes point of a zero-width law
                floor = np.abs(kern(locs)) @ masses
            floor = np.where(np.isfinite(floor), floor, 0.0)
        else:
            floor = np.zeros(len(kern(np.zeros(1))))
        # a break is a double, or (double c, offset e[, δ^{-1/2}]): the singular point c + e,
        # |e| ≤ ulp/2, where the density is ∝ |x − c − e|^{-1/2} on one side if the flag is
        # set (families: the 40-digit critical values of a push-forward's polynomial)
        breaks = sorted((tuple(c) + (False,))[:3] if isinstance(c, tuple) else (float(c), 0.0, False)
                        for c in (getattr(pt, "breaks", None) or ()))
        self.pieces = []   # per support interval: its list of Quadratures
        self.break_ends = []   # per support interval: (left, right) end is a δ^{-1/2} break
        for a, b in self.geo.support:
            w = b - a
            left, right = tail_points(a, b)
            cuts = [c for c in breaks if a + 2.5 * TAIL_D[0] * w < c[0] < b - 2.5 * TAIL_D[0] * w]
            ea, eb = _end_offset(a, breaks), _end_offset(b, breaks)
            self.break_ends.append((ea[1], eb[1]))
            ends = [(a, ea[0])] + [c[:2] for c in cuts] + [(b, eb[0])]
            qs = []
            for k, ((u, eu), (v, ev)) in enumerate(zip(ends[:-1], ends[1:])):
                qs.append(Quadrature(f, u, v, kern, floor, left if k == 0 else (),
                                     right if k == len(ends) - 2 else (), ea=eu, eb=ev))
            self.pieces.append(qs)
        self.quads = [q for qs in self.pieces for q in qs]

    def integral(self, row):
        """(Σ over the intervals of ∫ ρ·component, error estimate)."""
        v = e = 0.0
        for q in self.quads:
            dv, de = q.total(row)
            v, e = v + dv, e + de
        return v, e

    def mass_below(self, i, j):
        """cdf at the left tail point j of interval i: atoms ≤ x, the intervals below, the tail."""
        x = tail_points(*self.geo.support[i])[0][j]
        s = sum(m for loc, m in self.geo.atoms if loc <= x)
        e = 0.0
        for qs in self.pieces[:i]:
            for q in qs:
                dv, de = q.total(0)
                s, e = s + dv, e + de
        dv, de = self._tail(i, 0, j, x)
        return s + dv, e + de

    def mass_above(self, i, j):
        x = tail_points(*self.geo.support[i])[1][j]
        s = sum(m for loc, m in self.geo.atoms if loc > x)
        e = 0.0
        for qs in self.pieces[i + 1:]:
            for q in qs:
                dv, de = q.total(0)
                s, e = s + dv, e + de
        dv, de = self._tail(i, 1, j, x)
        return s + dv, e + de

    def _tail(self, i, side, j, x):
        """The tail mass by the float rule, or, where the law's float pdf is too noisy for it
        (cancellation next to the end), by mpmath.quad (tanh-sinh) in φ of the law's pdf at
        ``MP_DPS`` digits (the law's high-precision route of the density, not of its cdf).
        At an end that is one of the point's δ^{-1/2} points (``pt.breaks``: a push-forward's
        critical value) always by mpmath: the float pdf there carries a smooth
        relative bias ~1e-20/(x − e) (1.8e-8 at 1e-12 from the end of pushforward-23) that
        the rule's estimate does not see and that moves the 1e-8 tail by ~1e-8 of itself."""
        v, e = self.pieces[i][-side].tail(side, j)
        if e <= REF_SHARE * CHECK_TOL["tails"] * abs(v) and not self.break_ends[i][side]:
            return v, e
        import mpmath  # noqa: PLC0415 - the rare fallback only
        a, b = self.geo.support[i]
        law = self.law
        with mpmath.workdps(MP_DPS):
            # the end at MP_DPS digits (the law's structure data, not its cdf): a density
            # edge between two doubles is then the end of the rule, and φ ↦ ρ √(t(w − t)) smooth
            ends = law.support(dps=MP_DPS)
            if len(ends) == len(self.geo.support):
                a, b = ends[i]
            a, b = mpmath.mpf(a), mpmath.mpf(b)
            e, w = (a if side == 0 else b), b - a
            sgn = 1 if side == 0 else -1
            nudge = sgn * mpmath.eps * max(abs(e), mpmath.mpf(TINY))

            def g(phis):  # as Quadrature._values, each node x at MP_DPS digits
                xs = [e + sgn * w * mpmath.sin(mpmath.mpf(p) / 2) ** 2 for p in phis]
                xs = [x + nudge if x == e else x for x in xs]
                ts = [abs(x - e) for x in xs]
                ps = law.pdf(np.array(xs, dtype=object), dps=MP_DPS)
                return np.array([float(mpmath.mpf(p) * mpmath.sqrt(t * (w - t))) for p, t in zip(ps, ts)])

            top = float(2 * mpmath.asin(mpmath.sqrt(abs(mpmath.mpf(x) - e) / w)))
            return _adaptive_gl(g, top)


def _adaptive_gl(g, top, rounds=40):
    """∫_0^top g by 10/21-point Gauss–Legendre panels, bisected until each is accurate to
    ``TAIL_REL`` of the total (g vectorised; one call per round).  Returns (value, error)."""
    lo, hi = np.array([0.0]), np.array([top])
    total = err = 0.0
    scale = None
    for _ in range(rounds):
        mid, half = (lo + hi) / 2, (hi - lo) / 2
        t10 = (mid[:, None] + half[:, None] * _X10).ravel()
        t21 = (mid[:, None] + half[:, None] * _X21).ravel()
        v = g(np.concatenate([t10, t21]))
        i10 = (v[:t10.size].reshape(-1, 10) * _W10).sum(1) * half
        i21 = (v[t10.size:].reshape(-1, 21) * _W21).sum(1) * half
        est = np.abs(i21 - i10)
        if scale is None:
            scale = abs(i21.sum())
        ok = est <= TAIL_REL * scale * np.maximum(half / top, 1e-3)
        total += i21[ok].sum()
        err += est[ok].sum()
        lo, hi = lo[~ok], hi[~ok]
        if not len(lo):
            return float(total), float(err)
        if len(lo) > 16:  # not an end singularity but noise: bisection will not help
            break
        m = (lo + hi) / 2
        lo, hi = np.concatenate([lo, m]), np.concatenate([m, hi])
    # not converged: the last round's estimates count as the error
    return float(total + i21[~ok].sum()), float(err + est[~ok].sum())


_REF = {}
#: the checks that use the shared reference (it is built once per point, under ``REF_S``)
NEEDS_REF = ("mass", "moments", "stieltjes", "tails")


def reference(law, pt=None):
    """The :class:`Reference` of ``law`` (kept for the last law: a point's checks run in a row)."""
    if _REF.get("law") is not law:
        _REF.clear()
        try:
            _REF.update(law=law, ref=Reference(law, pt), error=None)
        except Exception as exc:  # noqa: BLE001 - reported by each check that needs it
            _REF.update(law=law, ref=None, error=exc)
    if _REF["error"] is not None:
        raise _REF["error"]
    return _REF["ref"]


def prepare(law, name, pt=None):
    """Build the point's shared reference before check ``name`` if it needs one: under its
    own bound ``REF_S`` (a timeout or an N2 failure is kept and reported by every check that
    needs the reference), so that the check's own bound ``CHECK_S`` times the check alone."""
    if name in NEEDS_REF:
        if _REF.get("law") is not law:
            with bounded(REF_S, "the reference quadrature of the density"):
                try:
                    reference(law, pt)
                except CallTimeout as exc:
                    _REF.update(law=law, ref=None, error=exc)
                    raise
                except Exception:  # noqa: BLE001 - kept in _REF, raised below
                    pass
        reference(law)


def pdf_of(law):
    return lambda x: law.pdf(np.asarray(x, dtype=float))


def decided(name, err, what):
    """A reference error estimate beyond ``REF_SHARE`` of the check's tolerance cannot decide
    the check (kind N2)."""
    if not err <= REF_SHARE * CHECK_TOL[name]:
        raise AssertionError(f"N2: the reference quadrature of {what} has error estimate {err:.3g}, "
                             f"more than {REF_SHARE:g} × tolerance {CHECK_TOL[name]:g} "
                             f"(density noisy or not integrable)")


def rel_err(value, ref, floor=0.0):
    value, ref = complex(value), complex(ref)
    if not (np.isfinite(value.real) and np.isfinite(value.imag)):
        return math.inf
    return abs(value - ref) / max(abs(ref), floor, TINY)


# ------------------------------------------------------------------ the checks
def check_mass(law, pt):
    """|atoms + ∫ density − 1| (issue 21: mass 1 ± 1e-10 with atoms)."""
    ref = reference(law, pt)
    atoms = sum(m for _, m in ref.geo.atoms)
    dens, err = ref.integral(0)
    decided("mass", err, "the mass")
    return abs(atoms + dens - 1.0), f"atoms {atoms!r} + density {dens!r} (quadrature error {err:.2g})"


def check_pdf_nonnegative(law, pt):
    """pdf ≥ 0 and finite everywhere off the atoms (error: −min pdf relative to max pdf, or inf)."""
    geo = Geometry(law)
    x = geo.full_grid()
    x = x[~np.isin(x, [a for a, _ in geo.atoms])]
    p = np.asarray(law.pdf(x), dtype=float)
    inside = np.zeros(len(x), bool)
    for a, b in geo.support:
        inside |= (x > a) & (x < b)
    bad = ~np.isfinite(p) & inside
    if bad.any():
        return math.inf, f"pdf({x[bad][0]!r}) = {p[bad][0]!r}"
    if np.any(np.isnan(p)):
        return math.inf, f"pdf({x[np.isnan(p)][0]!r}) is nan"
    outside = ~inside & np.isfinite(p) & (p != 0)
    outside &= ~np.isin(x, [e for ab in geo.support for e in ab])
    if outside.any():
        i = np.flatnonzero(outside)[0]
        return math.inf, f"pdf({x[i]!r}) = {p[i]!r} outside the support {geo.support}"
    finite = p[np.isfinite(p)]
    top = finite.max() if finite.size else 1.0
    low = finite.min() if finite.size else 0.0
    return (max(0.0, -low) / top if top > 0 else 0.0), f"min pdf {low!r}"


def check_moments(law, pt):
    """m₁, m₂ by the law (``law.moment``) against the quadrature of its density + atoms, and
    against the exact moments of the family where known; error relative to sqrt(m₂)^k."""
    ref = reference(law, pt)
    geo = ref.geo
    errs, parts = [], []
    ref_scale = None
    for k in (1, 2):
        q, qerr = ref.integral(k)
        q += sum(m * x ** k for x, m in geo.atoms)
        mk = float(law.moment(k))
        exact = float(pt.moments[k - 1]) if len(pt.moments) >= k else None
        if ref_scale is None:
            m2 = float(pt.moments[1]) if len(pt.moments) >= 2 else mk if k == 2 else None
            ref_scale = math.sqrt(abs(float(law.moment(2)))) if m2 is None else math.sqrt(abs(m2))
            ref_scale = max(ref_scale, TINY)
        s = max(ref_scale ** k, TINY)
        decided("moments", qerr / s, f"m{k}")
        errs.append(abs(mk - q) / s)
        parts.append(f"m{k}: law {mk!r}, quadrature {q!r}")
        if exact is not None:
            errs.append(abs(mk - exact) / s)
            errs.append(abs(q - exact) / s)
            parts.append(f"exact {exact!r}")
    return max(errs), "; ".join(parts)


def _ulp_pairs(geo, n=25, seed=0):
    rng = np.random.default_rng(seed)
    xs = []
    for a, b in geo.support:
        xs.append(a + (b - a) * rng.random(n))
        for d in (1e-12, 1e-8, 1e-4):
            xs.append([a + d * (b - a), b - d * (b - a)])
    xs = np.concatenate(xs) if xs else np.array([geo.lo])
    return xs, np.nextafter(xs, np.inf)


def check_cdf_monotone(law, pt):
    """cdf non-decreasing on a sorted grid and between every sampled x and nextafter(x) (to
    the ulp: any decrease is a failure); error: the largest decrease."""
    geo = Geometry(law)
    x = geo.full_grid(401)
    F = np.asarray(law.cdf(x), dtype=float)
    if np.any(np.isnan(F)):
        return math.inf, f"cdf({x[np.isnan(F)][0]!r}) is nan"
    d = np.diff(F)
    worst = max(0.0, -d.min()) if d.size else 0.0
    detail = ""
    if worst > 0:
        i = int(np.argmin(d))
        detail = f"cdf({x[i]!r}) = {F[i]!r} > cdf({x[i + 1]!r}) = {F[i + 1]!r}"
    xs, ys = _ulp_pairs(geo)
    F1, F2 = np.asarray(law.cdf(xs), dtype=float), np.asarray(law.cdf(ys), dtype=float)
    d2 = F2 - F1
    if d2.size and -d2.min() > worst:
        i = int(np.argmin(d2))
        worst = -d2.min()
        detail = f"cdf({xs[i]!r}) = {F1[i]!r} > cdf(nextafter) = {F2[i]!r}"
    if np.any((F < 0) | (F > 1)):
        return math.inf, f"cdf outside [0, 1]: {F[(F < 0) | (F > 1)][0]!r}"
    return worst, detail


def check_outside(law, pt):
    """Beyond the support (and the atoms) cdf and sf are exactly 0 or 1 (item 5), at ±∞ too;
    error: the largest deviation."""
    geo = Geometry(law)
    lo, hi, w = geo.lo, geo.hi, geo.width
    left = [-np.inf, lo - w, np.nextafter(lo, -np.inf)] + [lo - d * max(abs(lo), w) for d in (1e-9, 1e-6)]
    right = [np.inf, hi + w, np.nextafter(hi, np.inf)] + [hi + d * max(abs(hi), w) for d in (1e-9, 1e-6)]
    left = [x for x in left if x < lo]
    right = [x for x in right if x > hi]
    errs = []
    cl, sl = law.cdf(np.array(left)), law.sf(np.array(left))
    cr, sr = law.cdf(np.array(right)), law.sf(np.array(right))
    errs += [(abs(v), f"cdf({x!r}) = {v!r}") for x, v in zip(left, cl)]
    errs += [(abs(1 - v), f"sf({x!r}) = {v!r}") for x, v in zip(left, sl)]
    errs += [(abs(1 - v), f"cdf({x!r}) = {v!r}") for x, v in zip(right, cr)]
    errs += [(abs(v), f"sf({x!r}) = {v!r}") for x, v in zip(right, sr)]
    errs = [(math.inf if not np.isfinite(e) else float(e), d) for e, d in errs]
    return max(errs)


def check_sf_plus_cdf(law, pt):
    """sf(x) + cdf(x) = 1 on the grid (error: max |sf + cdf − 1|)."""
    geo = Geometry(law)
    x = geo.full_grid()
    F = np.asarray(law.cdf(x), dtype=float)
    S = np.asarray(law.sf(x), dtype=float)
    e = np.abs(F + S - 1)
    if np.any(~np.isfinite(e)):
        i = np.flatnonzero(~np.isfinite(e))[0]
        return math.inf, f"cdf/sf({x[i]!r}) = {F[i]!r}, {S[i]!r}"
    i = int(np.argmax(e))
    return float(e[i]), f"x = {x[i]!r}: cdf {F[i]!r} + sf {S[i]!r}"


def check_tails(law, pt):
    """cdf in the left tail and sf in the right tail of every support interval, relative to the
    quadrature of the density from that end (each accurate in its own tail; item 1)."""
    ref = reference(law, pt)
    errs = [(0.0, "")]
    for i, (a, b) in enumerate(ref.geo.support):
        left, right = tail_points(a, b)
        for j, (xa, xb) in enumerate(zip(left, right)):
            (ref_c, ec), (ref_s, es) = ref.mass_below(i, j), ref.mass_above(i, j)
            decided("tails", ec / max(abs(ref_c), TINY), f"cdf({xa!r})")
            decided("tails", es / max(abs(ref_s), TINY), f"sf({xb!r})")
            c, s = float(law.cdf(xa)), float(law.sf(xb))
            errs.append((rel_err(c, ref_c), f"cdf({xa!r}) = {c!r}, quadrature {ref_c!r}"))
            errs.append((rel_err(s, ref_s), f"sf({xb!r}) = {s!r}, quadrature {ref_s!r}"))
    return max(errs, key=lambda t: t[0])


QS = np.array([1e-300, 1e-100, 1e-30, 1e-12, 1e-6, 1e-3, 0.05, 0.25, 0.5, 0.75, 0.95])


def _quantile_err(F, x, q, lower):
    """Error of x as the q-quantile: F(x) ≥ q ≥ F(x⁻) (lower=True, ppf), or for the survival
    function S(x) ≤ q ≤ S(x⁻) (isf); relative to q, rounding of x allowed (one ulp)."""
    xm, xp = np.nextafter(x, -np.inf), np.nextafter(x, np.inf)
    fm, fx, fp = (float(v) for v in F(np.array([xm, x, xp])))
    if lower:  # F(x) >= q >= F(x-), x allowed one ulp off: F(x+) >= q >= F(x-)
        e = max(0.0, (q - fp) / q, (fm - q) / q)
    else:      # S(x) <= q <= S(x-): S(x-) >= q >= S(x+)
        e = max(0.0, (fp - q) / q, (q - fm) / q)
    return e, fx, fm


def check_quantiles(law, pt):
    """ppf and isf as inverses: x = ppf(q) has cdf(x⁻) ≤ q ≤ cdf(x) (relative 1e-10) for q from
    1e-300 to 0.95 and q = cdf(x) at points inside the support (ppf∘cdf); likewise
    x = isf(q) with sf(x) ≤ q ≤ sf(x⁻) (isf∘sf).  Quantiles that are not normal doubles are
    skipped (x itself is not representable)."""
    geo = Geometry(law)
    inner = geo.inside_grid(9)
    qc = np.concatenate([QS, np.asarray(law.cdf(inner), dtype=float)]) if inner.size else QS
    qs = np.concatenate([QS, np.asarray(law.sf(inner), dtype=float)]) if inner.size else QS
    qc, qs = qc[(qc >= TINY) & (qc < 1)], qs[(qs >= TINY) & (qs < 1)]  # normal q only
    errs = [(0.0, "")]
    xp = np.asarray(law.ppf(qc), dtype=float)
    for q, x in zip(qc.tolist(), xp):
        if not np.isfinite(x):
            errs.append((math.inf, f"ppf({q!r}) = {x!r}"))
            continue
        if x != 0 and abs(x) < TINY:
            continue
        e, fx, fm = _quantile_err(law.cdf, x, q, True)
        errs.append((e, f"ppf({q!r}) = {x!r}: cdf there {fx!r}, one ulp left {fm!r}"))
    xi = np.asarray(law.isf(qs), dtype=float)
    for q, x in zip(qs.tolist(), xi):
        if not np.isfinite(x):
            errs.append((math.inf, f"isf({q!r}) = {x!r}"))
            continue
        if x != 0 and abs(x) < TINY:
            continue
        e, fx, fm = _quantile_err(law.sf, x, q, False)
        errs.append((e, f"isf({q!r}) = {x!r}: sf there {fx!r}, one ulp left {fm!r}"))
    return max(errs, key=lambda t: t[0])


def _zgrid(geo):
    w = geo.width
    x = np.concatenate([np.linspace(geo.lo - 0.25 * w, geo.hi + 0.25 * w, 31),
                        [a for a, _ in geo.atoms]])
    return np.concatenate([x + 1j * y * w for y in (1e-10, 1e-4, 0.1, 10.0)])


def check_cauchy(law, pt):
    """G(z̄) = conj G(z) (relative error) and Im G(z) < 0 for Im z > 0 (error inf if violated)."""
    geo = Geometry(law)
    zz = _zgrid(geo)
    g = np.asarray(law.cauchy_transform(zz), dtype=complex)
    gc = np.asarray(law.cauchy_transform(np.conj(zz)), dtype=complex)
    if not np.all(np.isfinite(g)):
        i = np.flatnonzero(~np.isfinite(g))[0]
        return math.inf, f"G({zz[i]!r}) = {g[i]!r}"
    bad = g.imag >= 0
    if bad.any():
        i = np.flatnonzero(bad)[0]
        return math.inf, f"Im G({zz[i]!r}) = {g[i].imag!r} ≥ 0"
    e = np.abs(gc - np.conj(g)) / np.abs(g)
    i = int(np.argmax(e))
    return float(e[i]), f"G(z̄) = {gc[i]!r} vs conj G(z) = {np.conj(g[i])!r} at z = {zz[i]!r}"


def check_stieltjes(law, pt):
    """G(z) at Im z = 0.05·width … 10·width against Σ atoms/(z − a) + ∫ ρ(x)/(z − x) dx."""
    ref = reference(law, pt)
    errs = [(0.0, "")]
    for k, zz in enumerate(ref.zs):
        r = sum(m / (zz - a) for a, m in ref.geo.atoms)
        (re, ere), (im, eim) = ref.integral(3 + 2 * k), ref.integral(4 + 2 * k)
        r += re - 1j * im
        decided("stieltjes", (ere + eim) / max(abs(r), TINY), f"G({zz!r})")
        g = complex(law.cauchy_transform(zz))
        errs.append((rel_err(g, r), f"G({zz!r}) = {g!r}, quadrature {r!r}"))
    return max(errs, key=lambda t: t[0])


def check_routes(law, pt):
    """The same law by the other convolution route: atoms (mass), support edges (relative to the
    width), cdf (absolute) and pdf (relative to its maximum) on a grid."""
    if pt.other is None:
        return 0.0, "no other route"
    other = pt.build_other()
    g1, g2 = Geometry(law), Geometry(other)
    errs = []
    if len(g1.support) != len(g2.support):
        return math.inf, f"support {g1.support} vs other route {g2.support}"
    for (a1, b1), (a2, b2) in zip(g1.support, g2.support):
        errs.append((max(abs(a1 - a2), abs(b1 - b2)) / g1.width, f"edges {(a1, b1)} vs {(a2, b2)}"))
    big1 = [(x, m) for x, m in g1.atoms if m > 1e-12]
    big2 = [(x, m) for x, m in g2.atoms if m > 1e-12]
    if len(big1) != len(big2):
        return math.inf, f"atoms {g1.atoms} vs other route {g2.atoms}"
    for (x1, m1), (x2, m2) in zip(big1, big2):
        errs.append((max(abs(m1 - m2), abs(x1 - x2) / g1.width), f"atom {(x1, m1)} vs {(x2, m2)}"))
    x = g1.inside_grid(41)
    if x.size:
        p1, p2 = np.asarray(law.pdf(x), float), np.asarray(other.pdf(x), float)
        top = np.nanmax(np.abs(p1)) or 1.0
        e = np.abs(p1 - p2) / top
        i = int(np.nanargmax(e)) if np.all(np.isfinite(e)) else int(np.flatnonzero(~np.isfinite(e))[0])
        errs.append((float(e[i]) if np.isfinite(e[i]) else math.inf,
                     f"pdf({x[i]!r}): {p1[i]!r} vs other route {p2[i]!r}"))
        c1, c2 = np.asarray(law.cdf(x), float), np.asarray(other.cdf(x), float)
        e = np.abs(c1 - c2)
        i = int(np.argmax(e))
        errs.append((float(e[i]), f"cdf({x[i]!r}): {c1[i]!r} vs other route {c2[i]!r}"))
    return max(errs, key=lambda t: t[0])


def check_scaling(law, pt):
    """A law and its affine image agree up to the map (item 14): support and atoms map, and
    cdf/pdf/G at mapped points (relative)."""
    if pt.base is None:
        return 0.0, "not an affine image"
    base = pt.build_base()
    gb = Geometry(base)
    s, c = pt.scale, pt.shift
    g = Geometry(law)
    errs = []
    mapped = sorted(tuple(sorted((c + s * a, c + s * b))) for a, b in gb.support)
    if len(mapped) != len(g.support):
        return math.inf, f"support {g.support} vs mapped {mapped}"
    for (a, b), (a2, b2) in zip(g.support, mapped):
        errs.append((max(abs(a - a2), abs(b - b2)) / (abs(s) * gb.width), f"edges {(a, b)} vs mapped {(a2, b2)}"))
    x = gb.inside_grid(11)
    if x.size:
        y = c + s * x
        # y is rounded: the image's value at the double y is the base's at the exact (y − c)/s,
        # which differs from x by dx (computed exactly), and the image itself can only form
        # (y − c)/s to one rounding (the pdf's conditioning there: backward stability in the
        # argument).  Allow what that move can change: cdf by ρ·dx, pdf relatively by dx/d at
        # distance d from the nearest end (|ρ′/ρ| ≤ 1/d for the edge exponents −1/2 … 1 of
        # these laws); the excess over it is the measured error.
        dx = np.array([float(abs((Fraction(yi) - Fraction(c)) / Fraction(s) - Fraction(xi)))
                       for xi, yi in zip(x, y)]) + np.spacing(np.abs(x))
        ends = np.array([e for ab in gb.support for e in ab])
        d = np.min(np.abs(x[:, None] - ends[None, :]), axis=1)
        F, Fb = np.asarray(law.cdf(y), float), np.asarray(base.cdf(x), float)
        if s < 0:
            Fb = 1 - Fb
        rho_b = np.asarray(base.pdf(x), float)
        e = np.maximum(np.abs(F - Fb) - rho_b * dx, 0.0)
        i = int(np.argmax(e)) if np.all(np.isfinite(e)) else int(np.flatnonzero(~np.isfinite(e))[0])
        errs.append((float(e[i]) if np.isfinite(e[i]) else math.inf, f"cdf({y[i]!r}) = {F[i]!r} vs base {Fb[i]!r}"))
        p, pb = np.asarray(law.pdf(y), float), rho_b / abs(s)
        e = np.maximum(np.abs(p - pb) / np.maximum(np.abs(pb), TINY) - dx / np.maximum(d, TINY), 0.0)
        i = int(np.argmax(e)) if np.all(np.isfinite(e)) else int(np.flatnonzero(~np.isfinite(e))[0])
        errs.append((float(e[i]) if np.isfinite(e[i]) else math.inf, f"pdf({y[i]!r}) = {p[i]!r} vs base/|s| {pb[i]!r}"))
    zb = np.array([complex(gb.lo + 0.3 * gb.width, 0.5 * gb.width), complex(gb.hi, 0.01 * gb.width)])
    for zz in zb:
        gz = complex(law.cauchy_transform(c + s * zz if s > 0 else c + s * np.conj(zz)))
        ref = complex(base.cauchy_transform(zz)) / s
        if s < 0:
            ref = np.conj(ref)
        errs.append((rel_err(gz, ref), f"G at the image of {zz!r}: {gz!r} vs {ref!r}"))
    return max(errs, key=lambda t: t[0])


#: name → (function, tolerance, always on)
CHECKS = {
    "mass": (check_mass, 1e-10, True),
    "pdf_nonnegative": (check_pdf_nonnegative, 0.0, True),
    "moments": (check_moments, 1e-9, True),
    "cdf_monotone": (check_cdf_monotone, 0.0, True),
    "outside": (check_outside, 0.0, True),
    "sf_plus_cdf": (check_sf_plus_cdf, 1e-13, True),
    "quantiles": (check_quantiles, 1e-10, True),
    "cauchy": (check_cauchy, 1e-12, True),
    "routes": (check_routes, 1e-8, True),
    "scaling": (check_scaling, 1e-10, True),
    "tails": (check_tails, 1e-8, False),
    "stieltjes": (check_stieltjes, 1e-9, False),
}


CHECK_TOL = {name: tol for name, (_, tol, _) in CHECKS.items()}


def applicable(name, pt):
    """Whether check ``name`` applies to the point (routes: a second route; scaling: an affine
    image)."""
    if name == "routes":
        return pt.other is not None
    if name == "scaling":
        return pt.base is not None
    if name in ("tails", "stieltjes") and pt.atoms_only:
        return name == "stieltjes"
    return True
