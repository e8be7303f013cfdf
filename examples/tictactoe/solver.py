"""Tic-tac-toe solved exactly: a minimax over the positions reachable from a state, each position once.

The value of a position is for the player to move: a win (1), a draw (0) or a loss (-1) with best play on both
sides, and the plies to the end (a win as fast as it comes, a loss as late as it can, a draw when the grid is
full). Tic-tac-toe has 5,478 positions, so a whole solve is instant; ``limits.max_positions`` still bounds it
(:class:`~quaternity_cp.budget.Stopped`), as every solver of the project is bounded.

>>> from . import TicTacToeState
>>> state = TicTacToeState()
>>> solve(state).value, solve(state).plies  # the empty grid: a draw
(0, 9)
>>> for cell in (0, 1):  # x a1, o b1
...     state.apply_action(cell)
>>> best = solve(state)
>>> best.value, best.plies, [cell_name(c) for c in best.best]  # x wins in 3 of its own moves (5 plies)
(1, 5, ['a2', 'b2', 'a3'])
"""

from __future__ import annotations

from dataclasses import dataclass

from quaternity_cp.budget import Budget, Limits

from . import MARKS, TicTacToeState, cell_name

#: The positions a solve may store when no limit is given (the whole game has 5,478).
MAX_POSITIONS = 100_000


@dataclass(frozen=True)
class Solution:
    """A position solved: ``value`` for the player to move (1 win, 0 draw, -1 loss), ``plies`` to the end with
    best play, ``moves`` (each legal cell -> its value and plies for the same player), ``best`` (the cells of
    ``value`` in the fewest plies for a win or a draw, the most for a loss), ``positions`` stored."""

    value: int
    plies: int
    moves: dict[int, tuple[int, int]]
    best: tuple[int, ...]
    positions: int


def _rank(value: int, plies: int) -> tuple[int, int]:
    """How good an outcome is for the player to move: a win first (sooner better), a loss last (later better)."""
    return value, -plies if value >= 0 else plies


def solve(state: TicTacToeState, limits: Limits | None = None) -> Solution:
    """The exact value of ``state`` and of each of its moves (``limits``: ``max_positions``, ``max_seconds``)."""
    budget = (limits or Limits(MAX_POSITIONS)).start()
    table: dict[tuple[int | None, ...], tuple[int, int]] = {}
    work = state.clone()
    moves = {}
    for cell in work.free_cells():
        work.apply_action(cell)
        value, plies = _search(work, table, budget)
        work.undo()
        moves[cell] = (-value, plies + 1)
    if not moves:  # the game is over: lost for the player who would move next, or drawn
        return Solution(0 if state.winner() is None else -1, 0, {}, (), 0)
    top = max(_rank(*outcome) for outcome in moves.values())
    best = tuple(cell for cell, outcome in moves.items() if _rank(*outcome) == top)
    return Solution(*moves[best[0]], moves, best, len(table))


def _search(state: TicTacToeState, table: dict[tuple[int | None, ...], tuple[int, int]],
            budget: Budget) -> tuple[int, int]:
    """(value, plies) of ``state`` for its player to move, through the table of positions already solved."""
    key = state.board
    if key in table:
        return table[key]
    if state.is_terminal():
        outcome = (0 if state.winner() is None else -1, 0)
    else:
        outcomes = []
        for cell in state.free_cells():
            state.apply_action(cell)
            value, plies = _search(state, table, budget)
            state.undo()
            outcomes.append((-value, plies + 1))
        outcome = max(outcomes, key=lambda o: _rank(*o))
    budget.check_positions(len(table))
    budget.check_time()
    table[key] = outcome
    return outcome


def verdict_text(state: TicTacToeState, solution: Solution) -> str:
    """The solution in words: ``x wins in 3 (a2, b2, a3)``, ``a draw with best play (b2)``; "" at the end."""
    if state.is_terminal():
        return ""
    me, other = MARKS[state.current_player()], MARKS[1 - state.current_player()]
    cells = ", ".join(map(cell_name, solution.best))
    if solution.value > 0:
        return f"{me} wins in {(solution.plies + 1) // 2} ({cells})"
    if solution.value < 0:
        return f"{other} wins in {solution.plies // 2} whatever {me} does"
    return f"a draw with best play ({cells})"


__all__ = ["MAX_POSITIONS", "Solution", "solve", "verdict_text"]
