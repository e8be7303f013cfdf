"""The examples in the library's docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import quaternity_cp

MODULES = sorted(
    name for _, name, _ in pkgutil.walk_packages(quaternity_cp.__path__, prefix="quaternity_cp.")
)


@pytest.mark.parametrize("name", ["quaternity_cp"] + MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
