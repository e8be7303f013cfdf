"""Compiled work side by side on threads, its results in order: :func:`ordered_map`.

A compiled kernel that releases the GIL (numba's ``nogil=True``) runs on several cores from one process when its
calls are made from threads. :func:`ordered_map` makes them: ``fn`` over ``items`` on up to ``threads`` threads,
yielding each result in the order of ``items``, with at most ``threads + 1`` calls started and not yet consumed
(so the memory held is that of ``threads + 1`` results, however many items there are). With ``threads`` 1 it calls
``fn`` in the caller's thread, one item after the other: the same results.

The pools are kept per thread count for the life of the process (their threads idle between calls). A result
not consumed (the caller stopped, an exception) cancels the calls not started; those running finish on their
thread and are dropped.

A Ctrl-C that arrives while such a kernel runs in the main thread is handled as the kernel takes the GIL back, and
numba then returns with the KeyboardInterrupt set: Python reports a ``SystemError`` caused by it (or by a
``SystemError`` of numba's own helpers caused by it). :func:`released`
calls a kernel and raises that interrupt as the KeyboardInterrupt it is (so a build says "interrupted", not "a
task failed").

What the machine gives this process is here too: :func:`available_cores`, :func:`memory_available`.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: the most threads a pool takes
MAX_THREADS = 256

_POOLS: dict[int, ThreadPoolExecutor] = {}
_LOCK = threading.Lock()


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it, else the machine's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def memory_available() -> int | None:
    """The bytes of memory this process may still use: the system's available memory, or the control group's
    limit less its use when lower; None when neither can be read."""
    found: list[int] = []
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        try:
            with open(limit_file, encoding="ascii") as fh:
                limit = fh.read().strip()
            with open(usage_file, encoding="ascii") as fh:
                used = int(fh.read().strip())
        except (OSError, ValueError):
            continue
        if limit.isdigit() and int(limit) < 2**60:
            found.append(max(0, int(limit) - used))
    return min(found) if found else None


def check_threads(threads: object) -> int:
    """``threads`` as a whole number from 1 to :data:`MAX_THREADS`; else ``ValueError`` naming it."""
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"threads must be a whole number from 1 to {MAX_THREADS}, not {threads!r}")
    return threads


def _pool(threads: int) -> ThreadPoolExecutor:
    with _LOCK:
        pool = _POOLS.get(threads)
        if pool is None:
            pool = _POOLS[threads] = ThreadPoolExecutor(threads, thread_name_prefix=f"kernel{threads}")
        return pool


def released(kernel: Callable[..., R], *args: object) -> R:
    """``kernel(*args)`` for a compiled kernel that releases the GIL, a Ctrl-C during it raised as KeyboardInterrupt
    (see the module's text)."""
    try:
        return kernel(*args)
    except SystemError as err:
        cause: BaseException | None = err
        for _ in range(8):  # (numba may nest it: the kernel's SystemError caused by its unpickler's, caused by it)
            cause = None if cause is None else (cause.__cause__ or cause.__context__)
            if isinstance(cause, KeyboardInterrupt):
                raise KeyboardInterrupt from None
        raise


def ordered_map(fn: Callable[[T], R], items: Iterable[T], threads: int = 1) -> Iterator[R]:
    """``fn(item)`` for each of ``items``, in their order, computed on up to ``threads`` threads at once (see the
    module's text)."""
    threads = check_threads(threads)
    todo = iter(items)
    if threads == 1:
        for item in todo:
            yield fn(item)
        return
    pool = _pool(threads)
    window: deque[Future[R]] = deque()
    try:
        for item in todo:
            window.append(pool.submit(fn, item))
            if len(window) > threads:  # (the threads stay busy while the caller takes a result)
                yield window.popleft().result()
        while window:
            yield window.popleft().result()
    finally:
        for f in window:
            f.cancel()


__all__ = ["MAX_THREADS", "available_cores", "memory_available", "check_threads", "ordered_map", "released"]
