"""Quarto's report: the board after every move of a record (or the position of a position file),
for the page of :mod:`quaternity_cp.report`.

>>> html, valid = quarto_report('{"game": "quarto", "moves": ["LRTS", "A1 DSSH"]}', title="Two moves")
>>> valid, html.startswith("<!DOCTYPE html>"), "<title>Two moves</title>" in html
(True, True, True)
"""

from __future__ import annotations

from typing import Any

from ..report import page
from . import formats as qf
from .position import Position
from .svg import quarto_status, quarto_svg


def quarto_report(text: str, *, title: str | None = None, rules: str | None = None) -> tuple[str, bool]:
    """The report of a Quarto record or position file (the board after each move) and whether it is valid;
    ``rules``: the rules instead of the file's (``squares=true``), as ``--rules`` gives them."""
    import dataclasses

    from ..registry import OptionError

    try:
        squares = None if rules is None else qf.rules_from_text(rules)
    except qf.FormatError as err:
        raise OptionError("rules", str(err)) from None
    item = qf.parse(text)
    if squares is not None:
        item = dataclasses.replace(item, squares=squares)
    result = qf.check(item)
    steps: list[dict[str, Any]] = []
    if isinstance(item, qf.QuartoRecord):
        pos = item.start()
        texts = item.texts or [str(m) for m in item.moves]
        steps.append(_step(0, None, pos))
        for i, move in enumerate(item.moves[: result.moves_applied], 1):
            pos.push(move)
            steps.append(_step(i, texts[i - 1], pos))
        moves = list(texts)
        rules = "squares also win" if item.squares else "lines win"
    else:
        steps.append(_step(0, None, result.position))
        moves = []
        rules = "squares also win" if item.squares else "lines win"
    illegal = None
    if not result.valid:
        index = result.moves_applied + 1 if result.error is not None else 0
        illegal = {"index": index, "move": result.error_move or "(position)",
                   "kind": "illegal move" if result.error is not None else "unreachable position",
                   "message": result.message, "lines": [], "loser": None}
    doc = {
        "kind": "quarto",
        "title": title or "Quarto record",
        "setup": f"Quarto, {rules}; player 0 gives the first piece",
        "steps": steps,
        "illegal": illegal,
        "moves": moves,
        "history": "",
        "hint": "Click a move in the list (or use the arrow keys and the slider) to see the board after it.",
    }
    return page(doc), result.valid


def _step(index: int, move: str | None, pos: Position) -> dict[str, Any]:
    lines = [quarto_status(pos)]
    if pos.winning_lines:
        lines.append("Winning line" + ("s" if len(pos.winning_lines) > 1 else "") + ": "
                     + "; ".join(" ".join(str(c) for c in line) for line in pos.winning_lines))
    pieces, cells = len(pos.available_pieces()), len(pos.empty_cells())
    lines.append(f"{pieces} piece{'' if pieces == 1 else 's'} left, {cells} empty cell{'' if cells == 1 else 's'}")
    # no explanations (None: the page shows no "Why" panel, which invites to click what Quarto does not have)
    return {"index": index, "move": move, "forced_answer": False, "claims": [], "svg": quarto_svg(pos),
            "explanations": None, "text": lines, "over": pos.over}


def text_report(text: str, *, name: str = "<record>", title: str | None = None, rules: str | None = None,
                **ignored: Any) -> tuple[str, bool]:
    """The game's registered ``report`` part: :func:`quarto_report` titled ``title`` (default ``name``), under
    ``rules`` (``--rules squares=true|false``: :func:`~quaternity_cp.quarto.formats.rules_from_text`) instead of
    the file's when given; a bad one raises :class:`~quaternity_cp.registry.OptionError`.

    Quarto has no engines or explanations: other options are ignored.
    """
    return quarto_report(text, title=title or name, rules=rules)


__all__ = ["quarto_report", "text_report"]
