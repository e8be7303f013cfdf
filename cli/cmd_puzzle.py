"""``quaternity puzzle generate|verify|sheet``: every game's puzzles, through one door (docs/puzzles.md).

Each command finds the game of the puzzles: ``generate`` the game of ``--game`` (the default game when not
given), ``verify`` the game of the puzzle file, ``sheet`` the game of the folder's puzzles (one game a sheet).
A game with its own group ``puzzle`` in its commands (``quaternity <game> puzzle ...``) runs its command of
the same name, with the same arguments (``--game`` aside); another game's part ``puzzles`` (the registry's
contract: ``generate``, ``puzzle_names``, ``verify``, ``sheet_html``) is run by the commands below, which
take the options every game's puzzles share (``--players``, ``--option NAME=VALUE`` for the rest).
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

import click

from quaternity_cp.command import (EXIT_ILLEGAL, EXIT_OK, InputError, Seconds, Whole, check_output, emit_json,
                                   force_option, guarded, json_option, prepare_outputs, read_text, write_text)

from .dispatch import Door, FileDoor, Found, default_spec, game_spec, leading_argument, title

if TYPE_CHECKING:
    from quaternity_cp.registry import GameSpec

DIFFICULTIES = ("easy", "medium", "hard", "expert")  # every game's puzzles are graded so (tested equal)


def dumps(data: Any) -> str:
    """A puzzle file's text: JSON indented by one space, keys in the order given."""
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def answer_path(puzzle: str) -> str:
    """The answer file beside the puzzle file ``NAME.json``: ``NAME.answer.json``."""
    return puzzle.removesuffix(".json") + ".answer.json"


def puzzles_part(spec: GameSpec, where: str) -> Any:
    """The game's part ``puzzles`` (InputError naming ``where`` when it has none)."""
    if "puzzles" not in spec.parts:
        raise InputError(f"{where}: the game {spec.name} has no puzzles")
    return spec.part("puzzles")


# -- the doors ------------------------------------------------------------------------------------------
class GenerateDoor(Door):
    """``puzzle generate``: the game of ``--game``."""

    def find(self, ctx: click.Context, args: list[str]) -> Found:
        from quaternity_cp.registry import DEFAULT_GAME, find_game, load_games

        game, rest, i = DEFAULT_GAME, [], 0
        while i < len(args):
            if args[i] == "--":
                rest += args[i:]
                break
            if args[i] == "--game" and i + 1 < len(args):
                game, i = args[i + 1], i + 2
                continue
            if args[i].startswith("--game="):
                game = args[i].partition("=")[2]
            else:
                rest.append(args[i])
            i += 1
        spec = find_game(game)
        if spec is None:
            raise InputError(f"--game: unknown game {game!r} (known: {', '.join(sorted(load_games()))})")
        return Found(spec, rest, game)

    def fallback(self, ctx: click.Context, found: Found) -> click.Command | None:
        return part_generate(found.spec) if "puzzles" in found.spec.parts else None

    def missing(self, ctx: click.Context, found: Found) -> str:
        return f"--game: the game {found.spec.name} has no puzzles"

    def not_taken(self, found: Found, option: str, fallback: bool) -> str:
        if fallback:
            return f"{option} does not apply to --game {found.spec.name} (its options: --players and --option)"
        return (f"{option} does not apply to --game {found.spec.name} "
                f"(see 'quaternity {found.spec.name} puzzle generate --help')")

    def help_note(self, own: list[str]) -> str:
        return ("The options above are those of the default game's puzzles. --game GAME makes another "
                "registered game's puzzles, with that game's options: "
                + (f"those of its own command ({', '.join(own)}), or " if own else "")
                + "those every game's puzzles take: --players, --option NAME=VALUE, --count, --seed, --difficulty, "
                  "--out, --max-games, --max-seconds, --json and --force (docs/puzzles.md: each game's puzzles).")


class VerifyDoor(FileDoor):
    """``puzzle verify FILE``: the game of the puzzle."""

    def fallback(self, ctx: click.Context, found: Found) -> click.Command | None:
        return part_verify(found.spec) if "puzzles" in found.spec.parts else None

    def missing(self, ctx: click.Context, found: Found) -> str:
        return f"{found.name}: the game {found.spec.name} has no puzzles"

    def not_taken(self, found: Found, option: str, fallback: bool) -> str:
        if fallback:
            return (f"{found.name}: a {title(found.spec)} puzzle: {option} does not apply to it (its options: "
                    "--answer, --show and --json)")
        return (f"{found.name}: a {title(found.spec)} puzzle: {option} does not apply to it "
                f"(see 'quaternity {found.spec.name} puzzle verify --help')")

    def help_note(self, own: list[str]) -> str:
        return ("The options above are those of the default game's puzzles. A puzzle of another game (its "
                "\"game\" field) is checked by that game: " + (f"its own command ({', '.join(own)}), or " if own
                                                              else "") + "its puzzles' checker, with --answer, "
                "--show and --json.")


def puzzle_files(folder: str) -> list[str]:
    """The folder's puzzle files (``NAME.json``, not the answers), in the order of their names."""
    try:
        names = os.listdir(folder)
    except (OSError, ValueError):
        return []  # reading the folder says why
    return [os.path.join(folder, n) for n in sorted(names) if n.endswith(".json") and not n.endswith(".answer.json")]


def unreadable_json(text: str) -> bool:
    """Whether ``text`` is meant as JSON (it opens with ``{``) but is not a JSON object the strict reader
    takes: such a file tells no game, so it does not decide a sheet's game."""
    from quaternity_cp.jsonio import InputRefused, load_json

    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped.startswith("{"):
        return False
    try:
        return not isinstance(load_json(stripped), dict)
    except InputRefused:
        return True


class SheetDoor(Door):
    """``puzzle sheet DIR``: the game of the folder's puzzles (each record names it; one game a sheet)."""

    def find(self, ctx: click.Context, args: list[str]) -> Found:
        from quaternity_cp.registry import DEFAULT_GAME, record_game

        folder = leading_argument(args)
        if folder is None:
            folder = self.default_args(ctx, args)
        if folder is None:
            return Found(default_spec(), args)
        games: dict[str, str] = {}
        for path in puzzle_files(folder):
            text = read_text(path, keep=True)
            if unreadable_json(text):
                continue  # names no game: the sheet's game reads it and says what is wrong, naming the file
            games.setdefault(record_game(text), path)
        if len(games) > 1:
            named = ", ".join(f"{game} ({os.path.basename(path)})" for game, path in sorted(games.items()))
            raise InputError(f"{folder}: puzzles of several games ({named}): one game per sheet")
        return Found(game_spec(next(iter(games), DEFAULT_GAME)), args, folder)

    def fallback(self, ctx: click.Context, found: Found) -> click.Command | None:
        return part_sheet(found.spec) if "puzzles" in found.spec.parts else None

    def missing(self, ctx: click.Context, found: Found) -> str:
        return f"{found.name}: the game {found.spec.name} has no puzzles"

    def not_taken(self, found: Found, option: str, fallback: bool) -> str:
        see = "its options: -o, --title and --force" if fallback else \
            f"see 'quaternity {found.spec.name} puzzle sheet --help'"
        return f"{found.name}: puzzles of {found.spec.name}: {option} does not apply to them ({see})"

    def help_note(self, own: list[str]) -> str:
        return ("The options above are those of the default game's puzzles. The puzzles of another game (their "
                "\"game\" field) make that game's sheet: " + (f"its own command ({', '.join(own)}), or " if own
                                                             else "") + "its puzzles' page, with -o, --title "
                "and --force.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def puzzle() -> None:
    """Puzzles: generate them from seeded games, verify hand-made ones, print a sheet.

    A puzzle is a game so far (NAME.json, a record 'quaternity check' accepts)
    and its answer (NAME.answer.json): can the seat on turn force a quartet (or
    a win) within K questions, and with which first question? See docs/puzzles.md.
    Every game's puzzles: 'generate --game GAME'; 'verify' and 'sheet' read the
    game of the puzzles from their files.
    """


puzzle.add_command(GenerateDoor("generate", ("puzzle", "generate"), argument="out"))
puzzle.add_command(VerifyDoor("verify", ("puzzle", "verify")))
puzzle.add_command(SheetDoor("sheet", ("puzzle", "sheet"), argument="folder"))


# -- a game's puzzles through its part `puzzles` ----------------------------------------------------------
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


def part_generate(spec: GameSpec) -> click.Command:
    """``puzzle generate --game GAME`` of a game whose puzzles are its part ``puzzles``."""

    @click.command(help=f"Make puzzles of {title(spec)} (its part 'puzzles').")
    @click.option("--players", type=Whole(min=2, max=8), default=3, show_default=True, metavar="P", help="Players.")
    @click.option("--count", type=Whole(min=1, max=10_000), default=10, show_default=True, metavar="K",
                  help="Puzzles to make.")
    @click.option("--seed", type=Whole(min=0), default=0, show_default=True, metavar="X",
                  help="The seed: the same seed and options make the same files.")
    @click.option("--difficulty", type=click.Choice(DIFFICULTIES), default=None,
                  help="Only puzzles of this difficulty.")
    @click.option("--out", "out", required=True, metavar="DIR", help="The folder of the puzzles (made if missing).")
    @click.option("--max-games", type=Whole(min=1), default=None, metavar="G",
                  help="Stop after G games (default 200 per puzzle asked for).")
    @click.option("--max-seconds", type=Seconds(min=0, min_open=True), default=None, metavar="SECONDS",
                  help="The time the whole run may take; past it the run stops (exit 2), keeping the puzzles "
                       "written.")
    @click.option("--option", "game_options", multiple=True, metavar="NAME=VALUE",
                  help="An option of the game (repeatable), e.g. --option suits=3 --option rules=geraschenko.")
    @json_option
    @force_option
    @guarded
    def generate(players: int, count: int, seed: int, difficulty: str | None, out: str, max_games: int | None,
                 max_seconds: float | None, game_options: tuple[str, ...], as_json: bool, force: bool) -> None:
        from quaternity_cp.budget import Limits, Stopped

        part = puzzles_part(spec, "--game")
        options: dict[str, Any] = dict(_option_value(text) for text in game_options)
        if spec.players_option is not None:
            if spec.players_option in options:
                raise InputError(f"--option {spec.players_option}: give the players with --players")
            options = {spec.players_option: players} | options
        spec.check_options(options)
        prepare_outputs(out, part.puzzle_names(options, seed, count), force)
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
            emit_json({"game": spec.name, "puzzles": made, "count": len(made), "asked": count, "seed": seed,
                       "out": out, "options": options | {"difficulty": difficulty}, "stopped": stopped})
        if stopped is not None:
            raise InputError(f"made {len(made)} of {count} puzzles: {stopped}; try other options "
                             f"(another --difficulty or game size) or raise the limit")
        if not as_json:
            click.echo(f"{len(made)} puzzle{'s' if len(made) != 1 else ''} in {out}")

    return generate


def part_verify(spec: GameSpec) -> click.Command:
    """``puzzle verify FILE`` of a puzzle of a game whose puzzles are its part ``puzzles``: it checks the
    stated answer (exit code 0 right and unique, 1 wrong or not unique, 2 bad input)."""

    @click.command(help=f"Check a {title(spec)} puzzle's stated answer (its part 'puzzles').")
    @click.argument("file")
    @click.option("--answer", "answer", default=None, metavar="PATH",
                  help="The answer file (default: NAME.answer.json beside FILE).")
    @click.option("--show", is_flag=True,
                  help="Name the winning first moves even when the stated answer is wrong (the solution).")
    @json_option
    @guarded
    def verify(file: str, answer: str | None, show: bool, as_json: bool) -> None:
        from quaternity_cp.errors import QuaternityError
        from quaternity_cp.jsonio import InputRefused, load_json

        part = puzzles_part(spec, file)
        path = answer if answer is not None else answer_path(file)
        if answer is None and not os.path.exists(path):
            raise InputError(f"{file}: no answer file {os.path.basename(path)} beside it (give --answer PATH)")
        data = {}
        for where in (file, path):
            try:
                data[where] = load_json(read_text(where))
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

    return verify


def part_sheet(spec: GameSpec) -> click.Command:
    """``puzzle sheet DIR`` of a folder of puzzles of a game whose puzzles are its part ``puzzles``."""

    @click.command(help=f"Write a printable page of the {title(spec)} puzzles in DIR (its part 'puzzles').")
    @click.argument("folder", metavar="DIR")
    @click.option("-o", "--output", "output", metavar="SHEET.html", required=True, help="The HTML page to write.")
    @click.option("--title", "title_text", default=None, help="The page's title (default: the game's).")
    @force_option
    @guarded
    def sheet(folder: str, output: str, title_text: str | None, force: bool = False) -> None:
        from quaternity_cp.jsonio import InputRefused, load_json

        files = puzzle_files(folder)
        check_output(output, "-o", inputs=files + [answer_path(f) for f in files], force=force)
        part = puzzles_part(spec, folder)
        items = []
        for path in files:
            answer = answer_path(path)
            if not os.path.exists(answer):
                raise InputError(f"{path}: no answer file {os.path.basename(answer)} beside it")
            data = []
            for where in (path, answer):
                try:
                    data.append(load_json(read_text(where)))
                except InputRefused as err:
                    raise InputError(f"{where}: {err}") from None
            items.append((os.path.basename(path)[: -len(".json")], data[0], data[1]))
        write_text(output, part.sheet_html(items, title=title_text))
        count = f"{len(items)} puzzle" + ("" if len(items) == 1 else "s")
        click.echo(f"Wrote {output}: {count}, the answers after them. Open it in a web browser to read it; print "
                   "it from there (A4, Ctrl+P or Cmd+P) or save it as a PDF.")

    return sheet


__all__ = ["puzzle", "DIFFICULTIES", "part_generate", "part_verify", "part_sheet", "puzzles_part", "dumps",
           "answer_path", "puzzle_files"]
