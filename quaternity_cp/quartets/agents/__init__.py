"""Players for the game ``"quartets"``: each sees one observation and picks a legal action.

Every agent is seeded (the runner hands it a ``random.Random`` per game and
seat) and deterministic given that generator, and sees only what its seat may
know (:class:`~quaternity_cp.quartets.state.QuartetsObservation`), never the deal.

- ``random``: a uniformly random legal action (any preset).
- ``koole-random``, ``koole-first``, ``koole-second``, ``koole-combined``: the four
  strategies of the seed's web app (classic only), see :mod:`.koole`; ``koole-second-random``:
  second order falling back to random, as the app's earlier code did.
- ``knowledge``, ``cautious``: exact reasoning on what the seat knows, see :mod:`.exact`.
- ``solver``: the puzzle solver when the position is small, ``knowledge`` otherwise.
- ``discreet``: second order (classic), see :mod:`.discreet`, which registers it (``AGENT_MODULES`` lists it).

Importing this package registers them for the game (:func:`quaternity_cp.registry.register_agent`);
:func:`quaternity_cp.registry.load_all` does.
"""

from __future__ import annotations

from functools import partial
from typing import Callable

from ...registry import Agent, register_agent
from .base import RandomAgent
from .exact import CautiousAgent, KnowledgeAgent, SolverAgent
from .koole import STRATEGIES, KooleAgent

#: name -> factory, the agents registered for the game "quartets".
QUARTETS_AGENTS: dict[str, Callable[[], Agent]] = {
    "random": RandomAgent,
    **{f"koole-{s}": partial(KooleAgent, s) for s in STRATEGIES},
    "koole-second-random": partial(KooleAgent, "second", second_fallback="random"),
    "knowledge": KnowledgeAgent,
    "cautious": CautiousAgent,
    "solver": SolverAgent,
}

for _name, _factory in QUARTETS_AGENTS.items():
    register_agent("quartets", _name, _factory)

__all__ = ["QUARTETS_AGENTS", "RandomAgent", "KooleAgent", "KnowledgeAgent", "CautiousAgent", "SolverAgent",
           "STRATEGIES"]
