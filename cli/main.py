"""The ``quaternity`` command: check, analyze, explain, solve and count positions.

Exit codes: 0 valid; 1 an illegal move or an invalid position; 2 bad input
(unreadable file, malformed record, unknown names, absurd sizes); 3 an internal
error (a bug: please report it; set QUATERNITY_DEBUG=1 for the traceback).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Callable

import click

from quaternity_cp.engines import DEFAULT_ENGINE, ENGINES
from quaternity_cp.errors import QuaternityError
from quaternity_cp.formats import (
    MAX_INPUT_BYTES,
    FormatError,
    Record,
    _rules_text,
    decode_input,
    parse_record,
    position_to_json,
)
from quaternity_cp.replay import replay
from quaternity_cp.rules import Rules

from . import render

EXIT_OK, EXIT_ILLEGAL, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


class InputError(Exception):
    """Bad input: printed as one line, exit code 2."""


def fail(message: str, code: int = EXIT_INPUT) -> None:
    message = one_line(message)
    click.echo(f"quaternity: {message}", err=True)
    sys.exit(code)


def one_line(message: str, limit: int = 400) -> str:
    """A message as one line of bounded length (input can put anything in a message)."""
    message = message.replace("\r", "\\r").replace("\n", "\\n")
    message = "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in message)
    return message if len(message) <= limit else message[: limit - 1] + "\u2026"


def guarded(func: Callable) -> Callable:
    """Turn every error into a one-line message and an exit code, never a traceback."""

    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except InputError as err:
            fail(str(err), EXIT_INPUT)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, SystemExit):
            raise
        except KeyboardInterrupt:
            fail("interrupted", 130)
        except QuaternityError as err:
            fail(str(err), EXIT_INPUT)
        except Exception as err:  # a bug: say so in one line
            if os.environ.get("QUATERNITY_DEBUG"):
                raise
            fail(f"internal error: {type(err).__name__}: {err} (set QUATERNITY_DEBUG=1 for details)", EXIT_INTERNAL)

    wrapper.__name__ = func.__name__
    wrapper.__doc__ = func.__doc__
    return wrapper


def read_text(path: str) -> str:
    """The file's text: at most MAX_INPUT_BYTES, strict UTF-8 (a byte-order mark is accepted)."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            data = stream.read(MAX_INPUT_BYTES + 1) if stream is not None else sys.stdin.read(MAX_INPUT_BYTES + 1)
        else:
            with open(path, "rb") as fh:
                data = fh.read(MAX_INPUT_BYTES + 1)
        if isinstance(data, str):
            return data
        return decode_input(data)
    except FormatError as err:
        raise InputError(f"{name}: {err}") from None
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a record") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a UTF-8 text file") from None
    except OSError as err:
        raise InputError(f"{path}: cannot read ({err.strerror})") from None
    except ValueError:  # a NUL byte in the name
        raise InputError(f"{path!r}: not a usable file name") from None


def load(path: str, rules: str | None) -> Record:
    """The record or position in the file ``path`` (``-``: standard input), ``--rules`` applied."""
    return parse_text(read_text(path), rules, "<stdin>" if path == "-" else path)


def parse_text(text: str, rules: str | None, name: str) -> Record:
    """A record or position from text already read; ``name`` is the file's name for messages."""
    override = None
    if rules is not None:
        try:
            override = Rules.from_spec(_rules_text(rules, 0))
        except QuaternityError as err:
            raise InputError(f"--rules: {err}") from None
    try:
        return parse_record(text, rules=override)
    except FormatError as err:
        raise InputError(f"{name}: {err}") from None


def engine_option(func):
    return click.option(
        "--engine",
        type=click.Choice(sorted(ENGINES)),
        default=None,
        help="Exact engine to use (default: the fastest available).",
    )(func)


def common_options(func):
    func = click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")(func)
    func = click.option("--rules", "rules", metavar="PRESET", default=None, multiple=True, callback=_one_rules,
                        help="Rules to use instead of the file's: a preset name, optionally with option=value pairs, e.g. 'quaternity,handover=seat'.")(func)
    return engine_option(func)


def _one_rules(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> str | None:
    """--rules at most once (a second one would silently replace the first)."""
    if len(value) > 1:
        fail("--rules: given more than once; put every option in one value, e.g. --rules 'quaternity,handover=seat'")
    return value[0] if value else None


def default_engine(name: str | None) -> str:
    return name or DEFAULT_ENGINE


def emit_json(data: Any) -> None:
    """One JSON object, indented; beyond a megabyte compact (Python's indenting encoder is
    pure Python and takes many seconds on the card tables of the largest games)."""
    compact = json.dumps(data)
    click.echo(json.dumps(data, indent=2) if len(compact) < 1_000_000 else compact)


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
            click.echo(f"{where}: {message}{hint}", err=True)
            sys.exit(err.exit_code)
        except click.exceptions.Abort:
            click.echo("quaternity: interrupted", err=True)
            sys.exit(130)
        sys.exit(rv if isinstance(rv, int) else EXIT_OK)

    def add_lazy_command(self, name: str, target: str) -> None:
        self.lazy[name] = target

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx: click.Context, name: str):
        command = super().get_command(ctx, name)
        if command is None and name in self.lazy:
            import importlib

            module, attribute = self.lazy[name].split(":")
            command = getattr(importlib.import_module(module), attribute)
            self.add_command(command, name)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="quaternity-cp")
def main() -> None:
    """Check, analyze, explain, solve and count Quaternity positions.

    FILE is a game record (JSON or plain text) or a position (JSON); '-' reads
    standard input. Exit codes: 0 valid, 1 illegal move or invalid position,
    2 bad input, 3 internal error.
    """


# -- check ----------------------------------------------------------------------------
@main.command()
@click.argument("file")
@common_options
@guarded
def check(file: str, as_json: bool, rules: str | None, engine: str | None) -> None:
    """Replay a record: is every move legal, whose turn is it, who has won."""
    record = load(file, rules)
    result = replay(record, engine=default_engine(engine), history=False)
    if record.tie_break is not None:
        from quaternity_cp.classic import tie_break_problem

        problem = tie_break_problem(result.position, record.tie_break)
        if problem:
            raise InputError(f"{'<stdin>' if file == '-' else file}: {problem}")
    if as_json:
        emit_json(render.check_json(record, result))
    else:
        render.print_check(record, result)
    sys.exit(EXIT_OK if result.valid else EXIT_ILLEGAL)


# -- analyze --------------------------------------------------------------------------
@main.command()
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
@guarded
def analyze(file: str, as_json: bool, rules: str | None, engine: str | None, as_position: bool,
            explain: bool, svg_out: str | None = None, seat: str | None = None) -> None:
    """Who may hold each card, forced cards, possible and forced quartets."""
    record = load(file, rules)
    result = replay(record, engine=default_engine(engine), mark_forced=not as_position, history=False)
    if seat is not None:
        from .view import analyze_as

        for flag, given in (("--position", as_position), ("--explain", explain)):
            if given:
                raise InputError(f"--as and {flag} do not combine ({flag} shows the public view; drop --as)")
        if svg_out is not None:
            from .cmd_report import write_grid_svg_as

            write_grid_svg_as(record, result, seat, file, default_engine(engine), svg_out)
        valid = analyze_as(record, result, seat, file, default_engine(engine), as_json)
        sys.exit(EXIT_OK if valid else EXIT_ILLEGAL)
    if svg_out is not None:
        from .cmd_report import write_grid_svg

        write_grid_svg(record, result, svg_out)
    if as_position:
        emit_json(position_to_json(result.position))
        sys.exit(EXIT_OK if result.valid else EXIT_ILLEGAL)
    if as_json:
        emit_json(render.analyze_json(record, result, explain=explain))
    else:
        render.print_analyze(record, result, explain=explain)
    sys.exit(EXIT_OK if result.valid else EXIT_ILLEGAL)


# -- further commands, each in its own module, imported when the command is run ---------
# (they use the helpers above; an eager `main.add_command(...)` works too, but every
# command then pays for importing that module)
main.add_lazy_command("count", f"{__package__}.cmd_count:count")
main.add_lazy_command("explain", f"{__package__}.cmd_explain:explain")
main.add_lazy_command("solve", f"{__package__}.cmd_solve:solve")
main.add_lazy_command("report", f"{__package__}.cmd_report:report")
main.add_lazy_command("serve", f"{__package__}.cmd_serve:serve")
main.add_lazy_command("play", f"{__package__}.cmd_play:play")
main.add_lazy_command("tournament", f"{__package__}.cmd_tournament:tournament")
main.add_lazy_command("experiment", f"{__package__}.cmd_tournament:experiment")
from .cmd_quarto import quarto as _quarto  # noqa: E402

for _command in (_quarto,):
    main.add_command(_command)
