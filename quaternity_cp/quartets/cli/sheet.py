"""``quaternity quartets puzzle sheet`` (``quaternity puzzle sheet`` of a folder of the game's puzzles): one
printable HTML page of a folder of puzzles, the answers after them.

The page is :func:`quaternity_cp.quartets.puzzles.sheet.sheet_html` of the folder's puzzles (docs/puzzles.md, "The
puzzle sheet"); the command only checks the output first, reads the folder and writes the page atomically.
"""

from __future__ import annotations

import os

import click

from ...command import check_output, force_option, guarded, write_text
from ...command.limits import seconds_option

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
    from ..puzzles.sheet import read_puzzles, sheet_html

    inputs = [os.path.join(folder, n) for n in _names(folder) if n.endswith(".json")]
    check_output(output, "-o", inputs=inputs, force=force)
    puzzles = read_puzzles(folder)
    write_text(output, sheet_html(puzzles, title=title, max_seconds=max_seconds))
    count_made = len(puzzles)
    count = f"{count_made} puzzle" + ("" if count_made == 1 else "s")
    click.echo(f"Wrote {output}: {count}, the answers after them. Open it in a web browser to read it; print it "
               "from there (A4, Ctrl+P or Cmd+P) or save it as a PDF.")


def _names(folder: str) -> list[str]:
    """The folder's file names, or none when it cannot be listed (reading it then says why)."""
    try:
        return os.listdir(folder)
    except (OSError, ValueError):
        return []


__all__ = ["sheet", "SHEET_SECONDS"]
