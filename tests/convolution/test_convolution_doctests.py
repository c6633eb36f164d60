"""Docstring examples of the convolution engine run as doctests."""
import doctest

import pytest

import freeattn.convolution.additive
import freeattn.convolution.compound_poisson


@pytest.mark.parametrize("module", [freeattn.convolution.additive,
                                    freeattn.convolution.compound_poisson])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
