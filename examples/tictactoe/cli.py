"""``quaternity tictactoe``: the game's own commands (its ``cli`` part), ``check`` and ``solve``.

``quaternity check FILE`` and ``quaternity solve FILE`` on a record with ``"game": "tictactoe"`` run the
command of the same name here. Exit codes, as every command's: 0 legal, 1 an illegal move (the output
describes the game before it), 2 bad input (one line: the file and what is wrong), 3 an internal error.
"""

from __future__ import annotations

import sys
from typing import Any, NoReturn

import click

from quaternity_cp.command import (EXIT_ILLEGAL, EXIT_OK, InputError, Whole, emit_json, file_name, guarded,
                                   json_option, read_text)

from . import MARKS, TicTacToeError, cell_name
from .parts import Replay, grid_lines, read, replay, status_line, winning_line
from .solver import MAX_POSITIONS


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def tictactoe() -> None:
    """Tic-tac-toe (the docs' example game): check and solve records.

    FILE is a record, {"game": "tictactoe", "moves": ["b2", "a1", ...]}; '-' reads standard input.
    Exit codes: 0 legal, 1 an illegal move, 2 bad input, 3 internal error.
    """


def load(file: str) -> Replay:
    """The record in ``file`` replayed; a file that is not a tic-tac-toe record raises InputError (exit 2)."""
    try:
        return replay(read(read_text(file)))
    except TicTacToeError as err:
        raise InputError(f"{file_name(file)}: {err}") from None


@tictactoe.command()
@click.argument("file")
@json_option
@guarded
def check(file: str, as_json: bool) -> None:
    """Replay a record: is every move legal, whose turn it is, who has won."""
    result = load(file)
    state = result.state
    winner = state.winner()
    if as_json:
        emit_json({"valid": result.valid, "moves_applied": len(state.moves),
                   "error": None if result.error is None else {"move": result.error[0], "reason": result.error[1]},
                   "turn": None if state.is_terminal() else state.current_player(), "over": state.is_terminal(),
                   "winners": [] if winner is None else [winner],
                   "line": [cell_name(c) for c in winning_line(state)], "status": status_line(state)})
    else:
        click.echo(f"Tic-tac-toe record: {len(result.moves)} move{'' if len(result.moves) == 1 else 's'}")
        for i, cell in enumerate(state.moves):
            click.echo(f"{i + 1:>4}  {MARKS[i % 2]} {cell_name(cell)}  ok")
        if not result.valid:
            click.echo(f"ILLEGAL {result.message}; the game before it:")
        click.echo("\n".join(grid_lines(state)))
        click.echo(status_line(state) + ".")
    sys.exit(EXIT_OK if result.valid else EXIT_ILLEGAL)


@tictactoe.command()
@click.argument("file")
@click.option("--max-positions", "max_positions", type=Whole(min=1), default=MAX_POSITIONS, show_default=True,
              metavar="N", help="Stop once N positions are stored (then unproven; the whole game has 5,478).")
@json_option
@guarded
def solve(file: str, max_positions: int, as_json: bool) -> None:
    """Who wins from the record's end with best play, in how many moves, and with which moves.

    Exit 0 solved (or unproven within --max-positions), 1 an illegal record, 2 bad input.
    """
    from quaternity_cp.budget import Limits, Stopped

    from .solver import solve as run
    from .solver import verdict_text

    result = load(file)
    if not result.valid:
        exit_illegal(file, result, as_json)
    state = result.state
    data: dict[str, Any] = {"valid": True, "turn": None if state.is_terminal() else state.current_player()}
    try:
        solution = run(state, Limits(max_positions))
    except Stopped:  # (never on a whole game at the default limit)
        data |= {"verdict": "unproven", "proven": False, "plies": None, "best_moves": []}
        words = f"unproven: more than {max_positions:,} positions (--max-positions)"
    else:
        data |= {"verdict": "over" if state.is_terminal() else {1: "win", 0: "draw", -1: "loss"}[solution.value],
                 "proven": True, "plies": solution.plies, "best_moves": [cell_name(c) for c in solution.best],
                 "positions": solution.positions}
        words = verdict_text(state, solution)
    if as_json:
        emit_json(data)
    else:
        click.echo(f"{status_line(state)}: {words}." if words else f"{status_line(state)}.")


def exit_illegal(file: str, result: Replay, as_json: bool) -> NoReturn:
    """Say that the record has an illegal move (there is no position to solve) and exit 1."""
    if as_json:
        emit_json({"valid": False, "error": result.message})
    else:
        click.echo(f"quaternity: {file_name(file)}: {result.message}", err=True)
    sys.exit(EXIT_ILLEGAL)
