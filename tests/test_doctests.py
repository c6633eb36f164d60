"""Docstring examples of the law core run as doctests."""
import doctest

import pytest

import freeattn.attention.single_head
import freeattn.transforms.symbolic


@pytest.mark.parametrize("module", [freeattn.attention.single_head, freeattn.transforms.symbolic])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
