"""Docstring examples of freeattn.readout run as doctests."""
import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["dof", "ridge", "training"])
def test_docstring_examples(name):
    # import_module: the package re-exports functions named like their modules (dof)
    module = importlib.import_module(f"freeattn.readout.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
