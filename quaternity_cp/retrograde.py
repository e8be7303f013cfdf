"""The attractor of a partitioned game graph, in rounds: no process ever holds the whole graph.

Retrograde analysis as Awari's was parallelised (Romein and Bal, 2003: every
processor owns a part of the positions and sends the others only the values
newly decided): for every position of a graph spread over ``parts`` parts and
for every seat ``r`` counted on from the position's mover, the **rank**, the
plies in which that seat forces a win (-1: it cannot), exactly as a queue-based
retrograde analysis over the whole graph gives it.

**What a game hands over** (:class:`PartGraph`, one part at a time, by a
*loader*: a module-level function and its arguments, so that it runs on a Dask
worker too). A position is named by its part ``k`` and its *local* id in the
part (0 .. ``sizes[k] - 1``), or by its *global* id ``local * parts + k``. Each
part gives, for its own positions: the seat to move (``owner``, an offset from
the mover: 0, or the asked seat while a question is open; -1: nobody, a free
choice every seat's opponents make), the number of distinct plies
(``degree``, at most :data:`MAX_DEGREE`), the plies that end the game with a
winner (``ends``: the position, ``winner``: the winner's offset; a ply won by
several seats is one entry per winner),
and the *predecessor lists* of its positions: every inner ply as (its child's
local id, its parent's global id, ``offset``: the seat the child's mover is,
counted on from the parent's mover). The edges are kept with the child's part,
as a layered build stores them (the parent's part need not know them).

**The rounds.** Each part owns its positions' owner and degree, its
``left`` counters (``n x P`` int8: the plies not yet known to lose, for each
seat) and ranks (``n x P`` int16), and its predecessor lists. Round ``t``:

1. *send* (one task per part): the part takes its positions newly ranked ``t``
   (round 0: its plies that end the game, each a message to its own position
   and winner), walks their predecessor lists, and writes the messages
   ``(parent's local id, seat)`` -- the seat ``(r + offset) % P`` for a child
   won by seat ``r`` -- grouped by the parent's part, in files per part
   addressed (written whenever enough are held, see below);
2. *apply* (one task per part that got messages): an unranked (position, seat)
   whose seat is the one to move is ranked ``t + 1`` at its first message;
   another seat's counter drops by the number of its messages, and the pair is
   ranked ``t + 1`` when it reaches 0 (a pair is never ranked twice, and a
   counter below 0 is refused as a graph that is not consistent). The pairs
   newly ranked are the part's frontier of round ``t + 1``.

Rounds go on until a round ranks nothing. Every part's work is numpy over
arrays (a CSR gather, ``np.unique``, fancy indexing): no Python loop per
position. The ranks are those of a queue processed in rank order, pair for
pair (tests/test_retrograde.py compares every rank with the whole-graph
attractor and with the in-memory solver); a rank past :data:`MAX_RANK` is
refused rather than wrapped.

**Files and checkpoints.** Everything lives in ``folder``: per part
(``partNNN/``) its ``nodes.npz`` (owner, degree), ``preds.npz`` (the predecessor
lists, sorted by child: ``start``, ``parent``, ``offset``) and ``ends.npz``
written once by a *prepare* task; its state ``stateRRRRR.npz`` (ranks and
counters after round R: written only by a round that changed them) and its
frontier ``frontRRRRR.npz`` (the pairs ranked R, as ``local * P + seat``); the
messages of a round (``msgRRRRR-KKK.npz``, from part KKK) go through files too,
removed once the round is recorded. After each round ``manifest.json`` is
written atomically: the round, every file's size and SHA-256 and counts, and a
keyed digest (:mod:`quaternity_cp.digest`) of all of it. A run stopped by
Ctrl-C, a limit (``max_rounds``, ``limits.max_seconds``) or a crash (a task that
failed) goes on at the first round not recorded. Every file is read by one
strict reader (:func:`quaternity_cp.partfiles.read_npz`: size before a byte is
read, SHA-256, the arrays' dtypes and shapes from their headers, nothing
unpickled), then every id, seat, rank and counter is range-checked; a damaged,
edited or foreign file is refused with one line naming it (:class:`RetroError`).
A checkpoint of another graph (its ``identity``, given by the caller) is refused.

**Memory per worker** (``n`` positions and ``m`` predecessor edges of one
part, ``P`` seats): a send task holds the part's predecessor lists (8 bytes a
position and 5 an edge as read: a parent's global id takes 4 bytes while every
id of the graph fits, :func:`id_dtype`, else 8), its frontier (8 bytes a pair),
the temporaries of the messages of a span of frontier pairs at a time (about
90 bytes a message: at most :data:`CHUNK` messages or ``m /``
:data:`CHUNK_SHARE`, whichever is more, and at most :data:`CHUNK_MAX`, unless
one pair has more predecessors), and at most about
:data:`FLUSH` messages or ``m /`` :data:`FLUSH_SHARE`, whichever is more (8
bytes each: 2 bytes an edge), before it writes them, one file per part
addressed and flush (``msgRRRRR-KKK.npz``, then ``msgRRRRR-KKK-0001.npz``...);
an apply task holds the owners and degrees (2 bytes a position), the state (3P
bytes a position), a count per pair (P bytes a position) and one message file
at a time; the prepare task holds the part as the game hands it over: sorted
by child (``PartGraph.start``, as the partitioned solver's loader fills it,
file by file), once; otherwise beside its sorted copy (about twice). Range
checks go a chunk at a time (:data:`CHECK_CHUNK`,
:data:`quaternity_cp.partfiles.RANGE_CHUNK`), files are written from views of
the arrays. So about the whole graph's arrays divided by the parts, plus a
constant and the largest file the game's loader reads at once;
``benchmarks/retrograde.py`` and ``benchmarks/solve_scale.py`` measure it. The
process that drives the rounds holds only the manifest.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol, Sequence

import numpy as np

from . import partfiles, taskrecords
from .budget import Limits, Stopped, check_deadline
from .digest import sign_json, user_key, verify_json
from .errors import QuaternityError
from .files import write_atomic
from .jsonio import read_json_file
from .partfiles import Entry

#: the checkpoint's format (its manifest's ``format``)
FORMAT = "quaternity-retrograde-2"
#: formats of earlier versions, refused with a word on what to do
OLD_FORMATS = ("quaternity-retrograde-1",)
#: what a keyed digest of this checkpoint's manifest is for
MANIFEST_PURPOSE = "retrograde-manifest"
#: ranks are kept in 16 bits: a longer forced win is refused rather than wrapped
MAX_RANK = 32_000
#: the most parts of a graph (each round writes up to parts x parts message files)
MAX_PARTS = 256
#: the most seats (offsets are int8)
MAX_SEATS = 64
#: the most plies of a position (the counters are int8)
MAX_DEGREE = 127
#: the largest count (positions, edges) a manifest may give
MAX_COUNT = 2**53
#: the fewest messages a send task gathers at a time: it reads as many frontier pairs as this or its part's edges
#: divided by :data:`CHUNK_SHARE`, whichever is more, at most :data:`CHUNK_MAX` (``per``), and gathers the
#: predecessors of as many of them as give at most ``per`` messages at a time (its temporaries: about 90 bytes
#: a message, so they grow with the part, from a small floor, rather than with the pairs' predecessors)
CHUNK = 1 << 8
#: ... or the part's edges divided by this, whichever is more
CHUNK_SHARE = 64
#: ... and at most this many (about 6 MB of temporaries) however large the part
CHUNK_MAX = 1 << 16
#: messages a send task gathers before it writes them, at least (to files per part addressed): it writes them
#: once it holds this many or a quarter of its part's edges, whichever is more (at most about 2 bytes an edge
#: beside the part's lists, and at most 4P flushes a round)
FLUSH = 1 << 12
#: the fewest positions of a part whose round tasks record their results (:mod:`quaternity_cp.taskrecords`: a
#: round stopped part way goes on from its unfinished tasks; a smaller part's tasks cost less than a record)
RECORD_MIN = 1 << 14
#: a task record's name inside the folder (group 1: the round)
RECORD_NAME = r"part\d{3}/done(\d{5})-(?:send|apply)\.json"
#: ... or the part's edges divided by this, whichever is more
FLUSH_SHARE = 4
#: ids range-checked at a time (bounds the check's temporaries: about 25 bytes an id)
CHECK_CHUNK = 1 << 10

__all__ = ["FORMAT", "MAX_RANK", "MAX_PARTS", "MAX_DEGREE", "RetroError", "RetroStopped", "PartGraph", "Loader",
           "Runner", "Call", "TaskDone", "TaskTally", "Ranks", "attract", "local_runner", "dask_runner", "prepare_task",
           "send_task", "apply_task", "record_rel", "RECORD_MIN", "id_dtype"]


class RetroError(QuaternityError, ValueError):
    """An attractor that cannot be computed or believed: a damaged, edited or foreign checkpoint file, a graph
    handed over that is not consistent, a forced win longer than :data:`MAX_RANK`; one line."""


class RetroStopped(QuaternityError):
    """The rounds stopped before the end (``reason``: ``time``, ``limit``, ``interrupted``, or ``failed``: a task
    raised); the checkpoint keeps every round recorded."""

    def __init__(self, reason: str, rounds: int, ranked: int, detail: str = ""):
        self.reason = reason
        self.rounds = rounds
        self.ranked = ranked
        what = {"time": "the time limit", "limit": "the round limit", "interrupted": "an interrupt",
                "failed": f"a task that failed ({detail})"}.get(reason, reason)
        super().__init__(f"the attractor stopped at {what} after {rounds} rounds ({ranked:,} ranks given); run "
                         "again with the same checkpoint to go on")


@dataclass(frozen=True)
class PartGraph:
    """One part's share of the graph, as a game hands it over (see the module's docstring): per position
    ``owner`` and ``degree``; per inner ply kept here ``child`` (local id here), ``parent`` (global id) and
    ``offset``; per ply that ends the game ``ends`` (local id here) and ``winner`` (an offset, or -1: nobody
    wins, ignored).

    ``start``: the edges already sorted by child, as the predecessor lists are kept (the edges of local position
    ``i`` are ``start[i]:start[i + 1]``; ``child`` is then not read and may be empty). A game that fills its
    lists so, file by file, spares the prepare task the sort and its copies: the task then holds the part once."""

    owner: np.ndarray
    degree: np.ndarray
    child: np.ndarray
    parent: np.ndarray
    offset: np.ndarray
    ends: np.ndarray
    winner: np.ndarray
    start: "np.ndarray | None" = None


#: a part's loader: a module-level function and its arguments (picklable), called as ``fn(*args)``
Loader = tuple[Callable[..., PartGraph], tuple[Any, ...]]
#: a task call: a module-level function and its arguments (picklable: it may run on a Dask worker)
Call = tuple[Callable[..., Any], tuple[Any, ...]]
#: told, in the driver's process, of each task of a list as it ends: (its index in the list, its result); what it
#: raises stops the list as a task's failure does (the tasks not ended are cancelled)
TaskDone = Callable[[int, Any], None]


class Runner(Protocol):
    """Runs a list of task calls and returns their results in order (here, or on Dask workers), telling ``done``
    (when given) of each task as it ends, in the order they end. A runner that cannot tell may ignore ``done``:
    the drivers then report steps only."""

    def __call__(self, calls: list[Call], done: TaskDone | None = None) -> list[Any]: ...


class TaskTally:
    """A step's tasks counted as they end (a :data:`TaskDone`): ``done`` of ``of`` (those recorded before this run
    counted as done) and, with a ``key``, ``total``: the sum of each result's item ``at`` (moves, new positions,
    messages, ranks; the recorded ones' included). Each task whose ``big`` flag is set (its part is worth a
    record) is told to ``progress`` as a dict of ``fields``, ``done``, ``of``, ``key``: ``total`` and ``seconds``
    (``clock``'s)."""

    def __init__(self, progress: Callable[[dict[str, Any]], None] | None, clock: Callable[[], float],
                 fields: Mapping[str, Any], of: int, recorded: Sequence[Any], big: Sequence[bool],
                 key: str | None = None, at: int = 0):
        self.progress, self.clock, self.fields, self.of = progress, clock, dict(fields), of
        self.big, self.key, self.at = list(big), key, at
        self.done = sum(1 for r in recorded if r is not None)
        self.total = sum(int(r[at]) for r in recorded if r is not None) if key is not None else 0

    def __call__(self, i: int, result: Any) -> None:
        self.done += 1
        if self.key is not None:
            self.total += int(result[self.at])
        if self.big[i] and self.progress is not None:
            counted = {} if self.key is None else {self.key: self.total}
            self.progress({**self.fields, "done": self.done, "of": self.of, **counted,
                           "seconds": round(self.clock(), 1)})


def local_runner(calls: list[Call], done: TaskDone | None = None) -> list[Any]:
    """The tasks run here, one after the other."""
    out = []
    for i, (fn, args) in enumerate(calls):
        out.append(fn(*args))
        if done is not None:
            done(i, out[-1])
    return out


def dask_runner(client: Any) -> Runner:
    """The tasks run on a Dask client's workers (see :func:`quaternity_cp.cluster.dask_client`); a failure
    cancels the others."""
    def run(calls: list[Call], done: TaskDone | None = None) -> list[Any]:
        futures = [client.submit(fn, *args, pure=False) for fn, args in calls]
        try:
            if done is not None:
                from dask.distributed import as_completed

                index = {future.key: i for i, future in enumerate(futures)}
                ended = as_completed(futures, with_results=True)  # type: ignore[no-untyped-call]
                for future, result in ended:
                    done(index[future.key], result)
            return list(client.gather(futures))
        except BaseException:
            client.cancel(futures)
            raise
    return run


# -- the files -------------------------------------------------------------------------------------------------
_I64, _I32, _I16, _I8 = np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.int16), np.dtype(np.int8)


def id_dtype(sizes: Sequence[int]) -> "np.dtype[Any]":
    """The dtype of the parents' global ids (``local * parts + part``) in a graph of parts of ``sizes``
    positions: 4 bytes while every id fits, else 8 (so a part's predecessor lists take 5 bytes an edge, as
    the whole-graph attractor's)."""
    parts = len(sizes)
    most = max((int(x) for x in sizes), default=0) * parts + parts
    return _I32 if most < 2**31 else _I64


def _spec(kind: str, n: int, m: int, P: int, ids: "np.dtype[Any]" = _I64
          ) -> dict[str, tuple[np.dtype[Any], tuple[int, ...]]]:
    """The arrays of a file of ``kind`` for ``n`` positions and ``m`` edges (or pairs, messages, ends); ``ids``:
    the dtype of the predecessor lists' parents (:func:`id_dtype`)."""
    if kind == "nodes":
        return {"owner": (_I8, (n,)), "degree": (_I8, (n,))}
    if kind == "preds":
        return {"start": (_I64, (n + 1,)), "parent": (ids, (m,)), "offset": (_I8, (m,))}
    if kind == "ends":
        return {"pos": (_I64, (m,)), "winner": (_I8, (m,))}
    if kind == "state":
        return {"rank": (_I16, (n, P)), "left": (_I8, (n, P))}
    if kind in ("front", "msg"):
        return {"key": (_I64, (m,))}
    raise ValueError(kind)  # pragma: no cover - the callers name the kinds above


_GRAPH_KINDS = ("nodes", "preds", "ends")


def _part_dir(k: int) -> str:
    return f"part{k:03d}"


def _rel(kind: str, k: int, round_: int = 0, source: int = 0, piece: int = 0) -> str:
    """A file's name inside the folder."""
    if kind in _GRAPH_KINDS:
        return f"{_part_dir(k)}/{kind}.npz"
    if kind == "msg":  # (``piece``: the send task's flushes of its messages after the first)
        more = f"-{piece:04d}" if piece else ""
        return f"{_part_dir(k)}/msg{round_:05d}-{source:03d}{more}.npz"
    return f"{_part_dir(k)}/{kind}{round_:05d}.npz"


def _read(folder: str, rel: str, entry: Entry, kind: str, P: int, ids: "np.dtype[Any]" = _I64
          ) -> tuple[str, dict[str, np.ndarray]]:
    path = os.path.join(folder, rel)
    return path, partfiles.read_npz(path, entry, _spec(kind, entry[2], entry[3], P, ids), RetroError)


def _ranges(path: str, arrays: Mapping[str, np.ndarray], ranges: Mapping[str, tuple[Any, Any]]) -> None:
    partfiles.check_ranges(path, arrays, ranges, RetroError)


def _check_parents(path: str, parent: np.ndarray, sizes: np.ndarray) -> None:
    """``parent``: global ids of positions of the graph (in chunks: no temporary of the whole array)."""
    parts = len(sizes)
    for lo in range(0, len(parent), CHECK_CHUNK):
        g = parent[lo:lo + CHECK_CHUNK]
        if int(g.min()) < 0:
            raise RetroError(f"{path}: parent holds {int(g.min())}, not a position's id; remove the folder to start "
                             "again")
        k = g % parts
        bad = g // parts >= sizes[k]
        if bad.any():
            raise RetroError(f"{path}: parent holds {int(g[bad][0])}, not a position of the graph; remove the folder "
                             "to start again")


# -- the tasks (module level: they run on Dask workers) -------------------------------------------------------
def prepare_task(folder: str, P: int, sizes: Sequence[int], k: int, loader: Loader, deadline: float | None = None,
                 token: str | None = None) -> list[Entry]:
    """Part ``k``'s share of the graph (``loader``) checked and written: its owners and degrees, its predecessor
    lists sorted by child, its plies that end the game with a winner. Returns the entries of the three files.
    ``deadline``: the time limit (:meth:`~quaternity_cp.budget.Budget.wall_deadline`), checked before the part is
    loaded, once it is, and before its files are written (past it :class:`~quaternity_cp.budget.Stopped`, nothing
    written); ``token``: the preparation's (:func:`prepare_token`), to record the result (:func:`record_rel`)."""
    n = int(sizes[k])
    fn, args = loader
    check_deadline(deadline)
    got = fn(*args)
    check_deadline(deadline)
    where = f"part {k} of the graph handed over"
    if not isinstance(got, PartGraph):
        raise RetroError(f"{where}: not a PartGraph")
    sorted_ = got.start is not None
    names = ("owner", "degree", "parent", "offset", "ends", "winner") + (("start",) if sorted_ else ("child",))
    arrays = {name: np.asarray(getattr(got, name)) for name in names}
    for name, a in arrays.items():
        if a.ndim != 1 or not (np.issubdtype(a.dtype, np.integer) or len(a) == 0):
            raise RetroError(f"{where}: {name} must be a flat array of whole numbers, not {a.dtype} {a.shape}")
    if len(arrays["owner"]) != n or len(arrays["degree"]) != n:
        raise RetroError(f"{where}: {len(arrays['owner'])} owners and {len(arrays['degree'])} degrees for {n} "
                         "positions")
    m = len(arrays["parent"])
    if sorted_:
        st = arrays["start"]
        if (len(st) != n + 1 or int(st[0]) != 0 or int(st[-1]) != m
                or (n and bool(np.any(st[1:] < st[:-1])))):
            raise RetroError(f"{where}: start must rise from 0 to the {m} edges over {n} positions")
    elif len(arrays["child"]) != m:
        raise RetroError(f"{where}: the edges' arrays (child, parent, offset) differ in length")
    if len(arrays["offset"]) != m or len(arrays["ends"]) != len(arrays["winner"]):
        raise RetroError(f"{where}: the edges' arrays (child, parent, offset) or the ends' (ends, winner) differ "
                         "in length")
    _ranges(where, arrays, {"owner": (-1, P), "degree": (0, MAX_DEGREE + 1), "offset": (0, P), "ends": (0, n),
                            "winner": (-1, P), **({} if sorted_ else {"child": (0, n)})})
    if m:
        _check_parents(where, arrays["parent"], np.asarray(sizes, np.int64))
    keep = arrays["winner"] >= 0
    ends = arrays["ends"][keep].astype(np.int64, copy=False)
    winner = arrays["winner"][keep].astype(np.int8, copy=False)
    owner = arrays["owner"].astype(np.int8, copy=False)  # (no copy when the loader's dtypes are the files')
    degree = arrays["degree"].astype(np.int8, copy=False)
    # (a ply won by several seats is one row per winner: no seat has more such rows than plies)
    pairs, rows = np.unique(ends * P + winner, return_counts=True)  # (memory per end, not per position)
    if len(ends) and np.any(rows > degree[pairs // P]):
        raise RetroError(f"{where}: a position has more plies that end the game than its degree (not consistent)")
    parent, offset = arrays["parent"], arrays["offset"]
    if sorted_:  # handed over as the lists are kept: written as they are (no copy when the dtypes are the files')
        start = arrays["start"].astype(np.int64, copy=False)
        del got, arrays, keep
        parent = parent.astype(id_dtype(sizes), copy=False)
        offset = offset.astype(np.int8, copy=False)
    else:
        child = arrays["child"]
        del got, arrays, keep  # (the edges sorted by child, with no more than one copy of them at a time)
        order = np.argsort(child, kind="stable")
        start = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(child, minlength=n), out=start[1:])
        del child
        parent = parent[order].astype(id_dtype(sizes), copy=False)
        offset = offset[order].astype(np.int8, copy=False)
        del order
    check_deadline(deadline)
    os.makedirs(os.path.join(folder, _part_dir(k)), exist_ok=True)
    entries = [partfiles.save_npz(os.path.join(folder, _rel("nodes", k)), n, 0, owner=owner, degree=degree),
               partfiles.save_npz(os.path.join(folder, _rel("preds", k)), n, m, start=start, parent=parent,
                                  offset=offset),
               partfiles.save_npz(os.path.join(folder, _rel("ends", k)), 0, len(ends), pos=ends, winner=winner)]
    taskrecords.write(os.path.join(folder, record_rel("prepare", k)), token, {"kind": "prepare", "part": k}, entries)
    return entries


def message_spans(lens: np.ndarray, per: int) -> list[tuple[int, int]]:
    """Consecutive spans of pairs whose messages (``lens``) add up to at most ``per``, a span at least one pair
    (a pair with more predecessors than ``per`` is a span of its own)."""
    ends_at = np.cumsum(lens)
    spans: list[tuple[int, int]] = []
    a, n, done = 0, len(lens), 0
    while a < n:
        b = max(int(np.searchsorted(ends_at, done + per, side="right")), a + 1)
        spans.append((a, b))
        done = int(ends_at[b - 1])
        a = b
    return spans


def send_task(folder: str, P: int, sizes: Sequence[int], k: int, t: int, graph: Sequence[Entry],
              front: Entry | None, deadline: float | None = None, token: str | None = None
              ) -> tuple[int, dict[int, list[tuple[str, Entry]]]]:
    """Round ``t``'s messages of part ``k``: from its frontier (the pairs ranked ``t``, file ``front``; round 0:
    its plies that end the game), each to the parts of the parents, in files per part addressed: written each
    time :data:`FLUSH` messages are gathered (so the task holds at most about that many beside the part's
    lists). Returns the messages written and, per part addressed, its files' names and entries. ``deadline``:
    the time limit (:meth:`~quaternity_cp.budget.Budget.wall_deadline`), checked between blocks of frontier
    pairs (past it :class:`~quaternity_cp.budget.Stopped`); ``token``: the round's, to record the result
    (:func:`record_rel`)."""
    sent, written = _send(folder, P, sizes, k, t, graph, front, deadline)
    taskrecords.write(os.path.join(folder, record_rel("send", k, t)), token, {"kind": "send", "part": k, "round": t},
                      [sent, {str(j): [[rel, entry] for rel, entry in files] for j, files in written.items()}])
    return sent, written


def _send(folder: str, P: int, sizes: Sequence[int], k: int, t: int, graph: Sequence[Entry],
          front: Entry | None, deadline: float | None) -> tuple[int, dict[int, list[tuple[str, Entry]]]]:
    parts = len(sizes)
    n = int(sizes[k])
    out: dict[int, list[np.ndarray]] = {}
    written: dict[int, list[tuple[str, Entry]]] = {}
    held = sent = 0
    flushes = 0

    def flush() -> None:
        nonlocal held, sent, flushes
        for j, chunks in sorted(out.items()):
            keys_j = np.concatenate(chunks) if len(chunks) > 1 else chunks[0]
            rel = _rel("msg", j, t, k, flushes)
            os.makedirs(os.path.join(folder, _part_dir(j)), exist_ok=True)
            written.setdefault(j, []).append((rel, partfiles.save_npz(os.path.join(folder, rel), 0, len(keys_j),
                                                                      key=np.ascontiguousarray(keys_j, np.int64))))
            sent += len(keys_j)
        out.clear()
        held = 0
        flushes += 1

    if t == 0:
        path, ends = _read(folder, _rel("ends", k), graph[2], "ends", P)
        _ranges(path, ends, {"pos": (0, n), "winner": (0, P)})
        if len(ends["pos"]):
            out[k] = [ends["pos"] * P + ends["winner"]]
            held = len(ends["pos"])
    elif front is not None:
        path, fr = _read(folder, _rel("front", k, t), front, "front", P)
        _ranges(path, fr, {"key": (0, n * P)})
        path, preds = _read(folder, _rel("preds", k), graph[1], "preds", P, id_dtype(sizes))
        start, parent, offset = preds["start"], preds["parent"], preds["offset"]
        m = len(parent)
        if int(start[0]) != 0 or int(start[-1]) != m or bool(np.any(np.diff(start) < 0)):
            raise RetroError(f"{path}: start is not the bounds of {m:,} predecessors in order; remove the folder to "
                             "start again")
        bounds_of = np.asarray(sizes, np.int64)
        keys = fr["key"]
        per = min(CHUNK_MAX, max(CHUNK, m // CHUNK_SHARE))
        for lo in range(0, len(keys), per):  # (a block of pairs: their spans, each at most ``per`` messages)
            check_deadline(deadline)
            block = keys[lo:lo + per]
            block_lens = start[block // P + 1] - start[block // P]
            for a, b in message_spans(block_lens, per):
                chunk = block[a:b]
                pos, seat = chunk // P, chunk % P
                first = start[pos]
                lens = block_lens[a:b]
                total = int(lens.sum())
                if not total:
                    continue
                ends_at = np.cumsum(lens)
                idx = np.repeat(first - (ends_at - lens), lens) + np.arange(total, dtype=np.int64)
                g, off = parent[idx].astype(np.int64, copy=False), offset[idx]
                _check_parents(path, g, bounds_of)  # (the ids and seats used are checked, as they are used)
                if partfiles.outside(off, 0, P):
                    raise RetroError(f"{path}: offset holds {int(off[(off < 0) | (off >= P)][0])}, outside "
                                     f"0..{P - 1}; remove the folder to start again")
                seats = (np.repeat(seat, lens) + off) % P
                dest = g % parts
                msg = (g // parts) * P + seats
                del idx, g, off, seats
                order = np.argsort(dest, kind="stable")
                bounds = np.concatenate([[0], np.cumsum(np.bincount(dest, minlength=parts))])
                msg = msg[order]
                del order, dest
                for to in np.nonzero(np.diff(bounds))[0]:
                    out.setdefault(int(to), []).append(msg[bounds[to]:bounds[to + 1]])
                del msg
                held += total
                if held >= max(FLUSH, m // FLUSH_SHARE):
                    flush()
    if out:
        flush()
    return sent, written


def apply_task(folder: str, P: int, sizes: Sequence[int], j: int, t: int, nodes: Entry,
               state: Sequence[Any] | None, inbox: Mapping[str, Entry], deadline: float | None = None,
               token: str | None = None) -> tuple[int, Entry | None, Entry | None]:
    """Round ``t``'s messages to part ``j`` (``inbox``: their files' names and entries) applied to its state after
    round ``t - 1`` (``state``: [round, entry], or None: nothing ranked yet). Returns the pairs newly ranked
    ``t + 1``, the entry of the new state file (None: unchanged) and of the frontier file (None: empty).
    ``deadline`` (checked before each message file is read) and ``token`` as :func:`send_task`'s."""
    got = _apply(folder, P, sizes, j, t, nodes, state, inbox, deadline)
    taskrecords.write(os.path.join(folder, record_rel("apply", j, t)), token,
                      {"kind": "apply", "part": j, "round": t}, list(got))
    return got


def _apply(folder: str, P: int, sizes: Sequence[int], j: int, t: int, nodes: Entry, state: Sequence[Any] | None,
           inbox: Mapping[str, Entry], deadline: float | None) -> tuple[int, Entry | None, Entry | None]:
    n = int(sizes[j])
    path, nd = _read(folder, _rel("nodes", j), nodes, "nodes", P)
    _ranges(path, nd, {"owner": (-1, P), "degree": (0, MAX_DEGREE + 1)})
    owner = nd["owner"]
    if state is None:
        rank = np.full((n, P), -1, np.int16)
        left = np.repeat(nd["degree"].reshape(n, 1), P, axis=1)
    else:
        path, st = _read(folder, _rel("state", j, int(state[0])), state[1], "state", P)
        _ranges(path, st, {"rank": (-1, t + 1), "left": (0, MAX_DEGREE + 1)})
        rank, left = st["rank"], st["left"]
    # the messages counted per pair, one file at a time (a count past any degree is refused, so a byte holds it)
    counts = np.zeros(n * P, np.uint8)
    for rel, entry in sorted(inbox.items()):
        check_deadline(deadline)
        path, msg = _read(folder, rel, entry, "msg", P)
        _ranges(path, msg, {"key": (0, n * P)})
        got, times = np.unique(msg["key"], return_counts=True)
        del msg
        total = counts[got] + times
        if len(total) and int(total.max()) > MAX_DEGREE:
            bad = int(got[total > MAX_DEGREE][0]) // P
            raise RetroError(f"part {j}, position {bad}: more plies answered than it has (its degree); the graph "
                             "handed over is not consistent")
        counts[got] = total
        del got, times, total
    pair = np.flatnonzero(counts)
    if not len(pair):
        return 0, None, None
    count = counts[pair].astype(np.int64)
    del counts
    i, r = pair // P, pair % P
    fresh = rank[i, r] < 0
    pair, count, i, r = pair[fresh], count[fresh], i[fresh], r[fresh]
    if not len(pair):
        return 0, None, None
    own = owner[i] == r
    other = ~own
    now = left[i[other], r[other]].astype(np.int64) - count[other]
    if len(now) and int(now.min()) < 0:
        bad = int(i[other][now < 0][0])
        raise RetroError(f"part {j}, position {bad}: more plies answered than it has (its degree); the graph "
                         "handed over is not consistent")
    if not rank.flags.writeable:  # (arrays read from a file share its buffer; a copy only when read-only)
        rank, left = rank.copy(), left.copy()
    left[i[other], r[other]] = now
    newly = own.copy()
    newly[other] = now == 0
    if t + 1 > MAX_RANK:  # pragma: no cover - the driver stops at round MAX_RANK before
        raise RetroError(f"a forced win longer than {MAX_RANK} plies; no answer is given")
    rank[i[newly], r[newly]] = t + 1
    frontier = pair[newly]
    state_entry = partfiles.save_npz(os.path.join(folder, _rel("state", j, t)), n, 0, rank=rank, left=left)
    front_entry = None
    if len(frontier):
        front_entry = partfiles.save_npz(os.path.join(folder, _rel("front", j, t + 1)), 0, len(frontier),
                                         key=np.ascontiguousarray(frontier, np.int64))
    return int(len(frontier)), state_entry, front_entry


# -- a round's finished tasks ------------------------------------------------------------------------------------
def record_rel(kind: str, k: int, t: int = 0) -> str:
    """The name, inside the folder, of the record of part ``k``'s ``kind`` task (``send``, ``apply``) of round
    ``t``, or of its ``prepare`` task (no round: it comes before the first, and its records go once the manifest
    is written)."""
    if kind == "prepare":
        return f"{_part_dir(k)}/done-prepare.json"
    return f"{_part_dir(k)}/done{t:05d}-{kind}.json"


def prepare_token(head: Mapping[str, Any]) -> str:
    """The key of the preparation's records: the keyed digest of the manifest's head (the seats, the parts' sizes
    and the graph's identity), so that a record of another graph is not taken."""
    return taskrecords.step_token(head, MANIFEST_PURPOSE + "-prepare")


def _prepared(folder: str, token: Callable[[], str], k: int) -> list[Entry] | None:
    """Part ``k``'s files as its prepare task recorded them; None without a record. A file it names that is
    missing or of another size is refused (:class:`RetroError`, naming it)."""
    got = taskrecords.read(os.path.join(folder, record_rel("prepare", k)), token, {"kind": "prepare", "part": k},
                           RetroError)
    if not isinstance(got, list) or len(got) != 3:
        return None  # (no record; a MAC'd record is this program's, of this shape)
    partfiles.check_present(folder, {_rel(kind, k): entry for kind, entry in zip(_GRAPH_KINDS, got)}, RetroError)
    return got


def _clear_prepared(folder: str, parts: int) -> None:
    for k in range(parts):
        try:
            os.unlink(os.path.join(folder, record_rel("prepare", k)))
        except FileNotFoundError:
            pass


def _recorded(folder: str, token: Callable[[], str], kind: str, k: int, t: int) -> Any:
    """Part ``k``'s ``kind`` task of round ``t`` as it recorded its result, in the shape the task returns; None
    without a record (:func:`quaternity_cp.taskrecords.read`). A file it names that is missing or of another size
    is refused (:class:`RetroError`, naming it)."""
    got = taskrecords.read(os.path.join(folder, record_rel(kind, k, t)), token, {"kind": kind, "part": k, "round": t},
                           RetroError)
    if kind == "send":
        if (not isinstance(got, list) or len(got) != 2 or not isinstance(got[0], int) or not isinstance(got[1], dict)
                or not all(isinstance(x, list) and all(isinstance(f, list) and len(f) == 2 for f in x)
                           for x in got[1].values())):
            return None  # (no record; a MAC'd record is this program's, of this shape)
        written = {int(j): [(str(rel), entry) for rel, entry in files] for j, files in got[1].items()}
        partfiles.check_present(folder, {rel: entry for files in written.values() for rel, entry in files},
                                RetroError)
        return int(got[0]), written
    if not isinstance(got, list) or len(got) != 3 or not isinstance(got[0], int):
        return None
    count, state, front = got
    partfiles.check_present(folder, {name: entry for name, entry in ((_rel("state", k, t), state),
                                                                     (_rel("front", k, t + 1), front))
                                     if entry is not None}, RetroError)
    return count, state, front


def _record_files(folder: str, man: Mapping[str, Any], token: Callable[[], str]) -> set[str]:
    """The files that the records of the round ``man`` starts name (kept by :func:`_clean`)."""
    t, out = int(man["rounds"]), set[str]()
    for k in range(int(man["parts"])):
        sent = _recorded(folder, token, "send", k, t)
        if sent is not None:
            out.update(rel for files in sent[1].values() for rel, _ in files)
        applied = _recorded(folder, token, "apply", k, t)
        if applied is not None:
            out.update(name for name, entry in ((_rel("state", k, t), applied[1]),
                                                (_rel("front", k, t + 1), applied[2])) if entry is not None)
    return out


# -- the manifest ------------------------------------------------------------------------------------------------
#: every key of a manifest besides its head's
_BODY = ("edges", "ends", "graph", "rounds", "ranked", "complete", "seconds", "state", "front")


def _head(P: int, sizes: Sequence[int], identity: Mapping[str, Any]) -> dict[str, Any]:
    return {"format": FORMAT, "players": P, "parts": len(sizes), "sizes": list(sizes), "identity": dict(identity)}


def _write_manifest(folder: str, body: Mapping[str, Any]) -> None:
    text = json.dumps({**body, "digest": sign_json(dict(body), MANIFEST_PURPOSE)}, sort_keys=True,
                      separators=(",", ":"))
    write_atomic(os.path.join(folder, "manifest.json"), text + "\n")


def _whole(path: str, name: str, value: object, lo: int = 0, hi: int = MAX_COUNT) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise RetroError(f"{path}: {name} must be a whole number {lo}..{hi:,}, not {json.dumps(value)[:40]}")
    return value


def _read_manifest(folder: str, head: Mapping[str, Any]) -> dict[str, Any] | None:
    """The folder's manifest once its format, keyed digest, graph and every field are checked; None when there
    is none."""
    path = os.path.join(folder, "manifest.json")
    data = read_json_file(path, RetroError, "checkpoint")
    if data is None:
        return None
    if isinstance(data, dict) and data.get("format") in OLD_FORMATS:
        raise RetroError(f"{path}: an attractor's checkpoint of an earlier version of this program "
                         f"({data['format']}); remove the folder to start again")
    if not isinstance(data, dict) or "digest" not in data or data.get("format") != FORMAT:
        raise RetroError(f"{path}: not an attractor's checkpoint of this program")
    digest = data.pop("digest")
    if not verify_json(digest, data, MANIFEST_PURPOSE):
        raise RetroError(f"{path}: the checkpoint was changed or damaged, or written under another user's key (its "
                         "keyed digest does not match); remove the folder to start again")
    if {key: data.get(key) for key in head} != dict(head):
        raise RetroError(f"{path}: the attractor of another graph; remove the folder to start again")
    _check_manifest(path, data, head)
    return data


def _entry(path: str, name: str, entry: object, kind: str, n: int, m_most: int, P: int,
           m_exact: bool = True, ids: "np.dtype[Any]" = _I64) -> None:
    """A file's entry: its form, its counts (``n`` positions; ``m_most`` edges, or at most that many), and a size
    that holds them."""
    if not partfiles.is_entry(entry):
        raise RetroError(f"{path}: {name} must be [bytes, SHA-256 in hex, positions, edges]")
    assert isinstance(entry, list)
    size = _whole(path, f"{name} bytes", entry[0])
    _whole(path, f"{name} positions", entry[2], n, n)
    m = _whole(path, f"{name} edges", entry[3], m_most if m_exact else 1, m_most)
    if not partfiles.size_fits(size, _spec(kind, n, m, P, ids)):
        raise RetroError(f"{path}: {name}: {size:,} bytes cannot hold its {n:,} positions and {m:,} edges")


def _check_manifest(path: str, data: Mapping[str, Any], head: Mapping[str, Any]) -> None:
    """Every field of a manifest: its keys, types and ranges, and an entry for every file with counts that agree
    with the sizes."""
    allowed = set(head) | set(_BODY)
    if set(data) != allowed:
        raise RetroError(f"{path}: unexpected or missing fields {sorted(set(data) ^ allowed)}")
    P, parts, sizes = int(head["players"]), int(head["parts"]), list(head["sizes"])
    for name in ("edges", "ends"):
        row = data[name]
        if not isinstance(row, list) or len(row) != parts:
            raise RetroError(f"{path}: {name} must be a list of {parts} numbers (one per part)")
        for k, v in enumerate(row):
            _whole(path, f"{name}[{k}]", v, 0, MAX_COUNT if name == "edges" else sizes[k] * P)
    graph = data["graph"]
    if not isinstance(graph, list) or len(graph) != parts or not all(isinstance(g, list) and len(g) == 3
                                                                       for g in graph):
        raise RetroError(f"{path}: graph must list the nodes, preds and ends files of each of the {parts} parts")
    for k, (nodes, preds, ends) in enumerate(graph):
        _entry(path, f"graph[{k}] nodes", nodes, "nodes", sizes[k], 0, P)
        _entry(path, f"graph[{k}] preds", preds, "preds", sizes[k], data["edges"][k], P, ids=id_dtype(sizes))
        _entry(path, f"graph[{k}] ends", ends, "ends", 0, data["ends"][k], P)
    rounds = _whole(path, "rounds", data["rounds"], 0, MAX_RANK + 1)
    _whole(path, "ranked", data["ranked"], 0, sum(sizes) * P)
    complete = data["complete"]
    if not isinstance(complete, bool):
        raise RetroError(f"{path}: complete must be true or false, not {json.dumps(complete)[:40]}")
    seconds = data["seconds"]
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) \
            or seconds < 0:
        raise RetroError(f"{path}: seconds must be a number of seconds >= 0, not {json.dumps(seconds)[:40]}")
    state, front = data["state"], data["front"]
    if not isinstance(state, list) or len(state) != parts or not isinstance(front, list) or len(front) != parts:
        raise RetroError(f"{path}: state and front must be lists of {parts} (one per part)")
    for k, item in enumerate(state):
        if item is None:
            continue
        if not isinstance(item, list) or len(item) != 2:
            raise RetroError(f"{path}: state[{k}] must be null or [round, entry]")
        _whole(path, f"state[{k}] round", item[0], 0, rounds - 1)
        _entry(path, f"state[{k}]", item[1], "state", sizes[k], 0, P)
    for k, item in enumerate(front):
        if item is not None:
            if rounds == 0 or complete:
                raise RetroError(f"{path}: front[{k}]: a frontier {'after the last' if complete else 'before any'} "
                                 "round")
            _entry(path, f"front[{k}]", item, "front", 0, sizes[k] * P, P, m_exact=False)


def _listed(man: Mapping[str, Any]) -> dict[str, Entry]:
    """Every file a manifest lists: name inside the folder -> entry."""
    out: dict[str, Entry] = {}
    for k, entries in enumerate(man["graph"]):
        for kind, entry in zip(_GRAPH_KINDS, entries):
            out[_rel(kind, k)] = entry
    for k, item in enumerate(man["state"]):
        if item is not None:
            out[_rel("state", k, item[0])] = item[1]
    for k, item in enumerate(man["front"]):
        if item is not None:
            out[_rel("front", k, man["rounds"])] = item
    return out


_ROUND_FILE = re.compile(r"^(state\d{5}|front\d{5}|msg\d{5}-\d{3}(-\d{4,})?)\.npz(\.tmp\d+(-\d+)?\.npz)?$")


def _clean(folder: str, man: Mapping[str, Any], also: set[str] | frozenset[str] = frozenset()) -> None:
    """The round files the manifest does not list removed (messages of a round done, states and frontiers
    replaced, anything of a round not recorded but what the records of its finished tasks name, ``also``)."""
    keep = set(_listed(man)) | set(also)
    for k in range(int(man["parts"])):
        part = os.path.join(folder, _part_dir(k))
        try:
            names = os.listdir(part)
        except FileNotFoundError:
            continue
        for name in names:
            rel = f"{_part_dir(k)}/{name}"
            if _ROUND_FILE.match(name) and rel not in keep:
                try:
                    os.unlink(os.path.join(part, name))
                except FileNotFoundError:  # pragma: no cover - removed meanwhile
                    pass


# -- the ranks found -------------------------------------------------------------------------------------------
class Ranks:
    """Every position's ranks as the rounds left them, part by part in the folder: :meth:`part` reads one part's
    ``(n, P)`` ranks (strictly); ``ranks[i, r]`` the rank of the position of *dense* id ``i`` (the parts'
    positions numbered one part after the other, each in local id order) for seat ``r``, reading its part
    (the last ``cache`` parts read are kept); :meth:`dense` all of them in one array (the whole graph's ranks:
    for tests and small graphs)."""

    def __init__(self, folder: str, players: int, sizes: Sequence[int], state: Sequence[Any], rounds: int,
                 ranked: int, edges: int, seconds: float, cache: int = 2):
        self.folder = folder
        self.players = players
        self.sizes = tuple(int(s) for s in sizes)
        self.state = list(state)
        self.rounds = rounds
        self.ranked = ranked
        self.edges = edges
        self.seconds = seconds
        self.bases = np.concatenate([[0], np.cumsum(np.array(self.sizes, np.int64))])
        self._cache: OrderedDict[int, np.ndarray] = OrderedDict()
        self._keep = max(1, cache)

    def keep(self, parts: int) -> None:
        """Keep the last ``parts`` parts read (at least one; 2 bytes a seat and position each)."""
        self._keep = max(1, int(parts))

    @property
    def parts(self) -> int:
        return len(self.sizes)

    @property
    def positions(self) -> int:
        return int(self.bases[-1])

    def part(self, k: int) -> np.ndarray:
        """Part ``k``'s ranks, ``(sizes[k], P)`` int16, read strictly (-1: that seat cannot force a win)."""
        got = self._cache.get(k)
        if got is not None:
            self._cache.move_to_end(k)
            return got
        item = self.state[k]
        if item is None:
            got = np.full((self.sizes[k], self.players), -1, np.int16)
        else:
            path, st = _read(self.folder, _rel("state", k, int(item[0])), item[1], "state", self.players)
            _ranges(path, st, {"rank": (-1, min(self.rounds, MAX_RANK) + 1)})
            got = st["rank"]
        self._cache[k] = got
        while len(self._cache) > self._keep:
            self._cache.popitem(last=False)
        return got

    def locate(self, dense: int) -> tuple[int, int]:
        """(part, local id) of the dense id ``dense``."""
        if not 0 <= dense < self.positions:
            raise IndexError(f"position {dense} of {self.positions}")
        k = int(np.searchsorted(self.bases, dense, side="right") - 1)
        return k, int(dense - self.bases[k])

    def __getitem__(self, index: tuple[Any, Any]) -> int:
        dense, seat = index
        k, local = self.locate(int(dense))
        return int(self.part(k)[local, int(seat) % self.players])

    def dense(self) -> np.ndarray:
        """Every position's ranks, ``(positions, P)``, parts one after the other (the whole graph's: a test's)."""
        if not self.parts:
            return np.zeros((0, self.players), np.int16)
        return np.concatenate([np.array(self.part(k)) for k in range(self.parts)])


# -- the driver ------------------------------------------------------------------------------------------------
def attract(folder: str, *, players: int, sizes: Sequence[int], identity: Mapping[str, Any],
            loaders: Sequence[Loader], run: Runner | None = None, limits: Limits | None = None,
            max_rounds: int | None = None, progress: Callable[[dict[str, Any]], None] | None = None) -> Ranks:
    """Every seat's rank at every position of the graph the ``loaders`` hand over (one per part, see
    :class:`PartGraph`), computed in rounds in ``folder`` (made if missing), going on from its checkpoint when it
    has one. ``players``: the seats (offsets 0 .. players - 1); ``sizes``: each part's positions; ``identity``: a
    JSON object naming the graph (a checkpoint of another is refused). ``run`` runs a list of task calls
    (default: here, one after the other; :func:`dask_runner` on Dask). ``limits.max_seconds`` is checked between
    the halves of a round and after each; ``max_rounds``: the most rounds this call runs (past them
    :class:`RetroStopped`; the rounds done stay). ``progress`` gets a dict after each round (keys ``round``,
    ``ranked``, ``total``, ``messages``, ``seconds``) and, as each task of a part of at least :data:`RECORD_MIN`
    positions ends, one with the key ``task``: ``prepare`` (``done`` and ``of`` the parts, ``seconds``), ``send``
    (``round``, ``done`` and ``of`` the round's senders, ``messages`` so far, ``seconds``) or ``apply`` (the same
    with ``ranked`` so far). A damaged, edited
    or foreign checkpoint is refused (:class:`RetroError`, one line naming the file)."""
    if isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= MAX_SEATS:
        raise RetroError(f"players must be a whole number 1..{MAX_SEATS}, not {players!r}")
    sizes = list(sizes)
    if not 1 <= len(sizes) <= MAX_PARTS or any(isinstance(s, bool) or not isinstance(s, int) or not 0 <= s
                                               <= MAX_COUNT for s in sizes) or sum(sizes) > MAX_COUNT:
        raise RetroError(f"sizes must give 1..{MAX_PARTS} parts' positions, each a whole number >= 0")
    if len(loaders) != len(sizes):
        raise RetroError(f"{len(loaders)} loaders for {len(sizes)} parts")
    if max_rounds is not None and (isinstance(max_rounds, bool) or not isinstance(max_rounds, int)
                                   or max_rounds < 1):
        raise RetroError(f"max_rounds must be a whole number >= 1, not {max_rounds!r}")
    P, parts = players, len(sizes)
    user_key()  # (an unusable key file is refused before any work)
    folder = os.path.abspath(folder)
    run = run or local_runner
    budget = (limits or Limits()).start()
    os.makedirs(folder, exist_ok=True)
    try:
        identity = json.loads(json.dumps(dict(identity), allow_nan=False))  # (as the manifest will hold it)
    except (TypeError, ValueError):
        raise RetroError("identity must be a JSON object") from None
    head = _head(P, sizes, identity)
    man = _read_manifest(folder, head)
    if man is None:
        # (a part prepared before a stop is not prepared again: its task's record, under the head's token)
        first_token: list[str] = []

        def head_token() -> str:
            if not first_token:
                first_token.append(prepare_token(head))
            return first_token[0]

        try:
            deadline = budget.wall_deadline()  # (checked inside the tasks too: a big part takes minutes to load)
            ready = [_prepared(folder, head_token, k) for k in range(parts)]
            unprepared = [k for k in range(parts) if ready[k] is None]
            big = [sizes[k] >= RECORD_MIN for k in unprepared]
            loaded = TaskTally(progress, budget.elapsed, {"task": "prepare"}, parts, ready, big)
            loads = iter(run([(prepare_task, (folder, P, sizes, k, loaders[k], deadline,
                                              head_token() if b else None)) for k, b in zip(unprepared, big)],
                             loaded))
            got = [d if d is not None else next(loads) for d in ready]
        except Stopped as stop:
            raise RetroStopped(stop.reason, 0, 0) from None
        except KeyboardInterrupt:
            raise RetroStopped("interrupted", 0, 0) from None
        except QuaternityError:
            raise
        except Exception as err:  # noqa: BLE001 - a worker lost, a full disk...
            raise RetroStopped("failed", 0, 0, f"{type(err).__name__}: {err}") from None
        man = {**head, "edges": [int(g[1][3]) for g in got], "ends": [int(g[2][3]) for g in got],
               "graph": [list(g) for g in got], "rounds": 0, "ranked": 0, "complete": False,
               "seconds": round(budget.elapsed(), 2), "state": [None] * parts, "front": [None] * parts}
        _write_manifest(folder, man)
        _clear_prepared(folder, parts)
    else:
        partfiles.check_present(folder, _listed(man), RetroError)
        _clear_prepared(folder, parts)  # (left by a run stopped right after writing the manifest)
    tokens: dict[int, str] = {}
    starts = [man]  # (the manifest the round under way starts from)

    def token() -> str:  # (the key of the records of that round: made once a round, when first asked for)
        t = int(starts[0]["rounds"])
        if t not in tokens:
            tokens.clear()
            tokens[t] = taskrecords.step_token(starts[0], MANIFEST_PURPOSE)
        return tokens[t]

    first = int(man["rounds"])
    taskrecords.clear(folder, RECORD_NAME, lambda r: r < first)  # (left by a run stopped after its round)
    taskrecords.clear_temporaries(folder)
    _clean(folder, man, _record_files(folder, man, token))
    spent = float(man["seconds"])
    ran = 0
    try:
        while not man["complete"]:
            t = int(man["rounds"])
            if max_rounds is not None and ran >= max_rounds:
                raise RetroStopped("limit", t, int(man["ranked"]))
            if t >= MAX_RANK:
                raise RetroError(f"a forced win longer than {MAX_RANK} plies; no answer is given")
            graph, front = man["graph"], man["front"]
            senders = [k for k in range(parts) if (man["ends"][k] if t == 0 else front[k] is not None)]
            try:
                deadline = budget.wall_deadline()  # (checked inside the tasks too)
                done = [_recorded(folder, token, "send", k, t) for k in senders]
                todo = [k for k, d in zip(senders, done) if d is None]
                big = [sizes[k] >= RECORD_MIN for k in todo]  # (a big part's tasks told as they end)
                told = TaskTally(progress, budget.elapsed, {"task": "send", "round": t}, len(senders), done, big,
                                 "messages")
                fresh = iter(run([(send_task, (folder, P, sizes, k, t, graph[k], front[k], deadline,
                                               token() if b else None)) for k, b in zip(todo, big)], told))
                sent = [d if d is not None else next(fresh) for d in done]
                budget.check_time()  # (between the halves of a round too)
                inbox: dict[int, dict[str, Entry]] = {}
                for _, written in sent:
                    for j, files in written.items():
                        for rel, entry in files:
                            inbox.setdefault(int(j), {})[rel] = entry
                receivers = sorted(inbox)
                done = [_recorded(folder, token, "apply", j, t) for j in receivers]
                todo = [j for j, d in zip(receivers, done) if d is None]
                big = [sizes[j] >= RECORD_MIN for j in todo]
                told = TaskTally(progress, budget.elapsed, {"task": "apply", "round": t}, len(receivers), done, big,
                                 "ranked")
                fresh = iter(run([(apply_task, (folder, P, sizes, j, t, graph[j][0], man["state"][j], inbox[j],
                                                deadline, token() if b else None)) for j, b in zip(todo, big)], told))
                applied = [d if d is not None else next(fresh) for d in done]
            except (Stopped, KeyboardInterrupt, QuaternityError):
                raise
            except Exception as err:  # noqa: BLE001 - a worker lost, a full disk...: the rounds done stay
                raise RetroStopped("failed", t, int(man["ranked"]), f"{type(err).__name__}: {err}") from None
            state = list(man["state"])
            fronts: list[Entry | None] = [None] * parts
            newly = 0
            for j, (count, st, fr) in zip(receivers, applied):
                newly += int(count)
                if st is not None:
                    state[j] = [t, st]
                fronts[j] = fr
            after = {**man, "rounds": t + 1, "ranked": int(man["ranked"]) + newly, "complete": newly == 0,
                     "seconds": round(spent + budget.elapsed(), 2), "state": state, "front": fronts}
            _write_manifest(folder, after)
            if tokens:  # (none was written or read without it)
                done_round = t
                taskrecords.clear(folder, RECORD_NAME, lambda r: r <= done_round)
            man = after  # (only once it is on disk: what a stop reports is what the next run finds)
            starts[0] = man
            ran += 1
            _clean(folder, man)
            if progress is not None:
                progress({"round": t, "ranked": newly, "total": int(man["ranked"]),
                          "messages": int(sum(s for s, _ in sent)), "seconds": round(budget.elapsed(), 2)})
            if not man["complete"]:
                budget.check_time()
    except Stopped as stop:
        raise RetroStopped(stop.reason, int(man["rounds"]), int(man["ranked"])) from None
    except KeyboardInterrupt:  # anywhere in a round: its files are written again by the next run
        raise RetroStopped("interrupted", int(man["rounds"]), int(man["ranked"])) from None
    return Ranks(folder, P, sizes, man["state"], int(man["rounds"]), int(man["ranked"]), int(sum(man["edges"])),
                 float(man["seconds"]))
