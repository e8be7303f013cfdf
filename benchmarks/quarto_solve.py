"""How far the exact Quarto solver reaches: empty cells -> median time and nodes.

For each number of empty cells, random reachable positions (careful random
play: nobody completes a line, and every player gives a piece that cannot win
at once whenever there is one; positions where the piece in hand wins at once
are drawn again) are solved three ways in the same run:

* ``solver``: :func:`quaternity_cp.quarto.solver.solve` (alpha-beta, safe-piece
  pruning, transposition table keyed by the canonical form under the 12,288
  symmetries);
* ``no table``: the same search without the transposition table (so without symmetry);
* ``plain``: a plain negamax alpha-beta written here: immediate wins first,
  every placement and every piece to give, no table, no symmetry, no safe-piece
  pruning; stopped at ``--plain-cap`` seconds (the ratio is then a lower bound, ">").

Times are CPU seconds of this process (the machine may be shared). Usage::

    python benchmarks/quarto_solve.py --empty 4-10 --positions 5

Prints a Markdown table (for the README).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from quaternity_cp.quarto import symmetry
from quaternity_cp.quarto.solver import ATTRS, solve

LINES = symmetry.lines()
LINES_AT = [[line for line in LINES if cell in line] for cell in range(16)]
LINES_AT_SQUARES = [[line for line in symmetry.lines(True) if cell in line] for cell in range(16)]


def wins_at(board, cell, squares: bool = False) -> bool:
    for line in (LINES_AT_SQUARES if squares else LINES_AT)[cell]:
        common = 255
        for c in line:
            p = board[c]
            if p is None:
                common = 0
                break
            common &= ATTRS[p]
        if common:
            return True
    return False


def random_position(rng: random.Random, empty: int, squares: bool = False):
    """A reachable position with ``empty`` empty cells whose piece in hand does not win at once."""
    while True:
        board: list[int | None] = [None] * 16
        left = list(range(16))
        hand = rng.choice(left)
        left.remove(hand)
        ok = True
        while board.count(None) > empty:
            cells = []
            for c in range(16):
                if board[c] is None:
                    board[c] = hand
                    if not wins_at(board, c, squares):
                        cells.append(c)
                    board[c] = None
            if not cells:
                ok = False
                break
            board[rng.choice(cells)] = hand
            free = [c for c in range(16) if board[c] is None]
            safe = [q for q in left if not any(_wins_with(board, c, q, squares) for c in free)]
            hand = rng.choice(safe or left)
            left.remove(hand)
        if ok and not any(_wins_with(board, c, hand, squares) for c in range(16) if board[c] is None):
            return board, hand


def _wins_with(board, cell, piece, squares: bool = False) -> bool:
    board[cell] = piece
    won = wins_at(board, cell, squares)
    board[cell] = None
    return won


class Stop(Exception):
    pass


def plain_alpha_beta(board, hand, cap_seconds: float):
    """Negamax alpha-beta with no table, no symmetry and no safe-piece pruning: ``(value or None, nodes)``."""
    board = list(board)
    left = [p for p in range(16) if p != hand and p not in board]
    deadline = time.process_time() + cap_seconds
    nodes = 0

    def negamax(hand, left, alpha, beta):
        nonlocal nodes
        nodes += 1
        if nodes & 1023 == 0 and time.process_time() > deadline:
            raise Stop
        free = [c for c in range(16) if board[c] is None]
        for c in free:  # immediate wins first
            board[c] = hand
            won = wins_at(board, c)
            board[c] = None
            if won:
                return 1
        if not left:
            return 0
        best = -1
        for c in free:
            board[c] = hand
            for i, q in enumerate(left):
                v = -negamax(q, left[:i] + left[i + 1:], -beta, -max(alpha, best))
                if v > best:
                    best = v
                    if best >= beta:
                        board[c] = None
                        return best
            board[c] = None
        return best

    try:
        return negamax(hand, left, -1, 1), nodes
    except Stop:
        return None, nodes


def cpu(func, *args, **kwargs):
    start = time.process_time()
    out = func(*args, **kwargs)
    return out, time.process_time() - start


def empty_counts(text: str) -> list[int]:
    """The ``--empty`` option: 'A-B' (a range) or a comma list."""
    if "-" in text:
        lo, hi = (int(x) for x in text.split("-"))
        return list(range(lo, hi + 1))
    return [int(x) for x in text.split(",")]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--empty", default="4-10", help="empty cells: 'A-B' or a comma list (default 4-10)")
    parser.add_argument("--positions", type=int, default=5, help="positions per row (default 5)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--plain-cap", type=float, default=20.0, help="CPU seconds before the plain search gives up")
    parser.add_argument("--max-seconds", type=float, default=120.0, help="time limit of each solver call")
    args = parser.parse_args(argv)
    empties = empty_counts(args.empty)
    rng = random.Random(args.seed)
    solve([None] * 15 + [0], 1, max_nodes=1)  # build the tables before timing
    print(f"# quarto solver benchmark: {args.positions} positions per row, seed {args.seed}, "
          f"plain cap {args.plain_cap:g} s (CPU seconds)", file=sys.stderr)
    print("| empty cells | values (W/D/L) | solver: median s | max s | median nodes "
          "| no table: median s | nodes | plain: median s | nodes | speed-up vs plain |")
    print("|---:|:---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for empty in empties:
        rows = []
        for _ in range(args.positions):
            board, hand = random_position(rng, empty)
            res, t_solver = cpu(solve, board, hand, max_seconds=args.max_seconds)
            res2, t_notable = cpu(solve, board, hand, max_seconds=args.max_seconds, _table=False)
            (v_plain, n_plain), t_plain = cpu(plain_alpha_beta, board, hand, args.plain_cap)
            if res.value is not None and res2.value is not None:
                assert res.value == res2.value, (board, hand)
            if v_plain is not None and res.value is not None:
                assert {1: "win", 0: "draw", -1: "loss"}[v_plain] == res.value, (board, hand)
            rows.append((res, t_solver, res2, t_notable, v_plain, n_plain, t_plain))
            print(f"  {empty} empty: {res.value} {t_solver:.3f}s {res.nodes} nodes | no table {t_notable:.3f}s "
                  f"{res2.nodes} | plain {'capped' if v_plain is None else ''} {t_plain:.3f}s {n_plain}",
                  file=sys.stderr, flush=True)
        solved = [r for r in rows if r[0].value is not None]
        counts = "/".join(str(sum(1 for r in solved if r[0].value == v)) for v in ("win", "draw", "loss"))
        if len(solved) < len(rows):
            counts += f" ({len(rows) - len(solved)} unproven)"
        med = statistics.median
        t_s = med(r[1] for r in rows)
        t_n = med(r[3] for r in rows)
        t_p = med(r[6] for r in rows)
        capped = any(r[4] is None for r in rows)
        ratio = t_p / t_s if t_s > 0 else float("inf")
        plain_time = f"{'>' if capped else ''}{t_p:.3g}"
        plain_nodes = f"{'>' if capped else ''}{med(r[5] for r in rows):,.0f}"
        print(f"| {empty} | {counts} | {t_s:.3g} | {max(r[1] for r in rows):.3g} | {med(r[0].nodes for r in rows):,.0f} "
              f"| {t_n:.3g} | {med(r[2].nodes for r in rows):,.0f} | {plain_time} | {plain_nodes} "
              f"| {'>' if capped else ''}{ratio:.1f}x |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
