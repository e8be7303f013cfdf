"""Ctrl-C at the two moments no search is running yet: while the command imports its modules, and while a
compiled library (OR-Tools) initialises. Each test sends the signal from inside the import itself, so the
moment is certain on any machine (no timer)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CEILING = 120  # seconds: a generous bound for a process that should end at once


def _ctrl_c_as_usual() -> None:
    # a child inherits an ignored SIGINT (a shell's background job, or a test runner that ignores it): give
    # the child the usual disposition, so that Python installs its KeyboardInterrupt handler
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True,
                          timeout=CEILING, env=dict(os.environ, PYTHONPATH=str(ROOT)), preexec_fn=_ctrl_c_as_usual)


def test_ctrl_c_while_the_command_imports_leaves_in_one_line_with_130():
    # the entry point imports the command's modules; a SIGINT arrives in the middle of that import
    proc = run_python("""
        import builtins, os, signal, sys
        real = builtins.__import__
        def spy(name, globals=None, locals=None, fromlist=(), level=0):
            if level == 1 and name == "main":
                os.kill(os.getpid(), signal.SIGINT)
            return real(name, globals, locals, fromlist, level)
        builtins.__import__ = spy
        sys.argv = ["quaternity", "check", "examples/quaternity.json"]
        from cli.entry import main
        main()
    """)
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert proc.stderr == "quaternity: interrupted\n"
    assert proc.stdout == ""


def test_without_ctrl_c_the_entry_point_runs_the_command_and_restores_the_handler():
    proc = run_python("""
        import signal, sys
        sys.argv = ["quaternity", "check", "examples/quaternity.json", "--json"]
        from cli.entry import main
        try:
            main()
        except SystemExit as done:
            assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
            raise
    """)
    assert proc.returncode == 0, proc.stderr
    assert '"valid": true' in proc.stdout


def write_module(folder: Path) -> None:
    """A module that is interrupted in the middle of its own initialisation, as a compiled library would be."""
    (folder / "halfway.py").write_text(textwrap.dedent("""
        import os, signal
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C arrives here, halfway through
        WHOLE = True
    """))


def test_ctrl_c_during_an_import_comes_after_it_and_leaves_the_module_whole(tmp_path):
    write_module(tmp_path)
    proc = run_python(f"""
        import signal, sys
        sys.path.insert(0, {str(tmp_path)!r})
        from quaternity_cp.imports import import_holding_ctrl_c
        try:
            import_holding_ctrl_c("halfway")
        except KeyboardInterrupt:
            print("interrupted after the import")
        assert sys.modules["halfway"].WHOLE
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        print("whole")
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "interrupted after the import\nwhole\n", proc.stdout


def test_a_handler_of_the_callers_hears_a_ctrl_c_that_came_during_the_import(tmp_path):
    write_module(tmp_path)
    proc = run_python(f"""
        import signal, sys
        sys.path.insert(0, {str(tmp_path)!r})
        heard = []
        def mine(signum, frame):
            heard.append(signum)
        signal.signal(signal.SIGINT, mine)
        from quaternity_cp.imports import import_holding_ctrl_c
        import_holding_ctrl_c("halfway")
        assert heard == [signal.SIGINT], heard
        assert signal.getsignal(signal.SIGINT) is mine  # the caller's, put back
        print("ok")
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "ok\n"


def test_or_tools_is_imported_holding_ctrl_c():
    # every first import of OR-Tools' CP-SAT in the library goes through the holding import
    for path in (ROOT / "quaternity_cp").rglob("*.py"):
        lines = path.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if line.strip().startswith("from ortools.sat.python import cp_model") and "TYPE_CHECKING" not in lines[i - 1]:
                assert "_load_cp_model()" in lines[i - 1], f"{path}:{i + 1}"


def test_an_ignored_ctrl_c_stays_ignored_through_start_up():
    # a job a shell started in the background ignores SIGINT: the entry point keeps it so, during and after
    proc = run_python("""
        import builtins, os, signal, sys
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        real = builtins.__import__
        def spy(name, globals=None, locals=None, fromlist=(), level=0):
            if level == 1 and name == "main":
                os.kill(os.getpid(), signal.SIGINT)
            return real(name, globals, locals, fromlist, level)
        builtins.__import__ = spy
        sys.argv = ["quaternity", "check", "examples/quaternity.json", "--json"]
        from cli.entry import main
        try:
            main()
        except SystemExit:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            raise
    """)
    assert proc.returncode == 0, proc.stderr
    assert '"valid": true' in proc.stdout


def test_ctrl_c_while_dask_s_local_workers_start_stops_the_build_with_130_naming_the_folder(tmp_path):
    """A Ctrl-C that arrives while the local cluster starts (its workers are started ignoring Ctrl-C, and this
    process holds it meanwhile) is not lost: the command stops with 130, in one line naming the checkpoint,
    and no worker prints a traceback. The signal is sent from inside the cluster's start itself, before its
    workers are started (the moment certain on any machine), as the command's own import of Dask's cluster
    returns: the test imports nothing before the command does (numpy's threads are started by the command)."""
    import importlib.util

    if importlib.util.find_spec("distributed") is None:
        import pytest

        pytest.skip("Dask distributed is not installed")
    folder = tmp_path / "ck"
    proc = run_python(f"""
        import builtins, os, signal, sys
        real = builtins.__import__
        def spy(name, globals=None, locals=None, fromlist=(), level=0):
            module = real(name, globals, locals, fromlist, level)
            if name == "dask.distributed" and "LocalCluster" in (fromlist or ()):
                cluster = module.LocalCluster
                if not getattr(cluster, "spied", False):  # (Ctrl-C as the cluster starts, inside the command)
                    init = cluster.__init__
                    def start(self, *args, **kwargs):
                        os.kill(os.getpid(), signal.SIGINT)
                        init(self, *args, **kwargs)
                    cluster.__init__ = start
                    cluster.spied = True
            return module
        builtins.__import__ = spy
        sys.argv = ["quaternity", "solve", "--start", "3", "3", "3", "--checkpoint", {str(folder)!r},
                    "--workers", "1", "--json"]
        from cli.entry import main
        main()
    """)
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "interrupted" in lines[0] and str(folder) in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr
