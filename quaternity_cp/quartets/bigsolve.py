"""A Quaternity start solved by the shared partitioned solver (``quaternity solve --start P N S --checkpoint DIR``).

The graph of the start (:class:`~.packed.QuaternityPacked`: the in-memory
solver's canonical positions, packed) is built by layers in ``parts`` parts, on
Dask workers or here, in a checkpoint folder that a stopped run goes on from
(:func:`quaternity_cp.partitioned.solve_graph`); then every seat's attractor
(over the whole graph here, or partitioned in rounds). The answer for the goal
``win`` (can the seat force being a winner) or ``value`` (two players: win, loss
or draw, a win being the only winner) is the root's rank, and the strategy tree
is read from the ranks: the seat that forces its goal always moves to a
position one rank closer, every reply is shown (:func:`tree`). The result is a
:class:`~.solver.SolveResult`, so it prints and serialises as the in-memory
solver's does, with the graph's sizes beside it (:class:`BigResult`).
"""

from __future__ import annotations

import math
import os
import resource
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from .. import partitioned as pt
from ..budget import INTERRUPTED, SOLVED, Limits, Status
from ..digest import read_signed, user_key, write_signed
from ..errors import QuaternityError
from ..threads import check_threads
from .game import Game
from .packed import PackedError, QuaternityPacked, check_start, frame_of
from .position import Position, State
from .rules import Rules
from .solver import SolveResult

#: the parts of a graph when none are asked for
DEFAULT_PARTS = 8
#: the parts of a graph when none are asked for, at a start whose whole graph is small (:func:`default_parts`)
SMALL_PARTS = 2
#: what a keyed digest of a stored answer is for
RESULT_PURPOSE = "quaternity-graph-result"
#: the fields of a stored answer (result.json's ``result``)
RESULT_FIELDS = ("positions", "edges", "layers", "build_seconds", "attractor_seconds", "seats")
#: the goals the partitioned solver answers (the quartet goal is a search within one turn: the in-memory solver's)
GOALS = ("win", "value")


class BigSolveError(QuaternityError, ValueError):
    """A partitioned solve that cannot be started (a goal or seat that does not apply, parts out of range); one
    line."""


def packed_of(players: int, sets: int, set_size: int, rules: Rules, goal: str = "win", lazy: bool = False
              ) -> QuaternityPacked:
    """The packed graph a goal is read from: the value goal's counts a shared win as nobody's (only when the rules
    share wins: else the win goal's graph serves both, in the same checkpoint). ``lazy``: for the lazy win solve
    (more seats and wider keys than the partitioned solver's, :func:`.packed.check_start`)."""
    check_start(players, sets, set_size, rules, lazy)
    return QuaternityPacked(players, sets, set_size, rules, goal == "value" and rules.tie == "shared")


def check_goal(goal: str, player: int | None, players: int) -> int:
    if goal not in GOALS:
        raise BigSolveError(f"the partitioned solver answers the goals {', '.join(GOALS)}, not {goal!r} (the quartet "
                            "goal is a search within one turn: solve without --checkpoint)")
    seat = 0 if player is None else player
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise BigSolveError(f"unknown player {player!r} (seats are 0..{players - 1})")
    if goal == "value" and players != 2:
        raise BigSolveError(f"the value goal is for two players, not {players}")
    return seat


def max_parts(players: int, sets: int, set_size: int) -> int:
    """The most parts that make sense for a start (each layer writes parts x parts files, so a part is worth them
    only when the graph is large). Measured (quaternity, whole graphs): 8 cards or fewer at most a few thousand
    positions (4x4x2: 1,780): 4; 9 to 12 cards at most a few hundred thousand (3x3x3: 10,965; 3x4x3: 229,766):
    16; more cards (4x4x4: millions by its eleventh layer): :data:`quaternity_cp.partitioned.MAX_PARTS`."""
    cards = sets * set_size
    return 4 if cards <= 8 else 16 if cards <= 12 else pt.MAX_PARTS


def check_parts(parts: object, players: int = 2, sets: int = 64, set_size: int = 4) -> int:
    """``parts`` when it is a number of parts that makes sense for the start; else :class:`BigSolveError`."""
    if isinstance(parts, bool) or not isinstance(parts, int) or not 1 <= parts <= pt.MAX_PARTS:
        raise BigSolveError(f"--parts must be a whole number 1..{pt.MAX_PARTS}, not {parts!r}")
    most = max_parts(players, sets, set_size)
    if parts > most:
        raise BigSolveError(f"--parts {parts}: at most {most} make sense for a start of {sets * set_size} cards (each "
                            "layer writes parts x parts files)")
    return parts


def default_parts(players: int, sets: int, set_size: int) -> int:
    """The parts of a new checkpoint when none are asked for: :data:`SMALL_PARTS` at a start whose whole graph is
    small (2 players; 8 cards or fewer; 3 players and 12 cards or fewer: at most 3.5 million positions, 3x3x4
    under quaternity-seat), where a part costs more in files than it saves in memory (one thread, whole command:
    3x3x3 0.67 s in 2 parts, 1.47 s in 8; 3x4x3 3.4 s against 5.6 s; 3x3x4 12.5 s against 15.0 s); else
    :data:`DEFAULT_PARTS` (a task holds a part of a layer: 4x4x3, also of 12 cards, peaks at 28 million
    positions a layer), or :func:`max_parts` when fewer."""
    cards = sets * set_size
    if players <= 2 or cards <= 8 or (players <= 3 and cards <= 12):
        return min(SMALL_PARTS, max_parts(players, sets, set_size))
    return min(DEFAULT_PARTS, max_parts(players, sets, set_size))


class Ranker:
    """The ranks of any position of a built graph, by the solver's canonical key: its packed key found in its part
    (:class:`quaternity_cp.partitioned.KeyIndex`: each part's keys hashed and ordered once, about 12 bytes a
    position held: the positions it asks are the graph's, its start and the children of its positions)."""

    def __init__(self, built: pt.Built, ranks: Any, packed: QuaternityPacked):
        self.built, self.ranks, self.packed = built, ranks, packed
        if hasattr(ranks, "keep"):  # (the partitioned attractor's ranks, read a part at a time: a strategy hops
            ranks.keep(built.parts)  # between parts, so every part read is kept, 2 bytes a seat, less than the index)
        self.index = pt.KeyIndex(built, members_only=True)  # (every key it asks is a graph position's)

    def dense(self, key: tuple[Any, ...]) -> tuple[int, int]:
        """The dense id of the position of canonical key ``key`` (not over) and its frame seat; -1: not in the
        graph."""
        words, f = self.packed.key_words(key)
        return int(self.index.find(np.array([words], np.uint64))[0]), f

    def rank(self, node: Any, seat: int) -> int:
        """The plies in which ``seat`` forces its goal from ``node`` (a :class:`.solver.core.Node`); -1: it
        cannot (0: the game is over with it winning)."""
        if node.over:
            w = tuple(node.winners)
            won = w == (seat,) if self.packed.only else seat in w
            return 0 if won else -1
        i, f = self.dense(node.key)
        if i < 0:
            raise pt.PartitionedError("a position of the start is missing from the checkpoint's graph; remove the "
                                      "folder to start again")
        return int(self.ranks[i, (seat - f) % self.packed.players])


def canonical(packed: QuaternityPacked, ctx: Any, st: State) -> tuple[State, tuple[Any, ...], list[int], list[int]]:
    """The graph's own state of the position ``st`` (not over): the decoded state of its packed key (its
    expansions are the graph's), its canonical key, and how its labels map onto ``st``'s: per seat and per card
    of the decoded state, the seat and the card of ``st`` (sets in play in the key's order, their cards sorted
    as the key has them, seats rotated so the frame seat is 0)."""
    from .packed import rot_mask, state_of_key

    node = ctx.describe(st)
    P, S = packed.players, packed.set_size
    f = frame_of(node.key)
    r = f if packed.rotated else 0
    c = st.constraints
    owners = ctx.engine.analyze(c).owners
    pend = st.pending.card if st.pending is not None else -1
    hands = c.hands
    lo_cols, hi_cols = list(zip(*c.lo)), list(zip(*c.hi))
    rows = []
    for s in c.sets_in_play:
        base = s * S
        ow = owners[base:base + S]
        at = pend - base if base <= pend < base + S else -1
        (_, los, his), _ = ctx.set_description(ow, lo_cols[s], hi_cols[s], hands, at)
        cls = [rot_mask(m, r, P) << 1 | (1 if i == at else 0) for i, m in enumerate(ow)]
        order = sorted(range(S), key=lambda i: cls[i])
        body = (tuple(sorted(cls)), los[r:] + los[:r], his[r:] + his[:r])
        rows.append((body, s, order))
    rows.sort(key=lambda t: (t[0], t[1]))
    words, _ = packed.key_words(node.key)
    key = packed.key_of_words(words)
    cards = [s * S + i for _, s, order in rows for i in order]
    seats = [(q + r) % P for q in range(P)]
    return state_of_key(key, ctx.game, packed.rules), key, seats, cards


def _mapped(move: Any, seats: list[int], cards: list[int], S: int) -> Any:
    """A move of the graph's state in the names of the game's own position (see :func:`canonical`)."""
    from .game import Declaration, Question
    from .solver.moves import Choice

    if isinstance(move, Question):
        return Question(seats[move.asker], seats[move.target], cards[move.card], move.answer)
    if isinstance(move, Declaration):
        return Declaration(seats[move.player], cards[move.set * S] // S)
    return Choice(seats[move.seat])


def tree(packed: QuaternityPacked, ranker: "Ranker | LazyRanker", start: State, side: int, depth: int, winning: bool,
         cap: int = 400) -> dict[str, Any]:
    """The strategy tree of ``side`` forcing its goal from ``start`` (``winning``: its moves, one rank closer each,
    and every reply), or the defence against it (every move of ``side``; for the others one reply that keeps
    ``side`` from its goal, ending the game first); to ``depth`` plies, at most ``cap`` moves. Played in the
    graph's own states (:func:`canonical`), named in the game's."""
    from .solver.moves import move_text

    ctx = packed.context()
    game, S = ctx.game, packed.set_size
    size = [0]

    def rank(child: Any, seat_y: int) -> int:
        return ranker.rank(child, seat_y)

    def grow(st: State, seats: list[int], cards: list[int], left: int) -> dict[str, Any]:
        y, _, ys, yc = canonical(packed, ctx, st)
        seats = [seats[q] for q in ys]
        cards = [cards[c] for c in yc] + cards[len(yc):]
        node = ctx.describe(y)
        if left <= 0 or size[0] >= cap:
            return {"truncated": True}
        me = seats.index(side)
        moves = ctx.moves(node)
        if not moves:
            return {"end": "stuck", "to_move": sorted(seats[q] for q in y.turn)}
        kids = [(m, ctx.play(y, m)) for m in moves]
        if winning and node.mover == me:
            best = min((t for t in kids if rank(ctx.describe(t[1]), me) >= 0),
                       key=lambda t: rank(ctx.describe(t[1]), me), default=None)
            chosen = [best] if best is not None else []
        elif not winning and node.mover != me:
            outside = [t for t in kids if rank(ctx.describe(t[1]), me) < 0]
            outside.sort(key=lambda t: not t[1].over)
            chosen = outside[:1]
        else:
            chosen = kids
        mover = seats[node.mover] if node.mover >= 0 else sorted(seats[q] for q in y.turn)
        out: dict[str, Any] = {"to_move": mover, "moves": []}
        for m, child in chosen:
            size[0] += 1
            real = _mapped(m, seats, cards, S)
            entry: dict[str, Any] = {"move": move_text(game, real),
                                     "player": real.seat if hasattr(real, "seat") else seats[node.mover]}
            if getattr(m, "answer", None) is not None and y.pending is None:
                entry["forced_answer"] = True
            if child.last_claims and not hasattr(real, "seat"):
                entry["claims"] = {game.set_name(cards[s * S] // S): seats[p] for s, p in child.last_claims}
            if child.over:
                winners = sorted(seats[w] for w in ctx.describe(child).winners)
                scores = [0] * len(seats)
                for q, v in enumerate(child.scores):
                    scores[seats[q]] = v
                entry["next"] = {"end": "over", "winners": winners, "scores": scores}
            else:
                entry["next"] = grow(child, seats, cards, left - 1)
            out["moves"].append(entry)
        return out

    P = packed.players
    return grow(start, list(range(P)), list(range(packed.sets * S)), depth)


@dataclass
class BigResult:
    """A start solved by the partitioned solver: the goal's answer (``result``, a :class:`SolveResult`) and what the
    graph took."""

    result: SolveResult
    graph: dict[str, Any] = field(default_factory=dict)
    seats: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {**self.result.to_json(), **self.graph, "seats": self.seats}


def _peak_rss() -> dict[str, int]:
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return {"this_process": me, "largest_worker": kids}


def _head(packed: QuaternityPacked, parts: int) -> dict[str, Any]:
    return {"format": packed.format, "identity": packed.identity(), "parts": parts}


def write_result(folder: str, packed: QuaternityPacked, parts: int, result: dict[str, Any]) -> None:
    """Every seat's answer and the graph's sizes to ``folder/result.json`` (atomically, under a keyed digest): what
    a later run answers from once the graph is dropped."""
    write_signed(os.path.join(folder, "result.json"), _head(packed, parts), {k: result[k] for k in RESULT_FIELDS},
                 RESULT_PURPOSE)


def read_result(folder: str, packed: QuaternityPacked, parts: int) -> dict[str, Any]:
    """The answer stored in ``folder/result.json``: read strictly, its keyed digest, its game and every field
    checked; anything else is refused (:class:`BigSolveError`, one line naming the file)."""
    path = os.path.join(folder, "result.json")
    res = read_signed(path, _head(packed, parts), RESULT_PURPOSE, BigSolveError)
    P = packed.players

    def whole(v: object, lo: int = 0) -> bool:
        return not isinstance(v, bool) and isinstance(v, int) and lo <= v <= pt.MAX_COUNT

    ok = isinstance(res, dict) and set(res) == set(RESULT_FIELDS) and whole(res["positions"], 1) \
        and whole(res["edges"]) and whole(res["layers"], 1) \
        and all(not isinstance(res[k], bool) and isinstance(res[k], (int, float)) and math.isfinite(res[k])
                and res[k] >= 0 for k in ("build_seconds", "attractor_seconds")) \
        and isinstance(res["seats"], dict) and set(res["seats"]) == {str(p) for p in range(P)}
    if ok:
        for entry in res["seats"].values():
            ok = ok and isinstance(entry, dict) and set(entry) == {"wins", "plies"} and isinstance(entry["wins"], bool) \
                and ((entry["wins"] and whole(entry["plies"])) or (not entry["wins"] and entry["plies"] is None))
    if not ok:
        raise BigSolveError(f"{path}: its fields are not those of an answer ({', '.join(RESULT_FIELDS)}; per seat wins "
                            "and plies)")
    return dict(res)


def _dropped(folder: str) -> bool:
    """Whether ``folder`` holds an answer whose graph was dropped (``--drop-graph``): result.json, no part folder."""
    return os.path.isfile(os.path.join(folder, "result.json")) and not os.path.isdir(pt.part_dir(folder, 0))


def solve_start(players: int, sets: int, set_size: int, rules: Rules, folder: str, *, goal: str = "win",
                player: int | None = None, parts: int | None = None, workers: int | None = 0, cluster: Any = None,
                limits: Limits | None = None, attractor: str = "whole", depth: int = 6, keep_graph: bool = True,
                progress: Callable[[dict[str, Any]], None] | None = None, upgrade_layout: bool = False,
                threads: int = 1) -> BigResult:
    """The start of a game of ``players`` seats, ``sets`` sets of ``set_size`` cards under ``rules``, solved in the
    checkpoint ``folder`` for ``goal`` and ``player`` (default seat 0, the first to move); see the module's text.
    Raises :class:`~.packed.PackedError` or :class:`BigSolveError` before any work for a start, goal or option it
    does not take, :class:`quaternity_cp.partitioned.PartitionedError` for a checkpoint of another start or game
    or a damaged one, :class:`quaternity_cp.partitioned.BuildStopped` (and ``AttractorStopped``) when stopped: the
    checkpoint keeps what was done. ``threads``: the compiled expansion's threads when the tasks run in this process
    (``workers=0``; Dask's workers have threads of their own): the graph and the answer are the same for any
    number."""
    seat = check_goal(goal, player, players)
    try:
        threads = check_threads(threads)
    except ValueError as err:
        raise BigSolveError(str(err)) from None
    if threads > 1 and (workers != 0 or cluster is not None):
        raise BigSolveError(f"{threads} threads: the expansion's threads are for the tasks run in this process "
                            "(--workers 0); Dask's workers run tasks side by side themselves")
    packed = replace(packed_of(players, sets, set_size, rules, goal), threads=threads)
    if parts is not None:
        parts = check_parts(parts, players, sets, set_size)
    if not isinstance(folder, str) or not folder.strip():
        raise BigSolveError("--checkpoint: give a folder (an empty name would build in the current folder)")
    user_key()  # (an unusable key file is refused before any work)
    began = time.perf_counter()
    folder = os.path.abspath(folder)  # (the workers' working folder may differ; with a cluster it must be shared)
    if parts is None:  # (a checkpoint goes on in its own parts)
        parts = pt.stored_parts(folder, packed) or default_parts(players, sets, set_size)
    if _dropped(folder):
        try:
            return _from_result(packed, folder, parts, goal, seat, began)
        except BigSolveError:
            pt.refuse_other_parts(folder, packed, parts)  # (a checkpoint in other parts: said so)
            raise
    built, att = pt.solve_graph(packed, folder, parts=parts, workers=workers, cluster=cluster, limits=limits,
                                progress=progress, attractor=attractor, upgrade_layout=upgrade_layout)
    ranker = Ranker(built, att.ranks, packed)
    ctx = packed.context()
    start = Position(Game(players, sets, set_size), rules, engine=ctx.engine).state
    root = ctx.describe(start)
    P = players
    seats: dict[str, Any] = {}
    for p in range(P):
        r = ranker.rank(root, p)
        seats[str(p)] = {"wins": r >= 0, "plies": r if r >= 0 else None}
    game = ctx.game
    res = SolveResult(goal, seat, None, SOLVED, game, rules, engine="partitioned")
    mine = ranker.rank(root, seat)
    if goal == "win":
        res.result = mine >= 0
        res.plies = mine if mine >= 0 else None
        if mine >= 0:
            res.strategy = tree(packed, ranker, start, seat, depth, True)
        else:
            res.defense = tree(packed, ranker, start, seat, depth, False)
    else:
        other = 1 - seat
        theirs = ranker.rank(root, other)
        if mine >= 0:
            res.result, res.winner, res.plies = "win", seat, mine
            res.strategy = tree(packed, ranker, start, seat, depth, True)
        elif theirs >= 0:
            res.result, res.winner, res.plies = "loss", other, theirs
            res.strategy = tree(packed, ranker, start, other, depth, True)
        else:
            res.result = "draw"
    res.positions = built.positions
    res.expanded = built.positions
    res.seconds = time.perf_counter() - began
    disk = sum(int(e[0]) for e in built.files.values()) if built.files else 0
    graph = {"checkpoint": folder, "edges": built.edges, "layers": built.layers, "parts": built.parts,
             "key_bits": packed.layout.bits, "key_words": packed.width, "players_rotated": packed.rotated,
             "kernel": "numba" if packed.compiled else "python", "threads": packed.threads if packed.compiled else 1,
             "build_seconds": round(built.seconds, 2), "attractor": attractor,
             "attractor_seconds": round(att.seconds, 2), "checkpoint_bytes": disk,
             "bytes_per_position": round(disk / max(1, built.positions), 1), "peak_memory_bytes": _peak_rss(),
             "graph_dropped": not keep_graph}
    write_result(folder, packed, parts, {"positions": built.positions, "edges": built.edges,
                                         "layers": built.layers, "build_seconds": round(built.seconds, 2),
                                         "attractor_seconds": round(att.seconds, 2), "seats": seats})
    if not keep_graph:
        pt.drop_graph(built)
    return BigResult(res, graph, seats)


class LazyRanker:
    """The ranks of a lazy win solve's partial graph (:class:`quaternity_cp.lazywin.LazyWin`), read as
    :func:`tree` reads a :class:`Ranker`'s, for its one seat. A position the partial graph does not hold is one
    the player cannot win from when the game's ``doomed`` test says so; else its rank is unknown: -1 for the
    strategy (the player never moves there), :data:`UNKNOWN` for the defence (no reply is chosen there)."""

    def __init__(self, lazy: Any, packed: QuaternityPacked, winning: bool):
        self.lazy, self.packed, self.winning = lazy, packed, winning

    def rank(self, node: Any, seat: int) -> int:
        if node.over:
            return 0 if seat in tuple(node.winners) else -1
        words, f = self.packed.key_words(node.key)
        p = (seat - f) % self.packed.players
        key = np.array([words], np.uint64)
        i = int(self.lazy.lookup(key, np.array([p], np.int8))[0])
        if i < 0:
            if bool(self.packed.doomed(key, np.array([p], np.int8))[0]):
                return -1
            return -1 if self.winning else UNKNOWN
        return int(self.lazy.rank[i])


#: the rank :class:`LazyRanker` gives a position the defence must not choose (not explored: not known to be safe)
UNKNOWN = 1 << 30


#: seconds between two saves of a kept lazy solve's state (``solve_lazy``'s ``save_every``; each save writes
#: every array: about a minute at 200 million positions)
SAVE_EVERY = 1800.0


def solve_lazy(players: int, sets: int, set_size: int, rules: Rules, *, player: int | None = None,
               limits: Limits | None = None, depth: int = 6,
               progress: Callable[[dict[str, Any]], None] | None = None, threads: int = 1,
               checkpoint: str | None = None, save_every: float = SAVE_EVERY,
               on_save: Callable[[int, float], None] | None = None,
               on_error: Callable[[str], None] | None = None, drop_graph: bool = False) -> BigResult:
    """Whether ``player`` (default seat 0) forces being a winner from the start of a game of ``players`` seats,
    ``sets`` sets of ``set_size`` cards under ``rules``, decided lazily over packed positions
    (:func:`quaternity_cp.lazywin.solve_win`, the compiled expansion): the in-memory solver's lazy win solve at a
    fraction of its memory. The strategy (a yes) or the defence (a no) is read from the partial graph's ranks by
    :func:`tree`. Stopped by ``limits`` or Ctrl-C, the verdict is unproven (``status``). Raises
    :class:`~.packed.PackedError` or :class:`BigSolveError` before any work for a start or seat it does not
    take. ``threads``: the compiled expansion's threads (:attr:`.packed.QuaternityPacked.threads`; the answer is
    the same for any number). ``checkpoint``: a folder the solve's state is kept in
    (:mod:`quaternity_cp.lazystate`: every ``save_every`` seconds and when it stops; ``on_save`` is told the
    bytes and seconds of each save on the way, ``on_error`` why one failed: the solve goes on), and gone on from
    when it holds one (refused with :class:`~quaternity_cp.lazystate.LazyStateError` before any work when it is
    another solve's or damaged); the graph's ``save_error`` says why the last save failed (None: the state is
    saved). ``drop_graph``: once answered, the folder keeps the answer only (:func:`.lazystate.drop`), and a
    folder that keeps one is answered from without solving (``graph_dropped``; no strategy tree)."""

    from ..lazywin import solve_win

    seat = check_goal("win", player, players)
    packed = replace(packed_of(players, sets, set_size, rules, "win", lazy=True), threads=threads)
    if drop_graph and checkpoint is None:
        raise BigSolveError("drop_graph goes with a checkpoint (the folder whose state is dropped once answered)")
    began = time.perf_counter()
    kept: dict[str, Any] = {}
    ctx = packed.context()
    grown: list[Any] = [None, None]  # the answer's tree, and why it was cut short (None: whole)

    def grow(out: Any, lazy: Any) -> bool:
        """The answer's tree from the partial graph; whether it is whole (Ctrl-C once the verdict is known cuts
        the tree, not the verdict)."""
        start = Position(Game(players, sets, set_size), rules, engine=ctx.engine).state
        try:
            grown[0] = tree(packed, LazyRanker(lazy, packed, bool(out.verdict)), start, seat, depth,
                            bool(out.verdict))
        except KeyboardInterrupt:
            grown[:] = [None, INTERRUPTED]
        return grown[1] is None

    if checkpoint is None:
        out, lazy = solve_win(packed, seat, limits=limits, progress=progress)
        if out.verdict is not None:
            grow(out, lazy)
    else:
        from .. import lazystate

        stored = lazystate.read_answer(os.path.abspath(checkpoint), packed, seat)
        if stored is not None:
            return _from_lazy_answer(packed, seat, os.path.abspath(checkpoint), stored, began)
        out, lazy, kept = _kept_lazy(packed, seat, limits, progress, checkpoint, save_every, on_save, on_error,
                                     drop_graph, grow)
    game = ctx.game
    status = SOLVED if out.verdict is not None else Status(out.stopped or INTERRUPTED)
    res = SolveResult("win", seat, out.verdict, status, game, rules, engine="lazy-packed")
    if out.verdict is not None:
        res.plies = out.plies
        res.tree_stopped = grown[1]
        if out.verdict:
            res.strategy = grown[0]
        else:
            res.defense = grown[0]
    res.positions = out.positions
    res.expanded = out.expanded
    res.seconds = time.perf_counter() - began
    graph = {"solver": "lazy", "edges": out.edges, "rounds": out.rounds, "key_bits": packed.layout.bits,
             "key_words": packed.width, "players_rotated": packed.rotated,
             "kernel": "numba" if packed.compiled else "python", "threads": packed.threads if packed.compiled else 1,
             "solve_seconds": round(out.seconds, 2),
             "stored_key_words": lazy.store.stride,
             "array_bytes": out.nbytes, "peak_memory_bytes": _peak_rss()["this_process"],
             "tables_let_go": lazy.tables_let_go, **kept}
    seats = {str(seat): {"wins": out.verdict, "plies": out.plies}} if out.verdict is not None else {}
    return BigResult(res, graph, seats)


def _kept_lazy(packed: QuaternityPacked, seat: int, limits: Limits | None,
               progress: Callable[[dict[str, Any]], None] | None, folder: str, save_every: float,
               on_save: Callable[[int, float], None] | None,
               on_error: Callable[[str], None] | None, drop_graph: bool,
               grow: Callable[[Any, Any], bool]) -> tuple[Any, Any, dict[str, Any]]:
    """:func:`solve_lazy`'s solve with its state kept in ``folder`` (:mod:`quaternity_cp.lazystate`). Once
    answered, ``grow`` grows the answer's tree from the graph (it says whether the tree is whole), the folder's
    lock held; then the state is saved, or with ``drop_graph`` and a whole tree, the answer kept instead
    (:func:`~quaternity_cp.lazystate.drop`: a tree cut short by Ctrl-C keeps the state, so that the next run
    grows it again)."""
    from .. import lazystate
    from ..lazywin import ROOT

    lazy, data = lazystate.open_lazy(folder, packed, seat,
                                     expect=limits.max_positions if limits is not None else None)
    earlier = data["extra"] if data is not None and isinstance(data.get("extra"), dict) else {}
    seconds_before = earlier.get("seconds", 0.0)
    seconds_before = float(seconds_before) if isinstance(seconds_before, (int, float)) else 0.0
    runs = earlier.get("runs", 0)
    runs = (runs if isinstance(runs, int) and not isinstance(runs, bool) else 0) + 1
    resumed = lazy.n - ROOT if data is not None else None
    began = time.perf_counter()
    dropped = False
    saves = {"bytes": 0, "seconds": 0.0, "count": 0}

    def extra() -> dict[str, Any]:
        return {"seconds": round(seconds_before + time.perf_counter() - began, 2), "runs": runs,
                "verdict": lazy.verdict, "plies": lazy.plies}

    def saved(nbytes: int, seconds: float) -> None:
        saves["bytes"] += nbytes
        saves["seconds"] += seconds
        saves["count"] += 1
        if on_save is not None:
            on_save(nbytes, seconds)

    errors: list[str] = []

    def failed(why: str) -> None:
        errors.append(why)
        if on_error is not None:
            on_error(why)

    try:
        lazystate.keep(lazy, folder, save_every, extra, saved, failed)
        out = lazy.solve(limits, progress)
        lazy.keeper = None
        whole = grow(out, lazy) if out.verdict is not None else False
        final = extra()  # (the seconds the folder keeps are those this run says: the next run adds to them)
        t0 = time.perf_counter()
        try:
            if drop_graph and whole:  # (the answer kept, the state's files removed)
                lazystate.drop(lazy, folder, _lazy_answer_fields(out, lazy), extra=final)
                dropped = True
            else:
                wrote = lazystate.save(lazy, folder, extra=final)
                saved(wrote, time.perf_counter() - t0)
            errors.clear()  # (the state is saved: earlier failures on the way no longer matter)
        except lazystate.LazyStateError as err:
            errors.append(str(err))
    finally:
        lazystate.close(lazy)  # (the next run may go on from the folder)
    kept = {"checkpoint": os.path.abspath(folder), "runs": runs, "resumed_positions": resumed,
            "total_seconds": final["seconds"], "saves": saves["count"],
            "saved_bytes": saves["bytes"], "save_seconds": round(saves["seconds"], 2),
            "save_error": errors[-1] if errors else None, "graph_dropped": dropped}
    return out, lazy, kept


def _lazy_answer_fields(out: Any, lazy: Any) -> dict[str, Any]:
    """What a folder keeps of a lazy solve's answer once its graph is dropped (lazystate.ANSWER_FIELDS)."""
    return {"verdict": out.verdict, "plies": out.plies, "positions": out.positions, "expanded": out.expanded,
            "edges": out.edges, "rounds": out.rounds, "array_bytes": out.nbytes,
            "stored_key_words": int(lazy.store.stride)}


def _from_lazy_answer(packed: QuaternityPacked, seat: int, folder: str, stored: dict[str, Any],
                      began: float) -> BigResult:
    """The answer of a lazy solve whose graph was dropped, from its folder's manifest (no strategy tree: the
    graph is gone; nothing solved, saved or rewritten)."""
    ans, earlier = stored["answer"], stored["extra"]
    ctx = packed.context()
    res = SolveResult("win", seat, ans["verdict"], SOLVED, ctx.game, packed.rules, engine="lazy-packed")
    res.plies = ans["plies"]
    res.positions, res.expanded = ans["positions"], ans["expanded"]
    res.seconds = time.perf_counter() - began
    seconds, runs = round(float(earlier["seconds"]), 2), earlier["runs"]  # (checked by read_answer)
    graph = {"solver": "lazy", "edges": ans["edges"], "rounds": ans["rounds"], "key_bits": packed.layout.bits,
             "key_words": packed.width, "players_rotated": packed.rotated,
             "kernel": "numba" if packed.compiled else "python", "threads": packed.threads if packed.compiled else 1,
             "solve_seconds": seconds, "stored_key_words": ans["stored_key_words"], "array_bytes": ans["array_bytes"],
             "peak_memory_bytes": _peak_rss()["this_process"], "tables_let_go": 0, "checkpoint": folder, "runs": runs,
             "resumed_positions": ans["positions"], "total_seconds": seconds, "saves": 0, "saved_bytes": 0,
             "save_seconds": 0.0, "save_error": None, "graph_dropped": True}
    return BigResult(res, graph, {str(seat): {"wins": ans["verdict"], "plies": ans["plies"]}})


def _from_result(packed: QuaternityPacked, folder: str, parts: int, goal: str, seat: int, began: float) -> BigResult:
    """The answer of a folder whose graph was dropped, from its result.json (no strategy tree: the graph is
    gone)."""
    stored = read_result(folder, packed, parts)
    seats = stored["seats"]
    ctx = packed.context()
    res = SolveResult(goal, seat, None, SOLVED, ctx.game, packed.rules, engine="partitioned")
    mine = seats[str(seat)]
    if goal == "win":
        res.result, res.plies = mine["wins"], mine["plies"]
    else:
        theirs = seats[str(1 - seat)]
        if mine["wins"]:
            res.result, res.winner, res.plies = "win", seat, mine["plies"]
        elif theirs["wins"]:
            res.result, res.winner, res.plies = "loss", 1 - seat, theirs["plies"]
        else:
            res.result = "draw"
    res.positions = res.expanded = stored["positions"]
    res.seconds = time.perf_counter() - began
    graph = {"checkpoint": folder, "edges": stored["edges"], "layers": stored["layers"], "parts": parts,
             "key_bits": packed.layout.bits, "key_words": packed.width, "players_rotated": packed.rotated,
             "kernel": "numba" if packed.compiled else "python", "build_seconds": stored["build_seconds"], "attractor": None,
             "attractor_seconds": stored["attractor_seconds"], "checkpoint_bytes": 0, "bytes_per_position": 0.0,
             "peak_memory_bytes": _peak_rss(), "graph_dropped": True}
    return BigResult(res, graph, seats)


__all__ = ["max_parts", "default_parts", "DEFAULT_PARTS", "SMALL_PARTS", "GOALS", "BigSolveError", "BigResult",
           "PackedError", "Ranker", "check_goal",
           "check_parts", "packed_of", "solve_start", "solve_lazy", "SAVE_EVERY", "LazyRanker", "UNKNOWN", "tree", "frame_of"]
