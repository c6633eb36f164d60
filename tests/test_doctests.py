"""Every docstring example of the package runs as a doctest.

The modules are discovered by walking the package (not listed by hand), so a module that is
added or moved is covered without editing this file; each module with examples is one test.
The site's API reference (docs/api/) renders the same docstrings.
"""
import doctest
import importlib
import pkgutil

import pytest

import freeattn

#: every public namespace (the API reference's pages); each must be importable and walked
NAMESPACES = ["freeattn", "freeattn.laws", "freeattn.attention", "freeattn.convolution",
              "freeattn.transforms", "freeattn.readout", "freeattn.symbolic",
              "freeattn.montecarlo"]


def _modules():
    names = ["freeattn"]
    for info in pkgutil.walk_packages(freeattn.__path__, "freeattn."):
        if not info.name.endswith("__main__"):
            names.append(info.name)
    return sorted(names)


MODULES = _modules()


def _has_examples(name):
    module = importlib.import_module(name)
    return any(t.examples for t in doctest.DocTestFinder().find(module))


WITH_EXAMPLES = [name for name in MODULES if _has_examples(name)]


def test_walk_covers_every_public_namespace():
    for ns in NAMESPACES:
        assert ns in MODULES
    # the package has examples in every floor that computes a law or a prediction
    floors = {name.split(".")[1] for name in WITH_EXAMPLES if name.count(".") >= 1}
    assert {"laws", "attention", "convolution", "transforms", "readout", "symbolic"} <= floors
    assert len(WITH_EXAMPLES) >= 20


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
