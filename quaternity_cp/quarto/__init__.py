"""Quarto: a 4x4 board, 16 pieces of four two-valued traits, and you choose the piece your opponent places.

The same design as the Quaternity core: small values (:class:`Piece`,
:class:`Cell`, :class:`Move`, :class:`Board`), a :class:`Position` changed by
``push`` and restored by ``pop``, errors that name the rule broken, and strict
readers of records and positions (:mod:`quaternity_cp.quarto.formats`).
Names, numbers and notation are those of quarto-lib, so records can be exchanged.

>>> from quaternity_cp.quarto import Position
>>> pos = Position()
>>> _ = pos.push("DSSH")
>>> sorted(set(m.cell for m in pos.legal_moves()))[:2]
[<Cell.A4: 0>, <Cell.B4: 1>]
"""

from .core import (
    DIAGONALS,
    LINES,
    SQUARES,
    TRAITS,
    Board,
    Cell,
    NotationError,
    Piece,
    QuartoError,
    common_characteristics,
    lines,
)
from .position import Illegal, IllegalMove, Move, Position, State

__all__ = [
    "TRAITS",
    "LINES",
    "DIAGONALS",
    "SQUARES",
    "lines",
    "common_characteristics",
    "QuartoError",
    "NotationError",
    "Piece",
    "Cell",
    "Board",
    "Move",
    "Illegal",
    "IllegalMove",
    "State",
    "Position",
]
