"""Start-up stays light: importing the package or the command line loads no OR-Tools (issue 12).

OR-Tools pulls in numpy and pandas (about half a second); it is imported when
the CP-SAT engine or the explainer's core search first runs, never at import.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAVY = ("ortools", "numpy", "pandas", "quaternity_cp.quartets.solver", "quaternity_cp.quartets.explain")


def _loaded(code: str) -> set[str]:
    script = code + "\nimport json, sys\nprint(json.dumps(sorted(m for m in sys.modules)))\n"
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("code", ["import quaternity_cp", "import quaternity_cli.main", "from quaternity_cp import Position"])
def test_import_loads_no_heavy_module(code):
    loaded = _loaded(code)
    assert not [m for m in loaded if m.split(".")[0] in ("ortools", "numpy", "pandas")], code
    assert "quaternity_cp.quartets.solver" not in loaded and "quaternity_cp.quartets.explain" not in loaded


def test_check_command_runs_without_ortools():
    # the whole `check` command of a legal record, in one process: OR-Tools never imported
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from quaternity_cli.main import main\n"
        "r = CliRunner().invoke(main, ['check', 'examples/quaternity.json'])\n"
        "assert r.exit_code == 0, r.output\n"
    )
    assert "ortools" not in {m.split(".")[0] for m in _loaded(code)}


def test_cpsat_engine_still_imports_ortools_when_used():
    code = (
        "from quaternity_cp import Game, Position\n"
        "pos = Position(Game(2, 2, 2), engine='cpsat')\n"
        "pos.push_str('0>1:A0+')\n"
        "assert pos.claimed == {0: 0}\n"
    )
    assert "ortools" in {m.split(".")[0] for m in _loaded(code)}
