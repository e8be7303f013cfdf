"""Dask for the runners that spread work over processes or machines: tournaments and Quarto proofs.

:func:`connect` opens a client on a scheduler (an address like
``tcp://host:8786``) or takes a ``distributed.Client`` as it is;
:func:`dask_client` also starts a ``LocalCluster`` of worker processes when no
scheduler is given, and closes what it opened. Dask is the optional extra
``[cluster]``: it is imported only here, only when called.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, Iterator

from .errors import QuaternityError


class ClusterError(QuaternityError, ValueError):
    """No Dask installed, or no scheduler at the address given."""


def connect(cluster: Any) -> tuple[Any, bool]:
    """``(client, own)``: a client on the scheduler ``cluster`` (own: close it when done), or ``cluster``
    itself when it is a ``distributed.Client`` (not own)."""
    try:
        from dask.distributed import Client
    except ImportError:  # pragma: no cover - depends on the installed extras
        raise ClusterError("--cluster needs Dask: pip install 'quaternity-cp[cluster]'") from None
    if isinstance(cluster, Client):
        return cluster, False
    try:
        return Client(cluster), True
    except (OSError, TimeoutError, ValueError) as err:
        raise ClusterError(f"cannot reach the Dask scheduler at {cluster}: {err}") from None


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Dask's own log lines (a worker's lost heartbeat, the client's cancelled waits when a run is interrupted)
    kept off the terminal for the time of the block: the command says in one line what happened."""
    import logging

    names = ("distributed", "asyncio", "tornado")
    before = {name: logging.getLogger(name).level for name in names}
    for name in names:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for name, level in before.items():
            logging.getLogger(name).setLevel(level)


@contextlib.contextmanager
def dask_client(cluster: Any = None, workers: int | None = None) -> Iterator[Any]:
    """A Dask client for the time of the block: on ``cluster`` (see :func:`connect`), or, when it is None, on
    a new ``LocalCluster`` of ``workers`` single-threaded processes (None: one per core), closed after. Dask's
    log lines are kept quiet meanwhile (the workers' too)."""
    with _quiet():
        with _client(cluster, workers) as client:
            yield client


@contextlib.contextmanager
def _workers_ignore_ctrl_c() -> Iterator[None]:
    """Worker processes started in the block ignore Ctrl-C (an ignored signal stays ignored in a new process):
    a Ctrl-C at the terminal reaches the whole process group, and this process, which owns the cluster, stops
    the work and closes it; the workers would otherwise each print a traceback of their own. This process's
    own Ctrl-C is held meanwhile, not lost: the signal is also blocked in this thread, and Linux keeps a signal
    its target blocks pending even while it is ignored; it arrives as the block ends, once the handler of
    before is back. (A thread of this process that does not block it could take it and drop it meanwhile:
    the ``quaternity`` command starts numpy's threads with Ctrl-C blocked, see ``cli/entry.py``.)"""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    try:  # (multiprocessing's resource tracker, started with the first worker, unblocks Ctrl-C in the thread that
        # starts it: started here first, before the block)
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    except (ImportError, OSError):  # pragma: no cover - a platform without it
        pass
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if hasattr(signal, "pthread_sigmask") else None
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # (a Ctrl-C held meanwhile arrives here)


@contextlib.contextmanager
def _client(cluster: Any, workers: int | None) -> Iterator[Any]:
    if cluster is not None:
        client, own = connect(cluster)
        try:
            yield client
        finally:
            if own:
                client.close()
        return
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - depends on the installed extras
        raise ClusterError("local workers need Dask: pip install 'quaternity-cp[cluster]'") from None
    import logging

    local: list[Any] = []
    try:
        with _workers_ignore_ctrl_c():  # (a Ctrl-C meanwhile is raised as it ends: the cluster is closed below)
            local.append(LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                                      processes=True, dashboard_address=":0", silence_logs=logging.CRITICAL))
        client = Client(local[0])
        try:
            yield client
        finally:
            client.close()
    finally:
        for started in local:
            started.close()


__all__ = ["ClusterError", "connect", "dask_client"]
