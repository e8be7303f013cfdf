"""Proving a Quarto position's value in independent work units, in parallel and resumably (the empty board too).

The first ``split`` plies from the position form the *top tree*: canonical
positions (:func:`quaternity_cp.quarto.symmetry.canonical_key`: one per class
of the 12,288 symmetries; 3,072 with squares), each with its moves ordered as
the search orders them (the placements leaving the fewest safe pieces first).
Its leaves, ``split`` plies down, are the *work units*: each is one question to
the compiled search (:mod:`.fast`), with a null window:

* ``ge0``: does the player to move there get at least a draw?
* ``le0``: is the player to move there held to at most a draw?

The root's value follows from two such answers about the root, and each is an
and/or tree over the top tree: ``ge0(n)`` holds when some move leads to a child
``c`` with ``le0(c)`` (an *or*: the children are asked one after the other, in
the search's order, as alpha-beta does), ``le0(n)`` when every child has
``ge0(c)`` (an *and*: all asked at once, in parallel). A placement that fills the
board draws, a piece that wins at once for the opponent is never the answer of
``ge0`` and never spoils ``le0``. Then the value is ``loss`` when ``ge0`` fails,
``win`` when ``le0`` fails (the child that failed ``ge0`` is the winning move),
``draw`` when both hold (the child that proved ``ge0`` is the drawing move).

The units run on worker processes: a Dask ``LocalCluster`` of the machine's
cores by default, a Dask scheduler (``cluster``, as ``quaternity tournament
--cluster``), or this process (``workers=0``). Each worker keeps one
transposition table for all its units (its entries are true bounds, whatever
unit stored them). Every answer goes to the ``checkpoint`` file (written
atomically) as it comes in, so a run stopped by Ctrl-C, a limit or a crash
starts again where it was: the answers already there are not asked again.
The checkpoint is read as every input file is (:mod:`quaternity_cp.jsonio`:
size, depth and numbers limited, special files refused before reading) and
carries a keyed digest of its head and answers (HMAC-SHA256 under the user's
key, :mod:`quaternity_cp.digest`). A damaged or carelessly edited checkpoint,
one forged by someone without the user's key (another user, a file received),
or one written under another key is refused, naming it, never believed.
Someone with the user's key (the user, or a program running as the user) can
forge a checkpoint that is believed: the digest does not protect against that.

>>> board = [None, 10, 5, None, None, 3, 1, 8, None, None, 14, 11, 7, 12, 0, None]
>>> proof = prove(board, 6, split=2, workers=0)
>>> proof.value, proof.best, proof.status
('draw', (3, 13), 'solved')
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from ..budget import INTERRUPTED, LIMIT, SOLVED, TIME, Limits, Status
from ..digest import sign_json, user_key, verify_json
from ..files import write_atomic
from ..jsonio import InputRefused, load_json, read_input
from . import symmetry
from .bits import ATTRS, UNSAFE, threat, three_table
from .solver import SolverError, check_position, search_root, winning_lines

GE0, LE0 = "ge0", "le0"
FORMAT = "quaternity-quarto-proof-3"  # 2: with a digest; 3: a keyed digest (quaternity_cp.digest)
#: what a checkpoint's keyed digest is for (a file of another kind is never taken for one)
PURPOSE = "quarto-proof-checkpoint"
#: The transposition table of each worker: 2**TABLE_BITS slots of 12 bytes.
TABLE_BITS = 24

Board = tuple  # 16 cells, piece numbers or None


class ProofError(SolverError):
    """A proof that cannot run as asked (a checkpoint of another position, no Dask, a bad split...)."""


@dataclass
class TopNode:
    """A canonical position of the top tree: its depth, whether the piece in hand wins at once, and its moves.

    ``moves`` are ``(cell, gift, child_key)`` in the search's order (``gift`` None
    for the opening choice, ``cell`` None there); ``draws`` is a placement that
    fills the board (a drawing move), ``losing`` says some move loses at once.
    """

    key: int
    board: Board
    hand: Optional[int]
    depth: int
    wins_now: bool = False
    moves: list = field(default_factory=list)
    draws: Optional[tuple] = None


@dataclass
class ProofResult:
    """What :func:`prove` found.

    ``value`` (``win``/``draw``/``loss`` for the player to move, None when
    stopped), ``best`` (a move reaching it, ``(cell, gift)``), ``ge0``/``le0``
    (the two answers about the root, None when unknown), ``nodes`` (searched by
    every unit, this run and earlier ones of the checkpoint), ``seconds`` (this
    run, wall clock), ``cpu_seconds`` (the units' CPU time, all runs),
    ``status`` (``solved``, ``time``, ``limit``, ``interrupted``), and the
    proof's shape: ``units`` answered (``asked`` of them in this run),
    ``top_nodes`` per depth, ``unit_sizes`` (nodes of each answered unit, by
    depth and question) and ``table`` (the top tree's proven values, for
    :mod:`.openings`).
    """

    value: Optional[str]
    best: Optional[tuple]
    ge0: Optional[bool]
    le0: Optional[bool]
    nodes: int
    seconds: float
    cpu_seconds: float
    status: str
    units: int
    asked: int
    top_nodes: list
    split: int
    workers: str
    table: dict = field(default_factory=dict)

    @property
    def proven(self) -> bool:
        return self.status == SOLVED

    def shape(self) -> dict:
        """The proof's shape as JSON: the top tree per depth, the units answered and their nodes."""
        return {"split": self.split, "top_nodes": self.top_nodes, "units": self.units, "units_this_run": self.asked,
                "ge0": self.ge0, "le0": self.le0, "nodes": self.nodes, "unit_cpu_seconds": round(self.cpu_seconds, 3),
                "workers": self.workers}


# -- the top tree -----------------------------------------------------------------------------------

class TopTree:
    """The canonical positions of the first plies, made as they are needed."""

    def __init__(self, board: Sequence[Optional[int]], hand: Optional[int], squares: bool):
        self.squares = squares
        self.three = three_table(squares)
        self.nodes: dict[int, TopNode] = {}
        self.root = self.node(tuple(board), hand, 0)

    def key(self, board: Board, hand: Optional[int]) -> int:
        return symmetry.canonical_key(board, hand, self.squares)

    def node(self, board: Board, hand: Optional[int], depth: int) -> int:
        key = self.key(board, hand)
        if key not in self.nodes:
            self.nodes[key] = self._make(key, board, hand, depth)
        return key

    def expand(self, node: TopNode) -> None:
        """Give ``node`` its moves (once)."""
        if node.moves or node.wins_now or node.draws is not None:
            return
        board, hand = node.board, node.hand
        if hand is None:  # the opening choice: every piece is the image of LRTS under a trait flip
            child = self.node(board, 0, node.depth + 1)
            node.moves = [(None, 0, child)]
            return
        used = {p for p in board if p is not None} | {hand}
        occ, masks = symmetry.pack(board)
        spread = symmetry.SPREAD[hand]
        placements = []
        for cell in range(16):
            if board[cell] is not None:
                continue
            occ2, masks2 = occ | (1 << cell), masks | (spread << cell)
            after = board[:cell] + (hand,) + board[cell + 1:]
            left = [q for q in range(16) if q not in used]
            if not left:
                node.draws = (cell, None)
                return
            unsafe = UNSAFE[threat(occ2, masks2, self.three)]
            safe = [q for q in left if not unsafe >> q & 1]
            placements.append((len(safe), cell, after, safe))
        placements.sort(key=lambda item: item[:2])
        seen = set()
        for _, cell, after, safe in placements:
            for q in safe:
                child = self.node(after, q, node.depth + 1)
                if child not in seen:
                    seen.add(child)
                    node.moves.append((cell, q, child))

    def winning_cell(self, node: TopNode) -> int:
        """A cell where the piece in hand wins at once (``node.wins_now``)."""
        board = node.board
        return next(c for c in range(16) if board[c] is None
                    and winning_lines(board[:c] + (node.hand,) + board[c + 1:], self.squares))

    def _make(self, key: int, board: Board, hand: Optional[int], depth: int) -> TopNode:
        node = TopNode(key, board, hand, depth)
        if hand is not None:
            occ, masks = symmetry.pack(board)
            node.wins_now = bool(ATTRS[hand] & threat(occ, masks, self.three))
        return node


# -- the units ----------------------------------------------------------------------------------

_TABLES: dict = {}


def run_unit(board: Board, hand: int, squares: bool, question: str, table_bits: int = TABLE_BITS) -> tuple:
    """Answer one unit in this process: ``(answer, nodes, cpu_seconds)``. The worker's table is kept."""
    from .fast import FastSearch, Table

    table = _TABLES.get((squares, table_bits))
    if table is None:
        _TABLES.clear()  # one table per worker process
        table = _TABLES[(squares, table_bits)] = Table(table_bits)
    start = time.process_time()
    search = FastSearch(squares, Limits().start(), table=table)
    if question == GE0:
        answer = search_root(search, board, hand, -1, 0)[0] >= 0
    else:
        answer = search_root(search, board, hand, 0, 1)[0] <= 0
    return answer, search.nodes, time.process_time() - start


def _run_unit_args(args: tuple) -> tuple:
    return run_unit(*args)


# -- the and/or evaluation --------------------------------------------------------------------------

class _Round:
    """One pass over the top tree: the answers known, and the units still needed."""

    def __init__(self, tree: TopTree, split: int, answers: dict, speculate: int, complete: bool = False):
        self.tree, self.split, self.answers, self.speculate = tree, split, answers, speculate
        self.complete = complete
        self.memo: dict = {}
        self.needed: dict = {}  # (key, question) -> (board, hand)
        self.witness: dict = {}  # (key, question) -> the move that decided it

    def ask(self, key: int, question: str) -> Optional[bool]:
        if (key, question) in self.memo:  # a transposition: asked once per pass
            return self.memo[(key, question)]
        node = self.tree.nodes[key]
        answer = self._ask(node, question)
        self.memo[(key, question)] = answer
        return answer

    def _ask(self, node: TopNode, question: str) -> Optional[bool]:
        if node.wins_now:
            self.witness[(node.key, question)] = (self.tree.winning_cell(node), None)
            return question == GE0
        if node.depth >= self.split and node.hand is not None:
            known = self.answers.get((node.key, question))
            if known is None:
                self.needed[(node.key, question)] = (node.board, node.hand)
            return known
        self.tree.expand(node)
        if node.draws is not None:  # the last placement fills the board without a line: a draw
            if question == GE0:
                self.witness[(node.key, question)] = node.draws
            return True
        if self.complete:  # both answers of every child, so that every position of the top tree gets its value
            for _, _, child in node.moves:
                self.ask(child, GE0)
                self.ask(child, LE0)
        if question == GE0:  # some child held to at most a draw
            asked = 0
            pending = False
            for cell, gift, child in node.moves:
                answer = self.ask(child, LE0)
                if answer:
                    self.witness[(node.key, question)] = (cell, gift)
                    return True
                if answer is None:
                    pending = True
                    asked += 1
                    if asked >= self.speculate:
                        return None
            return None if pending else False
        pending = False  # le0: every child gets at least a draw
        for cell, gift, child in node.moves:
            answer = self.ask(child, GE0)
            if answer is False:
                self.witness[(node.key, question)] = (cell, gift)
                return False
            if answer is None:
                pending = True
        return None if pending else True


# -- the driver -----------------------------------------------------------------------------------

def prove(board: Sequence[Optional[int]], piece: Optional[int], *, squares: bool = False, split: int = 2,
          workers: Optional[int] = None, cluster: Any = None, checkpoint: Optional[str] = None,
          limits: Optional[Limits] = None, table_bits: int = TABLE_BITS, complete: bool = False,
          progress: Optional[Callable[[int, int], None]] = None) -> ProofResult:
    """The value of a position (as :func:`.solver.solve` takes it) from work units ``split`` plies down.

    ``workers``: local processes (None: a Dask ``LocalCluster`` of the machine's
    cores; 0: this process); ``cluster``: a Dask scheduler address or
    ``distributed.Client`` instead. ``checkpoint``: a JSON file of the answers so
    far, read when it exists (it must be the same position and split) and
    written atomically after every answer. ``limits``: ``max_seconds`` (wall
    clock) and ``max_positions`` (nodes of this run's units, checked as each
    unit ends) stop the run, as Ctrl-C does, with the answers kept;
    ``progress(answered, asked)`` is called as answers come in. ``complete``: both
    answers for every position of the top tree (each gets its value: the opening
    table), not only those the root's value needs.
    """
    check_position(board, piece)
    if isinstance(split, bool) or not isinstance(split, int) or not 1 <= split <= 16:
        raise ProofError(f"split must be a number of plies 1..16, not {split!r}")
    if winning_lines(board, squares) or all(p is not None for p in board):
        raise ProofError("the game is over: there is nothing to prove")
    if piece is None and any(p is not None for p in board):
        raise SolverError("only before the first placement can the player to move hold no piece")
    if checkpoint is not None:
        user_key()  # (an unusable key file is refused before any work: the checkpoint's digest needs it)
    limits = limits or Limits()
    start = time.perf_counter()
    tree = TopTree(board, piece, squares)
    head = _head(board, piece, squares, split)
    answers: dict = {}
    sizes: dict = {}
    if checkpoint is not None and os.path.exists(checkpoint):
        answers, sizes = _read_checkpoint(checkpoint, head)
    state = _State(tree, split, answers, sizes, checkpoint, head, limits, progress)
    state.complete = complete
    where = "this process"
    status = SOLVED
    try:
        if workers == 0 and cluster is None:
            state.run_here(table_bits)
        else:
            where = state.run_dask(cluster, workers, table_bits)
    except KeyboardInterrupt:
        status = INTERRUPTED
    except _Stop as stop:
        status = stop.reason
    final = _Round(tree, split, answers, 1, complete)
    ge0, le0 = final.ask(tree.root, GE0), final.ask(tree.root, LE0)
    value = best = None
    if ge0 is False:
        value = "loss"
        tree.expand(tree.nodes[tree.root])
        root = tree.nodes[tree.root]
        best = (root.moves[0][0], root.moves[0][1]) if root.moves else None
    elif le0 is False:
        value, best = "win", final.witness[(tree.root, LE0)]
    elif ge0 and le0:
        value, best = "draw", final.witness[(tree.root, GE0)]
    if value is not None:
        status = SOLVED
    elif status == SOLVED:  # pragma: no cover - the loop only ends with both answers
        raise AssertionError("the proof ended without an answer")
    nodes = sum(n for n, _ in sizes.values())
    cpu = sum(s for _, s in sizes.values())
    per_depth: dict = {}
    for node in tree.nodes.values():
        per_depth[node.depth] = per_depth.get(node.depth, 0) + 1
    return ProofResult(value, best, ge0, le0, nodes, time.perf_counter() - start, cpu, status, len(answers),
                       state.asked, [per_depth[d] for d in sorted(per_depth)], split, where,
                       table=_table(tree, final))


def _table(tree: TopTree, final: _Round) -> dict:
    """The positions with a proven answer: canonical key -> ``{"ge0", "le0", "child"}``, ``child`` the canonical
    key of the position after the move that decided an answer (a draw or better; a win), when one did."""
    out: dict = {}
    for (key, question), answer in final.memo.items():
        if answer is None:
            continue
        entry = out.setdefault(key, {GE0: None, LE0: None, "child": None})
        entry[question] = answer
        move = final.witness.get((key, question))
        decided = (question == GE0 and answer) or (question == LE0 and not answer)
        if move is not None and decided and (entry["child"] is None or question == LE0):
            entry["child"] = next((child for cell, gift, child in tree.nodes[key].moves
                                   if (cell, gift) == move), None)
    return out


class _Stop(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = Status(reason)


class _State:
    """The answers of one run as they come in, written to the checkpoint."""

    def __init__(self, tree: TopTree, split: int, answers: dict, sizes: dict, checkpoint: Optional[str], head: dict,
                 limits: Limits, progress: Optional[Callable[[int, int], None]]):
        self.tree, self.split, self.answers, self.sizes = tree, split, answers, sizes
        self.checkpoint, self.head, self.limits, self.progress = checkpoint, head, limits, progress
        self.budget = limits.start()
        self.complete = False
        self.asked = 0
        self.nodes = 0

    def needed(self, speculate: int) -> dict:
        """The units the root's two answers wait for now; {} once both are known."""
        rnd = _Round(self.tree, self.split, self.answers, speculate, self.complete)
        ge0 = rnd.ask(self.tree.root, GE0)
        le0 = rnd.ask(self.tree.root, LE0)
        if ge0 is not None and le0 is not None and not self.complete:
            return {}
        return rnd.needed

    def take(self, unit: tuple, result: tuple) -> None:
        answer, nodes, seconds = result
        self.answers[unit] = bool(answer)
        self.sizes[unit] = (int(nodes), float(seconds))
        self.asked += 1
        self.nodes += int(nodes)
        if self.checkpoint is not None:
            _write_checkpoint(self.checkpoint, self.head, self.answers, self.sizes)
        if self.progress is not None:
            self.progress(len(self.answers), self.asked)
        self.check()

    def check(self) -> None:
        if self.budget.expired():
            raise _Stop(TIME)
        if self.limits.max_positions is not None and self.nodes >= self.limits.max_positions:
            raise _Stop(LIMIT)

    def run_here(self, table_bits: int) -> None:
        while True:
            todo = self.needed(1)
            if not todo:
                return
            unit, (board, hand) = next(iter(todo.items()))
            self.take(unit, run_unit(board, hand, self.tree.squares, unit[1], table_bits))

    def run_dask(self, cluster: Any, workers: Optional[int], table_bits: int) -> str:
        from ..cluster import dask_client

        with dask_client(cluster, workers) as client:
            from dask.distributed import wait

            slots = max(1, sum(client.nthreads().values()))
            running: dict = {}
            speculate = 1
            while True:
                todo = self.needed(speculate)
                if not todo and not running:
                    return str(client.scheduler.address) if cluster is not None else f"{slots} local workers"
                for unit, (board, hand) in todo.items():
                    if unit not in running and len(running) < 2 * slots:
                        running[unit] = client.submit(_run_unit_args, (board, hand, self.tree.squares, unit[1],
                                                                        table_bits), pure=False)
                # too little to do: let the or-nodes ask more children at once
                speculate = speculate + 1 if len(running) < slots else max(1, speculate - 1)
                if not running:
                    continue
                try:
                    done, _ = wait(list(running.values()), timeout=0.5, return_when="FIRST_COMPLETED")
                except TimeoutError:  # none finished yet: the limits are checked below
                    done = set()
                for unit, future in list(running.items()):
                    if future in done:
                        del running[unit]
                        self.take(unit, future.result())
                self.check()


# -- the checkpoint ---------------------------------------------------------------------------------

def _digest(head: dict, units: list) -> str:
    """The keyed digest (HMAC-SHA256 under the user's key) of a checkpoint's head and units, in hex."""
    return sign_json({**head, "units": units}, PURPOSE)


def _write_checkpoint(path: str, head: dict, answers: dict, sizes: dict) -> None:
    units = [[f"{key:x}", question, answer, *sizes[(key, question)]]
             for (key, question), answer in sorted(answers.items())]
    write_atomic(path, json.dumps({**head, "units": units, "digest": _digest(head, units)}) + "\n")


def _head(board: Sequence[Optional[int]], piece: Optional[int], squares: bool, split: int) -> dict:
    """What a checkpoint says of the proof it belongs to."""
    return {"format": FORMAT, "board": list(board), "piece": piece, "squares": squares, "split": split}


def check_checkpoint(path: str, board: Sequence[Optional[int]], piece: Optional[int], *, squares: bool = False,
                     split: int = 2) -> int:
    """The number of answers the checkpoint file ``path`` holds for the proof :func:`prove` would make of
    this position with ``split`` (0 when there is no such file yet); :class:`ProofError` when the file
    cannot be read or belongs to another proof. A front end calls it before any long work."""
    if not os.path.exists(path):
        return 0
    return len(_read_checkpoint(path, _head(board, piece, squares, split))[0])


def _read_checkpoint(path: str, head: dict) -> tuple[dict, dict]:
    """The answers and sizes of the checkpoint ``path`` of the proof ``head``: read strictly (the limits of
    every input file), its digest checked; :class:`ProofError` (one line) otherwise."""
    try:
        data = load_json(read_input(path))
    except InputRefused as err:
        raise ProofError(f"checkpoint {path}: {err}") from None
    except OSError as err:
        raise ProofError(f"checkpoint {path}: cannot read it ({err.strerror or err})") from None
    if isinstance(data, dict) and data.get("format") == "quaternity-quarto-proof-1":
        raise ProofError(f"checkpoint {path}: written by an older version (with no digest): give another file")
    if isinstance(data, dict) and data.get("format") == "quaternity-quarto-proof-2":
        raise ProofError(f"checkpoint {path}: written by an older version (with a plain digest, which whoever edits "
                         "the file computes again): give another file")
    if not isinstance(data, dict) or any(data.get(k) != v for k, v in head.items()):
        raise ProofError(f"checkpoint {path}: it is not a proof of this position with split {head['split']} "
                         "(give another file, or the same position and --split)")
    units = data.get("units")
    if set(data) != set(head) | {"units", "digest"} or not isinstance(units, list) \
            or not verify_json(data.get("digest"), {**head, "units": units}, PURPOSE):
        raise ProofError(f"checkpoint {path}: its digest does not match its answers (the file was edited, damaged "
                         "or forged, or written under another user's key): give another file")
    answers, sizes = {}, {}
    for i, unit in enumerate(units, 1):
        if not (isinstance(unit, list) and len(unit) == 5 and _unit_ok(*unit)):
            raise ProofError(f"checkpoint {path}: unit {i} is not [key, question, answer, nodes, seconds]")
        key, question, answer, nodes, seconds = unit
        answers[(int(key, 16), question)] = answer
        sizes[(int(key, 16), question)] = (nodes, float(seconds))
    return answers, sizes


def _unit_ok(key: Any, question: Any, answer: Any, nodes: Any, seconds: Any) -> bool:
    """A unit of a checkpoint: a canonical key in hex, ``ge0`` or ``le0``, a bool, nodes and seconds >= 0."""
    return (isinstance(key, str) and 0 < len(key) <= 32 and all(c in "0123456789abcdef" for c in key)
            and question in (GE0, LE0) and isinstance(answer, bool)
            and isinstance(nodes, int) and not isinstance(nodes, bool) and nodes >= 0
            and isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and math.isfinite(seconds)
            and seconds >= 0)


__all__ = ["prove", "check_checkpoint", "run_unit", "ProofResult", "ProofError", "TopTree", "GE0", "LE0", "TABLE_BITS"]
