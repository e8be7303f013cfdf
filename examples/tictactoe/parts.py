"""Tic-tac-toe's parts, each imported on first use: the record checker, the picture, the web table's view."""

from __future__ import annotations

from typing import Any

from . import MARKS, TicTacToeError, TicTacToeState, cell_name

#: The web page's files of the game, in this package's ``static/`` folder.
PAGE = {"rules": "rules.html", "script": "table.js"}


def replay(record: Any) -> TicTacToeState:
    """The game of a record (JSON data), every move checked; raises TicTacToeError saying which move is wrong."""
    if not isinstance(record, dict) or record.get("game", "tictactoe") != "tictactoe" \
            or not isinstance(record.get("moves"), list):
        raise TicTacToeError('a tic-tac-toe record is {"game": "tictactoe", "moves": ["b2", ...]}')
    state = TicTacToeState()
    for i, text in enumerate(record["moves"], 1):
        try:
            state.apply_action(state.string_to_action(text))
        except TicTacToeError as err:
            raise TicTacToeError(f"move {i} ({text}): {err}") from None
    return state


def check_record(record: Any) -> None:
    """The ``check`` part: raise TicTacToeError unless ``record`` is a legal game."""
    replay(record)


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
