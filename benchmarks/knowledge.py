"""What a seat's view costs: ``python benchmarks/knowledge.py [--games N]``.

Plays truthful random classic games (quaternity_cp.quartets.play.random_record) and, at
every decision of the player on turn, times its private view and exact analysis
(knowledge.private_knowledge(...).analysis) and its exact card probabilities,
with the caches cleared so that nothing is reused across calls. Prints medians
per table size.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from quaternity_cp import Game, Position
from quaternity_cp.quartets import knowledge
from quaternity_cp.quartets.classic import Table
from quaternity_cp.quartets.play import random_record
from quaternity_cp.quartets.formats import record_from_json


def clear() -> None:
    knowledge.clear_caches()


def measure(size: tuple[int, int, int], games: int) -> tuple[float, float, int]:
    view, probs, decisions = [], [], 0
    for seed in range(games):
        g = Game(*size)
        rec = record_from_json(random_record(g, "classic", random.Random(seed)))
        pos = Position(g, "classic", first=rec.first)
        assert rec.deal is not None  # a classic record carries its deal
        table = Table(g, rec.deal)
        for move in rec.moves:
            if not pos.over and pos.pending is None and not table.putdowns_due():
                x = pos.turn[0]
                clear()
                t0 = time.perf_counter()
                k = knowledge.private_knowledge(pos, x, table.hand(x))
                k.analysis
                t1 = time.perf_counter()
                k.card_probabilities()
                t2 = time.perf_counter()
                view.append(t1 - t0)
                probs.append(t2 - t1)
                decisions += 1
            pos.push(move)
            table.apply(move)
    return statistics.median(view) * 1000, statistics.median(probs) * 1000, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    print("| players x sets x size | decisions | view + analysis (ms) | card probabilities (ms) |")
    print("|---|---|---|---|")
    for size in [(3, 6, 4), (4, 8, 4), (4, 13, 4), (6, 12, 4)]:
        v, p, n = measure(size, args.games)
        print(f"| {size[0]} x {size[1]} x {size[2]} | {n} | {v:.2f} | {p:.2f} |")


if __name__ == "__main__":
    main()
