"""How hard a puzzle is: graded by what a person must reason (docs/puzzles.md, "Difficulty").

The numbers come from the puzzle's exact answer (:mod:`.search`) and from the
explainer (:mod:`quaternity_cp.quartets.explain`), which says for every forced fact of
the strategy (a forced answer, a forced claim, a declaration) which moves of
the game are needed to see it (a minimal set: none can be left out) and with
which counting argument:

- ``questions``: K; ``depth``: the most of the goal player's moves along one
  branch of the strategy; ``nodes``: its moves in the tree; ``branching``: its
  questions that may get either answer (each doubles what must be followed);
- ``traps``: classes of first questions that look plausible but fail (see :mod:`.search`);
- ``explanation_moves``: the explainer's responsible moves summed over the
  forced facts; ``explanation_terms``: the parts of their counting arguments
  (seats, lower and upper bounds: what the reasoning juggles);
- ``options`` (goal ``win``): the other seats' moves the strategy must answer.

- ``positions``: the positions the solver stored (how much there is to search).

``score`` weighs them (:func:`score_of`); :data:`THRESHOLDS` cut it into the
four :data:`DIFFICULTIES`. Both were calibrated on the bundled puzzles
``examples/puzzles/01..13`` (easy to hard); docs/puzzles.md says how well they agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from ...budget import Limits
from ..explain import ASKED, Explainer, Explanation, ExplanationLimitError
from ..formats import Record
from ..game import Move, Question
from .search import PuzzleAnswer, TreeStats

DIFFICULTIES = ("easy", "medium", "hard", "expert")
#: The lowest score of medium, hard and expert.
THRESHOLDS = (4.0, 8.0, 13.0)
#: The weight of each number in the score; traps and positions count by their logarithm
#: (the tenth trap or the thousandth position adds less than the first).
WEIGHTS = {"depth": 1.0, "branching": 1.5, "traps": 1.5, "explanation_moves": 0.5, "explanation_terms": 0.25,
           "options": 0.25, "positions": 1.0}


def score_of(numbers: dict[str, Any]) -> float:
    """The score of a grade's numbers: the weighted sum of :data:`WEIGHTS`, ``traps`` as
    log2(1 + traps) and ``positions`` as log10(positions)."""
    w = WEIGHTS
    total = w["traps"] * math.log2(1 + numbers["traps"]) + w["positions"] * math.log10(max(1, numbers["positions"]))
    for key in ("depth", "branching", "explanation_moves", "explanation_terms", "options"):
        total += w[key] * numbers.get(key, 0)
    return round(total, 2)


class Explanations:
    """The explainer's view of the facts of a strategy: the hook :data:`.search.Explain`.

    ``record`` is the puzzle (its moves up to the puzzle's moment, or a position); each
    fact is explained on the record followed by the strategy's moves. Every explanation
    together may take ``max_seconds`` (None: no limit; 0: none left, as a page's spent budget gives); past it
    :class:`~quaternity_cp.quartets.explain.ExplanationLimitError` is raised.
    """

    def __init__(self, record: Record, *, max_seconds: float | None = None):
        self.record = record
        self.max_seconds = max_seconds
        self.clock = Limits().start()  # (only its elapsed time is read)
        self.terms = 0  # the parts of the counting arguments, summed

    def _explainer(self, path: list[Move]) -> Explainer:
        moves = list(self.record.moves) + list(path)
        rec = replace(self.record, moves=moves, texts=[self.record.game.move_str(m) for m in moves])
        left = None
        if self.max_seconds is not None:
            left = self.max_seconds - self.clock.elapsed()
            if left <= 0:
                raise ExplanationLimitError(f"explaining takes longer than {self.max_seconds:g} s")
        return Explainer(rec, max_seconds=left)

    def __call__(self, path: list[Move], fact: str, about: int) -> tuple[str, int] | None:
        ex = self._explainer(path)
        n = len(self.record.moves) + len(path)
        last = path[-1]
        e: Explanation
        if fact == "answer":
            assert isinstance(last, Question) and last.answer is not None
            if last.answer:
                e = ex.forced_card(last.card, last.target, n, ASKED)
            else:
                e = ex.excluded_card(last.card, last.target, n, ASKED)
        else:
            e = ex.claim(about)
        arg = e.argument
        if arg is not None:
            self.terms += len(arg.seats) + len(arg.at_least) + len(arg.at_most)
        return e.text, len(e.moves)


@dataclass(frozen=True)
class Grade:
    """A puzzle's difficulty and the numbers behind it."""

    difficulty: str
    score: float
    numbers: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"score": self.score, **self.numbers}


def difficulty_of(score: float) -> str:
    """The difficulty of a score (see :data:`THRESHOLDS`)."""
    level = sum(1 for t in THRESHOLDS if score >= t)
    return DIFFICULTIES[level]


def grade(answer: PuzzleAnswer, stats: TreeStats, terms: int = 0) -> Grade:
    """The grade of a forced puzzle from its answer, its strategy tree's numbers and the
    counting arguments' parts ``terms`` (see the module docstring)."""
    numbers: dict[str, Any] = {
        "questions": answer.questions,
        "depth": stats.depth,
        "nodes": stats.nodes,
        "branching": stats.branching,
        "traps": len(answer.trap_classes),
        "explanation_moves": stats.explanation_moves,
        "explanation_terms": terms,
        "explanations": stats.explanations,
        "forced": stats.forced,
        "options": stats.options,
        "positions": answer.positions,
    }
    score = score_of(numbers)
    return Grade(difficulty_of(score), score, numbers)


def refutation_grade(positions: int, tries: int) -> Grade:
    """The grade of an answer that is no strategy (a no, or a value seen from the losing side): every
    first move, ``tries`` (one per class), must be seen to fail; ``positions``: the solver's search."""
    numbers: dict[str, Any] = {"questions": None, "depth": 0, "nodes": 0, "branching": 0, "traps": tries,
                               "explanation_moves": 0, "explanation_terms": 0, "options": 0,
                               "positions": positions}
    score = score_of(numbers)
    return Grade(difficulty_of(score), score, numbers)


__all__ = ["DIFFICULTIES", "THRESHOLDS", "WEIGHTS", "Explanations", "Grade", "difficulty_of", "grade",
           "refutation_grade", "score_of"]
