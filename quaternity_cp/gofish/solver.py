"""Can a seat force a win in Quantum Go Fish (issue 32, item 5)? An attractor over the game graph.

Play can go round forever (a yes can hand a card back), so "can seat X force a
win" is not a depth-first search but a reachability game on the graph of
positions:

- **Positions.** A position is what is known, and who acts: the exact range of
  every cell of the current table with every hand's size (equal ranges mean
  equal sets of consistent tables, so equal futures), whose turn it is, and the
  open question if any. Suits are relabelled freely (all suits have the same
  size and the rules treat them alike): a position's key lists the suits'
  columns sorted, the suit of an open question marked. Players are *not*
  relabelled: seat order decides the turns and the priority of wins, and the
  seat being solved for is fixed. Every game over is one node per winner
  (``None``: nobody, e.g. ``stuck``).
- **Plies.** An edge is one ply: a question (chosen by the player on turn) or
  an answer (chosen by the asked player, among the legal ones). Legal moves are
  exactly the core's (:class:`~quaternity_cp.gofish.game.GoFish`); a
  ``win_after_ask`` win ends the game after the question.
- **The attractor.** :func:`can_force` computes the least fixed point of the
  positions from which ``seat`` forces a game over with itself the winner:
  ``seat`` chooses at its own nodes (its questions, its answers when asked),
  every other seat chooses against it (a coalition). Ranks are exact: a node
  enters at rank r + 1 when one successor (``seat``'s node) or its last
  successor (another seat's node) entered at rank r, processed breadth first.
  The rank of the root is the number of plies to a win under optimal play on
  both sides, and the strategy (a successor of lower rank at each of ``seat``'s
  nodes in the attractor) never repeats a position.
- **Repetition = draw.** A draw ends a play that is not a win anyway, and an
  attractor strategy never repeats a position, so from a game with no earlier
  positions the verdict and the rank are those of the graph without the rule.
  The positions a game has already seen (other than the current one) are draws
  if reached again: they are sinks that are not wins, which makes the answer
  exact for any history.

The graph is built breadth first from the current state under a
:class:`~quaternity_cp.budget.Limits` (nodes and seconds, checked while it is
built); past them :class:`SolverLimitError` is raised.

>>> result = can_force(GoFish(2, 2, 2), 0)
>>> result.wins, result.plies, result.verdict
(True, 2, 'yes')
>>> [r.wins for r in solve_start(2, 2, 2).values()]
[True, False]
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

from ..budget import SOLVED, Budget, Limits, SearchResult, Status, Stopped
from .bounds import BoundsEngine
from .game import GoFish, History, Move, State
from .rules import GoFishError, Rules

#: a node's key: ("end", winner) for a game over, else (turn, asker, asked, hands, sorted suit columns)
Key = tuple[object, ...]


class SolverLimitError(GoFishError):
    """The game graph outgrew the solver's limits (``reason``: ``limit`` for nodes, ``time`` for seconds)."""

    def __init__(self, reason: str, nodes: int, limits: Limits):
        self.reason = Status(reason)
        self.nodes = nodes
        what = (f"max_positions={limits.max_positions}" if reason == "limit"
                else f"max_seconds={limits.max_seconds}")
        super().__init__(f"the game graph outgrew {what} ({nodes} positions built); raise the limit or solve a "
                         "smaller game")


def _canonical(game: GoFish, st: State) -> tuple[Key, tuple[int, ...]]:
    """The key of ``st`` (a game not over) and ``perm``: ``perm[s]`` is suit s's index among the sorted columns."""
    b = game.bounds(st)
    P, K = game.players, game.suits
    q = st.pending
    cols = [((q is not None and q.suit == s), tuple(b.low[p][s] for p in range(P)),
             tuple(b.high[p][s] for p in range(P))) for s in range(K)]
    order = sorted(range(K), key=lambda s: cols[s])
    perm = [0] * K
    for i, s in enumerate(order):
        perm[s] = i
    key: Key = (st.turn, None if q is None else q.asker, None if q is None else q.asked, game.hands(st),
                tuple(cols[s] for s in order))
    return key, tuple(perm)


def _history_key(game: GoFish, core_key: tuple[object, ...]) -> Key:
    """The node key of a position the core counted for repetitions: (turn, hands, low, high), no question open."""
    turn, hands, low, high = core_key
    assert isinstance(low, tuple) and isinstance(high, tuple)
    P, K = game.players, game.suits
    cols = sorted((False, tuple(low[p][s] for p in range(P)), tuple(high[p][s] for p in range(P))) for s in range(K))
    return (turn, None, None, hands, tuple(cols))


def _end(winner: int | None) -> Key:
    return ("end", winner)


@dataclass
class GameGraph:
    """The positions reachable from a state, with their moves.

    ``keys[i]`` is node i's key; ``owner[i]`` the seat that chooses there (None at a game over or a draw);
    ``winner[i]`` who won at a game over; ``succ[i]`` the distinct successors with one move leading to each
    (suits numbered as in the node's key: the sorted columns). Node 0 is the root.
    """

    game: GoFish
    keys: list[Key] = field(default_factory=list)
    owner: list[int | None] = field(default_factory=list)
    winner: list[int | None] = field(default_factory=list)
    succ: list[list[tuple[int, Move]]] = field(default_factory=list)
    index: dict[Key, int] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def size(self) -> int:
        """Nodes in the graph."""
        return len(self.keys)

    @property
    def edges(self) -> int:
        return sum(len(s) for s in self.succ)


def _scratch(game: GoFish) -> GoFish:
    """A game with ``game``'s setup and rules, no repetition rule (the solver handles repetitions itself)."""
    s = game.setup
    rules: Rules = replace(game.rules, repetition="none")
    players: int | Sequence[str] = list(s.players) if s.named_players else s.player_count
    suits: int | Sequence[str] = list(s.suits) if s.named_suits else s.suit_count
    engine: BoundsEngine = game.engine
    return GoFish(players, suits, s.suit_size, rules, engine)


def build_graph(game: GoFish, limits: Limits | None = None) -> GameGraph:
    """The graph of every position reachable from ``game``'s current state, breadth first, within ``limits``
    (``max_positions`` nodes, ``max_seconds``; :class:`SolverLimitError` past them). Under ``repetition =
    draw`` the positions ``game`` has seen before its current one are draws (not expanded)."""
    budget: Budget = (limits or Limits()).start()
    scratch = _scratch(game)
    graph = GameGraph(scratch)
    seen_before: set[Key] = set()
    root = game.state
    if game.rules.repetition == "draw":
        for core_key in game.seen_positions():
            if core_key != root.key:
                seen_before.add(_history_key(scratch, core_key))
    frontier: deque[tuple[int, State]] = deque()

    def node(st: State) -> tuple[int, tuple[int, ...]]:
        """The id of ``st``'s node (added, and queued to expand, when new) and its suit permutation."""
        if st.outcome is not None:
            key, perm = _end(st.outcome.winner), tuple(range(scratch.suits))
        else:
            key, perm = _canonical(scratch, st)
        got = graph.index.get(key)
        if got is not None:
            return got, perm
        try:
            budget.check_positions(len(graph.keys))
            if len(graph.keys) % 64 == 0:
                budget.check_time()
        except Stopped as stop:
            raise SolverLimitError(stop.reason, len(graph.keys), budget.limits) from None
        i = len(graph.keys)
        graph.index[key] = i
        graph.keys.append(key)
        graph.succ.append([])
        if st.outcome is not None:
            graph.owner.append(None)
            graph.winner.append(st.outcome.winner)
        elif key in seen_before:
            graph.owner.append(None)
            graph.winner.append(None)
        else:
            graph.owner.append(st.turn if st.pending is None else st.pending.asked)
            graph.winner.append(None)
            frontier.append((i, replace(st, moves=History())))
        return i, perm

    node(root)
    while frontier:
        i, st = frontier.popleft()
        _, perm = _canonical(scratch, st)
        out: dict[int, Move] = {}
        for move, child in scratch.successors(st):
            j, _ = node(child)
            out.setdefault(j, Move(move.asker, move.asked, perm[move.suit], move.answer))
        graph.succ[i] = list(out.items())
        st.cache.clear()
    graph.seconds = budget.elapsed()
    return graph


@dataclass(frozen=True)
class ForceResult(SearchResult):
    """Whether ``seat`` can force a win from the graph's root (a :class:`~quaternity_cp.budget.SearchResult`,
    the result every game's solver shares): ``wins``, ``plies`` (the root's rank: plies, questions and answers
    each one, to a win under optimal play; None when not a win), ``strategy`` (for each of ``seat``'s nodes
    in the attractor, by key, a move to a node of lower rank, suits as in the key), ``ranks`` (every
    attractor node's rank, by key), and the graph's size (``positions``). A limit reached raises
    :class:`SolverLimitError` instead, so a result is always proven; ``verdict`` is ``yes`` or ``no``."""

    seat: int
    wins: bool
    plies: int | None
    strategy: Mapping[Key, Move]
    ranks: Mapping[Key, int]
    graph_size: int
    graph_edges: int
    seconds: float
    status: Status = SOLVED

    @property
    def positions(self) -> int:  # type: ignore[override]  # SearchResult's attribute, read-only here
        """The positions of the graph solved (``graph_size``)."""
        return self.graph_size

    def outcome(self) -> str:
        """``yes`` when ``seat`` forces a win, else ``no``."""
        return "yes" if self.wins else "no"

    def move(self, game: GoFish) -> Move | None:
        """The strategy's move in ``game``'s current state, in its own suit numbers: a question (answer None)
        when ``seat`` is to ask, an answer when it is asked; None when the position is not ``seat``'s to
        play or not in the attractor."""
        st = game.state
        if st.outcome is not None:
            return None
        key, perm = _canonical(game, st)
        m = self.strategy.get(key)
        if m is None:
            return None
        suit = perm.index(m.suit)
        return Move(m.asker, m.asked, suit, m.answer)

    def rank(self, game: GoFish) -> int | None:
        """The rank of ``game``'s current state (plies to a win for ``seat``), None outside the attractor."""
        st = game.state
        key = _end(st.outcome.winner) if st.outcome is not None else _canonical(game, st)[0]
        return self.ranks.get(key)


def attractor(graph: GameGraph, seat: int) -> ForceResult:
    """The attractor of ``seat``'s wins in ``graph`` (see the module's docstring), with ranks and a strategy."""
    n = graph.size
    preds: list[list[int]] = [[] for _ in range(n)]
    for i, out in enumerate(graph.succ):
        for j, _ in out:
            preds[j].append(i)
    left = [len(out) for out in graph.succ]
    rank: list[int | None] = [None] * n
    best: list[int | None] = [None] * n
    queue: deque[int] = deque()
    for i in range(n):
        if graph.owner[i] is None and graph.winner[i] == seat and graph.keys[i][0] == "end":
            rank[i] = 0
            queue.append(i)
    while queue:
        j = queue.popleft()
        r = rank[j]
        assert r is not None
        for i in preds[j]:
            if rank[i] is not None:
                continue
            if graph.owner[i] == seat:
                rank[i], best[i] = r + 1, j
                queue.append(i)
            elif graph.owner[i] is not None:
                left[i] -= 1
                if left[i] == 0:
                    rank[i] = r + 1
                    queue.append(i)
    strategy: dict[Key, Move] = {}
    ranks: dict[Key, int] = {}
    for i in range(n):
        ri = rank[i]
        if ri is None:
            continue
        ranks[graph.keys[i]] = ri
        target = best[i]
        if target is not None:
            strategy[graph.keys[i]] = next(m for j, m in graph.succ[i] if j == target)
    root = rank[0] if n else None
    return ForceResult(seat, root is not None, root, strategy, ranks, n, graph.edges, graph.seconds)


def can_force(game: GoFish, seat: int, limits: Limits | None = None) -> ForceResult:
    """Whether ``seat`` can force a win from ``game``'s current state, every other seat playing against it
    (legal moves only); see :class:`ForceResult`. The graph is built within ``limits``."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.players:
        raise GoFishError(f"seat {seat!r} is not one of the {game.players} seats")
    return attractor(build_graph(game, limits), seat)


def solve_start(players: "int | Sequence[str]", suits: "int | Sequence[str] | None" = None, suit_size: int = 4,
                rules: "Rules | Mapping[str, object] | str | None" = None,
                limits: Limits | None = None) -> dict[int, ForceResult]:
    """:func:`can_force` for every seat from the start of a new game (one graph for all of them)."""
    game = GoFish(players, suits, suit_size, rules)
    graph = build_graph(game, limits)
    return {seat: attractor(graph, seat) for seat in range(game.players)}


__all__ = ["Key", "SolverLimitError", "GameGraph", "ForceResult", "build_graph", "attractor", "can_force",
           "solve_start"]
