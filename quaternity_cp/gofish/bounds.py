"""The exact engine of Quantum Go Fish: which tables of counts are consistent, and each cell's exact range.

A table of counts says how many cards of each suit each player holds. What is
known at a moment is a :class:`Tables`: every hand's size, every suit's size,
and a lower and an upper bound per cell (player, suit). The consistent tables
are the integer flows of the transportation network

    source --[hand p, exactly]--> player p --[lo(p, s) .. hi(p, s)]--> suit s --[suit size, exactly]--> sink

so feasibility, one consistent table, and each cell's exact minimum and maximum
are flow questions (GOFISH.md: cell-by-cell reasoning is not enough).

The flow engine (:class:`FlowEngine`, pure Python):

1. **One consistent table.** The lower bounds are taken first (each player
   holds ``lo`` of each suit); what remains is a transportation problem without
   lower bounds: the rest of each hand, the rest of each suit, capacities
   ``hi - lo``. Dinic's algorithm finds a maximum flow; the bounds admit a
   table exactly when it fills every hand. O(V^2 E) at worst with V = P + K + 2
   nodes and E = P K + P + K edges (P players, K suits), a few augmenting
   phases in practice.
2. **Each cell's range.** Two consistent tables (same row and column sums)
   differ by a circulation of the residual graph on players and suits: an arc
   player p -> suit s while ``T[p][s] < hi`` (the cell can grow), suit s ->
   player p while ``T[p][s] > lo`` (it can shrink). So cell (p, s) can grow by
   exactly the maximum flow from s back to p that avoids the cell itself
   (capped at ``hi - T[p][s]``), and shrink by the maximum flow from p to s
   avoiding it (capped at ``T[p][s] - lo``). A cell whose ends lie in different
   strongly connected components of the residual graph is fixed with no flow
   at all; the others take one breadth-first search per unit moved, at most
   ``suit size`` per direction. Cost: V searches for the components, then at
   most 2 P K (S + 1) searches of O(P K) each: O((P K)^2 S) at worst, no full
   re-solve.
3. **Determined.** Exactly one table is consistent iff every cell's minimum
   equals its maximum (one table: each cell has one value; every cell fixed:
   every consistent table is the table of the minima). So it is read off the
   ranges.

:class:`CpSatEngine` answers the same questions with OR-Tools CP-SAT (one model,
a minimisation and a maximisation per cell): the cross-check the tests compare
the flow engine with. OR-Tools is imported inside it only.

:func:`count_tables` counts the consistent tables exactly, by dynamic
programming over players (the state: how many cards of each suit are still to
be dealt), within a budget of states checked while it runs.

>>> t = Tables.initial(players=3, suits=3, suit_size=4)
>>> count_tables(t)
120
>>> b = FlowEngine().bounds(t.bounded(0, 0, low=4))
>>> b.low[0], b.high[1]
((4, 0, 0), (0, 4, 4))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Protocol, Sequence, runtime_checkable

from ..budget import Limits
from .rules import GoFishError

Grid = tuple[tuple[int, ...], ...]


class CountLimitError(GoFishError):
    """A count stopped at its budget; ``reason`` is ``"states"`` or ``"time"``."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


def _grid(rows: Sequence[Sequence[int]]) -> Grid:
    return tuple(tuple(row) for row in rows)


@dataclass(frozen=True)
class Tables:
    """The tables of counts with these hand sizes (row sums), suit sizes (column sums) and per-cell bounds
    ``low[p][s] <= T[p][s] <= high[p][s]``. Bounds may contradict each other (then no table is consistent)."""

    hands: tuple[int, ...]
    suit_sizes: tuple[int, ...]
    low: Grid
    high: Grid

    def __post_init__(self) -> None:
        P, K = len(self.hands), len(self.suit_sizes)
        if len(self.low) != P or len(self.high) != P or any(len(r) != K for r in self.low + self.high):
            raise GoFishError(f"bounds must be {P} rows of {K} cells")

    @classmethod
    def initial(cls, players: int, suits: int, suit_size: int, cap: int | None = None) -> Tables:
        """Every table of a fresh deal (``cap``: the most cards of one suit a hand may start with)."""
        hand = suits * suit_size // players
        top = suit_size if cap is None else cap
        return cls((hand,) * players, (suit_size,) * suits, ((0,) * suits,) * players, ((top,) * suits,) * players)

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def suits(self) -> int:
        return len(self.suit_sizes)

    def bounded(self, player: int, suit: int, low: int | None = None, high: int | None = None) -> Tables:
        """These tables, with cell (player, suit) also at least ``low`` and at most ``high``."""
        lo = [list(r) for r in self.low]
        hi = [list(r) for r in self.high]
        if low is not None:
            lo[player][suit] = max(lo[player][suit], low)
        if high is not None:
            hi[player][suit] = min(hi[player][suit], high)
        return Tables(self.hands, self.suit_sizes, _grid(lo), _grid(hi))

    def capped_row(self, player: int, high: int) -> Tables:
        """These tables, with every cell of ``player``'s row at most ``high``."""
        hi = [list(r) for r in self.high]
        hi[player] = [min(v, high) for v in hi[player]]
        return Tables(self.hands, self.suit_sizes, self.low, _grid(hi))

    def admits(self, table: Sequence[Sequence[int]]) -> bool:
        """Whether ``table`` is one of these tables."""
        P, K = self.players, self.suits
        if len(table) != P or any(len(r) != K for r in table):
            return False
        if any(sum(table[p]) != self.hands[p] for p in range(P)):
            return False
        if any(sum(table[p][s] for p in range(P)) != self.suit_sizes[s] for s in range(K)):
            return False
        return all(self.low[p][s] <= table[p][s] <= self.high[p][s] for p in range(P) for s in range(K))


@dataclass(frozen=True)
class Bounds:
    """The exact facts of a :class:`Tables`: whether a table is consistent, one such ``example``, and each
    cell's exact minimum ``low`` and maximum ``high`` over them (empty when none is consistent)."""

    feasible: bool
    low: Grid
    high: Grid
    example: Grid

    @property
    def determined(self) -> bool:
        """Exactly one table is consistent (every cell's minimum equals its maximum)."""
        return self.feasible and self.low == self.high


INFEASIBLE = Bounds(False, (), (), ())


@runtime_checkable
class BoundsEngine(Protocol):
    """What every exact engine of the package answers, each from the :class:`Tables` alone."""

    name: str

    def feasible(self, tables: Tables) -> bool:
        """Whether some table is consistent."""

    def bounds(self, tables: Tables) -> Bounds:
        """Feasibility, one consistent table, and every cell's exact range."""


# -- the flow engine -----------------------------------------------------------------------------------------
class _Network:
    """A flow network for Dinic's algorithm: edge i and its reverse i ^ 1."""

    __slots__ = ("adj", "to", "cap", "level", "next")

    def __init__(self, nodes: int):
        self.adj: list[list[int]] = [[] for _ in range(nodes)]
        self.to: list[int] = []
        self.cap: list[int] = []
        self.level: list[int] = []
        self.next: list[int] = []

    def add(self, u: int, v: int, capacity: int) -> int:
        e = len(self.to)
        self.adj[u].append(e)
        self.to.append(v)
        self.cap.append(capacity)
        self.adj[v].append(e + 1)
        self.to.append(u)
        self.cap.append(0)
        return e

    def _levels(self, s: int, t: int) -> bool:
        level = [-1] * len(self.adj)
        level[s] = 0
        queue = [s]
        for u in queue:
            for e in self.adj[u]:
                v = self.to[e]
                if self.cap[e] > 0 and level[v] < 0:
                    level[v] = level[u] + 1
                    queue.append(v)
        self.level = level
        return level[t] >= 0

    def _push(self, u: int, t: int, amount: int) -> int:
        if u == t:
            return amount
        adj, to, cap, level = self.adj[u], self.to, self.cap, self.level
        while self.next[u] < len(adj):
            e = adj[self.next[u]]
            v = to[e]
            if cap[e] > 0 and level[v] == level[u] + 1:
                pushed = self._push(v, t, min(amount, cap[e]))
                if pushed:
                    cap[e] -= pushed
                    cap[e ^ 1] += pushed
                    return pushed
            self.next[u] += 1
        return 0

    def max_flow(self, s: int, t: int) -> int:
        flow = 0
        while self._levels(s, t):
            self.next = [0] * len(self.adj)
            while True:
                pushed = self._push(s, t, 1 << 60)
                if not pushed:
                    break
                flow += pushed
        return flow


def consistent_table(tables: Tables) -> Grid | None:
    """One consistent table (a maximum flow over the lower bounds), or None when there is none."""
    P, K = tables.players, tables.suits
    lo = [[max(v, 0) for v in row] for row in tables.low]
    hi = tables.high
    if any(lo[p][s] > hi[p][s] for p in range(P) for s in range(K)):
        return None
    rows = [tables.hands[p] - sum(lo[p]) for p in range(P)]
    cols = [tables.suit_sizes[s] - sum(lo[p][s] for p in range(P)) for s in range(K)]
    if min(rows, default=0) < 0 or min(cols, default=0) < 0 or sum(rows) != sum(cols):
        return None
    source, sink = P + K, P + K + 1
    net = _Network(P + K + 2)
    for p in range(P):
        net.add(source, p, rows[p])
    for s in range(K):
        net.add(P + s, sink, cols[s])
    cell = [[net.add(p, P + s, hi[p][s] - lo[p][s]) for s in range(K)] for p in range(P)]
    if net.max_flow(source, sink) != sum(rows):
        return None
    return _grid([[lo[p][s] + net.cap[cell[p][s] ^ 1] for s in range(K)] for p in range(P)])


def _reach(up: list[list[int]], down: list[list[int]], P: int, K: int) -> list[int]:
    """Per node (players 0..P-1, suits P..P+K-1) the mask of nodes its residual paths reach."""
    out = []
    for start in range(P + K):
        seen = 1 << start
        queue = [start]
        for u in queue:
            if u < P:
                row = up[u]
                for s in range(K):
                    if row[s] > 0 and not seen >> (P + s) & 1:
                        seen |= 1 << (P + s)
                        queue.append(P + s)
            else:
                s = u - P
                for p in range(P):
                    if down[p][s] > 0 and not seen >> p & 1:
                        seen |= 1 << p
                        queue.append(p)
        out.append(seen)
    return out


def _move(up: list[list[int]], down: list[list[int]], P: int, K: int, start: int, goal: int,
          cell: tuple[int, int], limit: int) -> int:
    """The most flow (at most ``limit``) from node ``start`` to node ``goal`` of the residual graph without
    ``cell``'s arcs: how far the cell can move. Changes ``up`` and ``down`` (callers pass copies)."""
    moved = 0
    while moved < limit:
        parent = [-1] * (P + K)
        parent[start] = start
        queue = [start]
        for u in queue:
            if u < P:
                row = up[u]
                for s in range(K):
                    if row[s] > 0 and parent[P + s] < 0 and (u, s) != cell:
                        parent[P + s] = u
                        queue.append(P + s)
            else:
                s = u - P
                for p in range(P):
                    if down[p][s] > 0 and parent[p] < 0 and (p, s) != cell:
                        parent[p] = u
                        queue.append(p)
            if parent[goal] >= 0:
                break
        if parent[goal] < 0:
            return moved
        path = []
        v = goal
        while v != start:
            path.append((parent[v], v))
            v = parent[v]
        amount = limit - moved
        for u, v in path:
            amount = min(amount, up[u][v - P] if u < P else down[v][u - P])
        for u, v in path:
            if u < P:
                up[u][v - P] -= amount
                down[u][v - P] += amount
            else:
                down[v][u - P] -= amount
                up[v][u - P] += amount
        moved += amount
    return moved


def ranges(tables: Tables, table: Grid) -> tuple[Grid, Grid]:
    """Every cell's exact (minimum, maximum) over the tables, from one consistent ``table``."""
    P, K = tables.players, tables.suits
    up = [[min(tables.high[p][s], tables.suit_sizes[s]) - table[p][s] for s in range(K)] for p in range(P)]
    down = [[table[p][s] - max(tables.low[p][s], 0) for s in range(K)] for p in range(P)]
    reach = _reach(up, down, P, K)
    low = [list(r) for r in table]
    high = [list(r) for r in table]
    for p in range(P):
        for s in range(K):
            linked = reach[p] >> (P + s) & 1 and reach[P + s] >> p & 1
            if not linked:
                continue  # no residual cycle passes through the cell: it is fixed
            if up[p][s] > 0:
                high[p][s] += _move([r[:] for r in up], [r[:] for r in down], P, K, P + s, p, (p, s), up[p][s])
            if down[p][s] > 0:
                low[p][s] -= _move([r[:] for r in up], [r[:] for r in down], P, K, p, P + s, (p, s), down[p][s])
    return _grid(low), _grid(high)


def cell_range(tables: Tables, table: Grid, p: int, s: int) -> tuple[int, int]:
    """One cell's exact (minimum, maximum) over the tables, from one consistent ``table``: what
    :func:`ranges` gives for that cell, without the others'."""
    P, K = tables.players, tables.suits
    up = [[min(tables.high[q][t], tables.suit_sizes[t]) - table[q][t] for t in range(K)] for q in range(P)]
    down = [[table[q][t] - max(tables.low[q][t], 0) for t in range(K)] for q in range(P)]
    low = high = table[p][s]
    if up[p][s] > 0:
        high += _move([r[:] for r in up], [r[:] for r in down], P, K, P + s, p, (p, s), up[p][s])
    if down[p][s] > 0:
        low -= _move(up, down, P, K, p, P + s, (p, s), down[p][s])
    return low, high


class FlowEngine:
    """Exact answers from one maximum flow and its residual graph (pure Python; see the module's text)."""

    name = "flow"

    def feasible(self, tables: Tables) -> bool:
        return consistent_table(tables) is not None

    def cell(self, tables: Tables, p: int, s: int) -> tuple[int, int] | None:
        """Cell (p, s)'s exact (minimum, maximum) over the consistent tables (None: none is consistent): one
        flow and at most two augmentations, where :meth:`bounds` finds every cell's."""
        table = consistent_table(tables)
        return None if table is None else cell_range(tables, table, p, s)

    def bounds(self, tables: Tables) -> Bounds:
        table = consistent_table(tables)
        if table is None:
            return INFEASIBLE
        low, high = ranges(tables, table)
        return Bounds(True, low, high, table)


# -- the CP-SAT cross-check ----------------------------------------------------------------------------------
class CpSatEngine:
    """The same answers from OR-Tools CP-SAT: one model, then a minimisation and a maximisation per cell
    (slow; the tests' authority for the flow engine). One worker and a fixed seed: reproducible."""

    name = "cpsat"

    def _model(self, tables: Tables) -> tuple[object, list[list[object]]] | None:
        from ..imports import cp_model as _load_cp_model
        _load_cp_model()  # the first import is slow: Ctrl-C held back meanwhile
        from ortools.sat.python import cp_model

        P, K = tables.players, tables.suits
        model = cp_model.CpModel()
        cells = []
        for p in range(P):
            row = []
            for s in range(K):
                lo, hi = max(tables.low[p][s], 0), min(tables.high[p][s], tables.suit_sizes[s])
                if lo > hi:
                    return None
                row.append(model.new_int_var(lo, hi, f"t{p}_{s}"))
            cells.append(row)
        for p in range(P):
            model.add(sum(cells[p]) == tables.hands[p])
        for s in range(K):
            model.add(sum(cells[p][s] for p in range(P)) == tables.suit_sizes[s])
        return model, cells  # type: ignore[return-value]

    @staticmethod
    def _solve(model: object) -> tuple[bool, object]:
        from ..imports import cp_model as _load_cp_model
        _load_cp_model()  # the first import is slow: Ctrl-C held back meanwhile
        from ortools.sat.python import cp_model

        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = 0
        solver.parameters.catch_sigint_signal = False
        status = solver.solve(model)  # type: ignore[arg-type]
        return status in (cp_model.OPTIMAL, cp_model.FEASIBLE), solver

    def feasible(self, tables: Tables) -> bool:
        built = self._model(tables)
        return built is not None and self._solve(built[0])[0]

    def bounds(self, tables: Tables) -> Bounds:
        from ..imports import cp_model as _load_cp_model
        _load_cp_model()  # the first import is slow: Ctrl-C held back meanwhile
        from ortools.sat.python import cp_model

        built = self._model(tables)
        if built is None:
            return INFEASIBLE
        model, cells = built
        assert isinstance(model, cp_model.CpModel)
        ok, solver = self._solve(model)
        if not ok:
            return INFEASIBLE
        assert isinstance(solver, cp_model.CpSolver)
        example = _grid([[int(solver.value(v)) for v in row] for row in cells])  # type: ignore[arg-type]
        low, high = [list(r) for r in example], [list(r) for r in example]
        for p, row in enumerate(cells):
            for s, var in enumerate(row):
                for sense, out in ((1, low), (-1, high)):
                    model.minimize(sense * var)  # type: ignore[operator]
                    done, solved = self._solve(model)
                    assert done and isinstance(solved, cp_model.CpSolver)
                    out[p][s] = int(solved.value(var))  # type: ignore[arg-type]
        return Bounds(True, _grid(low), _grid(high), example)


# -- counting ------------------------------------------------------------------------------------------------
#: states a count holds at most when no limit is given
DEFAULT_MAX_STATES = 2_000_000


def _rows(need: int, lo: Sequence[int], hi: Sequence[int], left: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every row with ``need`` cards, ``lo <= row <= min(hi, left)`` cell by cell."""
    K = len(lo)
    top = [min(hi[s], left[s]) for s in range(K)]
    room = [0] * (K + 1)  # room[s]: the most cards suits s.. can still take
    least = [0] * (K + 1)
    for s in range(K - 1, -1, -1):
        room[s] = room[s + 1] + max(top[s], 0)
        least[s] = least[s + 1] + lo[s]
    row = [0] * K

    def fill(s: int, rest: int) -> Iterator[tuple[int, ...]]:
        if s == K:
            if rest == 0:
                yield tuple(row)
            return
        for v in range(max(lo[s], rest - room[s + 1]), min(top[s], rest - least[s + 1]) + 1):
            row[s] = v
            yield from fill(s + 1, rest - v)

    return fill(0, need)


def count_tables(tables: Tables, limits: Limits | None = None) -> int:
    """The number of consistent tables, exactly: a dynamic programme over players whose state is what is
    left of every suit. ``limits.max_states`` (or, when not given, ``max_positions``) caps the states held
    at once (default :data:`DEFAULT_MAX_STATES`), ``limits.max_seconds`` the time; past either,
    :class:`CountLimitError`."""
    limits = limits if limits is not None else Limits(max_states=DEFAULT_MAX_STATES)
    budget = limits.start()
    cap = limits.max_states if limits.max_states is not None else limits.max_positions
    P, K = tables.players, tables.suits
    lo = [[max(v, 0) for v in row] for row in tables.low]
    hi = [[min(tables.high[p][s], tables.suit_sizes[s]) for s in range(K)] for p in range(P)]
    # what the players after p can still take of each suit, at least and at most
    after_lo = [[sum(lo[q][s] for q in range(p + 1, P)) for s in range(K)] for p in range(P)]
    after_hi = [[sum(hi[q][s] for q in range(p + 1, P)) for s in range(K)] for p in range(P)]
    layer: dict[tuple[int, ...], int] = {tuple(tables.suit_sizes): 1}
    work = 0
    for p in range(P):
        nxt: dict[tuple[int, ...], int] = {}
        for left, ways in layer.items():
            for row in _rows(tables.hands[p], lo[p], hi[p], left):
                rest = tuple(left[s] - row[s] for s in range(K))
                if any(rest[s] < after_lo[p][s] or rest[s] > after_hi[p][s] for s in range(K)):
                    continue
                if rest in nxt:
                    nxt[rest] += ways
                else:
                    if cap is not None and len(nxt) >= cap:
                        raise CountLimitError("states", f"counting needs more than {cap:,} states")
                    nxt[rest] = ways
                work += 1
                if not work & 4095 and budget.expired():
                    raise CountLimitError("time", f"counting takes more than {limits.max_seconds} seconds")
        layer = nxt
    return layer.get((0,) * K, 0)


def holds_a_whole_suit(engine: BoundsEngine, tables: Tables, player: int) -> bool:
    """Whether ``player`` holds every card of some suit (not always the same one) in every consistent table:
    no table keeps each of its cells below its suit's size. False when no table is consistent."""
    if not engine.feasible(tables):
        return False
    top = min(tables.suit_sizes) - 1
    if len(set(tables.suit_sizes)) != 1:
        raise GoFishError("holds_a_whole_suit needs suits of one size")
    return not engine.feasible(tables.capped_row(player, top))


#: the flow network of Dinic's algorithm (for the explainer's minimum cuts), and the rows a count tries
FlowNetwork = _Network
row_choices = _rows

#: the exact engines by the name ``--engine`` takes (the first is the default; the same answers, CP-SAT far slower)
ENGINES: dict[str, type[FlowEngine] | type[CpSatEngine]] = {"flow": FlowEngine, "cpsat": CpSatEngine}


def engine_named(name: str | None) -> BoundsEngine:
    """The exact engine called ``name`` (None: the default, flow); another name raises
    :class:`~quaternity_cp.gofish.rules.GoFishRulesError` naming the engines.

    >>> engine_named("cpsat").name, engine_named(None).name
    ('cpsat', 'flow')
    """
    from .rules import GoFishRulesError

    if name is None:
        return FlowEngine()
    if name not in ENGINES:
        raise GoFishRulesError(f"Go Fish has no engine {name!r} (its engines: {', '.join(ENGINES)})")
    return ENGINES[name]()


__all__ = ["Tables", "Bounds", "BoundsEngine", "FlowEngine", "CpSatEngine", "ENGINES", "engine_named",
           "consistent_table", "ranges", "FlowNetwork", "row_choices", "count_tables", "cell_range", "holds_a_whole_suit", "CountLimitError",
           "DEFAULT_MAX_STATES", "INFEASIBLE", "Grid"]
