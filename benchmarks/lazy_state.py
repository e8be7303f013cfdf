"""What keeping the lazy win solve's state costs: ``python benchmarks/lazy_state.py``.

Not a test. Run from the project root::

    python benchmarks/lazy_state.py                                  # the default starts (about 2 minutes)
    python benchmarks/lazy_state.py --starts 4x5x4:quaternity --positions 20000000 --folder /big/disk/tmp

For each start ``PxNxS:PRESET`` the lazy win solve of seat 0 (:func:`quaternity_cp.lazywin.solve_win`, the
kernel compiled before) runs up to ``--positions`` positions (or its answer); then its state is saved to a new
folder (:func:`quaternity_cp.lazystate.save`) and read back (:func:`quaternity_cp.lazystate.open_lazy`) twice,
the second read with the files in the system's cache. It prints the solve's seconds, the save's and the reads'
seconds and their ratios to the solve's (what a save every ``--save-every`` seconds costs: the save's share of the
time it covers), the bytes on disk a position against the arrays' in memory, and checks that the state read back
is the solve's (its counts, edges and keys).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

import numpy as np

from quaternity_cp import lazystate, lazywin
from quaternity_cp.budget import Limits
from quaternity_cp.quartets.packed import QuaternityPacked
from quaternity_cp.quartets.rules import PRESETS, Rules

#: the default starts: a narrow key (4x4x4, 4 words) and a wide one (11x11x2, 14 words)
STARTS = ["4x4x4:blind", "11x11x2:quaternity-seat"]


def measure(packed: QuaternityPacked, positions: int, root: str) -> dict[str, float]:
    began = time.perf_counter()
    res, lazy = lazywin.solve_win(packed, 0, limits=Limits(max_positions=positions))
    solve = time.perf_counter() - began
    folder = tempfile.mkdtemp(dir=root)
    try:
        began = time.perf_counter()
        written = lazystate.save(lazy, folder)
        save = time.perf_counter() - began
        reads = []
        for _ in range(2):
            began = time.perf_counter()
            back, data = lazystate.open_lazy(folder, packed, 0, expect=positions)
            reads.append(time.perf_counter() - began)
            assert data is not None and (back.n, back.m, back.expanded) == (lazy.n, lazy.m, lazy.expanded)
            assert np.array_equal(back.es[:back.m], lazy.es[:lazy.m])
            assert np.array_equal(back.keys_of(np.arange(2, back.n)), lazy.keys_of(np.arange(2, lazy.n)))
            lazystate.close(back)
            del back
    finally:
        shutil.rmtree(folder)
    n = max(res.positions, 1)
    return {"positions": res.positions, "solve": solve, "save": save, "cold": reads[0], "warm": reads[1],
            "disk": written / n, "memory": res.nbytes / n}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--starts", default=",".join(STARTS), help="comma-separated PxNxS:PRESET")
    ap.add_argument("--positions", type=int, default=2_000_000, help="positions each solve stops at")
    ap.add_argument("--folder", default=None, help="where the states are written (default: the system's temp)")
    args = ap.parse_args()
    root = args.folder or tempfile.gettempdir()
    lazywin.solve_win(QuaternityPacked(2, 4, 2, Rules.preset("quaternity")), 0)  # (the kernels compiled first)
    print(f"{'start':<26}{'positions':>12}{'solve s':>9}{'save s':>8}{'read s':>8}{'again s':>8}"
          f"{'save/solve':>11}{'read/solve':>11}{'disk B/pos':>11}{'mem B/pos':>10}")
    for spec in args.starts.split(","):
        game, preset = spec.split(":")
        P, N, S = (int(x) for x in game.split("x"))
        if preset not in PRESETS:
            sys.exit(f"unknown preset {preset}")
        r = measure(QuaternityPacked(P, N, S, Rules.preset(preset)), args.positions, root)
        print(f"{spec:<26}{r['positions']:>12,}{r['solve']:>9.1f}{r['save']:>8.2f}{r['cold']:>8.2f}{r['warm']:>8.2f}"
              f"{r['save'] / r['solve']:>11.4f}{r['cold'] / r['solve']:>11.4f}{r['disk']:>11.1f}{r['memory']:>10.1f}")
        sys.stdout.flush()
    os.sync()


if __name__ == "__main__":
    main()
