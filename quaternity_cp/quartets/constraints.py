"""The constraint state of a position: exactly the set of consistent deals.

docs/rules.md (section 2) shows that the consistent deals are described exactly by three things:
every hand size, every card's domain (the seats that may hold it) and, per seat
and unclaimed set, a lower and an upper bound on how many cards of the set the
seat holds. :class:`Constraints` is that description as an immutable value; it
is all an engine sees.

Domains are bit masks: bit ``p`` is set when seat ``p`` may hold the card.

>>> c = Constraints.initial(players=2, sets=2, set_size=2)
>>> c.hands, c.cards_in_play
((2, 2), (0, 1, 2, 3))
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import replace as _dc_replace
from itertools import compress
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

_D = TypeVar("_D", bound="DataclassInstance")


def bits(mask: int) -> Iterator[int]:
    """The seats in a domain mask, ascending."""
    p = 0
    while mask:
        if mask & 1:
            yield p
        mask >>= 1
        p += 1


def make_constraints(players: int, set_size: int, in_play: tuple[bool, ...], hands: tuple[int, ...],
                     domains: tuple[int, ...], lo: tuple[tuple[int, ...], ...],
                     hi: tuple[tuple[int, ...], ...]) -> "Constraints":
    """``Constraints(players, set_size, in_play, hands, domains, lo, hi)`` built directly: the same value,
    several times faster (the dataclass constructor of a frozen class sets each field through
    ``object.__setattr__``); for the hot paths (the derived constraints below, the solver)."""
    c = object.__new__(Constraints)
    c.__dict__.update(players=players, set_size=set_size, in_play=in_play, hands=hands, domains=domains,
                      lo=lo, hi=hi)
    return c


def fast_replace(obj: _D, **changes: Any) -> _D:
    """``dataclasses.replace`` for the frozen value classes of the hot paths (State, Constraints):
    the same new value without the constructor's per-field cost. Classes with a ``__post_init__``
    go through ``dataclasses.replace``; a cached hash is not copied."""
    cls = type(obj)
    if hasattr(cls, "__post_init__") or not hasattr(obj, "__dict__"):
        return _dc_replace(obj, **changes)
    for name in changes:
        if name not in cls.__dataclass_fields__:
            raise TypeError(f"{cls.__name__} has no field {name!r}")
    new = object.__new__(cls)
    d = new.__dict__
    d.update(obj.__dict__)
    d.pop("_hash", None)
    d.update(changes)
    return new


def mask_of(seats: Iterable[int]) -> int:
    m = 0
    for p in seats:
        m |= 1 << p
    return m


def whole_set_domains(domains: Sequence[int], p: int) -> tuple[int, ...]:
    """A set's card domains (masks of seats) once seat ``p`` is known to hold the whole set (a declaration):
    each card is p's, if p may hold it at all. :meth:`Constraints.with_whole_set` and the solver's rows
    take it from here.

    >>> whole_set_domains((0b011, 0b110), 1)
    (2, 2)
    """
    return tuple(d & 1 << p for d in domains)


def transfer_bounds(lo: Sequence[int], hi: Sequence[int], giver: int, taker: int,
                    S: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """One set's bounds per seat (``lo[p]``, ``hi[p]``) once one of its cards moved from giver to taker (a
    yes answer): the taker's rise by one (at most S), the giver's fall by one (its lower bound not below 0:
    it held the card, so it held one). The one rule of a transfer: :meth:`Constraints.transfer` and the
    solver's rows both take it from here.

    >>> transfer_bounds((1, 0), (4, 3), 1, 0, 4)
    ((2, 0), (4, 2))
    """
    new_lo, new_hi = list(lo), list(hi)
    new_lo[taker] += 1
    new_hi[taker] = min(S, new_hi[taker] + 1)
    new_lo[giver] = max(0, new_lo[giver] - 1)
    new_hi[giver] -= 1
    return tuple(new_lo), tuple(new_hi)


@dataclass(frozen=True)
class Constraints:
    """Hand sizes, card domains and per-set bounds; the input of every engine.

    ``domains``, ``lo`` and ``hi`` cover every card and set of the game; entries
    of claimed sets (``in_play[s]`` false) are ignored by engines.
    """

    players: int
    set_size: int
    in_play: tuple[bool, ...]  # per set: not yet claimed
    hands: tuple[int, ...]  # per seat
    domains: tuple[int, ...]  # per card id: mask of seats that may hold it
    lo: tuple[tuple[int, ...], ...]  # lo[p][s]
    hi: tuple[tuple[int, ...], ...]  # hi[p][s]

    @classmethod
    def initial(cls, players: int, sets: int, set_size: int, initial_quartets: bool = True) -> "Constraints":
        """The start of a game: any hand of N*S/P cards (no whole set when ``initial_quartets`` is false)."""
        full = (1 << players) - 1
        top = set_size if initial_quartets else set_size - 1
        hand = sets * set_size // players
        return cls(
            players=players,
            set_size=set_size,
            in_play=(True,) * sets,
            hands=(hand,) * players,
            domains=(full,) * (sets * set_size),
            lo=tuple((0,) * sets for _ in range(players)),
            hi=tuple((top,) * sets for _ in range(players)),
        )

    # -- shape -----------------------------------------------------------------
    @property
    def sets(self) -> int:
        return len(self.in_play)

    @property
    def sets_in_play(self) -> tuple[int, ...]:
        return tuple(compress(range(len(self.in_play)), self.in_play))

    @property
    def cards_in_play(self) -> tuple[int, ...]:
        S = self.set_size
        return tuple(c for s in self.sets_in_play for c in range(s * S, (s + 1) * S))

    def cards_of(self, s: int) -> range:
        return range(s * self.set_size, (s + 1) * self.set_size)

    def key(self) -> tuple[int, int, tuple[bool, ...], tuple[int, ...], tuple[int, ...],
                           tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
        """A hashable key: equal keys mean equal constraints (used by caches)."""
        return (self.players, self.set_size, self.in_play, self.hands, self.domains, self.lo, self.hi)

    def __hash__(self) -> int:
        # computed once: constraint states are dictionary keys of every cache, looked up many times
        d = self.__dict__
        h = d.get("_hash")
        if h is None:
            h = d["_hash"] = hash(self.key())
        return h

    # -- derived constraints (each returns a new value) -----------------------------
    def restrict(self, card: int, mask: int) -> "Constraints":
        """Only the seats in ``mask`` may hold ``card``."""
        domains = list(self.domains)
        domains[card] &= mask
        return make_constraints(self.players, self.set_size, self.in_play, self.hands, tuple(domains), self.lo, self.hi)

    def with_bounds(self, p: int, s: int, lo: int | None = None, hi: int | None = None) -> "Constraints":
        """Raise seat p's lower bound on set s to ``lo`` and/or lower its upper bound to ``hi``."""
        los, his = self.lo, self.hi
        if lo is not None and lo > los[p][s]:
            row = list(los[p]); row[s] = lo
            los = los[:p] + (tuple(row),) + los[p + 1:]
        if hi is not None and hi < his[p][s]:
            row = list(his[p]); row[s] = hi
            his = his[:p] + (tuple(row),) + his[p + 1:]
        if los is self.lo and his is self.hi:
            return self
        return make_constraints(self.players, self.set_size, self.in_play, self.hands, self.domains, los, his)

    def with_whole_set(self, p: int, s: int) -> "Constraints":
        """Every card of s is with seat p."""
        domains = list(self.domains)
        cards = list(self.cards_of(s))
        for c, d in zip(cards, whole_set_domains([domains[c] for c in cards], p)):
            domains[c] = d
        return make_constraints(self.players, self.set_size, self.in_play, self.hands, tuple(domains), self.lo, self.hi)

    def transfer(self, card: int, giver: int, taker: int) -> "Constraints":
        """``card`` moves from giver to taker (a yes answer).

        Deals before and after correspond one to one, so the description stays
        exact: the card's domain becomes the taker; the hands change by one; the
        taker's bounds on the set rise by one (at most S); the giver's fall by one
        (its lower bound not below 0: it held the card, so it held one).
        """
        S = self.set_size
        s = card // S
        domains = list(self.domains)
        domains[card] = 1 << taker
        hands = list(self.hands)
        hands[giver] -= 1
        hands[taker] += 1
        column_lo, column_hi = transfer_bounds([r[s] for r in self.lo], [r[s] for r in self.hi], giver, taker, S)
        lo = [list(r) for r in self.lo]
        hi = [list(r) for r in self.hi]
        for p in range(self.players):
            lo[p][s], hi[p][s] = column_lo[p], column_hi[p]
        return make_constraints(self.players, self.set_size, self.in_play, tuple(hands), tuple(domains),
                     tuple(map(tuple, lo)), tuple(map(tuple, hi)))

    def obviously_infeasible(self) -> bool:
        """Cheap necessary conditions (local counting), no search."""
        S = self.set_size
        P = self.players
        live = self.sets_in_play
        if sum(self.hands) != S * len(live):
            return True
        for p in range(P):
            if self.hands[p] < 0:
                return True
            need = 0
            room = 0
            for s in live:
                lo, hi = self.lo[p][s], self.hi[p][s]
                if lo < 0 or hi < 0 or lo > hi or lo > S:
                    return True
                avail = sum(1 for c in self.cards_of(s) if self.domains[c] >> p & 1)
                if lo > avail:
                    return True
                need += lo
                room += min(hi, avail)
            if need > self.hands[p] or room < self.hands[p]:
                return True
        full = (1 << P) - 1
        for s in live:
            for c in self.cards_of(s):
                if self.domains[c] & full == 0:
                    return True
            if sum(self.lo[p][s] for p in range(P)) > S:
                return True
        return False
