"""The game's part ``puzzles``: Quaternity's puzzles through the registry's contract (every game's alike).

The contract (:data:`quaternity_cp.registry.PARTS`): :func:`generate`, :func:`puzzle_names`, :func:`verify` and
:func:`sheet_html`, on JSON data and plain options, as a front end that serves every game's puzzles calls them.
``quaternity puzzle`` runs the game's own commands instead (``quaternity quartets puzzle``), which take more
options (``--jobs``, limits of their own); the puzzles are the same.

>>> names = puzzle_names({"players": 3, "sets": 3, "set_size": 3}, 7, 2)
>>> names
['quaternity-3x3x3-quartet-7-001', 'quaternity-3x3x3-quartet-7-002']
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping

from ...budget import Limits, Status, Stopped
from ...errors import QuaternityError
from .generate import GenerateOptions, GenerateStopped
from .search import PuzzleError

#: The options of the game's puzzles (those of :class:`~.generate.GenerateOptions`; difficulty aside).
OPTIONS = ("players", "sets", "set_size", "rules", "goal", "questions", "agents", "max_positions",
           "allow_grid_answers")
#: The limits of :func:`verify` when none are given: those of ``quaternity puzzle verify``.
VERIFY_POSITIONS, VERIFY_SECONDS = 500_000, 60.0


@dataclass(frozen=True)
class QuartetsPuzzle:
    """A generated puzzle: its ``name``, the ``record`` (NAME.json) and the ``answer`` (NAME.answer.json)."""

    name: str
    record: dict[str, Any]
    answer: dict[str, Any]


def generate_options(options: Mapping[str, Any] | None) -> GenerateOptions:
    """The options of a run (:data:`OPTIONS`; ``questions`` a number K or a pair, ``agents`` a name or a list);
    an unknown one raises :class:`~.search.PuzzleError`."""
    given = dict(options or {})
    for key in given:
        if key not in OPTIONS:
            raise PuzzleError(f"option {key}: unknown (known: {', '.join(OPTIONS)})")
    questions = given.get("questions")
    if isinstance(questions, int):
        given["questions"] = (questions, questions)
    elif questions is not None:
        given["questions"] = tuple(questions)
    agents = given.get("agents")
    if isinstance(agents, str):
        given["agents"] = tuple(a.strip() for a in agents.split(","))
    elif agents is not None:
        given["agents"] = tuple(agents)
    return GenerateOptions(**given)


def puzzle_names(options: Mapping[str, Any] | None, seed: int, count: int) -> list[str]:
    """The names of the puzzles :func:`generate` makes, in order."""
    from .generate import puzzle_names as names

    return names(generate_options(options), seed, count)


def generate(count: int, seed: int, options: Mapping[str, Any] | None = None, limits: Limits | None = None, *,
             difficulty: str | None = None, max_games: int | None = None,
             found: Callable[[QuartetsPuzzle], None] | None = None) -> list[QuartetsPuzzle]:
    """Up to ``count`` puzzles with unique answers from seeded games (:func:`.generate.generate`), each given to
    ``found`` as it is made; ``limits.max_seconds`` bounds the run (past it :class:`~quaternity_cp.budget.Stopped`,
    the puzzles made kept by ``found``)."""
    from .generate import generate as run

    opts = replace(generate_options(options), difficulty=difficulty)
    out: list[QuartetsPuzzle] = []

    def each(name: str, record: dict[str, Any], answer: dict[str, Any]) -> None:
        made = QuartetsPuzzle(name, record, answer)
        out.append(made)
        if found is not None:
            found(made)

    try:
        run(opts, seed, count, max_seconds=limits.max_seconds if limits is not None else None,
            max_games=max_games, found=each)
    except GenerateStopped:
        raise Stopped(Status.TIME) from None
    return out


def verify(record: Mapping[str, Any], answer: Mapping[str, Any], *, show: bool = False,
           limits: Limits | None = None) -> Any:
    """The verdict on the stated ``answer`` of the puzzle ``record`` (JSON data): :class:`.verify.Verdict`
    (``ok``, ``right``, ``unique``, ``summary()``, ``to_json()``). A puzzle or an answer that cannot be read
    raises the game's error, its ``source`` naming which ("puzzle" or "answer")."""
    from ..formats import record_from_json
    from .answers import read_answer
    from .verify import verify as check

    try:
        puzzle = record_from_json(dict(record))
    except QuaternityError as err:
        err.source = "puzzle"  # type: ignore[attr-defined]
        raise
    import json

    stated, _ = read_answer(puzzle.game, json.dumps(dict(answer)), "answer")
    limits = limits if limits is not None else Limits(VERIFY_POSITIONS, VERIFY_SECONDS)
    return check(puzzle, stated, limits=limits, explain_seconds=limits.max_seconds, show=show)


def sheet_html(puzzles: list[tuple[str, Mapping[str, Any], Mapping[str, Any]]], *, title: str | None = None) -> str:
    """The printable page of ``puzzles`` (name, record, answer: JSON data), the answers after them."""
    from .sheet import sheet_html as page
    from .sheet import sheet_puzzle

    items = [sheet_puzzle(name, dict(record), dict(answer)) for name, record, answer in puzzles]
    return page(items, title=title) if title is not None else page(items)


__all__ = ["OPTIONS", "QuartetsPuzzle", "generate_options", "puzzle_names", "generate", "verify", "sheet_html"]
