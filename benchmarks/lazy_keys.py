"""The lazy win solve's keys as codes against the keys as they are: ``python benchmarks/lazy_keys.py``.

Not a test. Run from the project root::

    python benchmarks/lazy_keys.py                                   # the default starts (about 3 minutes)
    python benchmarks/lazy_keys.py --starts 4x5x4:quaternity --positions 2000000

For each start ``PxNxS:PRESET`` the lazy win solve of seat 0 (:func:`quaternity_cp.lazywin.solve_win`) runs
twice in this process, up to ``--positions`` positions (or its answer): with its keys kept as their words' codes
(:class:`quaternity_cp.keystore.KeyStore`, the default) and as they are (``compress=False``). It prints, for each,
the positions, edges and CPU seconds (:func:`time.process_time`, the kernel compiled before either run), the
bytes a position of the arrays in use (``LazyResult.nbytes``: keys, dictionaries, hash table, counters and
edges) and of the keys alone, and the words a key is stored in; then the ratios of the bytes and of the seconds.
The two runs must reach the same positions and edges (the run fails otherwise).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from quaternity_cp import lazywin
from quaternity_cp.budget import Limits
from quaternity_cp.quartets.packed import QuaternityPacked
from quaternity_cp.quartets.rules import PRESETS, Rules

#: the default starts: wide keys (14 and 22 words) and a narrow one (5 words)
STARTS = ["11x11x2:quaternity-seat", "14x14x2:blind", "4x5x4:quaternity"]


def run(packed: QuaternityPacked, positions: int, compress: bool) -> dict[str, float]:
    began = time.process_time()
    res, lazy = lazywin.solve_win(packed, 0, limits=Limits(max_positions=positions), compress=compress)
    cpu = time.process_time() - began
    store = lazy.store
    return {"positions": res.positions, "edges": res.edges, "cpu": cpu, "bytes": res.nbytes / max(res.positions, 1),
            "keys": store.nbytes(lazy.n) / max(lazy.n, 1), "stride": store.stride,
            "verdict": -1 if res.verdict is None else int(res.verdict)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", default=",".join(STARTS), help="starts PxNxS:PRESET, comma-separated")
    parser.add_argument("--positions", type=int, default=1_000_000, help="positions of each run at most "
                        "(default 1,000,000)")
    args = parser.parse_args()
    rows = []
    QuaternityPacked(2, 2, 2, Rules.preset("quaternity")).expand(np.zeros((0, 1), np.uint64))  # (compiled first)
    for text in (t.strip() for t in args.starts.split(",") if t.strip()):
        start, _, preset = text.partition(":")
        preset = preset or "quaternity"
        if preset not in PRESETS:
            parser.error(f"{text}: unknown preset {preset!r}")
        P, N, S = (int(x) for x in start.split("x"))
        packed = QuaternityPacked(P, N, S, Rules.preset(preset))
        lazywin.solve_win(packed, 0, limits=Limits(max_positions=1000))  # (its helpers compiled)
        codes = run(packed, args.positions, True)
        plain = run(packed, args.positions, False)
        if (codes["positions"], codes["edges"], codes["verdict"]) != (plain["positions"], plain["edges"],
                                                                      plain["verdict"]):
            sys.exit(f"{text}: the two runs differ: {codes} against {plain}")
        rows.append((text, packed.width, codes, plain))
        print(f"  {text}: {codes['positions']:,} positions", flush=True)
    head = ["start", "positions", "key words", "stored words", "B/pos codes", "B/pos plain", "plain / codes",
            "keys B/pos codes", "keys B/pos plain", "cpu s codes", "cpu s plain", "codes / plain cpu"]
    body = [[t, f"{c['positions']:,}", str(w), str(c["stride"]), f"{c['bytes']:.1f}", f"{p['bytes']:.1f}",
             f"{p['bytes'] / c['bytes']:.2f}x", f"{c['keys']:.1f}", f"{p['keys']:.1f}", f"{c['cpu']:.1f}",
             f"{p['cpu']:.1f}", f"{c['cpu'] / p['cpu']:.2f}"] for t, w, c, p in rows]
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(head)]
    print("  ".join(h.rjust(x) for h, x in zip(head, widths)))
    print("  ".join("-" * x for x in widths))
    for r in body:
        print("  ".join(c.rjust(x) for c, x in zip(r, widths)))


if __name__ == "__main__":
    main()
