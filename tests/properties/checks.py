"""Property checks of issue 21, each returning its measured error (so a failure says by how much).

Every check takes ``(law, point)`` and returns ``(error, detail)``; the test compares ``error``
with the check's tolerance in :data:`CHECKS`.  References are independent of the law's own
routes: closed-form moments (``families``), a vectorised adaptive Gauss–Legendre quadrature of
the density written here (cosine substitution at both ends, so δ^{±1/2} ends are smooth), the
other convolution route, and the undilated law.

Each construction and each check runs under :func:`bounded`: a call that does not return in
time raises :class:`CallTimeout` (an ``AssertionError``), i.e. the test fails.
"""
from __future__ import annotations

import math
import signal
import time
from contextlib import contextmanager

import numpy as np

BUILD_S = 60.0   # construction + support() + atoms()
CHECK_S = 30.0   # one check (all its calls)

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
            self.width = max(abs(self.lo), TINY) * 1e-3
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


def integrate(f, a, b, rel=1e-13, absolute=0.0, max_rounds=60, max_panels=3000):
    """∫_a^b f(x) dx by adaptive 10/21-point Gauss–Legendre in θ, x = a + (b − a) sin²(θ/2)
    (θ ∈ [0, π]; for θ > π/2 measured from b: x = b − (b − a) cos²(θ/2)), so that x − a and
    b − x keep full relative precision and δ^{±1/2} ends become smooth.  ``f`` is vectorised.

    Returns (value, error estimate)."""
    a, b = float(a), float(b)
    w = b - a
    if not w > 0:
        return 0.0, 0.0

    def g(theta):
        s = np.sin(theta / 2) ** 2
        c = np.cos(theta / 2) ** 2
        x = np.where(theta <= np.pi / 2, a + w * s, b - w * c)
        x = np.clip(x, a, b)
        with np.errstate(all="ignore"):
            v = np.asarray(f(x), dtype=float) * (w / 2) * np.sin(theta)
        return np.where((x == a) | (x == b), 0.0, v)  # a node rounded onto an end: measure 0

    # 64 first panels: a narrow component inside a wide interval (a mixture) is not missed
    edges = np.linspace(0.0, np.pi, 65)
    panels = np.stack([edges[:-1], edges[1:]], 1)
    total, err_total, guess = 0.0, 0.0, None
    for _ in range(max_rounds):
        if not len(panels):
            break
        if len(panels) > max_panels:
            raise AssertionError(f"quadrature of the density on [{a!r}, {b!r}] needs more than "
                                 f"{max_panels} panels (density not integrable to {rel:g}?)")
        mid = (panels[:, 0] + panels[:, 1]) / 2
        half = (panels[:, 1] - panels[:, 0]) / 2
        t10 = mid[:, None] + half[:, None] * _X10[None, :]
        t21 = mid[:, None] + half[:, None] * _X21[None, :]
        v = g(np.concatenate([t10.ravel(), t21.ravel()]))
        v10, v21 = v[:t10.size].reshape(t10.shape), v[t10.size:].reshape(t21.shape)
        if not np.all(np.isfinite(v)):
            bad = np.concatenate([t10.ravel(), t21.ravel()])[~np.isfinite(v)][0]
            s = np.sin(bad / 2) ** 2
            x = a + w * s if bad <= np.pi / 2 else b - w * np.cos(bad / 2) ** 2
            raise AssertionError(f"density not finite at x = {x!r} inside [{a!r}, {b!r}]")
        i10 = (v10 * _W10).sum(1) * half
        i21 = (v21 * _W21).sum(1) * half
        if guess is None:  # scale of ∫|f| from the first pass: the tolerance is relative to it
            guess = float((np.abs(v21) * _W21).sum(1) @ half)
        est = np.abs(i21 - i10)
        # a panel's share of the error budget, with a floor (1e-3 of it) so that interior
        # square-root points (cusps, inner edges of a mixture) end after ~40 halvings
        tol = np.maximum(absolute, rel * guess) * np.maximum(2 * half / np.pi, 1e-3)
        ok = (est <= tol) | (half < 1e-12)
        total += i21[ok].sum()
        err_total += est[ok].sum()
        rest = panels[~ok]
        panels = np.concatenate([np.stack([rest[:, 0], (rest[:, 0] + rest[:, 1]) / 2], 1),
                                 np.stack([(rest[:, 0] + rest[:, 1]) / 2, rest[:, 1]], 1)])
    if len(panels):
        raise AssertionError(f"quadrature of the density on [{a!r}, {b!r}] did not converge")
    return float(total), float(err_total)


def pdf_of(law):
    return lambda x: law.pdf(np.asarray(x, dtype=float))


def quad_mass_below(law, geo, x):
    """Reference cdf(x) = atoms ≤ x + ∫ density up to x (each piece integrated on its own)."""
    f = pdf_of(law)
    s = sum(m for loc, m in geo.atoms if loc <= x)
    for a, b in geo.support:
        if x > a:
            s += integrate(f, a, min(x, b))[0]
    return s


def quad_mass_above(law, geo, x):
    f = pdf_of(law)
    s = sum(m for loc, m in geo.atoms if loc > x)
    for a, b in geo.support:
        if x < b:
            s += integrate(f, max(x, a), b)[0]
    return s


def rel_err(value, ref, floor=0.0):
    value, ref = complex(value), complex(ref)
    if not (np.isfinite(value.real) and np.isfinite(value.imag)):
        return math.inf
    return abs(value - ref) / max(abs(ref), floor, TINY)


# ------------------------------------------------------------------ the checks
def check_mass(law, pt):
    """|atoms + ∫ density − 1| (issue 21: mass 1 ± 1e-10 with atoms)."""
    geo = Geometry(law)
    f = pdf_of(law)
    atoms = sum(m for _, m in geo.atoms)
    dens = sum(integrate(f, a, b)[0] for a, b in geo.support)
    return abs(atoms + dens - 1.0), f"atoms {atoms!r} + density {dens!r}"


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
    geo = Geometry(law)
    f = pdf_of(law)
    errs, parts = [], []
    ref_scale = None
    for k in (1, 2):
        q = sum(m * x ** k for x, m in geo.atoms)
        for a, b in geo.support:
            q += integrate(lambda x: f(x) * x ** k, a, b)[0]
        mk = float(law.moment(k))
        exact = float(pt.moments[k - 1]) if len(pt.moments) >= k else None
        if ref_scale is None:
            m2 = float(pt.moments[1]) if len(pt.moments) >= 2 else mk if k == 2 else None
            ref_scale = math.sqrt(abs(float(law.moment(2)))) if m2 is None else math.sqrt(abs(m2))
            ref_scale = max(ref_scale, TINY)
        s = max(ref_scale ** k, TINY)
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
    geo = Geometry(law)
    errs = [(0.0, "")]
    for a, b in geo.support:
        w = b - a
        for d in (1e-2, 1e-5, 1e-8):
            xa, xb = a + d * w, b - d * w
            ref_c = quad_mass_below(law, geo, xa)
            ref_s = quad_mass_above(law, geo, xb)
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
    x = np.concatenate([np.linspace(geo.lo - 0.25 * geo.width, geo.hi + 0.25 * geo.width, 31),
                        [a for a, _ in geo.atoms]])
    return np.concatenate([x + 1j * y * geo.width for y in (1e-10, 1e-4, 0.1, 10.0)])


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
    geo = Geometry(law)
    f = pdf_of(law)
    errs = [(0.0, "")]
    for x0 in np.linspace(geo.lo, geo.hi, 5):
        for y in (0.05, 1.0):
            zz = x0 + 1j * y * geo.width
            ref = sum(m / (zz - a) for a, m in geo.atoms)
            for a, b in geo.support:
                re = integrate(lambda x: f(x) * ((zz - x) / abs(zz - x) ** 2).real, a, b, rel=1e-12)[0]
                im = integrate(lambda x: f(x) * ((zz - x) / abs(zz - x) ** 2).imag, a, b, rel=1e-12)[0]
                ref += re - 1j * im
            g = complex(law.cauchy_transform(zz))
            errs.append((rel_err(g, ref), f"G({zz!r}) = {g!r}, quadrature {ref!r}"))
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
        F, Fb = np.asarray(law.cdf(y), float), np.asarray(base.cdf(x), float)
        if s < 0:
            Fb = 1 - Fb
        e = np.abs(F - Fb)
        i = int(np.argmax(e)) if np.all(np.isfinite(e)) else int(np.flatnonzero(~np.isfinite(e))[0])
        errs.append((float(e[i]) if np.isfinite(e[i]) else math.inf, f"cdf({y[i]!r}) = {F[i]!r} vs base {Fb[i]!r}"))
        p, pb = np.asarray(law.pdf(y), float), np.asarray(base.pdf(x), float) / abs(s)
        e = np.abs(p - pb) / np.maximum(np.abs(pb), TINY)
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
