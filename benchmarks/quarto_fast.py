"""The compiled Quarto search (numba) against the pure-Python one, on the same positions, in the same run.

For each number of empty cells, random reachable positions from careful
random play (``benchmarks/quarto_solve.py``'s ``random_position``) are solved by
:func:`quaternity_cp.quarto.solver.solve` with ``kernel="fast"`` and, up to
``--python-max`` empty cells, with ``kernel="python"`` (stopped after
``--python-cap`` CPU seconds: the ratio is then a lower bound, ">"); the ratio is
given as the median of the positions' ratios and as total Python time over total
compiled time (where positions solved at once weigh little). The values
must agree. Times are CPU seconds of this process (``time.process_time``: the
machine may be shared). Before the table it prints the cost of the first call
in a new process: loading numba and the compiled code from its cache, and
compiling it without a cache (``NUMBA_CACHE_DIR`` set to an empty folder).
Usage::

    python benchmarks/quarto_fast.py --empty 10-13 --positions 5 --python-cap 60
    python benchmarks/quarto_fast.py --empty 10-12 --squares

Prints a Markdown table (for docs/performance.md).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from quarto_solve import cpu, empty_counts, random_position  # noqa: E402

from quaternity_cp.quarto.solver import solve  # noqa: E402

FIRST_CALL = """
import time
start = time.perf_counter()
from quaternity_cp.quarto.solver import solve
r = solve([None] * 15 + [0], 1, kernel="fast", max_nodes=1)
print(time.perf_counter() - start)
"""


def first_call(cache: bool) -> float:
    """Seconds from nothing to the first solve in a new process (with numba's cache, or without one)."""
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as folder:
        if not cache:
            env["NUMBA_CACHE_DIR"] = folder
        out = subprocess.run([sys.executable, "-c", FIRST_CALL], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--empty", default="10-13", help="empty cells: 'A-B' or a comma list (default 10-13)")
    parser.add_argument("--positions", type=int, default=5, help="positions per row (default 5)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--squares", action="store_true", help="the squares variant")
    parser.add_argument("--python-cap", type=float, default=60.0, help="CPU seconds before the Python search stops")
    parser.add_argument("--python-max", type=int, default=13, help="the Python search up to this many empty cells")
    parser.add_argument("--max-seconds", type=float, default=600.0, help="time limit of each fast solve")
    parser.add_argument("--no-first-call", action="store_true", help="skip the first-call measurement")
    args = parser.parse_args(argv)
    empties = empty_counts(args.empty)
    import random

    rng = random.Random(args.seed)
    if not args.no_first_call:
        print(f"first call in a new process: {first_call(True):.2f} s with numba's cache, "
              f"{first_call(False):.2f} s compiling (no cache)", flush=True)
    for kernel in ("fast", "python"):  # compiled (or loaded), and the variant's tables built, before timing
        solve([None] * 15 + [0], 1, squares=args.squares, kernel=kernel, max_nodes=10_000)
    print(f"# {args.positions} positions per row, seed {args.seed}, {'squares' if args.squares else 'standard'}, "
          f"Python cap {args.python_cap:g} s (CPU seconds)", file=sys.stderr)
    print("| empty cells | values (W/D/L) | fast: median s | max s | median nodes | nodes/s "
          "| Python: median s | ratio (median) | ratio (total) |")
    print("|---:|:---:|---:|---:|---:|---:|---:|---:|---:|")
    for empty in empties:
        rows = []
        for _ in range(args.positions):
            board, hand = random_position(rng, empty, args.squares)
            fast, t_fast = cpu(solve, board, hand, squares=args.squares, kernel="fast", max_seconds=args.max_seconds)
            slow, t_slow = None, None
            if empty <= args.python_max:
                slow, t_slow = cpu(solve, board, hand, squares=args.squares, kernel="python",
                                   max_seconds=args.python_cap)
                if slow.proven and fast.proven:
                    assert slow.value == fast.value, (board, hand)
            rows.append((fast, t_fast, slow, t_slow))
            print(f"  {empty} empty: {fast.verdict} {t_fast:.3f}s {fast.nodes:,} nodes"
                  + ("" if slow is None else f" | python {slow.verdict} {t_slow:.3f}s {slow.nodes:,}"),
                  file=sys.stderr, flush=True)
        counts = "/".join(str(sum(1 for r in rows if r[0].value == v)) for v in ("win", "draw", "loss"))
        unproven = sum(1 for r in rows if not r[0].proven)
        if unproven:
            counts += f" ({unproven} unproven)"
        med = statistics.median
        t_f = med(r[1] for r in rows)
        nodes = med(r[0].nodes for r in rows)
        rate = sum(r[0].nodes for r in rows) / max(1e-9, sum(r[1] for r in rows))
        timed = [(t_fast, slow, t_slow) for _, t_fast, slow, t_slow in rows if slow is not None and t_slow is not None]
        if timed:  # the python kernel ran too (every row of these sizes)
            capped = any(not slow.proven for _, slow, _ in timed)
            ratio = med(t_slow / max(t_fast, 1e-9) for t_fast, _, t_slow in timed)
            total = sum(t for _, _, t in timed) / max(1e-9, sum(t for t, _, _ in timed))  # trivial positions weigh little
            low = ">" if capped else ""
            python = f"{low}{med(t for _, _, t in timed):.3g} | {low}{ratio:.0f}x | {low}{total:.0f}x"
        else:
            python = "- | - | -"
        print(f"| {empty} | {counts} | {t_f:.3g} | {max(r[1] for r in rows):.3g} | {nodes:,.0f} | {rate:,.0f} "
              f"| {python} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
