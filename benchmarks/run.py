"""The benchmark suite: engines on single positions, whole-game checks, growth with size.

Every number is a median measured in this run, and every comparison a ratio
against a baseline measured in the same run (CP-SAT, or brute force where it can
run), so the output means the same on a slow machine. Not a test.

    python benchmarks/run.py            # everything (a few minutes)
    python benchmarks/run.py --quick    # smaller sizes, fewer repeats (under a minute)

Sections:
1. full analysis (feasibility, every card's possible owners, possible and forced
   quartets) of random valid mid-game positions and game starts: flow against
   CP-SAT (and brute force on the small sizes);
2. checking whole random legal games to their end, time per move: flow against
   CP-SAT;
3. how the flow engine's cost grows with the number of cards (4 and 8 players).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import engines as engine_bench  # noqa: E402  (benchmarks/engines.py: position generators)

from quaternity_cp import Game, Position  # noqa: E402
from quaternity_cp.quartets.engines import BruteForceEngine, CpSatEngine, FlowEngine  # noqa: E402
from quaternity_cp.errors import QuaternityError  # noqa: E402
from quaternity_cp.quartets.play import random_game  # noqa: E402


def median_time(fn, items, repeat=1) -> float:
    times = []
    for item in items:
        for _ in range(repeat):
            start = time.perf_counter()
            fn(item)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def section_analysis(rng: random.Random, quick: bool) -> None:
    print("\n## 1. Full analysis of one position (median ms)")
    sizes = [(12, 3)] + (engine_bench.SIZES[:3] if quick else engine_bench.SIZES)  # 12 cards: brute force runs
    count = 5 if quick else 15
    flow, cpsat, brute = FlowEngine(), CpSatEngine(), BruteForceEngine()
    print("| position | cards | players | flow | cpsat | cpsat/flow | brute | brute/flow |")
    print("|---|---|---|---|---|---|---|---|")
    cpsat_ok = True
    for cards, players in sizes:
        for kind in ("mid-game", "start"):
            if kind == "start":
                positions = [engine_bench.game_start(cards, players)]
            else:
                positions = [engine_bench.mid_game(cards, players, rng) for _ in range(count)]
            expected = [flow.analyze(c) for c in positions]
            repeat = max(1, 300 // cards)
            t_flow = median_time(flow.analyze, positions, repeat)
            cp = "-"
            ratio = "-"
            if cpsat_ok:
                start = time.perf_counter()
                assert cpsat.analyze(positions[0]) == expected[0], "cpsat and flow disagree"
                if time.perf_counter() - start < engine_bench.CPSAT_LIMIT:
                    t_cp = median_time(cpsat.analyze, positions)
                    cp, ratio = f"{t_cp * 1e3:.2f}", f"{t_cp / t_flow:.0f}x"
                elif kind == "start":
                    cpsat_ok = False
            br = brr = "-"
            try:
                assert brute.analyze(positions[0]) == expected[0], "brute force and flow disagree"
                t_br = median_time(brute.analyze, positions[:3])
                br, brr = f"{t_br * 1e3:.1f}", f"{t_br / t_flow:.0f}x"
            except QuaternityError:
                pass  # too many deals to enumerate
            print(f"| {kind} | {cards} | {players} | {t_flow * 1e3:.3f} | {cp} | {ratio} | {br} | {brr} |", flush=True)


CPSAT_MOVES = 40


def section_games(rng: random.Random, quick: bool) -> None:
    print("\n## 2. Checking whole random legal games (median ms per move)")
    print("| game | games | moves (median) | flow | cpsat | cpsat/flow |")
    print("|---|---|---|---|---|---|")
    # (players, sets, set size, games, time CP-SAT too, chance of a yes where both answers are legal)
    setups = [(4, 8, 4, 4 if quick else 8, True, 0.4), (8, 25, 8, 1 if quick else 3, True, 0.7)]
    for players, sets, size, games, with_cpsat, yes_bias in setups:
        game = Game(players, sets, size)
        records = []
        for _ in range(games):
            pos = random_game(game, "quaternity", rng=random.Random(rng.random()), engine="flow", yes_bias=yes_bias,
                              max_moves=5000)
            records.append(pos.moves)

        def per_move(engine_name, prefix=None):
            times = []
            for moves in records:
                moves = moves[:prefix]
                pos = Position(game, "quaternity", engine=engine_name)
                start = time.perf_counter()
                for m in moves:
                    pos.push(m)
                times.append((time.perf_counter() - start) / max(1, len(moves)))
            return statistics.median(times)

        t_flow = per_move("flow")
        cp = ratio = "-"
        if with_cpsat:
            # CP-SAT replays the first CPSAT_MOVES moves only; the ratio compares the same prefix
            t_cp = per_move("cpsat", CPSAT_MOVES)
            cp = f"{t_cp * 1e3:.2f} (first {CPSAT_MOVES} moves)"
            ratio = f"{t_cp / per_move('flow', CPSAT_MOVES):.0f}x"
        moves = statistics.median(len(m) for m in records)
        print(f"| {players} players, {sets} sets of {size} | {games} | {moves:.0f} | {t_flow * 1e3:.3f} | {cp} | {ratio} |",
              flush=True)


def section_growth(rng: random.Random, quick: bool) -> None:
    print("\n## 3. Growth: flow full analysis of mid-game positions (median ms)")
    cards_list = [16, 32, 64, 128, 256] if quick else [16, 32, 64, 128, 256, 512, 1024, 2048]
    print("| cards | 4 players | 8 players | per card, 8 players (µs) |")
    print("|---|---|---|---|")
    flow = FlowEngine()
    for cards in cards_list:
        row = []
        for players in (4, 8):
            positions = [engine_bench.mid_game(cards, players, rng) for _ in range(5)]
            row.append(median_time(flow.analyze, positions, max(1, 200 // cards)))
        print(f"| {cards} | {row[0] * 1e3:.3f} | {row[1] * 1e3:.3f} | {row[1] / cards * 1e6:.1f} |", flush=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=["analysis", "games", "growth"], action="append",
                        help="run only these sections (repeatable)")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    print(f"# quaternity-cp benchmarks (python {sys.version.split()[0]}, seed {args.seed}{', quick' if args.quick else ''})")
    for name, section in (("analysis", section_analysis), ("games", section_games), ("growth", section_growth)):
        if not args.only or name in args.only:
            section(rng, args.quick)


if __name__ == "__main__":
    main()
