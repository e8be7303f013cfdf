"""Exact counts of consistent deals, every card's owner probabilities, uniform sampling.

All consistent deals of a :class:`~quaternity_cp.constraints.Constraints` are
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
hundreds of thousands of states and more; pass ``max_states`` to get a
:class:`CountLimitError` instead of a long run.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from fractions import Fraction
from itertools import accumulate
from math import factorial

from .constraints import Constraints
from .errors import QuaternityError

__all__ = [
    "CountLimitError",
    "DealCounter",
    "count_deals",
    "card_probabilities",
    "quartet_probabilities",
    "sample_deals",
]


class CountLimitError(QuaternityError):
    """A DP table grew beyond the ``max_states`` the caller allowed."""


Vec = tuple[int, ...]
Splits = list[tuple[tuple[tuple[int, int], ...], int]]  # ((seat, k), ...) with its number of ways


def _compositions(m: int, seats: tuple[int, ...], ub: tuple[int, ...]) -> list[tuple[tuple[int, int], ...]]:
    """Every split of m cards over ``seats`` with at most ``ub[i]`` at ``seats[i]``: ((seat, k), ...) with k > 0."""
    out: list[tuple[tuple[int, int], ...]] = []
    n = len(seats)
    room = [0] * (n + 1)  # room[i]: most cards seats i.. can take
    for i in range(n - 1, -1, -1):
        room[i] = room[i + 1] + ub[i]

    def rec(i: int, left: int, acc: list[tuple[int, int]]) -> None:
        if left == 0:
            out.append(tuple(acc))
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

    __slots__ = ("set", "classes", "splits", "prefix", "W", "lo", "hi", "P")

    def __init__(self, s: int, cards: list[int], domains: list[int], lo: Vec, hi: Vec, P: int):
        self.set = s
        self.P = P
        self.lo = lo
        self.hi = hi
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
        self.splits = [self._splits(len(members), seats) for members, seats in self.classes]
        zero = (0,) * P
        self.prefix = [{zero: 1}]
        for splits in self.splits:
            self.prefix.append(self._extend(self.prefix[-1], splits))
        self.W = self._filter(self.prefix[-1])

    def _splits(self, m: int, seats: tuple[int, ...]) -> Splits:
        fm = factorial(m)
        out = []
        for comp in _compositions(m, seats, tuple(self.hi[p] for p in seats)):
            w = fm
            for _, k in comp:
                w //= factorial(k)
            out.append((comp, w))
        return out

    def _extend(self, table: dict[Vec, int], splits: Splits) -> dict[Vec, int]:
        hi = self.hi
        out: dict[Vec, int] = {}
        for vec, ways in table.items():
            for comp, w in splits:
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
            splits = self.splits[i] if i != j else self._splits(len(members) - 1, seats)
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

    Build once, then ask :meth:`count`, :meth:`card_probabilities`,
    :meth:`quartet_probabilities` and :meth:`sample`; each table is computed on
    first use. ``max_states`` (optional) bounds the size of every cross-set
    table; beyond it a :class:`CountLimitError` is raised.
    """

    def __init__(self, constraints: Constraints, max_states: int | None = None):
        self.constraints = constraints
        self.max_states = max_states
        self.states = 0  # the largest cross-set table built, for benchmarks
        self._count: int | None = None
        self._forward: list[dict[int, int]] | None = None
        self._final: list[tuple[int, int]] | None = None  # (state, deals through it) at the last boundary
        self._context: list[dict[Vec, int]] | None = None
        self._setup()

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
            table = _SetTable(s, cards, doms, lo, hi, P)
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

    def _note(self, size: int) -> None:
        """Record a table's size; raise when it passes ``max_states`` (a step stops building at that point)."""
        if size > self.states:
            self.states = size
        if self.max_states is not None and size > self.max_states:
            raise CountLimitError(f"a table of {size} states exceeds the limit of {self.max_states}")

    # -- the cross-set DP ----------------------------------------------------------
    def _forward_step(self, table: dict[int, int], i: int) -> dict[int, int]:
        """Deal set ``order[i]`` after the prefix: boundary i -> i+1."""
        add, sub = self._box[i + 1]
        guard = self._guard
        pairs = [(pv + add, w) for pv, _, w in self._vectors[i]]
        out: dict[int, int] = {}
        get = out.get
        limit = self.max_states
        for x, f in table.items():
            for pv, w in pairs:
                y = x + pv
                if y & guard or ((y | guard) - sub) & guard != guard:
                    continue
                y -= add
                out[y] = get(y, 0) + f * w
            if limit is not None and len(out) > limit:
                break
        self._note(len(out))
        return out

    def _backward_step(self, table: dict[int, int], i: int) -> dict[int, int]:
        """Put set ``order[i]`` in front of the suffix: boundary i+1 -> i."""
        add, sub = self._box[i]
        guard = self._guard
        pairs = [(pv - add, w) for pv, _, w in self._vectors[i]]
        out: dict[int, int] = {}
        get = out.get
        limit = self.max_states
        for y, b in table.items():
            for pv, w in pairs:
                x = y - pv  # = (y - v) + add
                if x & guard or ((x | guard) - sub) & guard != guard:
                    continue
                x -= add
                out[x] = get(x, 0) + b * w
            if limit is not None and len(out) > limit:
                break
        self._note(len(out))
        return out

    def count(self) -> int:
        """The exact number of consistent deals."""
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
        while front < back:
            if len(F) <= len(B):
                F = self._forward_step(F, front)
                front += 1
            else:
                back -= 1
                B = self._backward_step(B, back)
            if not F or not B:
                return 0
        if len(F) > len(B):
            F, B = B, F
        return sum(f * B.get(x, 0) for x, f in F.items())

    def _forward_tables(self) -> list[dict[int, int]]:
        if self._forward is None:
            tables = [{self._start: 1}]
            for i in range(len(self.order)):
                tables.append(self._forward_step(tables[-1], i))
            self._forward = tables
        return self._forward

    def _final_states(self) -> list[tuple[int, int]]:
        """(state, deals through it) at the last boundary, the untouched sets dealt on top."""
        if self._final is None:
            last = self._forward_tables()[-1]
            if self._M:
                self._final = [(x, f * self._tail_ways(x)) for x, f in last.items()]
            else:
                self._final = list(last.items())
        return self._final

    def _contexts(self) -> list[dict[Vec, int]]:
        """Per position i in ``order``: G_i(v), the deals of all other cards when set i goes as v."""
        if self._context is None:
            F = self._forward_tables()
            B = {x: self._tail_ways(x) if self._M else 1 for x in F[-1]}
            contexts: list[dict[Vec, int]] = [{} for _ in self.order]
            for i in range(len(self.order) - 1, -1, -1):
                G: dict[Vec, int] = {}
                NB: dict[int, int] = {}
                get = NB.get
                here = F[i]
                for pv, v, w in self._vectors[i]:
                    acc = 0
                    for x, f in here.items():
                        b = B.get(x + pv)
                        if b is None:
                            continue
                        acc += f * b
                        NB[x] = get(x, 0) + w * b
                    if acc:
                        G[v] = acc
                contexts[i] = G
                B = NB
            self._context = contexts
        return self._context

    # -- answers ---------------------------------------------------------------
    def card_probabilities(self) -> dict[int, dict[int, Fraction]]:
        """Card -> seat -> probability, for every card in play and every seat holding it in some deal."""
        total = self.count() if self.feasible else 0
        if not total:
            return {}
        out: dict[int, dict[int, Fraction]] = {}
        for t, G in zip(self.order, self._contexts()):
            for j, (members, seats) in enumerate(t.classes):
                row: dict[int, Fraction] = {}
                for p in seats:
                    num = sum(w * G.get(v, 0) for v, w in t.fixed(j, p).items())
                    if num:
                        row[p] = Fraction(num, total)
                for card in members:
                    out[card] = dict(row)
        if self._M:
            # a given untouched card is with p in r[p] of the M! / prod r! ways
            nums = [0] * self.P
            for x, ways in self._final_states():
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
        total = self.count() if self.feasible else 0
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
            for x, ways in self._final_states():
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
        if not self.feasible or not self.count():
            raise QuaternityError("no consistent deal: nothing to sample")
        final = self._final_states()
        cumulative = list(accumulate(ways for _, ways in final))
        return [self._sample_one(final, cumulative, rng) for _ in range(k)]

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


def count_deals(constraints: Constraints, max_states: int | None = None) -> int:
    """The exact number of deals consistent with ``constraints`` (1 when no set is in play)."""
    return DealCounter(constraints, max_states).count()


def card_probabilities(constraints: Constraints, max_states: int | None = None) -> dict[int, dict[int, Fraction]]:
    """Card -> seat -> exact probability that the seat holds the card, all consistent deals equally likely.

    Every card in play is a key; its inner dict lists exactly the seats holding it
    in some consistent deal (probabilities > 0, summing to 1). Empty when no
    consistent deal exists.
    """
    return DealCounter(constraints, max_states).card_probabilities()


def quartet_probabilities(constraints: Constraints, max_states: int | None = None) -> dict[int, dict[int, Fraction]]:
    """Set -> seat -> exact probability that the seat holds the whole set.

    Every set in play is a key; its inner dict lists only seats with a nonzero
    probability. Empty when no consistent deal exists.
    """
    return DealCounter(constraints, max_states).quartet_probabilities()


def sample_deals(
    constraints: Constraints, k: int, rng: random.Random, max_states: int | None = None
) -> list[dict[int, int]]:
    """k independent uniformly random consistent deals (card -> seat), reproducible for a seeded rng.

    Raises :class:`~quaternity_cp.errors.QuaternityError` when no consistent deal exists.
    """
    return DealCounter(constraints, max_states).sample(k, rng)
