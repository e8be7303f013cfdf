"""Time exact deal counting (quaternity_cp.quartets.count) on random mid-game positions.

Not a test. Run from the project root::

    python benchmarks/count.py                  # every size, 7 positions each
    python benchmarks/count.py --positions 3 --probabilities --sizes 4x8x4

A position is made by dealing the cards at random and playing random truthful
questions (half of them to the true holder of the card, so that yes answers
move cards) with the constraint updates of docs/rules.md; a set is claimed when all
its cards are known to be with one seat. "Mid-game" is after
``moves_per_card * cards`` answered questions. Prints, per size, the median
and the largest time to count, the largest DP table (for a position given up:
where it stopped), and (optionally) the
time for all card and quartet probabilities and 100 samples. Positions whose
tables outgrow ``--max-states`` are given up (counted in "done" as missing,
with the time spent before giving up).

52 cards cannot be dealt evenly to 6 players, so the 52-card sizes are 4
players x 13 sets of 4 and, for 6 players, 12 sets of 4 (48 cards).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from dataclasses import replace

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from quaternity_cp.quartets.constraints import Constraints  # noqa: E402
from quaternity_cp.quartets.count import CountLimitError, DealCounter  # noqa: E402

SIZES = {
    "4x8x4": (4, 8, 4),
    "4x13x4": (4, 13, 4),
    "6x12x4": (6, 12, 4),
    "8x16x8": (8, 16, 8),
}


def _set_bound(rows, p, s, value):
    row = list(rows[p])
    row[s] = value
    return rows[:p] + (tuple(row),) + rows[p + 1:]


def mid_game(players: int, sets: int, set_size: int, seed: int, moves_per_card: float = 0.5) -> Constraints:
    """A random position after some truthful questions (see the module docstring)."""
    rnd = random.Random(seed)
    P, N, S = players, sets, set_size
    cards = list(range(N * S))
    rnd.shuffle(cards)
    hand = N * S // P
    owner = {card: i // hand for i, card in enumerate(cards)}
    c = Constraints.initial(P, N, S)
    turn = 0
    for _ in range(int(moves_per_card * N * S)):
        live = c.sets_in_play
        if not live:
            break
        if c.hands[turn] == 0:
            turn = rnd.choice([p for p in range(P) if c.hands[p]])
        mine = [s for s in live if any(owner[x] == turn for x in c.cards_of(s))]
        askable = [x for s in mine for x in c.cards_of(s) if owner[x] != turn]
        targets = [p for p in range(P) if p != turn and c.hands[p]]
        if not askable or not targets:
            turn = rnd.choice(targets) if targets else turn
            continue
        card = rnd.choice(askable)
        s = card // S
        y = owner[card] if rnd.random() < 0.5 else rnd.choice(targets)
        # the question: the asker does not hold the card and holds one of its set
        c = c.restrict(card, ~(1 << turn)).with_bounds(turn, s, lo=1)
        if owner[card] == y:  # yes: the card moves to the asker
            lo, hi = c.lo, c.hi
            lo = _set_bound(lo, turn, s, lo[turn][s] + 1)
            hi = _set_bound(hi, turn, s, min(S, hi[turn][s] + 1))
            lo = _set_bound(lo, y, s, max(0, lo[y][s] - 1))
            hi = _set_bound(hi, y, s, hi[y][s] - 1)
            hands = list(c.hands)
            hands[turn] += 1
            hands[y] -= 1
            domains = list(c.domains)
            domains[card] = 1 << turn
            c = replace(c, lo=lo, hi=hi, hands=tuple(hands), domains=tuple(domains))
            owner[card] = turn
        else:  # no: the asked player does not hold it; it moves next
            c = c.restrict(card, ~(1 << y))
            turn = y
        # claim sets visibly with one seat
        for t in c.sets_in_play:
            doms = {c.domains[x] for x in c.cards_of(t)}
            if len(doms) == 1 and bin(next(iter(doms))).count("1") == 1:
                p = next(iter(doms)).bit_length() - 1
                in_play = list(c.in_play)
                in_play[t] = False
                hands = list(c.hands)
                hands[p] -= S
                c = replace(c, in_play=tuple(in_play), hands=tuple(hands))
    return c


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=",".join(SIZES), help="comma-separated, from: " + ", ".join(SIZES))
    ap.add_argument("--positions", type=int, default=7, help="random positions per size")
    ap.add_argument("--moves", type=float, default=0.5, help="answered questions per card before timing")
    ap.add_argument("--max-states", type=int, default=100_000, help="give up on a position beyond this table size")
    ap.add_argument("--probabilities", action="store_true", help="also time probabilities and 100 samples")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    head = f"{'size':>8} {'cards':>5} {'done':>5} {'median s':>9} {'max s':>8} {'states':>8} {'gave up after s':>15}"
    if args.probabilities:
        head += f" {'probs median s':>14} {'100 samples s':>13}"
    print(head)
    for name in args.sizes.split(","):
        P, N, S = SIZES[name]
        times, gave_up, probs, samples, states = [], [], [], [], []
        for k in range(args.positions):
            c = mid_game(P, N, S, seed=args.seed * 1000 + k, moves_per_card=args.moves)
            counter = DealCounter(c, max_states=args.max_states)
            t = time.perf_counter()
            try:
                n = counter.count()
            except CountLimitError:
                gave_up.append(time.perf_counter() - t)
                continue
            finally:
                states.append(counter.states)
            times.append(time.perf_counter() - t)
            assert n > 0, "a position of a real game has a consistent deal"
            if args.probabilities:
                fresh = DealCounter(c, max_states=args.max_states)
                t = time.perf_counter()
                try:
                    fresh.card_probabilities()
                    fresh.quartet_probabilities()
                except CountLimitError:
                    continue
                probs.append(time.perf_counter() - t)
                t = time.perf_counter()
                fresh.sample(100, random.Random(k))
                samples.append(time.perf_counter() - t)

        def show(values, width):
            return f"{statistics.median(values):>{width}.4f}" if values else f"{'-':>{width}}"

        line = (f"{name:>8} {N * S:>5} {len(times):>2}/{args.positions:<2} {show(times, 9)}"
                f" {f'{max(times):.4f}' if times else '-':>8} {max(states):>8} {show(gave_up, 15)}")
        if args.probabilities:
            line += f" {show(probs, 14)} {show(samples, 13)}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
