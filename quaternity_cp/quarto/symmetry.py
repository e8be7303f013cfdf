"""Symmetries of Quarto positions and a fast canonical form.

A position is a 16-sequence ``board`` indexed by cell number
(``cell = row_from_top * 4 + column``: ``A4 = 0``, ``D4 = 3``, ``A1 = 12``,
``D1 = 15``) holding piece numbers 0..15 or ``None``, plus the piece in hand
(or ``None`` before the first placement).

Two kinds of maps keep every game value:

* **board maps**: permutations of the 16 cells that map winning lines to winning
  lines. For the standard game there are 32 (the 8 rotations and reflections of
  the square, the swap of inner and outer rows and columns, the swap of the two
  middle rows and columns, and their combinations). With the ``squares``
  variant the nine 2x2 squares are lines too; only the 8 rotations and
  reflections keep them, so the group is smaller.
* **trait maps**: a permutation of the four traits followed by flipping any
  subset of trait values: 24 * 16 = 384 maps.

Together they form a group of 32 * 384 = 12,288 maps (8 * 384 = 3,072 with
squares), acting on the board and on the piece in hand alike.

:func:`canonical_key` gives an integer that is equal for two positions exactly
when one is the image of the other under the group. It costs a handful of
integer operations, not 12,288 images:

1. trait flips: XOR every piece with the piece in hand, so that the piece in
   hand becomes 0 (``LRTS``);
2. trait permutations: describe the board by ``occ`` (the occupied cells) and
   four 16-bit masks, one per trait (the cells whose piece has that trait bit
   set); permuting traits permutes the masks, so sorting them removes it;
3. board maps: only the maps giving the smallest image of ``occ`` can give the
   smallest key, and for most boards there is one of them (cached per ``occ``).

>>> board = [None] * 16
>>> board[0], board[5] = 3, 12
>>> moved = [None] * 16
>>> moved[15], moved[10] = 3 ^ 9, 12 ^ 9        # a rotation by 180 degrees, then a trait flip
>>> canonical_key(board, 1) == canonical_key(moved, 1 ^ 9)
True
>>> len(board_maps()), len(board_maps(squares=True)), len(trait_maps())
(32, 8, 384)
>>> all(maps_lines_to_lines(m) for m in board_maps())
True
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations, product
from typing import Iterator, Optional, Sequence

Board = Sequence[Optional[int]]

CELLS = range(16)
ROWS = tuple(tuple(r * 4 + c for c in range(4)) for r in range(4))
COLUMNS = tuple(tuple(r * 4 + c for r in range(4)) for c in range(4))
DIAGONALS = ((0, 5, 10, 15), (3, 6, 9, 12))
SQUARES = tuple((r * 4 + c, r * 4 + c + 1, r * 4 + c + 4, r * 4 + c + 5) for r in range(3) for c in range(3))
LINES = ROWS + COLUMNS + DIAGONALS
"""The 10 winning lines of the standard game (4 rows, 4 columns, 2 diagonals)."""
LINES_WITH_SQUARES = LINES + SQUARES
"""The 19 winning lines of the ``squares`` variant (the 10 lines and the nine 2x2 squares)."""


def lines(squares: bool = False) -> tuple[tuple[int, ...], ...]:
    """The winning lines (tuples of 4 cells) of the game or of the ``squares`` variant.

    >>> len(lines()), len(lines(squares=True))
    (10, 19)
    """
    return LINES_WITH_SQUARES if squares else LINES


def _line_set(squares: bool) -> frozenset[frozenset[int]]:
    return frozenset(frozenset(line) for line in lines(squares))


def maps_lines_to_lines(board_map: Sequence[int], squares: bool = False) -> bool:
    """Whether the cell permutation ``board_map`` (cell -> image cell) maps the set of lines onto itself.

    >>> maps_lines_to_lines(tuple(range(16)))
    True
    >>> maps_lines_to_lines((1, 0) + tuple(range(2, 16)))    # swapping two cells is no symmetry
    False
    """
    if sorted(board_map) != list(CELLS):
        return False
    wanted = _line_set(squares)
    return {frozenset(board_map[c] for c in line) for line in wanted} == wanted


@lru_cache(maxsize=None)
def board_maps(squares: bool = False) -> tuple[tuple[int, ...], ...]:
    """Every board map (a tuple: cell -> image cell) that maps lines to lines; the identity first.

    Found by trying each pair of row and column permutations, with and without
    transposing, and keeping those that map the set of lines onto itself.

    >>> board_maps()[0] == tuple(range(16))
    True
    """
    found: set[tuple[int, ...]] = set()
    for rows in permutations(range(4)):
        for cols in permutations(range(4)):
            for transpose in (False, True):
                cells = []
                for cell in CELLS:
                    r, c = divmod(cell, 4)
                    if transpose:
                        r, c = c, r
                    cells.append(rows[r] * 4 + cols[c])
                image = tuple(cells)
                if maps_lines_to_lines(image, squares):
                    found.add(image)
    identity = tuple(CELLS)
    return (identity,) + tuple(sorted(found - {identity}))


def map_trait(piece: int, trait_map: tuple[tuple[int, ...], int]) -> int:
    """The image of a piece under a trait map ``(perm, flip)``: bit ``t`` moves to bit ``perm[t]``, then XOR ``flip``.

    >>> map_trait(0b0001, ((1, 0, 2, 3), 0))      # bit 0 goes to bit 1
    2
    >>> map_trait(0b0001, ((0, 1, 2, 3), 0b1111))
    14
    """
    perm, flip = trait_map
    out = 0
    for t in range(4):
        if piece >> t & 1:
            out |= 1 << perm[t]
    return out ^ flip


@lru_cache(maxsize=None)
def trait_maps() -> tuple[tuple[tuple[int, ...], int], ...]:
    """The 384 trait maps ``(perm, flip)``; the identity ``((0, 1, 2, 3), 0)`` first."""
    return tuple((perm, flip) for perm in permutations(range(4)) for flip in range(16))


def symmetries(squares: bool = False) -> Iterator[tuple[tuple[int, ...], tuple[tuple[int, ...], int]]]:
    """Every symmetry as a pair ``(board_map, trait_map)``: 12,288 (3,072 with ``squares``).

    >>> sum(1 for _ in symmetries())
    12288
    """
    return product(board_maps(squares), trait_maps())


def apply(board: Board, piece: Optional[int], board_map: Sequence[int],
          trait_map: tuple[tuple[int, ...], int]) -> tuple[list[Optional[int]], Optional[int]]:
    """The image ``(board, piece)`` of a position under one symmetry.

    >>> board = [None] * 16
    >>> board[0] = 0
    >>> new_board, new_piece = apply(board, 5, board_maps()[0], ((0, 1, 2, 3), 1))
    >>> new_board[0], new_piece
    (1, 4)
    """
    image: list[Optional[int]] = [None] * 16
    for cell, p in enumerate(board):
        if p is not None:
            image[board_map[cell]] = map_trait(p, trait_map)
    return image, (None if piece is None else map_trait(piece, trait_map))


# ---------------------------------------------------------------------------
# The fast canonical form, on the integer representation used by the solver.

SPREAD = tuple(sum(1 << (16 * t) for t in range(4) if p >> t & 1) for p in range(16))
"""``SPREAD[p] << cell`` sets, in a packed integer of four 16-bit trait masks, the bits of piece ``p`` at ``cell``."""


def pack(board: Board) -> tuple[int, int]:
    """``(occ, masks)``: the occupied cells as a 16-bit mask and the four trait masks packed 16 bits apart.

    Trait ``t`` (bit ``t`` of the piece number; bit 3 is the colour) has its
    mask in bits ``16 t .. 16 t + 15`` of ``masks``.

    >>> pack([15] + [None] * 15)
    (1, 281479271743489)
    """
    occ = masks = 0
    for cell, p in enumerate(board):
        if p is not None:
            occ |= 1 << cell
            masks |= SPREAD[p] << cell
    return occ, masks


class Canonicaliser:
    """Canonical keys of packed positions under a group of board maps (times all trait maps).

    ``key(occ, masks, hand)`` is invariant under every symmetry of the group and
    separates positions that are not images of each other. The solver creates
    one per search; :func:`canonical_key` is the convenient front end.
    """

    def __init__(self, maps: Sequence[Sequence[int]]):
        self.maps = tuple(tuple(m) for m in maps)
        lo_tables, hi_tables = [], []
        for m in self.maps:
            lo = [0] * 256
            hi = [0] * 256
            for byte in range(256):
                a = b = 0
                for bit in range(8):
                    if byte >> bit & 1:
                        a |= 1 << m[bit]
                        b |= 1 << m[bit + 8]
                lo[byte], hi[byte] = a, b
            lo_tables.append(lo)
            hi_tables.append(hi)
        self.lo, self.hi = lo_tables, hi_tables
        self._candidates: dict[int, tuple[int, tuple[int, ...]]] = {}

    def candidates(self, occ: int) -> tuple[int, tuple[int, ...]]:
        """The smallest image of ``occ`` under the board maps, and the indices of the maps giving it."""
        found = self._candidates.get(occ)
        if found is None:
            images = [lo[occ & 255] | hi[occ >> 8] for lo, hi in zip(self.lo, self.hi)]
            best = min(images)
            found = (best, tuple(i for i, image in enumerate(images) if image == best))
            self._candidates[occ] = found
        return found

    def key(self, occ: int, masks: int, hand: Optional[int]) -> int:
        """The canonical key of a packed position with ``hand`` in hand (``None``: nothing in hand)."""
        if hand is None:
            return min(self._key(occ, masks ^ (SPREAD[k] * occ)) for k in range(16)) << 1
        return (self._key(occ, masks ^ (SPREAD[hand] * occ)) << 1) | 1

    def _key(self, occ: int, masks: int) -> int:
        best_occ, maps = self.candidates(occ)
        m0 = masks & 0xFFFF
        m1 = (masks >> 16) & 0xFFFF
        m2 = (masks >> 32) & 0xFFFF
        m3 = masks >> 48
        best = -1
        lo_t, hi_t = self.lo, self.hi
        for i in maps:
            lo = lo_t[i]
            hi = hi_t[i]
            a, b, c, d = sorted((lo[m0 & 255] | hi[m0 >> 8], lo[m1 & 255] | hi[m1 >> 8],
                                 lo[m2 & 255] | hi[m2 >> 8], lo[m3 & 255] | hi[m3 >> 8]))
            k = a | b << 16 | c << 32 | d << 48
            if best < 0 or k < best:
                best = k
        return best << 16 | best_occ


@lru_cache(maxsize=None)
def canonicaliser(squares: bool = False) -> Canonicaliser:
    """The shared :class:`Canonicaliser` of the full group (standard game or ``squares`` variant)."""
    return Canonicaliser(board_maps(squares))


def canonical_key(board: Board, piece: Optional[int], squares: bool = False) -> int:
    """An integer equal for two positions exactly when a symmetry maps one onto the other.

    >>> empty = [None] * 16
    >>> canonical_key(empty, 0) == canonical_key(empty, 11)
    True
    >>> a = [None] * 16; a[0] = 1
    >>> b = [None] * 16; b[5] = 1
    >>> canonical_key(a, 0) == canonical_key(b, 0)      # a corner and a centre cell are equivalent
    True
    >>> canonical_key(a, 0, squares=True) == canonical_key(b, 0, squares=True)   # not with squares
    False
    """
    occ, masks = pack(board)
    return canonicaliser(squares).key(occ, masks, piece)


def brute_force_key(board: Board, piece: Optional[int], squares: bool = False) -> tuple[tuple[int, ...], int]:
    """The smallest image of the position over every symmetry, by enumeration (slow; a reference for tests)."""
    images = (apply(board, piece, board_map, trait_map) for board_map, trait_map in symmetries(squares))
    return min((tuple(-1 if p is None else p for p in image), -1 if hand is None else hand) for image, hand in images)
