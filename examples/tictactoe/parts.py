"""Tic-tac-toe's parts, each imported on first use: the record checker and reader, the picture, the report
page and the web table's view."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from quaternity_cp.report import MAX_REPORT_MOVES, StepJSON, check_report_moves, page, step_json

from . import LINES, MARKS, TicTacToeError, TicTacToeState, cell_name
from .solver import solve, verdict_text

#: The web page's files of the game, in this package's ``static/`` folder.
PAGE = {"rules": "rules.html", "script": "table.js"}

#: The options a tournament plays when none is given (the ``tournament`` part): tic-tac-toe has none.
TOURNAMENT: dict[str, Any] = {}


def read(text: str) -> Any:
    """The JSON data of a record file's text, read by the project's strict, bounded reader."""
    from quaternity_cp.jsonio import InputRefused, load_json

    try:
        return load_json(text.lstrip("\ufeff"))
    except InputRefused as err:
        raise TicTacToeError(f"not a tic-tac-toe record: {err}") from None


@dataclass
class Replay:
    """A record replayed: the game up to its first illegal move (``error``: that move's number and why, or None)."""

    state: TicTacToeState
    moves: list[str]
    error: tuple[int, str] | None = None

    @property
    def valid(self) -> bool:
        return self.error is None

    @property
    def message(self) -> str:
        """The first illegal move in one line: ``move 3 (b2): b2 is taken``."""
        assert self.error is not None
        number, reason = self.error
        return f"move {number} ({self.moves[number - 1]}): {reason}"


def replay(record: Any) -> Replay:
    """The game of a record (JSON data) up to its first illegal move (a cell taken, a move after the end).
    A malformed record (not the shape below, a move that is not a cell's name) raises TicTacToeError, one line."""
    if not (isinstance(record, dict) and set(record) <= {"game", "moves"} and isinstance(record.get("moves"), list)
            and record.get("game", "tictactoe") == "tictactoe"):
        raise TicTacToeError('a tic-tac-toe record is {"game": "tictactoe", "moves": ["b2", ...]}, no other field')
    state = TicTacToeState()
    cells = []
    for i, text in enumerate(record["moves"], 1):
        try:
            cells.append(state.string_to_action(text))
        except TicTacToeError as err:
            raise TicTacToeError(f"move {i} ({text}): {err}") from None
    result = Replay(state, list(record["moves"]))
    for i, cell in enumerate(cells, 1):
        if state.is_terminal():
            result.error = (i, f"the game is over ({status_line(state)})")
            break
        if cell not in state.free_cells():
            result.error = (i, f"{cell_name(cell)} is taken")
            break
        state.apply_action(cell)
    return result


def check_record(record: Any) -> None:
    """The ``check`` part: raise TicTacToeError unless ``record`` is a legal game."""
    result = replay(record)
    if not result.valid:
        raise TicTacToeError(result.message)


def winning_line(state: TicTacToeState) -> tuple[int, ...]:
    """The cells of a completed line, or ()."""
    board = state.board
    return next((line for line in LINES if board[line[0]] is not None and len({board[c] for c in line}) == 1), ())


def grid_lines(state: TicTacToeState) -> list[str]:
    """The grid as text, row 1 at the top: x, o, or . for a free cell; a completed line in capitals."""
    line = winning_line(state)
    rows = ["     a b c"]
    for row in range(3):
        marks = ["xo."[2 if seat is None else seat] for seat in state.board[row * 3:row * 3 + 3]]
        rows.append(f"  {row + 1}  " + " ".join(m.upper() if row * 3 + i in line else m for i, m in enumerate(marks)))
    return rows


def status_line(state: TicTacToeState) -> str:
    """Whose turn it is, or how the game ended: ``x to move``, ``x won: a1 b2 c3``, ``a draw``."""
    winner = state.winner()
    if winner is not None:
        return f"{MARKS[winner]} won: {' '.join(map(cell_name, winning_line(state)))}"
    return "a draw" if state.is_terminal() else f"{MARKS[state.current_player()]} to move"


def state_svg(state: TicTacToeState, legal: tuple[int, ...] = ()) -> str:
    """The ``svg`` part: the grid with its marks (``legal``: cells to tint, each with ``data-legal``)."""
    out = ['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 300" width="300" height="300">']
    for cell, seat in enumerate(state.board):
        x, y = cell % 3 * 100, cell // 3 * 100
        extra = f' data-legal="1" data-cell="{cell_name(cell)}"' if cell in legal else ""
        fill = "#e3f2fd" if cell in legal else "#fff"
        out.append(f'<g class="cell"{extra}><rect x="{x}" y="{y}" width="100" height="100" fill="{fill}" '
                   f'stroke="#333" stroke-width="2"/>')
        if seat is not None:
            out.append(f'<text x="{x + 50}" y="{y + 68}" font-size="60" text-anchor="middle">{MARKS[seat]}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def view(table: Any, seat: int, *, probabilities: bool = False) -> dict[str, Any]:
    """The ``web`` part: what ``seat`` sees at a web table (everything: no hidden information, so
    ``probabilities`` is ignored); ``table`` is a :class:`quaternity_cp.web.session.WebGame`."""
    state = table.state
    moves = table.legal_texts(seat)
    names = table.names(seat)
    data: dict[str, Any] = {
        "kind": "tictactoe",
        "title": "Tic-tac-toe",
        "svg": state_svg(state, tuple(state.string_to_action(m) for m in moves)),
        "setup": "Tic-tac-toe, 3 x 3",
        "players": [f"player {p} ({MARKS[p]})" for p in range(2)],
        "moves": moves,
        "log": [{"seat": i % 2, "move": cell_name(c), "text": f"{table.seat_name(i % 2, seat)} marked {cell_name(c)}.",
                 "you": i % 2 == seat} for i, c in enumerate(state.moves)],
        "table": [{"seat": p, "name": names[p], "cards": None, "claimed": [], "score": state.scores()[p]}
                  for p in range(2)],
        "legend": [{"mark": m, "meaning": f"a cell marked by player {p}"} for p, m in enumerate(MARKS)],
    }
    if state.is_terminal():
        winner = state.winner()
        text = "A draw." if winner is None else f"{table.seat_name(winner, seat)} won: three in a row."
        data["result"] = {"winners": [] if winner is None else [winner], "text": text}
    return data


def text_report(text: str, *, name: str = "<record>", title: str | None = None,
                max_moves: int | None = MAX_REPORT_MOVES, **ignored: Any) -> tuple[str, bool]:
    """The ``report`` part: the page stepping through a record (the grid after each move, whose turn, and what
    best play gives from there), and whether every move is legal. A record of more than ``max_moves`` moves
    (None: no limit) is refused before the replay; other options (rules, engines) are ignored."""
    try:
        record = read(text)
        if isinstance(record, dict) and isinstance(record.get("moves"), list):
            check_report_moves(len(record["moves"]), max_moves, name)
        result = replay(record)
    except TicTacToeError as err:
        raise TicTacToeError(f"{name}: {err}") from None
    state = TicTacToeState()
    steps = [report_step(0, None, state)]
    for index, cell in enumerate(result.state.moves, 1):
        state.apply_action(cell)
        steps.append(report_step(index, result.moves[index - 1], state))
    illegal = None
    if result.error is not None:
        illegal = {"index": result.error[0], "move": result.moves[result.error[0] - 1], "kind": "illegal move",
                   "message": result.message, "lines": [], "loser": None}
    doc = {"kind": "tictactoe", "title": title or name, "setup": "Tic-tac-toe, 3 x 3; x moves first", "steps": steps,
           "illegal": illegal, "moves": result.moves, "history": "",
           "hint": "Click a move in the list (or use the arrow keys and the slider) to see the grid after it."}
    return page(doc), result.valid


def report_step(index: int, move: str | None, state: TicTacToeState) -> StepJSON:
    """One step of the report: the grid, whose turn (or the end) and what best play gives from there."""
    lines = [status_line(state)] if state.is_terminal() else [status_line(state), verdict_text(state, solve(state))]
    return step_json({"index": index, "move": move, "svg": state_svg(state), "text": lines, "claims": [],
                      "explanations": None, "forced_answer": False, "over": state.is_terminal()})
