"""Quarto's small values: pieces, cells, lines and the board (bitboards).

Names and numbers are those of the quarto-lib library, so records can be
exchanged: a piece is four letters, one per trait, most significant bit first
(``L``/``D`` light 0 / dark 1, ``R``/``S`` round 0 / square 1, ``T``/``S``
tall 0 / short 1, ``S``/``H`` solid 0 / hollow 1); a cell is a column letter
(``A`` = left) and a row digit counted from the bottom, numbered
``row_from_top * 4 + column``.

>>> Piece.LRTS, Piece.DSSH.value, Piece.parse("dssh")
(<Piece.LRTS: 0>, 15, <Piece.DSSH: 15>)
>>> Cell.A4.value, Cell.D1.value, Cell.C1.row, Cell.C1.col
(0, 15, 3, 2)
>>> board = Board.empty()
>>> for cell, piece in zip(("A4", "B4", "C4", "D4"), ("LRTS", "LRTH", "LRSS", "LSSH")):
...     board = board.place(Cell.parse(cell), Piece.parse(piece))
>>> [[str(c) for c in line] for line in board.winning_lines()]
[['A4', 'B4', 'C4', 'D4']]
"""

from __future__ import annotations

from enum import IntEnum
from typing import Iterable, Iterator, Optional, Sequence

from ..errors import QuaternityError

#: The four traits, most significant bit first, with the letters of their two values.
TRAITS: tuple[tuple[str, str, str, str, str], ...] = (
    # (trait, value-0 word, value-1 word, value-0 letter, value-1 letter)
    ("colour", "light", "dark", "L", "D"),
    ("shape", "round", "square", "R", "S"),
    ("height", "tall", "short", "T", "S"),
    ("top", "solid", "hollow", "S", "H"),
)


class QuartoError(QuaternityError):
    """Base class of the Quarto errors (a front end shows ``str(error)`` as one line)."""


class NotationError(QuartoError, ValueError):
    """Text that is not a piece, a cell or a move of the record notation."""


def _piece_name(value: int) -> str:
    return "".join(TRAITS[i][3 + ((value >> (3 - i)) & 1)] for i in range(4))


class Piece(IntEnum):
    """One of the 16 pieces; its value is the 4-bit trait number (``LRTS = 0``, ``DSSH = 15``)."""

    LRTS = 0
    LRTH = 1
    LRSS = 2
    LRSH = 3
    LSTS = 4
    LSTH = 5
    LSSS = 6
    LSSH = 7
    DRTS = 8
    DRTH = 9
    DRSS = 10
    DRSH = 11
    DSTS = 12
    DSTH = 13
    DSSS = 14
    DSSH = 15

    def __str__(self) -> str:
        return self.name

    @classmethod
    def parse(cls, text: str) -> "Piece":
        """A piece from its four letters (any case)."""
        if not isinstance(text, str):
            raise NotationError(f"a piece is four letters like \"LRTS\", got {text!r}")
        key = text.strip().upper()
        piece = _PIECE_BY_NAME.get(key)
        if piece is None:
            raise NotationError(
                f"no piece {text!r}: a piece is four letters, L/D (colour), R/S (shape), T/S (height), S/H (top)"
            )
        return piece

    def trait(self, index: int) -> int:
        """The value (0 or 1) of trait ``index`` (0 = colour ... 3 = top, as written)."""
        return (self.value >> (3 - index)) & 1

    def describe(self) -> str:
        """The piece in words, e.g. ``dark square short hollow``."""
        return " ".join(TRAITS[i][1 + self.trait(i)] for i in range(4))


_PIECE_BY_NAME = {p.name: p for p in Piece}
assert all(_piece_name(p.value) == p.name for p in Piece)

COLUMNS = "ABCD"


class Cell(IntEnum):
    """One of the 16 cells: ``cell = row_from_top * 4 + column`` (``A4 = 0``, ``D4 = 3``, ``A1 = 12``)."""

    A4 = 0
    B4 = 1
    C4 = 2
    D4 = 3
    A3 = 4
    B3 = 5
    C3 = 6
    D3 = 7
    A2 = 8
    B2 = 9
    C2 = 10
    D2 = 11
    A1 = 12
    B1 = 13
    C1 = 14
    D1 = 15

    def __str__(self) -> str:
        return self.name

    @property
    def row(self) -> int:
        """The row counted from the top (0..3), as quarto-lib's ``Cell.row``."""
        return self.value >> 2

    @property
    def col(self) -> int:
        """The column counted from the left (0..3)."""
        return self.value & 3

    @property
    def bit(self) -> int:
        return 1 << self.value

    @classmethod
    def at(cls, row: int, col: int) -> "Cell":
        """The cell in ``row`` (from the top) and ``col`` (from the left)."""
        return cls(row * 4 + col)

    @classmethod
    def parse(cls, text: str) -> "Cell":
        """A cell from its name, e.g. ``A1`` (any case)."""
        if not isinstance(text, str):
            raise NotationError(f"a cell is a column A-D and a row 1-4 like \"A1\", got {text!r}")
        cell = _CELL_BY_NAME.get(text.strip().upper())
        if cell is None:
            raise NotationError(f"no cell {text!r}: a cell is a column A-D and a row 1-4 (1 = bottom), like \"A1\"")
        return cell


_CELL_BY_NAME = {c.name: c for c in Cell}
assert all(c.name == f"{COLUMNS[c.col]}{4 - c.row}" for c in Cell)


def _mask(cells: Iterable[int]) -> int:
    m = 0
    for c in cells:
        m |= 1 << c
    return m


def _line(cells: Iterable[int]) -> tuple[Cell, ...]:
    return tuple(Cell(c) for c in cells)


#: The 10 lines of the standard game: 4 rows (top first), 4 columns (left first), 2 diagonals.
ROWS = tuple(_line(r * 4 + c for c in range(4)) for r in range(4))
COLUMNS_LINES = tuple(_line(r * 4 + c for r in range(4)) for c in range(4))
DIAGONALS = (_line(i * 4 + i for i in range(4)), _line(i * 4 + 3 - i for i in range(4)))
LINES: tuple[tuple[Cell, ...], ...] = ROWS + COLUMNS_LINES + DIAGONALS
#: The 9 2x2 squares of the ``squares`` variant (top-left corner row-major).
SQUARES: tuple[tuple[Cell, ...], ...] = tuple(
    _line((r * 4 + c, r * 4 + c + 1, r * 4 + c + 4, r * 4 + c + 5)) for r in range(3) for c in range(3)
)


def lines(squares: bool = False) -> tuple[tuple[Cell, ...], ...]:
    """The lines that win under the rules: the 10 lines, plus the 9 squares with ``squares``."""
    return LINES + SQUARES if squares else LINES


LINE_MASKS = tuple(_mask(line) for line in LINES)
ALL_MASKS = tuple(_mask(line) for line in LINES + SQUARES)
#: Per cell, the line masks through it (without and with the squares).
_THROUGH = tuple(tuple(m for m in LINE_MASKS if m >> c & 1) for c in range(16))
_THROUGH_SQ = tuple(tuple(m for m in ALL_MASKS if m >> c & 1) for c in range(16))
_LINE_OF_MASK = {_mask(line): line for line in LINES + SQUARES}
FULL = 0xFFFF


def common_characteristics(line: Sequence[Optional[int]]) -> list[tuple[int, int]]:
    """The trait values shared by every piece of ``line`` (empty cells ignored), as quarto-lib gives them.

    Each is ``(bit, value)`` with ``bit`` counted from the least significant
    bit (0 = top ... 3 = colour), in increasing ``bit``; ``[]`` when no piece
    is in the line.

    >>> common_characteristics([Piece.DRTH, Piece.DRSH, Piece.DSTH, Piece.DSSH])
    [(0, 1), (3, 1)]
    """
    pieces = [int(p) for p in line if p is not None]
    if not pieces:
        return []
    ones = zeros = 0xF
    for p in pieces:
        ones &= p
        zeros &= ~p
    return [(bit, 1 if ones >> bit & 1 else 0) for bit in range(4) if (ones | zeros) >> bit & 1]


class Board:
    """Which piece stands on each cell, with one 16-bit cell mask per trait value.

    A value: :meth:`place` returns a new board. ``masks[2 * bit + v]`` holds the
    cells whose piece has value ``v`` at ``bit`` (bit 0 = top ... 3 = colour),
    so a line of four sharing a trait is ``any(m & line == line for m in masks)``.
    """

    __slots__ = ("cells", "masks", "occupied", "used")

    def __init__(self, cells: Sequence[Optional[int]] = (None,) * 16):
        if len(cells) != 16:
            raise QuartoError(f"a board has 16 cells, got {len(cells)}")
        masks = [0] * 8
        occupied = used = 0
        norm: list[Optional[Piece]] = []
        for c, p in enumerate(cells):
            if p is None:
                norm.append(None)
                continue
            piece = Piece(p)
            norm.append(piece)
            occupied |= 1 << c
            used |= 1 << piece
            for bit in range(4):
                masks[2 * bit + (piece >> bit & 1)] |= 1 << c
        self.cells: tuple[Optional[Piece], ...] = tuple(norm)
        self.masks: tuple[int, ...] = tuple(masks)
        self.occupied: int = occupied  # cell mask
        self.used: int = used  # piece mask (may miss duplicates: see formats' validity check)

    @classmethod
    def empty(cls) -> "Board":
        return _EMPTY

    def __setattr__(self, name: str, value: object) -> None:
        if hasattr(self, "used"):
            raise AttributeError("a Board is immutable")
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self.cells == other.cells

    def __hash__(self) -> int:
        return hash(self.cells)

    def __repr__(self) -> str:
        return f"Board({'/'.join(self.row_text(r) for r in range(4))})"

    def __getitem__(self, cell: int) -> Optional[Piece]:
        return self.cells[cell]

    def row_text(self, row: int) -> str:
        return " ".join(str(p) if p is not None else "...." for p in self.cells[row * 4 : row * 4 + 4])

    # -- queries ------------------------------------------------------------------------
    def pieces(self) -> Iterator[tuple[Cell, Piece]]:
        """The occupied cells and their pieces, in cell order."""
        for c, p in enumerate(self.cells):
            if p is not None:
                yield Cell(c), p

    def empty_cells(self) -> list[Cell]:
        return [Cell(c) for c in range(16) if not self.occupied >> c & 1]

    def count(self) -> int:
        """The number of pieces on the board."""
        return bin(self.occupied).count("1")

    def is_full(self) -> bool:
        return self.occupied == FULL

    def as_tuple(self) -> tuple[Optional[int], ...]:
        """The board as 16 piece numbers or None (the solver's form)."""
        return tuple(None if p is None else int(p) for p in self.cells)

    def rows(self) -> list[list[Optional[Piece]]]:
        """The board as 4 rows from the top (quarto-lib's form)."""
        return [list(self.cells[r * 4 : r * 4 + 4]) for r in range(4)]

    def _wins(self, m: int) -> bool:
        if self.occupied & m != m:
            return False
        for t in self.masks:
            if t & m == m:
                return True
        return False

    def winning_lines(self, squares: bool = False) -> list[tuple[Cell, ...]]:
        """Every full line (or square, with ``squares``) whose four pieces share a trait."""
        return [_LINE_OF_MASK[m] for m in (ALL_MASKS if squares else LINE_MASKS) if self._wins(m)]

    def wins_at(self, cell: int, squares: bool = False) -> bool:
        """Whether a line through ``cell`` is full and shares a trait (the check after a placement)."""
        for m in (_THROUGH_SQ if squares else _THROUGH)[cell]:
            if self._wins(m):
                return True
        return False

    def lines_at(self, cell: int, squares: bool = False) -> list[tuple[Cell, ...]]:
        """The winning lines through ``cell``."""
        return [_LINE_OF_MASK[m] for m in (_THROUGH_SQ if squares else _THROUGH)[cell] if self._wins(m)]

    def winning_cells(self, piece: int, squares: bool = False) -> list[Cell]:
        """The empty cells where placing ``piece`` would complete a winning line."""
        out = []
        for c in range(16):
            if self.occupied >> c & 1:
                continue
            for m in (_THROUGH_SQ if squares else _THROUGH)[c]:
                rest = m & ~(1 << c)
                if self.occupied & rest != rest:
                    continue
                # the piece must agree with the three others on some trait value
                for bit in range(4):
                    if self.masks[2 * bit + (piece >> bit & 1)] & rest == rest:
                        out.append(Cell(c))
                        break
                else:
                    continue
                break
        return out

    def winning_pieces(self, squares: bool = False) -> int:
        """The pieces (a 16-bit mask over piece numbers) that would win if placed on some empty cell."""
        out = 0
        occupied, masks = self.occupied, self.masks
        for c in range(16):
            if occupied >> c & 1:
                continue
            for m in (_THROUGH_SQ if squares else _THROUGH)[c]:
                rest = m & ~(1 << c)
                if occupied & rest != rest:
                    continue
                for k in range(8):
                    if masks[k] & rest == rest:
                        out |= _PIECES_WITH[k]
        return out

    def place(self, cell: int, piece: int) -> "Board":
        """A new board with ``piece`` on ``cell`` (which must be empty)."""
        bit = 1 << cell
        if self.occupied & bit:
            raise QuartoError(f"cell {Cell(cell)} is taken")
        cells = list(self.cells)
        piece = Piece(piece)
        cells[cell] = piece
        masks = list(self.masks)
        for b in range(4):
            masks[2 * b + (piece >> b & 1)] |= bit
        new = object.__new__(Board)
        object.__setattr__(new, "cells", tuple(cells))
        object.__setattr__(new, "masks", tuple(masks))
        object.__setattr__(new, "occupied", self.occupied | bit)
        object.__setattr__(new, "used", self.used | (1 << piece))
        return new


#: Per trait value k = 2 * bit + v, the pieces (16-bit mask over piece numbers) having it.
_PIECES_WITH = tuple(sum(1 << p for p in range(16) if (p >> (k // 2) & 1) == k % 2) for k in range(8))
_EMPTY = Board()


__all__ = [
    "TRAITS",
    "QuartoError",
    "NotationError",
    "Piece",
    "Cell",
    "ROWS",
    "COLUMNS_LINES",
    "DIAGONALS",
    "LINES",
    "SQUARES",
    "lines",
    "common_characteristics",
    "Board",
]
