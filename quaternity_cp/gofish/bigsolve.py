"""Solving Quantum Go Fish starts too big for one process's dictionaries: a partitioned graph on Dask, resumable.

The graph of :mod:`.fastgraph` (packed positions, players rotated and suits
relabelled) is built breadth first, one layer of new positions at a time, in
``parts`` partitions: a position belongs to the part its key hashes to, and
each part keeps its positions on disk in the checkpoint folder.

* **Expand** (one task per part and layer): the part's newest positions are
  expanded (every legal ply, exactly as :class:`~.game.GoFish` plays it), and
  each child goes to the file of the part it belongs to; games over stay with
  their parent.
* **Merge** (one task per part and layer): the part's incoming children are
  matched against the positions it already has (a hash table rebuilt from its
  files); the new ones become the part's next layer, and every edge is stored
  with its child's part (the predecessor lists the attractor needs).

The tasks run on Dask workers (a ``LocalCluster`` of the machine's cores, or
a scheduler's address, as the Quarto proof does), or in this process
(``workers=0``). After each layer the folder's ``manifest.json`` is written
(atomically): a run stopped by Ctrl-C, a limit or a crash starts again at the
first layer not recorded there.

**What is believed of a checkpoint folder.** The manifest lists every part
file with its size, its SHA-256 and its counts (positions, edges), and carries
a *keyed* digest (HMAC-SHA256 under the user's key, :mod:`quaternity_cp.digest`)
of all of it; ``result.json`` carries one too. Every part file is read by one
strict reader (:func:`_read_part`, on the shared :mod:`quaternity_cp.partfiles`):
a regular file (no link, pipe or device) of the size the manifest gives, checked before a byte is read; its SHA-256 the
manifest's; a .npz of exactly the arrays of its kind, stored plain, each .npy
header's dtype and shape the ones the manifest's counts call for (before any
array is made: no decompression, no object arrays, nothing unpickled); then
every id and number in range (:func:`_read_checked`). The manifest's fields are
type- and range-checked, and the start's place is found again from the rules.
A damaged file, an edited one, one copied from another checkpoint, or one
forged by someone without the user's key is refused with one line naming it
(:class:`GraphError`). Someone with the user's key can forge a manifest that is
believed, but not one that makes the program read out of bounds or allocate
more than the files on disk hold.

Then the attractor (:func:`attract`) runs over the whole graph at once, in
compiled code over flat arrays (about 23 bytes a position and 5 an edge: the
4-player start's 132.5 million positions and 341 million inner edges took
5.0 GB and 40 s): for every position and every seat counted on from its
mover, whether that seat forces a win and in how many plies. Or, with
``attract(built, partitioned=True)`` (``solve(..., attractor="partitioned")``,
``quaternity gofish starts --attractor partitioned``), the same ranks part by
part, in rounds by rank, on the same runner as the build: the shared
:mod:`quaternity_cp.retrograde`, to which :func:`attractor_part` hands each
part's share (its owners, degrees, games over, and the edges kept with their
child's part); no process then holds the whole graph (about the whole's arrays
divided by the parts, plus a round's messages, per worker), and its rounds are
checkpointed in the subfolder ``attractor/``, resumable as the build is.
A winning seat's move at a position is found again from the ranks
(:func:`best_move`: a child one rank lower). The
answer for the start is written to ``result.json`` in the same folder (with a
keyed digest), so asking again reads it.

The answers equal :mod:`.solver`'s, rank for rank at every position and for
every seat (tested under every rule set on 2 players, 3 players with suits of
2 and 3, 4 players with suits of 2, and the 3-player start), where players
are not rotated; the position counts differ by that rotation and by the games
over, which the Python solver counts as one node per winner and this solver
not at all (a ply that ends the game is an edge); see
:data:`~quaternity_cp.gofish.fastgraph.SIZES_DEFINITION` and
tests/test_gofish_sizes.py.
"""

from __future__ import annotations

import glob
import json
import math
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from ..budget import Limits, Stopped
from .. import partfiles, retrograde
from ..digest import canonical_json, sha256_hex, sign_json, user_key, verify_json
from ..files import write_atomic
from ..jsonio import InputRefused, load_json, read_input
from .fastgraph import HAVE_NUMBA, Shape, expand_keys, jit, open_count, start_key
from .rules import GoFishError, Rules

#: 2: keyed digests (:mod:`quaternity_cp.digest`), and every part file's size and SHA-256 in the manifest
FORMAT = "quaternity-gofish-graph-2"
#: formats of earlier versions, refused with a word of why (their parts carry no digests)
OLD_FORMATS = ("quaternity-gofish-graph-1",)
#: positions expanded at a time inside a task (bounds the task's memory)
CHUNK = 200_000
#: the most parts of any graph (each layer writes parts x parts files)
MAX_PARTS = 256
#: parts when none are asked for (fewer when the start's graph is small: :func:`max_parts`)
DEFAULT_PARTS = 8
#: the most layers a manifest may record (ranks stop at MAX_RANK long before)
MAX_LAYERS = 100_000
#: the largest count (positions, edges, bytes) a manifest may give
MAX_COUNT = 2**53
#: what a keyed digest of a manifest / a stored answer is for (one file is never taken for the other)
MANIFEST_PURPOSE = "gofish-graph-manifest"
RESULT_PURPOSE = "gofish-graph-result"


class GraphError(GoFishError):
    """A checkpoint folder that cannot be used: another game's, damaged, or not a folder."""


class GraphStopped(GoFishError):
    """The build stopped before the graph was complete (``reason``: ``time``, ``limit``, ``interrupted``, or
    ``failed``: a task raised, e.g. a Dask worker was lost or the disk is full); the checkpoint keeps every
    finished layer."""

    def __init__(self, reason: str, layers: int, positions: int, detail: str = ""):
        self.reason = reason
        self.layers = layers
        self.positions = positions
        what = {"time": "the time limit", "limit": "the position limit", "interrupted": "an interrupt",
                "failed": f"a task that failed ({detail})"}.get(reason, reason)
        super().__init__(f"the graph's build stopped at {what} after {layers} layers ({positions} positions); "
                         "run again with the same checkpoint to go on")


# -- hashing and deduplication ------------------------------------------------------------------------------------
def part_of(keys: np.ndarray, parts: int) -> np.ndarray:
    """The part of each packed key (a fixed mix of both words, so parts are even)."""
    k = np.asarray(keys, np.uint64)
    with np.errstate(over="ignore"):
        x = k[:, 0] * np.uint64(0x9E3779B97F4A7C15) ^ (k[:, 1] + np.uint64(0x632BE59BD9B4E019)) * np.uint64(
            0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(31)
    return (x % np.uint64(parts)).astype(np.int64)


@jit
def _dedup(old: np.ndarray, new: np.ndarray, ids: np.ndarray, fresh: np.ndarray) -> int:
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
    c1 = np.uint64(0x9E3779B97F4A7C15)
    c2 = np.uint64(0xBF58476D1CE4E5B9)
    for i in range(n):
        h = (old[i, 0] * c1) ^ (old[i, 1] * c2)
        h ^= h >> np.uint64(29)
        j = h & mask
        while slots[j] >= 0:
            j = (j + np.uint64(1)) & mask
        slots[j] = i
    count = 0
    for i in range(new.shape[0]):
        h = (new[i, 0] * c1) ^ (new[i, 1] * c2)
        h ^= h >> np.uint64(29)
        j = h & mask
        found = -1
        while slots[j] >= 0:
            s = slots[j]
            if s < n:
                if old[s, 0] == new[i, 0] and old[s, 1] == new[i, 1]:
                    found = s
                    break
            else:
                r = fresh[s - n]
                if new[r, 0] == new[i, 0] and new[r, 1] == new[i, 1]:
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


def _dedup_py(old: np.ndarray, new: np.ndarray, ids: np.ndarray, fresh: np.ndarray) -> int:
    """:func:`_dedup` with a dictionary (without numba, where the compiled loop would be too slow)."""
    index = {(int(a), int(b)): i for i, (a, b) in enumerate(old.tolist())}
    count = 0
    for i, (a, b) in enumerate(new.tolist()):
        got = index.get((a, b))
        if got is None:
            got = index[(a, b)] = len(old) + count
            fresh[count] = i
            count += 1
        ids[i] = got
    return count


def dedup(old: np.ndarray, new: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(ids, fresh)``: each key of ``new``'s id among ``old`` (row numbers, new ones numbered on), and the rows of
    ``new`` that are new positions, in order."""
    ids = np.zeros(len(new), np.int64)
    fresh = np.zeros(len(new), np.int64)
    fn = _dedup if HAVE_NUMBA else _dedup_py
    count = fn(np.ascontiguousarray(old, np.uint64).reshape(-1, 2), np.ascontiguousarray(new, np.uint64).reshape(-1, 2),
               ids, fresh)
    return ids, fresh[:count]


# -- the parts' files: written with their fingerprints, read back strictly -------------------------------------------
#: an entry of the manifest's ``files``: [bytes, SHA-256 in hex, positions (rows per position), edges (rows per edge)]
Entry = list[Any]

_U64, _I64, _I16, _I8 = np.dtype(np.uint64), np.dtype(np.int64), np.dtype(np.int16), np.dtype(np.int8)
#: the room a part file takes beyond its arrays' bytes (zip and .npy headers), at most, per array and in all
_OVERHEAD_PER_ARRAY, _OVERHEAD = partfiles.OVERHEAD_PER_ARRAY, partfiles.OVERHEAD


def _spec(kind: str, n: int, m: int) -> dict[str, tuple[np.dtype[Any], tuple[int, ...]]]:
    """The arrays of a part file of ``kind`` holding ``n`` positions and ``m`` edges: name -> (dtype, shape)."""
    if kind == "keys":
        return {"keys": (_U64, (n, 2))}
    if kind == "in":
        return {"keys": (_U64, (m, 2)), "src": (_I64, (m,)), "off": (_I8, (m,)), "move": (_I16, (m,))}
    if kind == "out":
        return {"owner": (_I8, (n,)), "degree": (_I16, (n,)), "src": (_I64, (m,)), "end": (_I8, (m,)),
                "move": (_I16, (m,))}
    if kind == "edges":
        return {"src": (_I64, (m,)), "dst": (_I64, (m,)), "off": (_I8, (m,)), "move": (_I16, (m,))}
    raise ValueError(kind)  # pragma: no cover - the callers name the kinds above


def _data_bytes(kind: str, n: int, m: int) -> int:
    return sum(dt.itemsize * math.prod(shape) for dt, shape in _spec(kind, n, m).values())


def _rel(kind: str, k: int, layer: int, source: int | None = None) -> str:
    """A part file's name inside the checkpoint folder (``source``: the expanding part of an ``in`` file)."""
    name = f"in{layer:04d}-{source:03d}" if kind == "in" else f"{kind}{layer:04d}"
    return f"part{k:03d}/{name}.npz"


def _save(path: str, n: int, m: int, **arrays: np.ndarray) -> Entry:
    """``arrays`` to ``path`` (.npz, uncompressed), atomically; returns its manifest entry ``[bytes, SHA-256, n,
    m]`` (``n`` positions, ``m`` edges)."""
    return partfiles.save_npz(path, n, m, **arrays)


def _read_part(folder: str, rel: str, entry: Entry, kind: str) -> dict[str, np.ndarray]:
    """The arrays of the part file ``rel`` of ``folder``, read strictly: a regular file of the size its manifest
    ``entry`` gives (checked before reading), its SHA-256 the entry's, then a .npz of exactly the arrays of
    ``kind`` (:func:`_spec`), each stored uncompressed with the dtype and shape the entry's counts call for
    (read from each .npy header before any array is made; no object arrays, nothing unpickled). The arrays
    share the file's one buffer. A damaged file is refused (:class:`GraphError`, one line naming it)."""
    return partfiles.read_npz(os.path.join(folder, rel), entry, _spec(kind, entry[2], entry[3]), GraphError)


def _outside(values: np.ndarray, lo: Any, hi: Any) -> bool:
    """Whether some value is outside ``lo <= v < hi`` (bounds numbers, or arrays of the same length)."""
    return partfiles.outside(values, lo, hi)


def _check_ranges(path: str, arrays: Mapping[str, np.ndarray], ranges: Mapping[str, tuple[Any, Any]]) -> None:
    partfiles.check_ranges(path, arrays, ranges, GraphError, ids="its layer's ids")


class _Context:
    """What the range checks of a part file need: the players, suits and fanout, the parts, and each part's
    positions before each layer (``cum[k, ell]``, the manifest's sizes summed)."""

    def __init__(self, shape_args: tuple[Any, ...], sizes: list[list[int]]):
        P, K = int(shape_args[0]), int(shape_args[1])
        self.P, self.K = P, K
        self.moves = P * K + 2
        self.fanout = max(2, K * (P - 1))
        self.parts = len(sizes)
        width = max(len(s) for s in sizes) if sizes else 0
        cum = np.zeros((self.parts, width + 1), np.int64)
        for k, s in enumerate(sizes):
            cum[k, 1:len(s) + 1] = np.cumsum(np.array(s, np.int64))
            cum[k, len(s) + 1:] = cum[k, len(s)]
        self.cum = cum

    def parents(self, path: str, src: np.ndarray, layer: int, only: int | None = None) -> None:
        """``src``: global ids (local * parts + part) of positions of layer ``layer`` (of part ``only``)."""
        if not len(src):
            return
        if int(src.min()) < 0:
            raise GraphError(f"{path}: src holds {int(src.min())}, not a position's id")
        g = src % self.parts
        if only is not None and np.any(g != only):
            raise GraphError(f"{path}: src names positions of another part than {only}")
        loc = src // self.parts
        if _outside(loc, self.cum[g, layer], self.cum[g, layer + 1]):
            raise GraphError(f"{path}: src names a position outside layer {layer}; remove the folder to start again")


def _read_checked(folder: str, files: Mapping[str, Entry], kind: str, k: int, layer: int, ctx: _Context,
                  source: int | None = None, entry: Entry | None = None) -> dict[str, np.ndarray]:
    """A part file read strictly (:func:`_read_part`), its ids and numbers range-checked against ``ctx``."""
    rel = _rel(kind, k, layer, source)
    if entry is None:
        if rel not in files:
            raise GraphError(f"{os.path.join(folder, rel)}: not listed in the checkpoint's manifest")
        entry = files[rel]
    path = os.path.join(folder, rel)
    data = _read_part(folder, rel, entry, kind)
    P, moves = ctx.P, ctx.moves
    if kind == "out":
        _check_ranges(path, data, {"owner": (0, P), "degree": (0, ctx.fanout + 1), "end": (-1, P),
                                   "move": (0, moves),
                                   "src": (int(ctx.cum[k, layer]), int(ctx.cum[k, layer + 1]))})
    elif kind == "edges":
        _check_ranges(path, data, {"dst": (0, int(ctx.cum[k, layer + 1])), "off": (0, P), "move": (0, moves)})
        ctx.parents(path, data["src"], layer - 1)
    elif kind == "in":
        _check_ranges(path, data, {"off": (0, P), "move": (0, moves)})
        ctx.parents(path, data["src"], layer - 1, only=source)
    return data


def _part_dir(folder: str, k: int) -> str:
    return os.path.join(folder, f"part{k:03d}")


def _keys_upto(folder: str, k: int, layers: int, files: Mapping[str, Entry] | None = None) -> np.ndarray:
    """Part ``k``'s positions of layers 0 .. layers-1, in id order (``files``: the manifest's entries; read from
    the folder's manifest when not given)."""
    if files is None:
        files = _manifest(folder)["files"]
    chunks = []
    for ell in range(layers):
        rel = _rel("keys", k, ell)
        if rel not in files:
            raise GraphError(f"{os.path.join(folder, rel)}: not listed in the checkpoint's manifest")
        chunks.append(_read_part(folder, rel, files[rel], "keys")["keys"])
    return np.concatenate(chunks).reshape(-1, 2) if chunks else np.zeros((0, 2), np.uint64)


# -- tasks (module level: they run on Dask workers) -------------------------------------------------------------
def expand_task(folder: str, shape_args: tuple[Any, ...], k: int, layer: int, parts: int, sizes: list[list[int]],
                keys_entry: Entry) -> tuple[int, int, dict[str, Entry]]:
    """Expand part ``k``'s positions of layer ``layer - 1`` (its ``keys`` file, as the manifest's ``keys_entry``
    describes it; ``sizes``: the manifest's positions per part and layer): children to each part's ``in`` file
    of ``layer``, games over and each position's owner and degree to part ``k``'s ``out`` file. Returns
    (positions expanded, edges, the manifest entries of the files written)."""
    shape = Shape.of(*shape_args)
    keys = _read_part(folder, _rel("keys", k, layer - 1), keys_entry, "keys")["keys"].reshape(-1, 2)
    base = sum(sizes[k][:layer - 1])
    to: dict[int, list[dict[str, np.ndarray]]] = {j: [] for j in range(parts)}
    ends: list[dict[str, np.ndarray]] = []
    owners: list[np.ndarray] = []
    degrees: list[np.ndarray] = []
    edges = 0
    for lo in range(0, len(keys), CHUNK):
        out = expand_keys(keys[lo:lo + CHUNK], shape)
        edges += len(out["src"])
        owners.append(out["owner"])
        degrees.append(out["degree"])
        gsrc = (out["src"] + lo + base) * parts + k  # global ids: local * parts + part
        over = out["end"] != -2
        ends.append({"src": out["src"][over] + lo + base, "end": out["end"][over], "move": out["move"][over]})
        go = ~over
        ck, cs, co, cm = out["keys"][go], gsrc[go], out["off"][go], out["move"][go]
        where = part_of(ck, parts)
        for j in range(parts):
            sel = where == j
            if sel.any():
                to[j].append({"keys": ck[sel], "src": cs[sel], "off": co[sel], "move": cm[sel]})
    written: dict[str, Entry] = {}
    for j in range(parts):
        got = to[j]
        m = sum(len(g["src"]) for g in got)
        rel = _rel("in", j, layer, k)
        written[rel] = _save(os.path.join(folder, rel), 0, m,
                             keys=np.concatenate([g["keys"] for g in got]) if got else np.zeros((0, 2), np.uint64),
                             src=np.concatenate([g["src"] for g in got]) if got else np.zeros(0, np.int64),
                             off=np.concatenate([g["off"] for g in got]) if got else np.zeros(0, np.int8),
                             move=np.concatenate([g["move"] for g in got]) if got else np.zeros(0, np.int16))
    m = sum(len(e["src"]) for e in ends)
    rel = _rel("out", k, layer - 1)
    written[rel] = _save(os.path.join(folder, rel), len(keys), m,
                         owner=np.concatenate(owners) if owners else np.zeros(0, np.int8),
                         degree=np.concatenate(degrees) if degrees else np.zeros(0, np.int16),
                         src=np.concatenate([e["src"] for e in ends]) if ends else np.zeros(0, np.int64),
                         end=np.concatenate([e["end"] for e in ends]) if ends else np.zeros(0, np.int8),
                         move=np.concatenate([e["move"] for e in ends]) if ends else np.zeros(0, np.int16))
    return len(keys), edges, written


def merge_task(folder: str, shape_args: tuple[Any, ...], j: int, layer: int, parts: int, sizes: list[list[int]],
               files: Mapping[str, Entry]) -> tuple[int, dict[str, Entry]]:
    """Part ``j``'s children of layer ``layer``: the new positions to its ``keys`` file of that layer, every edge
    (its parent's global id, the child's id in the part, offset, move) to its ``edges`` file. ``files``: the
    entries of part ``j``'s ``keys`` files of the layers before and of its ``in`` files of this layer (as the
    expand tasks wrote them). Returns how many positions are new, and the entries of the files written."""
    ctx = _Context(shape_args, sizes)
    old = _keys_upto(folder, j, layer, files)
    ins = [_read_checked(folder, files, "in", j, layer, ctx, source=k) for k in range(parts)]
    keys = np.concatenate([x["keys"].reshape(-1, 2) for x in ins]) if ins else np.zeros((0, 2), np.uint64)
    ids, fresh = dedup(old, keys)
    written: dict[str, Entry] = {}
    rel = _rel("edges", j, layer)
    written[rel] = _save(os.path.join(folder, rel), 0, len(ids), src=np.concatenate([x["src"] for x in ins]),
                         dst=ids, off=np.concatenate([x["off"] for x in ins]),
                         move=np.concatenate([x["move"] for x in ins]))
    rel = _rel("keys", j, layer)
    written[rel] = _save(os.path.join(folder, rel), len(fresh), 0, keys=keys[fresh])
    return len(fresh), written


# -- the manifest ----------------------------------------------------------------------------------------------
def max_parts(shape: Shape) -> int:
    """The most parts that make sense for ``shape``'s start (at most :data:`MAX_PARTS`): a part is worth its
    files (each layer writes parts x parts of them) only when the graph is large. Measured: 2 players have at
    most a few hundred positions (134 with suits of 10): 4 parts; 3 players with suits of at most 4 (19,518)
    and 4 players with suits of 2 (5,380): 16; larger starts (3 players with suits of 5: 196,860; 4 players
    with suits of 3: 1.9 million, of 4: 132.5 million): 256."""
    P, S = shape.players, shape.suit_size
    if P <= 2:
        return 4
    if (P == 3 and S <= 4) or (P == 4 and S <= 2):
        return 16
    return MAX_PARTS


def default_parts(shape: Shape) -> int:
    """The parts when none are asked for: :data:`DEFAULT_PARTS`, or :func:`max_parts` when fewer."""
    return min(DEFAULT_PARTS, max_parts(shape))


def check_parts(shape: Shape, parts: object) -> int:
    """``parts`` when it is a number of parts that makes sense for ``shape``'s start; else :class:`GraphError`
    with the reason."""
    if isinstance(parts, bool) or not isinstance(parts, int) or not 1 <= parts <= MAX_PARTS:
        raise GraphError(f"parts must be a whole number 1..{MAX_PARTS}, not {parts!r}")
    most = max_parts(shape)
    if parts > most:
        raise GraphError(f"{parts} parts for {shape.players} players with suits of {shape.suit_size}: at most {most} "
                         "make sense for a start of that size (each layer writes parts x parts files)")
    return parts


def _head(shape: Shape, parts: int) -> dict[str, Any]:
    return {"format": FORMAT, "players": shape.players, "suits": shape.suits, "suit_size": shape.suit_size,
            "rules": shape.rules.to_dict(), "parts": parts}


#: every key of a manifest (besides its head's)
_BODY = ("layers", "sizes", "edges", "root", "first", "complete", "seconds", "files")


def _write_manifest(folder: str, body: dict[str, Any]) -> None:
    """The manifest, with its keyed digest (:mod:`quaternity_cp.digest`), written atomically."""
    text = json.dumps({**body, "digest": sign_json(body, MANIFEST_PURPOSE)}, sort_keys=True, separators=(",", ":"))
    write_atomic(os.path.join(folder, "manifest.json"), text + "\n")


def _load_manifest(path: str) -> dict[str, Any] | None:
    """A manifest's content (without its digest) once its format and keyed digest are checked; None when there
    is no manifest."""
    if not os.path.lexists(path):
        return None
    try:
        data = load_json(read_input(path))
    except (InputRefused, ValueError, OSError) as err:
        why = getattr(err, "strerror", None) or err
        raise GraphError(f"{path}: not a readable checkpoint ({why})") from None
    if not isinstance(data, dict) or "digest" not in data:
        raise GraphError(f"{path}: not a checkpoint of this program")
    if data.get("format") in OLD_FORMATS:
        raise GraphError(f"{path}: written by an older version (its part files carry no digests); remove the "
                         "folder or use another one")
    if data.get("format") != FORMAT:
        raise GraphError(f"{path}: not a checkpoint of this program (format {data.get('format')!r})")
    digest = data.pop("digest")
    if not verify_json(digest, data, MANIFEST_PURPOSE):
        raise GraphError(f"{path}: the checkpoint was changed or damaged, or written under another user's key (its "
                         "keyed digest does not match); remove the folder to start again")
    return data


def _read_manifest(folder: str, head: Mapping[str, Any], shape: Shape) -> dict[str, Any] | None:
    """The folder's manifest when it is one of ``head``'s game, checked field by field; None when there is none."""
    path = os.path.join(folder, "manifest.json")
    data = _load_manifest(path)
    if data is None:
        return None
    mine = {k: data.get(k) for k in head}
    if mine != dict(head):
        raise GraphError(f"{path}: a checkpoint of another game ({json.dumps(mine, sort_keys=True)}); use another "
                         "folder")
    _check_manifest(path, data, shape)
    return data


def _manifest(folder: str) -> dict[str, Any]:
    """The folder's manifest, whatever its game (checked as :func:`_read_manifest` does)."""
    path = os.path.join(folder, "manifest.json")
    data = _load_manifest(path)
    if data is None:
        raise GraphError(f"{path}: missing: not a checkpoint folder")
    sizes = [_whole(path, name, data.get(name), 1, 1000) for name in ("players", "suits", "suit_size")]
    try:
        shape = Shape.of(sizes[0], sizes[1], sizes[2], data.get("rules"))
    except (GoFishError, TypeError, ValueError) as err:
        raise GraphError(f"{path}: not a game this program solves ({err})") from None
    parts = data.get("parts")
    if isinstance(parts, bool) or not isinstance(parts, int) or not 1 <= parts <= MAX_PARTS:
        raise GraphError(f"{path}: parts must be a whole number 1..{MAX_PARTS}, not {parts!r}")
    head = _head(shape, parts)
    if {k: data.get(k) for k in head} != head:
        raise GraphError(f"{path}: its game is not written as this program writes it")
    _check_manifest(path, data, shape)
    return data


def _whole(path: str, name: str, value: object, lo: int = 0, hi: int = MAX_COUNT) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise GraphError(f"{path}: {name} must be a whole number {lo}..{hi:,}, not {json.dumps(value)[:40]}")
    return value


def _expected_files(parts: int, layers: int) -> list[tuple[str, str, int, int]]:
    """(name, kind, part, layer) of every part file a manifest of ``layers`` layers lists."""
    out = []
    for k in range(parts):
        out += [(_rel("keys", k, ell), "keys", k, ell) for ell in range(layers)]
        out += [(_rel("out", k, ell), "out", k, ell) for ell in range(layers - 1)]
        out += [(_rel("edges", k, ell), "edges", k, ell) for ell in range(1, layers)]
    return out


def _check_manifest(path: str, data: Mapping[str, Any], shape: Shape) -> None:
    """Every field of a manifest of ``shape``'s game: its keys, types and ranges, the start's place (found
    again from the rules), and an entry for every part file with counts that agree with the sizes."""
    parts = data["parts"]
    allowed = set(_head(shape, parts)) | set(_BODY)
    if set(data) != allowed:
        odd = sorted(set(data) ^ allowed)
        raise GraphError(f"{path}: unexpected or missing fields {odd}")
    layers = _whole(path, "layers", data["layers"], 1, MAX_LAYERS)
    sizes = data["sizes"]
    if not isinstance(sizes, list) or len(sizes) != parts:
        raise GraphError(f"{path}: sizes must be a list of {parts} lists (one per part)")
    for k, row in enumerate(sizes):
        if not isinstance(row, list) or len(row) != layers:
            raise GraphError(f"{path}: sizes[{k}] must be a list of {layers} numbers (one per layer)")
        for ell, v in enumerate(row):
            _whole(path, f"sizes[{k}][{ell}]", v)
    if sum(sum(row) for row in sizes) > MAX_COUNT:
        raise GraphError(f"{path}: sizes add up to more than {MAX_COUNT:,} positions")
    _whole(path, "edges", data["edges"])
    root, first = start_key(shape)
    rp = int(part_of(root.reshape(1, 2), parts)[0])
    if data["root"] != [rp, 0]:
        raise GraphError(f"{path}: root must be [{rp}, 0] (the start's place among {parts} parts), not "
                         f"{json.dumps(data['root'])[:40]}")
    if data["first"] != first or isinstance(data["first"], bool):
        raise GraphError(f"{path}: first must be {first} (the seat that asks first), not "
                         f"{json.dumps(data['first'])[:40]}")
    if [row[0] for row in sizes] != [int(k == rp) for k in range(parts)]:
        raise GraphError(f"{path}: sizes of layer 0 must be the start alone, in part {rp}")
    complete = data["complete"]
    if not isinstance(complete, bool):
        raise GraphError(f"{path}: complete must be true or false, not {json.dumps(complete)[:40]}")
    if complete and (layers < 2 or any(row[-1] for row in sizes)):
        raise GraphError(f"{path}: complete, but its last layer is not empty")
    seconds = data["seconds"]
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) \
            or seconds < 0:
        raise GraphError(f"{path}: seconds must be a number of seconds >= 0, not {json.dumps(seconds)[:40]}")
    files = data["files"]
    expected = _expected_files(parts, layers)
    if not isinstance(files, dict) or set(files) != {rel for rel, *_ in expected}:
        raise GraphError(f"{path}: files must list exactly the {len(expected)} part files of {layers} layers")
    for rel, kind, k, ell in expected:
        entry = files[rel]
        if not (isinstance(entry, list) and len(entry) == 4 and isinstance(entry[1], str) and len(entry[1]) == 64
                and all(c in "0123456789abcdef" for c in entry[1])):
            raise GraphError(f"{path}: files[{rel!r}] must be [bytes, SHA-256 in hex, positions, edges]")
        size = _whole(path, f"files[{rel!r}] bytes", entry[0])
        n = _whole(path, f"files[{rel!r}] positions", entry[2])
        m = _whole(path, f"files[{rel!r}] edges", entry[3])
        if kind in ("keys", "out") and n != sizes[k][ell]:
            raise GraphError(f"{path}: files[{rel!r}] holds {n} positions where sizes says {sizes[k][ell]}")
        if (kind == "keys" and m) or (kind == "edges" and n):
            raise GraphError(f"{path}: files[{rel!r}]: counts of the wrong kind")
        need = _data_bytes(kind, n, m)
        if not need <= size <= need + _OVERHEAD + _OVERHEAD_PER_ARRAY * len(_spec(kind, n, m)):
            raise GraphError(f"{path}: files[{rel!r}]: {size:,} bytes cannot hold its {n:,} positions and "
                             f"{m:,} edges")


def _check_files(folder: str, files: Mapping[str, Entry]) -> None:
    """Every part file the manifest lists is there, a regular file of the size it gives (nothing is read; the
    contents are checked as each file is read)."""
    partfiles.check_present(folder, files, GraphError)


# -- the build ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Built:
    """A complete graph in a checkpoint folder: its shape, parts, layers, positions and edges per part, the root
    (part, id) and the seat that moves first; ``part_sizes`` (positions per part and layer) and ``files`` (each
    part file's manifest entry: what its reads are checked against)."""

    folder: str
    shape: Shape
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


Runner = Callable[[list[tuple[Callable[..., Any], tuple[Any, ...]]]], list[Any]]


def _local_runner(calls: list[tuple[Callable[..., Any], tuple[Any, ...]]]) -> list[Any]:
    return [fn(*args) for fn, args in calls]


def _dask_runner(client: Any) -> Runner:
    def run(calls: list[tuple[Callable[..., Any], tuple[Any, ...]]]) -> list[Any]:
        futures = [client.submit(fn, *args, pure=False) for fn, args in calls]
        try:
            return list(client.gather(futures))
        except BaseException:
            client.cancel(futures)
            raise
    return run


def build(shape: Shape, folder: str, *, parts: int | None = None, run: Runner | None = None,
          limits: Limits | None = None, progress: Callable[[dict[str, Any]], None] | None = None) -> Built:
    """The graph of ``shape``'s start in ``folder`` (made if missing), going on from its checkpoint when it has
    one. ``parts``: 1..:data:`MAX_PARTS` and at most :func:`max_parts` (default :func:`default_parts`).
    ``run`` runs a list of task calls (default: here, one after the other; :func:`solve` passes Dask's).
    ``limits``: ``max_positions`` and ``max_seconds``, checked after each layer (past them :class:`GraphStopped`;
    the layers done stay). ``progress`` gets a dict after each layer. A damaged, edited or foreign checkpoint
    is refused (:class:`GraphError`, one line naming the file)."""
    parts = default_parts(shape) if parts is None else check_parts(shape, parts)
    user_key()  # (an unusable key file is refused before any work)
    folder = os.path.abspath(folder)
    run = run or _local_runner
    budget = (limits or Limits()).start()
    os.makedirs(folder, exist_ok=True)
    head = _head(shape, parts)
    shape_args = (shape.players, shape.suits, shape.suit_size, shape.rules.to_dict())
    man = _read_manifest(folder, head, shape)
    if man is None:
        for k in range(parts):
            os.makedirs(_part_dir(folder, k), exist_ok=True)
        root, first = start_key(shape)
        if first < 0:
            raise GraphError("nobody can ask at the start: the game is over before it begins")
        rp = int(part_of(root.reshape(1, 2), parts)[0])
        files: dict[str, Entry] = {}
        for k in range(parts):
            keys = root.reshape(1, 2) if k == rp else np.zeros((0, 2), np.uint64)
            rel = _rel("keys", k, 0)
            files[rel] = _save(os.path.join(folder, rel), len(keys), 0, keys=keys)
        man = {**head, "layers": 1, "sizes": [[1 if k == rp else 0] for k in range(parts)], "edges": 0,
               "root": [rp, 0], "first": first, "complete": False, "seconds": 0.0, "files": files}
        _write_manifest(folder, man)
    else:
        _check_files(folder, man["files"])
    spent = float(man["seconds"])

    def positions(m: Mapping[str, Any]) -> int:
        return sum(sum(s) for s in m["sizes"])

    try:
        while not man["complete"]:
            layer = int(man["layers"])
            sizes = man["sizes"]
            files = man["files"]
            try:
                got = run([(expand_task, (folder, shape_args, k, layer, parts, sizes,
                                          files[_rel("keys", k, layer - 1)])) for k in range(parts)])
                budget.check_time()  # (between the halves of a layer too: a layer of a big graph takes minutes)
                written: dict[str, Entry] = {}
                for _, _, w in got:
                    written.update(w)
                merges = []
                for j in range(parts):
                    known = {_rel("keys", j, ell): files[_rel("keys", j, ell)] for ell in range(layer)}
                    known.update({_rel("in", j, layer, k): written[_rel("in", j, layer, k)] for k in range(parts)})
                    merges.append((merge_task, (folder, shape_args, j, layer, parts, sizes, known)))
                new = run(merges)
            except Stopped as stop:
                raise GraphStopped(stop.reason, layer, positions(man)) from None
            except (GoFishError, KeyboardInterrupt):
                raise
            except Exception as err:  # noqa: BLE001 - a worker lost, a full disk...: the layers done stay
                raise GraphStopped("failed", layer, positions(man), f"{type(err).__name__}: {err}") from None
            edges = int(man["edges"]) + sum(e for _, e, _ in got)
            sizes = [s + [int(n)] for s, (n, _) in zip(sizes, new)]
            kept = {rel: entry for rel, entry in written.items() if not os.path.basename(rel).startswith("in")}
            for _, w in new:
                kept.update(w)
            after = {**man, "layers": layer + 1, "sizes": sizes, "edges": edges,
                     "complete": sum(n for n, _ in new) == 0, "seconds": round(spent + budget.elapsed(), 2),
                     "files": {**files, **kept}}
            _write_manifest(folder, after)
            man = after  # (only once it is on disk: what a stop reports is what the next run finds)
            for path in glob.glob(os.path.join(folder, "part*", f"in{layer:04d}-*.npz")):
                os.unlink(path)
            if progress is not None:
                progress({"layer": layer, "new": int(sum(n for n, _ in new)), "positions": positions(man),
                          "edges": edges, "seconds": round(budget.elapsed(), 1)})
            if not man["complete"]:
                try:
                    budget.check_positions(positions(man))
                    budget.check_time()
                except Stopped as stop:
                    raise GraphStopped(stop.reason, layer + 1, positions(man)) from None
    except KeyboardInterrupt:  # anywhere in a layer: its files are written again by the next run
        raise GraphStopped("interrupted", int(man["layers"]), positions(man)) from None
    sizes_t = tuple(sum(s) for s in man["sizes"])
    return Built(folder, shape, parts, int(man["layers"]), sizes_t, int(man["edges"]), tuple(man["root"]),
                 int(man["first"]), float(man["seconds"]), tuple(tuple(s) for s in man["sizes"]),
                 dict(man["files"]))


# -- the attractor -------------------------------------------------------------------------------------------------
#: ranks are kept in 16 bits: a longer forced win is refused rather than wrapped (none comes near)
MAX_RANK = 32_000


@jit
def _retro(P: int, owner: np.ndarray, degree: np.ndarray, indptr: np.ndarray, psrc: np.ndarray, poff: np.ndarray,
           esrc: np.ndarray, eend: np.ndarray, rank: np.ndarray, qn: np.ndarray, qr: np.ndarray) -> int:
    """The attractor of every seat at once: ``rank[i, r]`` the plies in which the seat ``r`` places after position
    i's mover forces a win (-1: it cannot). Positions are dense ids; ``indptr``/``psrc``/``poff`` each position's
    predecessors (parent, offset); ``esrc``, ``eend`` the plies that end the game (winner in the parent's frame,
    -1 nobody). ``qn``, ``qr``: the queue, a ring (ranks are processed in order, so it holds at most the ranked
    pairs not yet processed). Returns 0, or 1 when the ring overflowed, 2 when a rank passed :data:`MAX_RANK` (the
    answer is then not given)."""
    n = owner.shape[0]
    cap = qn.shape[0]
    left = np.empty((n, P), np.int8)  # (a position has at most 30 children: 6 suits x 5 other players)
    for i in range(n):
        for r in range(P):
            left[i, r] = degree[i]
    head = 0
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
        qn[(head + size) % cap] = i
        qr[(head + size) % cap] = w
        size += 1
    while size > 0:
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


@dataclass(frozen=True)
class Attractor:
    """The attractor's answer for the start: per seat (absolute, counted from 0) whether it forces a win, in how
    many plies, and its first move (a question ``(asked, suit)`` in the start's seats, suit 0 = A); with the
    graph's size and the seconds it took. ``ranks[i, r]``: every position's ranks (dense ids; see :func:`_retro`):
    an array from the whole-graph attractor, a :class:`~quaternity_cp.retrograde.Ranks` (read part by part from
    the checkpoint; ``.dense()`` for the array) from the partitioned one."""

    seats: Mapping[int, Mapping[str, Any]]
    positions: int
    edges: int
    seconds: float
    ranks: "np.ndarray | retrograde.Ranks"


def _bases(built: Built) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(np.array(built.sizes, np.int64))])


def attract(built: Built, *, partitioned: bool = False, run: Runner | None = None, limits: Limits | None = None,
            max_rounds: int | None = None, progress: Callable[[dict[str, Any]], None] | None = None) -> Attractor:
    """Run the attractor over ``built``'s whole graph (every seat at once), in about 23 bytes a position and 5 an
    edge (the predecessor lists are filled part by part). Every part file is checked to be there, of its size,
    before anything is allocated, and read strictly (its digest, dtypes, shapes and ids; :func:`_read_part`).

    ``partitioned=True``: the same ranks by the partitioned attractor (:mod:`quaternity_cp.retrograde`), in
    rounds, part by part, in the subfolder ``attractor/`` of the checkpoint, its tasks run by ``run`` (here by
    default; :func:`solve` passes Dask's): no process holds the whole graph. ``limits.max_seconds`` and
    ``max_rounds`` stop it (:class:`AttractorStopped`; the rounds done stay, and the next call goes on);
    ``progress`` gets a dict after each round."""
    if partitioned:
        return _attract_partitioned(built, run, limits, max_rounds, progress)
    if run is not None or limits is not None or max_rounds is not None or progress is not None:
        raise GraphError("run, limits, max_rounds and progress go with the partitioned attractor (partitioned=True)")
    began = time.perf_counter()
    P, parts, folder = built.shape.players, built.parts, built.folder
    files = built.files
    _check_files(folder, files)
    ctx = _Context((P, built.shape.suits), [list(s) for s in built.part_sizes])
    base = _bases(built)
    n = int(base[-1])
    idx = np.int32 if n < 2**31 else np.int64  # dense ids: 4 bytes each while they fit
    owner = np.zeros(n, np.int8)
    degree = np.zeros(n, np.int8)
    esrc, eend = [], []
    counts = np.zeros(n + 1, np.int64)
    for k in range(parts):
        pos = 0
        for ell in range(built.layers - 1):
            out = _read_checked(folder, files, "out", k, ell, ctx)
            m = len(out["owner"])
            owner[base[k] + pos: base[k] + pos + m] = out["owner"]
            degree[base[k] + pos: base[k] + pos + m] = out["degree"]
            pos += m
            keep = out["end"] >= 0  # (a game over with nobody winning is no one's rank 0)
            esrc.append((out["src"][keep] + base[k]).astype(idx))
            eend.append(out["end"][keep])
        for ell in range(1, built.layers):
            dst = _read_checked(folder, files, "edges", k, ell, ctx)["dst"]
            counts[base[k] + 1: base[k + 1] + 1] += np.bincount(dst, minlength=int(built.sizes[k]))
    indptr = np.cumsum(counts)
    del counts
    e_total = int(indptr[-1])
    psrc = np.zeros(e_total, idx)
    poff = np.zeros(e_total, np.int8)
    fill = indptr[:-1].copy()
    for k in range(parts):
        for ell in range(1, built.layers):
            ed = _read_checked(folder, files, "edges", k, ell, ctx)
            g = ed["src"]
            _csr_into((ed["dst"] + base[k]).astype(idx), (base[g % parts] + g // parts).astype(idx), ed["off"],
                      indptr, fill, psrc, poff)
            del ed, g
    del fill
    rank = np.full((n, P), -1, np.int16)
    ring = max(1024, n)
    status = _retro(P, owner, degree, indptr, psrc, poff,
                    np.concatenate(esrc) if esrc else np.zeros(0, idx),
                    np.concatenate(eend) if eend else np.zeros(0, np.int8), rank,
                    np.empty(ring, idx), np.empty(ring, np.int8))
    if status == 1:
        raise GraphError(f"the attractor's queue outgrew its {ring:,} places; no answer is given")
    if status == 2:
        raise GraphError(f"a forced win longer than {MAX_RANK} plies; no answer is given")
    del psrc, poff, indptr
    root = int(base[built.root[0]] + built.root[1])
    seats = _seats(built, rank, root, int(owner[root]))
    return Attractor(seats, n, e_total, time.perf_counter() - began, rank)


def _seats(built: Built, rank: "np.ndarray | retrograde.Ranks", root: int,
           root_owner: int) -> dict[int, dict[str, Any]]:
    """Each seat's answer at the start (dense id ``root``, whose seat to move is the offset ``root_owner``)."""
    P = built.shape.players
    seats: dict[int, dict[str, Any]] = {}
    root_key = _keys_of(built, built.root[0])[built.root[1]]
    for r in range(P):
        seat = (built.first + r) % P
        k = int(rank[root, r])
        entry: dict[str, Any] = {"wins": k >= 0, "plies": k if k >= 0 else None}
        if k > 0 and root_owner == r:
            mv = best_move(built, rank, root_key, r)
            if mv is not None and mv < P * built.shape.suits:
                K = built.shape.suits
                entry["first_move"] = ((mv // K + built.first) % P, mv % K)
        seats[seat] = entry
    return dict(sorted(seats.items()))


#: the subfolder of a graph's checkpoint where the partitioned attractor keeps its rounds
ATTRACTOR_FOLDER = "attractor"


class AttractorStopped(GraphStopped):
    """The partitioned attractor stopped before its last round (``reason`` as :class:`GraphStopped`'s; ``rounds``
    done, ``ranked``: the ranks given so far); its checkpoint keeps every round done, and the graph is
    complete (``layers``, ``positions``: the graph's)."""

    def __init__(self, reason: str, built: Built, rounds: int, ranked: int, message: str):
        GoFishError.__init__(self, message)
        self.reason = reason
        self.layers = built.layers
        self.positions = built.positions
        self.rounds = rounds
        self.ranked = ranked


def attractor_part(folder: str, shape_args: tuple[Any, ...], k: int, layers: int, sizes: list[list[int]],
                   files: Mapping[str, Entry]) -> retrograde.PartGraph:
    """Part ``k``'s share of the graph for the partitioned attractor (a task's loader: it runs on a Dask worker
    too): its positions' owners and degrees and plies that end the game (its ``out`` files), and the edges whose
    child it holds (its ``edges`` files: parents' global ids), every file read strictly (:func:`_read_checked`;
    ``files``: part ``k``'s entries, ``sizes``: the manifest's positions per part and layer)."""
    ctx = _Context(shape_args, sizes)
    outs = [_rel("out", k, ell) for ell in range(layers - 1)]
    edges = [_rel("edges", k, ell) for ell in range(1, layers)]
    for rel in outs + edges:
        if rel not in files:
            raise GraphError(f"{os.path.join(folder, rel)}: not listed in the checkpoint's manifest")
    n = sum(int(files[rel][2]) for rel in outs)
    t = sum(int(files[rel][3]) for rel in outs)
    m = sum(int(files[rel][3]) for rel in edges)
    # (filled file by file: one file's buffer at a time beside the part's arrays)
    owner, degree = np.zeros(n, np.int8), np.zeros(n, np.int16)
    ends, winner = np.zeros(t, np.int64), np.zeros(t, np.int8)
    child, parent, offset = np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(m, np.int8)
    at = end_at = 0
    for ell in range(layers - 1):
        out = _read_checked(folder, files, "out", k, ell, ctx)
        a, b = len(out["owner"]), len(out["src"])
        owner[at:at + a], degree[at:at + a] = out["owner"], out["degree"]
        ends[end_at:end_at + b], winner[end_at:end_at + b] = out["src"], out["end"]
        at, end_at = at + a, end_at + b
        del out
    at = 0
    for ell in range(1, layers):
        ed = _read_checked(folder, files, "edges", k, ell, ctx)
        a = len(ed["dst"])
        child[at:at + a], parent[at:at + a], offset[at:at + a] = ed["dst"], ed["src"], ed["off"]
        at += a
        del ed
    return retrograde.PartGraph(owner=owner, degree=degree, child=child, parent=parent, offset=offset, ends=ends,
                                winner=winner)


def _attract_partitioned(built: Built, run: Runner | None, limits: Limits | None, max_rounds: int | None,
                         progress: Callable[[dict[str, Any]], None] | None) -> Attractor:
    """:func:`attract` by :func:`quaternity_cp.retrograde.attract` (see there)."""
    began = time.perf_counter()
    P, parts, folder, files = built.shape.players, built.parts, built.folder, built.files
    _check_files(folder, files)
    shape_args = (P, built.shape.suits)
    sizes = [list(s) for s in built.part_sizes]
    loaders: list[retrograde.Loader] = []
    for k in range(parts):
        mine = {rel: entry for rel, entry in files.items() if rel.startswith(f"part{k:03d}/")
                and not os.path.basename(rel).startswith("keys")}
        loaders.append((attractor_part, (folder, shape_args, k, built.layers, sizes, mine)))
    identity = {"graph": FORMAT, "files": sha256_hex(canonical_json(dict(files)).encode("ascii"))}
    try:
        ranks = retrograde.attract(os.path.join(folder, ATTRACTOR_FOLDER), players=P, sizes=[sum(s) for s in sizes],
                                   identity=identity, loaders=loaders, run=run, limits=limits,
                                   max_rounds=max_rounds, progress=progress)
    except retrograde.RetroStopped as stop:
        raise AttractorStopped(stop.reason, built, stop.rounds, stop.ranked, str(stop)) from None
    except retrograde.RetroError as err:
        raise GraphError(str(err)) from None
    rp, rl = built.root
    ctx = _Context(shape_args, sizes)
    root_owner = int(_read_checked(folder, files, "out", rp, 0, ctx)["owner"][rl])
    root = int(_bases(built)[rp] + rl)
    try:
        seats = _seats(built, ranks, root, root_owner)
    except retrograde.RetroError as err:  # (a damaged rank file, read here)
        raise GraphError(str(err)) from None
    return Attractor(seats, ranks.positions, ranks.edges, ranks.seconds + time.perf_counter() - began, ranks)


def _keys_of(built: Built, k: int) -> np.ndarray:
    return _keys_upto(built.folder, k, built.layers, built.files)


def lookup(built: Built, keys: np.ndarray) -> np.ndarray:
    """The dense ids of packed positions of ``built``'s graph (-1 for one not in it)."""
    keys = np.asarray(keys, np.uint64).reshape(-1, 2)
    out = np.full(len(keys), -1, np.int64)
    base = _bases(built)
    where = part_of(keys, built.parts)
    for k in np.unique(where):
        sel = np.nonzero(where == k)[0]
        old = _keys_of(built, int(k))
        ids, _ = dedup(old, keys[sel])
        found = ids < len(old)
        out[sel[found]] = ids[found] + base[k]
    return out


def best_move(built: Built, rank: "np.ndarray | retrograde.Ranks", key: np.ndarray, r: int) -> int | None:
    """A move that keeps the seat ``r`` places after the mover of position ``key`` on its fastest forced win (a
    child of one rank less), as :func:`expand` numbers moves; None when that seat does not choose there or cannot
    force a win."""
    P = built.shape.players
    me = int(lookup(built, key)[0])
    k = int(rank[me, r])
    if k <= 0:
        return None
    out = expand_keys(np.asarray(key, np.uint64).reshape(1, 2), built.shape)
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


# -- checking the packed graph against the Python solver on positions of a solved start ------------------------
def game_at(shape: Shape, key: np.ndarray) -> Any:
    """A :class:`~.game.GoFish` at the packed position ``key``, its mover seat 0 (the packed frame): the bounds
    of its table now are the key's box, and the hands' differences from the deal are put on the first suit's
    shift (any shift with these row sums and zero column sums describes the same tables)."""
    from dataclasses import replace

    from .fastgraph import decode
    from .game import GoFish, History, Move

    pos = decode(key, shape)
    game = GoFish(shape.players, shape.suits, shape.suit_size, shape.rules.to_dict())
    hand = shape.suits * shape.suit_size // shape.players
    shift = [[(h - hand) if s == 0 else 0 for s in range(shape.suits)] for h in pos["hands"]]
    low0 = tuple(tuple(pos["low"][p][s] - shift[p][s] for s in range(shape.suits)) for p in range(shape.players))
    high0 = tuple(tuple(pos["high"][p][s] - shift[p][s] for s in range(shape.suits)) for p in range(shape.players))
    q = pos["question"]
    st = replace(game.state, low0=low0, high0=high0, shift=tuple(map(tuple, shift)), turn=0,
                 pending=None if q is None else Move(0, q[0], q[1]), outcome=None, moves=History(), key=None, cache={})
    game._stack = [st]
    game._seen = {}
    return game


def _sample(built: Built, rng: np.random.Generator, samples: int, by_layer: bool) -> np.ndarray:
    """Dense ids of random positions: uniform over the graph, or (``by_layer``) a layer drawn uniformly first,
    then a position of it (late layers, few positions each, are then sampled as often as the big middle)."""
    base = _bases(built)
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


def crosscheck(built: Built, ranks: "np.ndarray | retrograde.Ranks", *, samples: int = 100, seed: int = 0,
               max_positions: int = 20_000, by_layer: bool = False) -> dict[str, int]:
    """Re-solve ``samples`` random positions of ``built``'s graph (see :func:`_sample`) with the Python solver
    (:mod:`.solver`: flow bounds, players not rotated), each within ``max_positions``, and compare every seat's
    verdict and plies with ``ranks``. Returns how many positions were compared, skipped (their remaining graph
    passed the limit) and disagreed (seat verdicts)."""
    from .solver import SolverLimitError, attractor, build_graph

    rng = np.random.default_rng(seed)
    base = _bases(built)
    cache: dict[int, np.ndarray] = {}
    counts = {"compared": 0, "skipped": 0, "disagreements": 0, "wins_seen": 0}
    for dense in _sample(built, rng, samples, by_layer):
        k = int(np.searchsorted(base, dense, side="right") - 1)
        if k not in cache:
            cache[k] = _keys_of(built, k)
        key = cache[k][int(dense - base[k])]
        game = game_at(built.shape, key)
        try:
            graph = build_graph(game, Limits(max_positions=max_positions))
        except SolverLimitError:
            counts["skipped"] += 1
            continue
        counts["compared"] += 1
        for seat in range(built.shape.players):
            ref = attractor(graph, seat)
            mine = int(ranks[dense, seat])
            counts["wins_seen"] += int(ref.wins)
            if (mine >= 0) != ref.wins or (ref.wins and mine != ref.plies):
                counts["disagreements"] += 1
    return counts


def solve(players: int, rules: "Rules | Mapping[str, object] | str | None", folder: str, *, suit_size: int = 4,
          parts: int | None = None, workers: int | None = 0, cluster: Any = None, limits: Limits | None = None,
          progress: Callable[[dict[str, Any]], None] | None = None, keep_graph: bool = True,
          attractor: str = "whole") -> dict[str, Any]:
    """The start of ``players`` players (as many suits of ``suit_size``) under ``rules``, solved for every seat in
    the checkpoint ``folder``: the graph built in ``parts`` (default :func:`default_parts`; on a Dask ``cluster``,
    on a ``LocalCluster`` of ``workers`` processes when ``workers`` is None or > 0, or here when 0), then the
    attractor: ``"whole"`` (:func:`attract` over the whole graph in this process) or ``"partitioned"`` (in
    rounds, part by part, on the same workers, checkpointed; ``limits.max_seconds`` counts on from the build's
    start). Returns the answer (also written to ``result.json`` with a keyed digest, read back when asked
    again): the same whichever attractor. ``keep_graph=False`` removes the graph's files (and the attractor's)
    once the answer is written (the manifest and the answer stay)."""
    if attractor not in ATTRACTORS:
        raise GraphError(f"attractor must be one of {', '.join(ATTRACTORS)}, not {attractor!r}")
    began = time.perf_counter()
    shape = Shape.of(players, players, suit_size, rules)
    parts = default_parts(shape) if parts is None else check_parts(shape, parts)
    user_key()  # (an unusable key file is refused before any work)
    folder = os.path.abspath(folder)  # (the workers' working folder may differ; with a cluster it must be shared)
    result_path = os.path.join(folder, "result.json")
    head = _head(shape, parts)
    done = _read_result(result_path, head, shape) if os.path.lexists(result_path) else None
    if done is not None:
        return done
    partitioned = attractor == "partitioned"
    att: Attractor | None = None
    if workers == 0 and cluster is None:
        built = build(shape, folder, parts=parts, limits=limits, progress=progress)
        if partitioned:
            att = attract(built, partitioned=True, limits=_left(limits, began))
    else:
        from ..cluster import dask_client

        with dask_client(cluster, workers) as client:
            built = build(shape, folder, parts=parts, run=_dask_runner(client), limits=limits, progress=progress)
            if partitioned:
                att = attract(built, partitioned=True, run=_dask_runner(client), limits=_left(limits, began))
    if att is None:
        att = attract(built)
    opened = sum(int(open_count(_keys_of(built, k), shape)) for k in range(parts))
    out = {"players": players, "suits": players, "suit_size": suit_size, "rules": shape.rules.to_dict(),
           "positions": built.positions, "asking_positions": built.positions - opened, "open_positions": opened,
           "edges": built.edges, "layers": built.layers, "parts": parts,
           "build_seconds": round(built.seconds, 1), "attractor_seconds": round(att.seconds, 1),
           "winners": [s for s, e in att.seats.items() if e["wins"]],
           "seats": {str(s): {k: (list(v) if isinstance(v, tuple) else v) for k, v in e.items()}
                     for s, e in att.seats.items()}}
    body = {"head": head, "result": out}
    write_atomic(result_path, json.dumps({**body, "digest": sign_json(body, RESULT_PURPOSE)}, indent=1))
    if not keep_graph:
        import shutil

        for k in range(parts):
            shutil.rmtree(_part_dir(folder, k), ignore_errors=True)
        shutil.rmtree(os.path.join(folder, ATTRACTOR_FOLDER), ignore_errors=True)
    return out


#: the attractors :func:`solve` runs: over the whole graph in one process, or partitioned in rounds
ATTRACTORS = ("whole", "partitioned")


def _left(limits: Limits | None, began: float) -> Limits | None:
    """The time left of ``limits.max_seconds`` counted from ``began`` (the attractor's share of a solve's
    budget: the build's rest), as limits (at least a millisecond: it then stops after its first round)."""
    if limits is None or limits.max_seconds is None:
        return None
    return Limits(max_seconds=max(1e-3, limits.max_seconds - (time.perf_counter() - began)))


def _read_result(path: str, head: Mapping[str, Any], shape: Shape) -> dict[str, Any]:
    """The answer stored in a checkpoint folder: read strictly, its keyed digest and its game checked, every
    field type- and range-checked; anything else is refused (:class:`GraphError`, one line naming the file)."""
    try:
        data = load_json(read_input(path))
    except (InputRefused, ValueError, OSError) as err:
        why = getattr(err, "strerror", None) or err
        raise GraphError(f"{path}: not a readable result ({why})") from None
    if not isinstance(data, dict) or set(data) != {"head", "result", "digest"}:
        raise GraphError(f"{path}: not a result of this program")
    if not verify_json(data["digest"], {"head": data["head"], "result": data["result"]}, RESULT_PURPOSE):
        raise GraphError(f"{path}: the result was changed or damaged, or written under another user's key (its "
                         "keyed digest does not match); remove it to compute it again")
    if data["head"] != dict(head):
        raise GraphError(f"{path}: the result of another game; use another folder")
    result = data["result"]
    _check_result(path, result, shape, head["parts"])
    return dict(result)


def _check_result(path: str, result: object, shape: Shape, parts: int) -> None:
    """A stored answer's fields: the game's, whole counts, seconds, and for every seat a verdict, plies and
    first question that fit the game."""
    P, K = shape.players, shape.suits
    keys = {"players", "suits", "suit_size", "rules", "positions", "edges", "layers", "parts", "build_seconds",
            "attractor_seconds", "winners", "seats"}
    optional = {"asking_positions", "open_positions"}  # (counts of a split of the positions, when given)
    if not isinstance(result, dict) or not keys <= set(result) <= keys | optional:
        raise GraphError(f"{path}: result must have the fields {sorted(keys)} (and only {sorted(optional)} besides)")
    for name in optional & set(result):
        if result[name] is not None:
            _whole(path, name, result[name])
    game = {"players": P, "suits": K, "suit_size": shape.suit_size, "rules": shape.rules.to_dict(), "parts": parts}
    for name, want in game.items():
        if result[name] != want or isinstance(result[name], bool):
            raise GraphError(f"{path}: {name} must be {json.dumps(want)}, not {json.dumps(result[name])[:40]}")
    for name in ("positions", "edges"):
        _whole(path, name, result[name])
    _whole(path, "layers", result["layers"], 1, MAX_LAYERS)
    for name in ("build_seconds", "attractor_seconds"):
        v = result[name]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise GraphError(f"{path}: {name} must be a number of seconds >= 0, not {json.dumps(v)[:40]}")
    seats = result["seats"]
    if not isinstance(seats, dict) or set(seats) != {str(p) for p in range(P)}:
        raise GraphError(f"{path}: seats must give each of the seats 0..{P - 1}")
    for seat, entry in seats.items():
        if not isinstance(entry, dict) or not {"wins", "plies"} <= set(entry) <= {"wins", "plies", "first_move"} \
                or not isinstance(entry["wins"], bool):
            raise GraphError(f"{path}: seats[{seat}] must be {{wins, plies[, first_move]}}")
        if entry["wins"]:
            _whole(path, f"seats[{seat}].plies", entry["plies"], 1, MAX_RANK)
        elif entry["plies"] is not None or "first_move" in entry:
            raise GraphError(f"{path}: seats[{seat}]: a seat that cannot force a win has no plies or first move")
        move = entry.get("first_move")
        if "first_move" in entry and not (isinstance(move, list) and len(move) == 2
                                          and not any(isinstance(v, bool) for v in move)
                                          and all(isinstance(v, int) for v in move)
                                          and 0 <= move[0] < P and move[0] != int(seat) and 0 <= move[1] < K):
            raise GraphError(f"{path}: seats[{seat}].first_move must be [another seat, a suit], not "
                             f"{json.dumps(move)[:40]}")
    if result["winners"] != [p for p in range(P) if seats[str(p)]["wins"]]:
        raise GraphError(f"{path}: winners must list the seats that force a win")


__all__ = ["FORMAT", "MAX_PARTS", "DEFAULT_PARTS", "ATTRACTORS", "GraphError", "GraphStopped", "AttractorStopped",
           "Built", "Attractor", "part_of", "dedup", "build", "attract", "attractor_part", "lookup", "best_move",
           "game_at", "crosscheck", "max_parts", "default_parts", "check_parts", "solve", "expand_task", "merge_task"]
