"""The package's import structure: floors from the bottom, no circles.

Rule (``DESIGN.md``, "Target layout, turn 3"; issue 16): a module imports only modules of a
*lower floor* or *earlier files of its own folder* (so that the folder's own imports form no
loop); an import inside a function is for an optional heavy dependency only (matplotlib,
IPython, dask, tqdm), never to dodge a circle.  Every ``import`` / ``from … import`` statement of
``freeattn/`` is read with :mod:`ast` — at module level and inside functions alike, relative
and absolute — so a circle hidden in a function body is still a circle here.

An edge that still breaks the rule and belongs to another engineer's files is listed in
``KNOWN_UPWARD`` with the name of who removes it; the list may only shrink: a listed edge that
no longer exists fails the test, so it is struck from the list in the same commit that removes
it.

An import of a freeattn module inside a function body is allowed only when it is listed in
``LAZY_ALLOWED`` with its reason (an optional heavy dependency, or a module kept out of
``import freeattn`` for its import time); that list too may only shrink.
"""
from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "freeattn"

#: floor of each top-level module or folder of freeattn/ (DESIGN.md's table, one line each)
FLOORS = {
    "_messages": 1,      # how a bad value is quoted in an error
    "_context": 1,       # dps -> float64 | mpmath; guard digits, round-back, tolerance(dps)
    "_validation": 2,    # Param/declare, ParameterError, exact(), point filters
    "quadrature": 3,     # θ-parametrisation, panels, end rules, tables -> cdf/sf/ppf
    "algebraic": 3.5,    # polynomials, eliminations, branches, local expansions (its density
                         # integrands use quadrature/: half a floor above it, DESIGN's floor 3)
    "transforms": 4,     # Cauchy, R, S, cumulants (of any law-like object)
    "laws": 5,           # Law, generic, algebraic adapter, closed-form and numeric laws
    "convolution": 6,    # ⊞, ⊠, compound Poisson, subordination
    "attention": 7,      # attention laws, MHAConfig
    "symbolic": 7,       # sympy views
    "montecarlo": 8,     # samplers, runner, metrics, checks
    "readout": 9,        # dof, ridge, training
    "plotting": 9,       # figure tails (matplotlib set-up)
    "_plotting": 1,      # today's matplotlib set-up: a leaf (no freeattn import); becomes plotting/
    "display": 10,       # notebook HTML/LaTeX formatters
    "reproduce": 10,     # tables and figures of the papers
    "sweeps": 10,        # parameter grids of laws and readout quantities
    "testing": 10,       # test helpers over the public API
    "cli": 11,           # click front end
    "__main__": 12,      # python -m freeattn
    "__init__": 12,      # the package's face: re-exports everything
}

#: edges (importer -> imported module) that still break the rule, each with who removes it.
#: Strike an entry in the commit that removes the edge: a stale entry fails the test.
KNOWN_UPWARD = {}  # empty: no edge breaks the rule (the move is done); keep it so


def _module_name(path):
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules():
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _edges(importers, modules=None, tree=None):
    """{(importer, imported): [line, ...]} over every import statement of the ``importers``
    (module level and inside functions; or of ``tree`` alone when given), resolved to the
    freeattn ``modules``: ``from pkg import name`` is an edge to ``pkg.name`` when that is a
    module, else to ``pkg``."""
    modules = importers if modules is None else modules
    edges = {}
    for name, path in importers.items():
        is_package = path.name == "__init__.py"
        if tree is None:
            parsed = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        else:
            parsed = tree
        for node in ast.walk(parsed):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_package else name.split(".")[:-1]
                    base = base[:len(base) - (node.level - 1)]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                subs = [f"{source}.{alias.name}" for alias in node.names]
                found = [s for s in subs if s in modules]
                targets = found if len(found) == len(subs) else [source] + found
            for target in targets:
                if not target.startswith("freeattn"):
                    continue
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]  # an attribute of a module
                if target != name and target in modules:
                    edges.setdefault((name, target), []).append(node.lineno)
    return edges


def _floor(module):
    parts = module.split(".")
    key = parts[1] if len(parts) > 1 else "__init__"
    return key, FLOORS[key]


def _cycles(nodes, edges):
    """Strongly connected components with more than one module (Tarjan)."""
    graph = {n: [] for n in nodes}
    for a, b in edges:
        graph[a].append(b)
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


#: imports of a freeattn module inside a function body, (importer, imported) -> why it stays
#: there.  The rule allows only an optional heavy dependency or a measured import-time saving
#: (``import freeattn`` must not load it); anything else moves to the module top.  An entry
#: with no reason yet names who moves it.  The list may only shrink (a stale entry fails).
LAZY_ALLOWED = {
    ("freeattn.display", "freeattn.symbolic"): "sympy views, kept out of `import freeattn` "
                                               "(display registers formatters at import)",
    ("freeattn.sweeps", "freeattn.readout"): "readout loads scipy.optimize, kept out of "
                                             "`import freeattn`",
    ("freeattn.montecarlo.residual", "freeattn.attention.residual"):
        "no reason stated: to the module top (owner: residual)",
    ("freeattn.transforms.rectangular", "freeattn._validation"):
        "no reason stated: to the module top (owner: residual)",
}


def _lazy_imports(modules):
    """{(importer, imported): [line, ...]} of the freeattn imports inside function bodies."""
    lazy = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        top = {id(n) for n in tree.body}
        inner = {}
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                for node in ast.walk(fn):
                    if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top:
                        inner[id(node)] = node
        if not inner:
            continue
        sub = ast.Module(body=list(inner.values()), type_ignores=[])
        for edge, lines in _edges({name: path}, modules, tree=sub).items():
            lazy.setdefault(edge, []).extend(lines)
    return lazy


MODULES = _modules()
EDGES = _edges(MODULES)
LAZY = _lazy_imports(MODULES)


def test_every_folder_has_a_floor():
    missing = sorted({m.split(".")[1] for m in MODULES if "." in m} - set(FLOORS))
    assert not missing, f"folders or modules of freeattn/ without a floor in FLOORS: {missing}"


def test_no_upward_or_sideways_import():
    """An import goes to a lower floor, or stays inside the importer's own folder."""
    bad = []
    for (a, b), lines in sorted(EDGES.items()):
        (ka, fa), (kb, fb) = _floor(a), _floor(b)
        if ka == kb or fb < fa or (a, b) in KNOWN_UPWARD:
            continue
        bad.append(f"{a} (floor {fa}) -> {b} (floor {fb}), line {lines[0]}")
    assert not bad, "imports of a higher floor or of another folder on the same floor:\n" + \
        "\n".join(bad)


def test_no_import_circle():
    """No loop of imports, counting imports inside functions, edges of KNOWN_UPWARD aside."""
    kept = [e for e in EDGES if e not in KNOWN_UPWARD]
    cycles = _cycles(MODULES, kept)
    detail = []
    for comp in cycles:
        members = set(comp)
        ties = [f"  {a} -> {b} (line {EDGES[(a, b)][0]})" for a, b in sorted(kept)
                if a in members and b in members]
        detail.append(", ".join(comp) + "\n" + "\n".join(ties))
    assert not cycles, "import circles:\n" + "\n\n".join(detail)


def test_known_upward_list_only_shrinks():
    """Every KNOWN_UPWARD entry is still an edge of the code (remove it when it is gone)."""
    stale = sorted(f"{a} -> {b} ({who})" for (a, b), who in KNOWN_UPWARD.items()
                   if (a, b) not in EDGES)
    assert not stale, "KNOWN_UPWARD lists edges that no longer exist; strike them:\n" + \
        "\n".join(stale)



def test_no_import_inside_a_function_unless_allowed():
    """A freeattn import inside a function body is on LAZY_ALLOWED with its reason (an
    optional heavy dependency, or a module kept out of ``import freeattn``), else it moves to
    the module top: a lazy import must not hide a circle or an upward edge."""
    bad = sorted(f"{a} -> {b} (line {lines[0]})" for (a, b), lines in LAZY.items()
                 if (a, b) not in LAZY_ALLOWED)
    assert not bad, "imports inside functions (move them to the module top, or put them on " \
                    "LAZY_ALLOWED with the reason):\n" + "\n".join(bad)


def test_lazy_allow_list_only_shrinks():
    stale = sorted(f"{a} -> {b}" for (a, b) in LAZY_ALLOWED if (a, b) not in LAZY)
    assert not stale, "LAZY_ALLOWED lists imports that are no longer inside a function; " \
                      "strike them:\n" + "\n".join(stale)


def test_lazy_import_check_sees_a_function_body(tmp_path):
    """The scan finds an in-function import (relative and absolute), not a module-level one."""
    pkg = tmp_path / "freeattn"
    (pkg / "sub").mkdir(parents=True)
    for f in ("__init__.py", "low.py", "sub/__init__.py"):
        (pkg / f).write_text("")
    (pkg / "sub" / "mod.py").write_text(
        "from .. import low\n"
        "def f():\n    from ..low import x\n    import freeattn.low\n    return x\n")
    mods = {}
    for p in sorted(pkg.rglob("*.py")):
        rel = p.relative_to(tmp_path).with_suffix("")
        parts = list(rel.parts)
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    lazy = _lazy_imports(mods)
    assert lazy == {("freeattn.sub.mod", "freeattn.low"): [3, 4]}


def test_import_freeattn_leaves_scipy_optimize_unloaded():
    """``import freeattn`` does not load scipy.optimize (~0.7 s of import time here): the
    root finders that use it import it on first use (laws/generic.py, transforms/evaluate.py)."""
    import subprocess
    import sys

    code = "import sys, freeattn; print('scipy.optimize' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    assert out.stdout.strip() == "False", out.stdout + out.stderr
