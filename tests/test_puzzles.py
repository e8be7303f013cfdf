"""Every stored puzzle answer re-derived without the solver.

The answers in ``examples/puzzles/*.answer.json`` were produced by the solver;
here each verdict, and each ``questions`` and ``plies`` number, is derived
again by methods that share no code with it:

- **brute force** on explicit deals (``reference.py``: no constraints, no
  engine, no position, no symmetry), where the puzzle's deals can be listed
  (which puzzles: chosen by the number of consistent deals, counted by
  ``count.py``, not by anything the solver reported);
- a plain AND-OR search over :class:`~quaternity_cp.quartets.position.Position` (the
  rules as the library plays them, no canonical keys, no symmetry, no game
  graph), memoized on the exact state only: with a question budget for every
  quartet goal (the only method for the puzzles with hundreds of millions of
  deals), and depth-limited in plies for the forced wins whose brute force is
  an exhaustive run (``--runslow``).

``questions`` is the least budget that succeeds (and one less fails);
``plies`` is recomputed as the solver documents it: the number of moves within
which the win is forced, a question whose answer is forced counting as one
move with its answer.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from test_solve import Brute, reference_state

from quaternity_cp.quartets.count import count_deals
from quaternity_cp.quartets.formats import parse_record
from quaternity_cp.quartets.game import Declaration, Question
from quaternity_cp.quartets.position import Position

PUZZLES = Path(__file__).resolve().parent.parent / "examples" / "puzzles"
FILES = sorted(p for p in PUZZLES.glob("*.json") if not p.name.endswith(".answer.json"))
BRUTE_DEALS = 10_000  # the brute force lists every consistent deal: only up to this many


def load(path: Path) -> tuple[Position, list[dict]]:
    pos = parse_record(path.read_text()).position("flow")
    return pos, json.loads(path.with_name(path.stem + ".answer.json").read_text())["answers"]


def deals(path: Path) -> int:
    return count_deals(load(path)[0].constraints)


BRUTE = [p for p in FILES if deals(p) <= BRUTE_DEALS]
LARGE = [p for p in FILES if deals(p) > BRUTE_DEALS]
#: Few deals but large searches for the brute force (no symmetry, no table: a game graph of
#: hundreds of thousands of raw positions, or a six-question AND-OR tree): exhaustive runs
#: (``--runslow``). Their quartet answers are re-derived by the search on positions below.
SLOW_GRAPH = {"09-long-turn", "12-blind-race", "13-hard-win"}
#: Puzzles with a quartet goal: all re-derived by the search on positions (the second method).
QUARTET = [p for p in FILES if any(a["goal"] == "quartet" for a in load(p)[1])]


def test_every_puzzle_is_rederived():
    assert len(FILES) == 13 and len(BRUTE) + len(LARGE) == len(FILES)
    for path in LARGE:  # the second method covers only the quartet goal
        assert all(a["goal"] == "quartet" for a in load(path)[1]), path.stem
        assert path in QUARTET
    for path in (p for p in FILES if p.stem in SLOW_GRAPH):  # the default run re-derives them by search
        assert all(a["goal"] == "quartet" or a["goal"] == "win" and a["result"] for a in load(path)[1]), path.stem


# -- brute force on explicit deals -----------------------------------------------------------
def ply_ranks(brute: Brute, graph, player: int, goal) -> dict[int, float]:
    """Least number of moves within which ``player`` forces ``goal``, per node (absent: cannot; a whole number,
    typed float as the iteration compares it with infinity).

    Value iteration of min (the player's nodes) and max (everyone else's) over the
    brute-force graph; the answer to a question that has only one legal answer costs
    nothing (the question and its answer are one move), choosing who moves from a
    shared turn costs nothing (it is not a move)."""
    rid, nodes, succ = graph
    INF = float("inf")
    rank: dict[int, float] = {i: 0 for i, st in enumerate(nodes) if st.over and goal(brute.ref.winners(st))}
    changed = True
    while changed:
        changed = False
        for i, st in enumerate(nodes):
            if st.over or not succ[i]:
                continue
            free = st.pending is not None and len(succ[i]) == 1 or st.pending is None and len(st.turn) > 1
            cost = 0 if free else 1
            values = [rank.get(j, INF) + cost for j in succ[i]]
            best = min(values) if brute.mover(st) == player else max(values)
            if best < rank.get(i, INF):
                rank[i] = best
                changed = True
    return rank


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.stem in SLOW_GRAPH else p
                                  for p in BRUTE], ids=lambda p: p.stem)
def test_puzzle_answers_by_brute_force(path):
    pos, answers = load(path)
    brute = Brute(pos.game, pos.rules)
    st = reference_state(pos)
    assert len(st.deals) == deals(path)
    graph = None
    for expect in answers:
        p, goal = expect["player"], expect["goal"]
        if goal == "quartet":
            k = expect.get("max_questions")
            assert brute.quartet(st, p, 10**6 if k is None else k) is expect["result"], expect
            if expect["result"]:  # the least number of questions: it suffices, one fewer does not
                n = expect["questions"]
                assert brute.quartet(st, p, n) and (n == 0 or not brute.quartet(st, p, n - 1)), expect
            continue
        graph = graph or brute.graph(st)
        rid = graph[0]
        if goal == "win":
            ranks = ply_ranks(brute, graph, p, lambda w: p in w)
            assert (rid in ranks) is expect["result"], expect
            if expect["result"]:
                assert ranks[rid] == expect["plies"], (expect, ranks[rid])
        else:
            mine = ply_ranks(brute, graph, p, lambda w: tuple(w) == (p,))
            theirs = ply_ranks(brute, graph, 1 - p, lambda w: tuple(w) == (1 - p,))
            got = "win" if rid in mine else "loss" if rid in theirs else "draw"
            assert got == expect["result"] == brute.value(graph, p), expect
            if got != "draw":
                assert (mine if got == "win" else theirs)[rid] == expect["plies"], expect


# -- a second method where brute force cannot run: AND-OR search on Position ------------------
class QuartetSearch:
    """Can ``player``, on turn, force a claim before its turn ends, with at most k questions?"""

    def __init__(self, pos: Position, player: int):
        self.pos = pos
        self.player = player
        self.memo: dict = {}
        self.nodes = 0

    def claimed_for_player(self, before: tuple[int, ...]) -> bool:
        return any(b < 0 and a == self.player for b, a in zip(before, self.pos.state.claimed))

    def win(self, k: int) -> bool:
        pos = self.pos
        key = (pos.state, k)
        if key in self.memo:
            return self.memo[key]
        self.nodes += 1
        ok = False
        if not pos.over and pos.turn == (self.player,) and pos.pending is None:
            for move in list(pos.legal_moves()):
                if isinstance(move, Declaration):
                    ok = True  # a possible quartet declared is a claim now
                    break
                if k == 0:
                    break
                if self.question(move, k):
                    ok = True
                    break
        self.memo[key] = ok
        return ok

    def question(self, move: Question, k: int) -> bool:
        pos = self.pos
        before = pos.state.claimed
        pos.push(move)
        try:
            legal = pos.answers()
            assert legal is not None  # the question is open
            # "no" first: it usually hands the turn over, which refutes the question at once
            answers = [move.answered(v) for v in (False, True) if legal["yes" if v else "no"]]
            for answer in answers:
                pos.push(answer)
                try:
                    if not (self.claimed_for_player(before) or self.win(k - 1)):
                        return False
                finally:
                    pos.pop()
            return bool(answers)
        finally:
            pos.pop()


@pytest.mark.parametrize("path", QUARTET, ids=lambda p: p.stem)
def test_puzzle_quartets_by_search_on_positions(path):
    pos, answers = load(path)
    for expect in (a for a in answers if a["goal"] == "quartet"):
        p = expect["player"]
        search = QuartetSearch(pos, p)
        k = expect.get("max_questions")
        budget = k if k is not None else expect["questions"]
        assert search.win(budget) is expect["result"], expect
        if expect["result"]:
            n = expect["questions"]
            assert search.win(n) and (n == 0 or not search.win(n - 1)), expect  # the least number of questions
        else:
            assert not search.win(k)


class WinSearch:
    """Can ``player`` force being among the winners within d plies? A depth-limited AND-OR
    search over Positions (memoized on the exact state), counting plies as the solver
    documents: a question whose answer is forced is one ply with its answer, otherwise the
    question and the answer are a ply each; choosing who moves from a shared turn is not a
    ply and is the opponents' choice; a position without legal moves is no win."""

    def __init__(self, player: int):
        self.player = player
        self.memo: dict = {}

    def win(self, pos: Position, d: int) -> bool:
        if pos.over:
            return self.player in pos.winners()
        if d <= 0:
            return False
        key = (pos.state, d)
        if key not in self.memo:
            st = pos.state
            if st.pending is None and len(st.turn) > 1:
                ok = all(self.win(Position(pos.game, pos.rules, engine=pos.engine, state=replace(st, turn=(p,))), d)
                         for p in st.turn)
            else:
                mover = st.pending.target if st.pending is not None else st.turn[0]
                moves = list(pos.legal_moves())
                values = (self.move(pos, m, d) for m in moves)
                ok = any(values) if mover == self.player else bool(moves) and all(values)
            self.memo[key] = ok
        return self.memo[key]

    def move(self, pos: Position, m, d: int) -> bool:
        pos.push(m)
        try:
            if isinstance(m, Question) and m.answer is None and pos.pending is not None:
                legal = pos.answers()
                assert legal is not None  # the question is open
                answers = [m.answered(v) for v in (True, False) if legal["yes" if v else "no"]]
                if len(answers) == 1:  # a forced answer: one ply with its question
                    pos.push(answers[0])
                    try:
                        return self.win(pos, d - 1)
                    finally:
                        pos.pop()
            return self.win(pos, d - 1)
        finally:
            pos.pop()


#: Forced wins whose brute force is an exhaustive run: the win and its number of plies by search.
WIN_BY_SEARCH = [p for p in FILES if p.stem in SLOW_GRAPH and any(a["goal"] == "win" for a in load(p)[1])]


@pytest.mark.parametrize("path", WIN_BY_SEARCH, ids=lambda p: p.stem)
def test_puzzle_wins_by_search_on_positions(path):
    pos, answers = load(path)
    for expect in (a for a in answers if a["goal"] == "win"):
        assert expect["result"] is True  # a depth-limited search can prove a forced win, not its absence
        search = WinSearch(expect["player"])
        n = expect["plies"]
        assert search.win(pos, n) and not search.win(pos, n - 1), expect
