"""Time a full ``analyze`` of mid-game positions: flow engine against CP-SAT, in one run.

Positions come from a random deal: some questions are played out on it (each
adds what docs/rules.md says: the asker does not hold the card and holds one of its
set; a yes moves the card, a no takes the asked seat out of its domain), then
some sets are claimed by their holders. The deal satisfies every constraint, so
every position is valid.

The start of a game (no constraint but the hand sizes) is timed too: every
seat may hold every set, so it has the most quartets to decide.

Also timed: the same analysis with OR-Tools' ``SimpleMaxFlow`` (C++) finding
the first flow and deciding quartets by capacity changes, the alternative the
flow engine was measured against.

    python benchmarks/engines.py            # every size
    python benchmarks/engines.py --quick    # fewer positions and sizes
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quaternity_cp.quartets.constraints import Constraints, bits  # noqa: E402
from quaternity_cp.quartets.engines import Analysis, CpSatEngine, FlowEngine  # noqa: E402
from quaternity_cp.quartets.engines.base import infeasible_analysis  # noqa: E402
from quaternity_cp.quartets.engines.flow import _Deal  # noqa: E402

SIZES = [(32, 4), (52, 6), (128, 8), (400, 10), (1000, 20)]  # (cards, players)
SET_SIZE = 4
CPSAT_LIMIT = 2.0  # seconds per call; larger sizes are not timed with CP-SAT


def mid_game(cards: int, players: int, rng: random.Random) -> Constraints:
    """A valid position some way into a game, derived from a random deal."""
    S, P = SET_SIZE, players
    N = cards // S
    holder = [p % P for p in range(cards)]
    rng.shuffle(holder)
    hands = [holder.count(p) for p in range(P)]
    full = (1 << P) - 1
    dom = [full] * cards
    lo = [[0] * N for _ in range(P)]
    hi = [[S] * N for _ in range(P)]
    for _ in range(cards // 2):  # questions
        x = rng.randrange(P)
        own = {c // S for c in range(cards) if holder[c] == x}
        asked = [c for c in range(cards) if c // S in own and holder[c] != x]
        if not asked:
            continue
        c = rng.choice(asked)
        s = c // S
        y = holder[c] if rng.random() < 0.4 else rng.choice([q for q in range(P) if q != x])
        dom[c] &= ~(1 << x)
        lo[x][s] = max(lo[x][s], 1)
        if holder[c] == y:  # yes: the card moves to the asker
            dom[c] = 1 << x
            hands[y] -= 1
            hands[x] += 1
            lo[x][s] += 1
            hi[x][s] = min(S, hi[x][s] + 1)
            lo[y][s] = max(0, lo[y][s] - 1)
            hi[y][s] -= 1
            holder[c] = x
        else:
            dom[c] &= ~(1 << y)
    in_play = [True] * N
    for s in rng.sample(range(N), N // 4):  # claimed sets leave every hand that held them
        in_play[s] = False
        for c in range(s * S, (s + 1) * S):
            hands[holder[c]] -= 1
    return Constraints(
        players=P,
        set_size=S,
        in_play=tuple(in_play),
        hands=tuple(hands),
        domains=tuple(dom),
        lo=tuple(map(tuple, lo)),
        hi=tuple(map(tuple, hi)),
    )


def game_start(cards: int, players: int) -> Constraints:
    """No question asked yet: any deal with hands as even as the cards allow."""
    c = Constraints.initial(players, cards // SET_SIZE, SET_SIZE)
    return replace(c, hands=tuple(cards // players + (p < cards % players) for p in range(players)))


class OrToolsFlow:
    """The flow engine's analysis with OR-Tools ``SimpleMaxFlow`` for the flows (the measured alternative).

    The network is built in one call from arrays; the possible owners come from
    the same residual graph as in the flow engine; a quartet candidate not shown
    by the first flow is decided by closing the other arcs of its cards and
    solving again.
    """

    name = "ortools-maxflow"

    def analyze(self, c: Constraints) -> Analysis:
        import numpy as np
        from ortools.graph.python import max_flow

        deal = _Deal.of(c)
        if deal is None:
            return infeasible_analysis(c)
        P, S, NP, live = deal.P, deal.S, deal.NP, deal.live
        m = len(deal.dom)
        # nodes: 0 source, 1 sink, 2.. cards, then (p, s), then free_p
        card0, set0, free0 = 2, 2 + m, 2 + m + NP
        tails, heads, caps = [], [], []

        def add_arc(tail: int, head: int, cap: int) -> int:
            tails.append(tail)
            heads.append(head)
            caps.append(cap)
            return len(tails) - 1

        card_arcs = []  # per card: (seat, arc)
        for i, d in enumerate(deal.dom):
            add_arc(0, card0 + i, 1)
            card_arcs.append([(p, add_arc(card0 + i, set0 + i // S * P + p, 1)) for p in bits(d)])
        for v in range(NP):
            add_arc(set0 + v, 1, deal.lo[v])
            add_arc(set0 + v, free0 + v % P, deal.hi[v] - deal.lo[v])
        for p in range(P):
            add_arc(free0 + p, 1, deal.room[p])
        flow = max_flow.SimpleMaxFlow()
        flow.add_arcs_with_capacity(np.array(tails), np.array(heads), np.array(caps))
        if flow.solve(0, 1) != flow.OPTIMAL or flow.optimal_flow() < m:
            return infeasible_analysis(c)
        for i, arcs in enumerate(card_arcs):
            for p, arc in arcs:
                if flow.flow(arc):
                    deal._move(i, i // S * P + p)
        owners = [0] * len(c.domains)
        quartets = [0] * c.sets
        possible = deal.possible_owners()
        for i, mask in enumerate(possible):
            owners[live[i // S] * S + i % S] = mask
        for k, p in deal.quartet_candidates(possible):
            if deal.count[k * P + p] < S:
                others = [arc for i in range(k * S, (k + 1) * S) for q, arc in card_arcs[i] if q != p]
                for arc in others:
                    flow.set_arc_capacity(arc, 0)
                flow.solve(0, 1)
                whole = flow.optimal_flow() == m
                for arc in others:
                    flow.set_arc_capacity(arc, 1)
                if not whole:
                    continue
            quartets[live[k]] |= 1 << p
        return Analysis(True, tuple(owners), tuple(quartets))


def median_time(engine, positions, repeat: int) -> float:
    times = []
    for c in positions:
        for _ in range(repeat):
            start = time.perf_counter()
            engine.analyze(c)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer positions, sizes up to 128 cards")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    sizes = SIZES[:3] if args.quick else SIZES
    count = 5 if args.quick else 20
    flow, cpsat, ortools = FlowEngine(), CpSatEngine(), OrToolsFlow()
    cpsat_too = {"mid-game": True, "start": True}  # until a call takes CPSAT_LIMIT
    print(f"median time of one full analyze (python {sys.version.split()[0]}); or-flow: {(OrToolsFlow.__doc__ or "").splitlines()[0]}")
    print(f"{'position':>9} {'cards':>5} {'seats':>5} {'flow ms':>9} {'or-flow ms':>10} {'cpsat ms':>9}"
          f" {'cpsat/flow':>10} {'or/flow':>8}")
    for cards, players in sizes:
        for kind in ("mid-game", "start"):
            if kind == "start":
                positions = [game_start(cards, players)]
            else:
                positions = [mid_game(cards, players, rng) for _ in range(count)]
            expected = [flow.analyze(c) for c in positions]
            assert all(a.feasible for a in expected)
            repeat = max(1, 400 // cards // len(positions) * (5 if kind == "start" else 1))
            t_flow = median_time(flow, positions, repeat)
            assert [ortools.analyze(c) for c in positions] == expected
            t_or = median_time(ortools, positions, repeat)
            t_cpsat = None
            if cpsat_too[kind]:
                start = time.perf_counter()
                first = cpsat.analyze(positions[0])
                if time.perf_counter() - start < CPSAT_LIMIT:
                    assert first == expected[0]
                    assert [cpsat.analyze(c) for c in positions[1:]] == expected[1:]
                    t_cpsat = median_time(cpsat, positions, 1)
                cpsat_too[kind] = t_cpsat is not None and t_cpsat < CPSAT_LIMIT
            cp = f"{t_cpsat * 1e3:9.2f} {t_cpsat / t_flow:10.1f}" if t_cpsat else f"{'-':>9} {'-':>10}"
            print(f"{kind:>9} {cards:5} {players:5} {t_flow * 1e3:9.3f} {t_or * 1e3:10.3f} {cp} {t_or / t_flow:8.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
