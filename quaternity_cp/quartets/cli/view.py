"""``--as SEAT``: a position as one player knows it (classic quartets, a record with a deal)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ...command import InputError, console, emit_json, file_name
from ...errors import QuaternityError
from ..knowledge import Knowledge, PositionView, seat_view
from ..position import Position
from ..replay import Replay

if TYPE_CHECKING:
    from ..formats import Record


def seat_of(record: Record, value: str, file: str, option: str = "--as") -> int:
    """The seat named by ``option`` (``--as``): a seat number in the digits 0-9, or a player name."""
    game = record.game
    try:
        return game.player(value)
    except QuaternityError:
        names = " or a player name" if game.named_players else ""
        raise InputError(f"{option}: expected a seat number 0 to {game.players - 1} in the digits 0-9{names}, "
                         f"got {value!r}") from None


def private_view(record: Record, result: Replay, value: str, file: str,
                 engine: str) -> tuple[int, list[int], Knowledge]:
    """(seat, its hand, its view) after the record (:func:`quaternity_cp.quartets.knowledge.seat_view`);
    exit 2 when the record has no deal or the deal and the moves disagree."""
    name = file_name(file)
    if record.deal is None:
        raise InputError(f"{name}: --as needs a record with a deal (\"deal\": {{seat: [cards]}}); "
                         "without one nobody's hand is known (drop --as for the public view)")
    seat = seat_of(record, value, file)
    try:
        hand, constraints = seat_view(record, result, seat)
    except ValueError as err:  # a dishonest record: the hand size cannot disagree otherwise
        raise InputError(f"{name}: {err}") from None
    return seat, hand, Knowledge(constraints, engine)


def view_result(result: Replay, knowledge: Knowledge) -> Replay:
    """The replay with its position seen through ``knowledge``."""
    view = cast(Position, PositionView(result.position, knowledge))  # reads like the Position it wraps
    return Replay(view, result.reports, result.error, result.error_index)


def view_json(record: Record, seen: Replay, seat: int, hand: list[int]) -> dict[str, Any]:
    """``analyze --as --json``: the keys of ``analyze`` for the seat's view (``seen``), and ``view``."""
    from . import render

    data = render.analyze_json(record, seen)
    data["view"] = {"seat": seat, "hand": [record.game.card_name(c) for c in hand]}
    return data


def analyze_as(record: Record, result: Replay, value: str, file: str, engine: str, as_json: bool) -> bool:
    """``analyze --as``: prints the seat's view; returns whether the record and view are valid."""
    from . import render

    seat, hand, knowledge = private_view(record, result, value, file, engine)
    seen = view_result(result, knowledge)
    g = record.game
    if as_json:
        emit_json(view_json(record, seen, seat, hand))
    else:
        out = console()
        who = g.seat_name(seat)
        out.print(f"The position as {who} knows it (its hand: {' '.join(g.card_name(c) for c in hand) or 'none'})")
        render.print_analyze(record, seen)
    return seen.valid
