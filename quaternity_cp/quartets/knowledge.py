"""What the table knows, and what one player knows (classic quartets and every preset).

The public record of a game is a Quaternity record, so the *public view* (what
is common knowledge) is the constraint state of the position: hand sizes, card
domains and per-set bounds, exactly the set of deals consistent with the
record. A player additionally sees its own hand, and since every card moves in
public, its current hand is all it adds: the *private view* of a seat is the
public constraint state with the seat's own cards fixed to it, every other card's
domain without it, and the seat's count of every set exact
(:func:`private_constraints`). A player *knows* that card c is with q when c is
forced to q in its view, and *knows a probability* when all the deals of its
view are taken as equally likely.

Everything here is a small function of immutable values, cached by value, so an
agent may call it on every move:

>>> from quaternity_cp import Game, Position
>>> pos = Position(Game(3, 2, 3), "classic", first=0)
>>> _ = pos.push_str("0>1:A0+")
>>> view = private_knowledge(pos, 2, [3, 4])   # seat 2 holds B0 and B1
>>> view.knows(0), view.knows(5), view.knows(1)  # A0 and B2 are with seat 0; A1 is not known
(0, 0, None)
>>> str(view.probability(1, 0)), view.deals()
('1/2', 2)
>>> public_knowledge(pos).deals(), public_knowledge(pos, settled=False).deals()
(18, 21)

Counts take optional :class:`~quaternity_cp.quartets.count.CountLimits`; past them they
raise :class:`~quaternity_cp.quartets.count.CountLimitError`. Limits without a clock
(``max_states``, ``max_work``) give the same answer on every machine, so the
answer, or the refusal, is cached by value too. :data:`AGENT_LIMITS` are the
exact agents' (:mod:`quaternity_cp.quartets.agents.exact`): about 30 times the largest
count of a whole game of 4 players with 8 sets of 4 (classic, 30,000
multiply-adds and 2,000 states at most, measured over 10 games), so such games
and smaller ones are always counted; a count past them takes about half a
second before it is refused.

>>> from quaternity_cp.quartets.count import CountLimits
>>> count(public_constraints(pos), CountLimits(max_states=10))
Traceback (most recent call last):
...
quaternity_cp.quartets.count.CountLimitError: counting needs more than 10 states
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterable

from .constraints import Constraints, bits
from .count import CountLimitError, CountLimits, DealCounter
from .engines import Analysis, get_engine

if TYPE_CHECKING:
    from .formats import Record
    from .position import Position
    from .replay import Replay

__all__ = [
    "public_constraints",
    "private_constraints",
    "analyze",
    "AGENT_LIMITS",
    "count",
    "counted",
    "clear_caches",
    "card_probabilities",
    "quartet_probabilities",
    "Knowledge",
    "public_knowledge",
    "private_knowledge",
    "PositionView",
    "record_hands",
    "seat_view",
]


# -- the two views -------------------------------------------------------------------------
def public_constraints(position: Position, *, settled: bool = True) -> Constraints:
    """The public view of ``position``: its constraint state (common knowledge).

    ``settled`` (classic quartets, rule option ``dealt``): the position is taken
    after every put-down due was made, so that nobody holds a complete unclaimed
    set. That is what the table knows once a player would have put a set down
    (a game state applies put-downs at once); ``settled = False`` keeps the
    position as the record left it (right after a yes, the asker may still put
    a set down). No effect under other rules.
    """
    if settled and position.rules.dealt and position.putdowns_open:
        return position.settled_constraints()
    return position.constraints


def private_constraints(constraints: Constraints, seat: int, hand: Iterable[int]) -> Constraints:
    """The view of ``seat`` holding exactly ``hand`` (card ids, cards of unclaimed sets):
    its cards fixed to it, every other card in play without it, its count per set exact.

    Raises ValueError when ``hand`` has a card not in play or not as many cards as the
    seat's hand size. A hand that contradicts the public state gives an infeasible view.
    """
    return _private(constraints, seat, frozenset(hand))


@lru_cache(maxsize=4096)
def _private(c: Constraints, seat: int, hand: frozenset[int]) -> Constraints:
    S = c.set_size
    if not 0 <= seat < c.players:
        raise ValueError(f"unknown seat {seat}")
    if len(hand) != c.hands[seat]:
        raise ValueError(f"seat {seat} holds {c.hands[seat]} cards, the hand given has {len(hand)}")
    for card in hand:
        if not (0 <= card < len(c.domains)) or not c.in_play[card // S]:
            raise ValueError(f"card {card} is not in play")
    bit = 1 << seat
    domains = list(c.domains)
    per_set = [0] * c.sets
    for s in c.sets_in_play:
        for card in range(s * S, (s + 1) * S):
            if card in hand:
                domains[card] &= bit
                per_set[s] += 1
            else:
                domains[card] &= ~bit
    lo = list(c.lo)
    hi = list(c.hi)
    lo_row, hi_row = list(lo[seat]), list(hi[seat])
    for s in c.sets_in_play:
        k = per_set[s]
        # exact count; an own count outside the public bounds makes the view infeasible
        lo_row[s] = k if c.lo[seat][s] <= k <= c.hi[seat][s] else S + 1
        hi_row[s] = k
    lo[seat], hi[seat] = tuple(lo_row), tuple(hi_row)
    return Constraints(c.players, S, c.in_play, c.hands, tuple(domains), tuple(lo), tuple(hi))


# -- facts of a view (cached by value) ---------------------------------------------------------
@lru_cache(maxsize=4096)
def _analysis(c: Constraints, engine_name: str) -> Analysis:
    return get_engine(engine_name).analyze(c)


def analyze(constraints: Constraints, engine: str = "flow") -> Analysis:
    """Exact owners and possible quartets of a view (any engine name; cached)."""
    return _analysis(constraints, engine)


#: The exact agents' counting limits (see the module's docstring): no clock, so a game plays the same everywhere.
AGENT_LIMITS = CountLimits(max_states=100_000, max_work=1_000_000)


@lru_cache(maxsize=1024)
def _counter(c: Constraints) -> DealCounter:
    return DealCounter(c)


@lru_cache(maxsize=1024)
def _unlimited(c: Constraints, kind: str) -> Any:
    if kind != "count" and not _unlimited(c, "count"):
        return {}
    return getattr(_counter(c), kind)()


@lru_cache(maxsize=1024)
def _limited(c: Constraints, limits: CountLimits, kind: str) -> tuple[Any, int] | CountLimitError:
    """(the answer, its work) under clock-free limits, or the refusal: both are the same every time."""
    counter = DealCounter(c, limits=limits)
    try:
        return getattr(counter, kind)(), counter.work
    except CountLimitError as err:
        return err


def _answer(c: Constraints, limits: CountLimits | None, kind: str) -> Any:
    if limits is None:
        return _unlimited(c, kind)
    if limits.max_seconds is not None:  # a clock: not cached
        return getattr(DealCounter(c, limits=limits), kind)()
    return counted(c, limits, kind)[0]


def counted(constraints: Constraints, limits: CountLimits, kind: str = "count") -> tuple[Any, int]:
    """(the answer, the multiply-adds it took) of ``kind`` (``count``, ``card_probabilities`` or
    ``quartet_probabilities``) within clock-free ``limits``, so that a caller may share one budget
    among several counts; past the limits, CountLimitError. Cached by value."""
    if limits.max_seconds is not None:
        raise ValueError("counted() takes limits without a clock (max_seconds): its answers are cached")
    got = _limited(constraints, limits, kind)
    if isinstance(got, CountLimitError):
        raise CountLimitError(str(got), got.reason)
    return got


def clear_caches() -> None:
    """Forget every cached view, analysis and count (for benchmarks)."""
    for cached in (_private, _analysis, _counter, _unlimited, _limited):
        cached.cache_clear()


def count(constraints: Constraints, limits: CountLimits | None = None) -> int:
    """The exact number of deals of a view (0 when infeasible); past ``limits``, CountLimitError."""
    n: int = _answer(constraints, limits, "count")
    return n


def card_probabilities(constraints: Constraints,
                       limits: CountLimits | None = None) -> dict[int, dict[int, Fraction]]:
    """card -> {seat: exact probability}, all deals of the view equally likely ({} when infeasible).
    Seats that cannot hold the card are left out. Do not mutate the (cached) result."""
    probabilities: dict[int, dict[int, Fraction]] = _answer(constraints, limits, "card_probabilities")
    return probabilities


def quartet_probabilities(constraints: Constraints,
                          limits: CountLimits | None = None) -> dict[int, dict[int, Fraction]]:
    """set -> {seat: exact probability that the seat holds the whole set} ({} when infeasible)."""
    probabilities: dict[int, dict[int, Fraction]] = _answer(constraints, limits, "quartet_probabilities")
    return probabilities


@dataclass(frozen=True)
class Knowledge:
    """One view (public, or a seat's private one) and its exact facts, computed on demand
    (counts within ``limits``, None: no limit)."""

    constraints: Constraints
    engine: str = "flow"
    limits: CountLimits | None = None

    @property
    def analysis(self) -> Analysis:
        return analyze(self.constraints, self.engine)

    @property
    def feasible(self) -> bool:
        return self.analysis.feasible

    def owners(self, card: int) -> list[int]:
        """The seats that may hold ``card`` in this view."""
        return list(bits(self.analysis.owners[card]))

    def knows(self, card: int) -> int | None:
        """The seat holding ``card`` in every deal of this view, or None."""
        return self.analysis.forced_owner(card)

    def possible_quartets(self, s: int) -> list[int]:
        """The seats that may hold all of set ``s``."""
        return list(bits(self.analysis.quartets[s]))

    def forced_quartets(self) -> dict[int, int]:
        """set -> seat, for sets wholly with one seat in every deal of this view."""
        return self.analysis.forced_quartets(self.constraints)

    def deals(self) -> int:
        return count(self.constraints, self.limits)

    def card_probabilities(self) -> dict[int, dict[int, Fraction]]:
        return card_probabilities(self.constraints, self.limits)

    def quartet_probabilities(self) -> dict[int, dict[int, Fraction]]:
        return quartet_probabilities(self.constraints, self.limits)

    def probability(self, card: int, seat: int) -> Fraction:
        """The exact probability that ``seat`` holds ``card`` (0 when the view is infeasible)."""
        return self.card_probabilities().get(card, {}).get(seat, Fraction(0))


def _engine_name(position: Position) -> str:
    return getattr(position.engine, "name", "flow")


def public_knowledge(position: Position, *, settled: bool = True) -> Knowledge:
    """The public view of ``position`` (see :func:`public_constraints`)."""
    return Knowledge(public_constraints(position, settled=settled), _engine_name(position))


def private_knowledge(position: Position, seat: int, hand: Iterable[int], *, settled: bool = True) -> Knowledge:
    """What ``seat``, holding ``hand`` (card ids in play), knows in ``position``."""
    return Knowledge(
        private_constraints(public_constraints(position, settled=settled), seat, hand), _engine_name(position)
    )


def record_hands(record: Record, result: Replay) -> tuple[Constraints, dict[int, list[int]]]:
    """The public view after a replayed classic record with a deal, and every seat's real hand then.

    ``record`` is a :class:`~quaternity_cp.quartets.formats.Record` with a deal, ``result``
    its :class:`~quaternity_cp.quartets.replay.Replay`. The real hands follow the moves the
    replay applied. The position is taken after the put-downs due when the deal says
    none is due (their absence is then public), else as the record left it. Raises
    ValueError when the record has no deal.
    """
    from .classic import Table

    if record.deal is None:
        raise ValueError("a seat's view needs a record with a deal")
    table = Table(record.game, record.deal)
    for report in result.reports:
        table.apply(report.move)
    return public_constraints(result.position, settled=not table.putdowns_due()), table.hands()


def seat_view(record: Record, result: Replay, seat: int) -> tuple[list[int], Constraints]:
    """What ``seat`` knows after a replayed classic record with a deal: its hand, and its private view
    (of the public view of :func:`record_hands`).

    The one computation of a seat's view for every front end (``analyze --as``, ``count --as``,
    the web table, reports). Raises ValueError when the record has no deal, or the
    deal and the moves disagree about the seat's hand (a dishonest record).
    """
    c, hands = record_hands(record, result)
    hand = hands[seat]
    if len(hand) != c.hands[seat]:
        raise ValueError(f"the deal and the moves disagree about {record.game.player_name(seat)}'s hand")
    return hand, private_constraints(c, seat, hand)


class PositionView:
    """A position seen through one view: reads like the Position (turn, scores, claims...)
    but its constraints and analysis are the view's. For displaying a seat's view."""

    def __init__(self, position: Position, knowledge: Knowledge) -> None:
        self._position = position
        self._knowledge = knowledge

    def __getattr__(self, name: str) -> Any:
        return getattr(self._position, name)

    @property
    def constraints(self) -> Constraints:
        return self._knowledge.constraints

    def analysis(self) -> Analysis:
        return self._knowledge.analysis

    def is_valid(self) -> bool:
        return self._knowledge.feasible
