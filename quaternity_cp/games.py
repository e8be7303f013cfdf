"""The one narrow game interface that every runner, agent and page uses.

Solvers, agents, the tournament runner and the web page talk to every game
(the Quaternity presets, classic Quartets, Quarto) through :class:`GameState`,
in the manner of OpenSpiel's ``State``: whose decision it is, the legal
actions, apply one, is it over, what each seat gets. Nothing here knows a
game's rules; each game module implements the protocol and registers a
factory under a name with :func:`register_game`.

An *action* is a small hashable value of the game's own (a move object); its
text form comes from :meth:`GameState.action_to_string` and is read back by
:meth:`GameState.string_to_action`. An *observation* is everything the seat
may know and nothing more (in classic Quartets: the public record and its own
hand, never the deal); it is the only input an agent gets.

>>> sorted(GAMES) == sorted(GAMES)  # games register themselves on import
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Protocol, runtime_checkable

TERMINAL = -1  # current_player() of a finished game


@runtime_checkable
class GameState(Protocol):
    """A game in progress. Mutable: :meth:`apply_action` and :meth:`undo` change it in place."""

    @property
    def num_players(self) -> int:
        """The number of seats."""

    def current_player(self) -> int:
        """The seat that must decide now (asker, answerer, placer), or TERMINAL."""

    def legal_actions(self) -> list[Hashable]:
        """The actions open to :meth:`current_player`, in a fixed, documented order."""

    def apply_action(self, action: Hashable) -> None:
        """Play ``action`` for the current player; an illegal one raises the game's error."""

    def undo(self) -> None:
        """Take back the last decision (and anything the game did by itself after it)."""

    def is_terminal(self) -> bool:
        """Whether the game is over."""

    def returns(self) -> list[float]:
        """Per seat, the share of the win: 1/k to each of k winners, 0 to the rest (all 0 before the end)."""

    def scores(self) -> list[float]:
        """Per seat, the game's own score (sets claimed; Quarto: 1 to the winner)."""

    def observation(self, player: int) -> Any:
        """What ``player`` may know now; an agent's only input."""

    def action_to_string(self, action: Hashable) -> str:
        """The action in the game's record notation."""

    def string_to_action(self, text: str) -> Hashable:
        """An action from its notation (raises the game's error on bad text)."""

    def record(self) -> dict:
        """The game so far as a JSON record that ``quaternity check`` (or ``quarto check``) accepts."""

    def clone(self) -> "GameState":
        """An independent copy."""


@runtime_checkable
class Agent(Protocol):
    """A player: sees one observation at a time and picks one of the legal actions.

    Agents are deterministic given the ``rng`` they are handed (seeded by the
    runner from the game's seed and the seat), and never see more than the
    observation.
    """

    name: str

    def step(self, observation: Any, legal_actions: list[Hashable], rng: random.Random) -> Hashable:
        """The chosen action, one of ``legal_actions``."""


@dataclass(frozen=True)
class GameSpec:
    """A registered game: how to make a fresh state and which agents can play it."""

    name: str
    new_state: Callable[..., GameState]  # new_state(seed: int, **options) -> GameState
    agents: dict[str, Callable[[], Agent]] = field(default_factory=dict)
    description: str = ""


GAMES: dict[str, GameSpec] = {}


def register_game(spec: GameSpec) -> GameSpec:
    """Make a game known by name (called by each game module on import)."""
    GAMES[spec.name] = spec
    return spec


def register_agent(game: str, name: str, factory: Callable[[], Agent]) -> None:
    """Make an agent known for a registered game."""
    GAMES[game].agents[name] = factory


def derive_seed(seed: int, *path: int) -> int:
    """A 63-bit seed derived from ``seed`` and a path (game index, seat, ...), stable across runs and platforms."""
    import hashlib

    text = ":".join(str(int(x)) for x in (seed, *path)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


#: The modules that register games, imported by :func:`load_all`.
GAME_MODULES = ("quaternity_cp.quartets", "quaternity_cp.quarto.game")


def load_all() -> dict[str, GameSpec]:
    """Import every game module present (each registers itself) and return the registry."""
    import importlib
    import importlib.util
    import sys

    for name in GAME_MODULES:
        if name in sys.modules:
            continue
        parent = name.rpartition(".")[0]
        if parent != __package__ and importlib.util.find_spec(parent) is None:
            continue  # the game's package is not part of this installation yet
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)  # errors inside a game module are not hidden
    return GAMES


__all__ = ["TERMINAL", "GameState", "Agent", "GameSpec", "GAMES", "register_game", "register_agent", "derive_seed",
           "load_all"]
