"""Quaternity's partitioned solver against the in-memory one as starts grow: ``python benchmarks/solve_scale.py``.

Not a test. Run from the project root::

    python benchmarks/solve_scale.py                          # the default starts (about half a minute)
    python benchmarks/solve_scale.py --large                  # and 6x2x3 (70,177 positions in memory; 4 minutes more)
    python benchmarks/solve_scale.py --starts 3x2x3,4x4x2 --preset blind --parts 8

For each start ``PxNxS`` (P players, N sets of S cards, under the rule preset ``--preset``) it builds, in the
same run:

- the partitioned graph (:func:`quaternity_cp.partitioned.build` of
  :class:`~quaternity_cp.quartets.packed.QuaternityPacked`, in ``--parts`` parts, every task in this process one
  after the other, in a temporary folder removed afterwards);
- the in-memory solver's graph of the same start (:class:`~quaternity_cp.quartets.solver.graph.GameGraph`: every
  reachable position, finished games included, as canonical keys with successor lists);

and prints three tables, each figure measured in this run:

1. **bytes per stored position**: the checkpoint's part files (every ``keys``, ``out`` and ``edges`` file the
   manifest lists: keys, owners, degrees, plies that end the game and every edge) divided by its positions,
   the keys alone (``width`` words of 8 bytes), and the in-memory graph's peak of Python's allocations
   (:mod:`tracemalloc`, above what was held before its build: the graph and the solver's caches) divided by
   its positions. Goal: at most 32 bytes a position.
2. **positions per second**: the partitioned build's (``Built.seconds``, without tracemalloc; its expansion
   compiled, :mod:`quaternity_cp.quartets.packed_nb`), the same build by the Python path (``kernel="python"``:
   the kernel's gain) and the in-memory build's (timed in a first build, its memory measured in a second), each on its own count: the packed
   solver removes seat rotations and keeps no finished games, so it stores fewer positions of the same start;
   and the compiled build again with its expansion on ``--threads`` threads (every core by default: the tasks in
   this process, as ``solve --checkpoint DIR --workers 0 --threads N`` runs them; the in-memory build has one
   thread). Goal: the partitioned build (the better of the two) at least 50 times the in-memory one. Beside it,
   the time ratio: the in-memory build's seconds over the partitioned build's (how much sooner the same start's
   graph is built, whatever each solver counts as a position); it is not the goal.
3. **attractor memory**: the peak of Python's allocations of the whole-graph attractor
   (``partitioned.attract(built)``: every array of the graph at once) and the largest peak of one task of the
   partitioned one (``attract(built, partitioned=True)``: what one worker holds at once), the whole divided by
   the parts beside it. Goal: a worker's peak at most the whole divided by the parts plus a constant; the
   constant is a task's peak on the smallest graph (2x4x2, four positions, in as many parts), measured here.

The goals are checked at the start with the most partitioned positions. Memory is what :mod:`tracemalloc` sees:
numpy's arrays and Python's objects, not what numba's compiled code allocates inside itself (the whole-graph
attractor's counters, one byte per position and seat; the build's hash table). Times are wall-clock, so only
their ratio, measured in this run, means anything on another machine.
"""

from __future__ import annotations

import argparse
import gc
import math
import shutil
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from quaternity_cp import partitioned as pt
from quaternity_cp.quartets.game import Game
from quaternity_cp.quartets.packed import PackedError, QuaternityPacked, check_start
from quaternity_cp.quartets.position import Position
from quaternity_cp.quartets.rules import PRESETS, Rules
from quaternity_cp.quartets.solver.core import Context
from quaternity_cp.quartets.solver.graph import GameGraph
from quaternity_cp.retrograde import Ranks, TaskDone
from quaternity_cp.threads import available_cores, check_threads

#: the default starts, smallest first (about half a minute together on one core)
STARTS = ["2x4x2", "3x3x2", "4x2x2", "3x2x3", "4x4x2", "3x3x3"]
#: added by --large: 16,621 packed positions (10 s to build), 70,177 in memory (30 s; 3 minutes under tracemalloc)
LARGE = ["6x2x3"]
#: the smallest graph: its partitioned attractor's task peak is the goal's constant
SMALLEST = (2, 4, 2)

#: the goals
BYTES_GOAL = 32
SPEED_GOAL = 50.0


@dataclass
class Row:
    """One start's figures."""

    start: str
    parts: int
    positions: int  # the partitioned graph's
    edges: int
    width: int
    file_bytes: int
    build_s: float
    python_s: float  # the same build by the Python path (kernel="python")
    threaded_s: float  # the same build with the compiled expansion on ``threads`` threads
    threads: int
    graph_positions: int  # the in-memory graph's
    graph_s: float
    graph_bytes: int
    whole_peak: int
    task_peak: int
    task: str  # the kind of task of the largest peak (prepare, send, apply)
    same: bool


def peak_of(fn: Callable[[], Any]) -> tuple[Any, int]:
    """``fn()``'s result and the peak of the memory it allocated (tracemalloc, above what was held before)."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        got = fn()
        return got, tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def measuring_runner(peaks: list[tuple[int, str]]) -> pt.Runner:
    """A runner of the tasks here, one after the other, that appends each task's peak memory (above what was
    held before it) and its kind to ``peaks`` (tracemalloc must be on)."""
    def run(calls: list[tuple[Callable[..., Any], tuple[Any, ...]]], done: TaskDone | None = None) -> list[Any]:
        out = []
        for i, (fn, args) in enumerate(calls):
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            out.append(fn(*args))
            peaks.append((tracemalloc.get_traced_memory()[1] - base, fn.__name__.removesuffix("_task")))
            if done is not None:
                done(i, out[-1])
        return out
    return run


def task_peak(built: pt.Built) -> tuple[pt.Attractor, tuple[int, str]]:
    """The partitioned attractor of ``built`` and the largest peak of one of its tasks, with the task's kind."""
    peaks: list[tuple[int, str]] = []
    gc.collect()
    tracemalloc.start()
    try:
        att = pt.attract(built, partitioned=True, run=measuring_runner(peaks))
    finally:
        tracemalloc.stop()
    return att, max(peaks)


def graph_of(P: int, N: int, S: int, rules: Rules) -> Callable[[], GameGraph]:
    """A function that builds the in-memory solver's graph of the start (every reachable position)."""
    def build() -> GameGraph:
        ctx = Context(Game(P, N, S), rules, "sets")
        g = GameGraph(ctx)
        root = ctx.describe(Position(ctx.game, rules, engine=ctx.engine).state)
        g.build(ctx.search_root(root))
        return g
    return build


def parse_start(text: str, rules: Rules) -> tuple[int, int, int]:
    """``PxNxS`` as (P, N, S), a start the packed solver takes (else ValueError)."""
    try:
        P, N, S = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"{text!r}: a start is PxNxS (players, sets, cards a set), e.g. 3x3x3") from None
    try:
        return check_start(P, N, S, rules)
    except PackedError as err:
        raise ValueError(str(err)) from None


def bench(P: int, N: int, S: int, rules: Rules, parts: int, threads: int, with_python: bool = True) -> Row:
    packed = QuaternityPacked(P, N, S, rules)
    folder = tempfile.mkdtemp(prefix="solve_scale-")
    try:
        began = time.perf_counter()
        built = pt.build(packed, folder, parts=parts)
        wall = time.perf_counter() - began
        file_bytes = sum(int(entry[0]) for entry in built.files.values())
        whole, whole_peak = peak_of(lambda: pt.attract(built))
        part, (most, kind) = task_peak(built)
        assert isinstance(part.ranks, Ranks) and isinstance(whole.ranks, np.ndarray)
        same = bool(np.array_equal(part.ranks.dense(), whole.ranks)) and part.root == whole.root
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    python_s = math.nan
    folder = tempfile.mkdtemp(prefix="solve_scale-")
    try:  # the same graph by the Python path: the compiled kernel's gain, measured in this run
        if with_python:
            began = time.perf_counter()
            slow = pt.build(QuaternityPacked(P, N, S, rules, kernel="python"), folder, parts=parts)
            python_s = slow.seconds if slow.seconds > 0 else time.perf_counter() - began
            assert (slow.positions, slow.edges) == (built.positions, built.edges)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    threaded_s = built.seconds if built.seconds > 0 else wall
    if threads > 1 and packed.compiled:  # the same build, the kernel on every core (--workers 0 --threads N)
        folder = tempfile.mkdtemp(prefix="solve_scale-")
        try:
            began = time.perf_counter()
            many = pt.build(QuaternityPacked(P, N, S, rules, threads=threads), folder, parts=parts)
            threaded_s = many.seconds if many.seconds > 0 else time.perf_counter() - began
            assert (many.positions, many.edges) == (built.positions, built.edges)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    make = graph_of(P, N, S, rules)
    gc.collect()
    began = time.perf_counter()
    g = make()
    graph_s = time.perf_counter() - began
    count = len(g)
    del g
    g2, graph_bytes = peak_of(make)
    assert len(g2) == count
    del g2
    return Row(f"{P}x{N}x{S}", parts, built.positions, built.edges, packed.width, file_bytes,
               built.seconds if built.seconds > 0 else wall, python_s, threaded_s,
               threads if threads > 1 and packed.compiled else 1, count, graph_s, graph_bytes, whole_peak, most, kind, same)


def smallest_task_peak(rules: Rules, parts: int) -> int:
    """The partitioned attractor's largest task peak on the smallest graph (numba's code loaded, numpy warm, and
    the in-memory solver's imports done, before any clock runs)."""
    P, N, S = SMALLEST
    folder = tempfile.mkdtemp(prefix="solve_scale-")
    try:
        built = pt.build(QuaternityPacked(P, N, S, rules), folder, parts=parts)
        pt.attract(built)
        pt.attract(built, partitioned=True)
        shutil.rmtree(f"{folder}/{pt.ATTRACTOR_FOLDER}")
        _, (most, _) = task_peak(built)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    graph_of(P, N, S, rules)()
    return most


def kb(n: float) -> str:
    return f"{n / 1024:,.1f}"


def table(head: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    print("  ".join(h.rjust(w) for h, w in zip(head, widths)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths)))
    print()


def met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def report(rows: list[Row], constant: int, preset: str) -> None:
    print()
    print(f"1. bytes per stored position (goal: at most {BYTES_GOAL})")
    table(["start", "positions", "part files B", "B/pos files", "B/pos keys", "in-memory positions",
           "in-memory peak KB", "B/pos in-memory"],
          [[r.start, f"{r.positions:,}", f"{r.file_bytes:,}", f"{r.file_bytes / r.positions:,.1f}",
            f"{r.width * 8}", f"{r.graph_positions:,}", kb(r.graph_bytes),
            f"{r.graph_bytes / r.graph_positions:,.1f}"] for r in rows])
    print(f"2. positions per second (goal: partitioned / in-memory at least {SPEED_GOAL:g}x)")
    table(["start", "positions", "edges", "partitioned s", "partitioned pos/s", "Python path s", "kernel gain",
           "in-memory positions", "in-memory s", "in-memory pos/s", "ratio",
           f"on {rows[0].threads} threads s", "ratio on threads", "time ratio"],
          [[r.start, f"{r.positions:,}", f"{r.edges:,}", f"{r.build_s:.2f}", f"{r.positions / r.build_s:,.0f}",
            *([f"{r.python_s:.2f}", f"{r.python_s / r.build_s:.1f}x"] if not math.isnan(r.python_s)
              else ["not run", "-"]),
            f"{r.graph_positions:,}", f"{r.graph_s:.2f}", f"{r.graph_positions / r.graph_s:,.0f}",
            f"{speed(r):.2f}x", f"{r.threaded_s:.2f}", f"{speed(r, True):.2f}x",
            f"{r.graph_s / min(r.build_s, r.threaded_s):.1f}x"] for r in rows])
    print("   (time ratio: the in-memory build's seconds over the partitioned build's, the better of one thread and\n"
          "   every core: the same start's whole graph, each solver counting its own positions; the goal is the\n"
          "   ratio of positions per second, where the partitioned solver's fewer positions count against it)\n")
    print("3. attractor memory, tracemalloc peak (goal: a worker's peak at most whole / parts + "
          f"{kb(constant)} KB, a task's peak on {'x'.join(map(str, SMALLEST))})")
    table(["start", "positions", "parts", "whole KB", "whole / parts KB", "one task at most KB", "its task",
           "task / whole", "same ranks"],
          [[r.start, f"{r.positions:,}", str(r.parts), kb(r.whole_peak), kb(r.whole_peak / r.parts),
            kb(r.task_peak), r.task, f"{r.task_peak / r.whole_peak:.2f}", "yes" if r.same else "NO"] for r in rows])
    big = max(rows, key=lambda r: r.positions)
    per = big.file_bytes / big.positions
    print(f"goals at the largest start, {big.start} under {preset} ({big.positions:,} positions in {big.parts} "
          "parts):")
    print(f"- bytes a position at most {BYTES_GOAL}: {met(per <= BYTES_GOAL)} (part files {per:,.1f} B; keys "
          f"alone {big.width * 8} B; in-memory {big.graph_bytes / big.graph_positions:,.1f} B)")
    best = max(speed(big), speed(big, True))
    print(f"- positions per second at least {SPEED_GOAL:g}x the in-memory build's: {met(best >= SPEED_GOAL)} "
          f"({speed(big):.2f}x on one thread, {speed(big, True):.2f}x on {big.threads}; the same start's graph "
          f"{big.graph_s / min(big.build_s, big.threaded_s):.1f}x sooner)")
    bound = big.whole_peak / big.parts + constant
    print(f"- attractor peak per worker at most whole / parts + constant: {met(big.task_peak <= bound)} "
          f"({kb(big.task_peak)} KB against {kb(big.whole_peak / big.parts)} + {kb(constant)} = {kb(bound)} KB; "
          f"whole {kb(big.whole_peak)} KB)")


def speed(r: Row, threaded: bool = False) -> float:
    """The partitioned build's positions per second over the in-memory build's (``threaded``: the build whose
    kernel ran on every core; the in-memory build has one)."""
    return (r.positions / (r.threaded_s if threaded else r.build_s)) / (r.graph_positions / r.graph_s)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", default=None,
                        help=f"starts PxNxS, comma-separated (default {','.join(STARTS)})")
    parser.add_argument("--large", action="store_true", help=f"add {', '.join(LARGE)} (about 4 minutes more)")
    parser.add_argument("--preset", default="quaternity", choices=sorted(PRESETS),
                        help="the rule preset (default quaternity; the packed solver takes no dealt cards)")
    parser.add_argument("--parts", type=int, default=4, help="parts of each partitioned graph (default 4)")
    parser.add_argument("--threads", type=int, default=available_cores(),
                        help="threads of the compiled expansion in the third build (default: every core this "
                             "process may use; 1: no third build)")
    parser.add_argument("--no-python", action="store_true",
                        help="no build by the Python path (its column left empty: the kernel's gain is not measured; "
                             "at 3x3x4 it saves about five minutes)")
    args = parser.parse_args()
    rules = Rules.preset(args.preset)
    texts = [s.strip() for s in args.starts.split(",") if s.strip()] if args.starts else list(STARTS)
    texts += LARGE if args.large else []
    try:
        starts = [parse_start(t, rules) for t in texts]
        pt.check_parts(args.parts)
        check_threads(args.threads)
    except (ValueError, pt.PartitionedError) as err:
        parser.error(str(err))
    if not starts:
        parser.error("no start given")
    kernel = "numba" if QuaternityPacked(2, 2, 2, rules).compiled else "python (numba is not installed)"
    print(f"preset {args.preset}, {args.parts} parts, numba: {'yes' if pt.HAVE_NUMBA else 'no'}, "
          f"Quaternity's expansion: {kernel}")
    constant = smallest_task_peak(rules, args.parts)
    rows = []
    for P, N, S in starts:
        began = time.perf_counter()
        row = bench(P, N, S, rules, args.parts, args.threads, not args.no_python)
        print(f"  {row.start}: {row.positions:,} partitioned positions, {row.graph_positions:,} in memory "
              f"({time.perf_counter() - began:.1f} s)", flush=True)
        rows.append(row)
    report(rows, constant, args.preset)


if __name__ == "__main__":
    main()
