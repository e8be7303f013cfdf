"""Tic-tac-toe's part ``packed``: the grid as one 64-bit word for the shared partitioned solver.

A position is seen from the player to move: each cell 2 bits (0 empty, 1 the mover's mark, 2 the other's), so
every ply hands the turn on (offset 1) and the two players are one; the grid's 8 symmetries are removed (the
smallest code of the 8). A ply that completes a line is an edge won by the mover (``end`` 0); one that fills
the grid without a line ends the game with nobody winning (``end`` -1). Moves are numbered by cell.

>>> import tempfile
>>> from quaternity_cp import partitioned
>>> built = partitioned.build(packed_for({}), tempfile.mkdtemp(), parts=2)
>>> att = partitioned.attract(built)
>>> built.positions, [int(r) for r in att.ranks[att.root]]  # the empty grid: nobody forces a win
(627, [-1, -1])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from . import LINES


def _symmetries() -> list[tuple[int, ...]]:
    """The grid's 8 symmetries, each as the cell each new cell is taken from."""
    rotate = tuple(3 * (2 - c % 3) + c // 3 for c in range(9))
    mirror = tuple(3 * (c % 3) + c // 3 for c in range(9))
    found = {tuple(range(9))}
    while True:
        more = {tuple(p[q[c]] for c in range(9)) for p in found for q in (rotate, mirror)} | found
        if more == found:
            return sorted(found)
        found = more


SYMMETRIES = _symmetries()


def encode(cells: tuple[int, ...]) -> int:
    """The smallest code of the grid ``cells`` (0 empty, 1 the mover's, 2 the other's) over its symmetries."""
    return min(sum(cells[p[c]] << (2 * c) for c in range(9)) for p in SYMMETRIES)


def cells_of(key: int) -> tuple[int, ...]:
    return tuple((key >> (2 * c)) & 3 for c in range(9))


@dataclass(frozen=True)
class TicTacToePacked:
    """Tic-tac-toe as the shared solver reads it (:class:`quaternity_cp.partitioned.Packed`)."""

    name: str = "tictactoe"
    format: str = "tictactoe-graph-2"  # (2: the shared layer's files of quaternity_cp 2026-11)
    width: int = 1
    seats: int = 2
    moves: int = 9
    max_degree: int = 9

    def identity(self) -> dict[str, Any]:
        return {"grid": 3}

    def start(self) -> tuple[np.ndarray, int]:
        return np.zeros(1, np.uint64), 0

    def expand(self, keys: np.ndarray) -> dict[str, np.ndarray]:
        child: list[int] = []
        src: list[int] = []
        move: list[int] = []
        end: list[int] = []
        degree: list[int] = []
        for i, row in enumerate(np.asarray(keys, np.uint64).reshape(-1, 1).tolist()):
            cells = cells_of(int(row[0]))
            seen: set[tuple[int, int]] = set()
            for c in range(9):
                if cells[c]:
                    continue
                after = cells[:c] + (1,) + cells[c + 1:]
                if any(after[a] == after[b] == after[d] == 1 for a, b, d in LINES):
                    what = (-1, 0)  # the mover wins
                elif all(after):
                    what = (-1, -1)  # a full grid: nobody wins
                else:
                    what = (encode(tuple((0, 2, 1)[v] for v in after)), -2)  # seen from the other player
                if what in seen:  # (two plies to one position, or to one outcome, are one edge)
                    continue
                seen.add(what)
                child.append(max(what[0], 0))
                end.append(what[1])
                src.append(i)
                move.append(c)
            degree.append(len(seen))
        m = len(src)
        return {"keys": np.array(child, np.uint64).reshape(m, 1), "src": np.array(src, np.int64),
                "off": np.ones(m, np.int8), "move": np.array(move, np.int16), "end": np.array(end, np.int8),
                "owner": np.zeros(len(degree), np.int8), "degree": np.array(degree, np.int16)}

    def decode(self, key: np.ndarray) -> dict[str, Any]:
        return {"cells": list(cells_of(int(np.asarray(key, np.uint64).reshape(-1)[0])))}


def packed_for(options: Mapping[str, Any]) -> TicTacToePacked:
    """The game's part ``packed`` (tic-tac-toe has no options)."""
    return TicTacToePacked()


__all__ = ["TicTacToePacked", "packed_for", "encode", "cells_of", "SYMMETRIES"]
