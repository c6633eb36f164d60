"""mkdocs hooks of the freeattn site (mkdocs.yml: ``hooks: [docs/hooks.py]``).

1. ``api/index.md``: the marker ``<!-- public-names -->`` becomes a table of every name in
   ``freeattn.__all__`` and in the ``__all__`` of each documented namespace, each linked to
   the page that documents it (so the overview follows the package, never a hand-kept list).
2. The notebook page: nbconvert's template loads MathJax from a CDN; the site renders the
   notebook's math with its own KaTeX (docs/assets/katex), so those script tags are removed.
"""
from __future__ import annotations

import importlib
import re

#: namespaces with an API page api/<name>.md, in the order of the navigation
NAMESPACES = ("laws", "attention", "convolution", "transforms", "readout", "symbolic",
              "montecarlo", "sweeps")

_MATHJAX = re.compile(
    r"<script[^>]*src=\"[^\"]*mathjax[^\"]*\"[^>]*>\s*</script>"
    r"|<script type=\"text/x-mathjax-config\">.*?</script>"
    r"|<!-- (?:Load mathjax|MathJax configuration|End of mathjax configuration) -->",
    flags=re.S | re.I)


def _summary(obj) -> str:
    doc = getattr(obj, "__doc__", None) or ""
    if not callable(obj) and not isinstance(obj, type):
        return "constant"  # a tuple, dict or number carries its type's docstring: say nothing
    first = doc.strip().split("\n\n")[0].replace("\n", " ").strip()
    return first.replace("|", "\\|")


def public_names():
    """``[(namespace, name, object)]`` for every public name of the documented namespaces;
    a name of ``freeattn`` itself is listed under the first namespace that exports it."""
    rows = []
    seen = set()
    for ns in NAMESPACES:
        mod = importlib.import_module(f"freeattn.{ns}")
        for name in mod.__all__:
            rows.append((ns, name, getattr(mod, name)))
            seen.add(name)
    top = importlib.import_module("freeattn")
    missing = [n for n in top.__all__ if n not in seen]
    if missing:
        raise RuntimeError(f"freeattn exports {missing}, which no documented namespace "
                           f"{NAMESPACES} exports: add its namespace to docs/hooks.py")
    return rows


def _table() -> str:
    import freeattn

    top = set(freeattn.__all__)
    lines = []
    for ns in NAMESPACES:
        lines += [f"\n## [freeattn.{ns}]({ns}.md)\n", "| name | summary |", "|---|---|"]
        for mod_ns, name, obj in public_names():
            if mod_ns != ns:
                continue
            also = " (also `freeattn." + name + "`)" if name in top else ""
            lines.append(f"| [`{name}`][freeattn.{ns}.{name}]{also} | {_summary(obj)} |")
    return "\n".join(lines) + "\n"


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri == "api/index.md":
        return markdown.replace("<!-- public-names -->", _table())
    return markdown


def on_page_content(html, page, config, files):
    if page.file.src_uri.endswith(".ipynb"):
        return _MATHJAX.sub("", html)
    return html
