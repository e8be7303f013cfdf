"""Checking long Quantum Go Fish records: time and peak memory against the number of moves, and the slope.

Not a test. Run from the project root::

    python benchmarks/gofish_long_records.py                      # 2,000 / 20,000 / 100,000 moves
    python benchmarks/gofish_long_records.py --moves 2000 10000 --baseline 60374f0

The record is the legal 2-player cycle ``0>1:A+``, ``1>0:A+`` repeated (every
position repeats, so nothing ends it): the longest record a game can be made to
carry. Each size is checked by ``quaternity check FILE --json`` run in a fresh
Python process (the command's own code, in-process there), which reports the
time of the check (imports excluded) and its peak resident memory
(``ru_maxrss``). Printed per size: seconds, milliseconds per move, peak MB and
bytes per move above the smallest size's peak, then the slopes of time and of
memory (above the interpreter's own) against moves on a log-log scale: 1.0 is
linear, 2.0 quadratic. Before issue 38 every replay state kept its own copy of
the history (10,000 moves took 810 MB, 100,000 about 80 GB); ``--baseline REV``
runs the same sizes on the code of commit REV (``git archive`` into a temporary
folder) and prints the ratio of the two runs' times and memories, size by size
(keep the baseline's sizes small: it is quadratic).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# run in a fresh process, with the code to measure first on sys.path
CHILD = r"""
import io, json, resource, sys, time, contextlib
sys.path.insert(0, CODE)
import quaternity_cp
from quaternity_cli.main import main as command
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out = io.StringIO()
t0 = time.perf_counter()
code = 0
with contextlib.redirect_stdout(out):
    try:
        command.main(["check", PATH, "--json"], standalone_mode=False)
    except SystemExit as stop:
        code = stop.code
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "peak_kb": peak, "base_kb": base, "exit": code, "out": out.getvalue()[-200:]}))
"""


def write_record(folder: str, moves: int) -> str:
    path = os.path.join(folder, f"cycle-{moves}.json")
    texts = ["0>1:A+", "1>0:A+"] * (moves // 2) + ["0>1:A+"] * (moves % 2)
    with open(path, "w") as f:
        json.dump({"game": "gofish", "players": 2, "moves": texts}, f)
    return path


def measure(code: str, path: str) -> dict[str, float]:
    script = CHILD.replace("CODE", repr(code)).replace("PATH", repr(path))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=code)
    row = json.loads(done.stdout.strip().splitlines()[-1])
    if row["exit"] not in (0, None):
        raise SystemExit(f"check did not accept {path} (exit {row['exit']}): {row['out']}")
    return row


def baseline_code(rev: str, folder: str) -> str:
    archive = os.path.join(folder, "baseline.tar")
    subprocess.run(["git", "-C", ROOT, "archive", "--format=tar", "-o", archive, rev], check=True)
    code = os.path.join(folder, "baseline")
    with tarfile.open(archive) as tar:
        tar.extractall(code, filter="data")
    os.symlink(os.path.join(code, "cli"), os.path.join(code, "quaternity_cli"))
    return code


def slope(xs: list[float], ys: list[float]) -> float:
    lx, ly = [math.log(x) for x in xs], [math.log(max(y, 1e-9)) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def run(code: str, sizes: list[int], folder: str, label: str) -> list[dict[str, float]]:
    rows = []
    print(f"{label}:")
    print(f"  {'moves':>8}  {'seconds':>8}  {'ms/move':>8}  {'peak MB':>8}  {'B/move':>8}")
    for n in sizes:
        row = measure(code, write_record(folder, n))
        row["moves"] = n
        rows.append(row)
        above = (row["peak_kb"] - rows[0]["base_kb"]) * 1024
        print(f"  {n:>8,}  {row['seconds']:>8.2f}  {1000 * row['seconds'] / n:>8.3f}  "
              f"{row['peak_kb'] / 1024:>8.0f}  {above / n:>8.0f}")
    if len(rows) > 1:
        ns = [r["moves"] for r in rows]
        t = slope(ns, [r["seconds"] for r in rows])
        m = slope(ns, [max(r["peak_kb"] - r["base_kb"], 1) for r in rows])
        print(f"  slope (log-log, 1 = linear, 2 = quadratic): time {t:.2f}, memory above the interpreter {m:.2f}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, nargs="+", default=[2_000, 20_000, 100_000])
    parser.add_argument("--baseline", metavar="REV", help="also run the code of this commit, and print ratios")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gofish-long-") as folder:
        rows = run(os.path.abspath(ROOT), args.moves, folder, "this checkout")
        if args.baseline:
            old = run(baseline_code(args.baseline, folder), args.moves, folder, f"commit {args.baseline}")
            print("ratio baseline / this checkout:")
            for new_row, old_row in zip(rows, old):
                print(f"  {new_row['moves']:>8,} moves: time {old_row['seconds'] / new_row['seconds']:.1f}x, "
                      f"peak memory {old_row['peak_kb'] / new_row['peak_kb']:.1f}x")


if __name__ == "__main__":
    main()
