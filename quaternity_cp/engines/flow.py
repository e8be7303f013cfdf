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

from functools import lru_cache

from ..constraints import Constraints, bits
from .base import Analysis, infeasible_analysis, quartet_candidates


class FlowEngine:
    """Exact analysis with one maximum flow, Régin's filtering and residual cycles (pure Python)."""

    name = "flow"

    def feasible(self, c: Constraints) -> bool:
        deal = _Deal.of(c)
        return deal is not None and deal.place()

    def analyze(self, c: Constraints) -> Analysis:
        deal = _Deal.of(c)
        if deal is None or not deal.place():
            return infeasible_analysis(c)
        owners = [0] * len(c.domains)
        quartets = [0] * c.sets
        if not deal.live:
            return Analysis(True, tuple(owners), tuple(quartets))
        S, live = deal.S, deal.live
        possible = deal.possible_owners()
        for i, m in enumerate(possible):
            owners[live[i // S] * S + i % S] = m
        local = {s: k for k, s in enumerate(live)}
        todo = []
        for p, s in quartet_candidates(c):
            k = local[s]
            common = -1
            for m in possible[k * S:(k + 1) * S]:
                common &= m
            if common >> p & 1:
                todo.append((k, p))
        for k, p in deal.quartets(todo):
            quartets[live[k]] |= 1 << p
        return Analysis(True, tuple(owners), tuple(quartets))


@lru_cache(maxsize=None)
def _seat_table(players: int):
    """mask -> tuple of its seats; a list for few players, a filling dict otherwise."""
    if players <= 12:
        return [tuple(bits(m)) for m in range(1 << players)]
    return _SeatTuples()


class _SeatTuples(dict):
    def __missing__(self, mask: int) -> tuple[int, ...]:
        seats = self[mask] = tuple(bits(mask))
        return seats


class _Deal:
    """A deal of the cards in play being built as a maximum flow, and searches in its residual graph.

    Local numbering: ``live[k]`` is the k-th set in play, its cards are ``k*S ..
    k*S+S-1``; node ``k*P + p`` is (p, live[k]) and node ``P*n + p`` is free_p.
    ``owner[i]`` is the seat card i goes to (-1: not placed yet), ``count[v]`` the
    cards at node (p, s), ``used[p]`` the free slots of p in use (a card at (p, s)
    takes a reserved slot while fewer than ``lo`` are there).
    """

    __slots__ = ("P", "S", "live", "NP", "dom", "lo", "hi", "room", "seats",
                 "owner", "count", "used", "mark", "stamp", "prev", "via")

    @classmethod
    def of(cls, c: Constraints) -> "_Deal | None":
        """The flow network of ``c``, or None when its numbers alone rule out every deal."""
        P, S = c.players, c.set_size
        live = [s for s, playing in enumerate(c.in_play) if playing]
        n = len(live)
        if sum(c.hands) != n * S or min(c.hands) < 0:
            return None
        full = (1 << P) - 1  # seats that do not exist hold nothing
        dom = []
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
        self.used = [0] * P
        self.mark = [0] * (NP + P)
        self.stamp = 0
        self.prev = [-1] * (NP + P)
        self.via = [-1] * (NP + P)
        return self

    # -- maximum flow --------------------------------------------------------------
    def place(self) -> bool:
        """Place every card (greedy, then augmenting paths); False when the maximum flow falls short."""
        P, S, NP = self.P, self.S, self.NP
        dom, lo, hi, room, seats = self.dom, self.lo, self.hi, self.room, self.seats
        owner, count, used = self.owner, self.count, self.used
        left = []
        for i, d in enumerate(dom):
            base = i // S * P
            options = seats[d]
            for p in options:  # a reserved slot first
                v = base + p
                if count[v] < lo[v]:
                    owner[i] = p
                    count[v] += 1
                    break
            else:
                for p in options:
                    v = base + p
                    if count[v] < hi[v] and used[p] < room[p]:
                        owner[i] = p
                        count[v] += 1
                        used[p] += 1
                        break
                else:
                    left.append(i)
        for i in left:
            base = i // S * P
            end = self._search([base + p for p in seats[dom[i]]], card=i)
            if end < 0:
                # no augmenting path through card i now means none later: no flow places every card
                return False
            if end >= NP:
                used[end - NP] += 1
            self._shift(end)
        return True

    def _search(self, starts: list[int], card: int = -1, goal_set: int = -1, senders: int = 0,
                exclude: int = -1) -> int:
        """Breadth-first search of the residual graph; the node where a path ends, or -1.

        ``starts`` are entered first (through ``card`` when it is >= 0, else from
        nothing). A path ends at (p, s) with a free reserved slot, at free_p with a
        free slot (neither exists once every card is placed), or at (a, live[goal_set])
        for a seat a in ``senders``. Node ``exclude`` is never entered.
        """
        P, S, NP = self.P, self.S, self.NP
        dom, lo, hi, room, seats = self.dom, self.lo, self.hi, self.room, self.seats
        owner, count, used = self.owner, self.count, self.used
        mark, prev, via = self.mark, self.prev, self.via
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
            via[w] = card
            if w < NP and (count[w] < lo[w] or (w // P == goal_set and senders >> (w % P) & 1)):
                return w
            queue.append(w)
        for v in queue:  # the queue grows while it is read
            if v < NP:
                x = v % P
                if count[v] < hi[v]:
                    f = NP + x
                    if mark[f] != stamp:
                        mark[f] = stamp
                        prev[f] = v
                        via[f] = -1
                        if used[x] < room[x]:
                            return f
                        queue.append(f)
                base = v - x
                k = v // P
                goal = senders if k == goal_set else 0
                first = k * S
                for j in range(first, first + S):
                    if owner[j] == x:
                        for y in seats[dom[j]]:
                            w = base + y
                            if mark[w] != stamp:
                                mark[w] = stamp
                                prev[w] = v
                                via[w] = j
                                if count[w] < lo[w] or goal >> y & 1:
                                    return w
                                queue.append(w)
            else:
                x = v - NP
                for w in range(x, NP, P):
                    if count[w] > lo[w] and mark[w] != stamp:
                        mark[w] = stamp
                        prev[w] = v
                        via[w] = -1
                        if w // P == goal_set and senders >> x & 1:
                            return w
                        queue.append(w)
        return -1

    def _shift(self, end: int) -> None:
        """Move every card on the path found by :meth:`_search` that ends at ``end``."""
        P = self.P
        owner, count, prev, via = self.owner, self.count, self.prev, self.via
        v = end
        while v >= 0:
            j = via[v]
            if j >= 0:
                y = v % P
                old = owner[j]
                if old >= 0:
                    count[v - y + old] -= 1
                owner[j] = y
                count[v] += 1
            v = prev[v]

    # -- possible owners -------------------------------------------------------------
    def possible_owners(self) -> list[int]:
        """Per local card, the mask of seats holding it in some deal (every card placed)."""
        P, S, NP = self.P, self.S, self.NP
        dom, lo, hi, seats, owner, count = self.dom, self.lo, self.hi, self.seats, self.owner, self.count
        reach = [0] * NP  # (a, s) -> mask of seats its cards may move to
        for i, a in enumerate(owner):
            reach[i // S * P + a] |= dom[i]
        adj = []
        for v in range(NP):
            x = v % P
            base = v - x
            row = [base + y for y in seats[reach[v] & ~(1 << x)]]
            if count[v] < hi[v]:
                row.append(NP + x)
            adj.append(row)
        for x in range(P):
            adj.append([w for w in range(x, NP, P) if count[w] > lo[w]])
        comp = _components(adj)
        out = []
        for i, a in enumerate(owner):
            base = i // S * P
            here = comp[base + a]
            m = 1 << a
            for y in seats[dom[i] & ~m]:
                if comp[base + y] == here:
                    m |= 1 << y
            out.append(m)
        return out

    # -- possible quartets -------------------------------------------------------------
    def quartets(self, candidates: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The (local set, seat) candidates that some deal gives the whole set to the seat.

        Each search starts from the deal placed first and restores it; a deal
        found on the way also settles the candidates it shows.
        """
        P, S, NP = self.P, self.S, self.NP
        dom = self.dom
        found = set()
        saved_owner, saved_count = self.owner, self.count
        for k, p in candidates:
            if (k, p) in found:
                continue
            target = k * P + p
            if saved_count[target] == S:
                found.add((k, p))
                continue
            owner = self.owner = saved_owner[:]
            count = self.count = saved_count[:]
            first = k * S
            bit = 1 << p
            while count[target] < S:
                senders = 0
                for j in range(first, first + S):
                    if dom[j] & bit:
                        senders |= 1 << owner[j]
                senders &= ~bit
                # cycle: card c of s -> (p, s) -> free_p ~> (a, s) -> c, with (p, s) not on the way back;
                # (p, s) -> free_p is residual as count < S = hi for a candidate
                end = self._search([NP + p], goal_set=k, senders=senders, exclude=target)
                if end < 0:
                    break
                a = end % P
                for j in range(first, first + S):
                    if owner[j] == a and dom[j] & bit:
                        break
                owner[j] = p
                count[end] -= 1
                count[target] += 1
                self._shift(end)
            else:
                for kk, pp in candidates:
                    if count[kk * P + pp] == S:
                        found.add((kk, pp))
        self.owner, self.count = saved_owner, saved_count
        return [kp for kp in candidates if kp in found]


def _components(adj: list[list[int]]) -> list[int]:
    """Strongly connected components (iterative Tarjan): a component number per node."""
    n = len(adj)
    index = [-1] * n
    low = [0] * n
    comp = [-1] * n
    stack = []
    counter = 0
    ncomp = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        path = [root]
        pos = [0]
        while path:
            v = path[-1]
            row = adj[v]
            i = pos[-1]
            if i < len(row):
                pos[-1] = i + 1
                w = row[i]
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    path.append(w)
                    pos.append(0)
                elif comp[w] < 0 and index[w] < low[v]:  # w still on the stack
                    low[v] = index[w]
                continue
            path.pop()
            pos.pop()
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    comp[w] = ncomp
                    if w == v:
                        break
                ncomp += 1
            if path:
                u = path[-1]
                if low[v] < low[u]:
                    low[u] = low[v]
    return comp
