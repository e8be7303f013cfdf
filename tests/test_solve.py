"""The solver against a plain brute-force game-tree search, the puzzles, and the solve command.

The brute force shares nothing with the solver: it plays on the reference
implementation of the rules (explicit deals, ``reference.py``), keys positions
by their raw set of deals (no symmetry), builds the whole reachable graph and
finds the positions from which a player forces its goal by plain fixpoint
iteration (a node of the player joins when some successor is in, any other
node when every successor is in; a node without moves never joins: a game that
never ends is no win). The quartet goal is a plain recursive AND-OR search
with a question budget, no table at all. Both use the solver's documented
conventions: a shared turn is chosen by the goal player's opponents and
illegal moves are never played.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from reference import Reference, reference_replay

from quaternity_cp import Game, Position, Rules
from quaternity_cp.quartets.engines import FlowEngine, SetsEngine
from quaternity_cp.quartets.formats import parse_record
from quaternity_cp.quartets.game import Declaration, Question
from quaternity_cp.quartets.solver import Context, SolveError, solve

ROOT = Path(__file__).resolve().parent.parent
PUZZLES = ROOT / "examples" / "puzzles"


# -- the brute force -------------------------------------------------------------------
class Brute:
    def __init__(self, game: Game, rules: Rules):
        self.ref = Reference(game, rules)
        self.rules = rules

    def key(self, st):
        deals = np.unique(st.deals, axis=0)
        order = None
        if self.rules.tie == "first":  # only the order in which the scorers scored matters
            seen = sorted({st.reached[p] for p, s in enumerate(st.scores) if s > 0})
            order = tuple(seen.index(st.reached[p]) if s > 0 else -1 for p, s in enumerate(st.scores))
        return deals.tobytes(), deals.shape, st.claimed, st.scores, order, st.turn, st.pending, st.loser

    def play(self, st, move):
        new, kind = self.ref.play(st, move, max(st.reached) + 1)
        assert kind is None, (move, kind)
        return new

    def children(self, st):
        if st.over:
            return []
        if st.pending is None and len(st.turn) > 1:  # a free choice of who moves
            return [replace(st, turn=(p,)) for p in st.turn]
        return [self.play(st, m) for m in self.ref.legal_moves(st)]

    @staticmethod
    def mover(st) -> int:
        if st.pending is not None:
            return st.pending.target
        return st.turn[0] if len(st.turn) == 1 else -1

    def graph(self, root):
        ids, nodes, succ = {}, [], []
        stack = []

        def add(st):
            k = self.key(st)
            if k not in ids:
                ids[k] = len(nodes)
                nodes.append(st)
                succ.append(set())
                stack.append(ids[k])
            return ids[k]

        rid = add(root)
        while stack:
            i = stack.pop()
            succ[i] = {add(ch) for ch in self.children(nodes[i])}
        return rid, nodes, succ

    def forced(self, graph, player, goal) -> bool:
        rid, nodes, succ = graph
        won = {i for i, st in enumerate(nodes) if st.over and goal(self.ref.winners(st))}
        changed = True
        while changed:
            changed = False
            for i, st in enumerate(nodes):
                if i in won or st.over or not succ[i]:
                    continue
                test = any if self.mover(st) == player else all
                if test(j in won for j in succ[i]):
                    won.add(i)
                    changed = True
        return rid in won

    def win(self, graph, player) -> bool:
        return self.forced(graph, player, lambda w: player in w)

    def value(self, graph, player) -> str:
        if self.forced(graph, player, lambda w: tuple(w) == (player,)):
            return "win"
        if self.forced(graph, 1 - player, lambda w: tuple(w) == (1 - player,)):
            return "loss"
        return "draw"

    def quartet(self, st, player, k=10**6) -> bool:
        if st.pending is not None:
            return all(self._after(st, self.play(st, a), player, k) for a in self.ref.legal_moves(st))
        for m in self.ref.legal_moves(st):
            if isinstance(m, Declaration):
                return True
            if k > 0:
                asked = self.play(st, m)
                if all(self._after(asked, self.play(asked, a), player, k - 1) for a in self.ref.legal_moves(asked)):
                    return True
        return False

    def _after(self, before, st, player, k) -> bool:
        if any(b < 0 and a == player for b, a in zip(before.claimed, st.claimed)):
            return True
        if st.over or st.turn != (player,):
            return False
        return self.quartet(st, player, k)


# -- comparing ---------------------------------------------------------------------------
PRESETS = ["quaternity", "quaternity-seat", "blind", "pythagoras"]
VARIANTS = [Rules.preset(p) for p in PRESETS] + [
    Rules.preset("quaternity", handover="fewest-cards", tie="first"),
    Rules.preset("quaternity", handover="most-cards", tie="shared"),
    Rules.preset("blind", invalid="reject", tie="all-lose", handover="fewest"),
    Rules.preset("pythagoras", handover="seat", tie="first"),
]


def compare(game: Game, rules: Rules, moves=(), *, quartet_budgets=(None, 0, 1, 2)) -> dict:
    """Every goal of the solver against the brute force after ``moves``; returns the verdicts."""
    pos = Position(game, rules, engine="flow")
    for m in moves:
        pos.push(m)
    brute = Brute(game, rules)
    steps = reference_replay(game, rules, list(moves))
    st = steps[-1].state if steps else brute.ref.start()
    graph = brute.graph(st)
    seen: dict[str, list[Any]] = {"win": [], "value": [], "quartet": []}
    label = f"P{game.players} N{game.sets} S{game.set_size} {rules} {[game.move_str(m) for m in moves]}"
    for p in range(game.players):
        expect = brute.win(graph, p)
        assert solve(pos, "win", p).result is expect, (label, "win", p)
        seen["win"].append(expect)
    if game.players == 2:
        for p in range(2):
            value = brute.value(graph, p)
            assert solve(pos, "value", p).result == value, (label, "value", p)
            seen["value"].append(value)
    if not pos.over and len(pos.turn) == 1:
        p = pos.turn[0]
        for k in quartet_budgets:
            expect = brute.quartet(st, p, 10**6 if k is None else k)
            assert solve(pos, "quartet", p, max_questions=k).result is expect, (label, "quartet", k)
            seen["quartet"].append(expect)
    return seen


START_CASES = [(g, p) for g in [(2, 2, 2), (2, 3, 2), (2, 2, 3), (4, 2, 2)] for p in PRESETS] + [
    ((3, 3, 2), "quaternity"), ((3, 3, 2), "blind"), ((3, 3, 2), "pythagoras"),
]


@pytest.mark.parametrize("size,preset", START_CASES, ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else v)
def test_start_positions_agree_with_brute_force(size, preset):
    compare(Game(*size), Rules.preset(preset))


def random_moves(game: Game, rules: Rules, rng: random.Random, n: int) -> list:
    pos = Position(game, rules, engine="flow")
    moves: list[Question | Declaration] = []
    while len(moves) < n and not pos.over:
        legal = list(pos.legal_moves())
        if not legal:
            break
        move = rng.choice(legal)
        pos.push(move)
        moves.append(move)
        if pos.pending is not None and rng.random() < 0.7:  # usually answer at once
            move = rng.choice(list(pos.legal_moves()))
            pos.push(move)
            moves.append(move)
    return moves


def test_random_positions_agree_with_brute_force():
    """Positions after random legal moves in tiny games, every rule variant: all goals agree."""
    rng = random.Random(2024)
    games = [(3, 3, 2), (4, 2, 2), (3, 2, 3), (2, 3, 2), (2, 2, 3)]
    tally = {"win": set(), "value": set(), "quartet": set()}
    checked = 0
    for _ in range(40):
        game = Game(*rng.choice(games))
        rules = rng.choice(VARIANTS)
        n = rng.randint(2, 8) if game.players > 2 or game.set_size > 2 else rng.randint(0, 3)
        if (game.players, game.sets, game.set_size) == (3, 2, 3):
            n = max(n, 4)  # its start is too big for the brute force in a unit test
        moves = random_moves(game, rules, rng, n)
        for goal, verdicts in compare(game, rules, moves).items():
            tally[goal].update(verdicts)
            checked += len(verdicts)
    assert tally["win"] == {True, False} and tally["quartet"] == {True, False}
    assert checked > 150


# -- canonical keys ----------------------------------------------------------------------
def test_key_merges_symmetric_positions_and_only_those():
    game = Game(3, 3, 2)
    ctx = Context(game, Rules())

    def key(*moves):
        pos = Position(game, Rules())
        for m in moves:
            pos.push_str(m)
        return ctx.describe(pos.state).key

    # another card of the same set, another set: the same game
    assert key("0>1:A0-") == key("0>1:A1-") == key("0>1:C1-")
    assert key("0>1:A0+", "0>1:B0-") == key("0>1:C1+", "0>1:A1-")
    # another target, another answer: different games
    assert len({key("0>1:A0-"), key("0>2:A0-"), key("0>1:A0+")}) == 3
    # an open question flags its card
    assert key("0>1:A0?") == key("0>1:B1?") != key("0>2:A0?")


def test_set_names_and_order_do_not_matter():
    text = json.dumps({"players": 3, "sets": 3, "set_size": 2, "hands": [2, 2, 2], "turn": 1,
                       "cards": {"A0": [1], "B1": [0, 2]}, "at_least": {"2": {"C": 1}}})
    swapped = text.replace('"A0"', '"X"').replace('"C"', '"A"').replace('"X"', '"C0"')
    ctx = Context(Game(3, 3, 2), Rules())
    a = ctx.describe(parse_record(text).position().state).key
    b = ctx.describe(parse_record(swapped).position().state).key
    assert a == b


# -- strategies are real strategies --------------------------------------------------------
def check_quartet_tree(pos: Position, tree: dict, player: int) -> int:
    """Play the tree on a real position: every legal answer is covered, every leaf is a quartet."""
    if "end" in tree:
        assert tree["end"] == "quartet"
        return 1
    if tree.get("truncated"):
        return 0
    leaves = 0
    if pos.pending is not None:
        legal = {pos.game.move_str(m) for m in pos.legal_moves()}
        assert {e["move"] for e in tree["moves"]} == legal
    else:
        assert len(tree["moves"]) == 1
    for entry in tree["moves"]:
        move = pos.game.parse_move(entry["move"])
        if entry.get("forced_answer"):  # a question shown with its answer: the other answer is illegal
            assert _other_answer_illegal(pos, move)
        claims = pos.push(move)
        if entry["next"].get("end") == "quartet":
            assert any(p == player for _, p in claims)
        leaves += check_quartet_tree(pos, entry["next"], player)
        pos.pop()
    return leaves


def _other_answer_illegal(pos: Position, move) -> bool:
    probe = pos.copy()
    probe.push(move.unanswered())
    return not probe.is_legal(move.answered(not move.answer))


def test_quartet_strategy_tree_is_a_complete_strategy():
    for name in ("04-two-ways-in", "09-long-turn", "02-either-answer"):
        pos = parse_record((PUZZLES / f"{name}.json").read_text()).position("flow")
        res = solve(pos, "quartet", pos.turn[0], depth=40)
        assert res.result is True
        assert check_quartet_tree(pos, res.strategy, pos.turn[0]) >= 2


# -- limits, interrupts, errors ------------------------------------------------------------
def test_position_limit_and_interrupt_give_unproven():
    pos = Position(Game(3, 3, 3))
    res = solve(pos, "win", 0, max_positions=5)
    assert res.status == "limit" and res.verdict == "unproven" and res.result is None

    def stop(_info):
        raise KeyboardInterrupt

    # Ctrl-C while the progress is reported (the 4x3x4 start takes minutes: a report comes)
    res = solve(Position(Game(4, 3, 4)), "win", 0, progress=stop)
    assert res.status == "interrupted" and res.verdict == "unproven"
    assert res.to_json()["result"] is None

    def interrupted(base):
        class Interrupted(base):
            """Ctrl-C at the 20th analysis, whatever the speed of the machine (the set-signature engine is
            asked 42 times by the defence tree of this start, the flow engine thousands of times)."""
            calls = 0

            def analyze(self, c):
                self.calls += 1
                if self.calls == 20:
                    raise KeyboardInterrupt
                return super().analyze(c)
        return Interrupted()

    # the flow engine: every analysis of the search is its own
    res = solve(pos, "win", 0, engine=interrupted(FlowEngine))
    assert res.status == "interrupted" and res.verdict == "unproven" and res.result is None
    # the set-signature engine: the search's fast path has tables of its own, this engine is asked again
    # by the defence tree: Ctrl-C cuts the tree short, the proven result stands
    res = solve(pos, "win", 0, engine=interrupted(SetsEngine))
    assert res.proven and res.result is False and res.tree_stopped == "interrupted"
    assert res.to_json()["tree_stopped"] == "interrupted" and '"stopped": "interrupted"' in json.dumps(res.defense)


def test_goal_errors():
    pos = Position(Game(3, 3, 2))
    with pytest.raises(SolveError):
        solve(pos, "value")
    with pytest.raises(SolveError):
        solve(pos, "quartet", 1)
    with pytest.raises(SolveError):
        solve(pos, "win", 0, max_questions=2)
    with pytest.raises(SolveError):
        solve(pos, "chess")
    with pytest.raises(SolveError, match="lazy must be True or False"):
        solve(pos, "win", 0, lazy="no")


def test_a_game_that_never_ends_is_no_win():
    """Puzzle 7: every finished game reachable is won by seat 1, yet seat 1 cannot force a win:
    seats 0 and 2 can ask each other questions whose only answer is no, forever."""
    from quaternity_cp.quartets.solver.graph import GameGraph

    pos = parse_record((PUZZLES / "07-endless-no.json").read_text()).position("flow")
    ctx = Context(pos.game, pos.rules)
    graph = GameGraph(ctx)
    graph.build(ctx.describe(pos.state))
    assert graph.winners and all(1 in w for w in graph.winners.values())
    assert solve(pos, "win", 1).result is False
    line = solve(pos, "win", 1, depth=6).defense
    moves = []
    while line.get("moves"):
        moves.append(line["moves"][0]["move"])
        line = line["moves"][0]["next"]
    assert len(moves) == 6 and moves[:2] == moves[2:4] == moves[4:]  # the same two questions, again and again


# -- puzzles -----------------------------------------------------------------------------
PUZZLE_FILES = sorted(p for p in PUZZLES.glob("*.json") if not p.name.endswith(".answer.json"))


def puzzle(path: Path) -> tuple[Position, dict]:
    return parse_record(path.read_text()).position("flow"), json.loads(
        path.with_name(path.stem + ".answer.json").read_text())


def test_at_least_ten_puzzles():
    assert len(PUZZLE_FILES) >= 10
    for path in PUZZLE_FILES:
        assert puzzle(path)[1]["answers"]


@pytest.mark.parametrize("path", PUZZLE_FILES, ids=lambda p: p.stem)
def test_puzzle_answer(path):
    pos, answer = puzzle(path)
    for expect in answer["answers"]:
        res = solve(pos, expect["goal"], expect["player"], max_questions=expect.get("max_questions"), depth=0)
        assert res.proven
        assert res.result == expect["result"], expect
        for field in ("questions", "plies"):
            if field in expect:
                assert getattr(res, field) == expect[field], (expect, field)


def reference_state(pos: Position):
    """The reference's state for a position file: every deal consistent with it, enumerated."""
    from reference import RefState

    g, c, st = pos.game, pos.constraints, pos.state
    live = list(c.cards_in_play)
    row = [0] * g.cards
    for s, p in enumerate(st.claimed):
        for card in g.cards_of(s) if p >= 0 else ():
            row[card] = p
    left = list(c.hands)
    rows = []

    def deal(i: int) -> None:
        if i == len(live):
            if all(c.lo[p][s] <= sum(row[card] == p for card in g.cards_of(s)) <= c.hi[p][s]
                   for p in range(g.players) for s in c.sets_in_play):
                rows.append(list(row))
            return
        card = live[i]
        for p in range(g.players):
            if c.domains[card] >> p & 1 and left[p]:
                left[p] -= 1
                row[card] = p
                deal(i + 1)
                left[p] += 1

    deal(0)
    deals = np.array(rows, dtype=np.int8).reshape(len(rows), g.cards)
    return RefState(deals=deals, claimed=st.claimed, scores=st.scores, reached=st.reached, turn=st.turn,
                    pending=st.pending)


#: Chosen by name, not by a number the solver reported (tests/test_puzzles.py re-derives every puzzle).
SMALL_PUZZLES = [PUZZLES / f"{name}.json" for name in
                 ("01-one-question", "02-either-answer", "03-two-questions", "04-two-ways-in", "07-endless-no",
                  "08-too-many-cards")]


@pytest.mark.parametrize("path", SMALL_PUZZLES, ids=lambda p: p.stem)
def test_small_puzzles_agree_with_brute_force(path):
    pos, answer = puzzle(path)
    brute = Brute(pos.game, pos.rules)
    st = reference_state(pos)
    graph = None
    for expect in answer["answers"]:
        p = expect["player"]
        if expect["goal"] == "quartet":
            k = expect.get("max_questions")
            assert brute.quartet(st, p, 10**6 if k is None else k) is expect["result"]
            continue
        graph = graph or brute.graph(st)
        got = brute.win(graph, p) if expect["goal"] == "win" else brute.value(graph, p)
        assert got == expect["result"]


# -- the command ---------------------------------------------------------------------------
def run(*args):
    from quaternity_cli.main import main
    return CliRunner().invoke(main, ["solve", *map(str, args)])


def test_cli_start_json():
    result = run("--start", 3, 3, 2, "--rules", "blind", "--goal", "quartet", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["verdict"] == "yes" and data["questions"] == 0 and data["strategy"]["moves"][0]["move"] == "0!A"
    for key in ("positions", "seconds", "engine", "summary", "defense", "line"):
        assert key in data


def test_cli_puzzle_text_and_json():
    path = PUZZLE_FILES[0]
    answer = puzzle(path)[1]["answers"][0]
    args = [path, "--goal", answer["goal"], "--player", answer["player"]]
    text = run(*args)
    assert text.exit_code == 0 and "Result:" in text.output and "Explored" in text.output
    data = json.loads(run(*args, "--json").output)
    assert data["result"] == answer["result"]


def test_cli_limit_is_unproven():
    result = run("--start", 3, 3, 3, "--max-positions", 3, "--json")
    assert result.exit_code == 0
    assert json.loads(result.output)["verdict"] == "unproven"


@pytest.mark.parametrize("args,code,needle", [
    ((), 2, "either FILE or --start"),
    (("--start", 3, 3, 2, "--goal", "value"), 2, "two players"),
    (("--start", 3, 3, 2, "--goal", "quartet", "--player", 2), 2, "on turn"),
    (("--start", 3, 3, 2, "--player", 7), 2, "--player"),
    (("--start", 3, 2, 2), 2, "evenly"),
    (("--start", 2, 2, 2, "--rules", "chess"), 2, "--rules"),
])
def test_cli_bad_input(args, code, needle):
    result = run(*args)
    assert result.exit_code == code, result.output
    assert needle in result.output and "Traceback" not in result.output


def test_cli_illegal_record_and_invalid_position(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("players: 2\nsets: 2\nset_size: 2\n0>1:A0-\n")
    result = run(bad)
    assert result.exit_code == 1 and "illegal" in result.output
    invalid = tmp_path / "invalid.json"
    invalid.write_text(json.dumps({"players": 2, "sets": 2, "set_size": 2, "cards": {"A0": [0], "A1": [0]},
                                   "at_most": {"0": {"A": 1}}}))
    result = run(invalid)
    assert result.exit_code == 1 and "invalid" in result.output


def test_shared_turn_goes_to_the_opponents():
    """Puzzle 6: seats 0 and 1 share the turn (handover = fewest); whoever moves can force a win,
    so with the choice given to the opponents neither can. The brute force agrees."""
    pos, _ = puzzle(PUZZLES / "06-shared-turn.json")
    assert pos.turn == (0, 1)
    for seat in (0, 1):
        assert solve(pos, "win", seat).result is False
        alone = Position(pos.game, pos.rules, state=replace(pos.state, turn=(seat,)))
        assert solve(alone, "win", seat).result is True
    brute = Brute(pos.game, pos.rules)
    graph = brute.graph(reference_state(pos))
    assert [brute.win(graph, p) for p in range(3)] == [False, False, False]
