"""Push-forward of a law by a real polynomial map, φ#μ (numeric, any law)."""
from __future__ import annotations

import math

import mpmath
import numpy as np

from .._context import inner_dps, mp_route, tolerance
from ..algebraic.roots import polyroots
from .._validation import Param, ParameterError, finite_real, integer_at_least
from .base import Law

__all__ = ["Transformed"]


def _coefficients(name, coefficients):
    """Finite real coefficients (lowest degree first, trailing zeros dropped) of degree ≥ 1."""
    if isinstance(coefficients, np.polynomial.Polynomial):
        coefficients = coefficients.coef
    try:
        coefs = [finite_real(name, c) for c in list(coefficients)]
    except TypeError:
        raise ParameterError(name, f"{name} must be a sequence of real numbers, "
                                   f"got {coefficients!r}") from None
    while len(coefs) > 1 and coefs[-1] == 0:
        coefs.pop()
    if len(coefs) < 2:
        raise ParameterError(name, f"{name} must define a non-constant polynomial (degree ≥ 1), "
                                   f"got {coefficients!r}")
    return coefs


class Transformed(Law):
    """The push-forward φ#μ of a law μ by a real polynomial φ(x) = Σ_k c_k x^k.

    Parameters
    ----------
    law : Law
        The law μ.
    coefficients : sequence of real numbers (lowest degree first) or numpy Polynomial
        (c₀, c₁, …, c_n), n ≥ 1, c_n ≠ 0.

    Notes
    -----
    Partial fractions over the n roots x_j(z) of φ(x) = z give, exactly,

    .. math:: G_{φ\\#μ}(z) = \\sum_j G_μ(x_j) / φ'(x_j),

    valid for z off the critical values of φ.  On the real axis, a real root is approached
    from above when φ′(x_j) > 0 and from below when φ′(x_j) < 0 (x_j(z + iε) ≈ x_j + iε/φ′),
    so the density is Σ_j ρ_μ(x_j)/|φ′(x_j)|.  Atoms map to atoms (merged where φ identifies
    them), the support is the image of μ's support, and moments are exact when μ's are
    (m_k(φ#μ) = ∫ φ^k dμ).  For an affine φ this is G((z − c₀)/c₁)/c₁.

    Raises
    ------
    ParameterError
        If ``coefficients`` is constant, has a non-finite entry, or a zero leading coefficient.
    """

    parameters = (Param("law", "law", "μ"),
                  Param("coefficients", lambda name, v: _coefficients(name, v), "φ",
                        "real polynomial coefficients, lowest degree first, degree ≥ 1"))

    def __init__(self, law, coefficients):
        law = self.parameters[0].validate(law)
        coefs = self.parameters[1].validate(coefficients)
        self.law = law
        self.coefficients = tuple(coefs)
        self._c = np.array([float(c) for c in coefs])
        self._dc = np.polynomial.polynomial.polyder(self._c)
        self._ddc = np.polynomial.polynomial.polyder(self._dc) if len(self._c) > 2 else np.zeros(1)
        terms = " + ".join(f"{c:g}·x^{k}" if k else f"{c:g}" for k, c in enumerate(self._c) if c)
        self.name = f"({terms})#({law.name})"

    def _key(self):
        return (Transformed, self.law, self.coefficients)

    # ------------------------------------------------------------ preimages
    def _roots(self, z):
        """Roots x_j of φ(x) = z for each z: array (len(z), n), by companion eigenvalues."""
        n = len(self._c) - 1
        c = self._c / self._c[-1]
        if n == 1:
            return ((z - self._c[0]) / self._c[1])[:, None]
        comp = np.zeros((len(z), n, n), dtype=complex)
        comp[:, 1:, :-1] = np.eye(n - 1)
        comp[:, :, -1] = -c[:-1]
        comp[:, 0, -1] += z / self._c[-1]
        r = np.linalg.eigvals(comp)
        # one Newton step polishes each root on φ itself
        for _ in range(2):
            f = np.polynomial.polynomial.polyval(r, self._c) - z[:, None]
            d = np.polynomial.polynomial.polyval(r, self._dc)
            with np.errstate(all="ignore"):
                step = np.where(d != 0, f / np.where(d != 0, d, 1), 0)
            r = r - step
        return r

    def _cauchy_float(self, z):
        z = np.asarray(z, dtype=complex)
        x = self._roots(z)
        d = np.polynomial.polynomial.polyval(x, self._dc)
        # on the axis: real roots approached from the side given by sign φ′(x_j)
        onaxis = (z.imag == 0)[:, None] & (np.abs(x.imag) <= 1e-12 * (1 + np.abs(x)))
        xr = np.where(onaxis, x.real + 0j, x)
        g = self.law._G(xr.reshape(-1)).reshape(x.shape)
        g = np.where(onaxis & (d.real < 0), g.conj(), g)
        with np.errstate(all="ignore"):
            return (g / np.where(onaxis, d.real + 0j, d)).sum(axis=1)

    def _cauchy_derivative_float(self, z):
        z = np.asarray(z, dtype=complex)
        if np.any(z.imag == 0):
            return Law._cauchy_derivative_float(self, z)
        x = self._roots(z)
        d = np.polynomial.polynomial.polyval(x, self._dc)
        dd = np.polynomial.polynomial.polyval(x, self._ddc)
        g = self.law._G(x.reshape(-1)).reshape(x.shape)
        dg = np.asarray(self.law.cauchy_transform_derivative(x.reshape(-1))).reshape(x.shape)
        return (dg / d**2 - g * dd / d**3).sum(axis=1)

    @mp_route
    def _cauchy_mp(self, z, dps):
        z = mpmath.mpc(z)
        coefs = [mpmath.mpf(float(c)) for c in reversed(self.coefficients)]
        coefs[-1] -= z
        xs = polyroots(coefs)
        dcoef = [k * c for k, c in enumerate(mpmath.mpf(float(c)) for c in self.coefficients)][1:]
        total = mpmath.mpc(0)
        tol = tolerance(dps)
        for x in xs:
            d = mpmath.fsum(c * x**k for k, c in enumerate(dcoef))
            if mpmath.im(z) == 0 and abs(mpmath.im(x)) <= tol * (1 + abs(x)):
                g = self.law._cauchy_mp(mpmath.re(x), inner_dps(dps))
                if mpmath.re(d) < 0:
                    g = mpmath.conj(g)
                total += g / mpmath.re(d)
            else:
                total += self.law._cauchy_mp(x, inner_dps(dps)) / d
        return total

    # ------------------------------------------------------------ structure
    def _phi(self, x):
        return np.polynomial.polynomial.polyval(x, self._c)

    def _phi_mp(self, x):
        """φ(x) at the current mpmath precision (coefficients: their binary values)."""
        return mpmath.polyval([mpmath.mpf(float(c)) for c in reversed(self.coefficients)], x)

    def _critical_points(self, dps):
        """Real zeros of φ′, sorted (float64, or mpmath at the working precision)."""
        if len(self._dc) < 2:
            return []
        if dps is None:
            crit = np.polynomial.polynomial.polyroots(self._dc)
            return sorted(float(c.real) for c in crit if abs(c.imag) <= 1e-12 * (1 + abs(c)))
        dc = [mpmath.mpf(float(c)) for c in reversed(self._dc)]
        crit = polyroots(dc)
        tol = tolerance(dps)
        return sorted(mpmath.re(c) for c in crit if abs(mpmath.im(c)) <= tol * (1 + abs(c)))

    @mp_route
    def _support(self, dps):
        """φ of each support interval of μ: its image is [min, max] of φ over the ends and the
        critical points inside (exactly at ``dps`` when μ's edges are)."""
        phi = (lambda x: float(self._phi(np.array([float(x)]))[0])) if dps is None else self._phi_mp
        crit = self._critical_points(dps)
        images = []
        for a, b in self.law.support(None if dps is None else inner_dps(dps)):
            v = [phi(p) for p in [a, b] + [c for c in crit if a < c < b]]
            images.append((min(v), max(v)))
        images.sort()
        merged = []
        for a, b in images:
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        return merged

    @mp_route
    def _atoms(self, dps):
        merged = {}
        for a, w in self.law.atoms(None if dps is None else inner_dps(dps)):
            loc = float(self._phi(np.array([float(a)]))[0]) if dps is None else self._phi_mp(a)
            merged[loc] = merged.get(loc, 0) + w
        return sorted(merged.items(), key=lambda p: p[0])

    def _pdf_float(self, y):
        y = np.asarray(y, dtype=float)
        out = np.zeros(y.shape)
        inside = np.zeros(y.shape, bool)
        for a, b in self._support(None):
            inside |= (y > a) & (y < b)
        if np.any(inside):
            x = self._roots(y[inside] + 0j)
            real = np.abs(x.imag) <= 1e-12 * (1 + np.abs(x))
            xr = np.where(real, x.real, 0.0)
            d = np.abs(np.polynomial.polynomial.polyval(xr, self._dc))
            rho = np.asarray(self.law.pdf(xr.reshape(-1))).reshape(x.shape)
            with np.errstate(all="ignore"):
                out[inside] = np.where(real & (rho > 0), rho / d, 0.0).sum(axis=1)
        return out

    def exact_moments(self, order):
        """Exact moments ∫ φ(x)^k dμ from μ's exact moments (sympy), k = 1..order."""
        import sympy as sp

        if not self.law._overrides("exact_moments"):
            raise NotImplementedError(f"{self.law.name} has no exact moments")
        ms = [sp.Integer(1)] + list(self.law.exact_moments(order * (len(self._c) - 1)))
        x = sp.Symbol("x")
        phi = sum(sp.Rational(float(c)) * x**k for k, c in enumerate(self.coefficients))
        out = []
        for k in range(1, order + 1):
            poly = sp.Poly(sp.expand(phi**k), x)
            out.append(sp.expand(sum(coef * ms[deg] for (deg,), coef in poly.terms())))
        return out

    def moment(self, k, dps=None, method=None):
        if method is None and not self.law._overrides("exact_moments"):
            method = "quad"
            k_int = integer_at_least("k", k, 0)
            if k_int >= 1 and len(self._c) * k_int < 60:
                # ∫ φ^k dμ from μ's moments (exact polynomial algebra, float moments)
                p = np.polynomial.polynomial.polypow(self._c, k_int)
                vals = [1.0 if d == 0 else float(self.law.moment(d)) for d in range(len(p))]
                if dps is None:
                    return math.fsum(c * v for c, v in zip(p, vals))
        return Law.moment(self, k, dps=dps, method=method)
