"""All complex roots of a univariate polynomial at the current mpmath precision.

One root finder for every place of the package that needs all roots of a polynomial with
mpmath coefficients (branch roots of P(·, x), breakpoints from discriminant factors, Newton
polygons at atoms, double roots at edges, push-forward preimages).  Three routes:

1. python-flint's ``acb_poly.roots`` (FLINT/Arb: Aberth iteration with rigorous isolation
   by interval arithmetic) on the coefficients converted exactly, at the working precision
   plus guard bits, accepted when every enclosure is narrower than the working precision.
   It takes the ill-scaled polynomials too (coefficients spanning 10^200, roots near 1e35
   beside roots near 0.1, close clusters), and it is the fastest: 0.1–1 ms at degree 2–8
   and 40 digits, where route 2 takes 0.3–10 ms (Newton in pure-Python mpmath);
2. float64 companion-matrix eigenvalues polished by Newton's method at the working
   precision, accepted only when every root settles next to its float64 start and the
   starts are well separated;
3. ``mpmath.polyroots`` (Durand–Kerner) with growing extra precision, the last resort:
   FLINT's isolation needs a squarefree polynomial, and an exactly repeated root (a
   rounded coefficient that came out as an exact multiple root) is left to mpmath.

With ``FREEATTN_FLINT=0`` route 1 is skipped (the no-FLINT baseline of the benchmarks).

Roots are returned as in ``mpmath.polyroots``: a list of mpf (real roots of a polynomial
with real coefficients) and mpc, sorted by (|Im|, Re).
"""
from __future__ import annotations

import mpmath
import numpy as np

from .._context import TINY
from .exact import flint, flint_enabled

__all__ = ["polyroots", "horner_with_derivative", "newton_polish", "newton_polish_array"]

#: the mpmath fallback's extra precision is multiplied by 3 from ``extraprec`` up to this
_MAX_EXTRAPREC = 2400

#: companion eigenvalues closer than this (× the largest) are not polished (a cluster)
_CLUSTER = 1e-6
#: guard bits of the Newton polish's stopping test
_POLISH_GUARD_BITS = 10
#: most Newton steps of that polish (quadratic convergence from a float64 start)
_POLISH_STEPS = 40
#: a polished root moved farther than this (× the largest) from its eigenvalue: refused
_POLISH_MOVE = 1e-8


def horner_with_derivative(coeffs, g):
    """(p(g), p′(g)) of ``coeffs[0] g^n + … + coeffs[n]`` by one Horner pass (any numbers
    that support + and *: mpf/mpc at the working precision, Python complex)."""
    p, dp = coeffs[0], 0
    for ck in coeffs[1:]:
        dp = dp * g + p
        p = p * g + ck
    return p, dp


def newton_polish(coeffs, g, rtol, maxsteps, floor=0):
    """Newton's method on ``coeffs[0] g^n + … + coeffs[n]`` from ``g`` at the current
    precision (mpf/mpc): ``(root, converged)``.

    Stops after the first step with |step| ≤ ``rtol`` (|g| + ``floor``) (converged), at a zero
    derivative or after ``maxsteps`` steps (not converged: the last iterate is returned and
    the caller decides).  The one scalar polish of the package's local expansions and root
    finders; our own rather than ``mpmath.findroot``: its step test is absolute below
    |x| = 1 (the roots polished here, u = G − G_e next to an edge, tend to 0) and it raises
    on a miss where every caller here falls back to another route.
    """
    for _ in range(maxsteps):
        p, dp = horner_with_derivative(coeffs, g)
        if dp == 0:
            return g, False
        step = p / dp
        g = g - step
        if abs(step) <= rtol * (abs(g) + floor):
            return g, True
    return g, False


def newton_polish_array(coeffs, g, maxsteps, rtol=0.0):
    """Newton's method on polynomials with per-point coefficients, vectorised (float64):
    ``coeffs`` lists arrays (or scalars) of the shape of ``g``, highest power first.
    Returns ``(g, |last step|)``.

    ``maxsteps`` steps, fewer once every |step| ≤ ``rtol`` |g| (``rtol = 0``: always
    ``maxsteps``, a fixed polish).  A point where the derivative vanishes is left where it is
    (step 0).  Callers run it under ``np.errstate`` and judge each point by its step; our own
    loop rather than ``scipy.optimize.newton``, which has neither per-point coefficients of a
    polynomial nor a fixed-step polish without warnings.
    """
    step = np.zeros(np.shape(g))
    for _ in range(maxsteps):
        p = np.zeros_like(g) + coeffs[0]
        dp = np.zeros_like(g)
        for c in coeffs[1:]:
            dp = dp * g + p
            p = p * g + c
        ok = dp != 0
        delta = np.zeros_like(g)
        delta[ok] = p[ok] / dp[ok]
        g = g - delta
        step = np.abs(delta)
        if rtol and np.all(step <= rtol * np.abs(g)):
            break
    return g, step


def polyroots(coeffs, *, extraprec=20, maxsteps=200):
    """All complex roots of ``coeffs[0] x^n + … + coeffs[n]`` at the current mpmath precision.

    Parameters
    ----------
    coeffs : sequence of mpmath numbers (mpf/mpc) or numbers convertible to them
        Coefficients, highest power first.  Leading zeros are dropped; trailing zeros give
        the root 0 with their multiplicity.
    extraprec, maxsteps : int
        Starting extra precision and step count of the ``mpmath.polyroots`` fallback
        (multiplied by 3 on each ``NoConvergence`` up to 2400 bits).

    Returns
    -------
    list
        The n roots (with multiplicity), mpf for real roots of real polynomials, else mpc,
        sorted by (|Im|, Re) as ``mpmath.polyroots`` sorts them.

    Raises
    ------
    ValueError
        If all coefficients vanish.
    mpmath.libmp.libhyper.NoConvergence
        If even the mpmath fallback fails at its largest extra precision.
    """
    cs = [mpmath.mpmathify(c) for c in coeffs]
    while cs and cs[0] == 0:
        cs.pop(0)
    if not cs:
        raise ValueError("polyroots: the zero polynomial has no finite set of roots")
    zeros = 0
    while len(cs) > 1 and cs[-1] == 0:
        cs.pop()
        zeros += 1
    out = [mpmath.mpf(0)] * zeros
    n = len(cs) - 1
    if n == 0:
        return _sorted(out)
    if n == 1:
        return _sorted(out + [_clean(-cs[1] / cs[0])])
    roots = _roots_by_flint(cs)
    if roots is None:
        roots = _roots_by_polish(cs)
    if roots is None:
        roots = _roots_by_mpmath(cs, extraprec, maxsteps)
    return _sorted(out + roots)


def _clean(r):
    if isinstance(r, mpmath.mpc) and mpmath.im(r) == 0:
        return mpmath.re(r)
    return r


def _sorted(roots):
    return sorted(roots, key=lambda r: (abs(mpmath.im(r)), mpmath.re(r)))


def _roots_by_polish(coeffs):
    """Float64 companion eigenvalues polished by Newton at the working precision, or None
    when that is not conclusive (roots closer than float64 separates, a Newton step that
    does not settle, coefficients outside the double range)."""
    n = len(coeffs) - 1
    try:
        cf = np.array([complex(c) for c in coeffs])
    except (OverflowError, ValueError):
        return None
    if not np.all(np.isfinite(cf)) or cf[0] == 0:
        return None
    M = np.zeros((n, n), dtype=complex)
    M[0, :] = -cf[1:] / cf[0]
    M[np.arange(n - 1) + 1, np.arange(n - 1)] = 1
    if not np.all(np.isfinite(M)):
        return None
    start = np.linalg.eigvals(M)
    scale = np.max(np.abs(start)) + TINY
    if n > 1:
        diff = np.abs(start[:, None] - start[None, :])
        sep = np.min(diff[np.triu_indices(n, 1)])
        if sep <= _CLUSTER * scale:
            return None
    real_poly = all(not isinstance(c, mpmath.mpc) or mpmath.im(c) == 0 for c in coeffs)
    tol = mpmath.mpf(2) ** (_POLISH_GUARD_BITS - mpmath.mp.prec)
    out = []
    for r0 in start:
        g = mpmath.mpc(complex(r0)) if r0.imag != 0 or not real_poly else mpmath.mpf(r0.real)
        g, converged = newton_polish(coeffs, g, tol, _POLISH_STEPS, floor=tol)
        if not converged:
            return None
        if abs(g - complex(r0)) > _POLISH_MOVE * scale:
            return None
        out.append(g)
    return out


def _to_arb(x):
    """An mpf as an exact arb (its binary mantissa and exponent)."""
    sign, man, exp, _bc = x._mpf_
    if not man:
        if x == 0:
            return flint.arb(0)
        raise ValueError("non-finite coefficient")
    return flint.arb((-man if sign else man, exp))


def _to_mpf(a):
    man, exp = a.mid().man_exp()
    return mpmath.mpf((int(man), int(exp)))


def _roots_by_flint(coeffs):
    """Roots by FLINT's ``acb_poly.roots`` on the exactly converted coefficients, or None
    when FLINT cannot isolate them (a repeated root), cannot reach the working precision, or
    is disabled (``FREEATTN_FLINT=0``: the benchmarks' no-FLINT baseline)."""
    if not flint_enabled():
        return None
    target = mpmath.mp.prec
    real_poly = True
    try:
        acbs = []
        for c in reversed(coeffs):  # acb_poly takes the constant term first
            if isinstance(c, mpmath.mpc):
                acbs.append(flint.acb(_to_arb(c.real), _to_arb(c.imag)))
                real_poly = real_poly and c.imag == 0
            else:
                acbs.append(flint.acb(_to_arb(c)))
    except (ValueError, TypeError):
        return None
    old = flint.ctx.prec
    try:
        prec = target + 32
        flint.ctx.prec = prec
        poly = flint.acb_poly(acbs)
        try:
            # isolate, then refine to the working precision relative to the smallest root
            # (``tol`` is absolute; FLINT raises its own precision as far as ``maxprec``)
            found = poly.roots(maxprec=8 * prec)
            least = min(abs(r).mid() for r in found)
            if not least > 0:
                return None
            found = poly.roots(tol=least * flint.arb(2) ** (-target - 4), maxprec=16 * prec)
        except ValueError:  # not isolated: squareful input or precision exhausted
            return None
        for r in found:
            if not r.rad() <= abs(r).mid() * flint.arb(2) ** (-target - 2):
                return None
        out = []
        for r in found:
            re, im = _to_mpf(r.real), _to_mpf(r.imag)
            if real_poly and r.imag.contains(0):
                out.append(+re)
            else:
                out.append(mpmath.mpc(re, im))
        return out
    finally:
        flint.ctx.prec = old


def _roots_by_mpmath(coeffs, extraprec, maxsteps):
    extra = extraprec
    while True:
        try:
            return list(mpmath.polyroots(coeffs, maxsteps=maxsteps, extraprec=extra))
        except mpmath.libmp.libhyper.NoConvergence:
            if extra > _MAX_EXTRAPREC:
                raise
            extra *= 3
