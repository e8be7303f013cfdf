"""The package list in pyproject.toml names every package of the library, and the command installs as its own name."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_library_package_is_listed():
    listed = set(_config()["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "quaternity_cp").rglob("__init__.py")}
    assert found - listed == set(), "packages missing from pyproject.toml: " + ", ".join(sorted(found - listed))
    assert listed - found - {"quaternity_cli"} == set()


def test_the_command_installs_under_the_projects_own_name():
    config = _config()
    assert config["tool"]["setuptools"]["package-dir"] == {"quaternity_cli": "cli"}
    assert config["project"]["scripts"]["quaternity"] == "quaternity_cli.entry:main"
    assert "cli" not in config["tool"]["setuptools"]["packages"]
