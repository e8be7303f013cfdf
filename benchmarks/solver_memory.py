"""The solver's memory per stored position: the peak resident memory of solves, each in a fresh process.

Not a test. Run from the project root::

    python benchmarks/solver_memory.py                         # the default starts (about a minute)
    python benchmarks/solver_memory.py --starts 3x6x3 4x3x4:400000 8x8x2@quaternity-seat:300000
    python benchmarks/solver_memory.py --against HEAD          # the same starts with a commit's code too
    python benchmarks/solver_memory.py --tracemalloc           # Python's allocations, not resident memory

A start ``PxNxS[@PRESET][:CAP]`` (PRESET: a rule preset, ``quaternity`` when not
given; CAP: ``max_positions``, none when not given) is solved for seat 0, goal
``win`` (``value`` with two players), with no strategy tree, in a process of
its own. What the solve costs is the peak
resident memory of that process (``VmHWM``) less its resident memory just before
the solve (the interpreter, the package, the position); divided by the positions
stored, the bytes per position. With ``--tracemalloc`` it is the peak of
Python's own allocations instead (slower; no allocator slack).

The cost has two parts: what every stored position keeps (its key, its
successors, the nodes a lazy search keeps for later) and tables of bounded size
(analyses, set descriptions, the engine's sums) that fill during the first few
hundred thousand positions. Two caps of one start give the slope between them:
what one more position costs once the tables are full.

``--against REV`` extracts the code of commit REV (``git archive``), copies this
script into it, runs every start with it too, and prints both figures and their
ratio (then / now).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

#: the default starts: about a minute together on one core
STARTS = ["3x6x3", "4x10x2", "4x3x4:200000", "4x3x4:400000"]


def _status(field: str) -> int:
    """A field of /proc/self/status, in bytes (VmRSS: resident now; VmHWM: the peak)."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status (Linux only)")


def child(start: str, use_tracemalloc: bool) -> None:
    """Solve one start in this process and print its figures as one JSON line."""
    sys.path.insert(0, ROOT)  # the code this copy of the script sits in
    import gc

    from quaternity_cp.quartets.solver import solve, start_position

    game, _, cap = start.partition(":")
    game, _, preset = game.partition("@")
    P, N, S = (int(x) for x in game.lower().split("x"))
    position = start_position(P, N, S, preset or "quaternity")
    goal = "value" if P == 2 else "win"
    gc.collect()
    if use_tracemalloc:
        import tracemalloc

        tracemalloc.start()
    before = _status("VmRSS")
    t0 = time.perf_counter()
    res = solve(position, goal, 0, depth=0, max_positions=int(cap) if cap else None)
    seconds = time.perf_counter() - t0
    used = tracemalloc.get_traced_memory()[1] if use_tracemalloc else _status("VmHWM") - before
    print(json.dumps({"start": start, "verdict": res.verdict, "positions": res.positions, "seconds": seconds,
                      "bytes": used}))


def measure(script: str, start: str, use_tracemalloc: bool) -> dict:
    """The figures of one start, solved by ``script`` (this file, or its copy in another checkout)."""
    code = os.path.dirname(os.path.dirname(script))
    env = dict(os.environ, PYTHONPATH=code)
    cmd = [sys.executable, script, "--child", start] + (["--tracemalloc"] if use_tracemalloc else [])
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def extract(rev: str) -> str:
    """A temporary directory with the code of commit ``rev`` and a copy of this script."""
    where = tempfile.mkdtemp(prefix="quaternity-memory-")
    archive = subprocess.run(["git", "-C", ROOT, "archive", rev], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", where], input=archive, check=True)
    os.makedirs(os.path.join(where, "benchmarks"), exist_ok=True)
    shutil.copy(os.path.abspath(__file__), os.path.join(where, "benchmarks", "solver_memory.py"))
    return where


def _per_position(r: dict) -> float:
    return r["bytes"] / max(r["positions"], 1)


def _slopes(rows: list[dict]) -> list[tuple[str, float]]:
    """(text, bytes per position) between consecutive caps of one game."""
    out = []
    by_game: dict[str, list[dict]] = {}
    for r in rows:
        by_game.setdefault(r["start"].partition(":")[0], []).append(r)
    for game, runs in by_game.items():
        runs = sorted(runs, key=lambda r: r["positions"])
        for a, b in zip(runs, runs[1:]):
            if b["positions"] > a["positions"]:
                slope = (b["bytes"] - a["bytes"]) / (b["positions"] - a["positions"])
                out.append((f"{game} from {a['positions']:,} to {b['positions']:,} positions", slope))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--starts", nargs="+", default=STARTS, metavar="PxNxS[:CAP]")
    ap.add_argument("--against", metavar="REV", help="also measure the code of this commit, and print the ratio")
    ap.add_argument("--tracemalloc", action="store_true", help="peak of Python's allocations, not resident memory")
    ap.add_argument("--child", metavar="START", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.tracemalloc)
        return
    script = os.path.abspath(__file__)
    other = extract(args.against) if args.against else None
    what = "peak of Python's allocations" if args.tracemalloc else "peak resident memory, less that before the solve"
    print(f"seat 0, goal win (value with two players); memory: {what}", file=sys.stderr)
    try:
        now, then = [], []
        for start in args.starts:
            if other is not None:  # the two codes one after the other: both meet the same load
                then.append(measure(os.path.join(other, "benchmarks", "solver_memory.py"), start, args.tracemalloc))
            now.append(measure(script, start, args.tracemalloc))
            r = now[-1]
            print(f"{start}: {r['verdict']}, {r['positions']:,} positions, {r['seconds']:.1f} s, "
                  f"{r['bytes'] / 1e6:.0f} MB", file=sys.stderr, flush=True)
    finally:
        if other is not None:
            shutil.rmtree(other, ignore_errors=True)
    if other is None:
        print("| start | verdict | positions | seconds | MB | bytes per position |")
        print("|---|---|---:|---:|---:|---:|")
        for r in now:
            print(f"| {r['start']} | {r['verdict']} | {r['positions']:,} | {r['seconds']:.1f} | {r['bytes'] / 1e6:.0f} "
                  f"| {_per_position(r):,.0f} |")
        for text, slope in _slopes(now):
            print(f"\nslope {text}: {slope:,.0f} bytes per position")
        return
    print("| start | positions (then / now) | MB (then / now) | bytes per position (then / now) | ratio |")
    print("|---|---:|---:|---:|---:|")
    for a, b in zip(then, now):
        print(f"| {b['start']} | {a['positions']:,} / {b['positions']:,} | {a['bytes'] / 1e6:.0f} / "
              f"{b['bytes'] / 1e6:.0f} | {_per_position(a):,.0f} / {_per_position(b):,.0f} "
              f"| {_per_position(a) / _per_position(b):.2f}x |")
    for (text, slope_then), (_, slope_now) in zip(_slopes(then), _slopes(now)):
        print(f"\nslope {text}: {slope_then:,.0f} / {slope_now:,.0f} bytes per position "
              f"({slope_then / slope_now:.2f}x)")


if __name__ == "__main__":
    main()
