"""One ``check`` for every game: the commands that read a record find its game through the registry.

``check``, ``analyze``, ``explain``, ``count`` and ``solve`` read the records of
the default game (:data:`~quaternity_cp.registry.DEFAULT_GAME`: Quaternity and
classic Quartets). A record of another registered game names its game (``"game":
"quarto"``, read by :func:`~quaternity_cp.registry.record_game`) and goes to that
game's own command of the same name (``quaternity check`` of a Quarto record is
``quaternity quarto check``: the same output and exit codes), given the same
arguments; when the game has no such command, or an option given has no meaning
there, the command says in one line what to use instead (exit 2). ``report``
asks the registry for the game's report part itself.
"""

from __future__ import annotations

import sys

import click

from quaternity_cp.quartets.formats import Record

from .common import EXIT_OK, InputError, parse_text, read_text

#: Where a value given by the person comes from (anything else is a default).
GIVEN = (click.core.ParameterSource.COMMANDLINE, click.core.ParameterSource.ENVIRONMENT,
         click.core.ParameterSource.PROMPT)


def load_record(file: str, rules: str | None) -> Record:
    """The record or position in ``file`` ('-': standard input), ``--rules`` applied, when it is one of
    the default game; a record of another game is handed to that game's own command (:func:`hand_over`)."""
    text = read_text(file)
    hand_over(text, file)
    return parse_text(text, rules, "<stdin>" if file == "-" else file)


def hand_over(text: str, file: str) -> None:
    """Return at once when ``text`` (the file ``file``) is a record of the default game. Else run the
    record's game's own command named as the running one (``quaternity <game> <command>``) with the
    same arguments, and exit with its exit code; or refuse (InputError, exit 2), saying which of the
    game's commands that read a file to use, when it has none of that name or does not take an option
    given."""
    from quaternity_cp.registry import DEFAULT_GAME, record_game

    game = record_game(text)
    if game == DEFAULT_GAME:
        return
    ctx = click.get_current_context()
    command = ctx.command.name or ""
    root = ctx.find_root().command
    group = root.get_command(ctx, game) if isinstance(root, click.Group) else None
    own = group.get_command(ctx, command) if isinstance(group, click.Group) else None
    name = "<stdin>" if file == "-" else file
    kind = f"{name}: a {game.capitalize()} record"
    if own is None:
        others: list[str] = []
        if isinstance(group, click.Group):
            others = [other for other in group.list_commands(ctx) if reads_a_file(group.get_command(ctx, other))]
        instead = " or ".join(f"'quaternity {game} {other}'" for other in others)
        raise InputError(f"{kind}; 'quaternity {command}' reads {DEFAULT_GAME.capitalize()} records only"
                         + (f": use {instead}" if instead else ""))
    takes = {param.name for param in own.params}
    for param in ctx.command.params:
        if param.name not in takes and param.name is not None and ctx.get_parameter_source(param.name) in GIVEN:
            flag = param.opts[0] if isinstance(param, click.Option) else param.human_readable_name
            raise InputError(f"{kind}: {flag} does not apply to it (see 'quaternity {game} {command} --help')")
    ctx.invoke(own, **{key: value for key, value in ctx.params.items() if key in takes})
    sys.exit(EXIT_OK)  # the game's command exits itself; this is only a guard


def reads_a_file(command: click.Command | None) -> bool:
    """Whether ``command`` reads a record or position: it takes the argument FILE."""
    return command is not None and any(isinstance(p, click.Argument) and p.name == "file" for p in command.params)


__all__ = ["load_record", "hand_over", "reads_a_file"]
