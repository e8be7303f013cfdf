"""Reading and replaying a Quantum Go Fish record, stopping at its first illegal move (the registry's "check").

:func:`replay` plays a record's moves one by one and says how far it got: the
game after the last legal move, the 0-based index of the first illegal move and
the rule it broke. A record that cannot be read at all (not an object, unknown
fields or options, sizes that cannot be dealt, an unknown player or suit, an
open question that is not the last move, a move that is not text) raises
:class:`~quaternity_cp.gofish.rules.GoFishError` with one line naming the place
and the reason: bad input, not an illegal move.

Under ``invalid = reject`` the game is left before the illegal move; under
``invalid = lose`` the illegal move ends the game (its ``outcome`` names the
loser) and the replay still reports it as the first illegal move, as the
Quaternity replay does.

>>> r = replay({"game": "gofish", "players": 3, "moves": ["0>1:A+", "1>1:A+"]})
>>> r.valid, r.moves_applied, r.error_index, r.reason
(False, 1, 1, 'a player cannot ask itself')
>>> check_record({"game": "gofish", "players": 3, "moves": ["0>1:A+", "1>2:A+", "2>0:B-", "0>2:C-"]})
>>> check_record({"game": "gofish", "players": 3, "moves": ["0>1:A-", "1>2:A?", "2>0:B-"]})
Traceback (most recent call last):
...
quaternity_cp.gofish.game.NotationError: move 2 (1>2:A?): an open question (?) can only be the last move
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .bounds import BoundsEngine
from .game import GAME_NAME, GoFish, Illegal, IllegalMove, check_game_field, record_moves
from .rules import GoFishError


@dataclass
class Replay:
    """A record replayed: ``game`` after its last legal move (under ``invalid = lose``: after the illegal move
    that ended it), ``moves`` the record's move texts, ``error_index`` the 0-based index of the first illegal
    move (None: every move legal), ``illegal`` the rule it broke and ``reason`` in words (with the detail the
    core gives, e.g. whose turn it was)."""

    game: GoFish
    moves: list[str]
    error_index: int | None = None
    illegal: Illegal | None = None
    reason: str | None = None

    @property
    def valid(self) -> bool:
        return self.error_index is None

    @property
    def moves_applied(self) -> int:
        """The moves replayed before the first illegal one (all of them when there is none)."""
        return len(self.moves) if self.error_index is None else self.error_index

    @property
    def message(self) -> str | None:
        """The illegal move in one line: ``move 3 (0>0:A+): a player cannot ask itself`` (counted from 1)."""
        if self.error_index is None:
            return None
        return f"move {self.error_index + 1} ({self.moves[self.error_index]}): {self.reason}"


def new_game(record: Mapping[str, object], engine: BoundsEngine | None = None) -> tuple[GoFish, list[str]]:
    """The game a record starts (no move played) and its moves, read and checked (not played): bad input raises
    :class:`GoFishError`. A record without ``"game"`` is taken as a Go Fish record."""
    if not isinstance(record, Mapping):
        raise GoFishError(f"a record is an object, not {type(record).__name__}")
    check_game_field(record)
    if "moves" not in record:
        raise GoFishError("a record needs the fields 'players' and 'moves'")
    moves = record_moves(record["moves"])
    header = dict(record)
    header.setdefault("game", GAME_NAME)
    header["moves"] = []
    return GoFish.from_record(header, engine), moves


def replay(record: Mapping[str, object], engine: BoundsEngine | None = None) -> Replay:
    """Replay ``record`` to its end or its first illegal move (see the module's docstring)."""
    game, moves = new_game(record, engine)
    result = Replay(game, moves)
    for i, text in enumerate(moves):
        move = game.parse_move(text, i + 1)  # an unknown player or suit: bad input (NotationError)
        fault = game.check(move) if game.rules.invalid == "lose" and not game.over else None
        try:
            game.push(move)
        except IllegalMove as err:
            result.error_index, result.illegal, result.reason = i, err.reason, err.detail
            return result
        out = game.outcome
        if out is not None and out.reason == "invalid" and out.loser is not None:
            result.error_index, result.illegal = i, fault
            result.reason = fault.value if fault is not None else "an illegal move"
            return result
    return result


def check_record(record: dict[str, object]) -> None:
    """Raise the game's error (one line, naming the move and the reason) unless ``record`` is a readable Go Fish
    record whose every move is legal; return None when it is."""
    result = replay(record)
    if result.error_index is not None:
        i = result.error_index
        raise IllegalMove(result.reason or "illegal", i + 1, result.moves[i], result.illegal)


__all__ = ["Replay", "new_game", "replay", "check_record"]
