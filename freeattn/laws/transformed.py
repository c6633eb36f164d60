"""Push-forward of a law by a real polynomial map, φ#μ (numeric, any law)."""
from __future__ import annotations

import math

import mpmath
import numpy as np

from .._context import round_back, to_mp, tolerance, workdps
from .._validation import ParameterError, finite_real
from ..algebraic.roots import polyroots
from .base import Law

__all__ = ["Transformed"]


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

    def __init__(self, law, coefficients):
        if not isinstance(law, Law):
            raise TypeError(f"law must be a Law, got {type(law).__name__}")
        if isinstance(coefficients, np.polynomial.Polynomial):
            coefficients = coefficients.coef
        coefs = [finite_real("coefficients", c) for c in list(coefficients)]
        while len(coefs) > 1 and coefs[-1] == 0:
            coefs.pop()
        if len(coefs) < 2:
            raise ParameterError("coefficients", "coefficients must define a non-constant "
                                                 f"polynomial (degree ≥ 1), got {coefficients!r}")
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

    def _cauchy_mp(self, z, dps):
        with workdps(dps):
            z = mpmath.mpc(to_mp(z))
            coefs = [mpmath.mpf(float(c)) for c in reversed(self.coefficients)]
            coefs[-1] -= z
            xs = polyroots(coefs, extraprec=60) if len(coefs) > 2 else \
                [-coefs[1] / coefs[0]]
            dcoef = [k * c for k, c in enumerate(mpmath.mpf(float(c)) for c in self.coefficients)][1:]
            total = mpmath.mpc(0)
            tol = tolerance(dps)
            for x in xs:
                d = mpmath.fsum(c * x**k for k, c in enumerate(dcoef))
                if mpmath.im(z) == 0 and abs(mpmath.im(x)) <= tol * (1 + abs(x)):
                    g = self.law._cauchy_mp(mpmath.re(x), dps + 5)
                    if mpmath.re(d) < 0:
                        g = mpmath.conj(g)
                    total += g / mpmath.re(d)
                else:
                    total += self.law._cauchy_mp(x, dps + 5) / d
        return round_back(total, dps)

    # ------------------------------------------------------------ structure
    def _phi(self, x):
        return np.polynomial.polynomial.polyval(x, self._c)

    def _support(self, dps):
        crit = np.polynomial.polynomial.polyroots(self._dc) if len(self._dc) > 1 else np.array([])
        crit = np.sort(crit[np.abs(crit.imag) <= 1e-12].real)
        images = []
        for a, b in self.law.support():
            pts = [a, b] + [c for c in crit if a < c < b]
            v = self._phi(np.array(pts, dtype=float))
            images.append((float(v.min()), float(v.max())))
        images.sort()
        merged = []
        for a, b in images:
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        if dps is None:
            return merged
        with workdps(dps):
            out = [(mpmath.mpf(a), mpmath.mpf(b)) for a, b in merged]
        return round_back(out, dps)

    def _atoms(self, dps):
        merged = {}
        for a, w in self.law.atoms(dps):
            if dps is None:
                loc = float(self._phi(np.array([float(a)]))[0])
            else:
                with workdps(dps):
                    loc = mpmath.fsum(mpmath.mpf(float(c)) * a**k for k, c in enumerate(self.coefficients))
            merged[loc] = merged.get(loc, 0) + w
        out = sorted(merged.items(), key=lambda p: p[0])
        return out if dps is None else round_back(out, dps)

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
            k_int = int(k)
            if k_int >= 1 and len(self._c) * k_int < 60:
                # ∫ φ^k dμ from μ's moments (exact polynomial algebra, float moments)
                p = np.polynomial.polynomial.polypow(self._c, k_int)
                vals = [1.0 if d == 0 else float(self.law.moment(d)) for d in range(len(p))]
                if dps is None:
                    return math.fsum(c * v for c, v in zip(p, vals))
        return Law.moment(self, k, dps=dps, method=method)
