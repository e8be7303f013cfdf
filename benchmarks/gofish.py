"""Quantum Go Fish, the library's speed: ``python benchmarks/gofish.py [--games N] [--moves M]``.

For 3, 5 and 8 players (suits = players, 4 cards a suit) it plays seeded random legal games and prints:

- *check*: the time per move of replaying the record in process (``GoFish.from_record``: every move's
  legality decided exactly, the win rules after each answer); the goal is under 1 ms at 8 players;
- *analyze*: the time of every cell's exact bounds on the final position, by the flow engine, and by the
  CP-SAT cross-check on the same tables, with the ratio (CP-SAT / flow) measured in the same run;
- the solver's positions per second building and solving the graph of the 3-player start (3 suits of 4,
  every seat), against the Quaternity solver's on a graph of similar size (3 players, 3 sets of 4, seat 0's
  win), with the ratio measured in the same run (``--small``: 3 suits of 2 against 3 sets of 3).

Figures are medians over the games; the machine's load changes them, the ratio less so.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from quaternity_cp.gofish import GoFish
from quaternity_cp.gofish.bounds import CpSatEngine, FlowEngine


def random_game(players: int, seed: int, moves: int) -> GoFish:
    rng = random.Random(seed)
    game = GoFish(players)
    while not game.over and len(game.moves) < moves:
        game.push(rng.choice(game.legal_moves()))
    return game


def measure(players: int, games: int, moves: int) -> dict[str, float]:
    check, flow, cpsat = [], [], []
    for seed in range(games):
        game = random_game(players, seed, moves)
        record = game.record()
        n = len(game.moves)
        if n == 0:
            continue
        start = time.perf_counter()
        GoFish.from_record(record)
        check.append((time.perf_counter() - start) / n)
        tables = game.tables()
        start = time.perf_counter()
        FlowEngine().bounds(tables)
        flow.append(time.perf_counter() - start)
        start = time.perf_counter()
        CpSatEngine().bounds(tables)
        cpsat.append(time.perf_counter() - start)
    return {"check_ms": 1e3 * statistics.median(check), "flow_ms": 1e3 * statistics.median(flow),
            "cpsat_ms": 1e3 * statistics.median(cpsat)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="random games per size (default 20)")
    parser.add_argument("--moves", type=int, default=60, help="at most this many moves a game (default 60)")
    parser.add_argument("--small", action="store_true", help="the solvers on smaller graphs (a quick run)")
    args = parser.parse_args()
    CpSatEngine().bounds(GoFish(3).tables())  # OR-Tools imported before the clock runs
    print(f"{'players':>7}  {'check / move':>12}  {'analyze (flow)':>14}  {'analyze (CP-SAT)':>16}  {'ratio':>6}")
    for players in (3, 5, 8):
        m = measure(players, args.games, args.moves)
        print(f"{players:>7}  {m['check_ms']:>9.3f} ms  {m['flow_ms']:>11.3f} ms  {m['cpsat_ms']:>13.3f} ms  "
              f"{m['cpsat_ms'] / m['flow_ms']:>5.1f}x")
    from quaternity_cp import Game, Position
    from quaternity_cp.gofish.solver import solve_start
    from quaternity_cp.quartets.solver import solve

    # the solvers at a similar graph size: Go Fish's 3-player start (3 suits of 4: 53,946 positions, every
    # seat) against the Quaternity solver's 3 players x 3 sets of 4 (84,619 positions, seat 0's win)
    small = args.small
    start = time.perf_counter()
    results = solve_start(3, 3, 2 if small else 4)
    seconds = seconds_fish = time.perf_counter() - start
    size = next(iter(results.values())).graph_size
    fish_rate = size / seconds
    print(f"solver, Go Fish 3 players x 3 suits of {2 if small else 4}, every seat: {size:,} positions in "
          f"{seconds:.2f} s ({fish_rate:,.0f} positions/s)")
    start = time.perf_counter()
    result = solve(Position(Game(3, 3, 3 if small else 4)), "win", 0)
    seconds = time.perf_counter() - start
    q_rate = result.positions / seconds
    print(f"solver, Quaternity 3 players x 3 sets of {3 if small else 4}, seat 0's win: {result.positions:,} "
          f"positions in {seconds:.2f} s ({q_rate:,.0f} positions/s)")
    print(f"ratio Go Fish / Quaternity, positions per second: {fish_rate / q_rate:.2f}")

    # the packed, partitioned solver (quaternity_cp.gofish.bigsolve) on the same start, in this process: its
    # graph rotates players too, so it has fewer positions; the ratio is of the wall time of the same answer
    import tempfile

    from quaternity_cp.gofish import bigsolve
    from quaternity_cp.gofish.fastgraph import Shape

    bigsolve.solve(2, None, tempfile.mkdtemp(), parts=2, workers=0)  # numba's code loaded before the clock runs
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        built = bigsolve.build(Shape.of(3, 3, 2 if small else 4, None), folder, parts=4)
        answer = bigsolve.attract(built)
        packed = time.perf_counter() - start
    same = all(answer.seats[s]["wins"] == results[s].verdict and answer.seats[s]["plies"] == results[s].plies
               for s in results)
    print(f"solver, packed (players rotated), same start: {built.positions:,} positions in {packed:.2f} s "
          f"({built.positions / packed:,.0f} positions/s); same answer: {same}")
    print(f"ratio packed / Python solver, time to the same answer: {seconds_fish / packed:.1f}x faster")

if __name__ == "__main__":
    main()
