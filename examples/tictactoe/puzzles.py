"""Tic-tac-toe puzzles: "x to move and win in N" (the ``puzzles`` part).

A puzzle is a game so far (a record ``quaternity check`` accepts, the game not over) where the player to move
forces a win within N of its own moves, and exactly one first move does it that fast (the answer is unique).
N is the difficulty: 1 easy, 2 medium, 3 hard. The answer file (``NAME.answer.json``) says the player, the goal
(``"win in N"``) and the first move. ``quaternity puzzle generate --game tictactoe`` finds puzzles in seeded random
games (:func:`generate`), ``quaternity puzzle verify`` checks a stated answer (:func:`verify`) and ``quaternity
puzzle sheet`` prints a folder of them (:func:`sheet_html`); the exact solver (:mod:`.solver`) decides each.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from html import escape
from typing import Any, Callable, Mapping

from quaternity_cp.budget import Limits
from quaternity_cp.registry import derive_seed

from . import MARKS, TicTacToeError, TicTacToeState, cell_name
from .parts import replay, state_svg
from .solver import Solution, solve

DIFFICULTIES = ("easy", "medium", "hard", "expert")  # win in 1, 2, 3, and more


class PuzzleInputError(TicTacToeError):
    """A puzzle or an answer that cannot be checked (one line); ``source`` says which file: "puzzle" or "answer"."""

    def __init__(self, message: str, source: str = "answer"):
        super().__init__(message)
        self.source = source


@dataclass
class Puzzle:
    """A generated puzzle: its ``name``, its ``record`` (NAME.json) and its ``answer`` (NAME.answer.json)."""

    name: str
    record: dict[str, Any]
    answer: dict[str, Any]


def wins_in(solution: Solution) -> int | None:
    """N when the player to move forces a win within N of its own moves, else None."""
    return (solution.plies + 1) // 2 if solution.value > 0 else None


def difficulty_of(n: int) -> str:
    """How hard "win in ``n``" is: easy, medium, hard, then expert."""
    return DIFFICULTIES[min(n, len(DIFFICULTIES)) - 1]


def answer_json(name: str, state: TicTacToeState, solution: Solution) -> dict[str, Any]:
    """``NAME.answer.json`` of a puzzle (its position must be a win for the player to move)."""
    n = wins_in(solution)
    assert n is not None
    me = MARKS[state.current_player()]
    difficulty = difficulty_of(n)
    return {"game": "tictactoe", "puzzle": name, "title": f"{me} to move and win in {n}",
            "goal": f"win in {n}", "player": state.current_player(),
            "first_moves": [cell_name(c) for c in solution.best], "unique": len(solution.best) == 1,
            "difficulty": difficulty, "grade": {"score": n, "difficulty": difficulty, "moves": len(solution.moves)}}


def puzzle_names(options: Mapping[str, Any], seed: int, count: int) -> list[str]:
    """The names :func:`generate` gives: ``tictactoe-<seed>-<n>``."""
    return [f"tictactoe-{seed}-{n:03d}" for n in range(1, count + 1)]


def generate(count: int, seed: int, options: Mapping[str, Any] | None = None, limits: Limits | None = None, *,
             difficulty: str | None = None, max_games: int | None = None,
             found: Callable[[Puzzle], None] | None = None) -> list[Puzzle]:
    """Up to ``count`` puzzles from seeded random games (game ``i`` played with ``derive_seed(seed, i)``), one per
    game at most: the first moment (after two moves at least) where the player to move wins within N with one
    fastest first move (of ``difficulty``, if given). At most ``max_games`` games (default 200 per puzzle);
    ``limits.max_seconds`` bounds the run (:class:`~quaternity_cp.budget.Stopped`). ``found`` gets each puzzle as
    it is made. The same arguments make the same puzzles."""
    if options:
        raise PuzzleInputError(f"tic-tac-toe has no options, not {', '.join(options)}")
    names = puzzle_names({}, seed, count)
    budget = (limits or Limits()).start()
    made: list[Puzzle] = []
    for game in range(max_games if max_games is not None else 200 * count):
        if len(made) == count:
            break
        budget.check_time()
        rng = random.Random(derive_seed(seed, game))
        state = TicTacToeState()
        while not state.is_terminal():
            solution = solve(state)
            n = wins_in(solution)
            if len(state.moves) >= 2 and n is not None and len(solution.best) == 1 \
                    and difficulty in (None, difficulty_of(n)):
                puzzle = Puzzle(names[len(made)], state.record(), answer_json(names[len(made)], state, solution))
                made.append(puzzle)
                if found is not None:
                    found(puzzle)
                break
            state.apply_action(rng.choice(state.free_cells()))
    return made


@dataclass
class Verdict:
    """A stated answer checked: ``right`` (the player, N and the first move), ``unique`` (one fastest first move),
    ``reason`` (why not right), ``first_moves`` (the fastest winning first moves, shown when right or ``show``)."""

    right: bool
    unique: bool
    reason: str | None
    player: int
    first_moves: list[str]
    stated: list[str] = field(default_factory=list)
    show: bool = False

    @property
    def ok(self) -> bool:
        return self.right and self.unique

    def summary(self) -> str:
        if not self.right:
            return f"wrong: {self.reason}" + (f" (the winning first moves: {', '.join(self.first_moves) or 'none'})"
                                              if self.show else " (--show names the winning ones)")
        if not self.unique:
            return f"not unique: {len(self.first_moves)} first moves win as fast ({', '.join(self.first_moves)})"
        return f"right and unique: {MARKS[self.player]} wins with {self.first_moves[0]}"

    def to_json(self) -> dict[str, Any]:
        shown = self.right or self.show
        return {"game": "tictactoe", "right": self.right, "unique": self.unique, "ok": self.ok, "reason": self.reason,
                "player": self.player, "stated": self.stated, "first_moves": self.first_moves if shown else None,
                "summary": self.summary()}


def verify(record: Any, answer: Any, *, show: bool = False) -> Verdict:
    """Check the stated ``answer`` (``goal`` "win in N", ``player``, ``first_moves``) of the puzzle ``record``."""
    try:
        result = replay(record)
    except TicTacToeError as err:
        raise PuzzleInputError(str(err), "puzzle") from None
    if not result.valid or result.state.is_terminal():
        raise PuzzleInputError(result.message if not result.valid else "the game is over: no move to find", "puzzle")
    if not isinstance(answer, Mapping):
        raise PuzzleInputError(f"the answer file is an object, not {type(answer).__name__}")
    goal = re.fullmatch(r"win in ([1-9])", str(answer.get("goal")))
    player, stated = answer.get("player"), answer.get("first_moves")
    if goal is None:
        raise PuzzleInputError(f"field 'goal': expected \"win in N\", got {answer.get('goal')!r}")
    if player not in (0, 1) or isinstance(player, bool):
        raise PuzzleInputError(f"field 'player': expected 0 or 1, got {player!r}")
    if not isinstance(stated, list) or not stated or not all(isinstance(s, str) for s in stated):
        raise PuzzleInputError("field 'first_moves': expected a non-empty list of cells like \"b2\"")
    state = result.state
    solution = solve(state)
    n, fastest = int(goal.group(1)), [cell_name(c) for c in solution.best]
    reason = None
    if player != state.current_player():
        reason = f"{MARKS[state.current_player()]} (player {state.current_player()}) is to move, not player {player}"
    elif wins_in(solution) != n:
        found = wins_in(solution)
        reason = f"the player to move wins in {found}, not {n}" if found else "the player to move cannot force a win"
    else:
        for text in stated:
            try:
                cell = state.string_to_action(text)
            except TicTacToeError as err:
                raise PuzzleInputError(f"field 'first_moves': {err}") from None
            if cell not in solution.moves:
                reason = f"{text} is taken"
            elif cell_name(cell) not in fastest:
                reason = f"{text} does not win in {n}"
            if reason:
                break
    return Verdict(reason is None, len(fastest) == 1, reason, state.current_player(), fastest, list(stated), show)


def sheet_html(puzzles: list[tuple[str, Any, Any]], *, title: str | None = None) -> str:
    """One printable page of the puzzles ``(name, record, answer)``: each grid and its question, then the answers.
    Every stated answer is verified first: a wrong one raises :class:`PuzzleInputError` naming the puzzle."""
    title = title or "Tic-tac-toe puzzles"
    heads, tails = [], []
    for number, (name, record, answer) in enumerate(puzzles, 1):
        try:
            verdict = verify(record, answer)
        except PuzzleInputError as err:
            raise PuzzleInputError(f"{name}: {err}", err.source) from None
        if not verdict.right:
            raise PuzzleInputError(f"{name}: the stated answer is wrong: {verdict.reason}")
        question = f"{MARKS[verdict.player]} to move and {answer['goal']}."
        heads.append(f'<section><h2>Puzzle {number}</h2>{state_svg(replay(record).state)}'
                     f'<p><b>{escape(question)}</b></p></section>')
        tails.append(f"<p>{number}. {escape(', '.join(verdict.first_moves))}</p>")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title></head>'
            f'<body><h1>{escape(title)}</h1>{"".join(heads)}<h1>Answers</h1>{"".join(tails)}</body></html>\n')


__all__ = ["DIFFICULTIES", "Puzzle", "PuzzleInputError", "Verdict", "generate", "puzzle_names", "verify",
           "sheet_html"]
