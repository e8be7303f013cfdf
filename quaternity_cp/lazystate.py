"""A lazy win solve kept in a folder: saved as it goes and when it stops, read back strictly, gone on from.

:class:`~quaternity_cp.lazywin.LazyWin` holds its partial graph in memory (a few dozen bytes a position), so a
run stopped by Ctrl-C, SIGTERM, a limit, a crash or the end of a session lost everything it had explored. With a
folder, :func:`open_lazy` starts the solve there or reads back the state it was saved in, and :func:`keep` saves
it every ``every`` seconds (between two batches) and once more when the solve returns; the next run with the same
game, start and seat goes on from the last state saved and ends as the uninterrupted run would have: the same
positions, moves, rounds and verdict (``tests/test_lazystate.py`` checks it at every stop).

**The folder.** ``lazy.json`` (the manifest, with a keyed digest, :mod:`quaternity_cp.digest`) and the part files
of one *generation* (:mod:`quaternity_cp.partfiles`: plain .npz, each listed with its size and SHA-256):
``nodes-G.npz`` (each node's seat, whether the player decides it, its replies explored and in all),
``edges-G.npz`` (the explored moves), ``keys-G.npz`` (the nodes' keys as the key store keeps them, with its
dictionaries) and, in the middle of a round's widening, ``meets-G.npz`` (the opponent nodes the strategy met).
A save writes generation G + 1's files, then the manifest (atomically: written aside, then renamed), then removes
generation G's: a run killed at any point leaves one whole state, the old or the new.

**Reading back** is strict, before anything of the solve runs: the manifest's keyed digest and its head (the
game's identity, the seat, the layout) must be the run's, every file listed must be there with its size (checked
before a byte is allocated), its SHA-256 the manifest's, a .npz of exactly the arrays it should hold (their
headers, dtypes and shapes from the manifest's counts), read straight into the solve's arrays; then every id, seat
and count in range and every key's code in its dictionary. Anything else is one line naming the file and the
reason (:class:`LazyStateError`). A folder holding the partitioned solver's checkpoint (``manifest.json``) is
refused, as the partitioned solver refuses this one.

**An answer without its graph** (``--drop-graph``): once the solve is answered, :func:`drop` replaces the
manifest by one holding the answer (``"dropped": true``: the verdict, the plies, the sizes of the graph it took)
and no file, then removes the state's files; :func:`read_answer` reads such a manifest back, as strictly, and
the next run answers from it without solving (no strategy tree: the graph is gone).

What the state does not keep: the hash table of the nodes (placed again from the keys as they are read) and the
ranks (computed again at the next round's end). The time limit and the position limit are the run's own: the
position limit counts every position stored (the earlier runs' too), the time limit this run's seconds.

This module names no game.
"""

from __future__ import annotations

import glob
import json
import math
import os
import re
import time
import weakref
from typing import Any, Callable, Mapping

import numpy as np

from .digest import sign_json, verify_json
from .errors import QuaternityError
from .files import write_atomic
from .imports import STOP_SIGNALS, holding_signals
from .jsonio import read_json_file
from .keystore import KeyStore
from .lazywin import BATCH, MAX_NODES, ROOT, LazyWin
from .partfiles import Entry, check_present, is_entry, read_npz, save_npz, size_fits
from .partitioned import Packed

__all__ = ["LazyStateError", "MANIFEST", "LAYOUT", "OTHER_MANIFEST", "LOCK", "ANSWER_FIELDS", "open_lazy", "keep",
           "save", "drop", "read_answer", "close", "head", "is_lazy_folder"]

#: the manifest's name in the folder
MANIFEST = "lazy.json"
#: the partitioned solver's manifest (a folder holding one is not this solve's)
OTHER_MANIFEST = "manifest.json"
#: the layout of the files this version writes
LAYOUT = 1
#: the most ranges of nodes waiting to be expanded (one per batch that added nodes: far fewer than the nodes)
MAX_TODO = MAX_NODES
_NAME = re.compile(r"^(nodes|edges|keys|words|meets)-(\d+)\.npz(\.tmp.*)?$")


class LazyStateError(QuaternityError):
    """A folder that cannot hold, or does not hold, this solve's state; or a state that could not be saved."""


def head(packed: Packed, player: int, compress: bool) -> dict[str, Any]:
    """The manifest's fields that name the solve: the game's format and identity, the seat, how keys are kept."""
    return {"format": f"{packed.format}-lazy", "layout": LAYOUT, **packed.identity(), "player": player,
            "compress": compress}


def _purpose(packed: Packed) -> str:
    return f"{packed.name}-lazy-manifest"


def is_lazy_folder(folder: str) -> bool:
    """Whether ``folder`` holds a lazy solve's manifest (for the partitioned solver's refusal of it)."""
    return os.path.lexists(os.path.join(folder, MANIFEST))


def _specs(n: int, m: int, width: int, stride: int, used: int, chunk_cols: int, meets: int | None,
           chunk: int) -> dict[str, dict[str, tuple["np.dtype[Any]", tuple[int, ...]]]]:
    i8, i16, i32, i64, u8, u64 = (np.dtype(t) for t in ("<i1", "<i2", "<i4", "<i8", "u1", "<u8"))
    out: dict[str, dict[str, tuple["np.dtype[Any]", tuple[int, ...]]]] = {"nodes": {"seats": (i8, (n,)), "mine": (u8, (n,)), "nth": (i16, (n,)), "total": (i16, (n,))},
           "edges": {"es": (i32, (m,)), "ed": (i32, (m,))},
           "keys": {"rows": (u64, (n * stride,))},
           "words": {"bits": (i64, (width,)), "counts": (i64, (width,)), "chunks": (i64, (width, chunk_cols)),
                     "pool": (u64, (used, chunk))}}
    if meets is not None:
        out["meets"] = {"meets": (i32, (meets,))}
    return out


# -- saving ------------------------------------------------------------------------------------------------------
def save(lazy: LazyWin, folder: str, *, extra: Mapping[str, Any] | None = None) -> int:
    """Write the solve's state to ``folder`` (made when missing) as the next generation, then its manifest, then
    remove the generation before; returns the bytes written. Signals that stop a solve are held meanwhile (a
    save is never left half done by them). ``extra``: fields kept in the manifest besides the state (the seconds
    spent so far, the verdict known...)."""
    if not lazy.begun:  # (answered before its start was stored: a game over at once, a start it cannot win)
        return 0
    with holding_signals(*STOP_SIGNALS):
        return _save(lazy, folder, dict(extra or {}))


def _save(lazy: LazyWin, folder: str, extra: dict[str, Any]) -> int:
    try:
        os.makedirs(folder, exist_ok=True)
        old = _read_manifest_quietly(folder, lazy)
        if old is not None and lazy.changes == lazy.saved_changes:  # (the arrays on disk are the state's)
            body = {**old, "extra": extra}
            _write_manifest(folder, lazy.packed, body)
            return 0
        gen = (old["generation"] + 1) if old is not None else 1
        _remove_strays(folder, keep=set(old["files"]) if old is not None else set())
        n, m = lazy.n, lazy.m
        store = lazy.store.saved(n)
        files: dict[str, Entry] = {}
        files[f"nodes-{gen}.npz"] = save_npz(os.path.join(folder, f"nodes-{gen}.npz"), n, 0,
                                             seats=lazy.seats[:n], mine=lazy.mine[:n].view(np.uint8),
                                             nth=lazy.nth[:n], total=lazy.total[:n])
        files[f"edges-{gen}.npz"] = save_npz(os.path.join(folder, f"edges-{gen}.npz"), 0, m,
                                             es=lazy.es[:m], ed=lazy.ed[:m])
        files[f"keys-{gen}.npz"] = save_npz(os.path.join(folder, f"keys-{gen}.npz"), n, 0, rows=store.pop("rows"))
        files[f"words-{gen}.npz"] = save_npz(os.path.join(folder, f"words-{gen}.npz"), 0, 0, bits=store["bits"],
                                             counts=store["counts"], chunks=store["chunks"], pool=store["pool"])
        meets = None
        if lazy.meets is not None:
            meets = len(lazy.meets)
            files[f"meets-{gen}.npz"] = save_npz(os.path.join(folder, f"meets-{gen}.npz"), meets, 0,
                                                 meets=np.ascontiguousarray(lazy.meets, np.int32))
        body = {**head(lazy.packed, lazy.player, lazy.store.compress), "generation": gen, "nodes": n, "edges": m,
                "expanded": lazy.expanded, "rounds": lazy.rounds, "rate": float(lazy.rate), "begun": lazy.begun,
                "answered": lazy.answered,
                "cur": lazy.cur, "todo": lazy.todo, "meets": meets, "meet_at": lazy.meet_at,
                "stride": int(lazy.store.stride), "used": int(lazy.store.used[0]),
                "chunk_cols": int(lazy.store.chunks.shape[1]), "raw_min": int(lazy.store.raw_min),
                "chunk": int(lazy.store.pool.shape[1]) if lazy.store.pool.ndim == 2 else 0,
                "extra": extra, "files": files}
        _write_manifest(folder, lazy.packed, body)
        lazy.saved_changes = lazy.changes
        _remove_strays(folder, keep=set(files))
        return sum(int(e[0]) for e in files.values())
    except OSError as err:
        try:  # (the new generation's files written so far: the disk they take is given back)
            current = _read_manifest_quietly(folder, lazy)
            _remove_strays(folder, keep=set(current["files"]) if current is not None else set())
        except OSError:
            pass
        raise LazyStateError(f"{folder}: the solve's state could not be saved ({err.strerror or err}); the "
                             "state saved before, if any, is kept") from None


#: what a dropped state's manifest keeps of the answer (:func:`drop`)
ANSWER_FIELDS = ("verdict", "plies", "positions", "expanded", "edges", "rounds", "array_bytes", "stored_key_words")


def drop(lazy: LazyWin, folder: str, answer: Mapping[str, Any], *, extra: Mapping[str, Any] | None = None) -> None:
    """Keep only the answer of ``lazy``'s solve in ``folder`` (``--drop-graph``): the manifest replaced (atomically)
    by one holding ``answer`` (:data:`ANSWER_FIELDS`; the verdict must be known) and no file, then every file of the
    state removed. Signals that stop a solve are held meanwhile. A failure to write leaves the state as it was."""
    if lazy.verdict is None:
        raise ValueError("only an answered solve's graph is dropped")
    body = {**head(lazy.packed, lazy.player, lazy.store.compress), "dropped": True,
            "answer": {k: answer[k] for k in ANSWER_FIELDS}, "extra": dict(extra or {}), "files": {}}
    _check_answer(os.path.join(folder, MANIFEST), body["answer"])
    with holding_signals(*STOP_SIGNALS):
        try:
            os.makedirs(folder, exist_ok=True)
            _write_manifest(folder, lazy.packed, body)
            _remove_strays(folder, keep=set())
        except OSError as err:
            raise LazyStateError(f"{folder}: the answer could not be kept there ({err.strerror or err}); the "
                                 "state saved before, if any, is kept") from None


def read_answer(folder: str, packed: Packed, player: int, compress: bool = True) -> dict[str, Any] | None:
    """The answer a folder keeps without its graph (:func:`drop`): the manifest's ``answer`` and ``extra`` once
    its digest, head and every field are checked; None when the folder holds no such manifest (none, or a state
    to go on from). Refused as :func:`open_lazy` refuses (:class:`LazyStateError`)."""
    if not os.path.isdir(folder):
        if os.path.lexists(folder):
            raise LazyStateError(f"{folder}: not a folder")
        return None
    data = _load(folder, packed, player, compress)
    if data is None or "dropped" not in data:
        return None
    path = os.path.join(folder, MANIFEST)
    if data["dropped"] is not True or data.get("files") != {}:
        raise LazyStateError(f"{path}: dropped must be true, with no files listed")
    answer = data.get("answer")
    if not isinstance(answer, dict):
        raise LazyStateError(f"{path}: answer must be an object")
    _check_answer(path, answer)
    extra = data.get("extra")
    if not isinstance(extra, dict):
        raise LazyStateError(f"{path}: extra must be an object")
    seconds = extra.get("seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) or \
            not 0 <= seconds <= 2**40:
        raise LazyStateError(f"{path}: extra's seconds must be a number of seconds, not {json.dumps(seconds)[:40]}")
    _whole(path, extra, "runs", 1, 2**62)
    return {"answer": answer, "extra": extra}


def _check_answer(path: str, answer: Mapping[str, Any]) -> None:
    if sorted(answer) != sorted(ANSWER_FIELDS):
        raise LazyStateError(f"{path}: answer must hold {', '.join(ANSWER_FIELDS)}")
    verdict = answer["verdict"]
    if not isinstance(verdict, bool):
        raise LazyStateError(f"{path}: answer's verdict must be true or false, not {json.dumps(verdict)[:20]}")
    plies = answer["plies"]
    if verdict:
        _whole(path, answer, "plies", 0, 2**31)
    elif plies is not None:
        raise LazyStateError(f"{path}: a \"no\" has no plies, not {json.dumps(plies)[:20]}")
    _whole(path, answer, "positions", 0, MAX_NODES)
    _whole(path, answer, "expanded", 0, 2**62)
    _whole(path, answer, "edges", 0, 2**40)
    _whole(path, answer, "rounds", 0, 2**62)
    _whole(path, answer, "array_bytes", 0, 2**62)
    _whole(path, answer, "stored_key_words", 0, 2**8)


def _write_manifest(folder: str, packed: Packed, body: dict[str, Any]) -> None:
    text = json.dumps({**body, "digest": sign_json(body, _purpose(packed))}, sort_keys=True, separators=(",", ":"))
    write_atomic(os.path.join(folder, MANIFEST), text + "\n")


def _remove_strays(folder: str, keep: set[str]) -> None:
    """This module's files in ``folder`` that ``keep`` does not name: another generation's, or left by a save
    that was cut short."""
    for path in glob.glob(os.path.join(glob.escape(folder), "*")):
        name = os.path.basename(path)
        if _NAME.match(name) and name not in keep and os.path.isfile(path) and not os.path.islink(path):
            os.unlink(path)


def _read_manifest_quietly(folder: str, lazy: LazyWin) -> dict[str, Any] | None:
    """The folder's state's manifest, None when there is none, it is refused, or it keeps a dropped answer."""
    try:
        data = _load(folder, lazy.packed, lazy.player, lazy.store.compress)
    except LazyStateError:
        return None
    return None if data is None or "dropped" in data else data


def keep(lazy: LazyWin, folder: str, every: float, extra: Callable[[], Mapping[str, Any]] | None = None,
         on_save: Callable[[int, float], None] | None = None, on_error: Callable[[str], None] | None = None) -> None:
    """Save ``lazy``'s state to ``folder`` every ``every`` seconds while it solves (between two batches);
    ``extra``: a function of no arguments giving the manifest's extra fields at each save; ``on_save``: told the
    bytes written and the seconds it took after each; ``on_error``: told why a save failed (the solve then goes
    on, and the next save is tried as planned; without it the failure stops the solve)."""
    def keeper(w: LazyWin) -> None:
        began = time.monotonic()
        try:
            wrote = save(w, folder, extra=extra() if extra is not None else None)
        except LazyStateError as err:  # (a disk full: the solve goes on, the state saved before is kept)
            if on_error is None:
                raise
            on_error(str(err))
            return
        if on_save is not None:
            on_save(wrote, time.monotonic() - began)

    lazy.keeper = keeper
    lazy.keep_every = float(every)


# -- reading back ----------------------------------------------------------------------------------------------------
def _load(folder: str, packed: Packed, player: int, compress: bool) -> dict[str, Any] | None:
    """The folder's manifest once its keyed digest and head are checked; None when there is none."""
    path = os.path.join(folder, MANIFEST)
    if os.path.lexists(os.path.join(folder, OTHER_MANIFEST)):
        raise LazyStateError(f"{folder}: holds the partitioned solver's checkpoint ({OTHER_MANIFEST}), not a lazy "
                             "solve's; use another folder")
    data = read_json_file(path, LazyStateError, "lazy solve's state")
    if data is None:
        return None
    if not isinstance(data, dict) or "digest" not in data:
        raise LazyStateError(f"{path}: not a lazy solve's state of this program")
    want = head(packed, player, compress)
    got = data.get("format")
    if got != want["format"]:
        raise LazyStateError(f"{path}: the state of another game or solver (format {json.dumps(got)[:40]}, not "
                             f"{want['format']!r}); use another folder")
    if data.get("layout") != LAYOUT:
        raise LazyStateError(f"{path}: written by another version (layout {json.dumps(data.get('layout'))[:20]}, "
                             f"this version's is {LAYOUT}); remove the folder or use another one")
    digest = data.pop("digest")
    if not isinstance(digest, str) or not verify_json(digest, data, _purpose(packed)):
        raise LazyStateError(f"{path}: the state was changed or damaged, or written under another user's key (its "
                             "keyed digest does not match); remove the folder to start again")
    for k, v in want.items():
        if data.get(k) != v:
            if k == "player":
                raise LazyStateError(f"{path}: the state of seat {json.dumps(data.get(k))[:20]}'s solve, not seat "
                                     f"{player}'s; use another folder (one a seat)")
            raise LazyStateError(f"{path}: the state of another {_differs(k, data.get(k), v)}; use another folder")
    return data


def _differs(name: str, there: object, asked: object) -> str:
    """What differs between a state's identity field and the run's, in words (for its refusal)."""
    def short(v: object) -> str:
        name = v.get("name") if isinstance(v, dict) else None
        return name if isinstance(name, str) else json.dumps(v)[:40]

    if isinstance(there, dict) and isinstance(asked, dict) and short(there) == short(asked):
        return f"game: {name} {short(asked)} with other options there"
    return f"game: {name} {short(there)} there, {short(asked)} asked"


def _whole(path: str, data: Mapping[str, Any], name: str, lo: int, hi: int) -> int:
    v = data.get(name)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise LazyStateError(f"{path}: {name} must be a whole number {lo}..{hi:,}, not {json.dumps(v)[:40]}")
    return v


def _range(path: str, name: str, v: object, lo: int, hi: int) -> list[int]:
    if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in v)
            and lo <= v[0] < v[1] <= hi):
        raise LazyStateError(f"{path}: {name} must be a range [lo, hi) of nodes {lo}..{hi:,}, not "
                             f"{json.dumps(v)[:60]}")
    return [int(v[0]), int(v[1])]


def open_lazy(folder: str, packed: Packed, player: int, *, batch: int = BATCH, expect: int | None = None,
              compress: bool = True) -> tuple[LazyWin, dict[str, Any] | None]:
    """The lazy solve of seat ``player`` over ``packed``: read back from ``folder``'s state when it holds one
    (the arrays given room for ``expect`` positions, as a new solve's are), else a new one; and the state's
    manifest (None: new). Refuses (:class:`LazyStateError`, one line naming the file) a folder that is not a
    folder, holds another checkpoint or another game's, start's, seat's state, or a damaged one."""
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise LazyStateError(f"{folder}: not a folder")
    data = _load(folder, packed, player, compress) if os.path.isdir(folder) else None
    if data is not None and "dropped" in data:
        raise LazyStateError(f"{os.path.join(folder, MANIFEST)}: keeps the answer of a solve whose graph was "
                             "dropped, no state to go on from (read_answer reads it)")
    if data is None and os.path.isdir(folder):
        others = sorted(name for name in os.listdir(folder) if not _NAME.match(name) and name != LOCK)
        if others:  # (this module's files only: those of a first save cut short)
            raise LazyStateError(f"{folder}: holds other files ({', '.join(others[:3])}{', ...' if len(others) > 3 else ''}) "
                                 "and no lazy solve's state; give a new or empty folder")
    lock = _lock(folder)
    try:
        if data is not None:  # (read again under the lock: another run may have saved meanwhile)
            data = _load(folder, packed, player, compress)
        lazy = LazyWin(packed, player, batch=batch, expect=expect, compress=compress)
        if data is not None:
            _fill(lazy, folder, data)
    except BaseException:
        _unlock(lock)
        raise
    holder = [lock]  # (closed once: by close(), or when the solve is collected)
    lazy.lock = holder
    weakref.finalize(lazy, _unlock_held, holder)
    return lazy, data


#: the lock file of a folder in use
LOCK = "lazy.lock"


def _lock(folder: str) -> int | None:
    """The folder made if missing, and an exclusive lock of it for as long as the solve lives (one run at a time
    goes on from a state: two would remove each other's files); refused when another run holds it. None where
    the system has no ``flock``."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not a POSIX system
        return None
    try:
        os.makedirs(folder, exist_ok=True)
        fd = os.open(os.path.join(folder, LOCK), os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError as err:
        raise LazyStateError(f"{folder}: cannot keep the solve's state there ({err.strerror or err})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise LazyStateError(f"{folder}: another run is going on from this state (its lock is held); wait for it "
                             "to end, or use another folder") from None
    return fd


def _unlock(fd: int | None) -> None:
    if fd is not None:
        try:
            os.close(fd)
        except OSError:  # pragma: no cover - closed already
            pass


def _unlock_held(holder: list[int | None]) -> None:
    fd, holder[0] = holder[0], None
    _unlock(fd)


def close(lazy: LazyWin) -> None:
    """Let another run go on from the folder (the lock :func:`open_lazy` took; also released when ``lazy`` is
    collected, or the process ends)."""
    holder = getattr(lazy, "lock", None)
    if holder is not None:
        _unlock_held(holder)


def _fill(lazy: LazyWin, folder: str, data: dict[str, Any]) -> None:
    path = os.path.join(folder, MANIFEST)
    W = lazy.W
    n = _whole(path, data, "nodes", ROOT + 1, MAX_NODES)
    m = _whole(path, data, "edges", 0, 2**40)
    gen = _whole(path, data, "generation", 1, 2**62)
    expanded = _whole(path, data, "expanded", 0, 2**62)
    rounds = _whole(path, data, "rounds", 0, 2**62)
    stride = _whole(path, data, "stride", 1, W)
    used = _whole(path, data, "used", 0, 2**40)
    chunk_cols = _whole(path, data, "chunk_cols", 1, 2**40)
    chunk = _whole(path, data, "chunk", 0, 2**20)
    raw_min = _whole(path, data, "raw_min", 0, 2**62)
    meet_at = _whole(path, data, "meet_at", 0, MAX_NODES)
    if lazy.store.compress and chunk != lazy.store.pool.shape[1]:
        raise LazyStateError(f"{path}: chunk must be {lazy.store.pool.shape[1]}, not {chunk}")
    rate = data.get("rate")
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not math.isfinite(rate) or not \
            1 <= rate <= 2**31:
        raise LazyStateError(f"{path}: rate must be a number 1..2^31, not {json.dumps(rate)[:40]}")
    answered = data.get("answered", False)  # (absent: false)
    if not isinstance(answered, bool):
        raise LazyStateError(f"{path}: answered must be true or false, not {json.dumps(answered)[:20]}")
    if data.get("begun") is not True:
        raise LazyStateError(f"{path}: begun must be true (a state is saved once the start is added)")
    cur = data.get("cur")
    if cur is not None:
        cur = _range(path, "cur", cur, ROOT, n)
    todo = data.get("todo")
    if not isinstance(todo, list) or len(todo) > MAX_TODO:
        raise LazyStateError(f"{path}: todo must be a list of ranges of nodes")
    todo = [_range(path, "todo", r, ROOT, n) for r in todo]
    meets = data.get("meets")
    if meets is not None:
        meets = _whole(path, data, "meets", 0, n)
        if meet_at > meets:
            raise LazyStateError(f"{path}: meet_at {meet_at} is past the {meets} nodes met")
    elif meet_at:
        raise LazyStateError(f"{path}: meet_at must be 0 when no nodes met are waiting")
    files = data.get("files")
    specs = _specs(n, m, W, stride, used, chunk_cols, meets, chunk)
    want = {f"{kind}-{gen}.npz": kind for kind in specs}
    if not isinstance(files, dict) or sorted(files) != sorted(want) or not all(is_entry(e) for e in files.values()):
        raise LazyStateError(f"{path}: files must list {', '.join(sorted(want))}, each [bytes, SHA-256, n, m]")
    for name, kind in want.items():
        if not size_fits(int(files[name][0]), specs[kind]):
            raise LazyStateError(f"{path}: {name} is listed with {int(files[name][0]):,} bytes, which cannot hold "
                                 "the arrays its counts call for")
    check_present(folder, files, LazyStateError)  # (every file there, of its size, before a byte is allocated)

    def read(kind: str, into: Mapping[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
        name = f"{kind}-{gen}.npz"
        return read_npz(os.path.join(folder, name), files[name], specs[kind], LazyStateError, into=into)

    # the dictionaries first (small), checked, then the store made with room for the rows, which are read into it
    words = read("words")
    words_path = os.path.join(folder, f"words-{gen}.npz")
    why = KeyStore.check_saved(W, lazy.store.compress, words["bits"], words["counts"], words["chunks"], used)
    if why is None and (not lazy.store.compress and used):
        why = "a store of plain keys has no dictionaries"
    if why is not None:
        raise LazyStateError(f"{words_path}: {why}; remove the folder to start again")
    cap = max(lazy.store.capacity, n + 1)
    store = KeyStore.restore(W, cap, lazy.store.compress, raw_min, words["bits"], words["counts"],
                             words["chunks"], words["pool"])
    del words
    if store.stride != stride:
        raise LazyStateError(f"{words_path}: its words' widths make rows of {store.stride} words, not the "
                             f"{stride} the manifest gives; remove the folder to start again")
    keys_path = os.path.join(folder, f"keys-{gen}.npz")
    read("keys", into={"rows": store.rows_to_fill(n)})
    bad = store.first_bad_row(n)
    if bad >= 0:
        raise LazyStateError(f"{keys_path}: row {bad} holds a code that no dictionary holds; remove the folder to "
                             "start again")
    lazy.store = store
    for name in ("seats", "mine", "nth", "total"):
        arr = getattr(lazy, name)
        if len(arr) < cap:
            grown = np.zeros(cap, arr.dtype)
            setattr(lazy, name, grown)
    nodes_path = os.path.join(folder, f"nodes-{gen}.npz")
    read("nodes", into={"seats": lazy.seats[:n], "mine": lazy.mine[:n].view(np.uint8), "nth": lazy.nth[:n],
                        "total": lazy.total[:n]})
    _within(nodes_path, "seats", lazy.seats[:n], 0, lazy.P)
    _within(nodes_path, "mine", lazy.mine[:n].view(np.uint8), 0, 2)
    _within(nodes_path, "total", lazy.total[:n], 0, 2**15)
    _within(nodes_path, "nth", lazy.nth[:n], 0, 2**15, upto=lazy.total[:n])
    if len(lazy.es) < m:
        lazy.es = np.zeros(m + m // 2 + 1, np.int32)
        lazy.ed = np.zeros(m + m // 2 + 1, np.int32)
    read("edges", into={"es": lazy.es[:m], "ed": lazy.ed[:m]})
    edges_path = os.path.join(folder, f"edges-{gen}.npz")
    _within(edges_path, "es", lazy.es[:m], ROOT, n)
    _within(edges_path, "ed", lazy.ed[:m], 0, n)
    if meets is not None:
        got = read("meets")["meets"]
        _within(os.path.join(folder, f"meets-{gen}.npz"), "meets", got, ROOT, n)
        lazy.meets = np.array(got, np.int32)
    lazy.n, lazy.m = n, m
    lazy.expanded, lazy.rounds, lazy.rate = expanded, rounds, float(rate)
    lazy.begun, lazy.cur, lazy.todo, lazy.meet_at, lazy.answered = True, cur, todo, meet_at, answered
    if answered and (cur is not None or todo or meets is not None):
        raise LazyStateError(f"{path}: answered, yet with positions left to expand")
    lazy.saved_changes = lazy.changes
    lazy.place_all()


#: values checked at a time by :func:`_within`
CHECK_CHUNK = 1 << 22


def _within(path: str, name: str, values: np.ndarray, lo: int, hi: int, upto: np.ndarray | None = None) -> None:
    """Every value ``lo <= v < hi`` (and ``v <= upto`` where given, value by value), else one line naming the
    file, the array and the first value outside."""
    for a in range(0, len(values), CHECK_CHUNK):
        v = values[a:a + CHECK_CHUNK]
        out = (v < lo) | (v >= hi)
        if upto is not None:
            out |= v > upto[a:a + CHECK_CHUNK]
        if out.any():
            i = a + int(np.argmax(out))
            raise LazyStateError(f"{path}: {name}[{i}] holds {int(values[i])}, outside "
                                 f"{'its bounds' if upto is not None else f'{lo}..{hi - 1}'}; remove the folder to "
                                 "start again")
