"""What one player knows about what the others know (classic quartets): exact higher-order knowledge.

A *deal* gives every card in play an owner. ``D`` is the set of deals the
public record allows (the public view, :func:`quaternity_cp.quartets.knowledge.public_constraints`).
Seat X holding hand h considers possible ``V_X(h)``: the deals of D in which X
holds h (its private view, :func:`~quaternity_cp.quartets.knowledge.private_constraints`).
In the real deal d0, X *knows* card c's owner when c has the same owner in every
deal of ``V_X(hand of X in d0)`` (first order: :mod:`quaternity_cp.quartets.knowledge`).

**Second order.** What A thinks of B's knowledge of card c is one of three
answers, over the deals A considers possible, ``V_A(hand of A in d0)``:

- ``"surely"``: in every one of them B knows c's owner (A knows that B knows it);
- ``"possibly"``: in some of them but not all;
- ``"never"``: in none of them (A knows that B does not know it).

"B knows c's owner in deal d" reads B's view in d, ``V_B(hand of B in d)``, so
it depends on d only through B's hand: the answer is one first-order
computation per hand B may hold in A's view.

**Any depth.** For a chain of seats A, B, C, ... the same three answers sort
the deals A considers possible by whether, in each of them, B knows that C
knows ... the owner: "Y knows φ" holds in deal d when φ holds in every deal of
``V_Y(hand of Y in d)``, and the innermost φ is "the last seat of the chain
knows c's owner". So :func:`higher_order` with the chain (A, B, C) answers
"does A know that B knows that C knows where c is?" with ``"surely"``.

**Common knowledge** among a group G of seats: two deals are *linked* when
some member of G holds the same hand in both (that member cannot tell them
apart). Card c's owner is common knowledge among G in the real deal d0 when
every deal reachable from d0 through a chain of links has c with the same
owner. This is the fixpoint of "everyone in G knows": c's owner is common
knowledge exactly when everyone in G knows it, everyone in G knows that everyone
in G knows it, and so on for every depth. Among one seat it is that seat's
own knowledge; facts of the public view are common knowledge among every group.

Method
------
Nothing enumerates deals. The hands a seat Y may hold in a view V are listed
up to symmetry: two cards of the same set with the same domain in the public
view and in V can be exchanged without changing D or V, so the hands of Y
that differ only by such exchanges give the same answers with the cards
exchanged. Per *class* of such cards only how many Y holds matters, so one
hand per choice of those numbers is tried (each tried hand is one constraint
state put to the engine, :func:`~quaternity_cp.quartets.knowledge.analyze`, cached by
value) and its answers are shared by its class. A second-order question at 3
players with 6 sets of 4 checks 430 to 710 views at the deal (about 30 ms) and
fewer once questions are asked; at 4 x 8 x 4 about 6,000 at the deal (about
0.5 s). Common knowledge first takes the cards surely common knowledge (the
largest set known to every member whose real holders, fixed, leave every member
knowing them all: the deals giving them those holders are closed under the
links), then walks the linked hands until every other card is shown not to be
common knowledge, or every linked hand is seen.

Limits
------
Every computation runs within :class:`~quaternity_cp.quartets.count.CountLimits`:
``max_states`` the views checked (constraint states put to the engine),
``max_work`` the candidate hands listed, ``max_seconds`` a clock. Past one
of them it raises :class:`~quaternity_cp.quartets.count.CountLimitError` (``reason``
``states``, ``work`` or ``time``) and returns nothing. Without a clock the
answer, or the refusal, is the same on every machine.

>>> from quaternity_cp import Game, Position
>>> from quaternity_cp.quartets.knowledge import public_constraints
>>> pos = Position(Game(3, 2, 3), "classic", first=0)
>>> _ = pos.push_str("0>1:A0+")
>>> public = public_constraints(pos)
>>> about = higher_order(public, (2, 0), [3, 4])   # seat 2 holds B0 and B1: what does seat 0 know?
>>> about[0], about[1], about[5]   # A0: public; A1: when seat 0 holds it; B2: seat 0 holds it in every deal
('surely', 'possibly', 'surely')
>>> common_knowledge(public, {0: [0, 1, 5], 2: [3, 4]}, (0, 2))   # card -> owner
{0: 0}
>>> exposure(public, 0, [0, 1, 5], 1)   # seat 0 expects seat 1 to know where 4/3 of its 3 cards are
Fraction(4, 3)
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from math import comb
from typing import Iterable, Iterator, Mapping, Sequence

from .constraints import Constraints
from .count import STATES, TIME, WORK, CountBudget, CountLimitError, CountLimits
from .engines import Analysis, Engine, get_engine
from .knowledge import analyze, count, private_constraints

__all__ = [
    "SURELY",
    "POSSIBLY",
    "NEVER",
    "STATUSES",
    "ViewBudget",
    "classes",
    "higher_order",
    "common_knowledge",
    "exposure",
]

SURELY, POSSIBLY, NEVER = "surely", "possibly", "never"
#: The answers of :func:`higher_order`, from most to least knowledge.
STATUSES = (SURELY, POSSIBLY, NEVER)

_TRUE, _FALSE = 1, 2  # per card: some deal where the statement holds, some where it does not
_STATUS = {_TRUE: SURELY, _TRUE | _FALSE: POSSIBLY, _FALSE: NEVER}


class ViewBudget:
    """:class:`~quaternity_cp.quartets.count.CountLimits` on higher-order computations running now: the views
    checked (``max_states``), the candidate hands listed (``max_work``) and the clock (``max_seconds``),
    from when it was made. One budget may serve several computations (an agent's decision): their
    views and hands add up. ``views`` and ``hands`` say how many were used.
    """

    __slots__ = ("limits", "clock", "views", "hands")

    def __init__(self, limits: CountLimits | None = None):
        self.limits = limits if limits is not None else CountLimits()
        self.clock = CountBudget(self.limits).clock
        self.views = 0
        self.hands = 0

    def view(self) -> None:
        """One more constraint state put to the engine; CountLimitError past a limit."""
        self.views += 1
        m = self.limits.max_states
        if m is not None and self.views > m:
            raise CountLimitError(f"higher-order knowledge needs more than {m:,} views", STATES)
        if self.clock.expired():
            raise CountLimitError(f"higher-order knowledge takes longer than {self.limits.max_seconds:g} s", TIME)

    def hand(self) -> None:
        """One more candidate hand listed; CountLimitError past ``max_work``."""
        self.hands += 1
        m = self.limits.max_work
        if m is not None and self.hands > m:
            raise CountLimitError(f"higher-order knowledge needs more than {m:,} candidate hands", WORK)


def _budget(limits: CountLimits | ViewBudget | None) -> ViewBudget:
    if isinstance(limits, ViewBudget):
        return limits
    if limits is None or isinstance(limits, CountLimits):
        return ViewBudget(limits)
    raise ValueError(f"limits must be CountLimits or a ViewBudget, not {limits!r}")


@dataclass(frozen=True)
class _Type:
    """A hand up to symmetry: a representative hand and how many hands it stands for."""

    hand: tuple[int, ...]
    hands: int


def classes(public: Constraints, view: Constraints) -> list[list[int]]:
    """The cards in play of ``view`` (a view of the public view ``public``) in classes of interchangeable
    cards: the same set, the same domain in ``public`` and in ``view``. Exchanging two cards of a class
    maps the deals of both views onto themselves, so every answer of this module about one card of a
    class holds for the others with the cards exchanged."""
    out: list[list[int]] = []
    for s in view.sets_in_play:
        groups: dict[tuple[int, int], list[int]] = {}
        for c in view.cards_of(s):
            groups.setdefault((public.domains[c], view.domains[c]), []).append(c)
        out.extend(groups.values())
    return out


def _hand_types(public: Constraints, view: Constraints, seat: int, groups: list[list[int]],
                meter: ViewBudget, engine: Engine) -> Iterator[_Type]:
    """The hands ``seat`` holds in some deal of ``view``, one per choice of how many cards of each class."""
    S = view.set_size
    by_set: dict[int, list[list[int]]] = {}
    for K in groups:
        if view.domains[K[0]] >> seat & 1:
            by_set.setdefault(K[0] // S, []).append(K)
    options: list[list[tuple[int, tuple[int, ...], int]]] = []  # per set: (cards held, those cards, hands)
    for s in view.sets_in_play:
        own = by_set.get(s, [])
        lo, hi = view.lo[seat][s], view.hi[seat][s]
        got = []
        for ks in product(*(range(len(K) + 1) for K in own)):
            meter.hand()
            k = sum(ks)
            if lo <= k <= hi:
                ways = 1
                for K, n in zip(own, ks):
                    ways *= comb(len(K), n)
                got.append((k, tuple(c for K, n in zip(own, ks) for c in K[:n]), ways))
        if not got:
            return
        options.append(got)
    least = [0] * (len(options) + 1)
    most = [0] * (len(options) + 1)
    for i in range(len(options) - 1, -1, -1):
        least[i] = least[i + 1] + min(k for k, _, _ in options[i])
        most[i] = most[i + 1] + max(k for k, _, _ in options[i])
    need = view.hands[seat]

    def walk(i: int, left: int, cards: tuple[int, ...], ways: int) -> Iterator[_Type]:
        if i == len(options):
            meter.view()
            if engine.feasible(private_constraints(view, seat, cards)):
                yield _Type(cards, ways)
            return
        for k, chosen, n in options[i]:
            if least[i + 1] <= left - k <= most[i + 1]:
                meter.hand()
                yield from walk(i + 1, left - k, cards + chosen, ways * n)

    if least[0] <= need <= most[0]:
        yield from walk(0, need, (), 1)


class _Search:
    """One computation: the public view, the engine, the meter, and what it learnt (by value)."""

    def __init__(self, public: Constraints, engine: str, limits: CountLimits | ViewBudget | None):
        self.public = public
        self.engine = engine
        self.meter = _budget(limits)
        self.decider = get_engine(engine)  # feasibility of the candidate hands (its last deal is a warm start)
        self._known: dict[tuple[int, tuple[int, ...]], int] = {}
        self._sorted: dict[tuple[Constraints, tuple[int, ...]], list[int]] = {}

    def known(self, seat: int, hand: tuple[int, ...]) -> int:
        """The cards (a bit mask over card ids) whose owner ``seat`` knows holding ``hand``."""
        key = (seat, hand)
        got = self._known.get(key)
        if got is None:
            self.meter.view()
            a = analyze(private_constraints(self.public, seat, hand), self.engine)
            got = 0
            for c in self.public.cards_in_play:
                m = a.owners[c]
                if m and not m & (m - 1):
                    got |= 1 << c
            self._known[key] = got
        return got

    def view(self, seat: int, hand: Iterable[int]) -> Constraints:
        return private_constraints(self.public, seat, hand)

    def sort(self, view: Constraints, chain: tuple[int, ...]) -> list[int]:
        """Per card id, which of _TRUE and _FALSE the statement ``chain`` takes over the deals of ``view``:
        chain (Y,) is "Y knows the card's owner", (Y, Z, ...) "Y knows that (Z, ...)"."""
        key = (view, chain)
        got = self._sorted.get(key)
        if got is not None:
            return got
        n = len(view.domains)
        out = [0] * n
        groups = classes(self.public, view)
        seat, rest = chain[0], chain[1:]
        for t in _hand_types(self.public, view, seat, groups, self.meter, self.decider):
            if rest:
                inner = self.sort(self.view(seat, t.hand), rest)
                truth = [_TRUE if b == _TRUE else _FALSE for b in inner]
            else:
                mask = self.known(seat, t.hand)
                truth = [_TRUE if mask >> c & 1 else _FALSE for c in range(n)]
            for K in groups:  # the hands of this type: every card of a class takes its class's answers
                seen = 0
                for c in K:
                    seen |= truth[c]
                for c in K:
                    out[c] |= seen
        self._sorted[key] = out
        return out


def _check_seats(public: Constraints, seats: Iterable[int], what: str) -> tuple[int, ...]:
    out = tuple(seats)
    for p in out:
        if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < public.players:
            raise ValueError(f"{what}: unknown seat {p!r} (seats are 0 to {public.players - 1})")
    return out


def higher_order(public: Constraints, chain: Sequence[int], hand: Iterable[int], *, engine: str = "flow",
                 limits: CountLimits | ViewBudget | None = None) -> dict[int, str]:
    """card -> ``"surely"``, ``"possibly"`` or ``"never"``, for every card in play: whether the first seat
    of ``chain``, holding ``hand`` in the public view ``public``, knows that the second knows (that the
    third knows ...) the card's owner (see the module's text).

    ``chain`` has at least two seats. Raises ValueError for an unknown seat, a chain shorter than two,
    or a hand that is not one the first seat may hold (wrong size, cards not in play, or no deal
    of ``public`` gives it); CountLimitError past ``limits``.
    """
    chain = _check_seats(public, chain, "chain")
    if len(chain) < 2:
        raise ValueError("a chain of at least two seats: who knows, and about whom")
    search = _Search(public, engine, limits)
    view = search.view(chain[0], hand)
    if not analyze(view, engine).feasible:
        raise ValueError(f"no deal of the public view gives seat {chain[0]} that hand")
    sorted_ = search.sort(view, chain[1:])
    return {c: _STATUS[sorted_[c]] for c in public.cards_in_play}


def common_knowledge(public: Constraints, hands: Mapping[int, Iterable[int]], group: Iterable[int], *,
                     engine: str = "flow", limits: CountLimits | ViewBudget | None = None) -> dict[int, int]:
    """card -> owner, for the cards in play whose owner is common knowledge among ``group`` (see the
    module's text) in the real deal, of which ``hands`` gives at least every member's hand.

    Raises ValueError for an empty group, an unknown seat, a member without a hand in ``hands`` or
    hands no deal of ``public`` gives them together; CountLimitError past ``limits``.
    """
    group = tuple(sorted(set(_check_seats(public, group, "group"))))
    if not group:
        raise ValueError("a group of at least one seat")
    missing = [p for p in group if p not in hands]
    if missing:
        raise ValueError(f"the hand of seat {missing[0]} is needed")
    real = {p: tuple(sorted(hands[p])) for p in group}
    search = _Search(public, engine, limits)
    together = public
    for p in group:
        together = private_constraints(together, p, real[p])
    if not analyze(together, engine).feasible:
        raise ValueError("no deal of the public view gives the members of the group those hands")
    # Exchanging two cards of a class (the same set, the same public domain, the same holder among the
    # group in the real deal) maps the deals reachable from the real deal onto themselves: a hand stands
    # for every hand with as many cards of each class.
    holder = {c: p for p in group for c in real[p]}
    kinds: dict[tuple[int, int, int], list[int]] = {}
    for c in public.cards_in_play:
        kinds.setdefault((c // public.set_size, public.domains[c], holder.get(c, -1)), []).append(c)
    class_of = {c: key for key, K in kinds.items() for c in K}

    def shape(seat: int, hand: tuple[int, ...]) -> tuple[int, tuple[tuple[tuple[int, int, int], int], ...]]:
        counts: dict[tuple[int, int, int], int] = {}
        for c in hand:
            counts[class_of[c]] = counts.get(class_of[c], 0) + 1
        return seat, tuple(sorted(counts.items()))

    owners = analyze(together, engine)
    sure = _closed(search, group, real, owners)
    every = 0  # the cards not yet shown to be common knowledge
    for c in public.cards_in_play:
        if not sure >> c & 1:
            every |= 1 << c
    unknown = 0  # the cards whose owner differs between two reachable deals (closed under the classes)
    seen = {shape(p, real[p]) for p in group}
    todo = deque((p, real[p]) for p in group)
    turn = 0
    while todo and unknown & every != every:  # once every other card is known not to be, nothing is left to learn
        turn += 1  # deepest and shallowest views in turn: a far witness or a near one, whichever comes first
        seat, hand = todo.pop() if turn % 2 else todo.popleft()
        known = search.known(seat, hand)
        for c in public.cards_in_play:
            if not known >> c & 1 and not unknown >> c & 1:
                for d in kinds[class_of[c]]:
                    unknown |= 1 << d
        view = search.view(seat, hand)
        view_classes = classes(public, view)
        for other in group:
            if other == seat:
                continue
            for t in _hand_types(public, view, other, view_classes, search.meter, search.decider):
                key = shape(other, t.hand)
                if key not in seen:
                    seen.add(key)
                    todo.append((other, t.hand))
    out = {}
    for c in public.cards_in_play:
        if not unknown >> c & 1:
            owner = owners.forced_owner(c)
            assert owner is not None  # forced in the view of every member's real hand, so in their meet
            out[c] = owner
    return out


def _closed(search: _Search, group: tuple[int, ...], real: Mapping[int, tuple[int, ...]], owners: Analysis) -> int:
    """Cards (a bit mask) whose owner is surely common knowledge among ``group``: the largest set K of cards
    known to every member in the real deal such that, in every deal giving the cards of K their real
    owners, every member knows them all. The deals giving K's cards their owners are then closed
    under the links of the group, so they hold every deal reachable from the real one. (A lower bound:
    the reachable deals may agree on more.)"""
    public = search.public
    sure = -1
    for p in group:
        sure &= search.known(p, real[p])
    facts = analyze(public, search.engine)
    while True:
        if all(facts.forced_owner(c) is not None for c in public.cards_in_play if sure >> c & 1):
            return sure  # public facts only: every deal of the public view gives them their owners
        agree = public  # the deals giving the cards of ``sure`` their real owners
        for c in public.cards_in_play:
            if sure >> c & 1:
                agree = agree.restrict(c, owners.owners[c])
        kept = sure
        groups = classes(public, agree)
        for p in group:
            for t in _hand_types(public, agree, p, groups, search.meter, search.decider):
                known = search.known(p, t.hand)
                for K in groups:  # every hand of the type: a card stays when its whole class is known
                    if any(not known >> c & 1 for c in K):
                        for c in K:
                            kept &= ~(1 << c)
        if kept == sure:
            return sure
        sure = kept


def exposure(public: Constraints, seat: int, hand: Iterable[int], other: int, *, engine: str = "flow",
             limits: CountLimits | ViewBudget | None = None, count_limits: CountLimits | None = None) -> Fraction:
    """How many of its own cards ``seat`` (holding ``hand``) expects ``other`` to know it holds: the exact
    mean, over the deals ``seat`` considers possible (all equally likely), of the cards of ``hand``
    whose owner ``other`` knows.

    ``limits`` bound the views as in :func:`higher_order` (with four seats or more, each hand of
    ``other`` also takes a count of deals, :func:`quaternity_cp.quartets.knowledge.count`: one more view
    each), ``count_limits`` each count; past either, CountLimitError. Raises ValueError for
    an unknown seat, ``other == seat``, or a hand no deal of ``public`` gives ``seat``.
    """
    seat, other = _check_seats(public, (seat, other), "seats")
    if seat == other:
        raise ValueError("a seat knows its own hand: ask about another seat")
    mine = tuple(sorted(hand))
    search = _Search(public, engine, limits)
    view = search.view(seat, mine)
    if not analyze(view, engine).feasible:
        raise ValueError(f"no deal of the public view gives seat {seat} that hand")
    own = 0
    for c in mine:
        own |= 1 << c
    total = weighted = 0
    # the view's classes keep the seat's own cards apart: every hand of a type knows as many of them
    for t in _hand_types(public, view, other, classes(public, view), search.meter, search.decider):
        deals = t.hands
        if public.players > 3:  # else the two hands fixed leave one seat open: one deal
            search.meter.view()  # a count is one more view
            deals *= count(private_constraints(view, other, t.hand), count_limits)
        total += deals
        weighted += deals * (search.known(other, t.hand) & own).bit_count()
    return Fraction(weighted, total)
