"""Quarto agents (quarto-lib's contract) and the game registered through games.py."""

from __future__ import annotations

import random

import pytest

from quaternity_cp.registry import GAMES, TERMINAL, Agent, GameState
from quaternity_cp.quarto import Cell, Move, Piece, Position, QuartoError
from quaternity_cp.quarto.agents import GreedyAgent, RandomAgent, SolverAgent, decide, make_agent, play
from quaternity_cp.quarto.game import QuartoState, new_state
from quarto_reference import ref_winning_lines


def random_position(rng: random.Random, squares: bool = False) -> Position:
    """A position in play with a piece in hand, after a random number of random moves."""
    while True:
        pos = Position(squares=squares)
        stop = rng.randint(1, 15)
        while not pos.over and pos.ply < stop:
            pos.push(rng.choice(list(pos.legal_moves())))
        if not pos.over:
            return pos


def ref(pos: Position) -> dict:
    return {(c // 4, c % 4): int(p) for c, p in enumerate(pos.board.cells) if p is not None}


def ref_wins_with(board: dict, rc, piece: int, squares: bool) -> bool:
    after = {**board, rc: piece}
    return any(rc in line for line in ref_winning_lines(after, squares))


def ref_empty(board: dict) -> list:
    return [(r, c) for r in range(4) for c in range(4) if (r, c) not in board]


def ref_safe(board: dict, cell_rc, give: int, squares: bool) -> bool:
    """After placing, can the opponent win at once with the piece given?"""
    return not any(ref_wins_with(board, rc, give, squares) for rc in ref_empty(board) if rc != cell_rc)


# -- greedy ------------------------------------------------------------------------------
@pytest.mark.parametrize("squares", [False, True])
def test_greedy_wins_when_it_can_and_gives_no_winning_piece_when_it_can_avoid_it(squares):
    rng = random.Random(30 + squares)
    wins = avoids = forced = 0
    for i in range(150):
        pos = random_position(rng, squares)
        board, hand = ref(pos), int(pos.piece)
        cell, piece = GreedyAgent(random.Random(i)).complete_turn(pos)
        assert pos.is_legal(Move(cell, piece))
        rc = (cell // 4, cell % 4)
        can_win = any(ref_wins_with(board, x, hand, squares) for x in ref_empty(board))
        if can_win:
            assert ref_wins_with(board, rc, hand, squares) and piece is None
            wins += 1
            continue
        placed = {**board}
        safe_exists = False
        for x in ref_empty(board):
            after = {**board, x: hand}
            if len(after) == 16:
                safe_exists = True
                break
            used = set(after.values())
            if any(ref_safe(after, None, p, squares) for p in range(16) if p not in used):
                safe_exists = True
                break
        if safe_exists:
            after = {**placed, rc: hand}
            assert (piece is None and len(after) == 16) or ref_safe(after, None, int(piece), squares)
            avoids += 1
        else:
            forced += 1
    assert wins > 15 and avoids > 15


def test_greedy_beats_random_almost_always():
    score = 0
    for i in range(60):
        g, r = GreedyAgent(random.Random(i)), RandomAgent(random.Random(1000 + i))
        pos = play(g, r) if i % 2 == 0 else play(r, g)
        greedy_seat = 0 if i % 2 == 0 else 1
        score += pos.winner == greedy_seat
    assert score >= 50


def test_agents_are_deterministic_given_their_rng():
    for name in ("random", "greedy"):
        a = play(make_agent(name, random.Random(5)), make_agent(name, random.Random(6)))
        b = play(make_agent(name, random.Random(5)), make_agent(name, random.Random(6)))
        assert a.moves == b.moves


def test_unknown_agent_is_an_error():
    with pytest.raises(QuartoError, match="no Quarto agent 'clever'"):
        make_agent("clever")


def test_decide_asks_for_the_initial_piece_first():
    move = decide(RandomAgent(random.Random(1)), Position())
    assert move.cell is None and isinstance(move.piece, Piece)


# -- the solver agent (its fallbacks; the solver itself is tested with the solver) ----------
class FakeResult:
    def __init__(self, status, best):
        self.status, self.best, self.value = status, best, "win" if status == "solved" else None


def test_solver_agent_plays_the_solvers_move_once_few_cells_are_empty(monkeypatch):
    rng = random.Random(8)
    calls = []
    pos = random_position(rng)
    while len(pos.empty_cells()) > 8 or pos.board.winning_cells(pos.piece):
        pos = random_position(rng)
    legal = [m for m in pos.legal_moves()]
    target = legal[len(legal) // 2]

    def fake(self, position):
        calls.append(position.board.as_tuple())
        return FakeResult("solved", (int(target.cell), None if target.piece is None else int(target.piece)))

    monkeypatch.setattr(SolverAgent, "solve", fake)
    agent = SolverAgent(random.Random(1), exact_from=9)
    assert agent.complete_turn(pos) == (target.cell, target.piece) and calls == [pos.board.as_tuple()]

    monkeypatch.setattr(SolverAgent, "solve", lambda self, position: FakeResult("time", None))
    cell, piece = agent.complete_turn(pos)
    assert pos.is_legal(Move(cell, piece))  # greedy's move when unproven


def test_solver_agent_plays_greedy_while_many_cells_are_empty(monkeypatch):
    def boom(self, position):
        raise AssertionError("the solver is not asked with many empty cells")

    monkeypatch.setattr(SolverAgent, "solve", boom)
    pos = Position()
    pos.push("LRTS")
    agent = SolverAgent(random.Random(1), exact_from=9)
    cell, piece = agent.complete_turn(pos)
    assert pos.is_legal(Move(cell, piece))


# -- the game interface ----------------------------------------------------------------------
def test_quarto_is_registered_with_its_agents():
    spec = GAMES["quarto"]
    assert set(spec.agents) == {"random", "greedy", "solver"}
    state = spec.new_state(0)
    assert isinstance(state, GameState) and isinstance(spec.agents["greedy"](), Agent)


def test_options():
    assert new_state(0, squares=True).squares and new_state(0, squares="true").squares
    assert not new_state(0, squares="no").squares and not new_state(0).squares
    with pytest.raises(QuartoError, match="unknown quarto option 'corners'"):
        new_state(0, corners=True)
    with pytest.raises(QuartoError, match="must be true or false"):
        new_state(0, squares="maybe")


def test_a_game_through_the_interface():
    spec = GAMES["quarto"]
    state = spec.new_state(3)
    agents = [spec.agents["greedy"](), spec.agents["random"]()]
    rng = random.Random(3)
    history = []
    while not state.is_terminal():
        p = state.current_player()
        obs = state.observation(p)
        action = agents[p].step(obs, state.legal_actions(), rng)
        assert state.string_to_action(state.action_to_string(action)) == action
        history.append(state.clone())
        state.apply_action(action)
    assert state.current_player() == TERMINAL and state.legal_actions() == []
    w = state.position.winner
    assert state.returns() == ([0.5, 0.5] if w is None else [1.0 * (p == w) for p in range(2)])
    assert state.scores() == [0.0, 0.0] if w is None else state.scores()[w] == 1.0
    # undo walks back through every earlier state
    for earlier in reversed(history):
        state.undo()
        assert state.position.state == earlier.position.state and state.returns() == [0.0, 0.0]


def test_observation_and_clone_are_independent_copies():
    state = new_state(0)
    state.apply_action(Move(None, Piece.DSSH))
    obs = state.observation(1)
    obs.push("A1 LRTS")
    other = state.clone()
    other.apply_action(Move(Cell.B2, Piece.LRTS))
    assert state.position.ply == 1 and state.current_player() == 1


def test_apply_action_rejects_illegal_actions_with_the_rule():
    state = new_state(0)
    with pytest.raises(QuartoError, match="no piece is in hand"):
        state.apply_action(Move(Cell.A1, Piece.LRTS))
    with pytest.raises(QuartoError, match="is a Move"):
        state.apply_action("LRTS")


def test_draws_share_the_win():
    moves = ["DSTS", "C4 LSTS", "C1 DSSS", "B1 DRTS", "D2 LRSH", "B4 LSSH", "A4 DRTH", "D3 LRTS", "B3 DSTH",
             "C3 LRSS", "C2 DSSH", "A1 DRSH", "D1 LSSS", "D4 DRSS", "A3 LRTH", "B2 LSTH", "A2"]
    state = QuartoState()
    for m in moves:
        state.apply_action(state.string_to_action(m))
    assert state.is_terminal() and state.returns() == [0.5, 0.5] and state.scores() == [0.0, 0.0]


def test_the_tournament_runner_plays_quarto_through_the_registration(tmp_path):
    from quaternity_cp.quarto.formats import check, parse
    from quaternity_cp.tournament import run_tournament

    result = run_tournament("quarto", ["greedy", "random"], 6, seed=2, options={"squares": True}, records=tmp_path)
    summary = result.summary()
    assert summary["results"]["greedy"]["wins"] + summary["results"]["random"]["wins"] == 6
    for path in sorted(tmp_path.glob("game-*.json")):
        item = parse(path.read_text())
        assert item.squares and check(item).valid and check(item).position.over
    assert len(list(tmp_path.glob("game-*.json"))) == 6


def test_arena_alternates_who_starts():
    from quaternity_cp.quarto.game import arena

    result = arena("greedy", "random", 4, seed=1)
    assert [g.seats for g in result.games] == [("greedy", "random"), ("random", "greedy")] * 2
    assert result.summary()["results"]["greedy"]["wins"] >= 2


# -- the solver agent with the real solver ---------------------------------------------------
@pytest.mark.parametrize("squares", [False, True])
def test_solver_agent_keeps_the_game_value_in_endgames(squares):
    from quarto_reference import ref_value

    rng = random.Random(40 + squares)
    checked = {1: 0, 0: 0, -1: 0}
    for i in range(30):
        while True:  # greedy play leaves balanced endgames (random play mostly hands over a win)
            pos = Position(squares=squares)
            g = GreedyAgent(random.Random(rng.random()))
            while not pos.over and len(pos.empty_cells()) > 5:
                pos.push(decide(g, pos))
            if not pos.over:
                break
        value = ref_value(ref(pos), int(pos.piece), squares)
        cell, piece = SolverAgent(random.Random(i)).complete_turn(pos)
        pos.push(Move(cell, piece))
        if pos.over:
            after = 1 if pos.winner is not None else 0
        else:
            after = -ref_value(ref(pos), int(pos.piece), squares)
        assert after == value, (pos.moves, value, after)
        checked[value] += 1
    assert checked[1] > 5 and checked[-1] + checked[0] > 5
