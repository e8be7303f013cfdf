"""The web tables kept in SQLite: every table outlives the server that made it.

One file (the standard library's :mod:`sqlite3`, WAL journal) holds, per
table, what the server needs to carry on after a restart, and nothing a
person's link gives away:

- the game, its options, the people's seats and the agents' names, the
  server-side secret part (``seed``: the deal of a classic table and every
  chance event; never in a view, a record or an observation);
- a SHA-256 hash of each seat's token, never the token itself. A token is
  derived from the table's id and seat by an HMAC with the server's key,
  kept in a file of its own beside the database (``PATH.key``, mode 0600), so
  a copy of the database alone opens no seat, and the creator's view shows
  the same join links after a restart;
- every action applied, in order, with the seat that made it and whether a
  person made it (undo takes back a person's last action);
- when it was made and last moved, and whether the game is over.

Each accepted move or undo is one transaction (:meth:`Store.save`): a
``kill -9`` at any moment loses at most the move being written, and never
leaves a table that cannot be loaded (SQLite's journal; the file is
``synchronous=NORMAL`` in WAL mode, durable against a crash of the process,
not against a power cut of the machine). A write that fails (a full or
read-only disk) raises :class:`StoreUnavailable`: the server refuses the move
(503) and keeps the table as stored, so nothing is acknowledged and then lost.

Nothing is deleted: a table closed in memory (the server's table cap, the
idle time) stays in the file and is loaded again by its next request, and its
record stays downloadable. ``quaternity serve --export DIR`` writes every
table's record. To forget the tables, stop the server and delete the file (and
its ``-wal``, ``-shm`` and ``.key`` companions).

The file carries the application id :data:`APPLICATION_ID` and its schema
version (``user_version``, :data:`SCHEMA_VERSION`; older versions are migrated
on opening). A file that is not one of ours, one of a newer schema, or a
damaged one is refused with :class:`StoreError` (one line naming the file) and
left untouched. Nothing here knows a game.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Iterator

from ..errors import QuaternityError

#: ``PRAGMA application_id`` of a table database (the bytes "QCPT").
APPLICATION_ID = 0x51435054
#: The schema this code writes (``PRAGMA user_version``).
SCHEMA_VERSION = 1
#: Where ``quaternity serve`` keeps its tables unless told (``--db``): under the user's data directory.
DEFAULT_FILE = "tables.sqlite3"

_SCHEMA = [
    """CREATE TABLE tables (
        id TEXT PRIMARY KEY,
        game TEXT NOT NULL,
        options TEXT NOT NULL,
        humans TEXT NOT NULL,
        agents TEXT NOT NULL,
        seed INTEGER NOT NULL,
        token_hashes TEXT NOT NULL,
        created REAL NOT NULL,
        touched REAL NOT NULL,
        over INTEGER NOT NULL DEFAULT 0,
        agent_to_move INTEGER NOT NULL DEFAULT 0,
        version INTEGER NOT NULL DEFAULT 0,
        next_id TEXT
    )""","""CREATE INDEX tables_touched ON tables (touched)""",
    """CREATE TABLE moves (
        table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        n INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        action TEXT NOT NULL,
        person INTEGER NOT NULL,
        PRIMARY KEY (table_id, n)
    ) WITHOUT ROWID""",
]
#: Migrations: the statements that take a file of version v to v + 1 (none yet: version 1 is the first).
_MIGRATIONS: dict[int, list[str]] = {}


class StoreError(QuaternityError):
    """A table database that cannot be used as it is (not ours, a newer schema, damaged): one line naming it."""


class StoreUnavailable(QuaternityError):
    """A write the database refused (a full or read-only disk): the change is not kept (HTTP 503)."""


def data_directory() -> str:
    """The user's data directory for quaternity-cp (``$XDG_DATA_HOME/quaternity-cp``, by default
    ``~/.local/share/quaternity-cp``; on Windows ``%LOCALAPPDATA%\\quaternity-cp``)."""
    base = os.environ.get("XDG_DATA_HOME") or (os.environ.get("LOCALAPPDATA") if os.name == "nt" else None)
    if not base:
        base = os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "quaternity-cp")


def default_path() -> str:
    """The database ``quaternity serve`` uses without ``--db``."""
    return os.path.join(data_directory(), DEFAULT_FILE)


@dataclass
class Stored:
    """One table as stored: enough to make it again (:func:`quaternity_cp.web.session.WebGame.new`) and replay it."""

    key: str
    game: str
    options: dict[str, Any]
    humans: tuple[int, ...]
    agents: dict[int, str]
    seed: int
    token_hashes: dict[int, str]
    created: float
    touched: float
    over: bool
    version: int = 0  # the table's count of changes (each move, each undo): what the pages compare
    next_id: str | None = None  # the table "play again" opened after this one, with the same people
    moves: list[tuple[int, str, bool]] = field(default_factory=list)  # (seat, action text, made by a person)
    agent_to_move: bool = False  # the game waits for an agent's move (the server resumes it when it starts)


def token_hash(token: str) -> str:
    """What the database keeps of a seat's token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class Store:
    """The table database at ``path`` (``":memory:"``: one that lives as long as the process)."""

    def __init__(self, path: str):
        self.path = path
        self.memory = path == ":memory:"
        self.lock = threading.Lock()  # one connection, used by the server's worker threads in turn
        self.db = self._open()
        self.key = self._key()

    # -- opening ------------------------------------------------------------------------------
    def _fail(self, reason: str) -> StoreError:
        return StoreError(f"{self.path}: {reason}")

    def _open(self) -> sqlite3.Connection:
        if not self.memory:
            if os.path.isdir(self.path):
                raise self._fail("is a folder, not a table database")
            if os.path.exists(self.path) and not os.path.isfile(self.path):
                raise self._fail("is not a regular file")
            folder = os.path.dirname(os.path.abspath(self.path))
            try:
                os.makedirs(folder, exist_ok=True)
                if not os.path.exists(self.path):  # the seeds are secrets: the file is the user's alone (0600;
                    os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # SQLite's -wal too)
            except FileExistsError:
                pass
            except OSError as err:
                raise self._fail(f"cannot make it ({err.strerror})") from None
        try:
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10.0)
        except sqlite3.Error as err:
            raise self._fail(f"cannot be opened ({err})") from None
        try:
            self._check(db)
        except BaseException:
            db.close()
            raise
        return db

    def _check(self, db: sqlite3.Connection) -> None:
        """Refuse a file that is not ours, newer, or damaged, before writing anything; then make or migrate it."""
        try:
            app = db.execute("PRAGMA application_id").fetchone()[0]
            version = db.execute("PRAGMA user_version").fetchone()[0]
            names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as err:
            raise self._fail(f"not a table database of quaternity-cp ({err})") from None
        fresh = app == 0 and version == 0 and not names
        if not fresh and app != APPLICATION_ID:
            raise self._fail("not a table database of quaternity-cp (another program's SQLite file): "
                             "give another --db")
        if version > SCHEMA_VERSION:
            raise self._fail(f"made by a newer quaternity-cp (schema {version}; this one reads up to "
                             f"{SCHEMA_VERSION}): upgrade, or give another --db")
        if not fresh:
            try:
                check = db.execute("PRAGMA quick_check").fetchone()[0]
            except sqlite3.DatabaseError as err:
                raise self._fail(f"damaged ({err})") from None
            if check != "ok":
                raise self._fail(f"damaged (SQLite's check: {str(check)[:200]})")
        try:
            if not self.memory:
                db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute("PRAGMA journal_size_limit = 4194304")  # the WAL shrinks back to 4 MiB after a checkpoint
            db.execute("PRAGMA foreign_keys = ON")
            db.execute("BEGIN IMMEDIATE")
            if fresh:
                for statement in _SCHEMA:
                    db.execute(statement)
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            else:
                for step in range(version, SCHEMA_VERSION):
                    for statement in _MIGRATIONS[step]:
                        db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute("COMMIT")
        except sqlite3.Error as err:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise self._fail(f"cannot be written ({err})") from None

    def _key(self) -> bytes:
        """The server's key for seat tokens: in ``PATH.key`` (made once, mode 0600), or in memory."""
        if self.memory:
            return secrets.token_bytes(32)
        path = self.path + ".key"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            try:
                with open(path, "rb") as fh:
                    key = fh.read(65)
            except OSError as err:
                raise StoreError(f"{path}: cannot be read ({err.strerror})") from None
            if len(key) != 32:
                raise StoreError(f"{path}: not a key of 32 bytes (damaged: delete it and the seats' links "
                                 "stop working)")
            return key
        except OSError as err:
            raise StoreError(f"{path}: cannot be made ({err.strerror})") from None
        key = secrets.token_bytes(32)
        with os.fdopen(fd, "wb") as fh:
            fh.write(key)
        return key

    def close(self) -> None:
        with self.lock:
            self.db.close()

    # -- seats' tokens ------------------------------------------------------------------------
    def token(self, key: str, seat: int) -> str:
        """The token of ``seat`` at table ``key`` (the same after every restart, unguessable without the key)."""
        mac = hmac.new(self.key, f"seat-token\x00{key}\x00{seat}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac[:18]).decode("ascii")

    # -- writing ------------------------------------------------------------------------------
    def _write(self, work: "Any") -> None:
        with self.lock:
            try:
                self.db.execute("BEGIN IMMEDIATE")
                work(self.db)
                self.db.execute("COMMIT")
            except sqlite3.Error as err:
                try:
                    if self.db.in_transaction:
                        self.db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                raise StoreUnavailable(f"the server could not save the table ({err})") from None

    def create(self, table: Stored) -> None:
        """Keep a new table (its moves so far included)."""

        def work(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO tables (id, game, options, humans, agents, seed, token_hashes, created, touched, "
                       "over, version, agent_to_move) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (table.key, table.game, json.dumps(table.options, sort_keys=True), json.dumps(table.humans),
                        json.dumps({str(s): n for s, n in table.agents.items()}), table.seed,
                        json.dumps({str(s): h for s, h in table.token_hashes.items()}), table.created,
                        table.touched, int(table.over), table.version, int(table.agent_to_move)))
            _put_moves(db, table.key, 0, table.moves)

        self._write(work)

    def save(self, key: str, keep: int, moves: list[tuple[int, str, bool]], over: bool, version: int,
             agent_to_move: bool = False) -> None:
        """One change of table ``key``: its stored moves from index ``keep`` on replaced by ``moves`` (an undo
        removes, a move adds), in one transaction."""

        def work(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM moves WHERE table_id = ? AND n >= ?", (key, keep))
            _put_moves(db, key, keep, moves)
            db.execute("UPDATE tables SET touched = ?, over = ?, version = ?, agent_to_move = ? WHERE id = ?",
                       (time.time(), int(over), version, int(agent_to_move), key))

        self._write(work)

    def set_next(self, key: str, next_id: str) -> None:
        """Table ``key`` is followed by ``next_id`` ("play again")."""
        self._write(lambda db: db.execute("UPDATE tables SET next_id = ? WHERE id = ?", (next_id, key)))

    # -- reading ------------------------------------------------------------------------------
    def load(self, key: str) -> Stored | None:
        """The table ``key`` as stored, or None."""
        with self.lock:
            row = self.db.execute("SELECT id, game, options, humans, agents, seed, token_hashes, created, touched, "
                                  "over, version, next_id FROM tables WHERE id = ?", (key,)).fetchone()
            if row is None:
                return None
            moves = self.db.execute("SELECT seat, action, person FROM moves WHERE table_id = ? ORDER BY n",
                                    (key,)).fetchall()
        return _stored(row, moves)

    def waiting_for_agents(self, limit: int) -> list[str]:
        """The tables (at most ``limit``, the latest moved first) whose game waits for an agent's move."""
        with self.lock:
            return [row[0] for row in self.db.execute(
                "SELECT id FROM tables WHERE agent_to_move = 1 AND over = 0 ORDER BY touched DESC LIMIT ?", (limit,))]

    def keys(self) -> list[str]:
        """Every stored table's id, oldest first."""
        with self.lock:
            return [row[0] for row in self.db.execute("SELECT id FROM tables ORDER BY created, id")]

    def count(self) -> int:
        with self.lock:
            return int(self.db.execute("SELECT count(*) FROM tables").fetchone()[0])

    def __iter__(self) -> Iterator[Stored]:
        for key in self.keys():
            table = self.load(key)
            if table is not None:
                yield table


def _put_moves(db: sqlite3.Connection, key: str, start: int, moves: list[tuple[int, str, bool]]) -> None:
    db.executemany("INSERT INTO moves (table_id, n, seat, action, person) VALUES (?, ?, ?, ?, ?)",
                   [(key, start + i, seat, text, int(person)) for i, (seat, text, person) in enumerate(moves)])


def _stored(row: tuple[Any, ...], moves: list[tuple[Any, ...]]) -> Stored:
    key, game, options, humans, agents, seed, hashes, created, touched, over, version, next_id = row
    return Stored(key, game, json.loads(options), tuple(json.loads(humans)),
                  {int(s): n for s, n in json.loads(agents).items()}, int(seed),
                  {int(s): h for s, h in json.loads(hashes).items()}, float(created), float(touched), bool(over),
                  int(version), next_id, [(int(seat), str(text), bool(person)) for seat, text, person in moves])


__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "Store", "Stored", "StoreError", "StoreUnavailable", "token_hash",
           "data_directory", "default_path"]
