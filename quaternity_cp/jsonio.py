"""Reading untrusted input: the one strict JSON loader and the input limits of every game's files.

The limits (docs/rules.md, section 10) hold for every file a game reads, so
that hostile input is refused at once instead of ground through: at most
:data:`MAX_INPUT_BYTES` per file, strict UTF-8, JSON nested at most
:data:`MAX_JSON_DEPTH` levels, numbers of at most :data:`MAX_NUMBER_DIGITS`
digits, no duplicate keys, no ``NaN`` or ``Infinity``, no unpaired surrogates.
Every refusal is an :class:`InputRefused` whose message is one line; each
game's reader turns it into its own format error, naming the file's kind.

Files are read with :func:`read_input` (or :func:`read_input_bytes`): a path
that is not a regular file (``/dev/zero``, a FIFO) or is larger than the limit
is refused before anything is read.

This module imports nothing of the package, so every game can use it and load
only what it needs.

>>> load_json('{"a": [1, 2.5, "x"]}')
{'a': [1, 2.5, 'x']}
>>> load_json('{"a": 1, "a": 2}')
Traceback (most recent call last):
...
quaternity_cp.jsonio.InputRefused: key "a" given twice in one object
>>> load_json('{"a": 1,')
Traceback (most recent call last):
...
quaternity_cp.jsonio.InputRefused: the text ends before the JSON value is complete (is it cut short?) at line 1, column 9
"""

from __future__ import annotations

import errno
import json
import os
import stat
from typing import Any, Callable

from .errors import QuaternityError

#: One file (or standard input): 16 MiB.
MAX_INPUT_BYTES = 16 * 1024 * 1024
#: Nesting of JSON arrays and objects (a position file needs 3).
MAX_JSON_DEPTH = 20
#: Digits of one number (in JSON, and in the headers of the plain text record format).
MAX_NUMBER_DIGITS = 20
#: Moves in one record, of every game.
MAX_MOVES = 100_000


class InputRefused(QuaternityError, ValueError):
    """Input beyond a limit, or not strict JSON: ``reason`` says why; ``line`` and ``column`` (from 1)
    say where, for JSON that does not parse (else None)."""

    def __init__(self, reason: str, line: int | None = None, column: int | None = None):
        super().__init__(reason if line is None else f"{reason} at line {line}, column {column}")
        self.reason = reason
        self.line = line
        self.column = column


def show(value: Any, limit: int = 60) -> str:
    """A value as JSON for a one-line message (ASCII only), shortened when long."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def too_large() -> InputRefused:
    """The refusal of a file beyond :data:`MAX_INPUT_BYTES`."""
    return InputRefused(f"larger than the limit of {MAX_INPUT_BYTES:,} bytes for one file")


def decode_input(data: bytes) -> str:
    """File contents as text: at most :data:`MAX_INPUT_BYTES`, strict UTF-8 (a byte-order mark is kept).

    >>> decode_input(b"players: 2\\n\\xff")
    Traceback (most recent call last):
    ...
    quaternity_cp.jsonio.InputRefused: not UTF-8 text: byte 0xff at line 2 (byte offset 11)
    """
    if len(data) > MAX_INPUT_BYTES:
        raise too_large()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise InputRefused(
            f"not UTF-8 text: byte 0x{data[err.start]:02x} at line {line} (byte offset {err.start})"
        ) from None


_KINDS = ((stat.S_ISFIFO, "a pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def read_input_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the file ``path``, refused (:class:`InputRefused`) before anything is read when it is not
    a regular file (``/dev/zero``, a pipe) or larger than :data:`MAX_INPUT_BYTES`; at most that many are read
    even when the file grows meanwhile. A file that cannot be opened raises :class:`OSError`, a folder
    :class:`IsADirectoryError` (as ``open`` does).

    The file is opened without blocking: a FIFO without a writer is refused, not waited for.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)  # of what was opened: no window between a check and the open
        if stat.S_ISDIR(info.st_mode):  # as open() says it (each reader names a folder in its own words)
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if not stat.S_ISREG(info.st_mode):
            kind = next((name for test, name in _KINDS if test(info.st_mode)), "a special file")
            raise InputRefused(f"{kind}, not a regular file")
        if info.st_size > MAX_INPUT_BYTES:
            raise too_large()
        chunks, size = [], 0
        while size <= MAX_INPUT_BYTES:
            chunk = os.read(fd, MAX_INPUT_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_INPUT_BYTES:
            raise too_large()
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_input(path: str | os.PathLike[str]) -> str:
    """The text of the file ``path``: :func:`read_input_bytes`, then :func:`decode_input`."""
    return decode_input(read_input_bytes(path))


def check_move_count(count: int, where: str = "field 'moves'") -> None:
    """Refuse a record of more than :data:`MAX_MOVES` moves (before any is read or replayed)."""
    if count > MAX_MOVES:
        raise InputRefused(f"{where}: {count:,} moves is beyond the limit of {MAX_MOVES:,} moves in one record")


def check_size(text: str) -> None:
    """Refuse text longer than :data:`MAX_INPUT_BYTES` characters (it has at least as many bytes)."""
    if len(text) > MAX_INPUT_BYTES:
        raise too_large()


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise InputRefused(f"key {show(key)} given twice in one object")
        out[key] = value
    return out


def _int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_NUMBER_DIGITS:
        raise InputRefused(f"a number of {digits:,} digits (at most {MAX_NUMBER_DIGITS})")
    return int(text)


def _float(text: str) -> float:
    if len(text) > 2 * MAX_NUMBER_DIGITS:
        raise InputRefused(f"a number of {len(text):,} characters (at most {2 * MAX_NUMBER_DIGITS})")
    return float(text)


def _constant(name: str) -> Any:
    raise InputRefused(f"{name} is not a JSON value")


#: What Python's JSON decoder says (its message up to " at"), as a sentence of this program.
_DECODE_REASONS = {
    "Expecting value": "expected a value (a string, a number, an object, an array, true, false or null)",
    "Expecting property name enclosed in double quotes": "expected a key in double quotes",
    "Expecting ',' delimiter": "expected a comma or the end of the list or object",
    "Expecting ':' delimiter": "expected a colon after the key",
    "Extra data": "more text after the JSON value (a file holds one value)",
    "Invalid \\escape": "a backslash escape JSON does not have (it has \\\" \\\\ \\/ \\b \\f \\n \\r \\t and "
                        "\\uXXXX)",
    "Invalid \\uXXXX escape": "a \\u escape without four hexadecimal digits",
    "Invalid control character": "a control character inside a string (write a line break as \\n, a tab as \\t)",
}


def decode_reason(err: json.JSONDecodeError) -> str:
    """Why the JSON decoder stopped, as a whole clause (its own messages stop mid-sentence, "Unterminated string
    starting at"); text that ends before the JSON is complete is said to be cut short.

    >>> load_json('{"players": 3, "moves": ["0>1:A+')
    Traceback (most recent call last):
    ...
    quaternity_cp.jsonio.InputRefused: a string is not closed: the text ends before its closing quote (is it cut short?) at line 1, column 26
    """
    msg = err.msg
    if msg.startswith("Unterminated string"):
        return "a string is not closed: the text ends before its closing quote (is it cut short?)"
    if msg.startswith("Expecting") and not err.doc[err.pos:].strip():
        if not err.doc.strip():
            return "no JSON value: the text is empty"
        return "the text ends before the JSON value is complete (is it cut short?)"
    here = err.doc[err.pos:err.pos + 1]
    if msg.startswith("Expecting") and here in ("]", "}") and err.doc[:err.pos].rstrip().endswith(","):
        return f"a comma before the closing {'bracket' if here == ']' else 'brace'} (JSON has no trailing comma)"
    for start, reason in _DECODE_REASONS.items():
        if msg.startswith(start):
            return reason
    words = msg.removesuffix(" at").strip()
    return words[:1].lower() + words[1:]


def load_json(text: str) -> Any:
    """Strict JSON: no duplicate keys, no NaN or Infinity, numbers of at most
    :data:`MAX_NUMBER_DIGITS` digits, nesting at most :data:`MAX_JSON_DEPTH`
    deep, no unpaired surrogates; every refusal is an :class:`InputRefused`.
    The size is the caller's to check first (:func:`check_size`, :func:`decode_input`).
    """
    deep = f"nested more than {MAX_JSON_DEPTH} levels deep"
    try:
        data = json.loads(text, object_pairs_hook=_pairs, parse_int=_int, parse_float=_float,
                          parse_constant=_constant)
    except json.JSONDecodeError as err:
        raise InputRefused(decode_reason(err), err.lineno, err.colno) from None
    except RecursionError:
        raise InputRefused(deep) from None
    stack = [(data, 1)]  # nesting and surrogates, without recursion
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if any("\ud800" <= ch <= "\udfff" for ch in value):
                raise InputRefused(f"a string with an unpaired surrogate ({show(value)})")
        elif isinstance(value, (list, dict)):
            if depth > MAX_JSON_DEPTH:
                raise InputRefused(deep)
            items = value.items() if isinstance(value, dict) else ((None, v) for v in value)
            for key, item in items:
                if key is not None:
                    stack.append((key, depth))
                stack.append((item, depth + 1))
    return data


def read_json_file(path: str, error: Callable[[str], BaseException], what: str) -> Any:
    """The JSON value of the file ``path`` (a checkpoint's manifest, a state's), read strictly
    (:func:`read_input`, :func:`load_json`); None when there is no such file; one that cannot be read or is not
    JSON is refused by ``error``, one line naming it and ``what`` it should be."""
    if not os.path.lexists(path):
        return None
    try:
        return load_json(read_input(path))
    except (InputRefused, ValueError, OSError) as err:
        why = getattr(err, "strerror", None) or err
        raise error(f"{path}: not a readable {what} ({why})") from None


__all__ = ["read_json_file", "MAX_INPUT_BYTES", "MAX_JSON_DEPTH", "MAX_NUMBER_DIGITS", "MAX_MOVES", "InputRefused", "show", "too_large",
           "decode_input", "read_input_bytes", "read_input", "check_size", "check_move_count", "load_json"]
