"""LaTeX output of symbolic results (sympy's printer, papers' symbol names)."""
from __future__ import annotations

import sympy as sp

from .._validation import ParameterTypeError

__all__ = ["latex"]


def latex(expr, equation=False):
    r"""LaTeX source of a sympy result.

    Parameters
    ----------
    expr : sympy expression, or a list/tuple of them
        E.g. the output of :func:`algebraic_equation`, :func:`moments` or :func:`edge_series`.
    equation : bool, default False
        Append ``= 0`` (for a polynomial P(G, z)).

    Returns
    -------
    str
        LaTeX source (no surrounding ``$``); a list gives a comma-separated list.

    Examples
    --------
    >>> from freeattn.symbolic import symbols as S
    >>> latex(S.theta_1**2 / S.h + S.theta_2**2 / S.gamma_K)
    '\\frac{\\theta_{1}^{2}}{h} + \\frac{\\theta_{2}^{2}}{\\gamma_{K}}'
    """
    if isinstance(expr, (str, bytes)) or hasattr(expr, "cauchy_transform"):
        what = "a string" if isinstance(expr, (str, bytes)) else f"a law ({type(expr).__name__})"
        raise ParameterTypeError("expr", f"expr must be a sympy result (an expression, or a "
                                         f"list/dict of them), got {what}; for a law's equation "
                                         "use latex(algebraic_equation(law), equation=True)")
    if isinstance(expr, (list, tuple)):
        return ",\\quad ".join(latex(e, equation) for e in expr)
    if isinstance(expr, dict):
        return ",\\quad ".join(f"\\text{{{k}}}: {latex(v, equation)}" for k, v in expr.items())
    out = sp.latex(expr)
    return out + " = 0" if equation else out
