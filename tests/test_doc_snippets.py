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
