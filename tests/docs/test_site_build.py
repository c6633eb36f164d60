"""The documentation site builds with warnings as errors and is complete and self-contained.

The build is ``make docs``' command (``mkdocs build --strict``) into a temporary folder; the
notebook docs/example.ipynb is executed by it.  The checks read the built HTML.
"""
from __future__ import annotations

import html
import importlib.util
import pathlib
import re
import urllib.parse

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

DOCS = ROOT / "docs"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"_docs_{name}", DOCS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _pages(site):
    return sorted(site.rglob("*.html"))


def test_strict_build_has_no_warning_and_runs_the_notebook(built_site):
    _, out = built_site
    # mkdocs' own warnings (the notebook kernel's stderr may say "[IPKernelApp] WARNING")
    assert not re.search(r"^WARNING\s+-", out, re.M), out
    assert "Converting notebook (execute=True)" in out and "example.ipynb" in out, out


def test_every_source_page_is_built(built_site):
    site, _ = built_site
    sources = [p for p in DOCS.rglob("*") if p.suffix in (".md", ".ipynb")
               and "assets" not in p.parts]
    assert len(sources) >= 20
    for src in sources:
        rel = src.relative_to(DOCS).with_suffix("")
        target = site / ("" if rel.name == "index" else rel) / "index.html"
        if rel.name == "index":
            target = site / rel.parent / "index.html"
        assert target.is_file(), f"{src.relative_to(ROOT)} was not built ({target})"


def test_every_public_name_has_an_api_entry(built_site):
    site, _ = built_site
    hooks = _load("hooks")
    rows = hooks.public_names()
    assert len(rows) > 100
    pages = {}
    for ns, name, _ in rows:
        if ns not in pages:
            pages[ns] = (site / "api" / ns / "index.html").read_text(encoding="utf-8")
        assert f'id="freeattn.{ns}.{name}"' in pages[ns], f"freeattn.{ns}.{name} is not documented"
    overview = (site / "api" / "index.html").read_text(encoding="utf-8")
    assert 'href="attention/#freeattn.attention.attention_law"' in overview
    # a function that shares its name with its module is documented as the function
    readout = pages["readout"]
    assert re.search(r'id="freeattn\.readout\.dof".{0,2000}?doc-symbol-function', readout, re.S)


def test_attention_law_docstring_sections_are_rendered(built_site):
    site, _ = built_site
    page = (site / "api" / "attention" / "index.html").read_text(encoding="utf-8")
    start = page.index('id="freeattn.attention.attention_law"')
    entry = page[start:start + 40_000]
    for section in ("Parameters", "Returns", "Raises"):
        assert section in entry, f"attention_law's {section} section is missing"
    assert "gamma_k" in entry and "(C.8)" in entry and "Examples" in entry


_EXTERNAL = re.compile(r"""<(script|link|img|iframe|source)\b[^>]*\b(src|href)=["'](https?:)?//""",
                       re.I)


def test_no_resource_from_another_site(built_site):
    """The site renders offline: no script, stylesheet, font or image from a CDN."""
    site, _ = built_site
    for page in _pages(site):
        text = page.read_text(encoding="utf-8")
        m = _EXTERNAL.search(text)
        assert m is None, f"{page.relative_to(site)} loads {text[m.start():m.start() + 160]}"
    for css in site.rglob("*.css"):
        assert not re.search(r"@import\s+url\(\s*['\"]?https?:", css.read_text(encoding="utf-8"))
    assert (site / "assets" / "katex" / "katex.min.js").is_file()
    fonts = list((site / "assets" / "katex" / "fonts").glob("*.woff2"))
    assert len(fonts) >= 15
    css = (site / "assets" / "katex" / "katex.min.css").read_text(encoding="utf-8")
    for font in set(re.findall(r"url\((fonts/[^)]+\.woff2)\)", css)):
        assert (site / "assets" / "katex" / font).is_file(), font


def _ids(path, cache={}):
    if path not in cache:
        text = path.read_text(encoding="utf-8")
        cache[path] = set(re.findall(r'\bid="([^"]+)"', text)) | set(
            re.findall(r'\bname="([^"]+)"', text))
    return cache[path]


def test_internal_links_resolve(built_site):
    """Every relative href/src of every page points at a file of the site, and every
    #fragment at an element id of its target page."""
    site, _ = built_site
    bad = []
    for page in _pages(site):
        text = page.read_text(encoding="utf-8")
        for attr, url in re.findall(r'\b(href|src)="([^"]*)"', text):
            url = html.unescape(url)
            parts = urllib.parse.urlsplit(url)
            if parts.scheme or parts.netloc or url.startswith(("mailto:", "javascript:", "data:")):
                continue
            if not parts.path and not parts.fragment:
                continue
            path = urllib.parse.unquote(parts.path)
            if not path:
                target = page
            elif path.startswith("/"):  # 404.html links from the site's root
                target = site / path.lstrip("/")
            else:
                target = (page.parent / path).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                bad.append(f"{page.relative_to(site)}: {url}")
                continue
            if parts.fragment and target.suffix == ".html" and \
                    urllib.parse.unquote(parts.fragment) not in _ids(target):
                bad.append(f"{page.relative_to(site)}: {url} (no such anchor)")
    assert not bad, "\n".join(bad[:40])


def test_theory_page_has_display_math(built_site):
    site, _ = built_site
    page = (site / "theory" / "index.html").read_text(encoding="utf-8")
    assert page.count('<div class="arithmatex">') >= 10
    assert r"\rho_{\gamma_K} \boxtimes \mathrm{MP}_{1/h}" in html.unescape(page)


def test_gallery_covers_every_reproduced_figure():
    """docs/gallery.md has an entry, with its command and its images, for every
    ``freeattn reproduce`` subcommand and every law plot; the images are committed."""
    gallery = _load("make_gallery")
    page = (DOCS / "gallery.md").read_text(encoding="utf-8")
    keys = {key for key, *_ in gallery.ENTRIES}
    for cmd in gallery.reproduce_commands():
        assert cmd in keys, f"freeattn reproduce {cmd} has no gallery entry"
    available = set(gallery.reproduce_commands())
    for key, section, _, command, images, _ in gallery.ENTRIES:
        if section == "mha" and key not in available:
            continue
        assert f"$ {command}" in page, f"gallery.md lacks `{command}`: run make gallery"
        for img in images:
            assert (DOCS / img).is_file(), img
            assert f"]({img})" in page, img
    assert "bert-base" in page and "| yes |" in page   # the Table D.2 rows, computed
    law_plots = _load("make_law_plots")
    for fname, *_ in law_plots.FIGURES:
        assert f"](img/{fname})" in page, fname


def test_performance_page_includes_every_benchmark_of_make_bench(built_site):
    site, _ = built_site
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    bench = re.search(r"^bench:.*?(?=^\S)", make, re.S | re.M).group(0)
    scripts = re.findall(r"docs/record_bench\.py (benchmarks/\S+\.py)", bench)
    assert len(scripts) >= 5
    page = (DOCS / "performance.md").read_text(encoding="utf-8")
    built = html.unescape((site / "performance" / "index.html").read_text(encoding="utf-8"))
    for script in scripts:
        name = pathlib.Path(script).stem
        record = DOCS / "bench" / f"{name}.txt"
        assert record.is_file(), f"{record} missing: run make bench"
        assert f'--8<-- "bench/{name}.txt"' in page
        first = record.read_text(encoding="utf-8").splitlines()[0]
        assert first == f"$ python {script}" and first in built


def test_a_page_outside_the_nav_does_not_fail_the_strict_build():
    """Engineers add pages (docs/laws-residual.md, docs/howto-sweep.md, ...) before the lead
    lists them in the nav: mkdocs reports such a page at INFO level, which --strict accepts."""
    import logging

    from mkdocs.config import load_config

    cfg = load_config(str(ROOT / "mkdocs.yml"))
    assert cfg.validation.nav.omitted_files == logging.INFO
    assert cfg.validation.nav.not_found == logging.WARNING      # a nav entry without a page fails
    assert cfg.validation.links.not_found == logging.WARNING    # a broken link fails
    listed = set()

    def walk(items):
        for item in items:
            for value in (item.values() if isinstance(item, dict) else [item]):
                if isinstance(value, list):
                    walk(value)
                else:
                    listed.add(value)

    walk(cfg.nav)
    for page in listed:
        assert (DOCS / page).is_file(), f"the nav lists {page}, which does not exist"
