"""Quantum Go Fish's report: the table of bounds after every move of a record, for the page of
:mod:`quaternity_cp.report` (a self-contained HTML page stepping through the record).

Each step shows the picture (:func:`~quaternity_cp.gofish.svg.bounds_svg`), who asks or answers, how many
tables of counts are still consistent, whether every hand is determined, the fours, and whether the answer
was forced (the other answer was impossible). The first illegal move, if any, ends the steps and is named
with the rule it broke (:func:`~quaternity_cp.gofish.check.replay`).

>>> html, valid = gofish_report('{"game": "gofish", "players": 3, "moves": ["0>1:A+", "1>2:A+", "2>0:B-", '
...                             '"0>2:C-"]}', title="The sample game")
>>> valid, html.startswith("<!DOCTYPE html>"), "<title>The sample game</title>" in html
(True, True, True)
"""

from __future__ import annotations

from typing import Any

from ..report import MAX_REPORT_MOVES, check_report_moves, page, step_json
from .bounds import CountLimitError
from .check import new_game, replay
from .game import GoFish
from .rules import GoFishError
from .svg import bounds_svg, status_line

#: Tables counted per step at most (a larger count is shown as unknown).
COUNT_STATES = 200_000


def _read(text: str) -> Any:
    from ..jsonio import InputRefused, load_json

    try:
        return load_json(text)
    except InputRefused as err:
        raise GoFishError(f"not a Go Fish record: {err}") from None


def _step(index: int, move: str | None, game: GoFish, forced: bool) -> dict[str, Any]:
    from ..budget import Limits

    lines = [status_line(game)]
    try:
        n = game.count(Limits(max_states=COUNT_STATES))
        lines.append(f"{n:,} consistent table{'' if n == 1 else 's'} of counts")
    except CountLimitError:
        pass  # too many to count here: the step says nothing of the count
    if game.bounds().feasible and game.bounds().determined:
        lines.append("Every hand is determined.")
    fours = game.fours()
    if fours:
        from ..names import seat_name

        names = list(game.setup.players) if game.setup.named_players else None
        lines.append("A four: " + ", ".join(seat_name(names, p) for p in fours))
    if forced:
        lines.append("The answer was forced: the other answer was impossible.")
    # no explanations in a step (None: the page shows no "Why" panel); the page's hint says what can be clicked
    return {"index": index, "move": move, "forced_answer": forced, "claims": [], "svg": bounds_svg(game),
            "explanations": None, "text": lines, "over": game.over}


#: What there is to click in a Go Fish report (it explains no cell: ``quaternity gofish explain`` does).
HINT = ("Click a move in the list (or use the arrow keys and the slider) to see the table of counts after it. "
        "Why a cell has its range: quaternity gofish explain FILE SEAT:SUIT.")


def gofish_report(text: str, *, title: str | None = None, max_moves: int | None = MAX_REPORT_MOVES,
                  name: str = "the record", rules: str | None = None, engine: str | None = None) -> tuple[str, bool]:
    """The report of a Go Fish record (the table of bounds after each move) and whether every move is legal.

    ``rules``: the rules to replay it under instead of its own (``--rules``: a preset, option=value items, or
    both: :func:`~quaternity_cp.gofish.rules.rules_from_text`); ``engine``: the exact engine (``--engine``: flow,
    cpsat). A bad one, and a record of more than ``max_moves`` moves (None: no limit), raise
    :class:`~quaternity_cp.registry.OptionError` (naming the option) before anything is replayed."""
    from ..registry import OptionError
    from .bounds import engine_named
    from .rules import rules_from_text

    try:
        override = None if rules is None else rules_from_text(rules)
    except GoFishError as err:
        raise OptionError("rules", str(err)) from None
    try:
        exact = engine_named(engine)
    except GoFishError as err:
        raise OptionError("engine", str(err)) from None
    record = _read(text)
    moves_given = record.get("moves") if isinstance(record, dict) else None
    if isinstance(moves_given, list):
        check_report_moves(len(moves_given), max_moves, name)
    if override is not None and isinstance(record, dict):
        record = {**record, "rules": override}
    result = replay(record, exact)
    game, moves = new_game(record, exact)
    steps = [step_json(_step(0, None, game, False))]  # each step kept as its JSON text only
    for i, move_text in enumerate(moves[: result.moves_applied], 1):
        move = game.parse_move(move_text, i)
        forced = False
        if move.answer is not None and game.pending is None:
            game.push(move.question())
            forced = not game.over and len(game.legal_answers()) == 1
            game.pop()
        elif move.answer is not None:
            forced = len(game.legal_answers()) == 1
        game.push(move)
        steps.append(step_json(_step(i, move_text, game, forced)))
    illegal = None
    if not result.valid and result.error_index is not None:
        loser = None if result.game.outcome is None else result.game.outcome.loser
        illegal = {"index": result.error_index + 1, "move": moves[result.error_index], "kind": "illegal move",
                   "message": result.message, "lines": [], "loser": loser}
    setup = game.setup
    played = game.rules.to_dict()
    doc = {
        "kind": "gofish",
        "title": title or "Quantum Go Fish record",
        "setup": (f"Quantum Go Fish, {setup.player_count} players, {setup.suit_count} suits of {setup.suit_size}; "
                  + (", ".join(f"{k} {v}" for k, v in played.items()) if played else "default rules")),
        "steps": steps,
        "illegal": illegal,
        "moves": list(moves),
        "history": "",
        "hint": HINT,
    }
    return page(doc), result.valid


def text_report(text: str, *, name: str = "<record>", title: str | None = None,
                max_moves: int | None = MAX_REPORT_MOVES, rules: str | None = None, engine: str | None = None,
                **ignored: Any) -> tuple[str, bool]:
    """The game's registered ``report`` part: :func:`gofish_report` titled ``title`` (default ``name``), of at most
    ``max_moves`` moves (as every game's report), under ``rules`` with the engine ``engine`` when given. Go Fish's
    report has no other options of its own (no explanations, limits of its own): others are ignored."""
    return gofish_report(text, title=title or name, max_moves=max_moves, name=name, rules=rules, engine=engine)


__all__ = ["gofish_report", "text_report"]
