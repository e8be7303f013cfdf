"""The lazy win solve's two ways of widening the opponents' moves, side by side on the same starts.

Not a test. Run from the project root::

    python benchmarks/lazy_widening.py                      # the default starts, 300 s and 5 million positions each
    python benchmarks/lazy_widening.py --starts 3x6x3:pythagoras 4x3x4:quaternity --max-seconds 120
    python benchmarks/lazy_widening.py --json out.json      # also every row as JSON
    python benchmarks/lazy_widening.py --ranks              # ranks updated round to round against recomputed

The in-memory ``win`` solve (:meth:`quaternity_cp.quartets.solver.graph.GameGraph.build_lazy`) explores every
move of the player and, at first, one move of each opponent; while the player's attractor holds the start it
widens the opponents' moves. Two ways are timed here, one after the other in this process, on the start of
each game for seat 0:

- ``strategy`` (the solver's way): each opponent node that the player's current strategy meets gets its next
  move in the defence order;
- ``attractor`` (the earlier way, the baseline): every opponent node inside the attractor gets all its moves.

Both are exact (tests/test_incremental_solver.py checks them against the whole graph); what differs is how
much of the graph they explore. A row prints the answer (the two must agree), positions, widening rounds and
seconds, and the ratios attractor / strategy (above 1: the strategy way explores fewer positions, or takes less
time; "-" when a run takes under 0.05 s). A run stopped by a limit has its positions and seconds at the stop:
its ratio is then a bound, marked ">" (the baseline stopped: at least this) or "<" (the strategy way stopped),
and the answer column gives the other's. The geometric mean of
the position ratios over the rows both proved closes the table.

``--ranks`` compares instead two ways of ranking each round, both widening the solver's way: the earlier one
builds the predecessor lists and the whole attractor again every round; the solver's keeps the lists and ranks
again only the positions added and the ancestors of a widened one (``incremental=True``, checked against the
whole attractor every round by tests/test_incremental_solver.py). The answer, positions and rounds must be the
same; a row prints the seconds spent ranking and in all, and their ratios earlier / updated.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # this checkout first

from quaternity_cp import Game, Position, Rules  # noqa: E402
from quaternity_cp.budget import Budget, Limits, Stopped  # noqa: E402
from quaternity_cp.quartets.solver.api import cannot_win, opponent_order  # noqa: E402
from quaternity_cp.quartets.solver.core import Context  # noqa: E402
from quaternity_cp.quartets.solver.graph import GameGraph  # noqa: E402

#: starts of every preset whose seat-0 "no" takes 10,000 to 3 million positions the earlier way, and two yeses
STARTS = ["3x3x4:quaternity", "3x6x3:pythagoras", "4x4x3:pythagoras", "4x10x2:quaternity", "5x5x3:pythagoras",
          "4x3x4:pythagoras", "6x6x3:blind", "4x3x4:quaternity", "2x12x4:blind", "2x16x4:quaternity"]


def parse_start(text: str) -> tuple[tuple[int, int, int], str]:
    size, _, preset = text.partition(":")
    p, n, s = (int(x) for x in size.split("x"))
    return (p, n, s), preset or "quaternity"


def run(size: tuple[int, int, int], preset: str, widen: str, max_seconds: float, max_positions: int,
        incremental: bool = True) -> dict[str, Any]:
    pos = Position(Game(*size), Rules.preset(preset))
    ctx = Context(pos.game, pos.rules, "sets")
    graph = GameGraph(ctx, cannot_win(pos.rules, 0))
    ranking = 0.0  # the seconds spent ranking, whichever way (the kept predecessor lists' upkeep aside)
    inside = False
    for name in ("win_ranks", "attractor", "_rerank"):
        def timed(*args: Any, _f: Any = getattr(graph, name)) -> Any:
            nonlocal ranking, inside
            if inside:  # win_ranks's own attractor: counted in win_ranks
                return _f(*args)
            inside, t = True, time.perf_counter()
            try:
                return _f(*args)
            finally:
                inside = False
                ranking += time.perf_counter() - t
        setattr(graph, name, timed)
    budget = Budget(Limits(max_positions, max_seconds))
    began = time.perf_counter()
    try:
        rid, rank = graph.build_lazy(ctx.search_root(ctx.describe(pos.state)), 0, order=opponent_order(ctx, 0),
                                     budget=budget, widen=widen, incremental=incremental)
        answer = ("yes" if rid in rank else "no")
    except Stopped:
        answer = "unproven"
    return {"answer": answer, "positions": len(graph), "rounds": graph.rounds,
            "seconds": round(time.perf_counter() - began, 2), "ranking_seconds": round(ranking, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--starts", nargs="+", default=STARTS, metavar="PxNxS:PRESET")
    ap.add_argument("--max-seconds", type=float, default=300.0)
    ap.add_argument("--max-positions", type=int, default=5_000_000)
    ap.add_argument("--json", default=None, metavar="FILE")
    ap.add_argument("--ranks", action="store_true",
                    help="compare instead the ranks updated round to round (the solver's way) with the whole "
                         "attractor and its predecessor lists computed again every round (the earlier way), "
                         "both widening where the strategy meets the opponents")
    args = ap.parse_args()
    if args.ranks:
        compare_ranks(args)
        return
    rows = []
    print(f"{'start':<22} {'answer':>9} | {'positions':>21} {'ratio':>6} | {'rounds':>9} | {'seconds':>15} {'ratio':>6}")
    print(f"{'':<22} {'':>9} | {'attractor':>10} {'strategy':>10} {'':>6} | {'att':>4} {'str':>4} | "
          f"{'attractor':>7} {'strategy':>7} {'':>6}")
    for text in args.starts:
        size, preset = parse_start(text)
        base = run(size, preset, "attractor", args.max_seconds, args.max_positions)
        new = run(size, preset, "strategy", args.max_seconds, args.max_positions)
        if "unproven" not in (base["answer"], new["answer"]) and base["answer"] != new["answer"]:
            raise SystemExit(f"{text}: the two ways disagree ({base['answer']} against {new['answer']})")
        answer = new["answer"] if new["answer"] != "unproven" else base["answer"]
        pr = base["positions"] / new["positions"]
        sr = base["seconds"] / new["seconds"] if min(base["seconds"], new["seconds"]) >= 0.05 else None
        rows.append({"start": text, "answer": answer, "attractor": base, "strategy": new,
                     "position_ratio": round(pr, 3), "seconds_ratio": None if sr is None else round(sr, 3)})
        label = f"{size[0]}x{size[1]}x{size[2]} {preset}"
        # a side stopped by a limit: its positions are a floor, the ratio a bound (> or <), the answer the other's
        bound = ">" if base["answer"] == "unproven" else "<" if new["answer"] == "unproven" else ""
        if base["answer"] == "unproven" and new["answer"] == "unproven":
            bound = "?"
        print(f"{label:<22} {answer:>9} | {base['positions']:>10,} {new['positions']:>10,} "
              f"{bound + format(pr, '.2f'):>6} | "
              f"{base['rounds']:>4} {new['rounds']:>4} | {base['seconds']:>7.1f} {new['seconds']:>7.1f} "
              f"{'-' if sr is None else format(sr, '.2f'):>6}",
              flush=True)
    proved = [r for r in rows if "unproven" not in (r["attractor"]["answer"], r["strategy"]["answer"])]
    close(rows, [r["position_ratio"] for r in proved], "position", args.json)


def close(rows: list[dict[str, Any]], ratios: list[float], what: str, path: str | None) -> None:
    """The table's last line, the geometric mean of ``ratios`` (the rows both ways proved), and the rows as JSON
    to ``path`` (written whole, then moved into place)."""
    if ratios:
        mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"geometric mean of the {what} ratios over the {len(ratios)} starts both proved: {mean:.2f}")
    if path:
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(rows, f, indent=1)
        os.replace(tmp, path)


def compare_ranks(args: argparse.Namespace) -> None:
    """``--ranks``: each start solved with the ranks computed again every round, then updated round to round."""
    rows = []
    print(f"{'start':<22} {'answer':>9} {'positions':>10} {'rounds':>6} | {'ranking seconds':>17} {'ratio':>6} | "
          f"{'seconds':>15} {'ratio':>6}")
    print(f"{'':<22} {'':>9} {'':>10} {'':>6} | {'earlier':>8} {'updated':>8} {'':>6} | "
          f"{'earlier':>7} {'updated':>7} {'':>6}")
    for text in args.starts:
        size, preset = parse_start(text)
        base = run(size, preset, "strategy", args.max_seconds, args.max_positions, incremental=False)
        new = run(size, preset, "strategy", args.max_seconds, args.max_positions, incremental=True)
        both = "unproven" not in (base["answer"], new["answer"])
        if both and (base["answer"], base["positions"], base["rounds"]) != (
                new["answer"], new["positions"], new["rounds"]):
            raise SystemExit(f"{text}: the two ways disagree ({base} against {new})")
        rr = base["ranking_seconds"] / new["ranking_seconds"] if new["ranking_seconds"] >= 0.01 else None
        sr = base["seconds"] / new["seconds"] if min(base["seconds"], new["seconds"]) >= 0.05 else None
        rows.append({"start": text, "earlier": base, "updated": new, "ranking_ratio": rr, "seconds_ratio": sr})
        label = f"{size[0]}x{size[1]}x{size[2]} {preset}"
        answer = new["answer"] if new["answer"] != "unproven" else base["answer"]
        print(f"{label:<22} {answer:>9} {new['positions']:>10,} {new['rounds']:>6} | "
              f"{base['ranking_seconds']:>8.2f} {new['ranking_seconds']:>8.2f} "
              f"{'-' if rr is None else format(rr, '.1f'):>6} | {base['seconds']:>7.1f} {new['seconds']:>7.1f} "
              f"{'-' if sr is None else format(sr, '.2f'):>6}", flush=True)
    close(rows, [r["seconds_ratio"] for r in rows if r["seconds_ratio"] is not None and "unproven" not in (
        r["earlier"]["answer"], r["updated"]["answer"])], "seconds", args.json)


if __name__ == "__main__":
    main()
