"""The solved starts of Quantum Go Fish: who can force a win from the first question, under which rules.

A *start* is a new game of ``players`` players with as many suits of
``suit_size`` cards (GOFISH.md's default shape), under the default rules or
one option changed. :func:`solve_starts` builds the game graph of each start
once (:func:`~quaternity_cp.gofish.solver.build_graph`: positions canonical
under suit relabelling, cycles resolved exactly by the attractor) and asks, for
every seat, whether it can force a win against all the others together, in
how many plies, and with which first move.

**What the sizes count** (``positions``, ``edges``; the same in ``quaternity
gofish starts --json``, where :data:`SIZES_DEFINITION` says it): a position
is what the rules read of a game so far, the set of tables of counts
consistent with it (equivalently every cell's exact range and the hands),
whose turn it is, and the open question if any, with the suits relabelled
(two positions that differ only by the suits' names are one). Three kinds:
*asking* (a seat to ask), *open* (a question asked, not answered) and *over*
(a game over: one node per winner, nobody included, whatever the tables).
Players are not rotated. ``edges`` are the moves: each position's distinct
successors (two plies leading to positions that differ only by the suits'
names, or to games over with the same winner, are one). Nothing reachable is
left out: the counts are the brute-force game graph's (tests/gofish_reference.py)
with those symmetries merged, checked in tests/test_gofish_sizes.py.

The options that can change an answer (:data:`VARIANTS`) are those that change
the moves or the wins: ``priority``, ``four``, ``ask_void``, ``win_after_ask``,
``after_yes`` and ``no_initial_four``. ``first`` only renames the seats and
``repetition = draw`` cannot change a forced win from a fresh start (an
attractor strategy never repeats a position); ``invalid`` concerns records only.

>>> [row.winners for row in solve_starts(2, [{}])]
[[]]
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..budget import Limits
from .game import GoFish
from .solver import ForceResult, GameGraph, attractor, build_graph

#: The rule sets of the table: the defaults, then one option changed at a time.
VARIANTS: tuple[Mapping[str, Any], ...] = (
    {},
    {"priority": "four-first"},
    {"four": "some"},
    {"four": "off"},
    {"ask_void": "forbid"},
    {"win_after_ask": True},
    {"after_yes": "again"},
    {"no_initial_four": True},
)


#: What the sizes of a row of the Python solver count (the ``sizes_definition`` of ``gofish starts --json``).
SIZES_DEFINITION = (
    "positions = asking_positions + open_positions + over_positions, every one reachable from the start, suits "
    "relabelled (positions that differ only by the suits' names are one), players not rotated; a position is the set "
    "of tables of counts consistent with the game so far, whose turn it is and the open question: asking_positions "
    "have a seat to ask, open_positions a question asked and not answered, over_positions are the games over, one "
    "per winner (nobody included); edges (the moves) = each position's distinct successors (two plies to positions "
    "that differ only by the suits' names, or to games over with the same winner, are one)")


@dataclass(frozen=True)
class SolvedStart:
    """One start solved: its shape and rules, the graph's size (``positions``: ``asking`` + ``open`` + ``over``,
    see the module's docstring), and per seat the solver's result."""

    players: int
    suit_size: int
    rules: Mapping[str, Any]
    positions: int
    edges: int
    seconds: float
    results: Mapping[int, ForceResult]
    asking: int | None = None
    open: int | None = None
    over: int | None = None

    @property
    def winners(self) -> list[int]:
        """The seats that can force a win (at most one can: two forced wins would meet in one game)."""
        return [seat for seat, result in self.results.items() if result.wins]

    def to_json(self, game: GoFish | None = None) -> dict[str, Any]:
        """The row as JSON: shape, rules, graph size, and per seat ``wins``, ``plies`` and the first move."""
        seats: dict[str, Any] = {}
        for seat, result in self.results.items():
            entry: dict[str, Any] = {"wins": result.wins, "plies": result.plies}
            if result.wins and game is not None:
                move = result.move(game)
                entry["first_move"] = None if move is None else game.move_text(move)
            seats[str(seat)] = entry
        return {"players": self.players, "suits": self.players, "suit_size": self.suit_size,
                "rules": dict(self.rules), "positions": self.positions, "edges": self.edges,
                "seconds": round(self.seconds, 2), "winners": self.winners, "seats": seats,
                "asking_positions": self.asking, "open_positions": self.open, "over_positions": self.over,
                "players_rotated": False, "suits_relabelled": True, "sizes_definition": SIZES_DEFINITION}


def solve_start_rules(players: int, rules: Mapping[str, Any], *, suit_size: int = 4,
                      limits: Limits | None = None) -> tuple[SolvedStart, GoFish]:
    """The start of ``players`` players (as many suits, ``suit_size`` cards each) under ``rules``, solved
    for every seat within ``limits`` (past them :class:`~quaternity_cp.gofish.solver.SolverLimitError`)."""
    began = time.perf_counter()
    game = GoFish(players, players, suit_size, dict(rules) or None)
    graph = build_graph(game, limits)
    results = {seat: attractor(graph, seat) for seat in range(players)}
    kinds = graph_kinds(graph)
    row = SolvedStart(players, suit_size, dict(rules), graph.size, graph.edges, time.perf_counter() - began,
                      results, kinds["asking"], kinds["open"], kinds["over"])
    return row, game


def graph_kinds(graph: GameGraph) -> dict[str, int]:
    """How many of ``graph``'s positions are asking positions, open questions and games over (they add up to
    ``graph.size``; see the module's docstring)."""
    over = sum(1 for key in graph.keys if key[0] == "end")
    asking = sum(1 for key in graph.keys if key[0] != "end" and key[1] is None)
    return {"asking": asking, "open": graph.size - over - asking, "over": over}


def solve_starts(players: int, variants: Sequence[Mapping[str, Any]] = VARIANTS, *, suit_size: int = 4,
                 limits: Limits | None = None) -> list[SolvedStart]:
    """:func:`solve_start_rules` for each rule set of ``variants``, in order."""
    return [solve_start_rules(players, rules, suit_size=suit_size, limits=limits)[0] for rules in variants]


__all__ = ["VARIANTS", "SIZES_DEFINITION", "SolvedStart", "solve_start_rules", "solve_starts", "graph_kinds"]
