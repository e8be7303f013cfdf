"""One door for every game: the shared commands find the game of what they are given and run its own command.

``quaternity check FILE`` (and ``analyze``, ``explain``, ``count``, ``solve``) reads FILE once, strictly
(:func:`quaternity_cp.command.read_text`), learns its game from the registry
(:func:`~quaternity_cp.registry.record_game`: the JSON ``"game"`` field, else the default game), imports
that game's parts only, and runs the game's own command of the same name (``quaternity <game> check``: the
same code, so the same output and exit codes), with the same arguments. The text read is handed over: the
run's click context keeps it, and the game's command reading FILE gets it again without reading the file.

- A game without a command of that name but with a record checker (its part ``check``) is checked by
  it (``check`` only: one line, exit code 0 legal, 1 not legal, 2 unreadable).
- Otherwise the door says in one line which of the game's commands read a file (exit 2).
- An option the game's command does not take is refused in one line naming the game's help (exit 2).

``quaternity puzzle generate|verify|sheet`` are doors too (:mod:`.cmd_puzzle`): the game of ``--game``, of the
puzzle file or of the folder's puzzles, and its own group ``puzzle`` when it has one, else its part
``puzzles``. Nothing here names a game: the default game is the registry's
(:data:`~quaternity_cp.registry.DEFAULT_GAME`), and everything else comes from each game's parts.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from quaternity_cp.command import (EXIT_ILLEGAL, EXIT_OK, InputError, emit_json, file_name, guarded, json_option,
                                   one_line, read_text)

if TYPE_CHECKING:
    from quaternity_cp.registry import GameSpec

#: The help options (a door shows the default game's help with a note on the other games').
HELP_OPTIONS = ("-h", "--help")


def title(spec: GameSpec) -> str:
    """How messages name a game: its description up to the colon ("Quarto", "Quantum Go Fish")."""
    return spec.description.split(":")[0].strip() or spec.name


def game_spec(name: str) -> GameSpec:
    """The registered game ``name`` (its package only imported, :func:`~quaternity_cp.registry.find_game`)."""
    from quaternity_cp.registry import find_game

    spec = find_game(name)
    if spec is None:
        raise InputError(f"unknown game {name!r}")
    return spec


def default_spec() -> GameSpec:
    from quaternity_cp.registry import DEFAULT_GAME

    return game_spec(DEFAULT_GAME)


def own_command(ctx: click.Context, spec: GameSpec, path: tuple[str, ...]) -> click.Command | None:
    """The game's own command at ``path`` in its command group (its part ``cli``), or None."""
    if "cli" not in spec.parts:
        return None
    command: click.Command | None = spec.part("cli")
    for name in path:
        if not isinstance(command, click.Group):
            return None
        command = command.get_command(ctx, name)
    return command


def reads_a_file(command: click.Command | None) -> bool:
    """Whether ``command`` reads a record or position: it takes the argument FILE."""
    return command is not None and any(isinstance(p, click.Argument) and p.name == "file" for p in command.params)


def leading_argument(args: list[str]) -> str | None:
    """The first argument when the arguments start with it, as every sample writes them (``check FILE
    --json``): a first word that is not an option ('-', standard input, is one), or the word after '--'.
    None when an option comes first (the default game's command then reads the arguments)."""
    if not args:
        return None
    if args[0] == "--":
        return args[1] if len(args) > 1 else None
    return args[0] if args[0] == "-" or not args[0].startswith("-") else None


def wants_help(args: list[str]) -> bool:
    before = args[: args.index("--")] if "--" in args else args
    return any(a in HELP_OPTIONS for a in before)


@dataclass(frozen=True)
class Found:
    """What a door found: the game, the arguments for its command, and what messages call the input."""

    spec: GameSpec
    args: list[str]
    name: str = ""


class Door(click.Command):
    """A shared command that runs a game's own command (at ``path`` in the game's group) on the same arguments.

    Subclasses say how the game is found (:meth:`find`), what runs when the game has no such command
    (:meth:`fallback`), and the words of the refusals.
    """

    def __init__(self, name: str, path: tuple[str, ...], argument: str = "file") -> None:
        super().__init__(name, context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                                                 "help_option_names": []}, add_help_option=False)
        self.path = path
        self.argument = argument

    # -- what subclasses say ---------------------------------------------------------------------------------
    def find(self, ctx: click.Context, args: list[str]) -> Found:
        raise NotImplementedError

    def fallback(self, ctx: click.Context, found: Found) -> click.Command | None:
        """The command that serves a game without its own (None: the game has no way to do it)."""
        return None

    def missing(self, ctx: click.Context, found: Found) -> str:
        """Why the game cannot be served (it has neither its own command nor a fallback)."""
        return f"the game {found.spec.name} has no command '{' '.join(self.path)}'"

    def not_taken(self, found: Found, option: str, fallback: bool) -> str:
        """The refusal of an option that the game's command does not take."""
        return (f"{option} does not apply to the game {found.spec.name} "
                f"(see 'quaternity {found.spec.name} {' '.join(self.path)} --help')")

    # -- the door ------------------------------------------------------------------------------------------
    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.args = list(args)  # every argument is the game's command's
        return []

    def invoke(self, ctx: click.Context) -> Any:
        return guarded(self._enter)(ctx)

    def _enter(self, ctx: click.Context) -> Any:
        from quaternity_cp.registry import DEFAULT_GAME

        args = list(ctx.args)
        if wants_help(args):
            click.echo(self.get_help(ctx), color=ctx.color)
            ctx.exit(EXIT_OK)
        found = self.find(ctx, args)
        command = own_command(ctx, found.spec, self.path)
        fallback = command is None
        if command is None:
            command = self.fallback(ctx, found)
        if command is None:
            raise InputError(self.missing(ctx, found))
        try:
            # the game's command runs as this one (its name, under this one's parent: "quaternity check")
            sub = command.make_context(ctx.info_name, list(found.args), parent=ctx.parent)
        except click.NoSuchOption as err:
            if found.spec.name == DEFAULT_GAME and not fallback:
                raise
            raise InputError(self.not_taken(found, err.option_name, fallback)) from None
        with sub:
            return command.invoke(sub)

    def default_args(self, ctx: click.Context, args: list[str]) -> str | None:
        """The argument (FILE, DIR) as the default game's command reads ``args``, or None (none given, or
        arguments it refuses: it then says why itself)."""
        command = own_command(ctx, default_spec(), self.path)
        if command is None:
            return None
        try:
            sub = command.make_context(ctx.info_name, list(args), parent=ctx.parent, resilient_parsing=True)
        except click.ClickException:
            return None
        value = sub.params.get(self.argument)
        return value if isinstance(value, str) else None

    # -- help ----------------------------------------------------------------------------------------------
    def _default_command(self, ctx: click.Context) -> click.Command | None:
        try:
            return own_command(ctx, default_spec(), self.path)
        except InputError:
            return None

    def get_short_help_str(self, limit: int = 45) -> str:
        ctx = click.get_current_context(silent=True)
        command = self._default_command(ctx) if ctx is not None else None
        return command.get_short_help_str(limit) if command is not None else super().get_short_help_str(limit)

    def get_help(self, ctx: click.Context) -> str:
        """The default game's command's help (its options), then which command reads another game's."""
        from quaternity_cp.registry import DEFAULT_GAME, load_games

        command = self._default_command(ctx)
        if command is None:
            return super().get_help(ctx)
        sub = command.make_context(ctx.info_name, [], parent=ctx.parent, resilient_parsing=True)
        path = " ".join(self.path)
        own = [f"'quaternity {name} {path} --help'" for name, spec in sorted(load_games().items())
               if name != DEFAULT_GAME and own_command(ctx, spec, self.path) is not None]
        note = self.help_note(own)
        formatter = sub.make_formatter()
        with formatter.indentation():
            formatter.write_text(note)
        return command.get_help(sub) + "\n\n" + formatter.getvalue().rstrip("\n")

    def help_note(self, own: list[str]) -> str:
        where = f" ({', '.join(own)})" if own else ""
        return (f"The options above are those of the default game's records. A record of another game (its "
                f"\"game\" field) goes to that game's own command, which takes its own options{where}.")


class FileDoor(Door):
    """``quaternity check|analyze|explain|count|solve FILE``: the game of the record or position in FILE."""

    def find(self, ctx: click.Context, args: list[str]) -> Found:
        from quaternity_cp.registry import record_game

        path = leading_argument(args)
        if path is None:
            path = self.default_args(ctx, args)
        if path is None:  # no FILE (or arguments the default game's command refuses): it says so itself
            return Found(default_spec(), args)
        try:
            text = read_text(path, keep=True)  # once: the game's command gets the same text
        except InputError:  # the default game's command says why, after refusing a bad output name first
            if path == "-":  # (standard input cannot be read again)
                raise
            return Found(default_spec(), args)
        return Found(game_spec(record_game(text)), args, file_name(path))

    def kind(self, found: Found) -> str:
        return f"{found.name}: a {title(found.spec)} file"

    def fallback(self, ctx: click.Context, found: Found) -> click.Command | None:
        if self.path == ("check",) and "check" in found.spec.parts:
            return part_check(found.spec)
        return None

    def missing(self, ctx: click.Context, found: Found) -> str:
        spec = found.spec
        group = spec.part("cli") if "cli" in spec.parts else None
        if isinstance(group, click.Group):
            others = [f"'quaternity {spec.name} {name}'" for name in group.list_commands(ctx)
                      if reads_a_file(group.get_command(ctx, name))]
        else:
            others = [f"'quaternity {name}'" for name, part in (("check", "check"), ("report", "report"))
                      if part in spec.parts]
        instead = " or ".join(others) if len(others) < 3 else f"{', '.join(others[:-1])} or {others[-1]}"
        return f"{self.kind(found)}; 'quaternity {self.name}' does not apply to it" + (
            f": use {instead}" if instead else "")

    def not_taken(self, found: Found, option: str, fallback: bool) -> str:
        if fallback:
            return f"{self.kind(found)}: {option} does not apply to it (its options: --json)"
        return (f"{self.kind(found)}: {option} does not apply to it "
                f"(see 'quaternity {found.spec.name} {' '.join(self.path)} --help')")


def part_check(spec: GameSpec) -> click.Command:
    """``check`` of a record of a game that has no command of its own: its record checker (part ``check``)
    says whether the record is legal. One line (or ``--json``: ``game``, ``valid``, ``error``); exit code 0
    legal, 1 not legal, 2 unreadable (not a JSON object)."""
    name_of_game = title(spec)

    @click.command(help=f"Check a {name_of_game} record with the game's record checker.")
    @click.argument("file")
    @json_option
    @guarded
    def check(file: str, as_json: bool) -> None:
        from quaternity_cp.errors import QuaternityError
        from quaternity_cp.jsonio import InputRefused, load_json, show

        name = file_name(file)
        try:
            data = load_json(read_text(file).lstrip("\ufeff"))
        except InputRefused as err:
            raise InputError(f"{name}: not a {name_of_game} record: {err}") from None
        if not isinstance(data, dict):
            raise InputError(f"{name}: a {name_of_game} record is a JSON object, not {show(data)}")
        error = None
        try:
            spec.check_record(data)
        except (QuaternityError, ValueError) as err:  # the game's error: the record is not legal
            error = one_line(str(err))
        if as_json:
            emit_json({"game": spec.name, "valid": error is None, "error": error})
        elif error is None:
            click.echo(f"{name}: a legal {name_of_game} record")
        else:
            click.echo(f"{name}: not a legal {name_of_game} record: {error}")
        sys.exit(EXIT_OK if error is None else EXIT_ILLEGAL)

    return check


check = FileDoor("check", ("check",))
analyze = FileDoor("analyze", ("analyze",))
explain = FileDoor("explain", ("explain",))
count = FileDoor("count", ("count",))
solve = FileDoor("solve", ("solve",))

__all__ = ["Door", "FileDoor", "Found", "check", "analyze", "explain", "count", "solve", "own_command",
           "reads_a_file", "part_check", "title", "game_spec", "leading_argument"]
