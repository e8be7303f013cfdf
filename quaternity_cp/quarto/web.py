"""Quarto's web view: what the web table shows of a Quarto game, and the exact solver's verdict on demand.

The record is replayed by :mod:`quaternity_cp.quarto.formats`; the verdict is
the exact solver's (:mod:`quaternity_cp.quarto.solver`). The game's registered
``web`` part: :func:`view` and :func:`verdict`; the table is a
:class:`quaternity_cp.web.session.WebGame`.
"""

from __future__ import annotations

from typing import Any

from . import formats as qf
from .core import Cell, Piece, QuartoError
from .position import Move, Position
from .svg import quarto_status, quarto_svg

SOLVE_SECONDS = 30.0  # the verdict on demand says "unproven" past this


def replayed_position(table: Any) -> Position:
    """The position of the table's game, from its record."""
    record = qf.record_from_json(table.record())
    result = qf.replay(record)
    if not result.valid:  # the state only ever applies legal moves
        raise QuartoError(f"the game's record does not replay: {result.message}")
    return result.position


def view(table: Any, *, probabilities: bool = False) -> dict[str, Any]:
    """What the web table shows of a Quarto game (the board, the person's legal cells and pieces, the log).

    Quarto has no probabilities (perfect information): ``probabilities`` is ignored.
    """
    pos = replayed_position(table)
    cells, pieces = set(), set()
    for text in table.legal_texts():
        parts = text.split()
        if len(parts) == 1 and len(parts[0]) == 4:
            pieces.add(int(Piece.parse(parts[0])))
        else:
            cells.add(int(Cell.parse(parts[0])))
            if len(parts) == 2:
                pieces.add(int(Piece.parse(parts[1])))
    return {
        "kind": "quarto",
        "svg": quarto_svg(pos, legal_cells=cells, legal_pieces=pieces),
        "setup": "Quarto" + (", squares also win" if pos.squares else ""),
        "players": ["player 0", "player 1"],
        "status": quarto_status(pos),
        "winner": pos.winner,
        "piece": None if pos.piece is None else str(pos.piece),
        "empty_cells": len(pos.empty_cells()),
        "moves": table.legal_texts(),
        "log": [{"move": str(m), "you": i % 2 == table.human} for i, m in enumerate(pos.moves)],
    }


def verdict(table: Any, max_seconds: float = SOLVE_SECONDS) -> dict[str, Any]:
    """The exact value of the Quarto position for the player to move, with a best move."""
    from ..budget import Limits
    from .solver import solve

    pos = replayed_position(table)
    if pos.over:
        return {"text": quarto_status(pos), "value": None}
    board = [None if p is None else int(p) for p in pos.board.as_tuple()]
    piece = None if pos.piece is None else int(pos.piece)
    res = solve(board, piece, squares=pos.squares, limits=Limits(max_seconds=max_seconds))
    who = f"player {pos.to_move}"
    if not res.proven:
        return {"text": f"Unproven: the solver stopped after {res.nodes:,} positions ({res.status}); "
                        "ask again later in the game.", "value": None, "nodes": res.nodes}
    best = "" if res.best is None else f" Best move: {_move_text(res.best)}."
    return {"text": f"{who.capitalize()} (to move) can force a {res.value}.{best} "
                    f"({res.nodes:,} positions, {res.seconds:.2f} s)",
            "value": res.value, "best": None if res.best is None else _move_text(res.best), "nodes": res.nodes}


def _move_text(best) -> str:
    """A solver move, a Move or a (cell, piece) pair of numbers, in the record notation."""
    if not isinstance(best, tuple):
        return str(best)
    cell, piece = best
    return str(Move(None if cell is None else Cell(cell), None if piece is None else Piece(piece)))


__all__ = ["view", "verdict", "replayed_position"]
