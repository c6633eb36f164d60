"""Analytic subordination: free convolutions of arbitrary laws as laws.

Every operation here reduces to a small analytic system f(u, z) = 0 for n ≤ 2 subordination
functions u = (ω₁[, ω₂]) in the closed upper half-plane, whose solution gives G(z):

* ⊞ (Biane 1998; Belinschi & Bercovici 2007): G_μ(ω₁) = G_ν(ω₂) = G(z), ω₁ + ω₂ = z + 1/G(z),
  i.e. F_μ(ω₁) = F_ν(ω₂) = ω₁ + ω₂ − z with F = 1/G.  ω₁ is the Denjoy–Wolff fixed point of
  w ↦ z + h_ν(z + h_μ(w)), h = F − id.
* ⊠ for laws on [0, ∞) (Biane 1998; Belinschi & Bercovici 2007), written in the spectral
  variable: with η̃(Ω) = 1 − 1/(Ω G(Ω)) (= η_μ(1/Ω)), Ω₁ G_μ(Ω₁) = Ω₂ G_ν(Ω₂) = ζ G(ζ) and
  Ω₁Ω₂ = ζ/η̃(ζ); equivalently Ω₂ (Ω₁ − F_μ(Ω₁)) = Ω₁ (Ω₂ − F_ν(Ω₂)) = ζ.
* compound free Poisson π(μ, t) (Nica & Speicher 2006, Prop. 12.11): R(g) = t ∫ x/(1 − xg) dμ;
  with ω = 1/G this is ω(1 − t) + t ω² G_μ(ω) = z.
* free powers (Nica & Speicher 1996; Belinschi & Bercovici 2004, 2005): μ^{⊞t}: t ω − (t − 1)
  F_μ(ω) = z, G = G_μ(ω); μ^{⊠t}: Ω (Ω − F_μ(Ω))^{t−1} = ζ, G = Ω G_μ(Ω)/ζ.

The solver, edges, atoms, tables and mpmath route common to all of them are
:class:`~freeattn.convolution.subordination_law.SubordinationLaw`; the input laws' G and G′
are :mod:`freeattn.convolution.subordination_inputs`.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp

from .._context import to_mp
from .._validation import Param, declare
from ..transforms.cumulants import (boxplus_free_cumulants, boxtimes_free_cumulants,
                                    compound_free_poisson_cumulants, free_cumulants_from_moments,
                                    moments_from_free_cumulants, moments_from_s_transform_series,
                                    s_transform_series)
from .subordination_law import (_LADDER_FLOOR, SubordinationLaw, _f_of, _mass_at_zero,
                                _moments_of)

__all__ = ["SubordinationLaw", "AdditiveConvolution", "MultiplicativeConvolution",
           "CompoundFreePoisson", "AdditivePower", "MultiplicativePower"]


#: the convolution engine's parameters, declared once: the classes below list them in
#: ``parameters`` and the public functions (⊞, ⊠, π(μ, t), powers) validate through them
_MU = Param("mu", "law", "μ")
_NU = Param("nu", "law", "ν")
_RATE = Param("rate", "positive", "t", "rate of the compound free Poisson law")
_POWER = Param("t", "at_least_one", "t", "exponent of a free power")


class AdditiveConvolution(SubordinationLaw):
    """μ ⊞ ν by subordination (see :func:`freeattn.free_additive_convolution`)."""

    parameters = (_MU, _NU)

    def __init__(self, mu, nu, name=None):
        declare(self.parameters, mu=mu, nu=nu)
        super().__init__([mu, nu], name or f"({mu.name}) ⊞ ({nu.name})")
        self.mu, self.nu = mu, nu

    def _hull(self):
        (a1, b1), (a2, b2) = self._inputs[0].hull(), self._inputs[1].hull()
        return a1 + a2, b1 + b2

    def _start(self, z):
        m1, m2 = self._inputs[0].mean(), self._inputs[1].mean()
        return [z - m2, z - m1]

    def _fixed(self, u, z, st):
        F1, _ = _f_of(*self._ev(0, u[0], st))
        w2 = z + F1 - u[0]
        F2, _ = _f_of(*self._ev(1, w2, st))
        return [z + F2 - w2, w2]

    def _eqs(self, u, z, st, mp_dps=None):
        F1, d1 = _f_of(*self._ev(0, u[0], st, mp_dps))
        F2, d2 = _f_of(*self._ev(1, u[1], st, mp_dps))
        s = u[0] + u[1] - z
        return [F1 - s, F2 - s], [[d1 - 1, -1], [-1, d2 - 1]]

    def _G_from_solution(self, u, z, st):
        return self._ev(0, u[0], st)[0]

    def _G_mp(self, u, z, dps):
        return self._inputs[0].value_mp(u[0], dps)[0]

    def _fz(self, u, z, f):
        return [np.ones_like(z), np.ones_like(z)]

    def _G_dG(self, u, du, z, st):
        return st[0][1], st[0][2] * du[0]  # G = G_μ(ω₁)

    def _atom_rule(self, dps):
        # Bercovici & Voiculescu 1998: (μ ⊞ ν)({a}) = max(0, μ({b}) + ν({a − b}) − 1)
        return [(b + c, mb + mc - 1) for b, mb in self.mu.atoms(dps) for c, mc in self.nu.atoms(dps)]

    def exact_moments(self, order):

        k1 = free_cumulants_from_moments(_moments_of(self.mu, order))
        k2 = free_cumulants_from_moments(_moments_of(self.nu, order))
        return moments_from_free_cumulants(boxplus_free_cumulants(k1, k2))


class _MultiplicativeSubordination(SubordinationLaw):
    """Hooks shared by the ⊠ laws (μ ⊠ ν and μ^{⊠t}): the unknown u₀ is the subordination
    function ω of the first input, G(z) = ω G_μ(ω)/z, and near 0 the scale is |z| itself."""

    def _res_scale(self, u, z):
        return np.ones(np.shape(z))

    def _ladder_floor(self, z):
        # near 0 the natural scale is |z| itself (a hard edge or an atom at 0)
        az = np.abs(z)
        return _LADDER_FLOOR * np.where(az > 0, np.minimum(az, self._scale), self._scale)

    def _G_from_solution(self, u, z, st):
        return u[0] * self._ev(0, u[0], st)[0] / z

    def _G_mp(self, u, z, dps):
        return u[0] * self._inputs[0].value_mp(u[0], dps)[0] / z

    def _fz(self, u, z, f):
        return [-(fi + 1) / z for fi in f]  # f = A(u)/z − 1

    def _G_dG(self, u, du, z, st):
        g, dg = st[0][1], st[0][2]  # G = ω G_μ(ω)/z
        return u[0] * g / z, (g + u[0] * dg) * du[0] / z - u[0] * g / (z * z)


class MultiplicativeConvolution(_MultiplicativeSubordination):
    """μ ⊠ ν for laws on [0, ∞) by subordination (see
    :func:`freeattn.free_multiplicative_convolution`)."""

    _half_line = True

    parameters = (_MU, _NU)

    def __init__(self, mu, nu, name=None):
        declare(self.parameters, mu=mu, nu=nu)
        super().__init__([mu, nu], name or f"({mu.name}) ⊠ ({nu.name})")
        self.mu, self.nu = mu, nu

    def _hull(self):
        (_, b1), (_, b2) = self._inputs[0].hull(), self._inputs[1].hull()
        return 0.0, b1 * b2

    def _start(self, z):
        m1, m2 = self._inputs[0].mean(), self._inputs[1].mean()
        return [z / m2, z / m1]

    def _fixed(self, u, z, st):
        F1, _ = _f_of(*self._ev(0, u[0], st))
        w2 = z / (u[0] - F1)
        F2, _ = _f_of(*self._ev(1, w2, st))
        return [z / (w2 - F2), w2]

    def _eqs(self, u, z, st, mp_dps=None):
        F1, d1 = _f_of(*self._ev(0, u[0], st, mp_dps))
        F2, d2 = _f_of(*self._ev(1, u[1], st, mp_dps))
        # divided by z: the terms are O(|z|), and z → 0 at a hard edge or an atom at 0
        f = [u[1] * (u[0] - F1) / z - 1, u[0] * (u[1] - F2) / z - 1]
        J = [[u[1] * (1 - d1) / z, (u[0] - F1) / z], [(u[1] - F2) / z, u[0] * (1 - d2) / z]]
        return f, J

    def _atoms_exact(self, dps):
        # Belinschi 2003: (μ ⊠ ν)({0}) = max(μ({0}), ν({0})); away from 0 the rule below
        a0 = _mass_at_zero(self.mu.atoms(dps))
        b0 = _mass_at_zero(self.nu.atoms(dps))
        out = [(0 * a0, max(a0, b0))] if max(a0, b0) > 0 else []
        return sorted(out + SubordinationLaw._atoms_exact(self, dps))

    def _atom_rule(self, dps):
        # away from 0: (μ ⊠ ν)({ab}) = max(0, μ({a}) + ν({b}) − 1)
        return [(a * b, ma + mb - 1) for a, ma in self.mu.atoms(dps) for b, mb in self.nu.atoms(dps)
                if a != 0 and b != 0]

    def exact_moments(self, order):

        k1 = free_cumulants_from_moments(_moments_of(self.mu, order))
        k2 = free_cumulants_from_moments(_moments_of(self.nu, order))
        return moments_from_free_cumulants(boxtimes_free_cumulants(k1, k2))


class CompoundFreePoisson(SubordinationLaw):
    """π(μ, t) for any jump law μ (see :func:`freeattn.compound_free_poisson`)."""

    _n = 1

    parameters = (_MU, _RATE)

    def __init__(self, mu, rate, name=None):
        _MU.validate(mu)
        self._rate_exact = _RATE.exact(rate)  # exact input stays exact for the dps routes
        super().__init__([mu], name or f"π({mu.name}, {float(rate):g})")
        self.mu, self.rate = mu, float(self._rate_exact)
        self._half_line = self._inputs[0].hull()[0] >= 0

    def _hull(self):
        a, b = self._inputs[0].hull()
        r = max(abs(a), abs(b)) * (1 + math.sqrt(self.rate)) ** 2
        return (-r if a < 0 else 0.0), (r if b > 0 else 0.0)

    def _start(self, z):
        return [z - self.rate * self._inputs[0].mean()]

    def _fixed(self, u, z, st):
        g, _ = self._ev(0, u[0], st)
        return [z - self.rate * u[0] * (u[0] * g - 1)]

    def _eqs(self, u, z, st, mp_dps=None):
        t = self.rate if mp_dps is None else to_mp(self._rate_exact)
        g, dg = self._ev(0, u[0], st, mp_dps)
        w = u[0]
        f, J = w * (1 - t) + t * w * w * g - z, (1 - t) + 2 * t * w * g + t * w * w * dg
        if self._half_line:
            # divided by z: for μ on [0, ∞) the terms are O(|z|) (ω ~ z at the atom or
            # hard edge at 0)
            return [f / z], [[J / z]]
        return [f], [[J]]

    def _res_scale(self, u, z):
        if self._half_line:
            return np.ones(np.shape(z))
        return super()._res_scale(u, z)

    def _ladder_floor(self, z):
        if not self._half_line:
            return super()._ladder_floor(z)
        # near 0 the natural scale is |z| itself (a hard edge or an atom at 0)
        az = np.abs(z)
        return _LADDER_FLOOR * np.where(az > 0, np.minimum(az, self._scale), self._scale)

    def _G_from_solution(self, u, z, st):
        return 1 / u[0]

    def _G_mp(self, u, z, dps):
        return 1 / u[0]

    def _fz(self, u, z, f):
        if self._half_line:  # f = f_raw/z, ∂f_raw/∂z = −1
            return [-1 / z - f[0] / z]
        return [-np.ones_like(z)]

    def _G_dG(self, u, du, z, st):
        return 1 / u[0], -du[0] / (u[0] * u[0])  # G = 1/ω

    def _atom_rule(self, dps):
        # π(μ, t) = lim ((1 − t/N) δ₀ + (t/N) μ)^{⊞N}: atom 1 − t(1 − μ({0})) at 0 if positive
        m0 = _mass_at_zero(self.mu.atoms(dps))
        t = self.rate if dps is None else to_mp(self._rate_exact)
        mass = 1 - t * (1 - m0)
        return [(0 * mass, mass)]

    def exact_moments(self, order):

        kappa = compound_free_poisson_cumulants(_moments_of(self.mu, order), self._rate_exact)
        return moments_from_free_cumulants(kappa)


class AdditivePower(SubordinationLaw):
    """μ^{⊞t}, t ≥ 1 (see :func:`freeattn.free_additive_power`)."""

    _n = 1

    parameters = (_MU, _POWER)

    def __init__(self, mu, t, name=None):
        _MU.validate(mu)
        self._t_exact = _POWER.exact(t)  # exact input stays exact for the dps routes
        super().__init__([mu], name or f"({mu.name})^⊞{float(t):g}")
        self.mu, self.t = mu, float(self._t_exact)

    def _hull(self):
        a, b = self._inputs[0].hull()
        m = self._inputs[0].mean()
        r = math.ceil(self.t) * max(abs(a - m), abs(b - m))
        return self.t * m - r, self.t * m + r

    def _start(self, z):
        return [z - (self.t - 1) * self._inputs[0].mean()]

    def _fixed(self, u, z, st):
        F, _ = _f_of(*self._ev(0, u[0], st))
        return [z + (self.t - 1) * (F - u[0])]

    def _eqs(self, u, z, st, mp_dps=None):
        t = self.t if mp_dps is None else to_mp(self._t_exact)
        F, dF = _f_of(*self._ev(0, u[0], st, mp_dps))
        return [t * u[0] - (t - 1) * F - z], [[t - (t - 1) * dF]]

    def _G_from_solution(self, u, z, st):
        return self._ev(0, u[0], st)[0]

    def _G_mp(self, u, z, dps):
        return self._inputs[0].value_mp(u[0], dps)[0]

    def _fz(self, u, z, f):
        return [-np.ones_like(z)]

    def _G_dG(self, u, du, z, st):
        return st[0][1], st[0][2] * du[0]  # G = G_μ(ω)

    def _atom_rule(self, dps):
        # Belinschi & Bercovici 2004: μ^{⊞t}({t a}) = max(0, t μ({a}) − (t − 1))
        t = self.t if dps is None else to_mp(self._t_exact)
        return [(t * a, t * m - (t - 1)) for a, m in self.mu.atoms(dps)]

    def exact_moments(self, order):

        t = self._t_exact
        return moments_from_free_cumulants(
            [t * k for k in free_cumulants_from_moments(_moments_of(self.mu, order))])


class MultiplicativePower(_MultiplicativeSubordination):
    """μ^{⊠t}, t ≥ 1, μ on [0, ∞) (see :func:`freeattn.free_multiplicative_power`)."""

    _n = 1
    _half_line = True

    parameters = (_MU, _POWER)

    def __init__(self, mu, t, name=None):
        _MU.validate(mu)
        self._t_exact = _POWER.exact(t)  # exact input stays exact for the dps routes
        super().__init__([mu], name or f"({mu.name})^⊠{float(t):g}")
        self.mu, self.t = mu, float(self._t_exact)

    def _hull(self):
        _, b = self._inputs[0].hull()
        return 0.0, max(b ** math.ceil(self.t), b ** math.floor(self.t))

    def _start(self, z):
        return [z / self._inputs[0].mean() ** (self.t - 1)]

    def _fixed(self, u, z, st):
        F, _ = _f_of(*self._ev(0, u[0], st))
        return [z * (u[0] - F) ** (1 - self.t)]

    def _eqs(self, u, z, st, mp_dps=None):
        t = self.t if mp_dps is None else to_mp(self._t_exact)
        F, dF = _f_of(*self._ev(0, u[0], st, mp_dps))
        w = u[0]
        q = w - F
        qp = q ** (t - 2) if mp_dps is None else mpmath.power(q, t - 2)
        return [w * q * qp / z - 1], [[(q * qp + (t - 1) * w * qp * (1 - dF)) / z]]

    def _atoms_exact(self, dps):
        # as for ⊠ (Belinschi 2003; Belinschi & Bercovici 2005): the atom at 0 is kept,
        # μ^{⊠t}({a^t}) = max(0, t μ({a}) − (t − 1)) for a > 0
        return sorted([(a, m) for a, m in self.mu.atoms(dps) if a == 0]
                      + SubordinationLaw._atoms_exact(self, dps))

    def _atom_rule(self, dps):
        # away from 0: μ^{⊠t}({a^t}) = max(0, t μ({a}) − (t − 1))
        t = self.t if dps is None else to_mp(self._t_exact)
        return [(a**t, t * m - (t - 1)) for a, m in self.mu.atoms(dps) if a != 0]

    def exact_moments(self, order):
        import sympy as sp

        s = s_transform_series(_moments_of(self.mu, order), order)
        t = self._t_exact
        # b = s^t by J. C. P. Miller's recursion: b_n = Σ_{k=1}^n ((t + 1)k − n) s_k b_{n−k}/(n s_0)
        b = [s[0] ** t]
        for n in range(1, len(s)):
            b.append(sp.expand(sum(((t + 1) * k - n) * s[k] * b[n - k] for k in range(1, n + 1))
                               / (n * s[0])))
        return moments_from_s_transform_series(b, order)
