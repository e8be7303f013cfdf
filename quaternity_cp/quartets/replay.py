"""Replaying a record move by move, stopping at the first illegal move.

>>> from quaternity_cp.quartets.formats import parse_record
>>> result = replay(parse_record("players: 2\\nsets: 2\\nset_size: 2\\n0>1:A0- "))
>>> result.error_index, result.error.reason.name
(1, 'IMPOSSIBLE_NO')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import IllegalMoveError
from .formats import Record
from .game import Move, Question
from .position import Position

if TYPE_CHECKING:
    from .engines import Engine


@dataclass(frozen=True)
class MoveReport:
    """What one move of a record did."""

    index: int  # 1-based
    move: Move
    claims: tuple[tuple[int, int], ...]  # (set, seat)
    forced: bool  # an answer that was the only legal one
    turn: tuple[int, ...]  # whose turn after it


@dataclass
class Replay:
    """The outcome of replaying a record."""

    position: Position
    reports: list[MoveReport] = field(default_factory=list)
    error: IllegalMoveError | None = None
    error_index: int | None = None  # 1-based index of the first illegal move

    @property
    def valid(self) -> bool:
        """Every move legal and the position has a consistent deal."""
        return self.error is None and self.position.is_valid()

    @property
    def moves_applied(self) -> int:
        return len(self.reports)


def replay(record: Record, *, engine: "str | Engine | None" = None, mark_forced: bool = True,
           history: bool = True) -> Replay:
    """Play every move of ``record`` from its start, stopping at the first illegal one.

    Under ``invalid = lose`` the illegal move ends the game (the mover loses) and
    stays on the position's stack; under ``reject`` the position is left before it.
    ``history = False``: the position keeps only its last move for undo
    (:attr:`Position.history`), so memory does not grow with the record's length.

    A record with a deal (classic quartets) is also checked against it, each
    move before the public rules: a dishonest answer or question, or a put-down
    missing or made without the whole set, stops the replay there (the error's
    ``player`` and ``card`` name who and what; the position is left before it).
    """
    position = record.position(engine)
    position.history = history
    result = Replay(position)
    table = None
    if record.deal is not None:
        from .classic import Table, honesty_error

        table = Table(record.game, record.deal)
    for i, move in enumerate(record.moves, 1):
        if table is not None:
            lie = honesty_error(table, move, empty_hand=record.rules.empty_hand)
            if lie is not None:
                result.error, result.error_index = lie, i
                return result
        forced = False
        if mark_forced and isinstance(move, Question) and move.answer is not None:
            forced = _answer_forced(position, move)
        try:
            claims = position.push(move)
        except IllegalMoveError as err:
            result.error, result.error_index = err, i
            return result
        if position.illegal is not None and position.loser is not None:
            result.error, result.error_index = position.illegal, i
            return result
        if table is not None:
            table.apply(move)
        result.reports.append(MoveReport(i, move, claims, forced, position.turn))
    return result


def _answer_forced(position: Position, move: Question) -> bool:
    """Whether the other answer to this question would have been illegal (the question itself being legal)."""
    other = move.answered(not move.answer)
    if position.pending is not None:
        return position.check(other) is not None and position.check(move) is None
    if position.check(move.unanswered()) is not None:
        return False
    probe = position.copy()
    probe.push(move.unanswered())
    return probe.check(other) is not None
