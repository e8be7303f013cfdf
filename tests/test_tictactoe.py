"""The docs' example game (examples/tictactoe, docs/adding-a-game.md), registered here and played through every
front end that serves a registered game: the conformance checks, the tournament runner (in this process and on
worker processes that load it from QUATERNITY_GAME_MODULES), the web API, the OpenSpiel and PettingZoo bridges."""

from __future__ import annotations

import importlib
import itertools
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quaternity_cp.registry import AGENTS, GAMES, TERMINAL, GameState, load_all, register_agent, register_game
from test_conformance import assert_record_passes, assert_returns_as_documented, checked_playout, plain_playout

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = str(ROOT / "examples")


@pytest.fixture(scope="module", autouse=True)
def tictactoe():
    """The game registered for this module only (the other tests see the registry as it was)."""
    sys.path.insert(0, EXAMPLES)
    try:
        module = importlib.import_module("tictactoe")
        register_game(module.SPEC)  # again, when an earlier module of the session imported it and cleaned up
        register_agent("tictactoe", "random", module.Random)
        register_agent("tictactoe", "greedy", module.Greedy)
        yield module
    finally:
        GAMES.pop("tictactoe", None)
        AGENTS.pop("tictactoe", None)
        sys.path.remove(EXAMPLES)


# -- the rules, against a brute-force reference of its own --------------------------------------------------
def reference_winner(moves: list[int]) -> int | None:
    """Who has three in a row, from the marks as (column, row) pairs: same row, same column, or a diagonal."""
    for seat in (0, 1):
        mine = {(c % 3, c // 3) for c in moves[seat::2]}
        for trio in itertools.combinations(mine, 3):
            xs, ys = {x for x, _ in trio}, {y for _, y in trio}
            if len(xs) == 1 or len(ys) == 1 or all(x == y for x, y in trio) or all(x + y == 2 for x, y in trio):
                return seat
    return None


@settings(max_examples=200, deadline=None)
@given(st.permutations(range(9)), st.integers(0, 9))
def test_the_rules_agree_with_a_brute_force_reference(order, length):
    state = GAMES["tictactoe"].new_state(0)
    assert isinstance(state, GameState) and state.chance == []
    for i, cell in enumerate(order[:length]):
        over = reference_winner(list(order[:i])) is not None or i == 9
        assert state.is_terminal() == over
        if over:
            with pytest.raises(Exception, match="not a legal move"):
                state.apply_action(cell)
            return
        assert sorted(state.legal_actions()) == sorted(set(range(9)) - set(order[:i]))
        state.apply_action(cell)
    moves = list(order[:length])
    winner = reference_winner(moves)
    assert state.is_terminal() == (winner is not None or length == 9)
    if state.is_terminal():
        assert state.returns() == ([0.5, 0.5] if winner is None else [float(p == winner) for p in (0, 1)])
        assert state.current_player() == TERMINAL


def test_the_conformance_checks():
    for seed in range(20):
        state = checked_playout("tictactoe", {}, seed)
        record = state.record()
        assert record == plain_playout("tictactoe", {}, seed)
        assert_record_passes("tictactoe", record)
        assert_returns_as_documented("tictactoe", {}, state)
        winner = reference_winner([state.string_to_action(m) for m in record["moves"]])
        assert state.returns() == ([0.5, 0.5] if winner is None else [float(p == winner) for p in (0, 1)])


def test_the_record_checker_names_the_bad_move():
    check = GAMES["tictactoe"].check_record
    check({"game": "tictactoe", "moves": ["b2", "a1"]})
    with pytest.raises(ValueError, match=r"^move 3 \(b2\): "):
        check({"game": "tictactoe", "moves": ["b2", "a1", "b2"]})
    with pytest.raises(ValueError, match=r"^move 1 \(d4\): 'd4' is not a cell"):
        check({"game": "tictactoe", "moves": ["d4"]})
    assert GAMES["tictactoe"].svg(GAMES["tictactoe"].new_state(0)).startswith("<svg")


# -- the tournament runner ------------------------------------------------------------------------------
def test_the_tournament_runner_in_this_process(tmp_path):
    from quaternity_cp.tournament import run_tournament

    result = run_tournament("tictactoe", ["greedy", "random"], 12, seed=3, records=tmp_path)
    assert result.summary()["games"] == len(result.games) == 12
    for game in result.games:  # each game's winners are those of its record, by the reference
        record = json.loads((tmp_path / f"game-{game.index:06d}.json").read_text())
        assert_record_passes("tictactoe", record)
        winner = reference_winner([GAMES["tictactoe"].new_state(0).string_to_action(m) for m in record["moves"]])
        assert game.winners == (() if winner is None else (winner,))  # a draw: nobody won (as in Quarto)
    wins = sum(game.seats[w] == "greedy" for game in result.games for w in game.winners)
    assert result.summary()["results"]["greedy"]["wins"] == wins


def test_worker_processes_load_the_game_from_the_environment(tmp_path):
    """Workers are fresh processes: they find the game through QUATERNITY_GAME_MODULES (and the path)."""
    env = {**os.environ, "QUATERNITY_GAME_MODULES": "tictactoe",
           "PYTHONPATH": os.pathsep.join([EXAMPLES, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    command = [sys.executable, "-c", "from quaternity_cli.main import main; main()"]
    arguments = ["tournament", "--game", "tictactoe", "--agents", "greedy,random", "--games", "16", "--workers", "2",
                 "--records", str(tmp_path), "--json"]
    out = subprocess.run(command + arguments, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    records = sorted(tmp_path.glob("*.json"))
    assert len(records) == 16
    for path in records:
        assert_record_passes("tictactoe", json.loads(path.read_text()))
    assert data["games"] == 16 and set(data["results"]) == {"greedy", "random"}


# -- the web API ------------------------------------------------------------------------------------------
def test_a_web_table_to_the_end():
    pytest.importorskip("starlette", reason="the web extra")
    from starlette.testclient import TestClient

    from quaternity_cp.web.app import Settings, create_app

    rng = random.Random(7)
    with TestClient(create_app(Settings(act_seconds=600))) as client:
        assert "tictactoe" in client.get("/api/games").json()
        view = client.post("/api/new", json={"game": "tictactoe", "seed": 1, "agents": {"1": "greedy"}}).json()
        gid = view["id"]
        assert client.get(view["rules"]).status_code == 200
        assert 'Quaternity.registerGame("tictactoe"' in client.get("/games/tictactoe/table.js").text
        for _ in range(9):
            if view["over"]:
                break
            assert view["your_turn"] and view["moves"]
            res = client.post(f"/api/act/{gid}", json={"action": rng.choice(view["moves"])})
            assert res.status_code == 200, res.text
            view = res.json()
        assert view["over"] and view["result"]["outcome"] in ("won", "lost", "draw")
        record = client.get(f"/api/record/{gid}").json()
        assert_record_passes("tictactoe", record)
        res = client.post(f"/api/act/{gid}", json={"action": "a1"})
        assert res.status_code >= 400


# -- the research bridges ---------------------------------------------------------------------------------
def test_the_openspiel_bridge():
    pyspiel = pytest.importorskip("pyspiel")
    spiel = importlib.import_module("quaternity_cp.spiel")
    assert "python_tictactoe" in spiel.register_games()
    game = pyspiel.load_game("python_tictactoe")
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)
    rng = random.Random(2)
    for _ in range(30):
        state = game.new_initial_state()
        moves = []
        while not state.is_terminal():
            action = rng.choice(state.legal_actions())
            moves.append(action)
            state.apply_action(action)
        winner = reference_winner(moves)
        assert state.returns() == ([0.5, 0.5] if winner is None else [float(p == winner) for p in (0, 1)])
        assert state.observation_tensor(0)[:2] == [1.0, 0.0]
        assert str(state) == " ".join("abc"[c % 3] + str(c // 3 + 1) for c in moves)


def test_the_pettingzoo_environment():
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from quaternity_cp.aec import GameEnv

    api_test(GameEnv(game="tictactoe"), num_cycles=50, verbose_progress=False)
    env = GameEnv(game="tictactoe")
    env.reset(seed=1)
    assert env.max_moves == 9 and int(env.action_space(env.agent_selection).n) == 9
    assert "tictactoe" in load_all()


# -- every part, through the real command ---------------------------------------------------------------------
# `quaternity` in a fresh process that finds the game as docs/adding-a-game.md says: PYTHONPATH=examples and
# QUATERNITY_GAME_MODULES=tictactoe.
RECORD = ROOT / "examples" / "tictactoe" / "game.json"  # x wins on a2 b2 c2 after o's b1
ILLEGAL = ROOT / "examples" / "tictactoe" / "illegal.json"  # move 3 (b2): b2 is taken


def quaternity(*args: object, stdin: str | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QUATERNITY_GAME_MODULES": "tictactoe",
           "PYTHONPATH": os.pathsep.join([EXAMPLES, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    command = [sys.executable, "-c", "from quaternity_cli.entry import main; main()", *map(str, args)]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


def one_line(out: subprocess.CompletedProcess[str], code: int) -> str:
    """The one line on standard error of a refusal with exit code ``code``."""
    assert out.returncode == code, (out.stdout, out.stderr)
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("quaternity: ") and "Traceback" not in out.stdout, out.stderr
    return lines[0]


def test_the_example_declares_every_part_and_each_imports(tictactoe):
    from quaternity_cp.registry import PARTS

    spec = GAMES["tictactoe"]
    assert set(spec.parts) == set(PARTS)
    for name in PARTS:
        assert spec.part(name) is not None
    assert spec.part("cli").name == "tictactoe" and set(spec.part("cli").commands) == {"check", "solve"}


def test_the_examples_docstrings(tictactoe):
    import doctest

    for name in ("tictactoe", "tictactoe.solver"):
        result = doctest.testmod(importlib.import_module(name))
        assert result.attempted and not result.failed


def test_quaternity_check_hands_the_record_to_the_game():
    out = quaternity("check", RECORD)
    assert out.returncode == 0, out.stderr
    assert "   2  o b1  ok" in out.stdout and out.stdout.rstrip().endswith("x won: a2 b2 c2.")
    data = json.loads(quaternity("check", RECORD, "--json").stdout)
    assert data["valid"] and data["over"] and data["winners"] == [0] and data["line"] == ["a2", "b2", "c2"]
    assert quaternity("tictactoe", "check", RECORD).stdout == out.stdout  # the game's own command, the same
    illegal = quaternity("check", ILLEGAL, "--json")
    assert illegal.returncode == 1
    data = json.loads(illegal.stdout)
    assert not data["valid"] and data["error"] == {"move": 3, "reason": "b2 is taken"} and data["moves_applied"] == 2
    assert "ILLEGAL move 3 (b2): b2 is taken" in quaternity("check", ILLEGAL).stdout
    line = one_line(quaternity("check", "-", stdin='{"game": "tictactoe", "moves": ["b2", "d4"]}'), 2)
    assert line == "quaternity: <stdin>: move 2 (d4): 'd4' is not a cell (a1 .. c3: column letter, row number)"


@pytest.mark.parametrize("text,code,words", [
    ('{"game": "tictactoe", "moves": ["b2", "a1", "b2"]}', 1, None),  # a cell taken
    ('{"game": "tictactoe", "moves": ["a1", "b1", "a2", "b2", "a3", "c3"]}', 1, None),  # a move after x won
    ('{"game": "tictactoe", "moves": ["b2", "A1 "]}', 0, None),  # any case, spaces around
    ('{"game": "tictactoe", "moves": ["b2", 4]}', 2, "move 2 (4): 4 is not a cell"),
    ('{"game": "tictactoe", "moves": "b2 a1"}', 2, "a tic-tac-toe record is"),
    ('{"game": "tictactoe", "moves": [], "seed": 1}', 2, "no other field"),
    ('{"game": "tictactoe", "moves": [}', 2, "not a tic-tac-toe record"),
    ('[1, 2]', 2, "a tic-tac-toe record is"),
])
def test_the_check_command_exit_codes(tictactoe, tmp_path, text, code, words):
    from click.testing import CliRunner

    result = CliRunner().invoke(importlib.import_module("tictactoe.cli").tictactoe, ["check", "-"], input=text)
    assert result.exit_code == code, result.output
    if words is not None:
        assert result.stderr.count("\n") == 1 and words in result.stderr and not result.stdout


def negamax(state) -> tuple[int, int]:
    """A reference without a table: (value, plies) for the player to move, a win as soon and a loss as late as
    can be."""
    if state.is_terminal():
        return (0 if state.winner() is None else -1), 0
    outcomes = []
    for cell in state.legal_actions():
        state.apply_action(cell)
        value, plies = negamax(state)
        state.undo()
        outcomes.append((-value, plies + 1))
    return max(outcomes, key=lambda o: (o[0], -o[1] if o[0] >= 0 else o[1]))


@settings(max_examples=60, deadline=None)
@given(st.permutations(range(9)), st.integers(2, 8))
def test_the_solver_against_a_search_without_a_table(tictactoe, order, length):
    from tictactoe.solver import solve

    state = GAMES["tictactoe"].new_state(0)
    for cell in order[:length]:
        if state.is_terminal():
            break
        state.apply_action(cell)
    solution = solve(state)
    assert (solution.value, solution.plies) == negamax(state.clone())
    for cell, outcome in solution.moves.items():
        state.apply_action(cell)
        value, plies = negamax(state.clone())
        state.undo()
        assert outcome == (-value, plies + 1)


def test_quaternity_solve_and_its_limit(tmp_path):
    path = tmp_path / "game.json"
    path.write_text('{"game": "tictactoe", "moves": ["b2", "b1"]}')  # o's b1 loses: x wins in 3
    out = quaternity("solve", path, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["verdict"] == "win" and data["plies"] == 5 and data["turn"] == 0 and data["proven"]
    assert quaternity("solve", path).stdout.startswith("x to move: x wins in 3 (")
    data = json.loads(quaternity("tictactoe", "solve", "-", "--json", "--max-positions", "10",
                                 stdin=path.read_text()).stdout)
    assert data["verdict"] == "unproven" and not data["proven"]
    one_line(quaternity("solve", ILLEGAL), 1)


def test_quaternity_report(tmp_path):
    out = quaternity("report", RECORD, "-o", tmp_path / "game.html")
    assert out.returncode == 0 and out.stdout.startswith(f"wrote {tmp_path / 'game.html'} ("), out.stderr
    page = (tmp_path / "game.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "x wins in 3 (a1, c1, a2, c2, a3, c3)" in page
    assert page.count('"svg": "\\u003csvg') == 8  # the empty grid and the grid after each of the 7 moves
    illegal = quaternity("report", ILLEGAL, "-o", tmp_path / "illegal.html")
    assert illegal.returncode == 1 and "move 3 (b2): b2 is taken" in (tmp_path / "illegal.html").read_text()
    line = one_line(quaternity("report", "-", "-o", tmp_path / "bad.html", stdin='{"game": "tictactoe"}'), 2)
    assert line.startswith("quaternity: <stdin>: a tic-tac-toe record is") and not (tmp_path / "bad.html").exists()


def test_quaternity_play_to_the_end_and_the_saved_record(tmp_path):
    moves = "".join(f"{cell}\n" for cell in ("b2", "b2", "a1", "c1", "a3", "c3", "a2", "b1", "b3", "c2"))
    out = quaternity("play", "--game", "tictactoe", "--seed", "1", "--no-pause", "--save", tmp_path / "played.json",
                     stdin="help\n" + moves)
    assert out.returncode == 0, out.stderr
    assert "You move first." in out.stdout and "board      the grid again" in out.stdout  # the game's help
    assert "! 'b2' is not legal now: b2 is not a legal move here" in out.stdout  # a refused move, in the game's words
    assert "Game over. Player 1 won: a3 b3 c3." in out.stdout  # greedy completes its line (seed 1)
    assert f"Record saved to {tmp_path / 'played.json'}." in out.stdout
    assert_record_passes("tictactoe", json.loads((tmp_path / "played.json").read_text()))
    check = quaternity("check", tmp_path / "played.json")
    assert check.returncode == 0 and check.stdout.rstrip().endswith("o won: a3 b3 c3."), check.stdout


def test_quaternity_puzzles(tmp_path):
    out = quaternity("puzzle", "generate", "--game", "tictactoe", "--count", "4", "--seed", "1", "--out",
                     tmp_path / "puzzles", "--json")
    assert out.returncode == 0, out.stderr
    made = json.loads(out.stdout)
    assert made["count"] == 4 and [p["name"] for p in made["puzzles"]] == [f"tictactoe-1-00{n}" for n in (1, 2, 3, 4)]
    state_of = GAMES["tictactoe"].new_state
    for puzzle in made["puzzles"]:
        path = Path(puzzle["path"])
        record = json.loads(path.read_text())
        answer = json.loads(path.with_suffix(".answer.json").read_text())
        state = state_of(0)
        for text in record["moves"]:
            state.apply_action(state.string_to_action(text))
        wins = {}  # by the reference: each winning first move -> in how many of the player's own moves
        for cell in state.legal_actions():
            state.apply_action(cell)
            value, plies = negamax(state.clone())  # for the other player
            state.undo()
            if value < 0:
                wins[state.action_to_string(cell)] = (plies + 2) // 2
        n = int(answer["goal"].removeprefix("win in "))
        assert min(wins.values()) == n and answer["first_moves"] == [move for move in wins if wins[move] == n]
        assert len(answer["first_moves"]) == 1 and answer["player"] == state.current_player()
        verified = quaternity("puzzle", "verify", path)
        assert verified.returncode == 0 and "right and unique" in verified.stdout, verified.stderr
    first = tmp_path / "puzzles" / "tictactoe-1-001"
    answer = json.loads(first.with_suffix(".answer.json").read_text())
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({**answer, "goal": f"win in {int(answer['goal'][-1]) + 1}"}))
    assert quaternity("puzzle", "verify", first.with_suffix(".json"), "--answer", wrong).returncode == 1
    wrong.write_text(json.dumps({**answer, "first_moves": ["z9"]}))
    one_line(quaternity("puzzle", "verify", first.with_suffix(".json"), "--answer", wrong), 2)
    sheet = quaternity("puzzle", "sheet", tmp_path / "puzzles", "-o", tmp_path / "sheet.html")
    assert sheet.returncode == 0 and (tmp_path / "sheet.html").read_text().count("<h2>Puzzle ") == 4


def test_the_docs_commands_print_what_the_page_shows(tmp_path):
    """docs/adding-a-game.md, "Every part at work": its commands run in order from a copy of the root (the
    examples linked in), and every line the page shows comes out, in order ("..." leaves lines out)."""
    import re

    page = (ROOT / "docs" / "adding-a-game.md").read_text()
    section = page.split("\n## Every part at work\n")[1].split("\n## ")[0]
    commands, shown = [], []
    for block in re.findall(r"```console\n(.*?)```", section, re.S):
        for line in block.splitlines():
            (commands.append(line[2:]) if line.startswith("$ ") else shown.append(line))
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])}
    out = subprocess.run(["bash", "-c", "\n".join(commands)], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=300).stdout.splitlines()
    at = 0
    for line in (line for line in shown if line != "..."):
        assert line in out[at:], f"{line!r} not printed (after line {at}):\n" + "\n".join(out)
        at = out.index(line, at) + 1


def test_a_game_module_not_on_the_path_is_one_line(tmp_path):
    """QUATERNITY_GAME_MODULES naming a module Python cannot find (its folder not on PYTHONPATH): one line, exit 2,
    from a command that reads a file as from one whose options list the games."""
    env = {**os.environ, "QUATERNITY_GAME_MODULES": "tictactoe"}
    env.pop("PYTHONPATH", None)
    for args in (["check", str(RECORD)], ["play", "--game", "tictactoe"]):
        out = subprocess.run([sys.executable, "-c", "from quaternity_cli.entry import main; main()", *args],
                             capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
        assert one_line(out, 2) == ("quaternity: QUATERNITY_GAME_MODULES: no module 'tictactoe' on the path (put the "
                                    "folder that holds it on PYTHONPATH)")
