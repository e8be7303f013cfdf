"""The brute-force engine: enumerate every consistent deal. The reference the other engines are tested against.

A deal gives every card in play one seat of its domain; it is consistent when
every hand gets exactly its size and every seat holds between ``lo`` and ``hi``
cards of every set in play. Negative bounds describe no position, so they
leave no deal (as in every engine).

The search places the cards set by set; a branch is cut when a hand is full, an
upper bound is reached, a hand can no longer be filled, or a set is complete
below a lower bound. Every complete deal is still visited, and each placement
that leads to one is recorded, so owners and quartets come straight from deals.
"""

from __future__ import annotations

import sys
from math import factorial, prod

from ..constraints import Constraints
from ...errors import QuaternityError
from .base import Analysis, infeasible_analysis

#: Positions with more candidate deals than this are refused.
LIMIT = 2_000_000


class BruteForceEngine:
    """Exact analysis by enumerating every deal (small positions only)."""

    name = "brute"

    def __init__(self, limit: int = LIMIT):
        self.limit = limit

    def feasible(self, c: Constraints) -> bool:
        return _enumerate(c, self.limit, first_only=True).feasible

    def analyze(self, c: Constraints) -> Analysis:
        return _enumerate(c, self.limit, first_only=False)


def candidate_deals(c: Constraints) -> int:
    """An upper bound on the deals to enumerate: hands filled in any way, each card within its domain."""
    cards = c.cards_in_play
    hands_bound = factorial(len(cards)) // prod(factorial(max(h, 0)) for h in c.hands)
    domain_bound = prod(len(_seats(c, card)) for card in cards)
    return min(hands_bound, domain_bound)


def _seats(c: Constraints, card: int) -> list[int]:
    return [p for p in range(c.players) if c.domains[card] >> p & 1]


def _enumerate(c: Constraints, limit: int, first_only: bool) -> Analysis:
    P, S = c.players, c.set_size
    live = c.sets_in_play
    cards = c.cards_in_play
    if sum(c.hands) != len(cards) or any(h < 0 for h in c.hands):
        return infeasible_analysis(c)
    if any(c.lo[p][s] < 0 or c.hi[p][s] < 0 for p in range(P) for s in live):
        return infeasible_analysis(c)
    bound = candidate_deals(c)
    if bound > limit:
        size = str(bound) if bound < 10**9 else f"about 10^{len(str(bound)) - 1}"
        raise QuaternityError(f"position too big for brute force: {size} candidate deals (limit {limit})")

    hand = list(c.hands)  # cards each seat still takes
    count = [[0] * c.sets for _ in range(P)]  # count[p][s]: cards of s placed with p
    owners = [0] * len(c.domains)
    quartets = [0] * c.sets

    # a card with one possible seat is placed up front, so the search only branches
    free = []
    for card in cards:
        seats = _seats(c, card)
        if len(seats) == 1:
            p = seats[0]
            hand[p] -= 1
            count[p][card // S] += 1
            owners[card] = 1 << p  # kept only if a deal exists
        else:
            free.append((card, seats))
    if any(h < 0 for h in hand) or any(count[p][s] > c.hi[p][s] for p in range(P) for s in live):
        return infeasible_analysis(c)
    set_done = {s: True for s in live}  # no free card left
    for card, _ in free:
        set_done[card // S] = False
    if any(count[p][s] < c.lo[p][s] for s in live if set_done[s] for p in range(P)):
        return infeasible_analysis(c)
    last = [i + 1 == len(free) or free[i + 1][0] // S != card // S for i, (card, _) in enumerate(free)]
    # room[i][p]: cards from free[i] on that p may hold (a hand must still be fillable)
    room = [[0] * P for _ in range(len(free) + 1)]
    for i in range(len(free) - 1, -1, -1):
        room[i] = list(room[i + 1])
        for p in free[i][1]:
            room[i][p] += 1

    def place(i: int) -> bool:
        """Place free[i:] in every consistent way; whether any deal completes the placement so far."""
        if i == len(free):
            return True
        card, seats = free[i]
        s = card // S
        found = False
        for p in seats:
            if hand[p] == 0 or count[p][s] >= c.hi[p][s]:
                continue
            hand[p] -= 1
            count[p][s] += 1
            ok = all(hand[q] <= room[i + 1][q] for q in range(P))
            if ok and last[i]:
                ok = all(count[q][s] >= c.lo[q][s] for q in range(P))
            if ok and place(i + 1):
                found = True
                owners[card] |= 1 << p
                if last[i] and count[p][s] == S:
                    quartets[s] |= 1 << p
            hand[p] += 1
            count[p][s] -= 1
            if found and first_only:
                break
        return found

    depth = sys.getrecursionlimit()  # one level per free card; few deals can still mean many cards
    sys.setrecursionlimit(max(depth, len(free) + 100))
    try:
        if not place(0):
            return infeasible_analysis(c)
    finally:
        sys.setrecursionlimit(depth)
    for s in live:
        if set_done[s]:
            for p in range(P):
                if count[p][s] == S:
                    quartets[s] |= 1 << p
    return Analysis(True, tuple(owners), tuple(quartets))
