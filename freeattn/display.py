"""Notebook display of laws and symbolic results (HTML table with an inline density plot;
LaTeX).  The rich formatters are registered with IPython's display formatter by this module
itself (:func:`register_formatters`, run by ``import freeattn`` when an IPython shell is
running, or ``%load_ext freeattn.display``): the law classes do not import it, and their own
``_repr_html_`` / ``_repr_latex_`` are the plain fallbacks.

* :func:`law_html` — name, parameters, support, atoms, first moments and the density as a
  small inline SVG (one panel per support interval, see :func:`freeattn.plotting.density.density_figure`);
* :func:`law_latex` — the law's algebraic equation P(G, z) = 0 (parameters in the papers'
  names and their values), or its first moments for a law without one;
* :func:`latex_view` — wrap any sympy result (or list/dict of them) so that Jupyter renders
  it as LaTeX.
"""
from __future__ import annotations

import html
import io
import sys

import sympy as sp

from .laws.base import Law
from .plotting.density import density_figure
from .plotting.setup import pyplot


__all__ = ["law_html", "law_latex", "latex_view", "LatexView", "law_view", "LawView",
           "FORMATTERS", "register_formatters", "load_ipython_extension", "number_text",
           "number_latex"]


def _num(v, digits=6):
    return f"{float(v):.{digits}g}"


def _float_form(v):
    """The shortest decimal of ``v`` when ``v`` is a non-integer rational that is exactly a
    float64 (a float input's binary value, e.g. 3602879701896397/36028797018963968 for 0.1)
    and that decimal is shorter than p/q; else None.  The decimal is the same number:
    ``float(text)`` gives that binary value back, so nothing is lost."""
    if not (isinstance(v, sp.Rational) and not v.is_Integer):
        return None
    f = float(v)
    text = repr(f)
    return text if sp.Rational(f) == v and len(text) < len(str(v)) else None


def number_text(v):
    """A sympy number as text: ``1/10`` for an exact input, ``0.1`` for a float's binary
    value (see :func:`_float_form`), ``-1 + E`` for a symbolic constant (``sympy.sstr``).

    Examples
    --------
    >>> import sympy as sp
    >>> number_text(sp.Rational(1, 10)), number_text(sp.Rational(0.1)), number_text(sp.E - 1)
    ('1/10', '0.1', '-1 + E')
    """
    return _float_form(v) or sp.sstr(v)


def number_latex(v):
    """LaTeX of a sympy number, with the rule of :func:`number_text`."""
    return _float_form(v) or sp.latex(v)


def _params(law):
    params = getattr(law, "params", None)
    if params:
        return ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}"
                         for k, v in params.items())
    if hasattr(law, "symbolic_polynomial"):
        from .symbolic import equation_parameters  # not loaded by `import freeattn` (law_latex)

        return ", ".join(f"{k} = {number_text(v)}" for k, v in equation_parameters(law).items())
    return "—"


def _svg(law, points):
    fig = density_figure(law, points=points, figsize=None)
    w, h = fig.get_size_inches()
    fig.set_size_inches(min(w, 7.0) * 0.75, h * 0.7)
    import matplotlib  # optional heavy dependency: loaded only when a figure is drawn

    buf = io.StringIO()
    fig.tight_layout()
    with matplotlib.rc_context({"svg.hashsalt": "freeattn", "svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})  # same law, same SVG
    pyplot().close(fig)
    svg = buf.getvalue()
    return svg[svg.find("<svg"):]  # drop the XML prolog: the SVG is inlined in HTML


def law_html(law, moments=3, plot=True, points=160):
    """HTML summary of a law for notebooks (``Law._repr_html_``).

    Parameters
    ----------
    law : Law
    moments : int, default 3
        Number of moments listed (float64).
    plot : bool, default True
        Include the density as an inline SVG, one panel per support interval.
    points : int, default 160
        Grid points per interval of the plot.

    Returns
    -------
    str
        An HTML ``<div>`` with a table (name, parameters, support, atoms, moments) and the plot.

    Examples
    --------
    >>> from freeattn import MarchenkoPastur
    >>> s = law_html(MarchenkoPastur(0.5), plot=False)
    >>> "support" in s and "0.0857864" in s
    True
    """
    support = law.support()
    atoms = law.atoms()
    rows = [
        ("law", html.escape(law.name)),
        ("parameters", html.escape(_params(law))),
        ("support", ", ".join(f"[{_num(a)}, {_num(b)}]" for a, b in support) or "—"),
        ("atoms", ", ".join(f"{_num(m)} at {_num(a)}" for a, m in atoms) or "none"),
    ]
    for k in range(1, moments + 1):
        rows.append((f"m<sub>{k}</sub>", _num(law.moment(k), 10)))
    table = "".join(f"<tr><th style='text-align:left'>{k}</th><td style='text-align:left'>{v}</td></tr>"
                    for k, v in rows)
    out = f"<div class='freeattn-law'><table>{table}</table>"
    if plot:
        out += f"<div>{_svg(law, points)}</div>"
    return out + "</div>"


def law_latex(law):
    r"""LaTeX of a law for notebooks (``Law._repr_latex_``): its algebraic equation
    P(G, z) = 0 with the parameters in the papers' names, then their values.

    Returns
    -------
    str
        Math-mode LaTeX delimited by ``$$``.

    Examples
    --------
    >>> from freeattn import MarchenkoPastur
    >>> print(law_latex(MarchenkoPastur(0.5)))
    $$G^{2} y z - G y - G z + G + 1 = 0,\quad y = \frac{1}{2}$$
    """
    if hasattr(law, "symbolic_polynomial"):
        # freeattn.symbolic stays unloaded by `import freeattn` (which imports this module;
        # tests/symbolic/test_symbolic_api.py): loaded when a law's LaTeX is first asked for
        from .symbolic import algebraic_equation, equation_parameters

        P = algebraic_equation(law, symbolic=True)
        vals = equation_parameters(law)
        body = sp.latex(P) + " = 0"
        if vals:
            body += r",\quad " + r",\ ".join(f"{sp.latex(k)} = {number_latex(v)}"
                                             for k, v in vals.items())
        return f"$${body}$$"
    ms = ", ".join(f"m_{k} = {float(law.moment(k)):.6g}" for k in (1, 2))
    return f"$$\\text{{{law.name}}}:\\ {ms}$$"


class LatexView:
    """A sympy result (or list/dict of them) that Jupyter renders as LaTeX."""

    def __init__(self, obj, equation=False):
        self.obj = obj
        self.equation = equation

    def _repr_latex_(self):
        from .symbolic import latex  # not loaded by `import freeattn` (see law_latex)

        return f"$${latex(self.obj, equation=self.equation)}$$"

    def __repr__(self):
        return repr(self.obj)


def latex_view(obj, equation=False):
    r"""Wrap ``obj`` (sympy expression, list or dict of them) for LaTeX display in notebooks.

    Examples
    --------
    >>> from freeattn.symbolic import symbols as S
    >>> latex_view([S.theta_1, S.gamma_K])._repr_latex_()
    '$$\\theta_{1},\\quad \\gamma_{K}$$'
    """
    return LatexView(obj, equation)


class LawView:
    """A law shown in notebooks by :func:`law_html` (``_repr_html_``) and :func:`law_latex`
    (``_repr_latex_``); what ``Law._repr_html_`` gives once the law class delegates here."""

    def __init__(self, law, **html_options):
        self.law = law
        self.html_options = html_options

    def _repr_html_(self):
        return law_html(self.law, **self.html_options)

    def _repr_latex_(self):
        return law_latex(self.law)

    def __repr__(self):
        return repr(self.law)


def law_view(law, **html_options):
    """Wrap a law for rich notebook display (HTML table + density plot; LaTeX equation)."""
    return LawView(law, **html_options)


#: MIME type -> formatter of a :class:`~freeattn.laws.Law`, as registered with IPython
FORMATTERS = {"text/html": law_html, "text/latex": law_latex}


def register_formatters(display_formatter=None):
    """Register :data:`FORMATTERS` for every :class:`~freeattn.laws.Law` with an IPython
    ``DisplayFormatter`` (``for_type``), so that a law shows as a table with its density plot.

    Parameters
    ----------
    display_formatter : IPython.core.formatters.DisplayFormatter, optional
        Default: the running shell's (``get_ipython().display_formatter``), when IPython is
        already imported and a shell runs; IPython itself is never imported here.

    Returns
    -------
    bool
        Whether the formatters were registered.
    """
    if display_formatter is None:
        ipython = sys.modules.get("IPython")
        shell = ipython.get_ipython() if ipython is not None else None
        if shell is None:
            return False
        display_formatter = shell.display_formatter
    for mime, function in FORMATTERS.items():
        display_formatter.formatters[mime].for_type(Law, function)
    return True


def load_ipython_extension(ipython):
    """``%load_ext freeattn.display``: register the law formatters with this shell."""
    register_formatters(ipython.display_formatter)
