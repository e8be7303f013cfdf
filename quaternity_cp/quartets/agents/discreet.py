"""``discreet``: a second-order agent for classic quartets (it reasons about what the others know).

It asks as ``knowledge`` does (the questions with the highest exact chance of
a yes, :mod:`.exact`), and among those it prefers the one after which the
opponents know least about its own hand: for each candidate question, and each
answer it may get (weighted by its exact chance), it takes the exact number of
its own cards that each opponent will know it holds, averaged over the deals it
considers possible (:func:`quaternity_cp.quartets.higher.exposure`: what the opponent
knows depends on the opponent's hand, which it does not know), summed over the
opponents. The smallest sum wins; ties go to ``cautious``'s rule (the question
leaving the most deals in the public view), then at random.

The knowledge agents take the cards they know the holder of, so a card whose
holder they know is a card they will ask for: this agent keeps that number low.
The computation of one decision runs within :data:`VIEWS` (views checked and
candidate hands listed, no clock, so a game plays the same on every machine);
past it the decision is ``cautious``'s and counts in ``fallbacks``, as do the
counts past the agent's ``limits``.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from ..count import CountLimitError, CountLimits
from ..game import Declaration, Question
from ...registry import register_agent
from ..higher import ViewBudget, classes, exposure
from ..knowledge import AGENT_LIMITS
from ..state import classic_public_constraints
from .base import classic_only
from .exact import CautiousAgent

#: The higher-order work of one decision: views put to the engine and candidate hands listed. At 3 players
#: with 6 sets of 4 a decision takes a few dozen to a few hundred views after the first questions.
VIEWS = CountLimits(max_states=3_000, max_work=30_000)


class DiscreetAgent(CautiousAgent):
    """As ``knowledge``; among equally good questions, the one after which the opponents are expected to
    know fewest of its own cards (classic only). ``views``: the limits of one decision's higher-order
    work; past them (or past ``limits`` in a count) it picks as ``cautious`` and counts a fallback."""

    name = "discreet"

    def __init__(self, limits: CountLimits | None = AGENT_LIMITS, views: CountLimits = VIEWS):
        super().__init__(limits)
        self.views = views

    @classmethod
    def refuses(cls, options: dict[str, Any]) -> str | None:
        """Why it cannot play a game made with ``options``, or None: it hides its own hand, so it plays
        classic only (cautious plays the Quaternity presets)."""
        return classic_only(options, "it hides its own hand, and the Quaternity presets deal none")

    def pick(self, obs: Any, best: list[Question], rng: random.Random) -> Question:
        # with the cheaper probabilities an answer taken as possible might not be: no exposure then
        if len(best) > 1 and obs.hand and not self._fell_back:
            try:
                best = self.least_exposed(obs, best)
            except CountLimitError:
                self._fell_back = True
        return super().pick(obs, best, rng)

    def least_exposed(self, obs: Any, best: list[Question]) -> list[Question]:
        """The questions of ``best`` with the smallest expected exposure (see the module's text). Questions
        to the same seat for interchangeable cards (:func:`quaternity_cp.quartets.higher.classes`) expose as much:
        one of them is computed."""
        budget = ViewBudget(self.views)
        view = obs.private_constraints()
        probs = self.probabilities(view)
        kind = {c: i for i, K in enumerate(classes(obs.public_constraints(), view)) for c in K}
        done: dict[tuple[int, int], Fraction] = {}
        scored = []
        for q in best:
            key = (kind[q.card], q.target)
            if key not in done:
                done[key] = self.exposure_after(obs, q, probs.get(q.card, {}).get(q.target, Fraction(0)), budget)
            scored.append((done[key], q))
        least = min(e for e, _ in scored)
        return [q for e, q in scored if e == least]

    def exposure_after(self, obs: Any, q: Question, p_yes: Fraction, budget: ViewBudget) -> Fraction:
        """The expected number of its cards the opponents know once ``q`` is answered (yes with chance ``p_yes``)."""
        g = obs.game
        me = obs.seat
        S = g.set_size
        empty_hand = obs.options.get("empty_hand", "ask")
        total = Fraction(0)
        for yes, chance in ((True, p_yes), (False, 1 - p_yes)):
            if not chance:
                continue
            moves = tuple(obs.moves) + (q.answered(yes),)
            hand = set(obs.hand)
            if yes:
                hand.add(q.card)
                s = q.card // S
                if all(c in hand for c in g.cards_of(s)):  # the game puts the set down at once
                    moves += (Declaration(me, s),)
                    hand -= set(g.cards_of(s))
            if not hand:
                continue
            public = classic_public_constraints(g, moves, empty_hand)
            for other in range(g.players):
                if other != me:
                    total += chance * exposure(public, me, hand, other, limits=budget, count_limits=self.limits)
        return total


register_agent("quartets", "discreet", DiscreetAgent)
