"""The exact answer of a puzzle: its number K, every winning first move, the traps and the strategy tree.

A puzzle asks whether the goal player, on turn with no open question, forces
its goal (``quartet``: a set claimed for it before its turn ends; ``win``:
being among the winners) and how. Everything is decided by the solver
(:mod:`quaternity_cp.quartets.solver`): the quartet goal by its AND-OR search
(:class:`~quaternity_cp.quartets.solver.quartet.QuartetSearch`), the win goal by its
game graph and attractor (:class:`~quaternity_cp.quartets.solver.graph.GameGraph`); this
module only asks them about the first moves and walks their answers into a tree.

- ``questions`` (K): the least number that forces the goal. For ``quartet`` the
  player's questions; for ``win`` plies, as the solver counts them (a question
  whose answer is forced is one ply with its answer).
- ``first_moves``: every first move (all cards, not one per symmetry class)
  that forces the goal within K; no first move does within K-1, since K is least.
- Interchangeable moves: two first moves are interchangeable when the positions
  they lead to have the same canonical key of the solver (the same game from
  there on: cards of a set with the same possible owners, sets with the same
  description; see :mod:`quaternity_cp.quartets.solver.core`). ``classes`` groups the
  first moves so; the answer is *unique* when there is exactly one class.
- A *trap* is a first question that does not force the goal within K but
  looks as if it might: the asked seat may answer it either way, and one of the
  answers would leave the goal forced in time (for ``quartet``: within K-1 more
  questions; for ``win``: within K-2 more plies).

Every search runs under one :class:`~quaternity_cp.budget.Budget` (positions
stored, seconds), checked while it runs; a stopped search leaves the answer
unproven (``status``), never a wrong one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...budget import SOLVED, Budget, Limits, Stopped
from ...errors import PositionError, QuaternityError
from ..game import Declaration, Game, Move, Question
from ..position import Position, State
from ..solver import Context, SolveError, check_goal
from ..solver.api import cannot_win
from ..solver.core import INF
from ..solver.graph import GameGraph
from ..solver.moves import Choice
from ..solver.quartet import FAIL, SUCCESS, QuartetSearch

QUARTET, WIN = "quartet", "win"
#: The goals a puzzle may have.
PUZZLE_GOALS = (QUARTET, WIN)
#: The most nodes a strategy tree may have (a larger one is refused: a puzzle nobody could print).
MAX_TREE_NODES = 2_000


class PuzzleError(QuaternityError, ValueError):
    """A puzzle that cannot be asked (goal, player, rules), or an answer that cannot be shown."""


class TreeTooLarge(PuzzleError):
    """A strategy tree past its most nodes (:data:`MAX_TREE_NODES`)."""


def move_text(game: Game, move: Move) -> str:
    """A first move in record notation without its answer: ``0>1:A2``, ``0!A``."""
    if isinstance(move, Question):
        return game.move_str(move.unanswered()).rstrip("?")
    return game.move_str(move)


def parse_first_move(game: Game, text: str) -> Move:
    """A first move read back from :func:`move_text` (an answer sign, if written, is ignored)."""
    if not isinstance(text, str):
        raise PuzzleError(f"a first move is text like \"0>1:A2\", not {json.dumps(text, default=str)}")
    body = text.strip()
    if ">" in body and body[-1:] not in ("+", "-", "?"):
        body += "?"
    move = game.parse_move(body)
    return move.unanswered() if isinstance(move, Question) else move


@dataclass
class TreeStats:
    """What a strategy tree asks of a reader: its size and the explanations it needs."""

    nodes: int = 0  # the goal player's moves in the tree
    depth: int = 0  # the most of the goal player's moves along one branch
    branching: int = 0  # the goal player's questions that may get either answer
    forced: int = 0  # questions (of any seat) whose answer is forced
    options: int = 0  # other seats' choices: each move they may make, counted per choice point
    explanation_moves: int = 0  # the explainer's responsible moves, summed over the forced facts
    explanations: int = 0  # facts explained (forced answers and forced claims)


#: A hook that explains a fact of the strategy: called with the moves from the puzzle's moment up to and
#: including the move concerned (``fact`` is ``"answer"`` with the card, or ``"claim"`` with the set);
#: returns the explanation's text and its number of responsible moves, or None for no explanation.
Explain = Callable[[list, str, int], "tuple[str, int] | None"]


@dataclass
class PuzzleAnswer:
    """The exact answer of a puzzle (see the module docstring); ``status`` is ``solved`` when proven."""

    goal: str
    player: int
    game: Game = field(repr=False)
    status: str = SOLVED
    forced: bool | None = None  # whether the goal is forced at all (within the most asked for)
    questions: int | None = None  # K when forced; a proven lower bound (or None) when not
    first_moves: list[Move] = field(default_factory=list)
    classes: list[list[Move]] = field(default_factory=list)
    traps: list[Move] = field(default_factory=list)
    trap_classes: list[list[Move]] = field(default_factory=list)
    positions: int = 0
    complete: bool = False  # whether the first moves and traps are all listed

    @property
    def proven(self) -> bool:
        return self.status == SOLVED

    @property
    def unique(self) -> bool:
        """Forced, with exactly one class of interchangeable winning first moves (all listed)."""
        return bool(self.forced) and self.complete and len(self.classes) == 1

    def texts(self, moves: list[Move]) -> list[str]:
        return [move_text(self.game, m) for m in moves]


class PuzzleSearch:
    """The exact search of one puzzle: ``goal`` for ``player`` at ``position``, within ``limits``.

    :meth:`answer` decides it; :meth:`strategy` then walks the winning strategy into a tree.
    """

    def __init__(self, position: Position, goal: str, player: int | None = None, *,
                 limits: Limits | None = None, engine: Any = None):
        if goal not in PUZZLE_GOALS:
            raise PuzzleError(f"unknown puzzle goal {goal!r} (known: {', '.join(PUZZLE_GOALS)})")
        st = position.state
        try:
            player = check_goal(position, WIN, player)  # the player (a seat), whatever the goal
            if st.over or st.turn != (player,) or st.pending is not None:
                g = position.game
                who = g.seat_name(player)
                now = "the game is over" if st.over else "a question is open" if st.pending is not None else \
                    "on turn: " + ", ".join(g.seat_name(p) for p in st.turn)
                raise PuzzleError(f"a puzzle needs {who} alone on turn with no open question ({now})")
            check_goal(position, goal, player)  # the rules the solver handles
        except SolveError as err:
            raise PuzzleError(str(err)) from None
        self.game, self.rules = position.game, position.rules
        self.goal, self.player = goal, player
        self.budget: Budget = (limits or Limits()).start()
        self.ctx = Context(self.game, self.rules, engine, scores=goal != QUARTET)
        self.ctx.engine.budget = self.budget
        self.state = st
        self.quartet: QuartetSearch | None = None
        self.graph: GameGraph | None = None
        self.rank: dict[int, int] = {}
        self.result: PuzzleAnswer | None = None

    # -- deciding -------------------------------------------------------------------
    def answer(self, max_questions: int | None = None, *, min_questions: int = 1,
               unique_only: bool = False) -> PuzzleAnswer:
        """The puzzle's answer: K, the first moves, their classes, the traps (unproven when stopped).

        ``max_questions``: the largest K of interest (a larger one is reported as not forced,
        with the lower bound); None: any. The first moves are listed only for a K of at least
        ``min_questions``; with ``unique_only``, not when the first moves of one per symmetry class
        already make two classes (``complete`` is then False: a cheap filter of the generator)."""
        out = PuzzleAnswer(self.goal, self.player, self.game)
        try:
            if not self.ctx.engine.feasible(self.state.constraints):
                raise PositionError("the position is invalid: no deal is consistent with it")
            root = self.ctx.describe(self.state)
            k = self._decide(root, max_questions, out)
            if k is not None and k > 0 and k >= min_questions:
                if unique_only and len({key for _, key, kind in self._classify(root, k, False) if kind == "win"}) > 1:
                    out.complete = False
                else:
                    self._first_moves(root, k, out)
            else:
                out.complete = k is None  # not forced: no first move forces it (else: not listed)
        except Stopped as stop:
            out.status = stop.reason
        self.result = out
        return out

    def _decide(self, root, max_questions: int | None, out: PuzzleAnswer) -> int | None:
        if self.goal == QUARTET:
            search = self.quartet = QuartetSearch(self.ctx, self.player, budget=self.budget)
            try:
                ok, bound = search.deepen(root, max_questions)
            finally:
                out.positions = len(search.tt)
        else:
            graph = self.graph = GameGraph(self.ctx, cannot_win(self.rules, self.player))
            graph.doomed_player = self.player
            try:
                rid = graph.build(self.ctx.search_root(root), budget=self.budget)
                self.rank = graph.win_ranks(self.player)
            finally:
                out.positions = len(graph)
            ok = rid in self.rank and (max_questions is None or self.rank[rid] <= max_questions)
            bound = self.rank.get(rid, INF)
            if max_questions is not None and bound > max_questions:
                bound = max_questions + 1 if bound < INF else INF
        out.forced = ok
        out.questions = bound if bound < INF else None
        return bound if ok else None

    def _wins(self, state: State, k: int) -> bool:
        """Whether the goal is forced from ``state`` (after a completed move) within ``k`` more."""
        if self.goal == QUARTET:
            assert self.quartet is not None
            return k >= 0 and self.quartet.after(state, k)[0]
        return self.rank_of(state) <= k

    def rank_of(self, state: State) -> int:
        """The win goal: the plies within which the goal player forces a win from ``state`` (``INF``: never)."""
        graph = self.graph
        assert graph is not None
        i = graph.ids.get(graph.key_of(self.ctx.describe(state)))
        return INF if i is None else self.rank.get(i, INF)

    def _classify(self, root, k: int, all_moves: bool):
        """Per first move of the goal player (every one, or one per symmetry class): the move
        (a question without its answer), the key of the position it leads to, and ``"win"``,
        ``"trap"`` or None."""
        ctx, st = self.ctx, self.state
        # a question or a declaration costs one (a question, or a ply); a question with two possible
        # answers leaves the answer to come (win: one ply more; quartet: nothing more)
        rest = k - 1
        for m in ctx.ask_moves(root, self.player, all_moves=all_moves):
            self.budget.check_time()
            child = ctx.play(st, m)
            key = ctx.describe(child).key
            first = m.unanswered() if isinstance(m, Question) else m
            if child.pending is None:
                yield first, key, "win" if self._wins(child, rest) else None
                continue
            answers = [ctx.play(child, a) for a in ctx.answers(ctx.describe(child))]
            after = rest if self.goal == QUARTET else rest - 1  # win: the answer's ply (tests/test_puzzle_search.py)
            wins = [self._wins(a, after) for a in answers]
            yield first, key, "win" if all(wins) else "trap" if any(wins) else None

    def _first_moves(self, root, k: int, out: PuzzleAnswer) -> None:
        classes: dict[tuple, list[Move]] = {}
        traps: dict[tuple, list[Move]] = {}
        for first, key, kind in self._classify(root, k, True):
            if kind is not None:
                (classes if kind == "win" else traps).setdefault(key, []).append(first)
        order = self._card_order
        out.classes = sorted((sorted(c, key=order) for c in classes.values()), key=lambda c: order(c[0]))
        out.first_moves = sorted((m for c in out.classes for m in c), key=order)
        out.trap_classes = sorted((sorted(c, key=order) for c in traps.values()), key=lambda c: order(c[0]))
        out.traps = sorted((m for c in out.trap_classes for m in c), key=order)
        out.complete = True

    @staticmethod
    def _card_order(m: Move) -> tuple:
        if isinstance(m, Declaration):
            return (0, m.set, m.player, 0)
        return (1, m.card, m.target, m.asker)

    # -- the strategy tree -------------------------------------------------------------
    def strategy(self, explain: Explain | None = None, *, max_nodes: int = MAX_TREE_NODES) -> tuple[dict, TreeStats]:
        """The winning strategy from the first of the first moves, as a tree (docs/puzzles.md), and its
        numbers. ``explain`` gives the "why" of forced answers and the explanation counts. Raises
        :class:`TreeTooLarge` past ``max_nodes`` nodes and :class:`~quaternity_cp.budget.Stopped` when
        the budget runs out."""
        res = self.result
        if res is None or not res.proven or not res.forced or not res.first_moves or res.questions is None:
            raise PuzzleError("no winning strategy to show: the goal is not forced")
        builder = _TreeBuilder(self, explain, max_nodes)
        tree = builder.first(res.first_moves[0], res.questions)
        return tree, builder.stats


class _TreeBuilder:
    """Walks the solver's answer into the tree of docs/puzzles.md ("File formats")."""

    def __init__(self, search: PuzzleSearch, explain: Explain | None, max_nodes: int):
        self.s = search
        self.ctx = search.ctx
        self.game = search.game
        self.player = search.player
        self.explain = explain
        self.max_nodes = max_nodes
        self.stats = TreeStats()
        self.size = 0

    def _count(self) -> None:
        self.size += 1
        if self.size > self.max_nodes:
            raise TreeTooLarge(f"the strategy tree has more than {self.max_nodes:,} nodes")
        self.s.budget.check_time()

    def _why(self, path: list, fact: str, about: int) -> str | None:
        if self.explain is None:
            return None
        got = self.explain(path, fact, about)
        if got is None:
            return None
        text, moves = got
        self.stats.explanations += 1
        self.stats.explanation_moves += moves
        return text

    def first(self, move: Move, k: int) -> dict:
        """The tree from the first move ``move`` (a question without answer, or a declaration)."""
        st = self.s.state
        if isinstance(move, Question):
            for m in self.ctx.ask_moves(self.ctx.describe(st), self.player, all_moves=True):
                if isinstance(m, Question) and m.unanswered() == move:
                    move = m  # with its answer when it is forced
                    break
        return self.move(st, move, k - 1, [], 1)

    # -- one move and what follows ---------------------------------------------------
    def move(self, st: State, m, k: int, path: list, level: int) -> dict:
        """The node of move ``m`` at ``st`` (any seat's); ``k``: what the goal allows after it."""
        self._count()
        ctx, g, P = self.ctx, self.game, self.player
        mine = (m.asker if isinstance(m, Question) else getattr(m, "player", -1)) == P
        if mine:
            self.stats.nodes += 1
            self.stats.depth = max(self.stats.depth, level)
        if isinstance(m, Choice):  # pragma: no cover - free choices are nodes of their own (see after)
            raise AssertionError("a free choice is not a move node")
        if isinstance(m, Declaration):
            child = ctx.play(st, m)
            node: dict[str, Any] = {"declare": g.move_str(m)}  # legal when some deal allows it: nothing to explain
            node["next"] = self.after(child, k, path + [m], level)
            return node
        node = {"ask": move_text(g, m)}
        child = ctx.play(st, m)
        if child.pending is None:  # a forced answer, given with the question
            self.stats.forced += 1
            node["forced"] = True
            why = self._why(path + [m], "answer", m.card)
            if why is not None:
                node["why"] = why
            node["answers"] = {"yes" if m.answer else "no": self.after(child, k, path + [m], level)}
            return node
        answers = ctx.answers(ctx.describe(child))
        if mine and len(answers) > 1:
            self.stats.branching += 1
        nxt = k if self.s.goal == QUARTET else k - 1
        out: dict[str, Any] = {}
        for a in answers:
            after = ctx.play(child, a)
            out["yes" if a.answer else "no"] = (after, a)
        if m.target == P and self.s.goal == WIN:  # the goal player answers: the answer it gives
            best = min(out, key=lambda word: self.s.rank_of(out[word][0]))
            out = {best: out[best]}
        node["answers"] = {word: self.after(after, nxt, path + [a], level) for word, (after, a) in out.items()}
        return node

    def after(self, st: State, k: int, path: list, level: int) -> dict:
        """The node reached after a completed move (``path`` ends with it): a leaf, or what comes next."""
        ctx, g, P = self.ctx, self.game, self.player
        claims = {g.set_name(s): p for s, p in st.last_claims}
        for s, p in st.last_claims:
            if not isinstance(path[-1], Declaration):
                self._why(path, "claim", s)
        node: dict[str, Any]
        if self.s.goal == QUARTET:
            assert self.s.quartet is not None
            cls = self.s.quartet.classify(st)
            if cls == SUCCESS:
                node = {"reached": QUARTET, "set": next(g.set_name(s) for s, p in st.last_claims if p == P)}
            elif cls == FAIL:  # pragma: no cover - a winning strategy never loses the turn
                raise AssertionError("the strategy lost the turn")
            else:
                node = self.mine(st, k, path, level + 1)
        elif st.over:
            node = {"reached": WIN, "winners": list(ctx.position(st).winners()), "scores": list(st.scores)}
        else:
            node = self.turn(st, k, path, level)
        if claims:
            node["claims"] = claims
        return node

    def mine(self, st: State, k: int, path: list, level: int) -> dict:
        """The goal player's move at ``st``: the first (in the solver's order) that keeps the goal within ``k``."""
        ctx = self.ctx
        node = ctx.describe(st)
        if self.s.goal == QUARTET:
            search = self.s.quartet
            assert search is not None
            for m in search.ordered(node):
                if isinstance(m, Declaration) or (k >= 1 and search.child_ok(st, m, k - 1)):
                    return self.move(st, m, k - 1, path, level)
            raise AssertionError("no winning move at a proven node")  # pragma: no cover
        # the win goal: a move to the least rank (the solver's strategy; it never cycles)
        best = min(ctx.moves(node), key=lambda m: self.s.rank_of(ctx.play(st, m)))
        return self.move(st, best, k - 1, path, level)

    def turn(self, st: State, k: int, path: list, level: int) -> dict:
        """The win goal, a position with no open question: the goal player's move, another seat's
        moves (every one, one per class), or a free choice of who moves."""
        ctx = self.ctx
        if len(st.turn) > 1:
            self._count()
            return {"choose": {str(p): self.turn(ctx.play(st, Choice(p)), k, path, level) for p in st.turn}}
        if st.turn == (self.player,):
            return self.mine(st, k, path, level + 1)
        self._count()
        moves = ctx.moves(ctx.describe(st))
        self.stats.options += len(moves)
        return {"to_move": st.turn[0], "options": [self.move(st, m, k - 1, path, level) for m in moves]}


__all__ = [
    "MAX_TREE_NODES",
    "PUZZLE_GOALS",
    "QUARTET",
    "WIN",
    "Explain",
    "PuzzleAnswer",
    "PuzzleError",
    "PuzzleSearch",
    "TreeStats",
    "move_text",
    "parse_first_move",
]
