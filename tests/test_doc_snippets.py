"""Every ```python block of docs/*.md runs as written (blocks of one page share a namespace,
in order), e.g. docs/laws-attention.md used freeattn.montecarlo.check without importing it."""
import pathlib
import re

import pytest

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs"
#: pages whose blocks take > 5 s (Monte Carlo draws, an empirical-law convolution)
SLOW = {"howto-check.md", "howto-convolve.md", "howto-derivation.md"}
PAGES = sorted(p.name for p in DOCS.glob("*.md")
               if re.search(r"```python\n", p.read_text(encoding="utf-8")))


def _run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a snippet that writes a file writes it here
    text = (DOCS / page).read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks
    ns = {"__name__": "__main__"}
    for block in blocks:
        exec(compile(block, str(DOCS / page), "exec"), ns)  # noqa: S102


def test_pages_found():
    assert "laws-attention.md" in PAGES and len(PAGES) >= 5


@pytest.mark.parametrize("page", [p for p in PAGES if p not in SLOW])
def test_doc_snippets_run(page, tmp_path, monkeypatch):
    _run(page, tmp_path, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if p in SLOW])
def test_doc_snippets_run_slow(page, tmp_path, monkeypatch):
    _run(page, tmp_path, monkeypatch)


README = DOCS.parent / "README.md"
MAKEFILE = DOCS.parent / "Makefile"


def test_readme_python_block_runs_and_shows_its_results():
    """README's "Use" block runs as written; its commented results hold."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) == 1
    ns = {"__name__": "__main__"}
    exec(compile(blocks[0], str(README), "exec"), ns)  # noqa: S102
    from freeattn import MarchenkoPastur, free_multiplicative_convolution
    import mpmath
    # the README's claims: the MP(1) ⊠ MP(1) moments (Fuss–Catalan numbers) and the edge
    assert free_multiplicative_convolution(MarchenkoPastur(1), MarchenkoPastur(1)
                                           ).exact_moments(5) == [1, 3, 12, 55, 273]
    edge = ns["law"].support(dps=30)[-1][1]
    assert mpmath.nstr(edge, 30) == "9.00954255037531161479809977278"


def test_make_demo_prints_what_the_readme_says(tmp_path, monkeypatch):
    """The README's `make demo` transcript is the output of the Makefile's demo recipe."""
    import shlex

    from click.testing import CliRunner

    from freeattn.cli import main
    recipe = MAKEFILE.read_text(encoding="utf-8").split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    command = recipe.replace("\\\n", " ").splitlines()[-1].strip()
    args = shlex.split(command)
    assert args[0].endswith("freeattn")
    text = README.read_text(encoding="utf-8").split("`make demo` prints", 1)[1]
    shown = text.split("```\n", 2)[1].strip()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "demo").mkdir()
    res = CliRunner().invoke(main, args[1:])
    assert res.exit_code == 0, res.output
    assert res.output.strip() == shown
    rows = (tmp_path / "demo" / "attention_density.csv").read_text().splitlines()
    assert rows[0] == "x,pdf,atom_mass" and len(rows) == 1 + 400  # as the README says
