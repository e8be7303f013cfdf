"""Search agents for classic Quartets: information-set MCTS and determinized search, on the exact sampler.

Both see only their observation. A *world* is a classic game that agrees with everything the
observation shows (the public record, the seat's own hand): a deal drawn uniformly among those of the
seat's view, exactly (:class:`~quaternity_cp.quartets.count.DealCounter` of ``obs.private_constraints()``,
what ``quaternity count --sample`` draws), given back to the start and played again
(:meth:`~quaternity_cp.quartets.state.ClassicState.from_view`). Nothing here needs OpenSpiel: the
agents play in the project's tournaments through the game interface, and every rule is the game
state's.

- ``ismcts``: single-observer information-set Monte Carlo tree search (Cowling, Powley and
  Whitehouse, 2012). Each simulation draws a world and walks one tree whose nodes are the public
  records reached from the decision (what every seat sees, so for the agent its information set,
  the other seats' hands being unseen), choosing among the actions legal in that world by UCB with
  availability counts (an action's exploration term counts the visits in which it was legal),
  adds one node, plays at random to the end and credits every seat on the path with its own
  return. It plays the action visited most (ties: the better mean, then the legal order).
- ``determinized``: draws ``worlds`` deals; in each, every legal action is followed by ``playouts``
  random games, and the world votes for the action with the best mean return (a tie splits the
  vote); the most votes win (ties: the better mean over all worlds, then the legal order).

Budgets per decision: ``simulations`` (ismcts) or ``worlds`` x ``playouts`` per action
(determinized), and optionally ``max_seconds``, checked after every simulation and playout. Without
a clock everything is drawn from the agent's ``rng``, so a game plays the same on every machine; with
one it does not. The counts of the sampler stay within ``limits``
(:data:`~quaternity_cp.quartets.knowledge.AGENT_LIMITS`); past them the decision is ``knowledge``'s, and
``fallbacks`` counts it. Classic only (:meth:`SearchAgent.refuses`): the Quaternity presets hide
nothing to sample.

Measured at 3 seats x 6 sets of 4 against two copies of each first-order agent: the README's table
(``quaternity tournament``, the commands beside it).
"""

from __future__ import annotations

import math
import random
from typing import Any, Hashable

from ...budget import Limits
from ..count import CountLimitError, CountLimits, DealCounter
from ...registry import register_agent
from ..knowledge import AGENT_LIMITS
from ..state import ClassicState
from .base import classic_only
from .exact import KnowledgeAgent


class SearchAgent:
    """What both search agents share: worlds drawn exactly from the observation, random playouts, the budget."""

    name = "search"

    def __init__(self, max_seconds: float | None = None, limits: CountLimits | None = AGENT_LIMITS):
        self.max_seconds = max_seconds
        self.limits = limits
        self.fallbacks = 0
        self.searched = 0  # the worlds the last decision searched
        self._fallback = KnowledgeAgent(limits)

    @classmethod
    def refuses(cls, options: dict[str, Any]) -> str | None:
        """Classic only: the Quaternity presets deal nothing, so there are no worlds to draw."""
        return classic_only(options, "the Quaternity presets hide nothing to sample")

    def step(self, obs: Any, legal_actions: list[Hashable], rng: random.Random) -> Hashable:
        if len(legal_actions) == 1:
            return legal_actions[0]
        if obs.hand is None:
            raise ValueError(f"{self.name} plays classic only")
        self.searched = 0
        clock = Limits(max_seconds=self.max_seconds).start()
        try:
            counter = DealCounter(obs.private_constraints(), limits=self.limits)
            counter.sample(0, rng)  # the sampler's tables, within the limits
            return self.search(obs, legal_actions, rng, lambda: self._world(obs, counter, rng), clock)
        except CountLimitError:  # the tables, or the draws of this decision, past the limits
            self.fallbacks += 1
            return self._fallback.step(obs, legal_actions, rng)

    def search(self, obs: Any, legal: list[Hashable], rng: random.Random, world: Any, clock: Any) -> Hashable:
        """The action chosen, drawing worlds with ``world()`` until the budget or ``clock`` runs out."""
        raise NotImplementedError

    def _world(self, obs: Any, counter: DealCounter, rng: random.Random) -> ClassicState:
        """One world: a uniform deal of the view, played up to now; its later chance events from ``rng``."""
        world = ClassicState.from_view(obs, counter.sample(1, rng)[0], seed=rng.getrandbits(63))
        self.searched += 1
        return world


def playout(state: Any, rng: random.Random) -> list[float]:
    """Play ``state`` to its end with uniformly random legal actions; its returns."""
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return list(state.returns())


class _Node:
    """A public record reached in the tree: per action its visits, summed return and availability."""

    __slots__ = ("visits", "value", "avail", "children")

    def __init__(self) -> None:
        self.visits: dict[Hashable, int] = {}
        self.value: dict[Hashable, float] = {}
        self.avail: dict[Hashable, int] = {}
        self.children: dict[tuple[Hashable, tuple[Any, ...]], _Node] = {}


class ISMCTSAgent(SearchAgent):
    """Single-observer IS-MCTS with ``simulations`` per decision (see the module's docstring)."""

    name = "ismcts"

    def __init__(self, simulations: int = 200, exploration: float = 0.7, max_seconds: float | None = None,
                 limits: CountLimits | None = AGENT_LIMITS):
        super().__init__(max_seconds, limits)
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, not {simulations}")
        self.simulations = simulations
        self.exploration = exploration

    def search(self, obs: Any, legal: list[Hashable], rng: random.Random, world: Any, clock: Any) -> Hashable:
        root = _Node()
        for _ in range(self.simulations):
            self._simulate(root, world(), rng)
            if clock.expired():
                break

        def score(a: Hashable) -> tuple[int, float]:
            n = root.visits.get(a, 0)
            return n, root.value.get(a, 0.0) / n if n else 0.0

        return max(legal, key=score)

    def _simulate(self, root: _Node, state: ClassicState, rng: random.Random) -> None:
        node = root
        path: list[tuple[_Node, Hashable, int]] = []
        c = self.exploration
        while not state.is_terminal():
            player = state.current_player()
            legal = state.legal_actions()
            for a in legal:
                node.avail[a] = node.avail.get(a, 0) + 1
            untried: list[Hashable] = [a for a in legal if a not in node.visits]
            action: Hashable
            if untried:
                action = untried[rng.randrange(len(untried))]
            else:
                visits, value, avail = node.visits, node.value, node.avail
                action = max(legal, key=lambda a: value[a] / visits[a]
                             + c * math.sqrt(math.log(avail[a]) / visits[a]))
            before = len(state.moves)
            state.apply_action(action)
            path.append((node, action, player))
            key = (action, tuple(state.moves[before:]))  # the public outcome: the answer, a put-down
            child = node.children.get(key)
            if child is None:
                node.children[key] = _Node()
                break
            node = child
            if untried:
                break
        returns = playout(state, rng)
        for seen, taken, player in path:
            seen.visits[taken] = seen.visits.get(taken, 0) + 1
            seen.value[taken] = seen.value.get(taken, 0.0) + returns[player]


class DeterminizedAgent(SearchAgent):
    """Determinized search: ``worlds`` deals, ``playouts`` per action in each, a vote (see the module's docstring)."""

    name = "determinized"

    def __init__(self, worlds: int = 8, playouts: int = 2, max_seconds: float | None = None,
                 limits: CountLimits | None = AGENT_LIMITS):
        super().__init__(max_seconds, limits)
        if worlds < 1 or playouts < 1:
            raise ValueError(f"worlds and playouts must be at least 1, not {worlds} and {playouts}")
        self.worlds = worlds
        self.playouts = playouts

    def search(self, obs: Any, legal: list[Hashable], rng: random.Random, world: Any, clock: Any) -> Hashable:
        me = obs.seat
        votes = dict.fromkeys(legal, 0.0)
        totals = dict.fromkeys(legal, 0.0)
        for _ in range(self.worlds):
            start = world()
            means = {}
            for action in legal:
                total = 0.0
                for _ in range(self.playouts):
                    state = start.clone()
                    state.apply_action(action)
                    total += playout(state, rng)[me]
                means[action] = total / self.playouts
                if clock.expired():
                    break
            best = max(means.values())
            winners = [a for a, v in means.items() if v == best]
            for a in winners:
                votes[a] += 1.0 / len(winners)
            for a, v in means.items():
                totals[a] += v
            if clock.expired():
                break
        return max(legal, key=lambda a: (votes[a], totals[a]))


register_agent("quartets", "ismcts", ISMCTSAgent)
register_agent("quartets", "determinized", DeterminizedAgent)

__all__ = ["SearchAgent", "ISMCTSAgent", "DeterminizedAgent", "playout"]
