"""Ridge coefficient error E_λ of a linear readout on frozen features (isotropic teacher)."""
from __future__ import annotations

import mpmath
import numpy as np

from .._context import workdps
from .._validation import ParameterError, dps_or_none, nonnegative, positive
from .dof import _map, check_lam, dof, dof_derivative
from .quadrature import expect
from .scalar import ScalarReadoutLaw, readout_law

__all__ = ["ridge_error"]


def ridge_error(law, lam, sigma2, gamma_o, dps=None, method="transform"):
    """Limiting mean squared coefficient error E_λ of ridge regression on F, eq. (5.1)/(5.2).

    Teacher ϑ ~ N(0, I/d_O), y = sqrt(n) F ϑ + ε, ε ~ N(0, σ² I_n); ϑ_* minimises
    ‖F v − y/sqrt(n)‖² + λ‖v‖²;  E_λ = lim E_{ϑ,ε}‖ϑ_* − ϑ‖².

    Parameters
    ----------
    law : Law or ScalarReadoutLaw
        The limiting eigenvalue law ν of F Fᵀ (mean one for the paper's normalisation
        F = MHA(X)/sqrt(m)); any law on [0, ∞).
    lam : float or array_like of float, any shape
        Ridge penalty λ > 0.
    sigma2 : float ≥ 0
        Noise variance σ².
    gamma_o : float > 0
        Feature-to-token ratio γ = p/n (γ_O = d_O/n for the MHA output).
    dps : int, optional
        None: float64; an integer: mpmath at that many digits.
    method : {'transform', 'quadrature'}
        'transform' (default): E = 1 − w/γ + (λ/γ − σ²) w′ with w, w′ from :func:`dof`,
        :func:`dof_derivative` (scalar equation or the law's G, G′).  'quadrature': the
        integral (5.1) against the law's density and atoms (float64 only; a check).

    Returns
    -------
    float or ndarray
        E_λ, same shape as ``lam``.

    Raises
    ------
    ParameterError
        For λ ≤ 0, σ² < 0, γ ≤ 0 or an unknown method.

    Notes
    -----
    Hayase & Karakida 2026, eqs. (5.1), (5.2), (C.28), (C.30):
    E_λ = 1 − 1/γ + ∫ (λ²/γ + σ² x)/(x + λ)² dν = 1 − w_ν(λ)/γ + (λ/γ − σ²) w′_ν(λ).

    Examples
    --------
    >>> from freeattn.readout import IndependentKV
    >>> nu = IndependentKV(beta=1.0, gamma_k=1.5, heads=96, gamma_v=1.5, gamma_o=1.5)
    >>> print(f"{ridge_error(nu, 1e-4, sigma2=0.1, gamma_o=1.5):.10f}")
    1.4407911850
    """
    law = readout_law(law)
    dps = dps_or_none(dps)
    check_lam(lam)
    sigma2 = nonnegative("sigma2", sigma2)
    gamma_o = positive("gamma_o", gamma_o)
    if method == "quadrature":
        if dps is not None or isinstance(law, ScalarReadoutLaw):
            raise ParameterError("method", "method='quadrature' needs a Law with a density "
                                 "and float64 (dps=None)")
        lam_arr = np.asarray(lam, dtype=float)
        flat = lam_arr.reshape(-1)

        def f(x):
            x = x[:, None]
            return (flat ** 2 / gamma_o + sigma2 * x) / (x + flat) ** 2

        out = (1 - 1 / gamma_o + expect(law, f)).reshape(lam_arr.shape)
        return out[()] if out.ndim == 0 else out
    if method != "transform":
        raise ParameterError("method", f"method must be 'transform' or 'quadrature', got "
                             f"{method!r}")
    if isinstance(law, ScalarReadoutLaw):
        def one(x):
            w = law.w(x, dps)
            dw = law.w_derivative(x, w=w, dps=dps)
            if dps is None:
                return 1 - w / gamma_o + (x / gamma_o - sigma2) * dw
            with workdps(dps):
                g = mpmath.mpf(gamma_o)
                e = 1 - w / g + (mpmath.mpf(x) / g - mpmath.mpf(sigma2)) * dw
            with mpmath.workdps(dps):
                return +e
        return _map(one, lam, dps)
    w = dof(law, lam, dps)
    dw = dof_derivative(law, lam, dps)
    if dps is None:
        lam_arr = np.asarray(lam, dtype=float)
        out = 1 - w / gamma_o + (lam_arr / gamma_o - sigma2) * dw
        return out[()] if np.ndim(out) == 0 else out
    with workdps(dps):
        g, s2 = mpmath.mpf(gamma_o), mpmath.mpf(sigma2)
        if np.ndim(lam) == 0:
            e = 1 - w / g + (mpmath.mpf(lam) / g - s2) * dw
            with mpmath.workdps(dps):
                return +e
        out = np.empty(np.shape(lam), dtype=object)
        for i, x in np.ndenumerate(np.asarray(lam, dtype=float)):
            out[i] = 1 - w[i] / g + (mpmath.mpf(x) / g - s2) * dw[i]
    return out
