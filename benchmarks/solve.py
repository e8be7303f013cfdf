"""Solve the start of small games exactly: the table of solved games for the README.

Not a test. Run from the project root::

    python benchmarks/solve.py                          # every game and preset, 300 s per solve
    python benchmarks/solve.py --max-seconds 60 --games 3x3x2 4x4x2 --presets quaternity blind
    python benchmarks/solve.py --json results.json      # also write every result as JSON
    python benchmarks/solve.py --compare                # speed against benchmarks/baseline_solve.json
    python benchmarks/solve.py --compare --rerun-baseline  # ... with the baseline's commit run again now
    python benchmarks/solve.py --compare --engine flow  # ... today's solver with the flow engine
    python benchmarks/solve.py --record-baseline FILE   # record a baseline (run from an old checkout)

For every game (P players, N sets of S cards) and rule preset it solves the
starting position for seat 0 (who moves first):

- ``quartet``: can seat 0 force a set claimed in its first turn?
- ``win`` (3 or more players): can seat 0 force being a winner against all the
  others together? ``value`` (2 players): win, loss or draw for seat 0.

"positions" counts the distinct positions (canonical keys) of the win/value
solve, which explores every position reachable from the start; "time" is its
wall-clock time (the quartet solves take well under a second here). A solve
that passes ``--max-seconds`` is reported as unproven, and the games of the
same preset and player count with at least as many sets and cards per set are
skipped (4x3x4 unproven skips 4x4x4, not 4x4x3).

``--compare`` solves a fixed list of starts (:data:`COMPARE`, some with a time
cap) and prints, per start, the figures of the saved baseline (recorded from an
earlier commit, named in the file) beside today's: positions, seconds,
positions per second and their ratio, in two tables: the solver as it is used
(the win goal explored lazily: fewer positions, each cheaper, since an
opponent's moves are only played as far as needed), and the whole reachable
graph (``solve(..., lazy=False)``: the same positions as the baseline, which
always explored everything, so positions per second compare the same work). A
capped start compares positions per second only (both runs stop at the cap).
A start proven in under five seconds is solved at least three times, and until
its runs add up to a second, and its median time kept (on both sides: the
rerun baseline uses this script), so that a moment's load on the machine or
the clock's resolution does not decide a ratio; a capped run averages its load
over its whole time. With ``--rerun-baseline`` today's starts are also solved
before the baseline runs, and the median is over the runs before and after it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # this checkout first

from quaternity_cp import Game, Position, Rules  # noqa: E402
from quaternity_cp.quartets.solver import default_engine_name, solve  # noqa: E402

GAMES = [
    (2, 2, 2), (2, 3, 2), (2, 2, 3), (2, 4, 2), (2, 3, 4), (2, 4, 4), (2, 6, 4), (2, 8, 4), (2, 12, 4),
    (2, 16, 4),
    (3, 3, 2), (3, 2, 3), (3, 3, 3), (3, 6, 2), (3, 4, 3), (3, 3, 4), (3, 5, 3), (3, 6, 3), (3, 7, 3),
    (3, 8, 3), (3, 9, 3), (3, 4, 4),
    (4, 2, 2), (4, 4, 2), (4, 6, 2), (4, 3, 4), (4, 4, 3), (4, 8, 2), (4, 10, 2), (4, 12, 2), (4, 14, 2),
    (4, 4, 4),
    (5, 5, 2), (5, 5, 3), (5, 6, 3), (5, 10, 2), (6, 3, 2), (6, 6, 2), (6, 6, 3), (6, 8, 3), (7, 7, 2),
    (8, 8, 2), (9, 9, 2), (10, 10, 2), (11, 11, 2), (12, 12, 2),
]
PRESETS = ["quaternity", "quaternity-seat", "blind", "pythagoras"]

# (game, preset, goal, time cap in seconds): the starts of --compare
COMPARE = [
    ("3x3x2", "quaternity", "win", 60.0),
    ("4x4x2", "quaternity", "quartet", 60.0),
    ("4x4x2", "quaternity", "win", 60.0),
    ("4x4x2", "pythagoras", "win", 60.0),
    ("4x4x2", "blind", "win", 60.0),
    ("3x4x3", "quaternity", "win", 40.0),
    ("5x5x2", "quaternity", "win", 30.0),
]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BASELINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "baseline_solve.json")


#: a start solved faster than this is solved again and its median time kept: a solve of a fraction
#: of a second is at the mercy of a moment's load on the machine (and of the clock's resolution), a
#: capped one is not. Short solves run at least REPEAT times and until they have taken MIN_TOTAL
#: seconds together (at most MAX_RUNS times).
SHORT = 5.0
REPEAT = 3
MIN_TOTAL = 1.0
MAX_RUNS = 200


def run_compare_starts(scale: float = 1.0, engine: str | None = None, before: list[dict] | None = None,
                       full: bool = False) -> list[dict]:
    """Solve every start of COMPARE (caps times ``scale``); one dict of figures each. With ``before``
    (the figures of an earlier call), the times of both calls count toward the median. ``full``:
    the win goal explores the whole reachable graph (``solve(..., lazy=False)``, the baseline's
    method), so that both sides count the same positions."""
    out = []
    options: dict[str, Any] = {"lazy": False} if full else {}  # never asked of the baseline (it has no lazy search)
    for n, (text, preset, goal, cap) in enumerate(COMPARE):
        P, N, S = parse_game(text)
        runs = []
        while True:
            pos = Position(Game(P, N, S), Rules.preset(preset))
            runs.append(solve(pos, goal, 0, max_seconds=cap * scale, depth=0, engine=engine, **options))
            if runs[0].seconds >= SHORT or not runs[0].proven or len(runs) >= MAX_RUNS:
                break
            if len(runs) >= REPEAT and sum(r.seconds for r in runs) >= MIN_TOTAL:
                break
        times = sorted([r.seconds for r in runs] + (before[n]["times"] if before is not None else []))
        res = runs[0]  # the same search each time: only the time differs
        seconds = times[len(times) // 2]  # the median (the upper one of an even count)
        out.append({"game": text, "preset": preset, "goal": goal, "cap": cap * scale, "status": res.status,
                    "verdict": res.verdict, "positions": res.positions, "expanded": res.expanded,
                    "engine_calls": res.engine_calls, "seconds": round(seconds, 6), "times": times})
        print(f"{text} {preset} {goal}{' (whole graph)' if full else ''}: {res.verdict}, "
              f"{res.positions:,} positions, {seconds:.4f} s"
              + (f" (median of {len(times)} runs)" if len(times) > 1 else ""), file=sys.stderr, flush=True)
    return out


def record_baseline(path: str, commit: str | None) -> None:
    import subprocess
    if commit is None:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                                text=True).stdout.strip() or "unknown"
    import quaternity_cp
    rows = run_compare_starts()
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({"commit": commit, "code": os.path.dirname(quaternity_cp.__file__),
                   "recorded": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "results": rows}, fh, indent=2)
        fh.write("\n")


def rerun_baseline(path: str) -> str:
    """Run the starts again with the saved baseline's commit (git archive into a temporary directory,
    this script copied there), so that both sides share the machine's load; the new file's path."""
    import shutil
    import subprocess

    from baseline import extract_baseline

    found = extract_baseline(path)
    if found is None:
        raise SystemExit(f"cannot extract the baseline commit of {path} with git")
    where, commit = found
    shutil.copy(os.path.abspath(__file__), os.path.join(where, "benchmarks", "solve.py"))
    out = os.path.join(where, "baseline_solve.json")
    subprocess.run([sys.executable, os.path.join(where, "benchmarks", "solve.py"), "--record-baseline", out,
                    "--commit", commit], check=True)
    return out


def compare(path: str | None, scale: float, engine: str | None = None) -> None:
    """Today's figures beside the baseline's, twice: the solver as it is used (the win goal explored
    lazily), and the whole reachable graph (what the baseline explores: the same positions on both
    sides, so positions per second compare the same work). ``path`` None: the baseline is run again
    now, between two runs of today's starts (whose times share one median), so that a drift of the
    machine's speed during the baseline's long capped runs does not fall on one side only."""
    before = before_full = None
    if path is None:
        before = run_compare_starts(scale, engine)
        before_full = run_compare_starts(scale, engine, full=True)
        path = rerun_baseline(BASELINE)
    with open(path, encoding="utf-8") as fh:
        base = json.load(fh)
    old = {(r["game"], r["preset"], r["goal"]): r for r in base["results"]}
    rows = run_compare_starts(scale, engine, before)
    rows_full = run_compare_starts(scale, engine, before_full, full=True)
    print(f"baseline: commit {base['commit'][:12]} (recorded {base['recorded']}); now: this checkout, "
          f"engine {engine or default_engine_name()}")
    print("\nThe solver as it is used (the win goal explored lazily):\n")
    _table(rows, old)
    print("\nThe whole reachable graph on both sides (`solve(..., lazy=False)`; the quartet goal is the same"
          " search as above):\n")
    _table(rows_full, old)


def _rate(positions: int, seconds: float) -> str:
    return f"{positions / seconds:,.0f}" if seconds > 0 else "n/a"


def _table(rows: list[dict], old: dict) -> None:
    print("| start | preset | goal | verdict | positions (then / now) | seconds (then / now) "
          "| positions/s (then / now) | speed-up |")
    print("|---|---|---|---|---:|---:|---:|---:|")
    for r in rows:
        b = old.get((r["game"], r["preset"], r["goal"]))
        if b is None:
            continue
        both = b["status"] == "solved" and r["status"] == "solved"
        verdict = r["verdict"] if r["status"] == "solved" else f"{r['verdict']} ({r['status']})"
        if b["status"] != "solved":
            verdict += f"; then {b['verdict']} ({b['status']})"
        if not (b["seconds"] > 0 and r["seconds"] > 0):
            ratio = "n/a (too short to time)"
        elif both:
            ratio = f"{b['seconds'] / r['seconds']:.1f}x time"
            if b["positions"] == r["positions"]:
                ratio += ", same positions"
        else:  # capped on at least one side: the rates compare
            ratio = f"{(r['positions'] / r['seconds']) / (b['positions'] / b['seconds']):.1f}x pos/s"
        print(f"| {r['game']} | {r['preset']} | {r['goal']} | {verdict} | {b['positions']:,} / {r['positions']:,} "
              f"| {_fmt_seconds(b['seconds'])} / {_fmt_seconds(r['seconds'])} "
              f"| {_rate(b['positions'], b['seconds'])} / {_rate(r['positions'], r['seconds'])} | {ratio} |",
              flush=True)


def _fmt_seconds(seconds: float) -> str:
    return f"{seconds:.2f}" if seconds >= 0.1 else f"{seconds:.4f}"


def parse_game(text: str) -> tuple[int, int, int]:
    parts = text.lower().split("x")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"a game is PxNxS, like 3x3x2, not {text!r}")
    return tuple(int(p) for p in parts)  # type: ignore[return-value]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", type=parse_game, default=GAMES, metavar="PxNxS")
    ap.add_argument("--presets", nargs="+", choices=PRESETS, default=PRESETS)
    ap.add_argument("--max-seconds", type=float, default=300.0, help="per solve (default 300)")
    ap.add_argument("--max-positions", type=int, default=None,
                    help="per solve (default: none); bounds the memory of a long solve (see solver_memory.py)")
    ap.add_argument("--engine", default=None, help="default: the solver's (sets, else flow, else cpsat)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--compare", action="store_true", help="compare with the saved baseline (see above)")
    ap.add_argument("--baseline", default=BASELINE, help="the baseline file (default benchmarks/baseline_solve.json)")
    ap.add_argument("--rerun-baseline", action="store_true",
                    help="--compare: run the baseline's commit again now (same machine load) instead of the file")
    ap.add_argument("--scale", type=float, default=1.0, help="--compare: multiply the time caps")
    ap.add_argument("--record-baseline", metavar="FILE", help="record the --compare starts to FILE")
    ap.add_argument("--commit", help="--record-baseline: the commit the code came from")
    args = ap.parse_args()
    if args.record_baseline:
        record_baseline(args.record_baseline, args.commit)
        return
    if args.compare:
        if args.rerun_baseline and args.baseline != BASELINE:
            raise SystemExit("--rerun-baseline runs the commit of benchmarks/baseline_solve.json (no --baseline)")
        compare(None if args.rerun_baseline else args.baseline, args.scale, args.engine)
        return
    engine = args.engine or default_engine_name()

    print(f"engine {engine}, at most {args.max_seconds:g} s per solve, seat 0 moves first", file=sys.stderr)
    print("| P | N | S | preset | quartet (seat 0, first turn) | win / value (seat 0) | positions | time |")
    print("|---|---|---|---|---|---|---:|---:|")
    rows = []
    gave_up: dict[tuple[str, int], list[tuple[int, int]]] = {}  # (preset, P) -> (N, S) of the starts that timed out
    for preset in args.presets:
        for P, N, S in args.games:
            if any(N >= n and S >= s for n, s in gave_up.get((preset, P), [])):
                continue  # at least the sets and set size of a start that was not proven in time
            try:
                game = Game(P, N, S)
                pos = Position(game, Rules.preset(preset))
            except Exception as err:  # an impossible size: say so and go on
                print(f"skip {P}x{N}x{S} {preset}: {err}", file=sys.stderr)
                continue
            if not pos.is_valid():
                print(f"skip {P}x{N}x{S} {preset}: no initial deal", file=sys.stderr)
                continue
            t0 = time.monotonic()
            quartet = solve(pos, "quartet", 0, engine=engine, max_seconds=args.max_seconds, depth=0)
            goal = "value" if P == 2 else "win"
            result = solve(pos, goal, 0, engine=engine, max_seconds=args.max_seconds, depth=0,
                           max_positions=args.max_positions)
            q_text = quartet.verdict + (f" ({quartet.questions} q.)" if quartet.result else "")
            if result.proven:
                r_text = result.verdict + (f" in {result.plies} plies" if result.plies is not None else "")
            else:
                r_text = "unproven (position limit)" if result.status == "limit" else "unproven (time limit)"
                gave_up.setdefault((preset, P), []).append((N, S))
            print(f"| {P} | {N} | {S} | {preset} | {q_text} | {r_text} | {result.positions:,} |"
                  f" {result.seconds:.1f} s |", flush=True)
            rows.append({"players": P, "sets": N, "set_size": S, "preset": preset,
                         "quartet": quartet.to_json() | {"strategy": None, "defense": None},
                         goal: result.to_json() | {"strategy": None, "defense": None, "line": None},
                         "wall_seconds": round(time.monotonic() - t0, 3)})
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"engine": engine, "max_seconds": args.max_seconds, "results": rows}, fh, indent=2)


if __name__ == "__main__":
    main()
