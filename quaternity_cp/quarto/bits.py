"""The bit tables the Quarto searches share (the Python one in :mod:`.solver`, the compiled one in :mod:`.fast`,
the work-unit prover in :mod:`.proof`): the attributes of a piece, the pieces that complete a threat, the
lines holding exactly three cells of a set of cells, and the threat of a position."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from . import symmetry

ATTRS = tuple(p | ((~p & 15) << 4) for p in range(16))
"""The 8-bit attribute set of a piece: bit ``t`` for trait ``t`` = 1, bit ``4 + t`` for trait ``t`` = 0."""

UNSAFE = tuple(sum(1 << q for q in range(16) if ATTRS[q] & threat) for threat in range(256))
"""For an 8-bit threat (attributes completing some line), the 16-bit set of pieces that win there."""


@lru_cache(maxsize=None)
def three_table(squares: bool = False) -> list[int]:
    """``table[mask]``: the bit set of line indices holding exactly three cells of the 16-bit ``mask``.

    >>> table = three_table()
    >>> table[0b0111] == 1          # A4 B4 C4: three cells of the top row (line 0)
    True
    >>> table[0b1111]               # a full row has four cells, not three
    0
    """
    table = [0] * 65536
    for index, line in enumerate(symmetry.lines(squares)):
        bit = 1 << index
        others = [c for c in range(16) if c not in line]
        base = [0]
        for c in others:
            base += [b | (1 << c) for b in base]
        for skip in line:
            three = sum(1 << c for c in line if c != skip)
            for b in base:
                table[b | three] |= bit
    return table


def threat(occ: int, masks: int, three: Any) -> int:
    """The 8-bit set of attributes that complete some line with three pieces and one empty cell.

    ``occ`` is the 16-bit set of occupied cells, ``masks`` four 16-bit sets (cells whose piece has trait
    ``t`` = 1, trait by trait), ``three`` the table of :func:`three_table`. Plain Python, so that
    :mod:`.fast` compiles this very function."""
    open3 = three[occ]
    if not open3:
        return 0
    m0 = masks & 0xFFFF
    m1 = (masks >> 16) & 0xFFFF
    m2 = (masks >> 32) & 0xFFFF
    m3 = (masks >> 48) & 0xFFFF  # masked: the compiled search runs it on signed 64-bit integers
    t = 0
    if three[m0] & open3:
        t = 1
    if three[m1] & open3:
        t |= 2
    if three[m2] & open3:
        t |= 4
    if three[m3] & open3:
        t |= 8
    if three[occ ^ m0] & open3:
        t |= 16
    if three[occ ^ m1] & open3:
        t |= 32
    if three[occ ^ m2] & open3:
        t |= 64
    if three[occ ^ m3] & open3:
        t |= 128
    return t
