"""A puzzle's files: ``NAME.json`` (a record ``quaternity check`` accepts) and ``NAME.answer.json``.

The formats are in docs/puzzles.md ("File formats"). A generated answer file
holds the goal, the player, K (``questions``), every winning first move and
their classes, the traps, the difficulty with its numbers, the strategy tree,
the seed and the generator's options. :func:`read_answer` also reads the answer
files of the bundled puzzles (``examples/puzzles``: a list ``answers`` of
stated verdicts), for ``puzzle verify``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from ..formats import load_json
from ..game import Game, Move
from ...jsonio import InputRefused, check_size, read_input
from .search import PUZZLE_GOALS, PuzzleError, parse_first_move

ANSWER_SUFFIX = ".answer.json"
#: The goals a bundled answer may state (``value``: two players, see the solver).
STATED_GOALS = ("quartet", "win", "value")


def dumps(data: Any) -> str:
    """A puzzle file's text: JSON indented by one space (as the bundled puzzles), keys in the order given."""
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def answer_path(puzzle: str | os.PathLike[str]) -> str:
    """The answer file beside the puzzle file ``NAME.json``: ``NAME.answer.json``."""
    path = os.fspath(puzzle)
    base = path.removesuffix(".json")
    return base + ANSWER_SUFFIX


def puzzle_name(path: str | os.PathLike[str]) -> str:
    """``NAME`` of ``DIR/NAME.json``."""
    base = os.path.basename(os.fspath(path))
    return base.removesuffix(".json")


@dataclass
class Stated:
    """One verdict an answer file states: ``goal`` for ``player``; ``result`` (True, False, or for
    ``value`` win, loss, draw); ``questions`` (quartet: K; win: plies); ``max_questions`` (a quartet
    goal asked within that many); ``first_moves`` (None when not stated); ``difficulty`` (as stated)."""

    goal: str
    player: int
    result: bool | str
    questions: int | None = None
    max_questions: int | None = None
    first_moves: list[Move] | None = None
    difficulty: str | None = None
    listed: bool = False  # one of the bundled puzzles' list of verdicts (else a puzzle's answer)


def _int(value: Any, where: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise PuzzleError(f"{where} must be a whole number >= {low}, not {json.dumps(value)[:40]}")
    return value


def _stated(game: Game, item: Any, where: str, *, puzzle_format: bool) -> Stated:
    if not isinstance(item, dict):
        raise PuzzleError(f"{where}: expected a JSON object")
    goal = item.get("goal")
    goals = PUZZLE_GOALS if puzzle_format else STATED_GOALS
    if goal not in goals:
        raise PuzzleError(f"{where}: goal must be one of {', '.join(goals)}, not {json.dumps(goal)[:40]}")
    player = _int(item.get("player"), f"{where}: player")
    if player >= game.players:
        raise PuzzleError(f"{where}: player {player} is not a seat (seats are 0..{game.players - 1})")
    if puzzle_format:  # a generated (or hand-made) puzzle: forced within K
        result: bool | str = True
        k = _int(item.get("questions"), f"{where}: questions", 1)
        first = item.get("first_moves")
        moves = None
        if first is not None:
            if not isinstance(first, list) or not first:
                raise PuzzleError(f"{where}: first_moves must be a non-empty list of moves like \"0>1:A2\"")
            try:
                moves = [parse_first_move(game, t) for t in first]
            except ValueError as err:  # the game's notation errors, or a first move that is not text
                raise PuzzleError(f"{where}: first_moves: {err}") from None
        diff = item.get("difficulty")
        if diff is not None and not isinstance(diff, str):
            raise PuzzleError(f"{where}: difficulty must be text")
        return Stated(str(goal), player, result, k, None, moves, diff)
    stated = item.get("result")
    allowed: tuple[str | bool, ...] = ("win", "loss", "draw") if goal == "value" else (True, False)
    if stated not in allowed or (goal != "value" and not isinstance(stated, bool)):
        raise PuzzleError(f"{where}: result must be one of {', '.join(json.dumps(a) for a in allowed)}")
    result = stated if isinstance(stated, bool) else str(stated)
    mq = item.get("max_questions")
    if mq is not None:
        if goal != "quartet":
            raise PuzzleError(f"{where}: max_questions only goes with the quartet goal")
        mq = _int(mq, f"{where}: max_questions")
    number = item.get("questions" if goal == "quartet" else "plies")
    if number is not None:
        number = _int(number, f"{where}: {'questions' if goal == 'quartet' else 'plies'}")
    return Stated(str(goal), player, result, number, mq, listed=True)


def read_answer(game: Game, text: str, where: str = "answer") -> tuple[list[Stated], dict[str, Any]]:
    """The verdicts an answer file states, and the file's data. Reads both forms: a puzzle's answer
    (``goal``, ``player``, ``questions``, optional ``first_moves``...) and the bundled puzzles'
    (``answers``: a list of ``goal``, ``player``, ``result``, ``questions``/``plies``, ``max_questions``)."""
    try:
        check_size(text)  # the limits of every file, also for text read by the caller
        data = load_json(text)
    except ValueError as err:
        raise PuzzleError(f"{where}: {err}") from None
    if not isinstance(data, dict):
        raise PuzzleError(f"{where}: expected a JSON object at the top level")
    if "answers" in data:
        items = data["answers"]
        if not isinstance(items, list) or not items:
            raise PuzzleError(f"{where}: answers must be a non-empty list")
        # the two forms are one or the other: a puzzle's own answer beside the list would go unchecked
        mixed = [key for key in ("goal", "player", "questions", "first_moves", "result", "plies")
                 if key in data]
        if mixed:
            raise PuzzleError(f"{where}: a file with a list 'answers' states its verdicts in that list; "
                              f"{', '.join(repr(k) for k in mixed)} at the top level would go unchecked")
        return [_stated(game, a, f"{where}: answer {i}", puzzle_format=False) for i, a in enumerate(items, 1)], data
    return [_stated(game, data, where, puzzle_format=True)], data


def read_answer_file(game: Game, path: str | os.PathLike[str]) -> tuple[list[Stated], dict[str, Any]]:
    """:func:`read_answer` of the file ``path``, read by the strict reader of every input
    (:func:`~quaternity_cp.jsonio.read_input`: a regular file within the size limit, strict UTF-8); every
    refusal is a :class:`PuzzleError` naming the file."""
    where = os.fspath(path)
    try:
        text = read_input(path)
    except InputRefused as err:
        raise PuzzleError(f"{where}: {err}") from None
    except FileNotFoundError:
        raise PuzzleError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise PuzzleError(f"{where}: is a folder, not an answer file") from None
    except OSError as err:
        raise PuzzleError(f"{where}: cannot read ({err.strerror or err})") from None
    return read_answer(game, text, where)


__all__ = ["ANSWER_SUFFIX", "STATED_GOALS", "Stated", "answer_path", "dumps", "puzzle_name", "read_answer",
           "read_answer_file"]
