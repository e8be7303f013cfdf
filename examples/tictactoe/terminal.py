"""``quaternity play --game tictactoe``: the grid in the terminal and typed moves (the ``terminal`` part).

The command's game loop finds this module through the registry and uses its ``HELP`` and ``LEGEND`` (the
game's lines of ``help``), :func:`show`, :func:`command`, :func:`to_action` and :func:`final_text`; it does
the rest (agents' moves, ``legal``, ``undo``, ``hint``, ``save``, ``quit``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from . import TicTacToeState, cell_name
from .parts import grid_lines, winning_line

if TYPE_CHECKING:
    from rich.console import Console

    from quaternity_cp.web.session import WebGame

#: The game's own lines of ``help``: how to type a move, and its own command.
HELP = """  b2         mark the cell b2 (a column a-c, a row 1-3, row 1 at the top)
  board      the grid again"""

#: The last lines of ``help``: what the grid shows.
LEGEND = "The grid: x marks player 0's cells, o player 1's, . a free cell; x moves first."


def _state(table: WebGame) -> TicTacToeState:
    state = table.state
    assert isinstance(state, TicTacToeState)  # the table of this game
    return state


def show(out: Console, table: WebGame, *, quiet: bool = False) -> None:
    """The grid (a completed line in capitals) and, unless the game is over, what to do."""
    state = _state(table)
    out.print("\n".join(grid_lines(state)))
    if not state.is_terminal():
        out.print(Text(table.view()["status"], style="bold"))


def command(out: Console, table: WebGame, word: str, rest: str) -> bool:
    """The game's own command, ``board`` (also ``grid``); False for anything else (a move, then)."""
    if word in ("board", "grid"):
        show(out, table)
        return True
    return False


def to_action(table: WebGame, line: str) -> str:
    """The move in the records' notation for what the person typed (any case, spaces around)."""
    return line.strip().lower()


def final_text(table: WebGame) -> str:
    """The last line: who completed which line, or a draw ("You" for the person)."""
    state = _state(table)
    winner = state.winner()
    if winner is None:
        return "Game over. A draw."
    return f"Game over. {table.seat_name(winner, table.human)} won: {' '.join(map(cell_name, winning_line(state)))}."


__all__ = ["HELP", "LEGEND", "show", "command", "to_action", "final_text"]
