"""The records of a checkpointed step's finished tasks, so that a step stopped part way goes on from the rest.

A resumable computation on a checkpoint folder (the partitioned build's layers, the partitioned attractor's rounds)
writes its manifest once a whole step is done. A step of a large graph takes minutes to hours, split into one task
per part; a task that finishes writes a *record* of its result (the counts and the entries of the files it wrote)
beside its files, so that a run stopped part way (Ctrl-C, a time limit, a lost worker) does again only the tasks
that did not finish.

A record is a small JSON file, written atomically, that names its task (``fields``: its kind, part and step) and
carries an HMAC-SHA256 of its content whose key is the step's *token*: the keyed digest
(:func:`quaternity_cp.digest.sign_json`, under the user's key) of the manifest the step starts from. The token
travels to the workers with the tasks; nobody without the user's key can make a record that is taken, and a record
left by another start of the step (another manifest), edited or damaged is not taken: its task runs again (a record
only saves work, so a bad one costs that work, never a wrong result). It is read by the strict reader
(:func:`quaternity_cp.jsonio.read_input`, :func:`~quaternity_cp.jsonio.load_json`); the files it names are the
caller's to check as the manifest's are.

This module names no game.
"""

from __future__ import annotations

import glob
import hashlib
import hmac
import os
import re
from typing import Any, Callable, Mapping

from .digest import canonical_json, sign_json
from .files import not_a_regular_file, write_atomic
from .jsonio import InputRefused, load_json, read_input

#: a record's own keys besides its task's fields
_OWN = ("mac", "result")


def step_token(manifest: Mapping[str, Any], purpose: str) -> str:
    """The key of the records of the step that ``manifest`` (a manifest's body; a ``digest`` key is left out)
    starts, for records of ``purpose``."""
    return sign_json({name: manifest[name] for name in manifest if name != "digest"}, purpose + "-tasks")


def _mac(token: str, body: Mapping[str, Any]) -> str:
    return hmac.new(bytes.fromhex(token), canonical_json(body).encode("ascii"), hashlib.sha256).hexdigest()


def write(path: str, token: str | None, fields: Mapping[str, Any], result: Any) -> None:
    """Record a finished task's ``result`` (plain JSON values) in ``path``, atomically; nothing without a
    ``token``. ``fields`` name the task (its kind, part and step)."""
    if token is None:
        return
    body = {**fields, "result": result}
    write_atomic(path, canonical_json({**body, "mac": _mac(token, body)}) + "\n")


def read(path: str, token: str | Callable[[], str], fields: Mapping[str, Any],
         error: type[Exception] = ValueError) -> Any:
    """The result recorded in ``path`` for the task ``fields`` name under ``token`` (or a function that gives it,
    called only when there is a file); None when there is no such record: no file, one that does not read
    strictly, names another task, or whose MAC does not match. A path that is not a regular file (a link, a
    pipe, a folder: nothing this program writes, and nothing it may write over) raises ``error``, naming it."""
    if not os.path.lexists(path):
        return None
    kind = not_a_regular_file(path)
    if kind is not None:
        raise error(f"{path}: {kind}, not a task's record; remove it to go on")
    try:
        data = load_json(read_input(path))
    except (InputRefused, ValueError, OSError):
        return None
    if not isinstance(data, dict) or sorted(data) != sorted([*fields, *_OWN]):
        return None
    mac = data.pop("mac")
    key = token if isinstance(token, str) else token()
    if not isinstance(mac, str) or any(data[name] != value for name, value in fields.items()):
        return None
    if not hmac.compare_digest(mac.encode("ascii", "replace"), _mac(key, data).encode("ascii")):
        return None
    return data["result"]


def clear(folder: str, pattern: str, stale: Callable[[int], bool]) -> None:
    """Remove the records in ``folder`` whose name (inside it, ``/`` between folders) matches ``pattern`` (a
    regular expression whose group 1 is the step's number) and whose step is ``stale``."""
    rule = re.compile(pattern)
    for path in glob.glob(os.path.join(folder, "part[0-9][0-9][0-9]", "done*.json")):
        got = rule.fullmatch(os.path.relpath(path, folder).replace(os.sep, "/"))
        if got is not None and stale(int(got.group(1))):
            try:
                os.unlink(path)
            except FileNotFoundError:  # pragma: no cover - removed meanwhile
                pass


def clear_temporaries(folder: str) -> None:
    """Remove the temporary files in ``folder``'s part folders (``.NAME.XXXXXXXX.tmp.SUFFIX``, see
    :func:`quaternity_cp.files.atomic_path`) that a stopped run left: a worker ended while it wrote a record or a
    part file. Called as a run starts on a checkpoint, when none of its tasks runs."""
    for path in glob.glob(os.path.join(folder, "part[0-9][0-9][0-9]", ".*.tmp*")):
        try:
            os.unlink(path)
        except OSError:  # pragma: no cover - removed meanwhile, or not a file
            pass


__all__ = ["step_token", "write", "read", "clear", "clear_temporaries"]
