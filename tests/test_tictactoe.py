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
