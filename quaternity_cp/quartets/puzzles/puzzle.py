"""One puzzle solved and graded: the record, its exact answer, the strategy tree and the grade.

:func:`solve_puzzle` is what ``puzzle generate`` does to every candidate it
keeps and what ``puzzle verify`` does to a hand-made puzzle; :func:`answer_json`
writes the result as ``NAME.answer.json`` (docs/puzzles.md, "File formats").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...budget import Limits, Stopped
from ..explain import ExplanationLimitError
from ..formats import Record, record_to_json
from ..position import Position
from ..replay import replay
from .grade import Explanations, Grade, grade
from .search import QUARTET, PuzzleAnswer, PuzzleError, PuzzleSearch, TreeStats


class PuzzleStopped(PuzzleError):
    """A limit stopped the work on a puzzle (``reason``: ``time`` or ``limit``); nothing partial is kept."""

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


@dataclass
class Puzzle:
    """A puzzle (``record``: the game up to its moment) with its answer; ``tree``, ``stats`` and
    ``grade`` when the goal is forced and the tree was asked for."""

    record: Record
    answer: PuzzleAnswer
    tree: dict[str, Any] | None = None
    stats: TreeStats | None = None
    grade: Grade | None = None


def puzzle_position(record: Record) -> Position:
    """The position at the puzzle's moment: the record's moves replayed (an illegal one is refused)."""
    result = replay(record, mark_forced=False)
    if result.error is not None:
        i = result.error_index
        assert i is not None  # (set with the error)
        raise PuzzleError(f"move {i} ({record.texts[i - 1]}) is illegal: {result.error}")
    return result.position


def solve_puzzle(record: Record, goal: str = QUARTET, player: int | None = None, *,
                 max_questions: int | None = None, limits: Limits | None = None,
                 explain_seconds: float | None = None, tree: bool = True) -> Puzzle:
    """Solve the puzzle ``record`` exactly: K, every winning first move and their classes, the traps,
    and (``tree``, when forced) the strategy tree with its explanations and the grade.

    ``limits`` bound the search (positions stored, seconds); ``explain_seconds`` the
    explanations together. A limit raises :class:`PuzzleStopped` (never a partial answer).
    """
    search = PuzzleSearch(puzzle_position(record), goal, player, limits=limits)
    answer = search.answer(max_questions)
    if not answer.proven:
        raise PuzzleStopped(_stopped_text(answer.status, limits), answer.status)
    out = Puzzle(record, answer)
    if tree and answer.forced and answer.first_moves:
        explain = Explanations(record, max_seconds=explain_seconds)
        try:
            out.tree, out.stats = search.strategy(explain)
        except Stopped as stop:
            raise PuzzleStopped(_stopped_text(stop.reason, limits), stop.reason) from None
        except ExplanationLimitError as err:
            raise PuzzleStopped(f"{err} (raise the explanation time limit)", "time") from None
        out.grade = grade(answer, out.stats, explain.terms)
    return out


def _stopped_text(reason: str, limits: Limits | None) -> str:
    if reason == "limit" and limits is not None:
        return f"the search needs more than {limits.max_positions:,} positions (raise --max-positions)"
    if reason == "time" and limits is not None:
        return f"the search takes longer than {limits.max_seconds:g} s (raise --max-seconds)"
    return f"the search was stopped ({reason})"


def record_json(record: Record) -> dict[str, Any]:
    """``NAME.json``: the record as ``quaternity check`` accepts it (a record of moves from the start)."""
    if record.start is not None:
        raise PuzzleError("a generated puzzle is a record of moves from the start, not a position")
    return record_to_json(record.game, record.rules, record.moves)


def answer_json(name: str, puzzle: Puzzle, *, title: str | None = None, description: str | None = None,
                seed: int | None = None, generator: dict[str, Any] | None = None) -> dict[str, Any]:
    """``NAME.answer.json`` of a forced puzzle (docs/puzzles.md, "File formats")."""
    a, g = puzzle.answer, puzzle.grade
    if not a.forced or puzzle.tree is None or g is None or a.questions is None:
        raise PuzzleError("only a forced puzzle with its strategy tree has an answer file")
    out: dict[str, Any] = {"puzzle": name}
    if title is not None:
        out["title"] = title
    if description is not None:
        out["description"] = description
    out |= {"goal": a.goal, "player": a.player, "questions": a.questions}
    if a.goal != QUARTET:
        out["plies"] = a.questions
    out |= {
        "first_moves": a.texts(a.first_moves),
        "first_move_classes": [a.texts(c) for c in a.classes],
        "unique": a.unique,
        "traps": a.texts(a.traps),
        "difficulty": g.difficulty,
        "grade": g.to_json(),
        "strategy": puzzle.tree,
    }
    if seed is not None:
        out["seed"] = seed
    if generator is not None:
        out["generator"] = generator
    return out


def describe(puzzle: Puzzle) -> tuple[str, str]:
    """A generated puzzle's title and question in words."""
    a, game = puzzle.answer, puzzle.record.game
    who = game.seat_name(a.player)
    k = a.questions
    if a.goal == QUARTET:
        unit = f"{k} question{'s' if k != 1 else ''}"
        what = "force a quartet"
    else:
        unit = f"{k} move{'s' if k != 1 else ''}"
        what = "force a win"
    title = f"{who[:1].upper()}{who[1:]}: {what[6:]} in {unit}"
    text = (f"{who[:1].upper()}{who[1:]} is on turn. Can it {what} within {unit}, whatever the others answer? "
            f"With which first question?")
    return title, text


__all__ = ["Puzzle", "PuzzleStopped", "answer_json", "describe", "puzzle_position", "record_json", "solve_puzzle"]
