"""A Quarto game in progress: moves, legality and push/pop.

A move is written as in quarto-lib's records: the first move is the piece
player 0 gives (``"LRTS"``); every later move places the piece in hand and
gives the next one (``"A1 DSSH"``); the placement that ends the game gives
nothing (``"A1"``).

>>> pos = Position()
>>> for text in ["LRTS", "A4 LRTH", "B4 LRSS", "C4 LSSH"]:
...     _ = pos.push(text)
>>> pos.to_move, pos.piece, pos.over
(0, <Piece.LSSH: 7>, False)
>>> _ = pos.push("D4")
>>> pos.winner, [" ".join(map(str, line)) for line in pos.winning_lines]
(0, ['A4 B4 C4 D4'])
>>> pos.push("A1 LRTH")
Traceback (most recent call last):
...
quaternity_cp.quarto.position.IllegalMove: the game is over
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Iterator, Optional

from .core import Board, Cell, NotationError, Piece, QuartoError


@dataclass(frozen=True)
class Move:
    """Place the piece in hand on ``cell`` (None: the opening choice), then give ``piece`` (None: the game ended)."""

    cell: Optional[Cell]
    piece: Optional[Piece]

    def __post_init__(self) -> None:
        if self.cell is None and self.piece is None:
            raise NotationError("a move places a piece, gives a piece, or both")
        if self.cell is not None and not isinstance(self.cell, Cell):
            object.__setattr__(self, "cell", Cell(self.cell))
        if self.piece is not None and not isinstance(self.piece, Piece):
            object.__setattr__(self, "piece", Piece(self.piece))

    def __str__(self) -> str:
        if self.cell is None:
            return str(self.piece)
        if self.piece is None:
            return str(self.cell)
        return f"{self.cell} {self.piece}"

    @classmethod
    def parse(cls, text: str) -> "Move":
        """A move from its notation: ``"LRTS"``, ``"A1 DSSH"`` or ``"A1"``.

        >>> [str(Move.parse(t)) for t in ("lrts", "A1  DSSH", "d4")]
        ['LRTS', 'A1 DSSH', 'D4']
        """
        if not isinstance(text, str):
            raise NotationError(f"a move is a string like \"A1 DSSH\", got {text!r}")
        parts = text.split()
        if len(parts) == 1:
            word = parts[0]
            if len(word) == 2:
                return cls(Cell.parse(word), None)
            if len(word) == 4:
                return cls(None, Piece.parse(word))
            raise NotationError(f"no move {text!r}: a move is a piece (\"LRTS\"), a cell and a piece (\"A1 DSSH\") or a cell (\"A1\")")
        if len(parts) == 2:
            return cls(Cell.parse(parts[0]), Piece.parse(parts[1]))
        raise NotationError(f"no move {text!r}: a move is a piece (\"LRTS\"), a cell and a piece (\"A1 DSSH\") or a cell (\"A1\")")


class Illegal(Enum):
    """Why a move is illegal: one member per rule a Quarto move can break."""

    GAME_OVER = "the game is over"
    NO_PIECE_IN_HAND = "no piece is in hand yet: the first move only chooses the piece to give"
    PLACE_FIRST = "the piece in hand must be placed before another piece is given"
    CELL_TAKEN = "the cell is taken"
    PIECE_USED = "the piece given is already on the board"
    PIECE_IN_HAND = "the piece given is the piece being placed"
    MUST_GIVE = "a placement that does not end the game must give the opponent a piece"
    NOTHING_TO_GIVE = "the placement ends the game: no piece is given after it"


class IllegalMove(QuartoError):
    """A well-formed move that the rules do not allow here; ``reason`` is an :class:`Illegal`."""

    def __init__(self, reason: Illegal, move: Move, detail: str = ""):
        self.reason = reason
        self.move = move
        self.detail = detail
        super().__init__(reason.value + (f" ({detail})" if detail else ""))

    @property
    def message(self) -> str:
        return str(self)


@dataclass(frozen=True)
class State:
    """Everything a position is, as one immutable value (one per ply on the stack)."""

    board: Board
    piece: Optional[Piece]  # the piece in hand of the player to move (None: before the first choice, or over)
    to_move: Optional[int]  # None when the game is over
    winner: Optional[int] = None
    last: Optional[Cell] = None  # the last placement (where the winning lines pass)


class Position:
    """A Quarto position under the rules (``squares``: the 2x2 squares win too), with push/pop.

    Player 0 gives the first piece; player ``n % 2`` makes the ``n``-th placement.
    """

    def __init__(self, *, squares: bool = False, state: Optional[State] = None):
        if not isinstance(squares, bool):
            raise QuartoError(f"squares must be True or False, not {squares!r}")
        self.squares = squares
        self._state = state if state is not None else State(Board.empty(), None, 0)
        self._stack: list[tuple[Move, State]] = []

    @classmethod
    def from_board(
        cls, board: Board, piece: Optional[Piece], to_move: Optional[int], *, squares: bool = False
    ) -> "Position":
        """A position set up directly (no check that a game reaches it: see ``formats.unreachable_reason``).

        ``to_move`` is 0, 1 or None (an int, not a bool or a float); ``piece`` a :class:`Piece` or None.
        """
        if to_move is not None and (type(to_move) is not int or to_move not in (0, 1)):
            raise QuartoError(f"to_move must be 0, 1 or None, not {to_move!r}")
        if piece is not None and not isinstance(piece, Piece):
            raise QuartoError(f"piece must be a Piece or None, not {piece!r}")
        if not isinstance(board, Board):
            raise QuartoError(f"board must be a Board, not {board!r}")
        winner = None
        last = None
        lines = board.winning_lines(squares)
        if lines:
            winner = board.count() % 2
            common = set(lines[0]).intersection(*lines[1:])
            last = min(common) if common else None
        over = bool(lines) or board.is_full()
        return cls(squares=squares, state=State(board, None if over else piece, None if over else to_move, winner, last))

    # -- read access --------------------------------------------------------------------
    @property
    def state(self) -> State:
        return self._state

    @property
    def board(self) -> Board:
        return self._state.board

    @property
    def piece(self) -> Optional[Piece]:
        """The piece in hand of the player to move (None before the first piece is given, and at the end)."""
        return self._state.piece

    @property
    def to_move(self) -> Optional[int]:
        """The player who decides now (0 or 1), None when the game is over."""
        return self._state.to_move

    @property
    def winner(self) -> Optional[int]:
        """The player who completed a line; None for a draw or a game not over."""
        return self._state.winner

    @property
    def over(self) -> bool:
        return self._state.to_move is None

    @property
    def winning_lines(self) -> list[tuple[Cell, ...]]:
        """The winning lines on the board (all through the last placement), [] if none."""
        return self._state.board.winning_lines(self.squares)

    @property
    def moves(self) -> list[Move]:
        """The moves pushed so far."""
        return [m for m, _ in self._stack]

    @property
    def ply(self) -> int:
        return len(self._stack)

    def available_pieces(self) -> list[Piece]:
        """The pieces neither on the board nor in hand, in number order."""
        st = self._state
        used = st.board.used | (1 << st.piece if st.piece is not None else 0)
        return [Piece(p) for p in range(16) if not used >> p & 1]

    def empty_cells(self) -> list[Cell]:
        return self._state.board.empty_cells()

    def copy(self) -> "Position":
        other = Position(squares=self.squares, state=self._state)
        other._stack = list(self._stack)
        return other

    def __repr__(self) -> str:
        st = self._state
        return (
            f"<quarto.Position {st.board!r} piece={st.piece} to_move={st.to_move}"
            f"{' squares' if self.squares else ''}>"
        )

    def _repr_html_(self) -> str:
        """The board, the piece in hand and the pieces left as SVG, for notebooks."""
        from ..svg import wrap_html
        from .svg import quarto_svg

        return wrap_html(quarto_svg(self))

    # -- legality ---------------------------------------------------------------------------
    def check(self, move: Move) -> Optional[IllegalMove]:
        """Why ``move`` is illegal here, or None if it is legal."""
        st = self._state
        if st.to_move is None:
            return IllegalMove(Illegal.GAME_OVER, move)
        if st.piece is None:  # the opening choice
            if move.cell is not None:
                return IllegalMove(Illegal.NO_PIECE_IN_HAND, move)
            return None
        if move.cell is None:
            return IllegalMove(Illegal.PLACE_FIRST, move, f"{st.piece} is in hand")
        board = st.board
        if board.occupied >> move.cell & 1:
            return IllegalMove(Illegal.CELL_TAKEN, move, f"{board[move.cell]} stands on {move.cell}")
        after = board.place(move.cell, st.piece)
        wins = after.wins_at(move.cell, self.squares)
        if wins or after.is_full():
            if move.piece is not None:
                why = "it completes a line" if wins else "the board is full"
                return IllegalMove(Illegal.NOTHING_TO_GIVE, move, why)
            return None
        if move.piece is None:
            return IllegalMove(Illegal.MUST_GIVE, move)
        if move.piece == st.piece:
            return IllegalMove(Illegal.PIECE_IN_HAND, move, f"{st.piece} goes to {move.cell}")
        if board.used >> move.piece & 1:
            where = next(c for c, p in board.pieces() if p == move.piece)
            return IllegalMove(Illegal.PIECE_USED, move, f"{move.piece} stands on {where}")
        return None

    def is_legal(self, move: Move) -> bool:
        return self.check(move) is None

    def legal_moves(self) -> Iterator[Move]:
        """Every legal move: by cell, then by piece given (numbers increasing)."""
        st = self._state
        if st.to_move is None:
            return
        if st.piece is None:
            for p in Piece:
                yield Move(None, p)
            return
        board = st.board
        free = self.available_pieces()
        for cell in board.empty_cells():
            after = board.place(cell, st.piece)
            if after.is_full() or after.wins_at(cell, self.squares):
                yield Move(cell, None)
            else:
                for p in free:
                    yield Move(cell, p)

    # -- push / pop ----------------------------------------------------------------------------
    def parse_move(self, text: str) -> Move:
        """A move from its notation (legality is checked by :meth:`push`)."""
        return Move.parse(text)

    def push(self, move: "Move | str") -> Move:
        """Play ``move`` (a :class:`Move` or its notation); raises :class:`IllegalMove` naming the rule broken."""
        if isinstance(move, str):
            move = Move.parse(move)
        error = self.check(move)
        if error is not None:
            raise error
        st = self._state
        assert st.to_move is not None  # check() refuses every move once the game is over
        if move.cell is None:
            new = State(st.board, move.piece, 1 - st.to_move)
        else:
            assert st.piece is not None  # check() refuses a placement before the first piece is given
            board = st.board.place(move.cell, st.piece)
            if board.wins_at(move.cell, self.squares):
                new = State(board, None, None, st.to_move, move.cell)
            elif board.is_full():
                new = State(board, None, None, None, move.cell)
            else:
                new = State(board, move.piece, 1 - st.to_move, None, move.cell)
        self._stack.append((move, st))
        self._state = new
        return move

    def pop(self) -> Move:
        """Take back the last move."""
        if not self._stack:
            raise QuartoError("no move to take back")
        move, self._state = self._stack.pop()
        return move


__all__ = ["Move", "Illegal", "IllegalMove", "State", "Position"]
