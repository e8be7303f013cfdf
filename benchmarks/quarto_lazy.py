"""Whole-process time of ``quaternity quarto solve FILE``: the default (the Python search first, the compiled
kernel loaded only past ``SWITCH_NODES`` nodes) against ``--kernel python``, on the same positions.

For each number of empty cells, random reachable positions from careful random play
(``benchmarks/quarto_solve.py``'s ``random_position``) are written to position files and solved by the
command in a new process each time, both ways, in alternation; the time is the wall clock of the whole
process (start-up, imports, numba's loading, the search, the output) and its CPU time (user + system, the
loading thread included), the least of ``--repeat`` runs each way (the machine may be shared: the least is
the one least disturbed). ``--kernel python`` runs are stopped at ``--python-cap`` seconds (``--max-seconds``:
the ratio is then an upper bound, "<"). The ratio is default time over Python time: below 1 the default is
faster; the claim is that it never goes much above 1. The values must agree. Numba's cache is assumed warm
(run the command once first: a fresh install compiles the kernel once, about ``COMPILE_SECONDS``).
Usage::

    python benchmarks/quarto_lazy.py --empty 4-12 --positions 5 --repeat 3
    python benchmarks/quarto_lazy.py --empty 13-14 --positions 3 --repeat 1 --python-cap 30
    python benchmarks/quarto_lazy.py --empty 10-11 --positions 3 --min-nodes 600000   # the worst band

Prints a Markdown table (for docs/quarto.md).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from quarto_solve import empty_counts, random_position  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def position_file(folder: str, board, hand, index: int) -> str:
    """A position file of the solver's ``board`` and ``hand``."""
    from quaternity_cp.quarto import Piece

    rows = [[None if p is None else Piece(p).name for p in board[r * 4:r * 4 + 4]] for r in range(4)]
    placed = sum(p is not None for p in board)
    path = os.path.join(folder, f"position{index}.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({"game": "quarto", "board": rows, "piece": Piece(hand).name, "to_move": (placed + 1) % 2}, fh)
    return path


def run(path: str, *options: str) -> tuple[dict, float, float]:
    """``quaternity quarto solve PATH --json OPTIONS`` in a new process: its JSON, wall and CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "cli", "quarto", "solve", path, "--json", *options], cwd=ROOT,
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"{path}: exit {out.returncode}: {out.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(out.stdout), wall, cpu


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--empty", default="4-14", help="empty cells: 'A-B' or a comma list (default 4-14)")
    parser.add_argument("--positions", type=int, default=5, help="positions per row (default 5)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--python-cap", type=float, default=60.0, help="--max-seconds of the --kernel python runs")
    parser.add_argument("--repeat", type=int, default=3, help="runs each way; the least time counts (default 3)")
    parser.add_argument("--min-nodes", type=int, default=0,
                        help="only positions whose Python search takes at least this many nodes (the band just past "
                             "switch_nodes(): the default's worst case)")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    from quaternity_cp.quarto.solver import OPEN_EMPTY, SWITCH_NODES, SWITCH_NODES_OPEN, solve

    print(f"# {args.positions} positions per row, seed {args.seed}, kernel loaded from {SWITCH_NODES:,} nodes "
          f"({SWITCH_NODES_OPEN:,} from {OPEN_EMPTY} empty cells), least of {args.repeat} runs, "
          f"Python cap {args.python_cap:g} s (whole-process wall clock and CPU seconds)", file=sys.stderr)
    print("| empty cells | values (W/D/L) | median nodes (Python) | default: median s | max s "
          "| --kernel python: median s | max s | ratio: median | max | CPU ratio: median | max |")
    print("|---:|:---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    worst = 0.0
    with tempfile.TemporaryDirectory() as folder:
        for empty in empty_counts(args.empty):
            rows = []
            for i in range(args.positions):
                board, hand = random_position(rng, empty)
                while args.min_nodes and solve(board, hand, kernel="python", max_nodes=4 * args.min_nodes,
                                               max_seconds=args.python_cap).nodes < args.min_nodes:
                    board, hand = random_position(rng, empty)
                path = position_file(folder, board, hand, i)
                t_auto = c_auto = t_slow = c_slow = float("inf")
                for _ in range(args.repeat):  # in alternation, the least of each
                    auto, wall, cpu = run(path)
                    t_auto, c_auto = min(t_auto, wall), min(c_auto, cpu)
                    slow, wall, cpu = run(path, "--kernel", "python", "--max-seconds", str(args.python_cap))
                    t_slow, c_slow = min(t_slow, wall), min(c_slow, cpu)
                capped = slow["status"] != "solved"
                if not capped:
                    assert auto["value"] == slow["value"], (board, hand)
                rows.append((auto, t_auto, c_auto, slow, t_slow, c_slow, capped))
                print(f"  {empty} empty: {auto['value']} {t_auto:.3f}s ({c_auto:.3f} CPU) {auto['nodes']:,} nodes | "
                      f"python {slow['value']} {t_slow:.3f}s ({c_slow:.3f} CPU) {slow['nodes']:,}",
                      file=sys.stderr, flush=True)
            med = statistics.median
            counts = "/".join(str(sum(1 for r in rows if r[0]["value"] == v)) for v in ("win", "draw", "loss"))
            low = ">" if any(r[6] for r in rows) else ""
            high = "<" if low else ""
            ratios = [r[1] / r[4] for r in rows]
            cpu_ratios = [r[2] / max(r[5], 1e-9) for r in rows]
            worst = max(worst, max(ratios))
            nodes = med(r[3]["nodes"] for r in rows)
            print(f"| {empty} | {counts} | {low}{nodes:,.0f} | {med(r[1] for r in rows):.3f} "
                  f"| {max(r[1] for r in rows):.3f} | {low}{med(r[4] for r in rows):.3f} "
                  f"| {max(r[4] for r in rows):.3f} | {high}{med(ratios):.2f} | {max(ratios):.2f} "
                  f"| {high}{med(cpu_ratios):.2f} | {max(cpu_ratios):.2f} |", flush=True)
    print(f"# the largest ratio (default / --kernel python, wall clock): {worst:.2f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
