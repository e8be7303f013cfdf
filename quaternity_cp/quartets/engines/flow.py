"""The flow engine: exact analysis from one maximum flow and its residual graph.

Network: source -> card (capacity 1) -> (p, s) for every seat p in the card's
domain -> sink. The per-set bounds need no lower-bound transformation: (p, s)
-> sink has capacity ``lo[p][s]`` (slots reserved for s), (p, s) -> free_p has
``hi[p][s] - lo[p][s]`` and free_p -> sink has ``hands[p] - sum_s lo[p][s]``.
The sink capacities add up to the cards in play, so a flow that places every
card saturates every sink edge: ``lo <= flow(p, s) <= hi`` and every hand is
full. Such flows and the consistent deals correspond one to one.

- Feasible: the maximum flow places every card (augmenting paths from a greedy
  start).
- Possible owners (Régin's filtering): two flows placing every card differ by
  residual cycles, which avoid source and sink (their edges are saturated), so
  card c can go to p iff it does in the flow found or c and (p, s) lie in one
  strongly connected component of the residual graph.
- Possible quartets: the cards of s with p are maximised by pushing flow around
  residual cycles c -> (p, s) -> free_p ~> c; a flow is optimal when no such
  cycle is left (cycle-cancelling optimality), so p can hold all of s iff the
  maximum reaches S.

A flow that places every card is just an owner per card, so that is the state
kept. Card nodes are contracted away: a card c of s held by a becomes residual
edges (a, s) -> (y, s) for the other seats y of its domain (c's only residual
in-edge comes from (a, s), so no path through c is lost). What remains are the
nodes (seat, set) and free_p, with residual edges

- (a, s) -> (y, s): a holds a card of s that y may hold (the card moves a -> y);
- (p, s) -> free_p when p holds fewer than ``hi[p][s]`` cards of s;
- free_p -> (p, s) when p holds more than ``lo[p][s]`` cards of s.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache, reduce
from itertools import compress
from operator import and_
from typing import Union

from ..constraints import Constraints, bits
from .base import Analysis, infeasible_analysis


class FlowEngine:
    """Exact analysis with one maximum flow, Régin's filtering and residual cycles (pure Python).

    Incremental: the engine remembers the last deal it found (an owner per card)
    and starts the next maximum flow from it. A move changes a few domains,
    bounds and hands, so most cards keep their owner and only the few that no
    longer fit are placed again by augmenting paths. The remembered deal is only
    a starting point: every answer is the exact one for the constraints asked
    (``warm=False`` starts every flow from scratch, for tests and benchmarks).
    """

    name = "flow"

    def __init__(self, warm: bool = True):
        self.warm = warm
        self._last: list[int] | None = None  # per card id of the last deal: its owner (-1: not in play)
        self._deal: "_Deal | None" = None  # the last deal placed, kept with its network ...
        self._c: Constraints | None = None  # ... for these constraints

    def _kept(self, c: Constraints) -> bool:
        """Whether the kept network can be changed into the one of c (same game, same sets in play)."""
        k = self._c
        return (self.warm and k is not None and k.players == c.players and k.set_size == c.set_size
                and k.in_play == c.in_play and len(k.domains) == len(c.domains))

    def _remembered(self) -> list[int] | None:
        if self._deal is not None and self._c is not None:  # set and cleared together
            self._last = self._deal.global_owners(len(self._c.domains))
            self._deal = self._c = None
        return self._last

    def _place(self, c: Constraints) -> "_Deal | None":
        if self._kept(c):
            deal, old = self._deal, self._c
            assert deal is not None and old is not None  # kept together; _kept checked old
            if old is c:
                return deal
            done = deal.update(old, c)
            if done:
                self._c = c
                return deal
            if done is not None:
                return None  # infeasible; the kept network is still the one of self._c
        deal = _Deal.of(c)
        if deal is None:
            return None
        last = self._remembered() if self.warm else None
        if last is not None and len(last) != len(c.domains):
            last = None
        if not deal.place(True, last):
            return None
        if self.warm:
            self._deal, self._c, self._last = deal, c, None
        return deal

    def feasible(self, c: Constraints) -> bool:
        if not self._kept(c):
            last = self._remembered() if self.warm else None
            if last is not None and len(last) == len(c.domains) and _satisfies(c, last):
                return True  # the last deal is a deal of c: no flow needed
        return self._place(c) is not None

    def analyze(self, c: Constraints) -> Analysis:
        deal = self._place(c)
        if deal is None:
            return infeasible_analysis(c)
        return _analysis_of(c, deal)


def _satisfies(c: Constraints, owner: list[int]) -> bool:
    """Whether the deal ``owner`` (a seat per card id, -1 for cards out of play) is consistent with c:
    every card in play with a seat of its domain, every per-set count within bounds, every hand full."""
    P, S = c.players, c.set_size
    domains, lo, hi = c.domains, c.lo, c.hi
    hands = [0] * P
    for s, live in enumerate(c.in_play):
        if not live:
            continue
        cnt = [0] * P
        for g in range(s * S, s * S + S):
            a = owner[g]
            if a < 0 or a >= P or not domains[g] >> a & 1:
                return False
            cnt[a] += 1
        for p in range(P):
            n = cnt[p]
            if n < lo[p][s] or n > hi[p][s]:
                return False
            hands[p] += n
    return hands == list(c.hands)


def _analyze(c: Constraints, greedy: bool = True) -> Analysis:
    """The analysis from scratch; ``greedy=False`` places every card by an augmenting path (for tests)."""
    deal = _Deal.of(c)
    if deal is None or not deal.place(greedy):
        return infeasible_analysis(c)
    return _analysis_of(c, deal)


def _analysis_of(c: Constraints, deal: "_Deal") -> Analysis:
    """Possible owners and quartets from a deal placing every card."""
    S, live = deal.S, deal.live
    quartets = [0] * c.sets
    possible = deal.possible_owners()
    if len(live) == c.sets:  # no set claimed: local and global numbers agree
        owners = possible
    else:
        owners = [0] * len(c.domains)
        for k, s in enumerate(live):
            owners[s * S:s * S + S] = possible[k * S:k * S + S]
    for k, p in deal.quartets(deal.quartet_candidates(possible)):
        quartets[live[k]] |= 1 << p
    return Analysis(True, tuple(owners), tuple(quartets))


@lru_cache(maxsize=None)
def _seat_table(players: int) -> _SeatTable:
    """mask -> tuple of its seats; a list for few players, a filling dict otherwise."""
    if players <= 12:
        return [tuple(bits(m)) for m in range(1 << players)]
    return _SeatTuples()


class _SeatTuples(dict[int, tuple[int, ...]]):
    def __missing__(self, mask: int) -> tuple[int, ...]:
        seats = self[mask] = tuple(bits(mask))
        return seats


_SeatTable = Union[list[tuple[int, ...]], _SeatTuples]


class _Deal:
    """A deal of the cards in play being built as a maximum flow, and searches in its residual graph.

    Local numbering: ``live[k]`` is the k-th set in play, its cards are ``k*S ..
    k*S+S-1``; node ``k*P + p`` is (p, live[k]) and node ``P*n + p`` is free_p.
    ``owner[i]`` is the seat card i goes to (-1: not placed yet), ``count[v]`` the
    cards at node (p, s), ``reach[v]`` the union of their domains (the residual
    edges (p, s) -> (y, s)), ``spare[p]`` the nodes (p, s) holding more than
    ``lo`` (the residual edges free_p -> (p, s)), ``used[p]`` the free slots of p
    in use (a card at (p, s) takes a reserved slot while fewer than ``lo`` are there).
    """

    __slots__ = ("P", "S", "live", "NP", "dom", "lo", "hi", "room", "seats",
                 "owner", "count", "reach", "spare", "used", "mark", "stamp", "prev", "moved", "local")
    P: int
    S: int
    live: list[int]
    NP: int
    dom: list[int]
    lo: list[int]
    hi: list[int]
    room: list[int]
    seats: _SeatTable
    owner: list[int]
    count: list[int]
    reach: list[int]
    spare: list[set[int]]
    used: list[int]
    mark: list[int]
    stamp: int
    prev: list[int]
    moved: list[int]
    local: list[int]

    @classmethod
    def of(cls, c: Constraints) -> "_Deal | None":
        """The flow network of ``c``, or None when its numbers alone rule out every deal."""
        P, S = c.players, c.set_size
        live = [s for s, playing in enumerate(c.in_play) if playing]
        n = len(live)
        if sum(c.hands) != n * S or min(c.hands) < 0:
            return None
        full = (1 << P) - 1  # seats that do not exist hold nothing
        dom: list[int] = []
        for s in live:
            dom += c.domains[s * S:(s + 1) * S]
        dom = [d & full for d in dom]
        if 0 in dom:
            return None
        NP = n * P
        lo = [0] * NP
        hi = [0] * NP
        room = list(c.hands)
        for p in range(P):
            los, his = c.lo[p], c.hi[p]
            v = p
            for s in live:
                a, b = los[s], his[s]
                if a < 0 or a > b or a > S:  # negative or contradictory bounds: no deal
                    return None
                lo[v] = a
                hi[v] = b if b < S else S
                room[p] -= a
                v += P
            if room[p] < 0:
                return None
        self = cls.__new__(cls)
        self.P, self.S, self.live, self.NP = P, S, live, NP
        self.dom, self.lo, self.hi, self.room = dom, lo, hi, room
        self.seats = _seat_table(P)
        self.owner = [-1] * (n * S)
        self.count = [0] * NP
        self.reach = [0] * NP
        self.spare = [set() for _ in range(P)]
        self.used = [0] * P
        self.mark = [0] * (NP + P)
        self.stamp = 0
        self.prev = [-1] * (NP + P)
        self.moved = []  # sets of the cards moved, for quartets shown by a new deal
        local = [-1] * len(c.in_play)  # set id -> local set number
        for k, t in enumerate(live):
            local[t] = k
        self.local = local
        return self

    # -- incremental change ---------------------------------------------------------
    def update(self, old: Constraints, c: Constraints) -> bool | None:
        """Change this deal, a deal of ``old``, into one of ``c`` (same game and sets in play): apply
        the changed domains, bounds and hands to the network, take back the cards that no longer fit
        (a card out of its domain, cards above a lowered upper bound, free slots beyond a smaller
        hand) and place them again by augmenting paths. False when c has no deal; then the deal is
        left as it was (a deal of ``old``). None, the deal untouched, when c is too far from old (more
        changes than :meth:`place` accepts from a remembered deal): a new network is cheaper then."""
        P, S = self.P, self.S
        n = len(self.live)
        full = (1 << P) - 1
        local = self.local
        hands, ohands = c.hands, old.hands
        if hands != ohands and (sum(hands) != n * S or min(hands) < 0):
            return False
        dchanges = []  # (local card, new domain)
        od, nd = old.domains, c.domains
        if od is not nd and od != nd:
            size = len(nd)
            for a in range(0, size, 256):
                if od[a:a + 256] != nd[a:a + 256]:
                    for g in range(a, min(a + 256, size)):
                        if od[g] != nd[g]:
                            k = local[g // S]
                            if k >= 0:
                                d = nd[g] & full
                                if not d:
                                    return False
                                dchanges.append((k * S + g % S, d))
        room = list(self.room)
        for p in range(P):
            room[p] += hands[p] - ohands[p]
        lo, hi = self.lo, self.hi
        bchanges = []  # (node, new lo, new hi)
        for p in range(P):
            ol, nl, oh, nh = old.lo[p], c.lo[p], old.hi[p], c.hi[p]
            if (ol is nl or ol == nl) and (oh is nh or oh == nh):
                continue
            for t, (a, b, a0, b0) in enumerate(zip(nl, nh, ol, oh)):
                if a != a0 or b != b0:
                    k = local[t]
                    if k < 0:
                        continue
                    if a < 0 or a > b or a > S:
                        return False
                    v = k * P + p
                    room[p] -= a - lo[v]
                    bchanges.append((v, a, b if b < S else S))
        if min(room) < 0:
            return False
        if not dchanges and not bchanges and room == self.room:
            return True
        if len(dchanges) + len(bchanges) > 16 + len(self.dom) // 32:
            return None
        snapshot = (self.owner[:], self.count[:], self.reach[:], self.used[:], [set(x) for x in self.spare],
                    self.dom[:], lo[:], hi[:], self.room)
        self.room = room
        dom, owner, count, used, spare = self.dom, self.owner, self.count, self.used, self.spare
        left = []
        for i, d in dchanges:
            dom[i] = d
            a = owner[i]
            if a >= 0:
                v = i // S * P + a
                if d >> a & 1:
                    self._rereach(v)
                else:
                    self._take(i, v)
                    left.append(i)
        for v, a, b in bchanges:
            p = v % P
            m = count[v]
            used[p] += max(0, m - a) - max(0, m - lo[v])
            lo[v] = a
            hi[v] = b
            if m > a:
                spare[p].add(v)
            else:
                spare[p].discard(v)
            while count[v] > b:
                left.append(self._take_one(v))
        for p in range(P):
            while used[p] > room[p]:
                left.append(self._take_one(next(iter(spare[p]))))
        self.moved.clear()
        if self._augment(left):
            return True
        (self.owner, self.count, self.reach, self.used, self.spare, self.dom, self.lo, self.hi,
         self.room) = snapshot
        return False

    def _rereach(self, v: int) -> None:
        """Recompute ``reach[v]``: the union of the domains of the cards at node v."""
        P, S, dom, owner = self.P, self.S, self.dom, self.owner
        x = v % P
        r = 0
        first = v // P * S
        for i in range(first, first + S):
            if owner[i] == x:
                r |= dom[i]
        self.reach[v] = r

    def _take(self, j: int, v: int) -> None:
        """Take card j (at node v) out of the deal."""
        count = self.count
        x = self.owner[j]
        count[v] -= 1
        if count[v] >= self.lo[v]:
            self.used[x] -= 1  # it held a free slot
        if count[v] == self.lo[v]:
            self.spare[x].discard(v)
        self.owner[j] = -1
        self._rereach(v)

    def _take_one(self, v: int) -> int:
        """Take some card at node v out of the deal; that card."""
        x = v % self.P
        j = v // self.P * self.S
        owner = self.owner
        while owner[j] != x:
            j += 1
        self._take(j, v)
        return j

    # -- maximum flow --------------------------------------------------------------
    def place(self, greedy: bool = True, last: list[int] | None = None) -> bool:
        """Place every card (the last deal's owners where they still fit, greedy, then augmenting
        paths); False when the maximum flow falls short."""
        P, NP = self.P, self.NP
        dom = self.dom
        left: Sequence[int]
        if not greedy:
            left = range(len(dom))
        else:
            cards: Sequence[int] = range(len(dom))
            if last is not None:
                kept = self._keep(last)
                if len(kept) <= 16 + len(dom) // 32:
                    cards = kept
                else:  # the last deal is too far from these constraints: start afresh
                    n = len(dom)
                    self.owner[:] = [-1] * n
                    self.count[:] = [0] * NP
                    self.reach[:] = [0] * NP
                    self.used[:] = [0] * P
            left = self._greedy(cards)
        return self._augment(left)

    def _augment(self, left: Iterable[int]) -> bool:
        """Place the cards ``left`` by augmenting paths; False when one finds none."""
        P, S, NP = self.P, self.S, self.NP
        dom, room, seats, used = self.dom, self.room, self.seats, self.used
        for i in left:
            base = i // S * P
            exits = 0  # seats with a free slot left
            for p in range(P):
                if used[p] < room[p]:
                    exits |= 1 << p
            end = self._search([base + p for p in seats[dom[i]]], exits)
            if end < 0:
                # no augmenting path through card i now means none later: no flow places every card
                return False
            if end >= NP:
                used[end - NP] += 1
            self._shift(end, i)
        return True

    def _keep(self, last: list[int]) -> list[int]:
        """Give every card the owner it had in the last deal when that still fits (a valid partial
        flow: domains, upper bounds and hand slots respected); the cards left."""
        P, S = self.P, self.S
        dom, lo, hi, room, live = self.dom, self.lo, self.hi, self.room, self.live
        owner, count, reach, used = self.owner, self.count, self.reach, self.used
        left = []
        i = 0
        for k, s in enumerate(live):
            base = k * P
            for a in last[s * S:s * S + S]:
                if a >= 0 and dom[i] >> a & 1:
                    v = base + a
                    n = count[v]
                    if n < lo[v]:
                        pass
                    elif n < hi[v] and used[a] < room[a]:
                        used[a] += 1
                    else:
                        left.append(i)
                        i += 1
                        continue
                    owner[i] = a
                    count[v] = n + 1
                    reach[v] |= dom[i]
                else:
                    left.append(i)
                i += 1
        return left

    def global_owners(self, n: int) -> list[int]:
        """The deal as an owner per card id of the game (-1 for cards not in play)."""
        out = [-1] * n
        S, owner = self.S, self.owner
        for k, s in enumerate(self.live):
            out[s * S:s * S + S] = owner[k * S:k * S + S]
        return out

    def _greedy(self, cards: Iterable[int]) -> list[int]:
        """Place the given cards that fit directly, fewest seats first, a reserved slot before a free
        one; the cards left."""
        P, S, NP = self.P, self.S, self.NP
        dom, lo, hi, room, seats = self.dom, self.lo, self.hi, self.room, self.seats
        owner, count, reach, used = self.owner, self.count, self.reach, self.used
        left = []
        for i in sorted(cards, key=lambda i: dom[i].bit_count()):
            d = dom[i]
            base = i // S * P
            options = seats[d]
            for p in options:
                v = base + p
                if count[v] < lo[v]:
                    break
            else:
                for p in options:
                    v = base + p
                    if count[v] < hi[v] and used[p] < room[p]:
                        used[p] += 1
                        break
                else:
                    left.append(i)
                    continue
            owner[i] = p
            count[v] += 1
            reach[v] |= d
        for v in range(NP):
            if count[v] > lo[v]:
                self.spare[v % P].add(v)
        return left

    def _search(self, starts: list[int], exits: int, exclude: int = -1) -> int:
        """Breadth-first search of the residual graph; the node where a path ends, or -1.

        A path starts at one of ``starts`` and ends at (p, s) with a free reserved
        slot (none is left once every card is placed) or at free_p for a seat p
        in ``exits``; it never enters node ``exclude``. Nodes are tested as they
        are found, and a node (p, s) that may take one more card goes straight on
        to free_p when that is an exit, so short paths end without a whole layer
        being searched.
        """
        P, NP = self.P, self.NP
        lo, hi, seats, count, reach, spare = self.lo, self.hi, self.seats, self.count, self.reach, self.spare
        mark, prev = self.mark, self.prev
        self.stamp += 1
        stamp = self.stamp
        if exclude >= 0:
            mark[exclude] = stamp
        queue = []
        for w in starts:
            if mark[w] == stamp:
                continue
            mark[w] = stamp
            prev[w] = -1
            if w < NP:
                y = w % P
                if count[w] < lo[w]:
                    return w
                if exits >> y & 1 and count[w] < hi[w] and mark[NP + y] != stamp:
                    mark[NP + y] = stamp
                    prev[NP + y] = w
                    return NP + y
            queue.append(w)
        for v in queue:  # the queue grows while it is read
            if v >= NP:  # free_x -> (x, t) when x holds more than lo of t
                for w in spare[v - NP]:
                    if mark[w] != stamp:
                        mark[w] = stamp
                        prev[w] = v
                        queue.append(w)
                continue
            x = v % P
            if count[v] < hi[v]:  # free_x is no exit, or v would have ended the path when found
                f = NP + x
                if mark[f] != stamp:
                    mark[f] = stamp
                    prev[f] = v
                    queue.append(f)
            base = v - x
            for y in seats[reach[v]]:  # a card of v's set moves from x to y
                w = base + y
                if mark[w] != stamp:
                    mark[w] = stamp
                    prev[w] = v
                    if count[w] < lo[w]:
                        return w
                    if exits >> y & 1 and count[w] < hi[w] and mark[NP + y] != stamp:
                        mark[NP + y] = stamp
                        prev[NP + y] = w
                        return NP + y
                    queue.append(w)
        return -1

    def _shift(self, end: int, card: int = -1) -> None:
        """Move the cards along the path found by :meth:`_search` that ends at ``end``.

        An edge (x, s) -> (y, s) moves any card of s from x to y that y may hold;
        ``card`` is the card entering the path's first node.
        """
        P, S, NP = self.P, self.S, self.NP
        dom, owner, prev = self.dom, self.owner, self.prev
        v = end
        while v >= 0:
            u = prev[v]
            if v < NP and u < NP:  # entered through a card
                j = card
                if u >= 0:
                    x, y = u % P, v % P
                    j = v // P * S
                    while owner[j] != x or not dom[j] >> y & 1:
                        j += 1
                self._move(j, v)
            v = u

    def _open(self, end: int) -> bool:
        """Whether the path :meth:`_search` found last, ending at ``end``, is still residual."""
        P, NP, lo, hi, count, reach, prev = self.P, self.NP, self.lo, self.hi, self.count, self.reach, self.prev
        v = end
        u = prev[v]
        while u >= 0:
            if u >= NP:
                if count[v] <= lo[v]:
                    return False
            elif v >= NP:
                if count[u] >= hi[u]:
                    return False
            elif not reach[u] >> v % P & 1:
                return False
            v = u
            u = prev[v]
        return True

    def _move(self, j: int, v: int) -> None:
        """Card j goes to node v (a node of its set)."""
        P, S = self.P, self.S
        dom, lo, owner, count, reach = self.dom, self.lo, self.owner, self.count, self.reach
        x = owner[j]
        base = v - v % P
        if x >= 0:
            u = base + x
            count[u] -= 1
            if count[u] == lo[u]:
                self.spare[x].discard(u)
            r = 0  # what x's other cards of the set reach
            first = v // P * S
            for i in range(first, first + S):
                if owner[i] == x and i != j:
                    r |= dom[i]
            reach[u] = r
        owner[j] = v % P
        count[v] += 1
        if count[v] == lo[v] + 1:
            self.spare[v % P].add(v)
        reach[v] |= dom[j]
        self.moved.append(v // P)

    # -- possible owners -------------------------------------------------------------
    def possible_owners(self) -> list[int]:
        """Per local card, the mask of seats holding it in some deal (once every card is placed)."""
        S, P, dom, owner = self.S, self.P, self.dom, self.owner
        # few sets (the solver's endgames): often more than one component of free nodes, and the
        # general search is as cheap
        if len(self.live) >= 6:
            same = self._same_by_sets()
            if same is None:
                same = self._same_by_tarjan()
        elif self.NP + self.P <= 64:
            same = self._same_by_bits()
        else:
            same = self._same_by_tarjan()
        return [dom[i] & same[i // S * P + a] for i, a in enumerate(owner)]

    def _same_by_sets(self) -> list[int] | None:
        """``same`` of :meth:`_same_by_tarjan` set by set, with bit masks, when every free node lies in
        one strongly connected component F (else None: the general search decides).

        Edges between sets pass through free nodes only, so a node (x, s) is in F iff, inside the
        graph of set s, it is reached from a node with an edge from a free node (x holds more than
        lo: ``enter``) and reaches a node with an edge to one (fewer than hi: ``leave``). Any other
        node's component contains no free node, so it lies inside its set: there it is what the node
        reaches and is reached from."""
        P, NP = self.P, self.NP
        lo, hi, seats, count, reach = self.lo, self.hi, self.seats, self.count, self.reach
        full = (1 << P) - 1
        n = NP // P if P else 0
        weights = [1 << x for x in range(P)]
        over = [a > b for a, b in zip(count, lo)]
        under = [a < b for a, b in zip(count, hi)]
        enter = [sum(compress(weights, over[b:b + P])) for b in range(0, NP, P)]
        leave = [sum(compress(weights, under[b:b + P])) for b in range(0, NP, P)]

        def forward(base: int, m: int) -> int:
            seen = frontier = m
            while frontier:
                new = 0
                for x in seats[frontier]:
                    new |= reach[base + x]
                frontier = new & ~seen
                seen |= new
                if seen == full:
                    break
            return seen

        def backward(base: int, m: int) -> int:
            seen = m
            grown = True
            while grown:
                grown = False
                for x in seats[full & ~seen]:
                    if reach[base + x] & seen:
                        seen |= 1 << x
                        grown = True
            return seen

        # every free node reaches free_0 and is reached from it? (free_a -> free_b: a in enter of s and
        # b in leave of s, b reached from a inside s)
        for ahead in (True, False):
            got = frontier = 1
            while frontier and got != full:
                new = got
                for k in range(n):
                    if ahead:
                        m = enter[k] & frontier
                        if m:
                            new |= forward(k * P, m) & leave[k]
                    else:
                        m = leave[k] & frontier
                        if m:
                            new |= backward(k * P, m) & enter[k]
                    if new == full:
                        break
                frontier = new & ~got
                got = new
            if got != full:
                return None
        same = [0] * NP
        for k in range(n):
            base = k * P
            held = sum(compress(weights, count[base:base + P]))
            inside = forward(base, enter[k]) & backward(base, leave[k])
            if inside:
                for x in seats[held & inside]:
                    same[base + x] = inside
            for x in seats[held & ~inside]:
                bit = 1 << x
                same[base + x] = forward(base, bit) & backward(base, bit)
        return same

    def _same_by_bits(self) -> list[int]:
        """``same`` of :meth:`_same_by_tarjan` for a small network: node sets as bit masks, each
        component the nodes both reached from one of its nodes and reaching it."""
        P, NP = self.P, self.NP
        count, hi, reach, spare = self.count, self.hi, self.reach, self.spare
        N = NP + P
        adj = [0] * N
        for v in range(NP):
            x = v % P
            m = (reach[v] & ~(1 << x)) << (v - x)
            if count[v] < hi[v]:
                m |= 1 << (NP + x)
            adj[v] = m
        for x in range(P):
            m = 0
            for v in spare[x]:
                m |= 1 << v
            adj[NP + x] = m
        radj = [0] * N
        for v in range(N):
            m = adj[v]
            bit = 1 << v
            while m:
                low = m & -m
                radj[low.bit_length() - 1] |= bit
                m ^= low

        def closure(edges: list[int], start: int, within: int) -> int:
            seen = frontier = start
            while frontier:
                new = 0
                while frontier:
                    low = frontier & -frontier
                    new |= edges[low.bit_length() - 1]
                    frontier ^= low
                new &= within
                frontier = new & ~seen
                seen |= new
            return seen

        full = (1 << P) - 1
        same = [0] * NP
        left = (1 << NP) - 1  # the nodes (p, s) whose component is not known yet
        every = (1 << N) - 1  # nodes not in a component found (a component is closed: none of its
        while left:  # paths leave through a found one)
            root = left & -left
            comp = closure(adj, root, every) & closure(radj, root, every)
            every &= ~comp
            m = comp & left
            left &= ~comp
            while m:
                low = m & -m
                v = low.bit_length() - 1
                base = v - v % P
                same[v] = comp >> base & full
                m ^= low
        return same

    def _same_by_tarjan(self) -> list[int]:
        """Per node (p, s): the seats y whose node (y, s) shares its strongly connected component."""
        P, NP = self.P, self.NP
        hi, seats, count, reach = self.hi, self.seats, self.count, self.reach
        adj = []
        for v in range(NP):
            x = v % P
            base = v - x
            row = [base + y for y in seats[reach[v] & ~(1 << x)]]
            if count[v] < hi[v]:
                row.append(NP + x)
            adj.append(row)
        for x in range(P):
            adj.append(list(self.spare[x]))
        comp = _components(adj)
        # same[v]: the seats y whose node (y, s) shares v's component; a card held at v may go to y
        # (in its domain) exactly then
        full = (1 << P) - 1
        same = [0] * NP
        for base in range(0, NP, P):
            row = comp[base:base + P]
            first = row[0]
            if row.count(first) == P:
                same[base:base + P] = [full] * P
                continue
            for x in range(P):
                here = row[x]
                m = 0
                for y in range(P):
                    if row[y] == here:
                        m |= 1 << y
                same[base + x] = m
        return same

    # -- possible quartets -------------------------------------------------------------
    def quartet_candidates(self, possible: list[int]) -> list[tuple[int, int]]:
        """(local set, seat) pairs that the possible owners and the counting of
        :func:`.base.quartet_candidates` leave (that counting, on the local arrays)."""
        P, S, lo, hi, room, seats = self.P, self.S, self.lo, self.hi, self.room, self.seats
        out = []
        for k in range(len(self.live)):
            common = reduce(and_, possible[k * S:(k + 1) * S])
            if not common:
                continue
            base = k * P
            reserved = sum(lo[base:base + P])
            for p in seats[common]:
                v = base + p
                # p may hold S of s, nobody else needs one, and p's other reserved cards still fit
                if hi[v] == S and reserved == lo[v] and S - lo[v] <= room[p]:
                    out.append((k, p))
        return out

    def quartets(self, candidates: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Those of :meth:`quartet_candidates` that some deal gives the whole set to the seat.

        Each search goes on from the deal the previous one left: every step is a
        residual cycle, so every intermediate state is a deal. A cycle just used
        is tried again before a new search, and a deal reached settles the other
        candidates it shows.
        """
        P, S, NP = self.P, self.S, self.NP
        owner, count, prev = self.owner, self.count, self.prev
        pending = {k * P + p for k, p in candidates}
        found = set()
        if len(candidates) > 8:
            # first the candidates that a few swaps of single cards show (the deal is not changed)
            found = self._swap_witnesses(candidates)
        moved = self.moved
        moved.clear()
        for k, p in candidates:
            target = k * P + p
            if target in found:
                continue
            first = k * S
            bit = 1 << p
            end = -1
            while count[target] < S:
                # cycle: card c of s at a -> (p, s) -> free_p ~> free_a -> (a, s) -> c, not back
                # through (p, s); (p, s) -> free_p is residual as count < S = hi for a candidate.
                # Every card of s may go to p, and nobody else has a lower bound on s, so any
                # a != p holding a card of s ends a cycle, and the first node of s on a path
                # free_p ~> (a, s) is entered from a free node: the search can stop at free_a.
                holders = 0
                for j in range(first, first + S):
                    holders |= 1 << owner[j]
                holders &= ~bit
                if end < 0 or not holders >> end % P & 1 or not self._open(end):  # else the last cycle again
                    end = self._search([NP + p], holders, target)
                    if end < 0:
                        break
                    end -= NP
                    prev[k * P + end] = NP + end
                    end += k * P
                a = end % P
                j = first
                while owner[j] != a:
                    j += 1
                self._move(j, target)
                self._shift(end)
            else:
                found.add(target)
                for t in set(moved):  # the new deal may show other candidates in the sets it changed
                    for v in range(t * P, t * P + P):
                        if count[v] == S and v in pending:
                            found.add(v)
            moved.clear()
        return [(k, p) for k, p in candidates if k * P + p in found]

    def _swap_witnesses(self, candidates: list[tuple[int, int]]) -> set[int]:
        """Nodes (p, s) of candidates shown by the deal with some disjoint swaps: each card of s held by
        a != p swapped with a card of p of another set t that a may hold, keeping (a, t) <= hi and
        (p, t) >= lo. Swaps keep every hand, so the result is a deal in which p holds all of s (a
        candidate's s has no lower bound for other seats and hi = S for p). Cheap and sound; the
        candidates it misses go to the exact cycle search."""
        P, S = self.P, self.S
        dom, lo, hi, owner, count = self.dom, self.lo, self.hi, self.owner, self.count
        held: list[list[int]] = [[] for _ in range(P)]
        for i, a in enumerate(owner):
            held[a].append(i)
        # Per seat p, cards of distinct sets t that p can give to any seat: every seat may hold the
        # card, p holds more than lo of t and every other seat fewer than hi. S of them outside s
        # witness (p, s) at once: the swaps touch distinct sets, so they do not interact.
        full = (1 << P) - 1
        roomy = []  # per local set: -1 when every seat may take one more card of it, the one seat that
        for k in range(len(self.live)):  # may not when there is one, else -2
            base = k * P
            r = -1
            for v in range(base, base + P):
                if count[v] >= hi[v]:
                    r = v - base if r == -1 else -2
            roomy.append(r)
        universal: list[list[int]] = []
        for p in range(P):
            sets_seen: list[int] = []
            for i in held[p]:
                t = i // S
                if dom[i] == full and (roomy[t] == -1 or roomy[t] == p) and (not sets_seen or sets_seen[-1] != t):
                    v = t * P + p
                    if count[v] > lo[v]:
                        sets_seen.append(t)
                        if len(sets_seen) > S:
                            break
            universal.append(sets_seen)
        delta = [0] * self.NP
        taken = [0] * len(owner)
        stamp = 0
        found = set()
        for k, p in candidates:
            u = universal[p]
            if len(u) > S or (len(u) == S and k not in u):
                found.add(k * P + p)
                continue
            first = k * S
            mine = held[p]
            stamp += 1
            touched = []
            ok = True
            for j in range(first, first + S):
                a = owner[j]
                if a == p:
                    continue
                for i in mine:
                    if taken[i] == stamp or not dom[i] >> a & 1:
                        continue
                    t = i // S
                    if t == k:
                        continue
                    vp = t * P
                    va = vp + a
                    vp += p
                    if count[va] + delta[va] >= hi[va] or count[vp] + delta[vp] <= lo[vp]:
                        continue
                    taken[i] = stamp
                    delta[va] += 1
                    delta[vp] -= 1
                    touched.append(va)
                    touched.append(vp)
                    break
                else:
                    ok = False
                    break
            for v in touched:
                delta[v] = 0
            if ok:
                found.add(k * P + p)
        return found


def _components(adj: list[list[int]]) -> list[int]:
    """Strongly connected components (iterative Tarjan): a component number per node."""
    n = len(adj)
    index = [-1] * n
    low = [0] * n
    comp = [-1] * n  # -1 while a found node is on the stack
    stack = []
    counter = 0
    ncomp = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        path = [(root, iter(adj[root]))]
        while path:
            v, edges = path[-1]
            for w in edges:
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    path.append((w, iter(adj[w])))
                    break
                if comp[w] < 0 and index[w] < low[v]:
                    low[v] = index[w]
            else:
                path.pop()
                if low[v] == index[v]:
                    while True:
                        w = stack.pop()
                        comp[w] = ncomp
                        if w == v:
                            break
                    ncomp += 1
                if path:
                    u = path[-1][0]
                    if low[v] < low[u]:
                        low[u] = low[v]
    return comp
