"""``quaternity report``: one self-contained HTML page stepping through a record, of any registered game.

The record's game is found through the registry (:func:`quaternity_cp.registry.record_game`:
its JSON ``"game"`` field, else the default game); the page is that game's report part.
"""

from __future__ import annotations

import sys

import click

from quaternity_cp.command import (EXIT_ILLEGAL, EXIT_OK, InputError, Whole, check_output, file_name, force_option,
                                   guarded, read_text, write_text)
from quaternity_cp.command.limits import seconds_option, states_option

#: The default of --max-states: the counting limit of each step (quaternity_cp.quartets.report.MAX_COUNT_STATES).
STEP_STATES = 200_000
#: The default of --max-moves (quaternity_cp.report.MAX_REPORT_MOVES): a longer record is refused (exit 2).
REPORT_MOVES = 2_000
#: The largest --max-moves (quaternity_cp.report.REPORT_MOVES_LIMIT), and why.
MOVES_LIMIT = 20_000
MOVES_LIMIT_REASON = ("each move is a step of the page: about 8 KB of page and 20 KB of memory to make it on the "
                      "smallest tables, more on larger ones, so 20,000 moves make a page of about 160 MB, more than "
                      "a browser opens comfortably")


@click.command()
@click.argument("file")
@click.option("-o", "--output", "output", metavar="OUT.html", required=True, help="The HTML file to write.")
@click.option("--rules", "rules", metavar="PRESET", default=None,
              help="Rules to use instead of the file's (Quaternity records).")
@click.option("--title", default=None, help="The page's title (default: the file name).")
@click.option("--no-explain", "no_explain", is_flag=True,
              help="Leave out the explanations of forced cards (faster on big tables).")
@click.option("--engine", default=None, metavar="NAME",
              help="The exact engine, for a game with engines (default: the game's fastest; the game checks the "
                   "name).")
@force_option
@seconds_option("the counts and explanations of the whole page", past="are shown as not computed")
@states_option("Show as not counted a step's count", STEP_STATES)
@click.option("--max-moves", "max_moves", type=Whole(min=0), default=REPORT_MOVES, show_default=True, metavar="N",
              help="Refuse (exit 2) a record of more moves than this: every move is a step of the page, and the "
                   "page and the memory to make it grow with them (about 8 KB and 20 KB a move on the smallest "
                   f"tables). At most {MOVES_LIMIT:,}.")
@guarded
def report(file: str, output: str, rules: str | None, title: str | None, no_explain: bool,
           engine: str | None, force: bool = False, max_seconds: float | None = None,
           max_states: int = STEP_STATES, max_moves: int = REPORT_MOVES) -> None:
    """Write a self-contained HTML page that steps through the record FILE move by move.

    Each step shows the grid of who may hold each card, the number of consistent
    deals, the claims and why every forced card is forced; the illegal move, if
    any, with its reason. Buttons and the arrow keys step through it; the page
    needs no network. Quarto records show the board after each move. Prints
    the file written and how to open it. Exit code 1 when the record has an
    illegal move (the page is written all the same).
    The page is always written: a step whose count or explanations would pass
    the limits (--max-states, two seconds a step, --max-seconds for the whole
    page) shows them as not computed. A record of more than --max-moves moves
    is refused (exit code 2) before anything is computed.
    """
    from quaternity_cp.registry import OptionError, find_game, record_game

    name = file_name(file)
    if max_moves > MOVES_LIMIT:
        raise InputError(f"--max-moves: at most {MOVES_LIMIT:,}, not {max_moves:,}: {MOVES_LIMIT_REASON}; report a "
                         "part of the record")
    check_output(output, "-o", inputs=(file,), force=force)
    text = read_text(file)
    spec = find_game(record_game(text))  # the record's game only
    if spec is None:  # pragma: no cover  (record_game names a registered game)
        raise InputError(f"{name}: no registered game reads it")
    options: dict[str, object] = {"explain": not no_explain, "max_seconds": max_seconds, "max_states": max_states,
                                  "max_moves": max_moves}
    for option, value in (("rules", rules), ("engine", engine)):
        if value is not None:
            options[option] = value
    try:
        html, valid = spec.report(text, name=name, title=title, **options)
    except OptionError as err:
        raise InputError(f"--{err.option.replace('_', '-')}: {err}") from None
    write_text(output, html)
    click.echo(wrote(output, len(html) if html.isascii() else len(html.encode("utf-8"))))
    if not valid:
        click.echo("The record is not legal (an illegal move, or an invalid position): the page shows where.")
    sys.exit(EXIT_OK if valid else EXIT_ILLEGAL)


def wrote(path: str, size: int) -> str:
    """What ``report`` says it wrote, and how to open it with the system's opener: "wrote game.html
    (13 KB): open it in a browser, e.g. xdg-open game.html" (macOS: open, Windows: start)."""
    import shlex

    opener = {"darwin": "open", "win32": "start"}.get(sys.platform, "xdg-open")
    shown = f"{size:,} bytes" if size < 1024 else f"{(size + 1023) // 1024:,} KB"
    quoted = path if sys.platform == "win32" else shlex.quote(path)
    return f"wrote {path} ({shown}): open it in a browser, e.g. {opener} {quoted}"


__all__ = ["report", "wrote"]
