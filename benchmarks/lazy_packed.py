"""The lazy win solve over packed positions against the in-memory lazy solve: ``python benchmarks/lazy_packed.py``.

Not a test. Run from the project root::

    python benchmarks/lazy_packed.py                      # the default starts (about a minute)
    python benchmarks/lazy_packed.py --large              # and 4x3x4 quaternity, 9x9x2 quaternity (7 minutes more)
    python benchmarks/lazy_packed.py --starts 4x8x2:blind,3x3x4:quaternity-seat
    python benchmarks/lazy_packed.py --starts 9x3x3:quaternity:8,10x5x2:quaternity-seat   # a seat after 0; 9+ seats

For each start ``PxNxS:PRESET[:SEAT]`` both solvers decide whether the seat (default 0) forces being a winner, each in a fresh
process of its own, one after the other (:func:`quaternity_cp.quartets.solver.solve`, goal ``win``: the
in-memory lazy solve; :func:`quaternity_cp.quartets.bigsolve.solve_lazy`: ``solve --start --packed``). Each
process reports its verdict, plies, positions, seconds (the solve alone, imports and the kernel's compilation
left out: the kernel is compiled once, by a warm-up solve in the same process) and its peak resident memory
above what it held before the solve (``ru_maxrss``, kilobytes). The table gives both and their ratios, measured
in this run; the verdicts must agree (the run fails otherwise). The packed solve runs twice: on one thread, and
with its kernel on a thread per core this process may use (``--threads``, default every core: the last two
columns give the threads and the one-thread seconds over theirs; the answer, positions included, must be the
same).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

#: the default starts (a few seconds each in memory)
STARTS = ["4x8x2:quaternity", "8x8x2:quaternity", "4x10x2:quaternity-seat", "3x3x4:blind", "6x6x2:quaternity-seat"]
#: added by --large (minutes in memory)
LARGE = ["4x3x4:quaternity", "9x9x2:quaternity"]


def _rss_kb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def one(solver: str, start: str, preset: str, threads: int = 1, seat: int = 0) -> dict:
    """Solve in this process; the figures as a dict."""
    from quaternity_cp.budget import Limits
    from quaternity_cp.quartets.rules import Rules

    P, N, S = (int(x) for x in start.split("x"))
    rules = Rules.preset(preset)
    if solver == "packed":
        from quaternity_cp.quartets.bigsolve import solve_lazy

        solve_lazy(2, 2, 2, rules, player=0, depth=0, threads=threads)  # the kernel compiled (or loaded) first
        before = _rss_kb()
        t = time.perf_counter()
        out = solve_lazy(P, N, S, rules, player=seat, depth=0, limits=Limits(10**9), threads=threads)
        res = out.result
    else:
        from quaternity_cp.quartets.game import Game
        from quaternity_cp.quartets.position import Position
        from quaternity_cp.quartets.solver import solve

        position = Position(Game(P, N, S), rules)
        before = _rss_kb()
        t = time.perf_counter()
        res = solve(position, "win", seat, depth=0, limits=Limits(10**9))
    seconds = time.perf_counter() - t
    return {"verdict": res.verdict, "plies": res.plies, "positions": res.positions, "seconds": seconds,
            "rss_kb": max(0, _rss_kb() - before)}


def run(solver: str, spec: str, threads: int = 1) -> dict:
    start, preset, *seat = spec.split(":")
    out = subprocess.run([sys.executable, __file__, "--one", solver, start, preset, "--threads", str(threads),
                          "--seat", seat[0] if seat else "0"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", default=None, help="comma-separated PxNxS:PRESET[:SEAT]")
    ap.add_argument("--large", action="store_true")
    ap.add_argument("--threads", type=int, default=None, help="the packed solve's threads (default: every core)")
    ap.add_argument("--one", nargs=3, metavar=("SOLVER", "START", "PRESET"), help=argparse.SUPPRESS)
    ap.add_argument("--seat", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        solver, start, preset = args.one
        print(json.dumps(one(solver, start, preset, threads=args.threads or 1, seat=args.seat)))
        return
    from quaternity_cp.threads import available_cores

    threads = args.threads or available_cores()
    specs = args.starts.split(",") if args.starts else STARTS + (LARGE if args.large else [])
    head = (f"{'start':<24} {'verdict':>7} {'memory pos':>11} {'packed pos':>11} {'memory s':>9} {'packed s':>9} "
            f"{'speed':>6} {'memory MB':>10} {'packed MB':>10} {'memory':>7} {'B/pos mem':>10} {'B/pos pk':>9} "
            f"{'threads':>7} {'thr s':>7} {'gain':>5}")
    print(head)
    print("-" * len(head))
    bad = []
    for spec in specs:
        mem = run("memory", spec)
        pk = run("packed", spec)
        pt = run("packed", spec, threads)
        if (mem["verdict"], mem["plies"]) != (pk["verdict"], pk["plies"]) or \
                (pk["verdict"], pk["plies"], pk["positions"]) != (pt["verdict"], pt["plies"], pt["positions"]):
            bad.append(spec)
        speed = mem["seconds"] / max(pk["seconds"], 1e-9)
        memory = mem["rss_kb"] / max(pk["rss_kb"], 1)
        print(f"{spec:<24} {pk['verdict']:>7} {mem['positions']:>11,} {pk['positions']:>11,} {mem['seconds']:>9.2f} "
              f"{pk['seconds']:>9.2f} {speed:>5.1f}x {mem['rss_kb'] / 1024:>10.1f} {pk['rss_kb'] / 1024:>10.1f} "
              f"{memory:>6.1f}x {mem['rss_kb'] * 1024 / max(mem['positions'], 1):>10.0f} "
              f"{pk['rss_kb'] * 1024 / max(pk['positions'], 1):>9.0f} {threads:>7} {pt['seconds']:>7.2f} "
              f"{pk['seconds'] / max(pt['seconds'], 1e-9):>4.2f}x", flush=True)
    print("\nspeed: the in-memory solve's seconds over the packed one's; memory: its peak resident memory above what "
          "it held before the solve, over the packed one's (both in this run); gain: the packed solve's seconds on one "
          "thread over its seconds on the threads")
    if bad:
        sys.exit(f"the answers differ: {', '.join(bad)}")


if __name__ == "__main__":
    main()
