"""``quaternity quartets puzzle``: generate, verify and print Quaternity puzzles with unique answers
(docs/puzzles.md). ``quaternity puzzle`` runs these for the game's puzzles (``--game quartets``, the default, and
a puzzle file of the game).

``generate`` and ``verify`` are here; ``sheet`` (the printable page) is in
:mod:`.sheet`, imported when it is run. The library
(:mod:`quaternity_cp.quartets.puzzles`) is imported inside each command.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from ...command import (EXIT_ILLEGAL, EXIT_OK, InputError, Seconds, Whole, emit_json, force_option,
                        guarded, json_option, prepare_outputs, read_text, write_text)
from ...command.lazy import LazyGroup
from ..rules import PRESETS, Rules
from .common import parse_text

DIFFICULTIES = ("easy", "medium", "hard", "expert")  # quaternity_cp.quartets.puzzles.grade.DIFFICULTIES (tested equal)


@click.group(cls=LazyGroup, lazy={"sheet": f"{__package__}.sheet:sheet"},
             context_settings={"help_option_names": ["-h", "--help"]})
def puzzle() -> None:
    """Puzzles: generate them from seeded games, verify hand-made ones, print a sheet.

    A puzzle is a game so far (NAME.json, a record 'quaternity check' accepts)
    and its answer (NAME.answer.json): can the seat on turn force a quartet (or
    a win) within K questions, and with which first question? See docs/puzzles.md.
    """


def _questions(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[int, int] | None:
    """--questions K or LOW-HIGH."""
    if value is None:
        return None
    low, sep, high = value.partition("-")
    if not (low.isascii() and low.isdigit() and (not sep or high.isascii() and high.isdigit())):
        raise click.BadParameter(f"{value!r} is not K or LOW-HIGH (whole numbers, like 2 or 1-3)")
    lo, hi = int(low), int(high) if sep else int(low)
    if not 1 <= lo <= hi <= 20:
        raise click.BadParameter(f"{value!r}: need 1 <= LOW <= HIGH <= 20")
    return lo, hi


# -- generate -----------------------------------------------------------------------------------
@puzzle.command()
@click.option("--players", type=Whole(min=2, max=8), default=3, show_default=True, metavar="P", help="Players.")
@click.option("--sets", type=Whole(min=1, max=26), default=3, show_default=True, metavar="N", help="Sets.")
@click.option("--set-size", type=Whole(min=2, max=10), default=3, show_default=True, metavar="S",
              help="Cards in each set.")
@click.option("--rules", type=click.Choice(tuple(PRESETS)), default=Rules().name, show_default=True,
              metavar="PRESET", help=f"The rules preset: {', '.join(PRESETS)} (classic deals the cards: no puzzles).")
@click.option("--goal", type=click.Choice(("quartet", "win")), default="quartet", show_default=True,
              help="quartet: a set claimed before the turn ends; win: being among the winners.")
@click.option("--count", type=Whole(min=1, max=10_000), default=10, show_default=True, metavar="K",
              help="Puzzles to make.")
@click.option("--seed", type=Whole(min=0), default=0, show_default=True, metavar="X",
              help="The seed: the same seed and options make the same files.")
@click.option("--difficulty", type=click.Choice(DIFFICULTIES), default=None, help="Only puzzles of this difficulty.")
@click.option("--questions", callback=_questions, default=None, metavar="K|LOW-HIGH",
              help="K, the puzzle's number (quartet: questions, default 1-4; win: plies, default 1-6).")
@click.option("--agents", default="random", show_default=True, metavar="NAME[,NAME...]",
              help="Who plays the games: one agent for every seat, or one per seat.")
@click.option("--out", "out", required=True, metavar="DIR", help="The folder of the puzzles (made if missing).")
@click.option("--jobs", type=Whole(min=1, max=64), default=1, show_default=True, metavar="J",
              help="Worker processes (the files do not depend on it).")
@click.option("--max-positions", type=Whole(min=1), default=None, metavar="N",
              help="Pass over a moment whose search stores more positions (quartet default 200,000; "
                   "win 1,000: the game graph of the rest of the game; the earlier moments of that game are passed over too).")
@click.option("--max-games", type=Whole(min=1), default=None, metavar="G",
              help="Stop after G games (default 200 per puzzle asked for).")
@click.option("--max-seconds", type=Seconds(min=0, min_open=True), default=None, metavar="SECONDS",
              help="The time the whole run may take (checked inside every search); past it the run stops "
                   "(exit 2), keeping the puzzles written.")
@click.option("--allow-grid-answers", is_flag=True,
              help="Also keep the puzzles whose answer the printed grid shows (every question asks for a "
                   "card already forced with the seat asked: a green square).")
@json_option
@force_option
@guarded
def generate(players: int, sets: int, set_size: int, rules: str, goal: str, count: int, seed: int,
             difficulty: str | None, questions: tuple[int, int] | None, agents: str, out: str, jobs: int,
             max_positions: int | None, max_games: int | None, max_seconds: float | None,
             allow_grid_answers: bool, as_json: bool, force: bool) -> None:
    """Find puzzles with unique answers in seeded games.

    Plays seeded games (random agents by default) and searches every moment
    where one seat is on turn with no open question: a puzzle is kept when that
    seat forces the goal within exactly K (and not K-1) and the winning first
    moves are one class of interchangeable moves, and the answer is not drawn on
    the printed grid (a line of questions, each for a card the grid shows as
    forced with the seat asked; --allow-grid-answers keeps those). Writes
    DIR/NAME.json (the game
    so far) and DIR/NAME.answer.json (K, the first moves, the traps, the
    difficulty, the strategy tree). Never replaces a file without --force.

    Exit codes: 0 every puzzle made; 2 bad input, or fewer puzzles than asked
    for (--max-games or --max-seconds reached; those made stay written).
    """
    from ..puzzles.answers import dumps
    from ..puzzles.generate import (
        GenerateOptions,
        GenerateStopped,
        puzzle_names,
    )
    from ..puzzles.generate import generate as run

    names = tuple(a.strip() for a in agents.split(","))
    opts = GenerateOptions(players, sets, set_size, rules, goal, questions, difficulty, names, max_positions,
                           allow_grid_answers)
    opts.check()
    prepare_outputs(out, puzzle_names(opts, seed, count), force)
    made: list[dict[str, Any]] = []

    def found(name: str, record: dict[str, Any], answer: dict[str, Any]) -> None:
        path = os.path.join(out, name + ".json")
        write_text(path, dumps(record))
        write_text(os.path.join(out, name + ".answer.json"), dumps(answer))
        made.append({"name": name, "path": path, "goal": answer["goal"], "player": answer["player"],
                     "questions": answer["questions"], "difficulty": answer["difficulty"],
                     "score": answer["grade"]["score"], "first_moves": answer["first_moves"]})
        if not as_json:
            click.echo(f"{path}: seat {answer['player']}, {answer['goal']} within {answer['questions']}, "
                       f"{answer['difficulty']} (score {answer['grade']['score']:g}), "
                       f"first move {answer['first_moves'][0]}")

    stopped = None
    try:
        run(opts, seed, count, jobs=jobs, max_seconds=max_seconds, max_games=max_games, found=found)
    except GenerateStopped:
        stopped = f"--max-seconds {max_seconds:g} reached"
    if len(made) < count and stopped is None:
        games = max_games if max_games is not None else 200 * count
        stopped = f"no more puzzles in {games:,} games (--max-games)"
    if as_json:
        emit_json({"puzzles": made, "count": len(made), "asked": count, "seed": seed, "out": out,
                   "options": opts.to_json(), "stopped": stopped})
    if stopped is not None:
        raise InputError(f"made {len(made)} of {count} puzzles: {stopped}; try other options "
                         f"(another --difficulty, --questions or game size) or raise the limit")
    if not as_json:
        click.echo(f"{len(made)} puzzle{'s' if len(made) != 1 else ''} in {out}")


# -- verify -------------------------------------------------------------------------------------
@puzzle.command()
@click.argument("file")
@click.option("--answer", "answer", default=None, metavar="PATH",
              help="The answer file (default: NAME.answer.json beside FILE).")
@click.option("--max-positions", type=Whole(min=1), default=500_000, show_default=True, metavar="N",
              help="Refuse (exit 2) a puzzle whose search stores more positions.")
@click.option("--max-seconds", type=Seconds(min=0, min_open=True), default=60.0, show_default=True,
              metavar="SECONDS", help="The time the searches and explanations may take; past it: exit 2.")
@click.option("--show", is_flag=True,
              help="Name the winning first moves even when the stated answer is wrong (the solution).")
@json_option
@guarded
def verify(file: str, answer: str | None, max_positions: int, max_seconds: float, show: bool,
           as_json: bool) -> None:
    """Check a puzzle's stated answer: right, unique, and how hard.

    FILE is a puzzle (a record or a position); its answer is NAME.answer.json
    beside it, or --answer. The answer is right when the goal is forced within
    the stated K and not within K-1 and the stated first moves, if any, name
    the winning ones: each legal and winning, each class of interchangeable
    winning moves named by one of them at least (one names its class). An
    illegal stated move is called illegal, with the checker's reason. A wrong
    answer is not told the winning moves unless --show. Unique: the winning
    first moves are one class. The bundled puzzles' answer files (a list
    "answers" of verdicts) are checked verdict by verdict.

    Exit codes: 0 right and unique; 1 wrong or not unique, with the reason; 2 bad
    input (or a search past --max-seconds or --max-positions).
    """
    import time

    from ...budget import Limits
    from ..puzzles.answers import answer_path, read_answer
    from ..puzzles.puzzle import puzzle_position
    from ..puzzles.search import PuzzleError
    from ..puzzles.verify import verify as check

    start = time.monotonic()
    record = parse_text(read_text(file), None, file)
    try:
        puzzle_position(record)  # the puzzle's own faults (an illegal move) name the puzzle's file
    except PuzzleError as err:
        raise InputError(f"{file}: {err}") from None
    path = answer if answer is not None else answer_path(file)
    if answer is None and not os.path.exists(path):
        raise InputError(f"{file}: no answer file {os.path.basename(path)} beside it (give --answer PATH)")
    stated, _ = read_answer(record.game, read_text(path), path)
    left = max(0.01, max_seconds - (time.monotonic() - start))
    try:
        verdict = check(record, stated, limits=Limits(max_positions, left), explain_seconds=left, show=show)
    except PuzzleError as err:  # the stated question does not apply to this puzzle: name the answer file
        raise InputError(f"{path}: {err}") from None
    if as_json:
        emit_json({"puzzle": file, "answer": path} | verdict.to_json())
    else:
        click.echo(f"{file}: {verdict.summary()}")
    sys.exit(EXIT_OK if verdict.ok else EXIT_ILLEGAL)


__all__ = ["generate", "puzzle", "verify", "DIFFICULTIES"]
