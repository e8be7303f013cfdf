"""``quaternity report``: one self-contained HTML page stepping through a record; SVG pictures of a grid."""

from __future__ import annotations

import sys

import click

from .main import EXIT_ILLEGAL, EXIT_OK, InputError, default_engine, engine_option, guarded, parse_text, read_text


def write_text(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as err:
        raise InputError(f"{path}: cannot write ({err.strerror})") from None


def write_grid_svg(record, result, path: str) -> None:
    """``analyze --svg``: the grid after the record (before its illegal move, which the picture names)."""
    from quaternity_cp.svg import grid_svg

    note = None
    if result.error is not None:
        i = result.error_index
        note = f"Illegal move {i} ({record.texts[i - 1]}): {result.error}"
    write_text(path, grid_svg(result.position, note=note))


def write_grid_svg_as(record, result, value: str, file: str, engine: str, path: str) -> None:
    """``analyze --as SEAT --svg``: the grid as that player knows it (its cards marked)."""
    from quaternity_cp.svg import grid_svg

    from .view import private_view

    seat, hand, knowledge = private_view(record, result, value, file, engine)
    note = None
    if result.error is not None:
        i = result.error_index
        note = f"Illegal move {i} ({record.texts[i - 1]}): {result.error}"
    write_text(path, grid_svg(result.position, constraints=knowledge.constraints, mine=hand, viewer=seat, note=note))


def _is_quarto(text: str) -> bool:
    """Whether a file is a Quarto record or position (``quaternity quarto check`` reads those)."""
    from quaternity_cp.report import is_quarto_text

    return is_quarto_text(text)


@click.command()
@click.argument("file")
@click.option("-o", "--output", "output", metavar="OUT.html", required=True, help="The HTML file to write.")
@click.option("--rules", "rules", metavar="PRESET", default=None,
              help="Rules to use instead of the file's (Quaternity records).")
@click.option("--title", default=None, help="The page's title (default: the file name).")
@click.option("--no-explain", "no_explain", is_flag=True,
              help="Leave out the explanations of forced cards (faster on big tables).")
@engine_option
@guarded
def report(file: str, output: str, rules: str | None, title: str | None, no_explain: bool,
           engine: str | None) -> None:
    """Write a self-contained HTML page that steps through the record FILE move by move.

    Each step shows the grid of who may hold each card, the number of consistent
    deals, the claims and why every forced card is forced; the illegal move, if
    any, with its reason. Buttons and the arrow keys step through it; the page
    needs no network. Quarto records show the board after each move. Exit code 1
    when the record has an illegal move (the page is written all the same).
    """
    name = "<stdin>" if file == "-" else file
    text = read_text(file)
    if _is_quarto(text):
        from quaternity_cp.report import quarto_report

        html, valid = quarto_report(text, title=title or name)
        write_text(output, html)
        sys.exit(EXIT_OK if valid else EXIT_ILLEGAL)
    from quaternity_cp.replay import replay
    from quaternity_cp.report import record_report

    record = parse_text(text, rules, name)
    html = record_report(record, engine=default_engine(engine), title=title or name, explain=not no_explain)
    write_text(output, html)
    valid = replay(record, engine=default_engine(engine), mark_forced=False).valid
    sys.exit(EXIT_OK if valid else EXIT_ILLEGAL)
