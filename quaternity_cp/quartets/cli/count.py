"""``quaternity quartets count`` (``quaternity count`` of the game's records): how many deals are still possible,
and how likely each card is with each player."""

from __future__ import annotations

import math
import random
import sys
from fractions import Fraction
from typing import TYPE_CHECKING, cast

import click
from rich.table import Table
from rich.text import Text

from ...command import (EXIT_ILLEGAL, EXIT_OK, InputError, Whole, check_output, console, emit_json, exact_integers,
                        file_name, force_option, guarded)
from ...command.limits import seconds_option, states_option
from ...errors import IllegalMoveError
from ..count import STATE_BYTES, CountBudget, CountLimitError, CountLimits, DealCounter
from ..replay import Replay, replay
from .common import common_options, count_refused, default_engine, load
from .render import check_json

if TYPE_CHECKING:
    from rich.console import Console

    from ..formats import Record
    from ..game import Game

MAX_SAMPLE_CARDS = 10_000_000  # --sample K on a game of N cards in play: K * N at most this


#: Counts with more digits than this are printed as "about m x 10^e" in tables and text
#: (--json always has the exact integer).
EXACT_DIGITS = 30


def big(n: int, digits: int = EXACT_DIGITS) -> str:
    """An exact count with thousands separators, or ``about 1.23e+4567`` when it is longer than ``digits``."""
    if n < 10**digits:
        return f"{n:,}"
    lg = math.log10(n)
    e = math.floor(lg)
    m = 10 ** (lg - e)
    if m >= 9.995:  # rounding would print 10.00
        m, e = 1.0, e + 1
    return f"about {m:.2f}e+{e}"


class HistoryLimitError(CountLimitError):
    """A count of ``--history`` past its limits: ``move`` is the number of moves played before it (0: the start)."""

    def __init__(self, err: CountLimitError, move: int):
        super().__init__(str(err), err.reason)
        self.move = move


def _history(record: Record, engine: str, budget: CountBudget, seat: int | None = None) -> list[int]:
    """The number of consistent deals at the start, then after every legal move of the record.

    With ``seat``: the deals that seat considers possible (its hand at that moment
    fixed; after the put-downs due, when none is due); the replay stops at the first
    dishonest move too. Every count within ``budget``; past it :class:`HistoryLimitError`.
    """
    position = record.position(engine)
    position.history = False  # nobody undoes these moves
    table = None
    if seat is not None:
        from ..classic import Table

        table = Table(record.game, cast("dict[int, list[int]]", record.deal))  # --as: the record has a deal

    def now() -> int:
        try:
            if table is None:
                return DealCounter(position.constraints, limits=budget).count()
            from ..knowledge import private_constraints, public_constraints

            assert seat is not None  # the table is kept for seat
            c = public_constraints(position, settled=not table.putdowns_due())
            return DealCounter(private_constraints(c, seat, table.hand(seat)), limits=budget).count()
        except CountLimitError as err:
            raise HistoryLimitError(err, len(counts)) from None

    counts: list[int] = []
    counts.append(now())
    for move in record.moves:
        if table is not None:
            from ..classic import honesty_error

            if honesty_error(table, move, empty_hand=record.rules.empty_hand) is not None:
                break
        try:
            position.push(move)
        except IllegalMoveError:
            break
        if position.loser is not None:
            break
        if table is not None:
            table.apply(move)
        counts.append(now())
    return counts


@click.command()
@click.argument("file")
@common_options
@click.option("--sample", "samples", type=Whole(0, 100_000), default=0, metavar="K",
              help="Also draw K uniformly random consistent deals.")
@click.option("--seed", type=Whole(), default=0, show_default=True, help="Seed of the sampler.")
@click.option("--history", is_flag=True, help="The number of deals after every move of the record.")
@click.option("--as", "seat", metavar="SEAT", default=None,
              help="Count from this player's view (its own hand fixed); needs a record with a deal.")
@click.option("--plot", "plot", metavar="OUT.png|OUT.svg", default=None,
              help="With --history: draw the deals after every move (log scale) into a PNG or SVG file (needs matplotlib).")
@force_option
@seconds_option("the counts (everything the command counts)")
@states_option(state_bytes=STATE_BYTES)
@guarded
def count(file: str, as_json: bool, rules: str | None, engine: str | None, samples: int, seed: int, history: bool,
          seat: str | None = None, plot: str | None = None, force: bool = False, max_seconds: float | None = None,
          max_states: int | None = None) -> None:
    """Exact number of consistent deals and the chance of every card's owner.

    All consistent deals are taken as equally likely. Counts are exact integers,
    probabilities exact fractions (and floats); nothing is enumerated. A count
    that would pass --max-seconds or --max-states is refused (exit 2), never
    rounded.
    """
    exact_integers()  # the start of a 10,000-card game has over 10,000 digits of deals
    if plot is not None and not history:
        raise InputError("--plot: it draws the history, so give --history too")
    if plot is not None and not plot.lower().endswith((".png", ".svg")):
        raise InputError(f"--plot: {plot}: the plot is written as .png or .svg")
    if plot is not None:
        check_output(plot, "--plot", inputs=(file,), force=force)
    budget = CountBudget(CountLimits(max_states=max_states, max_seconds=max_seconds))
    name = file_name(file)
    record = load(file, rules)
    # (the JSON carries check's keys, each move's "forced" among them: marked as check marks them)
    result = replay(record, engine=default_engine(engine), mark_forced=as_json, history=False)
    c = result.position.constraints
    g = record.game
    view = None
    if seat is not None:
        from .view import private_view

        view = private_view(record, result, seat, file, default_engine(engine))
        c = view[2].constraints
    if samples * len(c.cards_in_play) > MAX_SAMPLE_CARDS:
        raise InputError(f"--sample: {samples:,} deals of {len(c.cards_in_play):,} cards is beyond the limit of "
                         f"{MAX_SAMPLE_CARDS:,} cards drawn in one run")
    try:
        counter = DealCounter(c, limits=budget)
        deals = counter.count()
        cards = counter.card_probabilities() if deals else {}
        quartets = counter.quartet_probabilities() if deals else {}
        drawn = counter.sample(samples, random.Random(seed)) if samples and deals else []
    except CountLimitError as err:
        raise count_refused(name, err) from None
    try:
        counts = _history(record, default_engine(engine), budget, None if view is None else view[0]) \
            if history else None
    except HistoryLimitError as err:
        where = " at the start" if not err.move else f" after move {err.move} ({record.texts[err.move - 1]})"
        raise count_refused(name, err, f" for --history{where}", "drop --history") from None
    if plot is not None:
        from ...report import plot_history

        assert counts is not None  # --plot needs --history (checked above)
        plot_history(counts, ["start"] + record.texts[: len(counts) - 1], plot)
    seats = range(g.players)
    prob = {card: {p: cards.get(card, {}).get(p, Fraction(0)) for p in seats} for card in c.cards_in_play}
    whole = {s: {p: quartets.get(s, {}).get(p, Fraction(0)) for p in seats} for s in c.sets_in_play}
    if as_json:
        data = check_json(record, result)
        data["deals"] = deals
        if view is not None:
            data["view"] = {"seat": view[0], "hand": [g.card_name(k) for k in view[1]]}
        data["cards"] = {g.card_name(k): {str(p): float(v) for p, v in row.items()} for k, row in prob.items()}
        data["cards_exact"] = {g.card_name(k): {str(p): str(v) for p, v in row.items()} for k, row in prob.items()}
        data["quartets"] = {g.set_name(s): {str(p): float(v) for p, v in row.items()} for s, row in whole.items()}
        data["quartets_exact"] = {g.set_name(s): {str(p): str(v) for p, v in row.items()} for s, row in whole.items()}
        if samples:
            data["samples"] = [{g.card_name(k): p for k, p in deal.items()} for deal in drawn]
        if counts is not None:
            data["history_start"] = counts[0]
            data["history"] = counts[1:]
        emit_json(data)
    else:
        _print(record, result, deals, prob, whole, drawn, counts)
    sys.exit(EXIT_OK if result.valid else EXIT_ILLEGAL)


#: A card table with more cells than this is printed as plain aligned text (a rich table of
#: 10,000 cards takes many seconds to lay out; the start of any game must stay instant).
PLAIN_CELLS = 20_000


def _chance(v: Fraction) -> str:
    """A probability to three decimals, or in scientific notation when that would show 0.000."""
    if v >= Fraction(1, 2000):
        return f"{float(v):.3f}"
    return f"{float(v):.1e}" if float(v) else "below 1e-308"


def _plain_card_table(out: Console, g: Game, prob: dict[int, dict[int, Fraction]]) -> None:
    head = ["card", *(g.player_name(p) for p in range(g.players))]
    rows = [[g.card_name(card), *("1" if v == 1 else "·" if v == 0 else f"{float(v):.3f}" for v in row.values())]
            for card, row in prob.items()]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths)))
             for r in [head, *rows]]
    out.print("Chance that each player holds each card")
    out.print("\n".join(lines), markup=False, highlight=False)


def _print(record: Record, result: Replay, deals: int, prob: dict[int, dict[int, Fraction]],
           whole: dict[int, dict[int, Fraction]], drawn: list[dict[int, int]], counts: list[int] | None) -> None:
    out = console()
    g = record.game
    if result.error is not None:
        i = cast(int, result.error_index)  # set with the error
        out.print(f"[bold red]Illegal move {i}[/bold red] ({record.texts[i - 1]}): "
                  f"{result.error}; counting the position before it.")
    if deals < 10**60:
        out.print(f"[bold]{deals:,}[/bold] consistent deal{'s' if deals != 1 else ''}"
                  + (f" (about 10^{math.log10(deals):.1f})" if deals >= 10**6 else ""))
    else:  # too long to read; --json has the exact integer
        out.print(f"[bold]{big(deals, 0)}[/bold] consistent deals (a number of {len(str(deals)):,} digits; "
                  "--json gives it exactly)")
    if deals and prob and len(prob) * g.players > PLAIN_CELLS:
        _plain_card_table(out, g, prob)
    elif deals and prob:
        table = Table(title="Chance that each player holds each card", title_justify="left")
        table.add_column("card")
        for p in range(g.players):
            table.add_column(g.player_name(p), justify="right")
        for card, row in prob.items():
            cells = []
            for p in range(g.players):
                v = row[p]
                style = "bold green" if v == 1 else "dim" if v == 0 else ""
                cells.append(Text("1" if v == 1 else "·" if v == 0 else f"{float(v):.3f}", style=style))
            table.add_row(g.card_name(card), *cells)
        out.print(table)
    if deals and prob:
        out.print("Chance that a player holds the whole set:")
        for s, row in whole.items():
            parts = [f"{g.player_name(p)} {_chance(v)}" + (f" ({v})" if v.denominator < 1000 else "")
                     for p, v in row.items() if v]
            out.print(f"  {g.set_name(s)}: " + (", ".join(parts) if parts else "nobody"))
    for i, deal in enumerate(drawn, 1):
        hands: dict[int, list[str]] = {p: [] for p in range(g.players)}
        for card, p in deal.items():
            hands[p].append(g.card_name(card))
        out.print(f"sample {i}: " + "; ".join(f"{g.player_name(p)}: {' '.join(cs) or '-'}" for p, cs in hands.items()))
    if counts is not None:
        table = Table(title="Consistent deals after every move", title_justify="left")
        table.add_column("#", justify="right")
        table.add_column("move")
        table.add_column("deals", justify="right")
        table.add_column("log10", justify="right")
        table.add_column("")
        top = max([math.log10(n) for n in counts if n] + [1.0])
        for i, n in enumerate(counts):
            lg = math.log10(n) if n else 0.0
            move = record.texts[i - 1] if i else "(start)"
            table.add_row(str(i), move, big(n), f"{lg:.2f}", "█" * round(30 * lg / top))
        out.print(table)
