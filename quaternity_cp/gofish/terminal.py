"""``quaternity play --game gofish``: the table of bounds in the terminal and typed questions and answers.

The command's game loop (:mod:`quaternity_cli.cmd_play`) finds this module as the game's ``terminal`` part:
``HELP`` and ``LEGEND`` (its lines of ``help``), :func:`show`, :func:`command`, :func:`to_action` and
:func:`final_text`. A person types a move as in the records (``0>1:A?`` to ask, ``0>1:A+`` or ``0>1:A-`` to
answer) or shorter: ``1 A`` (ask seat 1 for an A) when on turn, ``yes``/``no`` (or ``y``, ``n``, ``+``,
``-``) when asked. At a table whose suits are named in play (option ``name_suits``), ``1 Narwhals`` asks seat 1
for a suit nobody has named or asked about yet and names it Narwhals (the first to ask names a suit).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from .web import current_game, explain, result

if TYPE_CHECKING:
    from rich.console import Console

    from quaternity_cp.web.session import WebGame

#: The lines of ``help`` for Go Fish: its moves and its own command.
HELP = """  1 A        ask seat 1 for an A (in full: 0>1:A?, you being seat 0)
  1 Narwhals ask seat 1 for a new suit and name it Narwhals (tables with name_suits)
  yes / no   answer the question you are asked (in full: 0>1:A+ or 0>1:A-)
  table      the table of what is known again
  why 1 A    why seat 1's count of A has its range (without a seat: every player's)"""

#: The last lines of ``help``: what the table shows.
LEGEND = """The table: a row per player (its cards in brackets), a column per suit; each cell is how many of the
suit the player holds in every consistent table: one number when fixed, lo-hi otherwise. [4] marks a four
(the whole suit, provably); * the open question's cell."""


def show(out: Console, table: WebGame, *, quiet: bool = False) -> None:
    """The table of bounds and the status line (what to do, or whose decision it is)."""
    game = current_game(table)
    b = game.bounds()
    setup = game.setup
    q = game.pending
    grid = Table(show_header=True, title="What is known (exact ranges over the consistent tables)",
                 title_justify="left")
    grid.add_column("player")
    for suit in setup.suits:
        grid.add_column(suit, justify="center")
    hands = game.hands()
    for p in range(setup.player_count):
        cells = []
        for s in range(setup.suit_count):
            lo, hi = (b.low[p][s], b.high[p][s]) if b.feasible else (0, 0)
            text = str(lo) if lo == hi else f"{lo}-{hi}"
            if lo == setup.suit_size:
                cells.append(Text(f"[{text}]", style="bold green"))
            elif q is not None and q.asked == p and q.suit == s:
                cells.append(Text(text + "*", style="bold red"))
            else:
                cells.append(Text(text))
        name = table.seat_name(p, table.human)
        grid.add_row(f"{name} ({hands[p]})", *cells)
    out.print(grid)
    if table.state.is_terminal():
        return
    view = table.view()
    out.print(Text(view["status"], style="bold"))
    if view["your_turn"] and not quiet:
        legal = table.legal_texts()
        if legal:
            out.print(f"For example: {legal[len(legal) // 2]}")


def command(out: Console, table: WebGame, word: str, rest: str) -> bool:
    """Go Fish's own commands (``table``, also ``board``, ``grid``; ``why SEAT SUIT``); False for anything else
    (a move, then)."""
    if word in ("table", "board", "grid"):
        show(out, table)
        return True
    if word == "why":
        parts = rest.replace(":", " ").split()
        if len(parts) not in (1, 2) or (len(parts) == 2 and not parts[0].isdigit()):
            raise ValueError("why: say which cell, e.g. 'why 1 A' (seat 1, suit A) or 'why A' (every seat)")
        seat = int(parts[0]) if len(parts) == 2 else None
        if seat is not None and not 0 <= seat < table.players:
            raise ValueError(f"why: the game has seats 0 to {table.players - 1}")
        for line in explain(table, table.human, set_name=parts[-1], seat=seat):
            out.print(Text(line), soft_wrap=True)
        return True
    return False


def to_action(table: WebGame, line: str) -> str:
    """The move text for what the person typed: the notation, ``ASKED SUIT`` when asking, ``yes``/``no``."""
    text = line.strip()
    game = current_game(table)
    q = game.pending
    word = text.lower()
    if word in ("y", "yes", "+", "n", "no", "-"):
        if q is None or q.asked != table.human:
            raise ValueError("nobody asked you anything: ask a question (e.g. '1 A': seat 1, for an A)")
        return game.move_text(q.__class__(q.asker, q.asked, q.suit, word in ("y", "yes", "+")))
    if q is None and ">" not in text and game.turn is not None:
        parts = text.replace(":", " ").split(None, 1)  # (a suit's name may have spaces inside)
        if len(parts) == 2:
            return f"{game.setup.players[game.turn]}>{parts[0]}:{parts[1]}?"
    if ">" in text and text[-1:] not in ("+", "-", "?"):
        return text + "?"
    return text


def final_text(table: WebGame) -> str:
    """The last line: who won and why, or why nobody did ("You" for the person)."""
    return "Game over. " + str(result(table, table.human, current_game(table))["text"])


__all__ = ["HELP", "LEGEND", "show", "command", "to_action", "final_text"]
