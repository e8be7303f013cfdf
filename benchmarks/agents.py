"""Games per second per worker for agent line-ups (the tournament runner, one process).

Not a test. Run from the project root::

    python benchmarks/agents.py                       # the default line-ups, a few seconds each
    python benchmarks/agents.py --seconds 10 --workers 2

Each line-up plays classic games at 3 players x 6 sets of 4 (the seed's table)
through :func:`quaternity_cp.tournament.run_tournament`, seats rotated, for
about ``--seconds`` seconds (the exact agents: a fixed small number of games),
and prints games per second per worker (wall clock, and per CPU second of the
process, which is what a worker gets on a machine shared with other jobs) and
the mean game length, with the ratio (per CPU second) against the ``random``
line-up measured in the same run (the game state alone, with the cheapest agent). The goal for the koole line-up is at least
200 classic games per second per worker. With ``--workers N`` the koole line-up
is also run on N local processes (games per second per worker then includes the
pool's start-up and its sharing of the machine).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from quaternity_cp.tournament import run_tournament  # noqa: E402

CLASSIC = {"preset": "classic", "players": 3, "sets": 6, "set_size": 4}
LINEUPS = [
    ("random (baseline)", ["random", "random", "random"], None),
    ("koole-first, koole-random x2", ["koole-first", "koole-random", "koole-random"], None),
    ("koole-second, koole-combined, koole-first", ["koole-second", "koole-combined", "koole-first"], None),
    ("knowledge, koole-first, koole-random", ["knowledge", "koole-first", "koole-random"], 12),
    ("cautious, knowledge, koole-first", ["cautious", "knowledge", "koole-first"], 12),
]


def measure(lineup: list[str], seconds: float, fixed: int | None, workers: int = 1) -> tuple[float, float | None, float, int]:
    """(games per wall-clock second per worker, games per CPU second (one worker only), mean decisions, games)."""
    if fixed is not None:
        games = fixed
    else:  # calibrate on a short run, then play about `seconds` worth
        probe = run_tournament("quartets", lineup, 30, seed=99, options=CLASSIC)
        rate = len(probe.games) / max(probe.seconds, 1e-9)
        games = max(30, int(rate * seconds * workers))
    start, cpu = time.perf_counter(), time.process_time()
    result = run_tournament("quartets", lineup, games, seed=1, options=CLASSIC, workers=workers)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    length = result.summary()["length"]["mean"]
    return games / elapsed / workers, (games / cpu if workers == 1 else None), length, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="about how long each fast line-up plays")
    parser.add_argument("--workers", type=int, default=1, help="also run the koole line-up on this many processes")
    args = parser.parse_args()
    print(f"classic, 3 players x 6 sets of 4; python {sys.version.split()[0]}")
    print(f"{'line-up':45} {'workers':>7} {'games':>7} {'games/s/worker':>15} {'games/CPU s':>12} "
          f"{'decisions/game':>15} {'vs random':>10}")
    base: float | None = None  # the CPU rate of the first line-up (random), what the others are compared to
    rows = [(label, lineup, fixed, 1) for label, lineup, fixed in LINEUPS]
    if args.workers > 1:
        rows.insert(2, (LINEUPS[1][0], LINEUPS[1][1], None, args.workers))
    for label, lineup, fixed, workers in rows:
        rate, cpu, length, games = measure(lineup, args.seconds, fixed, workers)
        if base is None:
            base = cpu
        cpu_text = f"{cpu:>12,.1f}" if cpu is not None else f"{'-':>12}"
        ratio = f"{cpu / base:>9.2f}x" if cpu is not None and base is not None else f"{'-':>10}"
        print(f"{label:45} {workers:>7} {games:>7} {rate:>15,.1f} {cpu_text} {length:>15.1f} {ratio}")


if __name__ == "__main__":
    main()
