"""``quaternity quartets``: the commands of Quaternity and classic Quartets, the game's part ``cli``.

``check``, ``analyze``, ``explain``, ``count`` and ``solve`` read a record or a position of the game (JSON or
plain text); ``quaternity check FILE`` (and the others) of a record of this game runs the command of the same
name here, the same code with the same output and exit codes. ``puzzle`` makes, verifies and prints the game's
puzzles (``quaternity puzzle ...`` of the game's puzzles runs it). Each command is in its own module, imported
when it is run; what they print is :mod:`.render`, what they share :mod:`.common`, and the command's shared
layer (exit codes, one-line errors, reading input) is :mod:`quaternity_cp.command`.
"""

from __future__ import annotations

import click

from ...command.lazy import LazyGroup

#: name -> "module:attribute" of each command of the group, imported when it is first run.
COMMANDS = {
    "check": f"{__name__}.check:check",
    "analyze": f"{__name__}.check:analyze",
    "explain": f"{__name__}.explain:explain",
    "count": f"{__name__}.count:count",
    "solve": f"{__name__}.solve:solve",
    "puzzle": f"{__name__}.puzzle:puzzle",
    "experiment": f"{__name__}.experiment:experiment",
}


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
def quartets() -> None:
    """Quaternity and classic Quartets: check, analyse, explain, count and solve records; puzzles; experiments.

    FILE is a record (JSON or plain text) or a position (JSON); '-' reads
    standard input. 'quaternity check FILE' (and analyze, explain, count,
    solve) of a record of this game runs the command of the same name here.
    Exit codes: 0 valid, 1 illegal move or invalid position, 2 bad input,
    3 internal error, 130 interrupted.
    """


__all__ = ["quartets", "COMMANDS"]
