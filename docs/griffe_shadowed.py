"""Griffe extension of the freeattn site: a public function named like its own module.

``freeattn.readout.dof`` is the function ``dof`` (defined in the submodule ``dof``) and
``freeattn.montecarlo.check`` the function ``check`` (submodule ``check``).  Python binds the
package attribute to the function; griffe keeps one member per name and always lets the
submodule win, so the API pages would document a module where the package exports a
function.  After the package is loaded, each name in a namespace's ``__all__`` whose member is
a submodule defining a public object of the same name is pointed at that object, as Python
does.  Submodules that are themselves public names (``freeattn.symbolic.symbols``) have no such
object and are left alone.  (mkdocs.yml: mkdocstrings' python handler, ``extensions``.)
"""
from __future__ import annotations

import griffe


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
