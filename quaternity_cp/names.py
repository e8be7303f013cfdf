"""How a seat is named for a reader: the one rule every message, page and picture uses.

A seat is its player's name when the game names its players, else ``seat N``;
for the person viewing the table (``viewer``) it is ``you``.

>>> seat_name(None, 2), seat_name(("Ann", "Bob"), 1), seat_name(("Ann", "Bob"), 1, viewer=1)
('seat 2', 'Bob', 'you')

The one name rule of every game's files (:func:`name_fault`, docs/rules.md
section 10): a name is text of 1 to :data:`MAX_NAME_LENGTH` characters, every
one printable: no control character (NUL, ESC, BEL, ...), no format character
(right-to-left overrides, zero-width joiners), no separator other than the
plain space (line and paragraph separators, no-break spaces), nothing
unassigned or private. Each game adds its own notation's rules (Quartets: no
space at all; Go Fish: none at the ends).

>>> name_fault("Ann"), name_fault("A\u202eB"), name_fault("x" * 65)
(None, 'contains U+202E, a format character (no control, format or separator characters)', 'is 65 characters long (at most 64)')

No import of the project here: every layer may use it.
"""

from __future__ import annotations

import unicodedata
from typing import Protocol, Sequence

#: The longest name a game takes (a player, a set or suit), in characters.
MAX_NAME_LENGTH = 64

_KINDS = {"Cc": "a control character", "Cf": "a format character", "Cs": "a surrogate", "Co": "a private-use character",
          "Cn": "an unassigned character", "Zl": "a line separator", "Zp": "a paragraph separator",
          "Zs": "a space other than the plain space"}


def name_fault(name: object) -> str | None:
    """Why ``name`` breaks the one name rule (see the module), as the end of a sentence; None when it keeps it."""
    if not isinstance(name, str):
        return "is not text"
    if not name:
        return "is empty"
    if len(name) > MAX_NAME_LENGTH:
        return f"is {len(name):,} characters long (at most {MAX_NAME_LENGTH})"
    for ch in name:
        if ch != " " and not ch.isprintable():
            kind = _KINDS.get(unicodedata.category(ch), "not printable")
            return f"contains U+{ord(ch):04X}, {kind} (no control, format or separator characters)"
    return None


def shown(name: str, limit: int = 24) -> str:
    """A name for a message about it: quoted, every unprintable character escaped, shortened when long."""
    text = "".join(ch if ch == " " or ch.isprintable() else f"\\u{ord(ch):04x}" for ch in name[:limit])
    return f"'{text}\u2026'" if len(name) > limit else f"'{text}'"


class Named(Protocol):
    """A game as this module reads it (a :class:`~quaternity_cp.quartets.game.Game`)."""

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
    (a :class:`~quaternity_cp.quartets.game.Game`)."""
    return game.player_names if game.named_players else None


def seat_names(game: Named, viewer: int | None = None) -> list[str]:
    """Every seat of ``game`` (its ``players``, a count), named by :func:`seat_name`."""
    names = player_names(game)
    return [seat_name(names, p, viewer) for p in range(game.players)]


__all__ = ["MAX_NAME_LENGTH", "name_fault", "shown", "Named", "seat_name", "player_names", "seat_names"]
