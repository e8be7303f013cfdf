"""The options of Quantum Go Fish (/work/shared/GOFISH.md), their defaults, and the setup of a table.

:class:`Setup` is who plays and with what (players, suits, suit size: the
table's top-level fields of a record); :class:`Rules` is how they play (every
other option of the table, the ``"rules"`` object of a record). Both are frozen
and check themselves when made: a bad value raises :class:`GoFishRulesError`
with a one-line message naming the option and the reason.

>>> Rules(four="some").four
'some'
>>> Rules(four="sometimes")
Traceback (most recent call last):
...
quaternity_cp.gofish.rules.GoFishRulesError: option four: 'sometimes' is not one of named, some, off
>>> Setup.of(3, suit_size=4).hand_size
4
>>> Setup.of(3, suits=2)
Traceback (most recent call last):
...
quaternity_cp.gofish.rules.GoFishRulesError: option suits: 2 suits x 4 cards cannot be dealt evenly to 3 players
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Mapping, Sequence

from ..errors import QuaternityError
from ..names import name_fault, shown


class GoFishError(QuaternityError, ValueError):
    """Base class of every error of the Go Fish package; ``str(error)`` is one line."""


class GoFishRulesError(GoFishError):
    """An unknown option, a bad option value, or a setup that cannot be dealt."""


#: option -> its allowed values (the first is the default); the boolean options take True/False
CHOICES: dict[str, tuple[str, ...]] = {
    "ask_void": ("allow", "forbid"),
    "after_yes": ("next", "again"),
    "four": ("named", "some", "off"),
    "priority": ("mover", "four-first"),
    "invalid": ("reject", "lose"),
    "repetition": ("none", "draw"),
}
FLAGS = ("win_after_ask", "no_initial_four")
MIN_PLAYERS, MAX_PLAYERS = 2, 26
MIN_SUITS, MAX_SUITS = 2, 26
MIN_SUIT_SIZE, MAX_SUIT_SIZE = 2, 10

#: a preset stands for a set of options (the public rule sets GOFISH.md attributes them to)
PRESETS: dict[str, dict[str, object]] = {
    "stacky": {},
    "geraschenko": {"ask_void": "forbid", "four": "some", "win_after_ask": True},
    "quantum-fingers": {"after_yes": "again", "no_initial_four": True},
    "thorntondr": {"win_after_ask": True, "priority": "four-first", "no_initial_four": True},
    "marcusrainbow": {"repetition": "draw"},
}


def _whole(option: str, value: object, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise GoFishRulesError(f"option {option}: expected a whole number, got {value!r}")
    if value < low or (high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f">= {low}"
        raise GoFishRulesError(f"option {option}: {value} is not in {span}")
    return value


@dataclass(frozen=True)
class Rules:
    """How the game is played; every field is an option of GOFISH.md's table, at its default.

    ``first`` is a seat number, checked against the players by :class:`~quaternity_cp.gofish.game.GoFish`.
    """

    first: int = 0
    ask_void: str = "allow"
    after_yes: str = "next"
    four: str = "named"
    win_after_ask: bool = False
    priority: str = "mover"
    no_initial_four: bool = False
    invalid: str = "reject"
    repetition: str = "none"

    def __post_init__(self) -> None:
        _whole("first", self.first, 0, MAX_PLAYERS - 1)
        for option, allowed in CHOICES.items():
            value = getattr(self, option)
            if value not in allowed or not isinstance(value, str):
                raise GoFishRulesError(f"option {option}: {value!r} is not one of {', '.join(allowed)}")
        for option in FLAGS:
            value = getattr(self, option)
            if not isinstance(value, bool):
                raise GoFishRulesError(f"option {option}: expected true or false, got {value!r}")

    @classmethod
    def from_dict(cls, data: "Mapping[str, object] | str | None") -> Rules:
        """The rules of a record's ``"rules"``: a preset name, or an object of options (``"preset"`` first,
        then the options that differ from it); None: the defaults."""
        if data is None:
            return cls()
        if isinstance(data, str):
            data = {"preset": data}
        if not isinstance(data, Mapping):
            raise GoFishRulesError(f"option rules: expected an object or a preset name, got {data!r}")
        values: dict[str, object] = {}
        preset = data.get("preset")
        if preset is not None:
            if not isinstance(preset, str) or preset not in PRESETS:
                raise GoFishRulesError(f"option preset: {preset!r} is not one of {', '.join(PRESETS)}")
            values.update(PRESETS[preset])
        known = {f.name for f in fields(cls)}
        for key, value in data.items():
            if key == "preset":
                continue
            if key not in known:
                raise GoFishRulesError(f"option {key}: unknown (known: {', '.join(sorted(known))})")
            values[key] = value
        first = values.pop("first", 0)
        return cls(first=_whole("first", first, 0, MAX_PLAYERS - 1), **values)  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, object]:
        """The options that differ from the defaults (what a record's ``"rules"`` holds)."""
        default = Rules()
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) != getattr(default, f.name)}


def option_value(option: str, text: str) -> object:
    """The value of rule option ``option`` written as text (``--rule OPTION=VALUE``): a whole number in the
    digits 0-9 for ``first``, true/false (yes/no) for a flag, the text itself for a choice (checked by
    :class:`Rules`).

    >>> option_value("first", "0"), option_value("win_after_ask", "yes"), option_value("four", "some")
    (0, True, 'some')
    """
    text = text.strip()
    if option == "first":
        if not (text.isascii() and text.isdigit()) or len(text) > 3:
            raise GoFishRulesError(f"option first: expected a seat number in the digits 0-9, got {text!r}")
        return int(text)
    if option in FLAGS:
        flag = {"true": True, "yes": True, "false": False, "no": False}.get(text.lower())
        if flag is None:
            raise GoFishRulesError(f"option {option}: expected true or false, got {text!r}")
        return flag
    return text


def rules_from_text(text: str) -> dict[str, object]:
    """The rules given on a command line (``--rules``), as a record's ``"rules"`` object, checked: a preset name
    (``geraschenko``), ``OPTION=VALUE`` items (``four=some``), or both, separated by commas with the preset first
    (``geraschenko,first=1``); or a JSON object (``{"four": "some"}``), as a record's ``"rules"``. Each value is
    read as its option's type (:func:`option_value`: ``first=0`` is the seat 0, ``win_after_ask=yes`` true);
    ``ask-void`` is ``ask_void``. The options not given take the preset's values, or the defaults: the result
    replaces a record's own rules (as Quaternity's ``--rules`` does). An empty text or item, a space inside an
    item, an option given twice or without a name or a value, and what :class:`Rules` refuses raise
    :class:`GoFishRulesError` (one line, without the option's name ``--rules``: the caller adds it).

    >>> rules_from_text("geraschenko,first=1")
    {'preset': 'geraschenko', 'first': 1}
    >>> rules_from_text("four=some, win-after-ask=true")
    {'four': 'some', 'win_after_ask': True}
    >>> rules_from_text("four=some,four=off")
    Traceback (most recent call last):
    ...
    quaternity_cp.gofish.rules.GoFishRulesError: option four given twice
    """
    from ..jsonio import InputRefused, load_json

    empty = "empty (give a preset name, e.g. geraschenko, or option=value items, e.g. four=some)"
    text = text.strip()
    if not text:
        raise GoFishRulesError(empty)
    spec: dict[str, object] = {}
    if text.startswith("{"):
        try:
            given = load_json(text)
        except InputRefused as err:
            raise GoFishRulesError(f"not a JSON object: {err}") from None
        if not isinstance(given, dict):
            raise GoFishRulesError(f"expected a JSON object of options, got {given!r}")
        spec = dict(given)
    else:
        for i, item in enumerate(part.strip() for part in text.split(",")):
            if not item:
                raise GoFishRulesError(f"an empty item in {text!r} (separate the items by single commas, "
                                       "e.g. geraschenko,first=1)")
            if any(c.isspace() for c in item):
                raise GoFishRulesError(f"a space inside the item {item!r} (separate the items by commas, "
                                       "e.g. geraschenko,first=1)")
            key, eq, value = item.partition("=")
            if not eq:
                if i:
                    raise GoFishRulesError(f"expected option=value, got {item!r} (the preset name comes first)")
                spec["preset"] = item
                continue
            key = key.replace("-", "_")
            if not key:
                raise GoFishRulesError(f"no option name in {item!r}")
            if not value:
                raise GoFishRulesError(f"option {key} has no value")
            if key in spec:
                raise GoFishRulesError(f"option {key} given twice")
            spec[key] = value if key == "preset" else option_value(key, value)
    Rules.from_dict(spec)  # every name and value checked (the seat ``first`` against the players by the game)
    return spec


def _names(option: str, given: "int | Sequence[str]", low: int, high: int, lettered: bool) -> tuple[str, ...]:
    if isinstance(given, (int, bool)):
        n = _whole(option, given, low, high)
        return tuple(chr(ord("A") + i) for i in range(n)) if lettered else tuple(str(i) for i in range(n))
    if isinstance(given, str) or not isinstance(given, Sequence):
        raise GoFishRulesError(f"option {option}: expected a number or a list of names, got {given!r}")
    names = tuple(given)
    _whole(option, len(names), low, high)
    for name in names:
        fault = name_fault(name)
        if fault is not None:
            shown_name = shown(name) if isinstance(name, str) else repr(name)
            raise GoFishRulesError(f"option {option}: the name {shown_name} {fault}")
        if not isinstance(name, str) or not name or name != name.strip() or any(c in name for c in ">:+-?"):
            raise GoFishRulesError(f"option {option}: {name!r} is not a name (non-empty, no spaces at the ends, "
                                   "none of > : + - ?)")
    if len(set(names)) != len(names):
        raise GoFishRulesError(f"option {option}: names repeat in {list(names)}")
    if option == "players" and any(name.isdigit() for name in names):
        raise GoFishRulesError(f"option players: a name cannot be a number (seat numbers name seats), in {list(names)}")
    return names


@dataclass(frozen=True)
class Setup:
    """Who plays with what: player names (seat numbers ``"0"``, ``"1"``, ... when not named), suit names
    (``A``, ``B``, ... when not named), cards per suit. ``named_players``/``named_suits`` say whether the
    names were given (a record writes numbers otherwise)."""

    players: tuple[str, ...]
    suits: tuple[str, ...]
    suit_size: int
    named_players: bool = False
    named_suits: bool = False

    def __post_init__(self) -> None:
        _whole("players", len(self.players), MIN_PLAYERS, MAX_PLAYERS)
        _whole("suits", len(self.suits), MIN_SUITS, MAX_SUITS)
        _whole("suit_size", self.suit_size, MIN_SUIT_SIZE, MAX_SUIT_SIZE)
        if len(self.suits) * self.suit_size % len(self.players):
            raise GoFishRulesError(
                f"option suits: {len(self.suits)} suits x {self.suit_size} cards cannot be dealt evenly to "
                f"{len(self.players)} players")

    @classmethod
    def of(cls, players: "int | Sequence[str]", suits: "int | Sequence[str] | None" = None,
           suit_size: int = 4) -> Setup:
        """A setup from a number of players or their names, a number of suits or their names (default: as
        many as players) and the suit size."""
        player_names = _names("players", players, MIN_PLAYERS, MAX_PLAYERS, lettered=False)
        suit_names = _names("suits", len(player_names) if suits is None else suits, MIN_SUITS, MAX_SUITS,
                            lettered=True)
        return cls(player_names, suit_names, _whole("suit_size", suit_size, MIN_SUIT_SIZE, MAX_SUIT_SIZE),
                   named_players=not isinstance(players, int), named_suits=suits is not None
                   and not isinstance(suits, int))

    @property
    def player_count(self) -> int:
        return len(self.players)

    @property
    def suit_count(self) -> int:
        return len(self.suits)

    @property
    def hand_size(self) -> int:
        """Cards each player is dealt."""
        return len(self.suits) * self.suit_size // len(self.players)


__all__ = ["GoFishError", "GoFishRulesError", "CHOICES", "FLAGS", "PRESETS", "Rules", "Setup", "option_value", "rules_from_text"]
