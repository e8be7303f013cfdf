"""``quaternity puzzle``: generate, verify and print Quaternity puzzles with unique answers (docs/puzzles.md).

``generate`` and ``verify`` are here; ``sheet`` (the printable page) is in
:mod:`.cmd_puzzle_sheet`, imported when it is run. The library
(:mod:`quaternity_cp.quartets.puzzles`) is imported inside each command.
"""

from __future__ import annotations

import os
import sys
from typing import Any, ClassVar

import click

from quaternity_cp.registry import DEFAULT_GAME
from quaternity_cp.quartets.rules import PRESETS, Rules

from .common import (
    EXIT_ILLEGAL,
    EXIT_OK,
    InputError,
    Seconds,
    Whole,
    check_output,
    emit_json,
    force_option,
    guarded,
    parse_text,
    read_text,
    write_text,
)

DIFFICULTIES = ("easy", "medium", "hard", "expert")  # quaternity_cp.quartets.puzzles.grade.DIFFICULTIES (tested equal)


def _prepare_out(out: str, names: Any, force: bool) -> None:
    """The folder ``--out`` made if missing, and every file the run will write checked before any work
    (``NAME.json`` and ``NAME.answer.json`` of each name)."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise InputError(f"--out: {out} is a file, not a folder")
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as err:
        raise InputError(f"--out: cannot make the folder {out} ({err.strerror or err})") from None
    for name in names:
        for suffix in (".json", ".answer.json"):
            check_output(os.path.join(out, name + suffix), "--out", force=force)


class PuzzleGroup(click.Group):
    """The group, with ``sheet`` imported from its own module when it is first used."""

    LAZY: ClassVar[dict[str, str]] = {"sheet": "quaternity_cli.cmd_puzzle_sheet:sheet"}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.LAZY))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is None and name in self.LAZY:
            import importlib

            module, attribute = self.LAZY[name].split(":")
            try:
                command = getattr(importlib.import_module(module), attribute)
            except (ImportError, AttributeError):
                return None  # not part of this installation
            self.add_command(command, name)
        return command


@click.group(cls=PuzzleGroup, context_settings={"help_option_names": ["-h", "--help"]})
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
@click.option("--game", default=DEFAULT_GAME, show_default=True, metavar="GAME",
              help="The game of the puzzles: another registered game makes its own puzzles, through its "
                   "'puzzles' part (Quantum Go Fish: which question wins at once?), with --players, --option, "
                   "--count, --seed, --difficulty, --out, --max-games, --max-seconds, --json and --force.")
@click.option("--option", "game_options", multiple=True, metavar="NAME=VALUE",
              help="An option of another --game (repeatable), e.g. --option suits=3 --option rules=geraschenko.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@force_option
@guarded
def generate(players: int, sets: int, set_size: int, rules: str, goal: str, count: int, seed: int,
             difficulty: str | None, questions: tuple[int, int] | None, agents: str, out: str, jobs: int,
             max_positions: int | None, max_games: int | None, max_seconds: float | None,
             allow_grid_answers: bool, game: str, game_options: tuple[str, ...], as_json: bool,
             force: bool) -> None:
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

    With --game GAME (another registered game), the game's own puzzles are
    made: see docs/puzzles.md for each game's kind of puzzle.

    Exit codes: 0 every puzzle made; 2 bad input, or fewer puzzles than asked
    for (--max-games or --max-seconds reached; those made stay written).
    """
    if game != DEFAULT_GAME:
        _generate_other(game, game_options, players, count, seed, difficulty, out, max_games, max_seconds,
                        as_json, force)
        return
    if game_options:
        raise InputError(f"--option: only for another --game (the options of {DEFAULT_GAME} puzzles are "
                         "--players, --sets, --set-size and --rules)")
    from quaternity_cp.quartets.puzzles.answers import dumps
    from quaternity_cp.quartets.puzzles.generate import (
        GenerateOptions,
        GenerateStopped,
        puzzle_names,
    )
    from quaternity_cp.quartets.puzzles.generate import generate as run

    names = tuple(a.strip() for a in agents.split(","))
    opts = GenerateOptions(players, sets, set_size, rules, goal, questions, difficulty, names, max_positions,
                           allow_grid_answers)
    opts.check()
    _prepare_out(out, puzzle_names(opts, seed, count), force)
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


#: The options of ``generate`` that only the default game's puzzles take.
DEFAULT_GAME_ONLY = ("sets", "set_size", "rules", "goal", "questions", "agents", "jobs", "max_positions",
                     "allow_grid_answers")


def _option_value(text: str) -> tuple[str, Any]:
    """``NAME=VALUE`` of --option: VALUE a whole number, true/false, or text."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise InputError(f"--option: {text!r} is not NAME=VALUE (e.g. suits=3)")
    value = value.strip()
    parsed: Any = value
    if value.isascii() and value.isdigit():
        parsed = int(value)
    elif value.lower() in ("true", "false"):
        parsed = value.lower() == "true"
    return name.strip(), parsed


def puzzles_part(game: str, where: str) -> Any:
    """The ``puzzles`` part of the registered game ``game`` (InputError naming ``where`` when there is none)."""
    from quaternity_cp.errors import QuaternityError
    from quaternity_cp.registry import load_all

    games = load_all()
    if game not in games:
        raise InputError(f"{where}: unknown game {game!r} (known: {', '.join(sorted(games))})")
    try:
        return games[game].part("puzzles")
    except QuaternityError:
        raise InputError(f"{where}: the game {game} has no puzzles") from None


def _generate_other(game: str, game_options: tuple[str, ...], players: int, count: int, seed: int,
                    difficulty: str | None, out: str, max_games: int | None, max_seconds: float | None,
                    as_json: bool, force: bool) -> None:
    """``generate --game GAME``: the puzzles of another game, made by its ``puzzles`` part."""
    from quaternity_cp.budget import Limits, Stopped
    from quaternity_cp.quartets.puzzles.answers import dumps
    from quaternity_cp.registry import load_all

    ctx = click.get_current_context()
    for name in DEFAULT_GAME_ONLY:
        if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE:
            flag = "--" + name.replace("_", "-")
            raise InputError(f"{flag} does not apply to --game {game} (its options: --players and --option)")
    part = puzzles_part(game, "--game")
    spec = load_all()[game]
    options: dict[str, Any] = dict(_option_value(text) for text in game_options)
    if spec.players_option is not None:
        if spec.players_option in options:
            raise InputError(f"--option {spec.players_option}: give the players with --players")
        options = {spec.players_option: players} | options
    spec.check_options(options)
    _prepare_out(out, part.puzzle_names(options, seed, count), force)
    made: list[dict[str, Any]] = []

    def found(puzzle: Any) -> None:
        answer = puzzle.answer
        path = os.path.join(out, puzzle.name + ".json")
        write_text(path, dumps(puzzle.record))
        write_text(os.path.join(out, puzzle.name + ".answer.json"), dumps(answer))
        made.append({"name": puzzle.name, "path": path, "goal": answer["goal"], "player": answer["player"],
                     "difficulty": answer["difficulty"], "score": answer["grade"]["score"],
                     "first_moves": answer["first_moves"]})
        if not as_json:
            click.echo(f"{path}: seat {answer['player']}, {answer['goal']}, {answer['difficulty']} "
                       f"(score {answer['grade']['score']:g}), first move {answer['first_moves'][0]}")

    stopped = None
    limits = Limits(None, max_seconds) if max_seconds is not None else None
    try:
        part.generate(count, seed, options, limits, difficulty=difficulty, max_games=max_games, found=found)
    except Stopped:
        stopped = f"--max-seconds {max_seconds:g} reached"
    if len(made) < count and stopped is None:
        games = max_games if max_games is not None else 200 * count
        stopped = f"no more puzzles in {games:,} games (--max-games)"
    if as_json:
        emit_json({"game": game, "puzzles": made, "count": len(made), "asked": count, "seed": seed, "out": out,
                   "options": options | {"difficulty": difficulty}, "stopped": stopped})
    if stopped is not None:
        raise InputError(f"made {len(made)} of {count} puzzles: {stopped}; try other options "
                         f"(another --difficulty or game size) or raise the limit")
    if not as_json:
        click.echo(f"{len(made)} puzzle{'s' if len(made) != 1 else ''} in {out}")


def _verify_other(game: str, file: str, text: str, answer: str | None, show: bool, as_json: bool) -> None:
    """``verify`` of a puzzle of another game: its ``puzzles`` part checks the stated answer."""
    from quaternity_cp.errors import QuaternityError
    from quaternity_cp.jsonio import InputRefused, load_json
    from quaternity_cp.quartets.puzzles.answers import answer_path

    part = puzzles_part(game, file)
    path = answer if answer is not None else answer_path(file)
    if answer is None and not os.path.exists(path):
        raise InputError(f"{file}: no answer file {os.path.basename(path)} beside it (give --answer PATH)")
    data = {}
    for where, source in ((file, text), (path, None)):
        try:
            data[where] = load_json(source if source is not None else read_text(path))
        except InputRefused as err:
            raise InputError(f"{where}: {err}") from None
    try:
        verdict = part.verify(data[file], data[path], show=show)
    except QuaternityError as err:
        raise InputError(f"{file if getattr(err, 'source', 'answer') == 'puzzle' else path}: {err}") from None
    if as_json:
        emit_json({"puzzle": file, "answer": path} | verdict.to_json())
    else:
        click.echo(f"{file}: {verdict.summary()}")
    sys.exit(EXIT_OK if verdict.ok else EXIT_ILLEGAL)


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
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
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

    A puzzle of another game (its record names the game) is checked by that
    game's 'puzzles' part (docs/puzzles.md), with the same exit codes.

    Exit codes: 0 right and unique; 1 wrong or not unique, with the reason; 2 bad
    input (or a search past --max-seconds or --max-positions).
    """
    import time

    from quaternity_cp.registry import record_game

    from quaternity_cp.budget import Limits
    from quaternity_cp.quartets.puzzles.answers import answer_path, read_answer
    from quaternity_cp.quartets.puzzles.search import PuzzleError
    from quaternity_cp.quartets.puzzles.verify import verify as check

    start = time.monotonic()
    text = read_text(file)
    game = record_game(text)
    if game != DEFAULT_GAME:
        _verify_other(game, file, text, answer, show, as_json)
    record = parse_text(text, None, file)
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


__all__ = ["generate", "puzzle", "puzzles_part", "verify"]
