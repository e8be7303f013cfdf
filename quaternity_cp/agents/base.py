"""The simplest agent, shared by every game: a uniformly random legal action."""

from __future__ import annotations

import random
from typing import Any, Hashable


class RandomAgent:
    """Picks one of the legal actions uniformly at random (any game, any preset)."""

    name = "random"

    def step(self, observation: Any, legal_actions: list[Hashable], rng: random.Random) -> Hashable:
        if not legal_actions:
            raise ValueError("no legal action to choose from")
        return legal_actions[rng.randrange(len(legal_actions))]
