"""How a seat is named for a reader: the one rule every message, page and picture uses.

A seat is its player's name when the game names its players, else ``seat N``;
for the person viewing the table (``viewer``) it is ``you``.

>>> seat_name(None, 2), seat_name(("Ann", "Bob"), 1), seat_name(("Ann", "Bob"), 1, viewer=1)
('seat 2', 'Bob', 'you')

No import of the project here: every layer may use it.
"""

from __future__ import annotations

from typing import Protocol, Sequence


class Named(Protocol):
    """A game as this module reads it (a :class:`~quaternity_cp.game.Game`)."""

    @property
    def players(self) -> int: ...

    @property
    def named_players(self) -> bool: ...

    @property
    def player_names(self) -> Sequence[str]: ...


def seat_name(names: Sequence[str] | None, seat: int, viewer: int | None = None) -> str:
    """``seat`` for a reader: ``you`` when it is ``viewer``'s, else ``names[seat]``, else ``seat N``.

    ``names`` is None when the game does not name its players (see :func:`player_names`).
    """
    if viewer is not None and seat == viewer:
        return "you"
    return f"seat {seat}" if names is None else names[seat]


def player_names(game: Named) -> Sequence[str] | None:
    """A game's player names as :func:`seat_name` takes them: None when the game does not name its players
    (a :class:`~quaternity_cp.game.Game`)."""
    return game.player_names if game.named_players else None


def seat_names(game: Named, viewer: int | None = None) -> list[str]:
    """Every seat of ``game`` (its ``players``, a count), named by :func:`seat_name`."""
    names = player_names(game)
    return [seat_name(names, p, viewer) for p in range(game.players)]


__all__ = ["Named", "seat_name", "player_names", "seat_names"]
