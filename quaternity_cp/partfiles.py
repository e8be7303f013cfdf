"""A checkpoint's part files: numpy arrays written atomically with their fingerprint, read back strictly.

The partitioned solvers keep their work on disk between steps, one ``.npz``
file per part and step (stored plain, or each array deflated where the solver
says so), and list each file in their manifest
with an **entry** ``[bytes, SHA-256 in hex, positions, edges]`` (the counts say
which shapes its arrays have). A manifest carries a keyed digest
(:mod:`quaternity_cp.digest`), so a file is believed only when it is the one the
manifest describes. This module holds what every such solver does with them:

* :func:`save_npz` writes arrays to a file (a temporary file renamed over the
  target) and returns its entry;
* :func:`read_npz` reads one back strictly: a regular file (no link, pipe or
  device) of the size its entry gives, checked before a byte is read; its
  SHA-256 the entry's; a .npz of exactly the arrays a *spec* names, stored
  plain (or deflated, where the caller allows it: inflated only when the size
  a member declares is its array's, and never past it), each .npy header's
  dtype and shape the spec's (before any array is made: no object arrays,
  nothing unpickled); plain arrays share the file's one buffer; a file that
  may hold deflated arrays is streamed (its directory first, then every byte
  into its SHA-256 and into its array's buffer, through one small buffer: its
  deflated bytes are never held whole);
* :func:`check_ranges` then checks every id and number in range;
* :func:`check_present` checks, before anything is allocated, that every file
  a manifest lists is there as a regular file of its size.

Every refusal is one line naming the file, raised as the caller's error class
(each solver has its own, derived from :class:`~quaternity_cp.errors.QuaternityError`).

This module imports only the package's digests and file helpers; it names no game.
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import stat
import threading
import zipfile
import zlib
from typing import Any, Callable, Mapping

import numpy as np

from .digest import sha256_hex
from .files import not_a_regular_file

__all__ = ["Entry", "Spec", "ErrorClass", "OVERHEAD", "OVERHEAD_PER_ARRAY", "fingerprint", "save_npz",
           "data_bytes", "size_fits", "read_bytes", "parse_npz", "read_npz", "outside", "check_ranges",
           "check_present", "is_entry", "DEFLATE_RATIO"]

#: an entry of a manifest's files: [bytes, SHA-256 in hex, positions (rows per position), edges (rows per edge)]
Entry = list[Any]
#: the arrays of a part file: name -> (dtype, shape)
Spec = Mapping[str, tuple["np.dtype[Any]", tuple[int, ...]]]
#: what a refusal is raised as: the caller's error class (called with the one-line message)
ErrorClass = Callable[[str], BaseException]

#: the room a part file takes beyond its arrays' bytes (zip and .npy headers), at most, per array and in all
OVERHEAD_PER_ARRAY, OVERHEAD = 1024, 4096
#: deflate shrinks data at most about 1,032-fold: a deflated file of ``size`` bytes holds at most this many times
#: as many bytes of arrays (what the manifest's counts may claim of it, and what reading it may allocate)
DEFLATE_RATIO = 1100
#: deflate's level for part files (1: the fastest; sorted keys and ids as differences deflate well even there)
DEFLATE_LEVEL = 1


def fingerprint(path: str) -> tuple[int, str]:
    """The size and SHA-256 of the file ``path`` (read into one buffer of at most 256 KB, reused)."""
    h = hashlib.sha256()
    size = 0
    with open(path, "rb", buffering=0) as fh:
        buf = bytearray(max(1, min(1 << 18, os.fstat(fh.fileno()).st_size)))  # (no 256 KB for a small file)
        view = memoryview(buf)
        while True:
            got = fh.readinto(view)
            if not got:
                break
            h.update(view[:got])
            size += got
    return size, h.hexdigest()


def save_npz(path: str, n: int, m: int, *, deflate: bool = False, **arrays: np.ndarray) -> Entry:
    """``arrays`` to ``path`` (.npz, uncompressed, or each member deflated when ``deflate``), atomically; returns
    its manifest entry ``[bytes, SHA-256, n, m]`` (``n`` positions, ``m`` edges)."""
    from .imports import holding_ctrl_c

    tmp = f"{path}.tmp{os.getpid()}-{threading.get_ident()}.npz"  # (a task run twice at once never shares it)
    try:
        with holding_ctrl_c():  # (a Ctrl-C comes after the file, not inside the zip writer)
            _write_npz(tmp, arrays, deflate)
        size, digest = fingerprint(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return [size, digest, n, m]


#: bytes of an array's data written at a time (a file is written without a copy of its arrays)
WRITE_CHUNK = 1 << 20


def _write_npz(path: str, arrays: Mapping[str, np.ndarray], deflate: bool = False) -> None:
    """``arrays`` as a .npz (what ``np.savez`` writes: one stored .npy member an array; ``deflate``: what
    ``np.savez_compressed`` writes, at :data:`DEFLATE_LEVEL`), each array's data written from a view of it,
    :data:`WRITE_CHUNK` bytes at a time (``np.savez`` makes a copy of each array's bytes first: a task saving its
    part held it twice)."""
    method, level = (zipfile.ZIP_DEFLATED, DEFLATE_LEVEL) if deflate else (zipfile.ZIP_STORED, None)
    with zipfile.ZipFile(path, "w", compression=method, allowZip64=True, compresslevel=level) as archive:
        for name, value in arrays.items():
            a = np.ascontiguousarray(value)
            if a.dtype.hasobject:  # pragma: no cover - the solvers write whole numbers only
                raise ValueError(f"array {name} holds Python objects")
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array_header_1_0(member, np.lib.format.header_data_from_array_1_0(a))
                data = a.reshape(-1).view(np.uint8).data if a.size else memoryview(b"")  # (a view: no copy)
                for at in range(0, len(data), WRITE_CHUNK):
                    member.write(data[at:at + WRITE_CHUNK])


def data_bytes(spec: Spec) -> int:
    """The bytes of the arrays ``spec`` names."""
    return sum(dt.itemsize * math.prod(shape) for dt, shape in spec.values())


def size_fits(size: int, spec: Spec, deflated: bool = False) -> bool:
    """Whether a file of ``size`` bytes can be a .npz of exactly the arrays ``spec`` names (their bytes, and at
    most :data:`OVERHEAD` plus :data:`OVERHEAD_PER_ARRAY` an array of headers; ``deflated``: its members may be
    deflated, so it may hold up to :data:`DEFLATE_RATIO` times its size, and deflate may add a thousandth)."""
    need = data_bytes(spec)
    room = OVERHEAD + OVERHEAD_PER_ARRAY * len(spec)
    if deflated:
        return need <= size * DEFLATE_RATIO and size <= need + need // 1000 + room
    return need <= size <= need + room


def is_entry(entry: object) -> bool:
    """Whether ``entry`` has the form of a manifest entry: a list of a whole number, 64 hex digits and two whole
    numbers (their ranges are the caller's to check)."""
    return (isinstance(entry, list) and len(entry) == 4 and isinstance(entry[1], str) and len(entry[1]) == 64
            and all(c in "0123456789abcdef" for c in entry[1])
            and all(isinstance(v, int) and not isinstance(v, bool) for v in (entry[0], entry[2], entry[3])))


class _Seekable(io.RawIOBase):
    """A read-only, seekable file of ``length`` bytes (its subclasses read them)."""

    length = 0
    pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self.pos, 2: self.length}[whence]
        self.pos = max(0, base + offset)
        return self.pos


class _View(_Seekable):
    """A read-only, seekable file over a buffer (no copy), for :mod:`zipfile` and the .npy header reader."""

    def __init__(self, view: memoryview):
        self.view, self.length, self.pos = view, len(view), 0

    def readinto(self, buffer: Any) -> int:
        got = self.view[self.pos:self.pos + len(buffer)]
        buffer[:len(got)] = got
        self.pos += len(got)
        return len(got)


def _open_checked(path: str, size: int, error: ErrorClass) -> int:
    """A descriptor of the regular file ``path``, opened without following a link and without blocking, checked
    to be of ``size`` bytes (refused, naming it: missing, not a regular file -- a symbolic link, a pipe, a
    device, a folder --, or of another size)."""
    kind = not_a_regular_file(path)
    if kind is not None:
        raise error(f"{path}: {kind}, not a regular file; the checkpoint's part files are regular files")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise error(f"{path}: missing (the checkpoint's manifest lists it); remove the folder to start "
                    "again") from None
    except OSError as err:
        raise error(f"{path}: cannot read it ({err.strerror or err})") from None
    try:
        info = os.fstat(fd)  # (of what was opened: no window between a check and the open)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{path}: not a regular file; the checkpoint's part files are regular files")
        if info.st_size != size:
            raise error(f"{path}: {info.st_size:,} bytes where the manifest says {size:,} (cut short, "
                        "emptied or replaced); remove the folder to start again")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _fill(fd: int, view: memoryview) -> int:
    """Bytes read from ``fd`` into ``view`` until it is full or the file ends."""
    got = 0
    while got < len(view):
        n = os.readv(fd, [view[got:]]) if hasattr(os, "readv") else _read_into(fd, view[got:])
        if n <= 0:
            break
        got += n
    return got


def read_bytes(path: str, size: int, error: ErrorClass) -> bytearray:
    """The ``size`` bytes of the regular file ``path`` (refused, naming it: missing, not a regular file -- a
    symbolic link, a pipe, a device, a folder --, or of another size), read without following a link and
    without blocking."""
    fd = _open_checked(path, size, error)
    try:
        buf = bytearray(size)
        if _fill(fd, memoryview(buf)) != size or os.read(fd, 1):
            raise error(f"{path}: it changed size while being read")
        return buf
    except OSError as err:
        raise error(f"{path}: cannot read it ({err.strerror or err})") from None
    finally:
        os.close(fd)


def _read_into(fd: int, view: memoryview) -> int:  # pragma: no cover - systems without readv
    data = os.read(fd, len(view))
    view[:len(data)] = data
    return len(data)


def read_npz(path: str, entry: Entry, spec: Spec, error: ErrorClass, deflated: bool = False,
             only: "frozenset[str] | None" = None,
             into: "Mapping[str, np.ndarray] | None" = None) -> dict[str, np.ndarray]:
    """The arrays of the part file ``path``, read strictly: a regular file of the size its manifest ``entry``
    gives (checked before reading), its SHA-256 the entry's, then a .npz of exactly the arrays of ``spec``,
    each stored uncompressed (or deflated, when ``deflated``: see :func:`parse_npz`) with its dtype and shape
    (read from each .npy header before any array is made; no object arrays, nothing unpickled). The arrays of
    stored members share the file's one buffer. ``only``: the arrays to make (every member is still checked to be
    one the spec names; the others' data is not read). ``into``: arrays of the spec's dtype and shape (C order,
    writable) that stored members of those names are read into, streamed, as each comes (a file of gigabytes
    read into arrays made beforehand, with room for more rows: never held twice); the arrays returned are
    those. A damaged file is refused (``error``, one line naming it).)"""
    if deflated or into:
        return _read_streamed(path, entry, spec, error, only, deflated, into)
    size, digest = entry[0], entry[1]
    buf = read_bytes(path, size, error)
    if sha256_hex(buf) != digest:
        raise error(_changed(path))
    return parse_npz(path, buf, spec, error, deflated, only)


def _changed(path: str) -> str:
    return (f"{path}: its SHA-256 is not the one the manifest gives (the file was changed, damaged or copied from "
            "another checkpoint); remove the folder to start again")


#: numpy parses a .npy header with ``ast.literal_eval``; CPython 3.11's AST constructor keeps its recursion
#: depth per interpreter, not per thread, so two threads parsing at once (a Dask worker's threads reading part
#: files) can fail with "SystemError: AST constructor recursion depth mismatch" (python/cpython#106905). The
#: headers are parsed under this lock.
_HEADER_LOCK = threading.Lock()


def parse_npz(path: str, buf: bytearray, spec: Spec, error: ErrorClass, deflated: bool = False,
              only: "frozenset[str] | None" = None) -> dict[str, np.ndarray]:
    """The arrays ``spec`` names from the .npz archive in ``buf`` (see :func:`read_npz`). ``deflated``: a member
    may be deflated; it is inflated only when the size it declares is its array's (the spec's bytes and at most
    :data:`OVERHEAD_PER_ARRAY` of header), and never past that size: a small file that would inflate to more is
    refused before a byte is inflated."""
    bad = _bad(path, error)
    view = memoryview(buf)
    out: dict[str, np.ndarray] = {}
    for name, info, start, inflate in _members(bad, _View(view), len(buf), spec, deflated, only):
        home, at = buf, start
        if inflate:
            sink = _Inflater(bad, name, info)
            for a in range(start, start + info.compress_size, INFLATE_CHUNK):
                sink.feed(view[a:min(a + INFLATE_CHUNK, start + info.compress_size)])
            home, at = sink.finish(), 0
        out[name] = _array(bad, name, info, home, at, spec[name])
    return out


def _bad(path: str, error: ErrorClass) -> Callable[[str], BaseException]:
    def bad(why: str) -> BaseException:
        return error(f"{path}: {why}; remove the folder to start again")
    return bad


def _members(bad: Callable[[str], BaseException], raw: io.RawIOBase, length: int, spec: Spec, deflated: bool,
             only: "frozenset[str] | None") -> list[tuple[str, zipfile.ZipInfo, int, bool]]:
    """The members of the .npz archive ``raw`` (a seekable file of ``length`` bytes) to read: (array name, its
    zip entry, where its data starts, whether it is deflated), checked: exactly the arrays ``spec`` names, stored
    (or deflated, when ``deflated``: declaring the size its array and a header take), none encrypted, each local
    header where the directory says and its data inside the file. Only the directory and local headers are
    read."""
    try:
        archive = zipfile.ZipFile(raw)
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError, KeyError) as err:
        raise bad(f"not a readable .npz archive ({err})") from None
    names = [info.filename for info in infos]
    want = sorted(f"{name}.npy" for name in spec)
    if sorted(names) != want:
        raise bad(f"holds the arrays {sorted(names)}, not {want}")
    out = []
    for info in infos:
        name = info.filename[:-4]
        dtype, shape = spec[name]
        if only is not None and name not in only:
            continue
        inflate = deflated and info.compress_type == zipfile.ZIP_DEFLATED
        if not inflate and (info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size):
            raise bad(f"array {name} is compressed (the program stores {'these' if deflated else 'its'} arrays "
                      f"{'plain or deflated' if deflated else 'plain'})")
        if info.flag_bits & 0x1:
            raise bad(f"array {name} is encrypted (the program stores its arrays plain or deflated)")
        off = info.header_offset
        raw.seek(off)
        local = raw.read(30) if 0 <= off <= length else b""
        if local is None or len(local) != 30 or local[:4] != b"PK\x03\x04":
            raise bad(f"array {name}: no zip header where the archive's directory says")
        start = off + 30 + int.from_bytes(local[26:28], "little") + int.from_bytes(local[28:30], "little")
        if start + info.compress_size > length:
            raise bad(f"array {name} runs past the end of the file")
        if inflate:
            need = dtype.itemsize * math.prod(shape)
            if not need <= info.file_size <= need + OVERHEAD_PER_ARRAY:
                raise bad(f"array {name} declares {info.file_size:,} bytes, where the manifest's counts call for "
                          f"{need:,} and a header")
        out.append((name, info, start, inflate))
    return out


def _expected_header(dtype: "np.dtype[Any]", shape: tuple[int, ...]) -> bytes:
    """The .npy header (magic, version 1.0, padded dict) that :func:`write_npz` writes for an array of ``dtype``
    and ``shape``: a member that begins with these bytes declares exactly them, so its header need not be parsed
    (numpy's parser runs ``ast.literal_eval``, a large part of reading a small part file); any other header is
    parsed and checked field by field."""
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": np.lib.format.dtype_to_descr(dtype),
                                               "fortran_order": False, "shape": tuple(map(int, shape))})
    return out.getvalue()


def _array(bad: Callable[[str], BaseException], name: str, info: zipfile.ZipInfo, home: bytearray, at: int,
           want: tuple["np.dtype[Any]", tuple[int, ...]]) -> np.ndarray:
    """The array of the member whose .npy bytes are ``home[at:at + info.file_size]``, its header's dtype and shape
    ``want``'s (no object arrays, nothing unpickled); a view of ``home``."""
    dtype, shape = want
    expected = _expected_header(dtype, shape)
    if memoryview(home)[at:at + len(expected)] == expected:  # the header this module writes for them: no parse
        header = len(expected)
        count = math.prod(shape)
        if header + count * dtype.itemsize != info.file_size:
            raise bad(f"array {name}: {info.file_size - header:,} bytes of data for {count:,} values of {dtype}")
        return np.frombuffer(home, dtype=dtype, count=count, offset=at + header).reshape(shape)
    member = _View(memoryview(home)[at:at + info.file_size])
    try:
        with _HEADER_LOCK:  # numpy reads the header with ast.literal_eval: one thread at a time (see the lock)
            version = np.lib.format.read_magic(member)
            if version == (1, 0):
                got_shape, fortran, got_dtype = np.lib.format.read_array_header_1_0(member)
            elif version == (2, 0):
                got_shape, fortran, got_dtype = np.lib.format.read_array_header_2_0(member)
            else:
                raise ValueError(f".npy version {version}")
    except (ValueError, SyntaxError, TypeError, EOFError, OSError) as err:
        raise bad(f"array {name}: not a readable .npy header ({err})") from None
    if got_dtype.hasobject:
        raise bad(f"array {name} holds Python objects (refused: nothing in a checkpoint is unpickled)")
    if got_dtype != dtype or fortran:
        raise bad(f"array {name} is {got_dtype}{' (Fortran order)' if fortran else ''}, not {dtype}")
    if tuple(got_shape) != shape:
        raise bad(f"array {name} has the shape {tuple(got_shape)}, where the manifest's counts call for {shape}")
    header = member.tell()
    count = math.prod(shape)
    if header + count * dtype.itemsize != info.file_size:
        raise bad(f"array {name}: {info.file_size - header:,} bytes of data for {count:,} values of {dtype}")
    return np.frombuffer(home, dtype=dtype, count=count, offset=at + header).reshape(shape)


class _FileView(_Seekable):
    """A read-only, seekable file over a descriptor of ``length`` bytes, read with ``pread`` (for :mod:`zipfile`
    reading an archive's directory: nothing else of the file is read through it)."""

    def __init__(self, fd: int, length: int):
        self.fd, self.length, self.pos = fd, length, 0

    def readinto(self, buffer: Any) -> int:
        want = max(0, min(len(buffer), self.length - self.pos))
        got = os.pread(self.fd, want, self.pos) if want else b""
        buffer[:len(got)] = got
        self.pos += len(got)
        return len(got)


#: bytes of a deflated file read at a time: its SHA-256 and its members' inflating are fed from one buffer of
#: this size, so reading a file holds its arrays and this, never the file's deflated bytes whole
STREAM_CHUNK = 1 << 16


def _read_streamed(path: str, entry: Entry, spec: Spec, error: ErrorClass,
                   only: "frozenset[str] | None", deflated: bool = True,
                   into: "Mapping[str, np.ndarray] | None" = None) -> dict[str, np.ndarray]:
    """:func:`read_npz` of a file whose members may be deflated, read once from start to end through one
    :data:`STREAM_CHUNK` buffer: its directory first (the members to inflate and where their data lies, checked
    as :func:`parse_npz` checks them), then every byte into its SHA-256 and each member's bytes into its own
    buffer (inflated, or copied when stored), of the size the spec calls for. The refusals are
    :func:`parse_npz`'s, a changed SHA-256 first, whatever else is wrong."""
    size, digest = entry[0], entry[1]
    bad = _bad(path, error)
    fd = _open_checked(path, size, error)
    try:
        early: BaseException | None = None
        members: list[tuple[str, zipfile.ZipInfo, int, bool]] = []
        try:
            members = _members(bad, _FileView(fd, size), size, spec, deflated, only)
        except Exception as err:  # (reported after the SHA-256: a changed file is named as changed)
            early = err
        sinks: list[tuple[int, int, Any]] = []
        for name, info, start, inflate in members:
            if into is not None and name in into and not inflate:
                sink: Any = _Into(bad, name, info, into[name], spec[name])
            else:
                sink = _Inflater(bad, name, info) if inflate else _Copy(bad, name, info)
            sinks.append((start, start + info.compress_size, sink))
        failed: dict[int, BaseException] = {}
        done: dict[int, Any] = {}
        h = hashlib.sha256()
        buf = bytearray(max(1, min(INTO_CHUNK if into else STREAM_CHUNK, size)))
        view = memoryview(buf)
        os.lseek(fd, 0, os.SEEK_SET)
        pos = 0
        while pos < size:
            got = _fill(fd, view[:min(len(buf), size - pos)])
            if got <= 0:
                raise error(f"{path}: it changed size while being read")
            chunk = view[:got]
            h.update(chunk)
            for i, (a, b, sink) in enumerate(sinks):
                lo, hi = max(a, pos), min(b, pos + got)
                if i in failed or i in done or lo > hi:  # (not in this chunk)
                    continue
                try:
                    if hi > lo:
                        sink.feed(chunk[lo - pos:hi - pos])
                    if b <= pos + got:  # (its data all fed: finished now, its inflater freed)
                        done[i] = sink.finish()
                except Exception as err:
                    failed[i] = err
            pos += got
        if os.read(fd, 1):
            raise error(f"{path}: it changed size while being read")
        if h.hexdigest() != digest:
            raise error(_changed(path))
        if early is not None:
            raise early
        out: dict[str, np.ndarray] = {}
        for i, (name, info, _start, _inflate) in enumerate(members):
            if i in failed:
                raise failed[i]
            got = done[i]
            out[name] = got if isinstance(got, np.ndarray) else _array(bad, name, info, got, 0, spec[name])
        return out
    except OSError as err:
        raise error(f"{path}: cannot read it ({err.strerror or err})") from None
    finally:
        os.close(fd)


#: bytes inflated at a time into a member's buffer (the buffer is made once, of the size the member declares),
#: and bytes of deflated data handed to zlib at a time: what inflating holds beside the buffer stays this small
INFLATE_CHUNK = 1 << 12


class _Inflater:
    """A deflated member's bytes, exactly the ``info.file_size`` it declares (never more is inflated: its buffer
    is made once, of that size, and filled :data:`INFLATE_CHUNK` bytes at a time), its CRC-32 the one it
    declares: fed its deflated data in pieces (:meth:`feed`), then :meth:`finish`."""

    def __init__(self, bad: Callable[[str], BaseException], name: str, info: zipfile.ZipInfo):
        self.bad, self.name, self.size, self.crc_wanted = bad, name, info.file_size, info.CRC
        self.engine: Any = None  # (made at the first feed, dropped at finish: one member's inflater at a time)
        self.out = bytearray(self.size)
        self.at = self.crc = 0
        self.extra = False  # (deflated data past its end)

    def feed(self, data: Any) -> None:
        if self.engine is None:
            self.engine = zlib.decompressobj(-zlib.MAX_WBITS)
        engine, size, name = self.engine, self.size, self.name
        try:
            for a in range(0, len(data), INFLATE_CHUNK):
                left: Any = data[a:a + INFLATE_CHUNK]
                full = False  # the last call gave all the bytes it was allowed: zlib may hold more
                while left or full:
                    if engine.eof:
                        if left:
                            self.extra = True
                            return
                        break
                    room = size - self.at
                    cap = min(INFLATE_CHUNK, room) if room else 1
                    got = engine.decompress(left, cap)
                    left, full = engine.unconsumed_tail, len(got) == cap
                    if len(got) > room:
                        raise self.bad(f"array {name}: its deflated data holds more than the {size:,} bytes it "
                                       "declares")
                    self.out[self.at:self.at + len(got)] = got
                    self.crc = zlib.crc32(got, self.crc)
                    self.at += len(got)
        except zlib.error as err:
            raise self.bad(f"array {name}: not readable deflated data ({err})") from None

    def finish(self) -> bytearray:
        engine, self.engine = self.engine, None
        if engine is None or self.at != self.size or not engine.eof or engine.unused_data or self.extra:
            raise self.bad(f"array {self.name}: its deflated data is not the {self.size:,} bytes it declares")
        if self.crc != self.crc_wanted:
            raise self.bad(f"array {self.name}: its CRC-32 is not the one it declares")
        return self.out


class _Copy:
    """A stored member's bytes copied into a buffer of its size (the feeding :class:`_Inflater` has)."""

    def __init__(self, bad: Callable[[str], BaseException], name: str, info: zipfile.ZipInfo):
        self.out = bytearray(info.file_size)
        self.at = 0

    def feed(self, data: Any) -> None:
        self.out[self.at:self.at + len(data)] = data
        self.at += len(data)

    def finish(self) -> bytearray:
        return self.out


#: bytes read at a time into arrays made beforehand (:func:`read_npz`'s ``into``: files of gigabytes)
INTO_CHUNK = 1 << 20


class _Into:
    """A stored member's bytes: its .npy header (which must be the one this module writes for the spec's dtype
    and shape) into a small buffer, its data straight into ``target``'s memory."""

    def __init__(self, bad: Callable[[str], BaseException], name: str, info: zipfile.ZipInfo, target: np.ndarray,
                 want: tuple["np.dtype[Any]", tuple[int, ...]]):
        dtype, shape = want
        if target.dtype != dtype or target.shape != shape or not target.flags.c_contiguous \
                or not target.flags.writeable:  # pragma: no cover - the caller's mistake, not the file's
            raise ValueError(f"array {name}: a writable C-ordered {dtype} of shape {shape} to read into")
        self.bad, self.name = bad, name
        self.expected = _expected_header(dtype, shape)
        # (a member of another size is refused once the whole file's SHA-256 is checked, as every refusal is)
        self.wrong = info.file_size != len(self.expected) + target.nbytes
        self.size = info.file_size
        self.head = bytearray()
        self.target = target
        self.data = target.reshape(-1).view(np.uint8).data if target.size else memoryview(bytearray())
        self.at = 0

    def feed(self, data: Any) -> None:
        if self.wrong:
            return
        need = len(self.expected) - len(self.head)
        if need > 0:
            self.head += data[:need]
            data = data[need:]
        if len(data):
            self.data[self.at:self.at + len(data)] = data
            self.at += len(data)

    def finish(self) -> np.ndarray:
        if self.wrong:
            raise self.bad(f"array {self.name}: {self.size:,} bytes, where the manifest's counts call for "
                           f"{self.target.nbytes:,} and a header")
        if bytes(self.head) != self.expected:
            raise self.bad(f"array {self.name}: not the .npy header this program writes for it")
        return self.target


#: values compared at a time by :func:`outside` (its temporaries stay a few hundred KB, whatever the file)
RANGE_CHUNK = 1 << 10


def outside(values: np.ndarray, lo: Any, hi: Any) -> bool:
    """Whether some value is outside ``lo <= v < hi`` (bounds numbers, or arrays of the same length), compared
    :data:`RANGE_CHUNK` values at a time."""
    for a in range(0, len(values), RANGE_CHUNK):
        b = a + RANGE_CHUNK
        low = lo[a:b] if isinstance(lo, np.ndarray) else lo
        high = hi[a:b] if isinstance(hi, np.ndarray) else hi
        v = values[a:b]
        if np.any((v < low) | (v >= high)):
            return True
    return False


def check_ranges(path: str, arrays: Mapping[str, np.ndarray], ranges: Mapping[str, tuple[Any, Any]],
                 error: ErrorClass, ids: str = "the ids it may hold") -> None:
    """Every array ``ranges`` names within its bounds ``lo <= v < hi`` (numbers, or arrays of bounds: ``ids``
    says what they are, in words), else ``error`` naming the file, the array and a value outside."""
    for name, (lo, hi) in ranges.items():
        if outside(arrays[name], lo, hi):
            bad = arrays[name][(arrays[name] < lo) | (arrays[name] >= hi)][0]  # (once, on the way to an error)
            where = f"{lo}..{hi - 1}" if isinstance(lo, int) and isinstance(hi, int) else ids
            raise error(f"{path}: {name} holds {int(bad)}, outside {where}; remove the folder to start again")


def check_present(folder: str, files: Mapping[str, Entry], error: ErrorClass) -> None:
    """Every part file the manifest lists (``files``: name inside ``folder`` -> entry) is there, a regular file of
    the size it gives (nothing is read; the contents are checked as each file is read)."""
    for rel, entry in files.items():
        path = os.path.join(folder, rel)
        kind = not_a_regular_file(path)
        if kind is not None:
            raise error(f"{path}: {kind}, not a regular file; the checkpoint's part files are regular files")
        try:
            size = os.lstat(path).st_size
        except FileNotFoundError:
            raise error(f"{path}: missing (the checkpoint's manifest lists it); remove the folder to start "
                        "again") from None
        except OSError as err:
            raise error(f"{path}: cannot read it ({err.strerror or err})") from None
        if size != entry[0]:
            raise error(f"{path}: {size:,} bytes where the manifest says {entry[0]:,} (cut short, emptied or "
                        "replaced); remove the folder to start again")
