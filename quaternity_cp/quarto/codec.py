"""Quarto's numbering for the research bridges: action ``(cell + 1) * 17 + (piece + 1)`` (cell and piece
0..15, 0 standing for none: the opening gives a piece only, a winning placement gives none), 289 ids; the
observation is the board (16 cells x 17: a piece or empty), the piece in hand and the player to move; the
information state the moves so far (17 rows of cell and piece).

The game's ``codec`` part is :func:`codec_for` (see :mod:`quaternity_cp.encoding`).

>>> from quaternity_cp.quarto import Cell, Move, Piece
>>> codec = QuartoCodec()
>>> codec.action_id(Move(Cell(0), Piece(3))), str(codec.move(21))
(21, 'A4 LRSH')
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ..encoding import Pieces


def codec_for(state: Any = None, max_moves: int | None = None) -> "QuartoCodec":
    """The ``codec`` part: Quarto's codec (one for every game; a game lasts 17 decisions at most, so
    ``max_moves`` only bounds when a bridge stops it)."""
    return QuartoCodec() if max_moves is None else QuartoCodec(max_moves)


class QuartoCodec:
    """Action ids, tensors and strings of Quarto (see the module's docstring)."""

    num_actions = 17 * 17
    rows = 17  # the opening and 16 placements
    observation_pieces: Pieces = [("seat", (2,)), ("board", (16, 17)), ("in_hand", (17,)), ("to_move", (2,))]
    info_pieces: Pieces = [("seat", (2,)), ("moves", (17, 34))]

    def __init__(self, max_moves: int = rows):
        self.max_moves = max_moves

    def action_id(self, move: Any) -> int:
        """The id of a :class:`~quaternity_cp.quarto.Move`."""
        cell = 0 if move.cell is None else int(move.cell) + 1
        piece = 0 if move.piece is None else int(move.piece) + 1
        return cell * 17 + piece

    def legal(self, actions: Iterable[Any]) -> dict[int, Any]:
        return {self.action_id(a): a for a in actions}

    def move(self, action: int) -> Any:
        """The Move of an id (ValueError when it is none)."""
        from .core import Cell, Piece
        from .position import Move

        cell, piece = divmod(action, 17)
        if not 0 <= action < self.num_actions or (cell == 0 and piece == 0):
            raise ValueError(f"no Quarto action {action}")
        return Move(None if cell == 0 else Cell(cell - 1), None if piece == 0 else Piece(piece - 1))

    def observation_ones(self, seat: int, position: Any) -> list[int]:
        out = [seat]
        for cell in range(16):
            piece = position.board[cell]
            out.append(2 + cell * 17 + (16 if piece is None else int(piece)))
        hand = position.piece
        out.append(2 + 16 * 17 + (16 if hand is None else int(hand)))
        if position.to_move is not None:
            out.append(2 + 16 * 17 + 17 + position.to_move)
        return out

    def info_ones(self, seat: int, moves: Sequence[Any]) -> list[int]:
        out = [seat]
        for i, move in enumerate(moves):
            row = 2 + i * 34
            out.append(row + (16 if move.cell is None else int(move.cell)))
            out.append(row + 17 + (16 if move.piece is None else int(move.piece)))
        return out

    def observation_text(self, seat: int, position: Any) -> str:
        board = " / ".join(position.board.row_text(r) for r in range(4))
        hand = "-" if position.piece is None else str(position.piece)
        turn = "-" if position.to_move is None else str(position.to_move)
        return f"player {seat}; board {board}; in hand {hand}; to move {turn}"

    def action_text(self, seat: int, action: int) -> str:
        """The move of an id in the record notation."""
        return str(self.move(action))

    def state_ones(self, state: Any, seat: int, perfect_recall: bool = False) -> list[int]:
        """The observation's (or information state's) 1s of ``seat`` in a project state."""
        position = state.position
        return self.info_ones(seat, position.moves) if perfect_recall else self.observation_ones(seat, position)

    def state_text(self, state: Any, seat: int, perfect_recall: bool = False) -> str:
        """The observation (or information state) of ``seat`` in a project state as one line."""
        position = state.position
        return self.info_text(seat, position.moves) if perfect_recall else self.observation_text(seat, position)

    def info_text(self, seat: int, moves: Sequence[Any]) -> str:
        return f"player {seat}; moves " + (" ".join(str(m) for m in moves) or "-")


__all__ = ["QuartoCodec", "codec_for"]
