"""``quaternity puzzle sheet``: one printable HTML page of a folder of puzzles, the answers after them.

The page is :func:`quaternity_cp.quartets.puzzles.sheet.sheet_html` of the folder's puzzles (docs/puzzles.md, "The
puzzle sheet"); the command only checks the output first, reads the folder and writes the page atomically.
"""

from __future__ import annotations

import os

import click

from .common import InputError, check_output, force_option, guarded, read_text, write_text
from .limits import seconds_option

#: The default of --max-seconds: solving the hand-made puzzles' verdicts (and explaining what a strategy leaves
#: unexplained) for the whole page; the bundled puzzles take a few seconds.
SHEET_SECONDS = 60.0


@click.command()
@click.argument("folder", metavar="DIR")
@click.option("-o", "--output", "output", metavar="SHEET.html", required=True, help="The HTML page to write.")
@click.option("--title", default="Quaternity puzzles", show_default=True, help="The page's title.")
@force_option
@seconds_option("solving the hand-made puzzles (and explaining what a strategy leaves unexplained) for the "
                "whole page", SHEET_SECONDS, past="are shown as not solved here")
@guarded
def sheet(folder: str, output: str, title: str, force: bool = False,
          max_seconds: float | None = SHEET_SECONDS) -> None:
    """Write a printable page of the puzzles in DIR: the puzzles first, the answers after them.

    DIR holds puzzles as 'quaternity puzzle generate' writes them: NAME.json (the game so
    far) with NAME.answer.json (its answer); the bundled examples/puzzles work
    too. Each puzzle shows its moves in words, the grid of what everybody knows
    and its question; from a new page, each answer: the verdict, the first moves
    that work, the traps, the difficulty and the strategy tree, every move in
    words with why each forced answer is forced. The page is A4, self-contained
    (no network) and readable on a screen. Hand-made puzzles' verdicts are
    solved again: a verdict the solver contradicts is refused (exit 2).
    """
    from quaternity_cp.quartets.puzzles.sheet import read_puzzles, sheet_html

    inputs = [os.path.join(folder, n) for n in _names(folder) if n.endswith(".json")]
    check_output(output, "-o", inputs=inputs, force=force)
    other = _other_game(folder)
    if other is not None:
        given = click.get_current_context().get_parameter_source("title") != click.core.ParameterSource.DEFAULT
        count_made = _sheet_other(other, folder, output, title if given else None)
    else:
        puzzles = read_puzzles(folder)
        write_text(output, sheet_html(puzzles, title=title, max_seconds=max_seconds))
        count_made = len(puzzles)
    count = f"{count_made} puzzle" + ("" if count_made == 1 else "s")
    click.echo(f"Wrote {output}: {count}, the answers after them. Open it in a web browser to read it; print it "
               "from there (A4, Ctrl+P or Cmd+P) or save it as a PDF.")


def _puzzle_files(folder: str) -> list[str]:
    """The folder's puzzle files (``NAME.json``, not the answers), in the order of their names."""
    return [os.path.join(folder, n) for n in sorted(_names(folder))
            if n.endswith(".json") and not n.endswith(".answer.json")]


def _other_game(folder: str) -> str | None:
    """The game of the folder's puzzles when it is not the default game (each record names it), else None;
    a folder with puzzles of several games is refused (one game per sheet)."""
    from quaternity_cp.registry import DEFAULT_GAME, record_game

    games: dict[str, str] = {}
    for path in _puzzle_files(folder):
        games.setdefault(record_game(read_text(path)), path)
    if len(games) > 1:
        named = ", ".join(f"{game} ({os.path.basename(path)})" for game, path in sorted(games.items()))
        raise InputError(f"{folder}: puzzles of several games ({named}): one game per sheet")
    game = next(iter(games), DEFAULT_GAME)
    return None if game == DEFAULT_GAME else game


def _sheet_other(game: str, folder: str, output: str, title: str | None) -> int:
    """The sheet of a folder of another game's puzzles, written by its ``puzzles`` part; their number."""
    from quaternity_cp.jsonio import InputRefused, load_json

    from .cmd_puzzle import puzzles_part

    part = puzzles_part(game, folder)
    items = []
    for path in _puzzle_files(folder):
        answer = path[: -len(".json")] + ".answer.json"
        if not os.path.exists(answer):
            raise InputError(f"{path}: no answer file {os.path.basename(answer)} beside it")
        data = []
        for where in (path, answer):
            try:
                data.append(load_json(read_text(where)))
            except InputRefused as err:
                raise InputError(f"{where}: {err}") from None
        items.append((os.path.basename(path)[: -len(".json")], data[0], data[1]))
    write_text(output, part.sheet_html(items, title=title))
    return len(items)


def _names(folder: str) -> list[str]:
    """The folder's file names, or none when it cannot be listed (reading it then says why)."""
    try:
        return os.listdir(folder)
    except (OSError, ValueError):
        return []


__all__ = ["sheet", "SHEET_SECONDS"]
