"""The ``quaternity`` command: check, analyse, explain, count and solve games; play, report, serve, tournaments.

Exit codes: 0 valid; 1 an illegal move or an invalid position; 2 bad input
(unreadable file, malformed record, unknown names, absurd sizes); 3 an internal
error (a bug: please report it; set QUATERNITY_DEBUG=1 for the traceback).
This module only makes the command group and registers each command, imported
when it runs. The commands that read a file are doors (:mod:`.dispatch`): each finds
the file's game and runs that game's own command (``quaternity <game> ...``, the
game's part ``cli``); what every command shares is :mod:`quaternity_cp.command`.
"""

from __future__ import annotations

import sys

import click

from quaternity_cp.command import EXIT_INPUT, EXIT_OK, one_line, output_guard, say
from quaternity_cp.errors import QuaternityError


class LazyGroup(click.Group):
    """A command group whose commands may be registered by "module:attribute" and imported on first use.

    ``quaternity check`` then loads neither the solver nor the explainer nor any
    other command's module (start-up is a checker's latency): register a command
    with ``main.add_lazy_command("name", f"{__package__}.cmd_x:attribute")``. ``--help``
    imports them all, to show their one-line help.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, str] = {}
        self.sections: list[tuple[str, list[str]]] = []  # the headings of --help, in the order a newcomer needs

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """As click's, but a usage error (unknown option, missing argument, bad value) is one line, exit 2."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, False, **extra)
        except click.ClickException as err:
            where = err.ctx.command_path if getattr(err, "ctx", None) is not None else "quaternity"
            message = " ".join(err.format_message().split()).rstrip(".")
            hint = f" (see '{where} --help')" if isinstance(err, click.UsageError) else ""
            say(f"{where}: {message}{hint}")
            sys.exit(err.exit_code)
        except click.exceptions.Abort:
            say("quaternity: interrupted")
            sys.exit(130)
        except QuaternityError as err:  # while the commands are made (a game of QUATERNITY_GAME_MODULES not found)
            say(f"quaternity: {one_line(str(err))}")
            sys.exit(EXIT_INPUT)
        sys.exit(rv if isinstance(rv, int) else EXIT_OK)

    def make_context(self, *args, **kwargs):
        """As click's; its help that cannot be written (``quaternity --help | true``) is one line, exit code 2
        (click would exit 1, an illegal move's code)."""
        with output_guard():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context):
        """As click's; a command's or a game group's help that cannot be written: as :meth:`make_context`."""
        with output_guard():
            return super().invoke(ctx)

    def add_lazy_command(self, name: str, target: str, section: str = "Commands") -> None:
        self.lazy[name] = target
        for heading, names in self.sections:
            if heading == section:
                names.append(name)
                break
        else:
            self.sections.append((section, [name]))

    def list_commands(self, ctx: click.Context) -> list[str]:
        ordered = [name for _, names in self.sections for name in names] + sorted(game_groups())
        return ordered + sorted(set(super().list_commands(ctx)) - set(ordered))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands under their section headings, in registration order."""
        width = formatter.width - 6 - max(len(name) for name in self.list_commands(ctx))
        for heading, names in self.sections:
            rows = []
            for name in names:
                command = self.get_command(ctx, name)
                if command is not None and not command.hidden:
                    rows.append((name, command.get_short_help_str(limit=width)))
            if rows:
                with formatter.section(heading):
                    formatter.write_dl(rows)
        games = game_groups()
        if games:
            with formatter.section("Each game's own commands"):
                formatter.write_dl([(name, spec.description.split(":")[0] + f": 'quaternity {name} --help'")
                                    for name, spec in sorted(games.items())])

    def get_command(self, ctx: click.Context, name: str):
        command = super().get_command(ctx, name)
        if command is None and name in self.lazy:
            import importlib

            module, attribute = self.lazy[name].split(":")
            command = getattr(importlib.import_module(module), attribute)
            self.add_command(command, name)
        if command is None:
            from quaternity_cp.registry import find_game

            spec = find_game(name)  # a game's own commands, `quaternity <game> ...`: that game's package only
            if spec is not None and "cli" in spec.parts:
                command = spec.part("cli")
                self.add_command(command, name)
        return command


def game_groups() -> dict:
    """The registered games that contribute a command group (their part ``cli``): name -> GameSpec.

    Asked for ``--help`` only: ``quaternity check`` imports no game it does not read."""
    from quaternity_cp.registry import load_games

    return {name: spec for name, spec in load_games().items() if "cli" in spec.parts}


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="quaternity-cp")
def main() -> None:
    """Check, analyse, explain, count and solve games of Quaternity (blind Quartets), classic Quartets,
    Quantum Go Fish and Quarto; play them in the terminal or a browser; run tournaments between agents.

    FILE is a game record (JSON or plain text) or a position (JSON); '-' reads
    standard input. Exit codes: 0 valid, 1 illegal move or invalid position,
    2 bad input, 3 internal error, 130 interrupted. Start with
    'quaternity check examples/quaternity.json' or 'quaternity play'.
    """


# -- every command, each in its own module, imported when the command is run ----------------
# (`quaternity check` then loads no other command's module: start-up is a checker's latency; the doors of
# dispatch.py load the game of the file they read, and its own command)
for _section, _name, _target in (
    ("Check and understand a game", "check", "dispatch:check"),
    ("Check and understand a game", "analyze", "dispatch:analyze"),
    ("Check and understand a game", "explain", "dispatch:explain"),
    ("Check and understand a game", "count", "dispatch:count"),
    ("Check and understand a game", "solve", "dispatch:solve"),
    ("Check and understand a game", "report", "cmd_report:report"),
    ("Play", "play", "cmd_play:play"),
    ("Play", "serve", "cmd_serve:serve"),
    ("Agents and experiments", "tournament", "cmd_tournament:tournament"),
    ("Agents and experiments", "experiment", "cmd_tournament:experiment"),
    ("Puzzles", "puzzle", "cmd_puzzle:puzzle"),  # `quaternity puzzle generate|verify|sheet`
):
    main.add_lazy_command(_name, f"{__package__}.{_target}", _section)
