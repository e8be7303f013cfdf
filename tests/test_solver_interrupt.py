"""Ctrl-C and limits around the solvers' verdicts: the first Ctrl-C stops the search, a second one (while
the search unwinds, the result is built or printed) does not lose the verdict known; a limit or Ctrl-C
once the verdict is proven only cuts the strategy tree or the principal variation short."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from quaternity_cp.command.interrupts import Interrupts
from quaternity_cli.main import main
from quaternity_cp import Game, Position
from quaternity_cp.budget import TIME, Stopped
from quaternity_cp.quarto import solver as quarto_solver
from quaternity_cp.quartets.solver import api, solve

ROOT = Path(__file__).resolve().parent.parent

#: a Quarto position with 13 empty cells: minutes of Python search, the compiled kernel loaded after 30,000 nodes
OPEN_QUARTO = {"game": "quarto", "to_move": 0, "piece": "LSTS",
               "board": [[None, "LRTS", None, None], [None, None, None, None],
                         [None, None, "LRSS", None], ["DRTH", None, None, None]]}
#: the Quarto position of the solver's docstring, won in two moves: a principal variation of three moves
SHORT_QUARTO = {"game": "quarto", "to_move": 1, "piece": "LRTS",
                "board": [[None, None, None, "DRTH"], ["DSTH", "LSSS", "DRSS", "DSTS"],
                          ["LRSH", "DSSS", None, "LSTH"], [None, None, "LRSS", "LSSH"]]}


@pytest.fixture
def sigint_restored():
    """Whatever a test does to SIGINT, the handler before it comes back."""
    before = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, before)


# -- the guard of the commands ---------------------------------------------------------------------
def test_a_second_ctrl_c_is_counted_not_raised(sigint_restored):
    def search():  # a search that stops on the first Ctrl-C and meets a second one while it unwinds
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            signal.raise_signal(signal.SIGINT)
            return "unproven"
        return "not stopped"

    with Interrupts() as ctrl_c:
        assert ctrl_c.run(search) == "unproven"
        signal.raise_signal(signal.SIGINT)  # while the verdict is printed
    assert ctrl_c.count == 3 and ctrl_c.interrupted
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # on the way out


def test_without_ctrl_c_the_handler_comes_back(sigint_restored):
    before = signal.getsignal(signal.SIGINT)
    with Interrupts() as ctrl_c:
        assert ctrl_c.run(lambda x: x + 1, 1) == 2
    assert not ctrl_c.interrupted and signal.getsignal(signal.SIGINT) is before


def test_ctrl_c_that_leaves_the_search_goes_on(sigint_restored):
    with pytest.raises(KeyboardInterrupt):
        with Interrupts() as ctrl_c:
            ctrl_c.run(signal.raise_signal, signal.SIGINT)  # nothing known: the command says "interrupted"


# -- the library: limits and Ctrl-C after the verdict ----------------------------------------------
def expire_in_tree(monkeypatch):
    """The time limit passes as the strategy tree starts (whatever the speed of the machine)."""
    init = api._Tree.__init__

    def patched(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.budget.deadline = self.budget.start

    monkeypatch.setattr(api._Tree, "__init__", patched)


def interrupt_in_tree(monkeypatch):
    """Ctrl-C at the second position of the strategy tree."""
    build = api._Tree.build

    def patched(self, state, data, result):
        describe, calls = self.ctx.describe, []

        def interrupted(st):
            calls.append(st)
            if len(calls) == 2:
                raise KeyboardInterrupt
            return describe(st)

        self.ctx.describe = interrupted
        try:
            return build(self, state, data, result)
        finally:
            del self.ctx.describe

    monkeypatch.setattr(api._Tree, "build", patched)


def test_a_limit_after_the_verdict_cuts_the_tree_not_the_verdict(monkeypatch):
    expire_in_tree(monkeypatch)
    res = solve(Position(Game(3, 3, 3)), "win", 0)
    assert res.proven and res.result is False and res.tree_stopped == "time"
    assert res.defense == {"truncated": True, "stopped": "time"}
    res = solve(Position(Game(2, 3, 2)), "quartet", 0)
    assert res.proven and res.result is True and res.tree_stopped == "time"


def test_ctrl_c_after_the_verdict_cuts_the_tree_not_the_verdict(monkeypatch):
    interrupt_in_tree(monkeypatch)
    res = solve(Position(Game(2, 4, 2)), "value", 0)
    assert res.proven and res.verdict == "win" and res.tree_stopped == "interrupted"
    assert '"stopped": "interrupted"' in json.dumps(res.strategy)
    data = res.to_json()
    assert data["verdict"] == "win" and data["status"] == "solved" and data["tree_stopped"] == "interrupted"


def test_quarto_ctrl_c_and_limits_around_the_value(monkeypatch):
    board = [None, None, None, 9, 13, 6, 10, 12, 3, 14, None, 5, None, None, 2, 7]
    whole = quarto_solver.solve(board, 0)
    assert whole.value == "win" and len(whole.pv) == 3 and whole.pv_stopped is None
    search = quarto_solver._moves_value
    for error, reason in ((KeyboardInterrupt, "interrupted"), (Stopped(TIME), "time")):
        calls = []

        def second_call_stops(*args, error=error):  # the value is known, the next move of the line is not
            calls.append(args)
            if len(calls) == 2:
                raise error
            return search(*args)

        monkeypatch.setattr(quarto_solver, "_moves_value", second_call_stops)
        res = quarto_solver.solve(board, 0)
        assert (res.value, res.best, res.status) == ("win", whole.best, "solved")
        assert res.pv == whole.pv[:1] and res.pv_stopped == reason

        def first_call_stops(*args, error=error):
            raise error

        monkeypatch.setattr(quarto_solver, "_moves_value", first_call_stops)
        res = quarto_solver.solve(board, 0)
        assert res.value is None and res.verdict == "unproven" and res.status == reason


# -- the commands --------------------------------------------------------------------------------
def test_solve_command_prints_a_proven_verdict_with_a_cut_tree(monkeypatch):
    expire_in_tree(monkeypatch)
    result = CliRunner().invoke(main, ["solve", "--start", "3", "3", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["verdict"] == "no" and data["proven"] and data["tree_stopped"] == "time"
    result = CliRunner().invoke(main, ["solve", "--start", "3", "3", "3"])
    assert result.exit_code == 0
    assert "Result: no: the other players" in result.output and "cut short (time limit reached)" in result.output


def test_the_position_is_printed_before_the_search_once_the_goal_applies():
    # the first line, the position, is printed before the search: what is known when Ctrl-C comes early
    result = CliRunner().invoke(main, ["solve", "--start", "2", "2", "2", "--goal", "value"])
    assert result.exit_code == 0 and result.stdout.startswith("start of the game: 2 players, 2 sets of 2 cards")
    # a goal that does not apply is refused before anything is printed
    result = CliRunner().invoke(main, ["solve", "--start", "3", "3", "3", "--goal", "value"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.output == "quaternity: the value goal is for two players, not 3\n"


def test_solve_command_exits_130_after_ctrl_c_in_the_tree(monkeypatch):
    interrupt_in_tree(monkeypatch)
    result = CliRunner().invoke(main, ["solve", "--start", "2", "4", "2", "--goal", "value"])
    assert result.exit_code == 130, result.output
    assert "Result: win: seat 0 forces being the only winner" in result.output
    assert "... (cut short)" in result.output and "cut short (interrupted)" in result.output


def test_quarto_command_exits_130_after_ctrl_c_in_the_line(monkeypatch):
    search, calls = quarto_solver._moves_value, []

    def second_call_stops(*args):
        calls.append(args)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return search(*args)

    monkeypatch.setattr(quarto_solver, "_moves_value", second_call_stops)
    result = CliRunner().invoke(main, ["quarto", "solve", "-", "--json"], input=json.dumps(SHORT_QUARTO))
    assert result.exit_code == 130, result.output
    data = json.loads(result.output)
    assert data["value"] == "win" and data["status"] == "solved" and data["pv_stopped"] == "interrupted"
    assert len(data["pv"]) == 1


# -- two real Ctrl-C (SIGINT) in a row ---------------------------------------------------------------
def interrupt_twice_once_started(args: list[str]) -> tuple[int, str]:
    """Run ``quaternity ARGS``; once it says that its search is under way (QUATERNITY_TEST_SIGNAL_STARTED: a
    line on standard error after about half a second of search), send SIGINT, then SIGINT again shortly after.
    The exit code and what it printed on standard output, then standard error (without that line)."""
    proc = subprocess.Popen([sys.executable, "-m", "cli", *args], cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT), QUATERNITY_TEST_SIGNAL_STARTED="1"))
    assert proc.stderr is not None  # a pipe
    try:
        started = proc.stderr.readline()  # the event: the search runs
        assert started == "quaternity: search started\n", started
        proc.send_signal(signal.SIGINT)
        time.sleep(0.01)  # usually while the search unwinds; later, while the verdict is printed or after
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=300)  # a safety net far above the second it takes
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, out + err


def test_two_ctrl_c_during_a_solve_still_print_the_verdict():
    code, out = interrupt_twice_once_started(["solve", "--start", "3", "9", "3"])  # minutes of search
    assert code == 130, out
    assert "Result: unproven (interrupted)" in out and "Explored " in out
    assert "quaternity: interrupted" not in out  # the verdict, not the bare message


def test_two_ctrl_c_during_a_quarto_solve_still_print_the_value(tmp_path):
    path = tmp_path / "open.json"
    path.write_text(json.dumps(OPEN_QUARTO))
    code, out = interrupt_twice_once_started(["quarto", "solve", str(path)])
    assert code == 130, out
    assert "Value: unproven (interrupted)" in out and "Nodes: " in out
    assert "quaternity: interrupted" not in out


#: far above what the commands below take when they work (a second or two, the kernel's loading included)
CEILING = 300


def interrupt_quarto_at(event: str, path: Path, *options: str, env: dict | None = None) -> tuple[int, str, str]:
    """Run ``quaternity quarto solve PATH OPTIONS``; as soon as it prints the line ``event`` on standard error
    (QUATERNITY_TEST_SIGNAL_STARTED), send SIGINT, then SIGINT again. The exit code, standard output, and
    standard error (all of it). Whatever way it fails, the process does not outlive the test."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), QUATERNITY_TEST_SIGNAL_STARTED="1", **(env or {}))
    proc = subprocess.Popen([sys.executable, "-m", "cli", "quarto", "solve", str(path), *options], cwd=ROOT,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    assert proc.stderr is not None  # a pipe
    seen = []
    try:
        for line in proc.stderr:  # the events, in order, until the awaited one (or the end: the test fails)
            seen.append(line)
            if line == event + "\n":
                break
        assert seen and seen[-1] == event + "\n", seen
        proc.send_signal(signal.SIGINT)
        proc.send_signal(signal.SIGINT)  # a second Ctrl-C: still what is known, and exit 130
        out, err = proc.communicate(timeout=CEILING)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, out, "".join(seen) + err


def test_ctrl_c_while_the_quarto_kernel_loads_prints_the_value(tmp_path):
    """The compiled kernel loads once the Python search has run a while: a Ctrl-C then stops the loading at
    once, and what the Python search knows is printed (not "quaternity: interrupted"; not death by SIGINT)."""
    pytest.importorskip("numba")
    path = tmp_path / "open.json"
    path.write_text(json.dumps(OPEN_QUARTO))
    code, out, err = interrupt_quarto_at("quaternity: kernel load started", path)
    assert code == 130, (code, out, err)
    assert "Value: unproven (interrupted)" in out and "Nodes: " in out, out
    assert "quaternity: interrupted" not in err, err
    nodes = int(out.split("Nodes: ")[1].split()[0].replace(",", ""))
    assert nodes >= quarto_solver.switch_nodes(13), out  # the Python search's nodes, before the kernel's


def test_ctrl_c_while_the_quarto_kernel_compiles_prints_the_value(tmp_path):
    """A fresh install (no numba cache: an empty NUMBA_CACHE_DIR) compiles the kernel, and says so on standard
    error; a Ctrl-C then stops the wait for the compilation at once and the value is printed."""
    pytest.importorskip("numba")
    path = tmp_path / "open.json"
    path.write_text(json.dumps(OPEN_QUARTO))
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    code, out, err = interrupt_quarto_at(f"quaternity: compiling the Quarto kernel, once, about "
                                         f"{fast_compile_seconds()} s", path, "--max-seconds", "200",
                                         env={"NUMBA_CACHE_DIR": str(cache)})
    assert code == 130, (code, out, err)
    assert "Value: unproven (interrupted)" in out and "quaternity: interrupted" not in err, (out, err)
    assert err.index("quaternity: kernel load started") < err.index("quaternity: compiling the Quarto kernel")


def fast_compile_seconds() -> int:
    from quaternity_cp.quarto.fast import COMPILE_SECONDS

    return COMPILE_SECONDS


def test_a_ctrl_c_that_the_search_did_not_see_still_stops_it(monkeypatch):
    """A KeyboardInterrupt swallowed on its way (third-party code in the kernel's loading did so): the command
    counted the Ctrl-C, and the search stops at its next report of progress."""
    check, calls = quarto_solver._Search._check, []

    def swallowed(self):
        calls.append(1)
        if len(calls) == 1:
            try:
                signal.raise_signal(signal.SIGINT)  # counted by the command's handler, raised, swallowed here
            except KeyboardInterrupt:
                pass
        check(self)

    monkeypatch.setattr(quarto_solver._Search, "_check", swallowed)
    # 11 empty cells: 100,000 nodes and more for the Python search (a second or more), which would end it
    position = {"game": "quarto", "to_move": 0, "piece": "DSTS", "board": [
        [None, "LRTS", None, None], ["DRSH", None, None, None], [None, None, "LRSS", None],
        ["DRTH", None, "LSSH", None]]}
    result = CliRunner().invoke(main, ["quarto", "solve", "-", "--kernel", "python"], input=json.dumps(position))
    assert result.exit_code == 130, result.output
    assert "Value: unproven (interrupted)" in result.output, result.output
    assert len(calls) == 1  # stopped at that check's report of progress, not at the end of the search
