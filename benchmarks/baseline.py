"""The baseline code the benchmarks compare against: the commit named in baseline_solve.json.

Imported by the benchmark scripts (run as ``python benchmarks/NAME.py``, so this
folder is on the path); not a benchmark itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SAVED = os.path.join(HERE, "baseline_solve.json")


def baseline_commit(path: str = SAVED) -> str:
    """The commit whose figures ``path`` holds."""
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)["commit"]


def extract_baseline(path: str = SAVED) -> tuple[str, str] | None:
    """(a temporary directory holding the baseline commit's files, the commit), or None when git cannot provide it."""
    try:
        commit = baseline_commit(path)
        where = tempfile.mkdtemp(prefix="quaternity-baseline-")
        archive = subprocess.run(["git", "-C", ROOT, "archive", commit], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", where], input=archive, check=True)
        return where, commit
    except (OSError, subprocess.CalledProcessError, KeyError, ValueError):
        return None
