"""``quaternity play`` for the game ``"quarto"``: the board in the terminal and typed moves.

:mod:`.cmd_play` runs the game loop for every game and finds this module by the game's name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from quaternity_cp.quarto.core import TRAITS, Cell, Piece
from quaternity_cp.quarto.web import line_name, replayed_position, shared_traits

if TYPE_CHECKING:
    from rich.console import Console

    from quaternity_cp.web.session import WebGame

#: The lines of ``help`` for Quarto: its moves and its own command.
HELP = """  A1 DSSH    place the piece you hold on A1, then give DSSH to the other player
  DSSH       the first move: give the first piece      A1   the last move: place the last piece
  board      the board again (cells: a column A-D and a row 1-4, row 1 at the bottom)"""

#: The last lines of ``help``: what the letters of a piece mean (from :data:`~quaternity_cp.quarto.core.TRAITS`).
LEGEND = "\n".join([
    "A piece is four letters, one per trait: " + ", ".join(trait for trait, *_ in TRAITS) + ":",
    "  " + "   ".join(f"{l0} {w0} / {l1} {w1}" for _, w0, w1, l0, l1 in TRAITS),
    f"  (LRTS is a {Piece.LRTS.describe()} piece, DSSH a {Piece.DSSH.describe()} one)",
])


def show(out: Console, table: WebGame, *, quiet: bool = False) -> None:
    """The board, the pieces left and whose turn it is; at the end the winning line is marked (the last
    line, :func:`final_text`, names it and says who won)."""
    pos = replayed_position(table)
    winning = {c for line in pos.winning_lines for c in line}
    title = "Board (row 1 at the bottom" + ("; the winning line in brackets)" if winning else ")")
    board = Table(show_header=True, title=title, title_justify="left")
    board.add_column("")
    for letter in "ABCD":
        board.add_column(letter, justify="center")
    for row in range(4):
        cells = []
        for col in range(4):
            cell = Cell.at(row, col)
            piece = pos.board[cell]
            text = str(piece) if piece is not None else "·"
            cells.append(Text(f"[{text}]", style="bold red") if cell in winning else Text(text))
        board.add_row(str(4 - row), *cells)
    out.print(board)
    out.print("Pieces left: " + (" ".join(str(p) for p in pos.available_pieces()) or "none"))
    if pos.over:
        return
    view = table.view()
    out.print(Text(view["status"], style="bold"))
    if view["your_turn"]:
        legal = table.legal_texts()
        sample = f" (e.g. '{legal[len(legal) // 2]}')" if legal else ""  # a move legal now
        out.print("Your move: " + (f"give the first piece{sample}" if pos.piece is None
                                   else f"place {pos.piece}{sample}" if not pos.available_pieces()
                                   else f"place {pos.piece} and give a piece{sample}") + ".")


def command(out: Console, table: WebGame, word: str, rest: str) -> bool:
    """Quarto's own command (``board``, also ``grid``); False for anything else (a move, then)."""
    if word in ("board", "grid"):
        show(out, table)
        return True
    return False


def to_action(table: WebGame, line: str) -> str:
    """The action text for what the person typed (the notation, in any case and spacing)."""
    return " ".join(line.strip().upper().split())


def final_text(table: WebGame) -> str:
    """The last line: who completed which line, or a draw ("you" for the person)."""
    pos = replayed_position(table)
    if pos.winner is None:
        text: str = table.view()["result"]["text"]
        return "Game over. " + text
    lines = "; ".join(f"{line_name(line)}, all {shared_traits(pos, line)}" for line in pos.winning_lines)
    return f"Game over. {table.seat_name(pos.winner, table.human)} won: {lines}."


__all__ = ["HELP", "LEGEND", "show", "command", "to_action", "final_text"]
