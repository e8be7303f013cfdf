"""The compiled deal analyses side by side: ``python benchmarks/deal_analysis.py``.

Not a test. Run from the project root (numba needed: the ``fast`` extra)::

    python benchmarks/deal_analysis.py                        # the default shapes (about a minute, compiling included)
    python benchmarks/deal_analysis.py --shapes 4x4x4,12x12x2 --instances 500 --reps 10

For each shape ``PxKxS`` (P seats, K sets of S cards) it draws ``--instances`` random instances with a deal (a random
deal, domains that contain it, most widened by random seats, lower bounds of at most 1 around it, upper bounds S:
positions of the early game, where most cards may be anywhere), then times, in the same run, each analysis over
all of them ``--reps`` times inside one compiled loop (no Python call per analysis):

- the radix DP (:func:`quaternity_cp.quartets.deals_nb.analyze`, the reference, with a budget large enough for
  every shape here);
- the flow (:func:`quaternity_cp.quartets.flow_nb.analyze_flow_ws`, what the packed kernel analyses with, in one
  workspace, as the kernel calls it).

It prints microseconds an analysis for each and their ratio, then the same for the shape's open position (every
card's domain every seat, no bounds, equal hands: the start's analysis, where every seat may hold every set, the
costliest case of the flow's possible quartets), and checks that both found a deal in every instance and gave the
same owners and quartets on every one (the run fails otherwise). Times are wall-clock, so only the
ratio, measured in this run, means anything on another machine.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import numpy as np

DEFAULT_SHAPES = ["3x3x3", "3x4x3", "4x4x3", "4x4x4", "6x6x2", "8x8x2", "10x10x2", "12x12x2"]
#: the DP's state budget here (12 seats of 2 cards take 3^11 = 177,147 states)
DP_BUDGET = 1 << 24


def instances(P: int, K: int, S: int, n: int, seed: int) -> tuple[np.ndarray, ...]:
    """n instances with a deal: (doms, lo, hi, hands) stacked, each with a first axis of n."""
    rng = random.Random(seed)
    doms = np.zeros((n, K, S), np.int64)
    lo = np.zeros((n, K, P), np.int64)
    hi = np.full((n, K, P), S, np.int64)
    hands = np.zeros((n, P), np.int64)
    for j in range(n):
        for k in range(K):
            count = [0] * P
            for i in range(S):
                p = rng.randrange(P)
                count[p] += 1
                hands[j, p] += 1
                d = 1 << p
                if rng.random() < 0.7:
                    d |= rng.getrandbits(P)
                doms[j, k, i] = d
            for p in range(P):
                lo[j, k, p] = min(count[p], rng.choice((0, 0, 1)))
    return doms, lo, hi, hands


def open_position(P: int, K: int, S: int, n: int) -> tuple[np.ndarray, ...]:
    """n copies of the open position (None when the cards cannot be dealt evenly)."""
    doms = np.full((n, K, S), (1 << P) - 1, np.int64)
    lo = np.zeros((n, K, P), np.int64)
    hi = np.full((n, K, P), S, np.int64)
    hands = np.full((n, P), K * S // P, np.int64)
    return doms, lo, hi, hands


def _loops() -> tuple[Any, Any]:
    from numba import njit

    from quaternity_cp.quartets.deals_nb import analyze
    from quaternity_cp.quartets.flow_nb import analyze_flow_ws

    @njit(cache=False)
    def run_dp(doms, lo, hi, hands, K, own, quart, reps):
        found = 0
        for _ in range(reps):
            for j in range(doms.shape[0]):
                found += analyze(doms[j], lo[j], hi[j], K, hands[j], own[j], quart[j], DP_BUDGET)
        return found

    @njit(cache=False)
    def run_flow(doms, lo, hi, hands, K, own, quart, reps, ws):
        found = 0
        for _ in range(reps):
            for j in range(doms.shape[0]):
                found += analyze_flow_ws(doms[j], lo[j], hi[j], K, hands[j], own[j], quart[j], ws)
        return found

    return run_dp, run_flow


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", default=",".join(DEFAULT_SHAPES), help="PxKxS,... (default: %(default)s)")
    ap.add_argument("--instances", type=int, default=200)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    from quaternity_cp.quartets.flow_nb import flow_workspace

    run_dp, run_flow = _loops()
    n, reps = args.instances, args.reps
    print(f"{n} instances a shape, each analysed {reps} times by each (microseconds an analysis)")
    print(f"{'shape':>9} {'radix DP':>9} {'flow':>9} {'DP / flow':>10}   {'open: DP':>9} {'flow':>9} {'DP / flow':>10}")
    for shape in args.shapes.split(","):
        P, K, S = (int(x) for x in shape.lower().split("x"))
        row = f"{shape:>9}"
        for kind in ("random", "open"):
            if kind == "open" and K * S % P:
                row += f"   {'-':>9} {'-':>9} {'-':>10}"
                continue
            got = instances(P, K, S, n, args.seed) if kind == "random" else open_position(P, K, S, n)
            dp, fl = _time(shape, K, S, n, reps, got, run_dp, run_flow, flow_workspace(K, S, P))
            row += f"{'':3}" if kind == "open" else ""
            row += f" {dp:9.2f} {fl:9.2f} {dp / fl:9.2f}x"
        print(row)


def _time(shape: str, K: int, S: int, n: int, reps: int, got: tuple[np.ndarray, ...], run_dp: Any, run_flow: Any,
          ws: np.ndarray) -> tuple[float, float]:
    """Microseconds an analysis by each, on the instances ``got``, after checking they agree."""
    doms, lo, hi, hands = got
    own_dp = np.zeros((n, K, S), np.int64)
    q_dp = np.zeros((n, K), np.int64)
    own_fl = np.zeros((n, K, S), np.int64)
    q_fl = np.zeros((n, K), np.int64)
    # warm-up (compiles on the first shape) and the check: every instance has a deal, both agree
    if run_dp(doms, lo, hi, hands, K, own_dp, q_dp, 1) != n or run_flow(doms, lo, hi, hands, K, own_fl, q_fl, 1,
                                                                      ws) != n:
        raise SystemExit(f"{shape}: an instance without a deal (or past the DP's budget)")
    if not (np.array_equal(own_dp, own_fl) and np.array_equal(q_dp, q_fl)):
        raise SystemExit(f"{shape}: the analyses disagree")
    t = time.perf_counter()
    run_dp(doms, lo, hi, hands, K, own_dp, q_dp, reps)
    dp = (time.perf_counter() - t) / (n * reps) * 1e6
    t = time.perf_counter()
    run_flow(doms, lo, hi, hands, K, own_fl, q_fl, reps, ws)
    fl = (time.perf_counter() - t) / (n * reps) * 1e6
    return dp, fl


if __name__ == "__main__":
    main()
