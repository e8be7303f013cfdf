"""Ctrl-C and CP-SAT: OR-Tools catches SIGINT during a solve unless told not to, and leaves the default handler
behind (Ctrl-C then kills the process with nothing printed). Every CP-SAT solve must leave the handler as it
was, and Ctrl-C must stop a search with any engine (CP-SAT: its short solves and a single long one) within about
a second, the command printing what it knows and leaving with exit code 130.

Whatever could kill a process (a SIGINT meeting the default handler) runs in a child process, never in the
test runner."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: far above what any of these takes when it works (a second or two); only a hang reaches it
CEILING = 120


def run_python(code: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh Python (the project importable); its exit code and output."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True,
                          timeout=CEILING, env=dict(os.environ, PYTHONPATH=str(ROOT)))


# -- the library ---------------------------------------------------------------------------------
def test_after_cpsat_solves_ctrl_c_still_raises_keyboard_interrupt():
    proc = run_python("""
        import signal
        from quaternity_cp import Game, Position
        from quaternity_cp.quartets.engines.cpsat import CpSatEngine
        engine = CpSatEngine()
        position = Position(Game(3, 3, 3), engine=engine)
        position.analysis()  # the engine's solves
        assert engine.solves > 0, engine.solves
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        try:
            signal.raise_signal(signal.SIGINT)  # a real SIGINT, through the handler of the operating system
        except KeyboardInterrupt:
            print("KeyboardInterrupt")
    """)
    assert proc.returncode == 0 and proc.stdout == "KeyboardInterrupt\n", (proc.returncode, proc.stdout,
                                                                         proc.stderr[-2000:])


def test_a_handler_of_the_user_stays_after_cpsat_solves_and_explanations():
    proc = run_python("""
        import signal
        from quaternity_cp import Game, Position
        from quaternity_cp.quartets.engines.cpsat import CpSatEngine
        from quaternity_cp.quartets.explain import Explainer
        from quaternity_cp.quartets.formats import parse_record
        seen = []
        signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
        Position(Game(3, 3, 3), engine=CpSatEngine()).analysis()
        signal.raise_signal(signal.SIGINT)
        print("after analysis", seen)
        record = parse_record(open("examples/three.txt").read())
        explanations = Explainer(record, engine="flow").card(0)  # its first core comes from CP-SAT
        assert explanations, explanations
        signal.raise_signal(signal.SIGINT)
        print("after explanation", seen)
    """)
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr[-2000:])
    assert proc.stdout == "after analysis [2]\nafter explanation [2, 2]\n", proc.stdout


def test_ctrl_c_stops_a_long_single_cpsat_solve():
    # pigeonhole (14 cards, 13 seats of one card each): CP-SAT without presolve takes minutes to refute it;
    # a real SIGINT once the solve runs in its worker thread must stop it within a second or two
    proc = run_python("""
        import os, signal, threading, time
        from ortools.sat.python import cp_model
        from quaternity_cp.quartets.engines import cpsat
        model = cp_model.CpModel()
        x = [[model.new_bool_var(f"x{i}_{j}") for j in range(13)] for i in range(14)]
        for row in x:
            model.add_exactly_one(row)
        for j in range(13):
            model.add_at_most_one(row[j] for row in x)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.cp_model_presolve = False
        solver.parameters.symmetry_level = 0

        def interrupt():  # once the solve runs in its worker thread (an event, not a guess)
            deadline = time.monotonic() + 60
            while not any(t.name == "cp-sat solve" for t in threading.enumerate()):
                assert time.monotonic() < deadline
                time.sleep(0.01)
            time.sleep(0.2)  # let the solve get going; the outcome does not depend on it
            global sent
            sent = time.monotonic()
            os.kill(os.getpid(), signal.SIGINT)

        threading.Thread(target=interrupt, daemon=True).start()
        try:
            status = cpsat.run_solve(solver, model, seconds=90, direct_seconds=0.2)
            print("not stopped", status)
        except KeyboardInterrupt:
            print(f"stopped {time.monotonic() - sent:.1f}")
        assert not any(t.name == "cp-sat solve" for t in threading.enumerate())
    """)
    assert proc.returncode == 0 and proc.stdout.startswith("stopped "), (proc.returncode, proc.stdout,
                                                                         proc.stderr[-2000:])
    assert float(proc.stdout.split()[1]) < 5, proc.stdout


# -- the command ---------------------------------------------------------------------------------
# cpsat (OR-Tools' own signal handling) and flow (the default) in the default run; the other two engines
# stop through the same limits and run with --runslow. brute: 4 4 4 is too big for it, refused at once.
@pytest.mark.parametrize("engine,start", [("cpsat", "4 4 4"), ("flow", "4 4 4"),
                                          pytest.param("sets", "4 4 4", marks=pytest.mark.slow),
                                          pytest.param("brute", "3 5 3", marks=pytest.mark.slow)])
def test_ctrl_c_during_a_solve_prints_the_verdict_and_exits_130(engine, start):
    proc = subprocess.Popen([sys.executable, "-m", "cli", "solve", "--start", *start.split(), "--engine", engine],
                            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ, PYTHONPATH=str(ROOT), QUATERNITY_TEST_SIGNAL_STARTED="1"))
    try:
        started = proc.stderr.readline()  # printed once the search has run for about half a second
        assert started == "quaternity: search started\n", started
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=CEILING)  # minutes of search without the Ctrl-C
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, (proc.returncode, out, err)
    players, sets, size = start.split()
    assert out.startswith(f"start of the game: {players} players, {sets} sets of {size} cards")
    assert "Result: unproven (interrupted)" in out and f"with engine {engine}." in out, out
    assert err == "", err
    assert took < 10, took  # about a second at most on a loaded machine; the search itself runs for minutes
