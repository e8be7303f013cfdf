"""The partitioned solver shared by every game: packed positions built by layers over parts, resumable, then ranked.

A game that offers the part ``packed`` (:class:`Packed`: positions as fixed-width
integers with its symmetries removed, a batch of them expanded at once) is
solved here without this module knowing its rules. The game's graph is built
breadth first, one layer of new positions at a time, in ``parts`` partitions:
a position belongs to the part its key hashes to (:func:`part_of`), and each
part keeps its positions on disk in the checkpoint folder.

* **Expand** (one task per part and layer): the part's newest positions are
  expanded (:meth:`Packed.expand`), and each child goes to the file of the part
  it belongs to; plies that end the game stay with their parent.
* **Merge** (one task per part and layer): the part's incoming children are
  matched against the positions it already has (:class:`Joined`: the distinct
  children sorted once, then joined with each earlier layer's sorted ``keys``
  file in one pass, one file at a time); the new ones become the part's next
  layer, and every
  edge is stored with its child's part (the predecessor lists the attractor
  needs), in slices of at most :data:`EDGE_ROWS` edges (``edgesLLLL.npz``, then
  ``edgesLLLL-0001.npz``, ...): a reader holds one slice at a time. Every
  part file is deflated and laid out to deflate well (:data:`LAYOUT`,
  :func:`_spec`): new positions sorted, edges sorted by child, sorted ids as
  their differences; the kept files take about a third of their plain size
  (3x4x3: 23 bytes a position against 65).

The tasks run on a *runner*: here, one after the other
(:func:`~quaternity_cp.retrograde.local_runner`), or on Dask workers
(:func:`~quaternity_cp.retrograde.dask_runner`, a ``LocalCluster`` of the
machine's cores or a scheduler's address: :func:`solve_graph`). After each
layer the folder's ``manifest.json`` is written atomically: a run stopped by
Ctrl-C, a limit or a crash goes on at the first layer not recorded there.

**The packed part** (:class:`Packed`; a game's ``packed`` part in the registry
is a function of the game's options that returns one). It is picklable (it
travels to the workers) and gives:

* ``name`` (the game's name: the keyed digests' purposes are made of it),
  ``format`` (the checkpoint's format name: the game's encoding and this
  module's layout; bumped when either changes) and optionally ``old_formats``
  (format -> why it is refused, in words);
* ``width``: the words (uint64) of a key, 1..:data:`MAX_WIDTH`;
* ``seats`` (at most :data:`~quaternity_cp.retrograde.MAX_SEATS`), ``moves``
  (move numbers are 0..moves-1, at most 32,767) and ``max_degree`` (the most
  distinct plies of a position, at most :data:`~quaternity_cp.retrograde.MAX_DEGREE`);
* ``identity()``: the game and its options as JSON (a checkpoint of another
  identity is refused);
* ``start()``: the start's key (``width`` words) and the absolute seat to move
  there (-1: nobody can move; the game is over before it begins);
* ``expand(keys)`` (``n x width`` uint64): a dict of arrays, per edge ``keys``
  (``m x width``: the child, seen from its mover), ``src`` (int64: the row of
  ``keys`` it leaves), ``off`` (int8: the child's mover counted on from the
  parent's mover), ``move`` (int16: the ply's number, 0..moves-1; not stored:
  :func:`best_move` expands a position again to name its move) and ``end``
  (int8: -2 an inner edge, -1 a ply that ends the game with nobody winning,
  ``w >= 0`` one that ends it won by the seat ``w`` places after the parent's
  mover), in order of ``src``; per position ``owner`` (int8: the seat to
  choose, counted from the mover; -1 for nobody: a free choice that every
  seat's opponents make, so every seat needs every ply) and ``degree`` (int16:
  its distinct plies: two plies to the same child, or ending the game with the
  same winners, are one edge). A ply that ends the game won by several seats
  (a shared win) is one row per winner, each with its ``end``;
* ``decode(key)``: a position as plain numbers, for display.

Seats are counted on from each position's mover (a game whose rules count
seats from the mover removes that symmetry by rotation); a game without
rotation gives ``off`` as the absolute seat change and its keys hold the mover.

**What is believed of a checkpoint folder.** The manifest (``format``, the
game's identity, ``parts``, ``layers``, ``sizes`` per part and layer,
``edges``, ``root``, ``first``, ``complete``, ``seconds``, ``files``) lists
every part file with its size, its SHA-256 and its counts (ids are kept in 4
bytes while the manifest's sizes say they fit, else 8: :meth:`Context.ids`),
and carries a
*keyed* digest (HMAC-SHA256 under the user's key, :mod:`quaternity_cp.digest`)
of all of it. Every part file is read by the shared strict reader
(:func:`quaternity_cp.partfiles.read_npz`: size before a byte is read, SHA-256,
each .npy header's dtype and shape the ones the counts call for, nothing
unpickled), then every id and number is range-checked (:func:`read_checked`).
The manifest's fields are type- and range-checked and the start's place is
found again from the packed part. A damaged, edited, foreign or forged file is
refused with one line naming it (:class:`PartitionedError`).

**The attractor** (:func:`attract`): for every position and every seat counted
on from its mover, whether that seat forces a win and in how many plies (its
rank). Over the whole graph at once in this process (compiled code over flat
arrays: about 23 bytes a position and 5 an edge), or ``partitioned=True``: the
shared :mod:`quaternity_cp.retrograde`, part by part in rounds on the same
runner, to which :func:`attractor_part` hands each part's share; no process
then holds the whole graph, and its rounds are checkpointed in the subfolder
``attractor/``, resumable as the build is.

This module names no game; tests/test_partitioned.py solves a toy game defined
in the test through it and compares every rank with a brute-force attractor.
"""

from __future__ import annotations

import glob
import json
import math
import os
import re
import shutil
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Protocol, runtime_checkable

import numpy as np

from . import partfiles, retrograde, taskrecords
from .budget import LIMIT, Limits, Stopped, check_deadline
from .digest import canonical_json, sha256_hex, sign_json, user_key, verify_json
from .errors import QuaternityError
from .files import write_atomic
from .jsonio import load_json, read_input, read_json_file
from .partfiles import Entry
from .retrograde import Runner, TaskTally, dask_runner, local_runner
from .threads import memory_available

try:  # the [fast] extra; without it the loops run as plain Python (dedup then uses a dictionary)
    from numba import njit as _njit

    HAVE_NUMBA = True

    def jit(fn: Any) -> Any:
        return _njit(cache=True)(fn)
except ImportError:  # pragma: no cover - depends on the installed extras
    HAVE_NUMBA = False

    def jit(fn: Any) -> Any:
        return fn

#: positions expanded at a time inside a task (bounds the task's memory; the task checks the time limit between
#: them: a few seconds of the kernel at the slowest positions)
CHUNK = 1 << 15
#: the most edges of one ``edges`` file: a part's edges of a layer are written in slices of this many (the last
#: fewer), so that reading one file at a time holds at most about 9 bytes times this (9.4 MB; 17 past 2^31 ids),
#: twice that while a slice is inflated and decoded
EDGE_ROWS = 1 << 20
#: the most parts of any graph (each layer writes parts x parts files)
MAX_PARTS = 256
#: the most layers a manifest may record (ranks stop at MAX_RANK long before)
MAX_LAYERS = 100_000
#: the largest count (positions, edges, bytes) a manifest may give
MAX_COUNT = 2**53
#: the most words (uint64) of a packed key
MAX_WIDTH = 8
#: the most move numbers (they are kept in int16)
MAX_MOVES = 2**15 - 1
#: the layout of the part files (the manifest's ``layout``): 3, every file deflated, keys sorted within a kept
#: file, sorted ids as their differences (1, which had no such field: every array plain, rewritten by
#: :func:`upgrade`; 2, a development layout that kept ids as byte planes: refused)
LAYOUT = 3
#: the kinds of part files that may be deflated: all of them (an ``in`` file lives one layer, but the children of
#: a layer of a large graph take more room there than anything kept)
DEFLATED = frozenset({"keys", "out", "edges", "in"})
#: an ``in`` file of at most this many children is stored plain, a larger one deflated: deflating a layer's
#: children and inflating them again took 6 to 9% of a build's time (3x4x3, 3x3x4), for files that live one layer;
#: past this size (21 MB plain at 2 key words) the room a peak layer's ``in`` files take on disk matters more
PLAIN_IN = 1 << 20
#: ranks are kept in 16 bits: a longer forced win is refused rather than wrapped
MAX_RANK = retrograde.MAX_RANK
#: the subfolder of a graph's checkpoint where the partitioned attractor keeps its rounds
ATTRACTOR_FOLDER = "attractor"
#: the attractors :func:`solve_graph` runs: over the whole graph in one process, or partitioned in rounds
ATTRACTORS = ("whole", "partitioned")

__all__ = ["CHUNK", "MAX_PARTS", "MAX_LAYERS", "MAX_WIDTH", "MAX_RANK", "ATTRACTOR_FOLDER", "ATTRACTORS",
           "HAVE_NUMBA", "PartitionedError", "BuildStopped", "AttractorStopped", "Packed", "check_packed",
           "manifest_purpose", "Built", "Attractor", "whole_attractor_bytes", "Runner", "local_runner", "dask_runner", "part_of", "dedup", "dedup_kernel", "dedup_dict",
           "build", "attract", "attractor_part", "expand_task", "merge_task", "record_rel", "layer_token",
           "write_record", "read_record", "clear_records", "keys_upto", "keys_of", "bases",
           "edge_files", "EDGE_ROWS", "PLAIN_IN", "expand_checked", "stored_parts", "refuse_other_parts",
           "lookup", "best_move", "sample", "read_checked", "open_manifest", "solve_graph", "drop_graph",
           "upgrade", "OlderLayout", "LAYOUT", "KeyIndex",
           "left_of", "head_difference"]


class PartitionedError(QuaternityError, ValueError):
    """A graph that cannot be built or believed: a checkpoint of another game, damaged, edited or not a folder,
    or a packed part that breaks its contract; one line."""


class BuildStopped(QuaternityError):
    """The build stopped before the graph was complete (``reason``: ``time``, ``limit``, ``interrupted``, or
    ``failed``: a task raised, e.g. a Dask worker was lost or the disk is full); the checkpoint keeps every
    finished layer. ``positions``: those stored (or reached, at a position limit inside a layer);
    ``expanded``: those whose moves the checkpoint holds (every finished layer but the last)."""

    def __init__(self, reason: str, layers: int, positions: int, detail: str = "", expanded: int = 0):
        self.reason = reason
        self.layers = layers
        self.positions = positions
        self.detail = detail
        self.expanded = expanded
        what = {"time": "the time limit", "limit": "the position limit" + (f" ({detail})" if detail else ""),
                "interrupted": "an interrupt", "failed": f"a task that failed ({detail})"}.get(reason, reason)
        more = " and a larger position limit" if reason == "limit" else ""
        super().__init__(f"the graph's build stopped at {what} after {layers} layers ({positions:,} positions); "
                         f"run again with the same checkpoint{more} to go on")


class AttractorStopped(BuildStopped):
    """The partitioned attractor stopped before its last round (``reason`` as :class:`BuildStopped`'s;
    ``rounds`` done, ``ranked``: the ranks given so far); its checkpoint keeps every round done, and the graph
    is complete (``layers``, ``positions``: the graph's)."""

    def __init__(self, reason: str, layers: int, positions: int, rounds: int, ranked: int, message: str):
        QuaternityError.__init__(self, message)
        self.reason = reason
        self.detail = ""
        self.layers = layers
        self.positions = self.expanded = positions
        self.rounds = rounds
        self.ranked = ranked


@runtime_checkable
class Packed(Protocol):
    """A game's positions as fixed-width integers (the game's part ``packed``; see the module's docstring)."""

    @property
    def name(self) -> str:
        """The game's name (the keyed digests' purposes are made of it)."""

    @property
    def format(self) -> str:
        """The checkpoint's format name (bumped when the game's encoding or this module's layout changes)."""

    @property
    def width(self) -> int:
        """Words (uint64) of a key."""

    @property
    def seats(self) -> int:
        """The seats."""

    @property
    def moves(self) -> int:
        """Move numbers are 0..moves-1."""

    @property
    def max_degree(self) -> int:
        """The most distinct plies of a position."""

    def identity(self) -> dict[str, Any]:
        """The game and its options as JSON: what a checkpoint must match."""

    def start(self) -> tuple[np.ndarray, int]:
        """The start's key and the absolute seat to move there (-1: the game is over before it begins)."""

    def expand(self, keys: np.ndarray) -> Mapping[str, np.ndarray]:
        """The edges of the positions ``keys`` (n x width uint64): keys, src, off, move, end; owner, degree."""

    def decode(self, key: np.ndarray) -> dict[str, Any]:
        """A position as plain numbers, for display."""


def check_packed(packed: object, max_width: int = MAX_WIDTH) -> Packed:
    """``packed`` when it keeps the contract's sizes (:class:`Packed`; keys of at most ``max_width`` words: the
    lazy win solve, which writes no part files, takes wider ones); else :class:`PartitionedError`."""
    if not isinstance(packed, Packed):
        raise PartitionedError(f"{type(packed).__name__} is not a packed part (name, format, width, seats, moves, "
                               "max_degree, identity, start, expand, decode)")
    for attr, lo, hi in (("width", 1, max_width), ("seats", 1, retrograde.MAX_SEATS), ("moves", 1, MAX_MOVES),
                         ("max_degree", 1, retrograde.MAX_DEGREE)):
        v = getattr(packed, attr)
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise PartitionedError(f"the packed part's {attr} must be a whole number {lo}..{hi}, not {v!r}")
    if not isinstance(packed.format, str) or not packed.format or not isinstance(packed.name, str):
        raise PartitionedError("the packed part's name and format must be words")
    return packed


def manifest_purpose(packed: Packed) -> str:
    """What a keyed digest of a manifest of ``packed``'s graphs is for (one file is never taken for another)."""
    return f"{packed.name}-graph-manifest"


# -- hashing and deduplication ------------------------------------------------------------------------------------
def part_of(keys: np.ndarray, parts: int) -> np.ndarray:
    """The part of each packed key (rows of ``keys``; a fixed mix of every word, so parts are even)."""
    k = np.asarray(keys, np.uint64)
    k = k.reshape(len(k), -1) if k.ndim != 2 else k
    with np.errstate(over="ignore"):
        x = k[:, 0] * np.uint64(0x9E3779B97F4A7C15)
        for w in range(1, k.shape[1]):
            if w > 1:
                x = (x ^ (x >> np.uint64(29))) * np.uint64(0x9E3779B97F4A7C15)
            x = x ^ (k[:, w] + np.uint64(0x632BE59BD9B4E019)) * np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(31)
    return (x % np.uint64(parts)).astype(np.int64)


@jit
def _slot(rows: np.ndarray, i: int, mask: Any) -> Any:
    """Row ``i``'s first slot in a table of ``mask + 1`` slots."""
    h = np.uint64(0)
    for w in range(rows.shape[1]):
        h = (h ^ rows[i, w]) * np.uint64(0x9E3779B97F4A7C15)
        h ^= h >> np.uint64(29)
    return h & mask


@jit
def _same(a: np.ndarray, i: int, b: np.ndarray, j: int) -> bool:
    for w in range(a.shape[1]):
        if a[i, w] != b[j, w]:
            return False
    return True


@jit
def dedup_kernel(old: np.ndarray, new: np.ndarray, ids: np.ndarray, fresh: np.ndarray) -> int:
    """Ids for the keys ``new`` among ``old`` (``old``'s row numbers; the new ones numbered on from len(old), in
    order of first sight), into ``ids``; the rows of ``new`` that are new positions go to ``fresh``. Returns
    how many are new."""
    n = old.shape[0]
    total = n + new.shape[0]
    cap = 1
    while cap < 2 * total + 2:
        cap *= 2
    mask = np.uint64(cap - 1)
    slots = np.full(cap, -1, np.int64)
    for i in range(n):
        j = _slot(old, i, mask)
        while slots[j] >= 0:
            j = (j + np.uint64(1)) & mask
        slots[j] = i
    count = 0
    for i in range(new.shape[0]):
        j = _slot(new, i, mask)
        found = -1
        while slots[j] >= 0:
            s = slots[j]
            if s < n:
                if _same(old, s, new, i):
                    found = s
                    break
            elif _same(new, fresh[s - n], new, i):
                found = s
                break
            j = (j + np.uint64(1)) & mask
        if found < 0:
            found = n + count
            fresh[count] = i
            count += 1
            slots[j] = found
        ids[i] = found
    return count


def dedup_dict(old: np.ndarray, new: np.ndarray, ids: np.ndarray, fresh: np.ndarray) -> int:
    """:func:`dedup_kernel` with a dictionary (without numba, where the compiled loop would be too slow)."""
    index = {tuple(row): i for i, row in enumerate(old.tolist())}
    count = 0
    for i, row in enumerate(new.tolist()):
        t = tuple(row)
        got = index.get(t)
        if got is None:
            got = index[t] = len(old) + count
            fresh[count] = i
            count += 1
        ids[i] = got
    return count


def dedup(old: np.ndarray, new: np.ndarray, width: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(ids, fresh)``: each key of ``new``'s id among ``old`` (row numbers, new ones numbered on), and the rows of
    ``new`` that are new positions, in order. Keys are rows of ``width`` words (default: ``old``'s columns)."""
    w = width if width is not None else (old.shape[1] if np.ndim(old) == 2 else 2)
    ids = np.zeros(len(new), np.int64)
    fresh = np.zeros(len(new), np.int64)
    fn = dedup_kernel if HAVE_NUMBA else dedup_dict
    count = fn(np.ascontiguousarray(old, np.uint64).reshape(-1, w), np.ascontiguousarray(new, np.uint64).reshape(-1, w),
               ids, fresh)
    return ids, fresh[:count]


@jit
def _order_rows(a: np.ndarray, i: int, b: np.ndarray, j: int) -> int:
    """-1, 0 or 1: row ``i`` of ``a`` before, equal to or after row ``j`` of ``b`` (word by word, as numbers)."""
    for w in range(a.shape[1]):
        x = a[i, w]
        y = b[j, w]
        if x < y:
            return -1
        if x > y:
            return 1
    return 0


@jit
def rows_sorted(a: np.ndarray) -> bool:
    """Whether the rows of ``a`` are strictly increasing (:func:`_order_rows`): a kept ``keys`` file is."""
    for i in range(1, a.shape[0]):
        if _order_rows(a, i - 1, a, i) >= 0:
            return False
    return True


@jit
def join_kernel(wanted: np.ndarray, found: np.ndarray, rows: np.ndarray, order: np.ndarray, base: int) -> int:
    """Each row of ``wanted`` (strictly increasing) that ``rows`` holds gets ``base`` plus its row number in
    ``found`` (a row already found is skipped). ``rows`` is read in increasing order: as it is, or through
    ``order`` when that is not empty. One pass over both; returns how many were found."""
    n = rows.shape[0]
    by = order.shape[0] > 0
    i = 0
    j = 0
    hits = 0
    while i < wanted.shape[0] and j < n:
        r = order[j] if by else j
        c = _order_rows(wanted, i, rows, r)
        if c < 0:
            i += 1
        elif c > 0:
            j += 1
        else:
            if found[i] < 0:
                found[i] = base + r
                hits += 1
            i += 1
            j += 1
    return hits


def join_dict(wanted: np.ndarray, found: np.ndarray, rows: np.ndarray, order: np.ndarray, base: int) -> int:
    """:func:`join_kernel` with a dictionary (without numba)."""
    index = {tuple(row): i for i, row in enumerate(rows.tolist())}
    hits = 0
    for i, row in enumerate(wanted.tolist()):
        got = index.get(tuple(row))
        if got is not None and found[i] < 0:
            found[i] = base + got
            hits += 1
    return hits


def lex_order(rows: np.ndarray) -> np.ndarray:
    """The order that sorts ``rows`` word by word (the first word first), as a kept ``keys`` file is sorted."""
    return np.lexsort(rows.T[::-1]) if len(rows) else np.zeros(0, np.int64)


class Joined:
    """Keys' ids in a part whose earlier positions are read one layer at a time: the distinct keys sorted once,
    then joined with each layer's sorted ``keys`` file in one pass (:func:`join_kernel`). Equals
    :func:`dedup` against all the earlier keys with the new positions then sorted, without ever holding the
    earlier keys together, or a table of them."""

    def __init__(self, keys: np.ndarray, width: int):
        self.width = width
        local, reps = dedup(np.zeros((0, width), np.uint64), keys, width)
        distinct = np.ascontiguousarray(keys, np.uint64).reshape(-1, width)[reps]
        order = lex_order(distinct)
        self.keys = distinct[order]  # (strictly increasing)
        rank = np.empty(len(order), np.int64)
        rank[order] = np.arange(len(order), dtype=np.int64)
        self.of_row = rank[local]  # each given key's place among the distinct ones
        self.found = np.full(len(order), -1, np.int64)

    def join(self, rows: np.ndarray, base: int) -> int:
        """Finds the distinct keys among ``rows`` (one layer's positions of the part; their ids from ``base``)."""
        rows = np.ascontiguousarray(rows, np.uint64).reshape(-1, self.width)
        if not len(rows) or not len(self.keys):
            return 0
        if HAVE_NUMBA:
            order = np.zeros(0, np.int64) if rows_sorted(rows) else lex_order(rows)
            return int(join_kernel(self.keys, self.found, rows, order, base))
        return join_dict(self.keys, self.found, rows, np.zeros(0, np.int64), base)

    def finish(self, base: int) -> tuple[np.ndarray, np.ndarray]:
        """``(ids, new)``: every given key's id, the keys not found numbered on from ``base`` in their sorted
        order, and those new keys (sorted)."""
        fresh = self.found < 0
        ids = self.found.copy()
        ids[fresh] = base + np.arange(int(fresh.sum()), dtype=np.int64)
        return ids[self.of_row], self.keys[fresh]


# -- the parts' files: written with their fingerprints, read back strictly -------------------------------------------
_U64, _I64, _I32, _I16, _I8, _U8 = (np.dtype(np.uint64), np.dtype(np.int64), np.dtype(np.int32),
                                     np.dtype(np.int16), np.dtype(np.int8), np.dtype(np.uint8))
#: the dtypes of a file's ids: (src, dst)
Ids = tuple["np.dtype[Any]", "np.dtype[Any]"]


def id_dtype(bound: int) -> "np.dtype[Any]":
    """The dtype of ids below ``bound``: 4 bytes while they fit, else 8."""
    return _I32 if bound < 2**31 else _I64


def _spec(kind: str, n: int, m: int, width: int, ids: Ids = (_I64, _I64)
          ) -> dict[str, tuple[np.dtype[Any], tuple[int, ...]]]:
    """The arrays of a part file of ``kind`` holding ``n`` positions and ``m`` edges, as stored: name -> (dtype,
    shape); ``ids``: the dtypes of its ``src`` and ``dst`` (:meth:`Context.ids`). No move numbers are kept: a
    move is found again by expanding its position (:func:`best_move`).

    Every kept file is deflated (:data:`DEFLATED`; an ``in`` file too past :data:`PLAIN_IN` children), and laid out
    to deflate well (:func:`_decode` reads them back): a
    kept ``keys`` file's keys are sorted; sorted ids are stored as their differences (an ``out`` file's ``src``,
    its plies that end the game in order of position; an ``in`` file's ``src``, its children in order of parent;
    an ``edges`` file's ``dst``: its edges are sorted by child), summed again in place when read: reading a file
    holds its arrays once (byte planes would deflate a tenth smaller, but need a copy to read back)."""
    src, dst = ids
    if kind == "keys":
        return {"keys": (_U64, (n, width))}
    if kind == "in":
        return {"keys": (_U64, (m, width)), "src": (src, (m,)), "off": (_I8, (m,))}
    if kind == "out":
        return {"owner": (_I8, (n,)), "degree": (_I16, (n,)), "src": (src, (m,)), "end": (_I8, (m,))}
    if kind == "edges":
        return {"src": (src, (m,)), "dst": (dst, (m,)), "off": (_I8, (m,))}
    raise ValueError(kind)  # pragma: no cover - the callers name the kinds above


def _differences(a: np.ndarray) -> np.ndarray:
    """The differences of the sorted ids ``a`` (the first against 0)."""
    return np.diff(a, prepend=a.dtype.type(0)) if len(a) else a


def _sums(path: str, name: str, d: np.ndarray) -> np.ndarray:
    """The sorted ids whose differences ``d`` holds (:func:`_differences`), summed in place (``d`` is a file's
    own buffer); a difference below 0 or a sum past its dtype is refused."""
    if not len(d):
        return d
    if int(d.min()) < 0:
        raise PartitionedError(f"{path}: {name} is not in order (this layout keeps it sorted); remove the folder "
                               "to start again")
    np.cumsum(d, dtype=d.dtype, out=d)  # (in its own type, no temporary: each difference is at most the type's
    if int(d.min()) < 0:  # top, so a sum that runs past it first shows as a negative one)
        raise PartitionedError(f"{path}: {name} runs past {d.dtype}; remove the folder to start again")
    return d


def _decode(path: str, kind: str, data: dict[str, np.ndarray], ids: Ids) -> dict[str, np.ndarray]:
    """The arrays of a part file as the solver uses them, from the ones stored (see :func:`_spec`; ``data`` may
    hold some of them only, see :func:`read_part`): its differences summed, in place."""
    name = {"out": "src", "edges": "dst", "in": "src"}.get(kind)
    if name in data:
        data[name] = _sums(path, name, data[name])
    return data


def rel(kind: str, k: int, layer: int, source: int | None = None, piece: int = 0) -> str:
    """A part file's name inside the checkpoint folder (``source``: the expanding part of an ``in`` file;
    ``piece``: a slice of an ``edges`` file after the first, see :data:`EDGE_ROWS`)."""
    name = f"in{layer:04d}-{source:03d}" if kind == "in" else f"{kind}{layer:04d}"
    if piece:
        name += f"-{piece:04d}"
    return f"part{k:03d}/{name}.npz"


def edge_files(files: Mapping[str, Entry], k: int, layer: int) -> list[str]:
    """The names of part ``k``'s ``edges`` files of ``layer``, in order: the first, then each slice after it that
    the manifest's ``files`` lists (their order and sizes are checked with the manifest, :func:`_check_manifest`)."""
    out = [rel("edges", k, layer)]
    while rel("edges", k, layer, piece=len(out)) in files:
        out.append(rel("edges", k, layer, piece=len(out)))
    return out


def part_dir(folder: str, k: int) -> str:
    return os.path.join(folder, f"part{k:03d}")


def read_part(folder: str, name: str, entry: Entry, kind: str, width: int, ids: Ids = (_I64, _I64),
              only: "frozenset[str] | None" = None) -> dict[str, np.ndarray]:
    """The arrays of the part file ``name`` of ``folder``, read strictly (:func:`quaternity_cp.partfiles.read_npz`:
    its size and SHA-256 the manifest ``entry``'s, exactly the arrays of ``kind`` with the dtypes and shapes its
    counts and ``ids`` call for); a damaged file is refused (:class:`PartitionedError`, one line naming it)."""
    path = os.path.join(folder, name)
    data = partfiles.read_npz(path, entry, _spec(kind, entry[2], entry[3], width, ids), PartitionedError,
                              deflated=kind in DEFLATED, only=only)
    return _decode(path, kind, data, ids)


class Context:
    """What the range checks of a part file need: the seats, move numbers and most plies of the packed part, the
    parts, and each part's positions before each layer (``cum[k, ell]``, the manifest's sizes summed)."""

    def __init__(self, packed: Packed, sizes: list[list[int]]):
        self.P, self.moves, self.fanout, self.width = packed.seats, packed.moves, packed.max_degree, packed.width
        self.parts = len(sizes)
        most = max(len(s) for s in sizes) if sizes else 0
        cum = np.zeros((self.parts, most + 1), np.int64)
        for k, s in enumerate(sizes):
            cum[k, 1:len(s) + 1] = np.cumsum(np.array(s, np.int64))
            cum[k, len(s) + 1:] = cum[k, len(s)]
        self.cum = cum

    def ids(self, kind: str, k: int, layer: int) -> Ids:
        """The dtypes (src, dst) of the ids of part ``k``'s file of ``kind`` and ``layer`` (each 4 bytes while
        its ids fit, :func:`id_dtype`): an ``out`` file's src are the part's positions up to that layer, an ``in``
        or ``edges`` file's src the global ids (local * parts + part) of the layer before, an ``edges`` file's dst
        the part's positions up to its layer (needs the sizes of that layer: the merge writing it knows its own)."""
        cum = self.cum
        if kind == "out":
            return id_dtype(int(cum[k, layer + 1])), _I64
        parents = id_dtype(int(cum[:, layer].max(initial=0)) * self.parts)
        if kind == "in":
            return parents, _I64
        if kind == "edges":
            return parents, id_dtype(int(cum[k, layer + 1]))
        return _I64, _I64

    def parents(self, path: str, src: np.ndarray, layer: int, only: int | None = None) -> None:
        """``src``: global ids (local * parts + part) of positions of layer ``layer`` (of part ``only``)."""
        if not len(src):
            return
        if int(src.min()) < 0:
            raise PartitionedError(f"{path}: src holds {int(src.min())}, not a position's id")
        step = partfiles.RANGE_CHUNK  # (a chunk at a time: the temporaries stay small, whatever the file)
        for a in range(0, len(src), step):
            chunk = src[a:a + step]
            g = chunk % self.parts
            if only is not None and np.any(g != only):
                raise PartitionedError(f"{path}: src names positions of another part than {only}")
            if partfiles.outside(chunk // self.parts, self.cum[g, layer], self.cum[g, layer + 1]):
                raise PartitionedError(f"{path}: src names a position outside layer {layer}; remove the folder to "
                                       "start again")


#: the arrays a first reading of an ``edges`` file needs (the children, to count each one's predecessors)
_DST = frozenset({"dst"})


def read_checked(folder: str, files: Mapping[str, Entry], kind: str, k: int, layer: int, ctx: Context,
                 source: int | None = None, entry: Entry | None = None, piece: int = 0,
                 only: "frozenset[str] | None" = None) -> dict[str, np.ndarray]:
    """A part file read strictly (:func:`read_part`), its ids and numbers range-checked against ``ctx``
    (``piece``: a slice of an ``edges`` file, see :func:`edge_files`; ``only``: the arrays to read and check, by
    default all)."""
    name = rel(kind, k, layer, source, piece)
    if entry is None:
        if name not in files:
            raise PartitionedError(f"{os.path.join(folder, name)}: not listed in the checkpoint's manifest")
        entry = files[name]
    path = os.path.join(folder, name)
    data = read_part(folder, name, entry, kind, ctx.width, ctx.ids(kind, k, layer), only)
    P = ctx.P

    def check(ranges: Mapping[str, tuple[Any, Any]]) -> None:
        partfiles.check_ranges(path, data, {n: r for n, r in ranges.items() if n in data}, PartitionedError,
                               ids="its layer's ids")

    if kind == "out":
        check({"owner": (-1, P), "degree": (0, ctx.fanout + 1), "end": (-1, P),
               "src": (int(ctx.cum[k, layer]), int(ctx.cum[k, layer + 1]))})
    elif kind == "edges":
        check({"dst": (0, int(ctx.cum[k, layer + 1])), "off": (0, P)})
        if "src" in data:
            ctx.parents(path, data["src"], layer - 1)
    elif kind == "in":
        check({"off": (0, P)})
        ctx.parents(path, data["src"], layer - 1, only=source)
    return data


def keys_upto(folder: str, width: int, k: int, layers: int, files: Mapping[str, Entry]) -> np.ndarray:
    """Part ``k``'s positions of layers 0 .. layers-1, in id order (``files``: the manifest's entries)."""
    chunks = []
    for ell in range(layers):
        name = rel("keys", k, ell)
        if name not in files:
            raise PartitionedError(f"{os.path.join(folder, name)}: not listed in the checkpoint's manifest")
        chunks.append(read_part(folder, name, files[name], "keys", width)["keys"])
    return np.concatenate(chunks).reshape(-1, width) if chunks else np.zeros((0, width), np.uint64)


def expand_checked(packed: Packed, keys: np.ndarray) -> Mapping[str, np.ndarray]:
    """:meth:`Packed.expand` of ``keys``, its arrays' shapes and kinds checked (a part that breaks its contract is
    refused here, not written to the checkpoint)."""
    out = packed.expand(keys)
    n, width = len(keys), packed.width
    m = len(out["src"])
    shapes = {"keys": (m, width), "src": (m,), "off": (m,), "move": (m,), "end": (m,), "owner": (n,),
              "degree": (n,)}
    for name, shape in shapes.items():
        a = out.get(name)
        if not isinstance(a, np.ndarray) or a.shape != shape or not np.issubdtype(a.dtype, np.integer):
            got = "nothing" if a is None else f"{getattr(a, 'dtype', type(a).__name__)} {getattr(a, 'shape', '')}"
            raise PartitionedError(f"the packed part's expand gave {name} as {got}, not whole numbers of shape "
                                   f"{shape}")
    if m and (partfiles.outside(out["src"], 0, n) or bool(np.any(np.diff(out["src"]) < 0))):
        raise PartitionedError("the packed part's expand gave src out of order or out of range")
    return out


# -- tasks (module level: they run on Dask workers) -------------------------------------------------------------
def expand_task(folder: str, packed: Packed, k: int, layer: int, parts: int, sizes: list[list[int]],
                keys_entry: Entry, deadline: float | None = None, token: str | None = None
                ) -> tuple[int, int, dict[str, Entry]]:
    """Expand part ``k``'s positions of layer ``layer - 1`` (its ``keys`` file, as the manifest's ``keys_entry``
    describes it; ``sizes``: the manifest's positions per part and layer): children to each part's ``in`` file
    of ``layer``, games over and each position's owner and degree to part ``k``'s ``out`` file. Returns
    (positions expanded, edges, the manifest entries of the files written). ``deadline``: the build's time limit
    (:meth:`~quaternity_cp.budget.Budget.wall_deadline`), checked before each :data:`CHUNK` of positions (past
    it :class:`~quaternity_cp.budget.Stopped`, nothing written). ``token``: the layer's (:func:`layer_token`):
    the result is then recorded for a run that goes on after a stop (:func:`write_record`)."""
    width = packed.width
    keys = read_part(folder, rel("keys", k, layer - 1), keys_entry, "keys", width)["keys"].reshape(-1, width)
    base = sum(sizes[k][:layer - 1])
    ctx = Context(packed, sizes)
    parents = ctx.ids("in", k, layer)[0]  # (the global ids of this layer's parents: 4 bytes while they fit)
    locals_ = ctx.ids("out", k, layer - 1)[0]
    to: dict[int, list[dict[str, np.ndarray]]] = {j: [] for j in range(parts)}
    ends: list[dict[str, np.ndarray]] = []
    owners: list[np.ndarray] = []
    degrees: list[np.ndarray] = []
    edges = 0
    for lo in range(0, len(keys), CHUNK):
        check_deadline(deadline)
        out = expand_checked(packed, keys[lo:lo + CHUNK])
        edges += len(out["src"])
        owners.append(out["owner"].astype(np.int8, copy=False))
        degrees.append(out["degree"].astype(np.int16, copy=False))
        src = out["src"].astype(np.int64, copy=False)
        gsrc = (src + lo + base) * parts + k  # global ids: local * parts + part
        end = out["end"].astype(np.int8, copy=False)
        off = out["off"].astype(np.int8, copy=False)
        over = end != -2
        ends.append({"src": (src[over] + lo + base).astype(locals_), "end": end[over]})
        go = ~over
        ck, cs, co = np.asarray(out["keys"], np.uint64)[go], gsrc[go].astype(parents), off[go]
        where = part_of(ck, parts)
        for j in range(parts):
            sel = where == j
            if sel.any():
                to[j].append({"keys": ck[sel], "src": cs[sel], "off": co[sel]})
    written: dict[str, Entry] = {}
    for j in range(parts):
        got = to[j]
        m = sum(len(g["src"]) for g in got)
        name = rel("in", j, layer, k)
        written[name] = partfiles.save_npz(  # (its children in order of parent: src is sorted)
            os.path.join(folder, name), 0, m, deflate=m > PLAIN_IN,
            keys=np.concatenate([g["keys"] for g in got]) if got else np.zeros((0, width), np.uint64),
            src=_differences(np.concatenate([g["src"] for g in got]) if got else np.zeros(0, parents)),
            off=np.concatenate([g["off"] for g in got]) if got else np.zeros(0, np.int8))
    m = sum(len(e["src"]) for e in ends)
    name = rel("out", k, layer - 1)
    written[name] = partfiles.save_npz(
        os.path.join(folder, name), len(keys), m, deflate=True,
        owner=np.concatenate(owners) if owners else np.zeros(0, np.int8),
        degree=np.concatenate(degrees) if degrees else np.zeros(0, np.int16),
        src=_differences(np.concatenate([e["src"] for e in ends]) if ends else np.zeros(0, locals_)),
        end=np.concatenate([e["end"] for e in ends]) if ends else np.zeros(0, np.int8))
    if len(keys) >= RECORD_MIN:
        write_record(folder, token, "expand", k, layer, [len(keys), edges, written])
    return len(keys), edges, written


class KeptKeys:
    """The ``keys`` files of the earlier layers, which every merge task of a part reads again (one pass each, to
    find its children among them), kept in memory while :func:`build` runs its tasks in this process
    (:func:`~quaternity_cp.retrograde.local_runner`): the files as a merge wrote them or first read them
    strictly, each as long as it fits in :attr:`most` bytes with those kept before it (so the earliest
    layers, which every later merge reads, first); any other file is read from disk as before. A file is known by its folder, name and manifest entry (size,
    SHA-256, counts), so a kept array is only ever the bytes that entry names. Dask's workers keep none (their
    memory is the tasks'), and none is kept once the build ends. One per process (:data:`KEPT_KEYS`)."""

    def __init__(self) -> None:
        self.most = 0
        self.nbytes = 0
        self.arrays: dict[tuple[Any, ...], np.ndarray] = {}
        self.lock = threading.Lock()

    def start(self, most: int) -> None:
        with self.lock:
            self.most = max(self.most, most)

    def stop(self) -> None:
        with self.lock:
            self.most = 0
            self.nbytes = 0
            self.arrays.clear()

    def get(self, folder: str, name: str, entry: Entry) -> np.ndarray | None:
        with self.lock:
            return self.arrays.get((folder, name, *entry))

    def put(self, folder: str, name: str, entry: Entry, keys: np.ndarray) -> None:
        with self.lock:
            if not self.most or self.nbytes + keys.nbytes > self.most:
                return
            # (a copy of its own, which only the merges' joins read: left writeable, since a read-only array is
            # another type to the compiled join, compiled once more)
            kept = np.array(keys, np.uint64)
            self.arrays[(folder, name, *entry)] = kept
            self.nbytes += kept.nbytes


#: the earlier layers' keys this process keeps while a build runs here (see :class:`KeptKeys`)
KEPT_KEYS = KeptKeys()
#: the most bytes of them (and at most an eighth of the memory available when the build starts)
KEPT_KEYS_BYTES = 1 << 27


def earlier_keys(folder: str, name: str, entry: Entry, width: int) -> np.ndarray:
    """The keys of the earlier layer's file ``name`` of ``folder`` (read strictly, as :func:`read_part`, unless
    :data:`KEPT_KEYS` holds them)."""
    kept = KEPT_KEYS.get(folder, name, entry)
    if kept is not None:
        return kept
    keys = read_part(folder, name, entry, "keys", width)["keys"]
    KEPT_KEYS.put(folder, name, entry, keys)
    return keys


def merge_task(folder: str, packed: Packed, j: int, layer: int, parts: int, sizes: list[list[int]],
               files: Mapping[str, Entry], deadline: float | None = None, token: str | None = None
               ) -> tuple[int, dict[str, Entry]]:
    """Part ``j``'s children of layer ``layer``: the new positions to its ``keys`` file of that layer, every edge
    (its parent's global id, the child's id in the part, offset) to its ``edges`` files. ``files``: the
    entries of part ``j``'s ``keys`` files of the layers before and of its ``in`` files of this layer (as the
    expand tasks wrote them). Returns how many positions are new, and the entries of the files written.
    ``deadline``: as :func:`expand_task`'s, checked before each earlier layer is joined and before writing;
    ``token`` as its."""
    width = packed.width
    ctx = Context(packed, sizes)
    ins = [read_checked(folder, files, "in", j, layer, ctx, source=k) for k in range(parts)]
    joined = Joined(np.concatenate([x["keys"].reshape(-1, width) for x in ins]) if ins
                    else np.zeros((0, width), np.uint64), width)
    for x in ins:
        del x["keys"]
    # the part's earlier positions, one layer at a time (each kept file sorted: one pass joins it); the new
    # positions are then numbered in their sorted order, so the kept file deflates several times smaller
    base = 0
    for ell in range(layer):
        check_deadline(deadline)
        name = rel("keys", j, ell)
        if name not in files:
            raise PartitionedError(f"{os.path.join(folder, name)}: not listed in the checkpoint's manifest")
        joined.join(earlier_keys(folder, name, files[name], width), base)
        base += files[name][2]
    check_deadline(deadline)
    ids, new = joined.finish(base)
    del joined
    written: dict[str, Entry] = {}
    by_child = np.argsort(ids, kind="stable")
    src = np.concatenate([x["src"] for x in ins]).astype(ctx.ids("in", j, layer)[0], copy=False)[by_child]
    off = np.concatenate([x["off"] for x in ins])[by_child]
    del ins
    dst = ids[by_child].astype(id_dtype(base + len(new)), copy=False)  # (the part's positions up to this layer)
    del ids, by_child
    rows = EDGE_ROWS
    for piece, a in enumerate(range(0, max(1, len(dst)), rows)):  # (at least one file, empty or not)
        name = rel("edges", j, layer, piece=piece)
        written[name] = partfiles.save_npz(os.path.join(folder, name), 0, len(dst[a:a + rows]), deflate=True,
                                           src=src[a:a + rows], dst=_differences(dst[a:a + rows]),
                                           off=off[a:a + rows])
    name = rel("keys", j, layer)
    written[name] = partfiles.save_npz(os.path.join(folder, name), len(new), 0, deflate=True, keys=new)
    KEPT_KEYS.put(folder, name, written[name], new)
    if len(dst) >= RECORD_MIN:
        write_record(folder, token, "merge", j, layer, [len(new), written])
    return len(new), written


# -- a layer's finished tasks -------------------------------------------------------------------------------------
# A task that finishes records its result in its part's folder (:mod:`quaternity_cp.taskrecords`), so that a layer
# stopped part way (Ctrl-C, the time limit, a lost worker) goes on from its unfinished tasks. A record is keyed by
# the layer's token, the keyed digest of the manifest the layer starts from; any other record (of an earlier start,
# damaged, edited) is not taken, and the task is run again. The files a record names are checked as the manifest's
# are (present, of their size; their SHA-256 when read). A layer's records go once the manifest records the layer.
# A task of fewer than RECORD_MIN positions (an expand) or children (a merge) records nothing: running it again
# costs less than its record.
#: the fewest positions or children of a task whose result is recorded
RECORD_MIN = 1 << 14
#: a record's name inside the checkpoint folder (group 1: the layer)
RECORD_NAME = r"part\d{3}/done(\d{4})-(?:expand|merge)\.json"


def record_rel(kind: str, k: int, layer: int) -> str:
    """The name, inside the checkpoint folder, of the record of part ``k``'s ``kind`` task of ``layer``."""
    return f"part{k:03d}/done{layer:04d}-{kind}.json"


def layer_token(man: Mapping[str, Any], purpose: str) -> str:
    """The key of the task records of the layer that the manifest ``man`` (its body) starts."""
    return taskrecords.step_token(man, purpose)


def write_record(folder: str, token: str | None, kind: str, k: int, layer: int, result: list[Any]) -> None:
    """Record a finished task's ``result`` (atomically; nothing without a ``token``)."""
    taskrecords.write(os.path.join(folder, record_rel(kind, k, layer)), token,
                      {"kind": kind, "part": k, "layer": layer}, result)


def read_record(folder: str, token: str | Callable[[], str], kind: str, k: int, layer: int) -> list[Any] | None:
    """The result recorded by part ``k``'s ``kind`` task of ``layer`` under ``token``; None when there is no such
    record (:func:`quaternity_cp.taskrecords.read`). A file it names that is missing or of another size is
    refused (:class:`PartitionedError`, naming it)."""
    result = taskrecords.read(os.path.join(folder, record_rel(kind, k, layer)), token,
                              {"kind": kind, "part": k, "layer": layer}, PartitionedError)
    size = 3 if kind == "expand" else 2
    if (not isinstance(result, list) or len(result) != size or not isinstance(result[-1], dict)
            or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in result[:-1])):
        return None  # (no record; a MAC'd record is this program's, of this shape)
    partfiles.check_present(folder, result[-1], PartitionedError)
    return result


def clear_records(folder: str, before: int | None = None, layer: int | None = None) -> None:
    """Remove the task records of ``layer``, or of every layer before ``before``."""
    taskrecords.clear(folder, RECORD_NAME, lambda ell: ell == layer or (before is not None and ell < before))


# -- the manifest ----------------------------------------------------------------------------------------------
def head(packed: Packed, parts: int) -> dict[str, Any]:
    """The manifest's fields that name the graph: its format, the game's identity and the parts."""
    return {"format": packed.format, "layout": LAYOUT, **packed.identity(), "parts": parts}


#: every key of a manifest (besides its head's)
BODY = ("layers", "sizes", "edges", "root", "first", "complete", "seconds", "files")


def _write_manifest(folder: str, body: dict[str, Any], purpose: str) -> None:
    """The manifest, with its keyed digest (:mod:`quaternity_cp.digest`), written atomically."""
    text = json.dumps({**body, "digest": sign_json(body, purpose)}, sort_keys=True, separators=(",", ":"))
    write_atomic(os.path.join(folder, "manifest.json"), text + "\n")


class OlderLayout(PartitionedError):
    """A checkpoint whose part files are laid out as an older version wrote them (:func:`upgrade` rewrites it)."""


def _load_manifest(path: str, fmt: str, old_formats: Mapping[str, str], purpose: str, upgradable: bool = False,
                   any_layout: bool = False) -> dict[str, Any] | None:
    """A manifest's content (without its digest) once its format and keyed digest are checked; None when there
    is no manifest. ``upgradable``: a manifest of layout 1 is refused as :class:`OlderLayout` (which
    :func:`upgrade` rewrites); ``any_layout``: its layout is not checked (for what reads its head only)."""
    data = read_json_file(path, PartitionedError, "checkpoint")
    if data is None:
        return None
    if not isinstance(data, dict) or "digest" not in data:
        raise PartitionedError(f"{path}: not a checkpoint of this program")
    got = data.get("format")
    if isinstance(got, str) and got in old_formats:
        raise PartitionedError(f"{path}: written by an older version ({old_formats[got]}); remove the folder or use "
                               "another one")
    if got != fmt:
        if isinstance(got, str) and got.split("-")[0] == fmt.split("-")[0]:  # (this program's, of another kind)
            raise PartitionedError(f"{path}: a checkpoint of another game or kind (format {got!r} there, {fmt!r} "
                                   "asked); use another folder")
        raise PartitionedError(f"{path}: not a checkpoint of this program (format {got!r})")
    layout = data.get("layout", 1)
    if any_layout:
        layout = LAYOUT
    elif layout == 1 and upgradable:
        raise OlderLayout(f"{path}: written by an older version (its part files are plain, layout 1; this "
                          f"version's is {LAYOUT}): go on with --upgrade to rewrite them in place (about a third "
                          "of their size), or remove the folder or use another one")
    if layout != LAYOUT:
        raise PartitionedError(f"{path}: written by {'an older' if layout == 1 else 'another'} version (its part "
                               f"files are laid out as layout {json.dumps(layout)[:20]}, this version's is "
                               f"{LAYOUT}); remove the folder or use another one")
    digest = data.pop("digest")
    if not verify_json(digest, data, purpose):
        raise PartitionedError(f"{path}: the checkpoint was changed or damaged, or written under another user's key "
                               "(its keyed digest does not match); remove the folder to start again")
    return data


def _old_formats(packed: Packed) -> Mapping[str, str]:
    old = getattr(packed, "old_formats", None)
    return old if isinstance(old, Mapping) else {}


def read_manifest(folder: str, packed: Packed, parts: int) -> dict[str, Any] | None:
    """The folder's manifest when it is one of ``packed``'s graph in ``parts`` parts, checked field by field; None
    when there is none."""
    path = os.path.join(folder, "manifest.json")
    data = _load_manifest(path, packed.format, _old_formats(packed), manifest_purpose(packed), upgradable=True)
    if data is None:
        return None
    _check_head(path, data, packed, parts)
    return data


def stored_parts(folder: str, packed: Packed) -> int | None:
    """The parts of the checkpoint in ``folder`` (its manifest's, of any layout, once its keyed digest is checked);
    None when the folder holds no manifest, or one that :func:`read_manifest` refuses (with its reason, when the
    caller reads it). A run that names no parts goes on with these: whether the checkpoint is ``packed``'s game,
    and of a layout this version reads, is checked when it is read."""
    path = os.path.join(folder, "manifest.json")
    try:
        data = _load_manifest(path, packed.format, _old_formats(packed), manifest_purpose(packed), any_layout=True)
    except PartitionedError:
        return None
    parts = None if data is None else data.get("parts")
    if isinstance(parts, bool) or not isinstance(parts, int) or not 1 <= parts <= MAX_PARTS:
        return None  # (none, or one read_manifest refuses with its reason)
    return parts


def refuse_other_parts(folder: str, packed: Packed, parts: int) -> None:
    """Refuse (:class:`PartitionedError`, naming both) a checkpoint in ``folder`` of ``packed``'s game in other
    parts than ``parts``; nothing else is checked here (a caller whose own file was refused calls this to say what
    differs, then raises its own refusal)."""
    path = os.path.join(folder, "manifest.json")
    try:
        data = _load_manifest(path, packed.format, _old_formats(packed), manifest_purpose(packed), any_layout=True)
    except PartitionedError:
        return
    want = head(packed, parts)
    if data is not None and data.get("parts") != parts and {**{k: data.get(k) for k in want}, "parts": parts} == want:
        raise PartitionedError(_other_parts(path, data["parts"], parts))


def _other_parts(path: str, theirs: object, parts: int) -> str:
    return (f"{path}: a checkpoint of this game in {json.dumps(theirs)[:20]} parts, not {parts}: go on with its "
            "parts (name none, or the same), or use another folder")


def open_manifest(folder: str, fmt: str, old_formats: Mapping[str, str], purpose: str,
                  packed_of: Callable[[Mapping[str, Any]], Packed]) -> tuple[Packed, dict[str, Any]]:
    """The folder's manifest, whatever its game's options: ``packed_of`` makes the packed part from the manifest's
    fields (a game's own reading of its identity; it raises a :class:`QuaternityError` for one it does not
    solve); checked as :func:`read_manifest` does. Returns the packed part and the manifest."""
    path = os.path.join(folder, "manifest.json")
    data = _load_manifest(path, fmt, old_formats, purpose)
    if data is None:
        raise PartitionedError(f"{path}: missing: not a checkpoint folder")
    try:
        packed = packed_of(data)
    except (QuaternityError, TypeError, ValueError) as err:
        raise PartitionedError(f"{path}: not a game this program solves ({err})") from None
    parts = data.get("parts")
    if isinstance(parts, bool) or not isinstance(parts, int) or not 1 <= parts <= MAX_PARTS:
        raise PartitionedError(f"{path}: parts must be a whole number 1..{MAX_PARTS}, not {parts!r}")
    want = head(packed, parts)
    if {k: data.get(k) for k in want} != want:
        raise PartitionedError(f"{path}: its game is not written as this program writes it")
    _check_manifest(path, data, packed)
    return packed, data


def _whole(path: str, name: str, value: object, lo: int = 0, hi: int = MAX_COUNT) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise PartitionedError(f"{path}: {name} must be a whole number {lo}..{hi:,}, not {json.dumps(value)[:40]}")
    return value


def _expected_files(parts: int, layers: int) -> list[tuple[str, str, int, int]]:
    """(name, kind, part, layer) of every part file a manifest of ``layers`` layers lists."""
    out = []
    for k in range(parts):
        out += [(rel("keys", k, ell), "keys", k, ell) for ell in range(layers)]
        out += [(rel("out", k, ell), "out", k, ell) for ell in range(layers - 1)]
        out += [(rel("edges", k, ell), "edges", k, ell) for ell in range(1, layers)]
    return out


def _root(packed: Packed, parts: int) -> tuple[np.ndarray, int, int]:
    """The start's key (1 x width), the seat to move there, and its part."""
    key, first = packed.start()
    root = np.asarray(key, np.uint64).reshape(1, packed.width)
    return root, int(first), int(part_of(root, parts)[0])


def _check_manifest(path: str, data: Mapping[str, Any], packed: Packed) -> None:
    """Every field of a manifest of ``packed``'s graph: its keys, types and ranges, the start's place (found again
    from the packed part), and an entry for every part file with counts that agree with the sizes."""
    parts = data["parts"]
    allowed = set(head(packed, parts)) | set(BODY)
    if set(data) != allowed:
        odd = sorted(set(data) ^ allowed)
        raise PartitionedError(f"{path}: unexpected or missing fields {odd}")
    layers = _whole(path, "layers", data["layers"], 1, MAX_LAYERS)
    sizes = data["sizes"]
    if not isinstance(sizes, list) or len(sizes) != parts:
        raise PartitionedError(f"{path}: sizes must be a list of {parts} lists (one per part)")
    for k, row in enumerate(sizes):
        if not isinstance(row, list) or len(row) != layers:
            raise PartitionedError(f"{path}: sizes[{k}] must be a list of {layers} numbers (one per layer)")
        for ell, v in enumerate(row):
            _whole(path, f"sizes[{k}][{ell}]", v)
    if sum(sum(row) for row in sizes) > MAX_COUNT:
        raise PartitionedError(f"{path}: sizes add up to more than {MAX_COUNT:,} positions")
    _whole(path, "edges", data["edges"])
    _, first, rp = _root(packed, parts)
    if data["root"] != [rp, 0]:
        raise PartitionedError(f"{path}: root must be [{rp}, 0] (the start's place among {parts} parts), not "
                               f"{json.dumps(data['root'])[:40]}")
    if data["first"] != first or isinstance(data["first"], bool):
        raise PartitionedError(f"{path}: first must be {first} (the seat to move first), not "
                               f"{json.dumps(data['first'])[:40]}")
    if [row[0] for row in sizes] != [int(k == rp) for k in range(parts)]:
        raise PartitionedError(f"{path}: sizes of layer 0 must be the start alone, in part {rp}")
    complete = data["complete"]
    if not isinstance(complete, bool):
        raise PartitionedError(f"{path}: complete must be true or false, not {json.dumps(complete)[:40]}")
    if complete and (layers < 2 or any(row[-1] for row in sizes)):
        raise PartitionedError(f"{path}: complete, but its last layer is not empty")
    seconds = data["seconds"]
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) \
            or seconds < 0:
        raise PartitionedError(f"{path}: seconds must be a number of seconds >= 0, not {json.dumps(seconds)[:40]}")
    files = data["files"]
    expected = _expected_files(parts, layers)
    if not isinstance(files, dict) or not {name for name, *_ in expected} <= set(files):
        raise PartitionedError(f"{path}: files must list exactly the {len(expected)} part files of {layers} layers "
                               "(and the slices of edges files)")
    pieces: dict[tuple[int, int], int] = {}
    for name in sorted(set(files) - {name for name, *_ in expected}):
        found = re.fullmatch(r"part(\d+)/edges(\d+)-(\d+)\.npz", name) if isinstance(name, str) else None
        k, ell, piece = (int(x) for x in found.groups()) if found is not None else (-1, -1, -1)
        if not (found is not None and 0 <= k < parts and 1 <= ell < layers and piece >= 1
                and rel("edges", k, ell, piece=piece) == name):
            raise PartitionedError(f"{path}: files lists {str(name)[:80]!r}, not a part file of {layers} layers")
        pieces[(k, ell)] = max(pieces.get((k, ell), 0), piece)
        expected.append((name, "edges", k, ell))
    for (k, ell), last in pieces.items():
        got = [files.get(rel("edges", k, ell, piece=p)) for p in range(last + 1)]
        rows: list[int] = [r[3] for r in got if isinstance(r, list) and len(r) == 4 and isinstance(r[3], int)
                           and not isinstance(r[3], bool)]
        if len(rows) != len(got):
            raise PartitionedError(f"{path}: the slices of {rel('edges', k, ell)} must be listed 1..{last} without "
                                   "a gap, each [bytes, SHA-256 in hex, positions, edges]")
        if any(r != rows[0] for r in rows[:-1]) or not 1 <= rows[-1] <= rows[0]:
            raise PartitionedError(f"{path}: the slices of {rel('edges', k, ell)} must hold as many edges as the "
                                   "first, the last at most as many and at least one")
    ctx = Context(packed, sizes)  # (the ids' dtypes of each file)
    for name, kind, k, ell in expected:
        entry = files[name]
        if not (isinstance(entry, list) and len(entry) == 4 and isinstance(entry[1], str) and len(entry[1]) == 64
                and all(c in "0123456789abcdef" for c in entry[1])):
            raise PartitionedError(f"{path}: files[{name!r}] must be [bytes, SHA-256 in hex, positions, edges]")
        size = _whole(path, f"files[{name!r}] bytes", entry[0])
        n = _whole(path, f"files[{name!r}] positions", entry[2])
        m = _whole(path, f"files[{name!r}] edges", entry[3])
        if kind in ("keys", "out") and n != sizes[k][ell]:
            raise PartitionedError(f"{path}: files[{name!r}] holds {n} positions where sizes says {sizes[k][ell]}")
        if (kind == "keys" and m) or (kind == "edges" and n):
            raise PartitionedError(f"{path}: files[{name!r}]: counts of the wrong kind")
        if not partfiles.size_fits(size, _spec(kind, n, m, packed.width, ctx.ids(kind, k, ell)), kind in DEFLATED):
            raise PartitionedError(f"{path}: files[{name!r}]: {size:,} bytes cannot hold its {n:,} positions and "
                                   f"{m:,} edges")


def _check_files(folder: str, files: Mapping[str, Entry]) -> None:
    """Every part file the manifest lists is there, a regular file of the size it gives (nothing is read; the
    contents are checked as each file is read)."""
    partfiles.check_present(folder, files, PartitionedError)


# -- the build ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Built:
    """A complete graph in a checkpoint folder: its packed part, parts, layers, positions and edges per part, the
    root (part, id) and the seat that moves first; ``part_sizes`` (positions per part and layer) and ``files``
    (each part file's manifest entry: what its reads are checked against)."""

    folder: str
    packed: Packed
    parts: int
    layers: int
    sizes: tuple[int, ...]
    edges: int
    root: tuple[int, int]
    first: int
    seconds: float
    part_sizes: tuple[tuple[int, ...], ...] = ()
    files: Mapping[str, Entry] = field(default_factory=dict, compare=False, repr=False)

    @property
    def positions(self) -> int:
        return sum(self.sizes)


def check_parts(parts: object) -> int:
    """``parts`` when it is a whole number 1..:data:`MAX_PARTS`; else :class:`PartitionedError`."""
    if isinstance(parts, bool) or not isinstance(parts, int) or not 1 <= parts <= MAX_PARTS:
        raise PartitionedError(f"parts must be a whole number 1..{MAX_PARTS}, not {parts!r}")
    return parts


#: the subfolder where :func:`upgrade` writes the rewritten files before moving them in
UPGRADE_FOLDER = "upgrade"
_PART_FILE = re.compile(r"part(\d{3})/(keys|out|edges)(\d{4})(?:-(\d{4}))?\.npz")


def _plain_spec(kind: str, n: int, m: int, width: int, ids: Ids) -> dict[str, tuple[np.dtype[Any], tuple[int, ...]]]:
    """The arrays of a part file of layout 1 (every array plain, as the solver uses it)."""
    src, dst = ids
    if kind == "out":
        return {"owner": (_I8, (n,)), "degree": (_I16, (n,)), "src": (src, (m,)), "end": (_I8, (m,))}
    if kind == "edges":
        return {"src": (src, (m,)), "dst": (dst, (m,)), "off": (_I8, (m,))}
    return _spec(kind, n, m, width, ids)


def _relaid(path: str, kind: str, a: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A layout-1 file's arrays as :data:`LAYOUT` stores them (its positions keep their order: the ids the other
    files give them stay theirs)."""
    if kind == "out":
        if len(a["src"]) and bool(np.any(np.diff(a["src"]) < 0)):
            raise PartitionedError(f"{path}: src is not in order; remove the folder to start again")
        return {"owner": a["owner"], "degree": a["degree"], "src": _differences(a["src"]), "end": a["end"]}
    if kind == "edges":
        order = np.argsort(a["dst"], kind="stable")
        return {"src": a["src"][order], "dst": _differences(a["dst"][order]), "off": a["off"][order]}
    return dict(a)


def upgrade(packed: Packed, folder: str, parts: int) -> int:
    """Rewrite the checkpoint ``folder`` of ``packed``'s graph in ``parts`` parts from layout 1 (plain part files)
    to :data:`LAYOUT`, in place; returns the files rewritten (0 when it already is). Every file is read strictly
    (its size and SHA-256 the old manifest's) and rewritten into the subfolder :data:`UPGRADE_FOLDER` with the
    new manifest; only then are they moved in, the manifest last. Stopped at any point, the folder is either the
    old checkpoint whole (the next call starts again) or the new one staged (the next call finishes the moves)."""
    folder = os.path.abspath(folder)
    path = os.path.join(folder, "manifest.json")
    staged = os.path.join(folder, UPGRADE_FOLDER)
    purpose = manifest_purpose(packed)
    fmt, old_formats = packed.format, _old_formats(packed)
    if os.path.isfile(os.path.join(staged, "manifest.json")):
        new = _load_manifest(os.path.join(staged, "manifest.json"), fmt, old_formats, purpose)
        assert new is not None
        _check_head(os.path.join(staged, "manifest.json"), new, packed, parts)
        return _move_in(folder, staged, new)
    try:
        read_manifest(folder, packed, parts)  # (no checkpoint, or one of this layout: nothing to do)
        return 0
    except OlderLayout:
        pass
    data = load_json(read_input(path))
    digest = data.pop("digest")
    if not verify_json(digest, data, purpose):
        raise PartitionedError(f"{path}: the checkpoint was changed or damaged, or written under another user's key "
                               "(its keyed digest does not match); remove the folder to start again")
    data["layout"] = LAYOUT
    _check_head(path, data, packed, parts)
    files = data["files"]
    _check_files(folder, files)
    ctx = Context(packed, data["sizes"])
    shutil.rmtree(staged, ignore_errors=True)
    for k in range(parts):
        os.makedirs(os.path.join(staged, f"part{k:03d}"), exist_ok=True)
    written: dict[str, Entry] = {}
    for name in sorted(files):
        found = _PART_FILE.fullmatch(name)
        assert found is not None  # (the manifest's names were checked: _check_manifest)
        kind, k, ell = found.group(2), int(found.group(1)), int(found.group(3))
        ids = ctx.ids(kind, k, ell)
        entry = files[name]
        old = partfiles.read_npz(os.path.join(folder, name), entry, _plain_spec(kind, entry[2], entry[3],
                                                                                packed.width, ids), PartitionedError)
        written[name] = partfiles.save_npz(os.path.join(staged, name), entry[2], entry[3], deflate=True,
                                           **_relaid(os.path.join(folder, name), kind, old))
        del old
    _write_manifest(staged, {**data, "files": written}, purpose)
    return _move_in(folder, staged, {**data, "files": written})


def _check_head(path: str, data: Mapping[str, Any], packed: Packed, parts: int) -> None:
    want = head(packed, parts)
    mine = {k: data.get(k) for k in want}
    if mine != want:
        if {**mine, "parts": parts} == want:
            raise PartitionedError(_other_parts(path, mine["parts"], parts))
        raise PartitionedError(f"{path}: a checkpoint of another game ({head_difference(mine, want)}); use another "
                               "folder")
    _check_manifest(path, data, packed)


def head_difference(there: Mapping[str, Any], here: Mapping[str, Any], most: int = 4) -> str:
    """What differs between a checkpoint's head (``there``) and the one asked for (``here``), field by field (a
    dict's fields by their dotted names, a group's ``name`` first), at most ``most`` fields and each value at most 40
    characters: ``rules.name "quaternity" there, "blind" asked; players 3 there, 4 asked``."""
    def flat(d: Mapping[str, Any], at: str = "") -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k in sorted(d, key=str):
            v = d[k]
            if isinstance(v, Mapping) and v:
                out.update(flat(v, f"{at}{k}."))
            else:
                out[f"{at}{k}"] = v
        return out

    def shown(v: Any) -> str:
        text = "none" if v is None else json.dumps(v, sort_keys=True, default=str)
        return text if len(text) <= 40 else text[:39] + "…"

    a, b = flat(there), flat(here)
    # (a group's name first: a rule preset's, then its options)
    names = sorted((n for n in set(a) | set(b) if a.get(n) != b.get(n)), key=lambda n: (not n.endswith(".name"), n))
    diff = [f"{n} {shown(a.get(n))} there, {shown(b.get(n))} asked" for n in names]
    more = f"; and {len(diff) - most} more" if len(diff) > most else ""
    return "; ".join(diff[:most]) + more


def _move_in(folder: str, staged: str, new: Mapping[str, Any]) -> int:
    """The staged files moved over the old ones, then the staged manifest (see :func:`upgrade`)."""
    for name in new["files"]:
        there = os.path.join(staged, name)
        if os.path.lexists(there):
            os.replace(there, os.path.join(folder, name))
    os.replace(os.path.join(staged, "manifest.json"), os.path.join(folder, "manifest.json"))
    shutil.rmtree(staged, ignore_errors=True)
    return len(new["files"])


def build(packed: Packed, folder: str, *, parts: int, run: Runner | None = None, limits: Limits | None = None,
          progress: Callable[[dict[str, Any]], None] | None = None, upgrade_layout: bool = False) -> Built:
    """The graph of ``packed``'s start in ``folder`` (made if missing), going on from its checkpoint when it has
    one, in ``parts`` parts (1..:data:`MAX_PARTS`). ``run`` runs a list of task calls (default: here, one after
    the other; :func:`~quaternity_cp.retrograde.dask_runner` on Dask). ``limits``: ``max_positions`` and
    ``max_seconds``, checked after each layer (past them :class:`BuildStopped`; the layers done stay).
    ``max_seconds`` is checked inside the layer's tasks too, between their chunks of work, and ``max_positions``
    as each of a layer's merge tasks ends (the positions of the layers done and of the layer's finished merges;
    a runner that does not tell of each task's end leaves it to the layer's end), and before a run's first layer
    (a checkpoint already at the limit goes on only under a larger one). Each task that finishes records its
    result (:func:`write_record`): a layer stopped part way (a limit, Ctrl-C, a failed task) goes on from its
    unfinished tasks. ``progress`` gets a dict after each layer (keys ``layer``, ``new``, ``positions``,
    ``edges``, ``seconds``) and, as each task of at least :data:`RECORD_MIN` positions or children ends (the
    layers that take minutes), one with the key ``task`` (``expand``: ``layer``, ``done`` and ``of`` the layer's
    parts, ``edges`` so far, ``seconds``; ``merge``: the same with ``new`` so far). A damaged, edited or foreign
    checkpoint is refused (:class:`PartitionedError`, one line naming the file); one of an older layout too
    (:class:`OlderLayout`), unless ``upgrade_layout``: it is then rewritten first (:func:`upgrade`)."""
    check_packed(packed)
    parts = check_parts(parts)
    user_key()  # (an unusable key file is refused before any work)
    folder = os.path.abspath(folder)
    if upgrade_layout:
        upgrade(packed, folder, parts)
    run = run or local_runner
    if run is not local_runner:
        return _build(packed, folder, parts, run, limits, progress)
    free = memory_available()  # (None: not known; then the fixed bound alone)
    KEPT_KEYS.start(KEPT_KEYS_BYTES if free is None else min(KEPT_KEYS_BYTES, free // 8))  # (see KeptKeys)
    try:
        return _build(packed, folder, parts, run, limits, progress)
    finally:
        KEPT_KEYS.stop()


def _build(packed: Packed, folder: str, parts: int, run: Runner, limits: Limits | None,
           progress: Callable[[dict[str, Any]], None] | None) -> Built:
    budget = (limits or Limits()).start()
    os.makedirs(folder, exist_ok=True)
    purpose = manifest_purpose(packed)
    man = read_manifest(folder, packed, parts)
    if man is None:
        for k in range(parts):
            os.makedirs(part_dir(folder, k), exist_ok=True)
        root, first, rp = _root(packed, parts)
        if first < 0:
            raise PartitionedError("nobody can move at the start: the game is over before it begins")
        files: dict[str, Entry] = {}
        for k in range(parts):
            keys = root if k == rp else np.zeros((0, packed.width), np.uint64)
            name = rel("keys", k, 0)
            files[name] = partfiles.save_npz(os.path.join(folder, name), len(keys), 0, deflate=True, keys=keys)
            KEPT_KEYS.put(folder, name, files[name], keys)
        man = {**head(packed, parts), "layers": 1, "sizes": [[1 if k == rp else 0] for k in range(parts)],
               "edges": 0, "root": [rp, 0], "first": first, "complete": False, "seconds": 0.0, "files": files}
        _write_manifest(folder, man, purpose)
    else:
        _check_files(folder, man["files"])
        clear_records(folder, before=int(man["layers"]))  # (left when a run stopped right after a layer)
        taskrecords.clear_temporaries(folder)
    spent = float(man["seconds"])

    def positions(m: Mapping[str, Any]) -> int:
        return sum(sum(s) for s in m["sizes"])

    def with_moves(m: Mapping[str, Any]) -> int:  # (a stopped build's last layer has no moves yet)
        return sum(sum(s[:-1]) for s in m["sizes"])

    try:
        while not man["complete"]:
            layer = int(man["layers"])
            sizes = man["sizes"]
            files = man["files"]
            stored = positions(man)
            reached = [stored, 0]  # (the positions stored, the layer's finished merges with them; those merges)
            try:
                budget.check_positions(stored)  # (a run going on past its limit: stopped before any work)
                deadline = budget.wall_deadline()  # (checked inside the tasks too: a task of a big layer takes minutes)
                # (the tasks finished before a stop are not run again; a small task keeps no record)
                tokens: list[str] = []
                begun: Mapping[str, Any] = man  # (the manifest this layer starts from)

                def token() -> str:
                    if not tokens:
                        tokens.append(layer_token(begun, purpose))
                    return tokens[0]

                def recorded(kind: str, k: int) -> list[Any] | None:
                    return read_record(folder, token, kind, k, layer)

                done = [recorded("expand", k) for k in range(parts)]
                todo = [k for k in range(parts) if done[k] is None]
                big = [sizes[k][layer - 1] >= RECORD_MIN for k in todo]  # (a big part's tasks told as they end)
                expanded = TaskTally(progress, budget.elapsed, {"task": "expand", "layer": layer}, parts, done, big,
                                     "edges", at=1)
                ran = iter(run([(expand_task, (folder, packed, k, layer, parts, sizes, files[rel("keys", k, layer - 1)],
                                               deadline, token() if b else None))
                                for k, b in zip(todo, big)], expanded))
                got = [tuple(d) if d is not None else next(ran) for d in done]
                budget.check_time()  # (between the halves of a layer too: a layer of a big graph takes minutes)
                written: dict[str, Entry] = {}
                for _, _, w in got:
                    written.update(w)
                merged = [recorded("merge", j) for j in range(parts)]
                merges = []
                large: list[bool] = []
                for j in range(parts):
                    if merged[j] is not None:
                        continue
                    known = {rel("keys", j, ell): files[rel("keys", j, ell)] for ell in range(layer)}
                    ins = {rel("in", j, layer, k): written[rel("in", j, layer, k)] for k in range(parts)}
                    known.update(ins)
                    large.append(sum(int(e[3]) for e in ins.values()) >= RECORD_MIN)
                    merges.append((merge_task, (folder, packed, j, layer, parts, sizes, known, deadline,
                                                token() if large[-1] else None)))
                joins = TaskTally(progress, budget.elapsed, {"task": "merge", "layer": layer}, parts, merged, large,
                                  "new")

                def within_limit() -> None:  # (while merges are left: the last one ends the layer, checked after)
                    if joins.done < parts and joins.total:
                        reached[:] = [stored + joins.total, joins.done]
                        budget.check_positions(reached[0])

                def joined(i: int, result: Any) -> None:
                    joins(i, result)
                    within_limit()

                within_limit()
                fresh = iter(run(merges, joined))
                new = [tuple(d) if d is not None else next(fresh) for d in merged]
            except Stopped as stop:
                part_way = f"reached in layer {layer}, {reached[1]} of its {parts} parts joined" \
                    if stop.reason == LIMIT and reached[1] else ""
                raise BuildStopped(stop.reason, layer, reached[0] if part_way else positions(man), part_way,
                                   with_moves(man)) from None
            except (QuaternityError, KeyboardInterrupt):
                raise
            except Exception as err:  # noqa: BLE001 - a worker lost, a full disk...: the layers done stay
                raise BuildStopped("failed", layer, positions(man), f"{type(err).__name__}: {err}",
                                   with_moves(man)) from None
            edges = int(man["edges"]) + sum(e for _, e, _ in got)
            sizes = [s + [int(n)] for s, (n, _) in zip(sizes, new)]
            kept = {name: entry for name, entry in written.items() if not os.path.basename(name).startswith("in")}
            for _, w in new:
                kept.update(w)
            after = {**man, "layers": layer + 1, "sizes": sizes, "edges": edges,
                     "complete": sum(n for n, _ in new) == 0, "seconds": round(spent + budget.elapsed(), 2),
                     "files": {**files, **kept}}
            _write_manifest(folder, after, purpose)
            man = after  # (only once it is on disk: what a stop reports is what the next run finds)
            for path in glob.glob(os.path.join(folder, "part*", f"in{layer:04d}-*.npz")):
                os.unlink(path)
            if tokens:  # (none was written or read without it)
                clear_records(folder, layer=layer)
            if progress is not None:
                progress({"layer": layer, "new": int(sum(n for n, _ in new)), "positions": positions(man),
                          "edges": edges, "seconds": round(budget.elapsed(), 1)})
            if not man["complete"]:
                try:
                    budget.check_positions(positions(man))
                    budget.check_time()
                except Stopped as stop:
                    raise BuildStopped(stop.reason, layer + 1, positions(man), expanded=with_moves(man)) from None
    except KeyboardInterrupt:  # anywhere in a layer: its files are written again by the next run
        raise BuildStopped("interrupted", int(man["layers"]), positions(man), expanded=with_moves(man)) from None
    return Built(folder, packed, parts, int(man["layers"]), tuple(sum(s) for s in man["sizes"]), int(man["edges"]),
                 (int(man["root"][0]), int(man["root"][1])), int(man["first"]), float(man["seconds"]),
                 tuple(tuple(s) for s in man["sizes"]), dict(man["files"]))


# -- reading a built graph ---------------------------------------------------------------------------------------
def bases(built: Built) -> np.ndarray:
    """The dense id of each part's first position (parts in order; the last entry is the graph's positions)."""
    return np.concatenate([[0], np.cumsum(np.array(built.sizes, np.int64))])


def keys_of(built: Built, k: int) -> np.ndarray:
    """Part ``k``'s positions, in id order."""
    return keys_upto(built.folder, built.packed.width, k, built.layers, built.files)


def lookup(built: Built, keys: np.ndarray) -> np.ndarray:
    """The dense ids of packed positions of ``built``'s graph (-1 for one not in it)."""
    width = built.packed.width
    keys = np.asarray(keys, np.uint64).reshape(-1, width)
    out = np.full(len(keys), -1, np.int64)
    base = bases(built)
    where = part_of(keys, built.parts)
    for k in np.unique(where):
        sel = np.nonzero(where == k)[0]
        old = keys_of(built, int(k))
        ids, _ = dedup(old, keys[sel], width)
        found = ids < len(old)
        out[sel[found]] = ids[found] + base[k]
    return out


_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
                 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53, 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5], np.uint64)


def _row_hash(keys: np.ndarray) -> np.ndarray:
    """A 64-bit mix of each key's words (equal keys, equal hashes; the index checks the words themselves)."""
    h = np.zeros(len(keys), np.uint64)
    for w in range(keys.shape[1]):
        h ^= keys[:, w] * _MIX[w]
        h ^= h >> np.uint64(29)
    return h


class KeyIndex:
    """The dense ids of positions of ``built``'s graph, for many lookups: each part's keys hashed once (when a key
    of that part is first asked), one layer's file at a time, ordered by their hashes, then found by binary
    search (:func:`lookup` instead builds a table of the part's keys at every call: fine for one batch, slow for
    a position at a time in a graph of millions).

    By default a key found by its hash is checked word for word, so a key not in the graph gets -1: the index
    holds about (width x 8 + 12) bytes a position of each part asked. ``members_only``: the keys asked are known
    to be positions of the graph (the children of its positions, as an answer's strategy follows them): a hash
    that no other position of the part shares names its position, and only the positions whose hashes collide
    keep their words; the index holds about 12 bytes a position (a key *not* in the graph may then be given the
    id of a position whose 64-bit hash it shares)."""

    def __init__(self, built: Built, members_only: bool = False):
        self.built, self.width, self.base = built, built.packed.width, bases(built)
        self.members_only = members_only
        self._parts: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}

    def _layers(self, k: int) -> Iterator[tuple[int, np.ndarray]]:
        """Part ``k``'s keys, a layer at a time (with the id of its first position in the part)."""
        built, base = self.built, 0
        for ell in range(built.layers):
            name = rel("keys", k, ell)
            if name not in built.files:
                raise PartitionedError(f"{os.path.join(built.folder, name)}: not listed in the checkpoint's manifest")
            keys = read_part(built.folder, name, built.files[name], "keys", self.width)["keys"].reshape(-1, self.width)
            yield base, keys
            base += len(keys)

    def _part(self, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(the hashes sorted, the ids in that order, the ids whose words are kept (sorted), their words)."""
        got = self._parts.get(k)
        if got is not None:
            return got
        hashes, kept = [], []
        for _base, keys in self._layers(k):
            hashes.append(_row_hash(keys))
            if not self.members_only:
                kept.append(keys)
        h = np.concatenate(hashes) if hashes else np.zeros(0, np.uint64)
        del hashes
        n = len(h)
        order = np.argsort(h, kind="stable").astype(id_dtype(n))
        h = h[order]
        if not self.members_only:
            words = np.concatenate(kept) if kept else np.zeros((0, self.width), np.uint64)
            ids = np.arange(n, dtype=id_dtype(n))
        else:
            shared = np.zeros(n, bool)
            same = h[1:] == h[:-1]
            shared[1:] |= same
            shared[:-1] |= same
            ids = np.sort(order[shared])
            words = np.zeros((len(ids), self.width), np.uint64)
            if len(ids):
                for base, keys in self._layers(k):  # (the words of the positions whose hashes collide: few if any)
                    lo, hi = np.searchsorted(ids, [base, base + len(keys)])
                    words[lo:hi] = keys[ids[lo:hi] - base]
        got = self._parts[k] = (h, order, ids, words)
        return got

    def find(self, keys: np.ndarray) -> np.ndarray:
        """The dense ids of ``keys`` (n x width words; -1 for one not in the graph: see ``members_only``)."""
        keys = np.asarray(keys, np.uint64).reshape(-1, self.width)
        out = np.full(len(keys), -1, np.int64)
        where = part_of(keys, self.built.parts)
        for i, key in enumerate(keys):
            k = int(where[i])
            hashes, order, ids, words = self._part(k)
            h = _row_hash(key.reshape(1, -1))[0]
            j = int(np.searchsorted(hashes, h))
            if j >= len(hashes) or hashes[j] != h:
                continue
            if self.members_only and (j + 1 == len(hashes) or hashes[j + 1] != h):
                out[i] = int(order[j]) + int(self.base[k])  # (the one position of the part with this hash)
                continue
            while j < len(hashes) and hashes[j] == h:
                at = int(np.searchsorted(ids, order[j]))
                if at < len(ids) and ids[at] == order[j] and np.array_equal(words[at], key):
                    out[i] = int(order[j]) + int(self.base[k])
                    break
                j += 1
        return out


def best_move(built: Built, rank: "np.ndarray | retrograde.Ranks", key: np.ndarray, r: int) -> int | None:
    """A move (the packed part's number) that keeps the seat ``r`` places after the mover of position ``key`` on
    its fastest forced win (a child of one rank less); None when that seat does not choose there or cannot force
    a win."""
    packed = built.packed
    P = packed.seats
    me = int(lookup(built, key)[0])
    k = int(rank[me, r])
    if k <= 0:
        return None
    out = expand_checked(packed, np.asarray(key, np.uint64).reshape(1, packed.width))
    if int(out["owner"][0]) != r:
        return None
    inside = out["end"] == -2
    ids = np.full(len(out["end"]), -1, np.int64)
    if inside.any():
        ids[inside] = lookup(built, out["keys"][inside])
    for e in range(len(out["end"])):
        if not inside[e]:
            if int(out["end"][e]) == r and k == 1:
                return int(out["move"][e])
        elif int(rank[ids[e], (r - int(out["off"][e])) % P]) == k - 1:
            return int(out["move"][e])
    return None


def sample(built: Built, rng: np.random.Generator, samples: int, by_layer: bool) -> np.ndarray:
    """Dense ids of random positions: uniform over the graph, or (``by_layer``) a layer drawn uniformly first,
    then a position of it (late layers, few positions each, are then sampled as often as the big middle)."""
    base = bases(built)
    if not by_layer:
        return rng.integers(0, int(base[-1]), size=samples)
    man = built.part_sizes  # [part][layer]
    layers = [ell for ell in range(built.layers) if sum(man[k][ell] for k in range(built.parts))]
    out = []
    for ell in rng.choice(layers, size=samples):
        counts = np.array([man[k][ell] for k in range(built.parts)], np.int64)
        j = int(rng.integers(0, int(counts.sum())))
        k = int(np.searchsorted(np.cumsum(counts), j, side="right"))
        j -= int(counts[:k].sum())
        out.append(int(base[k]) + sum(man[k][:ell]) + j)
    return np.array(out, np.int64)


# -- the attractor -------------------------------------------------------------------------------------------------
#: (position, seat) pairs taken off the whole-graph attractor's queue in one call of its compiled loop: between
#: calls the time limit is checked and a Ctrl-C is seen (a call takes well under a second)
RANK_STEP = 1 << 20


@jit
def _retro_start(P: int, owner: np.ndarray, degree: np.ndarray, esrc: np.ndarray, eend: np.ndarray,
                 rank: np.ndarray, left: np.ndarray, qn: np.ndarray, qr: np.ndarray, state: np.ndarray) -> int:
    """The attractor of every seat at once, begun: ``rank[i, r]`` will be the plies in which the seat ``r`` places
    after position i's mover forces a win (-1: it cannot). Positions are dense ids; ``esrc``, ``eend`` the plies
    that end the game (winner in the parent's frame, -1 nobody). ``left``: each (position, seat)'s plies not yet
    known to lose, set here to the degree. ``qn``, ``qr``: the queue, a ring (ranks are processed in order, so it
    holds at most the ranked pairs not yet processed), its head and size in ``state``. Returns 0, or 1 when the
    ring overflowed (the answer is then not given); :func:`_retro_run` goes on."""
    n = owner.shape[0]
    cap = qn.shape[0]
    for i in range(n):
        for r in range(P):
            left[i, r] = degree[i]
    size = 0
    for e in range(esrc.shape[0]):  # children that are games over: rank 0 for their winner
        w = eend[e]
        if w < 0:
            continue
        i = esrc[e]
        if rank[i, w] >= 0:
            continue
        if owner[i] != w:
            left[i, w] -= 1
            if left[i, w] != 0:
                continue
        rank[i, w] = 1
        if size == cap:
            return 1
        qn[size] = i
        qr[size] = w
        size += 1
    state[0] = 0
    state[1] = size
    return 0


@jit
def _retro_run(P: int, owner: np.ndarray, indptr: np.ndarray, psrc: np.ndarray, poff: np.ndarray, rank: np.ndarray,
               left: np.ndarray, qn: np.ndarray, qr: np.ndarray, state: np.ndarray, steps: int) -> int:
    """The attractor begun by :func:`_retro_start` carried on for at most ``steps`` pairs off the queue;
    ``indptr``/``psrc``/``poff`` each position's predecessors (parent, offset). Returns 0 when the queue is
    empty (every rank given), 3 when ``steps`` ran out (call again), 1 when the ring overflowed, 2 when a rank
    passed :data:`MAX_RANK` (the answer is then not given)."""
    cap = qn.shape[0]
    head = state[0]
    size = state[1]
    done = 0
    while size > 0:
        if done == steps:
            state[0] = head
            state[1] = size
            return 3
        done += 1
        j = qn[head]
        rc = qr[head]
        head = (head + 1) % cap
        size -= 1
        k = rank[j, rc]
        if k >= MAX_RANK:
            return 2
        for e in range(indptr[j], indptr[j + 1]):
            i = psrc[e]
            r = (rc + poff[e]) % P
            if rank[i, r] >= 0:
                continue
            if owner[i] != r:
                left[i, r] -= 1
                if left[i, r] != 0:
                    continue
            rank[i, r] = k + 1
            if size == cap:
                return 1
            qn[(head + size) % cap] = i
            qr[(head + size) % cap] = r
            size += 1
    state[0] = head
    state[1] = 0
    return 0


@jit
def _csr_into(dst: np.ndarray, src: np.ndarray, off: np.ndarray, indptr: np.ndarray, fill: np.ndarray,
              psrc: np.ndarray, poff: np.ndarray) -> None:
    """Edges (dense ``src`` and ``dst``, ``off``) into the predecessor lists: ``fill[d]`` is the next free slot of
    position d's list (from ``indptr``)."""
    for e in range(dst.shape[0]):
        d = dst[e]
        psrc[fill[d]] = src[e]
        poff[fill[d]] = off[e]
        fill[d] += 1


@jit
def _count_into(dst: np.ndarray, start: np.ndarray) -> None:
    """``start[d + 1] += 1`` for every ``d`` of ``dst`` (the lists' lengths, before their sums)."""
    for e in range(dst.shape[0]):
        start[dst[e] + 1] += 1


@jit
def _shift_back(start: np.ndarray) -> None:
    """``start[i] = start[i - 1]`` for i from the end down, and ``start[0] = 0``: the bounds of lists again after
    :func:`_csr_into` filled them with ``fill`` = ``start`` (in place: no copy of the array)."""
    for i in range(start.shape[0] - 1, 0, -1):
        start[i] = start[i - 1]
    if start.shape[0]:
        start[0] = 0


@dataclass(frozen=True)
class Attractor:
    """Every position's ranks (``ranks[i, r]``, dense ids: the plies in which the seat ``r`` places after i's
    mover forces a win, -1: it cannot): an array from the whole-graph attractor, a
    :class:`~quaternity_cp.retrograde.Ranks` (read part by part from the checkpoint; ``.dense()`` for the array)
    from the partitioned one; the start's dense id and seat to choose (an offset), the graph's size and the
    seconds it took."""

    ranks: "np.ndarray | retrograde.Ranks"
    root: int
    root_owner: int
    positions: int
    edges: int
    seconds: float


def whole_attractor_bytes(built: Built) -> int:
    """The memory the whole-graph attractor (:func:`attract` without ``partitioned``) holds at its peak for
    ``built``, the larger of its two stages plus 64 KB (a file's read buffer). Both hold per position its owner
    and degree and its predecessor lists' start (8 bytes), per edge its parent's id and offset, per ply that ends
    the game its position and winner (the ``out`` files' counts). Filling the lists holds besides a cursor per
    position (8 bytes) and one ``edges`` file's arrays with their temporaries (64 bytes an edge of the largest
    file); ranking holds the ranks (2 bytes a seat), the counters (a byte a seat) and the queue (an id and a
    seat) of every position."""
    n, e, P = int(built.positions), int(built.edges), int(built.packed.seats)
    idx = 4 if n < 2**31 else 8
    ends = largest = 0
    for name, entry in built.files.items():
        kind = os.path.basename(name)
        if kind.startswith("out"):
            ends += int(entry[3])
        elif kind.startswith("edges"):
            largest = max(largest, int(entry[3]))
    held = n * (2 + 8) + (e + ends) * (idx + 1)
    filling = held + 8 * n + 64 * largest
    ranking = held + n * (3 * P + idx + 1)
    return max(filling, ranking) + (1 << 16)


def attract(built: Built, *, partitioned: bool = False, run: Runner | None = None, limits: Limits | None = None,
            max_rounds: int | None = None, progress: Callable[[dict[str, Any]], None] | None = None) -> Attractor:
    """Run the attractor over ``built``'s whole graph (every seat at once), in about 23 bytes a position and 5 an
    edge (the predecessor lists are filled part by part). Every part file is checked to be there, of its size,
    before anything is allocated, and read strictly (its digest, dtypes, shapes and ids). A graph whose attractor
    needs more memory than is available (:func:`whole_attractor_bytes` against
    :func:`~quaternity_cp.threads.memory_available`) is refused before anything is allocated
    (:class:`PartitionedError`, one line saying both): the partitioned attractor ranks it, in rounds.
    ``limits.max_seconds`` is checked before each file is read and between the ranking's steps of
    :data:`RANK_STEP` pairs (past it :class:`AttractorStopped`, with no round done: this attractor keeps nothing on
    disk); a Ctrl-C is seen there too, within a step (3x6x3: 38.9 million positions ranked in 19 steps of about
    0.6 s). ``progress`` gets a
    dict as each part is read, in each of the two passes over the edges (``task``: ``load``, ``stage``:
    ``count`` then ``fill``, ``done`` and ``of`` the parts, ``seconds``).

    ``partitioned=True``: the same ranks by the partitioned attractor (:mod:`quaternity_cp.retrograde`), in
    rounds, part by part, in the subfolder ``attractor/`` of the checkpoint, its tasks run by ``run`` (here by
    default): no process holds the whole graph. ``limits.max_seconds`` and ``max_rounds`` stop it
    (:class:`AttractorStopped`; the rounds done stay, and the next call goes on); ``progress`` gets a dict after
    each round."""
    if partitioned:
        return _attract_partitioned(built, run, limits, max_rounds, progress)
    if run is not None or max_rounds is not None:
        raise PartitionedError("run and max_rounds go with the partitioned attractor (partitioned=True)")
    began = time.perf_counter()
    budget = (limits or Limits()).start()
    P, parts, folder = built.packed.seats, built.parts, built.folder
    files = built.files
    _check_files(folder, files)

    def in_time() -> None:  # (checked before each file is read: loading the graph is most of the time)
        try:
            budget.check_time()
        except Stopped as stop:
            raise AttractorStopped(stop.reason, built.layers, built.positions, 0, 0,
                                   "the whole-graph attractor stopped at the time limit while it read the graph, "
                                   "which it keeps in memory only; run again with the same checkpoint (the graph "
                                   "is kept) and more time to go on") from None
    need, free = whole_attractor_bytes(built), memory_available()
    if free is not None and need > free:
        def size(b: int) -> str:
            return f"{b / 2**30:.1f} GB" if b >= 2**30 else f"{b / 2**20:.1f} MB"

        raise PartitionedError(f"the whole-graph attractor would hold about {size(need)} for this graph "
                               f"({built.positions:,} positions, {built.edges:,} moves) and {size(free)} is "
                               "available: rank it with the partitioned attractor (--attractor partitioned; the "
                               "graph built is kept and goes on as it is)")
    ctx = Context(built.packed, [list(s) for s in built.part_sizes])
    base = bases(built)
    n = int(base[-1])
    idx = np.int32 if n < 2**31 else np.int64  # dense ids: 4 bytes each while they fit
    owner = np.zeros(n, np.int8)
    degree = np.zeros(n, np.int8)
    esrc, eend = [], []
    counts = np.zeros(n + 1, np.int64)
    for k in range(parts):
        pos = 0
        for ell in range(built.layers - 1):
            in_time()
            out = read_checked(folder, files, "out", k, ell, ctx)
            m = len(out["owner"])
            owner[base[k] + pos: base[k] + pos + m] = out["owner"]
            degree[base[k] + pos: base[k] + pos + m] = out["degree"]
            pos += m
            keep = out["end"] >= 0  # (a game over with nobody winning is no one's rank 0)
            esrc.append((out["src"][keep] + base[k]).astype(idx))
            eend.append(out["end"][keep])
        for ell in range(1, built.layers):
            for piece in range(len(edge_files(files, k, ell))):
                in_time()
                dst = read_checked(folder, files, "edges", k, ell, ctx, piece=piece, only=_DST)["dst"]
                counts[base[k] + 1: base[k + 1] + 1] += np.bincount(dst, minlength=int(built.sizes[k]))
        if progress is not None:
            progress({"task": "load", "stage": "count", "done": k + 1, "of": parts,
                      "seconds": round(budget.elapsed(), 1)})
    indptr = np.cumsum(counts)
    del counts
    e_total = int(indptr[-1])
    psrc = np.zeros(e_total, idx)
    poff = np.zeros(e_total, np.int8)
    fill = indptr[:-1].copy()
    for k in range(parts):
        for ell in range(1, built.layers):
            for piece in range(len(edge_files(files, k, ell))):
                in_time()
                ed = read_checked(folder, files, "edges", k, ell, ctx, piece=piece)
                g = ed["src"]
                _csr_into((ed["dst"] + base[k]).astype(idx), (base[g % parts] + g // parts).astype(idx), ed["off"],
                          indptr, fill, psrc, poff)
                del ed, g
        if progress is not None:
            progress({"task": "load", "stage": "fill", "done": k + 1, "of": parts,
                      "seconds": round(budget.elapsed(), 1)})
    del fill
    in_time()
    rank = np.full((n, P), -1, np.int16)
    left = np.empty((n, P), np.int8)  # (a position has at most retrograde.MAX_DEGREE plies)
    ring = max(1024, n)
    qn, qr, state = np.empty(ring, idx), np.empty(ring, np.int8), np.zeros(2, np.int64)
    status = _retro_start(P, owner, degree, np.concatenate(esrc) if esrc else np.zeros(0, idx),
                          np.concatenate(eend) if eend else np.zeros(0, np.int8), rank, left, qn, qr, state)
    del esrc, eend
    while status == 0 or status == 3:  # (the time limit checked, and a Ctrl-C seen, between the loop's calls)
        in_time()
        status = _retro_run(P, owner, indptr, psrc, poff, rank, left, qn, qr, state, RANK_STEP)
        if status == 0:
            break
    del left, qn, qr
    if status == 1:
        raise PartitionedError(f"the attractor's queue outgrew its {ring:,} places; no answer is given")
    if status == 2:
        raise PartitionedError(f"a forced win longer than {MAX_RANK} plies; no answer is given")
    del psrc, poff, indptr
    root = int(base[built.root[0]] + built.root[1])
    return Attractor(rank, root, int(owner[root]), n, e_total, time.perf_counter() - began)


def attractor_part(folder: str, packed: Packed, k: int, layers: int, sizes: list[list[int]],
                   files: Mapping[str, Entry]) -> retrograde.PartGraph:
    """Part ``k``'s share of the graph for the partitioned attractor (a task's loader: it runs on a Dask worker
    too): its positions' owners and degrees and plies that end the game (its ``out`` files), and the edges whose
    child it holds (its ``edges`` files: parents' global ids), every file read strictly (:func:`read_checked`;
    ``files``: part ``k``'s entries, ``sizes``: the manifest's positions per part and layer). The predecessor
    lists are handed over sorted by child (``start``), filled by a counting sort over two readings of the
    ``edges`` files, one file at a time, the parents in :func:`quaternity_cp.retrograde.id_dtype`: the task holds
    the part's arrays once, and one file."""
    ctx = Context(packed, sizes)
    outs = [rel("out", k, ell) for ell in range(layers - 1)]
    edges = [name for ell in range(1, layers) for name in edge_files(files, k, ell)]
    slices = [(ell, piece) for ell in range(1, layers) for piece in range(len(edge_files(files, k, ell)))]
    for name in outs + edges:
        if name not in files:
            raise PartitionedError(f"{os.path.join(folder, name)}: not listed in the checkpoint's manifest")
    n = sum(int(files[name][2]) for name in outs)
    t = sum(int(files[name][3]) for name in outs)
    m = sum(int(files[name][3]) for name in edges)
    # (filled file by file: one file's buffer at a time beside the part's arrays)
    owner, degree = np.zeros(n, np.int8), np.zeros(n, np.int16)
    ends, winner = np.zeros(t, np.int64), np.zeros(t, np.int8)
    at = end_at = 0
    for ell in range(layers - 1):
        out = read_checked(folder, files, "out", k, ell, ctx)
        a, b = len(out["owner"]), len(out["src"])
        owner[at:at + a], degree[at:at + a] = out["owner"], out["degree"]
        ends[end_at:end_at + b], winner[end_at:end_at + b] = out["src"], out["end"]
        at, end_at = at + a, end_at + b
        del out
    # the predecessor lists sorted by child as they are filled (a counting sort over two readings of the
    # files): the part's edges are held once, never beside a sorted copy
    start = np.zeros(n + 1, np.int64)
    for ell, piece in slices:
        dst = read_checked(folder, files, "edges", k, ell, ctx, piece=piece, only=_DST)["dst"]
        _count_into(dst, start)  # (no temporary per position)
        del dst
    np.cumsum(start, out=start)
    parent = np.zeros(m, retrograde.id_dtype([sum(s) for s in sizes]))  # (4 bytes an id while they fit)
    offset = np.zeros(m, np.int8)
    for ell, piece in slices:  # start[d] is position d's next free slot while the lists fill ...
        ed = read_checked(folder, files, "edges", k, ell, ctx, piece=piece)
        _csr_into(ed["dst"], ed["src"], ed["off"], start, start, parent, offset)
        del ed
    _shift_back(start)  # ... then each list's start again
    return retrograde.PartGraph(owner=owner, degree=degree, child=np.zeros(0, np.int64), parent=parent,
                                offset=offset, ends=ends, winner=winner, start=start)


def _attract_partitioned(built: Built, run: Runner | None, limits: Limits | None, max_rounds: int | None,
                         progress: Callable[[dict[str, Any]], None] | None) -> Attractor:
    """:func:`attract` by :func:`quaternity_cp.retrograde.attract` (see there)."""
    began = time.perf_counter()
    packed, parts, folder, files = built.packed, built.parts, built.folder, built.files
    _check_files(folder, files)
    sizes = [list(s) for s in built.part_sizes]
    loaders: list[retrograde.Loader] = []
    for k in range(parts):
        mine = {name: entry for name, entry in files.items() if name.startswith(f"part{k:03d}/")
                and not os.path.basename(name).startswith("keys")}
        loaders.append((attractor_part, (folder, packed, k, built.layers, sizes, mine)))
    identity = {"graph": packed.format, "files": sha256_hex(canonical_json(dict(files)).encode("ascii"))}
    try:
        ranks = retrograde.attract(os.path.join(folder, ATTRACTOR_FOLDER), players=packed.seats,
                                   sizes=[sum(s) for s in sizes], identity=identity, loaders=loaders, run=run,
                                   limits=limits, max_rounds=max_rounds, progress=progress)
    except retrograde.RetroStopped as stop:
        raise AttractorStopped(stop.reason, built.layers, built.positions, stop.rounds, stop.ranked,
                               str(stop)) from None
    except retrograde.RetroError as err:
        raise PartitionedError(str(err)) from None
    rp, rl = built.root
    ctx = Context(packed, sizes)
    root_owner = int(read_checked(folder, files, "out", rp, 0, ctx)["owner"][rl])
    root = int(bases(built)[rp] + rl)
    return Attractor(ranks, root, root_owner, ranks.positions, ranks.edges,
                     ranks.seconds + time.perf_counter() - began)


# -- a solve: the build, then the attractor, here or on Dask --------------------------------------------------------
def left_of(limits: Limits | None, began: float) -> Limits | None:
    """The time left of ``limits.max_seconds`` counted from ``began`` (the attractor's share of a solve's
    budget: the build's rest), as limits (at least a millisecond: it then stops after its first round)."""
    if limits is None or limits.max_seconds is None:
        return None
    return Limits(max_seconds=max(1e-3, limits.max_seconds - (time.perf_counter() - began)))


def solve_graph(packed: Packed, folder: str, *, parts: int, workers: int | None = 0, cluster: Any = None,
                limits: Limits | None = None, progress: Callable[[dict[str, Any]], None] | None = None,
                attractor: str = "whole", upgrade_layout: bool = False) -> tuple[Built, Attractor]:
    """``packed``'s graph built in ``folder`` (in ``parts`` parts: on a Dask ``cluster``, on a ``LocalCluster`` of
    ``workers`` processes when ``workers`` is None or > 0, or here when 0), then its attractor: ``"whole"`` (over
    the whole graph in this process) or ``"partitioned"`` (in rounds, part by part, on the same workers,
    checkpointed; ``limits.max_seconds`` counts on from the build's start). ``upgrade_layout``: a checkpoint of
    an older layout is rewritten first (:func:`upgrade`). ``progress`` gets the build's dict after each layer
    (key ``layer``, see :func:`build`), then the partitioned attractor's after each round (key ``round``, see
    :func:`quaternity_cp.retrograde.attract`)."""
    if attractor not in ATTRACTORS:
        raise PartitionedError(f"attractor must be one of {', '.join(ATTRACTORS)}, not {attractor!r}")
    began = time.perf_counter()
    partitioned = attractor == "partitioned"
    att: Attractor | None = None
    if workers == 0 and cluster is None:
        built = build(packed, folder, parts=parts, limits=limits, progress=progress, upgrade_layout=upgrade_layout)
        if partitioned:
            att = attract(built, partitioned=True, limits=left_of(limits, began), progress=progress)
    else:
        from .cluster import dask_client

        with dask_client(cluster, workers) as client:
            built = build(packed, folder, parts=parts, run=dask_runner(client), limits=limits, progress=progress,
                          upgrade_layout=upgrade_layout)
            if partitioned:
                att = attract(built, partitioned=True, run=dask_runner(client), limits=left_of(limits, began),
                              progress=progress)
    if att is None:
        att = attract(built, limits=left_of(limits, began), progress=progress)
    return built, att


def drop_graph(built: Built) -> None:
    """Remove ``built``'s part files and its attractor's rounds (the manifest stays)."""
    for k in range(built.parts):
        shutil.rmtree(part_dir(built.folder, k), ignore_errors=True)
    shutil.rmtree(os.path.join(built.folder, ATTRACTOR_FOLDER), ignore_errors=True)
