"""P(G, z) with exact coefficients as a numerical object: evaluation, roots, continuation.

:class:`NumericPolynomial` keeps the coefficients of P(G, z) = Σ_k c_k(z) G^k as exact terms in
the law's parameters and evaluates them in float64 (the table :attr:`~NumericPolynomial.cf`,
or at any float64 parameter point for a parameter path) and at any mpmath precision; on top
of them: all roots in G at a point (batched companion matrices in float64, FLINT/mpmath at a
working precision), the vectorised Newton polish, the partial derivatives and G′ by the
implicit function theorem, and the float64 continuation of the Stieltjes branch down vertical
lines x + ih from far above the spectrum (G ~ 1/z there) to the axis.

What is read off these on the real axis — breakpoints, the branch rule per interval, the
classification carried from one parameter point to the next — is
:class:`~freeattn.algebraic.numeric.BranchData`.
"""
from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from .._context import to_mp
from .exact import NotConvertible, _expanded_terms, free_symbols
from .polynomial import G, parameter_order, z
from .roots import horner_with_derivative, newton_polish_array, polyroots

__all__ = ["NumericPolynomial", "ParameterValues"]

#: a parameter value that needs sympy to evaluate (e^{β²} − 1 − β²: an evalf each time) is
#: evaluated once at the highest precision asked for so far, at least this many digits (the
#: breakpoints' 2·30 + 20 digits and guard digits: one evalf serves the float64 table, the
#: 30-digit branch data, the breakpoints and the float64 parameters), and rounded to each
#: lower precision from there; the last _VALUE_MEMO_SIZE values are kept
_VALUE_MIN_DPS = 100
_VALUE_MEMO_SIZE = 512
_VALUE_MEMO = {}

#: |ln| of a coefficient of P(·, x) beyond which float64 would under- or overflow it (e^600 ~
#: 1e260, with room for the sums): :meth:`NumericPolynomial._log_scaled` takes over; and the
#: largest ln of a double
_LOG_SAFE = 600.0
_LOG_MAX = float(np.log(np.finfo(float).max))
#: a root of a reversed polynomial (:meth:`NumericPolynomial._roots_of`, next to a pole) of
#: modulus below this, the smallest normal double, stands for a root of P at infinity
_REVERSED_ROOT_TINY = float(np.finfo(float).tiny)

#: step control of :meth:`NumericPolynomial.track`: a step is accepted only where the root
#: picked lies within this fraction of the predicted move from the predictor (the step is
#: then shorter than the scale on which the branch bends)
_TRACK_BEND = 0.25
#: the largest step of :meth:`NumericPolynomial.track` in ln h
_TRACK_MAX_DT = -0.5
#: a tracker step's corrector slack: ≤ _TRACK_BEND × the predicted move + this × |G|
_TRACK_SLACK = 1e-12
#: the float64 tracker gives up on a point when its step in ln h falls below this
_TRACK_MIN_DT = 1e-9
#: slack of the Nevanlinna conditions Im(1/G) ≥ Im z, |G|·Im z ≤ 1 (rounding)
_NEVANLINNA_SLACK = 1e-9
#: rounding of a float64 root's 1/G, relative to |1/G|: a margin on Im(1/G) ≥ Im z in
#: absolute terms.  Outside a narrow spectrum far away (variance/x² ~ 1e-10) the branch
#: meets the condition by h·1e-10 only, and at h ~ 1e-8 that is below the root's rounding:
#: counted by a relative slack the branch failed, another sheet's root passed alone and was
#: taken as the branch (values_law(0.0126, 1, 0.0066, 0.0037): the outer gap read as support)
_NEVANLINNA_ROUNDING = 1e-11
#: the tracker's start scan (:meth:`NumericPolynomial.track`) is done where points × heights
#: stay within this many companion matrices (one batched eigvals call)
_SCAN_MAX_MATRICES = 4096
#: guard bits of the mpmath Newton polish's stopping test
_POLISH_GUARD_BITS = 8
#: digits at which the float64 coefficient table is evaluated (well above float64's 17, so that
#: each entry is the exact coefficient rounded once)
_FLOAT_TABLE_DPS = 40
#: a coefficient evaluated at _FLOAT_TABLE_DPS digits is certainly nonzero when its modulus
#: exceeds this × the sum of its terms' moduli (each term carries ~10^-40 relative error)
_NONZERO_REL = 1e-30


def value_mp(value):
    """``to_mp(value)`` at the current precision; a value that is no plain number (a sympy
    expression such as e^{β²} − 1 − β²) is evaluated by sympy once at
    :data:`_VALUE_MIN_DPS` digits or more (the highest precision asked for so far) and
    rounded to the current precision from there: the float64 table, the 30-digit branch
    data, the breakpoints and the float64 parameters of a point, and every polynomial of its
    law, share one evalf."""
    if isinstance(value, (int, float, mpmath.mpf)) or getattr(value, "is_Rational", False) \
            or getattr(value, "is_Float", False) or not hasattr(value, "evalf"):
        return to_mp(value)
    prec = mpmath.mp.prec
    try:
        hit = _VALUE_MEMO.get(value)
    except TypeError:  # unhashable
        return to_mp(value)
    if hit is None or hit[0] < prec:
        work = max(prec, mpmath.libmp.dps_to_prec(_VALUE_MIN_DPS))
        with mpmath.workprec(work):
            hit = (work, to_mp(value))
        _VALUE_MEMO[value] = hit
        while len(_VALUE_MEMO) > _VALUE_MEMO_SIZE:  # the oldest first
            _VALUE_MEMO.pop(next(iter(_VALUE_MEMO)), None)
    return +hit[1]


class ParameterValues:
    """A law's exact parameter values at any mpmath precision (per-precision cache): what
    :class:`~freeattn.algebraic.numeric.BranchData` reads of its ``evaluator`` (``values``,
    :meth:`values_mp_of`) where the discriminant tables are in every parameter of P while
    the numeric polynomial has some substituted.  No coefficient table: a
    :class:`NumericPolynomial` of the full P for this cost 0.3–0.6 ms a point."""

    def __init__(self, values):
        self.values = dict(values)
        self._mp = {}

    def values_mp_of(self, symbols):
        have = self._mp.setdefault(mpmath.mp.prec, {})
        out = []
        for s_ in symbols:
            v = have.get(s_)
            if v is None:
                v = have[s_] = value_mp(self.values[s_])
            out.append(v)
        return out



def nevanlinna_ok(g, y):
    """Whether each root ``g`` of P(·, z) at height ``y`` = Im z > 0 may be the Stieltjes
    branch: Im G < 0, Im(1/G) ≥ Im z and |G|·Im z ≤ 1, each up to the rounding of a float64
    root (a root on the edge of a condition counts: a value read as unique must be unique
    within rounding, so the branch is never the one excluded)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        inv = 1.0 / g
        margin = np.maximum(y * _NEVANLINNA_SLACK, _NEVANLINNA_ROUNDING * np.abs(inv))
        return (np.isfinite(g) & (g.imag < 0) & (inv.imag >= y - margin)
                & (np.abs(g) * y <= 1 + _NEVANLINNA_SLACK))

class NumericPolynomial:
    """P(G, z) = Σ_k c_k(z) G^k with exact coefficients, evaluable in float64 and mpmath.

    Parameters
    ----------
    P : sympy expression in ``G``, ``z`` and parameter symbols.
    values : dict
        Parameter symbol → exact value.  Coefficients are kept as expressions in the
        parameters and evaluated numerically, so no symbolic work is ever done on large exact
        values (a float such as 0.7 is a 52-bit rational, e^{0.49} a transcendental).
    """

    def __init__(self, P, values=None):
        self.values = dict(values or {})
        # the canonical order (stems, then creation counters): two laws of one structure list
        # their parameters alike, so that a parameter path between them is meaningful
        params = sorted(self.values, key=parameter_order)
        self._params = params
        self._mp_cache = {}
        rows = self._integer_terms(P, params)
        if rows is None:
            self._init_sympy(P)
        else:
            deg = max(k for k, _ in rows)

            def coeff_expr(key):
                return sp.Add(*[sp.Rational(n, d) * sp.Mul(*[s_**e for s_, e in zip(params, ex)])
                                for ex, n, d in rows[key]])

            # drop leading powers of G whose coefficients vanish identically at these values
            # (a coefficient that is clearly nonzero numerically needs no sympy expansion)
            while deg > 0 and all(not self._clearly_nonzero(rows[key])
                                  and sp.expand(coeff_expr(key).xreplace(self.values)) == 0
                                  for key in rows if key[0] == deg):
                deg -= 1
            self.deg = deg
            self.deg_z = max(j for (k, j) in rows if k <= deg)
            self._rows = [[rows.get((k, j), []) for j in range(self.deg_z + 1)]
                          for k in range(self.deg + 1)]
        with mpmath.workdps(_FLOAT_TABLE_DPS):
            c = self.coefficients_mp()
        # float64 coefficient polynomials in z, highest power first, for G^deg .. G^0
        self.cf = np.array([[float(c[k][j]) for j in range(self.deg_z, -1, -1)]
                            for k in range(self.deg, -1, -1)])

    @staticmethod
    def _integer_terms(P, params):
        """{(k, j): [(exponents over params, num, den), …]} of the coefficient of G^k z^j, read
        term by term off an expanded P with rational coefficients (no sympy.Poly, no
        lambdify: evaluated per precision by :meth:`coefficients_mp`), or None for any other
        P (the sympy route)."""
        gens = [G, z] + list(params)
        if len({g.name for g in gens}) != len(gens) or not free_symbols(P) <= set(gens):
            return None
        try:
            terms = _expanded_terms(P, {g.name: i for i, g in enumerate(gens)}, len(gens))
        except NotConvertible:
            return None
        if not terms:
            return None
        rows = {}
        for m, (n, d) in terms.items():
            if n:
                rows.setdefault((m[0], m[1]), []).append((m[2:], n, d))
        return rows or None

    def _init_sympy(self, P):
        poly = sp.Poly(P, G, z)
        terms = {}
        for (k, j), c in poly.terms():
            terms[(k, j)] = c
        deg = max(k for k, _ in terms)
        # drop leading powers of G whose coefficients vanish identically at these values
        while deg > 0 and all(sp.expand(c.xreplace(self.values)) == 0
                              for (k, _), c in terms.items() if k == deg):
            deg -= 1
        self.deg = deg
        self.deg_z = max(j for (k, j) in terms if k <= deg)
        self._exact_c = [[sp.Integer(0)] * (self.deg_z + 1) for _ in range(self.deg + 1)]
        for (k, j), c in terms.items():
            if k <= deg:
                self._exact_c[k][j] = c

    # Lambdified coefficient functions (sympy route) are rebuilt on demand and never
    # pickled: a law must pickle (process pools, Dask) whether or not it has been evaluated.
    @property
    def _fns(self):
        fns = self.__dict__.get("_fns_")
        if fns is None:
            fns = [[sp.lambdify(self._params, c, "mpmath") for c in row] for row in self._exact_c]
            self.__dict__["_fns_"] = fns
        return fns

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_fns_", None)
        return state

    def param_values_mp(self):
        """Parameter values as mpmath numbers at the current precision (converted once per
        precision: an exact value such as e^{β²} − 1 costs a sympy evalf each time)."""
        cache = self.__dict__.setdefault("_values_mp", {})
        key = mpmath.mp.prec
        if key not in cache:
            cache[key] = [value_mp(self.values[p]) for p in self._params]
        return list(cache[key])

    def values_mp_of(self, symbols):
        """The values of ``symbols`` (parameters of P) at the current precision, from the
        per-precision cache of :meth:`param_values_mp`."""
        have = dict(zip(self._params, self.param_values_mp()))
        return [have[s_] if s_ in have else value_mp(self.values[s_]) for s_ in symbols]

    def evaluate_mp(self, expr):
        """An expression in the parameters, evaluated at the current mpmath precision."""
        fn = sp.lambdify(self._params, expr, "mpmath")
        return mpmath.mpmathify(fn(*self.param_values_mp()))

    def coefficients_mp(self):
        """Coefficient table c[k][j] (of G^k z^j) as mpf at the current mpmath precision."""
        key = mpmath.mp.prec
        if key not in self._mp_cache:
            vals = self.param_values_mp()
            rows = self.__dict__.get("_rows")
            if rows is None:
                self._mp_cache[key] = [[mpmath.mpmathify(f(*vals)) for f in row]
                                       for row in self._fns]
            else:
                self._mp_cache[key] = [[self._eval_terms(t, vals) for t in row] for row in rows]
        return self._mp_cache[key]

    def _clearly_nonzero(self, terms):
        """Whether Σ n/d · Π values^e is certainly nonzero: evaluated at
        :data:`_FLOAT_TABLE_DPS` digits, its modulus exceeds the rounding bound
        :data:`_NONZERO_REL` × Σ |terms| (else the exact check decides)."""
        with mpmath.workdps(_FLOAT_TABLE_DPS):
            vals = self.param_values_mp()
            acc, size = mpmath.mpf(0), mpmath.mpf(0)
            for term in terms:
                t = self._eval_terms([term], vals)
                acc += t
                size += abs(t)
            return abs(acc) > _NONZERO_REL * size

    @staticmethod
    def _eval_terms(terms, vals):
        """Σ n/d · Π vals^e at the current precision (one coefficient of P)."""
        acc = mpmath.mpf(0)
        for ex, n, d in terms:
            t = mpmath.mpf(n) / d if d != 1 else mpmath.mpf(n)
            for v, e in zip(vals, ex):
                if e:
                    t = t * (v if e == 1 else v**e)
            acc += t
        return acc

    # ------------------------------------------------------------ float64
    def float_parameters(self):
        """The parameter values in float64, in the order of the coefficient rows."""
        return np.array([float(value_mp(self.values[p_])) for p_ in self._params])

    def row_arrays(self):
        """(rows of cf, columns of cf, rational coefficient as float, exponents) of every
        term of P, or None for the sympy route: P's coefficient table at any float64
        parameter point (:meth:`coefficient_table`); equal arrays mean one structure."""
        rows = self.__dict__.get("_rows")
        if rows is None:
            return None
        arr = self.__dict__.get("_row_arrays")
        if arr is None:
            kk, jj, coef, ex = [], [], [], []
            for k, row in enumerate(rows):
                for j, terms in enumerate(row):
                    for e, n, d in terms:
                        kk.append(self.deg - k)
                        jj.append(self.deg_z - j)
                        coef.append(n / d)
                        ex.append(e)
            arr = (np.array(kk, dtype=int), np.array(jj, dtype=int), np.array(coef),
                   np.array(ex, dtype=float).reshape(len(coef), len(self._params)))
            self.__dict__["_row_arrays"] = arr
        return arr

    def coefficient_table(self, params):
        """:attr:`cf` (G^deg first, each row z^deg_z first) at float64 ``params`` (in the
        order of :meth:`float_parameters`)."""
        kk, jj, coef, ex = self.row_arrays()
        with np.errstate(over="ignore", invalid="ignore"):
            terms = coef * np.prod(np.asarray(params, float)[None, :] ** ex, axis=1)
        out = np.zeros((self.deg + 1, self.deg_z + 1))
        np.add.at(out, (kk, jj), terms)
        return out

    def coeffs_at(self, x):
        """Coefficients of P(·, x) for each x: array (deg + 1, N), highest power of G first."""
        x = np.asarray(x).reshape(-1)
        # Horner in x on all deg + 1 rows at once (the same operations per entry as row by
        # row: a scalar x cost (deg + 1)·deg_z numpy calls, 0.8 ms on the ρ layer's 14 × 11)
        acc = np.repeat(self.cf[:, :1].astype(np.result_type(x, float)), x.size, axis=1)
        for j in range(1, self.cf.shape[1]):
            acc = acc * x + self.cf[:, j:j + 1]
        return acc

    def _lost_points(self, x):
        """The points of ``x`` at which double loses a coefficient of P(·, x) (subnormal, 0
        or not finite although its terms are not: a subnormal one has lost digits, 4e-5 of
        a root of attention_law(1, 1) at x = 1e-160), with the log-magnitude estimate L of every
        coefficient (deg + 1, n) and ln|x| there; None where no point does.

        Next to a hard edge at 0 the coefficients are powers of x times O(1) numbers: at
        x = 5e-324 the coefficient 7.4e-12 x² of G⁴ of attention_law(0.0103, 0.0823) is 0
        in double, the support's roots (~10^162) were lost and inverting a reversed root
        overflowed (RuntimeWarning)."""
        x = np.asarray(x).reshape(-1)
        a_max = self.__dict__.get("_log_cf_max")
        if a_max is None:
            with np.errstate(divide="ignore"):
                self.__dict__["_log_cf"] = np.log(np.abs(self.cf))
            fin = self.__dict__["_log_cf"][np.isfinite(self.__dict__["_log_cf"])]
            a_max = self.__dict__["_log_cf_max"] = float(np.max(np.abs(fin))) if fin.size else 0.0
        nz = (x != 0) & np.isfinite(x)
        if not np.any(nz):
            return None
        if a_max + self.deg_z * float(np.max(np.abs(np.log(np.abs(x[nz]))))) <= _LOG_SAFE:
            return None
        A = self.__dict__["_log_cf"]
        mag = np.zeros(x.shape)
        mag[nz] = np.log(np.abs(x[nz]))
        zpow = np.arange(self.deg_z, -1, -1, dtype=float)  # cf columns: z^deg_z first
        L = np.max(A[:, :, None] + zpow[None, :, None] * mag[None, None, :], axis=1)
        with np.errstate(all="ignore"):
            plain = self.coeffs_at(x)
        lost = (np.isfinite(L) & (np.abs(L) > _LOG_SAFE)
                & ((np.abs(plain) < _REVERSED_ROOT_TINY) | ~np.isfinite(plain)))
        mask = nz & np.any(lost, axis=0)
        if not np.any(mask):
            return None
        return mask, L[:, mask], mag[mask]

    def _segments(self, L):
        """Newton polygon of one point's log-magnitudes L (G^deg first): [(ln s, count)], one
        per edge of the upper hull of (k, L_k): ``count`` roots of modulus about s."""
        ks = [self.deg - i for i in range(self.deg + 1) if np.isfinite(L[i])][::-1]  # k up
        vals = {k: L[self.deg - k] for k in ks}
        hull = []
        for k in ks:  # upper hull, monotone chain
            while len(hull) >= 2:
                k1, k2 = hull[-2], hull[-1]
                if (vals[k2] - vals[k1]) * (k - k1) <= (vals[k] - vals[k1]) * (k2 - k1):
                    hull.pop()
                else:
                    break
            hull.append(k)
        return [(-(vals[b] - vals[a]) / (b - a), b - a) for a, b in zip(hull[:-1], hull[1:])]

    def _scaled_column(self, x, mag, log_s):
        """Coefficients of P(s·H, x) at one point, highest power first, formed in
        logarithms (largest term 1), s = e^{log_s}."""
        A = self.__dict__["_log_cf"]
        zpow = np.arange(self.deg_z, -1, -1, dtype=float)
        gpow = np.arange(self.deg, -1, -1, dtype=float)
        expo = A + zpow[None, :] * mag + gpow[:, None] * log_s
        top = np.max(expo[np.isfinite(expo)])
        with np.errstate(under="ignore"):  # terms below 1e-308 of the largest: nothing
            size = np.exp(expo - top)
        phase = (np.sign(x) ** zpow if np.isrealobj(x)
                 else np.exp(1j * np.angle(x) * zpow))
        return np.sum(np.sign(self.cf) * phase[None, :] * size, axis=1)

    @staticmethod
    def _unscale(h, log_s):
        """G = s·H from H and ln s (inf where |G| is beyond float64, 0 stays 0)."""
        h = np.asarray(h, dtype=complex)
        out = np.where(np.isinf(h), np.inf + 0j, 0j)
        ok = np.isfinite(h) & (h != 0)
        ls = np.broadcast_to(log_s, h.shape)[ok]
        lg = np.log(h[ok]) + ls
        out[ok] = np.where(lg.real > _LOG_MAX, np.inf + 0j,
                           np.exp(np.where(lg.real > _LOG_MAX, 0, lg)))
        return out

    def _roots_split(self, x, L, mag):
        """All roots of P(·, x) at one point whose coefficients double cannot hold, by the
        Newton polygon: for each edge (ln s, m) the m roots of P(s·H, x) nearest |H| = 1
        (roots at several far-apart scales each from their own scaling, where one
        companion matrix keeps only the largest: 3e81 and 4e42 at once); roots at infinity
        where leading coefficients vanish."""
        out = np.full(self.deg, np.inf + 0j)
        got = []
        for log_s, m in self._segments(L):
            h = self._roots_of(self._scaled_column(x, mag, log_s)[:, None])[0]
            with np.errstate(divide="ignore", invalid="ignore"):
                far = np.where(np.isfinite(h) & (h != 0), np.abs(np.log(np.abs(h))), np.inf)
            got.extend(self._unscale(h[np.argsort(far)[:m]], log_s))
        low = [self.deg - i for i in range(self.deg + 1) if np.isfinite(L[i])]
        zeros = min(low) if low else 0  # c_0 … c_{k−1} = 0: k roots at 0
        got = got + [0j] * zeros
        out[:len(got)] = got[:self.deg]
        return out

    def roots(self, x):
        """All roots in G of P(G, x) for each x: complex array (N, deg).

        Companion-matrix eigenvalues, batched, on coefficients scaled to unit size.  Where
        the leading coefficient is tiny against the others (x at or next to a pole) the
        roots of the reversed polynomial are inverted instead, so that the large roots come
        out as large numbers (``inf`` where the leading coefficient vanishes exactly) and the
        others keep full accuracy.  Where a coefficient of P(·, x) would under- or overflow
        (x of 1e-160 and below next to a hard edge at 0), the roots come from P(s·H, x)
        formed in logarithms (:meth:`_log_scaled`).
        """
        x = np.asarray(x).reshape(-1)
        out = self._roots_of(self.coeffs_at(x))
        lost = self._lost_points(x)
        if lost is not None:
            mask, L, mag = lost
            out[mask] = [self._roots_split(xi, L[:, i], mag[i])
                         for i, xi in enumerate(x[mask])]
        return out

    def _roots_of(self, C):
        """:meth:`roots` from the coefficients ``C`` (deg + 1, N) of P(·, x), highest first.

        All companion matrices go to one batched ``eigvals`` call (its cost is mostly per
        call at these sizes), the reversed polynomials' rows beside the regular ones; real
        coefficients (x on the axis) give real companion matrices, whose eigenvalues LAPACK
        finds about three times faster than those of complex ones."""
        n = C.shape[1]
        out = np.full((n, self.deg), np.inf + 0j)
        if self.deg == 0 or n == 0:
            return out
        scale = np.max(np.abs(C), axis=0)
        scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
        C = C / scale
        # next to a pole (tiny leading coefficient) the reversed polynomial, roots inverted
        reverse = np.abs(C[0]) < np.abs(C[-1])
        cc = np.where(reverse, C[::-1], C)
        M = np.zeros((n, self.deg, self.deg), dtype=C.dtype)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            M[:, 0, :] = -(cc[1:] / cc[0]).T
        idx = np.arange(self.deg - 1)
        M[:, idx + 1, idx] = 1
        good = np.all(np.isfinite(M[:, 0, :]), axis=1)
        if np.all(good):
            out[:] = np.linalg.eigvals(M)
        elif np.any(good):
            out[good] = np.linalg.eigvals(M[good])
        if np.any(reverse):
            # invert the reversed polynomials' roots; one of modulus below the smallest
            # normal double is a root of P beyond float64's range, inf as for 0 (its inverse
            # overflowed, with a RuntimeWarning: attention_law(0.0103, 0.0823).cdf(5e-324))
            r = out[reverse]
            far = np.abs(r) < _REVERSED_ROOT_TINY
            out[reverse] = np.where(far, np.inf + 0j, 1.0 / np.where(far, 1, r))
        return out

    def newton(self, g, x, steps=3):
        """Polish roots ``g`` of P(·, x) by Newton's method (vectorised); returns (g, |step|).

        Where a coefficient of P(·, x) would under- or overflow, on P(s·H, x)
        (:meth:`_log_scaled`), H = g/s."""
        C = self.coeffs_at(x)
        with np.errstate(all="ignore"):  # far-off starts overflow; callers check the result
            out, step = newton_polish_array(C, g, steps)
        xs = np.asarray(x).reshape(-1)
        lost = self._lost_points(xs)
        if lost is not None and np.shape(g) == np.shape(out) and np.ndim(out) == 1:
            mask, L, mag = lost
            out = np.array(out, dtype=complex)
            step = np.array(step, dtype=float)
            for i, j in enumerate(np.flatnonzero(mask)):
                g0 = complex(np.asarray(g)[j])
                if not (np.isfinite(g0) and g0 != 0):
                    continue
                # the Newton-polygon scale nearest |g|: P(s·H, x) is balanced about H = g/s
                log_s = min((ls for ls, _ in self._segments(L[:, i])),
                            key=lambda ls: abs(ls - np.log(abs(g0))))
                C = self._scaled_column(xs[j], mag[i], log_s)
                h = self._unscale(np.array([g0]), -log_s)
                with np.errstate(all="ignore"):
                    h, st = newton_polish_array(list(C[:, None]), h, steps)
                out[j] = self._unscale(h, log_s)[0]
                step[j] = abs(self._unscale(np.array([st[0] + 0j]), log_s)[0])
        return out, step

    def partials(self, g, x):
        """(P, ∂P/∂G, ∂P/∂z) at the points (g, x), vectorised (float64/complex128)."""
        g = np.asarray(g, dtype=complex)
        x = np.asarray(x, dtype=complex)
        p = np.zeros(g.shape, complex)
        pg = np.zeros(g.shape, complex)
        pz = np.zeros(g.shape, complex)
        for k in range(self.deg + 1):  # rows of cf: G^deg first
            row = self.cf[k]
            ck = np.full(x.shape, row[0], complex)
            dck = np.zeros(x.shape, complex)
            for c in row[1:]:
                dck = dck * x + ck
                ck = ck * x + c
            pg = pg * g + p
            p = p * g + ck
            pz = pz * g + dck
        return p, pg, pz

    def derivative(self, g, x):
        """G′(x) = −∂_zP/∂_GP at the branch value g (implicit function theorem)."""
        _, pg, pz = self.partials(g, x)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(pg != 0, -pz / np.where(pg != 0, pg, 1), np.inf + 0j)

    @staticmethod
    def nevanlinna_root(r, y):
        """(g, n): for roots ``r`` (N, deg) of P(·, z) at heights ``y`` = Im z > 0, the number
        n of roots with Im G < 0, Im(1/G) ≥ Im z and |G|·Im z ≤ 1 (the Stieltjes branch's
        Nevanlinna conditions: 1/G is a Nevanlinna function with Im(F(z) − z) ≥ 0, and
        |G| ≤ 1/Im z), and g the sum of those roots (the branch itself where n = 1)."""
        okc = nevanlinna_ok(r, np.asarray(y, dtype=float)[:, None])
        return np.where(okc, r, 0).sum(axis=1), okc.sum(axis=1)

    def _scan_start(self, x, t_start, t_end):
        """Per point, the lowest height of the tracker's ln h grid (steps of _TRACK_MAX_DT
        from ``t_start``, down to ``t_end``) at which exactly one root of P(·, x + ih) meets
        the Nevanlinna conditions (:meth:`nevanlinna_root`; there that root is the branch,
        whatever happens above) and every root is finite: (t, g, found).  One batched root solve instead of a step
        loop; the tracker continues from there (on the axis side of the heights where the
        roots crowd)."""
        k = int(np.max(np.ceil((t_start - t_end) / -_TRACK_MAX_DT))) + 1
        found = np.zeros(x.shape, bool)
        if k * x.size > _SCAN_MAX_MATRICES or k < 2:
            return t_start, None, found
        steps = np.arange(k) * _TRACK_MAX_DT
        tt = np.maximum(t_start[:, None] + steps[None, :], t_end[:, None])  # (N, k)
        hh = np.exp(tt)
        with np.errstate(over="ignore", invalid="ignore"):
            r = self.roots((x[:, None] + 1j * hh).reshape(-1))
        g, n = self.nevanlinna_root(r, hh.reshape(-1))
        # only where every root is resolved (a root lost to overflow could be the branch)
        uniq = ((n == 1) & np.all(np.isfinite(r), axis=1)).reshape(tt.shape)
        found = np.any(uniq, axis=1)
        last = k - 1 - np.argmax(uniq[:, ::-1], axis=1)  # the lowest unique height
        rows = np.arange(x.size)
        t0 = np.where(found, tt[rows, last], t_start)
        g0 = g.reshape(tt.shape)[rows, last]
        return t0, g0, found

    def track(self, x, h_end, g_start=None, h_start=None, max_steps=3000):
        """Continue the Stieltjes branch down the vertical lines x + ih, h from ``h_start``
        (default: far above the spectrum, where G ~ 1/z) to ``h_end`` > 0 (vectorised).

        Steps are geometric in h and adaptive per point: a step is accepted only when the
        root nearest the predictor g + G′·Δz is unambiguous (at most a quarter of the
        distance to the next root); otherwise it is halved.  This keeps the branch across
        near-collisions of roots (narrow gaps, poles, nearly degenerate parameters).

        Returns
        -------
        g : complex ndarray
            Branch values at x + i h_end.
        ok : bool ndarray
            False where the step control gave up (``max_steps`` or a step below 1e-9 of a
            decade); those entries hold the last tracked value.
        """
        x = np.asarray(x, dtype=float).reshape(-1)
        h_end = np.broadcast_to(np.asarray(h_end, dtype=float), x.shape).copy()
        if h_start is None:
            R = float(getattr(self, "scale_hint", 1.0))
            h_start = 8.0 * (R + np.abs(x) + 1.0)
        h_start = np.broadcast_to(np.asarray(h_start, dtype=float), x.shape).copy()
        h_start = np.maximum(h_start, h_end)
        z0 = x + 1j * h_start
        if g_start is None:
            g = 1.0 / z0
            # far-out starts (huge breakpoints: ρ = 1e-9) overflow P's coefficients; such
            # points end with ok False, silently (no warning spam)
            with np.errstate(over="ignore", invalid="ignore"):
                for _ in range(6):
                    g = self.newton(g, z0, steps=1)[0]
        else:
            g = np.asarray(g_start, dtype=complex).reshape(-1).copy()
        t = np.log(h_start)
        t_end = np.log(h_end)
        if g_start is None:
            # start each point as low as the Nevanlinna conditions single out the branch
            t_scan, g_scan, found = self._scan_start(x, t, t_end)
            if np.any(found):
                t = np.where(found, t_scan, t)
                g = np.where(found, g_scan, g)
        dt = np.full(x.shape, _TRACK_MAX_DT)
        ok = np.ones(x.shape, bool)
        poles = np.asarray(getattr(self, "pole_hint", ()), dtype=float)
        active = t > t_end
        steps = 0
        while np.any(active) and steps < max_steps:
            steps += 1
            ia = np.flatnonzero(active)
            tn = np.maximum(t[ia] + dt[ia], t_end[ia])
            hc, hn = np.exp(t[ia]), np.exp(tn)
            zc = x[ia] + 1j * hc
            zn = x[ia] + 1j * hn
            # predictors of points where the branch is huge or ∂_GP vanishes overflow or
            # come out nan (inf·0): they are screened by isfinite below, silently
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                dg = self.derivative(g[ia], zc)
                # two predictors: linear in z, and linear in log h for H = ih·G (exact next to
                # a pole, where G ~ m/(z − x) and the sheets of several masses nearly merge)
                pred1 = g[ia] + dg * (zn - zc)
                pred2 = (hc / hn) * (g[ia] + (g[ia] + 1j * hc * dg) * (tn - t[ia]))
                preds = [pred1, pred2]
                usable = [True, True]
                if len(poles):
                    # third predictor: H = (z − p)·G linear in z, p the nearest pole (an atom).
                    # Off the line's foot (|x − p| ~ h) neither predictor above follows
                    # G ~ m/(z − p), and when two sheets share the pole (the same mass, constant
                    # terms 11 apart) an error of ~10 on a move of ~500 landed unambiguously on
                    # the other sheet: mha_output_law(1, 4, 1.5, 2, 0.5) at x = −0.001 + 1e-9i
                    # gave G − ½/z = +10.08 for −0.984
                    pn = poles[np.argmin(np.abs(x[ia][:, None] - poles[None, :]), axis=1)]
                    hcur = (zc - pn) * g[ia]
                    pred3 = (hcur + (g[ia] + (zc - pn) * dg) * (zn - zc)) / (zn - pn)
                    preds.append(pred3)
                    usable.append(np.abs(zc - pn) <= 8 * hc)  # next to the pole only
            with np.errstate(over="ignore", invalid="ignore"):
                r = self.roots(zn)
            picks, good = [], []
            for pred, use in zip(preds, usable):
                pred = np.where(np.isfinite(pred), pred, g[ia])
                d = np.abs(r - pred[:, None])
                d = np.where(np.isfinite(d), d, np.inf)
                order = np.argsort(d, axis=1)
                d1 = np.take_along_axis(d, order[:, :1], axis=1)[:, 0]
                d2 = (np.take_along_axis(d, order[:, 1:2], axis=1)[:, 0] if self.deg > 1
                      else np.full(len(ia), np.inf))
                picks.append(order[:, 0])
                # the corrector must also be small against the predicted move: a step
                # longer than the scale on which G bends (G ~ m/(z − a) from an atom a
                # near x, with h ~ |x − a|) can land unambiguously on another sheet's root
                # (mha_output_law(0.4683, 10, 0.2024, 0.4281, 0.5555) at x = 0.0169: from
                # 6.50 − 19.8i to 2.10 − 11.2i, ending on a real root; the density there
                # was lost)
                with np.errstate(over="ignore", invalid="ignore"):
                    move = np.abs(pred - g[ia])
                    good.append(np.isfinite(d1) & (d1 <= 0.25 * d2) & use
                                & (d1 <= _TRACK_BEND * move + _TRACK_SLACK * np.abs(g[ia])))
            conflict = np.zeros(len(ia), bool)
            for a_ in range(len(preds)):
                for b_ in range(a_):
                    conflict |= good[a_] & good[b_] & (picks[a_] != picks[b_])
            acc = np.any(good, axis=0) & ~conflict
            pick = picks[-1]
            for a_ in range(len(preds) - 2, -1, -1):
                pick = np.where(good[a_], picks[a_], pick)
            ja = ia[acc]
            g[ja] = r[acc, pick[acc]]
            t[ja] = tn[acc]
            # at most a factor e^{1/2} in h a step: |Δz| ≤ 0.4 h stays well inside the disc
            # of radius h about x + ih on which the branch is analytic (a factor e² let the
            # predictor land on another sheet: mha_output_law(1.7093, 13, 2.1210, 0.3661,
            # 0.7075) took −0.68 − 1.76i for −1.10 − 1.08i at x = −0.293, h = 0.298, and
            # reported a support interval on the negative axis)
            dt[ja] = np.maximum(dt[ja] * 1.5, _TRACK_MAX_DT)
            jr = ia[~acc]
            dt[jr] *= 0.5
            dead = jr[np.abs(dt[jr]) < _TRACK_MIN_DT]
            ok[dead] = False
            active = (t > t_end) & ok
        ok &= ~active
        return g, ok

    # ------------------------------------------------------------ mpmath
    def roots_mp(self, x):
        """All roots in G of P(G, x) at the current mpmath precision (list of mpc)."""
        c = self.coefficients_mp()
        coeffs = []
        for k in range(self.deg, -1, -1):
            acc = mpmath.mpf(0)
            for j in range(self.deg_z, -1, -1):
                acc = acc * x + c[k][j]
            coeffs.append(acc)
        while len(coeffs) > 1 and coeffs[0] == 0:
            coeffs.pop(0)
        if len(coeffs) == 1:
            return []
        return polyroots(coeffs)

    def coeffs_at_mp(self, x):
        """Coefficients of P(·, x) at the current precision, highest power of G first."""
        c = self.coefficients_mp()
        out = []
        for k in range(self.deg, -1, -1):
            acc = mpmath.mpf(0)
            for j in range(self.deg_z, -1, -1):
                acc = acc * x + c[k][j]
            out.append(acc)
        return out

    def newton_mp(self, g, x, steps=60):
        """Newton polish of a root of P(·, x) at the current precision.

        The coefficients of P(·, x) are formed once; iteration stops one step after the
        update falls below the square root of the tolerance (quadratic convergence)."""
        C = self.coeffs_at_mp(x)
        tol = mpmath.mpf(2) ** (_POLISH_GUARD_BITS - mpmath.mp.prec)
        half = mpmath.sqrt(tol)
        # not roots.newton_polish: this hot path saves the last residual evaluation (one
        # step after |step| < √tol lands at full precision by quadratic convergence)
        for _ in range(steps):
            p, dp = horner_with_derivative(C, g)
            if dp == 0:
                break
            delta = p / dp
            g = g - delta
            a = abs(delta)
            if a <= half * (abs(g) + tol):
                if a > tol * (abs(g) + tol):
                    continue_once = True
                else:
                    continue_once = False
                if not continue_once:
                    break
                # one more step lands at full precision
                p, dp = horner_with_derivative(C, g)
                if dp != 0:
                    g = g - p / dp
                break
        return g
