"""Parameter symbols named as in the papers (stable: the same objects on every call).

Hayase & Karakida 2026 (arXiv 2610.10033), §2–3 and Appendix C; Hayase, Collins & Karakida
(AISTATS 2026).  All are positive real sympy symbols; their LaTeX names are β, γ_{K}, θ_{1}, ….
"""
from __future__ import annotations

import sympy as sp

__all__ = ["beta", "gamma_K", "gamma_V", "gamma_O", "h", "h_KV", "theta_1", "theta_2", "c_beta",
           "lam", "PAPER_SYMBOLS"]

beta = sp.Symbol("beta", positive=True)
gamma_K = sp.Symbol("gamma_K", positive=True)
gamma_V = sp.Symbol("gamma_V", positive=True)
gamma_O = sp.Symbol("gamma_O", positive=True)
h = sp.Symbol("h", positive=True, integer=True)
h_KV = sp.Symbol("h_KV", positive=True, integer=True)
theta_1 = sp.Symbol("theta_1", positive=True)
theta_2 = sp.Symbol("theta_2", positive=True)
c_beta = sp.Symbol("c_beta", positive=True)
lam = sp.Symbol("lambda", positive=True)

#: name → symbol, for users who want to build expressions in the papers' notation
PAPER_SYMBOLS = {s.name: s for s in (beta, gamma_K, gamma_V, gamma_O, h, h_KV, theta_1, theta_2,
                                     c_beta, lam)}
