"""The figures, checked on the matplotlib objects (issue 18, "Plots").

No bounded density is clipped (the y-limit is at least the largest value of every bounded
component, found here on an independent fine grid); a density that diverges at a hard edge is
cut with a note; atoms are stems up to their mass with a label; ``--exclude-top`` changes the
check histogram and its legend count; titles are mathtext (no raw braces); ``--mc none``
titles name no markers; titles, legends and panels lie inside the figure without overlaps.
"""
import numpy as np
import pytest
from click.testing import CliRunner

import freeattn
from freeattn import MarchenkoPastur, attention_law, mha_output_law
from freeattn.attention import MHAConfig
from freeattn.cli import main
from freeattn.plotting import check as mc_plot
from freeattn.plotting import figures
from freeattn.plotting.density import density_figure, diverges_at
from freeattn.plotting.figures import mc_title
from freeattn.plotting.setup import mathtext, pyplot

plt = pyplot()


def _fine_max(law, a, b, points=20001):
    """The density's maximum on [a, b] on a uniform grid (not the figure's graded one)."""
    x = np.linspace(a, b, points)[1:-1]
    return float(np.nanmax(np.asarray(law.pdf(x), dtype=float)))


def _ac_axes(fig):
    return [ax for ax in fig.axes if ax.get_lines()
            and any(line.get_label() == "density" for line in ax.get_lines())]


@pytest.mark.parametrize("law, old_top, peak", [
    (attention_law(1.0, 1.0, 2), 0.42, 0.7359),          # two heads: the axis stopped at 0.42
    (MHAConfig.preset("bert-base").law("mha"), 0.12, 2.0),  # bert-base: axis 0.12, peak ~2
], ids=["two-heads", "bert-base"])
def test_bounded_density_is_never_clipped(law, old_top, peak):
    fig = density_figure(law)
    (ax,) = _ac_axes(fig)
    (a, b), = [(float(u), float(v)) for u, v in law.support()]
    assert diverges_at(law, a, b) == (False, False)
    top = ax.get_ylim()[1]
    fine = _fine_max(law, a, b)
    assert fine > peak * 0.99 and fine > 1.5 * old_top
    assert top >= fine  # the whole bounded density is inside the view
    assert top <= 1.3 * fine  # and it is not lost in empty space
    assert not any("(cut)" in t.get_text() for t in ax.texts)
    plt.close(fig)


def test_divergent_hard_edge_is_cut_with_a_note():
    """MP with ratio 1: density ~ x^(-1/2) at 0, the one view that may be cut."""
    law = MarchenkoPastur(1.0)
    assert diverges_at(law, 0.0, 4.0) == (True, False)
    fig = density_figure(law)
    (ax,) = _ac_axes(fig)
    top = ax.get_ylim()[1]
    assert np.isfinite(top)
    assert top >= _fine_max(law, 0.08, 4.0)  # away from the divergent edge: not clipped
    assert [t.get_text() for t in ax.texts if "(cut)" in t.get_text()] == \
        ["density → ∞ at 0 (cut)"]
    plt.close(fig)


def test_atoms_are_drawn_at_their_mass_with_a_label():
    """γ_O = 1/2: an atom 1 − min{1, γ_V, γ_O} = 1/2 at 0 (Hayase & Karakida 2026, (C.15))."""
    law = mha_output_law(1.0, 2, 1.0, 1.0, 0.5)
    (p0, m0), = law.atoms()
    fig = density_figure(law)
    stems = [(ax, c) for ax in fig.axes for c in ax.collections if c.get_label() == "atoms"]
    assert len(stems) == 1
    ax, stem = stems[0]
    (seg,) = stem.get_segments()
    assert seg[0].tolist() == [p0, 0.0] and seg[1] == pytest.approx([p0, m0], abs=1e-12)
    assert ax.get_ylim()[1] > m0  # the stem ends below the top, at its mass
    assert [t.get_text() for t in ax.texts] == ["atom 0.5"]
    assert ax.texts[0].xy == pytest.approx((p0, m0))
    plt.close(fig)


def test_titles_are_mathtext_without_raw_braces():
    assert mathtext("ν_{∞,h} ⊠ MP_{1/γ_V}") == "ν$_{∞,h}$ ⊠ MP$_{1/γ_V}$"
    assert mathtext("w_{ν̄_{h₂}} and x^{2}") == "w$_{ν̄_{h₂}}$ and x$^{2}$"
    assert mathtext("plain ⊞_0.5 text") == "plain ⊞_0.5 text"
    assert mathtext("$a_{1}$") == "$a_{1}$"
    assert mathtext("error E_λ (d_K = d_V)", single=True) == "error E$_λ$ (d$_K$ = d$_V$)"
    assert mathtext("softmax_rel_w1, x_1", single=True) == "softmax_rel_w1, x$_1$"
    assert mathtext("MP_{1/γ_V}, d_K", single=True) == "MP$_{1/γ_V}$, d$_K$"
    assert mathtext("mha_output_law(gamma_k=1)") == "mha_output_law(gamma_k=1)"
    law = attention_law(1.0, 1.0, 2)
    fig = density_figure(law, label="ν_{∞,h} ⊠ MP_{1/γ_V}")
    fig.canvas.draw()  # mathtext parses (a bad span raises here)
    title = fig._suptitle.get_text()
    outside = "".join(title.split("$")[0::2])
    assert "{" not in outside and "}" not in outside and title.count("$") == 4
    plt.close(fig)


def test_reproduced_figure_labels_render_as_mathtext(tmp_path, monkeypatch):
    """fig2c's labels ("coefficient error E_λ", "d_K = d_V") reach the axes as mathtext."""
    from freeattn.plotting.figures import finish, new_axes

    fig, ax = new_axes()
    ax.plot([1, 2], [1, 2], label="x")
    seen = {}

    def keep(f, path, dpi):
        f.canvas.draw()
        seen["labels"] = (f.axes[0].get_xlabel(), f.axes[0].get_ylabel(),
                          f.axes[0].get_title())
        plt.close(f)
        return path

    monkeypatch.setattr(figures, "save", keep)
    finish(fig, ax, str(tmp_path / "f.png"), xlabel="heads h (d_K = d_V fixed)",
           ylabel="coefficient error E_λ", title=mc_title({"monte_carlo": None}))
    assert seen["labels"] == ("heads h (d$_K$ = d$_V$ fixed)", "coefficient error E$_λ$",
                              "lines: GE")


def test_mc_none_titles_name_no_markers():
    assert mc_title({"monte_carlo": None}) == "lines: GE"
    assert mc_title({}, "lines: GE (C.15); markers: softmax MHA") == "lines: GE (C.15)"
    assert mc_title({"monte_carlo": {"n": 256}}) == "lines: GE; markers: softmax MHA, n = 256"


def _boxes_disjoint(boxes):
    for i, u in enumerate(boxes):
        for w in boxes[i + 1:]:
            if u.overlaps(w):
                return False
    return True


@pytest.mark.parametrize("law", [
    mha_output_law(1.0, 2, 1.0, 1.0, 0.5),  # two panels: atom and continuous part
    freeattn.free_additive_convolution(MarchenkoPastur(0.5), MarchenkoPastur(0.25)),  # a ⊞ law
], ids=["atom+ac", "boxplus"])
@pytest.mark.parametrize("size", [None, (4.5, 2.4)], ids=["default", "notebook"])
def test_titles_legends_and_panels_lie_inside_the_figure(law, size):
    fig = density_figure(law)
    if size is not None:  # the notebook view shrinks the figure, then lays it out again
        fig.set_size_inches(*size)
        fig.tight_layout()
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    frame = fig.bbox
    texts = [fig._suptitle] + [ax.title for ax in fig.axes]
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    assert legends
    for artist in texts + legends:
        box = artist.get_window_extent(r)
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1, artist
        assert frame.y0 <= box.y0 and box.y1 <= frame.y1, artist
    for leg in legends:
        inner = leg.axes.bbox
        box = leg.get_window_extent(r)
        assert inner.x0 <= box.x0 and box.x1 <= inner.x1 and inner.y0 <= box.y0 <= inner.y1
    assert _boxes_disjoint([ax.get_tightbbox(r) for ax in fig.axes])  # no colliding ticks
    assert _boxes_disjoint([t.get_window_extent(r) for t in texts])
    plt.close(fig)


def _draws(seed=0, n=200, draws=2):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(draws):
        x = rng.uniform(0.5, 6.0, n)
        x[:3] = [40.0, 50.0, 60.0]  # three outliers
        out.append(x)
    return out


def test_exclude_top_changes_the_histogram_and_its_count():
    law = attention_law(1.0, 1.0, 1)
    soft, gauss = _draws(0), _draws(1)
    figs = {k: mc_plot.plot_check(law, soft, gauss, None, exclude_top=k) for k in (0, 3)}
    labels = {k: [t.get_text() for t in f.axes[0].get_legend().get_texts()]
              for k, f in figs.items()}
    assert "softmax (400 eigenvalues)" in labels[0]
    assert "softmax (394 eigenvalues)" in labels[3] and "Gaussian (394 eigenvalues)" in labels[3]
    edges = {k: f.axes[0].patches[0].get_data().edges for k, f in figs.items()}
    assert edges[0][-1] > 60 and edges[3][-1] < 10  # the outliers set the range no longer
    for f in figs.values():
        plt.close(f)


def test_cli_check_exclude_top_reaches_the_plot(tmp_path, monkeypatch):
    seen = {}

    def capture(fig, path, dpi):
        seen[path] = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        plt.close(fig)
        return path

    monkeypatch.setattr(mc_plot, "save", capture)
    for k in (0, 3):
        path = str(tmp_path / f"c{k}.png")
        res = CliRunner().invoke(main, ["check", "attention", "--beta", "1", "--gamma-k", "1",
                                        "--n", "60", "--draws", "2", "--workers", "1",
                                        "--exclude-top", str(k), "--plot", path])
        assert res.exit_code in (0, 1), res.output
        assert path in seen
    counts = {k: [t for t in seen[str(tmp_path / f"c{k}.png")] if t.startswith("softmax")]
              for k in (0, 3)}
    assert counts == {0: ["softmax (120 eigenvalues)"], 3: ["softmax (114 eigenvalues)"]}


def test_check_plot_atoms_at_their_mass_and_bounded_peak_inside():
    law = mha_output_law(1.0, 2, 1.0, 1.0, 0.5)
    (p0, m0), = law.atoms()
    rng = np.random.default_rng(0)
    soft = [np.concatenate([np.zeros(50), rng.uniform(0.1, 9.0, 50)])]
    fig = mc_plot.plot_check(law, soft, soft, None)
    ax = fig.axes[0]
    (stem,) = [c for c in ax.collections if c.get_label() == "atoms of the law"]
    (seg,) = stem.get_segments()
    assert seg[1] == pytest.approx([p0, m0], abs=1e-12)
    assert [t.get_text() for t in ax.texts] == ["atom 0.5"]
    (a, b), = [(float(u), float(v)) for u, v in law.support()]
    assert ax.get_ylim()[1] >= max(m0, _fine_max(law, a, b))
    plt.close(fig)


def _raw_scripts(texts):
    """Texts with a ``_`` or ``^`` outside their $…$ spans (shown raw, not as sub/superscript)."""
    return [t for t in texts if any(c in part for part in t.split("$")[0::2] for c in "_^")]


def _figure_texts(monkeypatch, modules):
    """Every visible text of the figures ``plot`` writes, the figures drawn (mathtext parsed)."""
    from matplotlib.text import Text

    seen = {}

    def keep(fig, path, dpi):
        fig.canvas.draw()
        seen[path] = [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text()]
        plt.close(fig)
        return path

    monkeypatch.setattr(figures, "save", keep)
    for mod in modules:
        monkeypatch.setattr(mod, "save", keep, raising=False)
    return seen


def test_reproduced_figures_show_no_raw_sub_or_superscripts(monkeypatch):
    """Legends and labels of every reproduced figure are mathtext: fig2d's legend said
    "β_c = 0.559", fig3a's "h_KV", fig2b's axes "d_K", "γ_O", figD1's titles "A^perp"."""
    import importlib

    sizes = {"fig2a": dict(mc="none", points=8), "fig2c": dict(mc="none", points=9),
             "fig2d": dict(mc="none", points=15), "fig3a": dict(mc="none", points=5),
             "fig3b": dict(mc="none", points=9), "fig2b": dict(points_h=5, points_g=5,
                                                                 path_points=9)}
    mods = {name: importlib.import_module(f"freeattn.reproduce.{name}") for name in sizes}
    seen = _figure_texts(monkeypatch, mods.values())
    for name, mod in mods.items():
        mod.plot(mod.compute(**sizes[name]), name)
    assert "β$_c$ = 0.559" in seen["fig2d"]
    assert {name: _raw_scripts(texts) for name, texts in seen.items()} == \
        {name: [] for name in sizes}


def test_figD1_titles_and_legends_are_mathtext(monkeypatch):
    """figD1 from a small synthetic result (its compute takes minutes): panel titles and the
    legend names (d_O) render as mathtext."""
    from freeattn.reproduce import figD1

    seen = _figure_texts(monkeypatch, [figD1])
    cond = {"hist": {"heights": [0.5, 0.5], "edges": [0.0, 1.0, 2.0]},
            "curve": {"x": [0.0, 1.0, 2.0], "pdf": [0.4, 0.5, None]}}
    res = {"conditions": {name: cond for names in figD1.PANELS.values() for name in names}}
    figD1.plot(res, "d1")
    texts = seen["d1"]
    assert "(a) attention √(n/h) A$^{⊥}$" in texts and "mha d$_O$=4096" in texts
    assert _raw_scripts(texts) == []
