"""``analyze --as A --about B``: what player A knows of what player B knows (classic, a record with a deal)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...command import InputError, console, emit_json, file_name
from ..count import CountLimitError, CountLimits
from ..higher import STATUSES, higher_order
from ..knowledge import Knowledge, record_hands
from ..replay import Replay
from .view import private_view, seat_of, view_json, view_result

if TYPE_CHECKING:
    from ..formats import Record


@dataclass(frozen=True)
class About:
    """The answers of ``--about``: the two seats, the hand and view of the first, card -> answer."""

    seat: int
    other: int
    hand: list[int]
    knowledge: Knowledge
    cards: dict[int, str]


def about_answers(record: Record, result: Replay, value: str, about: str, file: str, engine: str,
                  max_seconds: float | None) -> About:
    """For every card in play, whether the seat of ``--as`` knows that the seat of ``--about`` knows who
    holds it (:func:`quaternity_cp.quartets.higher.higher_order`). Exit 2 (InputError) without a deal, for an
    unknown seat, the same seat twice, or past ``max_seconds``."""
    name = file_name(file)
    seat, hand, knowledge = private_view(record, result, value, file, engine)
    other = seat_of(record, about, file, "--about")
    g = record.game
    if other == seat:
        raise InputError(f"--about: {g.seat_name(seat)} is the player of --as; a player knows what it knows "
                         "(drop --about for its view, or name another player)")
    public, _ = record_hands(record, result)
    try:
        cards = higher_order(public, (seat, other), hand, engine=engine, limits=CountLimits(max_seconds=max_seconds))
    except CountLimitError as err:
        raise InputError(f"{name}: too large to tell exactly what {g.seat_name(seat)} knows of what {g.seat_name(other)} "
                         f"knows: {err} (--max-seconds); ask at a later move of the game, or raise --max-seconds"
                         ) from None
    return About(seat, other, hand, knowledge, cards)


def print_about(record: Record, result: Replay, about: About, as_json: bool) -> bool:
    """Prints the answers: ``--json`` the keys of ``analyze --as`` and ``about``, else a table of the cards by
    answer. Returns whether the record and the view are valid."""
    g = record.game
    seen = view_result(result, about.knowledge)
    cards = about.cards
    if as_json:
        data = view_json(record, seen, about.seat, about.hand)
        data["about"] = {"seat": about.other, "cards": {g.card_name(c): cards[c] for c in sorted(cards)}}
        emit_json(data)
        return seen.valid
    from rich.table import Table

    out = console()
    a, b = g.seat_name(about.seat), g.seat_name(about.other)
    out.print(f"What {a} knows of what {b} knows (the hand of {a}: "
              f"{' '.join(g.card_name(c) for c in about.hand) or 'none'})")
    if not cards:
        out.print("No card is in play.")
        return seen.valid
    out.print(f"Does {b} know who holds the card? In every deal {a} considers possible: surely; "
              "in some: possibly; in none: never.")
    table = Table()
    table.add_column(f"{b} knows it")
    table.add_column("cards")
    for status in STATUSES:
        table.add_row(status, " ".join(g.card_name(c) for c in sorted(cards) if cards[c] == status) or "-")
    out.print(table)
    return seen.valid


__all__ = ["About", "about_answers", "print_about"]
