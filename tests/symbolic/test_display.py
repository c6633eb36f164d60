"""freeattn.display (notebook HTML/LaTeX) and the density figure showing every component."""
import doctest

import sympy as sp

import freeattn.display as display
from freeattn import MarchenkoPastur, attention_law
from freeattn.plotting.density import density_figure


def test_html_table_and_inline_svg():
    law = attention_law(1.0, 0.1, 1)
    s = display.law_html(law)
    for word in ("attention_law", "gamma_k = 0.1", "support", "[4.55074, 23.3542]", "m<sub>3</sub>",
                 "<svg"):
        assert word in s, word
    assert "<?xml" not in s
    assert display.law_view(law)._repr_html_().startswith("<div")


def test_latex_of_a_law_and_of_results():
    tex = display.law_latex(attention_law(1.0, 1.0, 2))
    assert tex.startswith("$$") and "\\theta_{1}" in tex and "h = 2" in tex and "= 0" in tex
    v = display.latex_view({"a": sp.Symbol("theta_1")})
    assert v._repr_latex_() == "$$\\text{a}: \\theta_{1}$$"


def test_two_interval_law_gets_one_panel_per_component():
    law = attention_law(1.0, 0.1, 1)
    fig = density_figure(law, points=60)
    axes = fig.get_axes()
    assert len(axes) == 2
    (a0, b0), (a1, b1) = law.support()
    # each panel spans its own interval, and its title carries the interval's mass
    assert axes[0].get_xlim()[1] < a1 and axes[1].get_xlim()[0] > b0
    masses = [float(ax.get_title().split("mass")[1]) for ax in axes]
    assert abs(masses[0] - 0.9) < 1e-3 and abs(sum(masses) - 1) < 1e-3
    # the curve of the small-mass interval is not flattened: its own y-scale
    assert axes[1].get_ylim()[1] < 0.1 * axes[0].get_ylim()[1]


def test_atom_drawn_as_a_stem():
    fig = density_figure(MarchenkoPastur(2.0), points=40)  # atom 1/2 at 0 outside the support
    titles = [ax.get_title() for ax in fig.get_axes()]
    assert any("1 atom at 0" in t and "mass 0.5" in t for t in titles)


def test_docstring_examples():
    res = doctest.testmod(display, optionflags=doctest.ELLIPSIS)
    assert res.attempted > 0 and res.failed == 0


def test_many_atoms_share_one_panel():
    import numpy as np

    from freeattn import Discrete

    law = Discrete(np.arange(40.0), None)
    fig = density_figure(law, points=20)
    assert len(fig.get_axes()) == 1 and "40 atoms" in fig.get_axes()[0].get_title()


def test_display_registers_its_formatters_with_ipython():
    """The law classes never import freeattn.display; display registers law_html/law_latex
    for every Law with IPython's DisplayFormatter itself (issue 16)."""
    import pytest

    formatters = pytest.importorskip("IPython.core.formatters")
    fmt = formatters.DisplayFormatter()
    law = MarchenkoPastur(0.5)
    before, _ = fmt.format(law)
    assert "<svg" not in before.get("text/html", "")  # the plain fallback table
    assert display.register_formatters(fmt) is True
    data, _ = fmt.format(law)
    assert "<svg" in data["text/html"] and data["text/html"] == display.law_html(law)
    assert data["text/latex"] == display.law_latex(law)


def test_import_freeattn_without_a_shell_registers_nothing():
    import subprocess
    import sys

    code = ("import sys, freeattn; from freeattn import display; "
            "print(display.register_formatters(), 'IPython' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
