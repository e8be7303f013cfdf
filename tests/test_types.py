"""The library ships its types, and mypy passes on the library and the command with the configuration in pyproject.toml."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_library_ships_py_typed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["quaternity_cp"]
    assert (ROOT / "quaternity_cp" / "py.typed").is_file()


def test_mypy_passes_on_the_library_and_the_command(tmp_path):
    # A plain `mypy` from the repository root, as a developer runs it; the cache in a fresh
    # directory, so the run is a cold one and nothing is left in the working tree.
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy_cache")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # the configuration's `files` reach every module of both packages
    sources = [p for folder in ("quaternity_cp", "cli") for p in (ROOT / folder).rglob("*.py")]
    checked = re.search(r"Success: no issues found in (\d+) source files", result.stdout)
    assert checked and int(checked.group(1)) == len(sources), result.stdout
