"""Unique-answer puzzles per minute: ``puzzle generate`` at 3 x 3 x 3 and 3 x 4 x 3, in a process pool.

Not a test. Run from the project root::

    python benchmarks/puzzles.py                      # quartet puzzles, 2 workers against 1, about 20 s
    python benchmarks/puzzles.py --goal win --count 20
    python benchmarks/puzzles.py --difficulty medium

For each size it generates ``--count`` puzzles (seed 1, the default options of
``puzzle generate``: random agents, K in the default range, every puzzle solved,
checked for uniqueness, explained and graded) with one worker (in this process)
and with ``--workers`` processes (a pool, its start-up included), prints the
puzzles per minute of each (wall clock) and the ratio of the pool against one
worker; then the same from the first puzzle found to the last (the pool's
start-up left out: its processes, their imports and tables, about two seconds).
The first line says what the machine gives a pool now: a plain CPU loop's speed-up
on the same number of processes (2 on two free cores, less when other jobs share them). The goal is at least 10 puzzles a minute at both sizes on two cores. The
two runs must write the same puzzles: the script checks that they do.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from quaternity_cp.quartets.puzzles.generate import GenerateOptions, generate

SIZES = [(3, 3, 3), (3, 4, 3)]
GOAL = 10.0  # puzzles a minute, at least


def run(opts: GenerateOptions, count: int, jobs: int) -> tuple[float, float, list]:
    """(seconds, seconds from the first puzzle found to the last, the puzzles made: (record, answer) in order)."""
    made: list = []
    times: list[float] = []

    def found(name: str, record: dict, answer: dict) -> None:
        made.append((record, answer))
        times.append(time.perf_counter())

    start = time.perf_counter()
    generate(opts, 1, count, jobs=jobs, found=found)
    return time.perf_counter() - start, times[-1] - times[0], made


def _burn(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def machine_ratio(workers: int) -> float:
    """What ``workers`` processes get on this machine now: a plain CPU loop's speed-up over one process
    (2 on two free cores; less when other jobs share them)."""
    from concurrent.futures import ProcessPoolExecutor

    n, units = 2_000_000, 4 * workers
    start = time.perf_counter()
    for _ in range(units):
        _burn(n)
    one = time.perf_counter() - start
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(_burn, [10] * workers))  # started
        start = time.perf_counter()
        list(pool.map(_burn, [n] * units))
        many = time.perf_counter() - start
    return one / many


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=60, help="puzzles per run")
    parser.add_argument("--workers", type=int, default=2, help="processes of the pool")
    parser.add_argument("--goal", choices=("quartet", "win"), default="quartet")
    parser.add_argument("--difficulty", choices=("easy", "medium", "hard", "expert"), default=None)
    args = parser.parse_args()
    print(f"goal {args.goal}, {args.count} puzzles per run, difficulty {args.difficulty or 'any'}, "
          f"{os.cpu_count()} CPUs; a plain CPU loop on {args.workers} processes runs "
          f"{machine_ratio(args.workers):.2f} times as fast as on one here now")
    worst = None
    for size in SIZES:
        opts = GenerateOptions(*size, goal=args.goal, difficulty=args.difficulty)
        one, steady1, made1 = run(opts, args.count, 1)
        pool, steady2, made2 = run(opts, args.count, args.workers)
        if made1 != made2:
            raise SystemExit("the pool made other puzzles than one worker: not reproducible")
        per_one, per_pool = 60 * len(made1) / one, 60 * len(made2) / pool
        # after the first puzzle: the pool's start-up (its processes, their imports and tables) left out
        after1, after2 = 60 * (len(made1) - 1) / steady1, 60 * (len(made2) - 1) / steady2
        worst = per_pool if worst is None else min(worst, per_pool)
        print(f"{size[0]} x {size[1]} x {size[2]}: {len(made1)} puzzles; 1 worker {one:.1f} s "
              f"({per_one:,.0f}/min); {args.workers} workers {pool:.1f} s ({per_pool:,.0f}/min); "
              f"ratio {per_pool / per_one:.2f}; after the first puzzle {after1:,.0f}/min and "
              f"{after2:,.0f}/min, ratio {after2 / after1:.2f}")
    assert worst is not None
    print(f"slowest: {worst:,.0f} puzzles a minute on {args.workers} workers "
          f"({'meets' if worst >= GOAL else 'BELOW'} the goal of {GOAL:g})")


if __name__ == "__main__":
    main()
