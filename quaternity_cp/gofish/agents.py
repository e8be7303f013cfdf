"""Quantum Go Fish players, registered for the game ``"gofish"``: ``random``, ``greedy`` and ``solver``.

Every agent sees only the observation (:class:`~quaternity_cp.gofish.state.GoFishObservation`: the public
game, which is all there is to know) and plays one of the legal actions: a question when it is on turn, an
answer when it is asked.

- ``random``: a legal action, uniformly.
- ``greedy``: takes a win when it sees one and never hands one over when it can avoid it. A question *wins
  at once* when every legal answer to it (or the question itself, under ``win_after_ask``) ends the game
  with the asker the winner; an answer wins when it ends the game with the answering seat the winner. A
  move *hands a win over* when, after it (whatever answer the asked seat chooses, for a question), another
  seat has won, or the next seat to ask is another seat with a question that wins at once. Greedy plays a
  winning move if it has one, else a random move among those that hand nothing over, else a random move.
  The moves are looked at in a random order and the first winning (else the first safe) one is played. The
  look-ahead is exact while it fits its budget (``work``: moves tried x cells of the table, per decision; the
  default covers every decision of tables up to 4 players, and most of larger ones, since the first safe move
  ends the search); past it, the move being looked at is taken as safe.
- ``solver``: the exact attractor (:func:`~quaternity_cp.gofish.solver.can_force`) from the current position
  when its game graph has at most ``max_positions`` positions: it follows the winning strategy when its
  seat can force a win; otherwise (no forced win, or a graph too large) it plays as greedy. Once it found a
  forced win it follows that strategy (its positions need no new graph). After a graph outgrew the limit, it
  tries again only once the table's width (the sum of its cells' ranges) has fallen by a quarter.

>>> from quaternity_cp.gofish.state import new_state
>>> import random
>>> state = new_state(0, players=2, suits=2, suit_size=2)
>>> agent = SolverAgent()
>>> state.action_to_string(agent.step(state.observation(0), state.legal_actions(), random.Random(0)))
'0>1:A?'
"""

from __future__ import annotations

import random
from typing import Any, Hashable

from ..registry import register_agent
from .game import GoFish, Move
from .state import GoFishObservation

#: Greedy's look-ahead per decision: moves tried x cells of the table (players x suits).
GREEDY_WORK = 30_000
#: The moves greedy tries per decision at least, however large the table.
GREEDY_MIN_PUSHES = 200
#: The largest game graph the solver agent builds.
SOLVER_POSITIONS = 1000


def _won(game: GoFish, seat: int) -> bool:
    return game.over and game.winner == seat


def _other_won(game: GoFish, seat: int) -> bool:
    return game.over and game.winner is not None and game.winner != seat


class _Budget:
    def __init__(self, pushes: int):
        self.left = pushes

    def take(self) -> bool:
        self.left -= 1
        return self.left >= 0


def question_wins(game: GoFish, question: Move, budget: _Budget | None = None) -> bool:
    """Whether ``question`` (asked now, by the seat on turn) wins at once, whatever the legal answer."""
    asker = question.asker
    if budget is not None and not budget.take():
        return False
    game.push(Move(question.asker, question.asked, question.suit))
    try:
        if game.over:
            return _won(game, asker)
        answers = game.legal_answers()
        for yes in answers:
            game.answer(yes)
            won = _won(game, asker)
            game.pop()
            if not won:
                return False
        return bool(answers)
    finally:
        game.pop()


def winning_questions(game: GoFish, budget: _Budget | None = None) -> list[Move]:
    """The questions of the seat on turn that win at once (see :func:`question_wins`)."""
    return [q for q in game.legal_questions() if question_wins(game, q, budget)]


def _threatened(game: GoFish, seat: int, budget: _Budget) -> bool:
    """After a move of ``seat``: another seat has won, or the next asker is another seat that can win at once.
    Past the budget: False (not looked at)."""
    if game.over:
        return _other_won(game, seat)
    if game.pending is not None or game.turn is None or game.turn == seat:
        return False
    for q in game.legal_questions():
        if budget.left <= 0:
            return False
        if question_wins(game, q, budget):
            return True
    return False


def hands_over(game: GoFish, seat: int, move: Move, budget: _Budget) -> bool:
    """Whether ``move`` of ``seat`` (a question, or the answer to the open question) hands a win over."""
    if game.pending is not None:  # an answer
        game.push(move)
        try:
            return _threatened(game, seat, budget)
        finally:
            game.pop()
    game.push(Move(move.asker, move.asked, move.suit))
    try:
        if game.over:
            return _other_won(game, seat)
        for yes in game.legal_answers():
            game.answer(yes)
            try:
                if _threatened(game, seat, budget):
                    return True
            finally:
                game.pop()
        return False
    finally:
        game.pop()


def greedy_choice(game: GoFish, seat: int, legal: list[Move], rng: random.Random, work: int = GREEDY_WORK) -> Move:
    """Greedy's move among ``legal`` for ``seat`` in ``game`` (see the module's docstring).

    The moves are looked at in an order drawn from ``rng``: the first that wins is played, else the first that
    hands nothing over (so each of them equally likely), else the first of all. The hand-over look-ahead tries at
    most ``work // (players x suits)`` moves (at least :data:`GREEDY_MIN_PUSHES`); past that, the move being
    looked at is taken as safe."""
    order = list(legal)
    rng.shuffle(order)
    for move in order:
        if game.pending is not None:
            game.push(move)
            won = _won(game, seat)
            game.pop()
        else:
            won = question_wins(game, move)
        if won:
            return move
    budget = _Budget(max(GREEDY_MIN_PUSHES, work // (game.players * game.suits)))
    for move in order:
        if budget.left <= 0 or not hands_over(game, seat, move, budget):
            return move
    return order[0]


def _width(game: GoFish) -> int:
    """How much is still unknown: the sum over the cells of the table of their ranges (high - low)."""
    b = game.bounds()
    return sum(hi - lo for low, high in zip(b.low, b.high) for lo, hi in zip(low, high))


def _moves(legal: list[Hashable]) -> list[Move]:
    out = [m for m in legal if isinstance(m, Move)]
    if len(out) != len(legal) or not out:
        raise ValueError("a Go Fish agent needs a list of legal Moves")
    return out


class RandomAgent:
    """A legal action, uniformly."""

    name = "random"

    def step(self, observation: GoFishObservation, legal_actions: list[Hashable], rng: random.Random) -> Hashable:
        return legal_actions[rng.randrange(len(legal_actions))]


class GreedyAgent:
    """Takes a win when it sees one, never hands one over when it can avoid it (see the module)."""

    name = "greedy"

    def __init__(self, work: int = GREEDY_WORK):
        self.work = work

    def step(self, observation: GoFishObservation, legal_actions: list[Hashable], rng: random.Random) -> Hashable:
        legal = _moves(legal_actions)
        return greedy_choice(observation.game(), observation.player, legal, rng, self.work)


class SolverAgent:
    """The exact attractor when the game graph is small enough, else greedy (see the module)."""

    name = "solver"

    def __init__(self, max_positions: int = SOLVER_POSITIONS, work: int = GREEDY_WORK):
        self.max_positions = max_positions
        self.work = work
        self.max_seconds: float | None = None  # a web table sets its budget here (not used by tournaments)
        self._result: Any = None  # the last attractor with a forced win for this seat
        self._too_large: int | None = None  # the width of the table when the graph last outgrew the limit

    def solved_move(self, game: GoFish, seat: int) -> Move | None:
        """The winning strategy's move, or None (no forced win, or the graph is too large)."""
        from ..budget import Limits
        from .solver import SolverLimitError, attractor, build_graph

        if self._result is not None and self._result.seat == seat and not game.over:
            known: Move | None = self._result.move(game)  # a position of the last attractor: its strategy holds
            if known is not None:
                return known
        width = _width(game)
        if self._too_large is not None:
            if width * 4 > self._too_large * 3:
                return None
            self._too_large = None
        try:
            graph = build_graph(game, Limits(max_positions=self.max_positions, max_seconds=self.max_seconds))
        except SolverLimitError:
            self._too_large = width
            return None
        result = attractor(graph, seat)
        if not result.wins:
            return None
        self._result = result
        return result.move(game)

    def step(self, observation: GoFishObservation, legal_actions: list[Hashable], rng: random.Random) -> Hashable:
        legal = _moves(legal_actions)
        game = observation.game()
        seat = observation.player
        move = self.solved_move(game, seat)
        if move is not None and move in legal:
            return move
        return greedy_choice(game, seat, legal, rng, self.work)


register_agent("gofish", "random", RandomAgent)
register_agent("gofish", "greedy", GreedyAgent)
register_agent("gofish", "solver", SolverAgent)

__all__ = ["RandomAgent", "GreedyAgent", "SolverAgent", "greedy_choice", "question_wins", "winning_questions",
           "hands_over", "GREEDY_WORK", "GREEDY_MIN_PUSHES", "SOLVER_POSITIONS"]
