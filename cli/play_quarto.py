"""``quaternity play`` for the game ``"quarto"``: the board in the terminal and typed moves.

:mod:`.cmd_play` runs the game loop for every game and finds this module by the game's name.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from quaternity_cp.quarto.core import Cell
from quaternity_cp.quarto.web import replayed_position


def show(out, table, *, probabilities: bool = False, quiet: bool = False) -> None:
    """The board, the pieces left and whose turn it is (Quarto has no probabilities: perfect information)."""
    pos = replayed_position(table)
    board = Table(show_header=True, title="Board (row 1 at the bottom)", title_justify="left")
    board.add_column("")
    for letter in "ABCD":
        board.add_column(letter, justify="center")
    winning = {c for line in pos.winning_lines for c in line}
    for row in range(4):
        cells = []
        for col in range(4):
            cell = Cell.at(row, col)
            piece = pos.board[cell]
            cells.append(Text(str(piece) if piece is not None else "·", style="bold red" if cell in winning else ""))
        board.add_row(str(4 - row), *cells)
    out.print(board)
    out.print("Pieces left: " + (" ".join(str(p) for p in pos.available_pieces()) or "none"))
    view = table.view()
    out.print(Text(view["status"], style="bold"))
    if view["your_turn"]:
        out.print("Your move: " + ("give the first piece (e.g. 'LRTS')" if pos.piece is None
                                   else f"place {pos.piece} and give a piece (e.g. 'A1 DSSH')") + ".")


def to_action(table, line: str) -> str:
    """The action text for what the person typed (the notation, in any case and spacing)."""
    return " ".join(line.strip().upper().split())


def final_text(table) -> str:
    """The last line: who completed a line, or a draw."""
    return "Game over. " + table.view()["result"]["text"]


def why(table, subject: str) -> list[str]:
    """Quarto has nothing to explain (every piece is in sight)."""
    return ["Explanations are for Quartets games."]


__all__ = ["show", "to_action", "final_text", "why"]
