"""The partitioned attractor against the whole-graph one: ``python benchmarks/retrograde.py [--parts N] [--large]``.

For a few Quantum Go Fish starts it builds the packed graph once (:mod:`quaternity_cp.gofish.bigsolve`, in
``--parts`` parts, in this process; not timed), then runs on it, in the same run:

- the whole-graph attractor (``bigsolve.attract``: one process, every array of the graph at once);
- the partitioned attractor (``bigsolve.attract(..., partitioned=True)``: :mod:`quaternity_cp.retrograde`, in
  rounds, part by part, every task in this process one after the other);

and prints the positions, edges and rounds, each one's time and their ratio, the whole-graph attractor's peak
memory, and the partitioned one's largest peak of one task (what one worker holds at once: its part's arrays
and a round's messages), with the whole divided by the parts beside it. Memory is Python's own count
(:mod:`tracemalloc`: numpy's arrays and the files' buffers), measured in a second run of each (the clock runs
without it). The ranks of both are compared, and the answer at the start.

``--large`` adds the 3-player start with suits of 5 (196,860 positions) and the 4-player start with suits of 3
(1.9 million positions; a minute and a half to build with numba, in this process). Without numba (the ``[fast]`` extra) the whole-graph attractor runs as plain Python and the partitioned
one as numpy: their time ratio then says more about that than about the partitioning.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
import tracemalloc
from typing import Any, Callable

import numpy as np

from quaternity_cp import retrograde
from quaternity_cp.retrograde import TaskDone
from quaternity_cp.gofish import bigsolve
from quaternity_cp.gofish.fastgraph import HAVE_NUMBA, Shape

STARTS: list[tuple[int, int, dict[str, Any]]] = [(3, 3, {}), (4, 2, {}), (4, 2, {"four": "off"}), (3, 4, {})]
LARGE: list[tuple[int, int, dict[str, Any]]] = [(3, 5, {}), (4, 3, {})]


def peak_of(fn: Callable[[], Any]) -> tuple[Any, int]:
    """``fn()``'s result and the peak of the memory it allocated (tracemalloc, above what was held before)."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        got = fn()
        return got, tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def measuring_runner(peaks: dict[str, list[int]]) -> bigsolve.Runner:
    """A runner of the tasks here, one after the other, that records each task's peak memory (above the
    driver's own) in ``peaks``, by the task's name."""
    def run(calls: list[tuple[Callable[..., Any], tuple[Any, ...]]], done: TaskDone | None = None) -> list[Any]:
        out = []
        for i, (fn, args) in enumerate(calls):
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            out.append(fn(*args))
            peaks.setdefault(fn.__name__.removesuffix("_task"), []).append(tracemalloc.get_traced_memory()[1] - base)
            if done is not None:
                done(i, out[-1])
        return out
    return run


def mb(n: float) -> str:
    return f"{n / 2**20:,.2f} MB"


def bench(players: int, suit_size: int, rules: dict[str, Any], parts: int) -> None:
    shape = Shape.of(players, players, suit_size, rules)
    parts = min(parts, bigsolve.max_parts(shape))
    with tempfile.TemporaryDirectory() as folder:
        built = bigsolve.build(shape, folder, parts=parts)
        start = time.perf_counter()
        whole = bigsolve.attract(built)
        whole_s = time.perf_counter() - start
        start = time.perf_counter()
        part = bigsolve.attract(built, partitioned=True)
        part_s = time.perf_counter() - start
        assert isinstance(part.ranks, retrograde.Ranks) and isinstance(whole.ranks, np.ndarray)
        same = np.array_equal(part.ranks.dense(), whole.ranks) and part.seats == whole.seats
        rounds = part.ranks.rounds
        _, whole_peak = peak_of(lambda: bigsolve.attract(built))
        peaks: dict[str, list[int]] = {}
        shutil.rmtree(os.path.join(folder, bigsolve.ATTRACTOR_FOLDER))  # (every round run again, measured)
        tracemalloc.start()
        try:
            bigsolve.attract(built, partitioned=True, run=measuring_runner(peaks))
        finally:
            tracemalloc.stop()
    named = ",".join(f"{k}={v}" for k, v in rules.items()) or "default"
    print(f"{players} players, suits of {suit_size}, {named}: {built.positions:,} positions, {whole.edges:,} edges, "
          f"{parts} parts, {rounds} rounds; same ranks and answer: {same}")
    print(f"  time: whole {whole_s:.2f} s, partitioned {part_s:.2f} s (ratio partitioned / whole "
          f"{part_s / whole_s:.1f})")
    most = max(max(p) for p in peaks.values())
    kinds = ", ".join(f"{name} {mb(max(p))}" for name, p in peaks.items())
    print(f"  peak memory: whole {mb(whole_peak)}; partitioned, one task at most {mb(most)} (the whole / "
          f"{parts} parts: {mb(whole_peak / parts)}; ratio to the whole {most / whole_peak:.2f}); by task: {kinds}; "
          f"{sum(len(p) for p in peaks.values())} tasks")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", type=int, default=8, help="parts of each graph (default 8; fewer where the "
                                                             "start's size calls for fewer)")
    parser.add_argument("--large", action="store_true", help="add the 3-player start with suits of 5 and the "
                                                                    "4-player start with suits of 3")
    args = parser.parse_args()
    print(f"numba: {'yes' if HAVE_NUMBA else 'no (the whole-graph attractor runs as plain Python)'}")
    with tempfile.TemporaryDirectory() as folder:  # (numba's code loaded, and numpy warm, before any clock runs)
        bigsolve.solve(2, None, folder, parts=2, workers=0, attractor="partitioned")
        bigsolve.attract(bigsolve.build(Shape.of(2, 2, 4, None), folder, parts=2))
    for players, suit_size, rules in STARTS + (LARGE if args.large else []):
        bench(players, suit_size, rules, args.parts)


if __name__ == "__main__":
    main()
