"""The game ``"quartets"``: every Quaternity preset (nothing dealt) and classic Quartets (a real deal).

The Quaternity core (:mod:`quaternity_cp.position`, the engines, the explainer,
the counter, the solver) is the library; this package is the game built on it:
its state for the one game interface (:mod:`.game`) and its registration.
"""

from __future__ import annotations

from ..games import GameSpec, register_game
from .game import ClassicState, QuartetsObservation, QuaternityState, new_state


def _agents() -> dict:
    from ..agents import QUARTETS_AGENTS

    return dict(QUARTETS_AGENTS)


SPEC = register_game(GameSpec(
    name="quartets",
    new_state=new_state,
    agents=_agents(),
    description="Quartets: every Quaternity preset (nothing dealt) and classic Quartets (a real deal)",
))

__all__ = ["SPEC", "ClassicState", "QuaternityState", "QuartetsObservation", "new_state"]
