"""The opening table: proven values and best moves of Quarto's first plies, shipped with the package.

The table is what a proof of the empty board (:func:`.proof.prove` from the
very start, ``complete``: every position of its top tree asked both questions)
proved about each canonical position of its first plies: whether the player to
move gets at least a draw (``ge0``), whether they are held to at most a draw
(``le0``), and the position a best move leads to (``child``, a canonical key:
the move is found again in any orientation by trying the legal moves).
``quaternity quarto openings --out FILE`` regenerates it; the package's copy
is ``openings.json`` beside this module (standard rules). The ``solver`` agent
plays from it, and the web table's verdict answers from it at once.

>>> entry = lookup([None] * 16, 0)
>>> entry is None or entry.ge0 in (True, None)      # the empty board: at least a draw for whoever places first
True
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional, Sequence

from . import symmetry
from .core import QuartoError

FORMAT = "quaternity-quarto-openings-1"
#: The shipped table (standard rules).
PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "openings.json")


class OpeningsError(QuartoError, ValueError):
    """A table file that is not an opening table."""


@dataclass(frozen=True)
class Entry:
    """What the table knows of one canonical position (None: not proven)."""

    ge0: Optional[bool]
    le0: Optional[bool]
    child: Optional[int]

    @property
    def value(self) -> Optional[str]:
        """``win``, ``draw`` or ``loss`` for the player to move, when both bounds are known (or one decides)."""
        if self.ge0 is False:
            return "loss"
        if self.le0 is False:
            return "win"
        if self.ge0 and self.le0:
            return "draw"
        return None

    @property
    def bound(self) -> Optional[str]:
        """The value in words when only a bound is known: ``at least a draw`` or ``at most a draw``."""
        if self.value is not None:
            return None
        if self.ge0:
            return "at least a draw"
        if self.le0:
            return "at most a draw"
        return None


def position_of(key: int) -> tuple[list[Optional[int]], Optional[int]]:
    """A position whose canonical key is ``key`` (the canonical image itself: the piece in hand is LRTS).

    >>> board = [None] * 16
    >>> board[5], board[6] = 9, 3
    >>> image, hand = position_of(symmetry.canonical_key(board, 12))
    >>> symmetry.canonical_key(image, hand) == symmetry.canonical_key(board, 12), hand
    (True, 0)
    """
    hand = 0 if key & 1 else None
    rest = key >> 1
    occ, masks = rest & 0xFFFF, rest >> 16
    board: list[Optional[int]] = [None] * 16
    for cell in range(16):
        if occ >> cell & 1:
            board[cell] = sum(((masks >> (16 * t + cell)) & 1) << t for t in range(4))
    return board, hand


def table_json(proof: Any, squares: bool) -> dict[str, Any]:
    """The table of a :class:`.proof.ProofResult` of the empty board, as JSON."""
    entries = [[f"{key:x}", e["ge0"], e["le0"], None if e["child"] is None else f"{e['child']:x}"]
               for key, e in sorted(proof.table.items())]
    return {"format": FORMAT, "squares": squares, "split": proof.split, "value": proof.value,
            "status": proof.status, "nodes": proof.nodes, "entries": entries}


def read(path: str) -> tuple[bool, dict[int, Entry]]:
    """``(squares, entries)`` of a table file; :class:`OpeningsError` when it is not one."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} file")
        entries = {}
        for key, ge0, le0, child in data["entries"]:
            entries[int(key, 16)] = Entry(ge0, le0, None if child is None else int(child, 16))
        return bool(data["squares"]), entries
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise OpeningsError(f"{path}: not an opening table ({err})") from None


@lru_cache(maxsize=None)
def shipped() -> dict[int, Entry]:
    """The package's table (standard rules); empty when the file is missing."""
    if not os.path.exists(PATH):
        return {}
    return read(PATH)[1]


def lookup(board: Sequence[Optional[int]], hand: Optional[int], squares: bool = False) -> Optional[Entry]:
    """The shipped table's entry for the position (None: not in it; the squares variant has no table)."""
    if squares:
        return None
    table = shipped()
    if not table:
        return None
    return table.get(symmetry.canonical_key(board, hand))


def book_move(board: Sequence[Optional[int]], hand: int,
              squares: bool = False) -> Optional[tuple[tuple[int, int], Entry]]:
    """``((cell, gift), entry)``: the table's best move in this orientation of the position, or None."""
    entry = lookup(board, hand, squares)
    if entry is None or entry.child is None:
        return None
    left = [q for q in range(16) if q != hand and q not in board]
    for cell in range(16):
        if board[cell] is not None:
            continue
        after = list(board)
        after[cell] = hand
        for q in left:
            if symmetry.canonical_key(after, q) == entry.child:
                return (cell, q), entry
    return None  # pragma: no cover - the child is a position after one move


__all__ = ["Entry", "FORMAT", "PATH", "OpeningsError", "position_of", "table_json", "read", "shipped", "lookup", "book_move"]
