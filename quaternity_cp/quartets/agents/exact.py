"""Agents that reason exactly about what their seat knows (every preset, classic included).

What a seat knows is a constraint state: the public one in the Quaternity
presets, the public one plus its own hand in classic
(:meth:`~quaternity_cp.quartets.state.QuartetsObservation.private_constraints`).
All consistent deals are taken as equally likely, and :mod:`quaternity_cp.quartets.count`
gives exact probabilities.

- ``knowledge``: declares a set whenever it may (it scores); asks the question
  with the highest exact probability of a yes (a card whose holder it knows has
  probability 1), ties drawn at random. As the asked player (Quaternity presets,
  where both answers may be legal) it prefers the answer after which the most
  sets are claimed for it and the fewest for others, then "no" (which gives it
  the turn).
- ``cautious``: as ``knowledge``, but among the questions with the best chance
  it asks the one that tells the table least about its own hand: the one
  leaving the most consistent deals in the public view once it is asked.
- ``solver``: when the position is small (at most ``max_cards`` cards in play),
  the puzzle solver (:func:`quaternity_cp.quartets.solver.solve`, goal ``win``) picks a
  move that forces a win, or an answer after which the win is forced; otherwise,
  or when no forced win is found within ``max_positions``, it plays as ``knowledge``.

The counts of one decision are made within the agent's ``limits``
(:data:`quaternity_cp.quartets.knowledge.AGENT_LIMITS` by default: states per count and
multiply-adds for the whole decision, no clock, so a game plays the same on
every machine; None: no limit). Counts past them are replaced by a cheaper
rule, from the exact analysis of the same view (who may hold each card,
:mod:`quaternity_cp.quartets.engines`):

- ``knowledge`` (and ``solver`` when it plays as ``knowledge``): a card's
  probability to be with a seat is 1 / (the number of seats that may hold it),
  for each of those seats (1 for a card whose holder it knows);
- ``cautious``: among the best questions, the one leaving the most (card, seat)
  pairs possible in the public view once it is asked.

Each agent counts in ``fallbacks`` the decisions it made with a cheaper rule
(the tournament reports it per agent). Games with up to 4 players and 8 sets of
4 are always counted exactly under the default limits.
"""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Hashable

from .. import effects
from ..constraints import Constraints, bits
from ..count import WORK, CountLimitError, CountLimits
from ...errors import QuaternityError
from ..game import Declaration, Question
from ..knowledge import AGENT_LIMITS, analyze, card_probabilities, count, counted

if TYPE_CHECKING:
    from ..position import Position


class KnowledgeAgent:
    """Asks where the exact chance of a yes is highest; declares whenever it may.

    ``limits``: of its counts (None: no limit); ``fallbacks``: the decisions it made with the cheaper rule.
    """

    name = "knowledge"

    def __init__(self, limits: CountLimits | None = AGENT_LIMITS):
        self.limits = limits
        self.fallbacks = 0
        self._fell_back = False

    def step(self, obs: Any, legal_actions: list[Hashable], rng: random.Random) -> Hashable:
        if obs.pending is not None:
            return self.answer(obs, legal_actions, rng)
        declarations = [a for a in legal_actions if isinstance(a, Declaration)]
        if declarations:
            return declarations[0]
        questions = [a for a in legal_actions if isinstance(a, Question)]
        self._fell_back = False
        best = self.best_questions(obs, questions)
        choice = self.pick(obs, best, rng)
        if self._fell_back:
            self.fallbacks += 1
        return choice

    def probabilities(self, c: Constraints) -> dict[int, dict[int, Fraction]]:
        """card -> {seat: probability} in the view ``c``: exact, or past the limits the cheaper rule."""
        try:
            return card_probabilities(c, self.limits)
        except CountLimitError:
            self._fell_back = True
        owners = analyze(c).owners
        return {card: {p: Fraction(1, owners[card].bit_count()) for p in bits(owners[card])}
                for card in c.cards_in_play if owners[card]}

    def best_questions(self, obs: Any, questions: list[Question]) -> list[Question]:
        """The questions with the highest probability that the asked player holds the card."""
        probs = self.probabilities(obs.private_constraints())
        top = Fraction(-1)
        best: list[Question] = []
        for q in questions:
            p = probs.get(q.card, {}).get(q.target, Fraction(0))
            if p > top:
                top, best = p, [q]
            elif p == top:
                best.append(q)
        return best

    def pick(self, obs: Any, best: list[Question], rng: random.Random) -> Question:
        return best[rng.randrange(len(best))]

    def answer(self, obs: Any, legal_actions: list[Hashable], rng: random.Random) -> Hashable:
        """Most sets for itself and fewest for others after the answer, then no."""
        if len(legal_actions) == 1:
            return legal_actions[0]
        me = obs.seat
        pos = obs.position()

        def value(a: Hashable) -> tuple[int, bool]:
            assert isinstance(a, Question)  # an answer to the open question
            claims = pos.copy()
            made = claims.push(a)
            return (sum(1 if p == me else -1 for _, p in made), a.answer is False)

        return max(legal_actions, key=value)


class CautiousAgent(KnowledgeAgent):
    """As ``knowledge``; among equally good questions, the one revealing least about its own hand."""

    name = "cautious"

    def pick(self, obs: Any, best: list[Question], rng: random.Random) -> Question:
        if len(best) == 1:
            return best[0]
        public = obs.public_constraints()
        silence = bool(getattr(obs.rules, "silence", False))
        after = {}
        for q in best:
            key = (q.asker, q.card)  # the target does not change what the question tells
            if key not in after:
                after[key] = effects.question(public, q.asker, q.card, silence=silence)
        try:
            seen = self._counts(after)
        except CountLimitError:
            self._fell_back = True
            seen = {key: _possible_pairs(c) for key, c in after.items()}
        scored = [(seen[q.asker, q.card], q) for q in best]
        most = max(n for n, _ in scored)
        left = [q for n, q in scored if n == most]
        return left[rng.randrange(len(left))]

    def _counts(self, views: dict[Any, Constraints]) -> dict[Any, int]:
        """The deals of each view, all of them within one budget: the limits' work is shared by the counts."""
        limits = self.limits
        if limits is None or limits.max_work is None:
            return {key: count(c, limits) for key, c in views.items()}
        left = limits.max_work
        out = {}
        for key, c in views.items():
            if left < 1:
                raise CountLimitError(f"the counts need more than {limits.max_work:,} operations", WORK)
            out[key], used = counted(c, replace(limits, max_work=left))
            left -= used
        return out


class SolverAgent(KnowledgeAgent):
    """The puzzle solver on small positions (Quaternity presets), ``knowledge`` otherwise."""

    name = "solver"

    def __init__(self, max_cards: int = 9, max_positions: int = 3_000, limits: CountLimits | None = AGENT_LIMITS):
        super().__init__(limits)
        self.max_cards = max_cards
        self.max_positions = max_positions

    @classmethod
    def refuses(cls, options: dict[str, Any]) -> str | None:
        """Why it cannot play a game made with ``options`` (of quartets' ``new_state``), or None: it plays
        the Quaternity presets only (in classic it would only ever play as ``knowledge``)."""
        if options.get("preset") == "classic":
            return "plays the Quaternity presets only, not classic (knowledge plays classic)"
        return None

    def _small(self, obs: Any) -> bool:
        return obs.hand is None and sum(obs.hands) <= self.max_cards

    def _wins(self, position: Position, me: int) -> dict[str, Any] | None:
        from ..solver import solve

        st = position.state
        if not st.over and len(st.turn) > 1 and me in st.turn and st.pending is None:
            position = type(position)(position.game, position.rules, engine=position.engine,
                                      state=replace(st, turn=(me,)))
        result = solve(position, "win", me, max_positions=self.max_positions, depth=1)
        if "interrupted" in (result.status, result.tree_stopped):  # Ctrl-C stops the game, not only this search
            raise KeyboardInterrupt
        if result.proven and result.result is True:
            return result.strategy or {}
        return None

    def step(self, obs: Any, legal_actions: list[Hashable], rng: random.Random) -> Hashable:
        if self._small(obs) and len(legal_actions) > 1:
            me = obs.seat
            if obs.pending is not None:
                for a in legal_actions:
                    child = obs.position()
                    child.push(a)
                    if child.over and me in child.winners():
                        return a
                    if not child.over and self._wins(child, me) is not None:
                        return a
            else:
                tree = self._wins(obs.position(), me)
                move = _first_move(obs, tree, legal_actions)
                if move is not None:
                    return move
        return super().step(obs, legal_actions, rng)


def _possible_pairs(c: Constraints) -> int:
    """The (card, seat) pairs possible in view ``c`` (0 when it has no deal): ``cautious``'s cheaper rule."""
    analysis = analyze(c)
    return sum(analysis.owners[card].bit_count() for card in c.cards_in_play) if analysis.feasible else 0


def _first_move(obs: Any, tree: dict[str, Any] | None, legal_actions: list[Hashable]) -> Hashable | None:
    """The root move of a solver strategy tree, as one of the legal actions."""
    if not tree or not tree.get("moves"):
        return None
    text = tree["moves"][0].get("move", "")
    try:
        move = obs.game.parse_move(text)
    except QuaternityError:  # a turn choice ("... takes the turn"): not a move of ours
        return None
    if isinstance(move, Question):
        move = move.unanswered()
    return move if move in legal_actions else None
