"""``quaternity quarto``: the Quarto commands (``check``; ``solve``).

The library (quaternity_cp.quarto) is imported inside each command, so that
other commands do not pay for it.
"""

from __future__ import annotations

import sys

import click

from .main import EXIT_ILLEGAL, EXIT_OK, InputError, emit_json, guarded, read_text


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def quarto() -> None:
    """Quarto: check records and positions, solve positions.

    FILE is a Quarto record or position (JSON); '-' reads standard input.
    Exit codes: 0 valid, 1 illegal move or unreachable position, 2 bad input,
    3 internal error.
    """


# -- helpers (also for `quarto solve`) ------------------------------------------------
def load_quarto(path: str):
    """The record or position in ``path`` ('-': standard input); bad input raises InputError (exit 2)."""
    from quaternity_cp.quarto.formats import FormatError, parse

    text = read_text(path)
    name = "<stdin>" if path == "-" else path
    try:
        return parse(text)
    except FormatError as err:
        raise InputError(f"{name}: {err}") from None


def board_lines(board, indent: str = "  ") -> list[str]:
    """The board as text: rows from the top, labelled as in the notation."""
    out = [indent + "     A    B    C    D"]
    for r in range(4):
        cells = [str(p) if p is not None else "...." for p in board.rows()[r]]
        out.append(f"{indent}{4 - r}  " + " ".join(cells))
    return out


def status_line(pos) -> str:
    """Who won, or whose decision it is now."""
    if pos.over:
        if pos.winner is None:
            return "Draw: the board is full and no line shares a trait."
        lines = "; ".join(" ".join(str(c) for c in line) for line in pos.winning_lines)
        return f"Player {pos.winner} won (line {lines})."
    if pos.piece is None:
        return f"Player {pos.to_move} to choose the first piece."
    left = len(pos.available_pieces())
    return f"Player {pos.to_move} to move, holding {pos.piece}; {left} piece{'s' if left != 1 else ''} left to give."


# -- check --------------------------------------------------------------------------------
@quarto.command()
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@guarded
def check(file: str, as_json: bool) -> None:
    """Replay a Quarto record, or check that a position is reachable.

    Exit 0: every move legal (the position reachable); 1: an illegal move or an
    unreachable position, with the reason; 2: bad input.
    """
    from quaternity_cp.quarto.formats import QuartoRecord, check as check_item

    item = load_quarto(file)
    result = check_item(item)
    if as_json:
        emit_json(result.to_json())
    else:
        _print_check(item, result, isinstance(item, QuartoRecord))
    sys.exit(EXIT_OK if result.valid else EXIT_ILLEGAL)


def _print_check(item, result, is_record: bool) -> None:
    pos = result.position
    rules = "squares" if item.squares else "standard"
    echo = click.echo
    if is_record:
        n = len(item.moves)
        echo(f"Quarto record, {n} move{'s' if n != 1 else ''} (rules: {rules})")
        width = max([len(t) for t in item.texts] + [8]) + 2
        replayed = result.position.moves
        for i, move in enumerate(replayed, 1):
            echo(f"{i:>4}  {item.texts[i - 1]:<{width}}ok")
        if result.error is not None:
            i = result.moves_applied + 1
            echo(f"{i:>4}  {result.error_move:<{width}}ILLEGAL: {result.error}")
            echo(f"The record stops there; {result.moves_applied} move{'s were' if result.moves_applied != 1 else ' was'} applied.")
    else:
        placed = pos.board.count()
        echo(f"Quarto position, {placed} piece{'s' if placed != 1 else ''} placed (rules: {rules})")
    for line in board_lines(pos.board):
        echo(line)
    if result.unreachable is not None:
        echo(f"UNREACHABLE: {result.unreachable}")
        return
    echo(status_line(pos))
