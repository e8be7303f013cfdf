"""One seat's forced win, decided lazily over a game's packed positions: the in-memory lazy solve at a few dozen
bytes a position.

:meth:`quaternity_cp.quartets.solver.graph.GameGraph.build_lazy` decides whether one
seat (the *player*) can force being a winner without building the whole graph:
the player's positions get every move, every other position first gets only the
reply its opponents' order puts first, and the attractor of the player's wins on
that partial graph is exact in two ways (outside it at the start: no; inside,
with every opponent position the player's strategy meets fully explored: yes);
otherwise each opponent position the strategy meets gets its next reply, and the
attractor is computed again. This module runs the same rounds over the positions
of a game's part ``packed`` (:class:`quaternity_cp.partitioned.Packed`: fixed-width
keys with the game's symmetries removed, expanded a batch at a time by compiled
code), so that a position costs its key (kept as its words' codes,
:class:`~quaternity_cp.keystore.KeyStore`: 32 bytes for a 14-word key), a slot of
a hash table and a few counters and an explored move 8 bytes (about 60 bytes a
position at 11x11x2), instead of the Python objects of the in-memory graph (0.5
to 1.7 KB a position).

**Positions.** A node is a packed key with the player's seat counted from the key's
mover (``seat``): where a game rotates seats, one key stands for a position seen
from every seat, so the player's place is part of the node. Node 0 is "the
player has won", node 1 "the game ended without the player winning" (both
finished games, never expanded); the start is node 2. A ply that ends the game
is an edge to one of them: to node 0 when any of its rows names the player
among the winners (a ply won by several seats is one row per winner). The
player decides a node when the part's ``owner`` of it is the player's seat; any
other node (another seat's, or a free choice of who moves, ``owner`` -1) is
decided against the player.

**What a game may add.** Two optional methods of the packed part, each given
the keys of some positions and the player's seat counted from each key's mover:

* ``doomed(keys, seats)`` (bool per key): positions from which the player can
  never be a winner, whatever happens (taken as finished games it does not win,
  as the in-memory solve's ``cannot_win`` does);
* ``order(keys, seats, src, move)`` (per edge row: the position it leaves, a
  row of ``keys`` and ``seats``, and its move number; a small number per row,
  lower first): the opponents' replies most likely to keep the player from
  winning first (the in-memory solve's opponent order).

Without them every position is expanded and replies are taken in the part's
order: slower, the same answer.

**Rounds.** Each round expands the positions added (batches of
:data:`BATCH`; an opponent's distinct successors are put in its order and the
first kept, the rest counted), ranks the partial graph (every rank again, over
arrays, :func:`_rank`), and walks the player's strategy from the start
(:func:`_meets`: at the player's nodes the first successor of least rank, at the
others every explored one). An opponent node it meets with replies left is
expanded again and its next reply in order added. A reply is never stored
before it is needed, so a node's later replies are found by expanding it again
(the part's expansion is deterministic).

``progress`` (:meth:`LazyWin.solve`) is told after each batch the positions, moves, expansions, rounds,
seconds and bytes of arrays so far, and once more as each round's ranking begins (``phase`` "ranking").

The answer: ``yes`` with the plies of the player's forced win (exact: the
restricted opponents cannot make the player's least rank larger, and the
strategy's every reply is explored), ``no``, or unproven when a limit
(:class:`~quaternity_cp.budget.Limits`: positions stored, seconds) stops it.
Memory grows with the positions and explored moves only; every array is one of
:class:`LazyWin`'s, and :meth:`LazyWin.nbytes` counts them. A round's end writes
the ranks and the ranking's lists besides (:func:`round_end_bytes`); when the
memory available would not hold them, the hash table of the nodes, which the
ranking does not read, is let go first and placed again from the keys after
(:attr:`LazyWin.tables_let_go` counts those ends).

**A state to go on from.** Where the rounds are is part of the solve's state
(the ranges of positions waiting to be expanded, the opponent nodes a round's
widening has left), and each batch changes the arrays and that state together,
with SIGINT and SIGTERM held back meanwhile; so the solve stopped between two
batches (a limit, Ctrl-C, a keeper's exception) is always in a state the
uninterrupted solve passed through, and :meth:`LazyWin.solve` called again, or
on a state read back from a folder (:mod:`quaternity_cp.lazystate`), goes on
to the same answer, positions and rounds.

This module names no game; tests/test_lazywin.py compares its answers with the
partitioned solver's ranks of every position and seat, and with the in-memory
lazy solve, on small starts of every preset.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .budget import Budget, Limits, Stopped
from .imports import STOP_SIGNALS, holding_ctrl_c, holding_signals
from .keystore import KeyStore
from .partitioned import HAVE_NUMBA, Packed, check_packed, expand_checked, jit
from .threads import memory_available

#: positions expanded at a time
BATCH = 20_000
#: at most about this many edge rows expanded at a time (a game of many moves a position takes smaller batches)
ROWS = 1 << 20
#: the node "the player has won" and the node "the game ended without the player winning"
WIN, LOST = 0, 1
#: the start's node
ROOT = 2
#: ids are kept in 4 bytes
MAX_NODES = 2**31 - 2
#: the hash table's most filled share (7/10; doubled past it: 4 bytes a slot, 6 to 11 bytes a node)
LOAD = (7, 10)
#: the widest key (words): wider than the partitioned solver's (it writes no part files; a node's key is its
#: words in the table, so a wide key costs memory, nothing else)
MAX_WIDTH = 24

ProgressFn = Callable[[dict[str, Any]], None]


@jit
def _hash(keys: np.ndarray, i: int, seat: int) -> Any:
    h = np.uint64(seat + 1) * np.uint64(0x9E3779B97F4A7C15)
    for w in range(keys.shape[1]):
        h = (h ^ keys[i, w]) * np.uint64(0x9E3779B97F4A7C15)
        h ^= h >> np.uint64(29)
    return h


@jit
def _equal(a: np.ndarray, i: int, b: np.ndarray, j: int) -> bool:
    for w in range(a.shape[1]):
        if a[i, w] != b[j, w]:
            return False
    return True


@jit
def _place(table: np.ndarray, keys: np.ndarray, seats: np.ndarray, n: int) -> None:
    """Every node from 2 to n into an empty ``table`` (a rehash; a slot holds its node + 1, 0 when empty)."""
    mask = np.uint64(table.shape[0] - 1)
    for i in range(ROOT, n):
        h = _hash(keys, i, seats[i]) & mask
        while table[h] != 0:
            h = (h + np.uint64(1)) & mask
        table[h] = i + 1


@jit
def _find_or_add(table: np.ndarray, keys: np.ndarray, seats: np.ndarray, n: int, ck: np.ndarray,
                 cs: np.ndarray, rows: np.ndarray, ids: np.ndarray) -> int:
    """The node of each row ``rows[t]`` of (``ck``, ``cs``) into ``ids[t]``, new ones added from ``n`` on (room
    for all of them is there). Returns the new count of nodes."""
    mask = np.uint64(table.shape[0] - 1)
    for t in range(rows.shape[0]):
        r = rows[t]
        s = cs[r]
        h = _hash(ck, r, s) & mask
        while True:
            v = table[h] - 1
            if v < 0:
                for w in range(keys.shape[1]):
                    keys[n, w] = ck[r, w]
                seats[n] = s
                table[h] = n + 1
                ids[t] = n
                n += 1
                break
            if seats[v] == s and _equal(keys, v, ck, r):
                ids[t] = v
                break
            h = (h + np.uint64(1)) & mask
    return n


@jit
def _find(table: np.ndarray, keys: np.ndarray, seats: np.ndarray, ck: np.ndarray, cs: np.ndarray,
          ids: np.ndarray) -> None:
    """The node of each row of (``ck``, ``cs``), -1 when it is not in the graph."""
    mask = np.uint64(table.shape[0] - 1)
    for r in range(ck.shape[0]):
        s = cs[r]
        h = _hash(ck, r, s) & mask
        ids[r] = -1
        while True:
            v = table[h] - 1
            if v < 0:
                break
            if seats[v] == s and _equal(keys, v, ck, r):
                ids[r] = v
                break
            h = (h + np.uint64(1)) & mask


@jit
def _select(src: np.ndarray, term: np.ndarray, ck: np.ndarray, cs: np.ndarray, score: np.ndarray,
            mine: np.ndarray, nth: np.ndarray, sel: np.ndarray, total: np.ndarray, buf: np.ndarray) -> int:
    """The rows each expanded position keeps. Rows come grouped by ``src`` (0..len(mine)-1); ``term`` is a
    finished game's node (WIN, LOST) or -1 for a position (``ck``, ``cs``). A position's distinct successors (one
    finished game per node, one position per key and seat), in order of ``score`` then row: all of them where
    ``mine`` (the player decides), else only the one numbered ``nth`` (when there is one). ``total``: the
    distinct successors of each position. The kept rows go to ``sel``; returns how many. ``buf``: room for the
    most rows of one position."""
    count = 0
    m = src.shape[0]
    a = 0
    while a < m:
        b = a
        while b < m and src[b] == src[a]:
            b += 1
        p = src[a]
        k = 0  # the distinct rows of this position, in order
        for r in range(a, b):
            # insert r by (score, row) among buf[:k], unless it repeats one of them
            dup = False
            t = 0
            q = 0
            for t in range(k):
                q = buf[t]
                if term[r] >= 0 or term[q] >= 0:
                    if term[r] == term[q]:
                        dup = True
                        break
                elif cs[r] == cs[q] and _equal(ck, r, ck, q):
                    dup = True
                    break
            if dup:
                # a repeat with a lower score than the one kept moves it forward
                if score[r] < score[q]:
                    buf[t] = r
                    while t > 0 and score[buf[t - 1]] > score[buf[t]]:
                        x = buf[t - 1]
                        buf[t - 1] = buf[t]
                        buf[t] = x
                        t -= 1
                continue
            t = k
            buf[t] = r
            k += 1
            while t > 0 and score[buf[t - 1]] > score[r]:
                buf[t] = buf[t - 1]
                t -= 1
            buf[t] = r
        total[p] = k
        if mine[p]:
            for t in range(k):
                sel[count] = buf[t]
                count += 1
        elif nth[p] < k:
            sel[count] = buf[nth[p]]
            count += 1
        a = b
    return count


@jit
def _lists(n: int, key: np.ndarray, value: np.ndarray, offset: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each node's list of the ``value`` of the edges whose ``key`` it is, in the order of the edges: the lists'
    bounds (``indptr``, n + 1, of ``offset``'s type: 4 bytes while the edges' count fits) and their items, one
    array (the successors of the nodes by ``es -> ed``, or their predecessors by ``ed -> es``)."""
    m = key.shape[0]
    indptr = np.zeros(n + 1, offset.dtype)
    for e in range(m):
        indptr[key[e] + 1] += 1
    for i in range(n):
        indptr[i + 1] += indptr[i]
    # each list filled from its start, indptr[k] moving to the next free place (so to the list's end, the next
    # list's start), then moved back one place: no second array of n bounds at the peak of a round's memory
    items = np.empty(m, np.int32)
    for e in range(m):
        k = key[e]
        items[indptr[k]] = value[e]
        indptr[k] += 1
    for i in range(n, 0, -1):
        indptr[i] = indptr[i - 1]
    indptr[0] = 0
    return indptr, items


@jit
def _rank(n: int, es: np.ndarray, ed: np.ndarray, mine: np.ndarray, rank: np.ndarray, offset: np.ndarray) -> None:
    """The player's rank of every node (-1: it cannot force a win there) on the graph of edges ``es -> ed``:
    node WIN is 0, a node the player decides one more than its least ranked successor, any other one more than
    its last successor ranked once all are (the attractor, breadth first, so in order of rank)."""
    left = np.zeros(n, np.int16)  # (an opponent node's explored replies: at most its replies in all, an int16)
    for e in range(es.shape[0]):
        left[es[e]] += 1
    indptr, pred = _lists(n, ed, es, offset)
    for i in range(n):
        rank[i] = -1
    queue = np.empty(n, np.int32)
    rank[WIN] = 0
    queue[0] = WIN
    head, tail = 0, 1
    while head < tail:
        v = queue[head]
        head += 1
        r = rank[v] + 1
        for e in range(indptr[v], indptr[v + 1]):
            u = pred[e]
            if rank[u] >= 0:
                continue
            if not mine[u]:
                left[u] -= 1
                if left[u] != 0:
                    continue
            rank[u] = r
            queue[tail] = u
            tail += 1


@jit
def _meets(n: int, es: np.ndarray, ed: np.ndarray, mine: np.ndarray, rank: np.ndarray, nth: np.ndarray,
           total: np.ndarray, work: np.ndarray, offset: np.ndarray) -> int:
    """The opponent nodes with replies left (``nth < total``) that the player's strategy meets from the start
    (inside its attractor): at the player's nodes the first successor of least rank (in the order the edges were
    added), at the others every successor. ``work`` (n entries) holds the walk's stack from its start and the
    nodes met from its end, the first met last (each node is pushed once and met once at most: the two never
    meet); returns how many were met (``work[n - count:]``, reversed)."""
    indptr, succ = _lists(n, es, ed, offset)
    seen = np.zeros(n, np.uint8)
    work[0] = ROOT
    seen[ROOT] = 1
    top = 1
    count = 0
    while top > 0:
        top -= 1
        v = work[top]
        if v == WIN or v == LOST:
            continue
        if mine[v]:
            best = -1
            for e in range(indptr[v], indptr[v + 1]):
                c = succ[e]
                if rank[c] >= 0 and (best < 0 or rank[c] < rank[best]):
                    best = c
            if best >= 0 and not seen[best]:
                seen[best] = 1
                work[top] = best
                top += 1
            continue
        if nth[v] < total[v]:
            count += 1
            work[n - count] = v
        for e in range(indptr[v], indptr[v + 1]):
            c = succ[e]
            if not seen[c]:
                seen[c] = 1
                work[top] = c
                top += 1
    return count


@dataclass
class LazyResult:
    """What :func:`solve_win` found: ``verdict`` True (the player forces a win, in ``plies``), False (it cannot)
    or None (unproven: ``stopped`` says why: ``limit`` (positions), ``time`` or ``interrupted``)."""

    verdict: bool | None
    plies: int | None
    positions: int
    edges: int
    expanded: int
    rounds: int
    seconds: float
    nbytes: int
    stopped: str | None = None


class LazyWin:
    """The partial graph of one seat's lazy win solve (see the module's text); :meth:`solve` runs it."""

    def __init__(self, packed: Packed, player: int, *, batch: int = BATCH, expect: int | None = None,
                 compress: bool = True):
        self.packed = check_packed(packed, MAX_WIDTH)
        P, W = packed.seats, packed.width
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < P:
            raise ValueError(f"player must be a seat 0..{P - 1}, not {player!r}")
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise ValueError(f"batch must be a whole number >= 1, not {batch!r}")
        self.player = player
        self.batch = batch
        # (a batch's edge rows stay near ROWS: the most rows a position gave on average in a batch so far, at least
        # the game's bound on plies, decides how many positions a batch takes)
        self.rate = float(packed.max_degree)
        self.P, self.W = P, W
        self.n = ROOT
        self.m = 0
        # room for ``expect`` positions at once (the position limit: zeroed pages cost nothing until written, and
        # the arrays are never copied to grow), else grown by half as needed
        cap = max(1 << 12, min(expect + ROOT + 1, MAX_NODES, _most_reserved(KeyStore.room_stride(W, compress)))
                  if expect else 0)
        self.store = KeyStore(W, cap, compress)  # the nodes' keys, each word as its code (compress)
        self.layout = self.store.layout
        self.seats = np.zeros(cap, np.int8)
        self.mine = np.zeros(cap, np.bool_)
        self.nth = np.zeros(cap, np.int16)  # an opponent's replies explored
        self.total = np.zeros(cap, np.int16)  # its distinct replies
        self.table = np.zeros(1 << 13, np.int32)  # node + 1, 0: empty (doubled, and filled again, as nodes come)
        self.es = np.zeros(2 * cap, np.int32)
        self.ed = np.zeros(2 * cap, np.int32)
        self.rank = np.full(0, -1, np.int32)
        self.expanded = 0
        self.rounds = 0
        self.doomed = getattr(packed, "doomed", None)
        self.order = getattr(packed, "order", None)
        # where the rounds are (what a saved state keeps besides the arrays): the start added (``begun``), the
        # range of nodes being expanded (``cur``, [lo, hi)) and those waiting (``todo``, the last first), the
        # opponent nodes the strategy met and those of them widened so far (``meets``, ``meet_at``)
        self.begun = False
        self.cur: list[int] | None = None
        self.todo: list[list[int]] = []
        self.meets: np.ndarray | None = None
        self.meet_at = 0
        self.verdict: bool | None = None
        self.plies: int | None = None
        # the state's changes so far, and at the last save (a save of an unchanged state rewrites no array)
        self.changes = 0
        self.saved_changes = -1
        # whether the graph as it is was ranked to an answer (its last round counted)
        self.answered = False
        # a state kept on the way (:mod:`quaternity_cp.lazystate` sets them): called between batches every
        # ``keep_every`` seconds
        self.keeper: Callable[[LazyWin], None] | None = None
        self.lock: Any = None  # (the folder's lock, held by :mod:`quaternity_cp.lazystate`)
        self.keep_every = float("inf")
        self.kept_at = 0.0
        # the rounds' ends that let the hash table go for want of memory, in this process (not part of the state)
        self.tables_let_go = 0

    # -- storage ------------------------------------------------------------------------------------------------
    def nbytes(self) -> int:
        """The bytes of the graph's arrays in use: its nodes' and edges' rows and the hash table (room kept for
        more, never written yet, takes no memory; the ranks' temporaries come and go with each round)."""
        n, m = self.n, self.m
        return sum(a[:n].nbytes for a in (self.seats, self.mine, self.nth, self.total, self.rank)) \
            + self.store.nbytes(n) + self.table.nbytes + self.es[:m].nbytes + self.ed[:m].nbytes

    def _room(self, nodes: int, edges: int) -> None:
        need = self.n + nodes
        if need > MAX_NODES:
            raise Stopped("limit")
        if need > len(self.seats):
            cap = max(need, len(self.seats) + len(self.seats) // 2)
            # growing copies the rows: stop (unproven, as at the position limit) rather than be killed for memory
            if not _fits(len(self.seats) * (8 * self.store.stride + 6)):  # (the rows copied; new rows come later)
                raise Stopped("limit")
            self.store.grow(cap, self.n)
            self.seats = _grown(self.seats, cap)
            self.mine = _grown(self.mine, cap)
            self.nth = _grown(self.nth, cap)
            self.total = _grown(self.total, cap)
        if need * LOAD[1] > len(self.table) * LOAD[0]:
            size = len(self.table)
            while need * LOAD[1] > size * LOAD[0]:
                size *= 2
            self.table = np.zeros(size, np.int32)
            _place(self.table, self.store.rows(), self.seats, self.n)
        if self.m + edges > len(self.es):
            cap = max(self.m + edges, len(self.es) + len(self.es) // 2)
            if not _fits(8 * len(self.es)):
                raise Stopped("limit")
            self.es = _grown(self.es, cap)
            self.ed = _grown(self.ed, cap)

    def place_all(self) -> None:
        """The hash table made again for the nodes stored (sized for them at most 7/10 full): for a graph whose
        rows were written from elsewhere (:mod:`quaternity_cp.lazystate` reading a state back)."""
        size = 1 << 13
        while self.n * LOAD[1] > size * LOAD[0]:
            size *= 2
        self.table = np.zeros(size, np.int32)
        with np.errstate(over="ignore"):
            _place(self.table, self.store.rows(), self.seats, self.n)
        self.layout = self.store.layout

    def lookup(self, keys: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The node of each key (rows of ``width`` words) with the player's seat counted from its mover; -1 when
        it is not in the graph."""
        with holding_ctrl_c(), np.errstate(over="ignore"):
            rows, found = self.store.find_rows(np.ascontiguousarray(keys, np.uint64).reshape(-1, self.W))
            ids = np.empty(len(rows), np.int64)
            _find(self.table, self.store.rows(), self.seats, rows, np.asarray(seats, np.int8).reshape(-1), ids)
        ids[~found] = -1
        return ids

    def keys_of(self, nodes: np.ndarray) -> np.ndarray:
        """The keys (``width`` words each) of ``nodes``."""
        return self.store.decode(nodes)

    def _add(self, ck: np.ndarray, cs: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The nodes of keys ``ck[rows]`` with seats ``cs[rows]``, those not in the graph added (room for them is
        there)."""
        try:
            cc = self.store.encode(ck, rows, self.n)
        except MemoryError:  # (the keys' rows would not fit: stopped as at the position limit, the graph as it was)
            raise Stopped("limit") from None
        if self.store.layout != self.layout:  # (the stored rows were packed again: their hashes too)
            self.table[:] = 0
            _place(self.table, self.store.rows(), self.seats, self.n)
            self.layout = self.store.layout
        ids = np.empty(len(rows), np.int64)
        self.n = _find_or_add(self.table, self.store.rows(), self.seats, self.n, cc, cs[rows],
                              np.arange(len(rows), dtype=np.int64), ids)
        return ids

    # -- the rounds ---------------------------------------------------------------------------------------------
    def _expand(self, nodes: np.ndarray, budget: Budget, widen: bool) -> np.ndarray:
        """Expand ``nodes`` and add the successors each keeps (all of them at the player's nodes, the next reply
        in order at the others: the first when not ``widen``); returns the nodes added. Nothing of the graph
        changes until every successor has its node (a stop before -- the position limit, memory -- leaves it as it
        was, so a saved state is always one of the solve's; the caller holds the signals for the time of it)."""
        P = self.P
        keys = self.store.decode(nodes)
        out = expand_checked(self.packed, keys)
        src = np.asarray(out["src"], np.int64)
        pseat = self.seats[nodes].astype(np.int64)
        end = np.asarray(out["end"], np.int64)
        rows = len(src)
        term = np.full(rows, -1, np.int64)
        over = end >= -1
        if over.any():
            won = over & (end == pseat[src])
            term[over] = LOST
            if won.any():  # a ply won by the player: every row of that ply (one per winner) is its win
                plies = src * (self.packed.moves + 1) + np.asarray(out["move"], np.int64)
                term[over & np.isin(plies, plies[won])] = WIN
        cs = ((pseat[src] - np.asarray(out["off"], np.int64)) % P).astype(np.int8)
        ck = np.ascontiguousarray(out["keys"], np.uint64).reshape(rows, self.W)
        inner = np.flatnonzero(term < 0)
        if self.doomed is not None and len(inner):
            d = np.asarray(self.doomed(ck[inner], cs[inner]), np.bool_)
            term[inner[d]] = LOST
        if not widen:
            mine = np.asarray(out["owner"], np.int64) == pseat
        else:
            mine = np.zeros(len(nodes), np.bool_)
        score = np.zeros(rows, np.int8)
        if self.order is not None:
            opp = ~mine[src]
            if opp.any():
                at = np.flatnonzero(opp)
                score[at] = np.asarray(self.order(keys, self.seats[nodes], src[at],
                                                  np.asarray(out["move"], np.int64)[at]), np.int8)
        nth = self.nth[nodes].astype(np.int64) if widen else np.zeros(len(nodes), np.int64)
        sel = np.empty(rows, np.int64)
        total = np.zeros(len(nodes), np.int64)
        buf = np.empty(int(np.bincount(src).max()) if rows else 1, np.int64)
        k = _select(src, term, ck, cs, score, mine, nth, sel, total, buf)
        sel = sel[:k]
        fresh = np.flatnonzero(term[sel] < 0)
        before = self.n
        budget.check_positions(before + len(fresh) - ROOT)
        self._room(len(fresh), k)
        dst = term[sel].copy()
        if len(fresh):
            dst[fresh] = self._add(ck, cs, sel[fresh])
        # (from here on nothing can stop it: the node's rows, its edges and the counts change together)
        self.expanded += len(nodes)
        self.rate = max(self.rate, rows / max(len(nodes), 1))
        if not widen:
            self.mine[nodes] = mine
            self.total[nodes] = np.minimum(total, np.iinfo(np.int16).max)
            self.nth[nodes] = np.where(mine, total, np.minimum(total, 1))
        else:
            self.nth[nodes] += 1
        m = self.m
        self.es[m:m + k] = nodes[src[sel]]
        self.ed[m:m + k] = dst
        self.m = m + k
        self.changes += 1
        return np.arange(before, self.n, dtype=np.int64)

    def solve(self, limits: Limits | None = None, progress: ProgressFn | None = None) -> LazyResult:
        """Decide whether the player forces being a winner from the part's start (within ``limits``), or go on
        from where a state read back left it (:mod:`quaternity_cp.lazystate`)."""
        with np.errstate(over="ignore"):  # (the keys' hashes wrap around by design: quiet without numba too)
            return self._solve(limits, progress)

    def _solve(self, limits: Limits | None, progress: ProgressFn | None) -> LazyResult:
        budget = Budget(limits)
        began = time.monotonic()
        self.kept_at = began
        stopped = None
        verdict: bool | None = None
        plies = None
        try:
            if self.begun:  # (a state read back: its rounds go on)
                verdict, plies = self._rounds(budget, progress, began)
            else:
                key, mover = self.packed.start()
                if mover < 0:  # the game is over before it begins: nobody wins it by a move
                    verdict = False
                else:
                    seat = (self.player - mover) % self.P
                    self._room(1, 0)
                    ck = np.asarray(key, np.uint64).reshape(1, self.W)
                    cs = np.array([seat], np.int8)
                    if self.doomed is not None and bool(np.asarray(self.doomed(ck, cs))[0]):
                        verdict = False
                    else:
                        with holding_signals(*STOP_SIGNALS):
                            self._add(ck, cs, np.zeros(1, np.int64))
                            self.todo = [[ROOT, ROOT + 1]]
                            self.begun = True
                            self.changes += 1
                        verdict, plies = self._rounds(budget, progress, began)
        except Stopped as stop:
            stopped = str(stop.reason)
            verdict = None
        except KeyboardInterrupt:  # (Ctrl-C: what is known is returned, unproven; the graph stays as it was)
            stopped = "interrupted"
            verdict = None
        self.verdict, self.plies = verdict, plies
        return LazyResult(verdict, plies, self.n - ROOT, self.m, self.expanded, self.rounds,
                          time.monotonic() - began, self.nbytes(), stopped)

    def _step(self) -> int:
        """Positions the next batch takes: at most ``batch``, and about :data:`ROWS` edge rows."""
        return max(1, min(self.batch, int(ROWS / max(self.rate, 1.0))))

    def _between(self, budget: Budget) -> None:
        """Between two batches: the time limit checked, and the state kept when it is time to
        (:attr:`keeper`, every :attr:`keep_every` seconds)."""
        budget.check_time()
        if self.keeper is not None and time.monotonic() - self.kept_at >= self.keep_every:
            self.keeper(self)
            self.kept_at = time.monotonic()

    def _rounds(self, budget: Budget, progress: ProgressFn | None, began: float) -> tuple[bool, int | None]:
        """The rounds from the state the graph is in: the positions to expand (:attr:`cur`, then the ranges of
        :attr:`todo`, the last first), then a ranking and the strategy's meetings (:attr:`meets`, widened from
        :attr:`meet_at` on). Each batch changes the state at once, with the stop signals held, so that a stop
        between two batches leaves a state to go on from."""
        while True:
            # (a state read back in the middle of a round's widening goes on widening first, as the run did)
            while self.meets is None and (self.cur is not None or self.todo):
                if self.cur is None:
                    self.cur = self.todo.pop()
                lo, hi = self.cur
                self._between(budget)
                b = min(hi, lo + self._step())
                # (a stop inside compiled code would be lost, and one between two arrays would leave a state that is
                # no solve's: it waits for the batch)
                with holding_signals(*STOP_SIGNALS):
                    added = self._expand(np.arange(lo, b, dtype=np.int64), budget, False)
                    self.cur = [b, hi] if b < hi else None
                    if len(added):
                        self.todo.append([int(added[0]), int(added[-1]) + 1])
                if progress is not None:
                    progress(self._step_info(began))
            if self.meets is None:
                budget.check_time()
                if progress is not None:
                    progress({**self._step_info(began), "phase": "ranking"})
                n, m = self.n, self.m
                with holding_signals(*STOP_SIGNALS):
                    if len(self.rank) < n:  # (grown with the nodes written, not with the room reserved)
                        # (room beyond n never written until used: _rank sets every rank it reads)
                        self.rank = np.empty(min(len(self.seats), max(n + n // 2, 1 << 12)), np.int32)
                    # Where the memory left would not hold the ranking's lists beside the hash table, the table
                    # (4 bytes a slot, 6 to 11 a node: nothing of the ranking reads it) is let go and placed
                    # again from the keys once the round's end is done.
                    let_go = _tight(round_end_bytes(n, m))
                    if let_go:
                        self.table = np.zeros(0, np.int32)
                    try:
                        _rank(n, self.es[:m], self.ed[:m], self.mine[:n], self.rank[:n], _offset(m))
                        k = 0
                        if self.rank[ROOT] >= 0:
                            work = np.empty(n, np.int32)  # (the walk's stack and the nodes met, in one array)
                            k = _meets(n, self.es[:m], self.ed[:m], self.mine[:n], self.rank[:n], self.nth[:n],
                                       self.total[:n], work, _offset(m))
                            if k:
                                self.meets, self.meet_at = work[n - k:][::-1].copy(), 0
                                self.rounds += 1
                                self.changes += 1
                            del work
                    finally:
                        if let_go:
                            self.tables_let_go += 1
                            self.place_all()
                if self.rank[ROOT] < 0 or k == 0:
                    if not self.answered:  # (a state read back once answered is ranked again, not counted again)
                        self.rounds += 1
                        self.answered = True
                    return (False, None) if self.rank[ROOT] < 0 else (True, int(self.rank[ROOT]))
            meets = self.meets
            assert meets is not None
            while self.meet_at < len(meets):
                self._between(budget)
                lo = self.meet_at
                hi = min(len(meets), lo + self._step())
                with holding_signals(*STOP_SIGNALS):
                    added = self._expand(meets[lo:hi].astype(np.int64), budget, True)
                    self.meet_at = hi
                    if len(added):
                        self.todo.append([int(added[0]), int(added[-1]) + 1])
                if progress is not None:
                    progress(self._step_info(began))
            self.meets, self.meet_at = None, 0
            self.changes += 1

    def _step_info(self, began: float) -> dict[str, Any]:
        return {"positions": self.n - ROOT, "expanded": self.expanded, "edges": self.m, "rounds": self.rounds,
                "seconds": time.monotonic() - began, "bytes": self.nbytes()}


def _most_reserved(width: int) -> int:
    """The most nodes reserved at once: as many node and edge rows as this machine's memory holds. Rows past them
    could never be written, and a reservation larger than the memory is refused by the system, however little of
    it is written. (Half the memory, as before, made a position limit past it grow the arrays by copying them:
    at 14x14x2, 22 words a key, the copy at 64 million positions needed more memory than there was.)"""
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not a POSIX system
        memory = 2**32
    return max(1 << 12, memory // (8 * width + 22))


def round_end_bytes(n: int, m: int) -> int:
    """The most bytes a round's end of ``n`` nodes and ``m`` explored moves writes besides the graph's arrays: the
    ranks (4 bytes a node), and the ranking's (each node's replies left, 2 bytes, the lists' bounds and the
    queue, 4 each, the predecessors, 4 a move) or the strategy's walk's (the bounds, the stack, 4 bytes a node
    each, a byte of flags, the successors), the larger, with the bounds in 8 bytes past 2^31 moves."""
    bound = 4 if m < 2**31 else 8
    return 4 * n + max(2 * n + bound * (n + 1) + 4 * n + 4 * m, bound * (n + 1) + 5 * n + 4 * m)


def _tight(nbytes: int) -> bool:
    """Whether ``nbytes`` more would not fit in the memory available now (a round's end then lets the hash
    table go: :meth:`LazyWin.solve`)."""
    return not _fits(nbytes)


def _fits(nbytes: int) -> bool:
    """Whether ``nbytes`` more can be written in memory now (:func:`~quaternity_cp.threads.memory_available`;
    True when it is not known)."""
    free = memory_available()
    return free is None or nbytes <= free


def _offset(m: int) -> np.ndarray:
    """An array of the type of the edge lists' bounds for ``m`` edges: 4 bytes while they fit, else 8."""
    return np.zeros(0, np.int32 if m < 2**31 else np.int64)


def _grown(a: np.ndarray, cap: int) -> np.ndarray:
    out = np.zeros((cap,) + a.shape[1:], a.dtype)
    out[:len(a)] = a
    return out


def solve_win(packed: Packed, player: int, *, limits: Limits | None = None, progress: ProgressFn | None = None,
              batch: int = BATCH, compress: bool = True) -> tuple[LazyResult, LazyWin]:
    """Whether seat ``player`` (absolute, as :meth:`Packed.start` counts seats) forces being a winner from the
    packed part's start; the result and the partial graph (its ranks answer for every position in it).
    ``compress``: keys kept as their words' codes (:class:`~quaternity_cp.keystore.KeyStore`; False: as they
    are, the reference)."""
    lazy = LazyWin(packed, player, batch=batch, expect=limits.max_positions if limits is not None else None,
                   compress=compress)
    return lazy.solve(limits, progress), lazy


__all__ = ["BATCH", "WIN", "LOST", "ROOT", "HAVE_NUMBA", "LazyResult", "LazyWin", "solve_win"]
