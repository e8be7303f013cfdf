"""The simplest agent, shared by every game: a uniformly random legal action."""

from __future__ import annotations

import random
from typing import Any, Hashable


def classic_only(options: dict[str, Any], why: str) -> str | None:
    """The refusal (for an agent's ``refuses``) of an agent that needs a hand of its own, so plays classic
    only: None for a classic game, else "plays classic only (WHY)". The Quaternity presets deal no cards."""
    return None if options.get("preset") == "classic" else f"plays classic only ({why})"


class RandomAgent:
    """Picks one of the legal actions uniformly at random (any game, any preset)."""

    name = "random"

    def step(self, observation: Any, legal_actions: list[Hashable], rng: random.Random) -> Hashable:
        if not legal_actions:
            raise ValueError("no legal action to choose from")
        return legal_actions[rng.randrange(len(legal_actions))]
