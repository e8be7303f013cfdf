"""Quarto files: records and positions (JSON), strict readers, and the validity of a position.

A record: ``{"game": "quarto", "moves": ["LRTS", "A1 DSSH", ...]}``, with the
options in ``"rules": {"squares": true}``. A position: ``{"game": "quarto",
"board": [4 rows from the top, each 4 pieces or null], "piece": "DSSH" or null,
"to_move": 0 or 1}``. Every reading error is a :class:`FormatError` whose
one-line message names the field (or move) and the problem.

A position is *valid* when some legal game reaches it (see
:func:`unreachable_reason`): its pieces are distinct, the piece in hand is not
on the board, the player to move matches the number of placements, and some
order of the placements completes no line before the last one.

>>> rec = parse('{"game": "quarto", "moves": ["LRTS", "A4 DSSH", "B4 LSSH"]}')
>>> [str(m) for m in rec.moves], rec.squares
(['LRTS', 'A4 DSSH', 'B4 LSSH'], False)
>>> result = replay(rec)
>>> result.valid, result.position.to_move, str(result.position.piece)
(True, 1, 'LSSH')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Optional, Union

from .. import errors, jsonio
from ..jsonio import InputRefused, check_move_count, check_size, show
from .core import Board, Cell, NotationError, Piece, QuartoError
from .position import IllegalMove, Move, Position

if TYPE_CHECKING:
    from .position import State

RECORD_KEYS = {"game", "moves", "rules"}
POSITION_KEYS = {"game", "board", "piece", "to_move", "rules"}
RULE_OPTIONS = {"squares"}


class FormatError(QuartoError, errors.FormatError):
    """A file that cannot be read as a Quarto record or position; the message names the place.

    The library's one file error (:class:`quaternity_cp.errors.FormatError`, a ValueError) and a
    :class:`QuartoError`: ``except`` either catches it, and the message stays Quarto's own."""


@dataclass
class QuartoRecord:
    """A game to replay from the start."""

    moves: list[Move] = field(default_factory=list)
    squares: bool = False
    texts: list[str] = field(default_factory=list)  # each move as written, for messages

    def start(self) -> Position:
        return Position(squares=self.squares)


@dataclass
class QuartoPosition:
    """A position set up directly: the board, the piece in hand and the player to move (not yet checked)."""

    board: Board
    piece: Optional[Piece]
    to_move: Optional[int]
    squares: bool = False

    def position(self) -> Position:
        return Position.from_board(self.board, self.piece, self.to_move, squares=self.squares)


# -- JSON, strictly ---------------------------------------------------------------------
def load_json(text: str) -> Any:
    """Parse JSON text strictly, with the limits of every game's files (:mod:`quaternity_cp.jsonio`):
    at most 16 MiB, no duplicate keys, no NaN or Infinity, bounded numbers and nesting."""
    try:
        check_size(text)
    except InputRefused as err:
        raise FormatError(str(err)) from None
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise FormatError("empty file: expected a Quarto record or position (JSON)")
    try:
        return jsonio.load_json(text)
    except InputRefused as err:
        raise FormatError(f"not valid JSON: {err}") from None


def _squares(data: dict[str, Any]) -> bool:
    rules = data.get("rules")
    if rules is None:  # absent or null: the standard rules, as a Quaternity or Go Fish record's null is its default
        return False
    if not isinstance(rules, dict):
        raise FormatError(f"field 'rules': expected an object like {{\"squares\": true}}, got {show(rules)}")
    for key in rules:
        if key not in RULE_OPTIONS:
            raise FormatError(f"field 'rules': unknown option {key!r} (known: squares)")
    squares = rules.get("squares", False)
    if not isinstance(squares, bool):
        raise FormatError(f"field 'rules': option 'squares' must be true or false, got {show(squares)}")
    return squares


def rules_from_text(text: str) -> bool:
    """Whether the squares win, as the rules given on a command line (``--rules``) say: ``squares=true``
    (``yes``/``no`` too), ``squares=false``, or a JSON object as a record's ``"rules"`` (``{"squares": true}``).
    Quarto has no rule sets: its one option is ``squares``. Anything else raises :class:`FormatError` (one line,
    without the option's name ``--rules``: the caller adds it). The result replaces the file's own rules.

    >>> rules_from_text("squares=true"), rules_from_text('{"squares": false}')
    (True, False)
    """
    text = text.strip()
    if text.startswith("{"):
        try:
            given = jsonio.load_json(text)
        except InputRefused as err:
            raise FormatError(f"not a JSON object: {err}") from None
        try:
            return _squares({"rules": given})
        except FormatError as err:
            raise FormatError(str(err).removeprefix("field 'rules': ")) from None
    if not text:
        raise FormatError("empty (give squares=true or squares=false)")
    if "," in text:
        raise FormatError(f"Quarto has one rule option, squares: give one item, e.g. squares=true, not {show(text)}")
    key, eq, value = text.partition("=")
    if not eq:
        raise FormatError(f"Quarto has no rule sets: give its one option, squares=true or squares=false, not "
                          f"{show(text)}")
    if key.strip() not in RULE_OPTIONS:
        raise FormatError(f"unknown option {key.strip()!r} (Quarto's one option: squares)")
    flag = {"true": True, "yes": True, "false": False, "no": False}.get(value.strip().lower())
    if flag is None:
        raise FormatError(f"option squares: expected true or false, got {show(value.strip())}")
    return flag


def _check_game(data: Any) -> None:
    if not isinstance(data, dict):
        raise FormatError(f"expected a JSON object (a Quarto record or position), got {show(data)}")
    if "game" not in data:
        raise FormatError("missing field 'game' (expected \"quarto\")")
    if data["game"] != "quarto":
        raise FormatError(f"field 'game': expected \"quarto\", got {show(data['game'])}")


def record_from_json(data: Any) -> QuartoRecord:
    """A record from parsed JSON (strict)."""
    _check_game(data)
    for key in data:
        if key not in RECORD_KEYS:
            raise FormatError(f"unknown field {key!r} in a record (known: game, moves, rules)")
    if "moves" not in data:
        raise FormatError("missing field 'moves'")
    items = data["moves"]
    if not isinstance(items, list):
        raise FormatError(f"field 'moves': expected a list of moves, got {show(items)}")
    try:
        check_move_count(len(items))  # the cap of every game's records
    except InputRefused as err:
        raise FormatError(str(err)) from None
    squares = _squares(data)
    moves, texts = [], []
    for i, item in enumerate(items, 1):
        if not isinstance(item, str):
            raise FormatError(f"move {i}: expected a string like \"A1 DSSH\", got {show(item)}")
        try:
            moves.append(Move.parse(item))
        except NotationError as err:
            raise FormatError(f"move {i} ({show(item)}): {err}") from None
        texts.append(item)
    return QuartoRecord(moves, squares, texts)


def _piece_field(value: Any, where: str) -> Optional[Piece]:
    if value is None:
        return None
    if not isinstance(value, str):
        raise FormatError(f"{where}: expected a piece like \"DSSH\" or null, got {show(value)}")
    try:
        return Piece.parse(value)
    except NotationError as err:
        raise FormatError(f"{where}: {err}") from None


def position_from_json(data: Any) -> QuartoPosition:
    """A position from parsed JSON (strict about the format; validity is :func:`unreachable_reason`)."""
    _check_game(data)
    for key in data:
        if key not in POSITION_KEYS:
            raise FormatError(f"unknown field {key!r} in a position (known: game, board, piece, to_move, rules)")
    for key in ("board", "piece", "to_move"):
        if key not in data:
            raise FormatError(f"missing field {key!r}")
    rows = data["board"]
    if not isinstance(rows, list) or len(rows) != 4:
        got = f"{len(rows)} rows" if isinstance(rows, list) else show(rows)
        raise FormatError(f"field 'board': expected 4 rows from the top, each a list of 4 pieces or null, got {got}")
    cells: list[Optional[Piece]] = []
    for r, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != 4:
            got = f"{len(row)} cells" if isinstance(row, list) else show(row)
            raise FormatError(f"field 'board', row {r + 1} from the top: expected 4 cells, got {got}")
        for c, item in enumerate(row):
            cells.append(_piece_field(item, f"field 'board', cell {Cell.at(r, c)}"))
    piece = _piece_field(data["piece"], "field 'piece'")
    to_move = data["to_move"]
    if to_move is not None and (type(to_move) is not int or to_move not in (0, 1)):
        raise FormatError(f"field 'to_move': expected 0, 1 or null, got {show(to_move)}")
    squares = _squares(data)
    return QuartoPosition(Board(cells), piece, to_move, squares)


def parse(text: str) -> Union[QuartoRecord, QuartoPosition]:
    """A record (it has ``moves``) or a position (it has ``board``) from JSON text."""
    data = load_json(text)
    if isinstance(data, dict) and "board" in data and "moves" in data:
        raise FormatError("a Quarto file has either 'moves' (a record) or 'board' (a position), not both")
    if isinstance(data, dict) and "board" in data:
        return position_from_json(data)
    if isinstance(data, dict) and "moves" not in data and "game" in data and data["game"] == "quarto":
        raise FormatError("missing field 'moves' (a record) or 'board' (a position)")
    return record_from_json(data)


# -- validity of a position --------------------------------------------------------------
def _line_text(line: tuple[Cell, ...]) -> str:
    return " ".join(str(c) for c in line)


def unreachable_reason(board: Board, piece: Optional[Piece], to_move: Optional[int], squares: bool = False) -> Optional[str]:
    """Why no legal game reaches this position, or None when one does.

    Lines only ever fill up, so some order of the placements completes no line
    before the last one exactly when every winning line on the board passes
    through one common cell (the last piece placed).
    """
    placed = board.count()
    on_board: dict[Piece, Cell] = {}
    for c, p in enumerate(board.cells):
        if p is None:
            continue
        if p in on_board:
            return f"board: piece {p} stands on both {on_board[p]} and {Cell(c)} (the 16 pieces are all different)"
        on_board[p] = Cell(c)
    if piece is not None and piece in on_board:
        return f"piece: {piece} is in hand but also stands on {on_board[piece]}"
    lines = board.winning_lines(squares)
    nxt = (placed + 1) % 2  # the player to move after `placed` placements (placement n is player n % 2's)
    if lines:
        common = set(lines[0]).intersection(*lines[1:])
        if not common:
            shown = "; ".join(_line_text(line) for line in lines)
            return (
                f"board: the winning lines ({shown}) share no cell, "
                "so one of them was completed before the last placement"
            )
        if piece is not None:
            return f"piece: the game is over (line {_line_text(lines[0])} is complete), so nobody holds a piece"
        if to_move is not None and to_move != nxt:
            return f"to_move: the game is over after {placed} placements; to_move must be null or {nxt}, not {to_move}"
        return None
    if board.is_full():
        if to_move is not None and to_move != nxt:
            return f"to_move: the game is over (a full board); to_move must be null or {nxt}, not {to_move}"
        return None
    if to_move is None:
        return "to_move: null only when the game is over, and no line is complete and the board is not full"
    if piece is None:
        if placed:
            return (
                f"piece: null means the first piece is still to be chosen, but {placed} "
                f"piece{'s are' if placed > 1 else ' is'} placed"
            )
        if to_move != 0:
            return "to_move: player 0 chooses the first piece, not player 1"
        return None
    if to_move != nxt:
        return f"to_move: after {placed} placement{'s' if placed != 1 else ''} player {nxt} holds the piece, not player {to_move}"
    return None


def position_reason(pos: QuartoPosition) -> Optional[str]:
    return unreachable_reason(pos.board, pos.piece, pos.to_move, pos.squares)


# -- replay -----------------------------------------------------------------------------
@dataclass
class CheckResult:
    """The outcome of checking a file: the position reached and what stopped the replay, if anything."""

    position: Position
    moves_applied: int = 0
    error: Optional[IllegalMove] = None  # the first illegal move of a record
    error_move: Optional[str] = None  # that move as written
    unreachable: Optional[str] = None  # why a position file is not reachable

    @property
    def valid(self) -> bool:
        return self.error is None and self.unreachable is None

    @property
    def message(self) -> Optional[str]:
        if self.error is not None:
            return self.error.message
        return self.unreachable

    def to_json(self) -> dict[str, Any]:
        """The ``quarto check --json`` object."""
        pos = self.position
        error = None
        if not self.valid:
            error = {"move": self.error_move, "message": self.message}
        return {
            "valid": self.valid,
            "moves_applied": self.moves_applied,
            "error": error,
            "over": pos.over,
            "winner": pos.winner,
            "to_move": pos.to_move,
            "winning_lines": [[str(c) for c in line] for line in pos.winning_lines],
            "piece": None if pos.piece is None else str(pos.piece),
        }


def replay(record: QuartoRecord) -> CheckResult:
    """Play a record from the start, stopping at the first illegal move."""
    pos = record.start()
    for i, move in enumerate(record.moves):
        try:
            pos.push(move)
        except IllegalMove as err:
            text = record.texts[i] if i < len(record.texts) else str(move)
            return CheckResult(pos, i, err, text)
    return CheckResult(pos, len(record.moves))


def check(item: Union[QuartoRecord, QuartoPosition]) -> CheckResult:
    """Replay a record or check a position file."""
    if isinstance(item, QuartoRecord):
        return replay(item)
    reason = position_reason(item)
    if reason is not None:
        # show the position as given (nothing is applied)
        pos = Position(squares=item.squares, state=_raw_state(item))
        return CheckResult(pos, 0, None, None, reason)
    return CheckResult(item.position(), 0)


def _raw_state(item: QuartoPosition) -> "State":
    from .position import State

    # as given; no game reaches it, so nobody has won it
    over = bool(item.board.winning_lines(item.squares)) or item.board.is_full()
    return State(item.board, item.piece, None if over else item.to_move, None)


# -- writing ----------------------------------------------------------------------------
def record_to_json(moves: Iterable[Move | str], squares: bool = False) -> dict[str, Any]:
    """A record of ``moves`` (Move values or their notation)."""
    data: dict[str, Any] = {"game": "quarto", "moves": [str(m) for m in moves]}
    if squares:
        data["rules"] = {"squares": True}
    return data


def position_to_json(pos: Position) -> dict[str, Any]:
    """A position file of ``pos`` (it reads back to the same board, piece and player)."""
    board = pos.board
    data: dict[str, Any] = {
        "game": "quarto",
        "board": [[None if p is None else str(p) for p in row] for row in board.rows()],
        "piece": None if pos.piece is None else str(pos.piece),
        "to_move": pos.to_move,
    }
    if pos.squares:
        data["rules"] = {"squares": True}
    return data


__all__ = [
    "FormatError",
    "QuartoRecord",
    "QuartoPosition",
    "load_json",
    "parse",
    "record_from_json",
    "position_from_json",
    "rules_from_text",
    "unreachable_reason",
    "position_reason",
    "CheckResult",
    "replay",
    "check",
    "record_to_json",
    "position_to_json",
]
