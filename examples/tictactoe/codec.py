"""Tic-tac-toe's numbers for the research bridges (the ``codec`` part): action id = cell (0..8); the
observation is the seat, the board (9 cells x 3: x, o, empty) and the player to move; the information
state the seat and the moves in order (9 rows of 9 cells)."""

from __future__ import annotations

from typing import Any, Iterable

from quaternity_cp.encoding import Pieces

from . import cell_name


class TicTacToeCodec:
    num_actions = 9
    rows = 9  # the longest game
    observation_pieces: Pieces = [("seat", (2,)), ("board", (9, 3)), ("to_move", (2,))]
    info_pieces: Pieces = [("seat", (2,)), ("moves", (9, 9))]

    def __init__(self, max_moves: int = rows):
        self.max_moves = max_moves

    def legal(self, actions: Iterable[Any]) -> dict[int, Any]:
        return {int(a): a for a in actions}

    def action_text(self, seat: int, action: int) -> str:
        return cell_name(action)

    def state_ones(self, state: Any, seat: int, perfect_recall: bool = False) -> list[int]:
        if perfect_recall:
            return [seat] + [2 + i * 9 + cell for i, cell in enumerate(state.moves)]
        out = [seat] + [2 + cell * 3 + (2 if mark is None else mark) for cell, mark in enumerate(state.board)]
        player = state.current_player()
        return out + ([2 + 27 + player] if player >= 0 else [])

    def state_text(self, state: Any, seat: int, perfect_recall: bool = False) -> str:
        if perfect_recall:
            return f"player {seat}; moves " + (" ".join(cell_name(c) for c in state.moves) or "-")
        board = "/".join("".join("xo."[2 if m is None else m] for m in state.board[r:r + 3]) for r in (0, 3, 6))
        return f"player {seat}; board {board}"


def codec_for(state: Any = None, max_moves: int | None = None) -> TicTacToeCodec:
    """The ``codec`` part (one codec for every game)."""
    return TicTacToeCodec() if max_moves is None else TicTacToeCodec(max_moves)
