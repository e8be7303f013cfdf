"""The solver's moves: the game's moves, and the free choice of who moves when the turn is shared.

Shared by the slow path (:mod:`.core`), the fast path (:mod:`.kernel`) and the
strategy trees (:mod:`.api`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..game import Game, Move


@dataclass(frozen=True)
class Choice:
    """The free choice of who moves, when the hand-over leaves several seats (``handover = fewest``)."""

    seat: int


def move_text(game: Game, move: Move | Choice) -> str:
    """A move in the game's notation; a free choice as "<seat> takes the turn"."""
    if isinstance(move, Choice):
        return f"{game.player_name(move.seat)} takes the turn"
    return game.move_str(move)


__all__ = ["Choice", "move_text"]
