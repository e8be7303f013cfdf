"""``--as SEAT``: a position as one player knows it (classic quartets, a record with a deal)."""

from __future__ import annotations

from quaternity_cp.classic import Table
from quaternity_cp.errors import QuaternityError
from quaternity_cp.knowledge import Knowledge, PositionView, private_constraints, public_constraints
from quaternity_cp.replay import Replay

from .main import InputError


def seat_of(record, value: str, file: str) -> int:
    """The seat named by ``--as`` (a seat number or a player name)."""
    try:
        return record.game.player(int(value) if value.isdigit() else value)
    except QuaternityError as err:
        raise InputError(f"--as: {err}") from None


def table_after(record, result: Replay) -> Table:
    """The real hands after the moves the replay applied."""
    table = Table(record.game, record.deal)
    for report in result.reports:
        table.apply(report.move)
    return table


def private_view(record, result: Replay, value: str, file: str, engine: str) -> tuple[int, list[int], Knowledge]:
    """(seat, its hand, its view) after the record; exit 2 when the record has no deal.

    The position is taken after the put-downs due when the deal says none is due
    (the record is then complete: their absence is public), else as the record left it.
    """
    name = "<stdin>" if file == "-" else file
    if record.deal is None:
        raise InputError(f"{name}: --as needs a record with a deal (\"deal\": {{seat: [cards]}}); "
                         "without one nobody's hand is known (drop --as for the public view)")
    seat = seat_of(record, value, file)
    table = table_after(record, result)
    pos = result.position
    settled = not table.putdowns_due()
    hand = table.hand(seat)
    c = public_constraints(pos, settled=settled)
    if len(hand) != c.hands[seat]:  # a dishonest record: the hand size cannot disagree otherwise
        raise InputError(f"{name}: the deal and the moves disagree about {record.game.player_name(seat)}'s hand")
    return seat, hand, Knowledge(private_constraints(c, seat, hand), engine)


def view_result(result: Replay, knowledge: Knowledge) -> Replay:
    """The replay with its position seen through ``knowledge``."""
    return Replay(PositionView(result.position, knowledge), result.reports, result.error, result.error_index)


def analyze_as(record, result: Replay, value: str, file: str, engine: str, as_json: bool) -> bool:
    """``analyze --as``: prints the seat's view; returns whether the record and view are valid."""
    from . import render
    from .main import emit_json

    seat, hand, knowledge = private_view(record, result, value, file, engine)
    seen = view_result(result, knowledge)
    g = record.game
    if as_json:
        data = render.analyze_json(record, seen)
        data["view"] = {"seat": seat, "hand": [g.card_name(c) for c in hand]}
        emit_json(data)
    else:
        out = render.console()
        who = g.player_name(seat) if g.named_players else f"seat {seat}"
        out.print(f"The position as {who} knows it (its hand: {' '.join(g.card_name(c) for c in hand) or 'none'})")
        render.print_analyze(record, seen)
    return seen.valid
