"""Griffe extensions of the freeattn site (mkdocs.yml: mkdocstrings' python handler,
``extensions``).  They change what the API pages show, never the package.

``ShadowedFunctions``: ``freeattn.readout.dof`` is the function ``dof`` (defined in the
submodule ``dof``) and ``freeattn.montecarlo.check`` the function ``check`` (submodule
``check``).  Python binds the package attribute to the function; griffe keeps one member per
name and always lets the submodule win, so the API pages would document a module where the
package exports a function.  After the package is loaded, each name in a namespace's
``__all__`` whose member is a submodule defining a public object of the same name is pointed
at that object, as Python does.  Submodules that are themselves public names
(``freeattn.symbolic.symbols``) have no such object and are left alone.

``SphinxRoles``: the docstrings use Sphinx roles (``:func:`attention_law```, ``:math:`...```),
which Markdown shows raw.  ``:math:`x``` becomes ``$x$`` (typeset by the site's KaTeX) and the
cross-reference roles become optional cross-references: a link where the name is documented
(as written, or qualified by the docstring's module or class), plain code otherwise.
"""
from __future__ import annotations

import html
import re

import griffe

_ROLE = re.compile(r":(?:py:)?(func|class|meth|attr|data|obj|exc|mod|const):`(~?)([^`<]+?)`")
_MATH = re.compile(r":math:`([^`]+)`")


class ShadowedFunctions(griffe.Extension):
    def on_package(self, *, pkg, loader, **kwargs):
        for ns in list(pkg.modules.values()) + [pkg]:
            exported = ns.exports or ()
            for name in exported:
                member = ns.members.get(name)
                if member is None or member.is_alias or not member.is_module:
                    continue
                target = member.members.get(name)
                if target is None or target.is_module:
                    continue
                ns.set_member(name, griffe.Alias(name, target, parent=ns))


def _walk(obj, seen):
    if obj.path in seen:
        return
    seen.add(obj.path)
    yield obj
    for member in list(obj.members.values()):
        if member.is_alias:
            continue
        yield from _walk(member, seen)


class SphinxRoles(griffe.Extension):
    def on_package(self, *, pkg, loader, **kwargs):
        for obj in _walk(pkg, set()):
            doc = obj.docstring
            if doc is None or ":" not in doc.value:
                continue
            scope = obj.path if (obj.is_class or obj.is_module) else obj.parent.path

            def ref(m, scope=scope):
                name = m.group(3).strip()
                label = name.rsplit(".", 1)[-1] if m.group(2) else name
                ident = name if name.startswith("freeattn.") or "." in name else \
                    f"{scope}.{name}"
                return (f'<autoref identifier="{html.escape(ident)}" optional>'
                        f"<code>{html.escape(label)}</code></autoref>")

            value = _MATH.sub(lambda m: f"${m.group(1)}$", doc.value)
            doc.value = _ROLE.sub(ref, value)
