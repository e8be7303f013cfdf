"""The compiled Quarto search (numba, quaternity_cp/quarto/fast.py) against brute force and the Python search.

Positions come from careful random play (the solver tests' generator), drawn by
hypothesis from a seed: the compiled kernel must give the brute-force minimax
value at <= 6 empty cells and the Python search's value at 9-12 (11-12 behind
the ``slow`` marker), in both variants; without the transposition table both
searches are the same search, node for node. Budgets stop it at the node limit
exactly, at the time limit, and on Ctrl-C; numba is never imported by a command
that does not solve Quarto, nor by a solve that the Python search ends before switch_nodes().
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from quaternity_cp.quarto.solver import SolverError, solve  # noqa: E402
from test_quarto_solver import DEEP_POSITIONS, VALUE, brute_value, check_pv, random_position  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUICK = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
SLOW = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def position(seed: int, empty: int, squares: bool):
    return random_position(random.Random(seed), empty, squares, careful=seed % 5 != 0)


@QUICK
@given(seed=st.integers(0, 10**9), empty=st.integers(2, 6), squares=st.booleans())
def test_fast_kernel_equals_brute_force(seed, empty, squares):
    board, hand = position(seed, empty, squares)
    result = solve(board, hand, squares=squares, kernel="fast")
    assert result.kernel == "fast" and result.status == "solved"
    assert VALUE[result.value] == brute_value(list(board), hand, squares), (board, hand, squares)
    check_pv(board, hand, squares, result)
    # the table on every node with at least two empty cells, and without the board maps
    for options in ({"table_min_empty": 2}, {"table_min_empty": 2, "board_maps": False}):
        keyed = solve(board, hand, squares=squares, kernel="fast", _options=options)
        assert keyed.value == result.value, options


@QUICK
@given(seed=st.integers(0, 10**9), empty=st.integers(7, 10), squares=st.booleans())
def test_without_table_the_two_searches_are_the_same_search(seed, empty, squares):
    """No transposition table: the compiled and the Python search visit the same nodes, in the same order."""
    board, hand = position(seed, empty, squares)
    off = {"table_min_empty": 99}
    fast = solve(board, hand, squares=squares, kernel="fast", _options=off)
    slow = solve(board, hand, squares=squares, kernel="python", _options=off)
    assert (fast.value, fast.best, fast.pv, fast.nodes) == (slow.value, slow.best, slow.pv, slow.nodes)


@QUICK
@given(seed=st.integers(0, 10**9), empty=st.integers(9, 10), squares=st.booleans())
def test_fast_kernel_equals_the_python_search(seed, empty, squares):
    board, hand = position(seed, empty, squares)
    fast = solve(board, hand, squares=squares, kernel="fast")
    slow = solve(board, hand, squares=squares, kernel="python")
    assert fast.value == slow.value, (board, hand, squares)
    check_pv(board, hand, squares, fast)


def test_fast_kernel_on_the_deep_positions():
    """Positions where a wrong bound in the table changes the answer (found for the Python solver)."""
    for board, hand, squares in DEEP_POSITIONS:
        for options in (None, {"table_min_empty": 4}):
            fast = solve(board, hand, squares=squares, kernel="fast", _options=options)
            assert fast.value == solve(board, hand, squares=squares, kernel="python").value
            check_pv(board, hand, squares, fast)


@pytest.mark.slow
@SLOW
@given(seed=st.integers(0, 10**9), empty=st.integers(11, 12), squares=st.booleans())
def test_fast_kernel_equals_the_python_search_many(seed, empty, squares):
    board, hand = position(seed, empty, squares)
    fast = solve(board, hand, squares=squares, kernel="fast")
    slow = solve(board, hand, squares=squares, kernel="python")
    assert fast.value == slow.value, (board, hand, squares)


def test_a_shared_table_gives_the_same_values():
    from quaternity_cp.budget import Limits
    from quaternity_cp.quarto.fast import FastSearch, Table
    from quaternity_cp.quarto.solver import search_root

    table = Table(12)  # small: many entries overwritten
    rng = random.Random(7)
    for _ in range(6):
        board, hand = random_position(rng, 10)
        value, _ = search_root(FastSearch(False, Limits().start(), table=table), board, hand)
        assert value == VALUE[solve(board, hand, kernel="python").value]
    assert table.used() > 0


# -- budgets ------------------------------------------------------------------------------------

@pytest.mark.parametrize("squares", [False, True])
def test_node_limit_is_exact(squares):
    board, hand = random_position(random.Random(4), 13, squares)
    for limit in (1, 7, 3000, 100_000):
        result = solve(board, hand, squares=squares, kernel="fast", max_nodes=limit)
        assert (result.status, result.value, result.nodes, result.kernel) == ("limit", None, limit, "fast")


def test_time_limit_stops_the_kernel():
    result = solve([None] * 16, 0, kernel="fast", max_seconds=0.2)
    assert (result.status, result.value, result.best) == ("time", None, None)
    assert result.nodes > 0


def test_unknown_kernel_is_refused():
    with pytest.raises(SolverError, match="no kernel 'gpu'"):
        solve([None] * 16, 0, kernel="gpu")


INTERRUPT = """
import os, signal, threading
from quaternity_cp.quarto.solver import solve
running = threading.Event()
def on_event(name, info):
    if name == "progress" and info["kernel"] == "fast":
        running.set()                                       # the compiled search runs: the event awaited
def ctrl_c():
    if running.wait(300):                                   # a ceiling far above the second it takes
        os.kill(os.getpid(), signal.SIGINT)                 # a real SIGINT, to the main thread
threading.Thread(target=ctrl_c, daemon=True).start()
result = solve([None] * 16, 0, kernel="fast", on_event=on_event)   # the empty board: hours
print(result.status, result.kernel, result.nodes > 0)
"""


def test_ctrl_c_stops_the_kernel():
    out = subprocess.run([sys.executable, "-c", INTERRUPT], cwd=ROOT, capture_output=True, text=True,
                         timeout=600)  # a safety net only: it stops as soon as the kernel reports progress
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["interrupted", "fast", "True"]


# -- start-up: numba only where Quarto is solved -------------------------------------------------

def _loaded(code: str) -> set:
    script = code + "\nimport json, sys\nprint(json.dumps(sorted(m for m in sys.modules)))\n"
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("code", [
    "import quaternity_cli.main",
    "import quaternity_cp.quarto.agents, quaternity_cp.quarto.web, quaternity_cp.quarto.solver",
    "from click.testing import CliRunner\nfrom quaternity_cli.main import main\n"
    "r = CliRunner().invoke(main, ['quarto', 'check', 'examples/quarto/position.json'])\nassert r.exit_code == 0",
])
def test_numba_is_not_imported_without_a_quarto_solve(code):
    assert "numba" not in {m.split(".")[0] for m in _loaded(code)}


def test_a_small_quarto_solve_never_loads_numba():
    """The default kernel starts in Python: a position solved in fewer nodes than switch_nodes() never imports
    numba (its loading alone costs more than the whole search)."""
    code = ("from quaternity_cp.quarto.solver import solve, switch_nodes\n"
            "r = solve([None, 10, 5, None, None, 3, 1, 8, None, None, 14, 11, 7, 12, 0, None], 6)\n"
            "assert r.kernel == 'python' and r.nodes < switch_nodes(6), r")
    assert "numba" not in {m.split(".")[0] for m in _loaded(code)}
    command = ("from click.testing import CliRunner\nfrom quaternity_cli.main import main\n"
               "r = CliRunner().invoke(main, ['quarto', 'solve', 'examples/quarto/position.json'])\n"
               "assert r.exit_code == 0, r.output")
    assert "numba" not in {m.split(".")[0] for m in _loaded(command)}


def test_a_large_quarto_solve_switches_to_the_fast_kernel(monkeypatch):
    from quaternity_cp.quarto import solver
    from quaternity_cp.quarto.solver import switch_nodes

    solver.load_fast()  # loaded in this process: every later search runs it from the start
    assert solve([None, 10, 5, None, None, 3, 1, 8, None, None, 14, 11, 7, 12, 0, None], 6).kernel == "fast"
    monkeypatch.setattr(solver, "_LOADER", None)  # as in a new process: the kernel not loaded yet
    events = []
    board, hand = random_position(random.Random(4), 13)
    result = solve(board, hand, max_seconds=2, on_event=lambda name, info: events.append((name, info)))
    assert result.kernel == "fast" and result.nodes > switch_nodes(13)
    progress = [info for name, info in events if name == "progress"]
    assert progress[0]["kernel"] == "python" and progress[-1]["kernel"] == "fast"
    first_fast = next(i for i, info in enumerate(progress) if info["kernel"] == "fast")
    assert progress[first_fast - 1]["nodes"] >= switch_nodes(13)  # the Python search ran to the threshold


def test_the_switch_keeps_the_value(monkeypatch):
    """Switching in the middle of a search (here after 2,048 nodes) gives the Python search's value."""
    from quaternity_cp.quarto import solver

    monkeypatch.setattr(solver, "SWITCH_NODES", 2048)
    rng = random.Random(5)
    switched = 0
    while switched < 4:
        squares = switched % 2 == 1
        board, hand = random_position(rng, 10, squares)
        python = solve(board, hand, squares=squares, kernel="python")
        monkeypatch.setattr(solver, "_LOADER", None)  # as in a new process: the kernel not loaded yet
        auto = solve(board, hand, squares=squares)
        assert auto.value == python.value, (board, hand, squares)
        check_pv(board, hand, squares, auto)
        switched += auto.kernel == "fast"
        assert auto.kernel == ("fast" if python.nodes >= 2048 else "python")


# -- proofs from work units (quaternity_cp/quarto/proof.py) -----------------------------------------

def check_best(board, hand, squares, value, best):
    """The move ``best`` reaches ``value`` (the Python search judges the position after it)."""
    from test_quarto_solver import ref_wins_at

    cell, gift = best
    after = list(board)
    after[cell] = hand
    if ref_wins_at(after, cell, squares):
        achieved = "win"
    elif gift is None:
        achieved = "draw"
    else:
        achieved = {"win": "loss", "loss": "win", "draw": "draw"}[solve(after, gift, squares=squares,
                                                                          kernel="python").value]
    assert achieved == value, (board, hand, best)


@QUICK
@given(seed=st.integers(0, 10**9), empty=st.integers(5, 9), split=st.integers(1, 3), squares=st.booleans())
def test_a_proof_from_work_units_gives_the_solvers_value(seed, empty, split, squares):
    from quaternity_cp.quarto.proof import prove

    board, hand = position(seed, empty, squares)
    split = min(split, 2) if empty > 7 else split
    expected = solve(board, hand, squares=squares, kernel="python").value
    proof = prove(board, hand, squares=squares, split=split, workers=0, table_bits=14)
    assert (proof.value, proof.status) == (expected, "solved")
    check_best(board, hand, squares, proof.value, proof.best)


def test_a_stopped_proof_resumes_from_its_checkpoint(tmp_path):
    from quaternity_cp.quarto.proof import ProofError, prove

    board, hand = random_position(random.Random(12), 9)
    path = str(tmp_path / "proof.json")
    whole = prove(board, hand, split=2, workers=0, table_bits=14)
    assert whole.units > 6

    def stop_after_three(answered, asked):
        if asked == 3:
            raise KeyboardInterrupt

    stopped = prove(board, hand, split=2, workers=0, checkpoint=path, progress=stop_after_three, table_bits=14)
    assert (stopped.status, stopped.asked, stopped.units) == ("interrupted", 3, 3)
    assert len(json.load(open(path))["units"]) == 3
    resumed = prove(board, hand, split=2, workers=0, checkpoint=path, table_bits=14)
    assert (resumed.value, resumed.best, resumed.status) == (whole.value, whole.best, "solved")
    assert (resumed.units, resumed.asked) == (whole.units, whole.units - 3)  # none asked twice
    assert len(json.load(open(path))["units"]) == resumed.units
    # a checkpoint of another position is refused, not mixed in
    other, other_hand = random_position(random.Random(13), 9)
    with pytest.raises(ProofError, match="not a proof of this position"):
        prove(other, other_hand, split=2, workers=0, checkpoint=path)


def test_a_proof_stops_at_its_limits():
    from quaternity_cp.budget import Limits
    from quaternity_cp.quarto.proof import prove

    result = prove([None] * 16, 0, split=3, workers=0, limits=Limits(max_positions=1))
    assert result.status == "limit" and result.value is None and result.asked >= 1


def test_a_proof_on_local_dask_workers():
    from quaternity_cp.quarto.proof import prove

    board, hand = random_position(random.Random(14), 9, True)
    proof = prove(board, hand, squares=True, split=2, workers=2, table_bits=16)
    assert proof.value == solve(board, hand, squares=True, kernel="python").value
    assert proof.workers == "2 local workers"


def run_quarto(*args, input=None):
    from click.testing import CliRunner

    from quaternity_cli.main import main

    return CliRunner().invoke(main, ["quarto", *args], input=input)


DRAWN = {"game": "quarto", "to_move": 1, "piece": "LSSS", "board": [
    [None, "DRSS", "LSTH", None], [None, "LRSH", "LRTH", "DRTS"],
    [None, None, "DSSS", "DRSH"], ["LSSH", "DSTS", "LRTS", None]]}


def test_cli_solve_split(tmp_path):
    checkpoint = str(tmp_path / "proof.json")
    result = run_quarto("solve", "-", "--split", "2", "--workers", "0", "--json", "--checkpoint", checkpoint,
                        input=json.dumps(DRAWN))
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["value"], data["best"], data["status"], data["pv"]) == ("draw", "D4 DSTH", "solved", ["D4 DSTH"])
    shape = data["proof"]
    assert shape["split"] == 2 and shape["top_nodes"][0] == 1 and shape["units"] == shape["units_this_run"] > 0
    again = json.loads(run_quarto("solve", "-", "--split", "2", "--workers", "0", "--json", "--checkpoint", checkpoint,
                                  input=json.dumps(DRAWN)).output)
    assert again["value"] == "draw" and again["proof"]["units_this_run"] == 0 and again["nodes"] == data["nodes"]
    bad = run_quarto("solve", "-", "--workers", "2", input=json.dumps(DRAWN))
    assert bad.exit_code == 2 and "go with --split" in bad.output
    other = run_quarto("solve", "-", "--split", "3", "--workers", "0", "--checkpoint", checkpoint,
                       input=json.dumps(DRAWN))  # the checkpoint of another split: one line, before any output
    assert other.exit_code == 2 and other.output.count("\n") == 1, other.output
    assert "is not a proof of this position with split 3" in other.output


def solved_checkpoint(tmp_path):
    """A checkpoint written by `quarto solve --split 2` of DRAWN, its path and the position file's."""
    position = tmp_path / "drawn.json"
    position.write_text(json.dumps(DRAWN))
    checkpoint = tmp_path / "proof.json"
    result = run_quarto("solve", str(position), "--split", "2", "--workers", "0", "--checkpoint", str(checkpoint))
    assert result.exit_code == 0 and "Value: draw" in result.output, result.output
    return position, checkpoint


def edited(text: str) -> str:
    """The checkpoint with every answer turned round (its digest left as it was)."""
    data = json.loads(text)
    for unit in data["units"]:
        unit[2] = not unit[2]
    return json.dumps(data)


@pytest.mark.parametrize("content, message", [
    ("deep nesting", "nested more than 20 levels deep"),
    ("infinite nodes", "Infinity is not a JSON value"),
    ("/dev/zero", "a character device, not a regular file"),
    ("/dev/full", "a character device, not a regular file"),
    ("edited answers", "its digest does not match its answers"),
    ("no digest", "its digest does not match its answers"),
    ("version 1", "written by an older version (with no digest)"),
])
def test_a_bad_checkpoint_is_refused_in_one_line(tmp_path, content, message):
    """The checkpoint is read by the strict loader (size, depth, numbers; special files refused before
    reading) and its digest checked: exit 2 and one line, never a crash, a hang or a wrong value."""
    position, checkpoint = solved_checkpoint(tmp_path)
    text = checkpoint.read_text()
    if content.startswith("/dev/"):
        if not os.path.exists(content):
            pytest.skip(f"no {content} here")
        checkpoint = content
    elif content == "deep nesting":
        checkpoint.write_text("[" * 100_000 + "]" * 100_000)
    elif content == "infinite nodes":
        data = json.loads(text)
        data["units"][0][3] = "nodes"
        checkpoint.write_text(json.dumps(data).replace('"nodes"', "Infinity"))
    elif content == "edited answers":
        checkpoint.write_text(edited(text))
    elif content in ("no digest", "version 1"):
        data = json.loads(text)
        del data["digest"]
        if content == "version 1":
            data["format"] = "quaternity-quarto-proof-1"
        checkpoint.write_text(json.dumps(data))
    before = None if isinstance(checkpoint, str) else checkpoint.read_bytes()
    result = run_quarto("solve", str(position), "--split", "2", "--workers", "0", "--checkpoint", str(checkpoint))
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and message in result.output, result.output
    if content.startswith("/dev/"):  # refused as the place the checkpoint is written to, before it is read
        assert result.output.startswith(f"quaternity: --checkpoint: {checkpoint} is "), result.output
    else:
        assert result.output.startswith(f"quaternity: checkpoint {checkpoint}: ")
    if before is not None:
        assert checkpoint.read_bytes() == before  # a refused checkpoint is left as it was


def test_a_checkpoint_of_one_variant_is_refused_for_the_other(tmp_path):
    """A proof under the squares rules and one under the standard rules ask different questions (other lines,
    other symmetries): the checkpoint records its variant, and the other variant's proof refuses it."""
    from quaternity_cp.quarto.proof import ProofError, check_checkpoint, prove

    rng = random.Random(15)
    while True:  # a position whose proofs ask units under both rules (no line completed under either)
        board, hand = random_position(rng, 9, True)
        if all(prove(board, hand, squares=squares, split=2, workers=0, table_bits=14).units
               for squares in (False, True)):
            break
    for squares in (False, True):
        path = str(tmp_path / f"proof-{squares}.json")
        proof = prove(board, hand, squares=squares, split=2, workers=0, checkpoint=path, table_bits=14)
        assert proof.status == "solved" and check_checkpoint(path, board, hand, squares=squares, split=2) > 0
        with pytest.raises(ProofError, match="not a proof of this position"):
            check_checkpoint(path, board, hand, squares=not squares, split=2)
        with pytest.raises(ProofError, match="not a proof of this position"):
            prove(board, hand, squares=not squares, split=2, workers=0, checkpoint=path, table_bits=14)


# -- the opening table --------------------------------------------------------------------------------

def small_table(monkeypatch):
    """A table proven here for a position with 9 empty cells, as the package's table."""
    from quaternity_cp.quarto import openings
    from quaternity_cp.quarto.proof import prove

    board, hand = random_position(random.Random(21), 7)
    proof = prove(board, hand, split=2, workers=0, complete=True, table_bits=14)
    data = openings.table_json(proof, False)
    entries = {int(k, 16): openings.Entry(ge0, le0, None if c is None else int(c, 16))
               for k, ge0, le0, c in data["entries"]}
    monkeypatch.setattr(openings, "shipped", lambda: entries)
    return board, hand, proof, entries


def test_every_entry_of_a_complete_table_is_its_positions_value(monkeypatch):
    from quaternity_cp.quarto import openings

    board, hand, proof, entries = small_table(monkeypatch)
    assert openings.lookup(board, hand).value == proof.value
    checked = 0
    for key, entry in entries.items():
        image, image_hand = openings.position_of(key)
        expected = solve(image, image_hand, kernel="python").value
        if entry.value is not None:
            assert entry.value == expected, key
            checked += 1
        else:
            assert (entry.ge0 is None or entry.ge0 == (expected != "loss")) and \
                   (entry.le0 is None or entry.le0 == (expected != "win"))
        found = openings.book_move(image, image_hand)
        if found is not None and entry.value is not None:
            check_best(image, image_hand, False, entry.value, found[0])
    assert checked > 5


def test_cli_openings_writes_the_table_it_proved(tmp_path, monkeypatch):
    """The command's output: the table file (read back by the package's reader) and its one-line summary."""
    from quaternity_cp.quarto import cli as cmd_quarto
    from quaternity_cp.quarto import openings

    board, hand, proof, entries = small_table(monkeypatch)
    monkeypatch.setattr(cmd_quarto, "_run_proof", lambda *args, **kwargs: (proof, False))
    out = tmp_path / "table.json"
    result = run_quarto("openings", "--out", str(out), "--plies", "2", "--workers", "0")
    assert result.exit_code == 0, result.output
    squares, read = openings.read(str(out))
    assert squares is False and read == entries
    known = sum(1 for e in read.values() if e.ge0 is not None and e.le0 is not None)
    assert result.output.startswith(f"{out}: {len(read)} positions ({known} with both bounds); the empty board: ")
    again = run_quarto("openings", "--out", str(out), "--plies", "2", "--workers", "0")
    assert again.exit_code == 2 and "--force" in again.output


def symmetry_key(board, hand):
    from quaternity_cp.quarto import symmetry

    return symmetry.canonical_key(board, hand)


def as_position(board, hand):
    """The library's Position of a solver position (through the position file format)."""
    from quaternity_cp.quarto import Piece
    from quaternity_cp.quarto.formats import check, parse

    rows = [[None if p is None else Piece(p).name for p in board[r * 4:r * 4 + 4]] for r in range(4)]
    placed = sum(p is not None for p in board)
    text = json.dumps({"game": "quarto", "board": rows, "piece": Piece(hand).name, "to_move": (placed + 1) % 2})
    result = check(parse(text))
    assert result.valid, result.message
    return result.position


def test_the_solver_agent_and_the_web_verdict_answer_from_the_table(monkeypatch):
    from quaternity_cp.quarto import web
    from quaternity_cp.quarto.agents import SolverAgent

    board, hand, proof, entries = small_table(monkeypatch)

    def no_search(self, position):
        raise AssertionError("the table has the move: no search")

    monkeypatch.setattr(SolverAgent, "solve", no_search)
    cell, gift = SolverAgent(random.Random(1)).complete_turn(as_position(board, hand))
    check_best(board, hand, False, proof.value, (int(cell), int(gift)))
    verdict = web._from_openings(board, hand, False, "you")
    assert verdict["value"] == proof.value and "opening table" in verdict["text"]
    assert verdict["best"] is not None


SHIPPED_SAMPLE = 3


def test_the_shipped_table_holds_proven_bounds():
    """A sample of the package's entries, re-proven with the compiled search (the cheapest: the most pieces)."""
    from quaternity_cp.quarto import openings
    from quaternity_cp.quarto.proof import GE0, run_unit

    entries = openings.shipped()
    assert entries, "the package ships quaternity_cp/quarto/openings.json"
    for start in ([None] * 16, None), ([None] * 16, 0):  # the empty board is no loss for either side
        root = entries.get(symmetry_key(*start))
        assert root is None or (root.ge0 is not False and root.le0 is not False)
    sample = sorted(entries.items(), key=lambda item: -sum(p is not None for p in openings.position_of(item[0])[0]))
    checked = 0
    for key, entry in sample:
        board, hand = openings.position_of(key)
        if hand is None or entry.ge0 is None:
            continue
        answer, _, _ = run_unit(tuple(board), hand, False, GE0, 20)
        assert answer == entry.ge0, key
        checked += 1
        if checked == SHIPPED_SAMPLE:
            break
    assert checked > 0
