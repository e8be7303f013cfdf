"""Quarto's web view: what one player at the web table sees, and the exact solver's verdict in plain words.

The record is replayed by :mod:`quaternity_cp.quarto.formats` (once per change
of the game); the verdict comes from the opening table
(:mod:`quaternity_cp.quarto.openings`) at once when the position is in it, else
from the exact solver (:mod:`quaternity_cp.quarto.solver`) within :data:`SOLVE_SECONDS`. Moves are told
in plain words from the viewer's side ("Player 1 placed LRTS on A1 and gave you
DSSH."), the piece letters have a legend (from :data:`~quaternity_cp.quarto.core.TRAITS`).
The game's registered ``web`` part: :func:`view` and :func:`verdict`; the table
is a :class:`quaternity_cp.web.session.WebGame`. Quarto has one size: its
agents answer within about a second (``solver``: the opening table, then at most 20 million nodes of the compiled search).
"""

from __future__ import annotations

from typing import Any

from . import formats as qf
from .core import COLUMNS, TRAITS, Cell, Piece, QuartoError, common_characteristics
from .position import Move, Position
from .svg import quarto_svg

#: The page's parts of Quarto (files in this package's ``static/``, served at ``/games/quarto/<file>``):
#: its rules page, and the script that draws its table (registers itself with ``Quaternity.registerGame``).
PAGE = {"rules": "rules.html", "script": "table.js", "style": "table.css"}

SOLVE_SECONDS = 2.0  # the verdict says "not known yet" past this (the compiled kernel: 13 empty cells ~1.5 s)

#: The game's name in the web page's list of games.
TITLE = "Quarto"


def replayed_position(table: Any) -> Position:
    """The position of the table's game, from its record (once per change of the game)."""
    pos: Position = table.memo("quarto-position", lambda: _replayed(table))
    return pos


def _replayed(table: Any) -> Position:
    record = qf.record_from_json(table.record())
    result = qf.replay(record)
    if not result.valid:  # the state only ever applies legal moves
        raise QuartoError(f"the game's record does not replay: {result.message}")
    return result.position


def _piece(piece: Any) -> str:
    p = Piece(piece)
    return f"{p.name} ({p.describe()})"


def view(table: Any, seat: int, *, probabilities: bool = False) -> dict[str, Any]:
    """What ``seat`` sees of a Quarto game (the board, its legal cells and pieces, the moves told in words,
    the legend, the result at the end). Quarto has no probabilities (perfect information): ``probabilities``
    is ignored."""
    pos = replayed_position(table)
    cells, pieces = set(), set()
    legal = table.legal_texts(seat)
    for text in legal:
        move = Move.parse(text)
        if move.cell is not None:
            cells.add(int(move.cell))
        if move.piece is not None:
            pieces.add(int(move.piece))
    data: dict[str, Any] = {
        "kind": "quarto",
        "title": "Quarto",  # the game played, as the page's header names it
        "svg": quarto_svg(pos, legal_cells=cells, legal_pieces=pieces, status=False),  # the page says whose turn
        "setup": "Quarto" + (", squares also win" if pos.squares else ""),
        "players": ["player 0", "player 1"],
        "winner": pos.winner,
        "piece": None if pos.piece is None else str(pos.piece),
        "empty_cells": len(pos.empty_cells()),
        "moves": legal,
        "log": narration(table, seat, pos),
        "table": [{"seat": p, "name": name, "cards": None, "claimed": [], "score": score}
                  for p, (name, score) in enumerate(zip(table.names(seat), table.state.scores()))],
        "status": status(table, seat, pos),
        "legend": legend(),
    }
    if pos.over:
        data["result"] = result(table, seat, pos)
    return data


def narration(table: Any, viewer: int, pos: Position) -> list[dict[str, Any]]:
    """Every move told in plain words from ``viewer``'s side, with its notation and mover."""
    out: list[dict[str, Any]] = []
    moves = pos.moves
    for i, move in enumerate(moves):
        mover, other = i % 2, 1 - i % 2
        me = table.seat_name(mover, viewer)
        you = table.seat_name(other, viewer, start=False)
        if move.cell is None:
            words = f"{me} chose {_piece(move.piece)} for {you} to place."
        else:
            placed = moves[i - 1].piece
            words = f"{me} placed {placed} on {move.cell}"
            words += f" and gave {you} {_piece(move.piece)}." if move.piece is not None else "."
            if i == len(moves) - 1 and pos.winner is not None:
                words += f" That completes a line: {table.seat_name(mover, viewer, start=False)} won."
        out.append({"seat": mover, "move": str(move), "text": words, "you": mover == viewer})
    return out


def status(table: Any, seat: int, pos: Position) -> str:
    """One plain sentence for ``seat``: what to do, or whose turn it is."""
    if pos.over:
        text: str = result(table, seat, pos)["text"]
        return text
    mover = pos.to_move
    assert mover is not None
    other = table.seat_name(1 - mover, seat, start=False)
    if mover == seat:
        if pos.piece is None:
            return f"Your turn: choose the piece {other} must place first."
        if not pos.available_pieces():
            return f"Your turn: place {_piece(pos.piece)} on the last empty cell."
        return f"Your turn: place {_piece(pos.piece)} on an empty cell, then choose the piece {other} places next."
    who = table.seat_name(mover, seat)
    if pos.piece is None:
        return f"{who} is to choose the first piece for {other} to place."
    return f"{who} is to place {_piece(pos.piece)}" + (f" and choose a piece for {other}." if pos.available_pieces()
                                                      else ".")


def legend() -> list[dict[str, str]]:
    """What the four letters of a piece mean (:data:`TRAITS`), and the board's marks."""
    items = [{"mark": f"{l0} / {l1}", "meaning": f"letter {i + 1} of a piece: its {trait}, {w0} or {w1}"}
             for i, (trait, w0, w1, l0, l1) in enumerate(TRAITS)]
    items.append({"mark": "LRTS", "meaning": "for example: " + Piece.LRTS.describe()})
    items += [
        {"mark": "tint", "colour": "#e3f2fd", "meaning": "a cell where you may place, or a piece you may give "
                                                         "(click it)"},
        {"mark": "outline", "colour": "#d84315", "meaning": "a winning line: four pieces that share a trait"},
        {"mark": "In hand", "colour": "#ffb300", "meaning": "the piece the player to move must place"},
    ]
    return items


def _line_text(pos: Position, line: tuple[Cell, ...]) -> str:
    return f"{' '.join(str(c) for c in line)}: all {shared_traits(pos, line)}"


def shared_traits(pos: Position, line: tuple[Cell, ...]) -> str:
    """What every piece of ``line`` has in common, in words ("light and round"; "" for none)."""
    board = pos.board
    shared = common_characteristics([board[c] for c in line])
    return " and ".join(TRAITS[3 - bit][1 + value] for bit, value in sorted(shared, reverse=True))


def line_name(line: tuple[Cell, ...]) -> str:
    """A winning line by its name: "row 2", "column A", "diagonal A4-D1", "square A4-B3" (its corners).

    >>> from .core import lines
    >>> [line_name(line) for line in lines(squares=True)][::3]
    ['row 4', 'row 1', 'column C', 'diagonal D4-A1', 'square C4-D3', 'square C3-D2', 'square C2-D1']
    """
    rows, columns = {c.row for c in line}, {c.col for c in line}
    if len(rows) == 1:
        return f"row {4 - line[0].row}"
    if len(columns) == 1:
        return f"column {COLUMNS[line[0].col]}"
    return f"{'square' if len(rows) == 2 else 'diagonal'} {line[0]}-{line[-1]}"


def result(table: Any, seat: int, pos: Position) -> dict[str, Any]:
    """Who won and how, in plain words from ``seat``'s side (a draw: nobody wins)."""
    if pos.winner is None:
        return {"winners": [], "text": "A draw: the board is full and no line of four pieces shares a trait."}
    w = pos.winner
    lines = "; ".join(_line_text(pos, line) for line in pos.winning_lines)
    who = "You" if w == seat else table.seat_name(w, seat)
    return {"winners": [w], "text": f"{who} won by completing a line of four pieces that share a trait ({lines})."}


def verdict(table: Any, viewer: int | None = None, max_seconds: float = SOLVE_SECONDS) -> dict[str, Any]:
    """The exact value of the position for the player to move, in plain words, with a best move; "unproven"
    when the solver needs more than ``max_seconds``."""
    from ..budget import Limits
    from .solver import preload_fast, solve

    pos = replayed_position(table)
    if pos.over:
        return {"text": "Game over. " + result(table, -1 if viewer is None else viewer, pos)["text"],
                "value": None}
    board = [None if p is None else int(p) for p in pos.board.as_tuple()]
    piece = None if pos.piece is None else int(pos.piece)
    mover = pos.to_move
    assert mover is not None
    who = "you" if mover == viewer else table.seat_name(mover, viewer)
    known = _from_openings(board, piece, pos.squares, who)
    if known is not None:
        return known
    preload_fast()  # a server asks many times: the compiled kernel loads in the background for the next ones
    res = solve(board, piece, squares=pos.squares, limits=Limits(max_seconds=max_seconds))
    if not res.proven:
        return {"text": f"Not known yet: the solver stopped after {res.nodes:,} positions without an answer "
                        "(too many moves ahead for the web table); ask again later in the game.",
                "value": None, "nodes": res.nodes}
    outcome = {"win": "wins", "loss": "loses", "draw": "draws"}[str(res.value)]
    best = None if res.best is None else _move_text(res.best)
    text = f"With best play the player to move ({who}) {outcome}."
    if best is not None:
        text += f" A best move: {best}."
    if res.nodes:
        text += f" ({res.nodes:,} positions searched in {res.seconds:.2f} s.)"
    return {"text": text, "value": res.value,
            "best": best, "nodes": res.nodes}


def _from_openings(board: list[int | None], piece: int | None, squares: bool, who: str) -> dict[str, Any] | None:
    """The verdict from the opening table, when it has the position's value; None otherwise."""
    from .openings import book_move, lookup

    entry = lookup(board, piece, squares)
    if entry is None or entry.value is None:
        return None
    best = None
    if piece is None:
        best = _move_text((None, 0))  # every piece is the image of LRTS under a trait flip
    elif entry.value != "loss":
        found = book_move(board, piece, squares)
        best = None if found is None else _move_text(found[0])
    outcome = {"win": "wins", "loss": "loses", "draw": "draws"}[entry.value]
    text = f"With best play the player to move ({who}) {outcome}."
    if best is not None:
        text += f" A best move: {best}."
    text += " (From the opening table.)"
    return {"text": text, "value": entry.value, "best": best, "nodes": 0}


def _move_text(best: Move | tuple[int | None, int | None]) -> str:
    """A solver move, a Move or a (cell, piece) pair of numbers, in the record notation."""
    if not isinstance(best, tuple):
        return str(best)
    cell, piece = best
    return str(Move(None if cell is None else Cell(cell), None if piece is None else Piece(piece)))


__all__ = ["view", "verdict", "narration", "status", "legend", "result", "replayed_position", "shared_traits",
           "line_name", "SOLVE_SECONDS"]
