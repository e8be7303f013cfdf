"""Agents that reason exactly about what their seat knows (every preset, classic included).

What a seat knows is a constraint state: the public one in the Quaternity
presets, the public one plus its own hand in classic
(:meth:`~quaternity_cp.quartets.game.QuartetsObservation.private_constraints`).
All consistent deals are taken as equally likely, and :mod:`quaternity_cp.count`
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
  the puzzle solver (:func:`quaternity_cp.solver.solve`, goal ``win``) picks a
  move that forces a win, or an answer after which the win is forced; otherwise,
  or when no forced win is found within ``max_positions``, it plays as ``knowledge``.
"""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from typing import Any, Hashable

from .. import effects
from ..errors import QuaternityError
from ..game import Declaration, Question


class KnowledgeAgent:
    """Asks where the exact chance of a yes is highest; declares whenever it may."""

    name = "knowledge"

    def step(self, obs: Any, legal_actions: list[Hashable], rng: random.Random) -> Hashable:
        if obs.pending is not None:
            return self.answer(obs, legal_actions, rng)
        declarations = [a for a in legal_actions if isinstance(a, Declaration)]
        if declarations:
            return declarations[0]
        questions = [a for a in legal_actions if isinstance(a, Question)]
        best = self.best_questions(obs, questions)
        return self.pick(obs, best, rng)

    def best_questions(self, obs: Any, questions: list[Question]) -> list[Question]:
        """The questions with the highest exact probability that the asked player holds the card."""
        from ..knowledge import card_probabilities

        probs = card_probabilities(obs.private_constraints())
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
        from ..knowledge import count

        public = obs.public_constraints()
        silence = bool(getattr(obs.rules, "silence", False))
        seen: dict[tuple[int, int], int] = {}
        scored = []
        for q in best:
            key = (q.asker, q.card)  # the target does not change what the question tells
            if key not in seen:
                seen[key] = count(effects.question(public, q.asker, q.card, silence=silence))
            scored.append((seen[key], q))
        most = max(n for n, _ in scored)
        left = [q for n, q in scored if n == most]
        return left[rng.randrange(len(left))]


class SolverAgent(KnowledgeAgent):
    """The puzzle solver on small positions (Quaternity presets), ``knowledge`` otherwise."""

    name = "solver"

    def __init__(self, max_cards: int = 9, max_positions: int = 3_000):
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

    def _wins(self, position, me: int) -> dict | None:
        from ..solver import solve

        st = position.state
        if not st.over and len(st.turn) > 1 and me in st.turn and st.pending is None:
            position = type(position)(position.game, position.rules, engine=position.engine,
                                      state=replace(st, turn=(me,)))
        result = solve(position, "win", me, max_positions=self.max_positions, depth=1)
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


def _first_move(obs: Any, tree: dict | None, legal_actions: list[Hashable]) -> Hashable | None:
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
