"""How many consistent tables of counts there are, and how each cell is spread over them (``gofish count``).

The consistent tables are counted by two dynamic programmes over the players
(the state: how many cards of each suit are still to be dealt): ``ahead[p]``
counts the ways to fill the rows of players 0..p-1 leaving a state, ``behind[p]``
the ways to fill the rows p..P-1 from a state to nothing. A row r of player p
from state L then lies in ``ahead[p][L] * behind[p + 1][L - r]`` tables, so
every cell's distribution (how many tables give it 0, 1, 2, ... cards) comes
from one pass over the rows, nothing enumerated.

Within :class:`~quaternity_cp.budget.Limits`: ``max_states`` (or, when not
given, ``max_positions``) caps the states one layer holds, ``max_seconds`` the
time, both checked while it runs; past either,
:class:`~quaternity_cp.gofish.bounds.CountLimitError`.

>>> from .bounds import Tables
>>> total, cells = distributions(Tables.initial(2, 2, 2))
>>> total, cells[0][0]
(3, {0: 1, 1: 1, 2: 1})
"""

from __future__ import annotations

from typing import Iterator

from ..budget import Budget, Limits
from .bounds import DEFAULT_MAX_STATES, CountLimitError, Tables, row_choices

State = tuple[int, ...]


def _cap(limits: Limits) -> int | None:
    return limits.max_states if limits.max_states is not None else limits.max_positions


class _Work:
    def __init__(self, limits: Limits):
        self.limits = limits
        self.budget: Budget = limits.start()
        self.cap = _cap(limits)
        self.done = 0

    def tick(self) -> None:
        self.done += 1
        if not self.done & 4095 and self.budget.expired():
            raise CountLimitError("time", f"counting takes more than {self.limits.max_seconds} seconds")

    def room(self, layer: dict[State, int]) -> None:
        if self.cap is not None and len(layer) >= self.cap:
            raise CountLimitError("states", f"counting needs more than {self.cap:,} states")


def _clean(tables: Tables) -> tuple[list[list[int]], list[list[int]]]:
    P, K = tables.players, tables.suits
    lo = [[max(v, 0) for v in row] for row in tables.low]
    hi = [[min(tables.high[p][s], tables.suit_sizes[s]) for s in range(K)] for p in range(P)]
    return lo, hi


def _row_options(tables: Tables, lo: list[list[int]], hi: list[list[int]], p: int,
                 left: State) -> Iterator[tuple[int, ...]]:
    return row_choices(tables.hands[p], lo[p], hi[p], left)


def distributions(tables: Tables, limits: Limits | None = None) -> tuple[int, list[list[dict[int, int]]]]:
    """The number of consistent tables and, per cell ``[player][suit]``, ``{value: tables with that value}``
    (values held by no table left out; every cell's values add up to the total). No table: ``(0, empty
    dicts)``."""
    limits = limits if limits is not None else Limits(max_states=DEFAULT_MAX_STATES)
    work = _Work(limits)
    P, K = tables.players, tables.suits
    lo, hi = _clean(tables)
    cells: list[list[dict[int, int]]] = [[{} for _ in range(K)] for _ in range(P)]
    start: State = tuple(tables.suit_sizes)
    # what the players p.. can still take of each suit, at least and at most
    tail_lo = [[sum(lo[q][s] for q in range(p, P)) for s in range(K)] for p in range(P + 1)]
    tail_hi = [[sum(hi[q][s] for q in range(p, P)) for s in range(K)] for p in range(P + 1)]

    def fits(state: State, p: int) -> bool:
        return all(tail_lo[p][s] <= state[s] <= tail_hi[p][s] for s in range(K))

    ahead: list[dict[State, int]] = [{start: 1} if fits(start, 0) else {}]
    for p in range(P):
        nxt: dict[State, int] = {}
        for left, ways in ahead[p].items():
            for row in _row_options(tables, lo, hi, p, left):
                rest = tuple(left[s] - row[s] for s in range(K))
                work.tick()
                if not fits(rest, p + 1):
                    continue
                if rest in nxt:
                    nxt[rest] += ways
                else:
                    work.room(nxt)
                    nxt[rest] = ways
        ahead.append(nxt)
    total = ahead[P].get((0,) * K, 0)
    if not total:
        return 0, cells
    behind: list[dict[State, int]] = [{} for _ in range(P + 1)]
    behind[P] = {(0,) * K: 1}
    for p in range(P - 1, -1, -1):
        here: dict[State, int] = {}
        for left in ahead[p]:
            ways = 0
            for row in _row_options(tables, lo, hi, p, left):
                work.tick()
                got = behind[p + 1].get(tuple(left[s] - row[s] for s in range(K)))
                if got:
                    ways += got
            if ways:
                here[left] = ways
        behind[p] = here
    for p in range(P):
        for left, before in ahead[p].items():
            if left not in behind[p]:
                continue
            for row in _row_options(tables, lo, hi, p, left):
                work.tick()
                after = behind[p + 1].get(tuple(left[s] - row[s] for s in range(K)))
                if not after:
                    continue
                n = before * after
                for s in range(K):
                    spread = cells[p][s]
                    spread[row[s]] = spread.get(row[s], 0) + n
    return total, cells


__all__ = ["distributions"]
