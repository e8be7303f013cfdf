"""``puzzle verify``: is a puzzle's stated answer right, is it unique, and how hard is the puzzle?

A puzzle's answer file states either one puzzle answer (goal, player, K in
``questions``, optionally every winning first move in ``first_moves``: the form
``puzzle generate`` writes) or, as the bundled puzzles do, a list ``answers`` of
verdicts (``result``, ``questions``/``plies``, ``max_questions``). Each is
checked against the solver:

- a puzzle answer is **right** when the goal is forced within K and not within
  K-1, and the stated first moves (when given) name the winning ones: each is a
  legal first move that forces the goal within K, and each class of
  interchangeable winning first moves has at least one of them (one move names
  its whole class; naming more of a class is not wrong). A stated move that is
  not legal is *illegal* (with the checker's reason), a legal one that fails
  *does not force it*, and a class left out makes the answer *incomplete*; all
  three are wrong. It is **unique** when the winning first moves form one class
  of interchangeable moves (:mod:`.search`);
- a stated verdict is right when the solver proves the same result and numbers;
  the first one that says yes for the seat on turn (goal quartet or win) is the
  puzzle's question, whose uniqueness and grade are reported. A file of no's only
  has no question to be unique about (``unique`` is None) and gets a refutation
  grade (:func:`.grade.refutation_grade`).

A verdict never names a winning first move of a wrong answer (the solution is
not given away to a wrong guess) unless ``show`` is asked for: its reason then
says which moves win, and :meth:`Verdict.to_json` lists them (else its
``first_moves``, ``first_move_classes`` and ``traps`` are None). A right
answer's verdict names the class it found, the stated move first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...budget import Limits
from ..formats import Record
from ..game import Move
from ..solver import Context, SolveError, solve
from .answers import Stated
from .grade import Grade, refutation_grade
from .puzzle import Puzzle, PuzzleStopped, puzzle_position, solve_puzzle
from .search import QUARTET, PuzzleAnswer, PuzzleError, move_text


@dataclass
class Verdict:
    """The outcome of :func:`verify`: ``right``, ``unique`` (None: not a question of uniqueness) and,
    when either fails, ``reason`` (one line); ``puzzle`` is the solved question when there is one."""

    right: bool
    unique: bool | None
    reason: str | None = None
    grade: Grade | None = None
    puzzle: Puzzle | None = None
    checks: list[dict[str, Any]] = field(default_factory=list)
    show: bool = False  # name the winning first moves even when the answer is wrong
    stated: list[Move] | None = None  # the first moves the answer stated (named first when right)

    @property
    def shown(self) -> bool:
        """Whether the winning first moves may be named: the answer is right, or ``show`` was asked for."""
        return self.right or self.show

    @property
    def ok(self) -> bool:
        return self.right and self.unique is not False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok, "right": self.right, "unique": self.unique, "summary": self.summary(),
                               "reason": self.reason}
        if self.puzzle is not None:
            a = self.puzzle.answer
            out |= {"goal": a.goal, "player": a.player, "questions": a.questions,
                    "first_moves": None, "first_move_classes": None, "traps": None}
            if self.shown:  # a wrong answer is not given the solution unless asked for
                out |= {"first_moves": a.texts(a.first_moves), "first_move_classes": [a.texts(c) for c in a.classes],
                        "traps": a.texts(a.traps)}
        out["difficulty"] = self.grade.difficulty if self.grade is not None else None
        out["grade"] = self.grade.to_json() if self.grade is not None else None
        out["checks"] = self.checks
        return out

    def summary(self) -> str:
        """The verdict in one line."""
        if self.reason is not None:
            return self.reason
        grade = f"; difficulty {self.grade.difficulty} (score {self.grade.score:g})" if self.grade else ""
        if self.puzzle is None:
            return f"right: every stated answer holds (no question to be unique about){grade}"
        a = self.puzzle.answer
        named = [m for m in self.stated or () if m in a.classes[0]]
        first = a.texts(list(dict.fromkeys(named + a.classes[0])))  # the stated moves first
        cls = (f"first move {first[0]}" if len(first) == 1 else
               f"first move {first[0]} (or an interchangeable one: {', '.join(first[1:])})")
        return f"right and unique: {_claim(self.puzzle.record, a)}; {cls}{grade}"


def _unit(goal: str, k: int) -> str:
    if goal == QUARTET:
        return f"{k} question{'s' if k != 1 else ''}"
    return f"{k} pl{'y' if k == 1 else 'ies'}"


def _claim(record: Record, a: PuzzleAnswer) -> str:
    what = "a quartet" if a.goal == QUARTET else "a win"
    assert a.questions is not None
    return f"{record.game.seat_name(a.player)} forces {what} within {_unit(a.goal, a.questions)}"


def verify(record: Record, stated: list[Stated], *, limits: Limits | None = None,
           explain_seconds: float | None = None, show: bool = False) -> Verdict:
    """Check ``stated`` (from :func:`.answers.read_answer`) for the puzzle ``record`` (see the module
    docstring); ``show``: name the winning first moves even when the answer is wrong. Limits raise
    :class:`.puzzle.PuzzleStopped`; a question that does not apply raises :class:`.search.PuzzleError`."""
    if len(stated) == 1 and not stated[0].listed:
        v = _verify_puzzle(record, stated[0], limits, explain_seconds, show)
    else:
        v = _verify_listed(record, stated, limits, explain_seconds)
    v.show = show
    return v


def _classes_text(a: PuzzleAnswer, classes: list[list[Move]]) -> str:
    """Classes of first moves in words: ``0>2:A0; 0>2:B0 or 0>2:B1`` (the first four, then ``...``)."""
    return "; ".join(" or ".join(a.texts(c)) for c in classes[:4]) + ("; ..." if len(classes) > 4 else "")


def _first_moves_wrong(record: Record, a: PuzzleAnswer, stated: list[Move], show: bool) -> str | None:
    """Why the stated first moves are wrong (one line), or None when they name the winning ones: every
    stated move legal and winning, and every class of winning first moves named by one of them at least.
    The winning moves are named only with ``show``."""
    pos = puzzle_position(record)
    parts, failing = [], []
    for m in dict.fromkeys(stated):  # each once, in the order stated
        err = pos.check(m)
        if err is not None:
            parts.append(f"{move_text(a.game, m)} is illegal ({err.kind}): {err}")
        elif m not in a.first_moves:
            failing.append(m)
    if failing:
        parts.append(f"{', '.join(a.texts(failing))} do{'es' if len(failing) == 1 else ''} not force it")
    missing = [c for c in a.classes if not any(m in c for m in stated)]
    if missing:
        n = len(a.classes)
        parts.append("no winning first move named" if len(missing) == n else
                     f"{len(missing)} of the {n} classes of winning first moves not named")
    if not parts:
        return None
    head = "incomplete first moves" if len(parts) == 1 and missing else "wrong first moves"
    tail = f"; the winning first moves: {_classes_text(a, a.classes)}" if show else " (--show names the winning ones)"
    return f"{head}: {'; '.join(parts)}{tail}"


def _verify_puzzle(record: Record, s: Stated, limits: Limits | None, explain_seconds: float | None,
                   show: bool) -> Verdict:
    assert s.questions is not None
    k = s.questions
    p = solve_puzzle(record, s.goal, s.player, max_questions=k, limits=limits, explain_seconds=explain_seconds)
    a = p.answer
    what = "a quartet" if s.goal == QUARTET else "a win"
    who = record.game.seat_name(s.player)
    check: dict[str, Any] = {"goal": s.goal, "player": s.player, "stated": k, "found": a.questions}
    v = Verdict(True, a.unique, grade=p.grade, puzzle=p, checks=[check], stated=s.first_moves)
    if not a.forced:
        more = f" (it needs at least {_unit(s.goal, a.questions)})" if a.questions is not None else \
            " (it cannot force it at all)"
        v.right, v.unique, v.puzzle = False, None, None
        v.reason = f"wrong: {who} cannot force {what} within {_unit(s.goal, k)}{more}"
    elif a.questions is not None and a.questions < k:
        v.right = False
        v.reason = (f"wrong: {who} forces {what} within {_unit(s.goal, a.questions)} already, "
                    f"fewer than the stated {k}")
    elif s.first_moves is not None and (wrong := _first_moves_wrong(record, a, s.first_moves, show)) is not None:
        v.right = False
        v.reason = wrong
    elif not a.unique:
        v.reason = f"not unique: {len(a.classes)} classes of winning first moves ({_classes_text(a, a.classes)})"
    check["right"] = v.right
    return v


def _verify_listed(record: Record, stated: list[Stated], limits: Limits | None,
                   explain_seconds: float | None) -> Verdict:
    pos = puzzle_position(record)
    v = Verdict(True, None)
    question = next((s for s in stated if s.result is True and s.goal in ("quartet", "win")
                     and pos.state.turn == (s.player,) and pos.pending is None), None)
    p = None
    if question is not None:
        p = solve_puzzle(record, question.goal, question.player, limits=limits, explain_seconds=explain_seconds)
    first_positions = None
    for s in stated:
        if p is not None and (s.goal, s.player, s.max_questions) == (p.answer.goal, p.answer.player, None) \
                and s.result is True and p.answer.forced and s.questions in (None, p.answer.questions):
            v.checks.append({"goal": s.goal, "player": s.player, "max_questions": None, "stated": True,
                             "found": True, "stated_number": s.questions, "found_number": p.answer.questions,
                             "right": True})  # the puzzle's own search agrees: no second search
            continue
        try:
            r = solve(pos, s.goal, s.player, max_questions=s.max_questions, depth=0, limits=limits)
        except SolveError as err:
            raise PuzzleError(str(err)) from None
        if not r.proven:
            raise PuzzleStopped(f"the search was stopped ({r.status}): raise --max-seconds or --max-positions",
                                r.status)
        if first_positions is None:
            first_positions = r.positions
        found_k = r.questions if s.goal == QUARTET else r.plies
        check = {"goal": s.goal, "player": s.player, "max_questions": s.max_questions, "stated": s.result,
                 "found": r.result, "stated_number": s.questions, "found_number": found_k}
        ok = r.result == s.result and (s.questions is None or r.result is False or found_k == s.questions)
        check["right"] = ok
        v.checks.append(check)
        if not ok and v.right:
            v.right = False
            within = (f" within {s.max_questions} question{'' if s.max_questions == 1 else 's'}"
                      if s.max_questions is not None else "")
            number = "" if s.questions is None else f" in {s.questions}"
            v.reason = (f"wrong: stated {s.goal} for {record.game.seat_name(s.player)}{within}: {_word(s.result)}{number}; "
                        f"the solver proves {r.summary()}")
    if p is not None:
        v.puzzle, v.grade = p, p.grade
        v.unique = p.answer.unique
        if v.right and not v.unique:
            a = p.answer
            v.reason = f"not unique: {len(a.classes)} classes of winning first moves ({_classes_text(a, a.classes)})"
    else:
        ctx = Context(pos.game, pos.rules)
        tries = 0 if pos.over else len(ctx.moves(ctx.describe(pos.state)))
        v.grade = refutation_grade(first_positions or 1, tries)
    return v


def _word(result: Any) -> str:
    return {True: "yes", False: "no"}.get(result, str(result)) if isinstance(result, bool) else str(result)


__all__ = ["Verdict", "verify"]
