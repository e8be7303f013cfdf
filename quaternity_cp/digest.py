"""Keyed digests (HMAC-SHA256) of the files the package writes and later believes: checkpoints and stored answers.

A plain digest (a SHA-256 of the content) catches damage and careless edits,
but whoever edits a file on purpose computes it again, and the edited file is
then believed. A keyed digest is an HMAC-SHA256 under a secret key of the
user's: without the key nobody can make a digest that matches new content.

**The key** is 32 random bytes (64 hex digits on one line) in the file
:func:`key_path`: ``$XDG_CONFIG_HOME/quaternity/key`` (``~/.config/quaternity/key``
when ``XDG_CONFIG_HOME`` is not set; ``%APPDATA%\\quaternity\\key`` on Windows,
``~/Library/Application Support/quaternity/key`` on macOS), made on first use
with permissions 0600 in a folder made 0700. The environment variable
``QUATERNITY_KEY_FILE`` names another key file (the tests use one of their
own). A key file that is not a regular file, is readable or writable by
others (on POSIX systems), or does not hold 64 hex digits is refused
(:class:`KeyFileError`, one line naming it), never replaced.

**What a keyed digest protects against:** damage (a file cut short, emptied,
bits flipped), careless edits, and forgery by anyone who does not have the
user's key: another user of a shared machine or cluster storage, a file
received or downloaded, a checkpoint folder copied from elsewhere. Such a
file is refused, naming it. A file written under another key (another user,
another machine, a key file removed and made again) is refused the same way.

**What it does not protect against:** anyone who has the user's key (the
user, any program running as the user, anyone who can read the key file) can
forge a file that is believed; and a digest says nothing of freshness: an
older file of the same user, with its own digest, is accepted again.

Each digest is tied to a ``purpose`` (a short name given by the caller), so a
file of one kind is never accepted as another kind with the same content.

This module imports nothing of the package but its errors, so every game can
use it.

>>> import os, tempfile
>>> from unittest import mock
>>> with mock.patch.dict(os.environ, {KEY_FILE_VARIABLE: os.path.join(tempfile.mkdtemp(), "key")}):
...     tag = sign_json({"answer": 42}, "example")
...     print(len(tag), verify_json(tag, {"answer": 42}, "example"), verify_json(tag, {"answer": 43}, "example"),
...           verify_json(tag, {"answer": 42}, "another purpose"), oct(os.stat(key_path()).st_mode & 0o777))
64 True False False 0o600
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import json
import os
import secrets
import stat
import sys
import tempfile
import threading
from typing import Any

from .errors import QuaternityError

#: The environment variable naming the key file instead of the default place.
KEY_FILE_VARIABLE = "QUATERNITY_KEY_FILE"
#: The key's length, in bytes.
KEY_BYTES = 32


# -- an answer kept beside a checkpoint: {head, result, digest} -----------------------------------------------------
def write_signed(path: str, head: Any, result: Any, purpose: str) -> None:
    """``{"head": head, "result": result}`` to ``path`` (atomically) with its keyed digest for ``purpose``: an answer
    a later run may believe (:func:`read_signed`)."""
    from .files import write_atomic

    body = {"head": head, "result": result}
    write_atomic(path, json.dumps({**body, "digest": sign_json(body, purpose)}, indent=1))


def read_signed(path: str, head: Any, purpose: str, error: type[Exception], what: str = "result") -> Any:
    """The ``result`` that :func:`write_signed` wrote to ``path`` under ``head``: read strictly
    (:mod:`quaternity_cp.jsonio`), its keyed digest checked, its head the one given; anything else is refused
    with ``error`` (one line naming the file). The caller checks the result's fields."""
    from .jsonio import InputRefused, load_json, read_input

    try:
        data = load_json(read_input(path))
    except (InputRefused, ValueError, OSError) as err:
        raise error(f"{path}: not a readable {what} ({getattr(err, 'strerror', None) or err})") from None
    if not isinstance(data, dict) or set(data) != {"head", "result", "digest"}:
        raise error(f"{path}: not a {what} of this program")
    if not verify_json(data["digest"], {"head": data["head"], "result": data["result"]}, purpose):
        raise error(f"{path}: the {what} was changed or damaged, or written under another user's key (its keyed "
                    "digest does not match); remove it to compute it again")
    if data["head"] != head:
        raise error(f"{path}: the {what} of another game; use another folder")
    return data["result"]


__all__ = ["write_signed", "read_signed", "KEY_FILE_VARIABLE", "KEY_BYTES", "KeyFileError", "key_path", "user_key", "sign", "verify", "sign_json",
           "verify_json", "canonical_json", "sha256_hex"]


class KeyFileError(QuaternityError):
    """The user's key file cannot be read or made, or is not safe to use; the message names it."""


def key_path() -> str:
    """Where the user's key is kept: ``$QUATERNITY_KEY_FILE`` when set, else the user's configuration folder."""
    given = os.environ.get(KEY_FILE_VARIABLE)
    if given:
        return os.path.abspath(os.path.expanduser(given))
    if sys.platform == "win32":  # pragma: no cover - depends on the system
        base = os.environ.get("APPDATA") or os.path.join(os.path.expanduser("~"), "AppData", "Roaming")
    elif sys.platform == "darwin":  # pragma: no cover - depends on the system
        base = os.path.join(os.path.expanduser("~"), "Library", "Application Support")
    else:
        base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "quaternity", "key")


_LOCK = threading.Lock()
_KEYS: dict[str, bytes] = {}


def user_key() -> bytes:
    """The user's key, read from :func:`key_path` (made there on first use); :class:`KeyFileError` when it
    cannot be read or made, or is not safe to use."""
    path = key_path()
    with _LOCK:
        key = _KEYS.get(path)
        if key is None:
            key = _KEYS[path] = _read_or_make(path)
        return key


def _read_or_make(path: str) -> bytes:
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    _make(path)
    try:
        return _read(path)
    except FileNotFoundError:  # pragma: no cover - removed between the two steps
        raise KeyFileError(f"key file {path}: it vanished as it was made") from None


def _read(path: str) -> bytes:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise KeyFileError(f"key file {path}: a symbolic link, not a regular file; give the file itself") \
                from None
        raise KeyFileError(f"key file {path}: cannot read it ({err.strerror or err})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise KeyFileError(f"key file {path}: not a regular file")
        if os.name == "posix" and info.st_mode & 0o077:
            raise KeyFileError(f"key file {path}: readable or writable by others (mode "
                               f"{stat.S_IMODE(info.st_mode):04o}); make it private: chmod 600 {path}")
        if os.name == "posix" and hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise KeyFileError(f"key file {path}: owned by another user")
        data = os.read(fd, 4 * KEY_BYTES + 2)
    finally:
        os.close(fd)
    text = data.decode("ascii", "replace").strip()
    if len(text) != 2 * KEY_BYTES or any(c not in "0123456789abcdef" for c in text):
        raise KeyFileError(f"key file {path}: not a key of this program ({2 * KEY_BYTES} hex digits); remove it "
                           "to have a new one made (files signed with the old key are then refused)")
    return bytes.fromhex(text)


def _make(path: str) -> None:
    """A new random key at ``path`` (mode 0600, its folder made 0700), made whole in one step: a reader sees
    no key file or the whole of it, and of two programs making it at once, the first one's key stays."""
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".key.", suffix=".tmp")  # (mode 0600)
    except OSError as err:
        raise KeyFileError(f"key file {path}: cannot make it ({err.strerror or err})") from None
    try:
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(secrets.token_hex(KEY_BYTES) + "\n")
        with contextlib.suppress(OSError):
            os.chmod(tmp, 0o600)
        try:
            os.link(tmp, path)  # fails when the key exists: never replaced
        except FileExistsError:
            pass
        except OSError as err:  # pragma: no cover - a file system without hard links
            if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                raise KeyFileError(f"key file {path}: cannot make it ({err.strerror or err})") from None
            _make_exclusive(path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _make_exclusive(path: str) -> None:  # pragma: no cover - a file system without hard links
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:
        return
    except OSError as err:
        raise KeyFileError(f"key file {path}: cannot make it ({err.strerror or err})") from None
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(secrets.token_hex(KEY_BYTES) + "\n")


def sign(data: bytes | str, purpose: str) -> str:
    """The keyed digest (HMAC-SHA256 under the user's key, hex) of ``data`` for ``purpose``."""
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    return hmac.new(user_key(), purpose.encode("utf-8") + b"\0" + raw, hashlib.sha256).hexdigest()


def verify(digest: object, data: bytes | str, purpose: str) -> bool:
    """Whether ``digest`` is the keyed digest of ``data`` for ``purpose`` (compared in constant time; anything
    but a string of 64 hex digits is False)."""
    if not isinstance(digest, str) or len(digest) != 64:
        return False
    return hmac.compare_digest(digest.encode("ascii", "replace"), sign(data, purpose).encode("ascii"))


def canonical_json(value: Any) -> str:
    """``value`` as JSON in one canonical form (keys sorted, no spaces, ASCII): what :func:`sign_json` signs."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def sign_json(value: Any, purpose: str) -> str:
    """The keyed digest of ``value``'s canonical JSON (:func:`canonical_json`) for ``purpose``."""
    return sign(canonical_json(value), purpose)


def verify_json(digest: object, value: Any, purpose: str) -> bool:
    """Whether ``digest`` is :func:`sign_json` of ``value`` for ``purpose`` (False for a value JSON cannot
    hold)."""
    try:
        text = canonical_json(value)
    except (TypeError, ValueError, RecursionError):
        return False
    return verify(digest, text, purpose)


def sha256_hex(data: bytes | bytearray | memoryview) -> str:
    """The plain SHA-256 of ``data``, in hex: a file's fingerprint, to be kept in a file with a keyed digest
    (a plain digest alone is recomputed by whoever edits the file)."""
    return hashlib.sha256(data).hexdigest()
