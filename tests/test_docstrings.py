"""The examples in the library's docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import quaternity_cp

MODULES = sorted(  # (quaternity_cp.games: the registry's old name, kept one release, warns when imported)
    name for _, name, _ in pkgutil.walk_packages(quaternity_cp.__path__, prefix="quaternity_cp.")
    if name != "quaternity_cp.games"
)


#: Modules whose docstrings must carry examples (the test fails if their examples vanish).
WITH_EXAMPLES = ["quaternity_cp.quartets.constraints", "quaternity_cp.quartets.count", "quaternity_cp.quartets.explain",
                 "quaternity_cp.quartets.formats", "quaternity_cp.quartets.game", "quaternity_cp.quartets.position",
                 "quaternity_cp.quartets.replay", "quaternity_cp.quartets.rules", "quaternity_cp.quartets.solver"]


@pytest.mark.parametrize("name", ["quaternity_cp"] + MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    if name in WITH_EXAMPLES:
        assert result.attempted > 0, f"{name}: no docstring example ran"


def test_the_examples_are_found():
    """The module list is not empty and the core modules are in it (a broken walk would test nothing)."""
    assert set(WITH_EXAMPLES) <= set(MODULES)
    total = sum(doctest.testmod(importlib.import_module(n), optionflags=doctest.ELLIPSIS).attempted
                for n in WITH_EXAMPLES)
    assert total >= 25
