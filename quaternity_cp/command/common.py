"""What every command of ``quaternity`` shares, whoever defines it: exit codes, one-line errors, reading input,
writing output, option types.

The command (the package ``quaternity_cli``) and every game's command part (``quaternity <game> ...``, the
part ``cli`` of the registry) use these; none of them names a game. Exit codes: 0 valid; 1 an illegal move or
an invalid position; 2 bad input (unreadable file, malformed record, unknown names, absurd sizes); 3 an
internal error (a bug: please report it; set QUATERNITY_DEBUG=1 for the traceback); 130 interrupted.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Iterator, NoReturn, ParamSpec, TypeVar

import click

from ..errors import QuaternityError
from ..jsonio import MAX_INPUT_BYTES, InputRefused, decode_input, read_input_bytes

if TYPE_CHECKING:
    from rich.console import Console

EXIT_OK, EXIT_ILLEGAL, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_INTERRUPTED = 130

P = ParamSpec("P")
R = TypeVar("R")
F = TypeVar("F", bound=Callable[..., Any])  # a click command function, before or after its options


class InputError(Exception):
    """Bad input: printed as one line, exit code 2."""


class Whole(click.IntRange):
    """An integer option written in the digits 0-9 (a leading minus allowed), in a range if given: click's
    ``int`` would also take other scripts' digits (``\u0661`` as 1), ``+1``, ``1_0`` and spaces."""

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        digits = value.removeprefix("-") if isinstance(value, str) else None
        if digits is not None and not (digits.isascii() and digits.isdigit()):
            self.fail(f"{value!r} is not a whole number written in the digits 0-9", param, ctx)
        return super().convert(value, param, ctx)

    def _describe_range(self) -> str:
        # click describes a range with neither bound as "x<=None": say nothing instead
        if self.min is None and self.max is None:
            return "any whole number"
        return super()._describe_range()


class Seconds(click.FloatRange):
    """A number of seconds written in the digits 0-9 with an optional decimal point (``2``, ``0.5``), finite,
    in a range if given: click's ``float`` would also take ``inf``, ``nan``, ``1e9`` and other scripts' digits."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            whole, _, fraction = value.partition(".")
            if not (value.isascii() and (whole + fraction).isdigit() and (whole.isdigit() or not whole)
                    and (fraction.isdigit() or not fraction)):
                self.fail(f"{value!r} is not a number of seconds written in the digits 0-9 (like 2 or 0.5)",
                          param, ctx)
        return super().convert(value, param, ctx)

    def _describe_range(self) -> str:
        # click describes a range with neither bound as "x<=None" in the help's default: say nothing instead
        if self.min is None and self.max is None:
            return "any number of seconds"
        return super()._describe_range()


def fail(message: str, code: int = EXIT_INPUT) -> NoReturn:
    """Print ``quaternity: message`` (one line) on standard error and exit with ``code``."""
    say(f"quaternity: {one_line(message)}")
    sys.exit(code)


def say(line: str) -> None:
    """One line on standard error. A standard error that cannot be written (a closed pipe, as in ``2>&1 |
    head``) is let go, so that the exit code still tells what happened: click would turn the write's error
    into exit code 1, an illegal move's."""
    try:
        click.echo(line, err=True)
    except OSError:
        _drop(sys.stderr)


def one_line(message: str, limit: int = 400) -> str:
    """A message as one line of bounded length (input can put anything in a message)."""
    message = message.replace("\r", "\\r").replace("\n", "\\n")
    message = "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in message)
    return message if len(message) <= limit else message[: limit - 1] + "\u2026"


#: errors of writing the output: a full disk (or /dev/full), a closed pipe, a device that fails
_OUTPUT_ERRORS = {errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EDQUOT, errno.EFBIG}


def _internal(err: BaseException) -> NoReturn:
    if os.environ.get("QUATERNITY_DEBUG"):
        raise err
    fail(f"internal error: {type(err).__name__}: {err} (set QUATERNITY_DEBUG=1 for details)", EXIT_INTERNAL)


def _drop_stdout() -> None:
    """Point standard output at /dev/null: what could not be written is not tried again as Python exits."""
    _drop(sys.stdout)


def _drop(stream: Any) -> None:
    """Point a standard stream at /dev/null, its buffer's unwritten text let go with it."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


@contextlib.contextmanager
def output_guard() -> Iterator[None]:
    """An output that cannot be written (a full disk, a closed pipe) inside: one line and exit code 2, as
    :func:`guarded` says it of a command's output (for what click writes itself: help, usage)."""
    try:
        yield
    except OSError as err:
        if err.errno not in _OUTPUT_ERRORS:
            raise
        _drop_stdout()
        fail(f"cannot write the output ({err.strerror or err})", EXIT_INPUT)


def guarded(func: Callable[P, R]) -> Callable[P, R]:
    """Turn every error into a one-line message and an exit code, never a traceback."""

    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            result = func(*args, **kwargs)
            sys.stdout.flush()  # an output that cannot be written (a full disk, /dev/full) is said here
            return result
        except InputError as err:
            fail(str(err), EXIT_INPUT)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, SystemExit):
            raise
        except KeyboardInterrupt:
            fail("interrupted", EXIT_INTERRUPTED)
        except QuaternityError as err:
            fail(str(err), EXIT_INPUT)
        except OSError as err:
            if err.errno not in _OUTPUT_ERRORS:
                _internal(err)
            _drop_stdout()
            fail(f"cannot write the output ({err.strerror or err})", EXIT_INPUT)
        except Exception as err:  # a bug: say so in one line
            _internal(err)

    wrapper.__name__ = func.__name__
    wrapper.__doc__ = func.__doc__
    return wrapper


#: Where a run of the command keeps the texts it has read, by the name given (its click context's ``meta``,
#: which every command of the run shares): standard input, and the file a shared command read to learn its game.
TEXTS = "quaternity.texts"


def file_name(path: str) -> str:
    """The name of a file in messages: ``<stdin>`` for '-'."""
    return "<stdin>" if path == "-" else path


def read_text(path: str, *, keep: bool = False) -> str:
    """The file's text: at most MAX_INPUT_BYTES, strict UTF-8 (a byte-order mark is accepted); bad input
    raises InputError (one line naming the file).

    A text is read once in a run of the command: standard input ('-') always, another file when it was read
    with ``keep`` (the shared command that reads a file to learn its game hands it to the game's own command
    this way). A command that reads the same name again gets the same text.
    """
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return _read_text(path)
    texts: dict[str, str] = ctx.meta.setdefault(TEXTS, {})
    if path not in texts:
        text = _read_text(path)
        if path != "-" and not keep:
            return text
        texts[path] = text
    return texts[path]


def _read_text(path: str) -> str:
    name = file_name(path)
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            data = stream.read(MAX_INPUT_BYTES + 1) if stream is not None else sys.stdin.read(MAX_INPUT_BYTES + 1)
        else:
            data = read_input_bytes(path)  # special files and oversized ones refused before reading
        if isinstance(data, str):
            return data
        return decode_input(data)
    except InputRefused as err:
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


def json_option(func: F) -> F:
    """``--json``: print one JSON object (every command that reads a file takes it)."""
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")(func)


def emit_json(data: Any) -> None:
    """One JSON object, indented; beyond a megabyte compact (Python's indenting encoder is
    pure Python and takes many seconds on the card tables of the largest games)."""
    compact = json.dumps(data)
    click.echo(json.dumps(data, indent=2) if len(compact) < 1_000_000 else compact)


def exact_integers() -> None:
    """Lift Python's limit on converting long integers to text (4300 digits) until the command ends: exact
    counts of large games have more digits."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    click.get_current_context().call_on_close(lambda: sys.set_int_max_str_digits(old))


def console(stderr: bool = False) -> Console:
    """The console the commands print tables and styled text with (rich, imported here when first used); with
    ``stderr``, the one of progress lines and spinners.

    rich ends the process with exit code 1 (an illegal move's) when a write meets a closed pipe. Here standard
    output's closed pipe is the error every other write of the output raises (one line, exit code 2: see
    :func:`guarded`), and standard error's is let go: the command goes on without its progress lines."""
    made = _console_class()
    if stderr:
        return made(stderr=True)
    return made(highlight=False, soft_wrap=True)


@functools.cache
def _console_class() -> type[Console]:
    from rich.console import Console

    class PipedConsole(Console):
        """A console whose closed pipe is an output error (standard output) or let go (standard error)."""

        def on_broken_pipe(self) -> None:
            self.quiet = True
            if not self.stderr:
                raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))
            _drop(sys.stderr)

    return PipedConsole


def write_text(path: str, text: str) -> None:
    """Write a file the command produces (a page, a picture) atomically; a failure is bad input (exit 2)."""
    from ..files import write_atomic

    try:
        write_atomic(path, text)
    except OSError as err:
        raise InputError(f"{path}: cannot write ({err.strerror or err})") from None


def force_option(func: F) -> F:
    """``--force``: replace output files that exist already (never an input file)."""
    return click.option("--force", is_flag=True, help="Replace output files that exist already.")(func)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return os.path.abspath(a) == os.path.abspath(b)


def check_output(path: str, option: str, *, inputs: tuple[str, ...] | list[str] = (), force: bool = False) -> str:
    """Check, before any work, that the command may write the file ``path`` given by ``option``.

    Refused (exit 2, one line): an input of the command (never overwritten, even with ``--force``), a
    folder or a name ending with a folder separator, an existing file without ``--force``, a name longer than
    the file system takes, a folder that does not exist or cannot take a new file (the temporary file the
    writing will use is made and removed at once to find out:
    :func:`quaternity_cp.files.output_fault`). Returns ``path``.
    """
    from ..files import not_a_regular_file, output_fault

    if not path or "\x00" in path:
        raise InputError(f"{option}: {path!r} is not a usable file name")
    if path.endswith(("/", os.sep)) and not os.path.isdir(path):
        raise InputError(f"{option}: {path} ends with a folder separator; give a file name")
    for given in inputs:
        if given != "-" and os.path.exists(path) and _same_file(path, given):
            raise InputError(f"{option}: {path} is the input file; write to another file")
    if os.path.isdir(path):
        raise InputError(f"{option}: {path} is a folder; give a file name")
    kind = not_a_regular_file(path)
    if kind is not None:  # even with --force: renaming over a device or a pipe would replace it by a file
        raise InputError(f"{option}: {path} is {kind}, not a regular file; give a file name")
    if os.path.lexists(path) and not force:
        raise InputError(f"{option}: {path} exists already; pass --force to replace it")
    fault = output_fault(path)  # the name, the folder and the temporary file the writing will use
    if fault is not None:
        shown = path if len(path) <= 120 else f"{path[:60]}\u2026{path[-40:]}"  # the reason, not only the name
        raise InputError(f"{option}: {shown}: {fault}")
    return path


def prepare_outputs(out: str, names: Any, force: bool, suffixes: tuple[str, ...] = (".json", ".answer.json"),
                    option: str = "--out") -> None:
    """The folder ``out`` made if missing, and every file a run will write there checked before any work
    (``NAME`` + each of ``suffixes`` for each of ``names``: a puzzle and its answer)."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise InputError(f"{option}: {out} is a file, not a folder")
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as err:
        raise InputError(f"{option}: cannot make the folder {out} ({err.strerror or err})") from None
    for name in names:
        for suffix in suffixes:
            check_output(os.path.join(out, name + suffix), option, force=force)


__all__ = ["EXIT_OK", "EXIT_ILLEGAL", "EXIT_INPUT", "EXIT_INTERNAL", "EXIT_INTERRUPTED", "InputError", "Whole",
           "Seconds", "fail", "one_line", "guarded", "TEXTS", "file_name", "read_text", "json_option", "emit_json",
           "exact_integers", "console", "write_text", "force_option", "check_output",
           "prepare_outputs"]
