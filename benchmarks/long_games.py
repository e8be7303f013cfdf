"""Checking long games at full size: time per move, incremental engine against from-scratch.

Not a test. Run from the project root::

    python benchmarks/long_games.py                 # 10 players x 1,000 sets of 10, 12 moves
    python benchmarks/long_games.py --moves 6 --no-baseline

A random legal record is generated first (not timed); then the same moves are
replayed (``Position.push``, what ``quaternity check`` does) three ways, each in
a fresh position, and the median time per move is printed with its ratio:

- ``incremental``: the default flow engine, which starts every maximum flow
  from the last deal it found;
- ``from scratch``: the same engine with ``warm=False`` (every network and flow
  built anew), in the same process;
- ``baseline commit``: the code of the commit named in
  benchmarks/baseline_solve.json (extracted with ``git archive`` into a
  temporary directory and run in a subprocess), unless ``--no-baseline``.

Then the full analysis of random mid-game positions of 20 players x 1,000 cards
(median ms; the goal is under 50 ms), the same three ways.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import engines as engine_bench  # noqa: E402  (benchmarks/engines.py: position generators)

from quaternity_cp import Game, Position  # noqa: E402
from quaternity_cp.quartets.engines.flow import FlowEngine  # noqa: E402
from quaternity_cp.quartets.play import random_move  # noqa: E402

# run in the subprocess with the baseline's code first on sys.path
CHILD = r"""
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from quaternity_cp import Game, Position  # the baseline's code (before engines.py puts this checkout first)
from quaternity_cp.quartets.engines.flow import FlowEngine
import quaternity_cp
assert quaternity_cp.__file__.startswith(sys.argv[1]), quaternity_cp.__file__
sys.path.append(sys.argv[2])
import engines as engine_bench, random
spec = json.load(open(sys.argv[3]))
g = Game(spec["players"], spec["sets"], spec["set_size"], set_names=spec["set_names"])
pos = Position(g, engine=FlowEngine())
times = []
for text in spec["moves"]:
    m = g.parse_move(text)
    t = time.perf_counter(); pos.push(m); times.append(time.perf_counter() - t)
rng = random.Random(spec["seed"])
mids = [engine_bench.mid_game(spec["mid_cards"], spec["mid_players"], rng) for _ in range(spec["mid_count"])]
eng = FlowEngine()
mt = []
for c in mids:
    t = time.perf_counter(); eng.analyze(c); mt.append(time.perf_counter() - t)
print(json.dumps({"move": statistics.median(times), "mid": statistics.median(mt)}))
"""


def set_names(n: int) -> list[str]:
    return [f"S{i}x" for i in range(n)]


def replay_times(game: Game, moves, engine) -> list[float]:
    pos = Position(game, engine=engine)
    out = []
    for m in moves:
        t = time.perf_counter()
        pos.push(m)
        out.append(time.perf_counter() - t)
    del pos
    gc.collect()
    return out


def baseline_code() -> tuple[str, str] | None:
    """(directory with the baseline commit's code, commit), or None when git cannot provide it."""
    from baseline import extract_baseline

    return extract_baseline()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=10)
    ap.add_argument("--sets", type=int, default=1000)
    ap.add_argument("--set-size", type=int, default=10)
    ap.add_argument("--moves", type=int, default=12)
    ap.add_argument("--mid", type=int, default=5, help="mid-game positions of 20 players x 1,000 cards")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-baseline", action="store_true")
    args = ap.parse_args()
    P, N, S = args.players, args.sets, args.set_size
    game = Game(P, N, S, set_names=set_names(N))
    rng = random.Random(args.seed)
    gen = Position(game)
    moves = []
    for _ in range(args.moves):
        m = random_move(gen, rng)
        if m is None:
            break
        gen.push(m)
        moves.append(m)
    del gen  # its caches hold every analysis made while generating: free them before timing
    gc.collect()
    inc = replay_times(game, moves, FlowEngine())
    scratch = replay_times(game, moves, FlowEngine(warm=False))
    mids = [engine_bench.mid_game(1000, 20, random.Random(args.seed + i)) for i in range(args.mid)]

    def mid_time(engine) -> float:
        ts = []
        for c in mids:
            t = time.perf_counter()
            engine.analyze(c)
            ts.append(time.perf_counter() - t)
        return statistics.median(ts)

    mid_inc = mid_time(FlowEngine())
    mid_scratch = mid_time(FlowEngine(warm=False))
    base = None
    if not args.no_baseline:
        code = baseline_code()
        if code is not None:
            spec = {"players": P, "sets": N, "set_size": S, "set_names": set_names(N),
                    "moves": [game.move_str(m) for m in moves], "seed": args.seed, "mid_cards": 1000,
                    "mid_players": 20, "mid_count": args.mid}
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
                json.dump(spec, fh)
            # the same mid-game positions: regenerate them with the same seeds in the child
            out = subprocess.run([sys.executable, "-c", CHILD.replace(
                "rng = random.Random(spec[\"seed\"])\nmids = [engine_bench.mid_game(spec[\"mid_cards\"], "
                "spec[\"mid_players\"], rng) for _ in range(spec[\"mid_count\"])]",
                "mids = [engine_bench.mid_game(spec[\"mid_cards\"], spec[\"mid_players\"], "
                "random.Random(spec[\"seed\"] + i)) for i in range(spec[\"mid_count\"])]"),
                code[0], HERE, fh.name], capture_output=True, text=True)
            if out.returncode == 0:
                base = json.loads(out.stdout.strip().splitlines()[-1]) | {"commit": code[1]}
            else:
                print(out.stderr, file=sys.stderr)
    med = statistics.median
    print(f"{P} players x {N} sets of {S}: {len(moves)} moves replayed (median ms per move)")
    print("| path | ms per move | x incremental |")
    print("|---|---:|---:|")
    rows = [("incremental (default)", med(inc)), ("from scratch (warm=False)", med(scratch))]
    if base is not None:
        rows.append((f"baseline commit {base['commit'][:7]}", base["move"]))
    for name, t in rows:
        print(f"| {name} | {t * 1000:.1f} | {t / med(inc):.1f}x |")
    print()
    print(f"20 players x 1,000 cards, {len(mids)} random mid-game positions: full analysis (median ms)")
    print("| path | ms | x incremental |")
    print("|---|---:|---:|")
    rows = [("incremental (default)", mid_inc), ("from scratch (warm=False)", mid_scratch)]
    if base is not None:
        rows.append((f"baseline commit {base['commit'][:7]}", base["mid"]))
    for name, t in rows:
        print(f"| {name} | {t * 1000:.1f} | {t / mid_inc:.1f}x |")


if __name__ == "__main__":
    main()
