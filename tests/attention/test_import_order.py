"""Import structure of attention/ and cli/ (issue 16): no circles, no upward imports, counting
imports inside functions; attention's families never import each other.

Walks the sources with ``ast`` (every ``import`` statement, at module level or inside a
function), so an import hidden in a function body counts like any other.
"""
import ast
import pathlib

import pytest

import freeattn

ROOT = pathlib.Path(freeattn.__file__).parent

#: attention/, in import order: a module may import only the ones before it
ATTENTION_ORDER = ["domains", "_constructions", "_jump_law", "single_head", "multi_head",
                   "tied", "partial_kv", "config", "__init__"]
#: the families, which never import each other
FAMILIES = {"single_head", "multi_head", "tied", "partial_kv"}
#: packages above attention/ (DESIGN.md, "Target layout, turn 3"): attention/ imports none
ABOVE_ATTENTION = {"montecarlo", "readout", "plotting", "display", "reproduce", "cli",
                   "_plotting", "symbolic"}


def _module_name(path):
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path):
    """The freeattn modules that ``path`` imports (absolute dotted names), anywhere in it."""
    tree = ast.parse(path.read_text())
    package = _module_name(path) if path.name == "__init__.py" else \
        _module_name(path).rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("freeattn")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not mod.startswith("freeattn"):
                continue
            out.add(mod)
            for a in node.names:  # ``from . import x``: x may be a module
                sub = ROOT.parent / (mod + "." + a.name).replace(".", "/")
                if sub.with_suffix(".py").exists():
                    out.add(mod + "." + a.name)
    return out


def _graph(folder):
    mods = {}
    for path in sorted((ROOT / folder).glob("*.py")):
        mods[_module_name(path)] = _imports(path)
    return mods


@pytest.mark.parametrize("folder", ["attention", "cli", "readout"])
def test_no_circle_within_the_folder(folder):
    graph = _graph(folder)
    prefix = f"freeattn.{folder}"
    inside = {m: {d for d in deps if d.startswith(prefix + ".") and d in graph}
              for m, deps in graph.items()}
    state = {}

    def visit(m, path):
        state[m] = "open"
        for d in inside[m]:
            if state.get(d) == "open":
                raise AssertionError("import circle: " + " -> ".join(path + [d]))
            if d not in state:
                visit(d, path + [d])
        state[m] = "done"

    for m in inside:
        if m not in state:
            visit(m, [m])


def test_attention_imports_only_earlier_files_and_lower_floors():
    graph = _graph("attention")
    for mod, deps in graph.items():
        name = mod.rsplit(".", 1)[-1] if mod != "freeattn.attention" else "__init__"
        if name not in ATTENTION_ORDER:  # a file another engineer adds (residual, ...)
            continue
        rank = ATTENTION_ORDER.index(name)
        for d in deps:
            parts = d.split(".")
            if len(parts) > 1 and parts[1] in ABOVE_ATTENTION:
                raise AssertionError(f"{mod} imports {d}, a higher floor")
            if d.startswith("freeattn.attention."):
                other = parts[2]
                if other in ATTENTION_ORDER:
                    assert ATTENTION_ORDER.index(other) < rank, f"{mod} imports later {d}"
                    assert not (name in FAMILIES and other in FAMILIES), \
                        f"family {name} imports family {other}"


def test_the_samplers_depend_on_the_config_not_the_reverse():
    assert not any(d.startswith("freeattn.montecarlo")
                   for d in _imports(ROOT / "attention" / "config.py"))
    assert "freeattn.attention.config" in _imports(ROOT / "montecarlo" / "samplers.py")


def test_cli_imports_inside_functions_only_optional_heavy_dependencies():
    """matplotlib (through the plotting modules) and dask are the only lazy imports."""
    allowed = {"freeattn.cli.plotting", "freeattn.montecarlo.plot", "dask.distributed",
               "matplotlib.figure"}
    for path in sorted((ROOT / "cli").glob("*.py")):
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    names = {a.name for a in node.names}
                elif isinstance(node, ast.ImportFrom):
                    base = ({1: "freeattn.cli.", 2: "freeattn."}.get(node.level, "")
                            + (node.module or "")).rstrip(".")
                    # ``from ..montecarlo import plot``: the module freeattn.montecarlo.plot
                    names = {base} if base in allowed else {f"{base}.{a.name}" for a in node.names}
                else:
                    continue
                assert names <= allowed, f"{path.name}:{node.lineno} imports {sorted(names)}"
