"""The library ships its types, and mypy passes with the configuration in pyproject.toml: on the library and the
command (each module strict or listed as not yet strict), the examples (the example game strictly), the tests
and the benchmarks."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: What a plain `mypy` checks (``[tool.mypy] files``).
CHECKED = ["quaternity_cp", "cli", "examples", "tests", "benchmarks"]


def test_the_library_ships_py_typed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["quaternity_cp"]
    assert (ROOT / "quaternity_cp" / "py.typed").is_file()


def test_mypy_passes_on_the_library_the_command_the_examples_tests_and_benchmarks(tmp_path):
    # A plain `mypy` from the repository root, as a developer runs it; the cache in a fresh
    # directory, so the run is a cold one and nothing is left in the working tree.
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy_cache")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # the configuration's `files` reach every module of every folder checked
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["files"] == CHECKED
    sources = [p for folder in CHECKED for p in (ROOT / folder).rglob("*.py")]
    checked = re.search(r"Success: no issues found in (\d+) source files", result.stdout)
    assert checked and int(checked.group(1)) == len(sources), result.stdout


def _mypy_override_lists() -> tuple[list[str], list[str]]:
    """The two lists of issue 31: the strict modules and the modules not yet strict."""
    overrides = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["overrides"]
    strict = [block["module"] for block in overrides if block.get("disallow_untyped_defs") is True]
    not_yet = [block["module"] for block in overrides if block.get("disallow_untyped_defs") is False]
    assert len(strict) == 1 and len(not_yet) == 1, "one strict block and one not-yet block"
    return strict[0], not_yet[0]


def _library_modules() -> list[str]:
    """Every module of quaternity_cp and cli, and of the example game (examples/tictactoe), named as mypy names
    them (cli/ is ``cli``, examples/tictactoe is ``tictactoe``)."""
    modules = []
    for base, folder in ((ROOT, "quaternity_cp"), (ROOT, "cli"), (ROOT / "examples", "tictactoe")):
        for path in (base / folder).rglob("*.py"):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules.append(".".join(parts))
    return sorted(modules)


def _matches(pattern: str, module: str) -> bool:
    # mypy's override patterns: an exact name, or `pkg.*` for pkg and everything under it
    if pattern.endswith(".*"):
        return module == pattern[:-2] or module.startswith(pattern[:-1])
    return module == pattern


def test_every_module_is_strict_or_listed_as_not_yet_strict():
    # Fast (no mypy run): a new module must be put in one of the two lists of pyproject.toml.
    strict, not_yet = _mypy_override_lists()
    modules = _library_modules()
    assert modules
    misplaced = {}
    for module in modules:
        places = [p for p in strict if _matches(p, module)] + [p for p in not_yet if _matches(p, module)]
        if len(places) != 1:
            misplaced[module] = places
    assert not misplaced, f"each module in exactly one of the strict and not-yet lists: {misplaced}"
    # and no entry names a module that does not exist
    stale = [p for p in strict + not_yet if not any(_matches(p, m) for m in modules)]
    assert not stale, stale
