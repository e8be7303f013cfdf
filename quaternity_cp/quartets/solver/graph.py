"""Retrograde analysis: the reachable game graph and attractors on it.

The graph's nodes are canonical keys (see :mod:`.core`); a node is decided by
one seat (the seat on turn, or the target of an open question) or is a free
choice of who moves (a shared turn under ``handover = fewest``), which the
solver always gives to the opponents of the player whose goal is computed. A
finished game is a node of its own per set of winners.

The *attractor* of a target set T for a player X is the set of nodes from which
X can force reaching T: built backwards from T, a node of X joins when one of
its successors has joined, any other node when all of its successors have (and
it has at least one: a position where nobody can move and the game is not over
is a game that never ends). This is exact on graphs with cycles: a line that
never reaches T is not in X's favour. The *rank* of a node is the number of
plies within which X forces T; a winning strategy always moves to a successor
of smaller rank, so it never cycles.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Container, Iterable, Sequence
from typing import Any

from ...budget import Budget
from .core import Context, Node, ProgressFn

DOOMED = ("end", "doomed")
PARK_FRONTIER = 1000  # a node put on a frontier this long waits: it is parked (holds less memory) meanwhile


class GameGraph:
    """Every position reachable from a root, as canonical keys with successor lists."""

    def __init__(self, ctx: Context, doomed: Callable[[Node], bool] | None = None):
        self.ctx = ctx
        self.doomed_player: int | None = None
        self.doomed = doomed  # positions to treat as a finished game won by nobody (goal-specific pruning)
        self.ids: dict[tuple, int] = {}
        self.mover: list[int] = []  # seat deciding; -1 a free choice; -2 game over
        self.succ: list[tuple[int, ...]] = []
        self.winners: dict[int, tuple[int, ...]] = {}
        self.expanded = 0
        self.rounds = 0  # the lazy build's rounds of ranking
        self.budget = Budget()  # the limits of the build under way (a new position beyond them stops it)

    def __len__(self) -> int:
        return len(self.mover)

    def key_of(self, node: Node) -> tuple:
        """The node's key in this graph (a doomed position is the finished game without winners)."""
        if self.doomed is not None and not node.over and self.doomed(node):
            return DOOMED
        return node.key

    def id_of(self, node: Node) -> int:
        return self.ids[self.key_of(node)]

    def _add(self, node: Node) -> int:
        i = len(self.mover)
        self.budget.check_positions(i)
        key = self.key_of(node)
        self.ids[key] = i
        if key is DOOMED:
            self.mover.append(-2)
            self.winners[i] = ()
        elif node.over:
            self.mover.append(-2)
            self.winners[i] = node.winners
        else:
            self.mover.append(node.mover)
        self.succ.append(())
        return i

    def _play_all(self, node: Node, moves: list, frontier: list) -> list[int]:
        """The ids of the positions after each move at ``node``; new ones are added and put on ``frontier``
        (parked, see :meth:`.core.Context.park`, once the frontier is long: they wait there)."""
        ctx = self.ctx
        check_time = self.budget.check_time
        out = []
        for move in moves:
            check_time()  # per move (and per engine call): big games stop on time
            child = ctx.child(node, move)
            j = self.ids.get(self.key_of(child))
            if j is None:
                j = self._add(child)
                frontier.append((j, ctx.park(child) if len(frontier) >= PARK_FRONTIER else child))
            out.append(j)
        return out

    def build(
        self,
        root: Node,
        *,
        budget: Budget | None = None,
        progress: ProgressFn | None = None,
        every: float = 0.5,
    ) -> int:
        """Explore everything reachable from ``root`` (depth first) within ``budget``; returns the root's id."""
        ctx = self.ctx
        if self.key_of(root) in self.ids:
            return self.id_of(root)
        self.budget = budget if budget is not None else Budget()
        rid = self._add(root)
        stack: list[tuple[int, Node]] = [(rid, root)]
        start = last = time.monotonic()
        while stack:
            i, node = stack.pop()
            if self.mover[i] == -2:
                continue
            self.expanded += 1
            self.succ[i] = tuple(dict.fromkeys(self._play_all(node, ctx.moves(node), stack)))
            if self.expanded % 16 == 0:
                self.budget.check_time()
                now = time.monotonic()
                if progress is not None and now - last >= every:
                    last = now
                    progress({"positions": len(self), "expanded": self.expanded, "frontier": len(stack),
                              "seconds": now - start, "engine_calls": ctx.calls})
        return rid

    def build_lazy(
        self,
        root: Node,
        player: int,
        *,
        order: Callable[[Node, list], list] | None = None,
        budget: Budget | None = None,
        progress: ProgressFn | None = None,
        every: float = 0.5,
        widen: str = "strategy",
        incremental: bool = True,
    ) -> tuple[int, dict[int, int]]:
        """Decide whether ``player`` can force reaching a finished game it wins, exploring lazily
        (within ``budget``).

        The player's nodes get every move at once; every other node (an opponent
        or a free choice, decided against the player) first gets only its first
        move in ``order``. When ``order`` has an ``early(node, move)`` test (no
        move generated after one that passes it comes before it in the order),
        an opponent's moves are generated only until the first one that passes;
        the others are generated when the node needs all its moves. The
        attractor of the positions the player wins on this partial graph is
        then exact in one of two ways:

        - the root is outside it: the opponents can keep the player from winning
          even when restricted to the moves explored; with all their moves they
          can too (a no, proven without the rest of the graph);
        - the root is inside it and every opponent node that the player's
          strategy meets (from the root: at the player's nodes the explored
          child of least rank, at the others every explored child) has all its
          moves explored: that strategy wins against every move (a yes, with the
          exact rank at the root: restricting the opponents can only make ranks
          smaller, so the least rank the player picks is a lower bound met by a
          strategy whose every opponent move is explored).

        Otherwise each opponent node that the strategy meets and that has moves
        left gets its next move in ``order`` (one more reply to the strategy
        now winning), and the attractor is computed again. Widening only where
        the current strategy is met, one reply at a time, explores a third of the
        positions that giving every opponent node of the attractor all its moves
        explored (4 players, 3 sets of 4 cards: 1.08 million positions against
        3.26 million; ``benchmarks/lazy_widening.py``). ``widen="attractor"`` is
        that earlier way, kept as the benchmark's baseline: while the root is
        inside the attractor, every opponent node inside it gets all its moves,
        and the answer is a yes once none has moves left. Returns the root's id
        and the ranks.

        Each round's ranks are updated from the last round's (``incremental``,
        the default): a position's rank depends only on what is reachable from
        it, so only the positions added since and the ancestors of a widened
        position are ranked again, from the ranks of the positions they reach
        that kept theirs (:meth:`_rerank`); the predecessor lists are kept from
        round to round too. ``incremental=False`` is the earlier way, the
        benchmark's baseline: every round builds the predecessor lists and the
        whole attractor again (the same ranks).
        ``self.rounds`` counts the rounds.
        """
        if widen not in ("strategy", "attractor"):
            raise ValueError(f"widen: 'strategy' or 'attractor', not {widen!r}")
        ctx = self.ctx
        if self.key_of(root) in self.ids:  # pragma: no cover - a fresh graph per solve
            raise ValueError("build_lazy needs a fresh graph")
        self.budget = budget if budget is not None else Budget()
        rid = self._add(root)
        todo: list[tuple[int, Node]] = [(rid, root)]
        later: dict[int, tuple[Node, list | None]] = {}  # opponent nodes with moves not yet explored
        pred: list[list[int]] = []  # the predecessors of every node, kept up to date round by round
        ranked_upto = 0  # the nodes below this have their edges in ``pred`` and were ranked in the last round
        grown: list[tuple[int, int]] = []  # (node, successors it had) for the nodes widened since the last ranks
        rank: dict[int, int] | None = None
        self.rounds = 0
        start = last = time.monotonic()

        while True:
            while todo:
                i, node = todo.pop()
                if self.mover[i] == -2:
                    continue
                self.expanded += 1
                early = getattr(order, "early", None)
                if self.mover[i] != player and early is not None:
                    # only as many moves as it takes to know the first in the order; the rest on demand
                    moves, complete = ctx.moves_until(node, lambda m: early(node, m))
                else:
                    moves, complete = ctx.moves(node), True
                if self.mover[i] != player and (len(moves) > 1 or not complete):
                    if order is not None:
                        moves = order(node, moves)
                    later[i] = (ctx.park(node), moves[1:] if complete else None)
                    moves = moves[:1]
                self.succ[i] = tuple(dict.fromkeys(self._play_all(node, moves, todo)))
                if progress is not None and self.expanded % 16 == 0:
                    now = time.monotonic()
                    if now - last >= every:
                        last = now
                        progress({"positions": len(self), "expanded": self.expanded, "frontier": len(todo),
                                  "seconds": now - start, "engine_calls": ctx.calls})
            self.rounds += 1
            n = len(self.mover)
            if not incremental:
                rank = self.win_ranks(player)
            else:
                pred.extend([] for _ in range(n - len(pred)))
                for i in range(ranked_upto, n):
                    for j in self.succ[i]:
                        pred[j].append(i)
                for i, had in grown:
                    for j in self.succ[i][had:]:
                        pred[j].append(i)
                if rank is None:
                    rank = self.attractor([i for i, w in self.winners.items() if player in w],
                                          lambda u: self.mover[u] == player, pred)
                else:
                    rank = self._rerank(rank, pred, player, [i for i, _ in grown], ranked_upto)
            ranked_upto, grown = n, []
            if rid not in rank:
                return rid, rank
            if widen == "strategy":
                grow = self._strategy_meets(rid, rank, player, later)
            else:
                grow = [i for i in later if i in rank]
            if not grow:
                return rid, rank
            for i in grow:
                node, rest = later.pop(i)
                if rest is None:  # generated in part: all of them now, in order, but the first (explored)
                    rest = ctx.moves(node)
                    rest = order(node, rest) if order is not None else rest
                    rest = rest[1:]
                if widen == "strategy" and len(rest) > 1:  # the next reply now, the others while the
                    later[i] = (node, rest[1:])  # strategy still meets this node
                    rest = rest[:1]
                more = self._play_all(node, rest, todo)
                grown.append((i, len(self.succ[i])))
                self.succ[i] = tuple(dict.fromkeys(self.succ[i] + tuple(more)))  # the new ones last

    def _rerank(self, rank: dict[int, int], pred: list[list[int]], player: int, grown: list[int],
                new_from: int) -> dict[int, int]:
        """The win ranks of ``player`` after the nodes ``grown`` got more successors and the nodes from
        ``new_from`` on were added, from ``rank``, the ranks before (updated in place and returned).

        A node's rank (the plies within which the player forces a win from it, or none) depends only on
        the nodes it reaches. The nodes whose reach changed are the new ones and the ancestors of a grown
        node (a new node's predecessors are new or grown): only those are ranked again, by the attractor's
        backward sweep seeded with the ranks of the nodes they reach that kept theirs, taken in order of
        rank with the nodes the sweep ranks (both in order of rank: the same ranks as the whole attractor)."""
        mover, succ, winners = self.mover, self.succ, self.winners
        check_time = self.budget.check_time
        dirty = set(range(new_from, len(mover)))
        stack = list(grown)
        dirty.update(grown)
        steps = 0
        while stack:  # every ancestor of a grown node
            v = stack.pop()
            steps += 1
            if not steps & 0xFFFF:
                check_time()
            for u in pred[v]:
                if u not in dirty:
                    dirty.add(u)
                    stack.append(u)
        queue: deque[int] = deque()
        left: dict[int, int] = {}
        seeds: set[int] = set()
        for v in dirty:
            rank.pop(v, None)
        for v in dirty:
            if mover[v] == -2:
                if player in winners[v]:
                    rank[v] = 0
                    queue.append(v)
                continue
            if mover[v] != player:
                left[v] = len(succ[v])
            for c in succ[v]:
                if c not in dirty and c in rank:
                    seeds.add(c)
        return self._sweep(rank, queue, pred, lambda u: mover[u] == player, left,
                           sorted(seeds, key=rank.__getitem__), dirty)

    def _strategy_meets(self, rid: int, rank: dict[int, int], player: int, later: dict) -> list[int]:
        """The nodes of ``later`` (moves left unexplored) that the player's strategy meets from the root ``rid``,
        inside its attractor: at the player's nodes the explored child of least rank, at the others every
        explored child (all inside the attractor, of smaller ranks: the walk ends)."""
        seen = {rid}
        stack = [rid]
        meets: list[int] = []
        mover, succ = self.mover, self.succ
        while stack:
            v = stack.pop()
            if mover[v] == -2:
                continue
            if mover[v] == player:
                kids: tuple[int, ...] = (min(succ[v], key=lambda j: rank.get(j, rank[v])),)
            else:
                kids = succ[v]
                if v in later:
                    meets.append(v)
            for c in kids:
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        return meets

    def predecessors(self) -> list[list[int]]:
        check_time = self.budget.check_time
        pred: list[list[int]] = [[] for _ in self.mover]
        for i, out in enumerate(self.succ):
            if not i & 0xFFFF:
                check_time()  # a walk over every position: the time limit holds here too
            for j in out:
                pred[j].append(i)
        return pred

    def win_ranks(self, player: int) -> dict[int, int]:
        """Node -> rank for every node from which ``player`` forces a finished game it is a winner of."""
        return self.attractor([i for i, w in self.winners.items() if player in w],
                              lambda u: self.mover[u] == player)

    def attractor(self, targets: Iterable[int], existential: Callable[[int], bool],
                  pred: list[list[int]] | None = None) -> dict[int, int]:
        """Node -> rank for every node from which the player can force reaching ``targets``."""
        pred = pred if pred is not None else self.predecessors()
        rank: dict[int, int] = {}
        left = [len(out) for out in self.succ]
        queue: deque[int] = deque()
        for t in targets:
            if t not in rank:
                rank[t] = 0
                queue.append(t)
        return self._sweep(rank, queue, pred, existential, left)

    def _sweep(self, rank: dict[int, int], queue: deque[int], pred: list[list[int]],
               existential: Callable[[int], bool], left: Any, ranked: Sequence[int] = (),
               inside: Container[int] | None = None) -> dict[int, int]:
        """The attractor's backward sweep: the nodes of ``queue`` (ranked, in order of rank) and of ``ranked``
        (ranked before, in order of rank, their predecessors still to visit), taken together in order of rank,
        rank their predecessors (within ``inside`` when given): an existential one at once, any other once its
        ``left`` successors are all ranked, one more than the node that completes it. Returns ``rank``."""
        check_time = self.budget.check_time
        steps = k = 0
        while queue or k < len(ranked):
            if queue and (k == len(ranked) or rank[queue[0]] <= rank[ranked[k]]):
                v = queue.popleft()
            else:
                v = ranked[k]
                k += 1
            steps += 1
            if not steps & 0xFFFF:
                check_time()
            r = rank[v] + 1
            for u in pred[v]:
                if u in rank or (inside is not None and u not in inside):
                    continue
                if existential(u):
                    rank[u] = r
                    queue.append(u)
                else:
                    left[u] -= 1
                    if left[u] == 0:
                        rank[u] = r
                        queue.append(u)
        return rank
