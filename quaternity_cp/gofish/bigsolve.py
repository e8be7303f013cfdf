"""Solving Quantum Go Fish starts too big for one process's dictionaries: a partitioned graph on Dask, resumable.

The graph of :mod:`.fastgraph` (packed positions, players rotated and suits
relabelled) is built and solved by the shared partitioned solver
(:mod:`quaternity_cp.partitioned`), through Go Fish's part ``packed``
(:class:`~.packed.GoFishPacked`): breadth first, one layer of new positions at
a time, in ``parts`` partitions (a position belongs to the part its key hashes
to), each part keeping its positions on disk in the checkpoint folder; expand
and merge tasks per part and layer, run on Dask workers (a ``LocalCluster`` of
the machine's cores, or a scheduler's address, as the Quarto proof does) or in
this process (``workers=0``); after each layer the folder's ``manifest.json``
is written (atomically), so a run stopped by Ctrl-C, a limit or a crash starts
again at the first layer not recorded there.

**What is believed of a checkpoint folder** is what the shared layer believes
(see :mod:`quaternity_cp.partitioned`): the manifest lists every part file with
its size, its SHA-256 and its counts, and carries a *keyed* digest (HMAC-SHA256
under the user's key, :mod:`quaternity_cp.digest`) of all of it; every part file
is read by the strict reader of :mod:`quaternity_cp.partfiles`, then every id
and number is range-checked. ``result.json`` (this module's: the answer for the
start) carries a keyed digest too. A damaged file, an edited one, one copied
from another checkpoint, or one forged by someone without the user's key is
refused with one line naming it (:class:`GraphError`). The format
(:data:`FORMAT`) is the one this module wrote before the solver moved into the
shared layer: its checkpoints are read as they are.

Then the attractor (:func:`attract`) runs over the whole graph at once, in
compiled code over flat arrays (about 23 bytes a position and 5 an edge: the
4-player start's 132.5 million positions and 341 million inner edges took
5.0 GB and 40 s): for every position and every seat counted on from its
mover, whether that seat forces a win and in how many plies. Or, with
``attract(built, partitioned=True)`` (``solve(..., attractor="partitioned")``,
``quaternity gofish starts --attractor partitioned``), the same ranks part by
part, in rounds by rank, on the same runner as the build: the shared
:mod:`quaternity_cp.retrograde`; no process then holds the whole graph (about
the whole's arrays divided by the parts, plus a round's messages, per worker),
and its rounds are checkpointed in the subfolder ``attractor/``, resumable as
the build is. A winning seat's move at a position is found again from the ranks
(:func:`best_move`: a child one rank lower). What is Go Fish's here: the start's
sizes and rules (:class:`~.fastgraph.Shape`), how many parts make sense for a
start (:func:`max_parts`), the answer per seat with its first question, written
to ``result.json`` in the same folder (with a keyed digest), so asking again
reads it, and the crosscheck against the Python solver (:func:`crosscheck`).

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

import json
import math
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Any, Callable, Iterator, Mapping, cast

import numpy as np

from .. import partitioned as pt
from .. import retrograde
from ..budget import Limits
from ..digest import read_signed, user_key, write_signed
from ..partfiles import Entry
from .fastgraph import Shape, open_count
from .packed import FORMAT, OLD_FORMATS, GoFishPacked, packed_of
from .rules import GoFishError, Rules

#: positions expanded at a time inside a task (bounds the task's memory)
CHUNK = pt.CHUNK
#: the most parts of any graph (each layer writes parts x parts files)
MAX_PARTS = pt.MAX_PARTS
#: parts when none are asked for (fewer when the start's graph is small: :func:`default_parts`)
DEFAULT_PARTS = 8
#: parts when none are asked for at a start whose graph is small (:func:`default_parts`)
SMALL_PARTS = 2
#: the most layers a manifest may record (ranks stop at MAX_RANK long before)
MAX_LAYERS = pt.MAX_LAYERS
#: the largest count (positions, edges, bytes) a manifest may give
MAX_COUNT = pt.MAX_COUNT
#: ranks are kept in 16 bits: a longer forced win is refused rather than wrapped (none comes near)
MAX_RANK = pt.MAX_RANK
#: what a keyed digest of a manifest / a stored answer is for (one file is never taken for the other)
MANIFEST_PURPOSE = pt.manifest_purpose(GoFishPacked(Shape.of(2, 2, 2, None)))
RESULT_PURPOSE = "gofish-graph-result"
#: the subfolder of a graph's checkpoint where the partitioned attractor keeps its rounds
ATTRACTOR_FOLDER = pt.ATTRACTOR_FOLDER
#: the attractors :func:`solve` runs: over the whole graph in one process, or partitioned in rounds
ATTRACTORS = pt.ATTRACTORS

Runner = pt.Runner
_local_runner = pt.local_runner
_dask_runner = pt.dask_runner
# (the shared layer's hashing and deduplication, under the names this module always gave them)
part_of = pt.part_of
dedup = pt.dedup
_dedup = pt.dedup_kernel
_dedup_py = pt.dedup_dict


class GraphError(GoFishError):
    """A checkpoint folder that cannot be used: another game's, damaged, or not a folder."""


class GraphStopped(pt.BuildStopped, GoFishError):
    """The build stopped before the graph was complete (the shared layer's :class:`~quaternity_cp.partitioned.
    BuildStopped`, as a Go Fish error: ``reason`` ``time``, ``limit``, ``interrupted`` or ``failed``); the
    checkpoint keeps every finished layer."""


class AttractorStopped(pt.AttractorStopped, GraphStopped):
    """The partitioned attractor stopped before its last round (the shared layer's
    :class:`~quaternity_cp.partitioned.AttractorStopped`, as a Go Fish error); its checkpoint keeps every round
    done."""


@contextmanager
def _gofish_errors() -> Iterator[None]:
    """The shared layer's refusals and stops as this module's (:class:`GraphError`, :class:`GraphStopped`,
    :class:`AttractorStopped`), their messages unchanged."""
    try:
        yield
    except pt.AttractorStopped as stop:
        raise AttractorStopped(stop.reason, stop.layers, stop.positions, stop.rounds, stop.ranked,
                               str(stop)) from None
    except pt.BuildStopped as stop:
        raise GraphStopped(stop.reason, stop.layers, stop.positions, stop.detail, stop.expanded) from None
    except (pt.PartitionedError, retrograde.RetroError) as err:
        raise GraphError(str(err)) from None


# -- the parts a start's graph is worth ----------------------------------------------------------------------------
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
    """The parts of a new checkpoint when none are asked for: :data:`SMALL_PARTS` at a start whose graph is small
    (2 players; 3 players with suits of at most 5, 196,860 positions; 4 players with suits of at most 3, 1.9
    million), where a part costs more in files than it saves in memory (``gofish starts --checkpoint --workers
    0``, every rule set, one core: 3 players with suits of 4 in 5.4 s in 2 parts, 20.0 s in 8; 4 players with
    suits of 2 in 4.4 s against 16.2 s); else :data:`DEFAULT_PARTS`; :func:`max_parts` when fewer."""
    P, S = shape.players, shape.suit_size
    small = P <= 2 or (P == 3 and S <= 5) or (P == 4 and S <= 3)
    return min(SMALL_PARTS if small else DEFAULT_PARTS, max_parts(shape))


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


def _parts(shape: Shape, folder: str, parts: int | None) -> int:
    """``parts`` checked; when None, those of the checkpoint in ``folder`` (it goes on in its own), else
    :func:`default_parts`."""
    if parts is not None:
        return check_parts(shape, parts)
    with _gofish_errors():
        stored = pt.stored_parts(os.path.abspath(folder), GoFishPacked(shape))
    return stored if stored is not None else default_parts(shape)


def _head(shape: Shape, parts: int) -> dict[str, Any]:
    return pt.head(GoFishPacked(shape), parts)


def _keys_upto(folder: str, k: int, layers: int, files: Mapping[str, Entry] | None = None) -> np.ndarray:
    """Part ``k``'s positions of layers 0 .. layers-1, in id order (``files``: the manifest's entries; read from
    the folder's manifest, whatever its start, when not given)."""
    with _gofish_errors():
        if files is None:
            files = pt.open_manifest(folder, FORMAT, OLD_FORMATS, MANIFEST_PURPOSE, packed_of)[1]["files"]
        return pt.keys_upto(folder, GoFishPacked.width, k, layers, files)


# -- the build ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Built(pt.Built):
    """A complete Go Fish graph in a checkpoint folder (:class:`quaternity_cp.partitioned.Built`), with its
    start's ``shape``."""

    @property
    def shape(self) -> Shape:
        return cast(GoFishPacked, self.packed).shape


def _gofish_built(built: pt.Built) -> Built:
    return Built(**{f.name: getattr(built, f.name) for f in fields(built)})


def build(shape: Shape, folder: str, *, parts: int | None = None, run: Runner | None = None,
          limits: Limits | None = None, progress: Callable[[dict[str, Any]], None] | None = None) -> Built:
    """The graph of ``shape``'s start in ``folder`` (made if missing), going on from its checkpoint when it has
    one: :func:`quaternity_cp.partitioned.build` of :class:`~.packed.GoFishPacked`. ``parts``: 1..:data:`MAX_PARTS`
    and at most :func:`max_parts` (default :func:`default_parts`). ``run`` runs a list of task calls (default:
    here, one after the other; :func:`solve` passes Dask's). ``limits``: ``max_positions`` and ``max_seconds``,
    checked after each layer (past them :class:`GraphStopped`; the layers done stay). ``progress`` gets a dict
    after each layer. A damaged, edited or foreign checkpoint is refused (:class:`GraphError`, one line naming
    the file)."""
    parts = _parts(shape, folder, parts)
    with _gofish_errors():
        return _gofish_built(pt.build(GoFishPacked(shape), folder, parts=parts, run=run, limits=limits,
                                      progress=progress))


# -- the attractor -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Attractor:
    """The attractor's answer for the start: per seat (absolute, counted from 0) whether it forces a win, in how
    many plies, and its first move (a question ``(asked, suit)`` in the start's seats, suit 0 = A); with the
    graph's size and the seconds it took. ``ranks[i, r]``: every position's ranks (dense ids; see
    :class:`quaternity_cp.partitioned.Attractor`): an array from the whole-graph attractor, a
    :class:`~quaternity_cp.retrograde.Ranks` (read part by part from the checkpoint; ``.dense()`` for the
    array) from the partitioned one."""

    seats: Mapping[int, Mapping[str, Any]]
    positions: int
    edges: int
    seconds: float
    ranks: "np.ndarray | retrograde.Ranks"


def attract(built: Built, *, partitioned: bool = False, run: Runner | None = None, limits: Limits | None = None,
            max_rounds: int | None = None, progress: Callable[[dict[str, Any]], None] | None = None) -> Attractor:
    """:func:`quaternity_cp.partitioned.attract` of ``built`` (over the whole graph, or ``partitioned=True`` in
    rounds part by part, see there), and each seat's answer at the start (:class:`Attractor`). Stops raise
    :class:`AttractorStopped`, refusals :class:`GraphError`."""
    with _gofish_errors():
        att = pt.attract(built, partitioned=partitioned, run=run, limits=limits, max_rounds=max_rounds,
                         progress=progress)
        began = time.perf_counter()
        seats = _seats(built, att.ranks, att.root, att.root_owner)
    return Attractor(seats, att.positions, att.edges, att.seconds + time.perf_counter() - began, att.ranks)


def _seats(built: Built, rank: "np.ndarray | retrograde.Ranks", root: int,
           root_owner: int) -> dict[int, dict[str, Any]]:
    """Each seat's answer at the start (dense id ``root``, whose seat to move is the offset ``root_owner``)."""
    P = built.shape.players
    seats: dict[int, dict[str, Any]] = {}
    root_key = pt.keys_of(built, built.root[0])[built.root[1]]
    for r in range(P):
        seat = (built.first + r) % P
        k = int(rank[root, r])
        entry: dict[str, Any] = {"wins": k >= 0, "plies": k if k >= 0 else None}
        if k > 0 and root_owner == r:
            mv = pt.best_move(built, rank, root_key, r)
            if mv is not None and mv < P * built.shape.suits:
                K = built.shape.suits
                entry["first_move"] = ((mv // K + built.first) % P, mv % K)
        seats[seat] = entry
    return dict(sorted(seats.items()))


def attractor_part(folder: str, shape_args: tuple[Any, ...], k: int, layers: int, sizes: list[list[int]],
                   files: Mapping[str, Entry]) -> retrograde.PartGraph:
    """Part ``k``'s share of the graph for the partitioned attractor (:func:`quaternity_cp.partitioned.attractor_part`
    of the start ``shape_args``: players, suits, suit size, rules)."""
    with _gofish_errors():
        return pt.attractor_part(folder, GoFishPacked(Shape.of(*shape_args)), k, layers, sizes, files)


def lookup(built: Built, keys: np.ndarray) -> np.ndarray:
    """The dense ids of packed positions of ``built``'s graph (-1 for one not in it)."""
    with _gofish_errors():
        return pt.lookup(built, keys)


def best_move(built: Built, rank: "np.ndarray | retrograde.Ranks", key: np.ndarray, r: int) -> int | None:
    """A move that keeps the seat ``r`` places after the mover of position ``key`` on its fastest forced win (a
    child of one rank less), as :func:`~.fastgraph.expand` numbers moves; None when that seat does not choose
    there or cannot force a win."""
    with _gofish_errors():
        return pt.best_move(built, rank, key, r)


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


def crosscheck(built: Built, ranks: "np.ndarray | retrograde.Ranks", *, samples: int = 100, seed: int = 0,
               max_positions: int = 20_000, by_layer: bool = False) -> dict[str, int]:
    """Re-solve ``samples`` random positions of ``built``'s graph (see :func:`quaternity_cp.partitioned.sample`) with the Python solver
    (:mod:`.solver`: flow bounds, players not rotated), each within ``max_positions``, and compare every seat's
    verdict and plies with ``ranks``. Returns how many positions were compared, skipped (their remaining graph
    passed the limit) and disagreed (seat verdicts)."""
    from .solver import SolverLimitError, attractor, build_graph

    rng = np.random.default_rng(seed)
    base = pt.bases(built)
    cache: dict[int, np.ndarray] = {}
    counts = {"compared": 0, "skipped": 0, "disagreements": 0, "wins_seen": 0}
    for dense in pt.sample(built, rng, samples, by_layer):
        k = int(np.searchsorted(base, dense, side="right") - 1)
        if k not in cache:
            cache[k] = pt.keys_of(built, k)
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
          attractor: str = "whole", upgrade_layout: bool = False) -> dict[str, Any]:
    """The start of ``players`` players (as many suits of ``suit_size``) under ``rules``, solved for every seat in
    the checkpoint ``folder``: the graph built in ``parts`` (default :func:`default_parts`; on a Dask ``cluster``,
    on a ``LocalCluster`` of ``workers`` processes when ``workers`` is None or > 0, or here when 0), then the
    attractor: ``"whole"`` (:func:`attract` over the whole graph in this process) or ``"partitioned"`` (in
    rounds, part by part, on the same workers, checkpointed; ``limits.max_seconds`` counts on from the build's
    start): :func:`quaternity_cp.partitioned.solve_graph`. Returns the answer (also written to ``result.json``
    with a keyed digest, read back when asked again): the same whichever attractor. ``keep_graph=False`` removes
    the graph's files (and the attractor's) once the answer is written (the manifest and the answer stay).
    ``upgrade_layout``: a checkpoint of an older layout is rewritten first
    (:func:`quaternity_cp.partitioned.upgrade`)."""
    if attractor not in ATTRACTORS:
        raise GraphError(f"attractor must be one of {', '.join(ATTRACTORS)}, not {attractor!r}")
    shape = Shape.of(players, players, suit_size, rules)
    if parts is not None:
        parts = check_parts(shape, parts)
    user_key()  # (an unusable key file is refused before any work)
    folder = os.path.abspath(folder)  # (the workers' working folder may differ; with a cluster it must be shared)
    parts = _parts(shape, folder, parts)
    result_path = os.path.join(folder, "result.json")
    head = _head(shape, parts)
    done = None
    if os.path.lexists(result_path):
        try:
            done = _read_result(result_path, head, shape)
        except GraphError:
            with _gofish_errors():  # (a checkpoint in other parts: said so)
                pt.refuse_other_parts(folder, GoFishPacked(shape), parts)
            raise
    if done is not None:
        return done
    with _gofish_errors():
        graph, whole = pt.solve_graph(GoFishPacked(shape), folder, parts=parts, workers=workers, cluster=cluster,
                                      limits=limits, progress=progress, attractor=attractor,
                                      upgrade_layout=upgrade_layout)
        built = _gofish_built(graph)
        began = time.perf_counter()
        seats = _seats(built, whole.ranks, whole.root, whole.root_owner)
    att = Attractor(seats, whole.positions, whole.edges, whole.seconds + time.perf_counter() - began, whole.ranks)
    opened = sum(int(open_count(pt.keys_of(built, k), shape)) for k in range(parts))
    out = {"players": players, "suits": players, "suit_size": suit_size, "rules": shape.rules.to_dict(),
           "positions": built.positions, "asking_positions": built.positions - opened, "open_positions": opened,
           "edges": built.edges, "layers": built.layers, "parts": parts,
           "build_seconds": round(built.seconds, 1), "attractor_seconds": round(att.seconds, 1),
           "winners": [s for s, e in att.seats.items() if e["wins"]],
           "seats": {str(s): {k: (list(v) if isinstance(v, tuple) else v) for k, v in e.items()}
                     for s, e in att.seats.items()}}
    write_signed(result_path, head, out, RESULT_PURPOSE)
    if not keep_graph:
        pt.drop_graph(built)
    return out


def _whole(path: str, name: str, value: object, lo: int = 0, hi: int = MAX_COUNT) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise GraphError(f"{path}: {name} must be a whole number {lo}..{hi:,}, not {json.dumps(value)[:40]}")
    return value


def _read_result(path: str, head: Mapping[str, Any], shape: Shape) -> dict[str, Any]:
    """The answer stored in a checkpoint folder: read strictly, its keyed digest and its game checked, every
    field type- and range-checked; anything else is refused (:class:`GraphError`, one line naming the file)."""
    result = read_signed(path, dict(head), RESULT_PURPOSE, GraphError)
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
           "game_at", "crosscheck", "max_parts", "default_parts", "check_parts", "solve"]
