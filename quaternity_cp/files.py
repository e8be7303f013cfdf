"""Writing output files atomically: a reader sees the old file or the whole new one, never a part.

Every file the package writes (pages, pictures, plots, game records) goes
through :func:`atomic_path`: the content is written to a temporary file in the
same folder, then renamed over the target in one step. If writing fails, the
temporary file is removed and the target is left as it was.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> target = os.path.join(folder, "page.txt")
>>> write_atomic(target, "hello")
>>> open(target).read()
'hello'
>>> sorted(os.listdir(folder))
['page.txt']

This module imports nothing of the package.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from typing import Iterator

__all__ = ["atomic_path", "write_atomic", "probe_folder", "not_a_regular_file", "output_fault"]


def not_a_regular_file(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is, in words, when it exists and is not a regular file (``"a character device"``, ``"a
    pipe (FIFO)"``, ``"a symbolic link"``, ...); None when it is a regular file or does not exist. An output is
    written only over a regular file: renaming over a device or a pipe would replace it by a plain file."""
    try:
        mode = os.lstat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    for test, words in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"),
                        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                        (stat.S_ISFIFO, "a pipe (FIFO)"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return "not a regular file"


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[str]:
    """A temporary path beside ``path`` (same folder, same suffix) to write to; renamed to ``path`` on success.

    Raises :class:`OSError` when the folder cannot take a new file.
    """
    target = os.fspath(path)
    kind = not_a_regular_file(target)
    if kind is not None:
        raise OSError(errno.EEXIST, f"{kind}, not a regular file: it is not replaced", target)
    fd, tmp = _temporary(target)
    os.close(fd)
    try:
        yield tmp
        with contextlib.suppress(OSError):
            os.chmod(tmp, _NEW_FILE_MODE)  # mkstemp makes 0600; a written file gets the usual permissions
        kind = not_a_regular_file(target)  # made meanwhile: still never replaced
        if kind is not None:
            raise OSError(errno.EEXIST, f"{kind}, not a regular file: it is not replaced", target)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


#: Characters of text written at once by :func:`write_atomic`.
_CHUNK = 1 << 20


#: The characters of the target's name that name its temporary file: a name near the file system's limit of 255
#: bytes still has a temporary file that fits (.NAME.XXXXXXXX.tmp.SUFFIX).
_TEMP_NAME = 64


def _temporary(target: str) -> tuple[int, str]:
    """A new temporary file beside ``target`` (its descriptor and path): hidden, named after the target, with its
    suffix, and short enough for any name the target may have."""
    folder = os.path.dirname(os.path.abspath(target))
    base = os.path.basename(target)
    suffix = os.path.splitext(base)[1][:16]
    return tempfile.mkstemp(dir=folder, prefix=f".{base[:_TEMP_NAME]}.", suffix=f".tmp{suffix}")


def output_fault(path: str | os.PathLike[str]) -> str | None:
    """Why the file ``path`` cannot be written as a new output (in words: the end of a sentence), or None when it
    can: a name that ends in a folder separator or names no file, a name longer than the file system takes, a
    folder that does not exist or cannot take a new file. The temporary file :func:`atomic_path` would use is
    made and removed at once to find out, so this is asked before any work, not found after it."""
    target = os.fspath(path)
    base = os.path.basename(target)
    if not target or target.endswith((os.sep, "/")) or (os.altsep and target.endswith(os.altsep)) \
            or base in ("", ".", ".."):
        return "names a folder, not a file (it ends with a separator, or is . or ..); give a file name"
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        return f"the folder {os.path.dirname(target) or '.'} does not exist"
    try:
        limit = os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        limit = 255
    size = len(os.fsencode(base))
    if size > limit:
        return f"the file name is {size:,} bytes long, more than the {limit:,} this file system takes"
    try:
        fd, tmp = _temporary(target)
        os.close(fd)
        os.unlink(tmp)
    except OSError as err:
        return f"cannot write in {os.path.dirname(target) or '.'} ({err.strerror or err})"
    return None


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        if isinstance(data, str):
            with open(tmp, "w", encoding="utf-8") as fh:
                for start in range(0, len(data), _CHUNK):  # a megabyte at a time: no copy of a large page
                    fh.write(data[start:start + _CHUNK])
        else:
            with open(tmp, "wb") as fh:
                fh.write(data)


def probe_folder(folder: str | os.PathLike[str]) -> None:
    """Raise :class:`OSError` unless a new file can be made in ``folder`` (made and removed at once)."""
    fd, tmp = tempfile.mkstemp(dir=os.fspath(folder) or ".", prefix=".quaternity-probe.", suffix=".tmp")
    os.close(fd)
    os.unlink(tmp)


def _new_file_mode() -> int:
    """0666 less the process's umask: the mode ``open`` gives a new file (read once, at import: setting
    the umask to read it is not safe while other threads make files)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_NEW_FILE_MODE = _new_file_mode()
