"""Exact counts of consistent deals, every card's owner probabilities, uniform sampling.

All consistent deals of a :class:`~quaternity_cp.quartets.constraints.Constraints` are
taken as equally likely. Nothing here enumerates deals.

>>> start = Constraints.initial(players=3, sets=2, set_size=3)
>>> count_deals(start)
90
>>> card_probabilities(start.restrict(0, 0b011))[0]
{0: Fraction(1, 2), 1: Fraction(1, 2)}
>>> sample_deals(Constraints.initial(2, 1, 2), 1, random.Random(0))
[{0: 0, 1: 1}]

Method
------
A deal is, per set in play, a choice of which of its cards go to which seat;
the sets are linked only by the hand sizes. So:

1. **Per set** s, ``W_s(v)`` is the number of ways to give s's cards to seats
   with exactly ``v[p]`` cards at seat p (every card in its domain,
   ``lo[p][s] <= v[p] <= hi[p][s]``). Cards with the same domain are
   interchangeable, so ``W_s`` is a small DP over the set's *domain classes*:
   a class of m cards split as ``k`` over its seats contributes the multinomial
   ``m! / prod k[p]!``.
2. **Untouched sets** (every card may go to every seat that holds cards, and
   no bound can bind) are not put through the DP: together their M cards can
   be dealt onto any remaining need ``r`` in ``M! / prod r[p]!`` ways. A
   position early in a game, where most sets are untouched, is nearly free.
3. **Across the other sets**, a DP whose state is the vector of cards dealt
   so far per seat: ``F_{i+1}(u + v) += F_i(u) * W_i(v)``, and the mirror
   image ``B_i(u) = sum_v W_i(v) * B_{i+1}(u + v)`` (ways for sets i.. and the
   untouched ones to complete a prefix that dealt ``u``). A state at boundary
   i is kept only when every seat's count lies in the box both ends can still
   reach: between the prefix's least and most possible counts, and such that
   the rest of its hand fits what remains. The number of deals is
   ``sum_u F_k(u) * B_k(u)`` at any boundary k. With no untouched set,
   :meth:`DealCounter.count` grows both ends, always the smaller table, and
   joins them where they meet; otherwise it runs forward and joins with the
   closed form. Sets with many count vectors go where the tables are small:
   at both ends, or first when there are untouched sets.
4. **Probabilities**: with all ``F_i`` stored, one backward sweep gives, per
   set i and count vector v, ``G_i(v) = sum_u F_i(u) * B_{i+1}(u + v)``: the
   number of ways to deal every *other* card given that set i goes as v. The
   deals with card c at seat p are ``sum_v W_i^{c->p}(v) * G_i(v)``, where
   ``W_i^{c->p}`` is the per-set DP with c fixed at p (one per domain class and
   seat, since the cards of a class are interchangeable); the deals giving
   all of set i to p are ``W_i(S e_p) * G_i(S e_p)``. For untouched cards, a
   given one is with p in ``r[p] / M`` of the closed-form ways, and a given
   untouched set wholly with p in ``r[p]! (M-S)! / ((r[p]-S)! M!)`` of them.
5. **Sampling** walks the tables from the end: the final state with weight
   ``F_N(u) * M! / prod r[p]!`` (the untouched cards are then shuffled onto
   the seats by ``r``), then set i's count vector v with weight
   ``W_i(v) * F_i(u - v)``, then its split over domain classes from the
   per-set prefix tables, the cards of each class shuffled onto their seats.
   Every choice is an exact big-integer ``rng.randrange``, so deals are
   uniform and reproducible for a seeded ``random.Random``.

Vectors are packed into one Python int (a bit field per seat with a guard
bit), so moving a state is one integer addition and the box test a few bit
operations.

Cost
----
With P seats, N constrained sets of S cards and hands of about H cards, a
table holds at most the count vectors in the box with the fixed total, fewer
than ``(H+1)^(P-1)``, and a step pairs each state with each of the set's count
vectors, at most ``C(S+P-1, P-1)``. Counting costs about
``N * states * vectors`` big-integer multiply-adds: polynomial in the number
of cards for a fixed number of seats, exponential in P. Constraints shrink
both factors (a known card has one vector; asked cards narrow domains and
bounds; hands shrink as sets are claimed); untouched sets cost nothing.
Probabilities cost about three counts (a forward pass, a backward sweep that
also forms ``G_i``, the per-set DPs per domain class and seat); each sample
costs ``O(N * vectors)`` once the tables exist.

Measured with ``python benchmarks/count.py`` (random truthful play; medians):
4 seats x 8 sets of 4 count in under a millisecond, 4 x 13 x 4 in a few
milliseconds, 6 x 12 x 4 in 10-50 ms (the slowest seen 0.2 s); all
probabilities take a few times that. 8 seats x 16 sets of 8 (hands of 16, up
to 1716 count vectors per set) is the limit of the method: instant at the
start (every set untouched), seconds late in the game, but once questions
have touched most sets and hands are still large the middle tables run to
hundreds of thousands of states and more.

Limits
------
Every count runs within :class:`CountLimits`: ``max_states`` (the states
the counter's tables hold at once), ``max_seconds`` (a clock) and ``max_work``
(multiply-adds, for answers that must not depend on the machine's speed).
They are checked before a table is built when its size or cost is known (a
domain class's splits are counted by a small DP before they are listed, so a
set of 30 cards touched by one question at a table of 12 is refused at once,
not after gigabytes), and every few thousand multiply-adds while it is built.
Past a limit the question raises :class:`CountLimitError` (its ``reason``:
``states``, ``time`` or ``work``); no answer is ever made from a table that was
not finished.

A state is an entry of a table. An entry of a per-set table (a tuple of one
number per seat) weighs ``1 + P // 12`` states, and a cross-set table one
state more per 2,048 bits of its counts, so that a state costs about the same
memory everywhere. Measured (resident memory over the counter's peak states,
counts with probabilities): 120-140 bytes per state in the cross-set tables
(6-10 seats), 190-260 in the per-set ones (10-20 seats; 250 at 10 seats, the
worst); :data:`STATE_BYTES` (300) is the bound taken, so 3,000,000 states (the
command line's default) stay under 0.9 GB.

>>> c = Constraints.initial(12, 4, 30).restrict(0, ~0b11).with_bounds(0, 0, lo=1)
>>> count_deals(c, limits=CountLimits(max_states=3_000_000, max_seconds=10))
Traceback (most recent call last):
...
quaternity_cp.quartets.count.CountLimitError: counting needs more than 3,000,000 states
"""

from __future__ import annotations

import random
from bisect import bisect_right
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate
from math import factorial
from typing import Callable, Iterable, Sequence, TypeVar

from ..budget import Limits
from .constraints import Constraints
from ..errors import QuaternityError

__all__ = [
    "CountLimitError",
    "CountLimits",
    "CountBudget",
    "STATE_BYTES",
    "STATES",
    "TIME",
    "WORK",
    "DealCounter",
    "count_deals",
    "card_probabilities",
    "quartet_probabilities",
    "sample_deals",
]

#: A :class:`CountLimitError`'s ``reason``: the limit it met.
STATES, TIME, WORK = "states", "time", "work"

#: Memory one state of a counter's tables takes, in bytes, at most (the measurements of the module
#: docstring, rounded up): ``max_states`` states take at most about ``max_states * STATE_BYTES`` bytes.
STATE_BYTES = 300

_TICK = 20_000  # multiply-adds between two checks of the limits while a table is built
_BITS = 2_048  # every so many bits of the counts in a cross-set table weigh one state more
_CHUNK = 4_096  # a longer list of count vectors is walked in pieces, with a check after each


class CountLimitError(QuaternityError):
    """A count would pass one of its limits; it is refused, and nothing is returned.

    ``reason`` says which: ``"states"`` (``max_states``), ``"time"`` (``max_seconds``) or ``"work"``
    (``max_work``).
    """

    def __init__(self, message: str, reason: str = STATES):
        super().__init__(message)
        self.reason = reason


#: What counting may use: the package's one limits object, :class:`quaternity_cp.budget.Limits`, of which a
#: count reads ``max_states`` (the states held at once by one counter's tables, the per-set tables and the
#: cross-set ones together: memory, about :data:`STATE_BYTES` each), ``max_seconds`` (seconds from
#: ``start``, the solvers' clock) and ``max_work`` (big-integer multiply-adds of one counter: no clock, the
#: same answer on every machine, what the agents use). Bad values raise ``LimitError`` (a ValueError).
CountLimits = Limits


class CountBudget:
    """:class:`CountLimits` on counts running now: the clock started when it was made.

    One budget may serve several counters (the counts of one command share its
    seconds); ``max_states`` and ``max_work`` apply to each counter on its own.
    """

    __slots__ = ("limits", "clock")

    def __init__(self, limits: CountLimits | None = None):
        self.limits = limits if limits is not None else CountLimits()
        self.clock = Limits(max_seconds=self.limits.max_seconds).start()

    def check_time(self) -> None:
        """Raise :class:`CountLimitError` (``time``) once the time limit has passed."""
        if self.clock.expired():
            raise CountLimitError(f"counting takes longer than {self.limits.max_seconds:g} s", TIME)


def _budget(max_states: int | None, limits: CountLimits | CountBudget | None) -> CountBudget:
    if limits is None:
        return CountBudget(CountLimits(max_states=max_states))
    if max_states is not None:
        raise ValueError("give the limits either as max_states or as limits, not both")
    if isinstance(limits, CountLimits):
        return CountBudget(limits)
    if isinstance(limits, CountBudget):
        return limits
    raise ValueError(f"limits must be CountLimits or a CountBudget, not {limits!r}")


class _Meter:
    """One counter's use of its budget: the states it holds, the work done, the clock.

    The tables are built in loops that call :meth:`tick` every few thousand
    multiply-adds; a table is taken with :meth:`hold` once built (or before, when its
    size is known). Either raises :class:`CountLimitError` past a limit.
    """

    __slots__ = ("budget", "max_states", "max_work", "held", "peak", "largest", "work")

    def __init__(self, budget: CountBudget):
        self.budget = budget
        self.max_states = budget.limits.max_states
        self.max_work = budget.limits.max_work
        self.held = 0  # states held now
        self.peak = 0  # the most states held at once
        self.largest = 0  # the largest single table
        self.work = 0

    def hold(self, n: int) -> None:
        """Take ``n`` states more (a table built, or one about to be built of known size)."""
        if n > self.largest:
            self.largest = n
        self._states(n)
        self.held += n
        if self.held > self.peak:
            self.peak = self.held

    def release(self, n: int) -> None:
        """Give back ``n`` states (a table dropped)."""
        self.held -= n

    def _states(self, extra: int) -> None:
        if self.max_states is not None and self.held + extra > self.max_states:
            raise CountLimitError(f"counting needs more than {self.max_states:,} states", STATES)

    def plan(self, ops: int) -> None:
        """Refuse at once a step known to need ``ops`` multiply-adds past ``max_work``."""
        if self.max_work is not None and self.work + ops > self.max_work:
            raise CountLimitError(f"counting needs more than {self.max_work:,} operations", WORK)

    def tick(self, ops: int, size: int = 0) -> None:
        """``ops`` multiply-adds done; ``size``: states of the table being built. Checks every limit."""
        self.work += ops
        self._states(size)
        if self.held + size > self.peak:
            self.peak = self.held + size
        if self.max_work is not None and self.work > self.max_work:
            raise CountLimitError(f"counting needs more than {self.max_work:,} operations", WORK)
        self.budget.check_time()


T = TypeVar("T")


def _weight(values: Iterable[int], n: int) -> int:
    """The states a cross-set table of ``n`` entries weighs: one each, one more per _BITS bits of its counts."""
    return n + sum(v.bit_length() for v in values) // _BITS


def _chunks(items: Sequence[T]) -> list[Sequence[T]]:
    """``items`` in pieces of at most _CHUNK (one piece when short)."""
    if len(items) <= _CHUNK:
        return [items]
    return [items[i:i + _CHUNK] for i in range(0, len(items), _CHUNK)]


Vec = tuple[int, ...]
Comp = tuple[tuple[int, int], ...]  # ((seat, k), ...) with k > 0
Splits = list[tuple[Comp, int]]  # a split with its number of ways


def _count_compositions(m: int, ub: Sequence[int]) -> int:
    """How many splits of m cards over seats with at most ``ub[i]`` at seat i (what :func:`_compositions` lists)."""
    ways = [1] + [0] * m  # ways[t]: splits of t cards over the seats so far
    for u in ub:
        acc = list(accumulate(ways))
        ways = [acc[t] - (acc[t - u - 1] if t > u else 0) for t in range(m + 1)]
    return ways[m]


def _compositions(m: int, seats: tuple[int, ...], ub: tuple[int, ...], meter: _Meter) -> list[Comp]:
    """Every split of m cards over ``seats`` with at most ``ub[i]`` at ``seats[i]``: ((seat, k), ...) with k > 0."""
    out: list[Comp] = []
    n = len(seats)
    room = [0] * (n + 1)  # room[i]: most cards seats i.. can take
    for i in range(n - 1, -1, -1):
        room[i] = room[i + 1] + ub[i]
    due = [_TICK]

    def rec(i: int, left: int, acc: list[tuple[int, int]]) -> None:
        if left == 0:
            out.append(tuple(acc))
            due[0] -= n
            if due[0] <= 0:
                meter.tick(_TICK - due[0])
                due[0] = _TICK
            return
        if i == n or room[i] < left:
            return
        for k in range(min(left, ub[i]), -1, -1):
            if k:
                acc.append((seats[i], k))
            rec(i + 1, left - k, acc)
            if k:
                acc.pop()

    rec(0, m, [])
    return out


class _SetTable:
    """The per-set DP of one set in play: its domain classes and ``W_s``."""

    __slots__ = ("set", "classes", "splits", "prefix", "W", "lo", "hi", "P", "meter", "unit")

    def __init__(self, s: int, cards: list[int], domains: list[int], lo: Vec, hi: Vec, P: int, meter: _Meter):
        self.set = s
        self.P = P
        self.lo = lo
        self.hi = hi
        self.meter = meter
        self.unit = unit = 1 + P // 12  # an entry here holds a tuple of one number per seat
        by_domain: dict[int, list[int]] = {}
        for card, d in zip(cards, domains):
            by_domain.setdefault(d, []).append(card)
        # classes: (cards, seats of the domain)
        self.classes: list[tuple[list[int], tuple[int, ...]]] = []
        for d, members in by_domain.items():
            seats = tuple(p for p in range(P) if d >> p & 1)
            self.classes.append((members, seats))
        # the largest classes first keeps the prefix tables small
        self.classes.sort(key=lambda cl: (-len(cl[0]), cl[0][0]))
        self.splits = []
        for members, seats in self.classes:
            # the number of splits is known before they are made: refused early when too many
            meter.hold(unit * _count_compositions(len(members), [hi[p] for p in seats]))
            self.splits.append(self._splits(len(members), seats))
        zero = (0,) * P
        self.prefix = [{zero: 1}]
        for splits in self.splits:
            table = self._extend(self.prefix[-1], splits)
            meter.hold(unit * len(table))
            self.prefix.append(table)
        self.W = self._filter(self.prefix[-1])
        meter.hold(unit * len(self.W))

    def _splits(self, m: int, seats: tuple[int, ...]) -> Splits:
        fm = factorial(m)
        out = []
        for comp in _compositions(m, seats, tuple(self.hi[p] for p in seats), self.meter):
            w = fm
            for _, k in comp:
                w //= factorial(k)
            out.append((comp, w))
        return out

    def _extend(self, table: dict[Vec, int], splits: Splits) -> dict[Vec, int]:
        hi = self.hi
        meter = self.meter
        out: dict[Vec, int] = {}
        chunks = _chunks(splits)
        due = _TICK
        for vec, ways in table.items():
            for chunk in chunks:
                for comp, w in chunk:
                    new = list(vec)
                    ok = True
                    for p, k in comp:
                        new[p] += k
                        if new[p] > hi[p]:
                            ok = False
                            break
                    if ok:
                        key = tuple(new)
                        out[key] = out.get(key, 0) + ways * w
                due -= len(chunk)
                if due <= 0:
                    meter.tick(_TICK - due, self.unit * len(out))
                    due = _TICK
        meter.tick(_TICK - due, self.unit * len(out))
        return out

    def _filter(self, table: dict[Vec, int]) -> dict[Vec, int]:
        lo = self.lo
        return {v: w for v, w in table.items() if all(x >= l for x, l in zip(v, lo))}

    def fixed(self, j: int, p: int) -> dict[Vec, int]:
        """``W_s`` restricted to deals where one given card of class j is at seat p."""
        table: dict[Vec, int] = {tuple(1 if q == p else 0 for q in range(self.P)): 1}
        if self.hi[p] < 1:
            return {}
        for i, (members, seats) in enumerate(self.classes):
            if i == j:
                self.meter.tick(0, self.unit * _count_compositions(len(members) - 1, [self.hi[q] for q in seats]))
                splits = self._splits(len(members) - 1, seats)
            else:
                splits = self.splits[i]
            table = self._extend(table, splits)
        return self._filter(table)

    def sample(self, v: Vec, rng: random.Random, out: dict[int, int]) -> None:
        """Draw uniformly one assignment of the set's cards with count vector v."""
        target = list(v)
        for j in range(len(self.classes) - 1, -1, -1):
            before = self.prefix[j]
            options = []
            total = 0
            for comp, w in self.splits[j]:
                rest = list(target)
                for p, k in comp:
                    rest[p] -= k
                if min(rest) < 0:
                    continue
                weight = w * before.get(tuple(rest), 0)
                if weight:
                    options.append((weight, comp, rest))
                    total += weight
            r = rng.randrange(total)
            for weight, comp, rest in options:
                if r < weight:
                    break
                r -= weight
            target = rest
            members = list(self.classes[j][0])
            rng.shuffle(members)
            at = 0
            for p, k in comp:
                for card in members[at:at + k]:
                    out[card] = p
                at += k


class DealCounter:
    """Tables shared by counting, probabilities and sampling for one position.

    Make once, then ask :meth:`count`, :meth:`card_probabilities`,
    :meth:`quartet_probabilities` and :meth:`sample`; each table is computed on
    first use (making the counter does no work). ``limits`` bounds the work: a
    :class:`CountLimits` (its clock starts when the counter is made) or a running
    :class:`CountBudget` shared with other counters; ``max_states`` alone is short
    for ``limits=CountLimits(max_states=max_states)``. Past a limit the answer asked for
    raises :class:`CountLimitError`, and so does every later question to this
    counter: it never answers from a table it did not finish.
    """

    def __init__(self, constraints: Constraints, max_states: int | None = None, *,
                 limits: CountLimits | CountBudget | None = None):
        self.constraints = constraints
        self._meter = _Meter(_budget(max_states, limits))
        self.max_states = self._meter.max_states
        self._ready = False
        self._refused: CountLimitError | None = None
        self._count: int | None = None
        self._forward: list[dict[int, int]] | None = None
        self._final: list[tuple[int, int]] | None = None  # (state, deals through it) at the last boundary
        self._context: list[dict[Vec, int]] | None = None

    @property
    def states(self) -> int:
        """The largest table built so far (for benchmarks)."""
        return self._meter.largest

    @property
    def peak_states(self) -> int:
        """The most states held at once so far (what ``max_states`` bounds)."""
        return self._meter.peak

    @property
    def work(self) -> int:
        """Multiply-adds done so far (what ``max_work`` bounds)."""
        return self._meter.work

    def _run(self, answer: Callable[[], T]) -> T:
        """``answer()`` under the limits: a refusal is kept and raised again by every later question."""
        if self._refused is not None:
            raise CountLimitError(str(self._refused), self._refused.reason)
        try:
            if not self._ready:
                self._setup()
                self._ready = True
            return answer()
        except CountLimitError as err:
            self._refused = err
            raise

    # -- setup -----------------------------------------------------------------
    def _setup(self) -> None:
        c = self.constraints
        P, S = c.players, c.set_size
        self.P = P
        live = c.sets_in_play
        hands = tuple(c.hands)
        self.hands = hands
        self.order: list[_SetTable] = []
        self.tail_sets: list[int] = []
        self.tail_cards: list[int] = []
        self.feasible = (
            P >= 1
            and len(hands) == P
            and all(h >= 0 for h in hands)
            and sum(hands) == S * len(live)
        )
        if not self.feasible:
            return
        full = (1 << P) - 1
        holders = sum(1 << p for p in range(P) if hands[p] > 0)
        tables: list[_SetTable] = []
        for s in live:
            cards = list(c.cards_of(s))
            if all(c.domains[x] & holders == holders for x in cards) and all(
                c.lo[p][s] <= 0 and c.hi[p][s] >= min(S, hands[p]) for p in range(P)
            ):
                # untouched: any card to any seat holding cards, bounds cannot bind
                self.tail_sets.append(s)
                self.tail_cards.extend(cards)
                continue
            lo = tuple(max(0, c.lo[p][s]) for p in range(P))
            hi = tuple(min(c.hi[p][s], S, hands[p]) for p in range(P))
            if any(l > h for l, h in zip(lo, hi)):
                self.feasible = False
                return
            allowed = sum(1 << p for p in range(P) if hi[p] >= 1)
            doms = [c.domains[x] & full & allowed for x in cards]
            if not all(doms):
                self.feasible = False
                return
            table = _SetTable(s, cards, doms, lo, hi, P, self._meter)
            if not table.W:
                self.feasible = False
                return
            tables.append(table)
        # Order: a step costs (table size) x (count vectors of the set). Tables are
        # widest in the middle, where both ends constrain least, so the sets with
        # the most count vectors go to the ends; with untouched sets the tables
        # only grow towards the join, so the widest sets go first.
        widest = sorted(tables, key=lambda t: (-len(t.W), t.set))
        self.order = widest if self.tail_sets else widest[0::2] + widest[1::2][::-1]
        N = len(self.order)
        M = len(self.tail_cards)
        self._M = M
        self._fact = [1]
        for k in range(1, M + 1):
            self._fact.append(self._fact[-1] * k)

        # packed vectors: one field of `width` bits per seat, top bit a guard
        G = 1
        while G < max(hands, default=0) + S + 1:
            G <<= 1
        width = G.bit_length() + 1
        self._width = width
        self._G = G
        self._guard = sum(G << (width * p) for p in range(P))
        self._offset = sum((G - 1 - hands[p]) << (width * p) for p in range(P))

        # per set: exact least and most cards per seat; the box per boundary
        low = [[min(v[p] for v in t.W) for p in range(P)] for t in self.order]
        top = [[max(v[p] for v in t.W) for p in range(P)] for t in self.order]
        tail_top = [M if hands[p] else 0 for p in range(P)]
        pre_lo = [[0] * P]
        pre_hi = [[0] * P]
        for i in range(N):
            pre_lo.append([a + b for a, b in zip(pre_lo[-1], low[i])])
            pre_hi.append([a + b for a, b in zip(pre_hi[-1], top[i])])
        self._box: list[tuple[int, int]] = []  # (add for the upper test, subtract for the lower test)
        for i in range(N + 1):
            L, U = [], []
            for p in range(P):
                suf_lo = pre_lo[N][p] - pre_lo[i][p]
                suf_hi = pre_hi[N][p] - pre_hi[i][p] + tail_top[p]
                lo_ = max(pre_lo[i][p], hands[p] - suf_hi)
                hi_ = min(pre_hi[i][p], hands[p] - suf_lo)
                if lo_ > hi_:
                    self.feasible = False
                    return
                L.append(lo_)
                U.append(hi_)
            # field x = u + (G-1-h); with `add` (h-U) added: u <= U <=> field < G, u >= L <=> field >= L+G-1-U
            add = sum((hands[p] - U[p]) << (width * p) for p in range(P))
            sub = sum((L[p] + G - 1 - U[p]) << (width * p) for p in range(P))
            self._box.append((add, sub))
        self._vectors = [[(self._pack(v), v, w) for v, w in t.W.items()] for t in self.order]
        self._start = self._offset

    def _pack(self, v: Vec) -> int:
        width = self._width
        return sum(x << (width * p) for p, x in enumerate(v))

    def _rest(self, x: int) -> list[int]:
        """The cards per seat still to deal (to the untouched sets) at packed state x."""
        width, top = self._width, self._G - 1
        mask = (1 << width) - 1
        return [top - (x >> (width * p) & mask) for p in range(self.P)]

    def _tail_ways(self, x: int) -> int:
        """Ways to deal the untouched sets' cards on top of packed state x: a multinomial."""
        ways = self._fact[self._M]
        for r in self._rest(x):
            ways //= self._fact[r]
        return ways

    # -- the cross-set DP ----------------------------------------------------------
    def _forward_step(self, table: dict[int, int], i: int) -> tuple[dict[int, int], int]:
        """Deal set ``order[i]`` after the prefix: boundary i -> i+1. The new table and the states it holds."""
        add, sub = self._box[i + 1]
        guard = self._guard
        pairs = [(pv + add, w) for pv, _, w in self._vectors[i]]
        meter = self._meter
        meter.plan(len(table) * len(pairs))
        chunks = _chunks(pairs)
        out: dict[int, int] = {}
        get = out.get
        due = _TICK
        for x, f in table.items():
            for chunk in chunks:
                for pv, w in chunk:
                    y = x + pv
                    if y & guard or ((y | guard) - sub) & guard != guard:
                        continue
                    y -= add
                    out[y] = get(y, 0) + f * w
                due -= len(chunk)
                if due <= 0:
                    meter.tick(_TICK - due, len(out))
                    due = _TICK
        meter.tick(_TICK - due)
        weight = _weight(out.values(), len(out))
        meter.hold(weight)
        return out, weight

    def _backward_step(self, table: dict[int, int], i: int) -> tuple[dict[int, int], int]:
        """Put set ``order[i]`` in front of the suffix: boundary i+1 -> i. The new table and the states it holds."""
        add, sub = self._box[i]
        guard = self._guard
        pairs = [(pv - add, w) for pv, _, w in self._vectors[i]]
        meter = self._meter
        meter.plan(len(table) * len(pairs))
        chunks = _chunks(pairs)
        out: dict[int, int] = {}
        get = out.get
        due = _TICK
        for y, b in table.items():
            for chunk in chunks:
                for pv, w in chunk:
                    x = y - pv  # = (y - v) + add
                    if x & guard or ((x | guard) - sub) & guard != guard:
                        continue
                    x -= add
                    out[x] = get(x, 0) + b * w
                due -= len(chunk)
                if due <= 0:
                    meter.tick(_TICK - due, len(out))
                    due = _TICK
        meter.tick(_TICK - due)
        weight = _weight(out.values(), len(out))
        meter.hold(weight)
        return out, weight

    def count(self) -> int:
        """The exact number of consistent deals."""
        return self._run(self._counted)

    def _counted(self) -> int:
        if self._count is None:
            if not self.feasible:
                self._count = 0
            elif self._forward is not None or self._M:
                self._count = sum(ways for _, ways in self._final_states())
            else:
                self._count = self._meet()
        return self._count

    def _meet(self) -> int:
        """Count with no untouched set: grow the smaller end, join where they meet."""
        front, back = 0, len(self.order)
        F = {self._start: 1}
        B = {self._offset + self._pack(self.hands): 1}
        meter = self._meter
        meter.hold(2)
        weights = [1, 1]  # of F and B, held
        try:
            while front < back:
                if len(F) <= len(B):
                    F, weight = self._forward_step(F, front)
                    front += 1
                    meter.release(weights[0])
                    weights[0] = weight
                else:
                    back -= 1
                    B, weight = self._backward_step(B, back)
                    meter.release(weights[1])
                    weights[1] = weight
                if not F or not B:
                    return 0
            if len(F) > len(B):
                F, B = B, F
            meter.tick(len(F))
            return sum(f * B.get(x, 0) for x, f in F.items())
        finally:
            meter.release(sum(weights))

    def _forward_tables(self) -> list[dict[int, int]]:
        if self._forward is None:
            tables = [{self._start: 1}]
            self._meter.hold(1)
            for i in range(len(self.order)):
                tables.append(self._forward_step(tables[-1], i)[0])
            self._forward = tables
        return self._forward

    def _final_states(self) -> list[tuple[int, int]]:
        """(state, deals through it) at the last boundary, the untouched sets dealt on top."""
        if self._final is None:
            last = self._forward_tables()[-1]
            if self._M:
                self._meter.tick(len(last) * self.P)
                self._final = [(x, f * self._tail_ways(x)) for x, f in last.items()]
            else:
                self._final = list(last.items())
            self._meter.hold(_weight((w for _, w in self._final), len(self._final)))
        return self._final

    def _contexts(self) -> list[dict[Vec, int]]:
        """Per position i in ``order``: G_i(v), the deals of all other cards when set i goes as v."""
        if self._context is None:
            F = self._forward_tables()
            meter = self._meter
            B = {x: self._tail_ways(x) if self._M else 1 for x in F[-1]}
            held = _weight(B.values(), len(B))
            meter.hold(held)
            contexts: list[dict[Vec, int]] = [{} for _ in self.order]
            for i in range(len(self.order) - 1, -1, -1):
                vectors = self._vectors[i]
                meter.plan(len(F[i]) * len(vectors))
                acc = [0] * len(vectors)
                NB: dict[int, int] = {}
                get = NB.get
                chunks = _chunks(list(enumerate(vectors)))
                due = _TICK
                for x, f in F[i].items():
                    for chunk in chunks:
                        for j, (pv, _, w) in chunk:
                            b = B.get(x + pv)
                            if b is None:
                                continue
                            acc[j] += f * b
                            NB[x] = get(x, 0) + w * b
                        due -= len(chunk)
                        if due <= 0:
                            meter.tick(_TICK - due, len(NB))
                            due = _TICK
                meter.tick(_TICK - due)
                G = {v: a for (_, v, _), a in zip(vectors, acc) if a}
                meter.hold(_weight(G.values(), len(G)))
                weight = _weight(NB.values(), len(NB))
                meter.hold(weight)
                meter.release(held)
                held = weight
                contexts[i] = G
                B = NB
            meter.release(held)
            self._context = contexts
        return self._context

    # -- answers ---------------------------------------------------------------
    def card_probabilities(self) -> dict[int, dict[int, Fraction]]:
        """Card -> seat -> probability, for every card in play and every seat holding it in some deal."""
        return self._run(self._card_probabilities)

    def _card_probabilities(self) -> dict[int, dict[int, Fraction]]:
        total = self._counted() if self.feasible else 0
        if not total:
            return {}
        out: dict[int, dict[int, Fraction]] = {}
        for t, G in zip(self.order, self._contexts()):
            for j, (members, seats) in enumerate(t.classes):
                row: dict[int, Fraction] = {}
                for p in seats:
                    fixed = t.fixed(j, p)
                    self._meter.tick(len(fixed))
                    num = sum(w * G.get(v, 0) for v, w in fixed.items())
                    if num:
                        row[p] = Fraction(num, total)
                for card in members:
                    out[card] = dict(row)
        if self._M:
            # a given untouched card is with p in r[p] of the M! / prod r! ways
            nums = [0] * self.P
            final = self._final_states()
            self._meter.tick(len(final) * self.P)
            for x, ways in final:
                for p, r in enumerate(self._rest(x)):
                    nums[p] += ways * r
            row = {p: Fraction(n, total * self._M) for p, n in enumerate(nums) if n}
            for card in self.tail_cards:
                out[card] = dict(row)
        return dict(sorted(out.items()))

    def quartet_probabilities(self) -> dict[int, dict[int, Fraction]]:
        """Set -> seat -> probability that the seat holds the whole set.

        Every set in play is a key; its inner dict lists only the seats with a
        nonzero probability (empty when no seat can hold the whole set).
        """
        return self._run(self._quartet_probabilities)

    def _quartet_probabilities(self) -> dict[int, dict[int, Fraction]]:
        total = self._counted() if self.feasible else 0
        if not total:
            return {}
        S = self.constraints.set_size
        out: dict[int, dict[int, Fraction]] = {}
        for t, G in zip(self.order, self._contexts()):
            row: dict[int, Fraction] = {}
            for p in range(self.P):
                v = tuple(S if q == p else 0 for q in range(self.P))
                num = t.W.get(v, 0) * G.get(v, 0)
                if num:
                    row[p] = Fraction(num, total)
            out[t.set] = row
        if self._M:
            # S given untouched cards all with p: falling factorials (r[p])_S / (M)_S
            def falling(n: int) -> int:
                return self._fact[n] // self._fact[n - S] if n >= S else 0

            nums = [0] * self.P
            final = self._final_states()
            self._meter.tick(len(final) * self.P)
            for x, ways in final:
                for p, r in enumerate(self._rest(x)):
                    nums[p] += ways * falling(r)
            den = total * falling(self._M)
            row = {p: Fraction(n, den) for p, n in enumerate(nums) if n}
            for s in self.tail_sets:
                out[s] = dict(row)
        return dict(sorted(out.items()))

    def sample(self, k: int, rng: random.Random) -> list[dict[int, int]]:
        """k independent uniform consistent deals (card -> seat, cards in play in order)."""
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise QuaternityError(f"the number of deals to draw must be a whole number >= 0, not {k!r}")
        return self._run(lambda: self._sample(k, rng))

    def _sample(self, k: int, rng: random.Random) -> list[dict[int, int]]:
        if not self.feasible or not self._counted():
            raise QuaternityError("no consistent deal: nothing to sample")
        final = self._final_states()
        cumulative = list(accumulate(ways for _, ways in final))
        per_deal = len(final).bit_length() + sum(len(v) + len(t.splits) for v, t in zip(self._vectors, self.order))
        drawn = []
        for _ in range(k):
            drawn.append(self._sample_one(final, cumulative, rng))
            self._meter.tick(per_deal)
        return drawn

    def _sample_one(self, final: list[tuple[int, int]], cumulative: list[int], rng: random.Random) -> dict[int, int]:
        F = self._forward_tables()
        deal: dict[int, int] = {}
        y = final[bisect_right(cumulative, rng.randrange(cumulative[-1]))][0]
        if self._M:
            cards = list(self.tail_cards)
            rng.shuffle(cards)
            at = 0
            for p, r in enumerate(self._rest(y)):
                for card in cards[at:at + r]:
                    deal[card] = p
                at += r
        for i in range(len(self.order) - 1, -1, -1):
            before = F[i]
            r = rng.randrange(F[i + 1][y])
            chosen = None
            for pv, v, w in self._vectors[i]:
                f = before.get(y - pv)
                if f is None:
                    continue
                weight = w * f
                if r < weight:
                    chosen = (pv, v)
                    break
                r -= weight
            assert chosen is not None, "tables out of step"
            pv, v = chosen
            self.order[i].sample(v, rng, deal)
            y -= pv
        return dict(sorted(deal.items()))


def count_deals(constraints: Constraints, max_states: int | None = None, *,
                limits: CountLimits | CountBudget | None = None) -> int:
    """The exact number of deals consistent with ``constraints`` (1 when no set is in play).

    ``max_states``, ``limits``: as for :class:`DealCounter`; past a limit :class:`CountLimitError`.
    """
    return DealCounter(constraints, max_states, limits=limits).count()


def card_probabilities(constraints: Constraints, max_states: int | None = None, *,
                       limits: CountLimits | CountBudget | None = None) -> dict[int, dict[int, Fraction]]:
    """Card -> seat -> exact probability that the seat holds the card, all consistent deals equally likely.

    Every card in play is a key; its inner dict lists exactly the seats holding it
    in some consistent deal (probabilities > 0, summing to 1). Empty when no
    consistent deal exists. Limits as for :class:`DealCounter`.
    """
    return DealCounter(constraints, max_states, limits=limits).card_probabilities()


def quartet_probabilities(constraints: Constraints, max_states: int | None = None, *,
                          limits: CountLimits | CountBudget | None = None) -> dict[int, dict[int, Fraction]]:
    """Set -> seat -> exact probability that the seat holds the whole set.

    Every set in play is a key; its inner dict lists only seats with a nonzero
    probability. Empty when no consistent deal exists. Limits as for :class:`DealCounter`.
    """
    return DealCounter(constraints, max_states, limits=limits).quartet_probabilities()


def sample_deals(
    constraints: Constraints, k: int, rng: random.Random, max_states: int | None = None, *,
    limits: CountLimits | CountBudget | None = None,
) -> list[dict[int, int]]:
    """k independent uniformly random consistent deals (card -> seat), reproducible for a seeded rng.

    Raises :class:`~quaternity_cp.errors.QuaternityError` when no consistent deal exists.
    Limits as for :class:`DealCounter`.
    """
    return DealCounter(constraints, max_states, limits=limits).sample(k, rng)
