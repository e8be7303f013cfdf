"""Quaternity's compiled expansion against the Python path, on the same positions: ``python benchmarks/packed_expand.py``.

Not a test. Run from the project root::

    python benchmarks/packed_expand.py                      # 4x4x4 and 3x4x3 under quaternity (about a minute)
    python benchmarks/packed_expand.py --starts 4x4x4 --preset blind --positions 10000

For each start it walks the packed graph breadth first (by the compiled kernel) until a layer holds at least
``--positions`` positions, then expands the first ``--positions`` of that layer with the compiled kernel
(:mod:`quaternity_cp.quartets.packed_nb`, numba's code loaded before any clock runs) and the first
``--python`` of them with the Python path (``QuaternityPacked.expand_python``: the in-memory solver's fast path,
its caches warmed on a few positions first), checks that the rows of the positions both expanded are equal,
and prints positions a second of each and their ratio. The times are wall-clock in this process, so only the
ratio, measured in this run, means anything on another machine.

The compiled kernel is also timed with every child analysed (``C_REUSE`` off: a forced answer's child analysed
again rather than given the asked position's analysis), on the same positions, the two ways taken in turn
``--repeat`` times (the best time of each): "reuse" is that time over the kernel's, and the rows must be equal.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from quaternity_cp.quartets import packed_nb
from quaternity_cp.quartets.packed import PackedError, QuaternityPacked, _config, check_start
from quaternity_cp.quartets.rules import PRESETS, Rules


def layer_of(packed: QuaternityPacked, at_least: int) -> np.ndarray:
    """The first layer of at least ``at_least`` positions (or the last one)."""
    start, _ = packed.start()
    seen = {tuple(start.tolist())}
    frontier = start.reshape(1, -1)
    while len(frontier) < at_least:
        out = packed.expand(frontier)
        nxt = []
        for row in out["keys"][out["end"] == -2].tolist():
            t = tuple(row)
            if t not in seen:
                seen.add(t)
                nxt.append(row)
        if not nxt:
            break
        frontier = np.array(nxt, np.uint64).reshape(-1, packed.width)
    return frontier


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", default="4x4x4,3x4x3", help="starts PxNxS, comma-separated")
    parser.add_argument("--preset", default="quaternity", choices=sorted(p for p in PRESETS if p != "classic"))
    parser.add_argument("--positions", type=int, default=5000, help="positions the kernel expands (default 5000)")
    parser.add_argument("--python", type=int, default=1000, help="of them, those the Python path expands")
    parser.add_argument("--repeat", type=int, default=3, help="compiled timings of each way, taken in turn")
    args = parser.parse_args()
    rules = Rules.preset(args.preset)
    print(f"preset {args.preset}; positions a second, one process")
    print(f"{'start':>6} {'layer size':>10} {'compiled pos/s':>15} {'Python pos/s':>13} {'ratio':>7} "
          f"{'every child analysed pos/s':>27} {'reuse':>6}")
    for text in args.starts.split(","):
        try:
            a, b, c = (int(x) for x in text.strip().split("x"))
            P, N, S = check_start(a, b, c, rules)
        except (PackedError, TypeError, ValueError) as err:
            parser.error(f"{text}: {err}")
        fast = QuaternityPacked(P, N, S, rules, kernel="numba")
        slow = QuaternityPacked(P, N, S, rules, kernel="python")
        keys = layer_of(fast, args.positions)[: args.positions]
        cfg = _config(fast)
        best = {1: float("inf"), 0: float("inf")}
        outs = {}
        for _ in range(max(1, args.repeat)):
            for reuse in (1, 0):
                cfg[packed_nb.C_REUSE] = reuse
                began = time.perf_counter()
                outs[reuse] = fast.expand(keys)
                best[reuse] = min(best[reuse], time.perf_counter() - began)
        cfg[packed_nb.C_REUSE] = 1
        got = outs[1]
        assert all(np.array_equal(got[name], outs[0][name]) for name in got), f"{text}: reuse changed the rows"
        fast_rate = len(keys) / best[1]
        plain_rate = len(keys) / best[0]
        few = keys[: args.python]
        slow.expand_python(few[:50])  # (the solver's caches warmed)
        began = time.perf_counter()
        want = slow.expand_python(few)
        slow_rate = len(few) / (time.perf_counter() - began)
        rows = int(np.searchsorted(got["src"], len(few)))
        same = all(np.array_equal(got[name][:rows], want[name]) for name in ("keys", "src", "off", "move", "end"))
        assert same, f"{text}: the compiled rows differ from the Python path's"
        print(f"{text:>6} {len(keys):>10,} {fast_rate:>15,.0f} {slow_rate:>13,.0f} {fast_rate / slow_rate:>6.1f}x "
              f"{plain_rate:>27,.0f} {fast_rate / plain_rate:>5.2f}x")


if __name__ == "__main__":
    main()
