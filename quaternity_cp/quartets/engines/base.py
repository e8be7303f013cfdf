"""The engine interface: every engine answers the same questions about a :class:`Constraints`.

An engine is exact: ``analyze`` returns, over all deals consistent with the
constraints, whether one exists, every card's possible owners and every set's
possible quartet holders. Everything else (forced cards, forced quartets, legal
answers) is derived from that in :class:`Analysis`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..constraints import Constraints, bits


@dataclass(frozen=True)
class Analysis:
    """The exact facts of a constraint state.

    ``owners[c]``: mask of seats holding card c in some consistent deal (0 for
    cards not in play, or when no deal exists). ``quartets[s]``: mask of seats
    holding all of set s in some consistent deal (0 for claimed sets).
    """

    feasible: bool
    owners: tuple[int, ...]
    quartets: tuple[int, ...]

    def forced_owner(self, card: int) -> int | None:
        """The seat holding ``card`` in every consistent deal, or None."""
        m = self.owners[card]
        if m and not m & (m - 1):
            return m.bit_length() - 1
        return None

    def forced_quartets(self, constraints: Constraints) -> dict[int, int]:
        """Sets whose cards are all with one seat in every consistent deal: set -> seat."""
        out: dict[int, int] = {}
        if not self.feasible:
            return out
        S = constraints.set_size
        owners = self.owners
        for s in constraints.sets_in_play:
            base = s * S
            first = owners[base]
            if not first or first & (first - 1):
                continue  # the first card has no single owner
            if owners[base:base + S].count(first) == S:
                out[s] = first.bit_length() - 1
        return out

    def possible_owners(self, card: int) -> list[int]:
        return list(bits(self.owners[card]))

    def possible_quartets(self, s: int) -> list[int]:
        return list(bits(self.quartets[s]))


@runtime_checkable
class Engine(Protocol):
    """What every engine implements. Every answer depends on the constraints alone; an engine may
    keep a starting point between calls (the flow engine keeps its last deal), never a result."""

    name: str

    def feasible(self, constraints: Constraints) -> bool:
        """Whether at least one consistent deal exists."""

    def analyze(self, constraints: Constraints) -> Analysis:
        """Feasibility, possible owners of every card and possible quartets of every set."""


def infeasible_analysis(constraints: Constraints) -> Analysis:
    n = len(constraints.domains)
    return Analysis(False, (0,) * n, (0,) * constraints.sets)


def quartet_candidates(constraints: Constraints) -> list[tuple[int, int]]:
    """(seat, set) pairs that local counting does not rule out as a possible quartet."""
    S = constraints.set_size
    out = []
    for s in constraints.sets_in_play:
        common = -1
        for c in constraints.cards_of(s):
            common &= constraints.domains[c]
        for p in bits(common):
            if constraints.hi[p][s] < S or constraints.hands[p] < S:
                continue
            if any(constraints.lo[q][s] > 0 for q in range(constraints.players) if q != p):
                continue
            rest = sum(constraints.lo[p][t] for t in constraints.sets_in_play if t != s)
            if rest + S > constraints.hands[p]:
                continue
            out.append((p, s))
    return out
