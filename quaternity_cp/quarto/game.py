"""Quarto through the one narrow game interface (:mod:`quaternity_cp.registry`), registered as ``"quarto"``.

Actions are :class:`~quaternity_cp.quarto.Move` values; the observation is
the position itself (Quarto is a game of perfect information), as a copy the
agent may change freely. A draw shares the win: ``returns() == [0.5, 0.5]``.

>>> from quaternity_cp.registry import GAMES
>>> state = GAMES["quarto"].new_state(0)
>>> state.current_player(), len(state.legal_actions())
(0, 16)
>>> state.apply_action(state.string_to_action("DSSH"))
>>> state.current_player(), len(state.legal_actions())
(1, 240)
>>> state.record()
{'game': 'quarto', 'moves': ['DSSH']}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Hashable, Optional

from ..registry import TERMINAL, ChanceOutcome
from .core import QuartoError
from .formats import record_to_json
from .position import Move, Position

if TYPE_CHECKING:
    from ..tournament import TournamentResult


class QuartoState:
    """A Quarto game in progress, as a :class:`~quaternity_cp.registry.GameState`."""

    num_players = 2

    def __init__(self, *, squares: bool = False, seed: int = 0, position: Optional[Position] = None):
        self.seed = seed  # Quarto has no chance: kept only to say which game of a run this is
        self.chance: list[ChanceOutcome] = []
        self.position = position if position is not None else Position(squares=squares)

    @property
    def squares(self) -> bool:
        return self.position.squares

    def current_player(self) -> int:
        to_move = self.position.to_move
        return TERMINAL if to_move is None else to_move

    def legal_actions(self) -> list[Hashable]:
        """By cell (A4 first, D1 last), then by piece given (LRTS first); the opening: the 16 pieces."""
        return list(self.position.legal_moves())

    def apply_action(self, action: Hashable) -> None:
        if not isinstance(action, Move):
            raise QuartoError(f"a Quarto action is a Move, got {action!r}")
        self.position.push(action)

    def undo(self) -> None:
        self.position.pop()

    def is_terminal(self) -> bool:
        return self.position.over

    def returns(self) -> list[float]:
        pos = self.position
        if not pos.over:
            return [0.0, 0.0]
        if pos.winner is None:
            return [0.5, 0.5]
        out = [0.0, 0.0]
        out[pos.winner] = 1.0
        return out

    def scores(self) -> list[float]:
        out = [0.0, 0.0]
        if self.position.winner is not None:
            out[self.position.winner] = 1.0
        return out

    def observation(self, player: int) -> Position:
        return self.position.copy()

    def action_to_string(self, action: Hashable) -> str:
        return str(action)

    def string_to_action(self, text: str) -> Move:
        return Move.parse(text)

    def record(self) -> dict[str, Any]:
        return record_to_json(self.position.moves, self.squares)

    def clone(self) -> "QuartoState":
        return QuartoState(seed=self.seed, position=self.position.copy())


_TRUE = {"true": True, "1": True, "yes": True, "on": True, "false": False, "0": False, "no": False, "off": False}


def _flag(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE:
        return _TRUE[value.strip().lower()]
    raise QuartoError(f"quarto option {name!r} must be true or false, got {value!r}")


def new_state(seed: int = 0, **options: Any) -> QuartoState:
    """A fresh Quarto game; the one option is ``squares`` (the 2x2 squares win too)."""
    unknown = sorted(set(options) - {"squares"})
    if unknown:
        raise QuartoError(f"unknown quarto option {unknown[0]!r} (known: squares)")
    return QuartoState(squares=_flag(options.get("squares", False), "squares"), seed=seed)


def check_record(record: dict[str, Any]) -> None:
    """Raise :class:`QuartoError` (one line) unless ``record`` (JSON data) is a Quarto record of legal moves."""
    from .formats import record_from_json, replay

    result = replay(record_from_json(record))
    if not result.valid:
        raise QuartoError(f"move {result.moves_applied + 1} ({result.error_move}): {result.message}")


def arena(first: str, second: str, games: int = 100, *, seed: int = 0, squares: bool = False,
          workers: int = 1) -> "TournamentResult":
    """quarto-lib's arena, as a thin call of the one tournament runner: ``games`` seeded games, who starts alternating.

    Returns the runner's :class:`~quaternity_cp.tournament.TournamentResult`
    (``.summary()`` has the win rates with their 95% intervals).
    """
    from ..tournament import run_tournament

    return run_tournament("quarto", [first, second], games, seed, options={"squares": squares}, workers=workers)


__all__ = ["QuartoState", "new_state", "check_record", "arena"]
