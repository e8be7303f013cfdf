"""``quaternity quartets check`` and ``analyze`` (``quaternity check`` and ``analyze`` of the game's records): replay
a record, and who may hold each card."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, cast

import click

from ..formats import position_to_json
from ..replay import Replay, replay

from ...command import (EXIT_ILLEGAL, EXIT_OK, InputError, check_output, emit_json, file_name, force_option, guarded,
                        write_text)
from ...command.limits import seconds_option
from . import render
from .common import common_options, default_engine, explain_refused, load

if TYPE_CHECKING:
    from ..formats import Record


# -- check ----------------------------------------------------------------------------
@click.command()
@click.argument("file")
@common_options
@guarded
def check(file: str, as_json: bool, rules: str | None, engine: str | None) -> None:
    """Replay a record: is every move legal, whose turn is it, who has won."""
    record = load(file, rules)
    result = replay(record, engine=default_engine(engine), history=False)
    if record.tie_break is not None and result.valid:  # an illegal record is exit 1, tie-break or not
        from ..classic import tie_break_problem

        problem = tie_break_problem(result.position, record.tie_break)
        if problem:
            raise InputError(f"{file_name(file)}: {problem}")
    if as_json:
        emit_json(render.check_json(record, result))
    else:
        render.print_check(record, result)
    sys.exit(EXIT_OK if result.valid else EXIT_ILLEGAL)


# -- analyze --------------------------------------------------------------------------
@click.command()
@click.argument("file")
@common_options
@click.option("--position", "as_position", is_flag=True,
              help="Print the position after the record as a position file (a puzzle).")
@click.option("--explain", "explain", is_flag=True,
              help="Say why each forced card and forced quartet is forced: the moves responsible and a counting argument.")
@click.option("--svg", "svg_out", metavar="OUT.svg", default=None,
              help="Also draw the grid of who may hold each card as an SVG picture.")
@click.option("--as", "seat", metavar="SEAT", default=None,
              help="The position as this player knows it (its own hand fixed); needs a record with a deal.")
@click.option("--about", "about", metavar="SEAT", default=None,
              help="With --as: for every card, whether that player knows that this one knows who holds it "
                   "(surely, possibly, never).")
@force_option
@seconds_option("the explanations of --explain and the answers of --about")
@guarded
def analyze(file: str, as_json: bool, rules: str | None, engine: str | None, as_position: bool,
            explain: bool, svg_out: str | None = None, seat: str | None = None, about: str | None = None,
            force: bool = False, max_seconds: float | None = None) -> None:
    """Who may hold each card, forced cards, possible and forced quartets."""
    if about is not None and seat is None:
        raise InputError("--about needs --as SEAT: what that player knows of what the player of --about knows")
    if svg_out is not None:
        check_output(svg_out, "--svg", inputs=(file,), force=force)
    record = load(file, rules)
    result = replay(record, engine=default_engine(engine), mark_forced=not as_position, history=False)
    if seat is not None:
        from .view import analyze_as

        for flag, given in (("--position", as_position), ("--explain", explain)):
            if given:
                raise InputError(f"--as and {flag} do not combine ({flag} shows the public view; drop --as)")
        answers = None
        if about is not None:  # first: a refusal writes nothing
            from .about import about_answers, print_about

            answers = about_answers(record, result, seat, about, file, default_engine(engine), max_seconds)
        if svg_out is not None:
            write_grid_svg_as(record, result, seat, file, default_engine(engine), svg_out)
        if answers is not None:
            valid = print_about(record, result, answers, as_json)
        else:
            valid = analyze_as(record, result, seat, file, default_engine(engine), as_json)
        sys.exit(EXIT_OK if valid else EXIT_ILLEGAL)
    why = None
    if explain and not as_position:  # every explanation first: a refusal prints nothing else
        from ..explain import Explainer, ExplanationLimitError

        try:
            why = Explainer(record, result, max_seconds=max_seconds).position()
        except ExplanationLimitError as err:
            raise explain_refused(file_name(file), err,
                                  "explain one card or set at a time (quaternity explain FILE CARD)") from None
    if svg_out is not None:
        write_grid_svg(record, result, svg_out)
    if as_position:
        position = result.position
        if position.loser is not None:
            # An illegal move ended the game (invalid = lose): a position file cannot say who lost, so it is the
            # position the move was made in, as under invalid = reject (exit code 1 either way).
            position.pop()
        emit_json(position_to_json(position))
        sys.exit(EXIT_OK if result.valid else EXIT_ILLEGAL)
    if as_json:
        emit_json(render.analyze_json(record, result, explain=explain, explanations=why))
    else:
        render.print_analyze(record, result, explain=explain, explanations=why)
    sys.exit(EXIT_OK if result.valid else EXIT_ILLEGAL)


# -- analyze --svg ----------------------------------------------------------------------
def write_grid_svg(record: Record, result: Replay, path: str) -> None:
    """``analyze --svg``: the grid after the record (before its illegal move, which the picture names)."""
    from ..svg import grid_svg

    note = None
    if result.error is not None:
        i = cast(int, result.error_index)  # set with the error
        note = f"Illegal move {i} ({record.texts[i - 1]}): {result.error}"
    write_text(path, grid_svg(result.position, note=note))


def write_grid_svg_as(record: Record, result: Replay, value: str, file: str, engine: str, path: str) -> None:
    """``analyze --as SEAT --svg``: the grid as that player knows it (its cards marked)."""
    from ..svg import grid_svg
    from .view import private_view

    seat, hand, knowledge = private_view(record, result, value, file, engine)
    note = None
    if result.error is not None:
        i = cast(int, result.error_index)  # set with the error
        note = f"Illegal move {i} ({record.texts[i - 1]}): {result.error}"
    write_text(path, grid_svg(result.position, constraints=knowledge.constraints, mine=hand, viewer=seat, note=note))


__all__ = ["check", "analyze", "write_grid_svg", "write_grid_svg_as"]
