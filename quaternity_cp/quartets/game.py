"""The game setup (players, sets, cards) and moves with their notation.

A :class:`Game` fixes P players, N sets and S cards per set, with optional names.
Cards are numbered ``set * S + index``; seats ``0..P-1``.

>>> game = Game(3, 2, 3)
>>> game.card_name(4), game.card("B1")
('B1', 4)
>>> move = game.parse_move("0>1:A0-")
>>> move
Question(asker=0, target=1, card=0, answer=False)
>>> game.move_str(move)
'0>1:A0-'
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import Sequence, Union

from ..errors import InvalidMoveError, SetupError
from ..names import name_fault, seat_name, shown

#: Documented size limits: larger games are input errors, not hangs.
MAX_PLAYERS = 100
MAX_SETS = 1000
MAX_SET_SIZE = 100
MAX_CARDS = 10_000

_NAME_FORBIDDEN = set(" \t\r\n>:!+-?#,\"'[]")  # [ ] would be read as terminal markup


@dataclass(frozen=True)
class Question:
    """``asker`` asks ``target`` for ``card``; ``answer`` is True (yes), False (no) or None (open)."""

    asker: int
    target: int
    card: int
    answer: bool | None = None

    def unanswered(self) -> "Question":
        return Question(self.asker, self.target, self.card, None)

    def answered(self, answer: bool) -> "Question":
        return Question(self.asker, self.target, self.card, answer)


@dataclass(frozen=True)
class Declaration:
    """``player`` declares that it holds the whole of set ``set``."""

    player: int
    set: int


Move = Union[Question, Declaration]


def _check_names(kind: str, names: Sequence[str], count: int, *, no_trailing_digit: bool) -> tuple[str, ...]:
    names = tuple(names)
    if len(names) != count:
        raise SetupError(f"{count} {kind}s need {count} names, got {len(names)}")
    seen = set()
    for name in names:
        if not isinstance(name, str) or not name:
            raise SetupError(f"{kind} names must be non-empty strings, got {name!r}")
        fault = name_fault(name)
        if fault is not None:
            raise SetupError(f"{kind} name {shown(name)} {fault}")
        if set(name) & _NAME_FORBIDDEN:
            raise SetupError(f"{kind} name {name!r} contains a space or one of > : ! + - ? # , [ ] \" '")
        if no_trailing_digit and name[-1].isdigit():
            raise SetupError(f"{kind} name {name!r} must not end in a digit (cards are named set + index)")
        if kind == "player" and name.isdigit():
            raise SetupError(f"player name {name!r} must not be a number (numbers are seats)")
        if name in seen:
            raise SetupError(f"duplicate {kind} name {name!r}")
        seen.add(name)
    return names


class Game:
    """P players, N sets of S cards, and the names used in notation."""

    __slots__ = ("players", "sets", "set_size", "player_names", "set_names", "_player_index", "_set_index", "named_players")

    def __init__(
        self,
        players: int,
        sets: int,
        set_size: int,
        *,
        player_names: Sequence[str] | None = None,
        set_names: Sequence[str] | None = None,
    ):
        for label, value in (("players", players), ("sets", sets), ("set_size", set_size)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise SetupError(f"{label} must be a whole number, not {value!r}")
        if players < 2:
            raise SetupError(f"a game needs at least 2 players, not {players}")
        if sets < 1:
            raise SetupError(f"a game needs at least 1 set, not {sets}")
        if set_size < 1:
            raise SetupError(f"a set needs at least 1 card, not {set_size}")
        if players > MAX_PLAYERS:
            raise SetupError(f"{players} players is beyond the limit of {MAX_PLAYERS}")
        if sets > MAX_SETS:
            raise SetupError(f"{sets} sets is beyond the limit of {MAX_SETS}")
        if set_size > MAX_SET_SIZE:
            raise SetupError(f"set size {set_size} is beyond the limit of {MAX_SET_SIZE}")
        if sets * set_size > MAX_CARDS:
            raise SetupError(f"{sets * set_size} cards is beyond the limit of {MAX_CARDS}")
        if (sets * set_size) % players:
            raise SetupError(
                f"{sets} set{'s' if sets != 1 else ''} of {set_size} card{'s' if set_size != 1 else ''} "
                f"({sets * set_size}) cannot be dealt evenly to {players} players"
            )
        if set_names is None:
            if sets > 26:
                raise SetupError(f"{sets} sets need set names (only A..Z are built in)")
            set_names = string.ascii_uppercase[:sets]
        self.players = players
        self.sets = sets
        self.set_size = set_size
        self.named_players = player_names is not None
        if player_names is None:
            self.player_names = tuple(str(p) for p in range(players))
        else:
            self.player_names = _check_names("player", player_names, players, no_trailing_digit=False)
        self.set_names = _check_names("set", set_names, sets, no_trailing_digit=True)
        self._player_index = {name: p for p, name in enumerate(self.player_names)}
        self._set_index = {name: s for s, name in enumerate(self.set_names)}

    # -- sizes -------------------------------------------------------------
    @property
    def cards(self) -> int:
        return self.sets * self.set_size

    @property
    def hand_size(self) -> int:
        """Cards per hand at the start."""
        return self.cards // self.players

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and (
            self.players, self.sets, self.set_size, self.player_names, self.set_names
        ) == (other.players, other.sets, other.set_size, other.player_names, other.set_names)

    def __hash__(self) -> int:
        return hash((self.players, self.sets, self.set_size, self.player_names, self.set_names))

    def __repr__(self) -> str:
        return f"Game(players={self.players}, sets={self.sets}, set_size={self.set_size})"

    # -- names -------------------------------------------------------------
    def set_of(self, card: int) -> int:
        return card // self.set_size

    def cards_of(self, s: int) -> range:
        return range(s * self.set_size, (s + 1) * self.set_size)

    def card_name(self, card: int) -> str:
        return f"{self.set_names[card // self.set_size]}{card % self.set_size}"

    def player_name(self, seat: int) -> str:
        return self.player_names[seat]

    def seat_name(self, seat: int, viewer: int | None = None) -> str:
        """``seat`` for a reader: its player's name, else ``seat 2`` (``you`` for ``viewer``; :mod:`.names`)."""
        return seat_name(self.player_names if self.named_players else None, seat, viewer)

    def set_name(self, s: int) -> str:
        return self.set_names[s]

    def player(self, ref: "str | int") -> int:
        """A seat from a seat number or a player name."""
        if isinstance(ref, bool):
            raise InvalidMoveError(f"unknown player {ref!r}")
        if isinstance(ref, int):
            if 0 <= ref < self.players:
                return ref
            raise InvalidMoveError(f"unknown player {ref} (seats are 0..{self.players - 1})")
        if isinstance(ref, str):
            if ref in self._player_index:
                return self._player_index[ref]
            if ref.isascii() and ref.isdigit() and len(ref) <= 9:
                return self.player(int(ref))
        raise InvalidMoveError(f"unknown player {ref!r}")

    def set(self, ref: "str | int") -> int:
        """A set index from a set name (or an index)."""
        if isinstance(ref, int) and not isinstance(ref, bool):
            if 0 <= ref < self.sets:
                return ref
            raise InvalidMoveError(f"unknown set {ref}")
        if isinstance(ref, str) and ref in self._set_index:
            return self._set_index[ref]
        raise InvalidMoveError(f"unknown set {ref!r}")

    def card(self, ref: "str | int") -> int:
        """A card id from its name (``A2``, ``Red0``) or id."""
        if isinstance(ref, int) and not isinstance(ref, bool):
            if 0 <= ref < self.cards:
                return ref
            raise InvalidMoveError(f"unknown card {ref}")
        if isinstance(ref, str):
            m = re.fullmatch(r"(.*?)([0-9]{1,9})", ref)
            if m and m.group(1) in self._set_index:
                index = int(m.group(2))
                if index < self.set_size and (m.group(2) == "0" or not m.group(2).startswith("0")):
                    return self._set_index[m.group(1)] * self.set_size + index
        raise InvalidMoveError(f"unknown card {ref!r}")

    # -- moves -------------------------------------------------------------
    def parse_move(self, text: str) -> Move:
        """A move from its notation: ``0>1:A0+``, ``0>1:A0-``, ``0>1:A0?``, ``0!A``."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move must be text, not {text!r}")
        token = text.strip()
        m = re.fullmatch(r"([^\s>:!]+)>([^\s>:!]+):([^\s>:!]+)([+\-?])", token)
        if m:
            asker, target, card, sign = m.groups()
            answer = {"+": True, "-": False, "?": None}[sign]
            return Question(self.player(asker), self.player(target), self.card(card), answer)
        m = re.fullmatch(r"([^\s>:!]+)!([^\s>:!]+)", token)
        if m:
            return Declaration(self.player(m.group(1)), self.set(m.group(2)))
        raise InvalidMoveError(f"cannot read move {token!r} (expected like 0>1:A0+, 0>1:A0-, 0>1:A0? or 0!A)")

    def move_str(self, move: Move) -> str:
        """The notation of a move, with names when the game names its players."""
        if isinstance(move, Question):
            sign = {True: "+", False: "-", None: "?"}[move.answer]
            return f"{self.player_names[move.asker]}>{self.player_names[move.target]}:{self.card_name(move.card)}{sign}"
        if isinstance(move, Declaration):
            return f"{self.player_names[move.player]}!{self.set_names[move.set]}"
        raise TypeError(f"not a move: {move!r}")
