"""File formats: game records (JSON and plain text) and positions (JSON).

A *record* is a setup, rules, an optional starting position and a list of
moves. A *position* file sets up a position directly (a puzzle); it may carry
moves too, played from it. Every reading error is a :class:`FormatError` whose
message names the place (field or move) and what is wrong, in one line.

>>> rec = parse_record('players: 3\\nsets: 2\\nset_size: 3\\n0>1:A0+ 0>2:A2+')
>>> rec.game.players, [rec.game.move_str(m) for m in rec.moves]
(3, ['0>1:A0+', '0>2:A2+'])
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from . import effects
from .. import jsonio
from .classic import parse_record_fields
from .constraints import Constraints, bits, mask_of
from ..errors import FormatError, QuaternityError
from .game import Declaration, Game, Move, Question
from ..jsonio import MAX_INPUT_BYTES, MAX_JSON_DEPTH, MAX_NUMBER_DIGITS, InputRefused, check_size, show
from .position import Position, State
from .rules import Rules

if TYPE_CHECKING:
    from .engines import Engine

GAME_NAME = "quartets"  # the name this game is registered under, and a record's optional "game" field
RECORD_KEYS = {"players", "sets", "set_size", "rules", "moves", "deal", "first", "tie_break"}
POSITION_KEYS = {"hands", "turn", "scores", "claimed", "cards", "at_least", "at_most", "question"}


@dataclass
class Record:
    """A game to replay: setup, rules, an optional starting position, moves."""

    game: Game
    rules: Rules
    moves: list[Move] = field(default_factory=list)
    start: State | None = None  # None: the start of the game
    texts: list[str] = field(default_factory=list)  # each move as written, for messages
    deal: dict[int, list[int]] | None = None  # classic quartets: seat -> the cards dealt to it
    first: int | None = None  # the seat that moved first
    tie_break: int | None = None  # tie = random: the seat drawn among those tied for first

    def position(self, engine: "str | Engine | None" = None) -> Position:
        """The starting position of the record (before its moves)."""
        return Position(self.game, self.rules, engine=engine, state=self.start,
                        first=self.first if self.start is None else None, tie_break=self.tie_break)


# -- input limits and safe decoding -------------------------------------------------
#: Documented limits (README, docs/rules.md): larger input is refused at once, not ground through.
#: The file size, JSON nesting and number length are those of every game's files (:mod:`.jsonio`).
MAX_MOVES = jsonio.MAX_MOVES  # moves in one record, of every game

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def decode_input(data: bytes) -> str:
    """File contents as text: at most :data:`MAX_INPUT_BYTES`, strict UTF-8.

    A UTF-8 byte-order mark is accepted (and dropped by :func:`parse_record`).

    >>> decode_input(b"\\xef\\xbb\\xbfplayers: 2")[1:]
    'players: 2'
    >>> decode_input(b"players: 2\\n\\xff")
    Traceback (most recent call last):
    ...
    quaternity_cp.errors.FormatError: not UTF-8 text: byte 0xff at line 2 (byte offset 11)
    """
    try:
        return jsonio.decode_input(data)
    except InputRefused as err:
        raise FormatError(str(err)) from None


def _where(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"line {line}, column {offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def _check_text(text: str) -> str:
    """The text without a leading byte-order mark; refuses sizes beyond the limit and control characters."""
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        check_size(text)
    except InputRefused as err:
        raise FormatError(str(err)) from None
    bad = _CONTROL.search(text)
    if bad is not None:
        raise FormatError(
            f"{_where(text, bad.start())}: control character U+{ord(bad.group()):04X} (a record is text)"
        )
    return text


def load_json(text: str, what: str = "JSON") -> Any:
    """Strict JSON (:func:`.jsonio.load_json`: no duplicate keys, no NaN or Infinity, numbers of at
    most :data:`MAX_NUMBER_DIGITS` digits, nesting at most :data:`MAX_JSON_DEPTH` deep, no unpaired
    surrogates); every refusal is a :class:`FormatError` saying "malformed" ``what``.

    >>> load_json('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    quaternity_cp.errors.FormatError: malformed JSON: key "a" given twice in one object
    """
    try:
        return jsonio.load_json(text)
    except InputRefused as err:
        where = "" if err.line is None else f" at line {err.line}, column {err.column}"
        raise FormatError(f"malformed {what}{where}: {err.reason}") from None


def _check_move_count(count: int, where: str) -> None:
    try:
        jsonio.check_move_count(count, where)
    except InputRefused as err:
        raise FormatError(str(err)) from None


# -- helpers -------------------------------------------------------------------------
def _int(value: Any, where: str, *, low: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormatError(f"{where}: expected a whole number, got {show(value)}")
    if low is not None and value < low:
        raise FormatError(f"{where}: must be at least {low}, got {value}")
    return value


def _names_or_count(value: Any, where: str) -> tuple[int, list[str] | None]:
    if isinstance(value, list):
        if not all(isinstance(v, str) for v in value):
            raise FormatError(f"{where}: names must be strings")
        return len(value), value
    return _int(value, where), None


def _game(data: Mapping[str, Any]) -> Game:
    for key in ("players", "sets", "set_size"):
        if key not in data:
            raise FormatError(f"missing field {key!r}")
    players, player_names = _names_or_count(data["players"], "field 'players'")
    sets, set_names = _names_or_count(data["sets"], "field 'sets'")
    set_size = _int(data["set_size"], "field 'set_size'")
    try:
        return Game(players, sets, set_size, player_names=player_names, set_names=set_names)
    except QuaternityError as err:
        raise FormatError(f"setup: {err}") from None


def _rules(value: Any, override: "str | Rules | None", where: str = "field 'rules'") -> Rules:
    if override is not None:
        try:
            return Rules.from_spec(override)
        except QuaternityError as err:
            raise FormatError(f"--rules: {err}") from None
    try:
        _check_rule_keys(value)
        return Rules.from_spec(value)
    except QuaternityError as err:
        raise FormatError(f"{where}: {err}") from None


def _move_from_json(game: Game, item: Any, where: str) -> Move:
    try:
        if isinstance(item, str):
            return game.parse_move(item)
        if isinstance(item, Mapping):
            if "declare" in item:
                extra = set(item) - {"declare", "set"}
                if extra or "set" not in item:
                    raise FormatError(f"{where}: a declaration is {{\"declare\": player, \"set\": set}}")
                name = item["set"]
                if not isinstance(name, str):
                    raise FormatError(f"{where}: set must be a set name like \"A\", got {show(name)}")
                return Declaration(_seat(game, item["declare"], f"{where}: declare"), game.set(name))
            extra = set(item) - {"asker", "target", "card", "answer"}
            missing = {"asker", "target", "card"} - set(item)
            if extra or missing:
                raise FormatError(
                    f"{where}: a question is {{\"asker\", \"target\", \"card\", \"answer\"}}"
                    + (f"; unknown key {sorted(extra)[0]!r}" if extra else f"; missing {sorted(missing)[0]!r}")
                )
            if "answer" in item and item["answer"] not in ("yes", "no"):
                raise FormatError(f"{where}: answer must be \"yes\", \"no\" or absent (still open), "
                                  f"got {show(item['answer'])}")
            card = item["card"]
            if not isinstance(card, str):
                raise FormatError(f"{where}: card must be a card name like \"A0\", got {show(card)}")
            asker = _seat(game, item["asker"], f"{where}: asker")
            target = _seat(game, item["target"], f"{where}: target")
            answer = item["answer"] == "yes" if "answer" in item else None
            return Question(asker, target, game.card(card), answer)
        raise FormatError(f"{where}: a move is a string like \"0>1:A0+\" or an object, got {show(item)}")
    except FormatError:
        raise
    except QuaternityError as err:
        raise FormatError(f"{where}: {err}") from None


def _moves(game: Game, items: Any, *, field_name: str = "moves") -> tuple[list[Move], list[str]]:
    if not isinstance(items, list):
        raise FormatError(f"field {field_name!r}: expected a list of moves")
    _check_move_count(len(items), f"field {field_name!r}")
    moves, texts = [], []
    for i, item in enumerate(items, 1):
        text = item if isinstance(item, str) else json.dumps(item)
        move = _move_from_json(game, item, f"move {i} ({text if len(text) <= 60 else show(item)})")
        moves.append(move)
        texts.append(text)
    _check_open_last(game, moves, texts)
    return moves, texts


def _check_open_last(game: Game, moves: list[Move], texts: list[str]) -> None:
    for i, move in enumerate(moves[:-1], 1):
        if isinstance(move, Question) and move.answer is None:
            raise FormatError(f"move {i} ({texts[i - 1]}): an open question (no answer) may only be the last move")


# -- records ---------------------------------------------------------------------
def parse_record(text: str, *, rules: "str | Rules | None" = None) -> Record:
    """A record or position from file contents: JSON (starts with ``{``) or the plain text format."""
    text = _check_text(text)
    if not text.strip():
        raise FormatError("empty input")
    if text.lstrip()[:1] in ("{", "["):
        return record_from_json(load_json(text), rules=rules)
    return _record_from_text(text, rules=rules)


def record_from_json(data: Any, *, rules: "str | Rules | None" = None) -> Record:
    if not isinstance(data, Mapping):
        raise FormatError("expected a JSON object at the top level")
    if "game" in data and data["game"] != GAME_NAME:  # a record may say which game it is: this one's
        from ..registry import load_all

        raise FormatError(f"field 'game': unknown game {data['game']!r} (known: {', '.join(sorted(load_all()))})")
    unknown = set(data) - RECORD_KEYS - POSITION_KEYS - {"game"}
    if unknown:
        raise FormatError(f"unknown field {sorted(unknown)[0]!r}")
    game = _game(data)
    rule_set = _rules(data.get("rules"), rules)
    start = None
    if set(data) & POSITION_KEYS:
        start = _position_state(game, rule_set, data)
    deal, first, tie_break = parse_record_fields(game, rule_set, _classic_fields(game, data, _seat),
                                                 from_start=start is None)
    if start is not None and rule_set.dealt:  # a position under dealt: every put-down due was made
        start = replace(start, constraints=effects.settle(start.constraints))
    moves, texts = _moves(game, data.get("moves", []))
    return Record(game, rule_set, moves, start, texts, deal, first, tie_break)


_HEADER = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*:\s*(.*?)\s*$")


def _record_from_text(text: str, *, rules: "str | Rules | None" = None) -> Record:
    header: dict[str, tuple[str, int]] = {}
    tokens: list[tuple[str, int]] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0]
        if not line.strip():
            continue
        m = _HEADER.match(line)
        if m and not tokens:
            key, value = m.group(1), m.group(2)
            if key not in _TEXT_HEADERS:
                raise FormatError(f"line {lineno}: unknown header {key!r} (known: {', '.join(_TEXT_HEADERS)})")
            if key in header:
                raise FormatError(f"line {lineno}: header {key!r} given twice")
            header[key] = (value, lineno)
            continue
        if m and m.group(1) in _TEXT_HEADERS:
            raise FormatError(f"line {lineno}: header {m.group(1)!r} after the first move")
        tokens.extend((tok, lineno) for tok in line.split())
    data: dict[str, Any] = {}
    for key in ("players", "sets", "set_size"):
        if key not in header:
            raise FormatError(f"missing header line '{key}: ...'")
        value, lineno = header[key]
        if re.fullmatch(r"[0-9]+", value):
            if len(value) > MAX_NUMBER_DIGITS:
                raise FormatError(f"line {lineno}: {key}: a number of {len(value):,} digits (at most {MAX_NUMBER_DIGITS})")
            data[key] = int(value)
        elif key != "set_size" and value and not _NUMBER_LIKE.fullmatch(value):
            data[key] = [v for v in re.split(r"[\s,]+", value) if v]
        else:
            raise FormatError(f"line {lineno}: {key} must be a whole number written in the digits 0-9 (no sign, "
                              f"point or prefix){'' if key == 'set_size' else ' or a list of names'}, got {show(value)}")
    if "rules" in header:
        data["rules"] = _rules_text(*header["rules"])
    game = _game(data)
    where = f"line {header['rules'][1]}: rules" if "rules" in header else "rules"
    rule_set = _rules(data.get("rules"), rules, where)
    extra: dict[str, Any] = {key: header[key][0] for key in ("first", "tie_break") if key in header}
    if "deal" in header:
        extra["deal"] = parse_deal_text(*header["deal"])
    deal, first, tie_break = parse_record_fields(game, rule_set, _classic_fields(game, extra, _seat_key),
                                                 from_start=True)
    _check_move_count(len(tokens), "moves")
    moves, texts = [], []
    for i, (tok, lineno) in enumerate(tokens, 1):
        try:
            moves.append(game.parse_move(tok))
        except QuaternityError as err:
            raise FormatError(f"move {i} ({tok if len(tok) <= 60 else show(tok)}, line {lineno}): {err}") from None
        texts.append(tok)
    _check_open_last(game, moves, texts)
    return Record(game, rule_set, moves, None, texts, deal, first, tie_break)


def _classic_fields(game: Game, data: Mapping[str, Any], seat: Callable[[Game, Any, str], int]
                    ) -> dict[str, Any]:
    """The fields ``deal``, ``first`` and ``tie_break`` (when given) for :func:`.classic.parse_record_fields`,
    their seats read strictly first: ``first`` and ``tie_break`` by ``seat`` (:func:`_seat` for JSON
    values, :func:`_seat_key` for text headers), the deal's keys as text, exactly."""
    out = {key: data[key] for key in ("deal", "first", "tie_break") if data.get(key) is not None}
    if isinstance(out.get("deal"), Mapping):
        for key in out["deal"]:
            _seat_key(game, key, "field 'deal'")
    for key in ("first", "tie_break"):
        if key in out:
            out[key] = seat(game, out[key], f"field {key!r}")
    return out


#: A header value meant as a number but not written in the digits 0-9 alone: ``3.0``, ``+3``, ``0x3``, ``1e3``,
#: ``1_000``, digits of other scripts (``\d`` matches any Unicode digit). Refused, not read as a player's name.
_NUMBER_LIKE = re.compile(r"[+-]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?0[xXoObB][0-9A-Fa-f_]+")

#: header keys of the plain text format (deal, first, tie_break: classic quartets)
_TEXT_HEADERS = ("players", "sets", "set_size", "rules", "deal", "first", "tie_break")


def _rules_text(value: str, lineno: int) -> Any:
    """``pythagoras`` or ``quaternity, handover=seat, tie=shared`` or a JSON object.

    ``lineno`` is the header line (0: a command-line option; the caller names the place).
    An empty value and an option given twice are errors.
    """
    try:
        return _rules_spec(value)
    except FormatError as err:
        raise FormatError(f"line {lineno}: rules: {err}" if lineno else str(err)) from None


def rules_text(value: str) -> Any:
    """A rules value given outside a file (a command-line option), read as a ``rules:`` header is:
    the spec for :meth:`Rules.from_spec <quaternity_cp.quartets.rules.Rules.from_spec>`."""
    return _rules_text(value, 0)


def _rules_spec(value: str) -> Any:
    """Items separated by commas (spaces around them allowed): a preset name first, then
    ``option=value`` items; a value ``true`` or ``false`` is a bool, any other a string (the rules
    check it). An empty item, a space inside an item, an option given twice (also as ``a-b`` and
    ``a_b``) and an option without a name or a value are errors."""
    empty = "empty (give a preset name, e.g. quaternity, optionally with option=value pairs)"
    value = value.strip()
    if not value:
        raise FormatError(empty)
    if value.startswith("{"):
        given = load_json(value, "JSON")
        _check_rule_keys(given)
        return given
    items = [part.strip() for part in value.split(",")]
    if not any(items):
        raise FormatError(empty)
    spec: dict[str, Any] = {}
    for i, part in enumerate(items):
        if not part:
            raise FormatError(f"an empty item in {show(value)} (separate the items by single commas, "
                              "e.g. quaternity,handover=seat)")
        if re.search(r"\s", part):
            raise FormatError(f"a space inside the item {show(part)} (separate the items by commas, "
                              "e.g. quaternity,handover=seat)")
        if "=" not in part:
            if i:
                raise FormatError(f"expected option=value, got {show(part)} (the preset name comes first)")
            spec["preset"] = part
            continue
        key, val = part.split("=", 1)
        if not key:
            raise FormatError(f"no option name in {show(part)}")
        if key.replace("-", "_") in {k.replace("-", "_") for k in spec}:
            raise FormatError(f"option {show(key)} given twice")
        if not val:
            raise FormatError(f"option {show(key)} has no value")
        spec[key] = True if val == "true" else False if val == "false" else val
    return spec


def _check_rule_keys(spec: Any) -> None:
    """Rule options spelled two ways (``auto-claim`` and ``auto_claim``) are one option given twice."""
    if isinstance(spec, Mapping):
        seen: set[str] = set()
        for key in spec:
            norm = str(key).replace("-", "_")
            if norm in seen:
                raise FormatError(f"option {show(key)} given twice")
            seen.add(norm)


# -- positions ---------------------------------------------------------------------
def _seat(game: Game, value: Any, where: str) -> int:
    """A seat given as a JSON value: a seat number (a JSON integer) or, when the game names its
    players, a name. A number written as a string, a bool or a float is refused."""
    named = game.named_players and isinstance(value, str) and value in game.player_names
    if not named and (isinstance(value, bool) or not isinstance(value, int)):
        kind = "a seat number (a JSON integer)" + (" or a player name" if game.named_players else "")
        raise FormatError(f"{where}: expected {kind}, got {show(value)}")
    return _seat_key(game, value, where)


def _seat_key(game: Game, key: Any, where: str) -> int:
    """A seat given as text (an object key, a text header): its number in the digits 0-9, or a name."""
    try:
        return game.player(key)
    except QuaternityError as err:
        raise FormatError(f"{where}: {err}") from None


def _per_seat(game: Game, value: Any, where: str) -> list[int]:
    if isinstance(value, list):
        if len(value) != game.players:
            raise FormatError(f"{where}: expected {game.players} entries (one per seat), got {len(value)}")
        return [_int(v, f"{where}[{i}]", low=0) for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        out = [0] * game.players
        seen: set[int] = set()
        for k, v in value.items():
            p = _seat_key(game, k, where)
            if p in seen:
                raise FormatError(f"{where}: {game.seat_name(p)} given twice (by seat and by name)")
            seen.add(p)
            out[p] = _int(v, f"{where}.{k}", low=0)
        return out
    raise FormatError(f"{where}: expected a list by seat or an object player -> number")


def _check_scores(game: Game, scores: list[int], claimed_by: list[int]) -> None:
    """Every point is a claimed set: the scores must be the claims per seat."""
    for p in range(game.players):
        if scores[p] != claimed_by[p]:
            sets = "no set" if claimed_by[p] == 0 else f"{claimed_by[p]} set" + ("s" if claimed_by[p] > 1 else "")
            raise FormatError(
                f"field 'scores': {game.seat_name(p)} has {scores[p]} but claimed {sets} "
                "(a point is a claimed set; see field 'claimed')"
            )


def _position_state(game: Game, rules: Rules, data: Mapping[str, Any]) -> State:
    P, S = game.players, game.set_size
    claimed = [-1] * game.sets
    raw_claimed = data.get("claimed", {})
    if not isinstance(raw_claimed, Mapping):
        raise FormatError("field 'claimed': expected an object set -> seat")
    for key, seat in raw_claimed.items():
        try:
            s = game.set(key)
        except QuaternityError as err:
            raise FormatError(f"field 'claimed': {err}") from None
        claimed[s] = _seat(game, seat, f"field 'claimed'.{key}")
    in_play = tuple(c < 0 for c in claimed)
    live_cards = S * sum(in_play)
    if "hands" in data:
        hands = _per_seat(game, data["hands"], "field 'hands'")
    elif live_cards % P == 0 and not any(c >= 0 for c in claimed):
        hands = [live_cards // P] * P
    else:
        raise FormatError("missing field 'hands' (needed once sets are claimed)")
    if sum(hands) != live_cards:
        raise FormatError(f"field 'hands': the hands hold {sum(hands)} cards but {live_cards} cards are in play")
    claimed_by = [sum(1 for c in claimed if c == p) for p in range(P)]
    if "scores" in data:
        scores = _per_seat(game, data["scores"], "field 'scores'")
        _check_scores(game, scores, claimed_by)
    else:
        scores = claimed_by
    full = (1 << P) - 1
    domains = [full] * game.cards
    raw_cards = data.get("cards", {})
    if not isinstance(raw_cards, Mapping):
        raise FormatError("field 'cards': expected an object card -> list of seats")
    for key, seats in raw_cards.items():
        try:
            card = game.card(key)
        except QuaternityError as err:
            raise FormatError(f"field 'cards': {err}") from None
        if not isinstance(seats, list):
            raise FormatError(f"field 'cards'.{key}: expected a list of seats")
        if claimed[game.set_of(card)] >= 0:
            raise FormatError(f"field 'cards'.{key}: set {game.set_name(game.set_of(card))} is claimed, "
                              "so its cards are out of play")
        listed = [_seat(game, v, f"field 'cards'.{key}") for v in seats]
        if len(set(listed)) != len(listed):
            raise FormatError(f"field 'cards'.{key}: a seat listed twice")
        domains[card] = mask_of(listed)
    for s in range(game.sets):
        if claimed[s] >= 0:
            for card in game.cards_of(s):
                domains[card] = 1 << claimed[s]
    lo = [[0] * game.sets for _ in range(P)]
    hi = [[S] * game.sets for _ in range(P)]
    for name, table in (("at_least", lo), ("at_most", hi)):
        raw = data.get(name, {})
        if not isinstance(raw, Mapping):
            raise FormatError(f"field {name!r}: expected an object seat -> set -> count")
        seen_seats: set[int] = set()
        for seat_key, per_set in raw.items():
            p = _seat_key(game, seat_key, f"field {name!r}")
            if p in seen_seats:
                raise FormatError(f"field {name!r}: {game.seat_name(p)} given twice (by seat and by name)")
            seen_seats.add(p)
            if not isinstance(per_set, Mapping):
                raise FormatError(f"field {name!r}.{seat_key}: expected an object set -> count")
            for set_key, count in per_set.items():
                try:
                    s = game.set(set_key)
                except QuaternityError as err:
                    raise FormatError(f"field {name!r}.{seat_key}: {err}") from None
                if claimed[s] >= 0:
                    raise FormatError(f"field {name!r}.{seat_key}.{set_key}: set {set_key} is claimed, "
                                      "so it has no cards in play")
                table[p][s] = _int(count, f"field {name!r}.{seat_key}.{set_key}", low=0)
                if count > S:
                    raise FormatError(f"field {name!r}.{seat_key}.{set_key}: {count} is more than the set size {S}")
    constraints = Constraints(
        players=P,
        set_size=S,
        in_play=in_play,
        hands=tuple(hands),
        domains=tuple(domains),
        lo=tuple(map(tuple, lo)),
        hi=tuple(map(tuple, hi)),
    )
    over = all(not live for live in in_play)
    raw_turn = data.get("turn", None if over else 0)
    if over:
        turn: tuple[int, ...] = ()
        if raw_turn is not None and raw_turn != []:
            raise FormatError("field 'turn': every set is claimed, so the game is over and nobody is on turn (null)")
    elif raw_turn is None:
        raise FormatError("field 'turn': the game is not over, so somebody is on turn")
    elif isinstance(raw_turn, list):
        if not raw_turn:
            raise FormatError("field 'turn': an empty list")
        seats = [_seat(game, v, "field 'turn'") for v in raw_turn]
        twice = [p for i, p in enumerate(seats) if p in seats[:i]]
        if twice:
            raise FormatError(f"field 'turn': {game.seat_name(twice[0])} listed twice")
        turn = tuple(sorted(seats))
    else:
        turn = (_seat(game, raw_turn, "field 'turn'"),)
    for p in turn:
        if hands[p] == 0:
            raise FormatError(f"field 'turn': {game.player_name(p)} holds no cards and cannot be on turn")
    pending = None
    if data.get("question") is not None:
        raw_q = data["question"]
        try:
            q = game.parse_move(raw_q) if isinstance(raw_q, str) else _move_from_json(game, raw_q, "field 'question'")
        except QuaternityError as err:
            raise FormatError(f"field 'question': {err}") from None
        if not isinstance(q, Question) or q.answer is not None:
            raise FormatError("field 'question': expected an open question like \"0>1:A0?\"")
        if turn != (q.asker,):
            raise FormatError("field 'question': the asker must be the player on turn")
        if claimed[game.set_of(q.card)] >= 0:
            raise FormatError(f"field 'question': set {game.set_name(game.set_of(q.card))} is claimed")
        if q.target == q.asker:
            raise FormatError("field 'question': a player cannot ask itself")
        if hands[q.target] == 0:
            raise FormatError(f"field 'question': {game.seat_name(q.target)} holds no cards and cannot be asked")
        pending = q
    return State(
        constraints=constraints,
        claimed=tuple(claimed),
        scores=tuple(scores),
        reached=(0,) * P,
        turn=turn,
        pending=pending,
    )


def position_to_json(position: Position) -> dict[str, Any]:
    """The position as a position file (no history): any record can become a puzzle."""
    g = position.game
    st = position.state
    c = st.constraints
    full = (1 << g.players) - 1
    out: dict[str, Any] = {
        "players": list(g.player_names) if g.named_players else g.players,
        "sets": list(g.set_names) if g.sets > 26 or g.set_names != tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: g.sets]) else g.sets,
        "set_size": g.set_size,
        "rules": _rules_json(position.rules),
        "hands": list(c.hands),
        "turn": None if not st.turn else st.turn[0] if len(st.turn) == 1 else list(st.turn),
        "scores": list(st.scores),
        "claimed": {g.set_name(s): p for s, p in enumerate(st.claimed) if p >= 0},
        "cards": {
            g.card_name(card): list(bits(c.domains[card]))
            for card in c.cards_in_play
            if c.domains[card] != full
        },
        "at_least": {},
        "at_most": {},
    }
    for p in range(g.players):
        least = {g.set_name(s): c.lo[p][s] for s in c.sets_in_play if c.lo[p][s] > 0}
        most = {g.set_name(s): max(0, c.hi[p][s]) for s in c.sets_in_play if c.hi[p][s] < g.set_size}
        if least:
            out["at_least"][g.player_name(p)] = least
        if most:
            out["at_most"][g.player_name(p)] = most
    if st.pending is not None:
        out["question"] = g.move_str(st.pending)
    return out


def parse_deal_text(text: str, lineno: int) -> Any:
    """A ``deal:`` header of the plain text format: ``0=A0 A1 B2; 1=...`` (or a JSON object)."""
    text = text.strip()
    if text.startswith("{"):
        return load_json(text, "JSON")
    out: dict[str, list[str]] = {}
    for part in (p for p in text.split(";") if p.strip()):
        if "=" not in part:
            raise FormatError(f"line {lineno}: deal: expected player=cards, got {part.strip()!r}")
        key, cards = part.split("=", 1)
        key = key.strip()
        if key in out:
            raise FormatError(f"line {lineno}: deal: player {key!r} given twice")
        out[key] = [c for c in cards.replace(",", " ").split() if c]
    return out



def _rules_json(rules: Rules) -> Any:
    name = rules.name
    if name != "custom":
        return name
    base = Rules()
    out: dict[str, Any] = {"preset": "quaternity"}
    for key, value in rules.to_dict().items():
        if getattr(base, key) != value:
            out[key] = value
    return out


def record_to_json(
    game: Game,
    rules: "Rules | str | Mapping[str, Any]",
    moves: "Sequence[Move]",
    *,
    deal: "Mapping[int, Any] | None" = None,
    first: int | None = None,
    tie_break: int | None = None,
) -> dict[str, Any]:
    """A game record as a JSON-ready dict that :func:`parse_record` reads back (and
    ``quaternity check`` accepts): setup, rules, moves in notation, and the optional
    classic fields ``deal`` (seat -> card ids), ``first`` and ``tie_break`` (seats).
    The one record writer of the game "quartets".

    ``rules`` is a :class:`~quaternity_cp.quartets.rules.Rules` value (written as the preset
    it equals, else the nearest preset with its overrides) or a rules field as a
    record has it (a preset name, or ``{"preset": ..., option: value}``), written as given.
    """
    if isinstance(rules, Rules):
        rules_field: Any = _rules_nearest(rules)
    else:
        Rules.from_spec(rules)  # a field that does not read back is refused here, not by the reader
        rules_field = rules if isinstance(rules, str) else dict(rules)
    default_sets = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: game.sets])
    out: dict[str, Any] = {
        "players": list(game.player_names) if game.named_players else game.players,
        "sets": game.sets if game.set_names == default_sets else list(game.set_names),
        "set_size": game.set_size,
        "rules": rules_field,
    }
    if deal is not None:
        out["deal"] = {game.player_name(p): [game.card_name(c) for c in sorted(cards)] for p, cards in sorted(deal.items())}
    if first is not None:
        out["first"] = first
    out["moves"] = [game.move_str(m) for m in moves]
    if tie_break is not None:
        out["tie_break"] = tie_break
    return out


def _rules_nearest(rules: Rules) -> Any:
    """The rules as the preset they equal, else the preset needing the fewest overrides, with them."""
    from .rules import PRESETS

    if rules.name != "custom":
        return rules.name
    best = None
    for name, preset in PRESETS.items():
        diff = {k: v for k, v in rules.to_dict().items() if getattr(preset, k) != v}
        if best is None or len(diff) < len(best):
            best = {"preset": name, **diff}
    return best
