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
(atomically, with a SHA-256 digest of its content): a run stopped by Ctrl-C,
a limit or a crash starts again at the first layer not recorded there, and a
manifest of another game, or damaged, is refused.

Then the attractor (:func:`attract`) runs over the whole graph at once, in
compiled code over flat arrays (about 23 bytes a position and 5 an edge: the
4-player start's 132.5 million positions and 341 million inner edges took
5.0 GB and 40 s): for every position and every seat counted on from its
mover, whether that seat forces a win and in how many plies. It is not
partitioned (not built: the 4-player graph's fits one machine, and the build
is where the time goes, 12 minutes against 40 s on 2 cores); a graph whose
arrays pass one machine's memory would need it. A winning seat's move at a position is
found again from the ranks (:func:`best_move`: a child one rank lower). The
answer for the start is written to ``result.json`` in the same folder (with a
digest), so asking again reads it.

The answers equal :mod:`.solver`'s, rank for rank at every position and for
every seat (tested under every rule set on 2 players, 3 players with suits of
2 and 3, 4 players with suits of 2, and the 3-player start), where players
are not relabelled; the position counts differ by that relabelling.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from ..budget import Limits, Stopped
from ..files import write_atomic
from ..jsonio import InputRefused, load_json, read_input
from .fastgraph import HAVE_NUMBA, Shape, expand_keys, jit, start_key
from .rules import GoFishError, Rules

FORMAT = "quaternity-gofish-graph-1"
#: positions expanded at a time inside a task (bounds the task's memory)
CHUNK = 200_000


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


# -- files ---------------------------------------------------------------------------------------------------
def _save(path: str, **arrays: np.ndarray) -> None:
    """``arrays`` to ``path`` (.npz, uncompressed), atomically."""
    tmp = f"{path}.tmp{os.getpid()}.npz"
    try:
        np.savez(tmp, **arrays)  # type: ignore[arg-type]  # (numpy's stubs take the names as its flags)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _load(path: str) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def _part_dir(folder: str, k: int) -> str:
    return os.path.join(folder, f"part{k:03d}")


def _keys_upto(folder: str, k: int, layers: int) -> np.ndarray:
    """Part ``k``'s positions of layers 0 .. layers-1, in id order."""
    chunks = [_load(os.path.join(_part_dir(folder, k), f"keys{ell:04d}.npz"))["keys"] for ell in range(layers)]
    return np.concatenate(chunks).reshape(-1, 2) if chunks else np.zeros((0, 2), np.uint64)


# -- tasks (module level: they run on Dask workers) -------------------------------------------------------------
def expand_task(folder: str, shape_args: tuple[Any, ...], k: int, layer: int, base: int, parts: int) -> tuple[int, int]:
    """Expand part ``k``'s positions of layer ``layer - 1`` (its ids from ``base``): children to each part's
    ``in`` file of ``layer``, games over and each position's owner and degree to part ``k``'s ``out`` file.
    Returns (positions expanded, edges)."""
    shape = Shape.of(*shape_args)
    keys = _load(os.path.join(_part_dir(folder, k), f"keys{layer - 1:04d}.npz"))["keys"].reshape(-1, 2)
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
    for j in range(parts):
        got = to[j]
        _save(os.path.join(_part_dir(folder, j), f"in{layer:04d}-{k:03d}.npz"),
              keys=np.concatenate([g["keys"] for g in got]) if got else np.zeros((0, 2), np.uint64),
              src=np.concatenate([g["src"] for g in got]) if got else np.zeros(0, np.int64),
              off=np.concatenate([g["off"] for g in got]) if got else np.zeros(0, np.int8),
              move=np.concatenate([g["move"] for g in got]) if got else np.zeros(0, np.int16))
    _save(os.path.join(_part_dir(folder, k), f"out{layer - 1:04d}.npz"),
          owner=np.concatenate(owners) if owners else np.zeros(0, np.int8),
          degree=np.concatenate(degrees) if degrees else np.zeros(0, np.int16),
          src=np.concatenate([e["src"] for e in ends]) if ends else np.zeros(0, np.int64),
          end=np.concatenate([e["end"] for e in ends]) if ends else np.zeros(0, np.int8),
          move=np.concatenate([e["move"] for e in ends]) if ends else np.zeros(0, np.int16))
    return len(keys), edges


def merge_task(folder: str, j: int, layer: int, parts: int) -> int:
    """Part ``j``'s children of layer ``layer``: the new positions to its ``keys`` file of that layer, every edge
    (its parent's global id, the child's id in the part, offset, move) to its ``edges`` file. Returns how many
    positions are new."""
    d = _part_dir(folder, j)
    old = _keys_upto(folder, j, layer)
    ins = [_load(os.path.join(d, f"in{layer:04d}-{k:03d}.npz")) for k in range(parts)]
    keys = np.concatenate([x["keys"].reshape(-1, 2) for x in ins]) if ins else np.zeros((0, 2), np.uint64)
    ids, fresh = dedup(old, keys)
    _save(os.path.join(d, f"edges{layer:04d}.npz"), src=np.concatenate([x["src"] for x in ins]), dst=ids,
          off=np.concatenate([x["off"] for x in ins]), move=np.concatenate([x["move"] for x in ins]))
    _save(os.path.join(d, f"keys{layer:04d}.npz"), keys=keys[fresh])
    return len(fresh)


# -- the manifest ----------------------------------------------------------------------------------------------
def _digest(body: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _head(shape: Shape, parts: int) -> dict[str, Any]:
    return {"format": FORMAT, "players": shape.players, "suits": shape.suits, "suit_size": shape.suit_size,
            "rules": shape.rules.to_dict(), "parts": parts}


def _write_manifest(folder: str, body: dict[str, Any]) -> None:
    write_atomic(os.path.join(folder, "manifest.json"), json.dumps({**body, "digest": _digest(body)}, indent=1))


def _read_manifest(folder: str, head: Mapping[str, Any]) -> dict[str, Any] | None:
    path = os.path.join(folder, "manifest.json")
    if not os.path.exists(path):
        return None
    try:
        data = load_json(read_input(path))
    except (InputRefused, ValueError, OSError) as err:
        raise GraphError(f"{path}: not a readable checkpoint ({err})") from None
    if not isinstance(data, dict) or "digest" not in data:
        raise GraphError(f"{path}: not a checkpoint of this program")
    digest = data.pop("digest")
    if digest != _digest(data):
        raise GraphError(f"{path}: the checkpoint was changed or damaged (its digest does not match); remove the "
                         "folder to start again")
    mine = {k: data.get(k) for k in head}
    if mine != dict(head):
        raise GraphError(f"{path}: a checkpoint of another game ({json.dumps(mine, sort_keys=True)}); use another "
                         "folder")
    return data


# -- the build ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Built:
    """A complete graph in a checkpoint folder: its shape, parts, layers, positions and edges per part, the root
    (part, id) and the seat that moves first."""

    folder: str
    shape: Shape
    parts: int
    layers: int
    sizes: tuple[int, ...]
    edges: int
    root: tuple[int, int]
    first: int
    seconds: float

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


def build(shape: Shape, folder: str, *, parts: int = 8, run: Runner | None = None, limits: Limits | None = None,
          progress: Callable[[dict[str, Any]], None] | None = None) -> Built:
    """The graph of ``shape``'s start in ``folder`` (made if missing), going on from its checkpoint when it has
    one. ``run`` runs a list of task calls (default: here, one after the other; :func:`solve` passes Dask's).
    ``limits``: ``max_positions`` and ``max_seconds``, checked after each layer (past them :class:`GraphStopped`;
    the layers done stay). ``progress`` gets a dict after each layer."""
    if parts < 1 or parts > 999:
        raise GraphError(f"parts must be 1..999, not {parts}")
    folder = os.path.abspath(folder)
    run = run or _local_runner
    budget = (limits or Limits()).start()
    os.makedirs(folder, exist_ok=True)
    head = _head(shape, parts)
    shape_args = (shape.players, shape.suits, shape.suit_size, shape.rules.to_dict())
    man = _read_manifest(folder, head)
    if man is None:
        for k in range(parts):
            os.makedirs(_part_dir(folder, k), exist_ok=True)
        root, first = start_key(shape)
        if first < 0:
            raise GraphError("nobody can ask at the start: the game is over before it begins")
        rp = int(part_of(root.reshape(1, 2), parts)[0])
        for k in range(parts):
            keys = root.reshape(1, 2) if k == rp else np.zeros((0, 2), np.uint64)
            _save(os.path.join(_part_dir(folder, k), "keys0000.npz"), keys=keys)
        man = {**head, "layers": 1, "sizes": [[1 if k == rp else 0] for k in range(parts)], "edges": 0,
               "root": [rp, 0], "first": first, "complete": False, "seconds": 0.0}
        _write_manifest(folder, man)
    spent = float(man["seconds"])

    def positions(m: Mapping[str, Any]) -> int:
        return sum(sum(s) for s in m["sizes"])

    try:
        while not man["complete"]:
            layer = int(man["layers"])
            sizes = man["sizes"]
            bases = [sum(s[:-1]) for s in sizes]
            try:
                got = run([(expand_task, (folder, shape_args, k, layer, bases[k], parts)) for k in range(parts)])
                budget.check_time()  # (between the halves of a layer too: a layer of a big graph takes minutes)
                new = run([(merge_task, (folder, j, layer, parts)) for j in range(parts)])
            except Stopped as stop:
                raise GraphStopped(stop.reason, layer, positions(man)) from None
            except (GoFishError, KeyboardInterrupt):
                raise
            except Exception as err:  # noqa: BLE001 - a worker lost, a full disk...: the layers done stay
                raise GraphStopped("failed", layer, positions(man), f"{type(err).__name__}: {err}") from None
            edges = int(man["edges"]) + sum(e for _, e in got)
            sizes = [s + [int(n)] for s, n in zip(sizes, new)]
            after = {**man, "layers": layer + 1, "sizes": sizes, "edges": edges, "complete": sum(new) == 0,
                     "seconds": round(spent + budget.elapsed(), 2)}
            _write_manifest(folder, after)
            man = after  # (only once it is on disk: what a stop reports is what the next run finds)
            for path in glob.glob(os.path.join(folder, "part*", f"in{layer:04d}-*.npz")):
                os.unlink(path)
            if progress is not None:
                progress({"layer": layer, "new": int(sum(new)), "positions": positions(man), "edges": edges,
                          "seconds": round(budget.elapsed(), 1)})
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
                 int(man["first"]), float(man["seconds"]))


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
    graph's size and the seconds it took. ``ranks[i, r]``: every position's ranks (dense ids; see :func:`_retro`)."""

    seats: Mapping[int, Mapping[str, Any]]
    positions: int
    edges: int
    seconds: float
    ranks: np.ndarray


def _bases(built: Built) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(np.array(built.sizes, np.int64))])


def attract(built: Built) -> Attractor:
    """Run the attractor over ``built``'s whole graph (every seat at once), in about 23 bytes a position and 5 an
    edge (the predecessor lists are filled part by part)."""
    began = time.perf_counter()
    P, parts, folder = built.shape.players, built.parts, built.folder
    base = _bases(built)
    n = int(base[-1])
    idx = np.int32 if n < 2**31 else np.int64  # dense ids: 4 bytes each while they fit
    owner = np.zeros(n, np.int8)
    degree = np.zeros(n, np.int8)
    esrc, eend = [], []
    counts = np.zeros(n + 1, np.int64)
    for k in range(parts):
        d = _part_dir(folder, k)
        pos = 0
        for ell in range(built.layers - 1):
            out = _load(os.path.join(d, f"out{ell:04d}.npz"))
            m = len(out["owner"])
            owner[base[k] + pos: base[k] + pos + m] = out["owner"]
            degree[base[k] + pos: base[k] + pos + m] = out["degree"]
            pos += m
            keep = out["end"] >= 0  # (a game over with nobody winning is no one's rank 0)
            esrc.append((out["src"][keep] + base[k]).astype(idx))
            eend.append(out["end"][keep])
        for ell in range(1, built.layers):
            dst = _load(os.path.join(d, f"edges{ell:04d}.npz"))["dst"]
            counts[base[k] + 1: base[k + 1] + 1] += np.bincount(dst, minlength=int(built.sizes[k]))
    indptr = np.cumsum(counts)
    del counts
    e_total = int(indptr[-1])
    psrc = np.zeros(e_total, idx)
    poff = np.zeros(e_total, np.int8)
    fill = indptr[:-1].copy()
    for k in range(parts):
        d = _part_dir(folder, k)
        for ell in range(1, built.layers):
            ed = _load(os.path.join(d, f"edges{ell:04d}.npz"))
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
    seats: dict[int, dict[str, Any]] = {}
    root_key = _keys_of(built, built.root[0])[built.root[1]]
    for r in range(P):
        seat = (built.first + r) % P
        k = int(rank[root, r])
        entry: dict[str, Any] = {"wins": k >= 0, "plies": k if k >= 0 else None}
        if k > 0 and owner[root] == r:
            mv = best_move(built, rank, root_key, r)
            if mv is not None and mv < P * built.shape.suits:
                K = built.shape.suits
                entry["first_move"] = ((mv // K + built.first) % P, mv % K)
        seats[seat] = entry
    return Attractor(dict(sorted(seats.items())), n, e_total, time.perf_counter() - began, rank)


def _keys_of(built: Built, k: int) -> np.ndarray:
    return _keys_upto(built.folder, k, built.layers)


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


def best_move(built: Built, rank: np.ndarray, key: np.ndarray, r: int) -> int | None:
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
    from .game import GoFish, Move

    pos = decode(key, shape)
    game = GoFish(shape.players, shape.suits, shape.suit_size, shape.rules.to_dict())
    hand = shape.suits * shape.suit_size // shape.players
    shift = [[(h - hand) if s == 0 else 0 for s in range(shape.suits)] for h in pos["hands"]]
    low0 = tuple(tuple(pos["low"][p][s] - shift[p][s] for s in range(shape.suits)) for p in range(shape.players))
    high0 = tuple(tuple(pos["high"][p][s] - shift[p][s] for s in range(shape.suits)) for p in range(shape.players))
    q = pos["question"]
    st = replace(game.state, low0=low0, high0=high0, shift=tuple(map(tuple, shift)), turn=0,
                 pending=None if q is None else Move(0, q[0], q[1]), outcome=None, moves=(), key=None, cache={})
    game._stack = [st]
    game._seen = {}
    return game


def _sample(built: Built, rng: np.random.Generator, samples: int, by_layer: bool) -> np.ndarray:
    """Dense ids of random positions: uniform over the graph, or (``by_layer``) a layer drawn uniformly first,
    then a position of it (late layers, few positions each, are then sampled as often as the big middle)."""
    base = _bases(built)
    if not by_layer:
        return rng.integers(0, int(base[-1]), size=samples)
    man = _load_sizes(built)  # [part][layer]
    layers = [ell for ell in range(built.layers) if sum(man[k][ell] for k in range(built.parts))]
    out = []
    for ell in rng.choice(layers, size=samples):
        counts = np.array([man[k][ell] for k in range(built.parts)], np.int64)
        j = int(rng.integers(0, int(counts.sum())))
        k = int(np.searchsorted(np.cumsum(counts), j, side="right"))
        j -= int(counts[:k].sum())
        out.append(int(base[k]) + sum(man[k][:ell]) + j)
    return np.array(out, np.int64)


def _load_sizes(built: Built) -> list[list[int]]:
    with open(os.path.join(built.folder, "manifest.json"), encoding="utf-8") as f:
        sizes: list[list[int]] = json.load(f)["sizes"]
    return sizes


def crosscheck(built: Built, ranks: np.ndarray, *, samples: int = 100, seed: int = 0,
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
            counts["wins_seen"] += int(ref.verdict)
            if (mine >= 0) != ref.verdict or (ref.verdict and mine != ref.plies):
                counts["disagreements"] += 1
    return counts


def solve(players: int, rules: "Rules | Mapping[str, object] | str | None", folder: str, *, suit_size: int = 4,
          parts: int = 8, workers: int | None = 0, cluster: Any = None, limits: Limits | None = None,
          progress: Callable[[dict[str, Any]], None] | None = None, keep_graph: bool = True) -> dict[str, Any]:
    """The start of ``players`` players (as many suits of ``suit_size``) under ``rules``, solved for every seat in
    the checkpoint ``folder``: the graph built in ``parts`` (on a Dask ``cluster``, on a ``LocalCluster`` of
    ``workers`` processes when ``workers`` is None or > 0, or here when 0), then the attractor. Returns the
    answer (also written to ``result.json``, read back when asked again). ``keep_graph=False`` removes the
    graph's files once the answer is written (the manifest and the answer stay)."""
    shape = Shape.of(players, players, suit_size, rules)
    folder = os.path.abspath(folder)  # (the workers' working folder may differ; with a cluster it must be shared)
    result_path = os.path.join(folder, "result.json")
    head = _head(shape, parts)
    done = _read_result(result_path, head) if os.path.exists(result_path) else None
    if done is not None:
        return done
    if workers == 0 and cluster is None:
        built = build(shape, folder, parts=parts, limits=limits, progress=progress)
    else:
        from ..cluster import dask_client

        with dask_client(cluster, workers) as client:
            built = build(shape, folder, parts=parts, run=_dask_runner(client), limits=limits, progress=progress)
    att = attract(built)
    out = {"players": players, "suits": players, "suit_size": suit_size, "rules": shape.rules.to_dict(),
           "positions": built.positions, "edges": built.edges, "layers": built.layers, "parts": parts,
           "build_seconds": round(built.seconds, 1), "attractor_seconds": round(att.seconds, 1),
           "winners": [s for s, e in att.seats.items() if e["wins"]],
           "seats": {str(s): {k: (list(v) if isinstance(v, tuple) else v) for k, v in e.items()}
                     for s, e in att.seats.items()}}
    body = {"head": head, "result": out}
    write_atomic(result_path, json.dumps({**body, "digest": _digest(body)}, indent=1))
    if not keep_graph:
        import shutil

        for k in range(parts):
            shutil.rmtree(_part_dir(folder, k), ignore_errors=True)
    return out


def _read_result(path: str, head: Mapping[str, Any]) -> dict[str, Any] | None:
    """The answer stored in a checkpoint folder (None when it is another game's); a damaged one is refused."""
    try:
        data = load_json(read_input(path))
    except (InputRefused, ValueError, OSError) as err:
        raise GraphError(f"{path}: not a readable result ({err})") from None
    if not isinstance(data, dict) or set(data) != {"head", "result", "digest"}:
        raise GraphError(f"{path}: not a result of this program")
    if data["digest"] != _digest({"head": data["head"], "result": data["result"]}):
        raise GraphError(f"{path}: the result was changed or damaged (its digest does not match); remove it to "
                         "compute it again")
    if data["head"] != dict(head):
        raise GraphError(f"{path}: the result of another game; use another folder")
    result = data["result"]
    return result if isinstance(result, dict) else None


__all__ = ["FORMAT", "GraphError", "GraphStopped", "Built", "Attractor", "part_of", "dedup", "build", "attract",
           "lookup", "best_move", "game_at", "crosscheck",
           "solve", "expand_task", "merge_task"]
